#include "sim/laws/law.hpp"

#include <algorithm>

#include "numerics/errors.hpp"

namespace privamp::sim {

void Law::log_density(std::span<const double> x, std::span<double> out) const {
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = log_density(x[i]);
}

std::vector<double> Law::anchors() const {
  std::vector<double> a = breakpoints();
  a.push_back(location());
  for (const Atom& at : atoms()) a.push_back(at.x);
  return a;
}

double Law::log_cdf(double) const {
  throw InvalidArgument(expression() + ": no closed-form CDF for this law");
}

double Law::log_sf(double) const {
  throw InvalidArgument(expression() + ": no closed-form CDF for this law");
}

void Law::sample(Rng& rng, std::span<double> out) const {
  for (double& v : out) v = sample(rng);
}

double Law::log_atom_mass(double x) const {
  const auto a = atoms();
  const auto it = std::lower_bound(a.begin(), a.end(), x, [](const Atom& at, double v) { return at.x < v; });
  if (it != a.end() && it->x == x) return it->log_mass;
  return -std::numeric_limits<double>::infinity();
}

double ProcessLaw::sample(Rng& rng) const {
  double x;
  sample(rng, std::span<double>(&x, 1));
  return x;
}

void ProcessLaw::sample(Rng& rng, std::span<double> out) const {
  if (simulate_) simulate_(rng, out);
  else LawDecorator::sample(rng, out);
}

std::optional<std::pair<LawPtr, LawPtr>> ProcessLaw::joint_with(const Law& other) const {
  const auto* o = dynamic_cast<const ProcessLaw*>(&other.unwrapped());
  if (!joint_ || !o || !(o->identity_ == identity_)) return std::nullopt;
  return joint_(varying_, o->varying_);
}

}  // namespace privamp::sim
