// The double engine against its own 50-digit instantiation on pairs without closed forms (fractional orders,
// hockey-stick of mixtures, sums of Laplaces): the double interval must contain the 50-digit value.
#include <algorithm>
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "sim/language/expression.hpp"
#include "support/check.hpp"
#include "support/reference.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/divergence/generators.hpp"

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
      CHECK(test::near_rel(e.log_value(), log_truth, 1e-12, 1e-12));
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

// The Rényi excess generator log f_α(e^L) near L = 0, where its series runs (|αL| < 0.1), and just outside it,
// against the textbook form r^α − 1 − α(r − 1) at 50 digits (which cancels to O(t·L²) of 1: it keeps 25+ digits
// at these points). Orders just above 1 are where the series' α^{k−1} − 1 must keep its relative digits.
TEST_CASE("the Renyi generator keeps its relative digits near L = 0 (against 50 digits of the textbook form)", "[verify][mp]") {
  double worst = 0;
  int points = 0;
  for (double alpha : {1.0 + 1e-6, 1.001, 1.37, 2.0, 3.0, 7.5, 40.0}) {
    for (double l : {-0.0999, -0.031, -2.5e-3, -1e-5, 7.3e-7, 1e-4, 0.0021, 0.013, 0.0499, 0.0999, 0.12, -0.15}) {
      const Real50 a(alpha), r = boost::multiprecision::exp(Real50(l));
      const Real50 f = boost::multiprecision::pow(r, a) - 1 - a * (r - 1);
      const double truth = static_cast<double>(boost::multiprecision::log(f));
      const double got = verify::log_renyi_generator(l, alpha);
      // f to within 16 ulps, relative, plus the rounding of log f itself: |Δ log f| ≤ 16·eps + eps·|log f|.
      const double err = std::fabs(got - truth) - std::numeric_limits<double>::epsilon() * std::fabs(truth);
      INFO("alpha = " << alpha << ", L = " << l << ": " << got << " against " << truth);
      CHECK(err <= 16 * std::numeric_limits<double>::epsilon());
      worst = std::max(worst, err);
      ++points;
    }
  }
  CHECK(points == 84);
  WARN("worst |error of log f|: " << worst);
}
