#include "sim/processes/noise_chain.hpp"

#include <cmath>

#include "numerics/errors.hpp"

namespace privamp::sim {

Gaussian linear_gaussian_chain(double x0, double sigma0, double lipschitz, double sigma, int steps) {
  const char* where = "gaussian_chain";
  check_finite(where, "x0", x0);
  check_nonnegative_finite(where, "sigma0", sigma0);
  check_finite(where, "L", lipschitz);
  check_positive_finite(where, "sigma", sigma);
  if (steps < 1 || steps > 100000) throw_invalid(where, "r", steps, "1 <= r <= 100000");
  double mean = x0, var = sigma0 * sigma0;
  for (int i = 0; i < steps; ++i) {
    mean *= lipschitz;
    var = lipschitz * lipschitz * var + sigma * sigma;
  }
  return Gaussian(mean, std::sqrt(var));
}

}  // namespace privamp::sim
