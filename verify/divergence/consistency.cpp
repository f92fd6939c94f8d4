#include "numerics/constants.hpp"
#include "verify/divergence/consistency.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace privamp::verify {

namespace {


bool comparable(const Estimate& e) {
  return e.error_kind != ErrorKind::statistical && !std::isnan(e.lower) && !std::isnan(e.upper);
}

// Does the pair prove small > large? Log ends decide below the double range.
bool proven_greater(const Estimate& small, const Estimate& large) {
  if (std::isfinite(small.log_lower()) && std::isfinite(large.log_upper()) && small.lower == 0 && large.upper == 0)
    return small.log_lower() > large.log_upper() + kSlack * std::fabs(large.log_upper());
  return small.lower > large.upper * (1 + kSlack) + 1e-300;
}

std::string show(const Quantity& q, const Estimate& e) {
  if (e.upper == 0 && std::isfinite(e.log_upper()))
    return fmt::format("{} in [exp({:.10g}), exp({:.10g})]", q.label(), e.log_lower(), e.log_upper());
  return fmt::format("{} in [{:.12g}, {:.12g}]", q.label(), e.lower, e.upper);
}

}  // namespace

// The orderings form two chains: Rényi-like values non-decreasing in the order (KL at 1, R_∞ at +∞), hockey-stick
// values non-increasing in the level (TV at 0). On a chain sorted by its key, a value is in a proven violation iff
// the largest lower end among strictly smaller keys exceeds its upper end, or its lower end exceeds the smallest
// upper end among strictly larger keys — prefix maxima and suffix minima, O(n log n) instead of all pairs. The
// "largest lower end" orders by (lower, log_lower), which decides proven_greater for every candidate at once (the
// log ends only matter where the plain ends are 0).
std::vector<std::optional<std::string>> ordering_violations(std::span<const Quantity> quantities,
                                                            std::span<const Estimate> estimates) {
  using K = Quantity::Kind;
  std::vector<std::optional<std::string>> out(estimates.size());
  auto key = [&](std::size_t i) -> std::optional<double> {
    const Quantity& q = quantities[i];
    switch (q.kind) {
      case K::kl: return 1.0;
      case K::renyi: return q.parameter;
      case K::renyi_inf: return INFINITY;
      case K::hockey_stick: return -q.parameter;  // a larger level must give a value at most as large
      case K::tv: return -0.0;
    }
    return std::nullopt;
  };
  auto chain_of = [&](std::size_t i) { return quantities[i].kind == K::hockey_stick || quantities[i].kind == K::tv; };
  auto higher_lower = [&](std::size_t a, std::size_t b) {  // a's lower end above b's, by value then log
    const Estimate &x = estimates[a], &y = estimates[b];
    return x.lower != y.lower ? x.lower > y.lower : x.log_lower() > y.log_lower();
  };
  auto lower_upper = [&](std::size_t a, std::size_t b) {
    const Estimate &x = estimates[a], &y = estimates[b];
    return x.upper != y.upper ? x.upper < y.upper : x.log_upper() < y.log_upper();
  };
  auto report = [&](std::size_t small, std::size_t large, std::size_t at) {
    if (out[at]) return;
    out[at] = fmt::format("inconsistent values: {} exceeds {}, which must be at least as large",
                          show(quantities[small], estimates[small]), show(quantities[large], estimates[large]));
  };
  for (bool hockey : {false, true}) {
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < estimates.size(); ++i)
      if (chain_of(i) == hockey && comparable(estimates[i])) idx.push_back(i);
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return *key(a) < *key(b); });
    const std::size_t n = idx.size();
    // best_small[g]: the largest lower end over the keys before position g's group; best_large: the smallest upper
    // end over the keys after it.
    std::vector<std::optional<std::size_t>> best_small(n), best_large(n);
    std::optional<std::size_t> running;
    for (std::size_t g = 0; g < n;) {
      std::size_t h = g;
      while (h < n && *key(idx[h]) == *key(idx[g])) ++h;
      for (std::size_t k = g; k < h; ++k) best_small[k] = running;
      for (std::size_t k = g; k < h; ++k)
        if (!running || higher_lower(idx[k], *running)) running = idx[k];
      g = h;
    }
    running.reset();
    for (std::size_t g = n; g > 0;) {
      std::size_t h = g;
      while (h > 0 && *key(idx[h - 1]) == *key(idx[g - 1])) --h;
      for (std::size_t k = h; k < g; ++k) best_large[k] = running;
      for (std::size_t k = h; k < g; ++k)
        if (!running || lower_upper(idx[k], *running)) running = idx[k];
      g = h;
    }
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = idx[k];
      if (best_small[k] && proven_greater(estimates[*best_small[k]], estimates[i])) report(*best_small[k], i, i);
      if (best_large[k] && proven_greater(estimates[i], estimates[*best_large[k]])) report(i, *best_large[k], i);
    }
  }
  return out;
}

}  // namespace privamp::verify
