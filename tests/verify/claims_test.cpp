// The claims harness: every label an engine prints ("exact", "a-posteriori", "certified") is checked on random
// instances against the certified engine's enclosure, which contains the truth (its own references are the audit's
// 20-40-digit values, tests/audit). Families x engines x quantities, with random parameters including far tails,
// tiny subsampling rates, long chains, clamped laws and compositions of subsampled Gaussians; an engine may refuse (InvalidArgument, NumericalError), never print an
// interval that misses the enclosure (compared in logs, so that values below the double range count).
//
// The seed is PRIVAMP_CLAIMS_SEED (default 1; CI rotates it daily and prints it); PRIVAMP_CLAIMS_COUNT instances
// (default 240). A failing instance is printed as a `privamp divergence` command: add it to the fixed list at the end.
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/language/expression.hpp"
#include "support/check.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/composition.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;
using verify::Engine;
using verify::Quantity;

namespace {

struct Instance {
  std::string mu, nu;
  Quantity quantity;
};

long env_number(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

// A random pair of one family and a random quantity.
Instance draw(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  auto num = [&](double lo, double hi) { return fmt::format("{:.6g}", lo + (hi - lo) * u(rng)); };
  auto logu = [&](double lo, double hi) { return fmt::format("{:.6g}", std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * u(rng))); };
  Instance in{"", "", Quantity::kl()};
  bool composed = false;
  switch (rng() % 11) {
    case 0: in.mu = fmt::format("gaussian({}, {})", num(-5, 5), logu(0.05, 5)), in.nu = fmt::format("gaussian({}, {})", num(-5, 5), logu(0.05, 5)); break;
    case 1: {
      const std::string b = logu(0.1, 3);
      in.mu = fmt::format("laplace({}, {})", num(-3, 3), b), in.nu = fmt::format("laplace(0, {})", b);
      break;
    }
    case 2: {  // Poisson subsampling of a Gaussian, down to q = 1e-6, far tails by a large sigma
      const std::string q = logu(1e-6, 0.5), s = logu(0.3, 60);
      in.mu = fmt::format("subsample(scheme=poisson, base=gaussian, q={}, sigma={})", q, s), in.nu = fmt::format("gaussian(0, {})", s);
      break;
    }
    case 3: {
      const std::string q = logu(1e-5, 0.5), b = logu(0.2, 5);
      in.mu = fmt::format("subsample(scheme=poisson, base=laplace, q={}, scale={})", q, b), in.nu = fmt::format("laplace(0, {})", b);
      break;
    }
    case 4: {  // pmfs
      auto pmf = [&](int n) {
        std::vector<double> p(static_cast<std::size_t>(n));
        double total = 0;
        for (double& x : p) total += x = 0.05 + u(rng);
        std::string s;
        for (double x : p) s += fmt::format("{}{:.17g}", s.empty() ? "" : ", ", x / total);
        return s;
      };
      const int n = 2 + static_cast<int>(rng() % 5);
      in.mu = fmt::format("pmf(p=[{}])", pmf(n)), in.nu = fmt::format("pmf(p=[{}])", pmf(n));
      break;
    }
    case 5: {  // chains, long enough for the laws to agree below 1e-16 (and below the double range)
      const int a = 5000 + static_cast<int>(rng() % 4500), b = 5000 + static_cast<int>(rng() % 4500);  // in 1e-4
      const std::string k = fmt::format("K=[[{}, {}], [{}, {}]]", a / 1e4, (10000 - a) / 1e4, (10000 - b) / 1e4, b / 1e4);
      const long t = static_cast<long>(std::exp(std::log(5.0) + std::log(2000.0) * u(rng)));
      in.mu = fmt::format("chain({}, mu=[1, 0], t={})", k, t), in.nu = fmt::format("chain({}, mu=[0, 1], t={})", k, t);
      break;
    }
    case 6: {  // mixtures and clamps
      const std::string s = logu(0.3, 3);
      in.mu = fmt::format("mix(q={}, gaussian({}, {}), laplace(0, {}))", num(0.01, 0.99), num(-2, 2), s, s);
      in.nu = fmt::format("clamp(gaussian({}, {}), lo=-3, hi=3)", num(-1, 1), s);
      break;
    }
    case 10: {  // clamped pairs: atoms at the ends and a density between (the clipped mechanism)
      const std::string s = logu(0.2, 3), lo = num(-2, 0), hi = num(0.2, 3), base = rng() % 2 ? "gaussian" : "laplace";
      in.mu = fmt::format("clamp({}({}, {}), {}, {})", base, num(-2, 3), s, lo, hi);
      in.nu = fmt::format("clamp({}({}, {}), {}, {})", base, num(-2, 3), s, lo, hi);
      break;
    }
    case 7: {
      const std::string s = logu(0.5, 3);
      in.mu = fmt::format("shift(laplace(0, {}), by={})", s, num(0.1, 4)), in.nu = fmt::format("gaussian(0, {})", s);
      break;
    }
    case 9: {  // compositions of subsampled Gaussians (either direction), some with a second mechanism in sequence
      composed = true;
      auto sg = [&](const std::string& q, const std::string& s, const std::string& shift) {
        return fmt::format("mix(q={}, gaussian(0, {}), gaussian({}, {}))", q, s, shift, s);
      };
      const std::string q = logu(1e-3, 0.2), s = logu(0.5, 3), t = fmt::format("{}", 50 + rng() % 3000);
      std::string a = fmt::format("power({}, {})", sg(q, s, num(-2, 2)), t), b = fmt::format("power(gaussian(0, {}), {})", s, t);
      if (rng() % 3 == 0) {
        const std::string s2 = logu(0.5, 3), t2 = fmt::format("{}", 1 + rng() % 300);
        a = fmt::format("product({}, power({}, {}))", a, rng() % 2 ? sg(logu(1e-3, 0.2), s2, num(-2, 2)) : fmt::format("gaussian({}, {})", num(-1, 1), s2), t2);
        b = fmt::format("product({}, power(gaussian(0, {}), {}))", b, s2, t2);
      }
      if (rng() % 2) std::swap(a, b);
      in.mu = a, in.nu = b;
      break;
    }
    default: {  // sums of Laplaces: n equal scales, or two or three distinct ones; shifted, or against one Laplace
      std::string scales;
      if (rng() % 2) {
        const std::string b = logu(0.2, 3);
        const int n = 1 + static_cast<int>(rng() % 12);
        for (int k = 0; k < n; ++k) scales += (k ? ", " : "") + b;
      } else {
        double b = std::exp(std::log(0.2) + std::log(5.0) * u(rng));
        for (int k = 0, n = 2 + static_cast<int>(rng() % 2); k < n; ++k, b *= 1.2 + 2 * u(rng)) scales += fmt::format("{}{:.6g}", k ? ", " : "", b);
      }
      in.mu = fmt::format("laplace_sum({}, [{}])", num(-3, 3), scales);
      in.nu = rng() % 3 ? fmt::format("laplace_sum({}, [{}])", num(-1, 1), scales) : fmt::format("laplace(0, {})", logu(0.5, 4));
      break;
    }
  }
  if (composed) {  // the hockey-stick of the composed loss (Rényi values of compositions are sums of the releases')
    in.quantity = rng() % 4 ? Quantity::hockey_stick(std::exp(std::log(1e-2) + std::log(1e3) * u(rng))) : Quantity::tv();
    return in;
  }
  switch (rng() % 5) {
    case 0: in.quantity = Quantity::renyi(1 + std::exp(std::log(1e-3) + std::log(5e4) * u(rng))); break;
    case 1: in.quantity = Quantity::kl(); break;
    case 2: in.quantity = Quantity::tv(); break;
    case 3: in.quantity = Quantity::hockey_stick(std::exp(std::log(1e-3) + std::log(2e4) * u(rng))); break;
    default: in.quantity = Quantity::renyi_inf(); break;
  }
  return in;
}

// Whether two intervals share a point, in logs where the values underflow.
bool overlap(const verify::Estimate& a, const verify::Estimate& b) {
  if (std::isinf(a.value) || std::isinf(b.value)) return std::isinf(a.upper) && std::isinf(b.upper) ? true : a.upper >= b.lower && b.upper >= a.lower;
  const double slack = 1e-12;
  if (a.upper >= std::numeric_limits<double>::min() && b.upper >= std::numeric_limits<double>::min())
    return a.lower <= b.upper * (1 + slack) && b.lower <= a.upper * (1 + slack);
  return a.log_lower() <= b.log_upper() + slack && b.log_lower() <= a.log_upper() + slack;
}

std::string command(const Instance& in, Engine engine) {
  std::string flag;
  switch (in.quantity.kind) {
    case Quantity::Kind::renyi: flag = fmt::format("--renyi {}", in.quantity.parameter); break;
    case Quantity::Kind::hockey_stick: flag = fmt::format("--hockey-stick {}", in.quantity.parameter); break;
    case Quantity::Kind::renyi_inf: flag = "--renyi inf"; break;
    case Quantity::Kind::kl: flag = "--kl"; break;
    case Quantity::Kind::tv: flag = "--tv"; break;
  }
  return fmt::format("privamp divergence '{}' '{}' {} --engine {}", in.mu, in.nu, flag, verify::to_string(engine));
}

// What one instance did: the intervals checked, refused, missed; whether the certified reference refused.
struct Tally {
  long checked = 0, refused = 0, uncertified = 0, estimates = 0, estimate_misses = 0, compositions = 0;
};

// Every engine's interval on the instance against the certified enclosure.
void check_instance(const Instance& in, const std::string& label, Tally& t) {
  const sim::LawPtr mu = sim::parse_law(in.mu), nu = sim::parse_law(in.nu);
  verify::Estimate truth;
  try {
    verify::CertifiedOptions co;
    co.seconds = 10;
    if (verify::is_composition(*mu)) {  // through the composition's certified route (the contour enclosed in Arb)
      verify::DivergenceOptions o;
      o.engine = Engine::certified;
      truth = verify::compute_divergence(*mu, *nu, in.quantity, o);
      ++t.compositions;
    } else {
      truth = verify::certified_divergence(*mu, *nu, in.quantity, co);
    }
  } catch (const std::exception&) {
    ++t.uncertified;  // the reference itself refuses (a budget): nothing to check here
    return;
  }
  for (Engine engine : {Engine::automatic, Engine::quadrature, Engine::gsl}) {
    verify::DivergenceOptions o;
    o.engine = engine;
    verify::Estimate e;
    try {
      e = verify::compute_divergence(*mu, *nu, in.quantity, o);
    } catch (const InvalidArgument&) {
      ++t.refused;
      continue;
    } catch (const NumericalError&) {
      ++t.refused;
      continue;
    }
    ++t.checked;
    const bool met = overlap(e, truth);
    const std::string what = fmt::format("{}: {}\n  engine: {}\n  certified: {}", label, command(in, engine), test::describe(e),
                                         test::describe(truth));
    // Every label must meet the enclosure: "exact", "certified" and the quadratures' "a-posteriori" alike.
    INFO(what);
    CHECK(met);
    if (!met) ++t.estimate_misses;
    if (engine != Engine::automatic && e.error_kind == verify::ErrorKind::quadrature) ++t.estimates;
  }
}

}  // namespace

TEST_CASE("claims harness: every engine's interval meets the certified enclosure on random instances", "[claims]") {
  const long seed = env_number("PRIVAMP_CLAIMS_SEED", 1), count = env_number("PRIVAMP_CLAIMS_COUNT", 240);
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  Tally t;
  for (long i = 0; i < count; ++i) check_instance(draw(rng), fmt::format("seed {}, instance {}", seed, i), t);
  WARN(fmt::format("claims harness, seed {}: {} intervals checked against the certified engine ({} a-posteriori estimates of "
                   "explicit engines; {} composed instances), {} outside it, {} refusals, {} instances without a certified "
                   "reference", seed, t.checked, t.estimates, t.compositions, t.estimate_misses, t.refused, t.uncertified));
  CHECK(t.checked > count);  // most instances are checked by at least two engines
}

TEST_CASE("claims harness: the instances that once failed", "[claims]") {
  const std::vector<Instance> failed{
      // Seed 20784, instance 39: the quadrature's TV missed a region 0.74 wide where the loss of the sum exceeds 0
      // (four crossings, two between scan points): 0.17515975564 "a-posteriori", the truth 0.1752243814838 (mpmath).
      {"laplace_sum(0.976876, [0.95691, 0.95691, 0.95691, 0.95691, 0.95691, 0.95691, 0.95691])", "laplace(0, 2.35699)", Quantity::tv()},
      {"laplace_sum(0.976876, [0.95691, 0.95691, 0.95691, 0.95691, 0.95691, 0.95691, 0.95691])", "laplace(0, 2.35699)",
       Quantity::hockey_stick(0.1)},
  };
  Tally t;
  for (std::size_t i = 0; i < failed.size(); ++i) check_instance(failed[i], fmt::format("fixed instance {}", i), t);
  CHECK(t.checked == 3 * static_cast<long>(failed.size()));
  CHECK(t.estimate_misses == 0);
}
