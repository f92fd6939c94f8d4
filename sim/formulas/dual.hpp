// Dual numbers: a value and its derivative, carried through every operation by the chain rule (forward-mode
// automatic differentiation). Dual<double> gives f'(x) at a point; Dual<Enclosure> an enclosure of f' over an
// interval (what certifies a Lipschitz constant); Dual<Dual<T>> the second derivative.
//
// Where the enclosure of an argument does not decide a branch, the derivative is valid for the formula as written,
// jumps and kinks included:
//  - a comparison (x < c, x != c) is a step: undecided over a box, its derivative is unbounded there;
//  - a switch between two branches (if() with an undecided condition, abs, min, max) joins them: the value is the hull
//    of the branches' values, and each derivative level is the hull of the branches' derivatives only where the
//    branches' lower levels have a point in common; where they are disjoint the function (or a lower derivative)
//    jumps inside the box, and the derivative is unbounded. So abs(x - z) has the first derivative [-1, 1] and an
//    unbounded second derivative near x = z (a kink), and if(x < 0, -1, 1) an unbounded first derivative near 0.
//  - A join whose branches' lower levels overlap has not proven continuity, only failed to disprove it on this box:
//    it is counted in JoinNotes, and the certifier (certify.hpp) refines such pieces until a jump would show.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <limits>
#include <optional>

#include "sim/formulas/enclosure.hpp"

namespace privamp::sim {

template <class T>
struct Dual {
  T v, d;  // not initialised by default: evaluation stacks are written before they are read
  Dual() = default;
  Dual(double c) : v(c), d(0.0) {}  // NOLINT: a constant
  Dual(T value, T derivative) : v(value), d(derivative) {}
};

// A constant of the number type T, enclosed when T is an enclosure (c is the double nearest the real constant).
template <class T>
T constant(double c) {
  if constexpr (std::is_same_v<T, Enclosure>) return {std::nextafter(c, -INFINITY), std::nextafter(c, INFINITY)};
  else if constexpr (std::is_same_v<T, double>) return c;
  else return T(constant<decltype(T{}.v)>(c), decltype(T{}.v)(0.0));
}

template <class T> Dual<T> operator+(const Dual<T>& a, const Dual<T>& b) { return {a.v + b.v, a.d + b.d}; }
template <class T> Dual<T> operator-(const Dual<T>& a, const Dual<T>& b) { return {a.v - b.v, a.d - b.d}; }
template <class T> Dual<T> operator-(const Dual<T>& a) { return {-a.v, -a.d}; }
template <class T> Dual<T> operator*(const Dual<T>& a, const Dual<T>& b) { return {a.v * b.v, a.d * b.v + a.v * b.d}; }
template <class T> Dual<T> operator/(const Dual<T>& a, const Dual<T>& b) {
  const T q = a.v / b.v;
  return {q, (a.d - q * b.d) / b.v};
}

template <class T> std::optional<bool> decided(const Dual<T>& c) { return decided(c.v); }

// An unbounded value of the number type: the whole line for enclosures (NaN for points, never reached: points are
// always decided).
template <class T>
T unbounded() {
  if constexpr (std::is_same_v<T, Enclosure>) return {-INFINITY, INFINITY};
  else if constexpr (std::is_same_v<T, double>) return std::numeric_limits<double>::quiet_NaN();
  else return T(unbounded<decltype(T{}.v)>(), unbounded<decltype(T{}.v)>());
}

// Whether two values have a point in common (every level of a dual).
inline bool overlaps(const Enclosure& a, const Enclosure& b) { return a.lo <= b.hi && b.lo <= a.hi; }
inline bool overlaps(double a, double b) { return a == b; }
template <class T> bool overlaps(const Dual<T>& a, const Dual<T>& b) { return overlaps(a.v, b.v) && overlaps(a.d, b.d); }

// Joins of branches whose continuity the enclosures could not decide (see above).
struct JoinNotes {
  long unproven = 0;
};

// The switch between branches a and b somewhere in the box (see the rules above).
inline Enclosure join(const Enclosure& a, const Enclosure& b, JoinNotes*) { return hull(a, b); }
inline double join(double a, double b, JoinNotes*) { return a == b ? a : std::numeric_limits<double>::quiet_NaN(); }
template <class T>
Dual<T> join(const Dual<T>& a, const Dual<T>& b, JoinNotes* notes) {
  if (!overlaps(a.v, b.v)) return {join(a.v, b.v, notes), unbounded<T>()};  // a jump in the box: no derivative bound
  if (notes) ++notes->unproven;
  return {join(a.v, b.v, notes), join(a.d, b.d, notes)};
}
template <class T> Dual<T> hull(const Dual<T>& a, const Dual<T>& b) { return join(a, b, nullptr); }

// A comparison: a step, whose derivative is 0 where decided and unbounded where the box may hold its jump.
template <class T> Dual<T> step(const T& value) {
  if (decided(value)) return {value, T(0.0)};
  return {value, unbounded<T>()};
}
template <class T> Dual<T> less(const Dual<T>& a, const Dual<T>& b) { return step(less(a.v, b.v)); }
template <class T> Dual<T> less_equal(const Dual<T>& a, const Dual<T>& b) { return step(less_equal(a.v, b.v)); }
template <class T> Dual<T> equal(const Dual<T>& a, const Dual<T>& b) { return step(equal(a.v, b.v)); }

// The chain rule: f(a) with f(a.v) = fv and f'(a.v) = fd.
template <class T> Dual<T> chain(const Dual<T>& a, const T& fv, const T& fd) { return {fv, fd * a.d}; }

template <class T> Dual<T> sqrt(const Dual<T>& a) {
  using std::sqrt;
  const T s = sqrt(a.v);
  return {s, a.d / (T(2.0) * s)};
}
template <class T> Dual<T> exp(const Dual<T>& a) {
  using std::exp;
  const T e = exp(a.v);
  return chain(a, e, e);
}
template <class T> Dual<T> expm1(const Dual<T>& a) {
  using std::exp, std::expm1;
  return chain(a, expm1(a.v), exp(a.v));
}
template <class T> Dual<T> log(const Dual<T>& a) {
  using std::log;
  return {log(a.v), a.d / a.v};
}
template <class T> Dual<T> log1p(const Dual<T>& a) {
  using std::log1p;
  return {log1p(a.v), a.d / (T(1.0) + a.v)};
}
template <class T> Dual<T> sin(const Dual<T>& a) {
  using std::sin, std::cos;
  return chain(a, sin(a.v), cos(a.v));
}
template <class T> Dual<T> cos(const Dual<T>& a) {
  using std::sin, std::cos;
  return chain(a, cos(a.v), -sin(a.v));
}
template <class T> Dual<T> tanh(const Dual<T>& a) {
  using std::tanh, std::cosh;
  const T c = cosh(a.v);
  return {tanh(a.v), a.d / (c * c)};  // 1 − tanh², as 1/cosh² (no cancellation)
}
template <class T> Dual<T> atan(const Dual<T>& a) {
  using std::atan;
  return {atan(a.v), a.d / (T(1.0) + a.v * a.v)};
}
template <class T> Dual<T> sinh(const Dual<T>& a) {
  using std::sinh, std::cosh;
  return chain(a, sinh(a.v), cosh(a.v));
}
template <class T> Dual<T> cosh(const Dual<T>& a) {
  using std::sinh, std::cosh;
  return chain(a, cosh(a.v), sinh(a.v));
}
template <class T> Dual<T> erf(const Dual<T>& a) {
  using std::erf, std::exp;
  return chain(a, erf(a.v), constant<T>(2 / std::sqrt(std::numbers::pi)) * exp(-(a.v * a.v)));
}
template <class T> Dual<T> erfc(const Dual<T>& a) {
  using std::erfc, std::exp;
  return chain(a, erfc(a.v), -(constant<T>(2 / std::sqrt(std::numbers::pi)) * exp(-(a.v * a.v))));
}
template <class T> Dual<T> log_phi(const Dual<T>& a) { return {log_phi(a.v), -(a.v * a.d)}; }
template <class T> Dual<T> Phi(const Dual<T>& a) {
  using std::exp;
  return chain(a, Phi(a.v), exp(log_phi(a.v)));
}
template <class T> Dual<T> logPhi(const Dual<T>& a) {
  using std::exp;
  const T l = logPhi(a.v);
  return chain(a, l, exp(log_phi(a.v) - l));  // φ/Φ
}
template <class T> Dual<T> powi(const Dual<T>& a, int n) {
  if (n == 0) return Dual<T>(1.0);
  return {powi(a.v, n), T(static_cast<double>(n)) * powi(a.v, n - 1) * a.d};
}
template <class T> Dual<T> pow(const Dual<T>& a, const Dual<T>& b) { return exp(b * log(a)); }

inline Enclosure abs(const Enclosure& a, JoinNotes*) { return abs(a); }
inline Enclosure min(const Enclosure& a, const Enclosure& b, JoinNotes*) { return min(a, b); }
inline Enclosure max(const Enclosure& a, const Enclosure& b, JoinNotes*) { return max(a, b); }
inline double abs(double a, JoinNotes*) { return std::fabs(a); }
inline double min(double a, double b, JoinNotes*) { return std::min(a, b); }
inline double max(double a, double b, JoinNotes*) { return std::max(a, b); }

// Kinks: continuous switches (the value's join is the exact abs/min/max; derivatives by the join rule).
template <class T> Dual<T> abs(const Dual<T>& a, JoinNotes* notes = nullptr) {
  const auto negative = decided(less(a.v, T(0.0))), positive = decided(less(T(0.0), a.v));
  if (negative && *negative) return -a;
  if (positive && *positive) return a;
  if (negative && positive) return {T(0.0), T(0.0)};  // a point at 0: the subgradient 0
  Dual<T> r = join(-a, a, notes);
  r.v = abs(a.v, notes);
  return r;
}
template <class T> Dual<T> min(const Dual<T>& a, const Dual<T>& b, JoinNotes* notes = nullptr) {
  const auto c = decided(less_equal(a.v, b.v));
  if (c) return *c ? a : b;
  Dual<T> r = join(a, b, notes);
  r.v = min(a.v, b.v, notes);
  return r;
}
template <class T> Dual<T> max(const Dual<T>& a, const Dual<T>& b, JoinNotes* notes = nullptr) {
  const auto c = decided(less_equal(b.v, a.v));
  if (c) return *c ? a : b;
  Dual<T> r = join(a, b, notes);
  r.v = max(a.v, b.v, notes);
  return r;
}

}  // namespace privamp::sim
