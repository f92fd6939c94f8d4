// SUB, SHUF, BLANKET — the talk's further results (Balle, "Privacy Amplification" slides). Subsampled laws are
// the process laws of sim/processes/subsampling (counting query, sensitivity 1; randomized response's report
// slot); the base mechanism's own profile δ(ε) enters the bounds through its closed form.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <Eigen/Core>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/special.hpp"
#include "verify/bounds/catalogue.hpp"
#include "sim/language/expression.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/laplace.hpp"
#include "sim/processes/shuffling.hpp"
#include "sim/random/rng.hpp"
#include "verify/divergence/closed_form.hpp"
#include "verify/divergence/engines.hpp"

namespace privamp::verify {

namespace {

const std::string kSlides = "Balle, Privacy Amplification (talk slides)";

// δ_M(ε) of the base mechanism on a counting query between datasets differing in k records (group privacy).
// δ(ε) of the base mechanism with an interval containing it: the closed forms' own error bars, and the rounding of
// ε itself (the level is computed in double from ε' and η): δ is non-increasing in ε, so its lower end is taken at
// the level rounded up and its upper end at the level rounded down.
struct BaseDelta {
  double value, lower, upper;
};
BaseDelta base_delta(const Params& p, double eps, double k = 1) {
  const std::string& base = p.word("base");
  const double slack = 8 * std::numeric_limits<double>::epsilon() * std::fabs(eps) + 1e-300;
  const double up = eps + slack, down = eps - slack;
  auto closed = [&](auto f) {
    const Estimate at = f(eps), hi = f(down), lo = f(up);
    return BaseDelta{at.value, std::min(at.lower, lo.lower), std::max(at.upper, hi.upper)};
  };
  if (base == "gaussian") return closed([&](double e) { return gaussian_hockey_stick(k, p.at("sigma"), e); });
  if (base == "laplace") return closed([&](double e) { return laplace_hockey_stick(k, p.at("scale"), e); });
  if (base == "rr" && k == 1) {  // binary randomized response: [p − e^ε (1 − p)]_+, p = e^{ε0}/(1 + e^{ε0})
    const double truthful = 1 / (1 + std::exp(-p.at("eps0")));
    auto delta = [&](double e) { return std::max(0.0, truthful - std::exp(e) * (1 - truthful)); };
    const double v = delta(eps), r = 4 * std::numeric_limits<double>::epsilon();
    return {v, std::max(0.0, delta(up) - r), delta(down) + r};
  }
  invalid_input("base = '{}': allowed gaussian, laplace, rr (one record)", base);
}

// η of the subsampling table for the scheme in the parameters.
double eta(const Params& p) {
  const std::string& scheme = p.word("scheme");
  if (scheme == "poisson") return p.at("q");
  if (scheme == "wor") return p.at("m") / p.at("n");
  if (scheme == "wr") return -std::expm1(p.at("m") * std::log1p(-1 / p.at("n")));  // 1 − (1 − 1/n)^m
  invalid_input("scheme = '{}': allowed poisson, wor, wr", scheme);
}

// Given the amplified ε', the base ε with e^{ε'} = 1 + η(e^ε − 1).
BoundValue subsampled(const Params& p) {
  const double h = eta(p), eps_prime = p.at("eps_prime");
  const double eps = std::log1p(std::expm1(eps_prime) / h);
  if (p.word("scheme") == "wr") {
    // δ' = Σ_{k≥1} C(m,k)(1/n)^k(1−1/n)^{m−k} δ_k(ε): the record drawn k times, group privacy for k records.
    const long m = static_cast<long>(p.at("m"));
    double delta = 0, lower = 0, upper = 0;
    for (long k = 1; k <= m; ++k) {
      const double w = std::exp(log_binomial_pmf(k, m, 1 / p.at("n")));
      const BaseDelta d = base_delta(p, eps, static_cast<double>(k));
      delta += w * d.value, lower += w * d.lower, upper += w * d.upper;
    }
    // The sum's weights and additions round at a few ulps per term.
    const double r = 4 * static_cast<double>(m + 2) * std::numeric_limits<double>::epsilon();
    return {delta, fmt::format("eta = {:.6g}, base eps = {:.6g}", h, eps), lower * (1 - r), upper * (1 + r)};
  }
  const BaseDelta d = base_delta(p, eps);
  const double r = 4 * std::numeric_limits<double>::epsilon();
  return {h * d.value, fmt::format("eta = {:.6g}, base eps = {:.6g}", h, eps), h * d.lower * (1 - r), h * d.upper * (1 + r)};
}

// The local randomizer of a case: randomized response on [k], or Laplace (scale 1/eps0) or Gaussian (sigma) on
// inputs [0, 1]; its outputs R(x) over the inputs (for the continuous ones, a grid of [0, 1] with both ends).
std::vector<sim::LawPtr> randomizer_outputs(const Params& p) {
  const std::string& r = p.word("randomizer");
  std::vector<sim::LawPtr> out;
  if (r == "rr") {
    const int k = static_cast<int>(p.at("k"));
    if (k < 2 || k > 10000) throw_invalid("BLANKET", "k", k, "2 <= k <= 10000");
    const double z = std::exp(p.at("eps0")) + k - 1;
    for (int x = 0; x < k; ++x) {
      std::vector<double> at, mass;
      for (int y = 0; y < k; ++y) at.push_back(y), mass.push_back((y == x ? std::exp(p.at("eps0")) : 1.0) / z);
      out.push_back(std::make_shared<sim::FiniteLaw>(at, Eigen::Map<const Eigen::VectorXd>(mass.data(), k)));
    }
    return out;
  }
  for (int i = 0; i <= 8; ++i) {
    const double x = i / 8.0;
    // (Parameters as the language would hold them from these values: the certified engine encloses the divergence of
    // the laws with these doubles, as it does for a law expression's laws; scale 1/eps0 is the double nearest it.)
    if (r == "laplace") {
      auto l = std::make_shared<sim::Laplace>(x, 1 / p.at("eps0"));
      l->set_parameters_exact();
      out.push_back(std::move(l));
    } else if (r == "gaussian") {
      auto g = std::make_shared<sim::Gaussian>(x, p.at("sigma"));
      g->set_parameters_exact();
      out.push_back(std::move(g));
    } else {
      invalid_input("randomizer = '{}': allowed rr, laplace, gaussian", r);
    }
  }
  return out;
}


// γ = ∫ min_x p_{R(x)}. Randomized response: a finite sum over the outputs of the least probability (exact, with its
// rounding). Laplace and Gaussian on inputs [0, 1]: the density at y decreases with |y − x|, so the minimum over the
// inputs is at the input farthest from y, an end: γ = ∫ min(p_{R(0)}, p_{R(1)}) = 1 − TV(R(0), R(1)), with TV
// enclosed by the certified engine (R(1/8), ..., R(7/8) never attain the minimum).
Estimate blanket_numerical(const Params& p) {
  const auto outputs = randomizer_outputs(p);
  if (outputs.front()->continuous_mass() == 0) {
    double sum = 0, slack = 0;
    for (const sim::Atom& a : outputs.front()->atoms()) {
      double lowest = a.log_mass;
      for (const auto& law : outputs) lowest = std::min(lowest, law->log_atom_mass(a.x));
      const double term = std::exp(lowest);
      sum += term;
      slack += term * (std::fabs(lowest) + 4) * 4 * std::numeric_limits<double>::epsilon();  // log, exp and the addition
    }
    return Estimate::from_value(sum, slack + sum * static_cast<double>(outputs.size() + 2) * std::numeric_limits<double>::epsilon(),
                                ErrorKind::exact, "finite sum over the outputs of the least output probability");
  }
  DivergenceOptions o;
  o.engine = Engine::certified;
  const Estimate tv = compute_divergence(*outputs.front(), *outputs.back(), Quantity::tv(), o);
  const double u = std::numeric_limits<double>::epsilon();
  return Estimate::from_interval(std::max(0.0, (1 - tv.upper) * (1 - u)), std::min(1.0, (1 - tv.lower) * (1 + u)), ErrorKind::certified,
                                 fmt::format("1 - TV(R(0), R(1)) (the least density is at an end of the inputs), TV by {}", tv.method));
}

// Second route for γ: Monte Carlo. With Y drawn from the first output R(x_0), γ = E[min_x p_{R(x)}(Y) / p_{R(x_0)}(Y)],
// a statistic in [0, 1]: Hoeffding's interval at level 1 − 1e-6 over 2·10^5 draws (half-width 0.006).
Estimate blanket_monte_carlo(const Params& p) {
  const auto outputs = randomizer_outputs(p);
  constexpr long n = 200'000;
  constexpr double level = 1 - 1e-6;
  sim::Rng rng(20261123);
  std::vector<double> y(n);
  outputs.front()->sample(rng, y);
  const bool atomic = outputs.front()->continuous_mass() == 0;
  auto log_p = [&](const sim::Law& law, double x) { return atomic ? law.log_atom_mass(x) : law.log_density(x); };
  double sum = 0;
  for (double x : y) {
    const double base = log_p(*outputs.front(), x);
    double lowest = base;
    for (const auto& o : outputs) lowest = std::min(lowest, log_p(*o, x));
    sum += std::exp(lowest - base);
  }
  const double half = std::sqrt(std::log(2 / (1 - level)) / (2.0 * n));
  Estimate e = Estimate::from_interval(std::max(0.0, sum / n - half), std::min(1.0, sum / n + half), ErrorKind::statistical,
                                       "Monte Carlo: E[min_x p_x(Y)/p_x0(Y)] over 2e5 draws of R(x0), Hoeffding");
  e.value = sum / n;
  e.level = level;
  e.work = n;
  return e;
}

// The smallest ε at which a non-increasing profile δ(ε) is ≤ δ, by bisection on [0, hi] to 1e-10 (absolute).
template <class Profile>
std::pair<double, double> invert_profile(Profile delta_of, double delta, double hi) {
  double lo = 0;
  if (delta_of(lo) <= delta) return {0.0, 0.0};
  while (delta_of(hi) > delta) hi *= 2;
  for (int k = 0; k < 200 && hi - lo > 1e-10; ++k) {
    const double mid = (lo + hi) / 2;
    (delta_of(mid) > delta ? lo : hi) = mid;
  }
  return {hi, hi - lo};
}

// The smallest ε at which a non-increasing profile δ(ε) is ≤ δ, from enclosures [lower, upper] of δ(ε): a point
// whose lower end exceeds δ lies below the answer, one whose upper end is ≤ δ at or above it; bisection stops at
// 1e-10 or where an enclosure straddles δ. The bracket returned contains the answer.
template <class Profile>
std::pair<double, double> invert_enclosed_profile(Profile enclosure_at, double delta, double hi) {
  double lo = 0;  // ε ≥ 0
  if (enclosure_at(lo).second <= delta) return {0.0, 0.0};
  for (int k = 0; enclosure_at(hi).second > delta; ++k) {
    if (k == 60) throw NumericalError(fmt::format("no eps up to {:.6g} has a hockey-stick below delta = {:.6g}", hi, delta));
    lo = hi, hi *= 2;
  }
  for (int k = 0; k < 200 && hi - lo > 1e-10; ++k) {
    const double mid = (lo + hi) / 2;
    const auto [lower, upper] = enclosure_at(mid);
    if (lower > delta) lo = mid;
    else if (upper <= delta) hi = mid;
    else break;  // the enclosure straddles δ: no finer bracket can be certified from it
  }
  return {lo, hi};
}

// Exact ε(δ) of shuffled binary randomized response (other users all 0, worse of the two directions): the
// profile from exact finite sums (enclosures), inverted by the bisection above; the interval is its bracket.
Estimate shuffled_epsilon(const Params& p) {
  const long n = static_cast<long>(p.at("n"));
  const auto a = sim::shuffled_rr_counts(n, p.at("eps0"), 0, 1), b = sim::shuffled_rr_counts(n, p.at("eps0"), 0, 0);
  ErrorKind kind = ErrorKind::exact;
  auto enclosure_at = [&](double eps) {
    const Quantity q = Quantity::hockey_stick(eps);
    const Estimate one_zero = compute_divergence(a, b, q), zero_one = compute_divergence(b, a, q);
    for (const Estimate* e : {&one_zero, &zero_one})
      if (e->error_kind != ErrorKind::exact) kind = ErrorKind::quadrature;
    return std::pair{std::max(one_zero.lower, zero_one.lower), std::max(one_zero.upper, zero_one.upper)};
  };
  const auto [lo, hi] = invert_enclosed_profile(enclosure_at, p.at("delta"), 1.0);
  return Estimate::from_interval(lo, hi, kind, "exact profile by finite sums, inverted by a bisection on its enclosures");
}

// Second route for ε(δ) of shuffled binary randomized response: the count law written out from its definition
// (Bin(n − 1, q) for the others, q = 1/(1 + e^{ε0}), plus the first user's Bernoulli) with std::lgamma instead of
// Loader's binomial pmf, the hockey-stick summed directly, the profile inverted by bisection. The pmf's logs carry
// ~eps·(n log n) ≈ 1e-10 of relative error at n = 10^4; δ(ε) falls by a factor e^{O(1)} per unit of ε there, so ε
// moves by ~1e-10: the 1e-6 added to each end is a wide margin (a cross-check, not the deciding engine).
Estimate shuffled_epsilon_direct(const Params& p) {
  const long n = static_cast<long>(p.at("n"));
  const double q = 1 / (1 + std::exp(p.at("eps0"))), pt = 1 - q;
  std::vector<double> others(static_cast<std::size_t>(n));  // Bin(k; n − 1, q), k = 0..n−1
  for (long k = 0; k < n; ++k)
    others[static_cast<std::size_t>(k)] =
        std::exp(std::lgamma(static_cast<double>(n)) - std::lgamma(k + 1.0) - std::lgamma(static_cast<double>(n - k)) +
                 static_cast<double>(k) * std::log(q) + static_cast<double>(n - 1 - k) * std::log1p(-q));
  auto at = [&](long k) { return k < 0 || k >= n ? 0.0 : others[static_cast<std::size_t>(k)]; };
  auto profile = [&](double eps) {
    const double w = std::exp(eps);
    double one_zero = 0, zero_one = 0;  // HS_ε(first = 1 ‖ first = 0) and the reverse
    for (long k = 0; k <= n; ++k) {
      const double p1 = pt * at(k - 1) + q * at(k), p0 = q * at(k - 1) + pt * at(k);
      one_zero += std::max(0.0, p1 - w * p0);
      zero_one += std::max(0.0, p0 - w * p1);
    }
    return std::max(one_zero, zero_one);
  };
  const auto [eps, bracket] = invert_profile(profile, p.at("delta"), 1.0);
  return Estimate::from_interval(std::max(0.0, eps - bracket - 1e-6), eps + 1e-6, ErrorKind::quadrature,
                                 "count law from lgamma, direct hockey-stick sums, bisection");
}

// What the subsampling table reads: the scheme with its rate (q, or m of n), the base mechanism with its scale.
std::vector<Parameter> subsampling_parameters() {
  return {number("eps_prime", 0),
          word("scheme", {"poisson", "wor", "wr"}),
          number("q", 0, 1).above(0).when("scheme", {"poisson"}),
          integer("m", 1, 1e6).when("scheme", {"wor", "wr"}),
          integer("n", 1, 1e15).when("scheme", {"wor", "wr"}),
          word("base", {"gaussian", "laplace", "rr"}),
          positive("sigma").when("base", {"gaussian"}),
          positive("scale").when("base", {"laplace"}),
          number("eps0", 0, kMaxLocalEpsilon).when("base", {"rr"})};
}

}  // namespace

void add_subsampling_shuffling_bounds(std::vector<BoundEntry>& out) {
  out.push_back({.id = "SUB.wor",
                 .family = "subsampling",
                 .source = kSlides + ", subsampling without replacement",
                 .statement = "WOR fraction gamma = m/n, substitute-one: M o S is (log(1+gamma(e^eps-1)), gamma delta)-DP",
                 .quantity = "hockey_stick(eps_prime)",
                 .check = DivergenceCheck{.quantity = Quantity::Kind::hockey_stick},
                 .parameters = subsampling_parameters(),
                 .bound = subsampled});
  out.push_back({.id = "SUB.table",
                 .family = "subsampling",
                 .source = kSlides + ", subsampling table",
                 .statement = "e^eps' = 1 + eta(e^eps - 1); Poisson: eta = q, delta' = q delta; WOR(n,m): eta = m/n, "
                              "delta' = (m/n) delta; WR(n,m): eta = 1-(1-1/n)^m, delta' = sum_k Bin(k; m, 1/n) delta_k",
                 .quantity = "hockey_stick(eps_prime)",
                 .check = DivergenceCheck{.quantity = Quantity::Kind::hockey_stick},
                 .parameters = subsampling_parameters(),
                 .bound = subsampled});
  out.push_back({.id = "SHUF.cor",
                 .family = "shuffling",
                 .source = kSlides + ", corollary of the shuffling bound",
                 .statement = "eps = O((eps0 ^ 1) e^eps0 sqrt(log(1/delta)/n)) for eps0 <= log(n/log(1/delta))/2; checked with "
                              "the constant SHUF.thm implies (its eps at delta), reporting the implied O-constant of the exact eps",
                 .quantity = "eps(delta)",
                 .check = ValueCheck{.exact = shuffled_epsilon, .cross = shuffled_epsilon_direct},
                 .parameters = {integer("n", 2, 1e6), number("eps0", 0, kMaxLocalEpsilon), number("delta", 0, 1).above(0)},
                 .not_applicable = [](const Params& p) -> std::optional<std::string> {
                   const double limit = std::log(p.at("n") / std::log(1 / p.at("delta"))) / 2;
                   if (p.at("eps0") > limit) return fmt::format("needs eps0 <= log(n/log(1/delta))/2 = {:.4g}", limit);
                   return std::nullopt;
                 },
                 .bound = [](const Params& p) {
                   const double n = p.at("n"), e0 = p.at("eps0"), delta = p.at("delta");
                   // SHUF.thm's bound (catalogue.toml) at eps, inverted: the smallest eps whose bound is <= delta
                   const BoundEntry& thm = find_bound("SHUF.thm");
                   Params at = p;
                   auto bound_at = [&](double e) {
                     if (!(e > 0)) return std::numeric_limits<double>::infinity();  // its 1/(e^eps - 1) at eps = 0
                     at.numbers["eps"] = e;
                     return thm.bound(at).value;
                   };
                   const auto [eps, bracket] = invert_profile(bound_at, delta, 1.0);
                   const double rate = std::min(e0, 1.0) * std::exp(e0) * std::sqrt(std::log(1 / delta) / n);
                   return BoundValue{eps + bracket, fmt::format("rate (eps0^1) e^eps0 sqrt(log(1/delta)/n) = {:.4g}; "
                                                                "implied constant of the bound {:.4g}", rate, (eps + bracket) / rate)};
                 }});
}

// The blanket's γ by quadrature, with a Monte Carlo second route (BLANKET in catalogue.toml).
void add_shuffling_routes(std::map<std::string, ExactRoute>& out) {
  out["blanket"] = {"gamma", blanket_numerical, blanket_monte_carlo,
                    {word("randomizer", {"rr", "laplace", "gaussian"}), integer("k", 2, 10000).when("randomizer", {"rr"}),
                     positive("eps0").when("randomizer", {"rr", "laplace"}), positive("sigma").when("randomizer", {"gaussian"})}};
}

}  // namespace privamp::verify
