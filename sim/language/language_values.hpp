// The values of the law language as the evaluator computes them (sim/language/language.cpp): a number with its
// enclosure, a word, a list or a law, and the interval rule of its arithmetic. Internal to sim/laws/.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "numerics/constants.hpp"
#include "sim/language/expression.hpp"
#include "sim/laws/law.hpp"

namespace privamp::sim {

struct Val {
  enum class Kind { number, word, list, law };
  Kind kind = Kind::number;
  double v = 0, lo = 0, hi = 0;
  std::string word;
  bool unresolved = false;  // a bare name that is no parameter (fine as a word, an error as a number)
  std::vector<Val> list;
  LawPtr law;  // null when only checked
  long dimension = 1;  // a law's (known also when it is only checked)
  static Val point(double x) { return {Kind::number, x, x, x, {}, false, {}, nullptr, 1}; }
  bool is_point() const { return lo == v && hi == v; }
};

// An interval result widened outwards by two ulps at each end, so that the rounding of the operation is inside.
inline Val outward(Val r) {
  if (r.is_point()) return r;
  for (int i = 0; i < 2; ++i) {
    r.lo = std::nextafter(r.lo, -kInf);
    r.hi = std::nextafter(r.hi, kInf);
  }
  return r;
}

// f monotone in each argument over the box (callers ensure it): the extremes are at the corners. A NaN corner
// means the box leaves f's domain.
template <class F>
inline std::optional<Val> corners(const Val& a, const Val& b, F f) {
  const double c[4] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
  Val r = Val::point(f(a.v, b.v));
  r.lo = r.hi = c[0];
  for (double x : c) {
    if (std::isnan(x)) return std::nullopt;
    r.lo = std::min(r.lo, x);
    r.hi = std::max(r.hi, x);
  }
  return outward(r);
}

template <class F>
inline Val monotone(const Val& a, F f) {  // increasing or decreasing: the ends map to the ends
  const double x = f(a.lo), y = f(a.hi);
  Val r = Val::point(f(a.v));
  r.lo = std::min(x, y);
  r.hi = std::max(x, y);
  return outward(r);
}

inline Value to_law_value(const Val& v) {
  Value out;
  switch (v.kind) {
    case Val::Kind::number:
      out.kind = Value::Kind::number;
      out.number = v.v;
      break;
    case Val::Kind::word:
      out.kind = Value::Kind::word;
      out.word = v.word;
      break;
    case Val::Kind::list:
      out.kind = Value::Kind::list;
      for (const Val& e : v.list) out.list.push_back(to_law_value(e));
      break;
    case Val::Kind::law:
      out.kind = Value::Kind::law;
      out.law = v.law;
      out.dimension = v.dimension;
      break;
  }
  return out;
}

}  // namespace privamp::sim
