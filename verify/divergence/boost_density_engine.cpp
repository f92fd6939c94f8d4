#include <cmath>
#include <limits>

#include "verify/divergence/engine_entry.hpp"
#include "verify/divergence/density_engines.hpp"

namespace privamp::verify {

namespace {
Part from_integral(const LogIntegral<double>& r) {
  Part part;
  part.add(r.log_value, r.rel_error, r.rel_error_below);
  part.work = r.evaluations;
  return part;
}
}  // namespace

Part density_part_boost(PreparedPair& pair, const Quantity& quantity, RenyiRoute route) {
  Part part;
  if (!pair.p_has_density) return part;
  const bool divergence_like = quantity.kind == Quantity::Kind::renyi || quantity.kind == Quantity::Kind::kl;
  if (divergence_like && pair.not_absolutely_continuous) {
    part.infinite = true;
    return part;
  }
  try {
    switch (quantity.kind) {
      case Quantity::Kind::renyi: {
        const double alpha = quantity.parameter;
        if (bool estimated = false; pair.renyi_tail_diverges(alpha, &estimated)) {
          part.infinite = true;
          part.infinite_estimated = estimated;
          return part;
        }
        Part integral = from_integral(route == RenyiRoute::excess ? renyi_excess_integral(pair.density, alpha)
                                                                  : renyi_log_integral(pair.density, alpha));
        if (pair.loss_outgrows_density() || pair.renyi_tail_marginal(alpha)) integral.rel_error = std::numeric_limits<double>::infinity();  // no upper end
        return integral;
      }
      case Quantity::Kind::kl: return from_integral(kl_integral(pair.density));
      case Quantity::Kind::hockey_stick:
      case Quantity::Kind::tv: {
        const double eps = quantity.kind == Quantity::Kind::tv ? 0.0 : quantity.parameter;
        return from_integral(hockey_stick_integral(pair.density, pair.loss_scan(), eps));
      }
      case Quantity::Kind::renyi_inf: break;
    }
  } catch (const NotAbsolutelyContinuous&) {
    part.infinite = divergence_like;
  }
  return part;
}

// The engines' entries (engine_entry.hpp): exact sums over two finite laws, and the log-space quadrature for any
// pair on the line (atoms by exact sums, densities by Gauss-Kronrod); both tried by the default engine.
extern const EngineEntry kFiniteSumEngine{
    Engine::finite_sum, "sum", "two finite laws (pmfs) on the line: exact sums in log space", true,
    [](const sim::Law& p, const sim::Law& q) {
      if (std::string why = needs_one_dimension(p, q); !why.empty()) return why;
      return purely_atomic(p) && purely_atomic(q) ? std::string() : std::string("the finite-sum engine needs two finite laws (pmfs)");
    },
    [](const ValueCall& c) -> std::optional<Estimate> { return density_route(c.pair(), c.quantity, c.engine); }, "", true};

extern const EngineEntry kQuadratureEngine{
    Engine::quadrature, "quadrature", "any pair of laws on the line: atoms by exact sums, densities by log-space Gauss-Kronrod",
    true, needs_one_dimension,
    [](const ValueCall& c) -> std::optional<Estimate> { return density_route(c.pair(), c.quantity, c.engine); }, "", true};

}  // namespace privamp::verify
