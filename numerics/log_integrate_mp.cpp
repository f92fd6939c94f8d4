#include "numerics/real50.hpp"
#include "numerics/log_integrate_impl.hpp"

namespace privamp {
template LogIntegral<Real50> log_integrate<Real50>(const std::function<Real50(Real50)>&, std::vector<Real50>,
                                                   const LogIntegrateOptions<Real50>&);
}
