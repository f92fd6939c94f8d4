// The certified engine on projected Gaussian chains (verify/divergence/certified/chains.cpp): its enclosures against
// closed forms (linear chains whose projection never matters), against the three-resolution grid estimate at points no
// case file uses, against independent 40-digit references (tests/reference/chain_references.py), and on hostile
// chains (an expansive map, a long horizon, narrow noise), where it may widen or refuse but never miss; there the grid
// estimate, whose densities underflow, refuses instead of printing an "exact" infinity.
#include <cmath>
#include <fstream>
#include <optional>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "numerics/errors.hpp"
#include "sim/language/expression.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/certified/chain_parts.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;
using verify::Engine;
using verify::ErrorKind;
using verify::Quantity;

namespace {

verify::Estimate divergence(const std::string& p, const std::string& q, const Quantity& quantity, Engine engine) {
  verify::DivergenceOptions o;
  o.engine = engine;
  return verify::compute_divergence(*sim::parse_law(p), *sim::parse_law(q), quantity, o);
}

std::string chain(double x0, int r, const std::string& map, double sigma, double k, int cells = 200) {
  return fmt::format("projected_chain(x0={}, r={}, map={}, sigma={}, lo={}, hi={}, cells={})", x0, r, map, sigma, -k, k, cells);
}

}  // namespace

TEST_CASE("certified chains: linear chains against the Gaussian closed form", "[verify][certified][chains]") {
  // X ← a X + N(0, s²) from ±x0 on [−K, K] with K at 9 standard deviations of X_r: the projection moves less than
  // 1e-18 of the mass, so R_α and KL are those of N(±a^r x0, v), v = s² Σ_{k<r} a^{2k}, to far below the widths.
  struct Case {
    double a, s, x0;
    int r;
  };
  for (const Case& c : {Case{0.9, 1.0, 0.5, 5}, Case{0.6, 0.5, 1.0, 3}, Case{1.0, 0.8, 0.25, 2}}) {
    double v = 0;
    for (int k = 0; k < c.r; ++k) v += std::pow(c.a, 2 * k) * c.s * c.s;
    const double delta = 2 * std::pow(c.a, c.r) * c.x0, K = 9 * std::sqrt(v) + std::pow(c.a, c.r) * c.x0;
    const std::string map = fmt::format("\"{} * x\"", c.a);
    for (const Quantity& q : {Quantity::renyi(2), Quantity::renyi(5), Quantity::kl()}) {
      const double closed = (q.kind == Quantity::Kind::kl ? 1.0 : q.parameter) * delta * delta / (2 * v);
      const auto e = divergence(chain(c.x0, c.r, map, c.s, K), chain(-c.x0, c.r, map, c.s, K), q, Engine::certified);
      INFO(fmt::format("a = {}, s = {}, r = {}, {}: closed form {:.15g}, enclosure [{:.15g}, {:.15g}] ({})", c.a, c.s, c.r,
                       q.label(), closed, e.lower, e.upper, e.method));
      CHECK(e.error_kind == ErrorKind::certified);
      CHECK(e.lower <= closed * (1 + 1e-12));
      CHECK(e.upper >= closed * (1 - 1e-12));
      CHECK(e.upper - e.lower <= 2e-2 * closed);
    }
  }
}

TEST_CASE("certified chains: the grid estimate lies inside the enclosure at new points", "[verify][certified][chains]") {
  // Points no case file uses: nonlinear maps, formula maps with kinks, the projection binding, noisy SGD with each
  // kind of loss (the built-in gradients, and a formula differentiated three times through its Huber kink).
  struct Pair {
    std::string mu, nu;
  };
  const std::vector<Pair> pairs = {
      {chain(0.3, 4, "tanh, L=0.8", 0.7, 2.5), chain(-0.4, 4, "tanh, L=0.8", 0.7, 2.5)},
      {chain(0.9, 3, "\"if(x < 0.2, 0.3 * x, 0.9 * x - 0.12)\"", 0.4, 1.5), chain(0.1, 3, "\"if(x < 0.2, 0.3 * x, 0.9 * x - 0.12)\"", 0.4, 1.5)},
      {chain(0.5, 6, "softsign, L=1", 0.6, 1), chain(-0.5, 6, "softsign, L=1", 0.6, 1)},
      {"noisy_sgd(n=6, i=4, zi=0.7, eta=0.3, sigma=1.5, lambda=0.8, R=1.2)", "noisy_sgd(n=6, i=4, zi=-0.2, eta=0.3, sigma=1.5, lambda=0.8, R=1.2)"},
      {"noisy_sgd(n=5, i=5, zi=1, eta=0.6, sigma=0.5, lambda=0.3, R=1, loss=logistic, A=1.5)",
       "noisy_sgd(n=5, i=5, zi=-1.5, eta=0.6, sigma=0.5, lambda=0.3, R=1, loss=logistic, A=1.5)"},
      {"noisy_sgd(n=7, i=3, zi=0.8, eta=0.4, sigma=1, R=1, A=1, loss=\"if(abs(x - z) <= 0.3, (x - z)^2 / 2, 0.3*abs(x - z) - 0.045) + 0.2*x^2\")",
       "noisy_sgd(n=7, i=3, zi=-0.6, eta=0.4, sigma=1, R=1, A=1, loss=\"if(abs(x - z) <= 0.3, (x - z)^2 / 2, 0.3*abs(x - z) - 0.045) + 0.2*x^2\")"}};
  for (const Pair& pair : pairs)
    for (const Quantity& q : {Quantity::renyi(2), Quantity::renyi(12), Quantity::kl()}) {
      const auto c = divergence(pair.mu, pair.nu, q, Engine::certified);
      const auto e = divergence(pair.mu, pair.nu, q, Engine::automatic);
      INFO(fmt::format("{} vs {}, {}: certified [{:.12g}, {:.12g}] ({}); estimate [{:.12g}, {:.12g}] ({})", pair.mu, pair.nu,
                       q.label(), c.lower, c.upper, c.method, e.lower, e.upper, e.method));
      CHECK(c.error_kind == ErrorKind::certified);
      CHECK(c.lower <= e.upper);
      CHECK(e.lower <= c.upper);
      CHECK(c.upper - c.lower <= 3e-2 * c.upper);
    }
}

// tests/reference/chain_references.json: R_2, R_8 and KL of five two-step chains (a nonlinear map, a binding projection,
// noisy SGD, an expansive map, a kink in ψ'') by mpmath's nested quadrature at 40 and 50 digits with different
// splittings and rules (tests/reference/chain_references.py says how; 39–40 digits agree); law_mu and law_nu are the
// same chains as privamp laws.
TEST_CASE("certified chains: 40-digit references computed by nested quadrature", "[verify][certified][chains]") {
  std::ifstream in(std::string(PRIVAMP_SOURCE_DIR) + "/tests/reference/chain_references.json");
  REQUIRE(in.good());
  const auto refs = nlohmann::json::parse(in);
  REQUIRE(refs.at("cases").size() >= 5);
  for (const auto& c : refs.at("cases")) {
    const std::string mu = c.at("law_mu"), nu = c.at("law_nu");
    for (const auto& [key, quantity] : {std::pair{"renyi2", Quantity::renyi(2)}, std::pair{"renyi8", Quantity::renyi(8)},
                                        std::pair{"kl", Quantity::kl()}}) {
      const double ref = std::stod(c.at(key).get<std::string>());
      const auto e = divergence(mu, nu, quantity, Engine::certified);
      INFO(fmt::format("case {} {}: reference {:.17g}, enclosure [{:.17g}, {:.17g}] ({})", c.at("name").get<std::string>(), key, ref,
                       e.lower, e.upper, e.method));
      CHECK(e.error_kind == ErrorKind::certified);
      CHECK(e.lower <= ref);
      CHECK(ref <= e.upper);
    }
  }
}

TEST_CASE("certified chains: hostile chains widen or refuse, never miss", "[verify][certified][chains]") {
  // An expansive map (most mass at the ends), a long horizon (fewer cells within the budget), noise narrow against
  // the interval (the first resolution at its cap), a map steep enough to send the chain far past the interval.
  struct Pair {
    std::string mu, nu;
  };
  const std::vector<Pair> pairs = {{chain(0.1, 3, "linear, L=3", 0.2, 1), chain(-0.1, 3, "linear, L=3", 0.2, 1)},
                                   {chain(0.5, 120, "tanh, L=0.9", 1, 3), chain(-0.5, 120, "tanh, L=0.9", 1, 3)},
                                   {chain(0.05, 2, "sin, L=1", 0.01, 1), chain(-0.05, 2, "sin, L=1", 0.01, 1)},
                                   {chain(0.2, 2, "\"40 * x\"", 0.3, 1), chain(-0.2, 2, "\"40 * x\"", 0.3, 1)}};
  for (const Pair& pair : pairs) {
    const Quantity q = Quantity::renyi(2);
    std::optional<verify::Estimate> estimate, certified;
    try {
      estimate = divergence(pair.mu, pair.nu, q, Engine::automatic);
    } catch (const NumericalError& err) {  // the grid's densities underflow: refused, never "infinite"
      INFO(err.what());
      CHECK(std::string(err.what()).find("underflows") != std::string::npos);
    }
    try {
      certified = divergence(pair.mu, pair.nu, q, Engine::certified);
    } catch (const NumericalError& err) {
      INFO(err.what());
      CHECK(std::string(err.what()).find("certified engine") != std::string::npos);
    }
    if (certified) {
      CHECK(certified->error_kind == ErrorKind::certified);
      CHECK(std::isfinite(certified->upper));
    }
    if (certified && estimate) {
      INFO(fmt::format("{}: certified [{:.12g}, {:.12g}] ({}); estimate [{:.12g}, {:.12g}]", pair.mu, certified->lower,
                       certified->upper, certified->method, estimate->lower, estimate->upper));
      CHECK(certified->lower <= estimate->upper);
      CHECK(estimate->lower <= certified->upper);
    }
    if (estimate) CHECK(std::isfinite(estimate->value));
  }
}

TEST_CASE("certified chains: a one-step chain from a point is the clamped Gaussian", "[verify][certified][chains]") {
  // ψ(±0.5) = ±0.4 exactly for the clipped map: the Gaussian-piece engine certifies the pair to full precision, and so
  // tells a bound that is tight to 1e-7 (Theorem 4 at r = 1) from the value.
  const std::string map = "\"max(-1, min(1, 0.8 * x))\"";
  const auto e = divergence(chain(0.5, 1, map, 0.5, 3), chain(-0.5, 1, map, 0.5, 3), Quantity::renyi(2), Engine::certified);
  const auto direct = divergence("clamp(gaussian(0.4, 0.5), -3, 3)", "clamp(gaussian(-0.4, 0.5), -3, 3)", Quantity::renyi(2), Engine::certified);
  CHECK(e.error_kind == ErrorKind::certified);
  CHECK(e.lower == direct.lower);
  CHECK(e.upper == direct.upper);
  CHECK(e.upper < 2.56);  // the Theorem 4 bound α L² Δ²/(2σ²) = 2.56, which projection makes strict
}

TEST_CASE("the final integral of the chain engine contains its value on cells whose densities are known", "[certified][chains]") {
  // Two cells of width h = 1/64 with densities chosen so that the affine fit of each (from its mass and first moment)
  // is exactly flat, while the truth is not: the upper end holds only through the fit's error term, 25/96 sup|''| h²
  // (dropping it, for the density or for the difference, gives an upper end below the truth).
  //   cell 0: ν's density 1, the difference δ(y) = c((y − m)² − h²/12) (mass 0, first moment 0), c = 1/h²;
  //           ∫ δ²/f = c² h⁵/180 (R(r) = r², Rényi of order 2).
  //   cell 1: ν's density 1 + c((y − m)² − h²/12) (mass h, moment 0), δ = 0.1; ∫ δ²/f = 0.01 ∫ du/(A + c u²) over
  //           |u| ≤ h/2, A = 1 − c h²/12: 0.01 · 2 atan(√(c/A) h/2)/√(Ac).
  using namespace verify::chain_detail;
  const double h = 1.0 / 64, c = 1 / (h * h);
  const Grid g{0, 2 * h, 2, h, sim::Enclosure(h), sim::Enclosure(h)};
  Measure nu, d;
  nu.mass = {{h, 0}, {h, 0}};
  nu.moment = {{0, 0}, {0, 0}};
  nu.variation = {0, c * h * h};
  nu.slope_sup = {0, c * h};
  nu.curv_sup = {0, 2 * c};
  d.mass = {{0, 0}, {0.1 * h, 0}};
  d.moment = {{0, 0}, {0, 0}};
  d.variation = {c * h * h, 0};
  d.slope_sup = {c * h, 0};
  d.curv_sup = {2 * c, 0};
  const Integrand chi2{Integrand::Kind::renyi, 2, 0};
  // The first-order bound assumes |(log f)'| ≤ (|y − z| + 4h)/s² (a Gaussian step of noise s from ψ-range z): here
  // |(log f)'| ≤ c h/(5/6) ≈ 77 on cell 1, so s = 0.03 and z = 0 (a bound of 104) keep the data within the premise.
  const double s_noise = 0.03;
  const Enclosed e = enclose(g, nu, d, s_noise, 0.0, 0.0, chi2);
  const double a = 1 - c * h * h / 12;
  const double truth = c * c * std::pow(h, 5) / 180 + 0.01 * 2 * std::atan(std::sqrt(c / a) * h / 2) / std::sqrt(a * c);
  INFO("[" << e.lo << ", " << e.hi << "] against " << truth);
  CHECK(e.lo <= truth);
  CHECK(truth <= e.hi);
  CHECK(e.hi < 0.05);  // finite and not the trivial bound
  // Each cell alone (the other's difference zero): each fit error term is needed on its own.
  for (int cell = 0; cell < 2; ++cell) {
    Measure one = d;
    const auto other = static_cast<std::size_t>(1 - cell);
    one.mass[other] = {0, 0};
    one.slope_sup[other] = 0;
    one.curv_sup[other] = 0;
    const double part = cell == 0 ? c * c * std::pow(h, 5) / 180 : truth - c * c * std::pow(h, 5) / 180;
    const Enclosed alone = enclose(g, nu, one, s_noise, 0.0, 0.0, chi2);
    INFO("cell " << cell << ": [" << alone.lo << ", " << alone.hi << "] against " << part);
    CHECK(alone.lo <= part);
    CHECK(part <= alone.hi);
  }
}
