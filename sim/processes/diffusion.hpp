// Diffusions with additive noise, dX = a(X) dt + b dW on ℝ, simulated as a population of independent paths.
//
// Ornstein–Uhlenbeck dX = −θX dt + √2 ρ dW has the exact semigroup (THEOREMS GT.ou.law)
//   P_t(x) = N(e^{−θt} x, (ρ²/θ)(1 − e^{−2θt}))        (θ → 0: Brownian motion N(x, 2ρ²t), GT.bm.law)
// and in d dimensions the same law coordinate-wise (isotropic). The steppers below follow Boost.Odeint's Stepper
// concept (state = one entry per path; the system is a pair (drift, noise) as in odeint's stochastic Euler
// example), so they run under odeint's integrate_n_steps:
//   EulerMaruyamaStepper   X' = X + a(X)dt + b ΔW                                      weak order 1
//   StochasticHeunStepper  X̄ = X + a(X)dt + bΔW, X' = X + ½(a(X) + a(X̄))dt + bΔW       weak order 2 (additive noise)
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/laws/gaussian.hpp"

namespace privamp::sim {

class Rng;

struct AdditiveSde {
  std::function<double(double)> drift;  // a(x)
  double noise;                          // b
};

struct OrnsteinUhlenbeck {
  double theta;  // mean-reversion rate, ≥ 0 (0: Brownian motion with diffusion 2ρ²)
  double rho;    // > 0
  OrnsteinUhlenbeck(double theta, double rho);
  double mean_factor(double t) const;  // e^{−θt}
  double variance(double t) const;     // (ρ²/θ)(1 − e^{−2θt}), 2ρ²t at θ = 0
  Gaussian law(double x0, double t) const;
  GaussianND law(const std::vector<double>& x0, double t) const;
  AdditiveSde sde() const;
};

enum class SdeScheme { euler_maruyama, heun, exact_ou };

// Terminal values X_t of `paths` independent paths from x0 with `steps` equal steps. Streams are split into fixed
// chunks of paths so that results do not depend on scheduling. exact_ou steps the OU transition law exactly.
std::vector<double> simulate_terminal(const AdditiveSde& sde, double x0, double t, int steps, SdeScheme scheme,
                                      long paths, std::uint64_t seed, const OrnsteinUhlenbeck* exact = nullptr);

// The scheme's own mean and variance after n steps for OU (linear drift), from its exact moment recursion:
// what a simulation with that scheme must reproduce, and how far it is from the true law (weak error).
struct SchemeMoments {
  double mean, variance;
};
SchemeMoments ou_scheme_moments(const OrnsteinUhlenbeck& ou, double x0, double t, int steps, SdeScheme scheme);

}  // namespace privamp::sim
