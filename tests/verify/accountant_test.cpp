// The accountant (verify/api/accountant.hpp) against references computed another way: without subsampling, T steps
// of the Gaussian mechanism with noise multiplier sigma are one Gaussian mechanism with mu = sqrt(T)/sigma, whose
// profile delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) is evaluated here in long double and solved by
// bisection: the calibrated noise multiplier, the largest number of steps and a schedule's epsilon must agree with it.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "support/check.hpp"
#include "verify/api/accountant.hpp"

using namespace privamp;

namespace {

long double gaussian_delta(long double mu, long double eps) {
  auto phi = [](long double x) { return 0.5L * std::erfc(-x / std::sqrt(2.0L)); };
  return phi(mu / 2 - eps / mu) - std::exp(eps) * phi(-mu / 2 - eps / mu);
}

// The largest mu with delta(eps; mu) <= delta (delta is increasing in mu).
long double largest_mu(long double eps, long double delta) {
  long double a = 1e-6L, b = 1e3L;
  for (int i = 0; i < 300; ++i) {
    const long double m = (a + b) / 2;
    (gaussian_delta(m, eps) <= delta ? a : b) = m;
  }
  return a;
}

// eps(delta) of the Gaussian mechanism with parameter mu.
long double gaussian_epsilon(long double mu, long double delta) {
  long double a = 0, b = 1e4L;
  for (int i = 0; i < 300; ++i) {
    const long double m = (a + b) / 2;
    (gaussian_delta(mu, m) > delta ? a : b) = m;
  }
  return (a + b) / 2;
}

}  // namespace

TEST_CASE("composed_pair: one mechanism as a power, several as a product, counts and sizes checked", "[accountant]") {
  const auto one = api::composed_pair({{"gaussian(1, 2)", "gaussian(0, 2)", 7}});
  CHECK(one.first == "power(gaussian(1, 2), 7)");
  CHECK(api::composed_pair({{"gaussian(1, 2)", "gaussian(0, 2)", 1}}).first == "gaussian(1, 2)");  // one release: the laws
  CHECK(one.second == "power(gaussian(0, 2), 7)");
  const auto two = api::composed_pair({{"a", "b", 1}, {"c", "d", 3}});
  CHECK(two.first == "product([a, power(c, 3)])");
  CHECK(two.second == "product([b, power(d, 3)])");
  CHECK_THROWS_AS(api::composed_pair({}), InvalidArgument);
  CHECK_THROWS_WITH(api::composed_pair({{"a", "b", 0}}), Catch::Contains("count"));
  CHECK_THROWS_WITH(api::dpsgd_step(0, 0.1), Catch::Contains("noise_multiplier"));
  CHECK_THROWS_WITH(api::dpsgd_step(1, 1.5), Catch::Contains("sample_rate"));
  CHECK(api::dpsgd_step(1.1, 0.01).mu == "mix(q=0.01, gaussian(0, 1.1), gaussian(1, 1.1))");
}

TEST_CASE("calibrate: the noise multiplier of an unsampled run brackets the closed-form threshold", "[accountant]") {
  for (const auto& [target, delta, steps] : {std::tuple{2.0, 1e-5, 100L}, std::tuple{0.5, 1e-6, 10L}, std::tuple{8.0, 1e-3, 1000L}}) {
    api::CalibrationRequest r;
    r.target_epsilon = target;
    r.delta = delta;
    r.sample_rate = 1;
    r.steps = steps;
    const api::Calibration c = api::calibrate(r);
    const double sigma = static_cast<double>(std::sqrt(static_cast<long double>(steps)) / largest_mu(target, delta));
    INFO("target " << target << ", delta " << delta << ", T " << steps << ": sigma* = " << sigma << ", bracket [" << c.lower << ", "
                   << c.upper << "], " << c.method);
    CHECK(c.solved == "noise_multiplier");
    CHECK(c.lower <= sigma * (1 + 1e-12));
    CHECK(sigma <= c.upper * (1 + 1e-12));
    CHECK(c.value == c.upper);                        // the safe end
    CHECK((c.upper - c.lower) / c.upper <= 1.1e-6);   // the requested width
    CHECK(c.epsilon.lower <= target);
    CHECK(c.probes < 40);
  }
}

// The search's work is bounded by its probes: stopped early, the answer is the best probe certainly within the target
// (still safe: its run is (target, delta)-DP by the closed form), the bracket reaches the nearest probe certainly
// beyond, and the method says it stopped; with no probe within the target, an error.
TEST_CASE("calibrate: stopped at its probe limit, the best certain setting, never an unsafe one", "[accountant]") {
  api::CalibrationRequest r;
  r.target_epsilon = 2.0;
  r.delta = 1e-5;
  r.sample_rate = 1;
  r.steps = 100;
  const double sigma = static_cast<double>(std::sqrt(100.0L) / largest_mu(2.0, 1e-5));
  for (const int limit : {8, 10, 13}) {  // (sigma = 1, 2, 4 … 32 first: the sixth probe is the first within)
    r.max_probes = limit;
    const api::Calibration c = api::calibrate(r);
    INFO("limit " << limit << ": sigma* = " << sigma << ", value " << c.value << ", bracket [" << c.lower << ", " << c.upper << "], " << c.method);
    CHECK(c.probes == limit);
    CHECK_THAT(c.method, Catch::Contains(fmt::format("stopped at the limit of {} probes", limit)));
    CHECK(c.value >= sigma);  // safe
    CHECK(c.value == c.upper);
    CHECK(c.lower <= sigma);
    CHECK(c.epsilon.upper <= 2.0);
  }
  r.max_probes = 1;  // sigma = 1 first: far from within the target at 100 unsampled steps
  CHECK_THROWS_WITH(api::calibrate(r), Catch::Contains("calibrate: no noise_multiplier certainly within (2, 1e-05) was found in 1 probes"));
  r.max_probes = 65;
  CHECK_THROWS_WITH(api::calibrate(r), Catch::Contains("'max_probes' = 65 is out of range (allowed: 1 <= max_probes <= 64)"));
}

TEST_CASE("calibrate: the largest number of steps is the closed form's, exactly", "[accountant]") {
  for (const auto& [target, delta, sigma] : {std::tuple{1.0, 1e-5, 20.0}, std::tuple{3.0, 1e-6, 5.0}}) {
    api::CalibrationRequest r;
    r.target_epsilon = target;
    r.delta = delta;
    r.sample_rate = 1;
    r.noise_multiplier = sigma;
    const api::Calibration c = api::calibrate(r);
    // T* = the largest T with sqrt(T)/sigma <= mu*.
    const long double mu = largest_mu(target, delta);
    const long t_star = static_cast<long>(std::floor(mu * mu * sigma * sigma));
    INFO("T* = " << t_star << ", got " << c.value << ": " << c.method);
    CHECK(c.solved == "steps");
    CHECK(c.value == static_cast<double>(t_star));
    CHECK(c.steps == t_star);
  }
}

TEST_CASE("calibrate: sample rate, bad requests refused before any work", "[accountant]") {
  api::CalibrationRequest r;
  r.target_epsilon = 2;
  r.delta = 1e-5;
  r.noise_multiplier = 1;
  r.steps = 1000;
  const api::Calibration c = api::calibrate(r);
  INFO(c.method << " [" << c.lower << ", " << c.upper << "]");
  CHECK(c.solved == "sample_rate");
  CHECK(c.value == c.lower);  // the safe end: the larger rates may exceed the target
  CHECK(c.lower > 0.001);
  CHECK(c.upper < 0.2);
  CHECK(c.epsilon.lower <= 2);
  // More noise than any sample rate needs: the answer is 1.
  r.noise_multiplier = 100;
  CHECK(api::calibrate(r).value == 1);
  api::CalibrationRequest two_open;
  two_open.target_epsilon = 1, two_open.delta = 1e-5, two_open.steps = 10;
  CHECK_THROWS_WITH(api::calibrate(two_open), Catch::Contains("exactly one"));
  api::CalibrationRequest bad = r;
  bad.sample_rate = std::nullopt;
  bad.delta = 2;
  CHECK_THROWS_WITH(api::calibrate(bad), Catch::Contains("0 < delta < 1"));
  bad.delta = 1e-5;
  bad.steps = 0;
  CHECK_THROWS_WITH(api::calibrate(bad), Catch::Contains("steps"));
}

TEST_CASE("a schedule whose noise changes halfway: the composed epsilon is the closed form's", "[accountant]") {
  // 50 steps at sigma = 4, then 150 at sigma = 8, unsampled: one Gaussian with mu^2 = 50/16 + 150/64.
  const auto [mu, nu] = api::composed_pair({api::dpsgd_step(4, 1, 50), api::dpsgd_step(8, 1, 150)});
  const long double m = std::sqrt(50.0L / 16 + 150.0L / 64);
  for (const double delta : {1e-3, 1e-5, 1e-8}) {
    const verify::Estimate e = api::epsilon_for_delta(mu, nu, delta, {});
    const double reference = static_cast<double>(gaussian_epsilon(m, delta));
    INFO(test::describe(e) << " reference " << reference);
    CHECK(e.lower <= reference * (1 + 1e-12));
    CHECK(reference <= e.upper * (1 + 1e-12));
    CHECK((e.upper - e.lower) <= 2e-9 * reference);
  }
}
