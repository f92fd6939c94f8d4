// A pair of laws made ready for the deterministic engines: atoms aligned on the union of their locations,
// the continuous parts as a DensityPair, absolute continuity decided, and the privacy-loss scan computed once.
#pragma once

#include <limits>
#include <optional>
#include <vector>

#include "sim/laws/law.hpp"
#include "verify/divergence/density_pair.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

struct PreparedPair {
  const sim::Law& p;
  const sim::Law& q;
  std::vector<double> atom_log_p, atom_log_q;  // on the union of atom locations (−inf where absent)
  bool p_has_density = false;
  bool gsl_resolves = false;  // the GSL engine's nodes integrate both densities to their masses (checked once)
  bool gsl_dense = false;  // the GSL engine puts a geometric ladder of breakpoints around every anchor (gsl_density_engine.cpp)
  bool not_absolutely_continuous = false;  // μ puts mass where ν has none: Rényi, KL, R_∞ are +inf
  DensityPair<double> density;
  std::optional<LossScan<double>> scan;
  // Laws computed jointly (sim::Law::loss_against): the loss at the atoms, and the bound δ on its error that every
  // quantity must be evaluated over (engines.cpp); empty and 0 otherwise.
  std::vector<double> atom_loss;
  double loss_error = 0;
  bool loss_error_from_rounding = false;  // loss_error bounds the rounding of log p − log q (nearly equal laws)
  double point_cost = 2;  // closed-form densities per evaluation of both (a mixture costs one per component)

  PreparedPair(const sim::Law& p, const sim::Law& q, double rel_tol);
  const LossScan<double>& loss_scan();
  void check_loss_rounding();  // sets loss_error for nearly coinciding laws (see prepared_pair.cpp)
  bool plain_densities = false;   // both laws have densities and were not computed jointly
  bool rounding_checked = false;
  // True if ∫ p^α q^{1−α} diverges in a tail (decided from the tail shapes). `estimated` (if given) is set when a
  // shape that decides it was read off a formula's derivatives: an a-posteriori conclusion, not an exact one.
  bool renyi_tail_diverges(double alpha, bool* estimated = nullptr) const;
  // True if, in a tail where neither law is bounded, the exponent of p^α q^{1−α} (its x² and |x| coefficients) is
  // zero within the rounding of the tail shapes (64 ulps; 1e-6 where a shape was read off a formula): whether the
  // integral converges, and how much mass sits beyond any point a quadrature sees, is not known (Laplace(0, 2)
  // against Laplace(0, 1) at α = 2 diverges; a hair to the other side the mass spreads to 10^16 scales). A Rényi
  // integral then has no upper end.
  bool renyi_tail_marginal(double alpha) const;
  // True if, at an unbounded end of the loss scan (where μ has dropped e^{−1e7}), the privacy loss grows with a
  // higher power of |x| than −log p: then p·e^{(α−1)L} rises again further out for every α > 1, whatever the
  // quadrature saw (−|x|^1.9 against −x²/2 dips to e^{−1e10} and rises beyond 10^6). A Rényi integral then has no
  // upper end.
  bool loss_outgrows_density();
};

// A sum of non-negative contributions (atoms, density) in log form with a relative error bar: what each engine
// returns for the atoms and for the densities before the quantity is finished.
struct Part {
  double log_value = -std::numeric_limits<double>::infinity();
  double rel_error = 0;
  double rel_error_below = 0;  // the part of rel_error that may lie below the value (LogIntegral::rel_error_below)
  bool infinite = false;
  bool infinite_estimated = false;  // +inf concluded from tail shapes read off formulas (labelled a-posteriori)
  long work = 0;
  void add(double log_v, double rel);
  void add(double log_v, double rel, double rel_below);
  void add(const Part& other);
};

// How Rényi is integrated: I = ∫ p^α q^{1−α} in log form (direct), or its excess J = I − 1 through the
// non-negative generator of generators.hpp (excess). The direct route gives R = log I/(α−1) to an absolute error
// ~ rel_err(I)/(α−1), which loses relative digits when R(α−1) is small (α → 1, nearly equal laws); the excess
// route keeps them. KL always uses its generator.
enum class RenyiRoute { direct, excess };
RenyiRoute first_renyi_route(double alpha);         // excess when α − 1 < 0.1
bool wants_excess_route(const Part& direct_part);   // I < e^{0.5}: redo by the excess route

// Exact sums over the atoms (the finite-sum engine and the atom part of the others). `push` evaluates the
// generator quantities (KL, Rényi by the excess route) with the loss pushed by ±loss_error (DensityPair::loss_push).
Part atom_part(const PreparedPair& pair, const Quantity& quantity, RenyiRoute route = RenyiRoute::direct, int push = 0);
// Turns the combined parts into the quantity's estimate.
Estimate finish(const Part& part, const Quantity& quantity, ErrorKind kind, const std::string& method,
                RenyiRoute route = RenyiRoute::direct);
// R_∞ from the atoms and (for the density part) the scan's supremum.
Estimate renyi_inf(PreparedPair& pair, const std::string& method);

}  // namespace privamp::verify
