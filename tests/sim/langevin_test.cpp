// Reversible Langevin diffusions: the discretised generator's two routes (spectral, method of lines) against each
// other, against the Ornstein–Uhlenbeck closed forms (quadratic potential) with their convergence rate, and the
// structural identities of the double well (detailed balance, symmetry, convergence to the invariant law).
#include <cmath>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/language/expression.hpp"
#include "sim/processes/langevin.hpp"
#include "verify/divergence/engines.hpp"
#include "support/check.hpp"

using namespace privamp;

namespace {
double renyi2(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  double s = 0;
  for (Eigen::Index k = 0; k < a.size(); ++k)
    if (a[k] > 0) s += a[k] * a[k] / b[k];
  return std::log(s);
}
}  // namespace

TEST_CASE("Langevin chain: spectral and method-of-lines routes agree", "[sim][langevin]") {
  for (const auto& potential : {sim::Potential::double_well(), sim::Potential::quadratic(2.0)}) {
    const sim::LangevinChain c(potential, -4, 4, 160);
    for (double t : {0.05, 0.5, 3.0}) {
      const auto a = c.law(c.node(1.0), t), b = c.law_time_stepped(c.node(1.0), t);
      INFO(potential.name << " t " << t);
      CHECK((a - b).cwiseAbs().maxCoeff() < 1e-9);
    }
  }
}

TEST_CASE("quadratic potential: the chain converges to the OU law at second order", "[sim][langevin]") {
  // U = x²/2 is OU with θ = ρ = 1: R_2(P_t(1) ‖ P_t(0)) = e^{−2t}/(1 − e^{−2t}); Λ(t) = 1/(2(e^{2t} − 1)) (C7).
  const double t = 0.5, exact = std::exp(-2 * t) / -std::expm1(-2 * t), lambda = 1 / (2 * std::expm1(2 * t));
  std::vector<double> errors, lambda_errors;
  for (int cells : {120, 240, 480}) {
    const sim::LangevinChain c(sim::Potential::quadratic(1.0), -6, 6, cells);
    const int i = c.node(1.0), j = c.node(0.0);
    errors.push_back(std::fabs(renyi2(c.law(i, t), c.law(j, t)) - exact));
    lambda_errors.push_back(std::fabs(c.intrinsic_sensitivity(i, j, t) - lambda));
  }
  INFO("errors " << errors[0] << " " << errors[1] << " " << errors[2]);
  CHECK(errors[0] / errors[1] == Approx(4).epsilon(0.1));
  CHECK(errors[1] / errors[2] == Approx(4).epsilon(0.1));
  CHECK(errors[2] < 1e-4 * exact);
  INFO("Lambda errors " << lambda_errors[0] << " " << lambda_errors[1] << " " << lambda_errors[2]);
  CHECK(lambda_errors[0] / lambda_errors[1] == Approx(4).epsilon(0.15));
  CHECK(lambda_errors[2] < 1e-3 * lambda);
}

TEST_CASE("double well: detailed balance, symmetry and mixing", "[sim][langevin]") {
  const sim::LangevinChain c(sim::Potential::double_well(), -3, 3, 120);
  const Eigen::VectorXd pi = c.invariant();
  CHECK(pi.sum() == Approx(1).epsilon(1e-13));
  const int i = c.node(1.0), j = c.node(-0.5);
  for (double t : {0.1, 1.0}) {
    // π_i P_t(i, j) = π_j P_t(j, i): the kernel is symmetric with respect to the invariant law.
    CHECK(pi[i] * c.law(i, t)[j] == Approx(pi[j] * c.law(j, t)[i]).epsilon(1e-9));
    // U is even: the law from −x is the mirror image of the law from x.
    const Eigen::VectorXd a = c.law(i, t), b = c.law(c.node(-1.0), t);
    CHECK((a - b.reverse()).cwiseAbs().maxCoeff() < 1e-12);
  }
  // Long times: the law forgets the start (relaxation at the spectral gap).
  CHECK((c.law(i, 200.0) - pi).cwiseAbs().sum() < 1e-8);
  // Very long times give the invariant law, not NaN (the zero eigenvalue rounded to ±1e-16 made e^{λt} inf or 0).
  for (double t : {1e20, 1e100, 1e300}) {
    INFO("t = " << t);
    const Eigen::VectorXd far = c.law(i, t);
    REQUIRE(far.allFinite());
    CHECK((far - pi).cwiseAbs().sum() < 1e-8);
  }
  CHECK_THROWS_AS(c.node(0.01), InvalidArgument);
  CHECK_THROWS_AS(sim::LangevinChain(sim::Potential::double_well(), 1, -1, 100), InvalidArgument);
}

TEST_CASE("Langevin chain: uniformization agrees with the spectral route and keeps the tails", "[sim][langevin]") {
  for (const auto& potential : {sim::Potential::double_well(), sim::Potential::quadratic(2.0)}) {
    const sim::LangevinChain c(potential, -4, 4, 160);
    for (double t : {0.5, 3.0}) {
      const auto a = c.law(c.node(1.0), t), u = c.law_uniformized(c.node(1.0), t);
      INFO(potential.name << " t " << t);
      CHECK((a - u).cwiseAbs().maxCoeff() < 1e-12);
      // Where the spectral sums are trustworthy (entries above 1e-8 of the peak), relative agreement.
      for (Eigen::Index k = 0; k < a.size(); ++k)
        if (a[k] > 1e-8 * a.maxCoeff()) CHECK(std::fabs(u[k] / a[k] - 1) < 1e-7);
      CHECK(u.minCoeff() > 0);  // every node is reachable at t > 0: no entry lost to cancellation
    }
  }
  const sim::LangevinChain c(sim::Potential::double_well(), -4, 4, 160);
  CHECK_THROWS_WITH(c.law_uniformized(-1, 1.0), Catch::Contains("start node"));
  const auto at_zero = c.law_uniformized(c.node(1.0), 0.0);  // t = 0: the point mass
  CHECK(at_zero[c.node(1.0)] == 1);
  CHECK(at_zero.sum() == 1);
}

TEST_CASE("Langevin laws: Monte Carlo over simulated paths of the diffusion agrees with the discretised generator",
          "[sim][langevin]") {
  // The samples are paths of dX = -U'(X)dt + sqrt(2)dW (stochastic Heun, reflected at the ends), binned to the
  // chain's cells: a route that shares nothing with the discretisation of space.
  verify::DivergenceOptions mc;
  mc.engine = verify::Engine::monte_carlo;
  mc.monte_carlo.samples = 10000;
  mc.monte_carlo.seed = 11;
  for (const std::string& potential : {std::string("double_well"), std::string("\"log(cosh(x)) + 0.2*x\"")}) {
    const auto p = sim::parse_law(fmt::format("langevin(potential={}, x0=0.9, t=0.25, lo=-3, hi=3, cells=100)", potential));
    const auto q = sim::parse_law(fmt::format("langevin(potential={}, x0=-0.6, t=0.25, lo=-3, hi=3, cells=100)", potential));
    const auto kl = verify::Quantity::kl();
    const verify::Estimate exact = verify::compute_divergence(*p, *q, kl), simulated = verify::compute_divergence(*p, *q, kl, mc);
    INFO(potential << ": generator " << exact.value << ", simulated " << simulated.lower << " .. " << simulated.upper);
    CHECK(exact.upper - exact.lower < 1e-3 * exact.value);  // far narrower than the simulation's interval
    CHECK(simulated.lower <= exact.value);
    CHECK(exact.value <= simulated.upper);
    CHECK(simulated.upper - simulated.lower < 0.1 * exact.value);  // not vacuous
  }
}

TEST_CASE("langevin laws at short times: the far nodes keep their digits, no false inf", "[langevin]") {
  // U = x^2/2 is the OU process dX = -X dt + sqrt(2) dW: R_2 from 1 and 0 at time t is 1/(e^{2t} - 1) (the domain
  // [-7, 7] reflects, which moves it by less than 1e-9 here). The spectral sums once read 0 at nodes where the other
  // start's law has mass, and R_2 printed inf "exact".
  const std::string mu = "langevin(potential=\"x^2/2\", x0=1, t=0.1, lo=-7, hi=7, cells=280)";
  const std::string nu = "langevin(potential=\"x^2/2\", x0=0, t=0.1, lo=-7, hi=7, cells=280)";
  const verify::Estimate e = verify::compute_divergence(*sim::parse_law(mu), *sim::parse_law(nu), verify::Quantity::renyi(2));
  INFO(test::describe(e));
  CHECK(std::isfinite(e.upper));
  CHECK(e.contains(1 / std::expm1(0.2)));
  CHECK(e.upper - e.lower < 0.01 * e.value);
}
