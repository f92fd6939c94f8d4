// Projected noisy iterations on an interval, propagated exactly in law up to a grid discretisation:
//   X ← Π_[lo,hi](a·X + b + N(0, s²))
// A law on [lo, hi] is atoms (the ends, and possibly a starting point) plus a density tabulated at N+1 equally
// spaced nodes. One step maps atoms through the Gaussian kernel exactly and the density by the trapezoid rule,
// then moves the mass beyond the ends into the end atoms (what the projection does). The discretisation error is
// O(h²) in the node spacing h; callers estimate it by halving h (see noisy_sgd_renyi in verify/bounds).
//
// Noisy projected SGD (Algorithm 1, 1-D, quadratic loss ℓ(x, z) = (λ/2)(x − z)² on 𝕂 = [−R, R]):
//   x_j = Π_𝕂(x_{j−1} − η(λ(x_{j−1} − z_j) + Z_j)),  Z_j ~ N(0, σ²),
// i.e. a = 1 − ηλ, b = ηλ z_j, s = ησ. The loss is C-Lipschitz on 𝕂 with C = 2λR, β-smooth and ρ-strongly
// convex with β = ρ = λ.
#pragma once

#include <vector>

#include <Eigen/Core>

#include "sim/laws/projected.hpp"

namespace privamp::sim {

struct IntervalLaw {
  double lo, hi;
  std::vector<double> density;               // at lo + k h, k = 0..N
  std::vector<std::pair<double, double>> atoms;  // (location, mass)

  static IntervalLaw point(double x0, double lo, double hi, int intervals);
  double h() const { return (hi - lo) / static_cast<double>(density.size() - 1); }
  double total_mass() const;
  GridLaw to_grid_law() const;
};

// One step X ← Π(aX + b + N(0, s²)).
IntervalLaw propagate(const IntervalLaw& in, double a, double b, double s);

// The same step for many iterations: the node-to-node Gaussian kernel (trapezoid weights included) is built once,
// so a step costs one matrix-vector product plus the atoms.
class Propagator {
 public:
  Propagator(double lo, double hi, int intervals, double a, double b, double s);
  IntervalLaw operator()(const IntervalLaw& in) const;

 private:
  double lo_, hi_, a_, b_, s_;
  Eigen::MatrixXd kernel_;          // density at output node j from density at input node k
  Eigen::RowVectorXd to_lo_, to_hi_;  // mass sent beyond the ends from input node k
};

struct NoisySgd {
  int n;          // number of steps
  double eta;     // step size
  double sigma;   // gradient noise standard deviation
  double lambda;  // loss curvature: ℓ(x, z) = (λ/2)(x − z)²
  double radius;  // 𝕂 = [−R, R]
  double x0 = 0;
  void check() const;  // InvalidArgument naming the parameter (η ≤ 2/(β+ρ) = 1/λ is the theorem's, not checked here)
};

// Law of x_n for the dataset with z_i = zi and z_j = 0 for j ≠ i (1 ≤ i ≤ n), on a grid of `intervals` cells.
IntervalLaw noisy_sgd_law(const NoisySgd& sgd, int i, double zi, int intervals);

}  // namespace privamp::sim
