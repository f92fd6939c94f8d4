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
  bool not_absolutely_continuous = false;  // μ puts mass where ν has none: Rényi, KL, R_∞ are +inf
  DensityPair<double> density;
  std::optional<LossScan<double>> scan;

  PreparedPair(const sim::Law& p, const sim::Law& q, double rel_tol);
  const LossScan<double>& loss_scan();
  // True if ∫ p^α q^{1−α} diverges in a tail (decided from the tail shapes).
  bool renyi_tail_diverges(double alpha) const;
};

// A divergence as positive and negative parts in log form (value = e^{log_pos} − e^{log_neg}), with relative
// error bars; what each engine returns for the atoms and for the densities before they are combined.
struct Part {
  double log_pos = -std::numeric_limits<double>::infinity();
  double pos_rel = 0;
  double log_neg = -std::numeric_limits<double>::infinity();
  double neg_rel = 0;
  bool infinite = false;
  long work = 0;
  void add_pos(double log_v, double rel);
  void add_neg(double log_v, double rel);
  void add(const Part& other);
};

// How Rényi is integrated: log ∫ p^α q^{1−α} (direct) or ∫ p·expm1((α−1)L) (near α = 1).
bool use_expm1_route(double alpha);

// Exact sums over the atoms (the finite-sum engine and the atom part of the others).
Part atom_part(const PreparedPair& pair, const Quantity& quantity);
// Turns the combined parts into the quantity's estimate.
Estimate finish(const Part& part, const Quantity& quantity, ErrorKind kind, const std::string& method);
// R_∞ from the atoms and (for the density part) the scan's supremum.
Estimate renyi_inf(PreparedPair& pair, const std::string& method);

}  // namespace privamp::verify
