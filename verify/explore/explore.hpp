// Search for where a bound is loosest, tightest or false (`privamp explore`).
//
// The search space of a case is its [case.explore] axes (ranges, integer ranges, choices) plus every other grid
// axis with several values (as choices); single-valued grid axes stay fixed. The objective is the bound's slack
// on a log scale, s = log(bound/exact) for an upper bound (log(exact/bound) for a lower bound; for an identity, minus
// the log-distance between the exact interval and the bound's enclosure, their overlap where they meet; property
// rows: −log of the largest lhs/rhs ratio), so s < 0 means the point refutes the bound:
//   loosest:   maximise s
//   tightest:  minimise |s| (towards bound = exact)
//   violation: minimise s (the most refuting point)
// A point where the exact value is 0, the bound infinite, or the bound below the smallest normal double (its
// digits lost) has no slack: it is counted and reported as such, and
// the optimiser sees a barrier, never a number. Points outside the bound's hypotheses are not candidates unless
// ignore_hypotheses is set.
//
// Method: a global phase over Sobol points (GSL's generator, shifted by a seeded random vector: a
// Cranley–Patterson rotation) followed by local refinement with BOBYQA (NLopt) from the best distinct points over
// the continuous axes. The searched values use looser quadrature and no second route; the reported points are
// re-evaluated with the case's full options (tight quadrature, the cross-check engine), and a violation is
// reported only when the re-evaluated interval lies entirely on the wrong side.
//
// Determinism: every evaluation is a pure function of its point; the global phase is index-addressed and the local
// starts are independent, so results are identical whatever the number of threads or processes.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "verify/cases/case.hpp"
#include "verify/runner/communicator.hpp"
#include "verify/runner/runner.hpp"

namespace privamp::verify {

enum class Goal { loosest, tightest, violation };
Goal parse_goal(const std::string& s);  // InvalidArgument naming the allowed goals
std::string to_string(Goal goal);

struct SearchSpace {
  std::vector<ExploreAxis> axes;
  Params fixed;  // single-valued grid parameters

  SearchSpace() = default;
  explicit SearchSpace(const Case& c);
  std::size_t dimension() const { return axes.size(); }
  // u ∈ [0, 1]^d to the grid parameters (without derived ones): log or linear ranges, integers rounded,
  // choices by equal shares of [0, 1].
  Params point(std::span<const double> u) const;
  bool continuous(std::size_t axis) const;  // refined locally (real ranges, integer ranges of 8 values or more)
  // Two points of [0, 1]^d are distinct when a real axis differs by at least `share` of its range (of its log's on
  // a log axis) or a choice or an integer differs.
  bool distinct(std::span<const double> a, std::span<const double> b, double share = 0.01) const;
};

struct Evaluation {
  // exact_underflow, bound_underflow: a nonzero value below the smallest normal double (2.2e-308) has lost its
  // relative precision: no ratio (as in verify's reports)
  // exact_bounded_above: the exact value is known only from above ([0, u], no point: shown_value): no ratio, and not
  // a zero (it was counted "exact-zero, infinitely loose" where the truth, 4.6e-6, violated a bound of 1e-12).
  enum class Status { ok, not_applicable, error, exact_zero, exact_underflow, bound_infinite, bound_underflow, exact_bounded_above };
  std::vector<double> u;
  Params point;     // the row's parameters (grid and derived), and a kernel case's mixing constants
  int start = -1;   // -1: the global phase; k: local refinement from the k-th start
  Row row;          // what verify's evaluation of the point gave; an error row (with the reason) if it failed
  Status status = Status::error;
  double slack = std::numeric_limits<double>::quiet_NaN();  // NaN unless status is ok
  bool in_region = true;   // every `where` condition holds (only points with a slack are tested)
  std::string degenerate;  // the `degenerate` condition that holds here (empty: none)

  // Readings of the row: its numbers where it has them (NaN on an error row); the bound's interval (the bound itself
  // where it has none); whether a hypothesis was ignored (outside the bound's hypotheses, evaluated with
  // ignore_hypotheses); the message of an error or not-applicable point.
  bool has_numbers() const { return row.verdict != Verdict::error; }
  double exact() const { return has_numbers() ? row.exact.value : kNoValue; }
  double exact_lower() const { return has_numbers() ? row.exact.lower : kNoValue; }
  double exact_upper() const { return has_numbers() ? row.exact.upper : kNoValue; }
  double bound() const { return has_numbers() ? row.bound : kNoValue; }
  double bound_lower() const { return has_numbers() ? (std::isnan(row.bound_lower) ? row.bound : row.bound_lower) : kNoValue; }
  double bound_upper() const { return has_numbers() ? (std::isnan(row.bound_upper) ? row.bound : row.bound_upper) : kNoValue; }
  bool outside() const { return has_numbers() && !row.outside.empty(); }
  Verdict verdict() const { return row.verdict; }
  std::string message() const { return status == Status::error || status == Status::not_applicable ? row.reason : std::string(); }
  static constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
};
std::string to_string(Evaluation::Status s);
// A point a search may answer with: a slack, inside the region and the hypotheses (unless they are ignored), not
// degenerate (with `degenerate`: the same, but degenerate). One rule for the search, its reports and its figures.
bool is_candidate(const Evaluation& e, bool ignore_hypotheses, bool degenerate = false);

struct ExploreOptions {
  Goal goal = Goal::loosest;
  int budget = 200;  // evaluations in all (global + local)
  double max_seconds = 0;  // > 0: the search stops at this wall-clock time (the best points are then re-evaluated)
  std::uint64_t seed = 1;
  int jobs = 1;      // threads per process
  bool ignore_hypotheses = false;
  double local_share = 0.3;  // share of the budget for local refinement (when there are continuous axes)
  int starts = 3;            // local refinements, from the best distinct global points
  double search_rel_tol = 1e-9;  // quadrature target while searching (reported points: the engines' default)
  std::function<void(std::size_t done, std::size_t total)> progress;
  const Communicator* communicator = nullptr;  // null: one process
  std::vector<std::string> where;  // conditions added to the case's [case.explore] where
};

struct ExploreResult {
  std::string file = {}, case_name = {}, id = {};
  Goal goal = Goal::loosest;
  Direction direction = Direction::upper;
  SearchSpace space = {};
  std::vector<Evaluation> evaluations = {};  // global phase first, then each start's trajectory
  std::size_t global_points = 0;
  std::vector<Row> best = {};                // the best distinct points, re-evaluated in full (rank 0 only)
  std::vector<std::size_t> best_index = {};  // their indices in `evaluations`
  // The best degenerate point when it beats the best one (a trivially tight bound where nothing is amplified),
  // re-evaluated in full: reported as such, never as the answer.
  std::optional<std::size_t> degenerate_index = {};
  std::optional<Row> degenerate = {};
  std::vector<std::string> where = {};       // the conditions in force (the case's and the options')
  std::vector<double> influence = {};        // per axis: share of the log ratio's variance its main effect explains (global phase)
  std::vector<double> coverage = {};         // per axis: share of its 10 bins (or choices) the global phase visited
  std::string stopped = {};  // non-empty when --max-seconds ended the search early: what was done by then
  // Better points whose full re-evaluation was an error (an engine's refusal the search's options did not meet):
  // passed over for the next distinct candidates (at most 2 x --starts of them), counted with the first reason.
  std::size_t passed_over = 0;
  std::string passed_over_reason = {};
};

ExploreResult explore(const Case& c, const std::string& id, const ExploreOptions& options);
// What explore (or frontier, for a non-empty `frontier`) would refuse before searching, refused now (InvalidArgument):
// the command line checks it before it makes its output folder.
void check_explore(const Case& c, const std::string& id, const ExploreOptions& options, const std::string& frontier = "");

// The frontier of a bound along one quantity: the best ratio (for the goal) as a function of a parameter or
// derived quantity `name` (a kernel case's gamma_doeblin, say). The global phase's points are binned by `name`
// (equal widths over the axis's range, or over the values seen for a derived quantity; log widths where they span
// two decades or more); each bin is searched on its own (local refinement from its best points, with the bin as a
// constraint) and its best point re-evaluated in full. Degenerate points are kept apart in each bin.
struct FrontierBin {
  double lower = 0, upper = 0;  // [lower, upper) (the last bin includes its upper end)
  std::size_t candidates = 0;   // candidate points in the bin (global and local)
  std::optional<std::size_t> best_index, degenerate_index;
  std::optional<Row> best, degenerate;  // re-evaluated in full (rank 0 only)
  std::size_t refined = 0;       // evaluations of the bin's own local refinement
  std::string not_refined;       // why it had none (empty when it had some)
};
struct FrontierResult {
  std::string name;
  bool log = false;
  ExploreResult search;  // every evaluation, the axes' statistics; best: the bins' best points
  std::vector<FrontierBin> bins;
};
FrontierResult frontier(const Case& c, const std::string& id, const ExploreOptions& options, const std::string& name,
                        int bins);

// The objective minimised for a goal (NaN where the slack is undefined).
double objective(Goal goal, double slack);

}  // namespace privamp::verify
