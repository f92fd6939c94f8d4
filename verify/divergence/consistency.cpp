#include "verify/divergence/consistency.hpp"

#include <cmath>

#include <fmt/format.h>

namespace privamp::verify {

namespace {

constexpr double kSlack = 1e-12;  // relative: rounding of the interval ends themselves

bool comparable(const Estimate& e) {
  return e.error_kind != ErrorKind::statistical && !std::isnan(e.lower) && !std::isnan(e.upper);
}

// Does the pair prove small > large? Log ends decide below the double range.
bool proven_greater(const Estimate& small, const Estimate& large) {
  if (std::isfinite(small.log_lower) && std::isfinite(large.log_upper) && small.lower == 0 && large.upper == 0)
    return small.log_lower > large.log_upper + kSlack * std::fabs(large.log_upper);
  return small.lower > large.upper * (1 + kSlack) + 1e-300;
}

// The order the theory imposes: −1 if a ≤ b must hold, +1 if a ≥ b, 0 if none.
int required(const Quantity& a, const Quantity& b) {
  using K = Quantity::Kind;
  auto renyi_like = [](const Quantity& q) { return q.kind == K::renyi || q.kind == K::renyi_inf || q.kind == K::kl; };
  auto order = [](const Quantity& q) {
    return q.kind == K::kl ? 1.0 : q.kind == K::renyi_inf ? INFINITY : q.parameter;
  };
  if (renyi_like(a) && renyi_like(b)) {
    if (order(a) < order(b)) return -1;
    if (order(a) > order(b)) return 1;
    return 0;
  }
  auto hs_like = [](const Quantity& q) { return q.kind == K::hockey_stick || q.kind == K::tv; };
  auto level = [](const Quantity& q) { return q.kind == K::tv ? 0.0 : q.parameter; };
  if (hs_like(a) && hs_like(b)) {
    if (level(a) < level(b)) return 1;  // HS_ε decreases in ε; TV = HS_0
    if (level(a) > level(b)) return -1;
  }
  return 0;
}

std::string show(const Quantity& q, const Estimate& e) {
  if (e.upper == 0 && std::isfinite(e.log_upper))
    return fmt::format("{} in [exp({:.10g}), exp({:.10g})]", q.label(), e.log_lower, e.log_upper);
  return fmt::format("{} in [{:.12g}, {:.12g}]", q.label(), e.lower, e.upper);
}

}  // namespace

std::vector<std::optional<std::string>> ordering_violations(std::span<const Quantity> quantities,
                                                            std::span<const Estimate> estimates) {
  std::vector<std::optional<std::string>> out(estimates.size());
  for (std::size_t i = 0; i < estimates.size(); ++i)
    for (std::size_t j = i + 1; j < estimates.size(); ++j) {
      if (!comparable(estimates[i]) || !comparable(estimates[j])) continue;
      const int r = required(quantities[i], quantities[j]);
      if (r == 0) continue;
      const std::size_t small = r < 0 ? i : j, large = r < 0 ? j : i;
      if (!proven_greater(estimates[small], estimates[large])) continue;
      const std::string why = fmt::format("inconsistent values: {} exceeds {}, which must be at least as large",
                                          show(quantities[small], estimates[small]), show(quantities[large], estimates[large]));
      if (!out[i]) out[i] = why;
      if (!out[j]) out[j] = why;
    }
  return out;
}

}  // namespace privamp::verify
