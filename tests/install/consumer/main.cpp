// Uses the installed API: a law from an expression, divergences with their intervals, a kernel's worst case.
#include <cmath>
#include <cstdio>

#include <privamp/privamp.hpp>

int main() {
  using namespace privamp;
  const auto mu = sim::parse_law("gaussian(1, 1)"), nu = sim::parse_law("gaussian(0, 1)");
  verify::DivergenceOptions o;
  o.engine = verify::Engine::quadrature;
  const auto r = verify::compute_divergences(*mu, *nu, std::vector<verify::Quantity>{verify::Quantity::renyi(2)}, o);
  std::printf("renyi(2) %.15g in [%.15g, %.15g]\n", r[0].value, r[0].lower, r[0].upper);
  const sim::FiniteKernel k(sim::randomized_response_kernel(3, 1.0));
  const auto w = verify::worst_case_amplification(k, 1.0, 0.01, {0.5}).front();
  std::printf("worst case %.15g\n", w.value.value);
  try {
    sim::parse_law("gaussian(0, -1)");
    return 1;
  } catch (const InvalidArgument& e) {
    std::printf("refused: %s\n", e.what());
  }
  return r[0].lower <= 1.0 && 1.0 <= r[0].upper ? 0 : 1;  // R_2(N(1,1) || N(0,1)) = 1
}
