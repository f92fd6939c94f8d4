// Benchmarks of the divergence engines (issue targets):
//   δ(ε) of the Poisson-subsampled Gaussian (q = 0.01, σ = 1, worst of add/remove), ≤ 100 µs per value, ≤ 1e-12 rel.
//   R_α of the same mixture at α ∈ {2, 2.5, 10.5, 256}: ≤ 50 µs per order, ≤ 1e-12 relative.
//   The certified engine (Arb): time per value for each family it covers, and its ratio to the quadrature on the
//   subsampled Gaussian at α ≤ 100 (target: within 50×).
//   Monte Carlo privacy-loss samples per second (Gaussian pair) and importance-sampling efficiency at δ ≈ 1e-10.
//   GT.canonical worst-case search time for |X| = 10, 20, 30; SDE path-steps per second; privamp verify over
//   all cases (target ≤ 60 s on 2 cores) and per family; grid propagation of noisy SGD (n = 100 steps) at the
//   resolution for 1e-6 relative accuracy; the exact profile of shuffled randomized response at n = 10^4.
// Accuracy is reported as counters against 50-digit references computed once per benchmark:
//   max_rel_err  |value − reference| / reference, the largest over the points of the benchmark
//   max_rel_bar  the largest relative half-width of the reported intervals
#include <chrono>
#include <cmath>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <boost/math/special_functions/erf.hpp>

#include "numerics/real50.hpp"
#include "verify/api/api.hpp"
#include "sim/language/expression.hpp"
#include "sim/processes/diffusion.hpp"
#include "sim/processes/sgd.hpp"
#include "sim/processes/shuffling.hpp"
#include "verify/divergence/closed_form.hpp"
#include "verify/divergence/density_pair.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/divergence/worst_case.hpp"
#include "verify/runner/runner.hpp"

using namespace privamp;
using verify::Quantity;

namespace {

const double kQ = 0.01;
const double kEpsilons[] = {0.05, 0.2, 0.5, 1.0, 2.0, 3.0, 4.0};

Real50 sf50(const Real50& x) { return boost::math::erfc(Real50(x / sqrt(Real50(2)))) / 2; }

// Exact δ for the subsampled Gaussian by its single crossing (L is monotone), at 50 digits:
//   add:    μ = (1−q)N(0,1) + qN(1,1) vs ν = N(0,1), region x > x* = ½ + log((e^ε − 1 + q)/q)
//   remove: ν vs μ, region x < x** = ½ + log((e^{−ε} − 1 + q)/q) when e^{−ε} > 1 − q.
double delta_reference(double eps, bool add) {
  const Real50 q(kQ), e(eps), ee = exp(e);
  if (add) {
    const Real50 x = Real50("0.5") + log((ee - 1 + q) / q);
    return static_cast<double>((1 - q) * sf50(x) + q * sf50(x - 1) - ee * sf50(x));
  }
  const Real50 c = exp(-e) - 1 + q;
  if (c <= 0) return 0;
  const Real50 x = Real50("0.5") + log(c / q);
  auto cdf = [](const Real50& t) { return 1 - sf50(t); };
  return static_cast<double>(cdf(x) - ee * ((1 - q) * cdf(x) + q * cdf(x - 1)));
}

double renyi_reference(double alpha) {
  verify::DensityPair<Real50> d;
  const Real50 q(kQ);
  auto g = [](const Real50& x, const Real50& m) { return -(x - m) * (x - m) / 2 - log(sqrt(2 * boost::math::constants::pi<Real50>())); };
  d.log_p = [=](Real50 x) {
    const Real50 a = log(1 - q) + g(x, Real50(0)), b = log(q) + g(x, Real50(1));
    const Real50 m = a > b ? a : b;
    return Real50(m + log(exp(a - m) + exp(b - m)));
  };
  d.log_q = [=](Real50 x) { return g(x, Real50(0)); };
  d.anchors = {Real50(0), Real50(1)};
  d.rel_tol = Real50("1e-30");
  return static_cast<double>(verify::renyi_log_integral(d, Real50(alpha)).log_value / (alpha - 1));
}

// The accuracy of a benchmark's values against its references, reported beside the time: the largest relative error
// and the largest relative half-width of the intervals, and the time per value.
struct Accuracy {
  double max_err = 0, max_bar = 0;
  long values = 0;
  void add(const verify::Estimate& e, double reference) {
    benchmark::DoNotOptimize(e.value);
    max_err = std::max(max_err, std::fabs(e.value - reference) / reference);
    max_bar = std::max(max_bar, (e.upper - e.lower) / 2 / e.value);
    ++values;
  }
  void report(benchmark::State& state, const char* per_value) const {
    state.SetItemsProcessed(values);
    state.counters[per_value] = benchmark::Counter(static_cast<double>(values) / 1e6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["max_rel_err"] = max_err;
    state.counters["max_rel_bar"] = max_bar;
  }
};

// state.range(0): 0 = the quadrature, 1 = the monotone-loss closed form (engine auto; target ≤ 2 µs per value).
void SubsampledGaussianDelta(benchmark::State& state) {
  const auto mu = sim::parse_law("mix(0.01, gaussian(0, 1), gaussian(1, 1))"), nu = sim::parse_law("gaussian(0, 1)");
  verify::DivergenceOptions o;
  o.engine = state.range(0) == 0 ? verify::Engine::quadrature : verify::Engine::automatic;
  std::vector<double> reference;
  for (double e : kEpsilons) reference.push_back(std::max(delta_reference(e, true), delta_reference(e, false)));
  Accuracy accuracy;
  for (auto _ : state) {
    for (std::size_t i = 0; i < std::size(kEpsilons); ++i) {
      // One privacy-profile value: both directions, each from scratch (no work shared across calls).
      const auto add = verify::compute_divergence(*mu, *nu, Quantity::hockey_stick(kEpsilons[i]), o);
      const auto remove = verify::compute_divergence(*nu, *mu, Quantity::hockey_stick(kEpsilons[i]), o);
      accuracy.add(add.value >= remove.value ? add : remove, reference[i]);
    }
  }
  accuracy.report(state, "us_per_value");
}
BENCHMARK(SubsampledGaussianDelta)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void SubsampledGaussianDeltaProfile(benchmark::State& state) {
  // A whole privacy profile (100 values of ε) in one call: the loss scan is shared across the points.
  const auto mu = sim::parse_law("mix(0.01, gaussian(0, 1), gaussian(1, 1))"), nu = sim::parse_law("gaussian(0, 1)");
  std::vector<Quantity> qs;
  for (int i = 0; i < 100; ++i) qs.push_back(Quantity::hockey_stick(0.05 * i));
  verify::DivergenceOptions o;
  o.engine = verify::Engine::quadrature;
  for (auto _ : state) benchmark::DoNotOptimize(verify::compute_divergences(*mu, *nu, qs, o));
  state.SetItemsProcessed(static_cast<long>(state.iterations()) * 100);
}
BENCHMARK(SubsampledGaussianDeltaProfile)->Unit(benchmark::kMicrosecond);

void SubsampledGaussianRenyi(benchmark::State& state) {
  const auto mu = sim::parse_law("mix(0.01, gaussian(0, 1), gaussian(1, 1))"), nu = sim::parse_law("gaussian(0, 1)");
  const double alphas[] = {2, 2.5, 10.5, 256};
  std::vector<double> reference;
  for (double a : alphas) reference.push_back(renyi_reference(a));
  verify::DivergenceOptions o;
  o.engine = verify::Engine::quadrature;  // not the GT.sgm closed form: the general engine is what is measured
  Accuracy accuracy;
  for (auto _ : state)
    for (std::size_t i = 0; i < std::size(alphas); ++i)
      accuracy.add(verify::compute_divergence(*mu, *nu, Quantity::renyi(alphas[i]), o), reference[i]);
  accuracy.report(state, "us_per_order");
}
BENCHMARK(SubsampledGaussianRenyi)->Unit(benchmark::kMicrosecond);

// The certified engine per family: one value per iteration, the quantity given by the benchmark's argument.
void Certified(benchmark::State& state, const char* mu, const char* nu, Quantity quantity) {
  const auto p = sim::parse_law(mu), q = sim::parse_law(nu);
  verify::DivergenceOptions o;
  o.engine = verify::Engine::certified;
  double bits = 0;
  for (auto _ : state) {
    const auto e = verify::compute_divergence(*p, *q, quantity, o);
    benchmark::DoNotOptimize(e.value);
    bits = static_cast<double>(e.work);
  }
  state.counters["precision_bits"] = bits;
}
BENCHMARK_CAPTURE(Certified, subsampled_gaussian_renyi_10_5, "mix(0.01, gaussian(0, 1), gaussian(1, 1))", "gaussian(0, 1)",
                  Quantity::renyi(10.5))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Certified, subsampled_gaussian_renyi_496_24, "mix(0.00189, gaussian(0, 5.29), gaussian(1, 5.29))",
                  "gaussian(0, 5.29)", Quantity::renyi(496.24))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Certified, subsampled_gaussian_hs_1, "mix(0.01, gaussian(0, 1), gaussian(1, 1))", "gaussian(0, 1)",
                  Quantity::hockey_stick(1))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Certified, subsampled_laplace_renyi_3_3, "mix(0.2, laplace(0, 0.5), laplace(1, 0.5))", "laplace(0, 0.5)",
                  Quantity::renyi(3.3))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Certified, subsampled_laplace_kl, "mix(0.2, laplace(0, 0.5), laplace(1, 0.5))", "laplace(0, 0.5)",
                  Quantity::kl())->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Certified, binomial_mix_tv, "binomial_mix(m=10, p=0.01, law=gaussian(0, 1))", "gaussian(0, 1)",
                  Quantity::tv())->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Certified, clamp_renyi_inf, "clamp(gaussian(0.3, 1), lo=0, hi=1)", "clamp(gaussian(0, 1), lo=0, hi=1)",
                  Quantity::renyi_inf())->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Certified, chain_t2500_tv, "chain(K=[[0.9,0.1,0],[0,0.9,0.1],[0.1,0,0.9]], mu=[1,0,0], t=2500)",
                  "chain(K=[[0.9,0.1,0],[0,0.9,0.1],[0.1,0,0.9]], mu=[0,1,0], t=2500)", Quantity::tv())
    ->Unit(benchmark::kMillisecond);

// The certified engine against the quadrature on the subsampled Gaussian at α ≤ 100: the ratio of the times for
// the same orders (target ≤ 50).
void CertifiedOverQuadrature(benchmark::State& state) {
  const auto p = sim::parse_law("mix(0.01, gaussian(0, 1), gaussian(1, 1))"), q = sim::parse_law("gaussian(0, 1)");
  const double alphas[] = {2, 2.5, 10.5, 37.3, 100};
  auto seconds = [&](verify::Engine engine) {
    verify::DivergenceOptions o;
    o.engine = engine;
    const auto start = std::chrono::steady_clock::now();
    for (double a : alphas) benchmark::DoNotOptimize(verify::compute_divergence(*p, *q, Quantity::renyi(a), o).value);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double certified = 0, quadrature = 0;
  for (auto _ : state) {
    certified += seconds(verify::Engine::certified);
    quadrature += seconds(verify::Engine::quadrature);
  }
  state.counters["ratio"] = certified / quadrature;
  state.counters["certified_ms_per_value"] = 1e3 * certified / (static_cast<double>(state.iterations()) * std::size(alphas));
  state.counters["quadrature_ms_per_value"] = 1e3 * quadrature / (static_cast<double>(state.iterations()) * std::size(alphas));
}
BENCHMARK(CertifiedOverQuadrature)->Unit(benchmark::kMillisecond)->Iterations(5);

void MonteCarloGaussianLoss(benchmark::State& state) {
  const auto mu = sim::parse_law("gaussian(1, 1)"), nu = sim::parse_law("gaussian(0, 1)");
  verify::DivergenceOptions o;
  o.engine = verify::Engine::monte_carlo;
  o.monte_carlo.samples = 10'000'000;
  for (auto _ : state) benchmark::DoNotOptimize(verify::compute_divergence(*mu, *nu, Quantity::kl(), o).value);
  state.SetItemsProcessed(static_cast<long>(state.iterations()) * o.monte_carlo.samples);
}
BENCHMARK(MonteCarloGaussianLoss)->Unit(benchmark::kMillisecond);

void ImportanceSamplingEfficiency(benchmark::State& state) {
  // δ ≈ 1e-10 for the Gaussian pair (Δ = σ = 1, ε = 6.6). Efficiency = the plain-MC sample size that would give
  // the same standard error, δ(1−δ)/SE², divided by the samples used.
  const auto mu = sim::parse_law("gaussian(1, 1)"), nu = sim::parse_law("gaussian(0, 1)");
  const double eps = 6.6;
  const double exact = verify::gaussian_hockey_stick(1, 1, eps).value;
  verify::DivergenceOptions o;
  o.engine = verify::Engine::monte_carlo;
  o.monte_carlo.samples = 1'000'000;
  o.monte_carlo.level = 0.95;
  verify::Estimate e;
  for (auto _ : state) e = verify::compute_divergence(*mu, *nu, Quantity::hockey_stick(eps), o);
  const double se = (e.upper - e.lower) / 2 / 1.959963984540054;
  state.counters["delta"] = exact;
  state.counters["rel_err"] = std::fabs(e.value - exact) / exact;
  state.counters["rel_se"] = se / exact;
  state.counters["efficiency"] = exact * (1 - exact) / (se * se) / static_cast<double>(o.monte_carlo.samples);
}
BENCHMARK(ImportanceSamplingEfficiency)->Unit(benchmark::kMillisecond)->Iterations(3);

void WorstCaseAmplification(benchmark::State& state) {
  // GT.canonical: the exact worst case over all (ε,δ)-DP mechanisms of HS_ε'(μK‖νK), |X|^4 maps.
  const auto k = sim::random_dirichlet_kernel(static_cast<int>(state.range(0)), 0.5, 1);
  for (auto _ : state) benchmark::DoNotOptimize(verify::worst_case_amplification(k, 1.0, 1e-3, {0.5}).front().value.value);
  state.counters["maps"] = std::pow(static_cast<double>(state.range(0)), 4);
}
BENCHMARK(WorstCaseAmplification)->Arg(10)->Arg(20)->Arg(30)->Arg(64)->Unit(benchmark::kMillisecond);

void WorstCaseRenyi(benchmark::State& state) {
  // The exact worst-case R_2 over all (ε,δ)-DP mechanisms (privamp kernel --renyi): |X|^4 maps, logs per state.
  const auto k = sim::random_dirichlet_kernel(static_cast<int>(state.range(0)), 0.5, 1);
  for (auto _ : state) benchmark::DoNotOptimize(verify::worst_case_renyi(k, 1.0, 1e-3, {2.0}).front().value.value);
}
BENCHMARK(WorstCaseRenyi)->Arg(10)->Arg(20)->Arg(30)->Unit(benchmark::kMillisecond);

void WorstCaseByOutputSets(benchmark::State& state) {
  // The cross-check of the kernel cases: 2^|Y| output sets.
  const auto k = sim::random_dirichlet_kernel(static_cast<int>(state.range(0)), 0.5, 1);
  for (auto _ : state) benchmark::DoNotOptimize(verify::worst_case_by_output_sets(k, 1.0, 1e-3, 0.5).value);
}
BENCHMARK(WorstCaseByOutputSets)->Arg(8)->Arg(12)->Arg(16)->Unit(benchmark::kMillisecond);

void SdeSteps(benchmark::State& state) {
  // OU paths (θ = ρ = 1) with 100 steps each: path-steps per second for each scheme.
  const sim::OrnsteinUhlenbeck ou(1, 1);
  const auto scheme = static_cast<sim::SdeScheme>(state.range(0));
  const long paths = 100'000;
  for (auto _ : state)
    benchmark::DoNotOptimize(sim::simulate_terminal(ou.sde(), 1.0, 1.0, 100, scheme, paths, 3, &ou).back());
  state.SetItemsProcessed(static_cast<long>(state.iterations()) * paths * 100);
  state.SetLabel(state.range(0) == 0 ? "euler-maruyama" : state.range(0) == 1 ? "heun" : "exact");
}
BENCHMARK(SdeSteps)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// R_2 at index i = 50 of 1-D noisy projected SGD with n = 100 steps (η = 0.1, σ = 1, quadratic loss, R = 1)
// between z_i = ±1, from the laws propagated on `cells` cells: time for both laws and the divergence, and the
// relative error against a Richardson-extrapolated reference at 3200/6400 cells.
double sgd_renyi(int cells) {
  const sim::NoisySgd sgd{100, 0.1, 1.0, 1.0, 1.0, 0.0};
  verify::DivergenceOptions o;
  o.engine = verify::Engine::quadrature;
  const auto mu = sim::noisy_sgd_law(sgd, 50, 1.0, cells).to_grid_law(), nu = sim::noisy_sgd_law(sgd, 50, -1.0, cells).to_grid_law();
  return verify::compute_divergence(mu, nu, Quantity::renyi(2), o).value;
}

void NoisySgdGridPropagation(benchmark::State& state) {
  static const double reference = [] {
    const double coarse = sgd_renyi(3200), fine = sgd_renyi(6400);
    return fine + (fine - coarse) / 3;
  }();
  // range(1) = 1: Richardson from N and 2N cells, as the T5 cases do.
  const int cells = static_cast<int>(state.range(0));
  const bool richardson = state.range(1) == 1;
  double value = 0;
  for (auto _ : state) {
    value = sgd_renyi(cells);
    if (richardson) {
      const double fine = sgd_renyi(2 * cells);
      value = fine + (fine - value) / 3;
    }
  }
  state.counters["rel_err"] = std::fabs(value - reference) / reference;
}
BENCHMARK(NoisySgdGridPropagation)->ArgsProduct({{100, 200, 400, 800}, {0, 1}})->Unit(benchmark::kMillisecond);

// R_2 of noisy projected SGD with n = 1000 steps at the default resolution (400 cells, with 800 and 1600 for the
// error bar), as `privamp divergence 'noisy_sgd(n=1000, i=I, zi=1, eta=0.1)' 'noisy_sgd(..., zi=-1, ...)'` computes
// it: I = 1000 (the last index) and I = 1 (the first). η moves by 1e-12 per iteration so that no cache of an earlier
// iteration is reused. Target (issue 20): at least 10x faster than the 4-6 s this took before.
void NoisySgd1000Steps(benchmark::State& state) {
  const long i = state.range(0);
  long iteration = 0;
  double value = 0;
  for (auto _ : state) {
    const double eta = 0.1 + 1e-12 * static_cast<double>(++iteration);
    auto law = [&](int z) { return sim::parse_law(fmt::format("noisy_sgd(n=1000, i={}, zi={}, eta={:.17g})", i, z, eta)); };
    value = verify::compute_divergence(*law(1), *law(-1), Quantity::renyi(2)).value;
  }
  state.counters["value"] = value;
}
BENCHMARK(NoisySgd1000Steps)->Arg(1000)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

// A whole privacy curve (issue: "curves at the cost of a few points"): δ(ε) at 1,000 log-spaced ε in [0.1, 5], both
// directions, of DP-SGD composed T = 1,000 times (q = 0.004, σ = 1), as privacy_profile computes it in one call —
// neighbouring levels share a line of the contour, whose values are computed once. Counters: the seconds per value
// in one call, the same for 20 of the levels asked one call each (a line per level: the cost before lines were
// shared), their ratio, and the largest relative width of the 1,000 intervals. PRV's curve of 100 values took 3.8 s
// in the tour that asked for this (eps_error 0.01).
void ComposedCurve(benchmark::State& state) {
  const std::string mu = "power(mix(q=0.004, gaussian(0, 1), gaussian(1, 1)), 1000)", nu = "power(gaussian(0, 1), 1000)";
  api::DivergenceRequest all;
  for (int i = 0; i < 1000; ++i) all.hockey_stick.push_back(0.1 * std::pow(50.0, i / 999.0));
  double curve_seconds = 0, single_seconds = 0, widest = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    const api::PrivacyProfile p = api::privacy_profile(mu, nu, all);
    curve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const auto& d : p.delta) widest = std::max(widest, (d.upper - d.lower) / d.value);
    start = std::chrono::steady_clock::now();
    for (int i = 0; i < 1000; i += 50) {
      api::DivergenceRequest one;
      one.hockey_stick = {all.hockey_stick[static_cast<std::size_t>(i)]};
      benchmark::DoNotOptimize(api::privacy_profile(mu, nu, one));
    }
    single_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 20;
  }
  state.counters["curve_s_per_value"] = curve_seconds / 1000;
  state.counters["single_s_per_value"] = single_seconds;
  state.counters["speedup"] = single_seconds / (curve_seconds / 1000);
  state.counters["curve_s"] = curve_seconds;
  state.counters["widest_rel"] = widest;
}
BENCHMARK(ComposedCurve)->Unit(benchmark::kMillisecond)->Iterations(1);

// The same curve certified: 100 log-spaced ε in [0.1, 5], both directions, engine "certified" (issue 49's target:
// under 10 s). Counters: the seconds, the values whose enclosure is wider than 1e-6 relative (where one direction
// has only the lattices' bracket), and the largest relative width among the others.
void ComposedCertifiedCurve(benchmark::State& state) {
  const std::string mu = "power(mix(q=0.004, gaussian(0, 1), gaussian(1, 1)), 1000)", nu = "power(gaussian(0, 1), 1000)";
  api::DivergenceRequest all;
  all.engine = "certified";
  for (int i = 0; i < 100; ++i) all.hockey_stick.push_back(0.1 * std::pow(50.0, i / 99.0));
  double seconds = 0, widest = 0, wide = 0, certified = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const api::PrivacyProfile p = api::privacy_profile(mu, nu, all);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const auto& d : p.delta) {
      const double w = (d.upper - d.lower) / d.value;
      if (w > 1e-6) ++wide;
      else widest = std::max(widest, w);
      if (d.error_kind == verify::ErrorKind::certified) ++certified;
    }
  }
  state.counters["seconds"] = seconds;
  state.counters["certified_values"] = certified;
  state.counters["wider_than_1e-6"] = wide;
  state.counters["widest_rel_of_the_rest"] = widest;
}
BENCHMARK(ComposedCertifiedCurve)->Unit(benchmark::kMillisecond)->Iterations(1);

// The exact δ(ε) of shuffled k-ary randomized response at n = 10^4, ε0 = 1, at ten ε (worse of both directions),
// laws built from scratch each time.
// Compositions (DP-SGD accountants): ε at δ = 1e-5 of the Poisson-subsampled Gaussian composed T times, q = 0.01,
// σ = 1 (state.range(0) = T), q = 0.004, σ = 0.9 (range(1) = 1) and a heterogeneous sequence (range(1) = 2), as a
// user gets it: `privamp divergence ...
// --epsilon 1e-5` (api::epsilon_for_delta: both directions, the bracketed root search on the profile's intervals) to
// a bracket 1e-6 relative; range(2) = 1 asks the certified engine. Counters: the bracket's relative width, the
// profile evaluations (each both directions), ε itself. PRV (eps_error 0.01) takes 0.28 s and dp_accounting's PLD
// 7.6 s at T = 1000 on this machine's class of hardware (issue 31).
void ComposedSubsampledGaussianEpsilon(benchmark::State& state) {
  const long t = state.range(0);
  const bool second = state.range(1) == 1;
  const double q = second ? 0.004 : 0.01, sigma = second ? 0.9 : 1;
  std::string mu = fmt::format("power(mix(q={}, gaussian(0, {}), gaussian(1, {})), {})", q, sigma, sigma, t);
  std::string nu = fmt::format("power(gaussian(0, {}), {})", sigma, t);
  if (state.range(1) == 2) {  // a heterogeneous sequence: T steps at q = 0.01, σ = 1, then T at q = 0.02, σ = 2
    mu = fmt::format("product({}, power(mix(q=0.02, gaussian(0, 2), gaussian(1, 2)), {}))", mu, t);
    nu = fmt::format("product({}, power(gaussian(0, 2), {}))", nu, t);
  }
  api::DivergenceRequest request;
  if (state.range(2) == 1) request.engine = "certified";
  verify::Estimate e;
  for (auto _ : state) e = api::epsilon_for_delta(mu, nu, 1e-5, request, 1e3, 1e-6);
  state.counters["eps"] = e.value;
  state.counters["rel_width"] = (e.upper - e.lower) / e.upper;
  state.counters["evaluations"] = static_cast<double>(e.work);
  state.counters["certified"] = e.error_kind == verify::ErrorKind::certified ? 1 : 0;
}
BENCHMARK(ComposedSubsampledGaussianEpsilon)->ArgsProduct({{1000, 10000, 100000, 1000000}, {0}, {0}})->Args({10000, 1, 0})->Args({1000, 2, 0})->Args({1000, 0, 1})
    ->Unit(benchmark::kMillisecond)->Iterations(1);

// Privacy-loss lattices (certified brackets where the contour refuses): ε(δ = 1e-5) of composed Laplace releases
// (noise multiplier 2) at T releases, and DP-SGD at 10 steps (q = 0.01, σ = 1) with the certified engine (arg 0);
// counters: the bracket's relative width and whether it is certified.
void ComposedLatticesEpsilon(benchmark::State& state) {
  const long t = state.range(0);
  std::string mu = fmt::format("power(laplace(0, 2), {})", t), nu = fmt::format("power(laplace(1, 2), {})", t);
  api::DivergenceRequest request;
  if (t == 0) {
    mu = "power(mix(q=0.01, gaussian(0, 1), gaussian(1, 1)), 10)", nu = "power(gaussian(0, 1), 10)";
    request.engine = "certified";
  }
  verify::Estimate e;
  for (auto _ : state) e = api::epsilon_for_delta(mu, nu, 1e-5, request, 1e3, 1e-6);
  state.counters["eps"] = e.value;
  state.counters["rel_width"] = (e.upper - e.lower) / e.upper;
  state.counters["certified"] = e.error_kind == verify::ErrorKind::certified ? 1 : 0;
}
BENCHMARK(ComposedLatticesEpsilon)->Arg(10)->Arg(100)->Arg(1000)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(1);

// A whole curve from one composed lattice: δ(ε) at 1,000 levels of 100 Laplace releases in one call; the counter
// gives the cost per level after the first (the lattices are built once, each level is a lookup).
void ComposedLatticesCurve(benchmark::State& state) {
  const auto mu = sim::parse_law("power(laplace(0, 1), 100)"), nu = sim::parse_law("power(laplace(1, 1), 100)");
  std::vector<Quantity> levels;
  for (int k = 0; k < 1000; ++k) levels.push_back(Quantity::hockey_stick(0.08 * k));
  double first = 0, all = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(verify::compute_divergence(*mu, *nu, levels.front()));
    first = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(verify::compute_divergences(*mu, *nu, levels));
    all = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["first_level_s"] = first;
  state.counters["per_level_us"] = 1e6 * all / static_cast<double>(levels.size());
}
BENCHMARK(ComposedLatticesCurve)->Unit(benchmark::kMillisecond)->Iterations(1);

void ShuffledRrProfile(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0));
  for (auto _ : state) {
    const auto p = sim::shuffled_krr_counts(10'000, k, 1.0, 1), q = sim::shuffled_krr_counts(10'000, k, 1.0, 0);
    for (int j = 0; j < 10; ++j) {
      const auto hs = Quantity::hockey_stick(0.01 * j);
      benchmark::DoNotOptimize(std::max(verify::compute_divergence(p, q, hs).value, verify::compute_divergence(q, p, hs).value));
    }
    state.counters["atoms"] = static_cast<double>(p.atoms().size());
  }
}
BENCHMARK(ShuffledRrProfile)->Arg(2)->Arg(3)->Arg(10)->Unit(benchmark::kMillisecond);

void VerifyAllCases(benchmark::State& state) {
  // The main job: every case in cases/ with 2 workers (the 2-core target is 60 s).
  const auto cases = verify::load_cases({std::filesystem::path(PRIVAMP_SOURCE_DIR) / "cases"});
  verify::RunOptions o;
  o.jobs = 2;
  std::size_t rows = 0;
  for (auto _ : state) rows = verify::run_cases(cases, o).size();
  state.counters["rows"] = static_cast<double>(rows);
}
BENCHMARK(VerifyAllCases)->Unit(benchmark::kMillisecond)->Iterations(3);

void VerifyFamily(benchmark::State& state, const char* file) {
  const auto cases = verify::load_cases({std::filesystem::path(PRIVAMP_SOURCE_DIR) / "cases" / file});
  for (auto _ : state) benchmark::DoNotOptimize(verify::run_cases(cases, {}).size());
}
BENCHMARK_CAPTURE(VerifyFamily, couplings, "couplings.toml")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(VerifyFamily, noisy_sgd, "noisy_sgd.toml")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(VerifyFamily, mixing, "mixing.toml")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(VerifyFamily, shuffling, "shuffling.toml")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(VerifyFamily, subsampling, "subsampling.toml")->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
