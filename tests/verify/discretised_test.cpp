// The error model of discretised laws (verify/divergence/discretised.hpp): intervals of grid-propagated laws
// contain the exact value of the continuous law, and the safety factor is justified by measuring, on laws with
// closed forms, how much of the bar the true error uses.
//
// References: one projected noisy step from a point is exactly a clamped Gaussian, so
//   projected_chain(x0, r=1, map=linear, L, sigma, lo, hi) = clamp(gaussian(L x0, sigma), lo, hi)
//   noisy_sgd(n=1, i=1, zi, eta, sigma, lambda, R)        = clamp(gaussian(eta lambda zi, eta sigma), -R, R)
// whose divergences the quadrature engine computes to ~1e-13 with no discretisation (the grid laws at 400 cells
// err by 1e-4 .. 1e-6 before extrapolation).
#include <algorithm>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/language/expression.hpp"
#include "support/check.hpp"
#include "verify/divergence/discretised.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;
using verify::Quantity;

namespace {

struct Pair {
  std::string mu, nu, mu_exact, nu_exact;
};

std::vector<Pair> pairs() {
  std::vector<Pair> out;
  for (double sigma : {0.5, 1.0, 2.0})
    for (double x0 : {0.25, 1.0})
      for (double l : {0.5, 1.0}) {
        const auto chain = [&](double x) {
          return fmt::format("projected_chain(x0={}, r=1, L={}, sigma={}, lo=-2, hi=2, cells=200)", x, l, sigma);
        };
        const auto exact = [&](double x) { return fmt::format("clamp(gaussian({}, {}), lo=-2, hi=2)", l * x, sigma); };
        out.push_back({chain(x0), chain(-x0), exact(x0), exact(-x0)});
      }
  for (double eta : {0.1, 0.5})
    for (double sigma : {1.0, 4.0}) {
      const auto sgd = [&](double z) { return fmt::format("noisy_sgd(n=1, i=1, zi={}, eta={}, sigma={}, cells=200)", z, eta, sigma); };
      const auto exact = [&](double z) { return fmt::format("clamp(gaussian({}, {}), lo=-1, hi=1)", eta * z, eta * sigma); };
      out.push_back({sgd(1), sgd(-1), exact(1), exact(-1)});
    }
  return out;
}

}  // namespace

TEST_CASE("discretised laws: intervals contain the continuous law's value, the safety factor has margin", "[discretised]") {
  const std::vector<Quantity> quantities = {Quantity::renyi(2), Quantity::renyi(8), Quantity::kl(), Quantity::tv(),
                                            Quantity::hockey_stick(0.3)};
  double worst_use = 0;  // largest |error| / (discretisation bar / S): the share of the unscaled estimate used
  int extrapolated = 0;
  for (const Pair& pair : pairs()) {
    const auto p = sim::parse_law(pair.mu), q = sim::parse_law(pair.nu);
    REQUIRE(p->discretisation() != nullptr);
    const auto pe = sim::parse_law(pair.mu_exact), qe = sim::parse_law(pair.nu_exact);
    const auto got = verify::compute_divergences(*p, *q, quantities);
    const auto truth = verify::compute_divergences(*pe, *qe, quantities);
    for (std::size_t k = 0; k < quantities.size(); ++k) {
      INFO(pair.mu << " vs " << pair.nu << ": " << quantities[k].label());
      INFO(test::describe(got[k]) << "; reference " << test::describe(truth[k]));
      CHECK(got[k].error_kind == verify::ErrorKind::discretised);
      // The reference's own bar is ~1e-13: containment is checked against its whole interval.
      CHECK(got[k].lower <= truth[k].upper);
      CHECK(truth[k].lower <= got[k].upper);
      const double error = std::fabs(got[k].value - truth[k].value);
      if (got[k].method.find("Richardson") != std::string::npos) {
        ++extrapolated;
        worst_use = std::max(worst_use, error / (got[k].discretisation_error / verify::kRichardsonSafety));
      }
    }
  }
  // Most points are extrapolated (the rest converged within the engine's bars).
  CHECK(extrapolated >= 40);
  // The safety factor S = 2: the true error uses at most 41% of the unscaled estimate |R − R'| + order term on every
  // pair (0.402 today), so the bar keeps a factor of about 5 in reserve.
  INFO("largest share of the unscaled discretisation estimate used by the true error: " << worst_use);
  CHECK(worst_use <= 0.41);
}

TEST_CASE("discretised laws: the README's noisy SGD example contains the 25-digit reference", "[discretised]") {
  // Reference by an independent Nystrom (Gauss-Legendre) propagation at high order (tests/audit).
  const auto p = sim::parse_law("noisy_sgd(n=10, i=10, zi=1, eta=0.1)");
  const auto q = sim::parse_law("noisy_sgd(n=10, i=10, zi=-1, eta=0.1)");
  const auto e = verify::compute_divergence(*p, *q, Quantity::renyi(2));
  INFO(test::describe(e));
  CHECK(e.contains(0.865587292587));
  CHECK(e.upper - e.lower < 1e-7);
}

TEST_CASE("discretised laws: the observed order is checked", "[discretised]") {
  auto est = [](double v) { return verify::Estimate::from_value(v, 1e-15, verify::ErrorKind::quadrature, "test"); };
  // Errors 4e-4, 1e-4, 2.5e-5 around 1: order 2, extrapolated to 1 exactly.
  const auto good = verify::richardson(est(1.0004), est(1.0001), est(1.000025), 2, "grid");
  CHECK(good.contains(1.0));
  CHECK(good.value == Approx(1.0).epsilon(1e-12));
  // Errors halving (order 1) against a method of order 2: refused, naming the observed order.
  CHECK_THROWS_WITH(verify::richardson(est(1.004), est(1.002), est(1.001), 2, "grid"),
                    Catch::Contains("observed order of convergence 1.00"));
  // Differences of changing sign: refused.
  CHECK_THROWS_WITH(verify::richardson(est(1.001), est(0.999), est(1.0005), 2, "grid"),
                    Catch::Contains("differences change sign"));
  // Converged below the bars: no extrapolation, the coarse change bounds the rest.
  const auto flat = verify::richardson(est(1 + 1e-10), est(1.0), est(1.0), 2, "grid");
  CHECK(flat.contains(1 + 1e-10));
  CHECK(flat.discretisation_error == Approx(1e-10));
}
