#include "plots/figure_model.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/ranges.h>

#include "plots/markup.hpp"

namespace privamp::plots::model {

double relative_width(const Point& p) {
  return p.y != 0 && std::isfinite(p.upper - p.lower) ? (p.upper - p.lower) / std::abs(p.y) : 0;
}

// The largest relative width of an interval drawn: whether error bars show at the plot's scale.
double widest_interval(const std::vector<Point>& series) {
  double widest = 0;
  for (const Point& p : series) widest = std::max(widest, relative_width(p));
  return widest;
}
double widest_interval(const std::vector<std::vector<Point>>& data) {
  double widest = 0;
  for (const auto& series : data) widest = std::max(widest, widest_interval(series));
  return widest;
}
// Whether a point lies within the figure's declared ranges (every point does where none is declared).
bool in_view(const Figure& figure, const Point& p) {
  const auto inside = [](const auto& range, double v) { return !range || (v >= range->first && v <= range->second); };
  return inside(figure.xrange, p.x) && inside(figure.yrange, p.y);
}

bool drawn(const Figure& figure, const Point& p) {
  if (in_view(figure, p)) return true;
  if (figure.xrange && !(p.x >= figure.xrange->first && p.x <= figure.xrange->second)) return false;
  const auto [lo, hi] = *figure.yrange;  // (in x range, so off the y range: declared)
  return p.upper > lo && p.lower < hi;
}

std::optional<double> verdict_mark_y(const Figure& figure, const Point& p) {
  if (figure.log.find('y') != std::string::npos && !(p.y > 0)) return std::nullopt;  // (0: on the frame, unmarked)
  if (in_view(figure, p)) return p.y;
  if (figure.xrange && !(p.x >= figure.xrange->first && p.x <= figure.xrange->second)) return std::nullopt;
  const auto [lo, hi] = *figure.yrange;  // (in x range, so off the y range: declared)
  const double end = p.y < lo ? p.upper : p.lower;
  if (end > lo && end < hi) return end;
  return std::nullopt;
}

std::optional<double> limit_mark_y(const Figure& figure, const std::vector<std::vector<Point>>& data, const Point& p) {
  if (figure.log.find('y') == std::string::npos || p.lower > 0 || !(p.upper >= 0)) return std::nullopt;
  if (figure.xrange && !(p.x >= figure.xrange->first && p.x <= figure.xrange->second)) return std::nullopt;
  const DrawnY shown = drawn_y(figure, data);
  if (p.upper > shown.top) return std::nullopt;
  return p.upper >= shown.floor ? p.upper : shown.floor_mark();
}

std::string limit_label(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  // Named by where the mark sits: at its upper end ("bounded above only"), or at the bottom frame for an interval
  // under the axis, which says so (a triangle there read as a value near the bottom, ten decades above its end).
  bool bounded = false, under = false;
  double most = 0;  // the largest upper end under the axis
  const DrawnY shown = drawn_y(figure, data);
  for (const auto& points : data)
    for (const Point& p : points)
      if (limit_mark_y(figure, data, p)) {
        if (p.upper >= shown.floor) bounded = true;
        else under = true, most = std::max(most, p.upper);
      }
  const std::string below = !(most > 0) ? "exactly 0, under the axis"
                                        : fmt::format("at most 10^{{{}}}, under the axis", static_cast<int>(std::ceil(std::log10(most))));
  return bounded && under ? "bounded above only (at the bottom: " + below + ")" : under ? below : "bounded above only";
}

bool shows_limits(const Figure& figure, const std::vector<std::vector<Point>>& data, std::size_t k) {
  return std::any_of(data[k].begin(), data[k].end(), [&](const Point& p) { return limit_mark_y(figure, data, p).has_value(); });
}

bool shows_verdict(const Figure& figure, const std::vector<Point>& points, const char* verdict) {
  return std::any_of(points.begin(), points.end(), [&](const Point& p) { return p.verdict == verdict && verdict_mark_y(figure, p); });
}

double bar_fraction(const Figure& figure, const std::vector<std::vector<Point>>& data, const Point& p) {
  if (!drawn(figure, p)) return 0;
  const auto [bottom, top] = axis_range(figure, data, 'y');
  if (!(top > bottom)) return 0;
  const double lo = std::max(p.lower, bottom), hi = std::min(p.upper, top);
  if (figure.log.find('y') == std::string::npos) return hi > lo ? (hi - lo) / (top - bottom) : 0;
  if (!(p.lower > 0)) return 0;  // no bar: an upper limit (limit_mark_y)
  return hi > lo ? std::log(hi / lo) / std::log(top / bottom) : 0;
}

bool draws_bars(const Figure& figure, const std::vector<std::vector<Point>>& data, std::size_t k) {
  const Series& s = figure.series[k];
  const double mark_pt = s.style == "points" ? 2 * kPointMarkPt * s.point_size : s.style == "lines" ? 0 : 2 * kLineMarkPt;
  const double visible = (mark_pt + 2) / (0.7 * figure.style.height * 72);
  return std::any_of(data[k].begin(), data[k].end(), [&](const Point& p) { return bar_fraction(figure, data, p) >= visible; });
}

bool draws_bars(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  for (std::size_t k = 0; k < data.size(); ++k)
    if (draws_bars(figure, data, k)) return true;
  return false;
}
std::string tex_number(double x) { return fmt::format("{:.10g}", x); }

namespace {

// The values drawn on an axis: their least and largest (lo > hi when there is none); positive ones only on a log axis.
std::pair<double, double> data_span(const std::vector<std::vector<Point>>& data, char axis, bool log) {
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (const auto& points : data)
    for (const Point& p : points)
      // (on a log axis a value of 0 — an upper limit, marked at the bottom where it is below — does not stretch the axis down)
      for (double v : axis == 'x' ? std::vector<double>{p.x} : log && !(p.y > 0) ? std::vector<double>{} : std::vector<double>{p.lower, p.y, p.upper})
        if (std::isfinite(v) && (!log || v > 0)) lo = std::min(lo, v), hi = std::max(hi, v);
  return {lo, hi};
}

// Every how many decades log_ticks labels a span from 10^first to 10^last: 1, 2, 5, 10, 20 … so that at most eight show.
int decade_step(int first, int last) {
  int step = 1;
  for (int scale = 1; (last - first) / step + 1 > 8; scale *= 10)
    for (const int m : {1, 2, 5})
      if ((last - first) / (step = m * scale) + 1 <= 8) return step;
  return step;
}

// A padded log span labelled by powers of ten ends at most half a step beyond its outer labels: further, it is widened
// to the next label (an axis from 1e-8 to 30 labelled 10^-8 … 10^0 drew its top decade and a half unlabelled, one to
// 1.3e-5 labelled every decade its lowest 0.9 decade).
std::pair<double, double> to_labels(double lo, double hi) {
  const double a = std::log10(lo), b = std::log10(hi);
  const int first = static_cast<int>(std::ceil(a - 1e-9)), last = static_cast<int>(std::floor(b + 1e-9));
  if (last - first < 2) return {lo, hi};
  const int step = decade_step(first, last);
  const int low = step * static_cast<int>(std::ceil(first / static_cast<double>(step) - 1e-9));
  const int high = step * static_cast<int>(std::floor(last / static_cast<double>(step) + 1e-9));
  if (b - high > 0.5 * step && high + step <= 308) hi = std::pow(10.0, high + step);
  if (low - a > 0.5 * step && low - step >= -307) lo = std::pow(10.0, low - step);
  return {lo, hi};
}

}  // namespace

std::pair<double, double> axis_range(const Figure& figure, const std::vector<std::vector<Point>>& data, char axis) {
  const auto& declared = axis == 'x' ? figure.xrange : figure.yrange;
  if (declared) return *declared;
  const bool log = figure.log.find(axis) != std::string::npos;
  auto [lo, hi] = data_span(data, axis, log);
  if (lo > hi) return {lo, hi};
  const double margin = axis == 'x' ? 0.02 : 0.05;
  // (the padded ends kept within the doubles: an axis to 1e300 padded to inf, or from 1e-320 down to 0 on a log
  // axis, wrote `inf` or 0 into the scripts and gnuplot failed after the whole computation)
  constexpr double kMax = std::numeric_limits<double>::max(), kTiny = std::numeric_limits<double>::denorm_min();
  if (log) {
    // (values within a millionth of each other are padded as one value: a one-ulp span printed as an empty range)
    const double a = std::log10(lo), b = std::log10(hi), pad = b - a > 1e-6 ? margin * (b - a) : std::log10(2.0);
    return to_labels(std::clamp(std::pow(10.0, a - pad), kTiny, lo), std::clamp(std::pow(10.0, b + pad), hi, kMax));
  }
  const double mag = std::max(std::fabs(lo), std::fabs(hi));
  const double pad = hi - lo > 1e-6 * mag ? margin * (hi - lo) : mag > 0 ? 0.2 * mag : 1.0;
  return {std::clamp(lo - pad, -kMax, lo), std::clamp(hi + pad, hi, kMax)};
}

DrawnY drawn_y(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  DrawnY d{figure.yrange, figure.log.find('y') != std::string::npos};
  if (d.log) std::tie(d.floor, d.top) = axis_range(figure, data, 'y');
  return d;
}

LogTicks log_ticks(std::pair<double, double> span) {
  const auto [lo, hi] = span;
  if (!(hi > lo) || !(lo > 0) || !std::isfinite(hi)) return {};
  const int first = static_cast<int>(std::ceil(std::log10(lo) - 1e-9)), last = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
  if (last - first >= 2) {
    const int step = decade_step(first, last);
    LogTicks t{{}, true};
    for (int k = first; k <= last; ++k)
      if (k % step == 0) t.at.push_back(std::pow(10.0, k));
    if (t.at.size() < 2) return {};
    t.minor = std::log10(hi / lo) <= 6;  // as in the header
    t.decades = t.at.front() < 1e-3 || t.at.back() > 1e4;  // (0.001 … 10000 read better as numbers than as 10^-3 … 10^4)
    return t;
  }
  std::vector<double> tics;
  for (int k = static_cast<int>(std::floor(std::log10(lo))); k <= static_cast<int>(std::ceil(std::log10(hi))); ++k)
    for (double m : {1.0, 2.0, 5.0})
      if (const double t = m * std::pow(10.0, k); t >= lo * 0.999 && t <= hi * 1.001) tics.push_back(t);
  // an axis ending well above its last tick (0.36 after 0.2) gets 3 times that decade too
  if (const double three = 3 * std::pow(10.0, std::floor(std::log10(hi))); !tics.empty() && tics.back() * 1.5 < hi && three <= hi * 1.001 && three > tics.back())
    tics.push_back(three);
  if (tics.size() < 2) tics.clear();
  return {tics, false};
}

namespace {

// The integer b from 2 to 9 of which every value is a power (0 where there is none, or fewer than three values).
int common_base(const std::vector<double>& values) {
  if (values.size() < 3) return 0;
  for (int b = 2; b <= 9; ++b) {
    const bool all = std::all_of(values.begin(), values.end(), [b](double v) {
      const double k = std::round(std::log(v) / std::log(b));
      return k >= 0 && std::fabs(std::pow(b, k) - v) <= 1e-12 * v;
    });
    if (all) return b;
  }
  return 0;
}

}  // namespace

LogTicks axis_ticks(const Figure& figure, const std::vector<std::vector<Point>>& data, char axis) {
  const auto range = axis_range(figure, data, axis);
  std::vector<double> values;
  for (const auto& points : data)
    for (const Point& p : points)
      for (double v : axis == 'x' ? std::vector<double>{p.x} : std::vector<double>{p.y})
        if (std::isfinite(v) && v > 0) values.push_back(v);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (const int b = common_base(values); b && values.back() <= 1e5) {
    std::vector<double> powers;
    for (double t = 1; t <= range.second * (1 + 1e-12); t *= b)
      if (t >= range.first * (1 - 1e-12)) powers.push_back(t);
    const std::size_t step = (powers.size() + 7) / 8;
    LogTicks ticks{{}, false, false};
    for (std::size_t i = 0; i < powers.size(); i += step) ticks.at.push_back(powers[i]);
    if (ticks.at.size() >= 2) return ticks;
  }
  return log_ticks(range);
}

std::vector<double> linear_ticks(const Figure& figure, const std::vector<std::vector<Point>>& data, char axis) {
  const auto [lo, hi] = axis_range(figure, data, axis);
  if (!(hi > lo) || !std::isfinite(hi - lo)) return {};
  bool whole = true;
  for (const auto& points : data)
    for (const Point& p : points)
      if (const double v = axis == 'x' ? p.x : p.y; std::isfinite(v) && v != std::round(v)) whole = false;
  const int top = static_cast<int>(std::floor(std::log10(hi - lo)));
  for (int k = top - 2; k <= top + 1; ++k)
    for (const double m : {1.0, 2.0, 5.0}) {
      const double step = m * std::pow(10.0, k);
      if (whole && step < 1) continue;
      const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
      if (last - first + 1 > 8) continue;
      std::vector<double> at;
      // 0.6, not 0.6000000000000001; and 0, not -0 (ceil(-0.02) is -0: pgfplots printed the tick "-0")
      for (double j = first; j <= last; ++j) at.push_back(std::stod(fmt::format("{:.12g}", j * step)) + 0.0);
      return at.size() >= 2 ? at : std::vector<double>{};
    }
  return {};
}

std::string gnuplot_ps(double half_width_pt) { return fmt::format("{:.4g}", half_width_pt / kGnuplotMarkPt); }

namespace {

// The characters a legend label shows (markup and UTF-8 continuation bytes left out).
std::size_t label_characters(const std::string& label) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < label.size(); ++i) {
    if (label.compare(i, 8, "/Symbol ") == 0) i += 7;
    else if (label[i] != '{' && label[i] != '}' && label[i] != '_' && label[i] != '^' && (static_cast<unsigned char>(label[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

}  // namespace

bool key_outside(const KeyOptions& key) {
  return key.position.find("below") != std::string::npos || key.position.find("above") != std::string::npos;
}

Legend figure_legend(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  Legend legend;
  for (std::size_t k = 0; k < data.size(); ++k)
    if (!data[k].empty() && !figure.series[k].title.empty()) legend.labels.push_back(figure.series[k].title);
  for (std::size_t k = 0; k < data.size(); ++k)
    if (!data[k].empty() && shows_limits(figure, data, k)) {
      legend.labels.push_back(limit_label(figure, data));
      break;
    }
  for (const VerdictMark& m : kVerdictMarks)
    for (const auto& points : data)
      if (shows_verdict(figure, points, m.verdict)) {
        legend.labels.push_back(m.verdict);
        break;
      }
  legend.shown = !figure.key.off && !legend.labels.empty();
  std::size_t longest = 1;
  for (const std::string& l : legend.labels) longest = std::max(longest, label_characters(l));
  const double char_pt = 0.5 * std::max(figure.style.font_size, 9.0);
  const int fit = std::max(1, static_cast<int>(0.95 * figure.style.width * 72 / (char_pt * static_cast<double>(longest) + 40)));
  const int entries = static_cast<int>(std::max<std::size_t>(1, legend.labels.size()));
  int columns = key_outside(figure.key) ? fit : 1;
  if (figure.key.columns > 0) columns = key_outside(figure.key) ? std::min(columns, figure.key.columns) : figure.key.columns;
  legend.rows = (entries + columns - 1) / columns;
  legend.columns = (entries + legend.rows - 1) / legend.rows;
  return legend;
}

namespace {

// Where pgfplots puts a legend gnuplot draws inside the plot: the same corner or side, as `legend style` keys.
std::string pgf_inside_legend(const KeyOptions& key) {
  const auto has = [&](const char* w) { return key.position.find(w) != std::string::npos; };
  const double x = has("left") ? 0.03 : has("center") && !has("right") ? 0.5 : 0.97;
  const double y = has("bottom") ? 0.03 : has("center") && !has("top") ? 0.5 : 0.97;
  const std::string v = y < 0.4 ? "south" : y > 0.6 ? "north" : "", h = x < 0.4 ? "west" : x > 0.6 ? "east" : "";
  return fmt::format("at={{({},{})}}, anchor={}", x, y, v.empty() && h.empty() ? "center" : v.empty() ? h : h.empty() ? v : v + " " + h);
}

}  // namespace

namespace {
// A series' colour in the pgfplots file: the palette's (defined as privampA, privampB ...), gray for line 9.
std::string series_colour(const Figure& figure, const Series& s) {
  return s.line == 9 ? "black!60" : fmt::format("privamp{}", static_cast<char>('A' + (s.line - 1) % figure.style.palette.size()));
}
// The marks over the series: the upper limits (gnuplot's order: after the series), each series' in its colour, the
// first named in the legend; then the verdict marks, each named once.
std::string pgf_marks(const Figure& figure, const std::vector<std::vector<Point>>& data, const Legend& legend) {
  std::string out;
  bool limits_named = false;
  for (std::size_t k = 0; k < data.size(); ++k) {
    if (data[k].empty() || !shows_limits(figure, data, k)) continue;
    std::string points;
    for (const Point& p : data[k])
      if (const auto y = limit_mark_y(figure, data, p)) points += fmt::format("({}, {}) ", tex_number(p.x), tex_number(*y));
    const bool name = legend.shown && !limits_named;
    out += fmt::format("\\addplot[only marks, mark=triangle, mark size={:.4g}pt, mark options={{rotate=180, solid}}, color={}{}] "
                       "coordinates {{{}}};\n", kLimitMarkPt, series_colour(figure, figure.series[k]), name ? "" : ", forget plot", points);
    if (name) out += fmt::format("\\addlegendentry{{{}}}\n", enhanced_to_latex(limit_label(figure, data)));
    limits_named = limits_named || name;
  }
  for (const VerdictMark& m : kVerdictMarks) {
    std::string points;
    for (const auto& series : data)
      for (const Point& p : series)
        if (const auto y = verdict_mark_y(figure, p); p.verdict == m.verdict && y) points += fmt::format("({}, {}) ", tex_number(p.x), tex_number(*y));
    if (points.empty()) continue;
    out += fmt::format("\\addplot[{}, mark size={:.4g}pt] coordinates {{{}}};\n", m.pgf, kVerdictMarkPt, points);
    if (legend.shown) out += fmt::format("\\addlegendentry{{{}}}\n", m.verdict);
  }
  return out;
}
}  // namespace

// The axes' ticks as pgfplots options: a linear axis's (linear_ticks) and a log axis's (axis_ticks), labelled as
// gnuplot labels them.
std::string pgf_ticks(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  std::string options;
  for (const char axis : {'x', 'y'}) {
    if (figure.log.find(axis) == std::string::npos) {
      std::vector<std::string> positions;
      for (double v : linear_ticks(figure, data, axis)) positions.push_back(fmt::format("{:g}", v));
      if (!positions.empty())
        options += fmt::format(",\n  {0}tick={{{1}}}, {0}ticklabels={{{1}}}, scaled {0} ticks=false", axis, fmt::join(positions, ","));
      continue;
    }
    const LogTicks ticks = axis_ticks(figure, data, axis);
    if (!ticks.minor) options += fmt::format(", {}minorticks=false", axis);
    if (ticks.at.empty()) continue;
    std::vector<std::string> positions, tick_labels;
    for (double v : ticks.at) positions.push_back(tex_number(v)), tick_labels.push_back(fmt::format("{:g}", v));
    options += fmt::format(",\n  {}tick={{{}}}", axis, fmt::join(positions, ","));
    if (!ticks.decades) options += fmt::format(", {}ticklabels={{{}}}", axis, fmt::join(tick_labels, ","));  // pgfplots writes 10^k
  }
  return options;
}

// A pgfplots figure: the axes, each series with its points inline (error bars where an interval shows), the
// violated and inconclusive marks, labels typeset by LaTeX (the gnuplot markup translated), the style's palette,
// dash patterns and marks, the legend as figure_legend lays it out (below or above the axes by name, or inside at
// gnuplot's corner). "single" is \columnwidth wide, "double" \textwidth.
std::string pgfplots(const Figure& figure, const std::vector<std::vector<Point>>& data) {
  const Style& st = figure.style;
  const std::string width = st.size == "single" ? "\\columnwidth" : st.size == "double" ? "\\textwidth" : fmt::format("{}in", st.width);
  std::string out = fmt::format("% {} (privamp figures; data: {}_tidy.csv). Needs \\usepackage{{pgfplots}} (compat 1.17 or later).\n"
                                "% size: {} ({} wide)\n",
                                figure.name, figure.name, st.size.empty() ? "custom" : st.size, width);
  for (std::size_t k = 0; k < st.palette.size(); ++k)
    out += fmt::format("\\definecolor{{privamp{}}}{{HTML}}{{{}}}%\n", static_cast<char>('A' + k), st.palette[k].substr(1));
  const bool logx = figure.log.find('x') != std::string::npos, logy = figure.log.find('y') != std::string::npos;
  const Legend legend = figure_legend(figure, data);
  const DrawnY shown = drawn_y(figure, data);
  const bool named = legend.shown && key_outside(figure.key);  // typeset below (or above) the axes, by name
  std::string legend_name = "privamp-legend-" + figure.name;
  std::replace(legend_name.begin(), legend_name.end(), '_', '-');
  std::string options = fmt::format("width=\\privampfigurewidth, height={}in, xlabel={{{}}}, ylabel={{{}}}, grid=major, unbounded coords=jump,\n  xmode={}, ymode={}",
                                    st.height, enhanced_to_latex(figure.xlabel), enhanced_to_latex(figure.ylabel),
                                    logx ? "log" : "normal", logy ? "log" : "normal");
  if (st.show_title)  // a long title wraps over the axes (about the width less pgfplots' 45 pt for labels)
    options += fmt::format(", title={{{}}}, title style={{align=center, text width=\\privampfigurewidth-45pt}}", enhanced_to_latex(figure.title));
  options += pgf_ticks(figure, data);
  for (const char axis : {'x', 'y'})
    if (const auto [lo, hi] = axis_range(figure, data, axis); lo < hi)
      options += fmt::format(", {0}min={1}, {0}max={2}", axis, tex_number(lo), tex_number(hi));
  if (legend.shown)
    // Column by column as gnuplot fills its key: transposed, `legend columns` counts its rows. One row is written
    // untransposed (pgfplots 1.18 stacks a transposed one-row legend in one column).
    options += fmt::format(",\n  {}{}, legend cell align=left, legend style={{font=\\footnotesize, {}"
                           "/tikz/every even column/.append style={{column sep=0.8em}}}}",
                           named ? fmt::format("legend to name={}, ", legend_name) : "",
                           legend.rows == 1 ? fmt::format("legend columns={}", legend.columns)
                                            : fmt::format("transpose legend, legend columns={}", legend.rows),
                           named ? "draw=none, " : fmt::format("{}, draw={}, fill={}, ", pgf_inside_legend(figure.key),
                                                               figure.key.box ? "black" : "none", figure.key.opaque ? "white" : "none"));
  // pgfplots sizes the axes by estimating the room its labels take; the picture is typeset once in a box, and if it
  // came out wider than the width the axes are narrowed by the excess and it is typeset again: it fits exactly.
  out += "\\ifdefined\\privampfigurebox\\else\\newsavebox\\privampfigurebox\\newlength\\privampfigurewidth\\fi\n\\begingroup\n";
  out += fmt::format("\\setlength\\privampfigurewidth{{{}}}%\n\\def\\privampfigure{{%\n", width);
  out += fmt::format("\\begin{{tikzpicture}}\n\\begin{{axis}}[{}]\n", options);
  for (std::size_t k = 0; k < data.size(); ++k) {
    if (data[k].empty()) continue;
    const Series& s = figure.series[k];
    const SeriesLook look = figure_look(figure, k);
    const std::string colour = series_colour(figure, s);
    const std::string how = s.style == "points"  ? fmt::format("only marks, mark={}, mark size={:.4g}pt", look.pgf_mark, kPointMarkPt * s.point_size)
                            : s.style == "lines" ? fmt::format("no marks, {}", look.pgf_dash)
                                                 : fmt::format("mark={}, mark size={:.4g}pt, mark options={{solid}}, {}", look.pgf_mark,
                                                               kLineMarkPt, look.pgf_dash);
    const bool bars = draws_bars(figure, data, k);
    out += fmt::format("\\addplot[{}, color={}, line width={}pt{}{}]\n  table[x=x, y=y{}, row sep=\\\\] {{\n  x y ep em \\\\\n", how, colour,
                       line_width(st, s.line) * 0.5,
                       bars ? ", error bars/.cd, y dir=both, y explicit" : "", s.title.empty() ? ", forget plot" : "",
                       bars ? ", y error plus=ep, y error minus=em" : "");
    for (const Point& p : data[k]) {
      const double below = shown.lower(p.lower);  // NaN: no bar (an upper limit), for pgfplots as for gnuplot
      const double y = s.y != Series::Y::ratio ? shown.value(p) : p.y;
      out += fmt::format("  {} {} {} {} \\\\\n", tex_number(p.x), std::isnan(y) ? "nan" : tex_number(y), std::isnan(below) ? "nan" : tex_number(p.upper - p.y),
                         std::isnan(below) ? "nan" : tex_number(p.y - below));
    }
    out += "};\n";
    if (!s.title.empty() && legend.shown) out += fmt::format("\\addlegendentry{{{}}}\n", enhanced_to_latex(s.title));
  }
  out += pgf_marks(figure, data, legend);
  out += "\\end{axis}\n";
  if (named && figure.key.position.find("above") != std::string::npos)
    out += fmt::format("\\node[anchor=south] at (current axis.above north) {{\\pgfplotslegendfromname{{{}}}}};\n", legend_name);
  else if (named) out += fmt::format("\\node[anchor=north] at (current axis.below south) {{\\pgfplotslegendfromname{{{}}}}};\n", legend_name);
  out += "\\end{tikzpicture}}%\n\\sbox\\privampfigurebox{\\privampfigure}%\n";
  out += fmt::format("\\ifdim\\wd\\privampfigurebox>{0}\\relax\n  \\addtolength\\privampfigurewidth{{{0}}}\\addtolength\\privampfigurewidth{{-\\wd\\privampfigurebox}}%\n"
                     "  \\sbox\\privampfigurebox{{\\privampfigure}}%\n\\fi\n\\usebox\\privampfigurebox\n\\endgroup\n", width);
  return out;
}

}  // namespace privamp::plots::model

namespace privamp::plots {

double grey_luminance(const std::string& colour) {
  const auto channel = [&](std::size_t at) { return static_cast<double>(std::stoi(colour.substr(at, 2), nullptr, 16)); };
  return 0.299 * channel(1) + 0.587 * channel(3) + 0.114 * channel(5);
}

double line_width(const Style& style, int line) {
  if (line == 9 || style.palette.empty()) return style.line_width;  // (line 9: #666666, luminance 102)
  return grey_luminance(style.palette[static_cast<std::size_t>(line - 1) % style.palette.size()]) > 155 ? 1.5 * style.line_width
                                                                                                         : style.line_width;
}

}  // namespace privamp::plots
