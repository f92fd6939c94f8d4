// A set of allowed numbers: an interval with open or closed ends, possibly unbounded. The one type behind every
// declared parameter range (law parameters in sim/language/expression.hpp, bound parameters in
// verify/bounds/parameters.hpp): declared once, checked by contains(), printed by text().
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include "numerics/errors.hpp"

namespace privamp {

struct Range {
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  bool lo_open = true, hi_open = true;  // an infinite end is always open

  bool contains(double x) const { return (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi); }
  bool bounded() const { return std::isfinite(lo) || std::isfinite(hi); }
  // "0 < value < inf", "1 <= value <= 1000", "-inf < value <= 5"
  std::string text() const {
    const auto end = [](double x) { return std::isinf(x) ? std::string(x > 0 ? "inf" : "-inf") : format_number(x); };
    return end(lo) + (lo_open ? " < value " : " <= value ") + (hi_open ? "< " : "<= ") + end(hi);
  }

  static Range positive() { return {0, kInf, true, true}; }
  static Range non_negative() { return {0, kInf, false, true}; }
  static Range scale() { return {1e-300, kInf, false, true}; }  // a width: no subnormal, so 1/width stays finite
  static Range probability() { return {0, 1, false, false}; }
  static Range between(double lo, double hi) { return {lo, hi, std::isinf(lo), std::isinf(hi)}; }  // ends included
  static Range at_least(double lo) { return between(lo, kInf); }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
};

// The i-th of n points from a to b (0 <= i < n, n >= 2), evenly spaced in log scale (a, b > 0): a·(b/a)^(i/(n−1)),
// the last exactly b. The one log spacing of case-file grids, the command line's 'a:b:xN' and explore's bins.
inline double log_spaced(double a, double b, long i, long n) {
  if (i + 1 == n) return b;
  const double t = static_cast<double>(i) / static_cast<double>(n - 1);
  const double x = a * std::pow(b / a, t);
  // b/a overflows for a range such as [5e-324, 1e308]: the same point from the logs (exp(log a + t·log(b/a))).
  return std::isfinite(x) && x > 0 ? x : std::exp(std::log(a) + t * (std::log(b) - std::log(a)));
}

}  // namespace privamp
