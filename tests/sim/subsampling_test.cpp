// Subsampled output laws: each scheme against the mixture written out by hand, and the refused combinations.
#include <cmath>

#include <catch2/catch.hpp>

#include "sim/language/expression.hpp"
#include "sim/processes/subsampling.hpp"
#include "support/check.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;
using Catch::Matchers::Contains;

TEST_CASE("subsampled laws equal their mixtures written out", "[sim][subsampling]") {
  const std::pair<const char*, const char*> same[] = {
      {"subsample(scheme=poisson, base=gaussian, q=0.1, sigma=2)", "mix(0.1, gaussian(0, 2), gaussian(1, 2))"},
      {"subsample(scheme=wor, base=laplace, n=40, m=10, scale=0.5)", "mix(0.25, laplace(0, 0.5), laplace(1, 0.5))"},
      {"subsample(scheme=wr, base=gaussian, n=20, m=7)", "binomial_mix(m=7, p=0.05, law=gaussian(0, 1))"},
      {"subsample(scheme=wor, base=rr, n=10, m=4, eps0=1.5)",
       "mix(0.4, shuffled_rr(n=4, eps0=1.5, first=0), shuffled_rr(n=4, eps0=1.5, first=1))"},
      {"subsample(scheme=wor, base=rr, side=0, n=10, m=4, eps0=1.5)", "shuffled_rr(n=4, eps0=1.5, first=0)"}};
  const auto reference = sim::parse_law("gaussian(0.3, 1.5)");
  for (const auto& [a, b] : same) {
    INFO(a << " vs " << b);
    const auto p = sim::parse_law(a), q = sim::parse_law(b);
    // Equal laws: TV 0 between them, and the same divergence from a third law.
    CHECK(verify::compute_divergence(*p, *q, verify::Quantity::tv()).value < 1e-13);
    if (p->continuous_mass() > 0) {
      const double dp = verify::compute_divergence(*p, *reference, verify::Quantity::renyi(2)).value;
      CHECK(test::near_rel(dp, verify::compute_divergence(*q, *reference, verify::Quantity::renyi(2)).value, 1e-12));
    }
  }
  // The record on side 0 is absent (poisson) or holds 0: the base at count 0.
  CHECK(sim::parse_law("subsample(scheme=poisson, side=0, q=0.3)")->expression() == sim::parse_law("gaussian(0, 1)")->expression());
}

TEST_CASE("subsampled laws: bad input names the parameter", "[sim][subsampling]") {
  auto error = [](const char* text) { return test::error_of([&] { sim::parse_law(text); }); };
  CHECK_THAT(error("subsample(scheme=bernoulli)"), Contains("allowed poisson, wor, wr"));
  CHECK_THAT(error("subsample(base=cauchy)"), Contains("allowed gaussian, laplace, rr"));
  CHECK_THAT(error("subsample(scheme=wor, n=10, m=11)"), Contains("parameter 'm' = 11"));
  CHECK_THAT(error("subsample(q=1.5)"), Contains("parameter 'q' = 1.5"));
  CHECK_THAT(error("subsample(base=rr, scheme=poisson)"), Contains("needs scheme = wor"));
  CHECK_THAT(error("subsample(side=2)"), Contains("parameter 'side' = 2"));
}
