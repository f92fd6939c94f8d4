// Search for where a bound is loosest, tightest or false (`privamp explore`).
//
// The search space of a case is its [case.explore] axes (ranges, integer ranges, choices) plus every other grid
// axis with several values (as choices); single-valued grid axes stay fixed. The objective is the bound's slack
// on a log scale, s = log(bound/exact) for an upper bound (log(exact/bound) for a lower bound, |log(bound/exact)|
// for an identity; property rows: −log of the largest lhs/rhs ratio), so s < 0 means the point refutes the bound:
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

#include <cstdint>
#include <functional>
#include <limits>
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

  explicit SearchSpace(const Case& c);
  std::size_t dimension() const { return axes.size(); }
  // u ∈ [0, 1]^d to the grid parameters (without derived ones): log or linear ranges, integers rounded,
  // choices by equal shares of [0, 1].
  Params point(std::span<const double> u) const;
  bool continuous(std::size_t axis) const;  // refined locally (real ranges, integer ranges of 8 values or more)
};

struct Evaluation {
  // bound_underflow: a nonzero bound below the smallest normal double (2.2e-308) has lost its relative precision
  enum class Status { ok, not_applicable, error, exact_zero, bound_infinite, bound_underflow };
  std::vector<double> u;
  Params point;     // grid and derived parameters
  int start = -1;   // -1: the global phase; k: local refinement from the k-th start
  double exact = std::numeric_limits<double>::quiet_NaN(), exact_lower = exact, exact_upper = exact;
  double bound = exact, bound_lower = exact, bound_upper = exact;
  Verdict verdict = Verdict::error;
  Status status = Status::error;
  bool outside = false;  // outside the bound's hypotheses (evaluated with ignore_hypotheses)
  double slack = std::numeric_limits<double>::quiet_NaN();  // NaN unless status is ok
  std::string message;   // error or not-applicable reason (known to the process that evaluated it)
};
std::string to_string(Evaluation::Status s);

struct ExploreOptions {
  Goal goal = Goal::loosest;
  int budget = 200;  // evaluations in all (global + local)
  std::uint64_t seed = 1;
  int jobs = 1;      // threads per process
  bool ignore_hypotheses = false;
  double local_share = 0.3;  // share of the budget for local refinement (when there are continuous axes)
  int starts = 3;            // local refinements, from the best distinct global points
  double search_rel_tol = 1e-9;  // quadrature target while searching (reported points: the engines' default)
  std::function<void(std::size_t done, std::size_t total)> progress;
  const Communicator* communicator = nullptr;  // null: one process
};

struct ExploreResult {
  std::string file, case_name, id;
  Goal goal = Goal::loosest;
  Direction direction = Direction::upper;
  SearchSpace space;
  std::vector<Evaluation> evaluations;  // global phase first, then each start's trajectory
  std::size_t global_points = 0;
  std::vector<Row> best;                 // the best distinct points, re-evaluated in full (rank 0 only)
  std::vector<std::size_t> best_index;   // their indices in `evaluations`
  std::vector<double> influence;         // per axis: share of the objective's variance its main effect explains
  std::vector<double> coverage;          // per axis: share of its 10 bins (or choices) the global phase visited
};

ExploreResult explore(const Case& c, const std::string& id, const ExploreOptions& options);

// The objective minimised for a goal (NaN where the slack is undefined).
double objective(Goal goal, double slack);

}  // namespace privamp::verify
