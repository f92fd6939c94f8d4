// The double engine against its own 50-digit instantiation on pairs without closed forms (fractional orders,
// hockey-stick of mixtures, sums of Laplaces): the double interval must contain the 50-digit value.
#include <cmath>

#include <catch2/catch.hpp>

#include "sim/language/expression.hpp"
#include "support/check.hpp"
#include "support/reference.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;
using test::Real50;
using verify::Quantity;

namespace {

verify::DensityPair<Real50> subsampled_gaussian50(double q) {
  const Real50 qq(q), zero(0), one(1);
  return test::pair50([=](Real50 x) { return test::mix_log(qq, test::gauss_lpdf(x, zero, one), test::gauss_lpdf(x, one, one)); },
                      [=](Real50 x) { return test::gauss_lpdf(x, zero, one); }, {zero, one}, one);
}

verify::Estimate quadrature(const sim::Law& p, const sim::Law& q, const Quantity& quantity) {
  verify::DivergenceOptions o;
  o.engine = verify::Engine::quadrature;
  return verify::compute_divergence(p, q, quantity, o);
}

}  // namespace

TEST_CASE("subsampled Gaussian, fractional orders and hockey-stick: double within its bar of 50 digits", "[verify][mp]") {
  for (double q : {0.01, 0.5}) {
    const auto pair = subsampled_gaussian50(q);
    const auto p = sim::parse_law(fmt::format("mix({}, gaussian(0,1), gaussian(1,1))", q));
    const auto g = sim::parse_law("gaussian(0, 1)");
    for (double alpha : {1.5, 2.5, 10.5, 256.0}) {
      const auto ref = verify::renyi_log_integral(pair, Real50(alpha));
      const double truth = static_cast<double>(ref.log_value / (alpha - 1));
      const auto e = quadrature(*p, *g, Quantity::renyi(alpha));
      INFO("q " << q << " alpha " << alpha << " truth " << truth << " ref rel " << static_cast<double>(ref.rel_error) << "\n" << test::describe(e));
      CHECK(static_cast<double>(ref.rel_error) < 1e-25);
      CHECK(e.contains(truth));
      CHECK(test::near_rel(e.value, truth, 1e-12));
    }
    const auto scan = verify::scan_loss(pair);
    for (double eps : {0.0, 0.5, 2.0, 8.0}) {
      const auto ref = verify::hockey_stick_integral(pair, scan, Real50(eps));
      const double log_truth = static_cast<double>(ref.log_value);
      const auto e = quadrature(*p, *g, Quantity::hockey_stick(eps));
      INFO("q " << q << " eps " << eps << " log truth " << log_truth << "\n" << test::describe(e));
      CHECK(test::covers(e, std::exp(log_truth), log_truth));
      CHECK(test::near_rel(e.log_value, log_truth, 1e-12, 1e-12));
    }
  }
}

TEST_CASE("sum of Laplaces: double quadrature within its bar of the 50-digit value", "[verify][mp]") {
  // loc + Lap(0,1) + Lap(0,2): density (−e^{−|y|}/6 + e^{−|y|/2}/3) (partial fractions, written out here).
  auto lpdf = [](Real50 x, Real50 loc) {
    const Real50 y = abs(x - loc);
    return log(-exp(-y) / 6 + exp(-y / 2) / 3);
  };
  const auto pair = test::pair50([&](Real50 x) { return lpdf(x, Real50(1)); }, [&](Real50 x) { return lpdf(x, Real50(0)); },
                                 {Real50(0), Real50(1)}, Real50(1));
  const auto p = sim::parse_law("laplace_sum(1, [1, 2])"), q = sim::parse_law("laplace_sum(0, [1, 2])");
  for (double alpha : {1.5, 5.0, 40.0}) {
    const double truth = static_cast<double>(verify::renyi_log_integral(pair, Real50(alpha)).log_value / (alpha - 1));
    const auto e = quadrature(*p, *q, Quantity::renyi(alpha));
    INFO("alpha " << alpha << " truth " << truth << "\n" << test::describe(e));
    CHECK(e.contains(truth));
  }
  const double kl = static_cast<double>(exp(verify::kl_integral(pair).log_value));
  CHECK(quadrature(*p, *q, Quantity::kl()).contains(kl));
}
