// Finite Markov kernels (row-stochastic matrices) and the mixing coefficients of Definition 1 (paper §3):
//   γ-Dobrushin           sup_{x,x'} TV(K(x), K(x')) ≤ γ
//   (γ,ε)-Dobrushin       sup_{x,x'} HS_ε(K(x) ‖ K(x')) ≤ γ
//   γ-Doeblin             K(x) ≥ (1−γ)ω for all x; on a finite space the best is γ = 1 − Σ_y min_x K(x,y),
//                         ω = min_x K(x,·)/(1−γ)
//   γ-ultra-mixing        dK(x)/dK(x') ≥ 1−γ; finite: γ = 1 − min_{x,x',y} K(x,y)/K(x',y)
// Laws on the state space {0, …, n−1} are probability vectors; μK is the row vector μ times K.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace privamp::sim {

class Rng;

class FiniteKernel {
 public:
  // Checks: square, finite, entries ≥ 0, each row sums to 1 within `tolerance`.
  explicit FiniteKernel(Eigen::MatrixXd matrix, double tolerance = 1e-12);

  int size() const { return static_cast<int>(k_.rows()); }
  const Eigen::MatrixXd& matrix() const { return k_; }
  Eigen::VectorXd row(int x) const { return k_.row(x).transpose(); }

  // μK^t for a probability vector μ (checked).
  Eigen::VectorXd push(const Eigen::VectorXd& mu, int steps = 1) const;
  // μK^t and the difference νK^t − μK^t propagated on its own: laws of long chains differ by far less than the
  // rounding of either (μK^t − νK^t of two separately pushed laws is pure rounding below ~1e-16). Each step removes
  // the mass that rounding gives the difference, the one direction K never contracts.
  std::pair<Eigen::VectorXd, Eigen::VectorXd> push_pair(const Eigen::VectorXd& mu, const Eigen::VectorXd& nu, int steps) const;
  // A path X_0 = x0, X_1, …, X_steps of the chain.
  std::vector<int> path(int x0, int steps, Rng& rng) const;

 private:
  Eigen::MatrixXd k_;
  std::vector<std::vector<double>> cumulative_;  // row-wise CDFs for sampling
};

struct MixingCoefficients {
  double dobrushin;        // sup TV(K(x), K(x'))
  double doeblin;          // 1 − Σ_y min_x K(x,y)
  Eigen::VectorXd omega;   // the Doeblin law min_x K(x,·)/(1−γ) (uniform when γ = 1 leaves nothing)
  double ultra_mixing;     // 1 − min K(x,y)/K(x',y) (1 when some column has a zero and a non-zero)
  double ultra_mixing_ldp; // log(1/(1−γ)) = max log K(x,y)/K(x',y), computed directly (MIX.ldp); inf if unbounded
};

MixingCoefficients mixing_coefficients(const FiniteKernel& kernel);
// sup_{x,x'} HS_ε(K(x) ‖ K(x')): the smallest γ for which K is (γ,ε)-Dobrushin.
double dobrushin_at(const FiniteKernel& kernel, double eps);

// The (γ, ε̃)-Dobrushin coefficient of Theorem 1 (2): γ at ε̃ = log(1 + (e^ε − 1)/δ); for δ = 0 the sup over
// x, x' of K(x)(supp K(x) \ supp K(x')) (D_∞ of the pair).
double dobrushin_tilde(const FiniteKernel& kernel, double eps, double delta);

// HS_ε(μ‖ν) = Σ_y [μ_y − e^ε ν_y]_+ for probability vectors (exact sum; for coefficients and searches).
double hockey_stick(const Eigen::VectorXd& mu, const Eigen::VectorXd& nu, double eps);

// Random kernels of the kinds that matter, reproducible from the seed.
FiniteKernel random_dirichlet_kernel(int n, double concentration, std::uint64_t seed);
FiniteKernel lazy_kernel(const FiniteKernel& base, double laziness);  // (1−λ)K + λI
FiniteKernel randomized_response_kernel(int k, double eps0);        // e^{ε0} on the diagonal, 1 elsewhere
FiniteKernel random_sparse_kernel(int n, int per_row, std::uint64_t seed);

}  // namespace privamp::sim
