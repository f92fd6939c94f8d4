// One figure, two renderers: what the gnuplot script (PDF, PNG) and the pgfplots file draw alike is decided here
// once — the axes' ticks, the marks' sizes, the legend's layout, how off-plot values and intervals show, which
// verdict marks are drawn — and each renderer is told it in its own units (the test cli.figure_agreement measures
// gnuplot's PDF against the pgfplots file). The pgfplots file itself is written here too.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "plots/figures.hpp"

namespace privamp::plots::model {

// A number as both renderers write it (10 significant digits).
std::string tex_number(double x);

// A point's interval width over its value (0 for a value of 0 or an unbounded interval).
double relative_width(const Point& p);
// The largest relative width of a series' intervals (the provenance reports it).
double widest_interval(const std::vector<Point>& series);
double widest_interval(const std::vector<std::vector<Point>>& data);
// Whether a point lies within the figure's declared ranges (every point does where none is declared).
bool in_view(const Figure& figure, const Point& p);
// Whether a point shows in the plot: in view, or (its x in view) with an interval reaching into a declared y range
// (its bar is drawn from the edge).
bool drawn(const Figure& figure, const Point& p);
// Where a point's verdict mark is drawn, the same in both renderers: at the point where it is in view; for a point
// off a declared y range (its x in view), at the end of its interval that lies strictly inside the range — the end of
// the bar drawn, so that an inconclusive value below the axis whose bar rises past the bound is marked where the bar
// ends; none where no end is inside (a mark at the edge would sit on other series' points).
std::optional<double> verdict_mark_y(const Figure& figure, const Point& p);
// Where a point's upper limit is drawn (log y axes only): an interval reaching down to 0 has no lower end on the axis,
// so instead of a bar its upper end is marked, by an open down-triangle in the series' colour (kLimitMarkPt), where
// that end lies in the axis range (and the point's x in the figure's); where it lies below the axis (a value of 0,
// or [0, u] with u under the bottom), just inside the bottom frame (DrawnY::floor_mark); none above the axis.
std::optional<double> limit_mark_y(const Figure& figure, const std::vector<std::vector<Point>>& data, const Point& p);
bool shows_limits(const Figure& figure, const std::vector<std::vector<Point>>& data, std::size_t k);  // any in series k
// Whether any point carries the verdict with a mark drawn (its mark is then named in the legend).
bool shows_verdict(const Figure& figure, const std::vector<Point>& points, const char* verdict);
// The height of the part of a point's error bar inside the plot, as a fraction of the y axis's (in log space on a log
// axis, a lower end at or below 0 from the axis' bottom); 0 for a point not drawn.
double bar_fraction(const Figure& figure, const std::vector<std::vector<Point>>& data, const Point& p);
// Whether series k's error bars are drawn (by both renderers): where one of its bars shows beyond the series' mark, at
// least the mark's height and 2 pt more on the axes (taken as 70 % of the figure's height). Shorter bars hide under the
// marks or leave specks along a line; the caption then says the intervals are too narrow to see.
bool draws_bars(const Figure& figure, const std::vector<std::vector<Point>>& data, std::size_t k);
bool draws_bars(const Figure& figure, const std::vector<std::vector<Point>>& data);  // any series

// The range an axis ('x' or 'y') shows, given to both renderers (gnuplot's xrange, pgfplots' xmin/xmax) so that they
// draw the same axes and their ticks are chosen in it: the figure's declared range where it has one, else the values
// drawn on the axis (on y the intervals' ends too; on a log axis the positive ones) with a margin of 2 % of their span
// on x and 5 % on y at each end, in log space on a log axis (a single value: a factor 2, or 1, each side). Not padded
// to whole ticks; a tick the margin brings into view (1 below a lowest value of 1.2) is drawn by both. lo > hi: the
// axis has no value to show (each renderer's own range).
std::pair<double, double> axis_range(const Figure& figure, const std::vector<std::vector<Point>>& data, char axis);

// How an error bar is drawn when its value is off the plot, the same in both renderers (the CSV keeps every value as
// computed): its anchor at the edge of a declared y range (gnuplot would drop an out-of-range point's bar, so the
// part of an interval that reaches into the plot would not show). On a log axis an interval reaching down to 0 has
// no lower end on the axis: it draws no bar (`lower` is NaN: gnuplot's lowery 1/0, pgfplots' nan) but an upper
// limit, an open down-triangle at its upper end (limit_mark_y below), and no value either (`value` is NaN: gnuplot's
// valy 1/0, pgfplots' nan, the line broken there): the engine's estimate inside [0, u] is not a certified value, and
// a filled mark beside the triangle would claim one. Such a value whose interval ends below the axis (0, or [0, u]
// with u under its bottom) breaks the line too, and its triangle sits just inside the bottom frame (`floor_mark`): a
// line drawn down to the frame and along it hid under the frame, and its drop was an artefact. Verdict marks:
// verdict_mark_y above (`marky`).
struct DrawnY {
  std::optional<std::pair<double, double>> declared;
  bool log = false;
  double lower(double l) const { return log && !(l > 0) ? std::nan("") : l; }
  double floor = 0, top = 0;  // log axes: the axis range
  // The place of the mark of a value below the axis: 3 % of the axis' height above its bottom, inside the frame.
  double floor_mark() const { return std::exp(std::log(floor) + 0.03 * (std::log(top) - std::log(floor))); }  // (top/floor overflows)
  double value(const Point& p) const {  // an exact value's or a bound's
    return !log || p.lower > 0 ? p.y : std::nan("");
  }
  // The same as gnuplot functions of the columns: lowery(l), and anchory(y, l, u) the bar's anchor, the point itself
  // where it is in range, else the end of the bar that reaches into the plot (clamped to the range: gnuplot leaves
  // a gap at the anchor, which at an end does not show); bary(y, l, u) the anchor of a bar drawn, 1/0 for none (an
  // undefined anchor drops gnuplot's bar, an undefined lower end does not); limity(l, u) an upper limit's place.
  std::string gnuplot() const {
    std::string s = log ? "lowery(v) = v > 0 ? v : 1/0\nbary(y, l, u) = l > 0 ? anchory(y, l, u) : 1/0\nvaly(y, l, u) = l > 0 ? y : 1/0\n"
                          + fmt::format("limity(l, u) = l > 0 || !(u >= 0) || u > {1} ? 1/0 : u >= {0} ? u : {2}\n", tex_number(floor),
                                        tex_number(top), tex_number(floor_mark()))
                        : "lowery(v) = v\nbary(y, l, u) = anchory(y, l, u)\nvaly(y, l, u) = y\n";
    if (!declared) return s + "anchory(y, l, u) = y\nmarky(y, l, u) = y\n";
    return s + fmt::format("anchory(y, l, u) = y < {0} ? (u < {1} ? u : {1}) : y > {1} ? (lowery(l) > {0} ? lowery(l) : {0}) : y\n"
                           "marky(y, l, u) = y < {0} ? (u > {0} && u < {1} ? u : 1/0) : y > {1} ? (l > {0} && l < {1} ? l : 1/0) : y\n",
                           tex_number(declared->first), tex_number(declared->second));
  }
};
DrawnY drawn_y(const Figure& figure, const std::vector<std::vector<Point>>& data);

// The ticks of a log axis, the same for both renderers. Where three powers of ten or more fall in the span: powers of
// ten, every 1, 2, 5, 10, 20 ... decades so that at most eight fall in it, labelled 10^k (`decades`) unless all of
// them lie from 0.001 to 10000, which are labelled as numbers (1, 10, 100, 1000 rather than 10^0 … 10^3). Otherwise: 1, 2
// and 5 times the powers of ten in range, and 3 times the top decade where the axis ends well above its last tick (an
// axis of a few decades would otherwise get fractional powers, 10^{-0.3}), labelled as numbers. Empty: fewer than two
// ticks fall in the span (each renderer's own). Minor ticks (`minor`): not over more than six decades, where they
// bunch into combs.
struct LogTicks {
  std::vector<double> at;
  bool decades = false;
  bool minor = true;
};
LogTicks log_ticks(std::pair<double, double> span);
// The ticks of a figure's log axis: where every value drawn on it is a power of one integer b from 2 to 9 (steps
// T = 2, 4 … 128; three values or more, up to 10^5), the powers of b in its range (every second, third … so that at
// most eight show), labelled as numbers and without minor ticks (decimal ones would fall between them); otherwise
// log_ticks of its range.
LogTicks axis_ticks(const Figure& figure, const std::vector<std::vector<Point>>& data, char axis);
// The ticks of a linear axis over `span`, one set for both renderers (each picked its own: pgfplots 0.1 apart where
// gnuplot put 0.2, every integer where gnuplot put even ones): the multiples of the smallest step 1, 2 or 5 × 10^k
// that leaves at most eight in the span, a whole step where every value drawn on the axis is a whole number;
// labelled as %g prints them (no common factor pulled out).
std::vector<double> linear_ticks(const Figure& figure, const std::vector<std::vector<Point>>& data, char axis);

// One figure, two renderers. What both draw alike is decided here once — mark sizes, the legend's entries and
// columns, where the title goes — and each renderer is told it in its own units; the test cli.figure_agreement
// measures gnuplot's PDF against the pgfplots file.
//
// A mark's size is its half-width in points, pgfplots' `mark size`. gnuplot's cairo terminals draw a mark 3 pt from
// centre to edge per unit of `ps`, whatever the font (the test measures this on the installed gnuplot).
inline constexpr double kGnuplotMarkPt = 3.0;
inline constexpr double kLineMarkPt = 1.5;     // the marks of a linespoints series
inline constexpr double kPointMarkPt = 2.0;    // a points series' marks at point_size 1
inline constexpr double kVerdictMarkPt = 3.0;  // violated and inconclusive marks
inline constexpr double kLimitMarkPt = 2.0;    // upper limits: intervals reaching 0 on a log axis
// Their legend entry (the first series' with any): "bounded above only" where the marks' upper ends are positive,
// "exactly 0" where every one is an interval [0, 0] (its mark below a log axis is not a bound), both where both occur.
std::string limit_label(const Figure& figure, const std::vector<std::vector<Point>>& data);
std::string gnuplot_ps(double half_width_pt);  // gnuplot's `ps` for a mark of this half-width

// The marks for violated and inconclusive points, in both renderers and each once in the key: a red cross, and a black
// circle (no series' colour: an orange one read as a mark of the vermillion series beside it).
struct VerdictMark {
  const char* verdict;
  const char* gnuplot;
  const char* pgf;
};
inline constexpr VerdictMark kVerdictMarks[] = {
    {"violated", "pt 2 lw 2 lc rgb '#d62728'", "only marks, mark=x, line width=1pt, color={rgb,255:red,214;green,39;blue,40}"},
    {"inconclusive", "pt 6 lw 1.5 lc rgb 'black'", "only marks, mark=o, line width=0.8pt, color=black"}};

// The legend of a figure as both renderers draw it: its entries in order (the titled series drawn, then the upper
// limits' entry where any is drawn, then a verdict mark's entry where such points are drawn) in `rows` rows and `columns` columns, filled column by column (gnuplot's
// order: pgfplots is told `transpose legend`). Below or above the plot the columns are at most as many as fit the
// figure's width — estimated from the longest label at half an em per character of the larger of the figure's font
// and 9 pt (pgfplots' \footnotesize is at most that), plus 40 pt of sample line and spacing per entry, 5 % to
// spare — and at most the declared `columns`; inside the plot, one unless declared. Then balanced as gnuplot
// balances them: rows = ceil(entries / columns), columns = ceil(entries / rows) (4 entries in at most 3 columns
// are 2 by 2).
struct Legend {
  std::vector<std::string> labels;
  int columns = 1, rows = 1;
  bool shown = false;
};
bool key_outside(const KeyOptions& key);  // below or above the plot
Legend figure_legend(const Figure& figure, const std::vector<std::vector<Point>>& data);

// A pgfplots figure (NAME.tex): the same picture as the gnuplot one, in the paper's LaTeX.
std::string pgfplots(const Figure& figure, const std::vector<std::vector<Point>>& data);

}  // namespace privamp::plots::model
