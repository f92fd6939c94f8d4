// The certified engine's Rényi tail bound (verify/divergence/certified/tails.cpp) against the exact tail of random
// Gaussian mixtures at integer orders: (Σ w_i f_i)^α expands into multinomial terms, each a Gaussian integral in
// closed form (erfc at 50 digits). The bound must lie above the exact tail (soundness) and within n^{α−1} of it
// (Minkowski's bound is; the cruder W^α Σ_i I_i is not when a light component dominates the tail).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <boost/math/special_functions/erf.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/language/expression.hpp"
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
