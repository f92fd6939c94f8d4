// A formula of the expression language (sim/language/language.hpp) in named variables — a map ψ(x), a loss ℓ(x, z), a
// potential U(x), a log-density — compiled once into a flat program and evaluated on any number type:
//   double                 the value (simulators, grid propagation, densities);
//   Enclosure              a rigorous enclosure of its range over a box (certified hypotheses);
//   Dual<double>           value and derivative at a point (the gradient of a loss);
//   Dual<Enclosure>        an enclosure of the derivative over a box (a certified Lipschitz constant);
//   Dual<Dual<Enclosure>>  and of the second derivative (smoothness, strong convexity).
//   Dual<Dual<Dual<…>>>    and of the third (the curvature of a gradient step, for the certified chain engine).
// Names that are not variables are the point's parameters, substituted as constants when the formula is compiled;
// constant subexpressions are folded (their enclosure kept for the rigorous types). The program is a sequence of
// stack operations, so evaluation does not recurse however long the formula.
//
// A formula may use numbers, parameters, the variables, + − × ÷ ^, comparisons, if(c, a, b) and the functions of the
// one table (functions.hpp) available in formulas: sqrt, exp, log, log1p, expm1, sin, cos, tanh, atan, sinh, cosh,
// erf, erfc, Phi, logPhi, abs, min, max, pow — functions with derivatives everywhere they are defined, and continuous
// piecewise ones (abs, min, max, if()) whose derivatives are enclosed by the hull of their branches'. floor, ceil,
// lgamma and binom are allowed only of arguments that do not depend on the variables; sum(), laws and divergences
// are not formulas of x. An if() whose condition does not depend on the variables, and is decided, compiles only its
// branch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/formulas/dual.hpp"
#include "sim/formulas/enclosure.hpp"
#include "sim/formulas/functions.hpp"
#include "sim/syntax/syntax.hpp"

namespace privamp::sim {

struct Node;

class Formula {
 public:
  // A formula of x is evaluated at every node of a grid, at every step of every simulated run and tens of thousands
  // of times to certify a constant: longer ones are refused when compiled, naming the limit.
  static constexpr std::size_t kMaxOperations = 1000;

  // Compiles the tree `root` (parsed from `source`, named `label` in messages) as a function of `variables`.
  // InvalidArgument with the column and a caret on anything that is not a function of them (an unknown name, a
  // word, a law, a divergence, sum(), a list).
  static std::shared_ptr<const Formula> compile(const Node& root, const std::vector<std::string>& variables,
                                                const Params& params, const std::string& label, const std::string& source);
  // The number `root` stands for at a point, as the expression language evaluates numbers (language.hpp): the tree
  // compiled with no variables, every subexpression folded as it is compiled (its double, and its enclosure where
  // an argument carries an interval). `leaf` is asked first at every node: a value it returns (a divergence, a
  // sum, ...: what the language computes itself) is taken as a constant with its interval; for the nodes it
  // leaves (nullopt) the compiler's own rules apply. A decided if() compiles only its branch. An interval that
  // leaves a function's domain, or that is unbounded from bounded arguments, is an error naming the function at
  // its column, and so is a value that is not a number (NaN: an argument outside the domain) where it arises.
  // `nodes` counts the nodes compiled (the language's work budget).
  // A number of the language: its double; a rigorous enclosure of its exact value (for a value computed from
  // points, the enclosure of that computation); whether it carries an interval (a divergence's), which is then what
  // it prints.
  struct Leaf {
    double value;
    Enclosure enclosure;
    bool interval;
  };
  struct Number {
    double value;
    Enclosure enclosure;
    bool interval;
    std::uint64_t nodes;
  };
  using Leaves = std::function<std::optional<Leaf>(const Node&)>;
  static Number evaluate_number(const Node& root, const Params& params, const std::string& label, const std::string& source,
                                const Leaves& leaf);
  // Parses `text` (a process-wide cache keeps parsed texts) and compiles it.
  static std::shared_ptr<const Formula> parse(const std::string& text, const std::vector<std::string>& variables,
                                              const Params& params = {}, const std::string& label = "formula");

  // The value at `args` (one per variable, in order). On dual enclosures, `notes` counts the switches (if, abs, min,
  // max) whose continuity the enclosures could not decide (dual.hpp).
  template <class T>
  T evaluate(std::span<const T> args, JoinNotes* notes = nullptr) const;
  double operator()(double x) const { return evaluate<double>(std::span<const double>(&x, 1)); }
  double operator()(double x, double z) const {
    const double a[2] = {x, z};
    return evaluate<double>(a);
  }

  // The formula with its parameters' values substituted: parses back to the same formula (what a law's expression
  // and a process's identity hold).
  const std::string& text() const { return text_; }
  const std::vector<std::string>& variables() const { return variables_; }
  std::size_t operations() const { return program_.size(); }

  using Code = sim::Code;  // functions.hpp: the one function table
  struct Op {
    Code code;
    int arg = 0;  // constant or variable index, or the integer exponent
  };

 private:
  Formula() = default;
  friend class FormulaCompiler;
  std::vector<Op> program_;
  std::vector<double> constants_;
  std::vector<Enclosure> enclosed_constants_;
  std::vector<std::string> variables_;
  std::string text_;
  int stack_ = 0;
};

extern template double Formula::evaluate<double>(std::span<const double>, JoinNotes*) const;
extern template Enclosure Formula::evaluate<Enclosure>(std::span<const Enclosure>, JoinNotes*) const;
extern template Dual<double> Formula::evaluate<Dual<double>>(std::span<const Dual<double>>, JoinNotes*) const;
extern template Dual<Dual<double>> Formula::evaluate<Dual<Dual<double>>>(std::span<const Dual<Dual<double>>>, JoinNotes*) const;
extern template Dual<Enclosure> Formula::evaluate<Dual<Enclosure>>(std::span<const Dual<Enclosure>>, JoinNotes*) const;
extern template Dual<Dual<Enclosure>> Formula::evaluate<Dual<Dual<Enclosure>>>(std::span<const Dual<Dual<Enclosure>>>, JoinNotes*) const;
extern template Dual<Dual<Dual<Enclosure>>> Formula::evaluate<Dual<Dual<Dual<Enclosure>>>>(std::span<const Dual<Dual<Dual<Enclosure>>>>, JoinNotes*) const;

// ∂f/∂(variable `var`) at a point, by dual numbers.
double derivative(const Formula& f, std::span<const double> at, std::size_t var = 0, int order = 1);

}  // namespace privamp::sim
