#include "sim/processes/projected_chain.hpp"

#include "sim/formulas/certify.hpp"
#include "sim/formulas/formula.hpp"

#include <algorithm>
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
  // Each column is a Gaussian sampled at equally spaced nodes: e^{−z_j²/2} with z_j = z_{j−1} + Δ, Δ = h/s, satisfies
  // e_j = e_{j−1}·g_{j−1}, g_j = g_{j−1}·e^{−Δ²}, two products per entry instead of an exponential. The recurrence
  // runs outwards from the node nearest the column's centre (where the values are largest) and restarts from exact
  // exponentials every 32 nodes, so its relative error stays within ~100 ulps; far entries underflow to 0 as exp does.
  const double delta = h / s, shrink = std::exp(-delta * delta);
  for (int k = 0; k < nodes; ++k) {
    const double w = h * (k == 0 || k + 1 == nodes ? 0.5 : 1.0), m = psi_(lo + k * h);
    if (!std::isfinite(m)) throw InvalidArgument(fmt::format("propagate: the map is not finite at x = {}", lo + k * h));
    const double scale = w * inv;
    auto z_at = [&](int j) { return (lo + j * h - m) / s; };
    const int centre = static_cast<int>(std::clamp(std::round((m - lo) / h), 0.0, static_cast<double>(nodes - 1)));
    for (int direction : {1, -1}) {
      double e = 0, g = 0;
      for (int j = centre, count = 0; j >= 0 && j < nodes; j += direction, ++count) {
        if (count % 32 == 0 || e == 0) {  // restart exactly (also once the values underflow: they stay 0)
          const double z = z_at(j);
          e = std::exp(-0.5 * z * z);
          g = std::exp(-direction * z * delta - 0.5 * delta * delta);
        } else {
          e *= g;
          g *= shrink;
        }
        kernel_(j, k) = scale * e;
        if (e == 0 && direction * z_at(j) > 0) {  // beyond: all zero
          for (int r = j; r >= 0 && r < nodes; r += direction) kernel_(r, k) = 0;
          break;
        }
      }
    }
    to_lo_[k] = w * normal_cdf((lo - m) / s);
    to_hi_[k] = w * normal_sf((hi - m) / s);
  }
  // The rows where each column is not 0 (a narrow noise against the interval leaves most of the kernel at 0).
  band_.resize(static_cast<std::size_t>(nodes));
  double kept = 0;
  for (int k = 0; k < nodes; ++k) {
    int first = 0, last = nodes - 1;
    while (first < nodes && kernel_(first, k) == 0) ++first;
    while (last >= first && kernel_(last, k) == 0) --last;
    band_[static_cast<std::size_t>(k)] = {first, last};
    kept += std::max(0, last - first + 1);
  }
  banded_ = kept < 0.75 * static_cast<double>(nodes) * nodes;
}

IntervalLaw Propagator::operator()(const IntervalLaw& in) const {
  IntervalLaw out = raw(in);
  // The trapezoid rule leaves an O(h²) mass defect; renormalise (the defect is discretisation error).
  const double total = out.total_mass();
  for (double& v : out.density) v /= total;
  for (auto& [x, w] : out.atoms) w /= total;
  return out;
}

IntervalLaw Propagator::raw(const IntervalLaw& in) const {
  const Eigen::Map<const Eigen::VectorXd> d(in.density.data(), static_cast<Eigen::Index>(in.density.size()));
  if (d.size() != kernel_.cols()) throw InvalidArgument("propagate: the law's grid does not match the propagator's");
  IntervalLaw out{lo_, hi_, std::vector<double>(in.density.size()), {}};
  Eigen::Map<Eigen::VectorXd> o(out.density.data(), d.size());
  if (banded_) {  // the same sums without the zero entries
    o.setZero();
    for (Eigen::Index k = 0; k < d.size(); ++k) {
      const auto [first, last] = band_[static_cast<std::size_t>(k)];
      if (d[k] == 0 || last < first) continue;
      o.segment(first, last - first + 1).noalias() += kernel_.col(k).segment(first, last - first + 1) * d[k];
    }
  } else {
    o = kernel_ * d;
  }
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
  return out;
}

namespace {

// a·x + b·y on the nodes and on the atoms (at the same locations; y's atoms are added by location).
IntervalLaw combine(double a, const IntervalLaw& x, double b, const IntervalLaw& y) {
  IntervalLaw out = x;
  for (std::size_t k = 0; k < out.density.size(); ++k) out.density[k] = a * x.density[k] + b * y.density[k];
  for (auto& [at, w] : out.atoms) w *= a;
  for (const auto& [at, w] : y.atoms) {
    auto it = std::find_if(out.atoms.begin(), out.atoms.end(), [&](const auto& e) { return e.first == at; });
    if (it == out.atoms.end()) out.atoms.emplace_back(at, b * w);
    else it->second += b * w;
  }
  return out;
}

}  // namespace

void check_noise_resolved(const char* law, const char* name, double s, double lo, double hi, int intervals) {
  if (intervals < 2 || intervals > 200000) throw_invalid(law, "intervals", intervals, "2 <= intervals <= 200000");
  const double h = (hi - lo) / intervals;
  if (!(s >= h / 2))
    throw_invalid(law, name, s, fmt::format(">= half the grid spacing, {} (raise cells, or the noise)", format_number(h / 2)));
}

IntervalLawPair IntervalLawPair::points(double x_p, double x_q, double lo, double hi, int intervals) {
  IntervalLawPair pair{IntervalLaw::point(x_p, lo, hi, intervals), IntervalLaw::point(x_q, lo, hi, intervals)};
  // d = δ_{x_q} − δ_{x_p}
  pair.d.atoms = x_q == x_p ? std::vector<std::pair<double, double>>{{x_p, 0.0}}
                            : std::vector<std::pair<double, double>>{{x_q, 1.0}, {x_p, -1.0}};
  return pair;
}

IntervalLawPair propagate_pair(const IntervalLawPair& in, const Propagator& step_p, const Propagator& step_q) {
  // Unnormalised images P = K_p p and D = K_q(p + d) − K_p p, then both laws normalised:
  //   p' = P/s_P,  q' = (P + D)/(s_P + s_D)  ⇒  d' = q' − p' = (D − p'·s_D)/(s_P + s_D),
  // with s_D the (small) mass of D computed from D itself, never as a difference of two masses.
  const IntervalLaw P = step_p.raw(in.p);
  IntervalLaw D = step_q.raw(in.d);
  if (&step_p != &step_q) D = combine(1, D, 1, combine(1, step_q.raw(in.p), -1, P));
  const double s_p = P.total_mass(), s_d = D.total_mass();
  IntervalLawPair out{combine(1 / s_p, P, 0, P), {}};
  out.d = combine(1 / (s_p + s_d), D, -s_d / (s_p + s_d), out.p);
  // d has zero mass exactly; rounding gives it some, which the contracting steps would keep forever (the mass
  // direction does not contract): remove it.
  out.d = combine(1, out.d, -out.d.total_mass(), out.p);
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

Propagator::Map ChainMap::psi() const {
  if (formula) return [f = formula](double x) { return (*f)(x); };
  return lipschitz_map(name, lipschitz);
}

std::string ChainMap::identity() const { return formula ? formula->text() : fmt::format("{} {:.17g}", name, lipschitz); }

void ChainMap::check(double lo, double hi) const {
  if (!formula) return;
  const Enclosure box[1] = {{lo, hi}};
  extremum(*formula, 0, 0, box, true);  // InvalidArgument where ψ is not finite
}

IntervalLaw projected_chain_law(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi,
                                int intervals) {
  if (r < 1 || r > 100000) throw_invalid("projected_chain", "r", r, "1 <= r <= 100000");
  IntervalLaw law = IntervalLaw::point(x0, lo, hi, intervals);
  check_noise_resolved("projected_chain", "sigma", s, lo, hi, intervals);
  const Propagator step(lo, hi, intervals, psi, s);
  for (int j = 0; j < r; ++j) law = step(law);
  return law;
}

IntervalLawPair projected_chain_pair(const Propagator::Map& psi, double x0, double x0_q, int r, double s, double lo,
                                     double hi, int intervals) {
  if (r < 1 || r > 100000) throw_invalid("projected_chain", "r", r, "1 <= r <= 100000");
  IntervalLawPair pair = IntervalLawPair::points(x0, x0_q, lo, hi, intervals);
  const Propagator step(lo, hi, intervals, psi, s);
  for (int j = 0; j < r; ++j) pair = propagate_pair(pair, step, step);
  return pair;
}

double simulate_projected_chain(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi, Rng& rng) {
  double x = x0;
  for (int j = 0; j < r; ++j) x = std::clamp(psi(x) + s * rng.normal(), lo, hi);
  return x;
}

}  // namespace privamp::sim
