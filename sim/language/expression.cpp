#include "sim/language/expression.hpp"

#include "sim/laws/composition.hpp"
#include "sim/laws/density.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/laplace.hpp"
#include "sim/laws/mixture.hpp"
#include "sim/laws/projected.hpp"
#include "sim/laws/shifted.hpp"
#include "sim/processes/diffusion.hpp"
#include "sim/processes/finite_chain.hpp"
#include "sim/processes/langevin.hpp"
#include "sim/processes/noise_chain.hpp"
#include "sim/processes/projected_chain.hpp"
#include "sim/processes/sgd.hpp"
#include "sim/processes/shuffling.hpp"
#include "sim/processes/subsampling.hpp"

namespace privamp::sim {

const std::vector<LawSpec>& law_catalogue() {
  // Each law's spec (parameters, example, builder) is defined in its unit, beside its class or process; this is
  // the order `privamp laws` prints them in.
  static const std::vector<LawSpec> catalogue = {
      gaussian_law_spec(), gaussian_nd_law_spec(), ou_law_spec(), ou_nd_law_spec(),
      gaussian_chain_law_spec(), noisy_sgd_law_spec(), projected_chain_law_spec(), double_well_law_spec(),
      langevin_law_spec(), brownian_law_spec(), brownian_nd_law_spec(), laplace_law_spec(),
      laplace_sum_law_spec(), laplace_nfold_law_spec(), density_law_spec(), convolve_law_spec(),
      power_law_spec(), product_law_spec(), mixture_law_spec(), mix_law_spec(),
      shift_law_spec(), binomial_mix_law_spec(), subsample_law_spec(), pmf_law_spec(),
      shuffled_rr_law_spec(), shuffled_krr_law_spec(), blanket_law_spec(), chain_law_spec(),
      clamp_law_spec(), grid_law_spec()};
  return catalogue;
}

}  // namespace privamp::sim
