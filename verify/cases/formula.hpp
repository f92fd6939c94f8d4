// Parameters of a case point and the small formula language of case files.
//
// A case point assigns numbers (and a few words, e.g. noise = "laplace") to named parameters. Case files write
// law templates and derived quantities with {formula} placeholders, e.g.
//   mu = "gaussian({delta}, {sqrt(sigma1^2 + sigma2^2)})"
// Formulas: numbers, parameter names, + − * / ^ (right-associative), unary minus, parentheses, and the
// functions sqrt, exp, log, log1p, expm1, abs, min, max.
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

double evaluate_formula(const std::string& formula, const Params& params);
// Replaces every {formula} in `text` by its value (shortest round-trip form) or a word parameter's text.
std::string substitute(const std::string& text, const Params& params);

}  // namespace privamp::verify
