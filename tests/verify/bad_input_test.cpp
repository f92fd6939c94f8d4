#include <catch2/catch.hpp>

#include <string>

#include <fmt/format.h>

#include "support/check.hpp"
#include "numerics/errors.hpp"
#include "sim/language/expression.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/divergence/work.hpp"

using namespace privamp;
using test::error_of;
using verify::Quantity;

TEST_CASE("quantities and engines reject what they cannot do, with a clear message", "[verify][bad-input]") {
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of([] { Quantity::renyi(1); }), Contains("parameter 'alpha' = 1 is out of range"));
  CHECK_THAT(error_of([] { Quantity::renyi(0.5); }), Contains("use kl for alpha -> 1"));
  CHECK_THAT(error_of([] { Quantity::hockey_stick(-0.1); }), Contains("parameter 'eps' = -0.1"));
  CHECK_THAT(error_of([] { verify::parse_engine("fast"); }), Contains("unknown engine 'fast'"));
  const auto g = sim::parse_law("gaussian(0, 1)"), l = sim::parse_law("laplace_sum(0, [1, 2])");
  const auto nd = sim::parse_law("gaussian_nd([0, 0], 1)"), nd2 = sim::parse_law("gaussian_nd([1, 1], 2)");
  verify::DivergenceOptions closed;
  closed.engine = verify::Engine::closed_form;
  CHECK_THAT(error_of([&] { verify::compute_divergence(*l, *g, Quantity::kl(), closed); }), Contains("no closed form for kl"));
  verify::DivergenceOptions sum;
  sum.engine = verify::Engine::finite_sum;
  CHECK_THAT(error_of([&] { verify::compute_divergence(*g, *g, Quantity::kl(), sum); }), Contains("needs two finite laws"));
  verify::DivergenceOptions mc;
  mc.engine = verify::Engine::monte_carlo;
  CHECK_THAT(error_of([&] { verify::compute_divergence(*g, *l, Quantity::renyi_inf(), mc); }), Contains("cannot be estimated"));
  mc.monte_carlo.samples = 10;
  CHECK_THAT(error_of([&] { verify::compute_divergence(*g, *l, Quantity::kl(), mc); }), Contains("parameter 'samples' = 10"));
  CHECK_THAT(error_of([&] { verify::compute_divergence(*nd, *nd2, Quantity::kl()); }), Contains("isotropic Gaussians of equal sigma"));
  CHECK_THAT(error_of([] { sim::parse_law("mix(0.5, gaussian_nd([0, 1], 1), gaussian(0, 1))"); }),
             Contains("mix: its laws live in different dimensions (R^2 and R^1)"));
  CHECK_THAT(error_of([] { sim::parse_law("mix(0.5, gaussian_nd([0, 1], 1), gaussian_nd([1, 1], 1))"); }),
             Contains("components must be one-dimensional"));
}

TEST_CASE("divergences that are infinite are reported as +inf, never NaN", "[verify]") {
  const auto g = sim::parse_law("gaussian(0, 1)"), l = sim::parse_law("laplace(0, 1)");
  // Laplace tails are heavier than Gaussian ones: R_α(Laplace‖Gaussian) = ∞ for every α > 1, KL finite.
  CHECK(std::isinf(verify::compute_divergence(*l, *g, Quantity::renyi(2)).value));
  CHECK(std::isfinite(verify::compute_divergence(*l, *g, Quantity::kl()).value));
  CHECK(std::isinf(verify::compute_divergence(*l, *g, Quantity::renyi_inf()).value));
  // μ has an atom where ν has none.
  const auto a = sim::parse_law("pmf([0.5, 0.5])"), b = sim::parse_law("pmf([1], at=[0])");
  CHECK(std::isinf(verify::compute_divergence(*a, *b, Quantity::kl()).value));
  CHECK(verify::compute_divergence(*a, *b, Quantity::tv()).value == Approx(0.5));
  // Clamped vs unclamped: atoms against a density.
  const auto c = sim::parse_law("clamp(gaussian(0, 1), -1, 1)");
  CHECK(std::isinf(verify::compute_divergence(*c, *g, Quantity::renyi(2)).value));
  CHECK(verify::compute_divergence(*c, *g, Quantity::tv()).value == Approx(std::erfc(1 / std::sqrt(2.0))).epsilon(1e-12));
}

// A value's density evaluations are bounded (verify/divergence/work.hpp): a mixture whose loss scan alone would pass
// half the budget is refused before any evaluation, naming its anchors; one whose value runs out of the budget is
// refused with its cost, not answered from the NaN densities past it (a plain mixture of 40,000 Gaussians took 96 s).
TEST_CASE("a value's density work is bounded, refused up front or once spent", "[verify][bad-input]") {
  using Catch::Matchers::Contains;
  auto mixture = [](int n, double spacing, int locations = 1 << 30) {
    std::string w, l;
    for (int i = 0; i < n; ++i) {
      w += fmt::format("{}{}", i ? ", " : "", 1.0 / n);
      l += (i ? ", " : "") + fmt::format("gaussian({}, 1)", (i % locations) * spacing);
    }
    return sim::parse_law(fmt::format("mixture(weights=[{}], laws=[{}])", w, l));
  };
  const auto g = sim::parse_law("gaussian(0, 1)");
  CHECK_THAT(error_of([&] { verify::compute_divergence(*mixture(6000, 0.01), *g, Quantity::renyi(2)); }),
             Contains("6000 anchors") && Contains("6001 closed-form densities per point"));
  // Components at 100 locations count each location once: 4,000 components are quick.
  const auto e = verify::compute_divergence(*mixture(4000, 1, 100), *g, Quantity::renyi(2));
  CHECK(e.value == Approx(9791.78965963).epsilon(1e-9));  // (log of the mean of e^{jk} over j, k = 0 … 99, by mpmath)
  // A value that starts with its budget spent (an outer scope shares it) is refused with its cost.
  const auto small = mixture(3, 0.5);
  const verify::ValueWork outer;
  CHECK_FALSE(verify::charge_density_work(2 * verify::kMaxDensityWork));
  verify::DivergenceOptions quadrature;
  quadrature.engine = verify::Engine::quadrature;
  CHECK_THROWS_WITH(verify::compute_divergence(*small, *g, Quantity::kl(), quadrature),
             Contains("kl of mixture") && Contains("would need more than 1e+09 density evaluations") && Contains("costs 4 closed-form"));
}
