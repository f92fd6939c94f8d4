// 50-digit reference densities, written independently of sim/laws (the textbook formulas), for recomputing
// divergences with the multiprecision instantiation of the density engine.
#pragma once

#include <cmath>
#include <vector>

#include <boost/math/constants/constants.hpp>
#include <boost/math/special_functions/erf.hpp>

#include "numerics/real50.hpp"
#include "verify/divergence/density_pair.hpp"

namespace privamp::test {

using Real50 = privamp::Real50;

template <class Real>
Real gauss_lpdf(const Real& x, const Real& m, const Real& s) {
  using std::log;
  const Real z = (x - m) / s;
  return -z * z / 2 - log(s) - log(boost::math::constants::root_two_pi<Real>());
}

template <class Real>
Real laplace_lpdf(const Real& x, const Real& m, const Real& b) {
  using std::abs;
  using std::log;
  return -abs(x - m) / b - log(2 * b);
}

// log((1−q)e^{a} + q e^{b})
template <class Real>
Real mix_log(const Real& q, const Real& a, const Real& b) {
  using std::exp;
  using std::log;
  const Real m = a > b ? a : b;
  return m + log((1 - q) * exp(a - m) + q * exp(b - m));
}

// log Φ(x) = log(erfc(−x/√2)/2); no underflow at 50 digits (the exponent range of cpp_bin_float is huge);
// for x > 0 through log1p of the small complement, which 50 digits would otherwise round to log 1 = 0.
inline Real50 log_normal_cdf50(const Real50& x) {
  using std::log;
  using std::sqrt;
  if (x > 0) return log1p(Real50(-boost::math::erfc(Real50(x / sqrt(Real50(2)))) / 2));  // Φ(x) = 1 − Φ(−x)
  return log(boost::math::erfc(Real50(-x / sqrt(Real50(2))))) - log(Real50(2));
}

template <class F, class G>
verify::DensityPair<Real50> pair50(F log_p, G log_q, std::vector<Real50> anchors, Real50 scale) {
  verify::DensityPair<Real50> d;
  d.log_p = log_p;
  d.log_q = log_q;
  d.anchors = std::move(anchors);
  d.scale = scale;
  d.rel_tol = Real50("1e-30");
  return d;
}

}  // namespace privamp::test
