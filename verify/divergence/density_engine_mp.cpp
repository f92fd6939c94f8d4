#include "numerics/real50.hpp"
#include "verify/divergence/density_engine_impl.hpp"

namespace privamp::verify {
template LossScan<Real50> scan_loss<Real50>(const DensityPair<Real50>&);
template LogIntegral<Real50> renyi_log_integral<Real50>(const DensityPair<Real50>&, Real50);
template LogIntegral<Real50> renyi_excess_integral<Real50>(const DensityPair<Real50>&, Real50);
template LogIntegral<Real50> kl_integral<Real50>(const DensityPair<Real50>&);
template LogIntegral<Real50> hockey_stick_integral<Real50>(const DensityPair<Real50>&, const LossScan<Real50>&, Real50);
template SupResult<Real50> sup_loss<Real50>(const DensityPair<Real50>&, const LossScan<Real50>&);
}  // namespace privamp::verify
