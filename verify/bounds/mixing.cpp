// MIX — amplification from uniform mixing (Balle et al. 2019, §3, Theorem 1). Its four bounds are closed forms in
// verify/bounds/catalogue.toml; kernel cases supply the kernel's best mixing constants as parameters (gamma_tv,
// gamma_hs_tilde, gamma_doeblin, gamma_ultra). Here: Theorem 1's points for a kernel, from those entries.
#include "sim/kernels/finite_kernel.hpp"
#include "verify/bounds/catalogue.hpp"

namespace privamp::verify {

std::vector<Theorem1Point> theorem1_points(const sim::FiniteKernel& kernel, double eps, double delta) {
  Params p;
  p.numbers = {{"eps", eps}, {"delta", delta}};
  add_kernel_constants(kernel, p);
  std::vector<Theorem1Point> out;
  for (const char* id : {"T1.1", "T1.2", "T1.3", "T1.4"}) {
    const BoundEntry& e = find_bound(id);
    const DivergenceCheck* d = e.divergence();
    out.push_back({id, e.statement, d && d->order ? d->order(p) : eps, e.bound(p).value});
  }
  return out;
}

}  // namespace privamp::verify
