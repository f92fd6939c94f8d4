// Divergences between compositions: power(mu, T) against power(nu, T), and products of such powers
// (sim/laws/composition.hpp). The privacy loss of a composition is the sum of independent per-release losses, so
//
//   R_α, KL, R_∞   add up over the releases: Σ T_i·D(μ_i‖ν_i), each term from the one-release engines (the
//                  interval and its kind are theirs: exact or certified terms give an exact or certified sum);
//   HS_ε, TV       are those of the composed privacy-loss distribution:
//                  - pairs of Gaussians of equal σ compose exactly into one Gaussian pair (μ² = Σ T_i Δ_i²/σ_i²):
//                    the closed form GT.gauss.hs (exact);
//                  - finite pairs (pmfs): an exact sum over the multinomial counts of the releases' loss values
//                    (log space), while the number of count vectors is at most kMaxCompositionTerms;
//                  - one-dimensional pairs with densities (no atoms): the contour integral
//                      HS_ε = (1/2πi) ∫_{c−i∞}^{c+i∞} Π_i M_i(s)^{T_i} e^{−sε} / (s(s+1)) ds,   M_i(s) = E_{μ_i}[e^{sL_i}],
//                    on the vertical line through the saddle point c of its modulus (c > 0, or −1 < c < 0 with the
//                    residue 1 at s = 0 added when HS is near 1), by the trapezoid rule in t = Im s, M_i by
//                    Gauss–Legendre quadrature of the tilted law on panels that resolve the phase t·L_i. Its error
//                    bar is an a-posteriori estimate (kind `quadrature`): the trapezoid at step h against h/2, the
//                    inner quadrature against twice its panels (carried through the T-th power), and the part of
//                    the line beyond the last point bounded by the observed modulus there. It is not a certified
//                    enclosure. The certified engine (engine = certified, and the second route wherever it covers the
//                    releases: subsampled Gaussians and Gaussian pairs) encloses the same integral rigorously
//                    (verify/divergence/certified/composition.cpp), on the line this estimate chooses;
//                  - any pair the certified engine reads, where the routes above do not answer (the contour refuses,
//                    a pmf sum would visit too many count vectors, or engine = certified and the certified contour
//                    does not cover the releases): a certified bracket by privacy-loss lattices, each release's loss
//                    law bounded above by chords and below by a hull on a grid, composed exactly
//                    (verify/divergence/certified/pld.cpp).
// A single release (T = 1) is the one-release engines' answer.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sim/laws/law.hpp"
#include "verify/divergence/contour.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

// Count vectors an exact finite sum over a composition of pmfs may visit.
inline constexpr double kMaxCompositionTerms = 2e7;

bool is_composition(const sim::Law& law);

// What identifies a composition's release pairs (law expressions and counts, in order): the caches' key.
std::string composition_key(const std::vector<ReleasePair>& pairs);

// The releases of two compositions paired in order (InvalidArgument naming both where they do not pair up).
std::vector<ReleasePair> release_pairs(const sim::Law& p, const sim::Law& q);

// The one-release engines, as compute_divergences (engines.cpp) runs them for a pair of factors.
using ReleaseDivergences =
    std::function<std::vector<Estimate>(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities)>;

// p and q compositions of the same number of releases (InvalidArgument otherwise, naming both).
std::vector<Estimate> composed_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                           const DivergenceOptions& options, const ReleaseDivergences& release);

}  // namespace privamp::verify
