// Non-negative generators of the Rényi excess and of KL, as functions of the privacy loss L = log(p/q):
//
//   J = ∫ p^α q^{1−α} − 1 = ∫ q·f_α(e^L),   f_α(r) = r^α − 1 − α(r − 1)  ≥ 0   (convexity of r^α)
//   KL = ∫ q·g(e^L),                         g(r)   = r log r − r + 1      ≥ 0
//
// (the added terms integrate to zero since ∫p = ∫q = 1, atoms included). Integrating these instead of
// p·expm1((α−1)L) or p·L avoids the cancellation between regions where L > 0 and L < 0, so small divergences
// keep their relative digits. Near L = 0 both are evaluated by their Taylor series.
#pragma once

#include <cmath>
#include <limits>
#include <optional>

#include "numerics/log_space.hpp"

namespace privamp::verify {

// log f_α(e^L); L may be −inf (f = α − 1). With t = α − 1 small, f = e^L·expm1(tL) − t·expm1(L) keeps its
// digits (the textbook form r^α − 1 − α(r − 1) cancels to O(t)).
template <class Real>
Real log_renyi_generator(const Real& l, const Real& alpha) {
  using std::abs;
  using std::exp;
  using std::expm1;
  using std::log;
  using std::log1p;
  const Real t = alpha - 1;
  if (l == -std::numeric_limits<Real>::infinity()) return log(t);
  const Real al = alpha * l;
  if (abs(al) < Real(0.1) && abs(l) < Real(0.1)) {
    // Σ_{k≥2} α(α^{k−1} − 1) L^k / k!, with a_k = α^{k−1} − 1 by a_2 = t, a_{k+1} = α·a_k + t: every term of
    // the recurrence is positive (α > 1), so a_k keeps its relative digits for small t (2k ulps at most).
    Real sum = 0, power = l, factorial = 1, a = t;  // L^k, k!, α^{k−1} − 1
    for (int k = 2; k < 60; ++k) {
      power *= l;
      factorial *= k;
      if (k > 2) a = alpha * a + t;
      const Real term = alpha * a * power / factorial;
      sum += term;
      if (abs(term) <= std::numeric_limits<Real>::epsilon() * abs(sum) / 4) break;
    }
    return log(sum);
  }
  const Real tl = t * l;
  if (t < 1 && tl < 600) {
    if (l > 30) return l + log(Real(expm1(tl) + t * expm1(-l)));
    return log(Real(exp(l) * expm1(tl) - t * expm1(l)));
  }
  // e^{−αL}(1 + α expm1(L)) = α e^{−tL} − t e^{−αL}, written so that a large L (a mixture component 1e-300 of the
  // weight, far out: L = 1359) does not form 0·inf = NaN.
  if (al > 30) return al + log1p(Real(-(alpha * exp(-tl) - t * exp(-al))));
  return log(Real(expm1(al) - alpha * expm1(l)));
}

// log g(e^L) = log(1 + e^L (L − 1)); L may be −inf (g = 1).
template <class Real>
Real log_kl_generator(const Real& l) {
  using std::abs;
  using std::exp;
  using std::log;
  using std::log1p;
  if (l == -std::numeric_limits<Real>::infinity()) return Real(0);
  if (abs(l) < Real(0.1)) {
    Real sum = 0, power = l, factorial = 1;  // Σ_{m≥2} (m−1) L^m / m!
    for (int m = 2; m < 60; ++m) {
      power *= l;
      factorial *= m;
      const Real term = Real(m - 1) * power / factorial;
      sum += term;
      if (abs(term) <= std::numeric_limits<Real>::epsilon() * abs(sum) / 4) break;
    }
    return log(sum);
  }
  if (l > 30) return l + log(Real(l - 1 + exp(-l)));
  return log1p(Real(exp(l) * (l - 1)));
}

// For a large loss, log f = slope·L + rest with `rest` of moderate size. The integrand q·f is then formed as
// e^{slope·log p + (1 − slope)·log q + rest}, never as log q + slope·L: where |log q| dwarfs |log p| (a Gaussian ν at
// x = 1e77 against a heavy-tailed μ) that sum cancels to nothing and leaves log L ≈ 700 as a false maximum.
template <class Real>
struct GeneratorSplit {
  Real slope, rest;
};
template <class Real>
std::optional<GeneratorSplit<Real>> split_kl_generator(const Real& l) {
  using std::exp;
  using std::log;
  if (!(l > 30)) return std::nullopt;
  return GeneratorSplit<Real>{Real(1), Real(log(Real(l - 1 + exp(-l))))};
}
template <class Real>
std::optional<GeneratorSplit<Real>> split_renyi_generator(const Real& l, const Real& alpha) {
  using std::exp;
  using std::expm1;
  using std::log;
  using std::log1p;
  const Real t = alpha - 1, tl = t * l, al = alpha * l;
  if (!(l > 30)) return std::nullopt;  // (the same branches as log_renyi_generator)
  if (t < 1 && tl < 600) return GeneratorSplit<Real>{Real(1), Real(log(Real(expm1(tl) + t * expm1(-l))))};
  return GeneratorSplit<Real>{alpha, Real(log1p(Real(-(alpha * exp(-tl) - t * exp(-al)))))};
}

// |d log f/dL|: how much an absolute error in L is amplified in log f (bounded by α + 2/|L|). Far below 0 the
// generator is 1 to all digits and its log flat: f = 1 + (e^{αL} − αe^L)/(α − 1) ≥ 1/2 and |f'| ≤ αe^L/(α − 1) once
// αe^L/(α − 1) ≤ e^{−40}, so the bound is 2αe^L/(α − 1) there (a loss of −5e17, rounded by hundreds of units, moves
// nothing; the bound α + 2/|L| made it a relative error of e^{4000}).
template <class Real>
Real renyi_generator_sensitivity(const Real& l, const Real& alpha) {
  using std::abs;
  using std::exp;
  using std::log;
  const Real ratio = alpha / (alpha - 1);
  if (l <= -40 - log(ratio)) return 2 * ratio * exp(l);
  return alpha + 2 / abs(l);
}
// The KL generator f = 1 + e^L(L − 1), f' = Le^L: below L = −40, f ≥ 1/2 and the bound is 2|L|e^L.
template <class Real>
Real kl_generator_sensitivity(const Real& l) {
  using std::abs;
  using std::exp;
  if (l == -std::numeric_limits<Real>::infinity()) return Real(0);  // (no 0·inf)
  if (l <= -40) return 2 * abs(l) * exp(l);
  return 1 + abs(l) + 2 / abs(l);
}

}  // namespace privamp::verify
