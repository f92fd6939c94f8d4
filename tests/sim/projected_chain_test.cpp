// Projected noisy iterations: the grid-propagated law against simulation, its convergence rate under refinement,
// and the unprojected limit against the exact Gaussian chain.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/parallel.hpp"
#include "sim/language/expression.hpp"
#include "sim/processes/noise_chain.hpp"
#include "sim/processes/projected_chain.hpp"
#include "sim/processes/sgd.hpp"
#include "sim/random/rng.hpp"
#include "support/check.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;

namespace {
double atom(const sim::IntervalLaw& law, double x) {
  for (const auto& [at, w] : law.atoms)
    if (at == x) return w;
  return 0;
}
double mean(const sim::IntervalLaw& law) {
  double m = 0;
  const double h = law.h();
  for (std::size_t k = 0; k < law.density.size(); ++k)
    m += law.density[k] * (law.lo + k * h) * h * (k == 0 || k + 1 == law.density.size() ? 0.5 : 1.0);
  for (const auto& [x, w] : law.atoms) m += w * x;
  return m;
}
}  // namespace

TEST_CASE("projected noisy SGD: the propagated law matches simulated runs", "[sim][projected]") {
  const sim::NoisySgd sgd{20, 0.5, 1.0, 1.0, 1.0, 0.0};
  const auto law = sim::noisy_sgd_law(sgd, 5, 1.0, 400);
  CHECK(law.total_mass() == Approx(1).epsilon(1e-14));
  // Simulate x_j = Π(x − η(λ(x − z_j) + Z)) with z_5 = 1, other z_j = 0.
  sim::Rng rng(77);
  const int runs = 200'000;
  long at_hi = 0, at_lo = 0;
  double sum = 0;
  for (int r = 0; r < runs; ++r) {
    double x = 0;
    for (int j = 1; j <= sgd.n; ++j) {
      const double z = j == 5 ? 1.0 : 0.0;
      x = std::clamp(x - sgd.eta * (sgd.lambda * (x - z) + sgd.sigma * rng.normal()), -1.0, 1.0);
    }
    at_hi += x == 1.0;
    at_lo += x == -1.0;
    sum += x;
  }
  // Binomial standard errors: sqrt(p(1−p)/runs) ≤ 0.0012; 5 standard errors.
  const double p_hi = atom(law, 1.0), p_lo = atom(law, -1.0);
  CHECK(std::fabs(static_cast<double>(at_hi) / runs - p_hi) < 5 * std::sqrt(p_hi * (1 - p_hi) / runs) + 1e-4);
  CHECK(std::fabs(static_cast<double>(at_lo) / runs - p_lo) < 5 * std::sqrt(p_lo * (1 - p_lo) / runs) + 1e-4);
  CHECK(std::fabs(sum / runs - mean(law)) < 5 * 0.6 / std::sqrt(runs));
  CHECK(p_hi > 0.02);  // the projection is active: the atoms matter
}

TEST_CASE("grid propagation converges at second order under refinement", "[sim][projected]") {
  const sim::NoisySgd sgd{10, 0.3, 1.0, 1.0, 1.0, 0.2};
  auto upper_atom = [&](int cells) { return atom(sim::noisy_sgd_law(sgd, 3, 1.0, cells), 1.0); };
  const double a = upper_atom(50), b = upper_atom(100), c = upper_atom(200), d = upper_atom(400);
  // Successive differences shrink by about 4 when h halves (trapezoid rule, smooth kernel).
  const double r1 = (a - b) / (b - c), r2 = (b - c) / (c - d);
  INFO("ratios " << r1 << " " << r2);
  CHECK(r1 == Approx(4).epsilon(0.25));
  CHECK(r2 == Approx(4).epsilon(0.25));
}

TEST_CASE("a domain much wider than the noise reproduces the unprojected Gaussian chain", "[sim][projected]") {
  // x ← (1−ηλ)x + ηλz + N(0, η²σ²) on [−R, R] with R = 8, some 20 standard deviations of the chain: the
  // projection acts on mass ~e^{-200} only. (Much wider domains make the linear-scale grid densities underflow
  // at the edges, which the engine would rightly read as disjoint supports.)
  const sim::NoisySgd sgd{8, 0.25, 1.0, 1.0, 8.0, 0.0};
  const auto mu = sim::noisy_sgd_law(sgd, 3, 1.0, 4000).to_grid_law(), nu = sim::noisy_sgd_law(sgd, 3, -1.0, 4000).to_grid_law();
  // Exact: the two laws are Gaussians with the same variance and means differing by 2ηλ(1−ηλ)^{n−i}.
  const double shift = 2 * 0.25 * std::pow(0.75, 5);  // 2ηλR(1−ηλ)^{n−i} with z_i = ±1
  const auto g = sim::linear_gaussian_chain(0, 0, 0.75, 0.25, 8);
  const double exact = 2 * shift * shift / (2 * *g.variance());
  verify::DivergenceOptions o;
  o.engine = verify::Engine::quadrature;
  const auto r = verify::compute_divergence(mu, nu, verify::Quantity::renyi(2), o);
  INFO(test::describe(r) << " exact " << exact);
  CHECK(r.value == Approx(exact).epsilon(1e-4));
}

TEST_CASE("noisy SGD rejects parameters out of range", "[sim][bad-input]") {
  using Catch::Matchers::Contains;
  const sim::NoisySgd ok{10, 0.5, 1.0, 1.0, 1.0, 0.0};
  CHECK_THAT(test::error_of([&] { sim::noisy_sgd_law(ok, 11, 1.0, 100); }), Contains("parameter 'i' = 11"));
  CHECK_THAT(test::error_of([&] { sim::noisy_sgd_law(ok, 1, 2.0, 100); }), Contains("parameter 'zi' = 2"));
  CHECK_THAT(test::error_of([&] { sim::noisy_sgd_law({10, 2.5, 1.0, 1.0, 1.0, 0.0}, 1, 1.0, 100); }),
             Contains("parameter 'eta' = 2.5"));
  CHECK_THAT(test::error_of([&] { sim::noisy_sgd_law({10, 0.5, 0.0, 1.0, 1.0, 0.0}, 1, 1.0, 100); }),
             Contains("parameter 'sigma' = 0"));
  CHECK_THAT(test::error_of([&] { sim::noisy_sgd_law(ok, 1, 1.0, 1); }), Contains("parameter 'intervals' = 1"));
}

TEST_CASE("projected chain of a nonlinear Lipschitz map: the propagated law matches simulated runs", "[sim][projected]") {
  const auto psi = sim::lipschitz_map("tanh", 1.5);
  const double lo = -1.2, hi = 1.5, s = 0.7, x0 = 0.4;
  const int r = 6;
  const auto law = sim::projected_chain_law(psi, x0, r, s, lo, hi, 400);
  CHECK(law.total_mass() == Approx(1).epsilon(1e-14));
  sim::Rng rng(3);
  const int runs = 200'000;
  long at_lo = 0, at_hi = 0;
  double sum = 0;
  for (int k = 0; k < runs; ++k) {
    double x = x0;
    for (int j = 0; j < r; ++j) x = std::clamp(psi(x) + s * rng.normal(), lo, hi);
    at_lo += x == lo;
    at_hi += x == hi;
    sum += x;
  }
  const double p_lo = atom(law, lo), p_hi = atom(law, hi);
  CHECK(p_lo > 0.02);
  CHECK(p_hi > 0.02);
  CHECK(std::fabs(static_cast<double>(at_lo) / runs - p_lo) < 5 * std::sqrt(p_lo * (1 - p_lo) / runs) + 1e-4);
  CHECK(std::fabs(static_cast<double>(at_hi) / runs - p_hi) < 5 * std::sqrt(p_hi * (1 - p_hi) / runs) + 1e-4);
  CHECK(std::fabs(sum / runs - mean(law)) < 5 * 1.5 / std::sqrt(runs));
  CHECK_THAT(test::error_of([] { sim::lipschitz_map("exp", 1.0); }), Catch::Matchers::Contains("allowed linear, tanh"));
}

TEST_CASE("grid steps: a kernel applied once, several laws at once and one by one give the same numbers", "[sim][projected]") {
  const auto psi = sim::lipschitz_map("tanh", 0.8);
  const sim::Propagator kept(-3, 3, 150, psi, 0.4), once(-3, 3, 150, psi, 0.4, sim::Propagator::Use::once);
  const auto a = kept(sim::IntervalLaw::point(0.7, -3, 3, 150)), b = kept(kept(sim::IntervalLaw::point(-2, -3, 3, 150)));
  const sim::IntervalLaw* both[] = {&a, &b};
  for (const auto* step : {&kept, &once}) {
    const auto images = step->raw(both);
    REQUIRE(images.size() == 2);
    CHECK(images[0].density == kept.raw(a).density);
    CHECK(images[1].density == kept.raw(b).density);
    CHECK(images[1].atoms == kept.raw(b).atoms);
  }
}

TEST_CASE("grid steps: the stored kernel's panel product, split over two cores or not, repeats the column-by-column one",
          "[sim][projected]") {
  // The kept step sums by panels of rows, the step used once column by column: the same products added in the same
  // order, so the numbers must agree exactly — for any number of laws (the panels take up to four at a time), rows
  // that do not fill a panel, kernels that are 0 on most rows (narrow noise), and a step large enough to be split
  // between two threads when a core is free (and not split while every core is claimed).
  struct Grid {
    double s;
    int cells;
  };
  for (const Grid g : {Grid{0.05, 203}, Grid{0.7, 1600}}) {
    const auto psi = sim::lipschitz_map("sin", 0.9);
    const sim::Propagator kept(-3, 3, g.cells, psi, g.s), once(-3, 3, g.cells, psi, g.s, sim::Propagator::Use::once);
    std::vector<sim::IntervalLaw> laws;
    for (double x0 : {0.7, -2.0, 2.9, 0.0, -0.3, 1.1}) laws.push_back(once(once(sim::IntervalLaw::point(x0, -3, 3, g.cells))));
    for (std::size_t width = 1; width <= laws.size(); ++width) {
      std::vector<const sim::IntervalLaw*> in;
      for (std::size_t c = 0; c < width; ++c) in.push_back(&laws[c]);
      const auto expected = once.raw(in);
      const auto split = kept.raw(in);
      std::vector<sim::IntervalLaw> alone;
      {
        std::vector<std::unique_ptr<WorkerClaim>> busy;  // every core claimed: no helper
        for (int c = 0; c < core_count(); ++c) busy.push_back(std::make_unique<WorkerClaim>());
        alone = kept.raw(in);
      }
      for (std::size_t c = 0; c < width; ++c) {
        INFO("cells " << g.cells << ", " << width << " laws, law " << c);
        CHECK(split[c].density == expected[c].density);
        CHECK(alone[c].density == expected[c].density);
        CHECK(split[c].atoms == expected[c].atoms);
      }
    }
  }
}

TEST_CASE("grid pairs: the extrapolated tail of a long run agrees with every step computed, within its stated error",
          "[sim][projected]") {
  const auto psi = sim::lipschitz_map("tanh", 0.8);
  const int r = 400, cells = 200;
  const auto fast = sim::projected_chain_pairs(psi, 1.0, -0.5, r, 0.6, -3, 3, cells);
  std::array<sim::IntervalLawPair, 2> slow{sim::IntervalLawPair::points(1.0, -0.5, -3, 3, cells),
                                           sim::IntervalLawPair::points(-0.5, 1.0, -3, 3, cells)};
  const sim::Propagator step(-3, 3, cells, psi, 0.6);
  for (int j = 0; j < r; ++j) sim::propagate_pairs(slow, step);
  for (int c = 0; c < 2; ++c) {
    const double stated = fast[c].extrapolation_error;
    CHECK(stated > 0);  // the run was long enough to extrapolate
    CHECK(stated < 1e-13);
    double largest = 0, worst = 0;
    for (std::size_t k = 0; k < slow[c].p.density.size(); ++k) {
      const double p = slow[c].p.density[k];
      if (!(p > 1e-300)) continue;
      largest = std::max(largest, std::fabs(slow[c].d.density[k]) / p);
      worst = std::max(worst, std::fabs(fast[c].d.density[k] - slow[c].d.density[k]) / p);
      CHECK(fast[c].p.density[k] == Approx(p).epsilon(1e-13));
    }
    INFO("loss error " << worst / largest << " relative, stated " << stated);
    CHECK(largest < 1e-20);  // the difference has decayed by many orders: what the extrapolation is for
    // The step-by-step route carries its own rounding, a few ulps per step (the extrapolation skips those steps).
    CHECK(worst <= (10 * stated + r * std::numeric_limits<double>::epsilon()) * largest);
  }
}

TEST_CASE("process laws computed jointly: the laws alone are never built, nor needed for their dimension or form",
          "[sim][projected]") {
  // Building a law alone propagates it over every step at every resolution (a 1,000-step run spent 4/5 of its
  // time on laws it never used): reading its dimension, its exact form or its divergence from the joint route must
  // not build it.
  auto lazy_part = [](const sim::Law& law) -> const sim::LazyLaw* {
    for (const sim::Law* l = &law;;) {
      if (const auto* lazy = dynamic_cast<const sim::LazyLaw*>(l)) return lazy;
      const auto* d = dynamic_cast<const sim::LawDecorator*>(l);
      if (!d) return nullptr;
      l = &d->base();
    }
  };
  for (const char* process : {"noisy_sgd(n=60, i=1, zi={}, eta=0.1, cells=100)",
                              "projected_chain(x0={}, r=40, sigma=0.5, lo=-2, hi=2, map=tanh, L=0.9, cells=100)"}) {
    const auto mu = sim::parse_law(fmt::format(fmt::runtime(process), 1)), nu = sim::parse_law(fmt::format(fmt::runtime(process), -1));
    const auto* lazy_mu = lazy_part(*mu);
    const auto* lazy_nu = lazy_part(*nu);
    REQUIRE(lazy_mu);
    REQUIRE(lazy_nu);
    INFO(process);
    CHECK(mu->dimension() == 1);
    CHECK(std::holds_alternative<sim::form::None>(mu->exact_form()));
    const auto r = verify::compute_divergence(*mu, *nu, verify::Quantity::renyi(2));
    CHECK(r.value > 0);
    CHECK_FALSE(lazy_mu->built());
    CHECK_FALSE(lazy_nu->built());
    mu->location();  // a question only the law alone answers builds it
    CHECK(lazy_mu->built());
  }
}
