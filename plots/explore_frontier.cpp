// The frontier figure of an exploration (privamp explore --frontier NAME): every candidate's ratio against the
// frontier's quantity, each bin's best point drawn across its bin, the degenerate optima where there are some.
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "numerics/constants.hpp"
#include "numerics/files.hpp"
#include "plots/explore_parts.hpp"
#include "plots/explore_plots.hpp"
#include "plots/figures.hpp"
#include "plots/markup.hpp"
#include "verify/explore/explore_report.hpp"

namespace privamp::plots {

using namespace explore_parts;
using verify::Evaluation;

namespace {

// The frontier's y range and its tick settings, and how many candidates lie beyond it (a note for the key): the
// frontier's range padded by a third of its span (and 5 % of its size), since the candidates far from it, which the
// search passed over, would squash the frontier into a flat line at the bottom. Where every bin's best ratio is at
// least 1 the range stops just under 1 (a third of a span below it was room for nothing, the bound holding everywhere).
struct FrontierRange {
  double lo = 0, hi = 0;       // log10 ratios
  std::string settings, beyond;
};
FrontierRange frontier_yrange(const std::vector<double>& best, const std::vector<double>& candidates) {
  if (best.empty()) return {};
  const auto [lo_it, hi_it] = std::minmax_element(best.begin(), best.end());
  const double pad = std::max(0.3 * (*hi_it - *lo_it), 0.05 * std::max({std::fabs(*lo_it), std::fabs(*hi_it), 1e-3}));
  FrontierRange r;
  r.hi = *hi_it + pad, r.lo = *lo_it >= 0 ? std::max(*lo_it - pad, -0.08 * (r.hi - *lo_it)) : *lo_it - pad;
  if (const auto n = std::count_if(candidates.begin(), candidates.end(), [&](double v) { return v < r.lo || v > r.hi; }); n > 0)
    r.beyond = fmt::format(" ({} beyond the range shown)", n);
  r.settings = fmt::format("set yrange [{:.6g}:{:.6g}]\n", r.lo, r.hi) + ratio_tics(r.lo, r.hi);
  return r;
}

// The edges between a frontier's bins, as light vertical lines behind the data: two neighbouring bins with the same
// best ratio otherwise draw one unbroken segment, read as one bin.
std::string bin_edges(const verify::FrontierResult& f) {
  std::string edges;
  for (std::size_t k = 0; k + 1 < f.bins.size(); ++k)
    edges += fmt::format("set arrow from {:.17g}, graph 0 to {:.17g}, graph 1 nohead back lc rgb '#999999' dt 3 lw 1\n", f.bins[k].upper,
                         f.bins[k].upper);
  return edges;
}

// A degenerate optimum that a bin's best point lies close to (within 3 % of the plot's width and height: a best
// point at 0.996 beside a degenerate one at 1 read as the same point) is named beside its mark, to its left (it lies
// at an end of the range, where no amplification happens) and below: every candidate of its bin lies on or above the
// bin's best ratio, so the space under it is free (above, the label crossed the candidates near the best). `x` on the plot's scale (log10 for a log axis).
struct FrontierPoint {
  double x, l;  // the axis value (log10 where the axis is logarithmic) and the log10 ratio
};
std::string degenerate_labels(const std::vector<FrontierPoint>& degenerate, const std::vector<FrontierPoint>& best, double x_span,
                              double y_span, bool log_x) {
  std::string labels;
  for (const FrontierPoint& d : degenerate)
    if (std::any_of(best.begin(), best.end(), [&](const FrontierPoint& b) {
          return std::fabs(b.x - d.x) <= 0.03 * x_span && std::fabs(b.l - d.l) <= 0.03 * y_span;
        }))
      labels += fmt::format("set label 'degenerate' at {:.17g}, {:.17g} right offset char -1, char -1.1 tc rgb '#b2182b' front\n",
                            log_x ? std::pow(10.0, d.x) : d.x, d.l);
  return labels;
}

// Each bin's best as a step across the bin (its value holds for the bin, not between bins' points), 0.4 % of the
// axis short of each edge: two neighbouring bins with equal ratios (1.0607 and 1.0606) drew one unbroken line.
template <class Value>
void write_steps(std::ostream& out, const verify::FrontierResult& f, const Value& value, double x_lo, double x_hi) {
  const verify::ExploreResult& r = f.search;
  out << "\n\n";
  const auto inset = [&](double x, double sign) {
    return f.log ? x * std::pow(x_hi / x_lo, 0.004 * sign) : x + 0.004 * sign * (x_hi - x_lo);
  };
  for (const verify::FrontierBin& bin : f.bins)
    if (bin.best_index && std::isfinite(r.evaluations[*bin.best_index].slack)) {
      const Evaluation& e = r.evaluations[*bin.best_index];
      const double v = e.slack / std::log(10.0), x = value(e);  // (an end bin's best may lie past its edge)
      out << std::min(inset(bin.lower, 1), x) << "," << v << "\n" << std::max(inset(bin.upper, -1), x) << "," << v << "\n\n";
    }
}

}  // namespace

void render_frontier(const verify::FrontierResult& f, bool ignore, const std::filesystem::path& dir, const std::string& stem) {
  const verify::ExploreResult& r = f.search;
  std::filesystem::create_directories(dir);
  const std::string ratio = verify::slack_ratio_name(r.direction);
  const auto csv = dir / (stem + "_frontier_points.csv");
  double x_lo = kInf, x_hi = -kInf;  // the bins' outer edges
  for (const verify::FrontierBin& bin : f.bins) x_lo = std::min(x_lo, bin.lower), x_hi = std::max(x_hi, bin.upper);
  bool any = false, degenerate = false;
  std::vector<double> candidates, best;  // log10 ratios: every candidate's, each bin's best
  std::vector<FrontierPoint> degenerate_at, best_at;  // the degenerate optima and each bin's best point, as drawn
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
    const auto plotted = [&](double x) { return f.log ? std::log10(x) : x; };
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
        if (std::isfinite(e.slack) && std::isfinite(value(e))) best_at.push_back({plotted(value(e)), e.slack / std::log(10.0)});
      }
    out << "\n\n";
    for (const verify::FrontierBin& bin : f.bins)
      if (bin.degenerate_index) {
        const Evaluation& e = r.evaluations[*bin.degenerate_index];
        out << value(e) << "," << e.slack / std::log(10.0) << "\n";
        degenerate = true;
        if (std::isfinite(value(e)) && std::isfinite(e.slack)) degenerate_at.push_back({plotted(value(e)), e.slack / std::log(10.0)});
      }
    if (!degenerate) out << "nan,nan\n";  // an empty block would end the file early for gnuplot
    write_steps(out, f, value, x_lo, x_hi);
    checked.close();
  }
  if (!any) return;
  const FrontierRange range = frontier_yrange(best, candidates);
  const auto& [y_lo, y_hi, yrange, beyond] = range;
  const std::string file = quoted(csv.filename().string());
  const double x_span = f.log ? std::log10(x_hi / x_lo) : x_hi - x_lo;
  const std::string edges = bin_edges(f) + degenerate_labels(degenerate_at, best_at, x_span, y_hi - y_lo, f.log);
  const std::string body = fmt::format(
      "set datafile separator ','\nset xlabel {}\n{}set ylabel '{} (log scale)'\nset key below nobox height 1\nset grid noxtics\n"
      "set autoscale xfix\nset offsets graph 0.02, graph 0.04, 0, 0\n{}{}"
      "plot {} index 0 using 1:2 with points pt 7 ps 0.4 lc rgb '#aaaaaa' title 'candidate points{}', \\\n"
      "     {} index 3 using 1:2 with lines ls 1 lw 2 notitle, \\\n"
      "     {} index 1 using 1:2 with points ls 1 pt 7 ps 0.8 notitle, \\\n"
      "     keyentry with linespoints ls 1 lw 2 pt 7 ps 0.8 title 'best point of each bin ({}), its ratio drawn across the bin'{}{}\n",
      quoted(axis_label(r, f.name)), f.log ? "set logscale x\n" : "", ratio, yrange, edges, file, beyond, file, file, goal_phrase(r.goal),
      edges.empty() ? "" : ", \\\n     keyentry with lines lc rgb '#999999' dt 3 lw 1 title 'edges between bins'",
      // The degenerate optima only when there is one (an entry in the key for nothing misleads).
      degenerate ? fmt::format(", \\\n     {} index 2 using 1:2 with points pt 8 ps 1.5 lc rgb '#b2182b' title "
                               "'degenerate optimum (no amplification)'", file)
                 : std::string());
  render_gnuplot(dir, stem + "_frontier", literal(fmt::format("{}: {} per bin of ", title_head(r), goal_phrase(r.goal))) + axis_label(r, f.name),
                 fmt::format("privamp explore --frontier {}: case {}; data {}", f.name, r.case_name, csv.filename().string()), body,
                 explore_style());
}

}  // namespace privamp::plots
