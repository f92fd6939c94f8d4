#include "plots/figures.hpp"
#include "plots/figure_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "numerics/files.hpp"
#include "verify/input/toml_reader.hpp"
#include "verify/report/report.hpp"

namespace privamp::plots {

using namespace model;  // what both renderers draw alike (plots/figure_model.hpp)

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
      if (!base.resize(text(t, "size"))) fail(size, key + ".size", "must be single (3.5 x 2.6 in) or double (7 x 3 in); or give width and height");
    }
    auto bounded = [&](const char* name, double value, double lo, double hi, const char* unit) {
      const double v = number(t, name, value);
      if (!(v >= lo && v <= hi)) fail(t.get(name), key + "." + name, fmt::format("must be in [{}, {}] {} (got {})", lo, hi, unit, v));
      return v;
    };
    if (t.get("width") || t.get("height")) base.size.clear();  // a size of the file's own, not a preset
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
    // (not starting with '-': gnuplot is run on NAME.gp and read "-p.gp" as its option -p; at most 100 characters:
    // NAME_provenance.txt and its temporary name must fit the file system's 255, checked before anything runs)
    if (f.name.empty() || f.name.size() > 100 || f.name[0] == '-' ||
        f.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
      fail(t.get("name"), "name", fmt::format("must be a file stem of 1 to 100 letters, digits, '_' and '-', not starting with '-' (got {} characters{})",
                                              f.name.size(), !f.name.empty() && f.name[0] == '-' ? ", the first '-'" : ""));
    f.title = label(t, "title", f.name);
    f.description = text(t, "description", "");  // the caption's text, and comment lines
    if (const std::string problem = markup_problem(f.description); !problem.empty())
      fail(t.get("description"), "description", "markup: " + problem);
    if (f.description.size() > 4000)
      fail(t.get("description"), "description", fmt::format("{} characters; at most 4000", f.description.size()));
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
    if (const std::string problem = escape::text_problem(s); !problem.empty()) fail(t.get(key), key, "holds " + problem);
    if (const std::string problem = markup_problem(s); !problem.empty()) fail(t.get(key), key, "markup: " + problem);
    if (s.size() > 1000) fail(t.get(key), key, fmt::format("{} characters; at most 1000", s.size()));
    // (gnuplot cannot read two doubled apostrophes in a row in its strings: the figure failed after the computation)
    if (s.find("''") != std::string::npos)
      fail(t.get(key), key, "holds two apostrophes in a row, which gnuplot's strings cannot hold: write a double quote (\") instead");
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
    // What the renderers can draw, checked before anything runs (a one-ulp range failed in gnuplot after the whole
    // computation, "empty range"; a subnormal one drew a blank plot): ends of magnitude 0 or within [1e-300, 1e300],
    // and a width of at least a millionth of the larger end (the scripts print ten digits, the ticks six).
    for (const double v : {lo, hi})
      if (!(v == 0 || (std::fabs(v) >= 1e-300 && std::fabs(v) <= 1e300)))
        fail(n, key, fmt::format("an end of {:g} cannot be drawn: each end must be 0 or of magnitude within [1e-300, 1e300]", v));
    if (!(hi - lo >= 1e-6 * std::max(std::fabs(lo), std::fabs(hi))))
      fail(n, key, fmt::format("[{:.17g}, {:.17g}] is narrower than a millionth of its ends: it cannot be drawn", lo, hi));
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
      if (f.x != "order" && !p.numbers.count(f.x))  // a word value: refused here, not after the rows are computed
        fail(t.get("case"), "series.case", fmt::format("x = '{}' is a word, not a number, at {} of case '{}': the x axis needs numbers "
                                                       "(select one word with where = {{{} = \"...\"}} and plot another parameter)",
                                                       f.x, p.describe(), c.name, f.x));
      if (!s.scale.empty()) try {
          const double k = verify::evaluate_formula(s.scale, p);
          if (!std::isfinite(k)) invalid_input("the scale is {} at {}", k, p.describe());
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
    s.point_size = number(t, "point_size", s.point_size);
    if (!(s.point_size >= 0.3 && s.point_size <= 4)) fail(t.get("point_size"), "series.point_size", "must be in [0.3, 4]");
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
  std::map<std::string, std::string> written;  // each file a figure writes → the figure (f1_tidy.csv is f1's, too)
  for (const auto& file : verify::case_files(paths)) {
    const toml::table doc = verify::parse_toml(read_input_file("figure file", file, 4u << 20), file.string());
    const toml::node* figures = doc.get("figure");
    if (!figures) continue;
    FigureReader reader(file.string(), set.cases);
    if (!figures->is_array_of_tables()) reader.fail(figures, "figure", "figures are [[figure]] tables");
    const Style file_style = reader.style(doc.get("style"), "style", Style{});
    for (const auto& t : *figures->as_array()) {
      Figure f = reader.read(*t.as_table(), file_style);
      if (!names.insert(f.name).second) reader.fail(&t, "name", fmt::format("figure '{}' is declared twice", f.name));
      for (const std::string& out : figure_files(f))
        if (const auto [it, fresh] = written.emplace(out, f.name); !fresh)
          reader.fail(&t, "name", fmt::format("figures '{}' and '{}' would both write {}: give names that do not collide",
                                              it->second, f.name, out));
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
          invalid_input("figure '{}': x = '{}' is not a number in the rows of case '{}'", figure.name,
                        figure.x, s.case_name);
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
        // Each end rounded outward where its product is not exact (a scale of 1e-320 left subnormal values with three
        // digits inside an interval of width 0); fma gives a normal product's rounding error exactly.
        const auto inexact = [](double a, double b, double product) {
          return std::fma(a, b, -product) != 0 || (a != 0 && b != 0 && std::fabs(product) < std::numeric_limits<double>::min());
        };
        const double lower = p.lower * k, upper = p.upper * k;
        const double lower_out = inexact(p.lower, k, lower) ? std::nextafter(lower, k < 0 ? kInf : -kInf) : lower;
        const double upper_out = inexact(p.upper, k, upper) ? std::nextafter(upper, k < 0 ? -kInf : kInf) : upper;
        p.y *= k;
        p.lower = k < 0 ? upper_out : lower_out;
        p.upper = k < 0 ? lower_out : upper_out;
      }
      if (!std::isfinite(x) || !std::isfinite(p.y) || !std::isfinite(p.lower) || !std::isfinite(p.upper)) continue;
      // Off a log scale, except a value of 0 (its interval from 0), exact or bound alike: an upper limit, marked at its
      // upper end or, where that is below the axis, just inside the bottom frame (DrawnY, limit_mark_y). (A table's
      // bound of 0 was once left out: its line just stopped.)
      if (figure.log.find('y') != std::string::npos && !(p.y > 0) && !(p.y == 0 && p.lower == 0)) continue;
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
  verify::for_each_figure_point_field({}, figure.x, [&](const std::string& name, const verify::Cell&) { t.columns.push_back(name); });
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
      const verify::FigurePointLine line{s.title.empty() ? fmt::format("{} {}", s.id, y_name(s.y)) : s.title, s.id, s.case_name,
                                         std::string(y_name(s.y)), p.x, p.y, p.lower, p.upper, p.verdict};
      std::vector<verify::Cell> cells;
      verify::for_each_figure_point_field(line, figure.x, [&](const std::string&, const verify::Cell& c) { cells.push_back(c); });
      for (const std::string& n : names) cells.push_back(verify::parameter_cell(p.params, n));
      t.rows.push_back(std::move(cells));
    }
  verify::write_table_csv(t, dir / (figure.name + "_tidy.csv"));
}


// A number printed by rounded_up as LaTeX: 6.8e+75 as $6.8\times 10^{75}$, others as they are.
std::string latex_number(const std::string& x) {
  const auto e = x.find('e');
  if (e == std::string::npos) return x;
  const int exponent = std::stoi(x.substr(e + 1));
  const std::string mantissa = x.substr(0, e);
  return mantissa == "1" ? fmt::format("$10^{{{}}}$", exponent) : fmt::format("${}\\times 10^{{{}}}$", mantissa, exponent);
}

// A bound as text with two significant digits, rounded up (so that "at most" stays true).
// (In long double: a subnormal x, 4.9e-324, has a unit below the double range, which made the caption say "-nan".)
std::string rounded_up(double x) {
  if (!(x > 0) || !std::isfinite(x)) return fmt::format("{:.2g}", x);
  const long double unit = std::pow(10.0L, std::floor(std::log10(static_cast<long double>(x))) - 1);
  return fmt::format("{:.2g}", std::ceil(static_cast<long double>(x) / unit) * unit);
}

// A paper's caption: the title (unless the figure draws it: the style's show_title puts it in one place, the
// figure or the caption), what is drawn and what the error bars mean, in LaTeX (it is \input into a paper: every
// text goes through the LaTeX escaper). Where each series comes from is NAME_provenance.txt.
std::string caption(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  std::string out = figure.style.show_title ? "" : enhanced_to_latex(figure.title) + ".\n";
  if (!figure.description.empty()) {  // a sentence: its first letter capital ("exact δ of ..." under the title's full stop)
    std::string sentence = figure.description;
    if (sentence[0] >= 'a' && sentence[0] <= 'z') sentence[0] = static_cast<char>(sentence[0] - 'a' + 'A');
    out += enhanced_to_latex(sentence) + (sentence.back() == '.' ? "\n" : ".\n");
  }
  // What carries the intervals: the exact values, or in a figure of ratios only, the ratios bound/exact.
  const bool ratios = std::all_of(figure.series.begin(), figure.series.end(), [](const Series& s) { return s.y == Series::Y::ratio; });
  const char* what = ratios ? "ratio" : "exact value";
  // The widths of the intervals drawn (points in view); an interval reaching 0 has no relative width: the values
  // drawn (in view, or with a bar reaching into the plot) whose interval does are counted apart.
  double widest = 0;
  long open = 0;  // (those whose upper end is below a log axis are counted with the values below it, further down)
  const double bottom = drawn_y(figure, data).floor;
  for (std::size_t k = 0; k < data.size(); ++k) {
    if (figure.series[k].y == Series::Y::bound) continue;  // (a bound's interval is not the exact value's: once quoted as it)
    for (const Point& p : data[k]) {
      if (!(p.lower > 0) && p.upper > 0) open += drawn(figure, p) && p.upper > bottom;
      else if (in_view(figure, p)) widest = std::max(widest, relative_width(p));
    }
  }
  const std::string scope = open > 0 ? " among those not reaching 0" : "";
  out += !draws_bars(figure, data)
             ? fmt::format("Each {} drawn is computed with an error bar too narrow to see at this scale (relative width at most {}{}).\n", what,
                           latex_number(rounded_up(widest)), scope)
             : fmt::format("Error bars show each {}'s interval where it reaches past the marks (relative width at most {}{}).\n", what,
                           latex_number(rounded_up(widest)), scope);
  // A bound drawn as a line that equals an exact series at every point (a table of exact values) lies under its
  // marks: said, or a reader looks for a line that is not there.
  for (std::size_t b = 0; b < data.size(); ++b)
    for (std::size_t e = 0; e < data.size(); ++e) {
      const Series &bound = figure.series[b], &exact = figure.series[e];
      if (bound.y != Series::Y::bound || exact.y != Series::Y::exact || data[b].size() != data[e].size() || data[b].empty()) continue;
      double worst = 0;
      for (std::size_t k = 0; k < data[b].size() && worst <= 1e-9; ++k)
        worst = data[b][k].x != data[e][k].x || !(data[e][k].y != 0) ? HUGE_VAL : std::max(worst, std::fabs(data[b][k].y / data[e][k].y - 1));
      // Quoted as a power of ten above twice the difference measured: |b/e - 1| and |b - e|/b differ by rounding (a
      // reader's 7.2e-16 from the CSV against a quoted 6.7e-16).
      if (worst <= 1e-9)
        out += fmt::format("The line of ``{}'' coincides with ``{}'' at every point drawn (relative difference below {}), under its marks.\n",
                           enhanced_to_latex(bound.title.empty() ? bound.id : bound.title), enhanced_to_latex(exact.title.empty() ? exact.id : exact.title),
                           latex_number(fmt::format("1e{}", static_cast<int>(std::ceil(std::log10(std::max(2 * worst, 1e-16)))))));
    }
  // Values whose interval reaches 0 and ends below the log axis: marked just inside its bottom frame (limit_mark_y).
  const DrawnY shown = drawn_y(figure, data);
  long below = 0;
  double below_upper = 0;
  for (std::size_t k = 0; k < data.size(); ++k)
    for (const Point& p : data[k])
      if (shown.log && figure.series[k].y != Series::Y::ratio && !(p.lower > 0) && !(p.upper > shown.floor) &&
          (!figure.xrange || (p.x >= figure.xrange->first && p.x <= figure.xrange->second)))
        ++below, below_upper = std::max(below_upper, p.upper);
  if (below > 0)
    out += fmt::format("{} {}, below the axis: {} by an open down-triangle just above its bottom frame, where "
                       "the line breaks.\n", below,
                       below_upper > 0 ? fmt::format("{} in [0, {}]", below == 1 ? "value lies" : "values lie", latex_number(rounded_up(below_upper)))
                                       : below == 1 ? "value is exactly 0" : "values are exactly 0",
                       below == 1 ? "it is marked" : "each is marked");
  // Values off the declared ranges, neither drawn nor marked: said, with the violations among them (a declared range
  // hid four violated points and the whole bound line once, without a word).
  long hidden = 0, hidden_violated = 0;
  for (const auto& series : data)
    for (const Point& p : series)
      if (!drawn(figure, p) && !limit_mark_y(figure, data, p)) ++hidden, hidden_violated += p.verdict == "violated";
  if (hidden > 0)
    out += fmt::format("{} computed {} outside the axes' declared ranges and {} not drawn{}.\n", hidden, hidden == 1 ? "value lies" : "values lie",
                       hidden == 1 ? "is" : "are", hidden_violated > 0 ? fmt::format(" ({} of them violated)", hidden_violated) : "");
  if (open > 0)
    out += fmt::format("{} of the intervals drawn {} down to 0: {} only bounded above{}.\n", open, open == 1 ? "reaches" : "reach",
                       open == 1 ? "that value is" : "those values are",
                       figure.log.find('y') != std::string::npos ? ", by the open down-triangle in its series' colour (no bar: 0 is off the log axis)" : "");
  return out;
}

// Where each series comes from (bound ID, case, selection), the verdicts of the points drawn and the intervals'
// widths: plain text beside the figure, for its authors and reviewers of the numbers, not for the paper.
std::string provenance(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  std::string out = fmt::format("figure {}: {}\n", figure.name, enhanced_to_plain(figure.title));
  std::map<std::string, long> verdicts;
  for (std::size_t k = 0; k < data.size(); ++k) {
    const Series& s = figure.series[k];
    std::vector<std::string> where;
    for (const auto& [key, v] : s.where)
      where.push_back(fmt::format("{} = {}", key, std::holds_alternative<double>(v) ? format_number(std::get<double>(v)) : std::get<std::string>(v)));
    out += fmt::format("- {}: {} of {} in case '{}'{}{}, {} points\n", s.title.empty() ? s.id : enhanced_to_plain(s.title), y_name(s.y), s.id,
                       s.case_name, where.empty() ? "" : fmt::format(" at {}", fmt::join(where, ", ")),
                       s.scale.empty() ? "" : fmt::format(", times {}", s.scale), data[k].size());
    for (const Point& p : data[k]) ++verdicts[p.verdict];
  }
  std::vector<std::string> counts;
  for (const auto& [v, n] : verdicts) counts.push_back(fmt::format("{} {}", n, v));
  out += fmt::format("Verdicts of the points drawn: {}.\n", fmt::join(counts, ", "));
  const double widest = widest_interval(data);
  out += !draws_bars(figure, data) ? fmt::format("Every interval is too narrow to see (largest relative width {:.2g}): the error bars are "
                                     "not visible at this scale (a series with y = \"ratio\" draws bound/exact, where the "
                                     "distance to 1 shows).\n", widest)
                       : fmt::format("Error bars show each {} interval (largest relative width {:.2g}).\n",
                                     std::any_of(figure.series.begin(), figure.series.end(), [](const Series& x) { return x.y == Series::Y::ratio; })
                                         ? "drawn value's (exact or bound/exact)" : "exact value's", widest);
  return escape::plain(out, true);  // names and titles passed the text policy at load; this keeps any other text visible
}


}  // namespace

bool Style::resize(const std::string& preset) {
  if (preset == "single") width = 3.5, height = 2.6;
  else if (preset == "double") width = 7.0, height = 3.0;
  else return false;
  size = preset;
  return true;
}

bool Style::wants(const std::string& output) const { return std::find(outputs.begin(), outputs.end(), output) != outputs.end(); }

SeriesLook series_look(int line) {
  // Colour, dash pattern and marker shape all differ from line to line: the six read apart in grayscale print too.
  // In a figure, figure_look decides dash and fill by what a series is (a bound dashed with open marks, anything else
  // solid with filled ones); this palette is the line styles of the gnuplot preamble.
  static constexpr SeriesLook kLooks[6] = {{7, "1", "*", "solid"},           {4, "2", "square", "dashed"},
                                           {9, "4", "triangle*", "dashdotted"}, {12, "3", "diamond", "dotted"},
                                           {15, "5", "pentagon*", "dashdotdotted"}, {3, "(12,5)", "asterisk", "loosely dashed"}};
  // The gray reference line: long dashes of its own, as wide as a series (a thin dotted black one read as a grid line).
  if (line == 9) return {0, "(20,6)", "none", "dash pattern=on 6pt off 2pt"};
  return kLooks[static_cast<std::size_t>(std::clamp(line, 1, 6) - 1)];
}

SeriesLook figure_look(const Figure& figure, std::size_t k) {
  // One meaning in every figure, so that figures read side by side in a paper agree: a bound is dashed with open
  // marks (in its line's dash; line 1's, solid, loosely dashed instead), and everything else — an exact value, a
  // ratio — is solid with filled marks. Lines differ in colour and mark shape; a bound drawn beside the exact value
  // of its parameter (one line number) differs from it in dash and fill, in grayscale too. The gray reference
  // (line 9, no marks) keeps its long dashes as a bound and is solid otherwise.
  const Series& s = figure.series[k];
  SeriesLook look = series_look(s.line);
  if (s.line == 9) {  // the gray reference: dashed as a bound, solid as an exact value
    if (s.y != Series::Y::bound) look.dash = "1", look.pgf_dash = "solid";
    return look;
  }
  struct Marks { int open, filled; const char* pgf_open; const char* pgf_filled; };
  static constexpr Marks kMarks[] = {{6, 7, "o", "*"}, {4, 5, "square", "square*"}, {8, 9, "triangle", "triangle*"},
                                     {12, 13, "diamond", "diamond*"}, {14, 15, "pentagon", "pentagon*"}};
  const bool bound = s.y == Series::Y::bound;
  for (const Marks& m : kMarks)
    if (look.point == m.open || look.point == m.filled) {
      look.point = bound ? m.open : m.filled;
      look.pgf_mark = bound ? m.pgf_open : m.pgf_filled;
    }
  const bool solid = std::string_view(look.dash) == "1";
  look.dash = !bound ? "1" : solid ? "(12,5)" : look.dash;
  look.pgf_dash = !bound ? "solid" : solid ? "loosely dashed" : look.pgf_dash;
  return look;
}

std::string style_preamble(const std::string& output, const Style& style) {
  // One look for every figure: the cairo PDF terminal (the PNG is this PDF rasterised), a light grid, a boxed
  // opaque key, six line styles distinct in colour, dash and point type, and a thin black reference style 9. Error
  // bars run through their point, as pgfplots draws them (gnuplot would blank a disc around it: white blots on bars
  // whose point is off the plot, and a bar broken where its point is drawn; gnuplot 5.4 keeps the disc at `unset
  // pointintervalbox`, so it is made a thousandth of its size).
  std::string s = fmt::format("set terminal pdfcairo enhanced color size {}in,{}in font '{},{}'\n", style.width, style.height,
                              style.font, style.font_size);
  s += fmt::format("set output {}\n", quoted(output));
  s += "set datafile separator ','\nset grid linetype 1 linecolor rgb '#dddddd' linewidth 0.5 dashtype solid\nset key box opaque\nset border lw 1\n"
       "set bars small\nset clip two\nunset clip points\nset pointintervalbox 0.001\n";
  for (int k = 1; k <= 6; ++k) {
    const SeriesLook look = series_look(k);
    s += fmt::format("set style line {} lc rgb '{}' lw {} pt {} ps {} dt {}\n", k, style.palette[static_cast<std::size_t>(k - 1) % style.palette.size()],
                     line_width(style, k), look.point, gnuplot_ps(kLineMarkPt), look.dash);
  }
  s += fmt::format("set style line 9 lc rgb '#666666' lw {} dt {}\n", line_width(style, 9), series_look(9).dash);
  return s;
}

namespace {

// The files gnuplot leaves for a figure: its script and log, and the style's PDF and PNG.
std::vector<std::string> gnuplot_outputs(const std::string& name, const Style& style) {
  std::vector<std::string> outputs = {name + ".gp", name + ".log"};
  for (const char* kind : {"pdf", "png"})
    if (style.wants(kind)) outputs.push_back(name + "." + kind);
  return outputs;
}

// Writes NAME.gp into the staged folder and runs gnuplot there (its messages go to NAME.log; data files are read
// through its loadpath, `data_dir` relative to the folder); the PNG is the PDF rasterised by pdftoppm. The script
// names its files as they are published, so it reruns in the output folder as it is.
}  // namespace

std::vector<std::string> figure_files(const Figure& figure) {
  std::vector<std::string> files = {figure.name + ".csv", figure.name + "_tidy.csv", figure.name + "_caption.txt",
                                    figure.name + "_provenance.txt"};
  if (figure.style.wants("pgfplots")) files.push_back(figure.name + ".tex");
  if (figure.style.wants("pdf") || figure.style.wants("png"))
    for (const auto& f : gnuplot_outputs(figure.name, figure.style)) files.push_back(f);
  return files;
}

namespace {

void draw_gnuplot(const StagedFiles& staged, const std::string& name, const std::string& title, const std::string& comment,
                  const std::string& body, const Style& style, const std::string& data_dir) {
  OutputFile checked(staged.path(name + ".gp"));
  std::ostream& out = checked.stream();
  // (lines of about as many characters as fit the plot's width at the font's size, with a margin)
  const auto width = static_cast<std::size_t>(0.9 * style.width * 72 / (0.55 * style.font_size));
  const std::string set_title = style.show_title ? "set title " + markup_title(title, width) + "\n" : "unset title\n";
  std::string commented = "# ";  // every line of the comment a comment line, whatever ends it
  for (char c : escape::plain(comment, true)) commented += c == '\n' ? std::string("\n# ") : std::string(1, c);
  out << commented << "\n# The PNG is this PDF rasterised at 200 pixels per inch (pdftoppm -png -r 200 -singlefile).\n";
  out << style_preamble(name + ".pdf", style) << set_title << body << "set output\n";
  checked.close();
  run_gnuplot(staged.folder(), name + ".gp", name + ".log", data_dir);
  require_complete(staged.path(name + ".pdf"), "%%EOF");
  stamp_pdf_date(staged.path(name + ".pdf"));  // SOURCE_DATE_EPOCH, where set: two runs give identical PDFs
  // One picture: the PNG is the PDF's raster (same legend, proportions and marks), not a second rendering.
  if (style.wants("png")) {
    run_program(staged.folder(), "pdftoppm", {"-png", "-r", "200", "-singlefile", name + ".pdf", name}, name + ".log");
    require_complete(staged.path(name + ".png"), std::string_view("IEND\xAE\x42\x60\x82", 8));
  }
}

}  // namespace

namespace {

// The plot command of a figure (with the functions it uses): error bars first (all of them, without points: a point
// type would paint over the markers of the series drawn before), then the series, their upper limits, then the
// verdict marks on top;
// off-plot values drawn as DrawnY says. `file` is the CSV as gnuplot names it.
std::string gnuplot_plot(const Figure& figure, const std::vector<std::vector<Point>>& data, const std::string& file, const Legend& legend) {
  std::string body = drawn_y(figure, data).gnuplot();
  std::vector<std::string> bars, plots;
  for (std::size_t k = 0, block = 0; k < data.size(); ++k) {
    if (data[k].empty()) continue;  // nothing verified to draw (say, every row in error), and no block in the file
    const Series& s = figure.series[k];
    const std::size_t index = block++;
    const std::string style = s.style == "points" ? "points" : s.style == "lines" ? "lines" : "linespoints";
    if (draws_bars(figure, data, k))
      bars.push_back(fmt::format("{} index {} using 2:(bary($3, $4, $5)):(lowery($4)):5 with yerrorbars ls {} dt 1 ps 0 notitle", file, index, s.line));
    // Markers of a points-only series are the size of a letter; on lines they stay small.
    const SeriesLook look = figure_look(figure, k), plain = series_look(s.line);
    const std::string paired = (std::string_view(look.dash) != plain.dash ? fmt::format(" dt {}", look.dash) : "") +
                               (look.point != plain.point && style != "lines" ? fmt::format(" pt {}", look.point) : "");
    plots.push_back(fmt::format("{} index {} using 2:{} with {} ls {}{}{} title {}", file, index,
                                s.y != Series::Y::ratio ? "(valy($3, $4, $5))" : "3", style, s.line, paired,
                                style == "points" ? " ps " + gnuplot_ps(kPointMarkPt * s.point_size) : "", markup_quoted(s.title)));
  }
  plots.insert(plots.begin(), bars.begin(), bars.end());
  bool limits_named = false;  // upper limits (DrawnY), in the series' colour, the first in the key
  for (std::size_t k = 0, block = 0; k < data.size(); ++k) {
    if (data[k].empty()) continue;
    const std::size_t index = block++;
    if (!shows_limits(figure, data, k)) continue;
    plots.push_back(fmt::format("{} index {} using 2:(limity($4, $5)) with points ls {} pt 10 ps {} {}", file, index, figure.series[k].line,
                                gnuplot_ps(kLimitMarkPt), !legend.shown || limits_named ? "notitle" : fmt::format("title '{}'", limit_label(figure, data))));
    limits_named = true;
  }
  for (const VerdictMark& m : kVerdictMarks) {
    bool titled = false;
    for (std::size_t k = 0, block = 0; k < data.size(); ++k) {
      if (data[k].empty()) continue;
      const std::size_t index = block++;
      if (!shows_verdict(figure, data[k], m.verdict)) continue;
      plots.push_back(fmt::format("{} index {} using 2:(strcol(6) eq '{}' ? marky($3, $4, $5) : 1/0) with points {} ps {} {}", file, index, m.verdict, m.gnuplot,
                                  gnuplot_ps(kVerdictMarkPt), titled || !legend.shown ? "notitle" : fmt::format("title '{}'", m.verdict)));
      titled = true;
    }
  }
  return body + "plot " + fmt::format("{}", fmt::join(plots, ", \\\n     ")) + "\n";
}

}  // namespace

void render(const Figure& figure, const std::vector<std::vector<Point>>& data, const std::filesystem::path& dir) {
  if (const std::string missing = missing_plot_tools(); !missing.empty()) invalid_input("{}", missing);
  if (std::all_of(data.begin(), data.end(), [](const auto& s) { return s.empty(); }))
    throw NumericalError(fmt::format("figure '{}': no verified row to draw", figure.name));
  std::filesystem::create_directories(dir);
  // Every file of the figure is written into a private folder and published together once all were written: a
  // full disk or a failing helper leaves the earlier figure (or none), never a partial set.
  const bool drawn = figure.style.wants("pdf") || figure.style.wants("png");
  StagedFiles staged(dir, figure.name, figure_files(figure));
  const auto csv = staged.path(figure.name + ".csv");
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
      out << "# " << escape::plain(fmt::format("series {}: {} of {} in case '{}'{}", k, s.y == Series::Y::exact ? "exact" : s.y == Series::Y::bound ? "bound" : "bound/exact",
                         s.id, s.case_name, s.title.empty() ? "" : " (" + s.title + ")")) << "\n";
      for (const Point& p : data[k])
        out << k << ',' << p.x << ',' << p.y << ',' << p.lower << ',' << p.upper << ',' << p.verdict << "\n";
    }
    checked.close();
  }
  // The axes' ranges and ticks as the pgfplots file has them (figure_model.hpp: axis_range, axis_ticks).
  std::string body;
  for (const char axis : {'x', 'y'})
    if (const auto [lo, hi] = axis_range(figure, data, axis); lo < hi) body += fmt::format("set {}range [{}:{}]\n", axis, tex_number(lo), tex_number(hi));
  for (const char axis : {'x', 'y'}) {
    if (figure.log.find(axis) == std::string::npos) {
      std::vector<std::string> tics;
      for (double t : linear_ticks(figure, data, axis)) tics.push_back(fmt::format("{:g}", t));  // as the pgfplots file has them
      if (!tics.empty()) body += fmt::format("set {0}tics ({1})\nset format {0} '%g'\n", axis, fmt::join(tics, ", "));
      continue;
    }
    body += fmt::format("set logscale {}\n", axis);
    body += fmt::format("set format {} '10^{{%L}}'\n", axis);  // as pgfplots labels a log axis (one picture in both)
    const LogTicks ticks = axis_ticks(figure, data, axis);
    if (!ticks.at.empty()) {
      std::vector<std::string> tics;
      for (double t : ticks.at) tics.push_back(tex_number(t));  // as the pgfplots file writes them
      body += fmt::format("set {}tics ({})\n", axis, fmt::join(tics, ", "));
      if (!ticks.decades) body += fmt::format("set format {} '%g'\n", axis);
    }
    if (!ticks.minor) body += fmt::format("unset m{}tics\n", axis);
  }
  const Legend legend = figure_legend(figure, data);
  KeyOptions key = figure.key;
  key.columns = legend.columns;  // as the pgfplots file's: column by column, in as many columns
  body += fmt::format("set xlabel {}\nset ylabel {}\nset key {}\n", markup_quoted(figure.xlabel), markup_quoted(figure.ylabel), key.render());
  body += gnuplot_plot(figure, data, quoted(csv.filename().string()), legend);  // gnuplot runs in `dir`
  write_tidy_csv(figure, data, staged.folder());
  write_file(staged.path(figure.name + "_caption.txt"), caption(figure, data));
  write_file(staged.path(figure.name + "_provenance.txt"), provenance(figure, data));
  if (figure.style.wants("pgfplots")) write_file(staged.path(figure.name + ".tex"), pgfplots(figure, data));
  // A key below (or above) the plot adds its rows to the picture's height, as the pgfplots file's legend does (set
  // under the axes): the plot keeps the style's height, and a one-column figure with six entries is not a third key.
  Style drawn_style = figure.style;
  if (legend.shown && key_outside(figure.key)) drawn_style.height += (legend.rows + 1) * 1.25 * figure.style.font_size / 72;
  if (drawn)
    draw_gnuplot(staged, figure.name, figure.title,
                 fmt::format("{}\ndeclared in {}; data: {} (series, x, y, interval, verdict; one block per series)",
                             enhanced_to_plain(figure.description), figure.file, csv.filename().string()),
                 body, drawn_style, ".");
  staged.commit({figure.name + ".log"});
}

void render_gnuplot(const std::filesystem::path& dir, const std::string& name, const std::string& title,
                    const std::string& comment, const std::string& body, const Style& style) {
  if (const std::string missing = missing_plot_tools(); !missing.empty()) invalid_input("{}", missing);
  StagedFiles staged(dir, name, gnuplot_outputs(name, style));
  draw_gnuplot(staged, name, title, comment, body, style, "..");  // the data files are in `dir`
  // An empty log is published too: `dir` is explore's own staged folder, whose commit drops empty logs ("*.log")
  // and removes an earlier run's from the output folder.
  staged.commit();
}

}  // namespace privamp::plots
