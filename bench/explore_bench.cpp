// Benchmarks of `privamp explore` (issue targets): evaluations per second per core — the search's own evaluation
// (no second route, quadrature at 1e-9) — for a closed-form case (Gaussian chain, OU), quadrature cases
// (Poisson-subsampled Gaussian δ(ε'), iterated Laplace R_α) and a grid-propagated case (noisy projected SGD, 100
// steps); and a whole exploration of 10^4 evaluations of the quadrature case on two threads (target ≤ 10 s).
#include <cmath>
#include <stdexcept>
#include <string>

#include <benchmark/benchmark.h>

#include "verify/cases/case.hpp"
#include "verify/explore/explore.hpp"
#include "verify/runner/runner.hpp"

using namespace privamp;

namespace {

const char* kCases = R"toml(
[[case]]
name = "gaussian"
bounds = ["T4.closed"]
mu = "gaussian_chain(x0={delta}, r={r}, L={L}, sigma={sigma})"
nu = "gaussian_chain(x0=0, r={r}, L={L}, sigma={sigma})"
quantity = "renyi"
order = "{alpha}"
[case.grid]
alpha = 2
delta = 1
sigma = 1
L = 0.9
r = 5
[case.explore]
L = {min = 0.3, max = 1}
r = {min = 1, max = 50, integer = true}

[[case]]
name = "ou"
bounds = ["C7"]
mu = "ou({delta}, {t}, {theta}, {rho})"
nu = "ou(0, {t}, {theta}, {rho})"
quantity = "renyi"
order = "{alpha}"
[case.grid]
alpha = 2
delta = 1
t = 1
theta = 1
rho = 1
[case.explore]
t = {min = 0.01, max = 10, scale = "log"}
theta = {min = 0.1, max = 5, scale = "log"}

[[case]]
name = "subsampled gaussian"
bounds = ["SUB.table"]
mu = "subsample(scheme=poisson, base=gaussian, side=1, q={q}, sigma={sigma})"
nu = "subsample(scheme=poisson, base=gaussian, side=0, q={q}, sigma={sigma})"
symmetric = true
quantity = "hockey_stick"
order = "{eps_prime}"
[case.grid]
scheme = "poisson"
base = "gaussian"
q = 0.01
sigma = 1
eps_prime = 0.5
[case.explore]
q = {min = 1e-4, max = 1, scale = "log"}
sigma = {min = 0.2, max = 10, scale = "log"}
eps_prime = {min = 0.001, max = 3, scale = "log"}

[[case]]
name = "iterated laplace"
bounds = ["E2"]
mu = "laplace_sum({delta}, [{lambda1}, {lambda2}])"
nu = "laplace_sum(0, [{lambda1}, {lambda2}])"
quantity = "renyi"
order = "{alpha}"
[case.grid]
alpha = 2
delta = 1
lambda1 = 1
lambda2 = 2
[case.explore]
alpha = {min = 1.1, max = 1000, scale = "log"}
delta = {min = 0.01, max = 10, scale = "log"}

[[case]]
name = "noisy sgd"
bounds = ["T5"]
mu = "noisy_sgd(n={n}, i={i}, zi={R}, eta={eta}, sigma={sigma}, lambda={lambda}, R={R}, cells={intervals})"
nu = "noisy_sgd(n={n}, i={i}, zi={-R}, eta={eta}, sigma={sigma}, lambda={lambda}, R={R}, cells={intervals})"
quantity = "renyi"
order = "{alpha}"
[case.grid]
n = 100
i = 95
eta = 0.5
sigma = 1
lambda = 1
R = 1
alpha = 2
intervals = 200
[case.explore]
eta = {min = 0.05, max = 1}
sigma = {min = 0.3, max = 10, scale = "log"}
)toml";

const verify::Case& find(const std::string& name) {
  static const std::vector<verify::Case> cases = verify::parse_cases(kCases, "bench");
  for (const auto& c : cases)
    if (c.name == name) return c;
  throw std::runtime_error(name);
}

// One search evaluation at point k of a Sobol-like sweep (distinct points: no cache helps).
void Evaluate(benchmark::State& state, const std::string& name, const std::string& id) {
  const verify::Case& c = find(name);
  const verify::SearchSpace space(c);
  verify::PointOptions o;
  o.cross_check = false;
  o.rel_tol = 1e-9;
  long k = 0;
  for (auto _ : state) {
    std::vector<double> u(space.dimension());
    for (std::size_t j = 0; j < u.size(); ++j) u[j] = std::fmod(0.5 + (k + 1) * (0.6180339887 + 0.1 * j), 1.0);
    ++k;
    benchmark::DoNotOptimize(verify::evaluate_point(c, c.with_derived(space.point(u)), {id}, o));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(Evaluate, closed_form_gaussian_chain, std::string("gaussian"), std::string("T4.closed"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(Evaluate, closed_form_ou, std::string("ou"), std::string("C7"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(Evaluate, quadrature_subsampled_gaussian, std::string("subsampled gaussian"), std::string("SUB.table"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(Evaluate, quadrature_iterated_laplace, std::string("iterated laplace"), std::string("E2"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(Evaluate, grid_noisy_sgd_100_steps, std::string("noisy sgd"), std::string("T5"))->Unit(benchmark::kMillisecond);

// A whole exploration: 10^4 evaluations of the subsampled Gaussian on two threads, loosest goal.
void ExploreQuadrature10k(benchmark::State& state) {
  const verify::Case& c = find("subsampled gaussian");
  verify::ExploreOptions o;
  o.budget = 10'000;
  o.jobs = 2;
  for (auto _ : state) benchmark::DoNotOptimize(verify::explore(c, "SUB.table", o));
  state.SetItemsProcessed(state.iterations() * o.budget);
}
BENCHMARK(ExploreQuadrature10k)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
