#include "plots/figures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/files.hpp"
#include "verify/cases/toml_reader.hpp"

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

  Figure read(const toml::table& t) const {
    check_keys(t, verify::kFigureKeys);
    Figure f;
    f.file = file_;
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
      doc = toml::parse_file(file.string());
    } catch (const toml::parse_error& e) {
      throw InvalidArgument(fmt::format("{}:{}: {}", file.string(), e.source().begin.line, e.description()));
    }
    const toml::node* figures = doc.get("figure");
    if (!figures) continue;
    FigureReader reader(file.string(), set.cases);
    if (!figures->is_array_of_tables()) reader.fail(figures, "figure", "figures are [[figure]] tables");
    for (const auto& t : *figures->as_array()) {
      Figure f = reader.read(*t.as_table());
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

std::string style_preamble(const std::string& output, bool pdf) {
  // One look for every figure: cairo terminals, a light grid, a boxed opaque key, six distinguishable line styles
  // (colour-blind safe palette, also distinct in grey by dash and point type) and a thin black reference style 9.
  std::string s = pdf ? "set terminal pdfcairo enhanced color size 5in,3.6in font 'Helvetica,10'\n"
                      : "set terminal pngcairo enhanced color size 1000,720 font 'Helvetica,15'\n";
  s += fmt::format("set output {}\n", quoted(output));
  s += "set datafile separator ','\nset grid linecolor rgb '#cccccc' linewidth 0.5\nset key box opaque\nset border lw 1\n"
       "set bars small\n"
       "set style line 1 lc rgb '#0072B2' lw 2 pt 7 ps 0.8 dt 1\n"
       "set style line 2 lc rgb '#D55E00' lw 2 pt 5 ps 0.8 dt 1\n"
       "set style line 3 lc rgb '#009E73' lw 2 pt 9 ps 0.9 dt 1\n"
       "set style line 4 lc rgb '#CC79A7' lw 2 pt 11 ps 0.9 dt 4\n"
       "set style line 5 lc rgb '#E69F00' lw 2 pt 13 ps 0.9 dt 2\n"
       "set style line 6 lc rgb '#56B4E9' lw 2 pt 3 ps 0.9 dt 3\n"
       "set style line 9 lc rgb 'black' lw 1 dt 2\n";
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
  std::string body;
  if (figure.log == "x" || figure.log == "xy") body += "set logscale x\n";
  if (figure.log == "y" || figure.log == "xy") body += "set logscale y\nset format y '10^{%L}'\n";
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
    plots.push_back(fmt::format("{} index {} using 2:3 with {} ls {} title {}", file, index, style, s.line, quoted(s.title)));
  }
  body += "plot " + fmt::format("{}", fmt::join(plots, ", \\\n     ")) + "\n";
  render_gnuplot(dir, figure.name, figure.title,
                 fmt::format("{}\ndeclared in {}; data: {} (series, x, y, interval, verdict; one block per series)",
                             figure.description, figure.file, csv.filename().string()),
                 body);
}

void render_gnuplot(const std::filesystem::path& dir, const std::string& name, const std::string& title,
                    const std::string& comment, const std::string& body) {
  if (!gnuplot_available())
    throw InvalidArgument("gnuplot was not found: install gnuplot-nox (scripts/install-deps.sh does) to render figures");
  const std::string script = name + ".gp";
  {
    OutputFile checked(dir / script);
    std::ostream& out = checked.stream();
    const std::string set_title = "set title " + quoted(title) + "\n";
    std::string commented = "# ";  // every line of the comment a comment line, whatever ends it
    for (char c : comment) commented += c == '\n' ? std::string("\n# ") : has_control_character(std::string(1, c)) ? " " : std::string(1, c);
    out << commented << "\n";
    out << style_preamble(name + ".pdf", true) << set_title << body;
    out << "set output\n" << style_preamble(name + ".png", false) << set_title << body;
    out << "set output\n";
    checked.close();
  }
  run_gnuplot(dir, script, name + ".log");  // gnuplot's messages go to NAME.log; a failure quotes them
}

}  // namespace privamp::plots
