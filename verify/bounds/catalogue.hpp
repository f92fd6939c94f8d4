// The theorem catalogue: one entry per THEOREMS.md result ID (GT rows are engine checks, in the tests).
// An entry says what it bounds, in which direction, under which hypotheses, and the formula; entries live in
// one file per family (mixing.cpp, couplings.cpp (with T5), diffusions.cpp, subsampling_shuffling.cpp,
// repeated_noise.cpp, properties.cpp) and are listed explicitly in catalogue.cpp.
#pragma once

#include <functional>
#include <map>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "verify/cases/formula.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::sim {
class FiniteKernel;
}

namespace privamp::verify {

// upper: exact ≤ bound; lower: exact ≥ bound; equal: an identity (a closed form to confirm).
enum class Direction { upper, lower, equal };
std::string to_string(Direction d);

struct BoundValue {
  double value;
  std::string note;  // what the suite chose where the statement leaves a choice (e.g. the optimal w of E2)
  // An interval containing the bound, where the formula itself uses computed divergences (declared bounds);
  // NaN: the bound is the value (rounded in double).
  double lower = std::numeric_limits<double>::quiet_NaN(), upper = std::numeric_limits<double>::quiet_NaN();
};

// A property checked on random instances (DIV.*, MIX.*, T2): each instance compares a left-hand side with a
// right-hand side through error bars.
struct PropertyResult {
  long instances = 0;
  long violations = 0;        // lower(lhs) > upper(rhs)
  double max_ratio = 0;       // largest lhs/rhs seen (1 means the inequality is attained)
  std::string worst;          // the instance with the largest ratio, reproducibly described
};

// One result of the catalogue. The closed forms are [[bound]] tables (verify/bounds/catalogue.toml, and a user's
// files); C++ entries are written with designated initialisers, naming only what they use:
//   out.push_back({.id = "E2", .family = "couplings", .source = ..., .statement = ..., .quantity = "renyi(alpha)",
//                  .not_applicable = applies, .bound = iterated_laplace});
struct BoundEntry {
  std::string id = {};
  std::string family = {};     // the case file that exercises it
  std::string source = {};     // document and theorem number
  std::string statement = {};  // one line
  std::string quantity = {};   // what is bounded, e.g. "renyi(alpha)"
  Direction direction = Direction::upper;
  // Why the hypotheses fail at these parameters, or nullopt when the bound applies.
  std::function<std::optional<std::string>(const Params&)> not_applicable = {};
  std::function<BoundValue(const Params&)> bound = {};
  // Kernel cases: the ε' at which the exact amplified δ' is taken (T1.3/T1.4 move it); unset: the case's order.
  std::function<double(const Params&)> order = {};
  // Property entries: the check itself (bound and order unset).
  std::function<PropertyResult(const Params&)> property = {};
  // Value entries (MSE.*, T8.*): the exact value of a quantity that is not a divergence, by a derivation
  // independent of the statement's formula (value cases call it instead of a divergence engine).
  std::function<Estimate(const Params&)> exact = {};
  // Value entries: a second, independent route to the same exact value (Monte Carlo over simulated processes, a
  // second quadrature, another enumeration); the runner reports an error row where the two intervals are disjoint.
  std::function<Estimate(const Params&)> cross = {};
  // Bounds declared as [[bound]] tables: the case quantity they bound (renyi, hockey_stick, kl, tv, renyi_inf;
  // checked against every case that lists them; empty for value bounds), the formula, and the user's file that
  // declares them (empty for the catalogue's own tables).
  std::string case_quantity = {};
  std::string formula = {};
  std::string declared_in = {};
  int declared_line = 0;
};

// The bounds declared by the files of one load ([[bound]] tables), a value: nothing is registered globally, so two
// loads (two files verified one after the other, two Python calls, two threads) never see each other's bounds.
using DeclaredBounds = std::vector<BoundEntry>;

const std::vector<BoundEntry>& bound_catalogue();

// Exact values that are not divergences (value cases), by name, for [[bound]] tables: `exact = "mse_ratio"` makes a
// bound table a value entry with this exact value and second route (verify/bounds/catalogue.toml uses them; a user's
// bound may too).
struct ExactRoute {
  std::string quantity;  // what it computes, e.g. "E_OU/E_GM"
  std::function<Estimate(const Params&)> exact, cross;
};
const std::map<std::string, ExactRoute>& exact_routes();
void add_diffusion_routes(std::map<std::string, ExactRoute>& out);
void add_shuffling_routes(std::map<std::string, ExactRoute>& out);

// Theorem 1's four (ε', δ') guarantees for a kernel composed with an (ε, δ)-DP mechanism, from the catalogue's own
// T1.* entries (the kernel's best mixing constants as their parameters).
struct Theorem1Point {
  std::string id, statement;
  double eps_prime = 0, delta_prime = 0;
};
std::vector<Theorem1Point> theorem1_points(const sim::FiniteKernel& kernel, double eps, double delta);

// The common hypothesis "parameter > 0", reported as "needs NAME > 0".
std::function<std::optional<std::string>(const Params&)> requires_positive(std::string name);
// A built-in entry by ID; InvalidArgument listing the IDs on failure.
const BoundEntry& find_bound(const std::string& id);
// A bound declared in `declared` or else built in; InvalidArgument listing both on failure.
const BoundEntry& find_bound(const std::string& id, const DeclaredBounds& declared);
// "file:line" of a declared bound ("built in" for the catalogue's).
std::string declared_at(const BoundEntry& e);

// Family registration (one function per family file).
void add_coupling_bounds(std::vector<BoundEntry>& out);
void add_diffusion_bounds(std::vector<BoundEntry>& out);
void add_subsampling_shuffling_bounds(std::vector<BoundEntry>& out);
void add_repeated_noise_bounds(std::vector<BoundEntry>& out);
void add_property_bounds(std::vector<BoundEntry>& out);

}  // namespace privamp::verify
