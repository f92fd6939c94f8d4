#include "sim/formulas/functions.hpp"

#include <algorithm>
#include <cstdint>

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

// lgamma is increasing on [2, ∞) (its minimum is at 1.4616…), where glibc's error is a few ulps: the ends are widened
// by 8 (twice the C library allowance of enclosure.cpp, as for Phi). lgamma(2) = 0 exactly.
Enclosure lgamma(const Enclosure& a) {
  if (!a.valid() || !(a.lo >= 2)) return Enclosure::nan();
  const auto end = [](double x, bool lower) {
    if (x == 2) return 0.0;
    const double v = std::lgamma(x);
    return lower ? std::max(0.0, ulps_down(v, 8)) : ulps_up(v, 8);
  };
  return {end(a.lo, true), end(a.hi, false)};
}

namespace {

// C(n, k) and its enclosure; NaN unless n >= 0 and k are integers.
struct Binomial {
  double value;
  Enclosure enclosure;
};
Binomial binomial(double n, double k) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (n != std::floor(n) || k != std::floor(k) || n < 0 || !std::isfinite(n) || !std::isfinite(k)) return {kNaN, Enclosure::nan()};
  if (k < 0 || k > n) return {0.0, 0.0};
  if (n <= 66) {  // C(n, i) = C(n, i−1)·(n − i + 1)/i, divided by gcd first: exact in 64 bits
    std::uint64_t c = 1;
    for (std::uint64_t i = 1; i <= static_cast<std::uint64_t>(std::min(k, n - k)); ++i) {
      const std::uint64_t g = std::gcd(c, i);
      c = c / g * ((static_cast<std::uint64_t>(n) - i + 1) / (i / g));
    }
    const double d = static_cast<double>(c);
    if (d <= kExactIntegers) return {d, d};  // exactly representable
    return {d, {std::nextafter(d, 0.0), std::nextafter(d, kInf)}};
  }
  const double d = std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1));
  const double rel = 16 * std::numeric_limits<double>::epsilon() * (std::lgamma(n + 1) + 1);  // lgamma's rounding
  return {d, {d * (1 - rel), d * (1 + rel)}};
}

}  // namespace

Enclosure binom(const Enclosure& n, const Enclosure& k) {
  if (!n.is_point() || !k.is_point()) return Enclosure::nan();
  return binomial(n.lo, k.lo).enclosure;
}

double binom(double n, double k) { return binomial(n, k).value; }

}  // namespace privamp::sim
