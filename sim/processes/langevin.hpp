// Reversible 1-D Langevin diffusions dX = −U'(X) dt + √2 dW (invariant law λ ∝ e^{−U}), e.g. the double well
// U(x) = x⁴/4 − x²/2, whose transition kernels have no closed form.
//
// Space is discretised on N+1 nodes of [lo, hi] (reflecting ends) as the continuous-time Markov chain with rates
//   q(i → i±1) = h^{-2} exp(−(U_{i±1} − U_i)/2),
// which satisfies detailed balance with π_i ∝ e^{−U_i} exactly and whose generator is f'' − U'f' + O(h²). The end
// nodes stand for half cells (the reflecting boundary as a finite volume): their rates are doubled and their weights
// in π halved, which keeps the order 2 where the law carries mass at the ends.
// Two routes give the law at time t from a node:
//   spectral: the generator symmetrised by π^{1/2} is a symmetric tridiagonal matrix, diagonalised once (implicit QR);
//             P_t = π^{-1/2} V e^{Λt} V^T π^{1/2} (numerics/symmetric_tridiagonal: stops on an interrupt)
//   method of lines: dp/dt = Q^T p integrated by Boost.Odeint (Dormand–Prince 5 with error control)
// and they are tested against each other and, for quadratic U (Ornstein–Uhlenbeck), against the exact law.
// Also: κ_{x,x'}(t) = sup_y |∂_y log p_t(x,y)/p_t(x',y)|² (Γ(f) = |f'|²) and Λ(t) = ∫_t^∞ κ(s) ds of Theorem 6.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <Eigen/Core>

namespace privamp::sim {

class Formula;
class Rng;

struct Potential {
  std::string name;  // what identifies it: double_well, or the formula's text
  std::function<double(double)> u;
  std::shared_ptr<const Formula> formula = nullptr;  // when given as a formula
  std::function<double(double)> slope = nullptr;     // U' (a formula's by dual numbers)
  static Potential double_well();          // x⁴/4 − x²/2
  static Potential quadratic(double theta);  // θx²/2: the OU process dX = −θX dt + √2 dW
  // "double_well", or a formula in x (sim/formulas/formula.hpp), e.g. "x^4/4 - 0.3*x^2 + 0.1*x".
  static Potential named(const std::string& text);
  static Potential of(std::shared_ptr<const Formula> formula);
  // InvalidArgument unless U is finite on [lo, hi] and |U'| ≤ kMaxDrift there (certified: sim/formulas/certify.hpp);
  // a steeper drift makes the discretised generator too stiff for its eigendecomposition.
  void check(double lo, double hi) const;
  static constexpr double kMaxDrift = 1000;
};

class LangevinChain {
 public:
  LangevinChain(Potential potential, double lo, double hi, int cells);

  int nodes() const { return static_cast<int>(x_.size()); }
  double h() const { return h_; }
  const Eigen::VectorXd& x() const { return x_; }
  int node(double x) const;  // the node at x (InvalidArgument unless x is a node within 1e-9·h)

  Eigen::VectorXd law(int start, double t) const;            // spectral route: probabilities of the nodes
  Eigen::VectorXd law_time_stepped(int start, double t, double rel_tol = 1e-10) const;  // method of lines
  // Uniformization (Jensen): with Λ ≥ every exit rate, P_t = Σ_k Poisson(k; Λt)·(I + Q/Λ)^k. Every term is
  // non-negative, so tail entries keep their relative digits (no cancellation, unlike the spectral sums); the
  // Poisson weights are formed in logs (no under- or overflow of e^{−Λt}(Λt)^k/k!) and the sum is truncated where
  // the Poisson mass left out is below e^{−300}; Λt is limited to 1e7.
  // An algorithm independent of the eigendecomposition: the second route of the double-well cases.
  Eigen::VectorXd law_uniformized(int start, double t) const;
  double max_rate() const { return (up_ + down_).maxCoeff(); }  // the largest exit rate of a node
  Eigen::VectorXd invariant() const;                         // π
  // sup of the squared slope of log(p_t(x,·)/p_t(x',·)) over the nodes where both laws carry mass above 1e-6 of
  // their maxima (beyond, the computed ratio is rounding noise)
  double kappa(int start, int other, double t) const;
  double intrinsic_sensitivity(int start, int other, double t) const;  // Λ(t) by quadrature of κ

 private:
  Potential potential_;
  double lo_, hi_, h_;
  Eigen::VectorXd x_, log_pi_half_;  // nodes and log π^{1/2} (normalised)
  Eigen::VectorXd up_, down_;        // rates i → i+1 and i → i−1
  Eigen::VectorXd eigenvalues_;      // of the symmetrised generator (≤ 0)
  Eigen::MatrixXd eigenvectors_;
};

// One simulated path of dX = −U'(X) dt + √2 dW from x0, reflected at lo and hi, to time t: the stochastic Heun
// scheme (weak order 2 for additive noise away from the ends) with kSimulationSteps per unit time (at least 100
// steps, at most 20,000: InvalidArgument beyond). X_t is returned. A second route to the chain's law that shares
// nothing with its discretisation of space (the Monte Carlo engine's samples of langevin and double_well laws).
double simulate_langevin(const Potential& potential, double x0, double t, double lo, double hi, Rng& rng);
inline constexpr int kSimulationSteps = 2000;
// The steps of one simulated path to time t (what simulate_langevin takes; it refuses more than 20,000).
double langevin_simulation_steps(double t);

// The chain of a potential on [lo, hi] with `cells` cells, built once per (potential, interval, resolution) and
// shared (thread-safe; the latest 24 are kept): the spectral decomposition is the expensive part and every law and
// κ at that resolution reuses it.
std::shared_ptr<const LangevinChain> langevin_chain(const Potential& potential, double lo, double hi, int cells);

}  // namespace privamp::sim
