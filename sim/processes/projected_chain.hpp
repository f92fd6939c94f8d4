// Projected noisy iterations on an interval, propagated exactly in law up to a grid discretisation:
//   X ← Π_[lo,hi](ψ(X) + N(0, s²))
// for a map ψ (linear a·X + b, a gradient step of a loss, any Lipschitz map).
// A law on [lo, hi] is atoms (the ends, and possibly a starting point) plus a density tabulated at N+1 equally
// spaced nodes. One step maps atoms through the Gaussian kernel exactly and the density by the trapezoid rule,
// then moves the mass beyond the ends into the end atoms (what the projection does). The discretisation error is
// O(h²) in the node spacing h; the laws carry that error model (verify/divergence/discretised.hpp).

#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "sim/random/rng.hpp"
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

// Two laws of one projected iteration that differ in the starting point or in the map of some steps, propagated
// together: p and the signed difference d = q − p on the same grid. Propagating q on its own leaves the difference
// of nearly equal laws to rounding (laws that differ by 1e-11 keep 5 digits of it); here d keeps its relative
// digits: each step propagates d linearly, corrects the normalisation exactly and removes the mass that rounding
// gives d (the mass direction is the one a step does not contract).
struct IntervalLawPair {
  IntervalLaw p, d;
  static IntervalLawPair points(double x_p, double x_q, double lo, double hi, int intervals);
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
  // The step without renormalisation, linear in `in` (which may be a signed difference of laws).
  IntervalLaw raw(const IntervalLaw& in) const;

 private:
  double lo_, hi_, s_;
  Map psi_;
  Eigen::MatrixXd kernel_;          // density at output node j from density at input node k
  std::vector<std::pair<int, int>> band_;  // per column k, the rows [first, last] where the kernel is not 0
  bool banded_ = false;             // the bands leave out at least a quarter of the kernel: products skip the zeros
  Eigen::RowVectorXd to_lo_, to_hi_;  // mass sent beyond the ends from input node k
};

// Named Lipschitz maps for iterated projected noise (T4): ψ(x) = L·x, L·tanh(x), L·sin(x), L·x/(1+|x|)... all
// L-Lipschitz; `name` ∈ {linear, tanh, sin, softsign}.
Propagator::Map lipschitz_map(const std::string& name, double lipschitz);

class Formula;

// The map of a projected chain: a named map with its constant L, or a formula in x (sim/formulas/formula.hpp),
// whose Lipschitz constant is certified where a theorem needs it (lipschitz(map, lo, hi) in a case file).
struct ChainMap {
  std::string name = "linear";
  double lipschitz = 1;
  std::shared_ptr<const Formula> formula = nullptr;

  Propagator::Map psi() const;
  // What identifies the map among processes: the name and L, or the formula's text.
  std::string identity() const;
  // InvalidArgument unless ψ is finite on [lo, hi] (certified by interval evaluation for a formula).
  void check(double lo, double hi) const;
};

// The grid must resolve a step's noise: s ≥ h/2 (InvalidArgument naming `name` otherwise; a narrower kernel
// falls between the nodes and the propagated law is meaningless).
void check_noise_resolved(const char* law, const char* name, double s, double lo, double hi, int intervals);

// p through step_p and q = p + d through step_q (pass the same object for a step both laws share).
IntervalLawPair propagate_pair(const IntervalLawPair& in, const Propagator& step_p, const Propagator& step_q);

// X_r of X_i = Π_[lo,hi](ψ(X_{i−1}) + N(0, s²)) from X_0 = x0.
IntervalLaw projected_chain_law(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi, int intervals);
// One simulated path of the chain from x0: X_r (the simulator behind the law's samples).
double simulate_projected_chain(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi, Rng& rng);
// The same from x0 and from x0_q, together.
IntervalLawPair projected_chain_pair(const Propagator::Map& psi, double x0, double x0_q, int r, double s, double lo,
                                     double hi, int intervals);

}  // namespace privamp::sim
