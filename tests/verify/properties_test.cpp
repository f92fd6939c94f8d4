// THEOREMS.md DIV.*: properties of the divergences on random finite instances and on continuous pairs.
// Every comparison goes through the error bars: "a ≤ b" is checked as lower(a) ≤ upper(b).
#include <cmath>
#include <random>

#include <Eigen/Core>
#include <catch2/catch.hpp>

#include "sim/language/expression.hpp"
#include "sim/laws/finite.hpp"
#include "support/check.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;
using verify::Quantity;

namespace {

std::mt19937_64 rng(20261122);

// Dirichlet(a,…,a) draw; small a gives sparse, spiky pmfs (the hard cases), floored so masses stay positive.
Eigen::VectorXd random_pmf(int k, double a = 0.5) {
  std::gamma_distribution<double> g(a, 1.0);
  Eigen::VectorXd v(k);
  for (int i = 0; i < k; ++i) v[i] = g(rng) + 1e-12;
  return v / v.sum();
}

Eigen::MatrixXd random_kernel(int k, int m) {
  Eigen::MatrixXd K(k, m);
  for (int i = 0; i < k; ++i) K.row(i) = random_pmf(m).transpose();
  return K;
}

sim::FiniteLaw law(const Eigen::VectorXd& p) {
  std::vector<double> at;
  for (int i = 0; i < p.size(); ++i) at.push_back(i);
  return sim::FiniteLaw(at, p / p.sum());
}

verify::Estimate D(const Eigen::VectorXd& p, const Eigen::VectorXd& q, const Quantity& quantity) {
  return verify::compute_divergence(law(p), law(q), quantity);
}

bool le(const verify::Estimate& a, const verify::Estimate& b) { return a.lower <= b.upper * (1 + 1e-12) + 1e-300; }

}  // namespace

TEST_CASE("DIV.hs.monotone and DIV.tv.coupling on random finite pairs", "[verify][properties]") {
  for (int trial = 0; trial < 200; ++trial) {
    const int k = 2 + trial % 9;
    const Eigen::VectorXd p = random_pmf(k), q = random_pmf(k);
    double previous = 2;
    for (double eps : {0.0, 1e-9, 0.1, 0.5, 1.0, 3.0}) {
      const auto hs = D(p, q, Quantity::hockey_stick(eps));
      CHECK(hs.lower <= previous);
      previous = hs.upper;
    }
    const auto tv = D(p, q, Quantity::tv());
    CHECK(tv.contains(1 - p.cwiseMin(q).sum()));  // maximal coupling's mismatch probability
    CHECK(tv.contains(0.5 * (p - q).cwiseAbs().sum()));
    CHECK(D(p, q, Quantity::hockey_stick(0)).value == tv.value);
  }
}

TEST_CASE("DIV.dpi: data processing under random kernels", "[verify][properties]") {
  const std::vector<Quantity> quantities = {Quantity::tv(),      Quantity::hockey_stick(0.3), Quantity::hockey_stick(2),
                                            Quantity::kl(),      Quantity::renyi(1.5),        Quantity::renyi(2),
                                            Quantity::renyi(20), Quantity::renyi_inf()};
  for (int trial = 0; trial < 100; ++trial) {
    const int k = 2 + trial % 6, m = 2 + (trial / 6) % 7;
    const Eigen::VectorXd p = random_pmf(k), q = random_pmf(k);
    const Eigen::MatrixXd K = random_kernel(k, m);
    const Eigen::VectorXd pk = K.transpose() * p, qk = K.transpose() * q;
    for (const Quantity& quantity : quantities) {
      INFO("trial " << trial << " " << quantity.label());
      CHECK(le(D(pk, qk, quantity), D(p, q, quantity)));
    }
  }
}

TEST_CASE("DIV.jointconvex and DIV.ajc on random finite instances", "[verify][properties]") {
  for (int trial = 0; trial < 100; ++trial) {
    const int k = 2 + trial % 7;
    const Eigen::VectorXd m1 = random_pmf(k), m2 = random_pmf(k), n1 = random_pmf(k), n2 = random_pmf(k);
    const double g = std::uniform_real_distribution<double>(0.01, 0.99)(rng);
    const double eps = std::uniform_real_distribution<double>(0, 3)(rng);
    // Joint convexity.
    const auto lhs = D((1 - g) * m1 + g * m2, (1 - g) * n1 + g * n2, Quantity::hockey_stick(eps));
    const double rhs = (1 - g) * D(m1, n1, Quantity::hockey_stick(eps)).upper + g * D(m2, n2, Quantity::hockey_stick(eps)).upper;
    CHECK(lhs.lower <= rhs * (1 + 1e-12));
    // Advanced joint convexity: μ = (1−γ)μ1 + γμ2, ν = (1−γ)μ1 + γν2, ε' = log(1 + γ(e^ε − 1)).
    const double eps_prime = std::log1p(g * std::expm1(eps)), w = std::exp(eps_prime - eps);
    const auto ajc = D((1 - g) * m1 + g * m2, (1 - g) * m1 + g * n2, Quantity::hockey_stick(eps_prime));
    const double bound = g * ((1 - w) * D(m2, m1, Quantity::hockey_stick(eps)).upper + w * D(m2, n2, Quantity::hockey_stick(eps)).upper);
    INFO("trial " << trial << " gamma " << g << " eps " << eps);
    CHECK(ajc.lower <= bound * (1 + 1e-12) + 1e-300);
  }
}

TEST_CASE("R_alpha is non-decreasing in alpha, tends to KL as alpha -> 1, and Pinsker holds", "[verify][properties]") {
  for (int trial = 0; trial < 100; ++trial) {
    const int k = 2 + trial % 8;
    const Eigen::VectorXd p = random_pmf(k), q = random_pmf(k);
    double previous = 0;
    for (double alpha : {1 + 1e-9, 1.001, 1.5, 2.0, 4.0, 16.0, 256.0, 1e4}) {
      const auto r = D(p, q, Quantity::renyi(alpha));
      CHECK(r.upper >= previous);
      previous = r.lower;
    }
    CHECK(D(p, q, Quantity::renyi_inf()).upper >= previous);
    const auto kl = D(p, q, Quantity::kl()), near_one = D(p, q, Quantity::renyi(1 + 1e-9));
    CHECK(test::near_rel(kl.value, near_one.value, 1e-6, 1e-15));
    CHECK(D(p, q, Quantity::tv()).lower <= std::sqrt(kl.upper / 2) * (1 + 1e-12));
  }
}

TEST_CASE("properties on continuous pairs: monotonicity, Pinsker, data processing by Gaussian noise", "[verify][properties]") {
  // Adding N(0, s²) to both laws maps N(m, σ²) to N(m, σ² + s²): a Markov kernel applied in closed form.
  for (double s : {0.5, 2.0}) {
    const double sig = std::sqrt(1 + s * s);
    const auto p = sim::parse_law("mix(0.3, gaussian(0, 1), gaussian(2, 1))"), q = sim::parse_law("gaussian(0.5, 1)");
    const auto pk = sim::parse_law(fmt::format("mix(0.3, gaussian(0, {0}), gaussian(2, {0}))", sig));
    const auto qk = sim::parse_law(fmt::format("gaussian(0.5, {})", sig));
    for (const Quantity& quantity : {Quantity::renyi(2), Quantity::renyi(9.5), Quantity::kl(), Quantity::tv(),
                                     Quantity::hockey_stick(0.5)}) {
      const auto before = verify::compute_divergence(*p, *q, quantity), after = verify::compute_divergence(*pk, *qk, quantity);
      INFO(quantity.label() << " s " << s);
      CHECK(after.lower <= before.upper);
    }
    double previous = 0;
    for (double alpha : {1.01, 2.0, 8.0, 64.0}) {
      const auto r = verify::compute_divergence(*p, *q, Quantity::renyi(alpha));
      CHECK(r.upper >= previous);
      previous = r.lower;
    }
    const auto kl = verify::compute_divergence(*p, *q, Quantity::kl()), tv = verify::compute_divergence(*p, *q, Quantity::tv());
    CHECK(tv.lower <= std::sqrt(kl.upper / 2));
  }
}
