#include "verify/records/row.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp::verify {

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::tight: return "tight";
    case Verdict::holds: return "holds";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::violated: return "violated";
    case Verdict::not_applicable: return "not-applicable";
    case Verdict::error: return "error";
  }
  return "?";
}

Verdict parse_verdict(const std::string& s) {
  for (Verdict v : {Verdict::tight, Verdict::holds, Verdict::inconclusive, Verdict::violated, Verdict::not_applicable,
                    Verdict::error})
    if (to_string(v) == s) return v;
  invalid_input("unknown verdict '{}'", s);
}

double Row::ratio() const {
  // Only where the verdict compared the two: a not-applicable or failed row has no ratio (a data frame's min() over
  // the column must not pick up the numbers of a bound whose hypotheses fail).
  if (verdict == Verdict::not_applicable || verdict == Verdict::error) return std::nan("");
  // A ratio of divergences compares non-negative numbers: a negative double has no ratio, rather than a negative one
  // ranked "tightest"; nor has a bound whose enclosure reaches from 0 to a positive number (a formula's cancellation:
  // its double is any number in there, 0 or 1.3 times the exact value alike).
  if (bound < 0 || exact.value < 0) return std::nan("");
  if (bound_lower <= 0 && bound_upper > 0) return std::nan("");  // (NaN ends: no enclosure, the double as it is)
  // A value below the smallest normal double (2.2e-308) has lost its relative precision: no ratio.
  const auto tiny = [](double x) { return x != 0 && std::abs(x) < std::numeric_limits<double>::min(); };
  if (tiny(exact.value) || tiny(bound)) return std::nan("");
  // 0 against 0 is a ratio of 1 only where the exact value is 0, not below the double range (a finite log).
  if (exact.value == 0) return bound == 0 && exact.log_value() == -std::numeric_limits<double>::infinity() ? 1.0 : std::nan("");
  return bound / exact.value;
}

double Row::looseness() const {
  const double q = ratio();
  return direction == Direction::lower ? 1 / q : q;  // (a ratio of 0, a bound of 0 under a positive value: infinitely loose)
}

std::string row_key(const std::string& case_name, const std::string& id, const Params& params) {
  return fmt::format("{} | {} | {}", case_name, id, params.describe());
}
std::string Row::key() const { return row_key(case_name, id, params); }

}  // namespace privamp::verify
