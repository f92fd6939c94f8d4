#include <cmath>

#include <catch2/catch.hpp>

#include "support/check.hpp"
#include "numerics/errors.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "sim/random/rng.hpp"

using namespace privamp;
using test::error_of;
using Catch::Matchers::Contains;

TEST_CASE("finite kernels reject matrices that are not row-stochastic", "[sim][bad-input]") {
  Eigen::MatrixXd m(2, 2);
  m << 0.5, 0.6, 0.5, 0.5;
  CHECK_THAT(error_of([&] { sim::FiniteKernel k(m); }), Contains("row 0 sums to 1.1"));
  m << -0.1, 1.1, 0.5, 0.5;
  CHECK_THAT(error_of([&] { sim::FiniteKernel k(m); }), Contains("entry K(0, 0) = -0.1"));
  CHECK_THAT(error_of([&] { sim::FiniteKernel k(Eigen::MatrixXd::Constant(2, 3, 1.0 / 3)); }), Contains("must be square"));
  CHECK_THAT(error_of([] { sim::randomized_response_kernel(1, 1.0); }), Contains("parameter 'k' = 1"));
  CHECK_THAT(error_of([] { sim::random_sparse_kernel(4, 5, 1); }), Contains("parameter 'per_row' = 5"));
  const auto rr = sim::randomized_response_kernel(3, 1.0);
  CHECK_THAT(error_of([&] { rr.push(Eigen::Vector3d(0.5, 0.6, 0)); }), Contains("not a probability vector"));
}

TEST_CASE("t-step laws and simulated paths agree", "[sim]") {
  const auto k = sim::random_dirichlet_kernel(5, 0.7, 3);
  Eigen::VectorXd mu = Eigen::VectorXd::Zero(5);
  mu[2] = 1;
  const int steps = 4, n = 200'000;
  const Eigen::VectorXd exact = k.push(mu, steps);
  CHECK(exact.sum() == Approx(1).epsilon(1e-14));
  Eigen::VectorXd counts = Eigen::VectorXd::Zero(5);
  sim::Rng rng(17);
  for (int i = 0; i < n; ++i) counts[k.path(2, steps, rng).back()] += 1;
  // Pearson χ² with 4 degrees of freedom: P(χ² > 23.5) ≈ 1e-4 (the false-alarm rate of this check).
  double chi2 = 0;
  for (int y = 0; y < 5; ++y) chi2 += std::pow(counts[y] - n * exact[y], 2) / (n * exact[y]);
  CHECK(chi2 < 23.5);
}

TEST_CASE("mixing coefficients of k-ary randomized response", "[sim]") {
  // K = (e^{ε0} on the diagonal, 1 elsewhere)/(e^{ε0}+k−1): Dobrushin = Doeblin = (e^{ε0}−1)/(e^{ε0}+k−1),
  // ultra-mixing = 1 − e^{−ε0}, and the Doeblin law is uniform.
  for (int k : {2, 3, 10}) {
    for (double eps0 : {0.1, 1.0, 4.0}) {
      const auto m = sim::mixing_coefficients(sim::randomized_response_kernel(k, eps0));
      const double e = std::exp(eps0);
      CHECK(m.dobrushin == Approx((e - 1) / (e + k - 1)).epsilon(1e-14));
      CHECK(m.doeblin == Approx((e - 1) / (e + k - 1)).epsilon(1e-14));
      CHECK(m.ultra_mixing == Approx(-std::expm1(-eps0)).epsilon(1e-14));
      CHECK((m.omega.array() - 1.0 / k).abs().maxCoeff() < 1e-15);
    }
  }
}

TEST_CASE("MIX.implications and MIX.ldp on random kernels", "[sim][properties]") {
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 2 + trial % 7;
    const sim::FiniteKernel k = trial % 3 == 0   ? sim::random_dirichlet_kernel(n, 0.3 + trial % 5, 100 + trial)
                                : trial % 3 == 1 ? sim::lazy_kernel(sim::random_dirichlet_kernel(n, 1.0, 200 + trial), 0.5)
                                                 : sim::random_sparse_kernel(n, 1 + trial % n, 300 + trial);
    const auto m = sim::mixing_coefficients(k);
    INFO("trial " << trial);
    // γ-ultra-mixing ⇒ γ-Doeblin ⇒ γ-Dobrushin ⇒ (γ,ε)-Dobrushin: the best constants are ordered.
    CHECK(m.dobrushin <= m.doeblin + 1e-15);
    CHECK(m.doeblin <= m.ultra_mixing + 1e-15);
    for (double eps : {0.0, 0.5, 2.0}) CHECK(sim::dobrushin_at(k, eps) <= m.dobrushin + 1e-15);
    CHECK(sim::dobrushin_at(k, 0) == Approx(m.dobrushin).margin(1e-15));  // HS_0 = TV
    // The Doeblin minorisation K(x) ≥ (1−γ)ω holds row by row.
    for (int x = 0; x < n; ++x) CHECK(((k.row(x) - (1 - m.doeblin) * m.omega).array() >= -1e-15).all());
    // MIX.ldp: γ-ultra-mixing ⇔ (log(1/(1−γ)), 0)-LDP: the largest log-ratio of entries in one column, and the
    // two forms of the coefficient agree.
    double max_log_ratio = 0;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        for (int x2 = 0; x2 < n; ++x2)
          if (k.matrix()(x, y) > 0)
            max_log_ratio = std::max(max_log_ratio, k.matrix()(x2, y) > 0 ? std::log(k.matrix()(x, y) / k.matrix()(x2, y))
                                                                          : std::numeric_limits<double>::infinity());
    CHECK(max_log_ratio == Approx(m.ultra_mixing_ldp).epsilon(1e-13));
    if (std::isfinite(max_log_ratio)) CHECK(std::exp(-max_log_ratio) == Approx(1 - m.ultra_mixing).margin(1e-15));
  }
}

TEST_CASE("the (eps, delta) Dobrushin coefficient at a subnormal delta: the delta -> 0 limit, not an internal error",
          "[sim][bad-input]") {
  // ε' = log(1 + (e^ε − 1)/δ) overflowed at δ = 1e-310 and was refused inside as "'eps' = inf".
  Eigen::MatrixXd m(2, 2);
  m << 0.5, 0.5, 0.0, 1.0;  // row 1 puts no mass where row 0 puts 0.5: the coefficient tends to 0.5 as δ -> 0
  const sim::FiniteKernel k(m);
  for (double delta : {1e-300, 1e-310, 5e-324}) {
    INFO("delta = " << delta);
    CHECK(sim::dobrushin_tilde(k, 1.0, delta) == Approx(0.5).epsilon(1e-12));
    CHECK(sim::dobrushin_tilde(k, 1000.0, delta) == Approx(0.5).epsilon(1e-12));  // e^ε − 1 itself overflows
  }
  CHECK(sim::dobrushin_tilde(k, 1.0, 0.0) == Approx(0.5).epsilon(1e-12));
  const sim::FiniteKernel rr = sim::randomized_response_kernel(3, 1.0);  // full rows: 0 once ε' is large
  CHECK(sim::dobrushin_tilde(rr, 1.0, 1e-310) == 0.0);
}
