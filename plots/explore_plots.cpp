#include "plots/explore_plots.hpp"
#include "plots/explore_parts.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <numeric>
#include <set>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "numerics/files.hpp"
#include "plots/figure_model.hpp"
#include "plots/figures.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/explore/explore_report.hpp"

namespace privamp::plots {

namespace explore_parts {

using verify::Evaluation;
using verify::ExploreAxis;

// An axis drawn by category, its values evenly spaced and each ticked: a choice of words, or of fewer numbers than
// spread points (kSpreadValues; a list alpha = [2, 8] drawn as a number line from 2 to 8 left its middle empty).
constexpr std::size_t kSpreadValues = 5;
bool categorical(const ExploreAxis& a) {
  return a.kind == ExploreAxis::Kind::choice &&
         (a.choices.size() < kSpreadValues ||
          std::any_of(a.choices.begin(), a.choices.end(), [](const auto& c) { return std::holds_alternative<std::string>(c); }));
}

// An axis value as a plot coordinate: numbers as they are, a categorical axis's values by their index among the
// choices.
double coordinate(const ExploreAxis& a, const verify::Params& p) {
  const auto number = p.numbers.find(a.name);
  if (number != p.numbers.end() && !categorical(a)) return number->second;
  for (std::size_t k = 0; k < a.choices.size(); ++k) {
    const auto& c = a.choices[k];
    if (number != p.numbers.end() ? std::holds_alternative<double>(c) && std::get<double>(c) == number->second
                                  : std::holds_alternative<std::string>(c) && std::get<std::string>(c) == p.words.at(a.name))
      return static_cast<double>(k);
  }
  return number != p.numbers.end() ? number->second : std::nan("");
}

// A parameter's label in enhanced text: a searched range's own label as text, else the name (delta as δ).
std::string axis_label(const ExploreAxis& a) { return a.label.empty() ? parameter_label(a.name) : literal(a.label); }
std::string axis_label(const verify::ExploreResult& r, const std::string& name) {
  for (const ExploreAxis& a : r.space.axes)
    if (a.name == name) return axis_label(a);
  return parameter_label(name);
}

// The range an axis is drawn over: the searched box with a 6 % margin (the reported points' rings at its edge stay
// whole), not the decades around it (a search over σ in [0.5, 16] once drew an axis from 0.1 to 100); a choice of
// categories (categorical) from -0.5 to the last index + 0.5. Empty (from = to = NaN) where gnuplot's own range is kept.
struct DrawnRange {
  double from = std::nan(""), to = std::nan("");
  bool log = false, words = false;  // words: a categorical axis
};
DrawnRange drawn_range(const ExploreAxis& a) {
  DrawnRange r;
  r.words = categorical(a);
  if (r.words) return {-0.5, static_cast<double>(a.choices.size()) - 0.5, false, true};
  r.log = a.log;
  double lo = a.min, hi = a.max;
  if (a.kind == ExploreAxis::Kind::choice) {
    lo = kInf, hi = -kInf;
    for (const auto& c : a.choices)
      if (std::holds_alternative<double>(c)) lo = std::min(lo, std::get<double>(c)), hi = std::max(hi, std::get<double>(c));
  }
  if (!(std::isfinite(lo) && std::isfinite(hi) && hi > lo)) return r;
  // (the margins kept within the doubles: a range to 1e300 or 1.7e308 wrote `inf` and gnuplot failed after the search)
  constexpr double kMax = std::numeric_limits<double>::max(), kTiny = std::numeric_limits<double>::denorm_min();
  if (a.log && lo > 0) {
    const double f = std::pow(hi / lo, 0.06);
    r.from = std::clamp(lo / f, kTiny, lo), r.to = std::clamp(hi * f, hi, kMax);
  } else if (!a.log) {
    const double m = 0.06 * (hi / 2 - lo / 2) * 2;  // (halved first: hi − lo overflows over the whole range)
    r.from = std::clamp(lo - m, -kMax, lo), r.to = std::clamp(hi + m, hi, kMax);
  }
  return r;
}

// Where v lies across the drawn range, 0 at its start and 1 at its end (NaN where the range is gnuplot's own).
double across(const DrawnRange& r, double v) {
  if (r.log) return v > 0 ? std::log(v / r.from) / std::log(r.to / r.from) : std::nan("");
  return (v - r.from) / (r.to - r.from);
}

std::string axis_settings(const ExploreAxis& a, char axis) {
  std::string s = fmt::format("set {}label {}\n", axis, quoted(axis_label(a)));
  const DrawnRange r = drawn_range(a);
  if (r.words) {
    std::vector<std::string> tics;
    for (std::size_t k = 0; k < a.choices.size(); ++k)
      tics.push_back(fmt::format("{} {}", tic_label(std::holds_alternative<std::string>(a.choices[k]) ? std::get<std::string>(a.choices[k])
                                                                                                 : fmt::format("{:g}", std::get<double>(a.choices[k]))), k));
    return s + fmt::format("set {}tics ({})\nset {}range [-0.5:{}]\n", axis, fmt::join(tics, ", "), axis, a.choices.size() - 0.5);
  }
  if (a.log) s += fmt::format("set logscale {}\n", axis);
  if (std::isnan(r.from)) return s;
  s += fmt::format("set {}range [{}:{}]\n", axis, r.from, r.to);
  // The figures' log ticks (1, 2, 5 per decade over a short span: gnuplot's own labelled only 1 on σ in [0.3, 2])
  if (r.log)
    if (const model::LogTicks t = model::log_ticks({r.from, r.to}); !t.at.empty()) {
      std::vector<std::string> tics;
      for (double v : t.at)
        tics.push_back(t.decades ? fmt::format("'10^{{{}}}' {}", std::lround(std::log10(v)), v) : fmt::format("'{:g}' {}", v, v));
      s += fmt::format("set {}tics ({})\n{}", axis, fmt::join(tics, ", "), t.minor ? "" : fmt::format("unset m{}tics\n", axis));
    }
  return s;
}

// Places labels beside rings on a map: of eight places around the ring (right, left, above, below, then the
// diagonals), the one that covers the fewest other things — a label or ring counts ten, a drawn mark one (an opaque
// label box had hidden marks and cut others into fragments such as "3]") — in axis fractions (a 9 pt map 7 in wide: a
// character of the 8 pt label font about 1.1 % of the width, a line 4.5 % of the height, a ring 3 % by 6 %, a mark
// 1.4 % by 2.8 %); a place past the frame is not taken.
class LabelPlacer {
 public:
  void ring(const std::array<double, 2>& u) {
    add(u, 0.015, 0.03, 10);
    if (std::isfinite(u[0]) && std::isfinite(u[1])) rings_.push_back(u);
  }
  void mark(const std::array<double, 2>& u) { add(u, 0.007, 0.014, 1); }
  // The gnuplot placement clause (offset and justification) for a label of `chars` characters at ring u.
  std::string place(const std::array<double, 2>& u, std::size_t chars) {
    const double w = 0.011 * static_cast<double>(chars) + 0.01, h = 0.045, dx = 0.018, dy = 0.035;
    struct Place { double x0, y0; const char* clause; };
    const Place places[] = {{u[0] + dx, u[1] - h / 2, "offset char 1.8, 0 left"},
                            {u[0] - dx - w, u[1] - h / 2, "offset char -1.8, 0 right"},
                            {u[0] - w / 2, u[1] + dy, "offset 0, char 1.6 center"},
                            {u[0] - w / 2, u[1] - dy - h, "offset 0, char -1.6 center"},
                            {u[0] + dx, u[1] + dy, "offset char 1.4, char 1.4 left"},
                            {u[0] - dx - w, u[1] + dy, "offset char -1.4, char 1.4 right"},
                            {u[0] + dx, u[1] - dy - h, "offset char 1.4, char -1.4 left"},
                            {u[0] - dx - w, u[1] - dy - h, "offset char -1.4, char -1.4 right"}};
    const Place* best = &places[0];
    double best_cost = kInf;
    for (const Place& p : places) {
      if (!std::isfinite(p.x0) || !std::isfinite(p.y0) || p.x0 < 0 || p.x0 + w > 1 || p.y0 < 0 || p.y0 + h > 1) continue;
      double cost = 0;
      for (const Box& t : taken_)
        if (p.x0 < t.x1 && t.x0 < p.x0 + w && p.y0 < t.y1 && t.y0 < p.y0 + h) cost += t.weight;
      // (a label nearer another ring than its own reads as that ring's: "2" at the upper right of ring 2, beside ring 3)
      const auto far = [&](const std::array<double, 2>& v) {
        const double dx = (p.x0 + w / 2 - v[0]) / 0.03, dy = (p.y0 + h / 2 - v[1]) / 0.06;
        return dx * dx + dy * dy;
      };
      for (const auto& v : rings_)
        if (v != u && far(v) < far(u)) cost += 5;
      if (cost < best_cost) best = &p, best_cost = cost;
    }
    taken_.push_back({best->x0, best->x0 + w, best->y0, best->y0 + h, 10});
    return best->clause;
  }

 private:
  struct Box {
    double x0, x1, y0, y1, weight;
  };
  void add(const std::array<double, 2>& u, double rx, double ry, double weight) {
    if (std::isfinite(u[0]) && std::isfinite(u[1])) taken_.push_back({u[0] - rx, u[0] + rx, u[1] - ry, u[1] + ry, weight});
  }
  std::vector<Box> taken_;
  std::vector<std::array<double, 2>> rings_;
};

// The reported points' numbers beside their rings (point K is STEM_pointK.toml and the K-th in STEM.md). Rings that
// coincide on the map (their hidden axes differ, or the optimum is a cluster: centres within a quarter of a ring), or
// are joined by a chain of such rings, share one label, "1, 2, 3", so that a reader counts them; rings that are only near each other keep their own (three
// neighbouring rings once shared "1, 2, 3" and read as one point). Each label goes where it covers the least
// (LabelPlacer).
std::string ring_labels(const verify::ExploreResult& r, const ExploreAxis& ax, const ExploreAxis& ay,
                        const std::vector<std::array<double, 2>>& marks) {
  const DrawnRange rx = drawn_range(ax), ry = drawn_range(ay);
  std::vector<std::array<double, 2>> at, u;  // the reported points in their order, and across the drawn ranges
  for (std::size_t i : r.best_index) {
    at.push_back({coordinate(ax, r.evaluations[i].point), coordinate(ay, r.evaluations[i].point)});
    u.push_back({across(rx, at.back()[0]), across(ry, at.back()[1])});
  }
  // (a ring is about 3 % of the plot's width and 6 % of its height across)
  std::vector<int> group(at.size(), -1);
  std::vector<std::vector<std::size_t>> members;
  // (groups closed under coinciding: rings 1 ~ 2 ~ 3 with 1 and 3 a little further apart share one label; grouped
  // from 1 alone, "1, 2" and "3" were printed on either side of 3's ring, which covered 2's)
  for (std::size_t k = 0; k < at.size(); ++k) {
    if (group[k] >= 0) continue;
    group[k] = static_cast<int>(members.size());
    members.push_back({k});
    for (std::size_t next = 0; next < members.back().size(); ++next) {
      const std::size_t q = members.back()[next];
      for (std::size_t m = 0; m < at.size(); ++m) {
        const double dx = (u[m][0] - u[q][0]) / 0.0075, dy = (u[m][1] - u[q][1]) / 0.015;
        if (group[m] < 0 && std::isfinite(dx) && std::isfinite(dy) && dx * dx + dy * dy < 1) group[m] = group[k], members.back().push_back(m);
      }
    }
    std::sort(members.back().begin(), members.back().end());
  }
  LabelPlacer placer;
  for (const auto& p : u) placer.ring(p);
  for (const auto& p : marks) placer.mark(p);
  std::string out;
  for (const auto& g : members) {
    std::vector<std::size_t> numbers;
    for (std::size_t k : g) numbers.push_back(k + 1);
    const std::string text = fmt::format("{}", fmt::join(numbers, ", "));
    // (boxed in white: black numbers vanished on the dark end of the scale, where a tightest search's best points lie)
    out += fmt::format("set label '{}' at {:.17g}, {:.17g} {} front font ',8' boxed\n", text, at[g[0]][0], at[g[0]][1],
                       placer.place(u[g[0]], text.size()));
  }
  if (!out.empty()) out = "set style textbox opaque fillcolor rgb 'white' noborder margins 0.6, 0.3\n" + out;
  return out;
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

// A point verify judged tight that has no ratio (exact and bound 0, or below the double range): the bound is
// attained there, which a map and a convergence plot show as such, not as a point without an answer.
bool tight_without_ratio(const Evaluation& e) {
  return e.has_numbers() && !std::isfinite(e.slack) && e.verdict() == verify::Verdict::tight && e.in_region;
}

// The map's palette: perceptually uniform (viridis) over the central 96% of the global phase's log ratios, so that a
// few extreme points do not take the whole range, one scale for every search (dark the smallest ratios, violated,
// teal ratio 1, light the loosest: two maps in one paper read alike; each filled point is ringed in black, so that the
// light end stays visible on white). `colour` is the gnuplot expression of a point's colour value from its log10
// ratio ($3).
struct Palette {
  std::string settings, colour = "($3)";
  std::string flat = {};  // where every ratio is the same within rounding: the colour bar's label saying so
};

// The frontier's y axis (and a map's colour bar, `axis` "cb") holds log10 of the ratio; its ticks name the ratio itself: 1, 1.05, 1.1 … where the range spans
// less than a decade and a half (a frontier of ratios from 1.008 to 1.26 read 0.004 to 0.1), powers of ten beyond.
// The ticks themselves, as (label, log10 ratio) in gnuplot's form "'1.1' 0.0414"; empty where the range is not finite.
std::vector<std::string> ratio_tic_list(double lo, double hi) {
  std::vector<std::string> tics;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || hi > 300 || lo < -300) return {};
  if (hi - lo >= 1.5) {
    const int first = static_cast<int>(std::ceil(lo)), last = static_cast<int>(std::floor(hi));
    const int step = std::max(1, (last - first + 7) / 8);
    for (int k = first; k <= last; ++k)
      if (k % step == 0) tics.push_back(k == 0 ? "'1' 0" : k == 1 ? "'10' 1" : fmt::format("'10^{{{}}}' {}", k, k));
  } else {
    const double a = std::pow(10.0, lo), b = std::pow(10.0, hi);
    double step = 0;
    for (double decade = std::pow(10.0, std::floor(std::log10(b - a)) - 2); step == 0; decade *= 10)
      for (const double m : {1.0, 2.0, 5.0})
        if ((b - a) / (m * decade) <= 8) {  // (at most 9 ticks, at least 4: a frontier from 0.93 to 2.4 had only 1, 1.5, 2)
          step = m * decade;
          break;
        }
    // (counted, not stepped: a span within rounding of its ends, as a colour bar of ratios all 1 has, made a step
    // that added nothing, and the loop ran until memory was exhausted)
    const double first = std::ceil(a / step), last = std::floor(b * (1 + 1e-12) / step);
    if (b - a > 1e-9 * b && last - first <= 16)
      for (double k = first; k <= last; ++k) tics.push_back(fmt::format("'{:.6g}' {:.10g}", k * step, std::log10(k * step)));
  }
  // (always named ratios: gnuplot's own ticks would print log10 values under a label that names the ratio)
  if (tics.size() < 2)
    tics = {fmt::format("'{:.4g}' {:.10g}", std::pow(10.0, lo), lo), fmt::format("'{:.4g}' {:.10g}", std::pow(10.0, hi), hi)};
  return tics;
}

std::string ratio_tics(double lo, double hi, const std::string& axis) {
  const std::vector<std::string> tics = ratio_tic_list(lo, hi);
  if (tics.empty()) return fmt::format("set format {} '10^{{%g}}'\n", axis);
  return fmt::format("set {0}tics ({1})\nunset m{0}tics\n", axis, fmt::join(tics, ", "));
}

// A violation search's scale runs from the worst violation (dark) through ratio 1 (a mid teal) to the loosest points
// (light), asymmetric and compressed: colour = asinh(l / s) of the log10 ratio l, with s the typical violation, so
// that violations of a few percent and ratios of 10^100 both get colours (a symmetric scale as wide as the
// violations painted a third of the points, ratios from 2 to 10^240, one yellow). Ticks name the ratios themselves
// (a tick "100" for a log10 ratio of 100 was read as a ratio of 100).
std::string ratio_tick(double log10_ratio) {
  if (std::fabs(log10_ratio) < 2) {
    // (near 1, digits enough to tell it from 1: a bar's end at 1.00077 printed "≤1")
    const double r = std::pow(10.0, log10_ratio), off = std::fabs(r - 1);
    const int digits = off > 0 && off < 0.01 ? std::min(12, 2 + static_cast<int>(std::ceil(-std::log10(off)))) : 3;
    return fmt::format("{:.{}g}", r, digits);
  }
  return fmt::format("10^{{{:.3g}}}", log10_ratio);  // (three digits: a bar end at 10^{14.9041} read as precise)
}

// The colour scale of every goal's map (violations, ratio 1 and loose points alike). `l`: the sorted log10 ratios the
// scale is set by; `all`: every point's, sorted (those beyond the scale's ends are
// drawn in the end colours, the ends marked "≤"/"≥").
Palette ratio_palette(const std::vector<double>& l, const std::vector<double>& all) {
  std::vector<double> violations;
  for (double v : l)
    if (v < 0) violations.push_back(-v);
  std::sort(violations.begin(), violations.end());
  const auto at = [](const std::vector<double>& v, double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))]; };
  const double s = std::max(1e-3, violations.empty() ? std::fabs(at(l, 0.25)) : at(violations, 0.5));
  // (no ratio below 1: the scale starts at 1, without a band or a tick below it — a "0.998" at the bar's end of a
  // search where every point holds read as a violation)
  const bool below = all.front() < -1e-9;  // (beyond rounding: a tight identity gives log10 ratios of -1e-16)
  const double lo = below ? std::min(at(l, 0.02), -s) : 0.0;
  // (from a ratio of 100 on, the top end is the next whole decade: its tick, "≥10^{15}" where points lie beyond it, is
  // short — a "≥10^{14.9}" pushed the bar's title off the page, and without it points up to 10^{240} were clipped to a
  // bar that ended at 10^{107} without a word)
  double hi = std::max(at(l, 0.98), s);
  if (hi >= 2) hi = std::ceil(hi);
  const auto c = [&](double v) { return std::asinh(v / s); };
  std::vector<double> candidates;  // (log10 ratios; 1 itself is always ticked)
  if (below) candidates = {lo, lo / 3};
  // Round ratios of the holding side, at least a fifth of the scale apart: 1.001, 1.01, 1.1, 2, 10, then whole decades
  // of the log10 ratio (10^{10}, 10^{100}); the decades of the log10 ratio itself below 1 named ratios nobody would
  // pick, 1.0023, 1.02 and 1.26.
  std::vector<double> round{std::log10(1.001), std::log10(1.01), std::log10(1.1), std::log10(2.0)};
  for (double v = 1; v <= hi * 1.0001; v *= 10) round.push_back(v);
  for (double v : round)
    if (c(v) >= 0.2 * c(hi) && c(v) <= c(hi)) candidates.push_back(v);
  // A tick closer than a tenth of the bar to 1 or to a tick kept is left out ('1' and '0.811' were printed over
  // each other).
  // The bar's top end named by its value, "≥" where points lie beyond it (drawn in the end colour): ticks stopping at
  // 1.26 on a bar that ran to 2.13, its four points up to 4e5 clipped silently, read as "yellow is about 1.3".
  std::vector<double> kept{0};
  std::vector<std::string> ticks{"'1' 0"};
  kept.push_back(hi), ticks.push_back(fmt::format("'{}{}' {}", all.back() > hi ? "≥" : "", ratio_tick(hi), c(hi)));
  for (double v : candidates)
    if (std::none_of(kept.begin(), kept.end(), [&](double k) { return std::fabs(c(v) - c(k)) < 0.1 * (c(hi) - c(lo)); })) {
      kept.push_back(v);
      ticks.push_back(fmt::format("'{}{}' {}", v == lo && all.front() < lo ? "≤" : "", ratio_tick(v), c(v)));
    }
  Palette p;
  p.settings = below ? fmt::format("set palette defined ({0} '#440154', {1} '#3b528b', 0 '#21908d', {2} '#5dc963', {3} '#fde725')\n"
                                   "set cbrange [{0}:{3}]\nset cbtics ({4})\n", c(lo), c(lo) / 2, c(hi) / 2, c(hi), fmt::join(ticks, ", "))
                     : fmt::format("set palette defined (0 '#21908d', {0} '#5dc963', {1} '#fde725')\nset cbrange [0:{1}]\nset cbtics ({2})\n",
                                   c(hi) / 2, c(hi), fmt::join(ticks, ", "));
  p.colour = fmt::format("(asinh($3/{}))", s);
  return p;
}

Palette palette(const verify::ExploreResult& r) {
  std::vector<double> l, scale;  // every candidate's log10 ratio; the global phase's
  for (std::size_t i = 0; i < r.evaluations.size(); ++i)
    if (const Evaluation& e = r.evaluations[i]; e.status == Evaluation::Status::ok && std::isfinite(e.slack)) {
      l.push_back(e.slack / std::log(10.0));
      if (i < r.global_points) scale.push_back(l.back());
    }
  if (l.empty()) return {};
  std::sort(l.begin(), l.end());
  std::sort(scale.begin(), scale.end());
  // Every ratio the same within rounding (a tight identity: log10 ratios of ±1e-14; or a bound a fixed multiple of the
  // exact value): one colour and a bar that says which ratio, not a scale from purple to yellow painted by rounding
  // noise. The relative deviation quoted is rounded up to one digit (a "1e-11" under which 1.42e-11 lay had been
  // rounded to nearest). (A bound 1000 times the exact value everywhere was labelled "= 1 at every point (within 10e2
  // relative)".)
  if (l.back() - l.front() <= 1e-9) {
    const double centre = (l.front() + l.back()) / 2;
    const bool one = std::fabs(centre) <= 1e-9;
    const double spread = one ? std::max(std::fabs(l.front()), std::fabs(l.back())) : (l.back() - l.front()) / 2;
    const double deviation = std::max(std::expm1(std::log(10.0) * spread) * (1 + 1e-9), 1e-16);
    const double decade = std::pow(10.0, std::floor(std::log10(deviation)));
    const double digit = std::ceil(deviation / decade * (1 - 1e-12));
    // (teal for ratio 1, as in the scale below; the violation end's purple below 1, the loose end's yellow above)
    const char* colour = one ? "#21908d" : centre < 0 ? "#440154" : "#fde725";
    // (plain digits: the label is quoted text, where ratio_tick's 10^{k} would print as typed)
    const std::string ratio = one ? "1" : std::fabs(centre) < 300 ? fmt::format("{:.4g}", std::pow(10.0, centre))
                                                                  : fmt::format("10 to the {:.4g}", centre);
    return {fmt::format("set palette defined (0 '{0}', 1 '{0}')\nset cbrange [-1:1]\nunset cbtics\nunset mcbtics\n", colour), "($3)",
            fmt::format("{} = {} at every point (within {:g}e{} relative)", verify::slack_ratio_name(r.direction), ratio, digit,
                        static_cast<int>(std::log10(decade) + (std::log10(decade) < 0 ? -0.5 : 0.5)))};
  }
  // One scale for every goal (ratio 1 teal, violations purple, the loosest yellow), set by the global phase's points,
  // which one seed makes the same for every goal: a point has one colour in the three maps of a case. (Loosest maps
  // had their own scale, linear in the log ratio from its 2 % to its 98 % quantile: black meant 1 in one map and 1.87
  // in another, teal the middle; and the same point was orange in one goal's map and green in another's.)
  return ratio_palette(scale.empty() ? l : scale, l);
}

// What the search looked for, as a title says it (the goal's bare name, "violation", read as a verdict).
std::string goal_phrase(verify::Goal goal) {
  return goal == verify::Goal::violation ? "search for violations"
         : goal == verify::Goal::loosest ? "search for the loosest points"
                                         : "search for the tightest points";
}

// What a title names: the statement by its source's own label (the part of the catalogue's `source` after its last
// comma outside brackets: "Theorem 1 (3)") with the ID in brackets, then the case: "Theorem 1 (3) [T1.3], random
// Dirichlet kernels". A case named after the statement keeps the ID alone before it ("[T8.a] Theorem 8 (a): OU …",
// not the label twice); a bound declared in a user's file (not in the catalogue) is named by its ID. (A title "T1.3"
// named nothing a reader of the paper knows.)
std::string title_head(const verify::ExploreResult& r) {
  const verify::BoundEntry* entry = verify::built_in_bound(r.id);
  std::size_t cut = std::string::npos;
  if (entry) {
    int depth = 0;
    for (std::size_t k = 0; k + 1 < entry->source.size(); ++k) {
      depth += entry->source[k] == '(' ? 1 : entry->source[k] == ')' ? -1 : 0;
      if (depth == 0 && entry->source[k] == ',' && entry->source[k + 1] == ' ') cut = k + 2;
    }
  }
  if (cut == std::string::npos) return fmt::format("{}, {}", r.id, r.case_name);
  const std::string label = entry->source.substr(cut);
  if (r.case_name.starts_with(label)) return fmt::format("[{}] {}", r.id, r.case_name);
  return fmt::format("{} [{}], {}", label, r.id, r.case_name);
}

// The axes in the order a map draws them: those that spread the points first (kSpreadValues distinct values or more
// among the global phase's evaluations), each group by influence (of the log ratio: both the same for every goal) (main effect; ties keep the declaration order). An axis of fewer
// values (a word, a short list) is drawn only where fewer than two axes spread the points: on it a search's points
// pile up on a few lines and hide each other (the formula-potential Langevin map, on its list axes x and alpha, hid
// 51 of its 57 points). The title names the axes not drawn ("over every ...").
std::vector<std::size_t> map_axes(const verify::ExploreResult& r) {
  std::vector<std::size_t> distinct(r.space.axes.size());
  for (std::size_t a = 0; a < r.space.axes.size(); ++a) {
    std::set<double> values;
    // (over the global phase, the same points for every goal: a goal's local runs do not change the axes drawn)
    const std::size_t n = r.global_points > 0 ? std::min(r.global_points, r.evaluations.size()) : r.evaluations.size();
    for (std::size_t i = 0; i < n; ++i)
      if (const double x = coordinate(r.space.axes[a], r.evaluations[i].point); std::isfinite(x)) values.insert(x);
    distinct[a] = values.size();
  }
  std::vector<std::size_t> order(r.space.axes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const bool spread_a = distinct[a] >= kSpreadValues, spread_b = distinct[b] >= kSpreadValues;
    if (spread_a != spread_b) return spread_a;
    return r.influence[a] > r.influence[b];
  });
  return order;
}

}  // namespace explore_parts

using namespace explore_parts;


namespace {

// The map's title, in enhanced text: the ID, case and goal, and the axes not drawn (`order` from the drawn ones on), which are projected
// out: neighbouring points differ by values the map hides.
std::string map_title(const verify::ExploreResult& r, const std::vector<std::size_t>& order, std::size_t drawn, bool ignore) {
  std::vector<std::string> hidden;  // (enhanced text: eps_prime as ε', as on the axes)
  for (std::size_t k = drawn; k < order.size(); ++k) hidden.push_back(axis_label(r.space.axes[order[k]]));
  return literal(fmt::format("{} ({}{}", title_head(r), goal_phrase(r.goal), ignore ? ", hypotheses ignored" : "")) +
         (hidden.empty() ? ")" : fmt::format("; over every {})", fmt::join(hidden, ", ")));
}

// The map's blocks, in drawing order (later on top): candidates inside the hypotheses (filled marks, coloured by
// their ratio), candidates outside them (evaluated with the hypotheses ignored: open marks in their colour, so that a
// "violation" where the theorem claims nothing never looks like a refutation), points outside the hypotheses that are
// not candidates, degenerate points, the reported points (large rings), the points without a finite ratio, one mark
// per verdict (one cross for three verdicts had a reader guess which), points outside --where, and errors (dark
// crosses, on top: errors beside the optimum hid under its rings).
enum Block {
  candidates, candidates_outside, hypotheses, degenerate, reported, zero_tight, loose_no_ratio, inconclusive_no_ratio,
  violated_no_ratio, outside_where, errors, blocks_count
};

// The plot styles per block. A violation search's map marks the verdict by shape too (a violated point, column 4, a
// down-triangle; not the sign of the ratio, which rounding puts below 0 on a tight identity): colours alone do not
// survive grey print. The errors' crosses carry a white halo (dark crosses vanished on the dark end of the scale) and
// the key names the first error's message.
std::array<std::string, blocks_count> map_styles(bool two, bool signed_marks, const std::string& ratio, const std::string& colour,
                                                  const std::string& errors) {
  const std::string filled = signed_marks ? "($4 == 1 ? 11 : 7)" : "(7)", open = signed_marks ? "($4 == 1 ? 10 : 6)" : "(6)";
  return {
      // (the colour bar names the scale; the key names the shapes)
      two ? fmt::format("using 1:2:{}:{} with points pt variable ps 0.9 lc palette notitle", filled, colour)
          : fmt::format("using 1:2 with points ls 1 pt 7 title 'log_{{10}}({})'", ratio),
      two ? fmt::format("using 1:2:{}:{} with points pt variable ps 1.0 lw 1.5 lc palette notitle", open, colour)
          : "using 1:2 with points ls 1 pt 6 title 'outside the hypotheses (evaluated anyway)'",
      "using 1:2 with points pt 4 ps 0.7 lc rgb '#555555' title 'outside the hypotheses (not-applicable)'",
      "using 1:2 with points pt 8 ps 0.9 lc rgb '#d62728' title 'degenerate (no amplification)'",
      "using 1:2 with points pt 6 ps 2.0 lw 1.5 lc rgb 'black' title 'reported points, numbered as in the report'",
      "using 1:2 with points pt 13 ps 0.8 lc rgb '#21908d' title 'tight, no ratio (exact = bound: 0 or below doubles)'",
      "using 1:2 with points pt 3 ps 0.7 lw 1.5 lc rgb '#333333' title 'holds, infinitely loose (exact 0 or bound ∞)'",
      "using 1:2 with points pt 2 ps 0.6 lw 1.5 lc rgb '#333333' title 'inconclusive, no ratio (below doubles)'",
      "using 1:2 with points pt 11 ps 0.9 lc rgb '#b2182b' title 'violated, no finite ratio (bound 0 < exact)'",
      "using 1:2 with points pt 12 ps 0.7 lw 1.5 lc rgb '#555555' title 'outside --where (not a candidate)'",
      "using 1:2 with points pt 2 ps 0.8 lw 4 lc rgb 'white' notitle, \\\n     '' index INDEX using 1:2 with points pt 2 ps 0.6 lw 1.5 "
      "lc rgb '#000000' title " + quoted(literal(errors))};
}

// Points drawn once where they nearly coincide on the map: a point within three quarters of a mark (1 % of the
// width, 2 % of the height) of one already drawn in its block and verdict is left out. A local search's refinements
// pile up at the points it converges to, and a pile of open triangles offset by a fraction of a mark read as a filled
// one (a grid of 1/100 of each axis still let them pile up along a diagonal). Maps of one axis (the y is the ratio)
// leave out only points at the same ratio.
class Thinned {
 public:
  Thinned(const ExploreAxis& ax, const ExploreAxis* ay) : rx_(drawn_range(ax)), ry_(ay ? drawn_range(*ay) : DrawnRange{}) {}
  bool fresh(int block, double x, double y, bool violated) {
    const auto at = [](const DrawnRange& r, double v, double mark) { return r.words || std::isnan(r.from) ? v / mark * 1e9 : across(r, v) / mark; };
    const std::array<double, 2> u{at(rx_, x, 0.01), at(ry_, y, 0.02)};
    auto& drawn = drawn_[{block, violated ? 1 : 0}];
    for (const auto& d : drawn) {
      const double dx = u[0] - d[0], dy = u[1] - d[1];
      if (dx * dx + dy * dy < 1) return false;
    }
    drawn.push_back(u);
    return true;
  }

 private:
  DrawnRange rx_, ry_;
  std::map<std::array<int, 2>, std::vector<std::array<double, 2>>> drawn_;  // by block and verdict: the marks drawn, in marks
};

// A block's plot clauses: its style (INDEX: its own index), the candidates outside the hypotheses on white discs (a
// stack of open marks stays open, never reads as filled), each filled candidate ringed in black (the light end of the
// scale stays visible on white).
std::vector<std::string> block_clauses(const std::string& file, int index, Block b, std::string style, bool two, bool signed_marks) {
  std::vector<std::string> out;
  if (const auto at = style.find("INDEX"); at != std::string::npos) style.replace(at, 5, std::to_string(index));
  if (b == candidates_outside && two)
    out.push_back(fmt::format("{} index {} using 1:2:{} with points pt variable ps 0.9 lc rgb 'white' notitle", file, index,
                              signed_marks ? "($4 == 1 ? 11 : 7)" : "(7)"));
  out.push_back(fmt::format("{} index {} {}", file, index, style));
  if (b == candidates && two)
    out.push_back(fmt::format("{} index {} using 1:2:{} with points pt variable ps 1.0 lw 0.5 lc rgb 'black' notitle", file, index,
                              signed_marks ? "($4 == 1 ? 10 : 6)" : "(6)"));
  return out;
}

// The block a point is drawn in (`has`: it is a candidate with a finite ratio).
Block block_of(const Evaluation& e, bool has, bool ignore) {
  if (has) return e.outside() ? candidates_outside : candidates;
  if (e.status == Evaluation::Status::not_applicable || (e.outside() && !ignore)) return hypotheses;
  if (e.status == Evaluation::Status::ok && !e.degenerate.empty()) return degenerate;
  // (tight by its verdict, with no ratio to colour: exact and bound 0, or below the double range; they shared a cross
  // with infinitely loose points)
  if (tight_without_ratio(e)) return zero_tight;
  if (e.status == Evaluation::Status::error || !e.has_numbers()) return errors;
  if (!e.in_region) return outside_where;
  switch (e.verdict()) {
    case verify::Verdict::violated: return violated_no_ratio;
    case verify::Verdict::inconclusive: return inconclusive_no_ratio;
    default: return loose_no_ratio;
  }
}

// The errors' key entry: how many, and the first one's message cut at a character's start (the rest is in STEM.csv).
std::string errors_key(std::size_t count, const std::string& first) {
  std::string said = escape::plain(first);
  if (said.size() > 40) {  // (a longer key entry took the key's two columns to one)
    std::size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(said[cut]) & 0xC0) == 0x80) --cut;
    said = said.substr(0, cut) + "...";
  }
  return fmt::format("{} error{}: {}", count, count == 1 ? "" : "s", said);
}

// The key's entries for the shapes of a two-axis map: the sign (a violation search) and open marks (outside the
// hypotheses), in grey, as the marks are drawn.
// (A violation search that found none inside the hypotheses says so in the entry: a key for a mark not drawn misled.)
std::vector<std::string> shape_keys(bool signed_marks, bool any_inside, bool any_outside, bool any_violated_inside, const std::string& ratio) {
  std::vector<std::string> keys;
  if (!signed_marks && any_inside)  // (the filled marks had no entry of their own on a loosest or tightest map)
    keys.push_back(fmt::format("keyentry with points pt 7 ps 0.9 lc rgb '#777777' title 'evaluated points, coloured by {}'", ratio));
  if (signed_marks) {
    keys.push_back(fmt::format("keyentry with points pt 7 ps 0.9 lc rgb '#777777' title 'holds: {} ≥ 1'", ratio));
    keys.push_back(fmt::format("keyentry with points pt 11 ps 0.9 lc rgb '#777777' title 'violated: {} < 1{}'", ratio,
                               any_violated_inside ? "" : any_outside ? " (none inside the hypotheses)" : " (none found)"));
  }
  if (any_outside && signed_marks) {  // each open shape keyed as drawn (dense open triangles read as filled ones)
    keys.push_back("keyentry with points pt 6 ps 1.0 lw 1.5 lc rgb '#777777' title 'holds, outside the hypotheses'");
    keys.push_back("keyentry with points pt 10 ps 1.0 lw 1.5 lc rgb '#777777' title 'violated outside them: no counterexample'");
  } else if (any_outside) {
    keys.push_back("keyentry with points pt 6 ps 1.0 lw 1.5 lc rgb '#777777' title 'open: outside the hypotheses (evaluated anyway)'");
  }
  return keys;
}

// The searched box, dashed, where both axes are ranges of numbers: a reported point on its edge is the box's optimum,
// not necessarily the bound's.
std::string box_outline(const ExploreAxis& ax, const ExploreAxis& ay) {
  if (ax.kind == ExploreAxis::Kind::choice || ay.kind == ExploreAxis::Kind::choice) return "";
  // (in front of the grid: an edge on a grid line hid under it)
  return fmt::format("set object 1 rect from {},{} to {},{} fs empty border lc rgb '#555555' dt 2 lw 1 front\n", ax.min, ay.min, ax.max, ay.max);
}

// The colour bar's label: the scale, or that every ratio is the same.
std::string colour_bar_label(verify::Goal goal, const Palette& colours, const std::string& ratio) {
  if (!colours.flat.empty()) return fmt::format("set cblabel {}\n", quoted(literal(colours.flat)));
  return goal == verify::Goal::violation  ? fmt::format("set cblabel '{} (compressed scale); below 1 violated'\n", ratio)
                                          : fmt::format("set cblabel '{} (compressed scale)'\n", ratio);
}

// The order in which a map's points claim their place (Thinned keeps the first of points that nearly coincide, and
// each block is drawn in the reverse order, the first on top): the reported points, then the candidates from the
// most extreme for the goal (the smallest ratios for a violation or tightest search, the largest for a loosest one),
// then the rest as evaluated. (Kept as met, a ratio of 10^5 hid fifteen refinements at 1.0001 on a tightest map, and
// a reported point's own mark could be left out of its ring.)
std::vector<std::size_t> drawing_priority(const verify::ExploreResult& r, bool ignore) {
  std::vector<std::size_t> order(r.evaluations.size());
  std::iota(order.begin(), order.end(), 0);
  const auto rank = [&](std::size_t i) {
    const Evaluation& e = r.evaluations[i];
    if (std::find(r.best_index.begin(), r.best_index.end(), i) != r.best_index.end()) return -kInf;
    if (!candidate(e, ignore)) return kInf;
    return r.goal == verify::Goal::loosest ? -e.slack : e.slack;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  return order;
}

// A map's points sorted into blocks (rows "x,y,log10 ratio,violated"), in drawing order, with what the key says of
// them: the errors (all counted, drawn or not), the points left under others (Thinned), whether any are open
// (outside the hypotheses) or violated inside them, and where marks are drawn (across the drawn ranges: the ring
// labels avoid them).
struct MapPoints {
  std::vector<std::string> rows[blocks_count];
  std::size_t error_count = 0, hidden = 0;
  std::string first_error;
  bool any_outside = false, any_violated_inside = false;
  std::vector<std::array<double, 2>> marks;
};
MapPoints map_points(const verify::ExploreResult& r, bool ignore, const ExploreAxis& ax, const ExploreAxis* ay) {
  MapPoints m;
  const bool two = ay != nullptr;
  Thinned drawn(ax, ay);
  for (std::size_t i : drawing_priority(r, ignore)) {
    const Evaluation& e = r.evaluations[i];
    const double x = coordinate(ax, e.point);
    const bool has = candidate(e, ignore), violated = e.verdict() == verify::Verdict::violated;
    const double l = has ? e.slack / std::log(10.0) : std::nan("");
    const double y = two ? coordinate(*ay, e.point) : l;
    if (!std::isfinite(x) || (two && !std::isfinite(y))) continue;
    const Block b = block_of(e, has, ignore);
    if (!two && b != candidates && b != candidates_outside) continue;  // one axis: only ratios have a y
    if (b == errors && ++m.error_count == 1) m.first_error = e.message();
    if (!drawn.fresh(b, x, y, violated)) {
      ++m.hidden;
      continue;
    }
    m.rows[b].push_back(fmt::format("{},{},{},{}", x, y, has ? fmt::format("{}", l) : "", violated ? 1 : 0));
    if (two) m.marks.push_back({across(drawn_range(ax), x), across(drawn_range(*ay), y)});
    m.any_outside = m.any_outside || b == candidates_outside;
    m.any_violated_inside = m.any_violated_inside || (b == candidates && violated);
  }
  for (auto& rows : m.rows) std::reverse(rows.begin(), rows.end());  // the first in priority drawn last, on top
  for (std::size_t i : r.best_index) {
    const Evaluation& e = r.evaluations[i];
    const double l = e.slack / std::log(10.0);
    m.rows[reported].push_back(fmt::format("{},{},{},{}", coordinate(ax, e.point), two ? coordinate(*ay, e.point) : l, l,
                                           e.verdict() == verify::Verdict::violated ? 1 : 0));
  }
  return m;
}

// The map: every evaluated point over two axes (map_axes: the most influential of those that spread the points; one
// axis: the ratio against it), candidates
// coloured by their ratio, the others by why they have none, the reported points ringed.
// False where nothing was evaluated successfully (the summary says so, and there is no convergence to draw either).
bool render_map(const verify::ExploreResult& r, bool ignore, const std::filesystem::path& dir, const std::string& stem) {
  const std::string ratio = verify::slack_ratio_name(r.direction);
  const std::vector<std::size_t> order = map_axes(r);
  const bool two = order.size() >= 2;
  const ExploreAxis& ax = r.space.axes[order[0]];
  const ExploreAxis* ay = two ? &r.space.axes[order[1]] : nullptr;
  const Palette colours = two ? palette(r) : Palette{};
  const bool signed_marks = two && r.goal == verify::Goal::violation;

  // Map: one block per kind of point (Block), x, y and the log10 ratio where there is one.
  const auto map_csv = dir / (stem + "_map.csv");
  const MapPoints points = map_points(r, ignore, ax, ay);
  std::vector<std::string> plots;
  {
    OutputFile checked(map_csv);
    std::ostream& out = checked.stream();
    out.precision(17);
    out << fmt::format("# {},{},log10({}),violated (blocks, those with points: candidates inside the hypotheses; outside them; "
                       "other points outside them; degenerate; the reported points; tight without a ratio; holds without a finite ratio; "
                       "inconclusive without one; violated without one; outside --where; errors; a point within 3/4 of a mark of one "
                       "drawn in its block and verdict is left out)\n", ax.name,
                       two ? ay->name : "log10 ratio", ratio);
    const std::string file = quoted(map_csv.filename().string());  // gnuplot runs in `dir`
    const auto styles = map_styles(two, signed_marks, ratio, colours.colour, errors_key(points.error_count, points.first_error));
    int index = 0;
    for (int b = 0; b < blocks_count; ++b) {
      if (points.rows[b].empty()) continue;
      if (index) out << "\n\n";
      for (const auto& line : points.rows[b]) out << line << "\n";
      for (std::string& clause : block_clauses(file, index, static_cast<Block>(b), styles[b], two, signed_marks)) plots.push_back(std::move(clause));
      ++index;
    }
    checked.close();
  }
  if (plots.empty()) return false;
  if (two) {
    for (const std::string& k : shape_keys(signed_marks, !points.rows[candidates].empty(), points.any_outside, points.any_violated_inside, ratio))
      plots.push_back(k);
    if (!box_outline(ax, *ay).empty()) plots.push_back("keyentry with lines lc rgb '#555555' dt 2 lw 1 title 'the box searched'");
    if (points.hidden > 0)
      plots.push_back(fmt::format("keyentry with dots lc rgb 'white' title {}",
                                  quoted(literal(fmt::format("{} point{} hidden under others (all in the .csv)",
                                                             points.hidden, points.hidden == 1 ? "" : "s")))));
  }
  std::string body = axis_settings(ax, 'x') + (two ? axis_settings(*ay, 'y') + box_outline(ax, *ay) + ring_labels(r, ax, *ay, points.marks) +
                                                          colour_bar_label(r.goal, colours, ratio) + colours.settings
                                                    : fmt::format("set ylabel 'log_{{10}}({})'\n", ratio));
  // Rows spaced for the reported rings, not opaque (it hid the x label), two columns (one took 40 % of the height).
  body += "set key below nobox noopaque height 1 spacing 1.8 maxrows 4\nplot " + fmt::format("{}", fmt::join(plots, ", \\\n     ")) + "\n";
  render_gnuplot(dir, stem + "_map", map_title(r, order, two ? 2 : 1, ignore),
                 fmt::format("privamp explore: every evaluated point over the two most influential axes that spread them; data {}", map_csv.filename().string()),
                 body, explore_style());
  return true;
}

}  // namespace

void render_explore(const verify::ExploreResult& r, bool ignore, const std::filesystem::path& dir, const std::string& stem) {
  std::filesystem::create_directories(dir);
  if (render_map(r, ignore, dir, stem)) render_convergence(r, ignore, dir, stem);
}

}  // namespace privamp::plots
