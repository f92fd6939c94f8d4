// Law expressions: how users name laws in the expression language (language.hpp), e.g.
//   mix(q=0.01, gaussian(0, 1), gaussian(1, 1))
//   laplace_sum(loc=1, scales=[1, 2])
//   clamp(gaussian(0.3, 1), lo=0, hi=1)
// A law is a call NAME '(' [arg {',' arg}] ')' with arg := [NAME '='] expr, where an argument is a number (any
// expression of the language), a law, a word or a list. A positional argument fills the first parameter (in the
// listed order) not given by name so far. Every law is one entry of law_catalogue(), which is also what
// `privamp laws` prints; adding a law means adding a class and one entry there.
#pragma once

#include <cstdint>
#include <cstddef>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/range.hpp"
#include "sim/language/language.hpp"
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
  // together (lo < hi, i <= n) stay with the law's builder.
  Range range = {};

  ParamSpec within(Range r) const {
    ParamSpec out = *this;
    out.range = r;
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
};

const std::vector<LawSpec>& law_catalogue();

// Parses and builds a law; InvalidArgument with the column and the reason on any error. A law whose expression
// contains discretised laws (noisy_sgd, projected_chain, double_well …) comes wrapped in a DiscretisedLaw that can
// rebuild the whole expression at finer resolutions.
LawPtr parse_law(std::string_view text);

// Checks a law expression's syntax, law and parameter names and required parameters without building anything
// (cheap even for laws that take seconds to compute), with every number's declared range (ParamSpec::range) and
// integrality; InvalidArgument as parse_law. Conditions between parameters are checked when the law is built.
void check_law_syntax(std::string_view text);

// The work of one evaluation (nodes evaluated; a divergence call counts kDivergenceWork): more is refused with a
// message naming the limit (the parser's limits on depth and length are in sim/syntax/syntax.hpp). A certified
// constant (lipschitz() and the loss constants) counts kCertifyWork.
inline constexpr std::uint64_t kMaxFormulaWork = 20'000'000;
inline constexpr std::uint64_t kDivergenceWork = 10'000;
inline constexpr std::uint64_t kCertifyWork = 1'000'000;  // a certified constant (lipschitz(), …): at most 20 per evaluation
inline constexpr double kMaxSumTerms = 1e6;  // terms of one sum() (10^6, as the messages say)
// The refusal of an evaluation of about `work` steps: the limit and what counts.
std::string work_limit_message(double work);

std::string to_string(ParamKind kind);

}  // namespace privamp::sim
