#include "sim/processes/projected_chain.hpp"

#include <cmath>
#include <numbers>

#include <Eigen/Core>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/special.hpp"

namespace privamp::sim {

IntervalLaw IntervalLaw::point(double x0, double lo, double hi, int intervals) {
  if (!(lo < hi)) throw InvalidArgument("interval law: need lo < hi");
  if (intervals < 2 || intervals > 200000) throw_invalid("interval law", "intervals", intervals, "2 <= intervals <= 200000");
  if (!(x0 >= lo && x0 <= hi)) throw_invalid("interval law", "x0", x0, fmt::format("{} <= x0 <= {}", lo, hi));
  return {lo, hi, std::vector<double>(static_cast<std::size_t>(intervals) + 1, 0.0), {{x0, 1.0}}};
}

double IntervalLaw::total_mass() const {
  double m = 0;
  for (std::size_t k = 0; k < density.size(); ++k) m += density[k] * (k == 0 || k + 1 == density.size() ? 0.5 : 1.0);
  m *= h();
  for (const auto& [x, w] : atoms) m += w;
  return m;
}

GridLaw IntervalLaw::to_grid_law() const {
  std::vector<double> at, mass;
  for (const auto& [x, w] : atoms) {
    at.push_back(x);
    mass.push_back(w);
  }
  return GridLaw(lo, h(), density, at, mass);
}

namespace {
double normal_cdf(double z) { return std::exp(log_normal_cdf(z)); }
double normal_sf(double z) { return std::exp(log_normal_cdf(-z)); }
}  // namespace

IntervalLaw propagate(const IntervalLaw& in, double a, double b, double s) {
  check_finite("propagate", "a", a);
  check_finite("propagate", "b", b);
  check_positive_finite("propagate", "s", s);
  const std::size_t nodes = in.density.size();
  const double h = in.h();
  IntervalLaw out{in.lo, in.hi, std::vector<double>(nodes, 0.0), {}};
  const double inv = 1 / (s * std::sqrt(2 * std::numbers::pi));
  // Sources: the atoms and the trapezoid-weighted density nodes, each a mass at a point.
  std::vector<std::pair<double, double>> sources = in.atoms;
  for (std::size_t k = 0; k < nodes; ++k) {
    const double w = in.density[k] * h * (k == 0 || k + 1 == nodes ? 0.5 : 1.0);
    if (w > 0) sources.emplace_back(in.lo + static_cast<double>(k) * h, w);
  }
  double mass_lo = 0, mass_hi = 0;
  for (const auto& [x, w] : sources) {
    const double m = a * x + b;
    for (std::size_t j = 0; j < nodes; ++j) {
      const double z = (in.lo + static_cast<double>(j) * h - m) / s;
      out.density[j] += w * inv * std::exp(-0.5 * z * z);
    }
    mass_lo += w * normal_cdf((in.lo - m) / s);
    mass_hi += w * normal_sf((in.hi - m) / s);
  }
  out.atoms = {{in.lo, mass_lo}, {in.hi, mass_hi}};
  // The trapezoid rule leaves an O(h²) mass defect; renormalise so that the law is a probability law (the defect
  // belongs to the discretisation error that halving h estimates).
  const double total = out.total_mass();
  for (double& d : out.density) d /= total;
  for (auto& [x, w] : out.atoms) w /= total;
  return out;
}

Propagator::Propagator(double lo, double hi, int intervals, double a, double b, double s)
    : Propagator(lo, hi, intervals, [a, b](double x) { return a * x + b; }, s) {}

Propagator::Propagator(double lo, double hi, int intervals, Map psi, double s)
    : lo_(lo), hi_(hi), s_(s), psi_(std::move(psi)) {
  check_positive_finite("propagate", "s", s);
  if (!(lo < hi)) throw InvalidArgument("propagate: need lo < hi");
  const int nodes = intervals + 1;
  const double h = (hi - lo) / intervals, inv = 1 / (s * std::sqrt(2 * std::numbers::pi));
  kernel_.resize(nodes, nodes);
  to_lo_.resize(nodes);
  to_hi_.resize(nodes);
  for (int k = 0; k < nodes; ++k) {
    const double w = h * (k == 0 || k + 1 == nodes ? 0.5 : 1.0), m = psi_(lo + k * h);
    if (!std::isfinite(m)) throw InvalidArgument(fmt::format("propagate: the map is not finite at x = {}", lo + k * h));
    for (int j = 0; j < nodes; ++j) {
      const double z = (lo + j * h - m) / s;
      kernel_(j, k) = w * inv * std::exp(-0.5 * z * z);
    }
    to_lo_[k] = w * normal_cdf((lo - m) / s);
    to_hi_[k] = w * normal_sf((hi - m) / s);
  }
}

IntervalLaw Propagator::operator()(const IntervalLaw& in) const {
  const Eigen::Map<const Eigen::VectorXd> d(in.density.data(), static_cast<Eigen::Index>(in.density.size()));
  if (d.size() != kernel_.cols()) throw InvalidArgument("propagate: the law's grid does not match the propagator's");
  IntervalLaw out{lo_, hi_, std::vector<double>(in.density.size()), {}};
  Eigen::Map<Eigen::VectorXd> o(out.density.data(), d.size());
  o = kernel_ * d;
  double mass_lo = to_lo_ * d, mass_hi = to_hi_ * d;
  const double h = in.h(), inv = 1 / (s_ * std::sqrt(2 * std::numbers::pi));
  for (const auto& [x, w] : in.atoms) {
    const double m = psi_(x);
    for (Eigen::Index j = 0; j < o.size(); ++j) {
      const double z = (lo_ + static_cast<double>(j) * h - m) / s_;
      o[j] += w * inv * std::exp(-0.5 * z * z);
    }
    mass_lo += w * normal_cdf((lo_ - m) / s_);
    mass_hi += w * normal_sf((hi_ - m) / s_);
  }
  out.atoms = {{lo_, mass_lo}, {hi_, mass_hi}};
  const double total = out.total_mass();
  o /= total;
  for (auto& [x, w] : out.atoms) w /= total;
  return out;
}

Propagator::Map lipschitz_map(const std::string& name, double lipschitz) {
  check_finite("lipschitz_map", "L", lipschitz);
  const double l = lipschitz;
  if (name == "linear") return [l](double x) { return l * x; };
  if (name == "tanh") return [l](double x) { return l * std::tanh(x); };
  if (name == "sin") return [l](double x) { return l * std::sin(x); };
  if (name == "softsign") return [l](double x) { return l * x / (1 + std::fabs(x)); };
  throw InvalidArgument(fmt::format("map = '{}': allowed linear, tanh, sin, softsign", name));
}

IntervalLaw projected_chain_law(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi,
                                int intervals) {
  if (r < 1 || r > 100000) throw_invalid("projected_chain", "r", r, "1 <= r <= 100000");
  IntervalLaw law = IntervalLaw::point(x0, lo, hi, intervals);
  const Propagator step(lo, hi, intervals, psi, s);
  for (int j = 0; j < r; ++j) law = step(law);
  return law;
}

}  // namespace privamp::sim
