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

namespace privamp::verify {

enum class Verdict { tight, holds, inconclusive, violated, not_applicable, error };
std::string to_string(Verdict v);
Verdict parse_verdict(const std::string& s);

struct Row {
  std::string file, case_name, id;
  Params params;
  std::optional<Quantity> divergence;  // laws and kernel rows: the divergence computed, with its order
  std::string what;               // otherwise what is bounded: a value entry's quantity ("E_OU/E_GM"), "property"
  double order = std::numeric_limits<double>::quiet_NaN();  // its alpha or eps (NaN: the quantity has none)
  std::string mu, nu;             // the law expressions (laws cases)
  Estimate exact;                 // property rows: value = max lhs/rhs, interval = [value, value]
  std::optional<Estimate> cross;  // the cross-check engine's value
  double bound = 0;
  double bound_lower = std::numeric_limits<double>::quiet_NaN();  // the bound's enclosure, where it has one
  double bound_upper = std::numeric_limits<double>::quiet_NaN();  // (declared bounds); NaN: a C++ bound's double
  std::string note;               // the bound's choice (optimal w …), or the worst property instance
  Verdict verdict = Verdict::error;
  std::string reason;             // not-applicable reason, error message, or violation detail
  std::string outside;            // evaluated with ignore_hypotheses where this hypothesis fails
  double ratio() const;           // bound / exact (NaN where undefined, and on not-applicable and error rows)
  std::string quantity() const { return divergence ? divergence->label() : what; }  // its label, as reports write it
  bool is_property() const { return !divergence && what == kPropertyLabel; }
  static constexpr const char* kPropertyLabel = "property";
  std::string key() const;        // case name + ID + parameters: identifies the row across runs
};

// A row's key: case name + ID + parameters (Row::key, and a golden row's check of its own key).
std::string row_key(const std::string& case_name, const std::string& id, const Params& params);

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
