#include "sim/laws/finite.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/log_space.hpp"
#include "numerics/special.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

FiniteLaw::FiniteLaw(std::vector<double> locations, const Eigen::VectorXd& masses) {
  if (locations.size() != static_cast<std::size_t>(masses.size()))
    throw InvalidArgument(fmt::format("pmf: {} locations for {} masses", locations.size(), masses.size()));
  if (locations.empty()) throw InvalidArgument("pmf: parameter 'p' must list at least one mass");
  double total = 0;
  for (Eigen::Index i = 0; i < masses.size(); ++i) {
    check_probability("pmf", "p", masses[i]);
    check_finite("pmf", "at", locations[static_cast<std::size_t>(i)]);
    total += masses[i];
  }
  if (std::fabs(total - 1) > 1e-9)
    throw InvalidArgument(fmt::format("pmf: parameter 'p' is not normalised: masses sum to {}", format_number(total)));
  std::vector<std::string> l, m;
  for (std::size_t i = 0; i < locations.size(); ++i) {
    atoms_.push_back({locations[i], std::log(masses[static_cast<Eigen::Index>(i)])});
    l.push_back(format_number(locations[i]));
    m.push_back(format_number(masses[static_cast<Eigen::Index>(i)]));
  }
  expression_ = fmt::format("pmf(p=[{}], at=[{}])", fmt::join(m, ", "), fmt::join(l, ", "));
  finish();
}

FiniteLaw FiniteLaw::from_log_masses(std::vector<double> locations, std::vector<double> log_masses, std::string expr) {
  FiniteLaw f;
  for (std::size_t i = 0; i < locations.size(); ++i) f.atoms_.push_back({locations[i], log_masses[i]});
  f.expression_ = std::move(expr);
  std::vector<double> lm = log_masses;
  const double total = log_sum_exp<double>(lm);
  if (!(std::fabs(total) <= 1e-9))
    throw InvalidArgument(fmt::format("{}: internal pmf not normalised (log total mass {})", f.expression_,
                                      format_number(total)));
  f.finish();
  return f;
}

void FiniteLaw::finish() {
  std::sort(atoms_.begin(), atoms_.end(), [](const Atom& a, const Atom& b) { return a.x < b.x; });
  for (std::size_t i = 1; i < atoms_.size(); ++i)
    if (atoms_[i].x == atoms_[i - 1].x)
      throw InvalidArgument(fmt::format("pmf: location {} appears twice", format_number(atoms_[i].x)));
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

double FiniteLaw::log_cdf(double x) const {
  LogSumAccumulator<double> acc;
  for (const Atom& a : atoms_) {
    if (a.x > x) break;
    acc.add(a.log_mass);
  }
  return acc.value();
}

double FiniteLaw::log_sf(double x) const {
  LogSumAccumulator<double> acc;
  for (const Atom& a : atoms_)
    if (a.x > x) acc.add(a.log_mass);
  return acc.value();
}

double FiniteLaw::sample(Rng& rng) const {
  const double u = rng.uniform() * cumulative_.back();
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
  return atoms_[std::min<std::size_t>(static_cast<std::size_t>(it - cumulative_.begin()), atoms_.size() - 1)].x;
}

Eigen::VectorXd FiniteLaw::masses() const {
  Eigen::VectorXd v(static_cast<Eigen::Index>(atoms_.size()));
  for (std::size_t i = 0; i < atoms_.size(); ++i) v[static_cast<Eigen::Index>(i)] = std::exp(atoms_[i].log_mass);
  return v;
}

FiniteLaw shuffled_rr_counts(long n, double eps0, long ones, int first) {
  const char* where = "shuffled_rr";
  if (n < 1 || n > 100'000'000) throw_invalid(where, "n", static_cast<double>(n), "1 <= n <= 1e8");
  check_nonnegative_finite(where, "eps0", eps0);
  if (ones < 0 || ones > n - 1) throw_invalid(where, "ones", static_cast<double>(ones), "0 <= ones <= n-1");
  if (first != 0 && first != 1) throw_invalid(where, "first", first, "0 or 1");
  // p = e^{ε0}/(1+e^{ε0}) and q = 1/(1+e^{ε0}), both exact in log-space.
  const double log_p = -std::log1p(std::exp(-eps0)), log_q = -std::log1p(std::exp(eps0));
  const double p = std::exp(log_p), q = std::exp(log_q);
  const long zeros = n - 1 - ones;
  // Bin(ones, p) + Bin(zeros, q): convolve over the smaller of the two.
  const bool small_is_ones = ones <= zeros;
  const long small = small_is_ones ? ones : zeros, large = small_is_ones ? zeros : ones;
  const double ps = small_is_ones ? p : q, qs = small_is_ones ? q : p;  // success prob of the small binomial
  const double pl = small_is_ones ? q : p, ql = small_is_ones ? p : q;
  std::vector<double> log_small(static_cast<std::size_t>(small + 1)), log_large(static_cast<std::size_t>(large + 1));
  for (long j = 0; j <= small; ++j) log_small[static_cast<std::size_t>(j)] = log_binomial_pmf(j, small, ps, qs);
  for (long j = 0; j <= large; ++j) log_large[static_cast<std::size_t>(j)] = log_binomial_pmf(j, large, pl, ql);
  std::vector<double> others(static_cast<std::size_t>(n));  // support 0..n−1
  for (long k = 0; k < n; ++k) {
    LogSumAccumulator<double> acc;
    for (long j = std::max(0L, k - large); j <= std::min(small, k); ++j)
      acc.add(log_small[static_cast<std::size_t>(j)] + log_large[static_cast<std::size_t>(k - j)]);
    others[static_cast<std::size_t>(k)] = acc.value();
  }
  const double log_r1 = first ? log_p : log_q, log_r0 = first ? log_q : log_p;  // P(first reports 1), P(reports 0)
  std::vector<double> locations(static_cast<std::size_t>(n + 1)), log_mass(static_cast<std::size_t>(n + 1));
  for (long k = 0; k <= n; ++k) {
    const double stay = k < n ? log_r0 + others[static_cast<std::size_t>(k)] : neg_inf<double>();
    const double move = k > 0 ? log_r1 + others[static_cast<std::size_t>(k - 1)] : neg_inf<double>();
    locations[static_cast<std::size_t>(k)] = static_cast<double>(k);
    log_mass[static_cast<std::size_t>(k)] = log_add(stay, move);
  }
  return FiniteLaw::from_log_masses(
      std::move(locations), std::move(log_mass),
      fmt::format("shuffled_rr(n={}, eps0={}, ones={}, first={})", n, format_number(eps0), ones, first));
}

}  // namespace privamp::sim
