#include "sim/laws/projected.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/log_space.hpp"
#include "sim/laws/spec.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

Clamped::Clamped(LawPtr base, double lo, double hi) : base_(std::move(base)), lo_(lo), hi_(hi) {
  check_finite("clamp", "lo", lo);
  check_finite("clamp", "hi", hi);
  if (!(lo < hi)) invalid_input("clamp: need lo < hi, got lo = {}, hi = {}", format_number(lo), format_number(hi));
  if (base_->dimension() != 1) invalid_input("clamp: the base law must be one-dimensional");
  refuse_lumped(*base_, "clamp");
  // An end so far out that the mass beyond it, though positive (the density part lives there), has a log below the
  // double range: its atom would be held as 0, and R_inf of two such clamps (the loss at the end, about lo²/2σ² apart)
  // came out as 8.5 inside a narrow interval where the truth was 1e300 (and a log mass of -1e308, held, overflowed in
  // the quadrature: the KL of two Laplace laws clamped at ±1e308 failed on a NaN).
  if (base_->continuous_mass() > 0) {
    const Interval support = base_->support();
    for (const auto& [end, side, mass] : {std::tuple{lo, "lo", base_->log_cdf(lo)}, std::tuple{hi, "hi", base_->log_sf(hi)}})
      if (mass < -1e300 && support.lo < end && end < support.hi)
        invalid_input("clamp: the mass of {} beyond {} = {} is positive but its log is below -1e300{}: bring {} nearer the law",
                      base_->expression(), side, format_number(end),
                      std::isinf(mass) ? " (beyond the double range)" : fmt::format(" ({:.3g}: sums and differences of it overflow)", mass), side);
  }
  std::map<double, LogSumAccumulator<double>> merged;
  merged[lo].add(base_->log_cdf(lo));                    // P(X ≤ lo), atoms at lo included
  merged[hi].add(base_->log_sf(hi));                     // P(X > hi)
  merged[hi].add(base_->log_atom_mass(hi));              // an atom exactly at hi stays there
  for (const Atom& a : base_->atoms())
    if (a.x > lo && a.x < hi) merged[a.x].add(a.log_mass);
  for (auto& [x, s] : merged) atoms_.push_back({x, s.value()});
  // The density part's mass, P(lo < X < hi) less the base's atoms inside, from the tail masses on the side where
  // they are small: 1 − (the atoms' total) loses every digit when the atoms hold all but 1e-19 of the mass (a
  // Gaussian clamped ten scales from its centre), and a law so computed would pass for a finite one.
  if (base_->continuous_mass() > 0) {
    const double below_lo = std::exp(base_->log_cdf(lo)), at_hi = std::exp(base_->log_atom_mass(hi));
    double inside = below_lo < 0.5 ? std::exp(base_->log_cdf(hi)) - below_lo - at_hi
                                   : std::exp(base_->log_sf(lo)) - std::exp(base_->log_sf(hi)) - at_hi;
    for (const Atom& a : base_->atoms())
      if (a.x > lo && a.x < hi) inside -= std::exp(a.log_mass);
    continuous_mass_ = std::clamp(inside, 0.0, 1.0);
  } else {
    continuous_mass_ = 0;
  }
}

std::string Clamped::expression() const {
  return fmt::format("clamp({}, lo={}, hi={})", base_->expression(), format_number(lo_), format_number(hi_));
}

double Clamped::log_density(double x) const {
  if (x <= lo_ || x >= hi_) return neg_inf<double>();
  return base_->log_density(x);
}

std::vector<double> Clamped::breakpoints() const {
  std::vector<double> b{lo_, hi_};
  for (double x : base_->breakpoints())
    if (x > lo_ && x < hi_) b.push_back(x);
  return b;
}

std::vector<double> Clamped::anchors() const {
  std::vector<double> a = breakpoints();
  for (double x : base_->anchors())
    if (x > lo_ && x < hi_) a.push_back(x);
  a.push_back(location());
  return a;
}

void Clamped::sample_into(Rng& rng, std::span<double> out) const {
  base_->sample_into(rng, out);
  for (double& v : out) v = std::clamp(v, lo_, hi_);
}

GridLaw::GridLaw(double x0, double dx, std::vector<double> density, std::vector<double> atom_locations,
                 std::vector<double> atom_masses)
    : x0_(x0), dx_(dx), density_(std::move(density)) {
  check_finite("grid", "x0", x0);
  check_positive_finite("grid", "dx", dx);
  if (density_.size() == 1) invalid_input("grid: parameter 'density' needs at least two values (or none)");
  for (double d : density_) check_nonnegative_finite("grid", "density", d);
  if (atom_locations.size() != atom_masses.size())
    invalid_input("grid: {} atom locations for {} atom masses", atom_locations.size(), atom_masses.size());
  double total = 0, m = 0, m2 = 0;
  cell_cumulative_.reserve(density_.size());
  for (std::size_t i = 0; i + 1 < density_.size(); ++i) {
    const double a = x0_ + dx_ * static_cast<double>(i);
    const double h = dx_, p0 = density_[i], p1 = density_[i + 1];
    const double mass = 0.5 * h * (p0 + p1);
    total += mass;
    cell_cumulative_.push_back(total);
    // The moments of the linear density on [a, a + h], exactly (not the cell's mass at its midpoint).
    m += h * (a * (p0 + p1) / 2 + h * (p0 + 2 * p1) / 6);
    m2 += p0 * (a * a * h + a * h * h + h * h * h / 3) + (p1 - p0) * (a * a * h / 2 + 2 * a * h * h / 3 + h * h * h / 4);
  }
  continuous_mass_ = total;
  std::map<double, double> merged;
  for (std::size_t i = 0; i < atom_locations.size(); ++i) {
    check_finite("grid", "atoms", atom_locations[i]);
    check_probability("grid", "masses", atom_masses[i]);
    if (atom_masses[i] > 0) merged[atom_locations[i]] += atom_masses[i];
    total += atom_masses[i];
    m += atom_masses[i] * atom_locations[i];
    m2 += atom_masses[i] * atom_locations[i] * atom_locations[i];
  }
  for (auto& [x, w] : merged) atoms_.push_back({x, std::log(w)});
  if (std::fabs(total - 1) > 1e-9)
    invalid_input("grid: not normalised: density and atoms carry total mass {}, not 1", format_number(total));
  mean_ = m;
  scale_ = m2 - m * m > 0 ? std::sqrt(m2 - m * m) : dx_;
}

std::string GridLaw::expression() const {
  std::vector<std::string> d, ax, am;
  for (double v : density_) d.push_back(format_number(v));
  for (const Atom& a : atoms_) {
    ax.push_back(format_number(a.x));
    am.push_back(format_number(std::exp(a.log_mass)));
  }
  return fmt::format("grid(x0={}, dx={}, density=[{}], atoms=[{}], masses=[{}])", format_number(x0_),
                     format_number(dx_), fmt::join(d, ", "), fmt::join(ax, ", "), fmt::join(am, ", "));
}

Shape GridLaw::shape() const {
  const Interval support = density_.empty()
                               ? Interval{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}
                               : Interval{x0_, x0_ + dx_ * static_cast<double>(density_.size() - 1)};
  return {.continuous_mass = continuous_mass_, .support = support, .location = mean_, .scale = scale_,
          .left = TailShape::none(), .right = TailShape::none()};
}

double GridLaw::log_density(double x) const {
  if (density_.empty()) return neg_inf<double>();
  const double t = (x - x0_) / dx_;
  const double last = static_cast<double>(density_.size() - 1);
  if (!(t >= 0 && t <= last)) return neg_inf<double>();
  const std::size_t i = std::min(static_cast<std::size_t>(t), density_.size() - 2);
  const double f = t - static_cast<double>(i);
  return std::log((1 - f) * density_[i] + f * density_[i + 1]);
}

std::vector<double> GridLaw::breakpoints() const {
  std::vector<double> b;
  for (std::size_t i = 0; i < density_.size(); ++i) b.push_back(x0_ + dx_ * static_cast<double>(i));
  return b;
}

void GridLaw::sample_into(Rng& rng, std::span<double> out) const {
  for (double& v : out) v = draw(rng);
}

double GridLaw::draw(Rng& rng) const {
  double u = rng.uniform();
  for (const Atom& a : atoms_) {
    const double w = std::exp(a.log_mass);
    if (u < w) return a.x;
    u -= w;
  }
  // Continuous part: pick the cell, then invert the linear density inside it.
  u = std::min(u, continuous_mass_ * (1 - 1e-16));
  const auto it = std::upper_bound(cell_cumulative_.begin(), cell_cumulative_.end(), u);
  const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(it - cell_cumulative_.begin()), cell_cumulative_.size() - 1);
  const double before = i == 0 ? 0.0 : cell_cumulative_[i - 1];
  const double r = (u - before) / dx_;  // ∫_0^s (d0 + (d1−d0) t) dt = r, s ∈ [0,1]
  const double d0 = density_[i], d1 = density_[i + 1], slope = d1 - d0;
  double s;
  if (std::fabs(slope) < 1e-14 * std::max(d0, d1)) s = d0 > 0 ? r / d0 : 0.5;
  else s = (-d0 + std::sqrt(std::max(0.0, d0 * d0 + 2 * slope * r))) / slope;
  return x0_ + dx_ * (static_cast<double>(i) + std::clamp(s, 0.0, 1.0));
}

// ---- The laws of the expression language (sim/laws/spec.hpp).

LawSpec clamp_law_spec() {
  using K = ParamKind;
  LawSpec spec{"clamp", "projection of a law onto [lo, hi]: atoms at the ends plus the restricted density",
    {{"law", K::law, std::nullopt, "base law with a closed-form CDF (gaussian, laplace, pmf, mixtures)"},
    {"lo", K::number, std::nullopt, "lower end"},
    {"hi", K::number, std::nullopt, "upper end, > lo"}},
    "clamp(gaussian(0.3, 1), lo=0, hi=1)",
    [](const Args& a) { return std::make_shared<Clamped>(a.law("law"), a.number("lo"), a.number("hi")); }};
  spec.ties = {{"hi", Tie::Relation::above, "lo"}};
  return spec;
}
PRIVAMP_LAW(290, clamp_law_spec);

LawSpec grid_law_spec() {
  using K = ParamKind;
  return {"grid", "density tabulated at x0 + i*dx (linear in between) plus atoms",
    {{"x0", K::number, "0", "first node"},
    ParamSpec{"dx", K::number, "1", "node spacing, > 0"}.within(Range::positive()),
    ParamSpec{"density", K::numbers, "[]", "density values at the nodes (>= 2 values, or none)"}.within(Range::non_negative()),
    {"atoms", K::numbers, "[]", "atom locations"},
    ParamSpec{"masses", K::numbers, "[]", "atom masses; density and atoms must carry total mass 1"}.within(Range::probability())},
    "grid(x0=0, dx=0.5, density=[0, 1, 0], atoms=[2], masses=[0.5])",
    [](const Args& a) {
      auto list = [&](const char* n) { return a.has(n) ? a.numbers(n) : std::vector<double>{}; };
      return std::make_shared<GridLaw>(a.number("x0"), a.number("dx"), list("density"), list("atoms"), list("masses"));
    }};
}
PRIVAMP_LAW(300, grid_law_spec);

}  // namespace privamp::sim
