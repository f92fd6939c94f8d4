#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "numerics/log_space.hpp"
#include "sim/language/expression.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/laplace.hpp"
#include "sim/processes/shuffling.hpp"
#include "sim/random/rng.hpp"
#include "support/check.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;

TEST_CASE("shuffled randomized response counts equal a direct convolution", "[sim]") {
  const long n = 12, ones = 4;
  const double eps0 = 0.8, p = std::exp(eps0) / (1 + std::exp(eps0));
  for (int first : {0, 1}) {
    const auto law = sim::shuffled_rr_counts(n, eps0, ones, first);
    // Direct O(n²) convolution of the n Bernoulli reports in linear space.
    std::vector<double> pmf{1.0};
    auto add = [&](double prob_one) {
      std::vector<double> next(pmf.size() + 1, 0.0);
      for (std::size_t k = 0; k < pmf.size(); ++k) {
        next[k] += pmf[k] * (1 - prob_one);
        next[k + 1] += pmf[k] * prob_one;
      }
      pmf = next;
    };
    add(first ? p : 1 - p);
    for (long i = 0; i < ones; ++i) add(p);
    for (long i = 0; i < n - 1 - ones; ++i) add(1 - p);
    const auto masses = law.masses();
    REQUIRE(masses.size() == n + 1);
    for (long k = 0; k <= n; ++k) CHECK(masses[k] == Approx(pmf[static_cast<std::size_t>(k)]).epsilon(1e-13));
  }
}

TEST_CASE("shuffled randomized response at n = 1e6 stays normalised with exact far tails", "[sim]") {
  const auto law = sim::shuffled_rr_counts(1'000'000, 1.0, 0, 1);
  const auto atoms = law.atoms();
  std::vector<double> lm;
  for (const auto& a : atoms) lm.push_back(a.log_mass);
  CHECK(std::fabs(log_sum_exp<double>(lm)) < 1e-12);
  // No mass underflows to −inf: the far tail carries its exact logarithm (≈ n log q at k = 0 with first = 0 …).
  CHECK(std::isfinite(atoms.front().log_mass));
  CHECK(std::isfinite(atoms.back().log_mass));
  CHECK(atoms.back().log_mass < -1e5);
}

namespace {
// The full histogram of n k-ary randomized-response reports by enumerating all k^n report vectors: user 0
// holds value `first` ? 0 : 1, the others hold 1. Histograms are encoded base n+1 as locations.
sim::FiniteLaw brute_force_histogram(int n, int k, double eps0, int first) {
  const double z = std::exp(eps0) + k - 1;
  std::map<double, double> law;
  std::vector<int> reports(static_cast<std::size_t>(n), 0);
  for (long code = 0; code < std::lround(std::pow(k, n)); ++code) {
    long c = code;
    double prob = 1;
    std::vector<int> histogram(static_cast<std::size_t>(k), 0);
    for (int u = 0; u < n; ++u) {
      const int y = static_cast<int>(c % k);
      c /= k;
      const int x = u == 0 && first ? 0 : 1;
      prob *= (y == x ? std::exp(eps0) : 1.0) / z;
      ++histogram[static_cast<std::size_t>(y)];
    }
    double location = 0;
    for (int v = k - 1; v >= 0; --v) location = location * (n + 1) + histogram[static_cast<std::size_t>(v)];
    law[location] += prob;
  }
  std::vector<double> at, p;
  for (const auto& [x, w] : law) at.push_back(x), p.push_back(w);
  return sim::FiniteLaw(at, Eigen::Map<const Eigen::VectorXd>(p.data(), static_cast<Eigen::Index>(p.size())));
}
}  // namespace

TEST_CASE("k-ary shuffled randomized response: (m, h_a) is sufficient, checked against all k^n report vectors",
          "[sim][shuffling]") {
  for (const auto& [n, k] : {std::pair{6, 3}, std::pair{5, 4}, std::pair{7, 2}}) {
    for (double eps0 : {0.4, 2.0}) {
      INFO("n = " << n << ", k = " << k << ", eps0 = " << eps0);
      const auto full1 = brute_force_histogram(n, k, eps0, 1), full0 = brute_force_histogram(n, k, eps0, 0);
      const auto stat1 = sim::shuffled_krr_counts(n, k, eps0, 1), stat0 = sim::shuffled_krr_counts(n, k, eps0, 0);
      CHECK_FALSE(stat1.lumped().has_value());
      // The statistic's law is the image of the histogram's: (m, h_a) = (h_0 + h_1, h_0).
      std::map<double, double> image;
      for (const sim::Atom& a : full1.atoms()) {
        const long h0 = std::lround(a.x) % (n + 1), h1 = (std::lround(a.x) / (n + 1)) % (n + 1);
        image[static_cast<double>((h0 + h1) * (n + 1) + h0)] += std::exp(a.log_mass);
      }
      REQUIRE(image.size() == stat1.atoms().size());
      for (const sim::Atom& a : stat1.atoms()) CHECK(std::exp(a.log_mass) == Approx(image[a.x]).epsilon(1e-12));
      // Sufficiency: no divergence is lost by the reduction.
      for (const auto& q : {verify::Quantity::hockey_stick(0.0), verify::Quantity::hockey_stick(0.3),
                            verify::Quantity::renyi(2.0), verify::Quantity::renyi(7.5)}) {
        const auto reduced = verify::compute_divergence(stat1, stat0, q), full = verify::compute_divergence(full1, full0, q);
        CHECK(test::near_rel(reduced.value, full.value, 1e-11, 1e-15));
      }
    }
  }
}

TEST_CASE("k-ary shuffled randomized response with k = 2 is binary shuffled randomized response", "[sim][shuffling]") {
  const long n = 3000;
  for (int first : {0, 1}) {
    const auto krr = sim::shuffled_krr_counts(n, 2, 1.3, first), rr = sim::shuffled_rr_counts(n, 1.3, 0, first);
    REQUIRE(krr.atoms().size() == rr.atoms().size());
    for (std::size_t i = 0; i < rr.atoms().size(); ++i) {
      CHECK(krr.atoms()[i].x == static_cast<double>(n * (n + 1)) + rr.atoms()[i].x);
      CHECK(test::near_rel(krr.atoms()[i].log_mass, rr.atoms()[i].log_mass, 1e-12, 1e-12));
    }
  }
}

TEST_CASE("k-ary shuffled randomized response at n = 1e4: rare outcomes lumped, intervals widened to cover them",
          "[sim][shuffling]") {
  const auto p = sim::shuffled_krr_counts(10'000, 3, 1.0, 1), q = sim::shuffled_krr_counts(10'000, 3, 1.0, 0);
  REQUIRE(p.lumped().has_value());
  const double rare = std::exp(p.log_atom_mass(-1));
  CHECK(rare > 0);
  CHECK(rare < 1e-30);
  // Where the lumped law has δ = 0 the interval still admits the rare outcomes' contribution.
  const auto far = verify::compute_divergence(p, q, verify::Quantity::hockey_stick(0.3));
  CHECK(far.value == 0);
  CHECK(far.upper >= rare);
  const auto near = verify::compute_divergence(p, q, verify::Quantity::hockey_stick(0.0));
  CHECK(near.upper - near.value >= rare);
  CHECK(near.value > 1e-3);
}

TEST_CASE("lumped outcomes survive a shift and refuse every other combination", "[sim][shuffling]") {
  // At cut = 20 the rare outcomes weigh enough that their widening shows in a KL interval.
  const std::string a = "shuffled_krr(n=2000, k=4, eps0=1, first=1, cut=20)", b = "shuffled_krr(n=2000, k=4, eps0=1, first=0, cut=20)";
  const auto law = [](const std::string& text) { return sim::Expression::parse(text)->law(sim::Params{}); };
  const auto kl = verify::Quantity::kl();
  const auto direct = verify::compute_divergence(*law(a), *law(b), kl);
  REQUIRE(direct.upper > direct.value * (1 + 1e-3));  // widened: the lumped outcomes may add this much
  const auto shifted = verify::compute_divergence(*law("shift(" + a + ", by=1)"), *law("shift(" + b + ", by=1)"), kl);
  CHECK(shifted.value == direct.value);
  CHECK(shifted.upper == direct.upper);
  CHECK(shifted.method.find("lumped outcomes") != std::string::npos);
  // Lumped at different places (one side shifted) is no post-processing of one pair: refused, not under-widened.
  CHECK_THROWS_WITH(verify::compute_divergence(*law("shift(" + a + ", by=1)"), *law(b), kl),
                    Catch::Contains("at different locations"));
  // A widened TV or hockey-stick never exceeds 1.
  const auto tv = verify::compute_divergence(*law(a), *law(b), verify::Quantity::tv());
  CHECK(tv.upper <= 1);
  for (const std::string& combined : {"mix(0.5, " + a + ", " + a + ")", "clamp(" + a + ", lo=-1, hi=1e9)",
                                      "convolve(" + a + ", pmf(p=[1]))"})
    CHECK_THROWS_WITH(law(combined), Catch::Contains("lumps improbable outcomes"));
  // Composed: KL adds up the one-release values (each widened); the composed hockey-stick has no widening: refused.
  const auto twice = verify::compute_divergence(*law("power(" + a + ", 2)"), *law("power(" + b + ", 2)"), kl);
  CHECK(twice.upper >= 2 * direct.upper * (1 - 1e-12));
  CHECK_THROWS_WITH(verify::compute_divergence(*law("power(" + a + ", 2)"), *law("power(" + b + ", 2)"),
                                               verify::Quantity::hockey_stick(0.5)),
                    Catch::Contains("lumps improbable outcomes"));
}

TEST_CASE("a blanket law declares the error of its log-density: its outputs' and its gamma's", "[sim][shuffling]") {
  const auto law = [](const std::string& text) { return sim::Expression::parse(text)->law(sim::Params{}); };
  // Closed-form outputs: gamma by quadrature, whose error bound is the law's.
  const auto laplaces = law("blanket([laplace(0, 1), laplace(1, 1)])");
  const auto* blanket = dynamic_cast<const sim::BlanketLaw*>(&laplaces->unwrapped());
  REQUIRE(blanket != nullptr);
  CHECK(blanket->gamma().rel_error > 0);
  CHECK(laplaces->log_density_error() >= blanket->gamma().rel_error);
  CHECK(laplaces->log_density_error() < 1e-8);
  // Outputs known to an error (a normalising constant by quadrature): at least twice theirs.
  const auto densities = law("blanket([density(log_pdf=\"-abs(x)^1.5\"), density(log_pdf=\"-abs(x - 1)^1.5\")])");
  const double output_error = law("density(log_pdf=\"-abs(x)^1.5\")")->log_density_error();
  REQUIRE(output_error > 0);
  CHECK(densities->log_density_error() >= 2 * output_error);
}

TEST_CASE("blanket gamma by quadrature of min_x p(y|x) matches the closed forms", "[sim][shuffling]") {
  for (double eps0 : {0.1, 1.0, 3.0}) {
    INFO("eps0 = " << eps0);
    // Laplace with scale 1/eps0 on inputs [0, 1]: gamma = e^{-eps0/2}; interior inputs change nothing.
    std::vector<sim::LawPtr> laplace;
    for (double x : {0.0, 0.25, 0.5, 1.0}) laplace.push_back(std::make_shared<sim::Laplace>(x, 1 / eps0));
    const auto g = sim::blanket_gamma(laplace);
    CHECK(test::near_rel(g.gamma, std::exp(-eps0 / 2), std::max(1e-12, 4 * g.rel_error)));
    CHECK(g.rel_error < 1e-10);
    // k-ary randomized response: gamma = k/(e^eps0 + k - 1), atoms only.
    const int k = 5;
    std::vector<sim::LawPtr> rr;
    for (int x = 0; x < k; ++x) {
      std::vector<double> at, pm;
      for (int y = 0; y < k; ++y) at.push_back(y), pm.push_back((y == x ? std::exp(eps0) : 1.0) / (std::exp(eps0) + k - 1));
      rr.push_back(std::make_shared<sim::FiniteLaw>(at, Eigen::Map<const Eigen::VectorXd>(pm.data(), k)));
    }
    CHECK(test::near_rel(sim::blanket_gamma(rr).gamma, k / (std::exp(eps0) + k - 1), 1e-14));
  }
  for (double sigma : {0.2, 1.0, 5.0}) {
    const std::vector<sim::LawPtr> gaussian{std::make_shared<sim::Gaussian>(0, sigma), std::make_shared<sim::Gaussian>(1, sigma)};
    const auto g = sim::blanket_gamma(gaussian);
    CHECK(test::near_rel(g.gamma, 2 * std::erfc(1 / (2 * sigma * std::sqrt(2.0))) / 2, std::max(1e-12, 4 * g.rel_error)));
  }
}

TEST_CASE("the blanket law is normalised and its rejection sampler draws from it", "[sim][shuffling]") {
  const auto omega = sim::parse_law("blanket([laplace(0, 1), laplace(1, 1)])");
  // ω has density min(p_0, p_1)/γ = e^{-|y - 1/2|}/2: y = 1/2 ± Exp(1), so P(ω ≤ 0) = e^{-1/2}/2, variance 2.
  const double gamma = std::exp(-0.5);
  const double below_zero = 0.5 * std::exp(-1.0) / gamma;  // ∫_{-∞}^0 e^{-|y-1|}/2 dy / γ
  sim::Rng rng(11);
  const long draws = 200'000;
  long below = 0;
  double mean = 0;
  for (long i = 0; i < draws; ++i) {
    const double y = omega->sample(rng);
    below += y <= 0;
    mean += y;
  }
  mean /= draws;
  // 5-sigma binomial and CLT bands (false-alarm rate below 1e-6 each).
  const double se = std::sqrt(below_zero * (1 - below_zero) / draws);
  CHECK(std::fabs(static_cast<double>(below) / draws - below_zero) < 5 * se);
  CHECK(std::fabs(mean - 0.5) < 5 * std::sqrt(2.0) / std::sqrt(static_cast<double>(draws)));
  // y = 1/2 ± Exp(1): the density at 1/2 is 1/2, at -1 it is e^{-3/2}/2.
  CHECK(omega->log_density(0.5) == Approx(std::log(0.5)).epsilon(1e-12));
  CHECK(omega->log_density(-1.0) == Approx(-1.5 + std::log(0.5)).epsilon(1e-12));
}
