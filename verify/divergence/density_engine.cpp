#include "verify/divergence/density_engine_impl.hpp"

namespace privamp::verify {
template LossScan<double> scan_loss<double>(const DensityPair<double>&);
template LogIntegral<double> renyi_log_integral<double>(const DensityPair<double>&, double);
template LogIntegral<double> renyi_excess_integral<double>(const DensityPair<double>&, double);
template LogIntegral<double> kl_integral<double>(const DensityPair<double>&);
template LogIntegral<double> hockey_stick_integral<double>(const DensityPair<double>&, const LossScan<double>&, double);
template SupResult<double> sup_loss<double>(const DensityPair<double>&, const LossScan<double>&);
}  // namespace privamp::verify
