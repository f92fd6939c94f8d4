// Rigorous interval arithmetic on doubles: an Enclosure [lo, hi] contains every value the operation can take for
// arguments in the argument enclosures. The basic operations (+ − × ÷ √) are correctly rounded in IEEE arithmetic;
// a result is widened by one ulp at an end only when that end was rounded (error-free transformations tell), so
// exact results stay exact (1 + [0, h] has lower end 1). The elementary functions of the C library are not
// correctly rounded (glibc documents errors of at most a few ulps): their ends are widened by 4 ulps unless the
// argument is a point where the value is exact (exp(0), log(1), tanh(0) …). A NaN end means the enclosure left the
// function's domain; an infinite end, that the function is unbounded there.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace privamp::sim {

struct Enclosure {
  double lo = 0, hi = 0;

  Enclosure() = default;
  Enclosure(double x) : lo(x), hi(x) {}  // NOLINT: a point is an enclosure of itself
  Enclosure(double l, double h) : lo(l), hi(h) {}

  bool is_point() const { return lo == hi; }
  bool finite() const { return std::isfinite(lo) && std::isfinite(hi); }
  bool valid() const { return !std::isnan(lo) && !std::isnan(hi); }
  bool contains(double x) const { return lo <= x && x <= hi; }
  double mid() const { return lo == hi ? lo : 0.5 * lo + 0.5 * hi; }
  double width() const { return hi - lo; }
  double mag() const { return std::max(std::fabs(lo), std::fabs(hi)); }  // sup |x|
  double mig() const { return contains(0) ? 0 : std::min(std::fabs(lo), std::fabs(hi)); }  // inf |x|
  // The doubles either side of x: encloses a number that was rounded to x (a decimal literal such as 0.1).
  static Enclosure around(double x) {
    return {std::nextafter(x, -std::numeric_limits<double>::infinity()), std::nextafter(x, std::numeric_limits<double>::infinity())};
  }
  static Enclosure whole() { return {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()}; }
  static Enclosure nan() { return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()}; }
};

inline Enclosure hull(const Enclosure& a, const Enclosure& b) {
  if (!a.valid() || !b.valid()) return Enclosure::nan();
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

// Whether a comparison result (0 or 1, or [0, 1] when undecided) is decided, and which way.
inline std::optional<bool> decided(const Enclosure& c) {
  if (c.lo == c.hi) return c.lo != 0;
  return std::nullopt;
}
inline std::optional<bool> decided(double c) { return c != 0; }
inline double hull(double a, double /*b*/) { return a; }  // points are always decided: never reached with doubles

Enclosure operator+(const Enclosure& a, const Enclosure& b);
Enclosure operator-(const Enclosure& a, const Enclosure& b);
Enclosure operator*(const Enclosure& a, const Enclosure& b);
Enclosure operator/(const Enclosure& a, const Enclosure& b);
inline Enclosure operator-(const Enclosure& a) { return {-a.hi, -a.lo}; }

// Comparisons give 1, 0, or [0, 1] when the enclosures overlap so that both outcomes are possible.
Enclosure less(const Enclosure& a, const Enclosure& b);
Enclosure less_equal(const Enclosure& a, const Enclosure& b);
Enclosure equal(const Enclosure& a, const Enclosure& b);
inline double less(double a, double b) { return a < b ? 1 : 0; }
inline double less_equal(double a, double b) { return a <= b ? 1 : 0; }
inline double equal(double a, double b) { return a == b ? 1 : 0; }

Enclosure sqrt(const Enclosure& a);
Enclosure exp(const Enclosure& a);
Enclosure log(const Enclosure& a);
Enclosure log1p(const Enclosure& a);
Enclosure expm1(const Enclosure& a);
Enclosure sin(const Enclosure& a);
Enclosure cos(const Enclosure& a);
Enclosure tanh(const Enclosure& a);
Enclosure atan(const Enclosure& a);
Enclosure sinh(const Enclosure& a);
Enclosure cosh(const Enclosure& a);
Enclosure erf(const Enclosure& a);
Enclosure erfc(const Enclosure& a);
Enclosure abs(const Enclosure& a);
Enclosure min(const Enclosure& a, const Enclosure& b);
Enclosure max(const Enclosure& a, const Enclosure& b);
Enclosure powi(const Enclosure& a, int n);      // integer power
Enclosure pow(const Enclosure& a, const Enclosure& b);  // real power: needs a > 0 unless b is an integer point
Enclosure Phi(const Enclosure& a);              // standard normal cdf
Enclosure logPhi(const Enclosure& a);
Enclosure log_phi(const Enclosure& a);          // log of the standard normal density

// The same functions on doubles, so that programs are written once for every number type.
// x^n for an integer n: x·x for squares (correctly rounded, as fast as written out), the C library's pow otherwise
// (within an ulp, where repeated squaring loses several).
inline double powi(double a, int n) {
  if (n == 1) return a;
  if (n == 2) return a * a;
  return std::pow(a, static_cast<double>(n));
}
double Phi(double a);
double logPhi(double a);
double log_phi(double a);

}  // namespace privamp::sim
