#include "sim/formulas/functions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "numerics/constants.hpp"

namespace privamp::sim {

namespace {

double ulps_down(double x, int ulps) {
  for (int i = 0; i < ulps; ++i) x = std::nextafter(x, -kInf);
  return x;
}
double ulps_up(double x, int ulps) {
  for (int i = 0; i < ulps; ++i) x = std::nextafter(x, kInf);
  return x;
}

constexpr double kExactIntegers = 9007199254740992.0;  // 2^53: every integer up to it is a double

}  // namespace

Enclosure floor(const Enclosure& a) {
  if (!a.valid()) return Enclosure::nan();
  return {std::floor(a.lo), std::floor(a.hi)};
}

Enclosure ceil(const Enclosure& a) {
  if (!a.valid()) return Enclosure::nan();
  return {std::ceil(a.lo), std::ceil(a.hi)};
}

// lgamma on (0, ∞): decreasing up to its minimum at x0 = 1.46163…, increasing beyond. Each end is glibc's value
// widened by 8 ulps and by 4 ulps of 1 absolute (near its zeros at 1 and 2 the value is small and an ulp of it says
// little); the minimum, where the interval holds x0, by a constant below it. Left of 0, between two poles, by the
// reflection formula lgamma(x) = log(π / |sin(πx)|) − lgamma(1 − x) in these enclosures; an interval holding a pole
// (0, −1, −2, …) is NaN.
Enclosure lgamma(const Enclosure& a) {
  if (!a.valid()) return Enclosure::nan();
  if (!(a.lo > 0)) {
    if (!(a.hi < 0) || std::floor(a.lo) != std::floor(a.hi) || a.lo == std::floor(a.lo)) return Enclosure::nan();
    const Enclosure pi(std::numbers::pi, std::nextafter(std::numbers::pi, 4.0));  // π's double is below π
    return log(pi / abs(sin(pi * a))) - lgamma(Enclosure(1) - a);
  }
  constexpr double x0 = 1.4616321449683623, minimum = -0.12148629053584970;  // lgamma(x0) = −0.1214862905358496…
  constexpr double absolute = 4 * std::numeric_limits<double>::epsilon() / 2;
  const auto lower = [&](double x) { return x == 1 || x == 2 ? 0.0 : ulps_down(std::lgamma(x), 8) - absolute; };
  const auto upper = [&](double x) { return x == 1 || x == 2 ? 0.0 : ulps_up(std::lgamma(x), 8) + absolute; };
  if (a.hi <= x0) return {std::max(minimum, lower(a.hi)), upper(a.lo)};
  if (a.lo >= x0) return {std::max(minimum, lower(a.lo)), upper(a.hi)};
  return {minimum, std::max(upper(a.lo), upper(a.hi))};
}

namespace {

// C(n, k) and its enclosure; NaN unless n and k are integers with 0 <= n <= 2^53 (beyond, n + 1 is no double).
//  - n <= 66: exact in 64 bits (an ulp either side when it exceeds 2^53);
//  - else min(k, n − k) = m <= 64: the product of (n − m + i)/i over i = 1..m, in rigorous interval arithmetic (a
//    bounded cost per call: sum() may call it 10^6 times);
//  - else exp(lgamma(n + 1) − lgamma(k + 1) − lgamma(n − k + 1)), the exponent's error bounded by 16 eps times the
//    sum of the magnitudes of its terms (each lgamma within a few ulps, then two subtractions), exp's by 4 ulps.
struct Binomial {
  double value;
  Enclosure enclosure;
};
Binomial binomial(double n, double k) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (n != std::floor(n) || k != std::floor(k) || n < 0 || n > kExactIntegers || !std::isfinite(k)) return {kNaN, Enclosure::nan()};
  if (k < 0 || k > n) return {0.0, 0.0};
  const double m = std::min(k, n - k);
  if (n <= 66) {  // C(n, i) = C(n, i−1)·(n − i + 1)/i, divided by gcd first: exact in 64 bits
    std::uint64_t c = 1;
    for (std::uint64_t i = 1; i <= static_cast<std::uint64_t>(m); ++i) {
      const std::uint64_t g = std::gcd(c, i);
      c = c / g * ((static_cast<std::uint64_t>(n) - i + 1) / (i / g));
    }
    const double d = static_cast<double>(c);
    if (d <= kExactIntegers) return {d, d};  // exactly representable
    return {d, {std::nextafter(d, 0.0), std::nextafter(d, kInf)}};
  }
  if (m <= 64) {
    double value = 1;
    Enclosure product = 1.0;
    for (double i = 1; i <= m; ++i) {
      const double factor = (n - m + i) / i;  // n − m + i is an exact integer (n <= 2^53)
      value *= factor;
      product = product * (Enclosure(n - m + i) / Enclosure(i));
    }
    return {value, product};
  }
  const double l1 = std::lgamma(n + 1), l2 = std::lgamma(k + 1), l3 = std::lgamma(n - k + 1);
  const double exponent = l1 - l2 - l3, error = 16 * std::numeric_limits<double>::epsilon() * (std::fabs(l1) + std::fabs(l2) + std::fabs(l3));
  const double d = std::exp(exponent);
  return {d, {ulps_down(std::exp(exponent - error), 4), ulps_up(std::exp(exponent + error), 4)}};
}

}  // namespace

Enclosure binom(const Enclosure& n, const Enclosure& k) {
  if (!n.is_point() || !k.is_point()) return Enclosure::nan();
  return binomial(n.lo, k.lo).enclosure;
}

double binom(double n, double k) { return binomial(n, k).value; }

}  // namespace privamp::sim
