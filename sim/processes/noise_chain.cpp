#include "sim/processes/noise_chain.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/spec.hpp"

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
  // |L| > 1 over many steps: L^r x0 or the variance leaves the double range (L = 2, r = 100000), which the Gaussian
  // would report as its own 'loc' = inf; said here in the chain's terms.
  if (!std::isfinite(mean) || !std::isfinite(var))
    invalid_input("gaussian_chain: with L = {} over r = {} steps the law's {} exceeds the double range (|L|^r = {:.3g}); "
                  "give fewer steps or |L| closer to 1", format_number(lipschitz), steps, std::isfinite(mean) ? "variance" : "mean",
                  std::pow(std::fabs(lipschitz), steps));
  // |L| < 1 over many steps: L^r x0 below the normal range keeps few digits or none (0.1^100000 rounds to 0, and two
  // chains from different x0 became one law: a divergence of exactly 0 labelled exact). Refused rather than rounded.
  if (std::fabs(x0) >= std::numeric_limits<double>::min() && lipschitz != 0 && std::fabs(mean) < std::numeric_limits<double>::min())
    invalid_input("gaussian_chain: with L = {} over r = {} steps the law's mean L^r x0 underflows the double range "
                  "(log10 |L^r x0| = {:.6g}): it keeps no digits; give fewer steps or |L| closer to 1",
                  format_number(lipschitz), steps, steps * std::log10(std::fabs(lipschitz)) + std::log10(std::fabs(x0)));
  return Gaussian(mean, std::sqrt(var));
}

// ---- The law of the expression language (sim/laws/spec.hpp).

LawSpec gaussian_chain_law_spec() {
  using K = ParamKind;
  return {"gaussian_chain", "X_r of X_i = L X_(i-1) + N(0, sigma^2) from X_0 ~ N(x0, sigma0^2) (exact Gaussian law)",
    {{"x0", K::number, std::nullopt, "mean of X_0"},
    ParamSpec{"r", K::integer, "1", "number of steps, >= 1"}.within(Range::between(1, 100000)),
    {"L", K::number, "1", "the linear (L-Lipschitz) map x -> L x"},
    ParamSpec{"sigma", K::number, "1", "noise standard deviation per step, > 0"}.within(Range::positive()),
    ParamSpec{"sigma0", K::number, "0", "standard deviation of X_0 (0: a point)"}.within(Range::non_negative())},
    "gaussian_chain(x0=1, r=5, L=0.9, sigma=1)",
    [](const Args& a) {
      return std::make_shared<Gaussian>(linear_gaussian_chain(a.number("x0"), a.number("sigma0"), a.number("L"),
                                                              a.number("sigma"), static_cast<int>(a.integer("r"))));
    }};
}
PRIVAMP_LAW(50, gaussian_chain_law_spec);

}  // namespace privamp::sim
