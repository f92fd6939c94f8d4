// GT.canonical: the worst case over all (ε,δ)-DP pairs is never exceeded by any feasible pair, is attained, and
// its canonical pair is itself (ε,δ)-DP.
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "sim/kernels/finite_kernel.hpp"
#include "verify/divergence/worst_case.hpp"

using namespace privamp;

TEST_CASE("the canonical pair is exactly (eps, delta)-DP in both directions", "[verify]") {
  for (double eps : {0.0, 0.3, 2.0, 30.0}) {
    for (double delta : {0.0, 1e-6, 0.2, 1.0}) {
      const auto c = verify::canonical_pair(eps, delta);
      CHECK(c.p.sum() == Approx(1).epsilon(1e-15));
      CHECK(sim::hockey_stick(c.p, c.q, eps) == Approx(delta).margin(1e-15));
      CHECK(sim::hockey_stick(c.q, c.p, eps) == Approx(delta).margin(1e-15));
    }
  }
}

TEST_CASE("worst case over all DP pairs dominates random feasible pairs (brute force)", "[verify]") {
  std::mt19937_64 rng(99);
  std::gamma_distribution<double> g(0.5, 1.0);
  auto random_law = [&](int m) {
    Eigen::VectorXd v(m);
    for (int i = 0; i < m; ++i) v[i] = g(rng) + 1e-12;
    return Eigen::VectorXd(v / v.sum());
  };
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 5, m = 2 + trial % 4;
    const auto k = sim::random_dirichlet_kernel(n, 0.6, 500 + trial);
    const double eps = 0.2 * (trial % 6);
    // A random mechanism on m outputs followed by a random map into the kernel's states: (μ, ν) are feasible for
    // δ = their own max hockey-stick, so the worst case at that δ must dominate them after K.
    for (int draw = 0; draw < 20; ++draw) {
      const Eigen::VectorXd a = random_law(m), b = random_law(m);
      const double delta = std::max(sim::hockey_stick(a, b, eps), sim::hockey_stick(b, a, eps));
      Eigen::MatrixXd embed = Eigen::MatrixXd::Zero(m, n);  // deterministic map outputs → states
      for (int i = 0; i < m; ++i) embed(i, std::uniform_int_distribution<int>(0, n - 1)(rng)) = 1;
      const Eigen::VectorXd mu = (a.transpose() * embed * k.matrix()).transpose();
      const Eigen::VectorXd nu = (b.transpose() * embed * k.matrix()).transpose();
      for (double eps_prime : {0.0, 0.1, 0.5}) {
        const auto worst = verify::worst_case_amplification(k, eps, delta, {eps_prime}).front();
        INFO("trial " << trial << " eps " << eps << " delta " << delta << " eps' " << eps_prime);
        CHECK(sim::hockey_stick(mu, nu, eps_prime) <= worst.value.upper);
      }
    }
  }
}

TEST_CASE("the worst case is attained by the reported map and respects data processing", "[verify]") {
  const auto k = sim::random_dirichlet_kernel(6, 0.5, 7);
  const double eps = 1.0, delta = 0.05;
  const auto worst = verify::worst_case_amplification(k, eps, delta, {0.0, 0.5, 1.0, 3.0});
  for (std::size_t i = 0; i < worst.size(); ++i) {
    const double eps_prime = std::vector<double>{0.0, 0.5, 1.0, 3.0}[i];
    CHECK(worst[i].maps == 6 * 6 * 6 * 6);
    CHECK(worst[i].value.contains(sim::hockey_stick(worst[i].mu, worst[i].nu, eps_prime)));
  }
  // At ε' = ε the amplified δ' cannot exceed δ (post-processing), and it decreases in ε'.
  const auto at_eps = verify::worst_case_amplification(k, eps, delta, {eps}).front();
  CHECK(at_eps.value.lower <= delta);
  CHECK(worst[3].value.lower <= worst[2].value.upper);
  // A kernel that forgets its input (identical rows) amplifies everything away: δ' = 0 for every ε' ≥ 0.
  const sim::FiniteKernel forget(Eigen::MatrixXd::Constant(4, 4, 0.25));
  CHECK(verify::worst_case_amplification(forget, eps, delta, {0.0}).front().value.value == Approx(0).margin(1e-15));
}

TEST_CASE("the worst case by output sets equals the enumeration of canonical maps", "[verify]") {
  // Two algorithms for GT.canonical that share only the canonical pair: |X|^4 maps against 2^|Y| output sets.
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + trial % 7;
    const auto k = trial % 3 == 0 ? sim::randomized_response_kernel(n, 0.2 + 0.3 * (trial % 5))
                                  : sim::random_dirichlet_kernel(n, 0.4 + 0.1 * (trial % 4), 900 + trial);
    const double eps = 0.25 * (trial % 5), delta = std::vector<double>{0, 1e-6, 0.01, 0.2}[trial % 4];
    for (double eps_prime : {0.0, 0.1, 0.7, 2.0}) {
      const auto a = verify::worst_case_amplification(k, eps, delta, {eps_prime}).front().value;
      const auto b = verify::worst_case_by_output_sets(k, eps, delta, eps_prime);
      INFO("trial " << trial << " n " << n << " eps " << eps << " delta " << delta << " eps' " << eps_prime);
      CHECK(a.lower <= b.upper);
      CHECK(b.lower <= a.upper);
    }
  }
  CHECK_THROWS_WITH(verify::worst_case_by_output_sets(sim::random_dirichlet_kernel(17, 1, 1), 1, 0.1, 0.5),
                    Catch::Contains("17 states") && Catch::Contains("at most 16"));
}

TEST_CASE("worst-case Renyi over DP pairs dominates random feasible pairs and is attained", "[verify]") {
  std::mt19937_64 rng(7);
  std::gamma_distribution<double> g(0.5, 1.0);
  auto random_law = [&](int m) {
    Eigen::VectorXd v(m);
    for (int i = 0; i < m; ++i) v[i] = g(rng) + 1e-3;
    return Eigen::VectorXd(v / v.sum());
  };
  auto renyi = [](const Eigen::VectorXd& a, const Eigen::VectorXd& b, double alpha) {
    double s = 0;
    for (Eigen::Index y = 0; y < a.size(); ++y) s += std::pow(a[y], alpha) * std::pow(b[y], 1 - alpha);
    return std::log(s) / (alpha - 1);
  };
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 2 + trial % 4, m = 2 + trial % 3;
    const auto k = sim::random_dirichlet_kernel(n, 0.8, 40 + trial);
    const double eps = 0.3 + 0.2 * (trial % 4);
    for (int draw = 0; draw < 10; ++draw) {
      const Eigen::VectorXd a = random_law(m), b = random_law(m);
      const double delta = std::max(sim::hockey_stick(a, b, eps), sim::hockey_stick(b, a, eps));
      Eigen::MatrixXd embed = Eigen::MatrixXd::Zero(m, n);
      for (int i = 0; i < m; ++i) embed(i, std::uniform_int_distribution<int>(0, n - 1)(rng)) = 1;
      const Eigen::VectorXd mu = (a.transpose() * embed * k.matrix()).transpose();
      const Eigen::VectorXd nu = (b.transpose() * embed * k.matrix()).transpose();
      for (double alpha : {1.5, 2.0, 8.0}) {
        const auto worst = verify::worst_case_renyi(k, eps, delta, {alpha}).front();
        INFO("trial " << trial << " alpha " << alpha << " delta " << delta);
        CHECK(renyi(mu, nu, alpha) <= worst.value.upper);
        // The reported pair attains the value.
        CHECK(renyi(worst.mu, worst.nu, alpha) == Approx(worst.value.value).epsilon(1e-12));
      }
    }
  }
  // δ > 0 with a kernel that has zeros: μK may charge states νK does not — infinite, reported as such.
  const sim::FiniteKernel identity(Eigen::MatrixXd::Identity(3, 3));
  CHECK(std::isinf(verify::worst_case_renyi(identity, 1.0, 0.01, {2.0}).front().value.value));
  CHECK(verify::worst_case_renyi(identity, 1.0, 0.0, {2.0}).front().value.value == Approx(std::log(
      (std::exp(2.0) + std::exp(-1.0)) / (1 + std::exp(1.0)))));  // R_2 of randomized response: log((e^{2ε}+e^{−ε})/(1+e^ε))
  CHECK_THROWS_WITH(verify::worst_case_renyi(sim::random_dirichlet_kernel(33, 1, 1), 1, 0.1, {2}),
                    Catch::Contains("33 states") && Catch::Contains("at most 32"));
  CHECK_THROWS_WITH(verify::worst_case_amplification(sim::random_dirichlet_kernel(65, 1, 1), 1, 0.1, {2}),
                    Catch::Contains("65 states") && Catch::Contains("at most 64"));
}
