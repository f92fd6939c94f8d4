// Evaluates cases: for every grid point and every bound ID of a case, the exact value (with its error bar, from
// the case's engine and an optional cross-check), the bound, and the verdict.
//
// Verdicts (bounds are evaluated in double; a relative slack of 1e-12 separates their rounding from a violation):
//   upper bound b (exact ≤ b):  violated if lower > b; tight if |b/exact − 1| ≤ tolerance; holds if upper ≤ b;
//                               inconclusive otherwise (the error bar straddles b)
//   lower bound b (exact ≥ b):  the mirror image
//   identity b (exact = b):     tight if |b − exact| ≤ error bar + tolerance·|exact|, violated otherwise
//   property:                   violated if any instance violates (through error bars); tight if the largest
//                               lhs/rhs ratio is within the tolerance of 1, holds otherwise
//   not-applicable: a hypothesis fails (the reason is reported); error: a computation failed or engines disagree.
// A Monte Carlo violation is reported as inconclusive unless a deterministic cross-check confirms it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "verify/bounds/catalogue.hpp"
#include "verify/cases/case.hpp"

namespace privamp::verify {

enum class Verdict { tight, holds, inconclusive, violated, not_applicable, error };
std::string to_string(Verdict v);
Verdict parse_verdict(const std::string& s);

struct Row {
  std::string file, case_name, id;
  Params params;
  std::string quantity;           // e.g. "renyi(8)" (property rows: "property")
  std::string mu, nu;             // the law expressions (laws cases)
  Estimate exact;                 // property rows: value = max lhs/rhs, interval = [value, value]
  std::optional<Estimate> cross;  // the cross-check engine's value
  double bound = 0;
  std::string note;               // the bound's choice (optimal w …), or the worst property instance
  Verdict verdict = Verdict::error;
  std::string reason;             // not-applicable reason, error message, or violation detail
  double ratio() const;           // bound / exact (NaN where undefined)
  std::string key() const;        // case name + ID + parameters: identifies the row across runs
};

struct RunOptions {
  std::vector<std::string> only;  // theorem IDs to run (empty: all)
  int jobs = 1;
  std::function<void(std::size_t done, std::size_t total)> progress;
  std::vector<BoundEntry> extra_bounds;  // consulted before the catalogue (test-only entries)
};

// The verdict rules above, for one exact value and one bound.
Verdict decide(Direction direction, const Estimate& exact, double bound, double tolerance, std::string& reason);

std::vector<Row> run_cases(const std::vector<Case>& cases, const RunOptions& options);

}  // namespace privamp::verify
