// Divergences between laws computed by discretisation (sim::Discretisation: grid propagation of projected
// iterations, the discretised generator of a Langevin diffusion), with the discretisation error inside the
// interval. Every engine reaches these laws through compute_divergences, which routes them here, so `divergence`,
// `verify` and `figures` all get the same error model.
//
// Each quantity is computed at the base resolution N and at 2N and 4N: values v1, v2, v4 with engine bars
// e1, e2, e4. With d1 = v1 − v2, d2 = v2 − v4 and the method's order p (r = 2^p):
//   - converged: if |d2| is within the engines' bars (e1 + e2 + e4), there is nothing to extrapolate: value v4,
//     bar e4 + max(|d1|, |d2|) (the change from N to 2N bounds what the finer grids leave);
//   - otherwise the observed order log2(d1/d2) must lie within ±0.5 of p (else the grids are not in the
//     asymptotic regime: NumericalError naming the observed order and what to change);
//   - value: the Richardson extrapolation R = v4 − d2/(r − 1); its discretisation bar
//       S·|R − R'|                       R' = v2 − d1/(r − 1) from the coarser pair: the size of the next-order
//                                        term, which R has reduced by another factor of at least 2
//       + |d2|·|1/(ρ − 1) − 1/(r − 1)|   the uncertainty of the order (ρ = d1/d2 observed)
//     plus the engines' bars carried through the extrapolation, (r·e4 + e2)/(r − 1).
//   The safety factor S = 2 is checked in tests/verify/discretised_test.cpp against laws with closed forms.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "sim/laws/law.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

inline constexpr double kRichardsonSafety = 2;

using PlainDivergences =
    std::function<std::vector<Estimate>(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities)>;

// `plain` computes the quantities between undiscretised laws (one engine call per resolution).
std::vector<Estimate> discretised_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                              const PlainDivergences& plain);

// The extrapolation rule above for one quantity, from its estimates at N, 2N and 4N; `what` names the resolutions
// in the method and in errors.
Estimate richardson(const Estimate& coarse, const Estimate& middle, const Estimate& fine, int order,
                    const std::string& what);

}  // namespace privamp::verify
