// The expression language of privamp: one grammar and one tree (sim/syntax/syntax.hpp) for law expressions, the
// formulas of case files (orders, derived parameters, hypotheses, declared bounds) and the templates that put
// parameters into laws. Comparisons give 1 or 0 (between words: == and !=).
//
// A NAME is a parameter of the point (a number or a word), or else a bare word (loss=logistic). A call is a law of
// law_catalogue() (arguments by position or name), a function of the one table (sim/formulas/functions.hpp: sqrt,
// exp, log, ..., lgamma, floor, ceil, abs, pow, binom, min, max), if(c, a, b), sum(k, from, to, expr), default(name,
// value) (the parameter where the point has it), a certified constant of a formula (lipschitz(), ...), or a
// divergence between laws computed by the engines of the verify layer (renyi(mu, nu, alpha), hockey_stick(mu, nu,
// eps), kl(mu, nu), tv(mu, nu), renyi_inf(mu, nu)). `{expr}` is a grouping like `(expr)`: case files write templates
// such as gaussian({delta}, {sqrt(s1^2 + s2^2)}), which are expressions of this language.
//
// Numbers carry an interval: parameters and literals are points, and so are the values computed from points (the
// doubles, rounded as the C library rounds); a divergence brings the engine's interval, which every function carries
// through as the table's enclosure (enclosure.hpp: the rounding of each operation and the C library's documented
// error inside), so the interval contains the exact value of the formula at the point. A text is parsed once (and
// kept in a process-wide cache). At a point, the numbers of the tree are computed by the one evaluator of formulas
// (sim/formulas/formula.hpp: Formula::evaluate_number, the tree compiled with the point's parameters and folded);
// this evaluator computes the rest (laws, words, lists, divergences, sums, certified constants) and hands the
// numbers among them to it. Errors name the column and show the text with a caret.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "sim/laws/law.hpp"
#include "sim/syntax/divergence_kind.hpp"
#include "sim/syntax/syntax.hpp"

namespace privamp::sim {

// A number with an interval that contains the exact value.
struct Bracketed {
  double value, lower, upper;
  // Whether the interval is one a divergence brought (what a bound prints); otherwise [lower, upper] is the rounding
  // of the computation from points (a few ulps; decimal literals such as 0.1 enclosed by their neighbouring doubles).
  bool interval = true;
};

// How a divergence call is computed (the verify layer supplies its engines): order is alpha or eps (0 for the others).
using DivergenceFunction = std::function<Bracketed(const Law& mu, const Law& nu, Divergence kind, double order)>;

struct Node;

class Expression : public std::enable_shared_from_this<Expression> {
 public:
  // Parses `text`; InvalidArgument with the column on a syntax error. `label` names the text in messages
  // ("law expression", "formula").
  static std::shared_ptr<const Expression> parse(std::string_view text, std::string label = "expression");
  // parse() through a process-wide cache of parsed texts (thread-safe): each distinct text is parsed once.
  static std::shared_ptr<const Expression> parse_cached(const std::string& text, const std::string& label = "expression");

  const std::string& text() const { return text_; }
  const Node& root() const { return *root_; }

  // The value with a rigorous enclosure of the formula's exact value at the point (parameters are the doubles given;
  // every operation's rounding and every divergence's interval inside); InvalidArgument if it is not a number, or (unless allow_infinite) infinite. A certified constant of a
  // formula that jumps or kinks as written (lipschitz(), smoothness(), ...) is ±inf: derived parameters allow it.
  Bracketed number(const Params& params, const DivergenceFunction* divergence = nullptr, bool allow_infinite = false) const;
  // The value as a law, built (discretised laws come wrapped so that they can be rebuilt finer).
  LawPtr law(const Params& params) const;
  // law() through a small process-wide cache keyed by law_text() (laws are immutable; the expensive ones take ~1 s);
  // `text`, if given, receives that key.
  LawPtr law_cached(const Params& params, std::string* text = nullptr) const;
  // The law with the values of its arguments, e.g. "gaussian(1, 2.5)": what `privamp divergence` takes.
  std::string law_text(const Params& params) const;
  // Checks names, parameters (their declared ranges) and required arguments of laws and the parameters used,
  // building nothing; returns the law's dimension.
  long check_law(const Params& params) const;
  // The work one evaluation at `params` would take (steps; a divergence call counts kDivergenceWork), estimated
  // from the tree without evaluating it: compared with kMaxFormulaWork before anything runs.
  double work(const Params& params) const;

  ~Expression();

 private:
  Expression() = default;
  static void validate(const Expression& e, const Node& root);
  double work(const Node& n, Params& params) const;
  std::string text_, label_;
  std::shared_ptr<const Node> root_;
  friend class Evaluator;
  friend class EvaluatorCore;
  friend class LawMaker;
};

}  // namespace privamp::sim
