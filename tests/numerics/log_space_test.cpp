#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "numerics/log_space.hpp"

using namespace privamp;

TEST_CASE("log_add and log_sub are exact inverses away from cancellation", "[numerics]") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(log_add(std::log(2.0), std::log(3.0)) == Approx(std::log(5.0)).epsilon(1e-15));
  CHECK(log_add(-inf, 1.5) == 1.5);
  CHECK(log_add(1000.0, 1000.0) == Approx(1000.0 + std::log(2.0)).epsilon(1e-15));  // no overflow
  CHECK(log_sub(std::log(5.0), std::log(3.0)) == Approx(std::log(2.0)).epsilon(1e-15));
  CHECK(log_sub(1.0, 1.0) == -inf);
}

TEST_CASE("log1mexp is accurate on both sides of -log 2", "[numerics]") {
  // Reference values: log(1 − e^x) from the series −Σ e^{kx}/k for x ≪ 0 and log(−x) + ... for x → 0⁻.
  CHECK(log1mexp(-1e-20) == Approx(std::log(1e-20)).epsilon(1e-15));
  CHECK(log1mexp(-50.0) == Approx(-std::exp(-50.0)).epsilon(1e-15));
  CHECK(log1mexp(-std::log(2.0)) == Approx(-std::log(2.0)).epsilon(1e-15));
}

TEST_CASE("log_sum_exp factors out the maximum", "[numerics]") {
  const std::vector<double> big{800.0, 800.0, 799.0};
  CHECK(log_sum_exp<double>(big) == Approx(800.0 + std::log(2.0 + std::exp(-1.0))).epsilon(1e-15));
  LogSumAccumulator<double> acc;
  for (double v : big) acc.add(v);
  CHECK(acc.value() == Approx(log_sum_exp<double>(big)).epsilon(1e-15));
  CHECK(LogSumAccumulator<double>().value() == -std::numeric_limits<double>::infinity());
}

TEST_CASE("the streaming log-sum-exp skips only terms that cannot change the sum, bit for bit", "[numerics]") {
  // Terms more than 37 below the running maximum are skipped (e^-37 is below half an ulp of a sum >= 1): the result
  // equals the one that adds them, for sums with many negligible terms in either order, and a NaN still propagates.
  std::vector<double> terms;
  for (int k = 0; k < 4000; ++k) terms.push_back(-0.01 * k * k + 0.37 * (k % 7));
  for (int order = 0; order < 2; ++order) {
    LogSumAccumulator<double> fast;
    double max = -std::numeric_limits<double>::infinity(), sum = 0;
    for (double v : terms) {
      fast.add(v);
      if (v > max) {
        sum = sum * std::exp(max - v) + 1;
        max = v;
      } else {
        sum += std::exp(v - max);
      }
    }
    CHECK(fast.value() == max + std::log(sum));
    std::reverse(terms.begin(), terms.end());
  }
  LogSumAccumulator<double> nan;
  nan.add(0.0);
  nan.add(std::numeric_limits<double>::quiet_NaN());
  CHECK(std::isnan(nan.value()));
}
