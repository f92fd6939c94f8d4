// The convergence figure of an exploration (STEM_convergence): the best objective so far against the number of
// evaluations, every evaluation behind it, in the map's marks and words.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/constants.hpp"
#include "numerics/files.hpp"
#include "plots/explore_parts.hpp"
#include "plots/figures.hpp"
#include "plots/markup.hpp"
#include "verify/explore/explore_report.hpp"

namespace privamp::plots::explore_parts {

using verify::Evaluation;

namespace {

// The convergence plot's y range: the best-so-far line's after its first 2 % of evaluations, padded (a few
// evaluations hundreds of decades away would squash the progress into a flat line), ticked in ratios; and how many
// evaluations lie beyond it, per key entry (each evaluation inside the hypotheses, outside them, the best-so-far line).
// Empty settings where the line has no finite point.
struct YRange {
  std::string settings;
  double lo = -kInf, hi = kInf;     // log10 ratio
  std::array<std::string, 3> beyond;  // the key entries' words for the evaluations beyond it
};
YRange convergence_yrange(double line_lo, double line_hi, const std::array<std::vector<double>, 2>& each, const std::vector<double>& line) {
  YRange out;
  if (line_lo <= line_hi) {
    // (at least 0.01 of a decade, 2.3 %: a floor of 0.05 left a line from 1.64 to 1.675 in the bottom third of a range
    // from 1.46 to 1.88)
    const double pad = std::max(0.25 * (line_hi - line_lo), 0.01 * std::max(1.0, std::fabs(line_hi))), hi = line_hi + pad;
    double lo = line_lo - pad;
    // (the padding does not cross ratio 1 where nothing lies below it: a line from 1 to 10^{200} was padded down to
    // 10^{-50}, a range of ratios below 1 that no evaluation had)
    const auto below_one = [](const std::vector<double>& v) { return std::any_of(v.begin(), v.end(), [](double x) { return x < 0; }); };
    if (line_lo >= 0 && !below_one(each[0]) && !below_one(each[1]) && lo < 0) lo = -0.02 * hi;
    out.lo = lo, out.hi = hi;
    // (ticks named by the ratio itself, as on the frontier and the map's colour bar: a tick "0.05" was log10 of 1.12)
    // (the ends to every digit: the triangles of the evaluations beyond are drawn at these very ends, and a range
    // rounded to 6 digits lay inside them, so gnuplot dropped all 27 of a tightest search's)
    out.settings = fmt::format("set yrange [{:.17g}:{:.17g}]\n", lo, hi) + ratio_tics(lo, hi);
    // (counted per key entry, inside and outside the hypotheses: one count on the first entry had covered both; and
    // drawn, as triangles on the edge they lie beyond: counted only, 14 of 40 evaluations had left no mark)
    for (std::size_t k = 0; k < 2; ++k)
      if (const auto n = std::count_if(each[k].begin(), each[k].end(), [&](double v) { return v < lo || v > hi; }); n > 0)
        out.beyond[k] = fmt::format(" ({} beyond the range shown: triangles on its edge)", n);
    // (the line's first evaluations, left out of the range, said too: a best so far cut off unannounced read as
    // starting where the range does)
    if (const auto n = std::count_if(line.begin(), line.end(), [&](double v) { return v < lo || v > hi; }); n > 0)
      out.beyond[2] = fmt::format("; its first {} beyond the range shown", n);
  }
  return out;
}

// The convergence plot's data, written to its CSV (one row per evaluation: the best log10 ratio so far, empty before
// the first candidate; the evaluation's own; 1 outside the hypotheses; the best inside them; 1 where it is tight
// without a ratio), and what the plot needs of it.
struct ConvergenceData {
  std::size_t candidates = 0;
  double line_lo = kInf, line_hi = -kInf;   // the best-so-far line's range (log10 ratio)
  std::array<std::vector<double>, 2> each;  // every candidate's log10 ratio, inside the hypotheses and outside them
  bool any_outside = false;                 // a candidate outside the hypotheses (drawn open)
  std::size_t tight_zeros = 0;  // evaluations tight without a ratio (drawn at 1)
  // The evaluations not drawn, by the map's names: without a finite ratio (holds, inconclusive, violated); outside
  // the hypotheses (not applicable, not evaluated); degenerate (no amplification); outside the `where` region; errors.
  std::array<std::size_t, 7> undrawn{};
  std::vector<double> line;  // the best-so-far line at each evaluation (NaN before the first)
  double best_inside_end = std::nan("");  // the best inside the hypotheses at the end (log10 ratio)
};

ConvergenceData write_convergence(const verify::ExploreResult& r, bool ignore, const std::filesystem::path& csv) {
  ConvergenceData d;
  OutputFile checked(csv);
  std::ostream& out = checked.stream();
  out.precision(17);
  out << "# evaluations,best log10 ratio so far,this evaluation's log10 ratio (empty: not a candidate),"
         "1 where the point is outside the hypotheses (evaluated with them ignored),best log10 ratio so far inside them,"
         "1 where it is tight without a ratio (exact and bound 0, or below the double range)\n";
  double best = std::nan(""), best_inside = std::nan("");
  const auto as_slack = [&](double objective) { return (r.goal == verify::Goal::loosest ? -objective : objective) / std::log(10.0); };
  const auto text = [](double v) { return std::isnan(v) ? std::string() : fmt::format("{}", v); };
  for (std::size_t i = 0; i < r.evaluations.size(); ++i) {
    const Evaluation& e = r.evaluations[i];
    const bool has = candidate(e, ignore), tight = tight_without_ratio(e);
    if (has) {
      const double v = verify::objective(r.goal, e.slack);
      if (std::isnan(best) || v < best) best = v;
      if (!e.outside() && (std::isnan(best_inside) || v < best_inside)) best_inside = v;
      ++d.candidates;
      d.any_outside = d.any_outside || e.outside();
      d.each[e.outside() ? 1 : 0].push_back(e.slack / std::log(10.0));
    }
    // (a tight point without a ratio is not counted by the best so far: exact = bound = 0 is where the two inputs
    // coincide or nothing is released, trivially tight, and it sent the line to 1 at evaluation 4 of a search whose
    // answer, among points that say something, was 1.8; drawn at 1 apart, the key says so)
    d.tight_zeros += tight ? 1 : 0;
    // (each one once, by the first that applies: degenerate points and points outside the hypotheses had been
    // counted as "holds, infinitely loose", or not at all: 29 of 60 evaluations left out of a key that said 1)
    if (!has && !tight)
      ++d.undrawn[e.status == Evaluation::Status::error                ? 6
                  : e.status == Evaluation::Status::not_applicable     ? 3
                  : !e.degenerate.empty()                              ? 4
                  : !e.in_region                                       ? 5
                  : e.verdict() == verify::Verdict::violated           ? 2
                  : e.verdict() == verify::Verdict::inconclusive       ? 1
                  : e.verdict() == verify::Verdict::not_applicable     ? 3
                                                                       : 0];
    const double line = std::isnan(best) ? best : as_slack(best);
    out << i + 1 << "," << text(line) << "," << (has ? text(e.slack / std::log(10.0)) : "") << "," << (e.outside() ? 1 : 0) << ","
        << text(std::isnan(best_inside) ? best_inside : as_slack(best_inside)) << "," << (tight ? 1 : 0) << "\n";
    // (the line's first 2 % of evaluations left out of its range: a first point hundreds of decades away, where the
    // search starts, flattened the whole descent against the axis)
    if (std::isfinite(line) && (i + 1) * 50 > r.evaluations.size()) d.line_lo = std::min(d.line_lo, line), d.line_hi = std::max(d.line_hi, line);
    d.line.push_back(line);
  }
  checked.close();
  d.best_inside_end = std::isnan(best_inside) ? best_inside : as_slack(best_inside);
  if (d.tight_zeros > 0 && d.line_lo <= d.line_hi) d.line_lo = std::min(d.line_lo, 0.0);  // (they are drawn at ratio 1)
  return d;
}

// Convergence: the best objective so far against the number of evaluations, every evaluation behind it; the
// evaluations judged tight without a ratio at ratio 1, the others without a ratio counted in the key.
}  // namespace

void render_convergence(const verify::ExploreResult& r, bool ignore, const std::filesystem::path& dir, const std::string& stem) {
  const std::string ratio = verify::slack_ratio_name(r.direction);
  const auto conv_csv = dir / (stem + "_convergence.csv");
  const ConvergenceData d = write_convergence(r, ignore, conv_csv);
  if (d.candidates == 0) return;  // no candidate point: nothing converges
  const std::string file = quoted(conv_csv.filename().string());
  const YRange y = convergence_yrange(d.line_lo, d.line_hi, d.each, d.line);
  std::string range = y.settings;
  const auto& beyond = y.beyond;
  // The x axis ends just after the last evaluation (a final drop at the last one was drawn on the right frame), and
  // after the global phase's end; linear, so that the local phase (the last third of the budget, where the final gains
  // are made) is not squeezed into the last few percent of a log axis.
  const double last = std::max<double>({2.0, static_cast<double>(r.evaluations.size()), static_cast<double>(r.global_points) + 1});
  range += fmt::format("set xrange [0:{}]\n", last + std::max(1.0, std::ceil(0.02 * last)));
  // The evaluations outside the hypotheses (with them ignored) open, as on the map; with them, the best inside the
  // hypotheses is a line of its own: the theorem's answer, where the line of all points may run below 1 on points
  // where it claims nothing.
  // A violation search marks its points as the map does: violated ones (ratio below 1) as down-triangles, open
  // outside the hypotheses (they were open circles here and open triangles on the map).
  const bool sign = r.goal == verify::Goal::violation;
  const std::string shape = sign ? "($3 < 0 ? {} : {})" : "({1})", marked = sign ? "; down-triangles: violated" : "";
  const auto pts = [&](int violated, int holds) { return fmt::format(fmt::runtime(shape), violated, holds); };
  const std::string last_inside = std::isnan(d.best_inside_end) ? "" : fmt::format(": {} at the end", ratio_tick(d.best_inside_end));
  // (the marks' key entries of their own: a key sample of a variable point type is a dot)
  std::string each_plot =
      d.any_outside ? fmt::format("{0} using 1:($4 == 0 ? $3 : 1/0):{3} with points pt variable ps 0.4 lc rgb '#aaaaaa' notitle, \\\n"
                                  "     keyentry with points pt 7 ps 0.4 lc rgb '#aaaaaa' title 'each evaluation inside the hypotheses{1}{5}', \\\n"
                                  "     {0} using 1:($4 == 1 ? $3 : 1/0):{4} with points pt variable ps 0.5 lc rgb '#888888' notitle, \\\n"
                                  "     keyentry with points pt 6 ps 0.5 lc rgb '#888888' title 'each evaluation outside them (evaluated anyway){2}', \\\n"
                                  "     {0} using 1:5 with steps ls 2 lw 2 title 'best so far inside the hypotheses{6}'",
                                  file, beyond[0], beyond[1], pts(11, 7), pts(10, 6), marked, last_inside)
                    : fmt::format("{0} using 1:3:{1} with points pt variable ps 0.4 lc rgb '#aaaaaa' notitle, \\\n"
                                  "     keyentry with points pt 7 ps 0.4 lc rgb '#aaaaaa' title 'each evaluation{2}{3}'", file, pts(11, 7), beyond[0], marked);
  // The evaluations beyond the range: a triangle on the edge they lie beyond, pointing out of the plot (filled inside
  // the hypotheses, open outside them), in the grey of their own marks.
  if (std::isfinite(y.lo) && std::isfinite(y.hi)) {
    const std::string at_edge = fmt::format("($3 > {1:.17g} ? {1:.17g} : $3 < {0:.17g} ? {0:.17g} : 1/0)", y.lo, y.hi);
    const std::string pointing = fmt::format("($3 > {:.17g} ? {{}} : {{}})", y.hi);
    for (int outside = 0; outside < 2; ++outside) {
      if (beyond[outside].empty()) continue;
      const std::string kept = d.any_outside ? fmt::format("($4 == {} ? 1 : 0)", outside) : "(1)";
      each_plot += fmt::format(", \\\n     {} using 1:({} ? {} : 1/0):{} with points pt variable ps 0.6 lc rgb '{}' notitle", file,
                               kept, at_edge, fmt::format(fmt::runtime(pointing), outside ? 8 : 9, outside ? 10 : 11),
                               outside ? "#888888" : "#aaaaaa");
    }
  }
  // (the map's marks and words: a plus sign on the best-so-far line at ratio 1 merged with it)
  if (d.tight_zeros > 0)
    each_plot += fmt::format(", \\\n     {} using 1:($6 == 1 ? 0 : 1/0) with points pt 13 ps 0.8 lc rgb '#21908d' title "
                             "'{} tight, no ratio (exact = bound: 0 or below doubles), drawn at 1, not in the best so far'", file, d.tight_zeros);
  // (not drawn: the key says how many of each verdict, in the map's words, so that "each evaluation" does not read as
  // all of them)
  std::vector<std::string> undrawn;
  const char* names[] = {"holds, infinitely loose",  "inconclusive, no ratio", "violated, no finite ratio", "outside the hypotheses",
                         "degenerate (no amplification)", "outside the region", "errors"};
  for (std::size_t v = 0; v < d.undrawn.size(); ++v)
    if (d.undrawn[v] > 0) undrawn.push_back(fmt::format("{} {}", d.undrawn[v], names[v]));
  if (!undrawn.empty())
    each_plot += fmt::format(", \\\n     keyentry with dots lc rgb 'white' title 'not drawn: {}'", fmt::join(undrawn, "; "));
  // (a violation search's ratio 1 drawn first, behind, as a wide light band: the best inside the hypotheses often
  // sits on it, and a dotted line under its dashes could not be told from it)
  const std::string one = r.goal == verify::Goal::violation
                              ? "0 with lines lc rgb '#d0d0d0' lw 6 title 'ratio 1: violated below', \\\n     " : "";
  const std::string cbody = fmt::format(
      "set datafile separator ','\nset xlabel 'evaluations'\nset ylabel '{} (log scale)'\nset key below nobox height 1\n"
      "{}set arrow from {}, graph 0 to {}, graph 1 nohead ls 9\n"
      "plot {}{}, \\\n"
      "     {} using 1:2 with steps ls 1 lw 2 title 'best so far ({}{}{}){}', \\\n"
      "     keyentry with lines ls 9 title 'end of the global phase'\n",
      ratio, range, r.global_points + 0.5, r.global_points + 0.5, one, each_plot, file, goal_phrase(r.goal),
      d.any_outside ? ", all points, hypotheses ignored" : "", beyond[2],
      d.line.empty() || std::isnan(d.line.back()) ? "" : fmt::format(": {} at the end", ratio_tick(d.line.back())));
  render_gnuplot(dir, stem + "_convergence", literal(fmt::format("{}: convergence of the search{}", title_head(r), d.any_outside ? " (hypotheses ignored)" : "")),
                 fmt::format("privamp explore: best objective so far; data {}", conv_csv.filename().string()), cbody, explore_style());
}


}  // namespace privamp::plots::explore_parts
