#include "numerics/constants.hpp"
#include "sim/formulas/enclosure.hpp"

#include <array>
#include <numbers>

#include "numerics/special.hpp"

namespace privamp::sim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr double kMax = std::numeric_limits<double>::max();

// A result rounded to ±inf from finite operands overflowed: its true value is finite, so a lower end is the largest
// double and an upper end the lowest (inf there once divided into a bound, which read [0, 0]: "violated").
double overflow_down(double r, double a, double b) { return r == kInf && std::isfinite(a) && std::isfinite(b) ? kMax : r; }
double overflow_up(double r, double a, double b) { return r == -kInf && std::isfinite(a) && std::isfinite(b) ? -kMax : r; }

double down(double x, int ulps = 1) {
  for (int i = 0; i < ulps; ++i) x = std::nextafter(x, -kInf);
  return x;
}
double up(double x, int ulps = 1) {
  for (int i = 0; i < ulps; ++i) x = std::nextafter(x, kInf);
  return x;
}

// a + b rounded down and up: the error of the rounded sum is exact (TwoSum), so an exact sum is not widened.
double add_down(double a, double b) {
  const double s = a + b;
  if (!std::isfinite(s)) return overflow_down(s, a, b);
  const double bb = s - a, err = (a - (s - bb)) + (b - bb);
  return err < 0 ? down(s) : s;
}
double add_up(double a, double b) {
  const double s = a + b;
  if (!std::isfinite(s)) return overflow_up(s, a, b);
  const double bb = s - a, err = (a - (s - bb)) + (b - bb);
  return err > 0 ? up(s) : s;
}
// a × b rounded down and up (the rounding error is fma(a, b, −p)); 0 × ∞ counts as 0.
double mul_down(double a, double b) {
  if (a == 0 || b == 0) return 0;
  const double p = a * b;
  if (!std::isfinite(p)) return overflow_down(p, a, b);
  if (std::fabs(p) < 1e-290) return down(p);  // near underflow the rounding error is not exact: widen
  return std::fma(a, b, -p) < 0 ? down(p) : p;
}
double mul_up(double a, double b) {
  if (a == 0 || b == 0) return 0;
  const double p = a * b;
  if (!std::isfinite(p)) return overflow_up(p, a, b);
  if (std::fabs(p) < 1e-290) return up(p);
  return std::fma(a, b, -p) > 0 ? up(p) : p;
}
// a / b rounded down and up: q·b − a = r tells the side of the rounding (b ≠ 0).
double div_down(double a, double b) {
  const double q = a / b;
  if (!std::isfinite(q) || !std::isfinite(b) || !std::isfinite(a)) return b != 0 ? overflow_down(q, a, b) : q;
  if (std::fabs(q) < 1e-290) return down(q);  // near underflow: widen
  const double r = std::fma(q, b, -a);
  return r != 0 && ((r > 0) == (b > 0)) ? down(q) : q;
}
double div_up(double a, double b) {
  const double q = a / b;
  if (!std::isfinite(q) || !std::isfinite(b) || !std::isfinite(a)) return b != 0 ? overflow_up(q, a, b) : q;
  if (std::fabs(q) < 1e-290) return up(q);
  const double r = std::fma(q, b, -a);
  return r != 0 && ((r > 0) != (b > 0)) ? up(q) : q;
}

constexpr int kLibmUlps = 4;

// An end of an elementary function: widened by kLibmUlps unless the argument is the function's exact point.
// An infinite value is kept (a pole, or an overflow: then a lower end of +inf would claim too much, see increasing()).
double end_down(double value, bool exact) { return exact || !std::isfinite(value) ? value : down(value, kLibmUlps); }
double end_up(double value, bool exact) { return exact || !std::isfinite(value) ? value : up(value, kLibmUlps); }

// f increasing on the enclosure (callers check the domain); `exact_at` is the argument where f's value is exact.
template <class F>
Enclosure increasing(const Enclosure& a, F f, double exact_at = 0) {
  if (!a.valid()) return Enclosure::nan();
  // (f of a finite argument at +inf as a lower end overflowed, exp(800): the largest double; likewise −inf as an upper end)
  return {overflow_down(end_down(f(a.lo), a.lo == exact_at), a.lo, 0), overflow_up(end_up(f(a.hi), a.hi == exact_at), a.hi, 0)};
}
Enclosure clamp_to(Enclosure r, double lo, double hi) {
  if (!r.valid()) return r;
  return {std::clamp(r.lo, lo, hi), std::clamp(r.hi, lo, hi)};
}

}  // namespace

Enclosure operator+(const Enclosure& a, const Enclosure& b) { return {add_down(a.lo, b.lo), add_up(a.hi, b.hi)}; }
Enclosure operator-(const Enclosure& a, const Enclosure& b) { return {add_down(a.lo, -b.hi), add_up(a.hi, -b.lo)}; }

Enclosure operator*(const Enclosure& a, const Enclosure& b) {
  if (!a.valid() || !b.valid()) return Enclosure::nan();
  const std::array<double, 4> lows = {mul_down(a.lo, b.lo), mul_down(a.lo, b.hi), mul_down(a.hi, b.lo), mul_down(a.hi, b.hi)};
  const std::array<double, 4> highs = {mul_up(a.lo, b.lo), mul_up(a.lo, b.hi), mul_up(a.hi, b.lo), mul_up(a.hi, b.hi)};
  return {*std::min_element(lows.begin(), lows.end()), *std::max_element(highs.begin(), highs.end())};
}

Enclosure operator/(const Enclosure& a, const Enclosure& b) {
  if (!a.valid() || !b.valid()) return Enclosure::nan();
  if (b.lo == 0 && b.hi == 0) return Enclosure::nan();
  if (b.contains(0)) return Enclosure::whole();
  const std::array<double, 4> lows = {div_down(a.lo, b.lo), div_down(a.lo, b.hi), div_down(a.hi, b.lo), div_down(a.hi, b.hi)};
  const std::array<double, 4> highs = {div_up(a.lo, b.lo), div_up(a.lo, b.hi), div_up(a.hi, b.lo), div_up(a.hi, b.hi)};
  for (double x : lows)
    if (std::isnan(x)) return Enclosure::whole();  // ∞/∞
  return {*std::min_element(lows.begin(), lows.end()), *std::max_element(highs.begin(), highs.end())};
}

Enclosure less(const Enclosure& a, const Enclosure& b) {
  if (a.hi < b.lo) return 1.0;
  if (a.lo >= b.hi) return 0.0;
  return {0, 1};
}
Enclosure less_equal(const Enclosure& a, const Enclosure& b) {
  if (a.hi <= b.lo) return 1.0;
  if (a.lo > b.hi) return 0.0;
  return {0, 1};
}
Enclosure equal(const Enclosure& a, const Enclosure& b) {
  if (a.is_point() && b.is_point() && a.lo == b.lo) return 1.0;
  if (a.hi < b.lo || b.hi < a.lo) return 0.0;
  return {0, 1};
}

Enclosure sqrt(const Enclosure& a) {
  if (!a.valid() || a.lo < 0) return Enclosure::nan();
  auto root_down = [](double x) {
    const double s = std::sqrt(x);
    return std::isfinite(s) && std::fma(s, s, -x) > 0 ? down(s) : s;
  };
  auto root_up = [](double x) {
    const double s = std::sqrt(x);
    return std::isfinite(s) && std::fma(s, s, -x) < 0 ? up(s) : s;
  };
  return {root_down(a.lo), root_up(a.hi)};
}

Enclosure exp(const Enclosure& a) {
  return clamp_to(increasing(a, [](double t) { return std::exp(t); }), 0, kInf);
}
Enclosure expm1(const Enclosure& a) {
  return clamp_to(increasing(a, [](double t) { return std::expm1(t); }), -1, kInf);
}
Enclosure log(const Enclosure& a) {
  if (!a.valid() || a.lo < 0) return Enclosure::nan();
  return increasing(a, [](double t) { return std::log(t); }, 1.0);  // log(0) = −∞: unbounded, not NaN
}
Enclosure log1p(const Enclosure& a) {
  if (!a.valid() || a.lo < -1) return Enclosure::nan();
  return increasing(a, [](double t) { return std::log1p(t); });
}
Enclosure tanh(const Enclosure& a) { return clamp_to(increasing(a, [](double t) { return std::tanh(t); }), -1, 1); }
Enclosure atan(const Enclosure& a) {
  const double half_pi = up(std::numbers::pi / 2);
  return clamp_to(increasing(a, [](double t) { return std::atan(t); }), -half_pi, half_pi);
}
Enclosure sinh(const Enclosure& a) { return increasing(a, [](double t) { return std::sinh(t); }); }
Enclosure erf(const Enclosure& a) { return clamp_to(increasing(a, [](double t) { return std::erf(t); }), -1, 1); }
Enclosure erfc(const Enclosure& a) {  // decreasing
  if (!a.valid()) return Enclosure::nan();
  return clamp_to({end_down(std::erfc(a.hi), a.hi == 0), end_up(std::erfc(a.lo), a.lo == 0)}, 0, 2);
}

Enclosure cosh(const Enclosure& a) {
  if (!a.valid()) return Enclosure::nan();
  const double m = a.mag(), n = a.mig();
  return clamp_to({end_down(std::cosh(n), n == 0), end_up(std::cosh(m), m == 0)}, 1, kInf);
}

namespace {
// Whether some t0 + 2πk lies in [lo, hi] (widened by a relative 1e-15 for the rounding of 2π and t0).
bool hits(double lo, double hi, double t0) {
  const double two_pi = 2 * std::numbers::pi, slack = 1e-15 * std::max({1.0, std::fabs(lo), std::fabs(hi)});
  const double k = std::ceil((lo - slack - t0) / two_pi);
  return t0 + k * two_pi <= hi + slack;
}
Enclosure periodic(const Enclosure& a, double (*f)(double), double max_at, double min_at) {
  if (!a.valid()) return Enclosure::nan();
  if (!a.finite() || a.width() >= 2 * std::numbers::pi) return {-1, 1};
  const double x = f(a.lo), y = f(a.hi);
  Enclosure r{end_down(std::min(x, y), a.is_point() && a.lo == 0), end_up(std::max(x, y), a.is_point() && a.lo == 0)};
  if (hits(a.lo, a.hi, max_at)) r.hi = 1;
  if (hits(a.lo, a.hi, min_at)) r.lo = -1;
  return clamp_to(r, -1, 1);
}
}  // namespace

Enclosure sin(const Enclosure& a) {
  return periodic(a, [](double t) { return std::sin(t); }, std::numbers::pi / 2, -std::numbers::pi / 2);
}
Enclosure cos(const Enclosure& a) { return periodic(a, [](double t) { return std::cos(t); }, 0, std::numbers::pi); }

Enclosure abs(const Enclosure& a) {
  if (!a.valid()) return Enclosure::nan();
  if (a.lo >= 0) return a;
  if (a.hi <= 0) return -a;
  return {0, a.mag()};
}
Enclosure min(const Enclosure& a, const Enclosure& b) {
  if (!a.valid() || !b.valid()) return Enclosure::nan();
  return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
}
Enclosure max(const Enclosure& a, const Enclosure& b) {
  if (!a.valid() || !b.valid()) return Enclosure::nan();
  return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
}

namespace {
// m^n for m ≥ 0 by binary powering of enclosures: rigorous and exact where the products are.
Enclosure power_of_nonnegative(double m, int n) {
  Enclosure result = 1.0, base = m;
  for (int k = n; k > 0; k >>= 1) {
    if (k & 1) result = result * base;
    base = base * base;
  }
  return result;
}
}  // namespace

Enclosure powi(const Enclosure& a, int n) {
  if (!a.valid()) return Enclosure::nan();
  if (n == 0) return 1.0;
  if (n < 0) return Enclosure(1.0) / powi(a, -n);
  if (n % 2 == 0) {  // even: a function of |x|
    const Enclosure m = abs(a);
    return {power_of_nonnegative(m.lo, n).lo, power_of_nonnegative(m.hi, n).hi};
  }
  auto odd = [n](double x) { return x >= 0 ? power_of_nonnegative(x, n) : -power_of_nonnegative(-x, n); };
  return {odd(a.lo).lo, odd(a.hi).hi};
}

Enclosure pow(const Enclosure& a, const Enclosure& b) {
  if (!a.valid() || !b.valid()) return Enclosure::nan();
  // An integer exponent: x^k by binary powering, defined for x < 0 too (log2 k products).
  if (b.is_point() && b.lo == std::floor(b.lo) && std::fabs(b.lo) <= 2147483647.0) return powi(a, static_cast<int>(b.lo));
  // A larger integer exponent (every double from 2^53 on is an even integer): the power of |x| with x's sign where
  // the exponent is odd ((-1)^1e18 is 1; it had no enclosure, "an intermediate value overflows").
  if (b.is_point() && b.lo == std::floor(b.lo) && std::isfinite(b.lo) && a.lo < 0) {
    if (b.lo < 0) return Enclosure(1.0) / pow(a, -b);
    const bool odd = b.lo < 9007199254740992.0 && std::fmod(b.lo, 2.0) != 0;
    const Enclosure low = pow(Enclosure(-a.lo), b), high = pow(Enclosure(std::fabs(a.hi)), b);  // |a.lo|^b, |a.hi|^b
    if (!low.valid() || !high.valid()) return Enclosure::nan();
    if (odd) return {-low.hi, a.hi <= 0 ? -high.lo : high.hi};  // increasing
    return a.hi <= 0 ? Enclosure{high.lo, low.hi} : Enclosure{0.0, std::max(low.hi, high.hi)};  // a function of |x|
  }
  if (a.lo < 0) return Enclosure::nan();
  if (a.lo == 0 && a.hi == 0) return b.lo > 0 ? Enclosure(0.0) : Enclosure::nan();
  if (a.lo == 0) {  // x^b on [0, hi] for b > 0: [0, hi^b]
    if (!(b.lo > 0)) return Enclosure::whole();
    const Enclosure top = exp(b * log(Enclosure(a.hi)));  // over b's interval: the largest of hi^b
    return {0, top.hi};
  }
  return exp(b * log(a));
}

double Phi(double a) { return 0.5 * std::erfc(-a / std::numbers::sqrt2); }
double logPhi(double a) { return log_normal_cdf(a); }
double log_phi(double a) { return -0.5 * a * a - 0.91893853320467274178; }

// Φ(x) = erfc(u)/2 at u = −x/√2 enclosed rigorously: rounding x/√2 alone would move erfc by about 2u² ulps in the
// far tail (1500 ulps at x = −37). erfc is decreasing; its own error and the halving are within 8 ulps.
Enclosure Phi(const Enclosure& a) {
  if (!a.valid()) return Enclosure::nan();
  static const Enclosure inv_sqrt2{down(std::numbers::sqrt2 / 2), up(std::numbers::sqrt2 / 2)};
  const Enclosure u = -(a * inv_sqrt2);
  const double lo = a.lo == 0 ? 0.5 : down(0.5 * std::erfc(u.hi), 2 * kLibmUlps);
  const double hi = a.hi == 0 ? 0.5 : up(0.5 * std::erfc(u.lo), 2 * kLibmUlps);
  return clamp_to({lo, hi}, 0, 1);
}
// log Φ, increasing. Left of −1, log_normal_cdf's log-erfc series (the rounding of x/√2 moves log Φ ≈ −x²/2 by about
// x²·eps, relative eps): 16 ulps. Right of it, log1p(−Φ(−x)) from Φ's rigorous enclosure (log_normal_cdf's own
// log1p(−erfc(x/√2)/2) carries the x²·eps error of that rounding there).
Enclosure logPhi(const Enclosure& a) {
  if (!a.valid()) return Enclosure::nan();
  const auto end = [](double x, bool lower) {
    if (x < -1) return lower ? down(logPhi(x), 4 * kLibmUlps) : up(logPhi(x), 4 * kLibmUlps);
    const Enclosure e = log1p(-Phi(Enclosure(-x)));
    return lower ? e.lo : e.hi;
  };
  return clamp_to({end(a.lo, true), end(a.hi, false)}, -kInf, 0);
}
Enclosure log_phi(const Enclosure& a) {
  const Enclosure log_sqrt_2pi{down(0.91893853320467274178), up(0.91893853320467274178)};
  return Enclosure(-0.5) * powi(a, 2) - log_sqrt_2pi;
}

}  // namespace privamp::sim
