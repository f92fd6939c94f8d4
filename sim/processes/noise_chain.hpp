// Noise chains on ℝ without projection, exact laws (THEOREMS E1, E3, T4 with linear ψ):
//   X_0 ~ N(x0, σ0²),  X_i = L·X_{i−1} + Z_i,  Z_i ~ N(0, σ²)
//   ⇒ X_r ~ N(L^r x0, L^{2r} σ0² + σ² Σ_{j=0}^{r−1} L^{2j}).
// With σ0 = 0 the chain starts from a point (the W∞-neighbouring point masses of T4).
#pragma once

#include "sim/laws/gaussian.hpp"

namespace privamp::sim {

Gaussian linear_gaussian_chain(double x0, double sigma0, double lipschitz, double sigma, int steps);

}  // namespace privamp::sim
