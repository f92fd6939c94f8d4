// Case files (cases/*.toml): declarative scenarios, parameter grids, quantities, engines, bound IDs and
// tolerances (every key: docs/case-files.md). One file per theorem family; each [[case]] table is one scenario:
//
//   [[case]]
//   name = "iterated Gaussian"          # unique within the file
//   bounds = ["E1"]                     # catalogue IDs checked on every point
//   kind = "laws"                       # laws (default) | kernel | property | value
//   mu = "gaussian_chain(x0={delta}, r=1, sigma={sigma2}, sigma0={sigma1})"   # laws: templates, {formula}
//   nu = "gaussian_chain(x0=0, r=1, sigma={sigma2}, sigma0={sigma1})"
//   quantity = "renyi"                  # renyi | renyi_inf | kl | tv | hockey_stick (not for property)
//   order = "{alpha}"                   # α or ε as a formula (renyi, hockey_stick)
//   symmetric = false                   # exact = max over both directions (worst neighbouring order)
//   engine = "auto"                     # deciding engine; cross_check = "gsl" adds a second one
//   tolerance = 1e-6                    # tight when |bound/exact − 1| ≤ tolerance
//   [case.grid]                         # the cartesian product of these lists (numbers or words)
//   alpha = [2, 8, 64]
//   [case.derived]                      # optional parameters computed from the grid ones
//   sigma = "sqrt(sigma1^2 + sigma2^2)"
//   [case.explore]                      # optional search space for `privamp explore`: grid axes as ranges
//   alpha = {min = 1.5, max = 1000, scale = "log"}   # integer = true for integer axes
//   noise = ["laplace", "gaussian"]     # finite choices (other grid axes with several values become choices)
//
// kernel cases name `kernel = "randomized_response" | "dirichlet" | "lazy_dirichlet" | "sparse"` and take its
// parameters (k, eps0 | states, concentration, seed, per_row; any kernel takes an optional laziness, the probability
// of staying put, which lazy_dirichlet requires) and the mechanism's eps, delta from the grid. Errors name the file, line and key, and nothing is run.
//
// A file may also declare bounds, which its cases (or any case loaded with it) list by ID like the built-in ones:
//
//   [[bound]]
//   id = "MY.laplace-nfold"
//   source = "my paper, Thm 3"
//   statement = "R_alpha(P^{*n}+Delta || P^{*n}) <= n R_alpha(Lap(Delta/n, b) || Lap(0, b))"
//   quantity = "renyi"                  # the case quantity it bounds (checked against every case that lists it)
//   direction = "upper"                 # upper | lower | identity
//   requires = ["n >= 1", "b > 0"]      # hypotheses: a point where one is 0 is not-applicable
//   formula = "n * renyi(laplace(Delta/n, b), laplace(0, b), alpha)"   # the formula language of formula.hpp
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "verify/bounds/catalogue.hpp"
#include "verify/input/formula.hpp"
#include "verify/divergence/engines.hpp"

namespace privamp::sim {
class FiniteKernel;
}

namespace privamp::verify {

// One axis of a case's search space for `privamp explore` ([case.explore]): a real or integer range (linear or log
// scale) or a finite list of choices (numbers or words).
struct ExploreAxis {
  enum class Kind { real, integer, choice };
  std::string name;
  Kind kind = Kind::real;
  double min = 0, max = 0;
  bool log = false;
  std::vector<std::variant<double, std::string>> choices;
  std::string label;  // a range's axis label in explore's map, as text (empty: from the name, delta as δ)
};

// A point's parameters with what a search knows besides them, for [case.explore]'s conditions: `exact`, `bound`
// and `ratio` (bound/exact; NaN where there is none, which makes every comparison with it false).
Params with_search_values(Params point, double exact, double bound);

// A case name's length in bytes at most (the loader refuses longer; explore's point files fit their names to it).
inline constexpr std::size_t kMaxCaseName = 200;

struct Case {
  enum class Kind { laws, kernel, property, value };
  std::string file;  // as given (relative path)
  int line = 0;
  std::string name;
  std::vector<std::string> bounds;
  Kind kind = Kind::laws;
  std::string mu, nu, kernel;
  Quantity::Kind quantity = Quantity::Kind::renyi;
  std::string order;
  bool symmetric = false;
  Engine engine = Engine::automatic;
  std::optional<Engine> cross_check;
  double tolerance = 1e-6;
  std::vector<std::pair<std::string, std::vector<std::variant<double, std::string>>>> grid;
  std::vector<std::pair<std::string, std::string>> derived;
  std::vector<ExploreAxis> explore;  // [case.explore]: ranges replacing grid axes (empty: no search space)
  // [case.explore] where = [...]: the regime of interest, conditions (formulas of the point's parameters, derived
  // quantities, exact, bound and ratio) that a point must satisfy to be a candidate of a search;
  // degenerate = [...]: conditions under which a point is degenerate (no amplification happens, the bound is
  // trivially tight): searched and reported apart, never as the answer.
  std::vector<std::string> explore_where, explore_degenerate;
  // The names the [[figure]] tables of its file may read from its points (x, a series' scale and where): read, for
  // unread_grid_parameters.
  std::set<std::string> read_by_figures;
  // The bounds declared by the files loaded with this case (shared by the cases of one load).
  std::shared_ptr<const DeclaredBounds> declared;

  // The entry of a bound ID: declared with this case's load, or built in (InvalidArgument listing the IDs).
  const BoundEntry& entry(const std::string& id) const;

  // The grid product, derived parameters added (`progress`, when given, after each point's: a derived parameter may
  // call a divergence, and the loader bounds that work by its measured cost).
  std::vector<Params> points(const std::function<void(std::size_t, std::size_t)>& progress = {}) const;
  // Kernel cases: the kernel at a point (randomized_response, dirichlet, lazy_dirichlet, sparse; any kernel stays put
  // with probability `laziness` when the point has it); InvalidArgument naming a missing or bad parameter.
  sim::FiniteKernel kernel_at(const Params& p) const;
  Params with_derived(Params point) const;  // a point of the grid parameters, derived parameters added
};

std::string to_string(Case::Kind kind);
// Laws and kernel cases compute a divergence of the case (they take quantity and order); property and value cases
// let their entries compute.
inline bool computes_divergence(Case::Kind kind) { return kind == Case::Kind::laws || kind == Case::Kind::kernel; }

// A case file's size limit (a larger file is refused before it is read).
inline constexpr std::uintmax_t kMaxCaseFileBytes = 4u << 20;

// What one load of case files gives: the cases and the bounds their files declare. A load is a value: the bounds
// of one load are never seen by another.
struct Loaded {
  std::vector<Case> cases;
  std::shared_ptr<const DeclaredBounds> bounds = std::make_shared<const DeclaredBounds>();
};

// Loads one file or every *.toml below a directory (sorted), checking everything that can be checked without
// computing: keys, types, IDs, engines, templates' parameters. A bound ID declared twice (in one file or two) or
// declared again over a built-in ID, and a file given twice, are refused (InvalidArgument naming both places).
Loaded load(const std::vector<std::filesystem::path>& paths);
std::vector<Case> load_cases(const std::vector<std::filesystem::path>& paths);  // load(paths).cases
// The files load_cases reads: each file given, and every *.toml directly below each directory given (sorted).
std::vector<std::filesystem::path> case_files(const std::vector<std::filesystem::path>& paths);
// The grid parameters of `c` with more than one value that nothing of the case names: no law, order, derived
// parameter, word value (a formula placed into a law), search condition, bound formula, parameter an entry declares
// it reads or name a figure of its file uses. Each multiplies the case's work
// by its number of values without changing a result (the loader checks every point, so a misspelt name shows here).
std::vector<std::string> unread_grid_parameters(const Case& c);
// One line per such parameter of the cases that check a bound of `only` (empty: every case), naming the file, line,
// case, parameter and its number of values: what `verify` prints as a note before it runs (Python: a warning).
std::vector<std::string> unread_parameter_notes(const std::vector<Case>& cases, const std::vector<std::string>& only);
// The cases of one file's text, with the bounds it declares; `name` is the file name used in messages.
std::vector<Case> parse_cases(std::string_view text, const std::string& name);

}  // namespace privamp::verify
