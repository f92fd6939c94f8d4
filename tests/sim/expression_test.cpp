#include <catch2/catch.hpp>

#include "numerics/errors.hpp"
#include "sim/language/expression.hpp"
#include "support/check.hpp"

using namespace privamp;

namespace {
std::string error_of(const std::string& expression) {
  return test::error_of([&] { sim::parse_law(expression); });
}
}  // namespace

TEST_CASE("bad law expressions are rejected with a message naming the problem", "[sim][bad-input]") {
  // Fixture: expression → a phrase the message must contain.
  const std::vector<std::pair<std::string, std::string>> table = {
      {"gaussian(0, 0)", "parameter 'sigma' = 0 is out of range (allowed: 1e-300 <= value < inf)"},
      {"laplace(loc=1, scale=5e-324)", "parameter 'scale' = 5e-324 is out of range (allowed: 1e-300 <= value < inf)"},
      {"gaussian(0, -2)", "parameter 'sigma' = -2"},
      {"laplace(0, scale=0)", "parameter 'scale' = 0"},
      {"laplace_sum(0, [])", "'scales' must list at least one scale"},
      {"laplace_sum(0, [1, 1.001, 3])", "less than 1% apart"},
      {"laplace_sum(0, [1, -1])", "parameter 'scales' = -1"},
      {"laplace_nfold(n=0)", "parameter 'n' = 0"},
      {"laplace_nfold(n=2.5)", "must be an integer"},
      {"mix(1.5, gaussian(0,1), gaussian(1,1))", "parameter 'q' = 1.5"},
      {"mix(-0.1, gaussian(0,1), gaussian(1,1))", "parameter 'q' = -0.1"},
      {"mixture([0.5, 0.6], [gaussian(0,1), gaussian(1,1)])", "mixture: parameter 'weights' is not normalised: its entries sum to 1.1"},
      {"mixture([1], [gaussian(0,1), gaussian(1,1)])", "1 weights for 2 laws"},
      {"pmf([0.5, 0.6])", "pmf: parameter 'p' is not normalised: its entries sum to 1.1"},
      {"pmf([-0.5, 1.5])", "parameter 'p' = -0.5"},
      {"pmf([0.5, 0.5], at=[1, 1])", "location 1 appears twice"},
      {"shuffled_rr(n=0, eps0=1)", "parameter 'n' = 0"},
      {"shuffled_rr(n=10, eps0=-1)", "parameter 'eps0' = -1"},
      {"shuffled_rr(n=10, eps0=1, ones=10)", "parameter 'ones' = 10"},
      {"clamp(gaussian(0,1), 1, 0)", "parameter 'hi' = 0 is out of range (allowed: hi > lo = 1)"},
      {"clamp(laplace_sum(0, [1, 2]), 0, 1)", "no closed-form CDF"},
      {"grid(0, 1, [0.5, 0.5], [], [])", "not normalised"},
      {"grid(0, -1, [1, 1], [], [])", "parameter 'dx' = -1"},
      {"gaussian_nd([], 1)", "at least one coordinate"},
      {"gauss(0, 1)", "unknown law 'gauss'"},
      {"gaussian(mean=1)", "unknown parameter 'mean' for gaussian (parameters: loc, sigma)"},
      {"gaussian(1, 2, 3)", "gaussian takes at most 2 arguments"},
      {"gaussian(loc=1, loc=2)", "parameter 'loc' given twice"},
      {"laplace_sum(loc=1)", "missing required parameter 'scales'"},
      {"gaussian(0, 1", "expected ',' or ')'"},
      {"gaussian(0, 1) x", "unexpected text after the law"},
      {"gaussian(0, nan)", "numbers must be finite"},
      {"gaussian(0, 1e999)", "out of the range of doubles"},
      {"mix(0.5, gaussian(0,1), 3)", "parameter 'b' must be a law"},
      {"[1, 2]", "expected a law"},
  };
  for (const auto& [expression, phrase] : table) {
    INFO(expression);
    CHECK_THAT(error_of(expression), Catch::Matchers::Contains(phrase));
  }
}

TEST_CASE("parse errors point at the column", "[sim][bad-input]") {
  CHECK_THAT(error_of("mix(0.5, gaussian(0,1), gausian(1,1))"), Catch::Matchers::Contains("column 25"));
}

TEST_CASE("positional arguments fill the parameters not given by name", "[sim]") {
  CHECK(sim::parse_law("mix(q=0.25, gaussian(0,1), laplace(1,1))")->expression() ==
        "mixture(weights=[0.75, 0.25], laws=[gaussian(loc=0, sigma=1), laplace(loc=1, scale=1)])");
  CHECK(sim::parse_law("gaussian(sigma=2, 5)")->expression() == "gaussian(loc=5, sigma=2)");
}
