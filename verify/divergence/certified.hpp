// The certified engine: rigorous enclosures by ball arithmetic (Arb).
//
// Every number is an Arb ball (midpoint, radius) whose exponent is unbounded, so nothing underflows and every
// rounding is carried. The laws are read in exact terms — Gaussian and Laplace pieces (shifted, mixed, clamped),
// atoms whose masses are known exactly (a pmf as given, a finite chain mu K^t recomputed in balls) — and:
//   R_alpha, KL   integrals of analytic integrands by acb_calc_integrate (rigorous Gauss-Legendre with
//                 error bounds from the integrand's complex extension), split at every kink and support end,
//                 plus tails bounded in closed form (each density is dominated by a sum of exp(quadratic)s)
//   HS_eps, TV    the sign of the privacy loss L - eps certified on subintervals (centred form: L(c) plus the
//                 range of L' over the interval, a convex hull of the pieces' log-derivatives), exact integrals of
//                 p - e^eps q where it is positive, tiny undecided intervals bounded by their width x sup
//   R_inf         branch and bound on the same enclosures of L, tails by the quadratic bounds
//   atoms         exact sums in balls
//   compositions  subsampled Gaussians by the contour integral enclosed (certified/composition.cpp); every other
//                 composition of laws it reads by privacy-loss lattices, a certified bracket (certified/pld.cpp)
// The precision doubles until the enclosure is narrow (relative 2^-45) or the budget is spent; the result is the
// enclosure at the last precision, labelled ErrorKind::certified. Pairs outside this list, and enclosures that stay
// too wide, are refused with the reason (NumericalError / InvalidArgument).
//
// What is certified is the divergence between the laws as privamp holds them: parameters as parsed to doubles,
// mixture weights as stored (each taken with a one-ulp radius, so that 1 - q rounded once is covered).
#pragma once

#include <optional>
#include <string>

#include "sim/laws/law.hpp"
#include "verify/divergence/contour.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

struct CertifiedOptions {
  long max_precision = 4096;  // bits; finite chains may go to 16 times this (their sums are cheap)
  double seconds = 60;        // time budget per value, checked between precisions
};

// Why the certified engine does not cover the pair, or nullopt if it does.
std::optional<std::string> certified_refusal(const sim::Law& p, const sim::Law& q);

// Whether one of the laws is a finite chain mu K^t, which the certified engine recomputes exactly (in balls) where
// the law in double has rounded away every difference below 1e-16 of a probability.
bool certified_reads_chain(const sim::Law& p, const sim::Law& q);

// Compositions (power/product pairs) are covered where every release is a subsampled Gaussian (a two-component
// mixture of Gaussians of equal sigma, one of which is the other law, in either direction) or a Gaussian pair of
// equal sigma, at least one being a mixture: R_alpha, KL and R_inf as sums of the releases' certified values, the
// hockey-stick and TV by the certified contour integral (certified/composition.cpp gives its error analysis).
std::optional<std::string> certified_composition_refusal(const std::vector<ReleasePair>& pairs);

// HS_eps of the composition by the contour integral on the line Re s = c (c > 0, or -1 < c < 0 with the residue
// at 0), enclosed rigorously; `log_hint` (the log of an estimate of the value, finite: values below the double range
// too) sets the tolerances, never the enclosure. NumericalError says what could not be certified.
Estimate certified_composed_hockey_stick(const std::vector<ReleasePair>& pairs, double eps, double c, double log_hint,
                                         const CertifiedOptions& options = {});

// HS_eps of any composition whose releases the certified engine reads (laws with densities, atoms or both:
// Gaussian, Laplace and their sums, mixtures of any sigma, clamps, pmfs), as a certified bracket: each release's
// privacy-loss law bounded above (chords) and below (a hull) by measures on a grid, composed exactly in fixed point
// (certified/pld.cpp gives the
// argument and the bracket's width). The composed lattices are kept for the next values of the same composition
// (a curve costs its lookups). NumericalError says why a composition is not covered.
Estimate certified_lattice_hockey_stick(const std::vector<ReleasePair>& pairs, double eps, const CertifiedOptions& options = {});

// Projected Gaussian chains (two laws of one process that declares its chain form, Law::chain_forms_with): every
// quantity enclosed by propagating cell masses and first moments with bounded remainders (certified/chains.cpp gives
// the argument). Why a pair of chain forms is not covered, or nullopt.
std::optional<std::string> certified_chain_refusal(const sim::ChainForm& mu, const sim::ChainForm& nu);
Estimate certified_chain_divergence(const sim::ChainForm& mu, const sim::ChainForm& nu, const Quantity& quantity,
                                    const CertifiedOptions& options = {});

// A rigorous enclosure of the quantity, or NumericalError saying what could not be certified.
Estimate certified_divergence(const sim::Law& p, const sim::Law& q, const Quantity& quantity,
                              const CertifiedOptions& options = {});

}  // namespace privamp::verify
