// What a law of the expression language is, as data: its name, parameters (kinds, defaults, ranges), an example
// and how it is built from its arguments (LawSpec), and the arguments as the builder reads them (Args). Each law's
// unit defines its LawSpec beside its class and registers it there (gaussian.cpp: PRIVAMP_LAW(10,
// gaussian_law_spec)); law_catalogue() lists the registered laws, and `privamp laws` prints them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "numerics/range.hpp"
#include "sim/laws/law.hpp"

namespace privamp::sim {

class Formula;

struct Value {
  enum class Kind { number, list, law, word, formula };
  Kind kind = Kind::number;
  double number = 0;
  std::string word;  // a word, or a formula's text (its parameters substituted)
  std::vector<Value> list;
  LawPtr law;
  long dimension = 1;  // a law's, known also where it is only checked (not built)
  std::shared_ptr<const Formula> formula;
};

// formula: a function of the parameter's `variables` (sim/formulas/formula.hpp), given as a quoted text, a word
// parameter holding one, or the expression itself; `words` lists names it also accepts instead (built-in maps).
enum class ParamKind { number, integer, numbers, matrix, law, laws, word, formula };

struct ParamSpec {
  std::string name;
  ParamKind kind;
  std::optional<std::string> default_value;  // as it would be written; nullopt = required
  std::string doc;
  std::vector<std::string> words = {};  // a word parameter's allowed values (empty: any word), checked at load
  std::vector<std::string> variables = {};  // a formula's variables
  // A number's (or each listed number's) allowed values, checked wherever the parameter is read: at load for every
  // grid point of a case (where nothing is built) and before the law is built. Conditions that tie two parameters
  // together are the law's `ties` (lo < hi) or, when they need more than an order, its `check` (i <= n per scheme).
  Range range = {};
  // A list of probabilities that must sum to 1 (within 1e-12 per entry, as decimals do), checked like the range.
  bool sums_to_one = false;

  ParamSpec within(Range r) const {
    ParamSpec out = *this;
    out.range = r;
    return out;
  }
  ParamSpec summing_to_one() const {
    ParamSpec out = *this;
    out.sums_to_one = true;
    return out;
  }
};

// How a discretised law inside an expression is built: its cells are multiplied by `resolution_factor`, and the
// parser records the method's order (see Discretisation in law.hpp).
struct BuildContext {
  int resolution_factor = 1;
  bool validate_only = false;  // check names, parameters and syntax; build nothing
  std::optional<int> order;  // set by the first discretised law built
  int cells = 0;             // its base resolution
  int max_factor = 1 << 30;  // smallest over the discretised laws built: factor × cells stays within their limits
  std::string what;
};

class Args {
 public:
  Args(std::string law_name, std::map<std::string, Value> values, BuildContext* context = nullptr)
      : law_(std::move(law_name)), values_(std::move(values)), context_(context) {}
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  double number(const std::string& name) const;
  long integer(const std::string& name) const;
  std::vector<double> numbers(const std::string& name) const;
  std::vector<std::vector<double>> matrix(const std::string& name) const;  // a list of equal-length rows
  LawPtr law(const std::string& name) const;
  std::vector<LawPtr> laws(const std::string& name) const;
  std::vector<long> dimensions(const std::string& name) const;  // of a law or a list of laws, built or only checked
  const std::string& word(const std::string& name) const;  // a bare name, e.g. loss=logistic
  // A formula parameter: the compiled formula, or null when one of the parameter's named alternatives was given
  // (then word(name) is that name).
  std::shared_ptr<const Formula> formula(const std::string& name) const;
  // The resolution of a discretised law: the parameter `name` (base cells, within [lo, hi]) times the build's
  // resolution factor, refinable up to `max_cells`; records the method's order for the error model.
  int cells(const std::string& name, int lo, int hi, int max_cells, int order, const std::string& what) const;

 private:
  const Value& get(const std::string& name) const;
  std::string law_;
  std::map<std::string, Value> values_;
  BuildContext* context_;
};

// An order between two number parameters of one law: `subject` must be above (below) `other`, strictly or not.
// Checked wherever the law is named, like a parameter's range, when both are given or defaulted: a case file's point
// where they cross is refused at load, naming `subject`, its value and the other's.
struct Tie {
  enum class Relation { above, at_least, below, at_most };
  std::string subject;
  Relation relation;
  std::string other;
};

struct LawSpec {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::string example;
  std::function<LawPtr(const Args&)> build;
  // Positional arguments are gathered into the first parameter (a list of laws): product(a, b, c) is
  // product(laws=[a, b, c]).
  bool variadic = false;
  // The dimension of the law it builds, from its arguments without building (a case file's laws are compared at
  // load at every grid point). Empty: the dimension its law arguments share (all must agree), 1 when it has none.
  std::function<long(const Args&)> dimension = {};
  // Conditions between its arguments that are cheap to check (work limits: steps × cells²), run without building
  // wherever the law is named, so that a case file's point beyond them is refused at load (InvalidArgument).
  std::function<void(const Args&)> check = {};
  // Orders between its number parameters (clamp: hi above lo), checked before `check`.
  std::vector<Tie> ties = {};
};

// InvalidArgument naming the first of `spec`'s ties that the arguments break (a tie with a parameter not given is
// skipped: its builder decides).
void check_ties(const LawSpec& spec, const Args& args);

std::string to_string(ParamKind kind);

// Resolutions and work of the discretised laws (DiscretisationLimits, law.hpp), for the builders.
inline constexpr int kMinCells = DiscretisationLimits::min_cells, kMaxGridCells = DiscretisationLimits::max_grid_cells,
                     kMaxGeneratorCells = DiscretisationLimits::max_generator_cells;
// InvalidArgument when steps × cells² exceeds DiscretisationLimits::max_propagation_work (about 10 s).
void check_propagation_work(const char* law, const char* steps_name, long steps, long cells);

// The catalogue of the expression language's laws: every law registered by its unit, in the order of their ranks
// (families together: `privamp laws` prints them in this order). Built at the first call, after static
// initialisation has registered every unit.
const std::vector<LawSpec>& law_catalogue();

// Registers a law where its unit defines it: PRIVAMP_LAW(rank, spec) at namespace scope in the unit's .cpp, with
// `spec` a function returning its LawSpec and `rank` its place in the catalogue. A unit needs no other line
// anywhere: sim/CMakeLists.txt compiles every unit of sim/laws/ and sim/processes/, and the library is linked
// whole (see there), so that a unit nothing else calls is not left out of the program.
struct LawRegistration {
  LawRegistration(int rank, LawSpec (*spec)());
};
#define PRIVAMP_LAW(rank, spec) const ::privamp::sim::LawRegistration privamp_law_registration_##spec{rank, spec}

}  // namespace privamp::sim
