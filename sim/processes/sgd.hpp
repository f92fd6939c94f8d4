// Noisy projected SGD (Algorithm 1 of the paper, T5):
//   x_j = Π_𝕂(x_{j−1} − η(∇ℓ(x_{j−1}, z_j) + Z_j)),   Z_j ~ N(0, σ² I_d),   j = 1..n,
// on 𝕂 = the ball or the box of radius R in ℝ^d, for two built-in smooth losses:
//   quadratic  ℓ(x, z) = (λ/2)‖x − z‖²,                   data z ∈ 𝕂;
//   logistic   ℓ(x, z) = log(1 + e^{−⟨z, x⟩}) + (λ/2)‖x‖²,  data z = y·a (label times features), ‖z‖ ≤ A.
// The constants Theorem 5 needs, over x ∈ 𝕂 and the data set: C = sup‖∇ℓ‖, β (smoothness), ρ (strong convexity):
//   quadratic  C = λ·diam(𝕂),     β = ρ = λ;
//   logistic   C = A + λ·sup‖x‖,  β = A²/4 + λ,  ρ = λ;
// and the step sizes the theorem allows, η ≤ 2/(β + ρ).
//
// Two outputs: a d-dimensional simulator of runs (Eigen), and for d = 1 the exact law of x_n (grid propagation
// of the projected iteration with the boundary atoms, see projected_chain.hpp) for the dataset z_j = 0 (j ≠ i),
// z_i = zi.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "sim/formulas/certify.hpp"
#include "sim/syntax/syntax.hpp"
#include "sim/processes/projected_chain.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

// quadratic and logistic are built in; formula: any loss ℓ(x, z) written in the expression language
// (sim/formulas/formula.hpp), in one dimension, with data |z| ≤ A; its gradient comes from dual numbers and its
// constants C, β, ρ are certified enclosures (sim/formulas/certify.hpp) over [−R, R] × [−A, A].
enum class SgdLoss { quadratic, logistic, formula };
SgdLoss parse_sgd_loss(const std::string& name);  // InvalidArgument listing the losses
std::string to_string(SgdLoss loss);

enum class DomainShape { ball, box };
DomainShape parse_domain_shape(const std::string& name);

struct SgdConstants {
  double C, beta, rho;
  double eta_max;  // 2/(β + ρ)
};

struct NoisySgd {
  int n;          // number of steps
  double eta;     // step size
  double sigma;   // gradient noise standard deviation
  double lambda;  // quadratic: curvature; logistic: ℓ2 regularisation
  double radius;  // R
  double x0 = 0;  // starting point; in d dimensions every coordinate is x0/√d (so ‖x_0‖ = |x0|)
  SgdLoss loss = SgdLoss::quadratic;
  double feature_bound = 1;  // logistic: ‖z‖ ≤ A
  int dim = 1;
  DomainShape shape = DomainShape::ball;
  std::shared_ptr<const Formula> loss_formula = nullptr;  // loss = formula

  // Sets the loss from a name (quadratic, logistic) or a formula in x and z whose other names are `params`.
  void set_loss(const std::string& text, const Params& params = {});
  std::string loss_identity() const;  // the loss's name or its formula's text

  // InvalidArgument naming the parameter. Requires η·β < 2 (a non-expansive gradient step), not the theorem's η.
  void check() const;
  SgdConstants constants() const;  // a formula loss: the conservative ends of certified_constants()
  LossConstants certified_constants() const;  // the enclosures (formula losses only)
  // InvalidArgument unless η ≤ 2/(β + ρ), the step sizes Theorem 5 allows.
  void check_theorem_step() const;
  double data_bound() const;  // sup ‖z‖ over admissible data: R (quadratic), A (logistic)

  Eigen::VectorXd gradient(const Eigen::VectorXd& x, const Eigen::VectorXd& z) const;
  double gradient(double x, double z) const;  // d = 1
  void project(Eigen::VectorXd& x) const;
};

// InvalidArgument unless the exact law below can be computed for these arguments.
void check_exact_law(const NoisySgd& sgd, int i, double zi, int intervals);
// Law of x_n (d = 1) for the dataset with z_i = zi and z_j = 0 for j ≠ i (1 ≤ i ≤ n), on `intervals` cells.
IntervalLaw noisy_sgd_law(const NoisySgd& sgd, int i, double zi, int intervals);
// The laws for z_i = zi and z_i = zi_q, propagated together (see IntervalLawPair), and the pair with the roles
// swapped, both in one pass per step.
std::array<IntervalLawPair, 2> noisy_sgd_pairs(const NoisySgd& sgd, int i, double zi, double zi_q, int intervals);

// The chain of x_n for the dataset z_i = zi, z_j = 0 (j ≠ i), d = 1, in exact terms for the certified engine: the
// steps ψ(x) = x − η ∂ℓ/∂x(x, z_j) with noise ησ (as stored, one rounding) on [−R, R] (sim/laws/chain_form.hpp).
ChainForm noisy_sgd_chain(const NoisySgd& sgd, int i, double zi);

// One run of Algorithm 1 in one dimension on the dataset z_i = zi, z_j = 0 (j ≠ i): its final iterate. The
// simulator behind the law's samples (the Monte Carlo second route of the exact law).
double simulate_noisy_sgd_1d(const NoisySgd& sgd, int i, double zi, Rng& rng);
// `runs` independent runs on the dataset `data` (n points of dimension d); returns the final iterates as rows.
Eigen::MatrixXd simulate_noisy_sgd(const NoisySgd& sgd, const std::vector<Eigen::VectorXd>& data, long runs,
                                   std::uint64_t seed);

}  // namespace privamp::sim
