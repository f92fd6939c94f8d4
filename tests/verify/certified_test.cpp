// The certified engine (Arb ball arithmetic): enclosures that contain references computed independently (mpmath
// quadrature at 50 digits split around the log-integrand's maximum and checked with a second splitting; the
// subsampled Gaussian's hockey-stick from its single crossing and erfc; chains in exact rationals:
// tests/audit/certified_references.py), orderings that must hold over dense grids of orders, honest refusals, and
// the ordering checks of one call.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/language/expression.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/mixture.hpp"
#include "support/check.hpp"
#include "verify/api/api.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/consistency.hpp"
#include "verify/divergence/contour.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;
using verify::Quantity;

namespace {

verify::Estimate certified(const std::string& mu, const std::string& nu, const Quantity& q) {
  verify::DivergenceOptions o;
  o.engine = verify::Engine::certified;
  return verify::compute_divergence(*sim::parse_law(mu), *sim::parse_law(nu), q, o);
}

std::string mix_gauss(double q, double s) { return fmt::format("mix(q={}, gaussian(0,{}), gaussian(1,{}))", q, s, s); }
std::string mix_laplace(double q, double b) { return fmt::format("mix(q={}, laplace(0,{}), laplace(1,{}))", q, b, b); }

struct CertifiedReference {
  std::string mu, nu;
  Quantity quantity;
  double value;      // 0 when the value is below the double range: then log_value
  double log_value;  // natural log of the reference
};

}  // namespace

TEST_CASE("certified: enclosures contain independent references at new points", "[verify][certified]") {
  const std::string chain = "K=[[0.9,0.1,0],[0,0.9,0.1],[0.1,0,0.9]]";
  auto chain_at = [&](const char* mu, int t) { return fmt::format("chain({}, mu={}, t={})", chain, mu, t); };
  const std::vector<CertifiedReference> table = {
      // Poisson-subsampled Gaussian at non-integer orders in the tilted-mode window (the mass sits near α·Δ).
      {mix_gauss(0.002, 3), "gaussian(0,3)", Quantity::renyi(37.3), 8.843242421413045413e-06, 0},
      {mix_gauss(0.002, 3), "gaussian(0,3)", Quantity::renyi(88.8), 2.132618496738213616e-05, 0},
      {mix_gauss(0.002, 3), "gaussian(0,3)", Quantity::renyi(150.25), 2.091006763199805209, 0},
      {mix_gauss(0.02, 6), "gaussian(0,6)", Quantity::renyi(211.7), 0.001358627017890789394, 0},
      {mix_gauss(0.02, 6), "gaussian(0,6)", Quantity::renyi(333.3), 0.7102882803658444228, 0},
      {mix_gauss(0.05, 8), "gaussian(0,8)", Quantity::renyi(512), 1.005047222101695595, 0},
      {mix_gauss(0.001, 2), "gaussian(0,2)", Quantity::renyi(57.37), 0.1417328005257937539, 0},
      {mix_gauss(0.001, 2), "gaussian(0,2)", Quantity::kl(), 1.419686140979994383e-07, 0},
      // Poisson-subsampled Laplace.
      {mix_laplace(0.01, 1), "laplace(0,1)", Quantity::renyi(2.5), 0.0001073369791639759159, 0},
      {mix_laplace(0.01, 1), "laplace(0,1)", Quantity::renyi(10.5), 0.0004626924672789965617, 0},
      {mix_laplace(0.01, 1), "laplace(0,1)", Quantity::renyi(40.7), 0.001949313770206301751, 0},
      {mix_laplace(0.2, 0.5), "laplace(0,0.5)", Quantity::renyi(3.3), 0.2747302372457677127, 0},
      {mix_laplace(0.2, 0.5), "laplace(0,0.5)", Quantity::kl(), 0.06188579748002589201, 0},
      // Hockey-stick far below the double range, and in it.
      {"mix(q=0.3, gaussian(0,0.5), gaussian(2,0.5))", "gaussian(0,0.5)", Quantity::hockey_stick(900), 0,
       -24943.23825408602931},
      {"mix(q=0.3, gaussian(0,0.5), gaussian(2,0.5))", "gaussian(0,0.5)", Quantity::hockey_stick(2), 0.2484514907926015403, 0},
      {"mix(q=0.3, gaussian(0,0.5), gaussian(2,0.5))", "gaussian(0,0.5)", Quantity::tv(), 0.2863499208310924651, 0},
      // Finite chains below the double range (exact rationals; the laws normalised, as privamp holds them: the rows of
      // K as doubles sum to 1 + 2.8e-17).
      {chain_at("[1,0,0]", 2500), chain_at("[0,1,0]", 2500), Quantity::renyi(2), 0, -784.98510263002256517},
      {chain_at("[1,0,0]", 2500), chain_at("[0,1,0]", 2500), Quantity::kl(), 0, -785.67824981058251048},
      {chain_at("[1,0,0]", 2500), chain_at("[0,1,0]", 2500), Quantity::tv(), 0, -393.25042949757193827},
      {chain_at("[1,0,0]", 5000), chain_at("[0,1,0]", 5000), Quantity::tv(), 0, -786.68111777336819538},
      {chain_at("[1,0,0]", 5000), chain_at("[0,1,0]", 5000), Quantity::renyi(2), 0, -1571.7619647292731853},
      // A clamp: atoms at the ends plus the density; the supremum at an end.
      {"clamp(gaussian(0.3,1), lo=0, hi=1)", "clamp(gaussian(0,1), lo=0, hi=1)", Quantity::renyi(2), 0.07516756737098076967, 0},
      {"clamp(gaussian(0.3,1), lo=0, hi=1)", "clamp(gaussian(0,1), lo=0, hi=1)", Quantity::kl(), 0.03701463628954663324, 0},
      {"clamp(gaussian(0.3,1), lo=0, hi=1)", "clamp(gaussian(0,1), lo=0, hi=1)", Quantity::tv(), 0.1192353847404850315, 0},
      {"clamp(gaussian(0.3,1), lo=0, hi=1)", "clamp(gaussian(0,1), lo=0, hi=1)", Quantity::renyi_inf(), 0.4220538834777318548, 0},
      // Sums of Laplaces (partial fractions; the n-fold polynomial), against densities convolved by hand
      // (tests/audit/laplace_sum_references.py); the audit table holds rows up to n = 50 and three scales.
      {"laplace_sum(0.7, [0.4, 1.3])", "laplace_sum(0, [0.4, 1.3])", Quantity::renyi(2.7), 0.2233382359316841631395, 0},
      {"laplace_sum(0.7, [0.4, 1.3])", "laplace_sum(0, [0.4, 1.3])", Quantity::kl(), 0.09195736806403767746419, 0},
      {"laplace_sum(0.7, [0.4, 1.3])", "laplace_sum(0, [0.4, 1.3])", Quantity::hockey_stick(0.35), 0.05748280394141586111765, 0},
      {"laplace_sum(-1.9, [0.8, 0.8])", "laplace_sum(0, [0.8, 0.8])", Quantity::renyi(5.5), 1.583738054470112773333, 0},
      {"laplace_sum(-1.9, [0.8, 0.8])", "laplace_sum(0, [0.8, 0.8])", Quantity::kl(), 0.7428523617852264338329, 0},
      {"laplace_sum(-1.9, [0.8, 0.8])", "laplace_sum(0, [0.8, 0.8])", Quantity::hockey_stick(1.1), 0.1949511611305573065467, 0},
  };
  for (const CertifiedReference& r : table) {
    INFO(r.mu << " || " << r.nu << " " << r.quantity.label());
    const verify::Estimate e = certified(r.mu, r.nu, r.quantity);
    INFO(test::describe(e));
    CHECK(e.error_kind == verify::ErrorKind::certified);
    const double value = r.value > 0 ? r.value : std::exp(r.log_value);  // 0 below the double range
    const double log_ref = r.value > 0 ? std::log(r.value) : r.log_value;
    if (r.value > 0) {
      CHECK(test::covers(e, value, log_ref));
    } else {  // given by its log: compared in logs, within the log's own rounding to a double
      const double slack = 4e-16 * std::fabs(log_ref);
      CHECK(e.log_lower() <= log_ref + slack);
      CHECK(log_ref - slack <= e.log_upper());
    }
    // Not vacuous: relative width below 1e-9 (the weights' last place limits some), or 1e-12 in logs.
    if (value > 0) CHECK(e.upper - e.lower <= 1e-9 * value);
    else CHECK(e.log_upper() - e.log_lower() <= 1e-12 * std::fabs(r.log_value));
  }
}

TEST_CASE("certified: R_alpha of the subsampled Gaussian is non-decreasing over 120 orders", "[verify][certified]") {
  std::vector<Quantity> qs;
  for (int i = 0; i < 120; ++i) qs.push_back(Quantity::renyi(2 + 4.3 * i + 0.37 * (i % 3)));
  verify::DivergenceOptions o;
  o.engine = verify::Engine::certified;
  const auto p = sim::parse_law("subsample(scheme=poisson, base=gaussian, q=0.00189, sigma=5.29, side=1)");
  const auto q = sim::parse_law("subsample(scheme=poisson, base=gaussian, q=0.00189, sigma=5.29, side=0)");
  const auto values = verify::compute_divergences(*p, *q, qs, o);
  const auto violations = verify::ordering_violations(qs, values);
  for (std::size_t i = 0; i < qs.size(); ++i) {
    INFO(qs[i].label() << ": " << test::describe(values[i]));
    CHECK_FALSE(violations[i]);
    if (i > 0) CHECK(values[i].upper >= values[i - 1].lower);
  }
  // The quadrature (tilted-mode anchors) agrees with every enclosure.
  o.engine = verify::Engine::quadrature;
  const auto fast = verify::compute_divergences(*p, *q, qs, o);
  for (std::size_t i = 0; i < qs.size(); ++i) {
    INFO(qs[i].label() << ": certified " << test::describe(values[i]) << "; quadrature " << test::describe(fast[i]));
    CHECK(fast[i].lower <= values[i].upper * (1 + 1e-12));
    CHECK(values[i].lower <= fast[i].upper * (1 + 1e-12));
  }
}

TEST_CASE("certified: laws without an exact form are refused with the reason", "[verify][certified]") {
  auto refusal = [](const std::string& mu, const std::string& nu) {
    return verify::certified_refusal(*sim::parse_law(mu), *sim::parse_law(nu)).value_or("(covered)");
  };
  CHECK_THAT(refusal("density(log_pdf=\"-abs(x)^1.5\")", "laplace(0, 1)"), Catch::Contains("no exact form"));
  CHECK(refusal("laplace_sum(1, [1, 1])", "laplace_sum(0, [1, 1])") == "(covered)");
  // R_inf of a Laplace sum (a supremum at infinity) and Renyi orders above 1024 of one are refused, not guessed.
  CHECK_THROWS_WITH(certified("laplace_sum(1, [1, 2])", "laplace_sum(0, [1, 2])", Quantity::renyi_inf()), Catch::Contains("R_inf of a Laplace sum"));
  CHECK_THROWS_WITH(certified("laplace_nfold(n=3, loc=1)", "laplace_nfold(n=3)", Quantity::renyi(1300)), Catch::Contains("above 1024"));
  CHECK_THAT(refusal("double_well(x0=1, t=0.5)", "double_well(x0=-1, t=0.5)"), Catch::Contains("computed by discretised generator"));
  CHECK_THAT(refusal("shuffled_rr(n=100, eps0=1, first=1)", "shuffled_rr(n=100, eps0=1)"), Catch::Contains("floating point"));
  CHECK(refusal("subsample(scheme=poisson, base=laplace, q=0.1, side=1)", "subsample(scheme=poisson, base=laplace, q=0.1, side=0)") ==
        "(covered)");
  // A tail the bounds cannot integrate (a wider component in a mixture): refused, not guessed.
  CHECK_THROWS_WITH(certified("mix(q=0.5, gaussian(0,1), gaussian(0,3))", "gaussian(0,2)", Quantity::renyi(2)),
                    Catch::Contains("tail could not be bounded"));
  // One piece each: the same divergence is certified infinite.
  CHECK(std::isinf(certified("gaussian(0,3)", "gaussian(0,2)", Quantity::renyi(2)).value));
  // Partial fractions cancelling by more than 3e5 (four scales 1% apart, K = 1.3e6) are refused when read, not after
  // the subdivision budget (30 s); at 1.8e5 (four scales 2% apart) the enclosure closes.
  const char* close4 = "[1, 1.0101, 1.02030201, 1.030604]";
  CHECK_THAT(refusal(fmt::format("laplace_sum(0.3, {})", close4), fmt::format("laplace_sum(0, {})", close4)),
             Catch::Contains("partial fractions cancel by a factor of about 1.3e+06"));
  CHECK(refusal("laplace_sum(0.3, [1, 1.02, 1.04, 1.06])", "laplace_sum(0, [1, 1.02, 1.04, 1.06])") == "(covered)");
}

TEST_CASE("certified: a mixture's weights come from their exact source, a binomial carried by a plan", "[verify][certified]") {
  // Bin(3, 0.4) = (0.216, 0.432, 0.288, 0.064) with atom 1 moved half to 0 and half to 2 (fractions 1 and 1, which
  // the engine normalises): weights 0.432, 0.504, 0.064 on the centres 0, 2, 3. The stored doubles are off by 1e-3
  // on purpose, so an engine reading them instead of the plan misses the reference.
  auto gauss = [](double m) {
    auto g = std::make_shared<sim::Gaussian>(m, 1.0);
    g->set_parameters_exact();
    return g;
  };
  auto moved = std::make_shared<sim::Mixture>(std::vector<double>{0.433, 0.503, 0.064},
                                              std::vector<sim::LawPtr>{gauss(0), gauss(2), gauss(3)});
  moved->set_binomial_weights({3, 0.4, {{0, 0, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}, {2, 1, 1.0}, {3, 2, 1.0}}});
  const auto nu = sim::parse_law("binomial_mix(m=3, p=0.3, law=gaussian(0, 1))");
  const auto exact_weights = sim::parse_law("mixture(weights=[0.432, 0.504, 0.064], laws=[gaussian(0, 1), gaussian(2, 1), gaussian(3, 1)])");
  for (const Quantity& q : {Quantity::renyi(2), Quantity::renyi(7.5), Quantity::kl(), Quantity::hockey_stick(0.5)}) {
    verify::DivergenceOptions o;
    o.engine = verify::Engine::certified;
    const auto c = verify::compute_divergence(*moved, *nu, q, o);
    o.engine = verify::Engine::quadrature;
    const auto reference = verify::compute_divergence(*exact_weights, *nu, q, o);
    INFO(q.label() << ": certified " << test::describe(c) << ", quadrature with the plan's weights " << test::describe(reference));
    CHECK(c.error_kind == verify::ErrorKind::certified);
    CHECK(c.upper - c.lower <= 1e-12 * c.value);
    CHECK(c.lower <= reference.upper * (1 + 1e-12));
    CHECK(c.upper >= reference.lower * (1 - 1e-12));
  }
  // A plan that leaves a component unreached is refused.
  auto unreached = std::make_shared<sim::Mixture>(std::vector<double>{0.5, 0.5}, std::vector<sim::LawPtr>{gauss(0), gauss(1)});
  unreached->set_binomial_weights({1, 0.5, {{0, 0, 1.0}, {1, 0, 1.0}}});
  CHECK(verify::certified_refusal(*unreached, *nu).has_value());
}

TEST_CASE("certified: infinite and exactly-zero values", "[verify][certified]") {
  // R_∞ of a Gaussian mixture against a Gaussian: the loss grows linearly in the tail.
  CHECK(std::isinf(certified("mix(q=0.01, gaussian(0,1), gaussian(1,1))", "gaussian(0,1)", Quantity::renyi_inf()).value));
  // Laplace pair: the loss is exactly ε on a half-line at ε = Δ/b; above it HS is 0 exactly.
  const auto at = certified("laplace(1,1)", "laplace(0,1)", Quantity::hockey_stick(1));
  CHECK(at.lower == 0);
  CHECK(at.upper <= 1e-30);
  const auto above = certified("laplace(1,1)", "laplace(0,1)", Quantity::hockey_stick(1.5));
  CHECK(above.upper == 0);
  const auto sup = certified("laplace(1,1)", "laplace(0,1)", Quantity::renyi_inf());
  CHECK(sup.lower <= 1);
  CHECK(sup.upper >= 1);
  CHECK(sup.upper - sup.lower <= 1e-14);
  // Identical laws: the value 0 in an enclosure [0, u], u tiny (the sums' paired logs do not cancel exactly).
  for (const char* law : {"laplace(0.5, 1)", "laplace_sum(0.5, [1, 2])", "laplace_nfold(n=4, loc=0.5)"})
    for (const Quantity& q : {Quantity::renyi(2), Quantity::kl(), Quantity::tv()}) {
      const auto zero = certified(law, law, q);
      INFO(law << " " << q.label() << ": " << test::describe(zero));
      CHECK(zero.lower == 0);
      CHECK(zero.upper <= 1e-15);
    }
  // An atom of mu that nu does not charge.
  CHECK(std::isinf(certified("pmf(p=[0.5, 0.5])", "pmf(p=[1, 0])", Quantity::kl()).value));
}

TEST_CASE("orderings: a proven violation names both values, overlaps and Monte Carlo are not flagged",
          "[verify][certified]") {
  auto est = [](double lo, double hi, verify::ErrorKind k = verify::ErrorKind::quadrature) {
    return verify::Estimate::from_interval(lo, hi, k, "test");
  };
  const std::vector<Quantity> qs = {Quantity::renyi(2), Quantity::renyi(3), Quantity::kl(), Quantity::hockey_stick(0.5),
                                    Quantity::tv()};
  {
    const std::vector<verify::Estimate> ok = {est(0.2, 0.21), est(0.3, 0.31), est(0.1, 0.2), est(0.05, 0.06), est(0.1, 0.1)};
    for (const auto& v : verify::ordering_violations(qs, ok)) CHECK_FALSE(v);
  }
  {  // R_3 below R_2, and TV below HS_0.5
    const std::vector<verify::Estimate> bad = {est(0.5, 0.51), est(0.3, 0.31), est(0.1, 0.2), est(0.2, 0.21), est(0.1, 0.1)};
    const auto v = verify::ordering_violations(qs, bad);
    REQUIRE(v[0]);
    CHECK_THAT(*v[0], Catch::Contains("renyi(2)") && Catch::Contains("renyi(3)"));
    REQUIRE(v[3]);
    CHECK_THAT(*v[3], Catch::Contains("hockey_stick(0.5)") && Catch::Contains("tv"));
    CHECK_FALSE(v[2]);
  }
  {  // the same numbers as confidence intervals: not proof
    const std::vector<verify::Estimate> mc = {est(0.5, 0.51, verify::ErrorKind::statistical), est(0.3, 0.31)};
    for (const auto& v : verify::ordering_violations(std::span(qs).first(2), mc)) CHECK_FALSE(v);
  }
}

TEST_CASE("orderings: the sorted check flags exactly the values an all-pairs check flags", "[verify][certified]") {
  // The check runs over prefix maxima and suffix minima (O(n log n)); here against all pairs, written out, on random
  // lists with repeated orders and levels, TV, KL, R_inf, zeros known only in logs, and Monte Carlo values.
  using K = Quantity::Kind;
  auto proven = [](const verify::Estimate& small, const verify::Estimate& large) {
    if (std::isfinite(small.log_lower()) && std::isfinite(large.log_upper()) && small.lower == 0 && large.upper == 0)
      return small.log_lower() > large.log_upper() + 1e-12 * std::fabs(large.log_upper());
    return small.lower > large.upper * (1 + 1e-12) + 1e-300;
  };
  auto key = [](const Quantity& q) {
    return q.kind == K::kl ? 1.0 : q.kind == K::renyi_inf ? INFINITY : q.kind == K::tv ? 0.0 : q.parameter;
  };
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 30);
    std::vector<Quantity> qs;
    std::vector<verify::Estimate> es;
    for (int i = 0; i < n; ++i) {
      const int kind = static_cast<int>(rng() % 5);
      const double order = 1 + static_cast<double>(rng() % 6) / 2;
      qs.push_back(kind == 0 ? Quantity::renyi(1 + order) : kind == 1 ? Quantity::kl() : kind == 2 ? Quantity::renyi_inf()
                 : kind == 3 ? Quantity::hockey_stick(order - 1) : Quantity::tv());
      verify::Estimate e;
      if (rng() % 6 == 0) {  // below the double range: only log ends
        const double l = -800 - 50 * u(rng);
        e = verify::Estimate::from_log_interval(l, 5 * u(rng), verify::ErrorKind::certified, "t");
        e.lower = e.upper = e.value = 0;
      } else {
        const double lo = u(rng), hi = lo + 0.2 * u(rng);
        e = verify::Estimate::from_interval(lo, hi, rng() % 7 == 0 ? verify::ErrorKind::statistical : verify::ErrorKind::quadrature, "t");
      }
      es.push_back(e);
    }
    std::vector<bool> expected(n, false);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        if (i == j || es[i].error_kind == verify::ErrorKind::statistical || es[j].error_kind == verify::ErrorKind::statistical) continue;
        const bool hs_i = qs[i].kind == K::hockey_stick || qs[i].kind == K::tv, hs_j = qs[j].kind == K::hockey_stick || qs[j].kind == K::tv;
        if (hs_i != hs_j) continue;
        // i must be at most j: a smaller Rényi order, or a larger hockey-stick level.
        const bool i_below_j = hs_i ? key(qs[i]) > key(qs[j]) : key(qs[i]) < key(qs[j]);
        if (i_below_j && proven(es[i], es[j])) expected[i] = expected[j] = true;
      }
    const auto got = verify::ordering_violations(qs, es);
    for (int i = 0; i < n; ++i) {
      INFO("trial " << trial << ", value " << i << " (" << qs[i].label() << ")");
      CHECK(static_cast<bool>(got[i]) == expected[i]);
    }
  }
}

TEST_CASE("divergence calls: one quantity that cannot be computed leaves the others", "[verify][certified]") {
  api::DivergenceRequest r;
  r.renyi = {2};
  r.tv = true;
  r.engine = "certified";
  const auto out = api::divergence("mix(q=0.5, gaussian(0,1), gaussian(0,3))", "gaussian(0,2)", r);
  REQUIRE(out.estimates.size() == 2);
  CHECK_THAT(out.errors[0], Catch::Contains("tail could not be bounded"));
  CHECK(std::isnan(out.estimates[0].value));
  CHECK(out.errors[1].empty());
  CHECK(out.estimates[1].error_kind == verify::ErrorKind::certified);
  CHECK(out.estimates[1].value > 0.1);
  CHECK_FALSE(out.ok());
}

// The budget (units of work, not wall-clock time: the answer does not depend on the load) is passed to the engine's
// loops with the value it belongs to: a value past its budget is refused
// naming it, the next value (in the same thread) has its own, and the composed engine reads its own as well.
TEST_CASE("certified: the time budget belongs to one value", "[verify][certified]") {
  const auto mu = sim::parse_law("mix(0.01, gaussian(0, 1), gaussian(1, 1))"), nu = sim::parse_law("gaussian(0, 1)");
  const auto failure = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const NumericalError& e) {
      return e.what();
    }
    return "(no error)";
  };
  verify::CertifiedOptions none;
  none.seconds = 1e-12;
  for (const Quantity q : {Quantity::renyi(3), Quantity::kl(), Quantity::hockey_stick(0.5)})
    CHECK_THAT(failure([&] { verify::certified_divergence(*mu, *nu, q, none); }), Catch::Contains("work budget ran out"));
  const verify::Estimate after = verify::certified_divergence(*mu, *nu, Quantity::renyi(3));
  CHECK(after.error_kind == verify::ErrorKind::certified);
  CHECK(after.lower > 0);
  // The composed engine, on the line and at the size the double-precision contour gives (as the engines call it).
  const std::vector<verify::ReleasePair> pairs = {{mu.get(), nu.get(), 100}};
  const verify::ContourIntegral contour(pairs);
  const double c = contour.abscissa(0.1), log_hint = contour.hockey_stick(0.1).log_value();
  CHECK_THAT(failure([&] { verify::certified_composed_hockey_stick(pairs, 0.1, c, log_hint, none); }),
             Catch::Contains("work budget ran out"));
  CHECK(verify::certified_composed_hockey_stick(pairs, 0.1, c, log_hint).error_kind == verify::ErrorKind::certified);
}

TEST_CASE("certified: KL of laws far apart, against their closed forms", "[verify][certified]") {
  // p = f_r·P̃ over a wide ball let the two factors' radii compound (e^{m·radius} for Gaussians m apart): KL of
  // N(10^4, 1) against N(0, 1) ended [0, e^{97900}]. Closed forms: m²/(2σ²) and m/b − 1 + e^{−m/b}.
  for (const double m : {1e3, 1e4, 1e6, 1e8}) {
    INFO("m = " << m);
    const auto g = certified(fmt::format("gaussian({}, 2)", m), "gaussian(0, 2)", Quantity::kl());
    const double gauss = m * m / 8;
    CHECK(g.error_kind == verify::ErrorKind::certified);
    CHECK(g.lower <= gauss);
    CHECK(gauss <= g.upper);
    CHECK(g.upper - g.lower <= 1e-9 * gauss);
    const auto l = certified(fmt::format("laplace({}, 0.5)", m), "laplace(0, 0.5)", Quantity::kl());
    const double lap = 2 * m - 1 + std::exp(-2 * m);
    CHECK(l.lower <= lap);
    CHECK(lap <= l.upper);
    CHECK(l.upper - l.lower <= 1e-9 * lap);
  }
}
