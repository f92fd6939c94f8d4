// Projected noisy iterations on an interval, propagated exactly in law up to a grid discretisation:
//   X ← Π_[lo,hi](ψ(X) + N(0, s²))
// for a map ψ (linear a·X + b, a gradient step of a loss, any Lipschitz map).
// A law on [lo, hi] is atoms (the ends, and possibly a starting point) plus a density tabulated at N+1 equally
// spaced nodes. One step maps atoms through the Gaussian kernel exactly and the density by the trapezoid rule,
// then moves the mass beyond the ends into the end atoms (what the projection does). The discretisation error is
// O(h²) in the node spacing h; the laws carry that error model (verify/divergence/discretised.hpp).

#pragma once

#include <array>
#include <functional>
#include <span>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "sim/formulas/dual.hpp"
#include "sim/random/rng.hpp"
#include "sim/laws/chain_form.hpp"
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
  // An estimate of the error of d/p left by propagate_pairs' extrapolation, relative to the largest |d/p|.
  double extrapolation_error = 0;
  static IntervalLawPair points(double x_p, double x_q, double lo, double hi, int intervals);
};

// One step X ← Π(aX + b + N(0, s²)).
IntervalLaw propagate(const IntervalLaw& in, double a, double b, double s);

// The same step for many iterations: the node-to-node Gaussian kernel (trapezoid weights included) is built once,
// so a step costs one matrix-vector product plus the atoms.
class Propagator {
 public:
  using Map = std::function<double(double)>;
  // `kept`: the kernel is computed once and stored (a step used many times); `once`: each application computes the
  // same entries as it goes (a step used once: its (N+1)² entries are not worth storing).
  enum class Use { kept, once };
  Propagator(double lo, double hi, int intervals, Map psi, double s, Use use = Use::kept);
  Propagator(double lo, double hi, int intervals, double a, double b, double s);
  IntervalLaw operator()(const IntervalLaw& in) const;
  // The step without renormalisation, linear in `in` (which may be a signed difference of laws).
  IntervalLaw raw(const IntervalLaw& in) const;
  // The same for several laws on this grid, with one pass over the kernel.
  std::vector<IntervalLaw> raw(std::span<const IntervalLaw* const> in) const;

  static constexpr long kPanelRows = 8;

 private:
  double lo_, hi_, s_;
  Map psi_;
  // Column k of the kernel into out[0..N], returning the rows [first, last] where it is not 0.
  std::pair<int, int> column(int k, double* out) const;

  std::vector<double> means_;  // ψ at the nodes
  // Density at output node j from density at input node k, in panels of kPanelRows rows (empty when used once).
  std::vector<double> kernel_;
  std::vector<std::pair<int, int>> band_;  // per column k, the rows [first, last] where the kernel is not 0
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
  bool declared = false;  // a formula map with L given by the user: L is a claim to check

  Propagator::Map psi() const;
  // The step X ← Π(ψ(X) + N(0, s²)) in exact terms, for the certified engine (sim/laws/chain_form.hpp).
  ChainStep step(double s) const;
  // What identifies the map among processes: the name and L, or the formula's text.
  std::string identity() const;
  // InvalidArgument unless ψ is finite on [lo, hi] (certified by interval evaluation for a formula) and, for a
  // formula with a declared L, unless L ≥ the upper end of the certified enclosure of sup |ψ'| over [lo, hi]: the
  // message gives the enclosure and where ψ' reaches it ("not L-Lipschitz" when the enclosure lies above L).
  void check(double lo, double hi) const;
};

// The grid must resolve a step's noise: s ≥ h/2 (InvalidArgument naming `name` otherwise; a narrower kernel
// falls between the nodes and the propagated law is meaningless).
void check_noise_resolved(const char* law, const char* name, double s, double lo, double hi, int intervals);

// From one law p, the pair (p through step_p, p through step_q) and the pair with the roles swapped: the step at
// which neighbouring processes differ.
std::array<IntervalLawPair, 2> differing_pairs(const IntervalLaw& p, const Propagator& step_p, const Propagator& step_q);
// Several pairs through one step that both laws of each share, with one pass over the kernel (in place).
void propagate_pairs(std::span<IntervalLawPair> pairs, const Propagator& step);

// When an iteration that contracts has settled: fed the largest relative change of each step, it measures the
// contraction rate r between two steps whose changes are both above rounding (the last change ≥ 1e-8 and the first
// after it < 1e-11) and says "settled" once the change still to come, change·r/(1 − r), is below kSettled (the
// rounding of one step is a few 1e-16). Without such a measurement (slow contraction, a short run) never.
class GeometricSettling {
 public:
  static constexpr double kSettled = 1e-14;  // a hundred ulps: far below the discretisation and quadrature errors
  bool settled_after(double change);

 private:
  int step_ = 0, above_at_ = -1, below_at_ = -1;
  double above_ = 0, rate_ = 1;
};

// The largest relative change of an entry (density node or atom) from `a` to `b`.
double relative_change(const IntervalLaw& a, const IntervalLaw& b);

// `steps` steps of one step that both laws of each pair share. Once every p has settled (GeometricSettling), only
// the differences are propagated; each then shrinks by a factor λ per step (the step's leading contraction),
// measured over windows of 31 steps. Once d_{t+1} = λ·d_t holds to ~1e-15 of the largest |d/p| and λ agrees with the
// previous window's, the remaining m steps are d·λ^m. The estimate of what that leaves out (the residual +
// m·|Δλ/λ|) is kept in extrapolation_error (below 1e-13 or no extrapolation is made); the joint laws add it, times
// their safety factor, to the loss's error bound.
void propagate_pairs(std::span<IntervalLawPair> pairs, const Propagator& step, int steps);

// ψ, ψ' and ψ'' over x from one evaluation of ψ on second-order dual enclosures.
MapEnclosure map_enclosure(const Dual<Dual<Enclosure>>& value);
// The seed of that evaluation: x with unit derivatives.
Dual<Dual<Enclosure>> map_argument(const Enclosure& x);

// InvalidArgument unless the chain's law below can be computed for these arguments.
void check_projected_chain(double x0, int r, double s, double lo, double hi, int intervals);
// X_r of X_i = Π_[lo,hi](ψ(X_{i−1}) + N(0, s²)) from X_0 = x0.
IntervalLaw projected_chain_law(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi, int intervals);
// One simulated path of the chain from x0: X_r (the simulator behind the law's samples).
double simulate_projected_chain(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi, Rng& rng);
// The pair from (x0, x0_q) and the pair with the roles swapped, propagated together (the joint laws' two
// directions, sim/processes/joint_grid.hpp).
std::array<IntervalLawPair, 2> projected_chain_pairs(const Propagator::Map& psi, double x0, double x0_q, int r, double s,
                                                    double lo, double hi, int intervals);

}  // namespace privamp::sim
