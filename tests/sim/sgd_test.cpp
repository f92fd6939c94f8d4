// Noisy projected SGD: the d-dimensional simulator against exact laws (Gaussian without projection, the 1-D grid
// law with projection and a logistic loss), the constants Theorem 5 needs, and refused step sizes.
#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/processes/sgd.hpp"
#include "sim/random/rng.hpp"
#include "support/check.hpp"

using namespace privamp;
using Catch::Matchers::Contains;

namespace {
// P(X ≤ x) of a grid law with atoms (trapezoid rule between nodes, exact at the nodes up to O(h²)).
double cdf(const sim::IntervalLaw& law, double x) {
  double c = 0;
  const double h = law.h();
  for (std::size_t k = 0; k + 1 < law.density.size(); ++k) {
    const double a = law.lo + k * h;
    if (x <= a) break;
    const double t = std::min(1.0, (x - a) / h), da = law.density[k], db = law.density[k + 1];
    c += h * t * (da + 0.5 * t * (db - da));  // ∫_a^{a+th} of the linear interpolant
  }
  for (const auto& [at, w] : law.atoms)
    if (at <= x) c += w;
  return c;
}
}  // namespace

TEST_CASE("noisy SGD in d dimensions: simulated runs match the Gaussian law when the projection is inactive",
          "[sim][sgd]") {
  // Quadratic loss on a ball of radius 100: x_j = a x_{j−1} + ηλ z_j − ησ ξ_j, a = 1 − ηλ, from x_0 = 0.
  sim::NoisySgd sgd{12, 0.3, 0.5, 1.0, 100.0, 0.0};
  sgd.dim = 4;
  std::vector<Eigen::VectorXd> data;
  for (int j = 0; j < sgd.n; ++j) data.push_back(Eigen::VectorXd::LinSpaced(sgd.dim, -1.0, 1.0) * (j % 3));
  const long runs = 100'000;
  const Eigen::MatrixXd x = sim::simulate_noisy_sgd(sgd, data, runs, 5);
  const double a = 1 - sgd.eta * sgd.lambda;
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(sgd.dim);
  double var = 0;
  for (int j = 0; j < sgd.n; ++j) {
    mean = a * mean + sgd.eta * sgd.lambda * data[static_cast<std::size_t>(j)];
    var = a * a * var + sgd.eta * sgd.eta * sgd.sigma * sgd.sigma;
  }
  const Eigen::VectorXd sample_mean = x.colwise().mean().transpose();
  for (int c = 0; c < sgd.dim; ++c) {
    INFO("coordinate " << c);
    // 5 standard errors for the mean; the sample variance of a Gaussian has standard error var·sqrt(2/runs).
    CHECK(std::fabs(sample_mean[c] - mean[c]) < 5 * std::sqrt(var / runs));
    const double sample_var = (x.col(c).array() - sample_mean[c]).square().sum() / (runs - 1);
    CHECK(std::fabs(sample_var - var) < 5 * var * std::sqrt(2.0 / runs));
  }
}

TEST_CASE("noisy SGD with the logistic loss: the grid law of x_n matches simulated runs", "[sim][sgd]") {
  sim::NoisySgd sgd{15, 0.8, 1.0, 0.5, 1.0, 0.0};
  sgd.loss = sim::SgdLoss::logistic;
  sgd.feature_bound = 2;
  const int i = 4;
  const auto law = sim::noisy_sgd_law(sgd, i, 2.0, 400);
  std::vector<Eigen::VectorXd> data(static_cast<std::size_t>(sgd.n), Eigen::VectorXd::Zero(1));
  data[static_cast<std::size_t>(i - 1)][0] = 2.0;
  const long runs = 200'000;
  const Eigen::MatrixXd x = sim::simulate_noisy_sgd(sgd, data, runs, 17);
  std::vector<double> s(x.data(), x.data() + runs);
  std::sort(s.begin(), s.end());
  // Kolmogorov–Smirnov distance to the grid law (its own error is O(h²) ≈ 1e-5, far below the statistic's scale)
  // at the samples inside (−R, R), where the law is continuous (the atoms are tested below):
  // P(D > 1.95/sqrt(n)) ≈ 0.001.
  double ks = 0;
  for (long k = 0; k < runs; k += 37) {
    if (std::fabs(s[static_cast<std::size_t>(k)]) == 1.0) continue;
    const double f = cdf(law, s[static_cast<std::size_t>(k)]);
    ks = std::max({ks, std::fabs(f - static_cast<double>(k + 1) / runs), std::fabs(f - static_cast<double>(k) / runs)});
  }
  CHECK(ks < 1.95 / std::sqrt(static_cast<double>(runs)));
  const double hi = static_cast<double>(std::count(s.begin(), s.end(), 1.0)) / runs;
  double p_hi = 0;
  for (const auto& [at, w] : law.atoms)
    if (at == 1.0) p_hi = w;
  CHECK(p_hi > 0.01);
  CHECK(std::fabs(hi - p_hi) < 5 * std::sqrt(p_hi * (1 - p_hi) / runs));
}

TEST_CASE("noisy SGD constants: C bounds the gradient, beta its derivative, for both losses", "[sim][sgd]") {
  for (const auto loss : {sim::SgdLoss::quadratic, sim::SgdLoss::logistic}) {
    sim::NoisySgd sgd{10, 0.1, 1.0, 0.3, 2.0, 0.0};
    sgd.loss = loss;
    sgd.feature_bound = 1.5;
    const auto c = sgd.constants();
    INFO(sim::to_string(loss) << ": C = " << c.C << ", beta = " << c.beta << ", rho = " << c.rho);
    const double zmax = sgd.data_bound();
    double sup_grad = 0, sup_curv = 0, inf_curv = 1e300;
    for (int a = 0; a <= 200; ++a)
      for (int b = 0; b <= 40; ++b) {
        const double x = -2 + 4.0 * a / 200, z = -zmax + 2 * zmax * b / 40, h = 1e-5;
        sup_grad = std::max(sup_grad, std::fabs(sgd.gradient(x, z)));
        const double curv = (sgd.gradient(x + h, z) - sgd.gradient(x - h, z)) / (2 * h);
        sup_curv = std::max(sup_curv, curv);
        inf_curv = std::min(inf_curv, curv);
      }
    CHECK(sup_grad <= c.C * (1 + 1e-12));
    CHECK(sup_grad >= 0.9 * c.C);  // the bound is nearly attained on this grid
    CHECK(sup_curv <= c.beta * (1 + 1e-6));
    CHECK(inf_curv >= c.rho * (1 - 1e-6));
    CHECK(c.eta_max == Approx(2 / (c.beta + c.rho)));
  }
}

TEST_CASE("noisy SGD: projections, refused step sizes and bad inputs", "[sim][sgd]") {
  sim::NoisySgd sgd{5, 0.5, 1.0, 1.0, 1.0, 0.0};
  sgd.dim = 3;
  Eigen::VectorXd x(3);
  x << 3, 0, -4;
  sgd.project(x);
  CHECK(x.norm() == Approx(1.0));
  sgd.shape = sim::DomainShape::box;
  x << 3, 0.5, -4;
  sgd.project(x);
  CHECK(x == Eigen::Vector3d(1, 0.5, -1));
  // Theorem 5 allows eta <= 2/(beta + rho) = 1 for the quadratic loss with lambda = 1.
  sgd.eta = 1.5;
  CHECK_THAT(test::error_of([&] { sgd.check_theorem_step(); }), Contains("parameter 'eta' = 1.5") && Contains("2/(beta + rho) = 1"));
  sgd.eta = 0.9;
  CHECK_NOTHROW(sgd.check_theorem_step());
  sgd.eta = 2.5;
  CHECK_THAT(test::error_of([&] { sgd.check(); }), Contains("parameter 'eta' = 2.5"));
  sgd.eta = 0.5;
  const std::vector<Eigen::VectorXd> wrong_dim(5, Eigen::VectorXd::Zero(2));
  CHECK_THAT(test::error_of([&] { sim::simulate_noisy_sgd(sgd, wrong_dim, 10, 1); }), Contains("dimension 2"));
  const std::vector<Eigen::VectorXd> too_few(4, Eigen::VectorXd::Zero(3));
  CHECK_THAT(test::error_of([&] { sim::simulate_noisy_sgd(sgd, too_few, 10, 1); }), Contains("4 data points"));
  CHECK_THAT(test::error_of([&] { sim::noisy_sgd_law(sgd, 1, 0.0, 100); }), Contains("parameter 'd' = 3"));
  CHECK_THAT(test::error_of([] { sim::parse_sgd_loss("hinge"); }), Contains("allowed quadratic, logistic"));
  sgd.dim = 0;
  CHECK_THAT(test::error_of([&] { sgd.check(); }), Contains("parameter 'd' = 0"));
}
