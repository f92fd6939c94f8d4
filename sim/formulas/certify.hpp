// Certified hypotheses: rigorous enclosures of the extremes of a formula's derivatives over a box, by interval
// evaluation (Enclosure, dual numbers) over an adaptive subdivision. The supremum of g = ∂^k f/∂x_var^k over the
// box lies in [inner, outer]: `inner` is g's enclosure's lower end at a point of the box (g reaches it), `outer` the
// largest upper end over the pieces of a subdivision that covers the box. Pieces whose upper end exceeds the inner
// bound by more than the tolerance are bisected (largest first) until the gap closes or the budget is spent; the
// enclosure is rigorous either way, only its width depends on the budget.
//
// A theorem's constants come from here: the Lipschitz constant of a map ψ (sup |ψ'|), and of a loss ℓ(x, z) the
// gradient bound C = sup |∂ℓ/∂x|, the smoothness β = sup |∂²ℓ/∂x²| and the strong convexity ρ = inf ∂²ℓ/∂x² over the
// domain and the data range. The derivatives are those of the formula as written (dual.hpp): a jump (a comparison,
// an if() whose branches differ at the switch) or a kink makes the derivative above it unbounded, and the extremum
// is then ±inf with where (Extremum::unbounded_near), so that a hypothesis such as "L-Lipschitz" is not certified.
// A formula that is not finite somewhere in the box is an InvalidArgument naming where.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/formulas/enclosure.hpp"
#include "sim/formulas/formula.hpp"

namespace privamp::sim {

struct Extremum {
  Enclosure value;          // the extremum lies in [value.lo, value.hi]
  std::vector<double> at;   // a point where g reaches the inner end
  long evaluations = 0;     // of g over pieces and at points
  // Where g is unbounded (the extremum is ±inf: a jump of the function or of a lower derivative, as written, with
  // comparisons and if() included), or "".
  std::string unbounded_near;
  // Pieces with a switch (if, abs, min, max) that the budget left above the floor width (1e-12 of the range): a jump
  // smaller than the branches' variation over such a piece would not show. 0 in one variable.
  long unresolved_switches = 0;
};

struct CertifyOptions {
  double tolerance = 1e-10;  // relative gap at which the refinement stops (on max(1, |inner|))
  long max_evaluations = 40000;
};

// sup (upper = true) or inf over `box` (one enclosure per variable) of the order-th derivative (0, 1 or 2) of f in
// variable `var`.
Extremum extremum(const Formula& f, std::size_t var, int order, std::span<const Enclosure> box, bool upper,
                  const CertifyOptions& options = {});

// sup |∂^k f/∂x_var^k| over the box: max(sup g, −inf g).
Extremum sup_abs(const Formula& f, std::size_t var, int order, std::span<const Enclosure> box,
                 const CertifyOptions& options = {});

// "[0.9, 0.9] at x = 0.1": an enclosure with where its inner end is reached, for rows and messages.
std::string describe(const Extremum& e, const Formula& f);

// The constants of a loss ℓ(x, z) on x ∈ [lo, hi], z ∈ [zlo, zhi] (Theorem 5): C = sup |ℓ_x|, β = sup |ℓ_xx|,
// ρ = inf ℓ_xx, each enclosed.
struct LossConstants {
  Extremum C, beta, rho;
};
LossConstants loss_constants(const Formula& loss, double lo, double hi, double zlo, double zhi,
                             const CertifyOptions& options = {});

}  // namespace privamp::sim
