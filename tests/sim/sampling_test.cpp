#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/language/expression.hpp"
#include "sim/random/rng.hpp"

using namespace privamp;

// Sample mean and variance against the law's exact moments; with 2e5 samples the standard error of the mean is
// sd/447, and a 6-standard-error band has a false-alarm rate below 1e-8 per check (fixed seeds: deterministic).
TEST_CASE("samplers reproduce the exact mean and variance", "[sim]") {
  for (const char* e : {"gaussian(1, 2)", "laplace(-1, 0.5)", "laplace_sum(1, [1, 2])", "laplace_nfold(n=5, loc=2)",
                        "mix(0.3, gaussian(0, 1), laplace(4, 1))", "pmf([0.1, 0.6, 0.3])"}) {
    const auto law = sim::parse_law(e);
    sim::Rng rng(42);
    const int n = 200'000;
    std::vector<double> x(n);
    law->sample(rng, x);
    double m = 0, v = 0;
    for (double s : x) m += s;
    m /= n;
    for (double s : x) v += (s - m) * (s - m);
    v /= n - 1;
    INFO(e);
    if (auto mean = law->mean()) CHECK(std::fabs(m - *mean) < 6 * std::sqrt(v / n));
    if (auto var = law->variance()) CHECK(std::fabs(v - *var) < 0.03 * *var);  // ~6 s.e. for kurtosis ≤ 6
  }
}

TEST_CASE("random streams are reproducible and distinct", "[sim]") {
  sim::Rng a(7, 3), b(7, 3), c(7, 4);
  const double x = a.normal(), y = b.normal(), z = c.normal();
  CHECK(x == y);
  CHECK(x != z);
}

// Formula densities are sampled exactly (rejection from an envelope of interval enclosures): a cusp at the mode and a
// bump narrower than the window's cells are where a tabulated cdf is wrong. Truths: for exp(-sqrt|x|), sqrt|x| is
// Gamma(2, 1) (mean 2, variance 2); the bump's mass in [1.9, 2.1] is 0.0798874508419913 (mpmath, 30 digits). The
// old table of 8192 trapezoid cells gave E sqrt|x| = 1.92, 57 standard errors low.
TEST_CASE("formula densities are sampled exactly at cusps and narrow bumps", "[sim]") {
  const int n = 1'000'000;
  std::vector<double> x(n);
  {
    const auto law = sim::parse_law("density(log_pdf=\"-abs(x)^0.5\")");
    sim::Rng rng(11);
    law->sample(rng, x);
    double m = 0;
    for (double s : x) m += std::sqrt(std::fabs(s));
    CHECK(std::fabs(m / n - 2) < 6 * std::sqrt(2.0 / n));
  }
  {
    const auto law = sim::parse_law("density(log_pdf=\"-abs(x) + 3*exp(-((x-2)/0.05)^2)\")");
    sim::Rng rng(12);
    law->sample(rng, x);
    double inside = 0;
    for (double s : x) inside += s > 1.9 && s < 2.1;
    const double p = 0.0798874508419913;
    CHECK(std::fabs(inside / n - p) < 6 * std::sqrt(p * (1 - p) / n));
  }
}
