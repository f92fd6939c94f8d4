// Evaluates cases: for every grid point and every bound ID of a case, the exact value (with its error bar, from
// the case's engine and an optional cross-check), the bound, and the verdict.
//
// Verdicts, decided on the bound's enclosure where it has one (declared bounds: the formula's, its rounding
// included; no slack), otherwise on the double of a C++ bound with a relative slack of 1e-12 for its rounding:
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
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "verify/bounds/catalogue.hpp"
#include "verify/cases/case.hpp"
#include "verify/records/row.hpp"

namespace privamp::verify {


struct RunOptions {
  std::vector<std::string> only;  // theorem IDs to run (empty: all)
  int jobs = 1;
  std::function<void(std::size_t done, std::size_t total)> progress;
  std::vector<BoundEntry> extra_bounds;  // consulted before the catalogue (test-only entries)
  int process = 0, processes = 1;         // runs over several processes: this one computes tasks i % processes == process
};

// The verdict rules above, for one exact value and one bound.
// A bound with an enclosure [bound_lower, bound_upper] decides only when the exact interval is on one side of the
// whole enclosure; without one (NaN) the point `bound` is widened by its rounding (kSlack relative).
Verdict decide(Direction direction, const Estimate& exact, double bound, double tolerance, std::string& reason,
               double bound_lower = std::numeric_limits<double>::quiet_NaN(),
               double bound_upper = std::numeric_limits<double>::quiet_NaN());

std::vector<Row> run_cases(const std::vector<Case>& cases, const RunOptions& options);
// The rows of every task (one point of one case, with the IDs it checks) in task order; over several processes,
// the tasks of the others are left empty.
std::vector<std::vector<Row>> run_tasks(const std::vector<Case>& cases, const RunOptions& options);

// How one point is evaluated (run_cases uses the defaults).
struct PointOptions {
  bool cross_check = true;         // run the case's second route (and an entry's own cross-check)
  bool ignore_hypotheses = false;  // evaluate where a hypothesis fails too (the row says which, in `outside`)
  double rel_tol = 1e-13;          // quadrature target of the divergence engines
};

// The rows of one point (grid and derived parameters) for the given IDs of a case.
std::vector<Row> evaluate_point(const Case& c, const Params& point, const std::vector<std::string>& ids,
                                const PointOptions& options = {}, const std::vector<BoundEntry>& extra = {});

}  // namespace privamp::verify
