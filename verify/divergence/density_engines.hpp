// The density parts of a prepared pair, by the two independent quadrature routes.
#pragma once

#include "verify/divergence/prepared_pair.hpp"

namespace privamp::verify {

// Boost.Math route: the log-space engine of density_pair.hpp.
Part density_part_boost(PreparedPair& pair, const Quantity& quantity, RenyiRoute route = RenyiRoute::direct);
// GSL route: QAGS/QAGIU/QAGIL on e^{h − M} split at the laws' anchors (no crossing search, no log-space
// subdivision logic shared with the Boost route); for cross-checks in moderate regimes. Rényi by the direct
// route only.
Part density_part_gsl(PreparedPair& pair, const Quantity& quantity);

// Monte Carlo on samples of μ (monte_carlo.cpp).
struct MonteCarloOptions;
Estimate monte_carlo_divergence(const sim::Law& p, const sim::Law& q, const Quantity& quantity,
                                const MonteCarloOptions& options);

}  // namespace privamp::verify
