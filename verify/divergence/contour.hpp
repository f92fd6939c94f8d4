// The hockey-stick divergence of a composition of one-dimensional density pairs by the saddle-point contour
// integral (the formula, its error bar and its refusals: composition.hpp and the README's "Compositions").
#pragma once

#include <limits>
#include <memory>
#include <vector>

#include "sim/laws/law.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

// T releases of μ against T releases of ν.
struct ReleasePair {
  const sim::Law* mu;
  const sim::Law* nu;
  long count;
};

// Evaluations of e^{itL} (points × nodes) one contour may take: about seven seconds (3e8 refused five releases of
// a subsampled Gaussian at q = 0.2 that 6e8 computes in 2.4 s).
inline constexpr double kMaxContourWork = 2e9;

class ContourIntegral {
 public:
  // InvalidArgument naming the pair where a release cannot be composed this way (atoms beside a density, laws
  // computed numerically, μ charging where ν does not).
  explicit ContourIntegral(const std::vector<ReleasePair>& pairs);
  ~ContourIntegral();
  ContourIntegral(ContourIntegral&&) noexcept;
  // HS_ε of the composition (ε ≥ 0), an a-posteriori estimate; NumericalError where the line needs more than
  // kMaxContourWork evaluations. loss_bound: an upper bound of |composed loss| (Σ T_i R_∞) where it is finite; the
  // trapezoid's aliasing is then bounded rigorously and kept below 1e-13 of the value (a finer step where needed).
  Estimate hockey_stick(double eps, double loss_bound = std::numeric_limits<double>::infinity()) const;
  // The abscissa of the line hockey_stick integrates on at eps: the saddle point of the integrand's modulus moved to
  // the nearest point of a grid, shared by neighbouring levels (the certified engine integrates on it too).
  double abscissa(double eps) const;

 private:
  class Engine;
  std::unique_ptr<Engine> engine_;
};

}  // namespace privamp::verify
