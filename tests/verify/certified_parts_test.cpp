// Parts of the certified engine (verify/divergence/certified/), each against a reference computed another way:
// - the Rényi tail bound (tails.cpp) against the exact tail of random Gaussian mixtures at integer orders:
//   (Σ w_i f_i)^α expands into multinomial terms, each a Gaussian integral in closed form (erfc at 50 digits). The
//   bound must lie above the exact tail (soundness) and within n^{α−1} of it (Minkowski's bound is; the cruder
//   W^α Σ_i I_i is not when a light component dominates the tail);
// - the Rényi integrand on wide complex balls (the centred form of integrands.cpp, which bounds Arb's ellipses)
//   must contain the integrand at random points of the ball (Arb's own test discipline: randomise, check only
//   enclosure);
// - whole values: R_α of random Gaussian mixtures at orders up to 300 must contain the 50-digit value of the
//   density engine's multiprecision instantiation.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <boost/math/special_functions/erf.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/language/expression.hpp"
#include "verify/divergence/density_engines.hpp"
#include "verify/divergence/engines.hpp"
#include "support/reference.hpp"
#include "verify/divergence/certified/internal.hpp"

using namespace privamp;
using test::Real50;
namespace cd = verify::certified_detail;

namespace {

struct Component {
  double w, m, s;
};

// log ∫_B^∞ (Σ_i w_i N(m_i, s_i²))^α N(mq, sq²)^{1−α} dx, α a positive integer, by the multinomial expansion.
Real50 exact_log_tail(const std::vector<Component>& p, double mq, double sq, int alpha, double B) {
  using boost::multiprecision::exp;
  using boost::multiprecision::log;
  using boost::multiprecision::sqrt;
  const Real50 pi = boost::math::constants::pi<Real50>();
  std::vector<int> k(p.size(), 0);
  Real50 total = 0;
  // Every composition k_1 + … + k_n = α.
  auto visit = [&](auto&& self, std::size_t i, int left) -> void {
    if (i + 1 == p.size()) {
      k[i] = left;
      Real50 log_coef = boost::multiprecision::lgamma(Real50(alpha + 1)), a = 0, b = 0, c = 0;
      for (std::size_t j = 0; j < p.size(); ++j) {
        const Real50 s2 = Real50(p[j].s) * p[j].s, m = p[j].m;
        log_coef += k[j] * log(Real50(p[j].w)) - boost::multiprecision::lgamma(Real50(k[j] + 1));
        a -= k[j] / (2 * s2);
        b += k[j] * m / s2;
        c -= k[j] * (m * m / (2 * s2) + log(sqrt(2 * pi * s2)));
      }
      const Real50 s2 = Real50(sq) * sq, t = 1 - alpha;  // (1 − α) log q
      a -= t / (2 * s2);
      b += t * Real50(mq) / s2;
      c -= t * (Real50(mq) * mq / (2 * s2) + log(sqrt(2 * pi * s2)));
      const Real50 kappa = -a, x0 = b / (2 * kappa);
      const Real50 v = exp(log_coef + c + kappa * x0 * x0) * sqrt(pi / kappa) / 2 *
                       boost::math::erfc(Real50(sqrt(kappa) * (B - x0)));
      total += v;
      return;
    }
    for (int j = 0; j <= left; ++j) {
      k[i] = j;
      self(self, i + 1, left - j);
    }
  };
  visit(visit, 0, alpha);
  return log(total);
}

}  // namespace

TEST_CASE("certified Renyi tail bound: above the exact tail of random Gaussian mixtures, within n^(alpha-1)", "[verify][certified]") {
  std::mt19937_64 rng(20261128);
  std::uniform_real_distribution<double> u(0, 1);
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 2;
    const double sq = 1 + u(rng);
    std::vector<Component> p;
    std::vector<double> raw;
    for (int i = 0; i < n; ++i) raw.push_back(trial % 3 == 0 && i == n - 1 ? 1e-3 * u(rng) + 1e-4 : 0.1 + u(rng));
    double sum = 0;
    for (double r : raw) sum += r;
    double hi = 0;
    for (int i = 0; i < n; ++i) {
      // Component scales at most q's, so that every tail is finite at every order.
      p.push_back({raw[static_cast<std::size_t>(i)] / sum, -1 + 3 * u(rng), sq * (0.5 + 0.5 * u(rng))});
      hi = std::max(hi, std::fabs(p.back().m));
    }
    const int alpha = std::vector<int>{2, 3, 5, 8}[static_cast<std::size_t>(trial % 4)];
    std::string laws, weights;
    for (const auto& c : p) {
      weights += fmt::format("{}{:.17g}", weights.empty() ? "" : ", ", c.w);
      laws += fmt::format("{}gaussian({:.17g}, {:.17g})", laws.empty() ? "" : ", ", c.m, c.s);
    }
    const auto mu = sim::parse_law(fmt::format("mixture(weights=[{}], laws=[{}])", weights, laws));
    const auto nu = sim::parse_law(fmt::format("gaussian(0, {:.17g})", sq));
    const cd::Pair pair = cd::read_pair(*mu, *nu, 128);
    // The weights as the engine holds them (the law's, rounded to doubles) are the ones the reference uses.
    std::vector<Component> held = p;
    for (std::size_t i = 0; i < held.size(); ++i) held[i].w = std::exp(cd::mid_d(pair.p.pieces[i].log_w));
    for (int side : {1, -1}) {
      const double B = side * (hi + 1 + 4 * u(rng));
      const cd::Ball alpha_ball(static_cast<double>(alpha));
      cd::Tail t;
      std::vector<Component> ref = held;
      if (side > 0) {
        t = cd::renyi_tail(pair.p, pair.q, alpha_ball, B, 128);
      } else {  // the left tail: both laws mirrored, ∫_{−∞}^{B} = ∫_{−B}^∞ of the mirror images
        t = cd::renyi_tail(cd::mirrored(pair.p), cd::mirrored(pair.q), alpha_ball, -B, 128);
        for (auto& c : ref) c.m = -c.m;
      }
      REQUIRE(t.kind == cd::Tail::Kind::bounded);
      const double exact = static_cast<double>(exact_log_tail(ref, 0, sq, alpha, side * B));
      cd::Ball log_bound;
      arb_log(log_bound.get(), t.value.get(), 128);
      INFO("trial " << trial << ", alpha = " << alpha << ", B = " << B << ": log bound [" << cd::lower_d(log_bound) << ", "
                    << cd::upper_d(log_bound) << "], exact " << exact);
      CHECK(cd::upper_d(log_bound) >= exact - 1e-12 * std::fabs(exact));
      CHECK(cd::lower_d(log_bound) <= exact + (alpha - 1) * std::log(static_cast<double>(n)) + 1e-9);
      ++checked;
    }
  }
  CHECK(checked == 120);
}

namespace {

struct RandomMixture {
  std::vector<Component> p;
  double sq = 1;
  std::string mu, nu;
};

RandomMixture random_mixture(std::mt19937_64& rng, int trial) {
  std::uniform_real_distribution<double> u(0, 1);
  RandomMixture m;
  m.sq = 0.5 + u(rng);
  const int n = 2 + trial % 3;
  std::vector<double> raw;
  for (int i = 0; i < n; ++i) raw.push_back(i == 0 ? 0.5 + u(rng) : std::pow(10.0, -3 * u(rng)));
  double sum = 0;
  for (double r : raw) sum += r;
  std::string laws, weights;
  for (int i = 0; i < n; ++i) {
    // One scale for all (the subsampled mechanisms' case, where the centred form's relative logs are linear) or,
    // every third trial, scales of their own (the general relative log).
    const double s = trial % 3 == 2 ? m.sq * (0.6 + 0.4 * u(rng)) : m.sq;
    m.p.push_back({raw[static_cast<std::size_t>(i)] / sum, i == 0 ? 0.0 : 2 * u(rng) - 0.5, s});
    weights += fmt::format("{}{:.17g}", weights.empty() ? "" : ", ", m.p.back().w);
    laws += fmt::format("{}gaussian({:.17g}, {:.17g})", laws.empty() ? "" : ", ", m.p.back().m, s);
  }
  m.mu = fmt::format("mixture(weights=[{}], laws=[{}])", weights, laws);
  m.nu = fmt::format("gaussian(0, {:.17g})", m.sq);
  return m;
}

}  // namespace

TEST_CASE("certified Renyi integrand on wide complex balls contains its values at random points of the ball", "[verify][certified]") {
  std::mt19937_64 rng(7411);
  std::uniform_real_distribution<double> u(0, 1);
  const slong prec = 128;
  int checked = 0, wide_exponents = 0;
  for (int trial = 0; trial < 60; ++trial) {
    // Gaussian mixtures against a Gaussian (half the trials), Laplace sums of one scale (a polynomial G) and of two
    // (a sum of exponentials), and mixtures of Laplaces.
    std::string mu, nu;
    double lo = -3, hi = 3;
    switch (trial % 6) {
      case 3: {
        const int n = 2 + static_cast<int>(60 * u(rng));
        const double b = 0.3 + 2 * u(rng), d = 2 * u(rng) + 0.1;
        mu = fmt::format("laplace_nfold(n={}, loc={:.17g}, scale={:.17g})", n, d, b);
        nu = fmt::format("laplace_nfold(n={}, loc=0, scale={:.17g})", n, b);
        lo = -3 * b * std::sqrt(n), hi = d + 3 * b * std::sqrt(n);
        break;
      }
      case 4: {
        const double b1 = 0.5 + u(rng), b2 = 0.2 + 3 * u(rng), d = 2 * u(rng);
        mu = fmt::format("laplace_sum({:.17g}, [{:.17g}, {:.17g}])", d, b1, b2);
        nu = fmt::format("laplace_sum(0, [{:.17g}, {:.17g}])", b1, b2);
        lo = -4 * (b1 + b2), hi = d + 4 * (b1 + b2);
        break;
      }
      case 5: {
        const double b = 0.3 + u(rng), q = 0.5 * u(rng);
        mu = fmt::format("mix({:.17g}, laplace(0, {:.17g}), laplace(1, {:.17g}))", q, b, b);
        nu = fmt::format("laplace(0, {:.17g})", b);
        lo = -6 * b, hi = 1 + 6 * b;
        break;
      }
      default: {
        const RandomMixture m = random_mixture(rng, trial);
        mu = m.mu, nu = m.nu;
      }
    }
    const cd::Pair pair = cd::read_pair(*sim::parse_law(mu), *sim::parse_law(nu), prec);
    const double alpha = 1.05 + (trial % 6 < 3 ? 300 : 60) * std::pow(u(rng), 2);
    for (int ball = 0; ball < 6; ++ball) {
      // Around a point of the real line (a tilted centre of a Gaussian mixture may lie far right: up to 2α).
      const double x = trial % 6 < 3 ? alpha * 2 * u(rng) + (2 * u(rng) - 1) * 3 : lo + (hi - lo) * u(rng);
      const double y = (2 * u(rng) - 1) * 0.5, r = 0.02 + 0.6 * u(rng);
      // The pieces active on the ball's segment of the line (a Laplace piece on the side of its centre where x is).
      const cd::Segment sp = cd::active_on(pair.p, x - 1e-9, x + 1e-9), sq = cd::active_on(pair.q, x - 1e-9, x + 1e-9);
      REQUIRE(!sp.empty());
      REQUIRE(!sq.empty());
      cd::Job job{cd::Integrand::renyi, &sp, &sq, cd::Ball(alpha), cd::Ball(1 - alpha), cd::Ball(), cd::Ball(0), nullptr};
      {  // the shift: the exponent at the ball's centre, so that the values stay in range
        cd::Complex c, v;
        acb_set_d(c.get(), x);
        cd::integrand(v.get(), c.get(), &job, 0, prec);
        acb_log(v.get(), v.get(), prec);
        job.shift = cd::Ball(arf_get_d(arb_midref(acb_realref(v.get())), ARF_RND_NEAR));
      }
      cd::Complex z, f;
      acb_set_d_d(z.get(), x, y);
      mag_set_d(arb_radref(acb_realref(z.get())), r);
      mag_set_d(arb_radref(acb_imagref(z.get())), r);
      cd::integrand(f.get(), z.get(), &job, 1, prec);
      if (!acb_is_finite(f.get())) continue;  // not analytic on the ball (a log's branch): Arb then subdivides
      ++wide_exponents;
      for (int k = 0; k < 8; ++k) {
        cd::Complex w, g;
        acb_set_d_d(w.get(), x + r * (2 * u(rng) - 1), y + r * (2 * u(rng) - 1));
        cd::integrand(g.get(), w.get(), &job, 1, prec);
        INFO("trial " << trial << ": " << mu << " vs " << nu << ", alpha = " << alpha << ", ball " << x << " + " << y
                      << "i, radius " << r);
        CHECK(acb_overlaps(f.get(), g.get()));
        ++checked;
      }
    }
  }
  CHECK(wide_exponents >= 200);
  CHECK(checked == 8 * wide_exponents);
}

TEST_CASE("certified R_alpha of random Gaussian mixtures contains the 50-digit value, orders up to 300", "[verify][certified][mp]") {
  std::mt19937_64 rng(90210);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 12; ++trial) {
    const RandomMixture m = random_mixture(rng, trial);
    const double alpha = trial % 4 == 0 ? 1.5 + u(rng) : 2 + 298 * std::pow(u(rng), 2);
    verify::DivergenceOptions o;
    o.engine = verify::Engine::certified;
    const auto e = verify::compute_divergence(*sim::parse_law(m.mu), *sim::parse_law(m.nu), verify::Quantity::renyi(alpha), o);
    // The reference: ∫ p^α q^{1−α} by the density engine at 50 digits (its own quadrature, not Arb's).
    std::vector<Real50> anchors{Real50(0), Real50(alpha * 2)};
    for (const auto& c : m.p) anchors.push_back(Real50(c.m));
    const auto pair = test::pair50(
        [&](Real50 x) {
          Real50 top = -std::numeric_limits<double>::infinity();
          std::vector<Real50> logs;
          for (const auto& c : m.p) {
            // the weights as the law holds them: its expression's weights are its own
            logs.push_back(boost::multiprecision::log(Real50(c.w)) + test::gauss_lpdf(x, Real50(c.m), Real50(c.s)));
            if (logs.back() > top) top = logs.back();
          }
          Real50 sum = 0;
          for (const auto& l : logs) sum += boost::multiprecision::exp(l - top);
          return top + boost::multiprecision::log(sum);
        },
        [&](Real50 x) { return test::gauss_lpdf(x, Real50(0), Real50(m.sq)); }, anchors, Real50(m.sq));
    const auto ref = verify::renyi_log_integral(pair, Real50(alpha));
    const double truth = static_cast<double>(ref.log_value / (alpha - 1));
    INFO("trial " << trial << ": " << m.mu << " vs " << m.nu << ", alpha = " << alpha << ": certified [" << e.lower << ", "
                  << e.upper << "], 50 digits " << truth);
    REQUIRE(e.error_kind == verify::ErrorKind::certified);
    // The weights are read from the expression's 17 digits on both sides; the 50-digit value carries their
    // rounding differently, by at most a few ulps of the weights, amplified α-fold: the enclosure is compared with
    // that margin (relative 1e-13 of the value), much narrower than any tail or quadrature slip would be.
    const double margin = 1e-13 * std::fabs(truth);
    CHECK(e.lower <= truth + margin);
    CHECK(e.upper >= truth - margin);
  }
}
