// Benchmarks of `privamp explore` (issue targets): evaluations per second per core — the search's own evaluation
// (no second route, quadrature at 1e-9) — for a closed-form case (Gaussian chain, OU), quadrature cases
// (Poisson-subsampled Gaussian δ(ε'), iterated Laplace R_α) and a grid-propagated case (noisy projected SGD, 100
// steps); and a whole exploration of 10^4 evaluations of the quadrature case on two threads (target ≤ 10 s).
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <benchmark/benchmark.h>

#include "verify/cases/case.hpp"
#include "verify/explore/explore.hpp"
#include "verify/runner/runner.hpp"

using namespace privamp;

namespace {

// The cases (bench/explore_cases.toml).
const std::filesystem::path kCases = std::filesystem::path(PRIVAMP_SOURCE_DIR) / "bench" / "explore_cases.toml";

const verify::Case& find(const std::string& name) {
  static const std::vector<verify::Case> cases = verify::load_cases({kCases});
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
    const auto rows = verify::evaluate_point(c, c.with_derived(space.point(u)), {id}, o);
    for (const auto& row : rows)
      if (row.verdict == verify::Verdict::error) {  // a failed evaluation is fast and measures nothing
        state.SkipWithError(row.reason.c_str());
        return;
      }
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
