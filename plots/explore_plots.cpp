#include "plots/explore_plots.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "numerics/files.hpp"
#include "plots/figures.hpp"
#include "verify/explore/explore_report.hpp"

namespace privamp::plots {

namespace {

using verify::Evaluation;
using verify::ExploreAxis;

// An axis value as a plot coordinate: numbers as they are, words by their index among the choices.
double coordinate(const ExploreAxis& a, const verify::Params& p) {
  if (const auto it = p.numbers.find(a.name); it != p.numbers.end()) return it->second;
  const std::string& w = p.words.at(a.name);
  for (std::size_t k = 0; k < a.choices.size(); ++k)
    if (std::holds_alternative<std::string>(a.choices[k]) && std::get<std::string>(a.choices[k]) == w) return static_cast<double>(k);
  return std::nan("");
}

std::string axis_settings(const ExploreAxis& a, char axis) {
  std::string s = fmt::format("set {}label {}\n", axis, quoted(parameter_label(a.name)));  // delta as δ
  const bool words = a.kind == ExploreAxis::Kind::choice &&
                     std::any_of(a.choices.begin(), a.choices.end(), [](const auto& c) { return std::holds_alternative<std::string>(c); });
  if (words) {
    std::vector<std::string> tics;
    for (std::size_t k = 0; k < a.choices.size(); ++k)
      tics.push_back(fmt::format("{} {}", tic_label(std::holds_alternative<std::string>(a.choices[k]) ? std::get<std::string>(a.choices[k]) : ""), k));
    s += fmt::format("set {}tics ({})\nset {}range [-0.5:{}]\n", axis, fmt::join(tics, ", "), axis, a.choices.size() - 0.5);
  } else if (a.log) {
    s += fmt::format("set logscale {}\n", axis);
  }
  // The axis spans the searched box (with a 6 % margin: the reported points' rings at its edge stay whole), not the
  // decades around it: a search over σ in [0.5, 16] once drew an axis from 0.1 to 100.
  if (!words) {
    double lo = a.min, hi = a.max;
    if (a.kind == ExploreAxis::Kind::choice) {
      lo = kInf, hi = -kInf;
      for (const auto& c : a.choices)
        if (std::holds_alternative<double>(c)) lo = std::min(lo, std::get<double>(c)), hi = std::max(hi, std::get<double>(c));
    }
    if (std::isfinite(lo) && std::isfinite(hi) && hi > lo) {
      if (a.log && lo > 0) {
        const double f = std::pow(hi / lo, 0.06);
        s += fmt::format("set {}range [{}:{}]\n", axis, lo / f, hi * f);
      } else {
        const double m = 0.06 * (hi - lo);
        s += fmt::format("set {}range [{}:{}]\n", axis, lo - m, hi + m);
      }
    }
  }
  return s;
}

// The look of the exploration figures: the page width of a two-column paper, a little taller than the figures'
// (a colour bar and a longer key), 9 pt.
Style explore_style() {
  Style s;
  s.width = 7;
  s.height = 4.2;
  return s;
}

// A point the search may answer with and a figure can place (a finite ratio).
bool candidate(const Evaluation& e, bool ignore) { return verify::is_candidate(e, ignore) && std::isfinite(e.slack); }

// The map's palette: perceptually uniform (viridis) over the central 96% of the candidates' log ratios, so that a
// few extreme points do not take the whole range, and darkest where the search looks (the loosest points of a
// search for them: on the light end, yellow, they were near-white in grayscale); for a violation search, diverging
// and centred at ratio 1.
std::string palette(const verify::ExploreResult& r) {
  std::vector<double> l;
  for (const Evaluation& e : r.evaluations)
    if (e.status == Evaluation::Status::ok && std::isfinite(e.slack)) l.push_back(e.slack / std::log(10.0));
  if (l.empty()) return "";
  std::sort(l.begin(), l.end());
  const double lo = l[static_cast<std::size_t>(0.02 * static_cast<double>(l.size() - 1))];
  const double hi = l[static_cast<std::size_t>(0.98 * static_cast<double>(l.size() - 1))];
  if (r.goal == verify::Goal::violation) {
    // A diverging scale around ratio 1 (log 0) as wide as the points that matter: the violations (90 % of them
    // inside the scale), or with none the quarter of the points closest to one. Points beyond saturate; a scale
    // from all the points would paint violations of a few percent white beside ratios of 10^100.
    std::vector<double> violations;
    for (double v : l)
      if (v < 0) violations.push_back(-v);
    std::sort(violations.begin(), violations.end());
    const double m = std::max(1e-3, violations.empty() ? l[static_cast<std::size_t>(0.25 * static_cast<double>(l.size() - 1))]
                                                       : violations[static_cast<std::size_t>(0.9 * static_cast<double>(violations.size() - 1))]);
    // The sign is the marks' shape (violations are down-triangles); the colour runs one way in lightness, dark at the
    // worst violation to light at the loosest (viridis), so that it reads in grey print too, where a red-grey-blue
    // scale had both ends one dark grey. The middle, ratio 1, is a mid teal: visible on the white page.
    return fmt::format("set palette defined (-1 '#440154', -0.5 '#3b528b', 0 '#21908d', 0.5 '#5dc963', 1 '#fde725')\n"
                       "set cbrange [{}:{}]\n", -m, m);  // (the colour bar's label says the ends saturate)
  }
  const bool loosest = r.goal == verify::Goal::loosest;
  return fmt::format("set palette defined (0 '{}', 1 '{}', 2 '#21908d', 3 '{}', 4 '{}')\n{}", loosest ? "#fde725" : "#440154",
                     loosest ? "#5dc963" : "#3b528b", loosest ? "#3b528b" : "#5dc963", loosest ? "#440154" : "#fde725",
                     hi > lo ? fmt::format("set cbrange [{}:{}]\n", lo, hi) : std::string());
}

}  // namespace

void render_frontier(const verify::FrontierResult& f, bool ignore, const std::filesystem::path& dir, const std::string& stem) {
  const verify::ExploreResult& r = f.search;
  std::filesystem::create_directories(dir);
  const std::string ratio = verify::slack_ratio_name(r.direction);
  const auto csv = dir / (stem + "_frontier_points.csv");
  bool any = false, degenerate = false;
  std::vector<double> candidates, best;  // log10 ratios: every candidate's, each bin's best
  {
    OutputFile checked(csv);
    std::ostream& out = checked.stream();
    out.precision(17);
    out << fmt::format("# {},log10({}) (blocks: candidate points; each bin's best point re-evaluated; degenerate optima; each bin's "
                       "best across the bin, its two ends)\n", f.name, ratio);
    const auto value = [&](const Evaluation& e) {
      const verify::Params p = verify::with_search_values(e.point, e.exact(), e.bound());
      const auto it = p.numbers.find(f.name);
      return it == p.numbers.end() ? std::nan("") : it->second;
    };
    for (const Evaluation& e : r.evaluations)
      if (candidate(e, ignore) && std::isfinite(value(e))) {
        out << value(e) << "," << e.slack / std::log(10.0) << "\n";
        candidates.push_back(e.slack / std::log(10.0));
        any = true;
      }
    out << "\n\n";
    for (const verify::FrontierBin& bin : f.bins)
      if (bin.best_index) {
        const Evaluation& e = r.evaluations[*bin.best_index];
        out << value(e) << "," << e.slack / std::log(10.0) << "\n";
        if (std::isfinite(e.slack)) best.push_back(e.slack / std::log(10.0));
      }
    out << "\n\n";
    for (const verify::FrontierBin& bin : f.bins)
      if (bin.degenerate_index) {
        const Evaluation& e = r.evaluations[*bin.degenerate_index];
        out << value(e) << "," << e.slack / std::log(10.0) << "\n";
        degenerate = true;
      }
    if (!degenerate) out << "nan,nan\n";  // an empty block would end the file early for gnuplot
    // Each bin's best as a step across the bin (its value holds for the bin, not between bins' points).
    out << "\n\n";
    for (const verify::FrontierBin& bin : f.bins)
      if (bin.best_index && std::isfinite(r.evaluations[*bin.best_index].slack)) {
        const Evaluation& e = r.evaluations[*bin.best_index];
        const double v = e.slack / std::log(10.0), x = value(e);  // (an end bin's best may lie past its edge)
        out << std::min(bin.lower, x) << "," << v << "\n" << std::max(bin.upper, x) << "," << v << "\n\n";
      }
    checked.close();
  }
  if (!any) return;
  // The y range is the frontier's, padded by a third of its span (and 5 % of its size): the candidates far from it,
  // which the search passed over, would squash the frontier into a flat line at the bottom; the key counts them.
  std::string yrange, beyond;
  if (!best.empty()) {
    const auto [lo_it, hi_it] = std::minmax_element(best.begin(), best.end());
    const double pad = std::max(0.3 * (*hi_it - *lo_it), 0.05 * std::max({std::fabs(*lo_it), std::fabs(*hi_it), 1e-3}));
    const double lo = *lo_it - pad, hi = *hi_it + pad;
    yrange = fmt::format("set yrange [{:.6g}:{:.6g}]\n", lo, hi);
    if (const auto n = std::count_if(candidates.begin(), candidates.end(), [&](double v) { return v < lo || v > hi; }); n > 0)
      beyond = fmt::format(" ({} beyond the range shown)", n);
  }
  const std::string file = quoted(csv.filename().string());
  const std::string body = fmt::format(
      "set datafile separator ','\nset xlabel {}\n{}set ylabel 'log_{{10}}({})'\nset key below nobox height 1\n"
      "set autoscale xfix\nset offsets graph 0.02, graph 0.02, 0, 0\n{}"
      "plot {} index 0 using 1:2 with points pt 7 ps 0.4 lc rgb '#aaaaaa' title 'candidate points{}', \\\n"
      "     {} index 3 using 1:2 with lines ls 1 lw 2 title 'best per bin ({}), across the bin', \\\n"
      "     {} index 1 using 1:2 with points ls 1 pt 7 ps 0.8 notitle{}\n",
      quoted(literal(f.name)), f.log ? "set logscale x\n" : "", ratio, yrange, file, beyond, file, verify::to_string(r.goal), file,
      // The degenerate optima only when there is one (an entry in the key for nothing misleads).
      degenerate ? fmt::format(", \\\n     {} index 2 using 1:2 with points pt 8 ps 1.5 lc rgb '#b2182b' title "
                               "'degenerate optimum (no amplification)'", file)
                 : std::string());
  render_gnuplot(dir, stem + "_frontier", literal(fmt::format("{}: {} {} along {} ({})", r.id, verify::to_string(r.goal), ratio, f.name, r.case_name)),
                 fmt::format("privamp explore --frontier {}: case {}; data {}", f.name, r.case_name, csv.filename().string()), body,
                 explore_style());
}

namespace {

// The map's title: the ID, case and goal, and the axes not drawn (`order` from the drawn ones on), which are projected
// out: neighbouring points differ by values the map hides.
std::string map_title(const verify::ExploreResult& r, const std::vector<std::size_t>& order, std::size_t drawn) {
  std::vector<std::string> hidden;
  for (std::size_t k = drawn; k < order.size(); ++k) hidden.push_back(r.space.axes[order[k]].name);
  return fmt::format("{}: {} ({}{})", r.id, r.case_name, verify::to_string(r.goal),
                     hidden.empty() ? "" : fmt::format("; over every {}", fmt::join(hidden, ", ")));
}

// The map's plot styles per block (candidates, outside the hypotheses, degenerate, other, outside but ringed,
// reported). A violation search's map marks the sign by shape too (a violation, ratio below 1, a down-triangle):
// the diverging scale's red and blue ends are the same grey in print.
std::array<std::string, 6> map_styles(bool two, bool signed_marks, const std::string& ratio) {
  return {
      // (the colour bar names the scale: the key does not repeat it with one dot)
      signed_marks ? std::string("using 1:2:($3 < 0 ? 11 : 7):3 with points pt variable ps 0.9 lc palette notitle")
      : two        ? std::string("using 1:2:3 with points pt 7 ps 0.9 palette notitle")
                   : fmt::format("using 1:2 with points ls 1 title 'log_{{10}}({})'", ratio),
      "using 1:2 with points pt 4 ps 0.7 lc rgb '#555555' title 'outside the hypotheses (not-applicable)'",
      "using 1:2 with points pt 8 ps 0.9 lc rgb '#d62728' title 'degenerate (no amplification)'",
      // (dark crosses: an error at the optimum showed as a light-grey speck under the reported points' rings)
      "using 1:2 with points pt 2 ps 0.6 lc rgb '#333333' title 'no ratio, error, or outside the region'",
      "using 1:2 with points pt 4 ps 1.3 lw 0.8 lc rgb '#555555' title 'outside the hypotheses (evaluated anyway)'",
      "using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb 'black' title 'reported points'"};
}

// The map: every evaluated point over the two most influential axes (one axis: the ratio against it), candidates
// coloured by their ratio, the others by why they have none, the reported points ringed.
// False where nothing was evaluated successfully (the summary says so, and there is no convergence to draw either).
bool render_map(const verify::ExploreResult& r, bool ignore, const std::filesystem::path& dir, const std::string& stem) {
  const std::string ratio = verify::slack_ratio_name(r.direction);
  // The two most influential axes (by main effect; ties keep the declaration order).
  std::vector<std::size_t> order(r.space.axes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return r.influence[a] > r.influence[b]; });
  const bool two = order.size() >= 2;
  const ExploreAxis& ax = r.space.axes[order[0]];
  const ExploreAxis* ay = two ? &r.space.axes[order[1]] : nullptr;

  // Map: blocks of candidates (x, y, log10 ratio), of points without a ratio (x, y), of the reported points.
  const auto map_csv = dir / (stem + "_map.csv");
  std::vector<std::string> plots;
  {
    OutputFile checked(map_csv);
    std::ostream& out = checked.stream();
    out.precision(17);
    out << fmt::format("# {},{},log10({}) (blocks, those with points: candidates; outside the hypotheses; degenerate; other "
                       "points without a ratio; the reported points)\n", ax.name,
                       two ? ay->name : "log10 ratio", ratio);
    // Blocks: candidates (coloured by their ratio), points outside the bound's hypotheses (where its conclusion is
    // not claimed: the hypothesis boundary is the edge of this region), degenerate points, the other points without
    // a ratio (errors, zeros, underflows, outside the region of interest), and the reported points.
    // With the hypotheses ignored, the points outside them are candidates too and are ringed, so the boundary shows
    // in the mode meant for testing hypotheses.
    enum Block { candidates, hypotheses, degenerate, other, outside_ringed, reported, blocks_count };
    std::vector<std::string> blocks[blocks_count];
    for (const Evaluation& e : r.evaluations) {
      const double x = coordinate(ax, e.point);
      const bool has = candidate(e, ignore);
      const double l = has ? e.slack / std::log(10.0) : std::nan("");
      const double y = two ? coordinate(*ay, e.point) : l;
      if (!std::isfinite(x) || (two && !std::isfinite(y))) continue;
      const Block b = has                                                                      ? candidates
                      : e.status == Evaluation::Status::not_applicable || (e.outside() && !ignore) ? hypotheses
                      : e.status == Evaluation::Status::ok && !e.degenerate.empty()               ? degenerate
                                                                                                  : other;
      if (!two && b != candidates) continue;  // one axis: only ratios have a y
      blocks[b].push_back(fmt::format("{},{},{}", x, y, has ? fmt::format("{}", l) : ""));
      if (ignore && e.outside() && two) blocks[outside_ringed].push_back(fmt::format("{},{},", x, y));
    }
    for (std::size_t i : r.best_index) {
      const Evaluation& e = r.evaluations[i];
      const double l = e.slack / std::log(10.0);
      blocks[reported].push_back(fmt::format("{},{},{}", coordinate(ax, e.point), two ? coordinate(*ay, e.point) : l, l));
    }
    const std::string file = quoted(map_csv.filename().string());  // gnuplot runs in `dir`
    const bool signed_marks = two && r.goal == verify::Goal::violation;
    const std::array<std::string, blocks_count> styles = map_styles(two, signed_marks, ratio);
    int index = 0;
    for (int b = 0; b < blocks_count; ++b) {
      if (blocks[b].empty()) continue;
      if (index) out << "\n\n";
      for (const auto& line : blocks[b]) out << line << "\n";
      if (b == candidates && two)  // each point ringed in black: the light end of the scale stays visible on white
        plots.push_back(signed_marks ? fmt::format("{} index {} using 1:2:($3 < 0 ? 10 : 6) with points pt variable ps 1.0 lw 0.5 "
                                                   "lc rgb 'black' notitle", file, index)
                                     : fmt::format("{} index {} using 1:2 with points pt 6 ps 1.0 lw 0.5 lc rgb 'black' notitle", file, index));
      if (b == candidates && signed_marks)
        plots.push_back(fmt::format("keyentry with points pt 10 ps 1.0 lc rgb 'black' title 'violated: {} below 1 (filled by its colour)'", ratio));
      plots.push_back(fmt::format("{} index {} {}", file, index, styles[b]));
      ++index;
    }
    checked.close();
  }
  if (plots.empty()) return false;
  std::string body = axis_settings(ax, 'x');
  if (two)
    body += axis_settings(*ay, 'y') +
            fmt::format("set cblabel 'log_{{10}}({}){}'\n", ratio, r.goal == verify::Goal::violation ? ", clipped at the ends of the bar" : "") +
            palette(r);
  else body += fmt::format("set ylabel 'log_{{10}}({})'\n", ratio);
  // Rows spaced for the reported points' large ring, and no opaque background: it hid the lower half of the x label.
  body += "set key below nobox noopaque height 1 spacing 1.8\nplot " + fmt::format("{}", fmt::join(plots, ", \\\n     ")) + "\n";
  render_gnuplot(dir, stem + "_map", literal(map_title(r, order, two ? 2 : 1)),
                 fmt::format("privamp explore: every evaluated point over the two most influential axes; data {}", map_csv.filename().string()),
                 body, explore_style());
  return true;
}

// Convergence: the best objective so far against the number of evaluations, every evaluation behind it.
void render_convergence(const verify::ExploreResult& r, bool ignore, const std::filesystem::path& dir, const std::string& stem) {
  const std::string ratio = verify::slack_ratio_name(r.direction);
  const auto conv_csv = dir / (stem + "_convergence.csv");
  std::size_t rows = 0;
  double line_lo = kInf, line_hi = -kInf;  // the best-so-far line's range (log10 ratio)
  std::vector<double> each;                // every candidate's log10 ratio
  {
    OutputFile checked(conv_csv);
    std::ostream& out = checked.stream();
    out.precision(17);
    out << "# evaluations,best log10 ratio so far,this evaluation's log10 ratio (empty: not a candidate)\n";
    double best = std::nan("");
    for (std::size_t i = 0; i < r.evaluations.size(); ++i) {
      const Evaluation& e = r.evaluations[i];
      const bool has = candidate(e, ignore);
      if (has) {
        const double v = verify::objective(r.goal, e.slack);
        if (std::isnan(best) || v < best) best = v;
      }
      if (!std::isnan(best)) {
        const double slack = r.goal == verify::Goal::loosest ? -best : best;
        out << i + 1 << "," << slack / std::log(10.0) << "," << (has ? fmt::format("{}", e.slack / std::log(10.0)) : "") << "\n";
        ++rows;
        // (the line's first 2 % of evaluations left out of its range: a first point hundreds of decades away, where
        // the search starts, flattened the whole descent against the axis)
        if (std::isfinite(slack) && (i + 1) * 50 > r.evaluations.size())
          line_lo = std::min(line_lo, slack / std::log(10.0)), line_hi = std::max(line_hi, slack / std::log(10.0));
        if (has && std::isfinite(e.slack)) each.push_back(e.slack / std::log(10.0));
      }
    }
    checked.close();
  }
  if (rows == 0) return;  // no candidate point: nothing converges
  // Evaluations on a log axis, so that the early descent is visible; every evaluation behind the best-so-far line.
  // The y range is the line's after its first 2 % of evaluations, padded (a few evaluations hundreds of decades away
  // would squash the progress into a flat line); how many evaluations lie beyond it is said in the key.
  const std::string file = quoted(conv_csv.filename().string());
  std::string range, beyond;
  if (line_lo <= line_hi) {
    const double pad = std::max(0.1 * (line_hi - line_lo), 0.05 * std::max(1.0, std::fabs(line_hi))), lo = line_lo - pad, hi = line_hi + pad;
    const auto outside = std::count_if(each.begin(), each.end(), [&](double v) { return v < lo || v > hi; });
    range = fmt::format("set yrange [{:.6g}:{:.6g}]\n", lo, hi);
    if (outside > 0) beyond = fmt::format(" ({} beyond the range shown)", outside);
  }
  // The x axis ends at the last evaluation, and after the global phase's end; linear, so that the local phase (the
  // last third of the budget, where the final gains are made) is not squeezed into the last few percent of a log axis.
  range += fmt::format("set xrange [0:{}]\n", std::max<double>({2.0, static_cast<double>(r.evaluations.size()),
                                                                 static_cast<double>(r.global_points) + 1}));
  const std::string cbody = fmt::format(
      "set datafile separator ','\nset xlabel 'evaluations'\nset ylabel 'log_{{10}}({})'\nset key below nobox height 1\n"
      "{}set arrow from {}, graph 0 to {}, graph 1 nohead ls 9\n"
      "plot {} using 1:3 with points pt 7 ps 0.4 lc rgb '#aaaaaa' title 'each evaluation{}', \\\n"
      "     {} using 1:2 with steps ls 1 lw 2 title 'best so far ({}; the dashed line ends the global phase)'\n",
      ratio, range, r.global_points + 0.5, r.global_points + 0.5, file, beyond, file,
      r.goal == verify::Goal::tightest ? "|log|" : verify::to_string(r.goal));
  render_gnuplot(dir, stem + "_convergence", literal(fmt::format("{}: convergence of the search", r.id)),
                 fmt::format("privamp explore: best objective so far; data {}", conv_csv.filename().string()), cbody, explore_style());
}

}  // namespace

void render_explore(const verify::ExploreResult& r, bool ignore, const std::filesystem::path& dir, const std::string& stem) {
  std::filesystem::create_directories(dir);
  if (render_map(r, ignore, dir, stem)) render_convergence(r, ignore, dir, stem);
}

}  // namespace privamp::plots
