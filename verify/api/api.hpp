// The library's entry points shared by the command line and the Python module: each takes plain inputs (law
// expressions, numbers, matrices), runs the engines, and returns a result with its JSON form, so that every front
// end prints the same numbers. Errors are the engines' own: InvalidArgument (bad input, exit 2) and NumericalError
// (a computation that could not be finished, exit 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/kernels/finite_kernel.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/divergence/estimate.hpp"
#include "verify/divergence/worst_case.hpp"

namespace privamp::api {

// ---- divergences between two laws (`privamp divergence`) ----
// Limits of one divergence call (checked before any work): quantities (orders and epsilons together) and Monte
// Carlo samples.
inline constexpr std::size_t kMaxQuantities = 10'000;
inline constexpr long kMaxSamples = 100'000'000;

struct DivergenceRequest {
  std::vector<double> renyi;         // orders α > 1; +inf for R_∞
  std::vector<double> hockey_stick;  // ε ≥ 0
  bool kl = false, tv = false;
  std::string engine = "auto";       // auto | closed | sum | quadrature | gsl | mc
  double rel_tol = 1e-13;
  long samples = 1'000'000;  // at most kMaxSamples
  std::uint64_t seed = 1;
  double level = 0.99;
};

struct DivergenceResult {
  std::string p, q, engine;  // the laws' normalised expressions (as typed for tabulated laws)
  std::vector<verify::Quantity> quantities;
  std::vector<verify::Estimate> estimates;
  // Per quantity: why it has no value (it could not be computed; the others still are), or which ordering it
  // violates together with another value of the call (verify/divergence/consistency.hpp). Empty when fine.
  std::vector<std::string> errors;
  bool ok() const;
};

DivergenceResult divergence(const std::string& mu, const std::string& nu, const DivergenceRequest& request);
nlohmann::json to_json(const DivergenceResult& result);  // the stable object documented in the README

// ---- a finite Markov kernel (`privamp kernel`) ----
// A matrix from text: a JSON-style list of rows "[[0.5, 0.5], [0.1, 0.9]]", or CSV (one row per line).
sim::FiniteKernel parse_kernel(const std::string& text);
// From a file: .csv, .json, or .toml with a key K = [[...]].
sim::FiniteKernel read_kernel_file(const std::string& path);

struct KernelRequest {
  std::vector<double> eps;                      // (γ, ε)-Dobrushin coefficients at these ε
  std::optional<std::pair<double, double>> dp;  // (ε, δ) of the mechanism composed with K
  std::vector<double> eps_prime;                // where the amplified profile δ'(ε') is evaluated (needs dp)
  std::vector<double> renyi;                    // orders of the worst-case Rényi profile (needs dp)
};

struct ProfilePoint {
  double eps_prime;
  verify::WorstCase exact;                          // the worst case over all (ε, δ)-DP pairs and its map
  std::optional<verify::Estimate> cross;            // by output sets (kernels up to 16 states)
  std::vector<std::optional<double>> bounds;        // Theorem 1 (1)–(4) at ε': δ_i if ε' ≥ ε_i, else none
};

struct KernelResult {
  Eigen::MatrixXd matrix;
  sim::MixingCoefficients coefficients;
  double rounding = 0;  // absolute rounding bound of the coefficients (sums of at most `states` terms)
  std::vector<std::pair<double, double>> dobrushin_at;  // (ε, γ)
  std::optional<std::pair<double, double>> dp;
  std::vector<verify::Theorem1Point> theorem1;
  std::vector<ProfilePoint> profile;
  std::vector<std::pair<double, verify::WorstCase>> renyi;  // (α, worst case)
};

KernelResult kernel(const sim::FiniteKernel& kernel, const KernelRequest& request);
nlohmann::json to_json(const KernelResult& result);

// ---- the theorem catalogue over case files (`privamp verify`) ----
struct VerifyResult {
  std::string rows_json;  // the rows of results.json
  std::string summary;    // the summary table per theorem ID
  long violated = 0, errors = 0;
};
// Loads (and validates) every case file or directory, runs the points with `jobs` workers (0: the cores).
VerifyResult verify(const std::vector<std::string>& paths, const std::vector<std::string>& only, int jobs);

// ---- the law catalogue (`privamp laws`) ----
nlohmann::json laws();

}  // namespace privamp::api
