#include "plots/figures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "numerics/files.hpp"
#include "verify/cases/toml_reader.hpp"
#include "verify/report/report.hpp"

namespace privamp::plots {

namespace {

using verify::Case;
using verify::Row;

// Whether a point has the series' `where` values.
bool selects(const Series& s, const verify::Params& p) {
  for (const auto& [key, want] : s.where) {
    if (const double* d = std::get_if<double>(&want)) {
      const auto it = p.numbers.find(key);
      if (it == p.numbers.end() || std::abs(it->second - *d) > 1e-12 * std::max(1.0, std::abs(*d))) return false;
    } else {
      const auto it = p.words.find(key);
      if (it == p.words.end() || it->second != std::get<std::string>(want)) return false;
    }
  }
  return true;
}

bool has_parameter(const Case& c, const std::string& name) {
  return std::any_of(c.grid.begin(), c.grid.end(), [&](const auto& e) { return e.first == name; }) ||
         std::any_of(c.derived.begin(), c.derived.end(), [&](const auto& e) { return e.first == name; });
}

class FigureReader : public verify::TomlReader {
 public:
  FigureReader(std::string file, const std::vector<Case>& cases) : TomlReader(std::move(file)), cases_(cases) {}

  // A [style] table (or a figure's style = {...}) over `base`.
  Style style(const toml::node* n, const std::string& key, Style base) const {
    if (!n) return base;
    if (!n->is_table()) fail(n, key, "must be a table of style keys (size, width, height, font, font_size, line_width, palette, outputs)");
    const toml::table& t = *n->as_table();
    check_keys(t, verify::kStyleKeys, key + ".");
    if (const toml::node* size = t.get("size")) {
      const std::string v = text(t, "size");
      if (v == "single") base.width = 3.5, base.height = 2.6;
      else if (v == "double") base.width = 7.0, base.height = 3.0;
      else fail(size, key + ".size", "must be single (3.5 x 2.6 in) or double (7 x 3 in); or give width and height");
    }
    auto bounded = [&](const char* name, double value, double lo, double hi, const char* unit) {
      const double v = number(t, name, value);
      if (!(v >= lo && v <= hi)) fail(t.get(name), key + "." + name, fmt::format("must be in [{}, {}] {} (got {})", lo, hi, unit, v));
      return v;
    };
    base.width = bounded("width", base.width, 1, 20, "inches");
    base.height = bounded("height", base.height, 1, 20, "inches");
    base.font_size = bounded("font_size", base.font_size, 4, 30, "points");
    base.line_width = bounded("line_width", base.line_width, 0.25, 8, "");
    base.font = text(t, "font", base.font);
    base.show_title = boolean(t, "show_title", base.show_title);
    if (base.font.empty() || base.font.size() > 64 ||
        base.font.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -") != std::string::npos)
      fail(t.get("font"), key + ".font", "must be a font family name of letters, digits, spaces and '-'");
    auto words = [&](const char* name) {
      std::vector<std::string> out;
      const toml::node* a = t.get(name);
      if (!a->is_array() || a->as_array()->empty() || a->as_array()->size() > 16) fail(a, key + "." + name, "must be a list of 1 to 16 strings");
      for (const auto& e : *a->as_array()) {
        if (!e.is_string()) fail(&e, key + "." + name, "must list strings");
        out.push_back(**e.as_string());
      }
      return out;
    };
    if (t.get("palette")) {
      base.palette = words("palette");
      for (const std::string& c : base.palette)
        if (c.size() != 7 || c[0] != '#' || c.find_first_not_of("0123456789abcdefABCDEF", 1) != std::string::npos)
          fail(t.get("palette"), key + ".palette", fmt::format("'{}' is not a colour: give #RRGGBB", c));
    }
    if (t.get("outputs")) {
      base.outputs = words("outputs");
      for (const std::string& o : base.outputs)
        if (o != "pdf" && o != "png" && o != "pgfplots")
          fail(t.get("outputs"), key + ".outputs", fmt::format("'{}': allowed pdf, png, pgfplots", o));
    }
    return base;
  }

  Figure read(const toml::table& t, const Style& file_style) const {
    check_keys(t, verify::kFigureKeys);
    Figure f;
    f.file = file_;
    f.style = style(t.get("style"), "style", file_style);
    f.name = text(t, "name");
    if (f.name.empty() || f.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
      fail(t.get("name"), "name", "must be a non-empty file stem of letters, digits, '_' and '-'");
    f.title = label(t, "title", f.name);
    f.description = text(t, "description", "");  // written as comment lines
    f.x = text(t, "x");
    f.xlabel = label(t, "xlabel", f.x);
    f.ylabel = label(t, "ylabel", "");
    f.log = text(t, "log", "");
    if (f.log != "" && f.log != "x" && f.log != "y" && f.log != "xy") fail(t.get("log"), "log", "must be \"\", x, y or xy");
    f.key = key(t);
    f.xrange = range(t, "xrange");
    f.yrange = range(t, "yrange");
    for (const auto& [axis, r] : {std::pair{'x', f.xrange}, std::pair{'y', f.yrange}})
      if (r && f.log.find(axis) != std::string::npos && !(r->first > 0))
        fail(t.get(std::string(1, axis) + "range"), std::string(1, axis) + "range",
             fmt::format("a log {} axis needs a range above 0 (got [{}, {}])", axis, r->first, r->second));
    const toml::node* s = t.get("series");
    if (!s || !s->is_array_of_tables() || s->as_array()->empty())
      fail(s ? s : &t, "series", "a figure needs [[figure.series]] tables");
    int index = 0;
    for (const auto& e : *s->as_array()) f.series.push_back(read_series(*e.as_table(), f, index++));
    return f;
  }

 private:
  // Text drawn by gnuplot (titles, labels): any characters but control characters, which would end its command.
  std::string label(const toml::table& t, const std::string& key, const std::string& fallback) const {
    std::string s = text(t, key, fallback);
    if (has_control_character(s))
      fail(t.get(key), key, "must be one line of text without control characters (newlines, tabs, escapes)");
    if (s.size() > 1000) fail(t.get(key), key, fmt::format("{} characters; at most 1000", s.size()));
    return s;
  }

  // key: words of a fixed vocabulary ("below nobox"), or a table {position, box, opaque, columns, off}.
  KeyOptions key(const toml::table& t) const {
    const toml::node* n = t.get("key");
    if (!n) return {};
    if (n->is_string()) try {
        return parse_key_words(**n->as_string());
      } catch (const InvalidArgument& e) {
        fail(n, "key", e.what());
      }
    if (!n->is_table()) fail(n, "key", "must be words such as \"below nobox\" or a table {position = \"top left\", box = true}");
    const toml::table& k = *n->as_table();
    check_keys(k, verify::kFigureKeyKeys, "key.");
    KeyOptions o;
    o.position = text(k, "position", o.position);
    if (o.position.find_first_not_of(' ') == std::string::npos) fail(k.get("position"), "key.position", "must not be empty");
    std::istringstream words(o.position);
    for (std::string w; words >> w;)
      if (!is_key_position_word(w))
        fail(k.get("position"), "key.position", fmt::format("'{}' is not a position (allowed: below, above, top, bottom, left, right, center, inside, outside)", w));
    o.box = boolean(k, "box", false);
    o.opaque = boolean(k, "opaque", o.opaque);
    o.off = boolean(k, "off", false);
    const double columns = number(k, "columns", 0);
    if (!(columns >= 0 && columns <= 20 && columns == std::floor(columns)))
      fail(k.get("columns"), "key.columns", fmt::format("must be an integer in [0, 20] (0: gnuplot's choice; got {})", columns));
    o.columns = static_cast<int>(columns);
    return o;
  }

  std::optional<std::pair<double, double>> range(const toml::table& t, const std::string& key) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    const toml::array* a = n->as_array();
    if (!a || a->size() != 2 || !(*a)[0].value<double>() || !(*a)[1].value<double>())
      fail(n, key, "must be [low, high]");
    const double lo = *(*a)[0].value<double>(), hi = *(*a)[1].value<double>();
    if (!(lo < hi)) fail(n, key, "needs low < high");
    return std::make_pair(lo, hi);
  }

  const Case& find_case(const toml::table& t, const std::string& name) const {
    const Case* found = nullptr;
    for (const Case& c : cases_)
      if (c.name == name) {
        if (found)
          fail(t.get("case"), "series.case",
               fmt::format("'{}' names a case in both {} and {}: load only one of them", name, found->file, c.file));
        found = &c;
      }
    if (!found) {
      std::vector<std::string> names;
      for (const Case& c : cases_) names.push_back("'" + c.name + "'");
      fail(t.get("case"), "series.case", fmt::format("no case named '{}' ({}loaded: {})", name, did_you_mean(name, names), fmt::join(names, ", ")));
    }
    return *found;
  }

  Series read_series(const toml::table& t, const Figure& f, int index) const {
    check_keys(t, verify::kSeriesKeys, "series.");
    Series s;
    s.case_name = text(t, "case");
    const Case& c = find_case(t, s.case_name);
    s.id = text(t, "id");
    if (std::find(c.bounds.begin(), c.bounds.end(), s.id) == c.bounds.end())
      fail(t.get("id"), "series.id", fmt::format("case '{}' does not check {} (it checks {})", c.name, s.id, fmt::join(c.bounds, ", ")));
    const std::string y = text(t, "y", "exact");
    if (y == "exact") s.y = Series::Y::exact;
    else if (y == "bound") s.y = Series::Y::bound;
    else if (y == "ratio") s.y = Series::Y::ratio;
    else fail(t.get("y"), "series.y", "must be exact, bound or ratio");
    if (f.x == "order" ? c.order.empty() : !has_parameter(c, f.x))
      fail(t.get("case"), "series.case",
           fmt::format("case '{}' has no parameter '{}' for the x axis{}", c.name, f.x,
                       f.x == "order" ? " (it has no order)" : ""));
    if (const toml::node* w = t.get("where")) {
      if (!w->is_table()) fail(w, "series.where", "must be a table of parameter values");
      for (const auto& [k, v] : *w->as_table()) {
        const std::string key(k.str());
        if (!has_parameter(c, key)) fail(&v, "series.where." + key, fmt::format("case '{}' has no parameter '{}'", c.name, key));
        if (auto d = v.value<double>()) s.where.emplace_back(key, *d);
        else if (v.is_string()) s.where.emplace_back(key, std::string(**v.as_string()));
        else fail(&v, "series.where." + key, "must be a number or a word");
      }
    }
    s.scale = text(t, "scale", "");
    // The series' points, known before anything runs: a selection that keeps none, or a scale that is not a
    // finite number at one of them, is refused here.
    std::size_t kept = 0;
    for (const verify::Params& p : c.points()) {
      if (!selects(s, p)) continue;
      ++kept;
      if (!s.scale.empty()) try {
          const double k = verify::evaluate_formula(s.scale, p);
          if (!std::isfinite(k)) throw InvalidArgument(fmt::format("the scale is {} at {}", k, p.describe()));
        } catch (const InvalidArgument& e) {
          fail(t.get("scale"), "series.scale", e.what());
        }
    }
    if (kept == 0) fail(t.get("where") ? t.get("where") : t.get("case"), "series.where", fmt::format("selects no point of case '{}'", c.name));
    s.title = label(t, "title", fmt::format("{} {}", s.id, y));
    s.style = text(t, "style", s.y == Series::Y::exact ? "points" : "lines");
    if (s.style != "points" && s.style != "lines" && s.style != "linespoints")
      fail(t.get("style"), "series.style", "must be points, lines or linespoints");
    const double line = number(t, "line", 1 + index % 6);
    if (!((line >= 1 && line <= 6 && line == std::floor(line)) || line == 9)) fail(t.get("line"), "series.line", "must be 1..6 or 9");
    s.line = static_cast<int>(line);
    return s;
  }

  const std::vector<Case>& cases_;
};

bool matches(const Row& row, const Series& s) {
  return row.case_name == s.case_name && row.id == s.id && selects(s, row.params);
}

}  // namespace

FigureSet load_figures(const std::vector<std::filesystem::path>& paths) {
  FigureSet set;
  set.cases = verify::load_cases(paths);  // declares the files' bounds and checks their cases
  std::set<std::string> names;
  for (const auto& file : verify::case_files(paths)) {
    toml::table doc;
    try {
      doc = toml::parse(read_input_file("figure file", file, 4u << 20), file.string());
    } catch (const toml::parse_error& e) {
      throw InvalidArgument(fmt::format("{}:{}: {}", file.string(), e.source().begin.line, e.description()));
    }
    const toml::node* figures = doc.get("figure");
    if (!figures) continue;
    FigureReader reader(file.string(), set.cases);
    if (!figures->is_array_of_tables()) reader.fail(figures, "figure", "figures are [[figure]] tables");
    const Style file_style = reader.style(doc.get("style"), "style", Style{});
    for (const auto& t : *figures->as_array()) {
      Figure f = reader.read(*t.as_table(), file_style);
      if (!names.insert(f.name).second) reader.fail(&t, "name", fmt::format("figure '{}' is declared twice", f.name));
      set.figures.push_back(std::move(f));
    }
  }
  return set;
}

std::vector<Case> cases_for(const std::vector<const Figure*>& figures, const FigureSet& set, bool reduced) {
  std::vector<Case> out;
  for (const Case& c : set.cases) {
    std::set<std::string> ids, axes;
    for (const Figure* f : figures)
      for (const Series& s : f->series)
        if (s.case_name == c.name) {
          ids.insert(s.id);
          axes.insert(f->x);
        }
    if (ids.empty()) continue;
    Case used = c;
    used.bounds.clear();
    for (const std::string& id : c.bounds)
      if (ids.count(id)) used.bounds.push_back(id);
    if (reduced)  // the x axes (and any long axis) keep first, middle and last: the other selections stay valid
      for (auto& [key, values] : used.grid)
        if (values.size() > 3 && (axes.count(key) || values.size() > 8))
          values = {values.front(), values[values.size() / 2], values.back()};
    out.push_back(std::move(used));
  }
  return out;
}

std::vector<std::vector<Point>> select(const Figure& figure, const std::vector<Row>& rows) {
  std::vector<std::vector<Point>> out;
  for (const Series& s : figure.series) {
    std::vector<Point> points;
    for (const Row& row : rows) {
      if (row.verdict == verify::Verdict::error || !matches(row, s)) continue;
      double x;
      if (figure.x == "order") {
        x = row.order;
      } else {
        const auto it = row.params.numbers.find(figure.x);
        if (it == row.params.numbers.end())
          throw InvalidArgument(fmt::format("figure '{}': x = '{}' is not a number in the rows of case '{}'", figure.name,
                                            figure.x, s.case_name));
        x = it->second;
      }
      const verify::Estimate& e = row.exact;
      const bool bound_interval = !std::isnan(row.bound_lower);
      const double b = row.bound, b_lo = bound_interval ? row.bound_lower : b, b_hi = bound_interval ? row.bound_upper : b;
      Point p{x, 0, 0, 0, verify::to_string(row.verdict)};
      switch (s.y) {
        case Series::Y::exact: p = {x, e.value, e.lower, e.upper, p.verdict}; break;
        case Series::Y::bound: p = {x, b, b_lo, b_hi, p.verdict}; break;
        case Series::Y::ratio:
          if (!(e.lower > 0)) continue;  // bound/exact undefined at this point
          p = {x, b / e.value, b_lo / e.upper, b_hi / e.lower, p.verdict};
          break;
      }
      p.params = row.params;
      if (!s.scale.empty()) {
        const double k = verify::evaluate_formula(s.scale, row.params);
        p.y *= k;
        p.lower *= k;
        p.upper *= k;
        if (k < 0) std::swap(p.lower, p.upper);
      }
      if (!std::isfinite(x) || !std::isfinite(p.y) || !std::isfinite(p.lower) || !std::isfinite(p.upper)) continue;
      if (figure.log.find('y') != std::string::npos && !(p.y > 0)) continue;  // off a log scale
      if (figure.log.find('y') != std::string::npos) p.lower = std::max(p.lower, p.y * 1e-300);
      points.push_back(p);
    }
    std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    out.push_back(std::move(points));
  }
  return out;
}

namespace {

const char* y_name(Series::Y y) { return y == Series::Y::exact ? "exact" : y == Series::Y::bound ? "bound" : "bound/exact"; }

// One row per drawn point: which series, its ID, case and quantity, x, the value, its interval, the verdict and the
// row's parameters (a column each, over all series): for pandas, matplotlib or pgfplots without the gnuplot blocks.
void write_tidy_csv(const Figure& figure, const std::vector<std::vector<Point>>& data, const std::filesystem::path& dir) {
  verify::FlatTable t;
  t.columns = {"series", "id", "case", "y", figure.x == "order" ? "order" : "x_" + figure.x, "value", "lower", "upper", "verdict"};
  std::set<std::string> names;
  for (const auto& points : data)
    for (const Point& p : points) {
      for (const auto& [k, v] : p.params.numbers) names.insert(k);
      for (const auto& [k, v] : p.params.words) names.insert(k);
    }
  for (const std::string& n : names) t.columns.push_back(n);
  for (std::size_t k = 0; k < data.size(); ++k)
    for (const Point& p : data[k]) {
      const Series& s = figure.series[k];
      std::vector<verify::Cell> cells = {s.title.empty() ? fmt::format("{} {}", s.id, y_name(s.y)) : s.title, s.id, s.case_name,
                                         std::string(y_name(s.y)), p.x, p.y, p.lower, p.upper, p.verdict};
      for (const std::string& n : names) cells.push_back(verify::parameter_cell(p.params, n));
      t.rows.push_back(std::move(cells));
    }
  verify::write_table_csv(t, dir / (figure.name + "_tidy.csv"));
}

// What a caption needs: the figure, each series' selection, the verdicts drawn, and whether the intervals show.
std::string caption(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  std::string out = enhanced_to_latex(figure.title) + ".\n";  // texts as LaTeX: a caption goes into a paper
  // Every text of the figure file goes through the LaTeX escaper: the caption is \input into a paper.
  using escape::latex;
  if (!figure.description.empty()) out += latex(figure.description) + "\n";
  std::map<std::string, long> verdicts;
  double widest = 0;  // the largest relative width of an interval drawn
  for (std::size_t k = 0; k < data.size(); ++k) {
    const Series& s = figure.series[k];
    std::vector<std::string> where;
    for (const auto& [key, v] : s.where)
      where.push_back(latex(fmt::format("{} = {}", key, std::holds_alternative<double>(v) ? format_number(std::get<double>(v)) : std::get<std::string>(v))));
    out += fmt::format("- {}: {} of {} in case '{}'{}{}, {} points\n", s.title.empty() ? latex(s.id) : enhanced_to_latex(s.title), y_name(s.y),
                       latex(s.id), latex(s.case_name), where.empty() ? "" : fmt::format(" at {}", fmt::join(where, ", ")),
                       s.scale.empty() ? "" : fmt::format(", times {}", latex(s.scale)), data[k].size());
    for (const Point& p : data[k]) {
      ++verdicts[p.verdict];
      if (p.y != 0 && std::isfinite(p.upper - p.lower)) widest = std::max(widest, (p.upper - p.lower) / std::abs(p.y));
    }
  }
  std::vector<std::string> counts;
  for (const auto& [v, n] : verdicts) counts.push_back(fmt::format("{} {}", n, v));
  out += fmt::format("Verdicts of the points drawn: {}.\n", fmt::join(counts, ", "));
  out += widest < 1e-3 ? fmt::format("Every interval is narrower than its mark (largest relative width {:.2g}): the error bars are "
                                     "not visible at this scale (a series with y = \"ratio\" draws bound/exact, where the "
                                     "distance to 1 shows).\n", widest)
                       : fmt::format("Error bars show each exact value's interval (largest relative width {:.2g}).\n", widest);
  return out;
}

std::string tex_number(double x) { return fmt::format("{:.10g}", x); }

// A pgfplots figure: the axes, each series with its points inline (error bars for intervals), labels typeset by
// LaTeX (the gnuplot markup translated), the style's size and palette.
std::string pgfplots(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  const Style& st = figure.style;
  std::string out = fmt::format("% {} (privamp figures; data: {}_tidy.csv). Needs \\usepackage{{pgfplots}} (and xcolor).\n",
                                figure.name, figure.name);
  for (std::size_t k = 0; k < st.palette.size(); ++k)
    out += fmt::format("\\definecolor{{privamp{}}}{{HTML}}{{{}}}\n", static_cast<char>('A' + k), st.palette[k].substr(1));
  const bool logx = figure.log.find('x') != std::string::npos, logy = figure.log.find('y') != std::string::npos;
  out += fmt::format("\\begin{{tikzpicture}}\n\\begin{{axis}}[width={}in, height={}in, {}xlabel={{{}}}, ylabel={{{}}},\n"
                     "  xmode={}, ymode={}, legend pos=outer north east, legend style={{font=\\footnotesize}}, grid=major{}{}]\n",
                     st.width, st.height, st.show_title ? fmt::format("title={{{}}}, ", enhanced_to_latex(figure.title)) : "",
                     enhanced_to_latex(figure.xlabel),
                     enhanced_to_latex(figure.ylabel), logx ? "log" : "normal", logy ? "log" : "normal",
                     figure.xrange ? fmt::format(", xmin={}, xmax={}", figure.xrange->first, figure.xrange->second) : "",
                     figure.yrange ? fmt::format(", ymin={}, ymax={}", figure.yrange->first, figure.yrange->second) : "");
  for (std::size_t k = 0; k < data.size(); ++k) {
    if (data[k].empty()) continue;
    const Series& s = figure.series[k];
    const std::string colour = s.line == 9 ? "black" : fmt::format("privamp{}", static_cast<char>('A' + (s.line - 1) % st.palette.size()));
    const std::string look = s.style == "points" ? "only marks, mark=*" : s.style == "lines" ? "no marks" : "mark=*";
    out += fmt::format("\\addplot+[{}, color={}, line width={}pt, mark size=1pt, error bars/.cd, y dir=both, y explicit]\n"
                       "  table[x=x, y=y, y error plus=ep, y error minus=em, row sep=\\\\] {{\n  x y ep em \\\\\n",
                       look, colour, st.line_width * 0.5, s.line == 9 ? ", dashed" : "");
    for (const Point& p : data[k])
      out += fmt::format("  {} {} {} {} \\\\\n", tex_number(p.x), tex_number(p.y), tex_number(p.upper - p.y), tex_number(p.y - p.lower));
    out += "};\n";
    out += s.title.empty() ? "\\addlegendentry{}\n" : fmt::format("\\addlegendentry{{{}}}\n", enhanced_to_latex(s.title));
  }
  out += "\\end{axis}\n\\end{tikzpicture}\n";
  return out;
}

}  // namespace

std::string enhanced_to_latex(const std::string& input) {
  const std::string text = escape::plain(input);  // valid UTF-8, no control or bidirectional characters
  static const std::map<char, std::string> greek = {
      {'a', "\\alpha"}, {'b', "\\beta"}, {'g', "\\gamma"}, {'d', "\\delta"}, {'e', "\\varepsilon"}, {'h', "\\eta"},
      {'q', "\\theta"}, {'k', "\\kappa"}, {'l', "\\lambda"}, {'m', "\\mu"}, {'n', "\\nu"}, {'p', "\\pi"},
      {'r', "\\rho"}, {'s', "\\sigma"}, {'t', "\\tau"}, {'f', "\\phi"}, {'c', "\\chi"}, {'y', "\\psi"},
      {'w', "\\omega"}, {'D', "\\Delta"}, {'G', "\\Gamma"}, {'L', "\\Lambda"}, {'S', "\\Sigma"}, {'W', "\\Omega"},
      {'\245', "\\infty"}};
  // In math: a Greek letter, or a group's text escaped for math.
  std::function<std::string(const std::string&)> math = [&](const std::string& t) {
    if (t.size() == 9 && t.compare(0, 8, "/Symbol ") == 0 && greek.count(t[8])) return greek.at(t[8]) + " ";  // _{/Symbol a}
    std::string out;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t.compare(i, 9, "{/Symbol ") == 0) {
        const auto end = t.find('}', i);
        if (end != std::string::npos && end == i + 10 && greek.count(t[i + 9])) {
          out += greek.at(t[i + 9]);
          out += ' ';
          i = end;
          continue;
        }
      }
      const char c = t[i];
      if (c == '{' || c == '}') continue;
      if (c == '%' || c == '#' || c == '&' || c == '$' || c == '_' || c == '^') out += std::string("\\") + c;
      else if (c == '\\' || c == '~') out += ' ';
      else out += c;
    }
    return out;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (text.compare(i, 9, "{/Symbol ") == 0) {
      const auto end = text.find('}', i);
      if (end != std::string::npos) {
        out += '$';
        out += math(text.substr(i, end - i + 1));
        out += '$';
        i = end;
        continue;
      }
    }
    if ((c == '_' || c == '^') && i + 1 < text.size()) {
      std::string group;
      if (text[i + 1] == '{') {  // to the matching brace
        int depth = 0;
        std::size_t j = i + 1;
        for (; j < text.size(); ++j) {
          depth += text[j] == '{' ? 1 : text[j] == '}' ? -1 : 0;
          if (depth == 0) break;
        }
        group = text.substr(i + 2, j - i - 2);
        i = j;
      } else {
        group = text.substr(i + 1, 1);
        ++i;
      }
      out += fmt::format("${}{{{}}}$", c, math(group));
      continue;
    }
    switch (c) {
      case '{': case '}': break;  // gnuplot's grouping
      default:  // one escaper for LaTeX text (bytes of multi-byte characters pass whole)
        if (static_cast<unsigned char>(c) < 0x80) out += escape::latex(std::string_view(&c, 1));
        else out += c;
    }
  }
  return out;
}

bool Style::wants(const std::string& output) const { return std::find(outputs.begin(), outputs.end(), output) != outputs.end(); }

std::string style_preamble(const std::string& output, bool pdf, const Style& style) {
  // One look for every figure: cairo terminals, a light grid, a boxed opaque key, six distinguishable line styles
  // (the palette; also distinct in grey by dash and point type) and a thin black reference style 9. The PNG is the
  // PDF's picture at 200 pixels per inch.
  constexpr double dpi = 200;
  std::string s = pdf ? fmt::format("set terminal pdfcairo enhanced color size {}in,{}in font '{},{}'\n", style.width, style.height,
                                    style.font, style.font_size)
                      : fmt::format("set terminal pngcairo enhanced color size {},{} font '{},{:.1f}'\n", std::lround(style.width * dpi),
                                    std::lround(style.height * dpi), style.font, style.font_size * dpi / 96);
  s += fmt::format("set output {}\n", quoted(output));
  s += "set datafile separator ','\nset grid linecolor rgb '#cccccc' linewidth 0.5\nset key box opaque\nset border lw 1\n"
       "set bars small\nset clip two\nunset clip points\n";
  const int points[6] = {7, 5, 9, 11, 13, 3}, dashes[6] = {1, 1, 1, 4, 2, 3};
  for (int k = 0; k < 6; ++k)
    s += fmt::format("set style line {} lc rgb '{}' lw {} pt {} ps 0.6 dt {}\n", k + 1, style.palette[static_cast<std::size_t>(k) % style.palette.size()],
                     style.line_width, points[k], dashes[k]);
  s += fmt::format("set style line 9 lc rgb 'black' lw {} dt 2\n", std::max(0.5, style.line_width / 2));
  return s;
}

void render(const Figure& figure, const std::vector<std::vector<Point>>& data, const std::filesystem::path& dir) {
  if (!gnuplot_available())
    throw InvalidArgument("gnuplot was not found: install gnuplot-nox (scripts/install-deps.sh does) to render figures");
  if (std::all_of(data.begin(), data.end(), [](const auto& s) { return s.empty(); }))
    throw NumericalError(fmt::format("figure '{}': no verified row to draw", figure.name));
  std::filesystem::create_directories(dir);
  const auto csv = dir / (figure.name + ".csv");
  {
    // One block per series, two blank lines apart (gnuplot's `index`); the header is a comment line.
    OutputFile checked(csv);
    std::ostream& out = checked.stream();
    out << "# series,x,y,lower,upper,verdict\n";
    out.precision(17);
    bool first = true;
    for (std::size_t k = 0; k < data.size(); ++k) {
      if (data[k].empty()) continue;  // gnuplot counts only non-empty blocks
      if (!first) out << "\n\n";
      first = false;
      const Series& s = figure.series[k];
      out << fmt::format("# series {}: {} of {} in case '{}'{}\n", k, s.y == Series::Y::exact ? "exact" : s.y == Series::Y::bound ? "bound" : "bound/exact",
                         s.id, s.case_name, s.title.empty() ? "" : " (" + s.title + ")");
      for (const Point& p : data[k])
        out << k << ',' << p.x << ',' << p.y << ',' << p.lower << ',' << p.upper << ',' << p.verdict << "\n";
    }
    checked.close();
  }
  // Axis ranges from the data with a small margin (not padded to whole decades); no minor ticks on log axes (over
  // many decades they bunch into combs).
  std::string body = "set autoscale fix\nset offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\n";
  for (const char axis : {'x', 'y'}) {
    if (figure.log.find(axis) == std::string::npos) continue;
    double lo = HUGE_VAL, hi = 0;  // the positive values drawn on this axis
    for (const auto& points : data)
      for (const Point& p : points)
        for (double v : axis == 'x' ? std::vector<double>{p.x} : std::vector<double>{p.lower, p.y, p.upper})
          if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    body += fmt::format("set logscale {}\n", axis);
    if (axis == 'y') body += "set format y '10^{%L}'\n";
    if (!(hi > lo)) continue;
    if (std::log10(hi / lo) < 2) {  // under two decades: ticks at 1, 2 and 5 times the powers of ten in range
      std::vector<std::string> tics;
      for (int k = static_cast<int>(std::floor(std::log10(lo))); k <= static_cast<int>(std::ceil(std::log10(hi))); ++k)
        for (double m : {1.0, 2.0, 5.0})
          if (const double t = m * std::pow(10.0, k); t >= lo * 0.999 && t <= hi * 1.001) tics.push_back(fmt::format("{:g}", t));
      if (tics.size() >= 2) body += fmt::format("set {}tics ({})\nset format {} '%g'\n", axis, fmt::join(tics, ", "), axis);
    } else if (std::log10(hi / lo) > 6) {
      body += fmt::format("unset m{}tics\n", axis);  // over many decades minor ticks bunch into combs
    }
  }
  body += fmt::format("set xlabel {}\nset ylabel {}\nset key {}\n", quoted(figure.xlabel), quoted(figure.ylabel), figure.key.render());
  if (figure.xrange) body += fmt::format("set xrange [{}:{}]\n", figure.xrange->first, figure.xrange->second);
  if (figure.yrange) body += fmt::format("set yrange [{}:{}]\n", figure.yrange->first, figure.yrange->second);
  std::vector<std::string> plots;
  const std::string file = quoted(csv.filename().string());  // gnuplot runs in `dir`
  for (std::size_t k = 0, block = 0; k < data.size(); ++k) {
    if (data[k].empty()) continue;  // nothing verified to draw (say, every row in error), and no block in the file
    const Series& s = figure.series[k];
    const std::size_t index = block++;
    const std::string style = s.style == "points" ? "points" : s.style == "lines" ? "lines" : "linespoints";
    // Intervals as error bars (visible where wider than the mark), drawn under the series itself.
    if (s.y != Series::Y::bound || std::any_of(data[k].begin(), data[k].end(), [](const Point& p) { return p.lower < p.upper; }))
      plots.push_back(fmt::format("{} index {} using 2:3:4:5 with yerrorbars ls {} pt -1 notitle", file, index, s.line));
    // Markers of a points-only series are the size of a letter; on lines they stay small.
    plots.push_back(fmt::format("{} index {} using 2:3 with {} ls {}{} title {}", file, index, style, s.line,
                                style == "points" ? " ps 1.3" : "", quoted(s.title)));
  }
  // Violated and inconclusive points marked over their series, each kind once in the key.
  for (const auto& [verdict, mark] : {std::pair{"violated", "pt 2 ps 1.4 lw 2 lc rgb '#d62728'"},
                                      std::pair{"inconclusive", "pt 6 ps 1.4 lw 1.5 lc rgb '#ff7f0e'"}}) {
    bool titled = false;
    for (std::size_t k = 0, block = 0; k < data.size(); ++k) {
      if (data[k].empty()) continue;
      const std::size_t index = block++;
      if (std::none_of(data[k].begin(), data[k].end(), [&](const Point& p) { return p.verdict == verdict; })) continue;
      plots.push_back(fmt::format("{} index {} using 2:(strcol(6) eq '{}' ? $3 : 1/0) with points {} {}", file, index, verdict, mark,
                                  titled ? "notitle" : fmt::format("title '{}'", verdict)));
      titled = true;
    }
  }
  body += "plot " + fmt::format("{}", fmt::join(plots, ", \\\n     ")) + "\n";
  write_tidy_csv(figure, data, dir);
  write_file(dir / (figure.name + "_caption.txt"), caption(figure, data));
  if (figure.style.wants("pgfplots")) write_file(dir / (figure.name + ".tex"), pgfplots(figure, data));
  if (figure.style.wants("pdf") || figure.style.wants("png"))
    render_gnuplot(dir, figure.name, figure.title,
                   fmt::format("{}\ndeclared in {}; data: {} (series, x, y, interval, verdict; one block per series)",
                               figure.description, figure.file, csv.filename().string()),
                   body, figure.style);
}

void render_gnuplot(const std::filesystem::path& dir, const std::string& name, const std::string& title,
                    const std::string& comment, const std::string& body, const Style& style) {
  if (!gnuplot_available())
    throw InvalidArgument("gnuplot was not found: install gnuplot-nox (scripts/install-deps.sh does) to render figures");
  // gnuplot runs in a private folder of ours inside `dir` (reading the data files from `dir` through its loadpath),
  // where it writes its outputs and its log; the finished files are moved into place by rename, refusing links, like
  // every file privamp writes. The script names its files as they are published, so it reruns in `dir` as it is.
  std::vector<std::string> outputs = {name + ".gp", name + ".log"};
  for (const char* kind : {"pdf", "png"})
    if (style.wants(kind)) outputs.push_back(name + "." + kind);
  for (const auto& file : outputs) check_target("", dir / file);
  const std::filesystem::path work = make_temporary_folder(dir, name);
  try {
    OutputFile checked(work / (name + ".gp"));
    std::ostream& out = checked.stream();
    const std::string set_title = style.show_title ? "set title " + quoted(title) + "\n" : "unset title\n";
    std::string commented = "# ";  // every line of the comment a comment line, whatever ends it
    for (char c : comment) commented += c == '\n' ? std::string("\n# ") : has_control_character(std::string(1, c)) ? " " : std::string(1, c);
    out << commented << "\n";
    if (style.wants("pdf")) out << style_preamble(name + ".pdf", true, style) << set_title << body << "set output\n";
    if (style.wants("png")) out << style_preamble(name + ".png", false, style) << set_title << body << "set output\n";
    checked.close();
    run_gnuplot(work, name + ".gp", name + ".log", "..");  // gnuplot's messages go to NAME.log; a failure quotes them
    for (const auto& file : outputs) move_into_place(work / file, dir / file);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(work, ec);
    throw;
  }
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
}

}  // namespace privamp::plots
