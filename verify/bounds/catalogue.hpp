// The theorem catalogue: one entry per THEOREMS.md result ID (GT rows are engine checks, in the tests).
// An entry says what it bounds, in which direction, under which hypotheses, which parameters it reads, and the
// formula. The closed forms are [[bound]] tables in catalogue.toml; the entries that need an algorithm live in one
// file per family (couplings.cpp with T5, diffusions.cpp, subsampling_shuffling.cpp, repeated_noise.cpp,
// properties.cpp; mixing.cpp holds Theorem 1's helpers) and are listed explicitly in catalogue.cpp.
#pragma once

#include <functional>
#include <map>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "verify/bounds/parameters.hpp"
#include "verify/input/formula.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::sim {
class FiniteKernel;
}

namespace privamp::verify {

// The source paper, as the catalogue's rows cite it ("Privacy amplification by mixing and diffusion mechanisms",
// NeurIPS 2019).
inline const std::string kPaper = "Balle, Barthe, Gaboardi, Geumlek 2019";

// upper: exact ≤ bound; lower: exact ≥ bound; identity: exact = bound (a closed form to confirm). The names are
// those of a [[bound]] table's `direction` key.
enum class Direction { upper, lower, identity };
std::string to_string(Direction d);

struct BoundValue {
  double value;
  std::string note;  // what the suite chose where the statement leaves a choice (e.g. the optimal w of E2)
  // An interval containing the bound's exact value at the point, on which the verdict is decided: a declared bound's
  // formula's enclosure (every operation's rounding and every divergence's interval inside). NaN: a bound computed
  // in double by a C++ algorithm, whose rounding the verdict allows for with a relative kSlack.
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

// What an entry checks, one of three kinds:
//   DivergenceCheck: its bound against the divergence of a laws or kernel case (the case computes the exact value);
//   ValueCheck: a quantity that is not a divergence of the case (MSE.*, T8.*, SHUF.cor), with the entry's own exact
//     value and an independent second route (value cases call them instead of a divergence engine); T5 and T6 also
//     bound the divergence of a laws case (`divergence`);
//   PropertyCheck: an inequality on random instances (DIV.*, MIX.*, T2), checked by property cases.
struct DivergenceCheck {
  Quantity::Kind quantity = Quantity::Kind::renyi;  // the case quantity it bounds (checked against every case)
  // Kernel cases: the eps' at which the exact amplified delta' is taken (T1.3/T1.4 move it); unset: the case's order.
  std::function<double(const Params&)> order = {};
};
struct ValueCheck {
  std::function<Estimate(const Params&)> exact = {};
  std::function<Estimate(const Params&)> cross = {};  // the runner reports an error where the two are disjoint
  std::optional<Quantity::Kind> divergence = {};     // also a bound on this divergence of a laws case
  std::vector<Parameter> parameters = {};            // what the two routes read (checked in value cases)
};
struct PropertyCheck {
  std::function<PropertyResult(const Params&)> check = {};
};

// One result of the catalogue. The closed forms are [[bound]] tables (verify/bounds/catalogue.toml, and a user's
// files); C++ entries are written with designated initialisers, naming only what they use:
//   out.push_back({.id = "E2", .family = "couplings", .source = ..., .statement = ..., .quantity = "renyi(alpha)",
//                  .check = DivergenceCheck{.quantity = Quantity::Kind::renyi},
//                  .parameters = {number("alpha").above(1), positive("delta"), ...}, .bound = iterated_laplace});
struct BoundEntry {
  std::string id = {};
  std::string family = {};     // the case file that exercises it
  std::string source = {};     // document and theorem number
  std::string statement = {};  // one line
  std::string quantity = {};   // what is bounded, as shown, e.g. "renyi(alpha) at index i" or "E_OU/E_GM"
  Direction direction = Direction::upper;
  std::variant<DivergenceCheck, ValueCheck, PropertyCheck> check = DivergenceCheck{};
  // The parameters it reads (its bound, hypotheses, order and exact routes), checked at load at every point.
  std::vector<Parameter> parameters = {};
  // Why the hypotheses fail at these parameters, or nullopt when the bound applies (unset: always applies).
  std::function<std::optional<std::string>(const Params&)> not_applicable = {};
  std::function<BoundValue(const Params&)> bound = {};  // unset for properties
  // Bounds declared as [[bound]] tables: the formula and the file that declares them (empty for built-in ones).
  std::string formula = {};
  std::string declared_in = {};
  int declared_line = 0;
  std::string declaration = {};  // the [[bound]] table's keys as TOML (what a self-contained file repeats)

  const DivergenceCheck* divergence() const { return std::get_if<DivergenceCheck>(&check); }
  const ValueCheck* value() const { return std::get_if<ValueCheck>(&check); }
  const PropertyCheck* property() const { return std::get_if<PropertyCheck>(&check); }
  // The divergence it bounds in laws and kernel cases (nullopt: it cannot be checked by one).
  std::optional<Quantity::Kind> bounded_divergence() const;
  // Why the theorem does not apply at p (nullopt: it does): its own hypotheses, and for every bound a parameter that
  // is infinite (a certified constant that is unbounded: its hypothesis, such as L-Lipschitz, is not certified).
  std::optional<std::string> outside(const Params& p) const;
  std::string kind_name() const;  // "a divergence bound", "a value bound", "a property"
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
  std::vector<Parameter> parameters;  // what both routes read
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
// The parameters a kernel case adds to every point: the kernel's best mixing constants gamma_tv, gamma_doeblin,
// gamma_ultra and gamma_hs_tilde (at the point's eps, delta), which Theorem 1's entries read.
void add_kernel_constants(const sim::FiniteKernel& kernel, Params& point);
// A built-in entry by ID; InvalidArgument listing the IDs on failure.
const BoundEntry& find_bound(const std::string& id);
// A built-in entry by ID, or nullptr (a bound declared in a user's file).
const BoundEntry* built_in_bound(const std::string& id);
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
