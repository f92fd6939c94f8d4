// The continuous part of a pair of laws (μ, ν) as the quadrature engine sees it: log-densities, where to look,
// and the support of μ's density. Templated on the real type so that the same engine runs in double and in
// 50-digit multiprecision (tests confirm double results to their stated error this way).
//
// Quantities, with the privacy loss L = log p − log q:
//   Rényi   log ∫ p^α q^{1−α}                    (direct, log-space, maximum factored out)
//           J = ∫ q·f_α(e^L)                     (the excess I − 1, non-negative integrand: generators.hpp)
//   KL      ∫ q·g(e^L)                           (non-negative integrand: generators.hpp)
//   HS_ε    ∫_{L>ε} p·(1 − e^{ε−L})              (crossings of L with ε located by a scan + TOMS 748)
//   sup L   scan + Brent refinement of local maxima
#pragma once

#include <functional>
#include <limits>
#include <vector>

#include "numerics/log_integrate.hpp"

namespace privamp::verify {

template <class Real>
struct DensityPair {
  std::function<Real(Real)> log_p;  // continuous part of μ (a sub-density is fine)
  std::function<Real(Real)> log_q;  // continuous part of ν
  std::vector<Real> anchors;        // modes, kinks, component centres of both laws
  std::vector<Real> p_anchors, q_anchors;  // the same, of each law (for the tilted modes of the Rényi integrand)
  Real scale = 1;                   // characteristic length
  Real fine_scale = 0;              // the laws' narrowest feature where far below `scale` (sim::Shape); 0: none
  Real lo = -std::numeric_limits<Real>::infinity();  // support of p's density
  Real hi = std::numeric_limits<Real>::infinity();
  Real q_lo = -std::numeric_limits<Real>::infinity();  // support of q's density
  Real q_hi = std::numeric_limits<Real>::infinity();
  Real rel_tol = 1e-13;
  // The loss log p − log q computed without cancellation (laws computed jointly, sim::PairLoss); empty: from log_p
  // and log_q. The generator integrals (Rényi excess, KL) can evaluate it pushed by loss_push·loss_delta: +1 away
  // from 0 (the largest the convex generator can be when the loss is known to ±δ), −1 towards 0 (the smallest).
  std::function<Real(Real)> loss;
  Real loss_delta = 0;
  int loss_push = 0;
};

// Thrown by the integrands when μ has density where ν has none: the divergence is +inf. Not where μ's log-density is
// below kFarLogDensity: there ν's −inf may be a density that left the double range (−|x|^1.6 at 1e192, log(1 + x²)
// at 1e154), not a gap in its support.
struct NotAbsolutelyContinuous {};
inline constexpr double kFarLogDensity = -1e7;

// The privacy loss sampled on a scan of μ's support; shared by all quantities of one pair.
template <class Real>
struct LossScan {
  std::vector<Real> x, loss, log_p;
  long evaluations = 0;
};

template <class Real>
struct SupResult {
  Real value;   // sup of L over the scan and refined maxima
  Real error;   // increase of L over the last step at an unbounded end (0 if L decreases there)
  long evaluations = 0;
};

template <class Real>
LossScan<Real> scan_loss(const DensityPair<Real>& pair);
template <class Real>
LogIntegral<Real> renyi_log_integral(const DensityPair<Real>& pair, Real alpha);
template <class Real>
LogIntegral<Real> renyi_excess_integral(const DensityPair<Real>& pair, Real alpha);
template <class Real>
LogIntegral<Real> kl_integral(const DensityPair<Real>& pair);
template <class Real>
LogIntegral<Real> hockey_stick_integral(const DensityPair<Real>& pair, const LossScan<Real>& scan, Real eps);
template <class Real>
SupResult<Real> sup_loss(const DensityPair<Real>& pair, const LossScan<Real>& scan);

}  // namespace privamp::verify
