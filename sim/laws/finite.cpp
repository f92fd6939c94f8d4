#include "sim/laws/finite.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/log_space.hpp"
#include "numerics/special.hpp"
#include "sim/laws/spec.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

FiniteLaw::FiniteLaw(std::vector<double> locations, const Eigen::VectorXd& masses) {
  if (locations.size() != static_cast<std::size_t>(masses.size()))
    invalid_input("pmf: {} locations for {} masses", locations.size(), masses.size());
  if (locations.empty()) invalid_input("pmf: parameter 'p' must list at least one mass");
  double total = 0;
  for (Eigen::Index i = 0; i < masses.size(); ++i) {
    check_probability("pmf", "p", masses[i]);
    check_finite("pmf", "at", locations[static_cast<std::size_t>(i)]);
    total += masses[i];
  }
  // Decimal inputs sum to 1 within a few rounding units; anything further off is a typo, not rounding.
  if (std::fabs(total - 1) > 1e-12 * static_cast<double>(masses.size()))
    invalid_input("pmf: parameter 'p' is not normalised: masses sum to {} (allowed within {:.0e} of 1)",
                  format_number(total), 1e-12 * static_cast<double>(masses.size()));
  std::vector<std::string> l, m;
  for (std::size_t i = 0; i < locations.size(); ++i) {
    atoms_.push_back({locations[i], std::log(masses[static_cast<Eigen::Index>(i)] / total)});
    l.push_back(format_number(locations[i]));
    m.push_back(format_number(masses[static_cast<Eigen::Index>(i)]));
  }
  expression_ = fmt::format("pmf(p=[{}], at=[{}])", fmt::join(m, ", "), fmt::join(l, ", "));
  finish();
}

FiniteLaw FiniteLaw::from_log_masses(std::vector<double> locations, std::vector<double> log_masses, std::string expr) {
  FiniteLaw f;
  f.atoms_.reserve(locations.size());
  for (std::size_t i = 0; i < locations.size(); ++i) f.atoms_.push_back({locations[i], log_masses[i]});
  f.expression_ = std::move(expr);
  const double total = log_sum_exp<double>(log_masses);
  if (!(std::fabs(total) <= 1e-9))
    invalid_input("{}: internal pmf not normalised (log total mass {})", f.expression_,
                  format_number(total));
  f.finish();
  return f;
}

void FiniteLaw::finish() {
  const auto by_location = [](const Atom& a, const Atom& b) { return a.x < b.x; };
  if (!std::is_sorted(atoms_.begin(), atoms_.end(), by_location)) std::sort(atoms_.begin(), atoms_.end(), by_location);
  cumulative_.reserve(atoms_.size());
  for (std::size_t i = 1; i < atoms_.size(); ++i)
    if (atoms_[i].x == atoms_[i - 1].x)
      invalid_input("pmf: location {} appears twice", format_number(atoms_[i].x));
  double acc = 0, m = 0, m2 = 0;
  for (const Atom& a : atoms_) {
    const double w = std::exp(a.log_mass);
    acc += w;
    m += w * a.x;
    m2 += w * a.x * a.x;
    cumulative_.push_back(acc);
  }
  mean_ = m;
  const double var = m2 - m * m;
  scale_ = var > 0 ? std::sqrt(var) : 1.0;
}

double FiniteLaw::log_tail_mass(double x, bool upper) const {
  LogSumAccumulator<double> acc;
  for (const Atom& a : atoms_)
    if ((a.x > x) == upper) acc.add(a.log_mass);
  return acc.value();
}

void FiniteLaw::sample_into(Rng& rng, std::span<double> out) const {
  for (double& v : out) {
    const double u = rng.uniform() * cumulative_.back();
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    v = atoms_[std::min<std::size_t>(static_cast<std::size_t>(it - cumulative_.begin()), atoms_.size() - 1)].x;
  }
}

Eigen::VectorXd FiniteLaw::masses() const {
  Eigen::VectorXd v(static_cast<Eigen::Index>(atoms_.size()));
  for (std::size_t i = 0; i < atoms_.size(); ++i) v[static_cast<Eigen::Index>(i)] = std::exp(atoms_[i].log_mass);
  return v;
}

// ---- The law of the expression language (sim/laws/spec.hpp).

LawSpec pmf_law_spec() {
  using K = ParamKind;
  return {"pmf", "finite law: masses p[i] at locations at[i]",
    {ParamSpec{"p", K::numbers, std::nullopt, "probabilities, non-negative, summing to 1"}.within(Range::probability()).summing_to_one(),
    {"at", K::numbers, "[0, 1, ..., K-1]", "distinct locations"}},
    "pmf(p=[0.2, 0.5, 0.3])",
    [](const Args& a) {
      const std::vector<double> p = a.numbers("p");
      std::vector<double> at;
      if (a.has("at")) at = a.numbers("at");
      else
        for (std::size_t i = 0; i < p.size(); ++i) at.push_back(static_cast<double>(i));
      auto law = std::make_shared<FiniteLaw>(at, Eigen::Map<const Eigen::VectorXd>(p.data(), static_cast<Eigen::Index>(p.size())));
      law->set_exact_source({p, {}, {}, 0});
      return law;
    }};
}
PRIVAMP_LAW(240, pmf_law_spec);

}  // namespace privamp::sim
