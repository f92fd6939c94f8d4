// A mutation fuzzer for what users type: law expressions, formulas, case files ([[case]] with [case.explore],
// [[bound]] tables, [[figure]] tables), and kernel matrices. Deterministic (the mutations come from
// --seed), bounded (--iterations, and --seconds as a safety stop), seeded with valid inputs and with the inputs
// that once crashed or hung (deep brackets, subnormal and huge numbers, nested shifts). Every input must either
// be refused with InvalidArgument / NumericalError, or give laws whose divergences are intervals without NaN
// (lower ≤ value ≤ upper; hockey-stick and TV at most 1). Anything else — another exception, a crash, a sanitizer
// report — fails, printing the input.
//
//   privamp_fuzz [--iterations N] [--seconds S] [--seed K] [--cases DIR]...   (each DIR's *.toml are seeds too)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <unistd.h>

#include "support/cases.hpp"
#include "support/scratch.hpp"
#include "numerics/errors.hpp"
#include "plots/figures.hpp"
#include "verify/api/api.hpp"
#include "sim/language/expression.hpp"
#include "verify/cases/case.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;

namespace {

// Cheap laws: mutated, they are built and their divergences computed.
const std::vector<std::string> kComputedSeeds = {
    "gaussian(1, 1)", "gaussian(loc=0.5, sigma=2)", "laplace(1, 1)", "laplace(loc=0, scale=0.5)",
    "mix(q=0.01, gaussian(0, 1), gaussian(1, 1))", "mixture(weights=[0.9, 0.1], laws=[gaussian(0, 1), laplace(3, 1)])",
    "laplace_sum(loc=1, scales=[1, 2])", "laplace_nfold(n=5, loc=0.1, scale=1)", "shift(laplace(0, 1), by=2)",
    "clamp(gaussian(0.3, 1), lo=0, hi=1)", "pmf(p=[0.2, 0.5, 0.3])", "pmf(p=[0.5, 0.5], at=[0, 2])",
    "grid(x0=0, dx=0.5, density=[0, 1, 0], atoms=[2], masses=[0.5])", "ou(x0=1, t=0.5, theta=2, rho=1)",
    "brownian(x0=1, t=0.25)", "gaussian_chain(x0=1, r=5, L=0.9, sigma=1)",
    "chain(K=[[0.9, 0.1], [0.2, 0.8]], mu=[1, 0], t=3)", "binomial_mix(m=10, p=0.01, law=gaussian(0, 1))",
    "subsample(scheme=poisson, base=gaussian, q=0.01)", "blanket([laplace(0, 1), laplace(1, 1)])",
    "projected_chain(x0=1, r=3, map=tanh, L=0.9, cells=32)", "noisy_sgd(n=5, i=2, zi=1, eta=0.2, cells=32)",
    "double_well(x0=1, t=0.5, cells=40)", "shuffled_rr(n=50, eps0=1, first=1)",
    // Inputs that once crashed, hung or gave nonsense.
    "gaussian(loc=1, sigma=5e-324)", "gaussian(loc=1e300, sigma=2)", "gaussian(1, 1e-20)",
    "shift(shift(shift(shift(laplace(0, 1), by=1), by=1), by=1), by=1)", "shift(laplace(0, 1), by=1e17)",
    "gaussian([[[[[[[[[[1]]]]]]]]]], 1)", "pmf(p=[0.5, 0.5000000001])", "noisy_sgd(n=10, i=1, zi=1, eta=1e-300)",
};
// Expensive laws: mutated, only their syntax is checked (a mutation may ask for minutes of work within limits).
const std::vector<std::string> kSyntaxSeeds = {
    "shuffled_krr(n=1000, k=4, eps0=1, first=1)", "subsample(scheme=wr, base=laplace, n=50, m=20)",
    "noisy_sgd(n=20, i=5, zi=1, eta=0.2, loss=logistic, lambda=0.5)", "gaussian_nd(loc=[1, 0, 2], sigma=1)",
    "ou_nd(x0=[1, 0], t=1, theta=1, rho=1)",
};
// Formulas of [[bound]] tables and figure scales, with the inputs that once hung or crashed.
const std::vector<std::string> kFormulaSeeds = {
    "alpha * Delta^2 / (4 * n * b^2)", "sum(k, 1, n, 1 / k^2)", "if(n >= 2, log1p(n), expm1(-n))",
    "n * renyi(laplace(Delta/n, b), laplace(0, b), alpha)", "binom(n, 2) * Phi(-Delta) + lgamma(n)",
    "sum(k, 1e17, 1e17, 1)", "sum(k, 0, 1e6, sum(j, 0, 1e6, 1))", "0+0+0+0+0+0+0+0+0+0+0+0+0+0+0+0+0+0+0+0",
    "default(q, 0.5) * max(n, 2) - min(b, 3)", "1/0", "noise == laplace",
};
// Whole documents for the newer surfaces.
const std::vector<std::string> kDocumentSeeds = {
    R"toml([[bound]]
id = "FZ.a"
quantity = "renyi"
requires = ["n >= 1"]
formula = "sum(k, 1, n, alpha / k^2)"
[[case]]
name = "fuzz case"
bounds = ["FZ.a"]
mu = "gaussian({Delta}, 1)"
nu = "gaussian(0, 1)"
quantity = "renyi"
order = "{alpha}"
[case.grid]
n = [1, 2]
Delta = 1
alpha = {from = 2, to = 8, points = 3, scale = "log"}
[case.explore]
alpha = {min = 1.5, max = 100, scale = "log"}
n = {min = 1, max = 10, integer = true}
)toml",
    R"toml([[case]]
name = "fuzz kernel"
bounds = ["T1.1"]
kind = "kernel"
kernel = "dirichlet"
quantity = "hockey_stick"
order = "{eps}"
[case.grid]
states = 4
concentration = 1
seed = 3
eps = 1
delta = 0.01
)toml",
    test::case_text({.name = "fuzz figure case", .grid = "alpha = [2, 4]\ndelta = 1\nsigma1 = 1\nsigma2 = 0\n"}) + R"toml([[figure]]
name = "fuzzfig"
title = "a title's 'quotes'"
x = "alpha"
log = "xy"
key = {position = "top left", box = true, columns = 2}
[[figure.series]]
case = "fuzz figure case"
id = "E1"
y = "ratio"
where = {delta = 1}
scale = "1/alpha"
)toml",
};
const std::vector<std::string> kKernelSeeds = {
    "[[0.9, 0.1], [0.2, 0.8]]", "[[1, 0, 0], [0, 1, 0], [0.3, 0.3, 0.4]]", "0.5,0.5\n0.25,0.75\n", "[[NaN, 1], [1, 0]]",
    "[[1/3, 2/3], [0.5, 0.5]]", "[[[[[[[[[[1]]]]]]]]]]",
};
const std::vector<std::string> kTokens = {"0", "-1", "1e400", "nan", "inf", "5e-324", "1e-300", "1e300", "1e17",
                                          "0.5", "100000", "2.5", "-0", "[", "]", "(", ")", ",", "=", "[[[[[[[["};

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : rng_(seed) {}
  std::string operator()(std::string s) {
    const int rounds = 1 + static_cast<int>(pick(3));
    for (int r = 0; r < rounds; ++r) {
      const std::size_t n = s.size();
      switch (pick(6)) {
        case 0: {  // replace a number-like run by a token
          const std::size_t at = pick(n + 1);
          std::size_t end = at;
          while (end < n && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.' || s[end] == 'e' || s[end] == '-')) ++end;
          s.replace(at, end - at, kTokens[pick(kTokens.size())]);
          break;
        }
        case 1: s.insert(pick(n + 1), 1, "[](),=.-e0123456789 abqxyz_"[pick(27)]); break;
        case 2:
          if (n > 0) {
            const std::size_t at = pick(n);
            s.erase(at, 1 + pick(std::min<std::size_t>(8, n - at)));
          }
          break;
        case 3:
          if (n > 0) {
            const std::size_t at = pick(n), len = 1 + pick(std::min<std::size_t>(40, n - at));
            s.insert(pick(n + 1), s.substr(at, len));
          }
          break;
        case 4: {
          const std::size_t depth = 1 + pick(200), at = pick(n + 1);
          s.insert(at, std::string(depth, '['));
          s.insert(at + depth + pick(n - at + 1), std::string(depth, ']'));
          break;
        }
        default:
          if (n > 1) std::swap(s[pick(n)], s[pick(n)]);
      }
    }
    return s;
  }
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

 private:
  std::mt19937_64 rng_;
};

struct Failure {
  std::string what, input;
};

void check_estimate(const verify::Estimate& e, const verify::Quantity& q) {
  const bool nan = std::isnan(e.value) || std::isnan(e.lower) || std::isnan(e.upper) || std::isnan(e.log_value());
  if (nan) throw Failure{"NaN in an estimate (" + q.label() + ", " + e.method + ")", ""};
  if (!(e.lower <= e.value && e.value <= e.upper)) throw Failure{"interval out of order (" + q.label() + ")", ""};
  const bool bounded = q.kind == verify::Quantity::Kind::hockey_stick || q.kind == verify::Quantity::Kind::tv;
  if (bounded && e.value > 1 + 1e-9) throw Failure{"a hockey-stick value above 1 (" + q.label() + ")", ""};
}

void run_law(const std::string& text, bool compute) {
  if (!compute) {
    sim::check_law_syntax(text);
    return;
  }
  const sim::LawPtr p = sim::parse_law(text);
  if (p->dimension() != 1) return;
  static const sim::LawPtr partner = sim::parse_law("gaussian(0.2, 1.5)");
  const std::vector<verify::Quantity> qs = {verify::Quantity::tv(), verify::Quantity::hockey_stick(0.5),
                                            verify::Quantity::renyi(2), verify::Quantity::kl()};
  for (const auto& [a, b] : {std::pair{p, partner}, std::pair{partner, p}}) {
    try {
      const auto es = verify::compute_divergences(*a, *b, qs);
      for (std::size_t k = 0; k < qs.size(); ++k) check_estimate(es[k], qs[k]);
    } catch (const InvalidArgument&) {
    } catch (const NumericalError&) {
    }
  }
}

void run_case_file(const std::string& text) { verify::parse_cases(text, "fuzzed.toml"); }

void run_formula(const std::string& text) {
  verify::Params p;
  p.numbers = {{"n", 3}, {"alpha", 2}, {"Delta", 1}, {"b", 1}, {"q", 0.1}};
  p.words = {{"noise", "laplace"}};
  verify::check_formula_work(text, p);
  const double v = verify::evaluate_formula(text, p);
  if (std::isnan(v)) throw Failure{"a formula evaluated to NaN without a message", ""};
}

// Figures are read from files (with their cases): one file in this process's scratch directory, rewritten per input.
void run_figure_file(const std::string& text) {
  const plots::FigureSet set = plots::load_figures({test::scratch_file("figures.toml", text)});
  for (const auto& f : set.figures) {
    if (plots::has_control_character(f.title) || plots::has_control_character(f.xlabel) || plots::has_control_character(f.ylabel))
      throw Failure{"a control character reached a figure's text", ""};
    const std::string key = f.key.render();
    if (key.find_first_of("'\";`@\n") != std::string::npos) throw Failure{"a key renders a quote or a command", ""};
  }
}

void run_kernel(const std::string& text) {
  const sim::FiniteKernel k = api::parse_kernel(text);
  api::KernelRequest r;
  r.eps = {0.5};
  api::kernel(k, r);
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = 3000;
  double seconds = 60;
  std::uint64_t seed = 1;
  std::vector<std::filesystem::path> case_dirs;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--iterations") iterations = std::stol(value);
    else if (flag == "--seconds") seconds = std::stod(value);
    else if (flag == "--seed") seed = std::stoull(value);
    else if (flag == "--cases") case_dirs.emplace_back(value);
    else {
      std::cerr << "usage: privamp_fuzz [--iterations N] [--seconds S] [--seed K] [--cases DIR]...\n";
      return 2;
    }
  }
  std::vector<std::string> case_seeds = kDocumentSeeds;
  for (const auto& dir : case_dirs)
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".toml") {
        std::ifstream in(e.path());
        std::stringstream ss;
        ss << in.rdbuf();
        case_seeds.push_back(ss.str());
      }
  Mutator mutate(seed);
  const auto start = std::chrono::steady_clock::now();
  long tried = 0, refused = 0;
  for (long it = 0; it < iterations; ++it) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) break;
    const std::size_t kind = mutate.pick(6);
    std::string input;
    try {
      switch (kind) {
        case 0: run_law(input = mutate(kComputedSeeds[mutate.pick(kComputedSeeds.size())]), true); break;
        case 1: run_law(input = mutate(kSyntaxSeeds[mutate.pick(kSyntaxSeeds.size())]), false); break;
        case 2: run_case_file(input = mutate(case_seeds[mutate.pick(case_seeds.size())])); break;
        case 3: run_formula(input = mutate(kFormulaSeeds[mutate.pick(kFormulaSeeds.size())])); break;
        case 4: run_figure_file(input = mutate(kDocumentSeeds[2])); break;
        default: run_kernel(input = mutate(kKernelSeeds[mutate.pick(kKernelSeeds.size())])); break;
      }
    } catch (const InvalidArgument&) {
      ++refused;
    } catch (const NumericalError&) {
      ++refused;
    } catch (const Failure& f) {
      std::cerr << "fuzz: " << f.what << "\n  input: " << input << "\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "fuzz: unexpected exception: " << e.what() << "\n  input: " << input << "\n";
      return 1;
    }
    ++tried;
  }
  std::cout << fmt::format("fuzz: {} inputs ({} refused with a message), seed {}, {:.1f} s\n", tried, refused, seed,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}
