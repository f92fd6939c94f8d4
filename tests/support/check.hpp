// Test helpers: one relative comparison that goes absolute near zero and is exact for infinities, and a check
// that an engine's interval contains a reference value.
#pragma once

#include <cmath>
#include <functional>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::test {

inline bool near_rel(double a, double b, double rel, double abs_floor = 0) {
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= std::max(rel * std::max(std::fabs(a), std::fabs(b)), abs_floor);
}

// The interval of `e` contains `truth`, in value space or (for underflowing values) in log space.
inline bool covers(const verify::Estimate& e, double truth, double log_truth) {
  if (std::isinf(truth)) return std::isinf(e.value);
  if (e.value == 0 && e.log_value() == -std::numeric_limits<double>::infinity()) return truth == 0;
  if (truth > 1e-300 || truth == 0) return e.lower <= truth && truth <= e.upper;
  return e.log_lower() <= log_truth && log_truth <= e.log_upper();
}

inline std::string describe(const verify::Estimate& e) {
  return fmt::format("{}: {:.17g} in [{:.17g}, {:.17g}], log {:.17g} in [{:.17g}, {:.17g}]", e.method, e.value, e.lower,
                     e.upper, e.log_value(), e.log_lower(), e.log_upper());
}

// The message of the InvalidArgument that f throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace privamp::test
