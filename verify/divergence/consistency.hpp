// Orderings every value between one pair of laws must respect, checked on the intervals: a violation is certain
// only when the intervals prove it (the lower end of the value that must be smaller exceeds the upper end of the
// other), and is then an error naming both values, never a silent pass.
//   R_α non-decreasing in α (including R_∞ ≥ R_α), KL ≤ R_α for α > 1,
//   HS_ε non-increasing in ε, TV ≥ HS_ε for ε ≥ 0.
// Monte Carlo intervals (confidence, not certainty) and values without an interval are not compared.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

// For each estimate, the first ordering it violates (naming both values), or nullopt.
std::vector<std::optional<std::string>> ordering_violations(std::span<const Quantity> quantities,
                                                            std::span<const Estimate> estimates);

}  // namespace privamp::verify
