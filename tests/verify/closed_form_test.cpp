// Closed forms and the quadrature engine against 50-digit references, over grids that include the edges:
// α ∈ {1+1e-9, 1.5, 2, 64, 1e4}, ε ∈ {0, 1e-9, 1, 50, 500} (δ from O(1) down to e^{-1e8}), q ∈ {1e-6, 0.5, 0.999}.
#include <cmath>
#include <limits>
#include <random>

#include <boost/math/special_functions/binomial.hpp>
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "sim/language/expression.hpp"
#include "support/check.hpp"
#include "support/reference.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/divergence/closed_form.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;
using test::Real50;
using verify::Quantity;

namespace {

const double kAlphas[] = {1 + 1e-9, 1.5, 2, 64, 1e4};
const double kEpsilons[] = {0, 1e-9, 1, 50, 500};

// Balle–Wang at 50 digits: Φ(a) − e^ε Φ(b), returned as (value, log value).
std::pair<double, double> gaussian_hs50(double delta, double sigma, double eps) {
  const Real50 d(delta), s(sigma), e(eps);
  const Real50 a = d / (2 * s) - e * s / d, b = -d / (2 * s) - e * s / d;
  const Real50 la = test::log_normal_cdf50(a), lb = test::log_normal_cdf50(b);
  const Real50 log_v = la + log(-expm1(e + lb - la));
  return {static_cast<double>(exp(log_v)), static_cast<double>(log_v)};
}

double laplace_renyi50(double delta, double b, double alpha) {
  const Real50 z = Real50(delta) / b, a(alpha);
  const Real50 g = a / (2 * a - 1) * exp(z * (a - 1)) + (a - 1) / (2 * a - 1) * exp(-z * a);
  return static_cast<double>(log(g) / (a - 1));
}

verify::Estimate quadrature(const std::string& p, const std::string& q, const Quantity& quantity) {
  verify::DivergenceOptions o;
  o.engine = verify::Engine::quadrature;
  return verify::compute_divergence(*sim::parse_law(p), *sim::parse_law(q), quantity, o);
}

}  // namespace

TEST_CASE("GT.gauss.hs: closed form and quadrature contain the 50-digit value, down to e^-1e8", "[verify][closed]") {
  for (double delta : {0.1, 1.0, 5.0}) {
    for (double sigma : {0.5, 3.0}) {
      for (double eps : kEpsilons) {
        const auto [truth, log_truth] = gaussian_hs50(delta, sigma, eps);
        const auto cf = verify::gaussian_hockey_stick(delta, sigma, eps);
        const auto qd = quadrature(fmt::format("gaussian({}, {})", delta, sigma), fmt::format("gaussian(0, {})", sigma),
                                   Quantity::hockey_stick(eps));
        INFO("delta " << delta << " sigma " << sigma << " eps " << eps << " log truth " << log_truth);
        INFO(test::describe(cf));
        INFO(test::describe(qd));
        CHECK(test::covers(cf, truth, log_truth));
        CHECK(test::covers(qd, truth, log_truth));
        CHECK(std::isfinite(cf.log_value()));  // never a silent 0: the log is finite whenever δ > 0
        CHECK(std::isfinite(qd.log_value()));
        CHECK(std::fabs(cf.log_value() - log_truth) < 1e-9 * std::max(1.0, std::fabs(log_truth)));
      }
    }
  }
}

TEST_CASE("GT.gauss.hs over its whole domain: 600 random points against 50 digits, the far tail's edge included",
          "[verify][closed]") {
  // a = Δ/2σ − εσ/Δ spans [−1e4, Δ/2σ]: every branch of the closed form (erf at ε = 0, the small-Δ midpoint rule,
  // the general log-space route, and the Mills-ratio series beyond a = −100, whose first terms matter most just past
  // −100). Each interval must contain the reference and be narrow (a widened or shifted interval is caught).
  std::mt19937_64 rng(48);
  std::uniform_real_distribution<double> unit(0, 1);
  const auto log_uniform = [&](double lo, double hi) { return std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * unit(rng)); };
  int far = 0;
  for (int i = 0; i < 600; ++i) {
    const double sigma = log_uniform(0.1, 10), u = log_uniform(1e-3, 30);
    const double a = i % 3 == 0 ? -100 - log_uniform(1e-3, 50)  // just past the switch to the series
                     : i % 3 == 1 ? -log_uniform(1e-2, 1e4)
                                  : u * unit(rng);  // a ∈ [0, u]
    const double delta = 2 * u * sigma, eps = i % 50 == 0 ? 0.0 : (u - a) * 2 * u;
    far += u - eps * sigma / delta < -100;
    const auto [truth, log_truth] = gaussian_hs50(delta, sigma, eps);
    const auto cf = verify::gaussian_hockey_stick(delta, sigma, eps);
    INFO(fmt::format("gaussian_hockey_stick({:.17g}, {:.17g}, {:.17g}): a = {:.6g}, log truth {:.17g}", delta, sigma, eps, a, log_truth));
    INFO(test::describe(cf));
    CHECK(test::covers(cf, truth, log_truth));
    if (std::isfinite(cf.log_lower()) && std::isfinite(log_truth))
      CHECK(cf.log_upper() - cf.log_lower() <= 1e-7 * std::max(1.0, std::fabs(log_truth)));
    else
      CHECK(cf.upper - cf.lower <= 1e-9 * std::max(truth, 1e-300));
  }
  CHECK(far >= 200);
}

TEST_CASE("GT.lap KL on both sides of its series branch against 50 digits", "[verify][closed]") {
  // Below z = Δ/b = 1e-3 the KL z − 1 + e^{−z} is a series whose last kept term, z^5/120, is 2e-11 of the value at
  // the switch: a dropped term moves the value far outside its bar of a few 1e-21 (a mutant that passed every test).
  for (const double z : {1e-7, 1e-5, 3e-4, 7e-4, 9.99e-4, 1.001e-3, 0.02, 3.0}) {
    const Real50 zz(z);
    const Real50 truth = zz - 1 + exp(-zz);
    const auto e = verify::laplace_kl(z, 1.0);
    INFO("z = " << z << ": " << test::describe(e) << "; truth " << static_cast<double>(truth));
    CHECK(Real50(e.lower) <= truth);
    CHECK(truth <= Real50(e.upper));
    CHECK(e.upper - e.lower <= (z < 1e-3 ? 1e-13 : 1e-7) * static_cast<double>(truth));  // the subtraction loses digits
  }
}

TEST_CASE("GT.gauss.renyi and KL: quadrature contains the closed form at every edge order", "[verify][closed]") {
  for (double delta : {0.1, 1.0, 5.0}) {
    for (double alpha : kAlphas) {
      const auto cf = verify::gaussian_renyi(delta, 1.0, alpha);
      const auto qd = quadrature(fmt::format("gaussian({}, 1)", delta), "gaussian(0, 1)", Quantity::renyi(alpha));
      INFO("delta " << delta << " alpha " << alpha << " " << test::describe(qd));
      CHECK(qd.lower <= cf.value);
      CHECK(cf.value <= qd.upper);
      CHECK(qd.abs_error() < 1e-6 * cf.value);
    }
    const auto kl = quadrature(fmt::format("gaussian({}, 1)", delta), "gaussian(0, 1)", Quantity::kl());
    CHECK(kl.contains(delta * delta / 2));
  }
}

TEST_CASE("GT.lap.renyi and GT.lap.hs: closed form and quadrature against 50 digits", "[verify][closed]") {
  for (double delta : {0.01, 1.0, 20.0}) {
    for (double alpha : kAlphas) {
      const double truth = laplace_renyi50(delta, 1.0, alpha);
      const auto cf = verify::laplace_renyi(delta, 1.0, alpha);
      const auto qd = quadrature(fmt::format("laplace({}, 1)", delta), "laplace(0, 1)", Quantity::renyi(alpha));
      INFO("delta " << delta << " alpha " << alpha << " truth " << truth << "\n" << test::describe(cf) << "\n" << test::describe(qd));
      CHECK(cf.contains(truth));
      CHECK(qd.contains(truth));
      CHECK(qd.abs_error() < 1e-8 * truth);
    }
    for (double eps : kEpsilons) {
      const double z = delta;
      const double truth = eps < z ? -std::expm1((eps - z) / 2) : 0.0;
      const auto cf = verify::laplace_hockey_stick(delta, 1.0, eps);
      const auto qd = quadrature(fmt::format("laplace({}, 1)", delta), "laplace(0, 1)", Quantity::hockey_stick(eps));
      INFO("delta " << delta << " eps " << eps);
      CHECK(cf.contains(truth));
      CHECK(qd.contains(truth));
    }
    const auto rinf = quadrature(fmt::format("laplace({}, 1)", delta), "laplace(0, 1)", Quantity::renyi_inf());
    CHECK(rinf.contains(delta));
  }
}

TEST_CASE("GT.sgm.renyi: closed form and quadrature against a 50-digit binomial sum", "[verify][closed]") {
  for (double q : {1e-6, 0.5, 0.999}) {
    for (long alpha : {2L, 3L, 10L, 64L, 256L}) {
      Real50 sum = 0;
      for (long k = 0; k <= alpha; ++k) {
        const Real50 kk(k);
        sum += boost::math::binomial_coefficient<Real50>(static_cast<unsigned>(alpha), static_cast<unsigned>(k)) *
               pow(Real50(1) - Real50(q), alpha - k) * pow(Real50(q), k) * exp((kk * kk - kk) / 2);
      }
      const double truth = static_cast<double>(log(sum) / (alpha - 1));
      const std::string p = fmt::format("mix({}, gaussian(0, 1), gaussian(1, 1))", q);
      const auto cf = verify::compute_divergence(*sim::parse_law(p), *sim::parse_law("gaussian(0,1)"),
                                                 Quantity::renyi(static_cast<double>(alpha)));
      const auto qd = quadrature(p, "gaussian(0, 1)", Quantity::renyi(static_cast<double>(alpha)));
      INFO("q " << q << " alpha " << alpha << " truth " << truth << "\n" << test::describe(cf) << "\n" << test::describe(qd));
      CHECK(cf.method == "closed form GT.sgm.renyi");
      CHECK(cf.contains(truth));
      CHECK(qd.contains(truth));
      CHECK(test::near_rel(cf.value, truth, 1e-13));
    }
  }
}

TEST_CASE("isotropic Gaussians in R^d: the numerical engines on the line through the means contain the closed form",
          "[verify][closed]") {
  // The second route of the d-dimensional cases (E4 in R^3, C7 in R^2): quadrature and GSL on the reduced pair.
  using verify::Quantity;
  const std::vector<Quantity> qs = {Quantity::renyi(2), Quantity::renyi(10.5), Quantity::kl(), Quantity::tv(),
                                    Quantity::hockey_stick(0.5)};
  for (const char* pair : {"[0.3, -0.4, 1.2]|[0, 0, 0]", "[1e-3, 2e-3]|[0, 0]", "[5, 0, 0, 0]|[0, 0, 1, 0]"}) {
    const std::string s = pair;
    const std::string a = s.substr(0, s.find('|')), b = s.substr(s.find('|') + 1);
    const auto mu = sim::parse_law("gaussian_nd(loc=" + a + ", sigma=0.7)");
    const auto nu = sim::parse_law("gaussian_nd(loc=" + b + ", sigma=0.7)");
    const auto exact = verify::compute_divergences(*mu, *nu, qs);
    for (auto engine : {verify::Engine::quadrature, verify::Engine::gsl}) {
      // (GSL cannot reach its 1e-8 target at Δ/σ ~ 1e-3, where every quantity is tiny: it fails loudly there.)
      // (GSL also fails loudly on R_10.5 at Δ/σ = 7.3, a roundoff limit of QAGIU: it is checked on the first pair.)
      if (engine == verify::Engine::gsl && s.find("0.3") == std::string::npos) continue;
      verify::DivergenceOptions o;
      o.engine = engine;
      const auto route = verify::compute_divergences(*mu, *nu, qs, o);
      for (std::size_t i = 0; i < qs.size(); ++i) {
        INFO(pair << " " << qs[i].label() << " " << verify::to_string(engine) << " closed " << exact[i].value << " route ["
                  << route[i].lower << ", " << route[i].upper << "]");
        CHECK(route[i].method.find("reduced") != std::string::npos);
        CHECK(route[i].lower <= exact[i].upper);
        CHECK(exact[i].lower <= route[i].upper);
        // (plus one subnormal step: an interval around an underflowed value cannot be narrower)
        CHECK(route[i].upper - route[i].lower <= 1e-6 * exact[i].value + std::numeric_limits<double>::denorm_min());
      }
    }
  }
  // Unequal sigma in d > 1 has no route: refused with the reason.
  verify::DivergenceOptions o;
  o.engine = verify::Engine::quadrature;
  CHECK_THROWS_WITH(verify::compute_divergence(*sim::parse_law("gaussian_nd(loc=[0, 1], sigma=1)"),
                                               *sim::parse_law("gaussian_nd(loc=[0, 0], sigma=2)"), Quantity::renyi(2), o),
                    Catch::Contains("no engine"));
}

TEST_CASE("subsampled Gaussian hockey-stick by its monotone loss: both directions within the certified enclosures",
          "[verify][closed]") {
  for (double q : {1e-4, 0.01, 0.3, 0.9})
    for (double sigma : {0.5, 1.0, 4.0})
      for (double eps : {0.0, 0.004, 0.3, 1.0, 3.0, 12.0})
        for (bool add : {true, false}) {
          const std::string mix = fmt::format("mix(q={}, gaussian(0,{}), gaussian(1,{}))", q, sigma, sigma);
          const std::string base = fmt::format("gaussian(0,{})", sigma);
          const auto p = sim::parse_law(add ? mix : base), n = sim::parse_law(add ? base : mix);
          const Quantity quantity = Quantity::hockey_stick(eps);
          INFO(p->expression() << " || " << n->expression() << " " << quantity.label());
          const auto closed = verify::closed_form(*p, *n, quantity);
          REQUIRE(closed);
          CHECK_THAT(closed->method, Catch::Contains("monotone loss"));
          verify::DivergenceOptions o;
          o.engine = verify::Engine::certified;
          const auto cert = verify::compute_divergence(*p, *n, quantity, o);
          INFO(test::describe(*closed) << " vs " << test::describe(cert));
          if (cert.log_upper() == -std::numeric_limits<double>::infinity()) {  // exactly 0
            CHECK(closed->upper == 0);
            CHECK(closed->log_upper() == -std::numeric_limits<double>::infinity());
            continue;
          }
          if (cert.upper < 1e-290) {  // below the double range: the logs
            CHECK(closed->log_lower() <= cert.log_upper() + 1e-12 * std::fabs(cert.log_upper()));
            CHECK(cert.log_lower() <= closed->log_upper() + 1e-12 * std::fabs(cert.log_upper()));
            CHECK(closed->log_upper() - closed->log_lower() <= 1e-9 * std::fabs(closed->log_value()));
            continue;
          }
          CHECK(closed->lower <= cert.upper * (1 + 1e-12));
          CHECK(cert.lower <= closed->upper * (1 + 1e-12));
          CHECK(closed->upper - closed->lower <= 1e-8 * closed->value);  // far levels: the level's rounding, amplified
        }
}

TEST_CASE("SHUF.cor: the exact bracket of eps(delta) contains 50-digit references", "[verify][closed_form]") {
  // tests/audit/shuffled_epsilon_reference.py: exact binomial sums in mpmath, bisection to 1e-30.
  struct Point {
    double n, eps0, delta, reference;
  };
  const Point points[] = {{1000, 1, 1e-6, 0.1266144809608783647261094},
                          {1000, 2, 1e-10, 0.4982163843044453803546441},
                          {3000, 0.7, 1e-8, 0.05969786262301701486479562}};
  const verify::BoundEntry& entry = verify::find_bound("SHUF.cor");
  REQUIRE(entry.value());
  for (const Point& pt : points) {
    verify::Params p;
    p.numbers = {{"n", pt.n}, {"eps0", pt.eps0}, {"delta", pt.delta}};
    const verify::Estimate e = entry.value()->exact(p);
    INFO(p.describe() << ": " << test::describe(e) << ", reference " << pt.reference);
    CHECK(e.error_kind == verify::ErrorKind::exact);
    CHECK(e.lower <= pt.reference);
    CHECK(e.upper >= pt.reference);
    CHECK(e.upper - e.lower <= 1e-9);
  }
}

TEST_CASE("GT.sgm.renyi below the double range keeps its log, not an exact 0", "[verify][closed]") {
  // q = 1e-170: R_2 = log1p(q^2 (e - 1)) ~ 1.7e-340. Reference (mpmath, 50 digits, log(log1p(q*q*(e-1)))):
  // -782.33760676336261445713873823775116028625148404047; R_3 = log1p(3q^2(1-q)(e-1) + q^3(e^3-1))/2, whose log is
  // log(1.5 q^2 (e - 1)) to a relative q.
  const verify::Estimate r2 = verify::subsampled_gaussian_renyi(1e-170, 1, 1, 2);
  CHECK(r2.error_kind == verify::ErrorKind::exact);
  CHECK(r2.log_lower() <= -782.33760676336261);
  CHECK(r2.log_upper() >= -782.33760676336261);
  CHECK(r2.log_upper() - r2.log_lower() < 1e-9);
  const verify::Estimate r3 = verify::subsampled_gaussian_renyi(1e-170, 1, 1, 3);
  const double ref3 = std::log(1.5) + 2 * std::log(1e-170) + std::log(std::expm1(1.0));
  CHECK(std::fabs(r3.log_value() - ref3) < 1e-12 * std::fabs(ref3));
  // Where J is just above the switch (q = 1e-6: J ~ 1.7e-12) the linear route still holds 12 digits.
  const verify::Estimate small = verify::subsampled_gaussian_renyi(1e-6, 1, 1, 2);
  CHECK(small.lower <= std::log1p(1e-12 * std::expm1(1.0)));
  CHECK(small.upper >= std::log1p(1e-12 * std::expm1(1.0)));
}

TEST_CASE("KL of Gaussians of unequal variance beyond the double range: its log, not an internal NaN", "[verify][closed]") {
  // References: mpmath at 40 digits of log((r^2 - 1 - 2 log r)/2 + (m1 - m2)^2/(2 s2^2)), r = s1/s2.
  struct Point {
    const char* mu;
    const char* nu;
    double log_kl;
  };
  for (const Point& t : {Point{"gaussian(0, 1e308)", "gaussian(0, 1)", 1417.699270103772196045665503964110175314},
                         Point{"gaussian(1e200, 1)", "gaussian(0, 2)", 918.9545956559384376789448855093711533362},
                         Point{"gaussian(0, 1e150)", "gaussian(0, 1)", 690.0823807176537598959802042838510857123},
                         Point{"gaussian(0, 1e131)", "gaussian(0, 1)", 602.5841471838800239032965290058452458234}}) {
    const verify::Estimate e = verify::compute_divergence(*sim::parse_law(t.mu), *sim::parse_law(t.nu), Quantity::kl());
    INFO(t.mu << " || " << t.nu << ": log interval [" << e.log_lower() << ", " << e.log_upper() << "]");
    CHECK(e.error_kind == verify::ErrorKind::exact);
    CHECK(e.log_lower() <= t.log_kl);
    CHECK(e.log_upper() >= t.log_kl);
    CHECK(e.log_upper() - e.log_lower() < 1e-9 * t.log_kl);
  }
}

TEST_CASE("Gaussians whose means' difference overflows a double: the divergences in logs, TV just below 1", "[verify][closed]") {
  // N(1e308, 1) against N(-1e308, 1): Δ = 2e308 is inf in a double, which reached the closed form as an internal
  // "'delta' = inf" refusal. Halving both Δ and σ is exact, and R_α = αΔ²/(2σ²), KL = Δ²/(2σ²) have logs
  // log(α/2) + 2 log Δ − 2 log σ computed here independently (log 2e308 = log 2 + log 1e308).
  const auto mu = sim::parse_law("gaussian(1e308, 1)"), nu = sim::parse_law("gaussian(-1e308, 1)");
  const double log_delta = std::log(2.0) + std::log(1e308);
  for (const double alpha : {2.0, 7.5}) {
    const auto e = verify::compute_divergence(*mu, *nu, Quantity::renyi(alpha), {});
    INFO(test::describe(e));
    CHECK(e.error_kind == verify::ErrorKind::exact);
    const double expected = std::log(alpha / 2) + 2 * log_delta;
    CHECK(e.log_lower() <= expected + 1e-12 * expected);
    CHECK(expected - 1e-12 * expected <= e.log_upper());
  }
  const auto kl = verify::compute_divergence(*mu, *nu, Quantity::kl(), {});
  CHECK(std::fabs(kl.log_value() - (2 * log_delta - std::log(2.0))) <= 1e-12 * 1420);
  // TV = 2Φ(1e308) − 1 is below 1 by less than e^{-1e299}: the interval holds it, so it does not end at 1 on both sides.
  for (const Quantity& q : {Quantity::tv(), Quantity::hockey_stick(5)}) {
    const auto e = verify::compute_divergence(*mu, *nu, q, {});
    INFO(test::describe(e));
    CHECK(e.upper == 1);
    CHECK(e.lower < 1);
    CHECK(e.lower >= 1 - 1e-15);
  }
}

TEST_CASE("subnormal shifts: the closed forms keep their digits in logs, inside the certified engine's enclosures", "[verify][closed]") {
  // Δ = 5e-324 printed TV = 0 labelled exact, 1e-320 an exact interval outside the truth (the quotient Δ/σ of a
  // subnormal keeps few digits), a Laplace KL at 1e-320 an exact 0, a subsampled Gaussian's R_2 an internal NaN.
  // The certified engine (Arb, another route) encloses each; the closed form must lie inside it and be narrow.
  verify::DivergenceOptions certified;
  certified.engine = verify::Engine::certified;
  const std::vector<std::tuple<std::string, std::string, Quantity>> pairs = {
      {"gaussian(5e-324, 1)", "gaussian(0, 1)", Quantity::tv()},
      {"gaussian(1e-322, 1)", "gaussian(0, 1)", Quantity::tv()},
      {"gaussian(1e-320, 1)", "gaussian(0, 1)", Quantity::tv()},
      {"gaussian(1e-320, 1)", "gaussian(0, 1)", Quantity::renyi(2)},
      {"gaussian(1e-320, 1e-300)", "gaussian(0, 1e-300)", Quantity::kl()},
      {"laplace(1e-320, 1)", "laplace(0, 1)", Quantity::kl()},
      {"mix(q=0.5, gaussian(0, 1), gaussian(1e-320, 1))", "gaussian(0, 1)", Quantity::renyi(2)},
  };
  for (const auto& [p, q, quantity] : pairs) {
    const auto mu = sim::parse_law(p), nu = sim::parse_law(q);
    const auto e = verify::compute_divergence(*mu, *nu, quantity, {});
    const auto c = verify::compute_divergence(*mu, *nu, quantity, certified);
    INFO(p << " || " << q << " " << quantity.label() << ": " << test::describe(e) << " against " << test::describe(c));
    CHECK(e.error_kind == verify::ErrorKind::exact);
    REQUIRE(std::isfinite(e.log_value()));
    CHECK(e.log_value() >= c.log_lower() - 1e-12 * std::fabs(c.log_lower()));
    CHECK(e.log_value() <= c.log_upper() + 1e-12 * std::fabs(c.log_upper()));
    CHECK(e.log_upper() - e.log_lower() < 1e-6);
  }
  // The certified Laplace KL at 1e-320 is wide (about e^±5), so it cannot see a lost factor 2: the log branch must
  // also meet the series branch (checked against 50 digits elsewhere) at its edge, z = 1e-100: KL ∝ z² across it.
  const auto kl_at = [](double z) {
    return verify::compute_divergence(*sim::parse_law(fmt::format("laplace({}, 1)", z)), *sim::parse_law("laplace(0, 1)"),
                                      Quantity::kl(), {}).log_value();
  };
  const double below = 0.99e-100, above = 1.01e-100;
  CHECK(std::fabs((kl_at(above) - kl_at(below)) - 2 * std::log(above / below)) < 1e-9);
}
