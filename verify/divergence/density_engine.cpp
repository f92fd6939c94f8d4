#include "verify/divergence/density_engine_impl.hpp"

namespace privamp::verify {
#define PRIVAMP_INSTANTIATE(Real)                                                                                 \
  template LossScan<Real> scan_loss<Real>(const DensityPair<Real>&);                                            \
  template LogIntegral<Real> renyi_log_integral<Real>(const DensityPair<Real>&, Real);                          \
  template SignedLogIntegral<Real> renyi_expm1_integral<Real>(const DensityPair<Real>&, const LossScan<Real>&, Real); \
  template SignedLogIntegral<Real> kl_integral<Real>(const DensityPair<Real>&, const LossScan<Real>&);           \
  template LogIntegral<Real> hockey_stick_integral<Real>(const DensityPair<Real>&, const LossScan<Real>&, Real); \
  template SupResult<Real> sup_loss<Real>(const DensityPair<Real>&, const LossScan<Real>&);
PRIVAMP_INSTANTIATE(double)
}  // namespace privamp::verify
