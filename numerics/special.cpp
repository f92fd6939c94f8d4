#include "numerics/special.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include <gsl/gsl_sf_erf.h>

#include "numerics/errors.hpp"

namespace privamp {

double log_normal_cdf(double x) {
  if (std::isnan(x)) throw_invalid("log_normal_cdf", "x", x, "a number");
  // Φ(x) = erfc(−x/√2)/2; GSL's log_erfc uses an asymptotic series for large arguments, so the far left
  // tail (x ≪ −38, where erfc underflows) stays exact in log-space.
  // GSL's log_erfc is NaN beyond an argument of about 1e76: from x = −1e8 on, the Mills-ratio series log Φ(x) =
  // −x²/2 − log(−x) − ½ log 2π + log(1 − x⁻² + 3x⁻⁴ − …), whose remainder (15x⁻⁶) is far below the rounding.
  if (x < -1e8) {
    const double t = 1 / (x * x);
    return -0.5 * x * x - std::log(-x) - 0.5 * std::log(2 * std::numbers::pi) + std::log1p(-t + 3 * t * t);
  }
  if (x < -1.0) return gsl_sf_log_erfc(-x / std::numbers::sqrt2) - std::numbers::ln2;
  // Right of −1, Φ(x) ≥ 0.16: log1p of the small complement keeps full relative accuracy as x → +∞. (Far right,
  // the result is conditioned like x²·eps by the rounding of x/√2 itself.)
  return std::log1p(-0.5 * std::erfc(x / std::numbers::sqrt2));
}

namespace {

// Stirling's series error term: log(n!) − [ (n+½)log(n+1)... ] per Loader (2000), "Fast and accurate
// computation of binomial probabilities": stirlerr(n) = log(n!) − log(√(2πn)(n/e)^n).
double stirlerr(double n) {
  constexpr double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680, s4 = 1.0 / 1188;
  if (n <= 15.0) {
    return std::lgamma(n + 1.0) - (n + 0.5) * std::log(n) + n - 0.5 * std::log(2.0 * std::numbers::pi);
  }
  const double nn = n * n;
  if (n > 500) return (s0 - s1 / nn) / n;
  if (n > 80) return (s0 - (s1 - s2 / nn) / nn) / n;
  if (n > 35) return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
  return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

// Deviance term bd0(x, np) = x log(x/np) + np − x, computed without cancellation when x ≈ np.
double bd0(double x, double np) {
  if (std::fabs(x - np) < 0.1 * (x + np)) {
    double v = (x - np) / (x + np);
    double s = (x - np) * v;
    double ej = 2 * x * v;
    v = v * v;
    for (int j = 1; j < 1000; ++j) {
      ej *= v;
      const double s1 = s + ej / (2 * j + 1);
      if (s1 == s) return s1;
      s = s1;
    }
  }
  return x * std::log(x / np) + np - x;
}

}  // namespace

double log_binomial_pmf(long k, long n, double p) { return log_binomial_pmf(k, n, p, 1.0 - p); }

double log_binomial_pmf(long k, long n, double p, double q) {
  if (n < 0) throw_invalid("log_binomial_pmf", "n", static_cast<double>(n), "n >= 0");
  check_probability("log_binomial_pmf", "p", p);
  check_probability("log_binomial_pmf", "q", q);
  if (k < 0 || k > n) return -std::numeric_limits<double>::infinity();
  if (p == 0) return k == 0 ? 0.0 : -std::numeric_limits<double>::infinity();
  if (q == 0) return k == n ? 0.0 : -std::numeric_limits<double>::infinity();
  const double nd = static_cast<double>(n), kd = static_cast<double>(k);
  if (k == 0) return nd * std::log(q);
  if (k == n) return nd * std::log(p);
  const double lc = stirlerr(nd) - stirlerr(kd) - stirlerr(nd - kd) - bd0(kd, nd * p) - bd0(nd - kd, nd * q);
  return lc + 0.5 * std::log(nd / (2.0 * std::numbers::pi * kd * (nd - kd)));
}

double log_binomial_coefficient(long n, long k) {
  if (n < 0 || k < 0 || k > n) throw_invalid("log_binomial_coefficient", "k", static_cast<double>(k), "0 <= k <= n");
  if (k == 0 || k == n) return 0.0;
  // C(n,k) = pmf(k; n, ½) · 2^n, and Loader's pmf is accurate to full relative precision.
  return log_binomial_pmf(k, n, 0.5) + static_cast<double>(n) * std::numbers::ln2;
}

}  // namespace privamp
