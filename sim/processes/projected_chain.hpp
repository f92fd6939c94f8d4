// Projected noisy iterations on an interval, propagated exactly in law up to a grid discretisation:
//   X ← Π_[lo,hi](ψ(X) + N(0, s²))
// for a map ψ (linear a·X + b, a gradient step of a loss, any Lipschitz map).
// A law on [lo, hi] is atoms (the ends, and possibly a starting point) plus a density tabulated at N+1 equally
// spaced nodes. One step maps atoms through the Gaussian kernel exactly and the density by the trapezoid rule,
// then moves the mass beyond the ends into the end atoms (what the projection does). The discretisation error is
// O(h²) in the node spacing h; callers estimate it by halving h (see noisy_sgd_renyi in verify/bounds).

#pragma once

#include <functional>
#include <string>
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
  using Map = std::function<double(double)>;
  Propagator(double lo, double hi, int intervals, Map psi, double s);
  Propagator(double lo, double hi, int intervals, double a, double b, double s);
  IntervalLaw operator()(const IntervalLaw& in) const;

 private:
  double lo_, hi_, s_;
  Map psi_;
  Eigen::MatrixXd kernel_;          // density at output node j from density at input node k
  Eigen::RowVectorXd to_lo_, to_hi_;  // mass sent beyond the ends from input node k
};

// Named Lipschitz maps for iterated projected noise (T4): ψ(x) = L·x, L·tanh(x), L·sin(x), L·x/(1+|x|)... all
// L-Lipschitz; `name` ∈ {linear, tanh, sin, softsign}.
Propagator::Map lipschitz_map(const std::string& name, double lipschitz);

// X_r of X_i = Π_[lo,hi](ψ(X_{i−1}) + N(0, s²)) from X_0 = x0.
IntervalLaw projected_chain_law(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi, int intervals);

}  // namespace privamp::sim
