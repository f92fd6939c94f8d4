// The one function table of the expression language: every numeric operation and function, its name, its arity and
// its one implementation on each number type (double, Enclosure, the dual numbers of dual.hpp). Both readers of the
// tree use it: the formula compiler (formula.hpp, a flat program run in simulators and certifiers) and the language
// evaluator (sim/language/, which adds laws, words, lists, sum() and divergences around it). So a function means the
// same thing in a case file's formula, in a law's argument and in a map ψ(x), and its enclosure is the one rule of
// enclosure.hpp: correctly rounded basic operations widened where they rounded, the C library's functions widened by
// their documented error.
//
// Functions of the language that are not functions of a formula's variables (they jump, or have no derivative here):
// floor, ceil, lgamma and binom; the compiler refuses them with the reason in the table.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "sim/formulas/dual.hpp"
#include "sim/formulas/enclosure.hpp"

namespace privamp::sim {

enum class Code : std::uint8_t {
  constant, variable, negate, add, subtract, multiply, divide, power, power_int, sqrt, exp, log, log1p, expm1,
  sin, cos, tanh, atan, sinh, cosh, erf, erfc, Phi, logPhi, abs, min, max, less, less_equal, equal, not_equal, select,
  floor, ceil, lgamma, binom
};

// A named function of the language. arity −1: two or more arguments (min, max fold pairwise).
struct Function {
  std::string_view name;
  Code code;
  int arity;
  std::string_view refused;  // empty: available in formulas of variables; else why not
};

inline constexpr std::string_view kJumps = "is not continuous (its derivative is not defined at the jumps)";
inline constexpr Function kFunctions[] = {
    {"sqrt", Code::sqrt, 1, {}},   {"exp", Code::exp, 1, {}},     {"log", Code::log, 1, {}},
    {"log1p", Code::log1p, 1, {}}, {"expm1", Code::expm1, 1, {}}, {"sin", Code::sin, 1, {}},
    {"cos", Code::cos, 1, {}},     {"tanh", Code::tanh, 1, {}},   {"atan", Code::atan, 1, {}},
    {"sinh", Code::sinh, 1, {}},   {"cosh", Code::cosh, 1, {}},   {"erf", Code::erf, 1, {}},
    {"erfc", Code::erfc, 1, {}},   {"Phi", Code::Phi, 1, {}},     {"logPhi", Code::logPhi, 1, {}},
    {"lgamma", Code::lgamma, 1, "has no derivative in formulas of variables (case-file formulas have it)"},
    {"floor", Code::floor, 1, kJumps},
    {"ceil", Code::ceil, 1, kJumps},
    {"abs", Code::abs, 1, {}},     {"pow", Code::power, 2, {}},
    {"binom", Code::binom, 2, "takes integers (case-file formulas have it)"},
    {"min", Code::min, -1, {}},    {"max", Code::max, -1, {}},
};

inline const Function* find_function(std::string_view name) {
  for (const Function& f : kFunctions)
    if (f.name == name) return &f;
  return nullptr;
}

// The operator of a binary or comparison node ("+", "<=", ...), and of unary minus.
inline Code binary_code(std::string_view op) {
  return op == "+" ? Code::add : op == "-" ? Code::subtract : op == "*" ? Code::multiply : op == "/" ? Code::divide : Code::power;
}
// a op b as a code on (left, right) operands: > and >= swap them into < and <=.
struct Comparison {
  Code code;
  bool swap;
};
inline Comparison comparison_code(std::string_view op) {
  if (op == "<" || op == ">") return {Code::less, op == ">"};
  if (op == "<=" || op == ">=") return {Code::less_equal, op == ">="};
  return {op == "==" ? Code::equal : Code::not_equal, false};
}

// The functions the language has beyond the table's, on doubles and enclosures (the compiler refuses them).
Enclosure floor(const Enclosure& a);
Enclosure ceil(const Enclosure& a);
Enclosure lgamma(const Enclosure& a);  // on (0, inf): an enclosure reaching 0 or below is NaN
// C(n, k) of integers 0 <= n <= 2^53 (functions.cpp says how, by size); anything else NaN. The double is the value
// the enclosure was built around.
Enclosure binom(const Enclosure& n, const Enclosure& k);
double binom(double n, double k);

namespace detail {
template <class T>
inline constexpr bool kPlain = std::is_same_v<T, double> || std::is_same_v<T, Enclosure>;

template <class T>
[[noreturn]] T unavailable() {
  throw std::logic_error("a language-only function reached a formula of variables");
}
}  // namespace detail

// f(a) for the one-argument codes; `notes` counts undecided kinks on duals (dual.hpp).
template <class T>
inline T apply(Code c, const T& a, JoinNotes* notes = nullptr) {
  using std::sqrt, std::exp, std::log, std::log1p, std::expm1, std::sin, std::cos, std::tanh, std::atan, std::sinh,
      std::cosh, std::erf, std::erfc, std::floor, std::ceil, std::lgamma;
  switch (c) {
    case Code::negate: return -a;
    case Code::sqrt: return sqrt(a);
    case Code::exp: return exp(a);
    case Code::log: return log(a);
    case Code::log1p: return log1p(a);
    case Code::expm1: return expm1(a);
    case Code::sin: return sin(a);
    case Code::cos: return cos(a);
    case Code::tanh: return tanh(a);
    case Code::atan: return atan(a);
    case Code::sinh: return sinh(a);
    case Code::cosh: return cosh(a);
    case Code::erf: return erf(a);
    case Code::erfc: return erfc(a);
    case Code::Phi: return Phi(a);
    case Code::logPhi: return logPhi(a);
    case Code::abs: return abs(a, notes);
    case Code::floor:
    case Code::ceil:
    case Code::lgamma:
      if constexpr (detail::kPlain<T>) return c == Code::floor ? floor(a) : c == Code::ceil ? ceil(a) : lgamma(a);
      else return detail::unavailable<T>();
    default: throw std::logic_error("apply: not a one-argument code");
  }
}

// a^n for an integer n (the compiler's form of x^k with a constant integer k: defined for negative a).
template <class T>
inline T apply_power_int(const T& a, int n) {
  return powi(a, n);
}

// f(a, b) for the two-argument codes (comparisons give 1, 0, or [0, 1] when undecided).
template <class T>
inline T apply(Code c, const T& a, const T& b, JoinNotes* notes = nullptr) {
  using std::pow;
  switch (c) {
    case Code::add: return a + b;
    case Code::subtract: return a - b;
    case Code::multiply: return a * b;
    case Code::divide: return a / b;
    case Code::power: return pow(a, b);
    case Code::min: return min(a, b, notes);
    case Code::max: return max(a, b, notes);
    case Code::less: return less(a, b);
    case Code::less_equal: return less_equal(a, b);
    case Code::equal: return equal(a, b);
    case Code::not_equal: return T(1.0) - equal(a, b);
    case Code::binom:
      if constexpr (detail::kPlain<T>) return binom(a, b);
      else return detail::unavailable<T>();
    default: throw std::logic_error("apply: not a two-argument code");
  }
}

// if(c, a, b): the taken branch when c is decided, else the join of both (the hull; on duals dual.hpp's rule).
template <class T>
inline T apply_select(const T& c, const T& a, const T& b, JoinNotes* notes = nullptr) {
  const std::optional<bool> d = decided(c);
  return d ? (*d ? a : b) : join(a, b, notes);
}

}  // namespace privamp::sim
