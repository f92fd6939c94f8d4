// Two laws computed together — grid laws (sim::IntervalLawPair) or finite laws (finite chains) — (sim::IntervalLawPair): each behaves as an ordinary GridLaw, and against its
// partner it gives the privacy loss from the propagated difference d = ν − μ,
//   log(dμ/dν)(x) = −log1p(d(x)/p(x))   (linear interpolation of p and d between nodes, as GridLaw does),
// which keeps its digits when the laws nearly coincide. Its error is estimated from a second propagation with the
// roles of the laws swapped, whose rounding is independent: 10 × the largest disagreement of the two (relative
// to min(p, q) at the nodes and atoms).
#pragma once

#include <utility>
#include <vector>

#include <Eigen/Core>

#include "sim/laws/law.hpp"
#include "sim/processes/projected_chain.hpp"
#include "sim/processes/sgd.hpp"

namespace privamp::sim {

// (μ, ν) from `forward` (p = μ, d = ν − μ) and `backward` (p = ν, d = μ − ν) on the same grid.
std::pair<LawPtr, LawPtr> joint_grid_laws(const IntervalLawPair& forward, const IntervalLawPair& backward);

// (μ, ν) on the atoms `at`: μ's masses p, the difference d = ν − μ and the backward one, μ − ν.
std::pair<LawPtr, LawPtr> joint_finite_laws(const std::vector<double>& at, const Eigen::VectorXd& p,
                                            const Eigen::VectorXd& d, const Eigen::VectorXd& d_backward);

// The grid laws of the propagated processes as ProcessLaws: alone they are the process's law; against another law
// of the same process (differing only in zi, resp. x0) the engines recompute both jointly.
LawPtr noisy_sgd_process_law(const NoisySgd& sgd, int i, double zi, int cells);
LawPtr projected_chain_process_law(const ChainMap& map, double x0, int r, double sigma, double lo, double hi, int cells);

}  // namespace privamp::sim
