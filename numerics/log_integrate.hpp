// Adaptive quadrature of exp(h(x)) in log-space, for integrands that are astronomically large or small.
//
//   log ∫_lo^hi exp(h(x)) dx  =  M + log ∫ exp(h(x) − M) dx,    M ≈ max h
//
// The maximum M is located (scan of the anchors, geometric march into infinite ends, Brent refinement of every
// local maximum), the domain is split at the anchors, the refined maxima and a ladder of points around each
// maximum at its curvature width, and the pieces are integrated by a global adaptive Gauss–Kronrod (21/10) rule
// that bisects the piece with the largest error until the total error meets the tolerance. A march into an
// infinite end goes at least to `reach_lo`/`reach_hi` and stops only where h has dropped `margin` below the largest
// value of that march, is decreasing, and the tail beyond is negligible; the tail is bounded by the power law
// |x − x*|^{−c} read off the last two finite points (c non-decreasing over the last three: every log-concave tail and
// every power-law tail qualify) and added to the error bar. A tail that does not qualify — h rising at the end of
// the double range, +inf, c ≤ 1 — is unbounded: the integral's upper end is +inf (rel_error = inf), never a
// finite number that ignores it.
//
// Requirements on h: finite or −inf (NaN is an error), piecewise smooth between anchors; its local maxima are
// separated by the scan (the anchors plus points at most `scale`·2^k apart); beyond the march it keeps the
// decay the last points show. Templates over Real: instantiated for double (log_integrate.cpp) and for 50-digit binary floats
// (log_integrate_mp.cpp, declared in numerics/real50.hpp).
#pragma once

#include <functional>
#include <limits>
#include <vector>

namespace privamp {

template <class Real>
struct LogIntegral {
  Real log_value;          // log of the integral; −inf when the integrand vanishes on the whole domain
  Real rel_error;          // a-posteriori bound on |error|/value: Kronrod–Gauss difference + tails + rounding;
                           // +inf when a tail could not be bounded (the value is then the integral without it)
  // The part of rel_error that may lie below the value (the quadrature's and rounding's): tails and pruned pieces
  // only add mass, so the integral is at least value·(1 − rel_error_below) even when a tail is unbounded.
  Real rel_error_below = 0;
  long evaluations = 0;    // calls to h
  bool converged = false;  // false if the subdivision budget ran out before the tolerance was met
};

template <class Real>
struct LogIntegrateOptions {
  Real lo = -std::numeric_limits<Real>::infinity();
  Real hi = std::numeric_limits<Real>::infinity();
  Real scale = 1;       // characteristic length of h (step of the scan and of the march into infinite ends)
  Real rel_tol = 1e-13; // target relative error of the integral
  Real margin = 60;     // truncate infinite ends once h < M − margin (e^{-60} ≈ 1e-26)
  int max_intervals = 4000;
  // The march into an infinite end goes on at least to x ≥ reach_hi (x ≤ reach_lo): where the integrand's factors
  // are negligible (the density engine: both laws e^{−1e7} below their peaks). A mode beyond a dip deeper than
  // `margin` is then still sampled.
  Real reach_lo = 0, reach_hi = 0;
  // Optional bound on the absolute rounding error of h(x). Where h is a difference of large terms (Rényi at
  // α = 10^4 computes α·log p + (1−α)·log q with terms of 10^11), rounding limits the attainable relative accuracy
  // to about max h_error near the maximum: the subdivision stops there and the error bar includes it.
  // Without it, 8·eps·(|h| + 1) is assumed.
  std::function<Real(Real)> h_error;
};

template <class Real>
LogIntegral<Real> log_integrate(const std::function<Real(Real)>& h, std::vector<Real> anchors,
                                const LogIntegrateOptions<Real>& options);

extern template LogIntegral<double> log_integrate<double>(const std::function<double(double)>&,
                                                          std::vector<double>, const LogIntegrateOptions<double>&);

}  // namespace privamp
