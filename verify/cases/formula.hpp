// Parameters of a case point and the small formula language of case files.
//
// A case point assigns numbers (and a few words, e.g. noise = "laplace") to named parameters. Case files write
// law templates and derived quantities with {formula} placeholders, e.g.
//   mu = "gaussian({delta}, {sqrt(sigma1^2 + sigma2^2)})"
// Formulas: numbers, parameter names, + − * / ^ (right-associative), unary minus, parentheses, comparisons
// (< <= > >= == !=, giving 1 or 0), if(c, a, b), sum(k, from, to, expr), the functions sqrt, exp, log, log1p,
// expm1, abs, min, max, pow, erf, erfc, Phi, logPhi, lgamma, floor, ceil, binom(n, k), and divergences between
// law expressions computed by the engines: renyi(mu, nu, alpha), hockey_stick(mu, nu, eps), kl(mu, nu),
// tv(mu, nu), renyi_inf(mu, nu) — e.g. n * renyi(laplace(Delta/n, b), laplace(0, b), alpha), where the laws'
// arguments are formulas themselves. A divergence's interval is carried through the arithmetic and the
// monotone functions, so the formula's value comes with an interval that contains the exact one.
#pragma once

#include <map>
#include <string>

namespace privamp::verify {

struct Params {
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> words;

  double at(const std::string& name) const;            // InvalidArgument naming the missing parameter
  const std::string& word(const std::string& name) const;
  bool has(const std::string& name) const { return numbers.count(name) || words.count(name); }
  std::string describe() const;                        // "alpha=2, delta=1, noise=laplace"
};

struct FormulaValue {
  double value, lower, upper;  // lower = value = upper unless a divergence call brought an interval
};
FormulaValue evaluate_formula_interval(const std::string& formula, const Params& params);
double evaluate_formula(const std::string& formula, const Params& params);  // the value
// Replaces every {formula} in `text` by its value (shortest round-trip form) or a word parameter's text.
std::string substitute(const std::string& text, const Params& params);

}  // namespace privamp::verify
