// Dual numbers: a value and its derivative, carried through every operation by the chain rule (forward-mode
// automatic differentiation). Dual<double> gives f'(x) at a point; Dual<Enclosure> an enclosure of f' over an
// interval (what certifies a Lipschitz constant); Dual<Dual<T>> the second derivative. Where a function is not
// differentiable (abs at 0, min/max, if() at a switch) and the argument's enclosure does not decide the branch, the
// derivative is the hull of the branches' derivatives, which contains the one-sided derivatives (Clarke's
// generalised gradient) of a continuous piecewise formula.
#pragma once

#include <cmath>
#include <numbers>
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

template <class T> Dual<T> less(const Dual<T>& a, const Dual<T>& b) { return {less(a.v, b.v), T(0.0)}; }
template <class T> Dual<T> less_equal(const Dual<T>& a, const Dual<T>& b) { return {less_equal(a.v, b.v), T(0.0)}; }
template <class T> Dual<T> equal(const Dual<T>& a, const Dual<T>& b) { return {equal(a.v, b.v), T(0.0)}; }
template <class T> std::optional<bool> decided(const Dual<T>& c) { return decided(c.v); }
template <class T> Dual<T> hull(const Dual<T>& a, const Dual<T>& b) { return {hull(a.v, b.v), hull(a.d, b.d)}; }

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

template <class T> Dual<T> abs(const Dual<T>& a) {
  const auto negative = decided(less(a.v, T(0.0))), positive = decided(less(T(0.0), a.v));
  if (negative && *negative) return -a;
  if (positive && *positive) return a;
  if (negative && positive) return {T(0.0), T(0.0)};  // a point at 0: the subgradient 0
  using std::abs;
  return {abs(a.v), hull(a.d, -a.d)};
}
template <class T> Dual<T> min(const Dual<T>& a, const Dual<T>& b) {
  using std::min;
  const auto c = decided(less_equal(a.v, b.v));
  if (c) return *c ? a : b;
  return {min(a.v, b.v), hull(a.d, b.d)};
}
template <class T> Dual<T> max(const Dual<T>& a, const Dual<T>& b) {
  using std::max;
  const auto c = decided(less_equal(b.v, a.v));
  if (c) return *c ? a : b;
  return {max(a.v, b.v), hull(a.d, b.d)};
}

}  // namespace privamp::sim
