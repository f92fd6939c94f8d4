#include <cmath>
#include <numbers>

#include <boost/math/quadrature/ooura_fourier_integrals.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <catch2/catch.hpp>

#include "numerics/log_integrate.hpp"
#include "numerics/log_space.hpp"
#include "numerics/special.hpp"
#include "sim/language/expression.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/laplace.hpp"
#include "support/check.hpp"

using namespace privamp;

namespace {
// log ∫ p over the law's support by the log-space quadrature (plus the atoms): 0 for a normalised law.
double log_total_mass(const sim::Law& law) {
  LogSumAccumulator<double> acc;
  for (const sim::Atom& a : law.atoms()) acc.add(a.log_mass);
  if (law.continuous_mass() > 0) {
    std::function<double(double)> h = [&](double x) { return law.log_density(x); };
    LogIntegrateOptions<double> opt;
    opt.lo = law.support().lo;
    opt.hi = law.support().hi;
    opt.scale = law.scale();
    acc.add(log_integrate<double>(h, law.anchors(), opt).log_value);
  }
  return acc.value();
}
}  // namespace

TEST_CASE("every law in the catalogue is normalised", "[sim]") {
  for (const char* e : {"gaussian(1, 0.01)", "laplace(-3, 20)", "laplace_sum(1, [1, 2])", "laplace_sum(0, [0.5, 1, 3, 7])",
                        "laplace_nfold(n=1)", "laplace_nfold(n=40, scale=0.1)", "mix(0.3, gaussian(0,1), laplace(5,2))",
                        "pmf([0.2, 0.3, 0.5], at=[-1, 0, 4])", "shuffled_rr(n=200, eps0=2, ones=30, first=1)",
                        "clamp(gaussian(0.3, 1), 0, 1)", "clamp(mix(0.5, laplace(0,1), gaussian(2,1)), -1, 2.5)",
                        "grid(x0=0, dx=0.5, density=[0, 1, 0], atoms=[2], masses=[0.5])"}) {
    INFO(e);
    CHECK(std::fabs(log_total_mass(*sim::parse_law(e))) < 1e-12);
  }
}

TEST_CASE("sums of Laplaces: closed-form density equals numerical convolution", "[sim]") {
  // p_{X+Y}(z) = ∫ p_X(y) p_Y(z − y) dy, by log-space quadrature with the kinks at 0 and z as anchors.
  auto convolve = [](const sim::Law& x, const sim::Law& y, double z) {
    std::function<double(double)> h = [&](double t) { return x.log_density(t) + y.log_density(z - t); };
    return log_integrate<double>(h, {0.0, z}, {}).log_value;
  };
  const sim::LaplaceSum two(0, {1, 2}), three(0, {1, 2, 3.5});
  const sim::Laplace lap35(0, 3.5);
  const sim::LaplaceSum n4(0, {0.7, 0.7, 0.7, 0.7}), n3(0, {0.7, 0.7, 0.7});
  const sim::Laplace lap07(0, 0.7);
  for (double z : {0.0, 0.3, -1.0, 5.0, 40.0, -200.0}) {
    INFO("z = " << z);
    CHECK(test::near_rel(three.log_density(z), convolve(two, lap35, z), 1e-11, 1e-11));
    CHECK(test::near_rel(n4.log_density(z), convolve(n3, lap07, z), 1e-11, 1e-11));
  }
  // Two scales, any distance apart (the partial fractions cancel as they meet; a 1% gap was once required): against
  // the convolution of the two Laplaces, from equal to far apart, and the partial fractions where they are apart.
  for (const double b : {1.0, 1.0 + 1e-12, 1.0 + 1e-6, 1.005, 0.99, 1.5, 40.0}) {
    const sim::LaplaceSum sum(0, {1, b});
    const sim::Laplace one(0, 1), other(0, b);
    for (double z : {0.0, 0.3, -1.0, 5.0, 40.0, -200.0}) {
      INFO("b = " << b << ", z = " << z);
      CHECK(test::near_rel(sum.log_density(z), convolve(one, other, z), 1e-11, 1e-11));
      if (std::fabs(b - 1) > 0.1) {
        const double y = std::fabs(z), fractions = (b * std::exp(-y / b) - std::exp(-y)) / (2 * (b * b - 1));
        CHECK(sum.log_density(z) == Approx(std::log(fractions)).epsilon(1e-13));
      }
    }
  }
  // n = 2 by hand: (1 + |z|) e^{−|z|}/4 for unit scale.
  const sim::LaplaceSum pair(0, {1, 1});
  CHECK(pair.log_density(1.5) == Approx(std::log(2.5 / 4) - 1.5).epsilon(1e-15));
}


TEST_CASE("sums of Laplaces at close scales keep their digits (against the Fourier inversion)", "[sim]") {
  // p(z) = (1/π) ∫_0^∞ cos(tz) Π_j 1/(1 + b_j² t²) dt: a positive integrand at z = 0 and no partial fractions, so it
  // shares nothing with the closed form's cancelling terms (in doubles, eight scales 1% apart kept 5 digits and twenty
  // none).
  auto phi = [](const std::vector<double>& b) {
    return [b](double t) {
      double v = 1;
      for (double s : b) v /= 1 + s * s * t * t;
      return v / std::numbers::pi;
    };
  };
  std::vector<double> eight, twenty, apart;
  for (int k = 0; k < 20; ++k) {
    if (k < 8) eight.push_back(std::pow(1.0101, k));
    twenty.push_back(std::pow(1.0101, k));
    apart.push_back(1.0 + k);
  }
  for (const auto* scales : {&eight, &twenty, &apart}) {
    const sim::LaplaceSum sum(0.25, *scales);
    boost::math::quadrature::tanh_sinh<double> at_zero;
    const double p0 = at_zero.integrate(phi(*scales), 0.0, std::numeric_limits<double>::infinity());
    INFO(scales->size() << " scales from " << scales->front() << " to " << scales->back());
    CHECK(std::fabs(sum.log_density(0.25) - std::log(p0)) < 1e-12);  // relative error of the density
    for (double z : {0.5, 3.0}) {
      boost::math::quadrature::ooura_fourier_cos<double> cosine(1e-13);
      const double pz = cosine.integrate(phi(*scales), z).first;
      INFO("z = " << z);
      CHECK(std::fabs(sum.log_density(0.25 + z) - std::log(pz)) < 1e-10);
      CHECK(sum.log_density(0.25 - z) == sum.log_density(0.25 + z));
    }
  }
  CHECK_THROWS_WITH(sim::parse_law("laplace_sum(0, [1, 1.005, 2])"), Catch::Contains("less than 1% apart"));
}

TEST_CASE("a lazily built law answers its declarations unbuilt, and a built law that contradicts them is an error", "[sim]") {
  using sim::Computation;
  const auto gaussian = [] { return std::make_shared<const sim::Gaussian>(0, 1); };
  const sim::LazyLaw honest(gaussian);
  CHECK(honest.computation().log_density_error == 0);
  CHECK(honest.dimension() == 1);
  CHECK_FALSE(honest.built());
  CHECK(honest.location() == 0);  // a question only the law answers builds it
  CHECK(honest.built());
  Computation inexact;
  inexact.log_density_error = 1e-9;
  const sim::LazyLaw wrong_error(gaussian, 1, inexact);
  CHECK_THROWS_AS(wrong_error.location(), std::logic_error);
  const sim::LazyLaw wrong_dimension([] { return std::make_shared<const sim::GaussianND>(std::vector<double>{0, 0}, 1.0); });
  CHECK_THROWS_AS(wrong_dimension.expression(), std::logic_error);
}

TEST_CASE("clamp puts the tails into atoms at the ends", "[sim]") {
  const auto law = sim::parse_law("clamp(gaussian(0.3, 1), lo=0, hi=1)");
  const auto atoms = law->atoms();
  REQUIRE(atoms.size() == 2);
  CHECK(std::exp(atoms[0].log_mass) == Approx(0.5 * std::erfc(0.3 / std::numbers::sqrt2)).epsilon(1e-14));
  CHECK(std::exp(atoms[1].log_mass) == Approx(0.5 * std::erfc(0.7 / std::numbers::sqrt2)).epsilon(1e-14));
  CHECK(law->log_density(0.5) == Approx(-0.02 - 0.5 * std::log(2 * std::numbers::pi)).epsilon(1e-15));
  CHECK(law->log_density(1.5) == -std::numeric_limits<double>::infinity());
}

TEST_CASE("expressions round-trip through expression()", "[sim]") {
  for (const char* e : {"gaussian(1, 2)", "laplace_sum(1, [1, 2])", "mix(0.01, gaussian(0,1), gaussian(1,1))",
                        "clamp(laplace(0.2, 1), 0, 1)", "pmf([0.25, 0.75])", "gaussian_nd([1, 2], 3)",
                        "grid(0, 0.5, [0, 1, 0], [2], [0.5])"}) {
    const auto a = sim::parse_law(e);
    const auto b = sim::parse_law(a->expression());
    CHECK(a->expression() == b->expression());
  }
}
