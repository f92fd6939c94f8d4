#include <algorithm>
#include <cmath>
#include <numbers>

#include <catch2/catch.hpp>

#include "numerics/errors.hpp"
#include "sim/language/expression.hpp"
#include "sim/processes/diffusion.hpp"

using namespace privamp;

namespace {
struct SampleMoments {
  double mean, variance, n;
};
SampleMoments moments(const std::vector<double>& x) {
  double m = 0, v = 0;
  for (double s : x) m += s;
  m /= static_cast<double>(x.size());
  for (double s : x) v += (s - m) * (s - m);
  return {m, v / static_cast<double>(x.size() - 1), static_cast<double>(x.size())};
}
}  // namespace

TEST_CASE("GT.ou.law and GT.bm.law, and the semigroup property P_s P_t = P_{s+t}", "[sim][diffusion]") {
  const sim::OrnsteinUhlenbeck ou(1.5, 0.7);
  const auto law = ou.law(2.0, 0.4);
  CHECK(*law.mean() == Approx(2.0 * std::exp(-0.6)).epsilon(1e-15));
  CHECK(*law.variance() == Approx(0.49 / 1.5 * (1 - std::exp(-1.2))).epsilon(1e-14));
  // θ = 0 is Brownian motion with diffusion 2ρ²: N(x, 2ρ²t); brownian(x0, t) = N(x0, 2t).
  CHECK(*sim::OrnsteinUhlenbeck(0, 0.7).law(2.0, 0.4).variance() == Approx(2 * 0.49 * 0.4).epsilon(1e-15));
  CHECK(sim::parse_law("brownian(1, 0.25)")->expression() == "gaussian(loc=1, sigma=0.7071067811865476)");
  // θ → 0 continuously: the closed form near θ = 1e-12 agrees with the Brownian limit.
  CHECK(sim::OrnsteinUhlenbeck(1e-12, 1).variance(3) == Approx(6).epsilon(1e-11));
  // Semigroup: pushing P_t(x) = N(m, v) through P_s gives N(e^{−θs}m, e^{−2θs}v + var_s) = P_{s+t}(x).
  for (double s : {0.1, 1.0}) {
    for (double t : {0.05, 2.0}) {
      const auto pt = ou.law(2.0, t), pst = ou.law(2.0, s + t);
      const double f = ou.mean_factor(s);
      CHECK(f * *pt.mean() == Approx(*pst.mean()).epsilon(1e-14));
      CHECK(f * f * *pt.variance() + ou.variance(s) == Approx(*pst.variance()).epsilon(1e-14));
    }
  }
  CHECK_THROWS_AS(sim::OrnsteinUhlenbeck(-1, 1), InvalidArgument);
  CHECK_THROWS_AS(sim::OrnsteinUhlenbeck(1, 0), InvalidArgument);
  CHECK_THROWS_AS(ou.law(1.0, 0.0), InvalidArgument);
}

TEST_CASE("exact OU stepping reproduces the exact law (moments and Kolmogorov-Smirnov)", "[sim][diffusion]") {
  const sim::OrnsteinUhlenbeck ou(1.0, 1.0);
  const auto x = sim::simulate_terminal(ou.sde(), 1.5, 0.8, 16, sim::SdeScheme::exact_ou, 100'000, 5, &ou);
  const auto law = ou.law(1.5, 0.8);
  const auto m = moments(x);
  CHECK(std::fabs(m.mean - *law.mean()) < 5 * std::sqrt(*law.variance() / m.n));
  CHECK(std::fabs(m.variance - *law.variance()) < 5 * *law.variance() * std::sqrt(2 / m.n));
  // KS statistic: P(√n D > 1.95) ≈ 1e-3, the false-alarm rate of this check.
  std::vector<double> sorted = x;
  std::sort(sorted.begin(), sorted.end());
  double d = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const double f = std::exp(law.log_cdf(sorted[i])), n = static_cast<double>(sorted.size());
    d = std::max({d, std::fabs(f - i / n), std::fabs(f - (i + 1) / n)});
  }
  CHECK(std::sqrt(static_cast<double>(sorted.size())) * d < 1.95);
}

TEST_CASE("Euler-Maruyama and Heun simulations reproduce their own moment recursions", "[sim][diffusion]") {
  const sim::OrnsteinUhlenbeck ou(1.0, 1.0);
  for (const auto scheme : {sim::SdeScheme::euler_maruyama, sim::SdeScheme::heun}) {
    const auto x = sim::simulate_terminal(ou.sde(), 1.0, 1.0, 5, scheme, 200'000, 9);
    const auto expected = sim::ou_scheme_moments(ou, 1.0, 1.0, 5, scheme);
    const auto m = moments(x);
    CHECK(std::fabs(m.mean - expected.mean) < 5 * std::sqrt(expected.variance / m.n));
    CHECK(std::fabs(m.variance - expected.variance) < 5 * expected.variance * std::sqrt(2 / m.n));
  }
}

TEST_CASE("weak order: Euler-Maruyama error halves with dt, Heun's quarters", "[sim][diffusion]") {
  const sim::OrnsteinUhlenbeck ou(1.0, 1.0);
  const double x0 = 1, t = 1;
  const double exact = ou.variance(t) + std::pow(ou.mean_factor(t) * x0, 2);  // E[X_t²]
  auto weak_error = [&](sim::SdeScheme scheme, int steps) {
    const auto m = sim::ou_scheme_moments(ou, x0, t, steps, scheme);
    return std::fabs(m.variance + m.mean * m.mean - exact);
  };
  for (int steps : {20, 40, 80}) {
    CHECK(weak_error(sim::SdeScheme::euler_maruyama, steps) / weak_error(sim::SdeScheme::euler_maruyama, 2 * steps) ==
          Approx(2).epsilon(0.05));
    CHECK(weak_error(sim::SdeScheme::heun, steps) / weak_error(sim::SdeScheme::heun, 2 * steps) == Approx(4).epsilon(0.05));
  }
  // The same order measured on simulated paths (Euler–Maruyama, E[X_t²], 4e5 paths, standard error ≈ 0.003).
  std::vector<double> errors;
  for (int steps : {5, 10, 20}) {
    const auto x = sim::simulate_terminal(ou.sde(), x0, t, steps, sim::SdeScheme::euler_maruyama, 400'000, 21);
    double second = 0;
    for (double v : x) second += v * v;
    errors.push_back(std::fabs(second / static_cast<double>(x.size()) - exact));
  }
  CHECK(errors[0] / errors[1] > 1.5);
  CHECK(errors[0] / errors[1] < 2.7);
  CHECK(errors[0] / errors[2] > 3.0);
  CHECK(errors[0] / errors[2] < 5.5);
}
