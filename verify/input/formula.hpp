// Parameters of a case point and the formulas of case files, in the expression language (sim/language/language.hpp).
//
// A case point assigns numbers (and a few words, e.g. noise = "laplace") to named parameters. Case files write
// law templates and formulas in one language, e.g.
//   mu = "gaussian({delta}, {sqrt(sigma1^2 + sigma2^2)})"        ({expr} groups like (expr))
//   formula = "n * renyi(laplace(Delta/n, b), laplace(0, b), alpha)"
// Formulas: numbers, parameter names, + − * / ^ (right-associative), unary minus, parentheses, comparisons
// (< <= > >= == !=, giving 1 or 0), if(c, a, b), sum(k, from, to, expr), the functions of the one table
// (sim/formulas/functions.hpp), and divergences between laws computed by the engines: renyi(mu, nu, alpha),
// hockey_stick(mu, nu, eps), kl(mu, nu), tv(mu, nu), renyi_inf(mu, nu). A divergence's interval is carried through
// every function as its enclosure, so the formula's value comes with an interval that contains the exact one. Each
// text is parsed once per process.
#pragma once

#include <string>

#include "sim/language/language.hpp"

namespace privamp::verify {

using sim::Params;

struct FormulaValue {
  double value, lower, upper;  // [lower, upper] contains the formula's exact value at the point, always (sim::Bracketed)
  bool interval;               // a divergence call brought the interval (otherwise it is the rounding of the value)
};
FormulaValue evaluate_formula_interval(const std::string& formula, const Params& params);
double evaluate_formula(const std::string& formula, const Params& params);  // the value
// A derived parameter's value: as evaluate_formula, but ±inf is a value (an unbounded certified constant, such as
// lipschitz() of a map that jumps); a bound is not-applicable at a point with an infinite parameter.
double evaluate_derived(const std::string& formula, const Params& params);
// InvalidArgument when one evaluation of the formula at `params` would exceed the work limit (sim::kMaxFormulaWork),
// estimated without evaluating it. Returns the estimate (a formula with a divergence call costs at least
// sim::kDivergenceWork).
double check_formula_work(const std::string& formula, const Params& params);

// A law template at a point: its text with the values of its arguments (what `privamp divergence` takes), and the
// law itself (built from the parsed tree, through a small cache of the latest laws; `text` receives its text).
std::string law_text(const std::string& expression, const Params& params);
sim::LawPtr build_law(const std::string& expression, const Params& params, std::string* text = nullptr);
// Checks a law template's names, parameters (their declared ranges) and required arguments at a point, building
// nothing; returns the law's dimension.
long check_law(const std::string& expression, const Params& params);

}  // namespace privamp::verify
