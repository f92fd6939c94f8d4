// The library's entry points shared by the command line and the Python module: each takes plain inputs (law
// expressions, numbers, matrices), runs the engines, and returns a result with its JSON form, so that every front
// end prints the same numbers. Errors are the engines' own: InvalidArgument (bad input, exit 2) and NumericalError
// (a computation that could not be finished, exit 1).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/kernels/finite_kernel.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/explore/explore.hpp"
#include "verify/divergence/estimate.hpp"
#include "verify/divergence/worst_case.hpp"
#include "verify/records/codec.hpp"

namespace privamp::api {

// ---- divergences between two laws (`privamp divergence`) ----
// Limits of one divergence call (checked before any work): quantities (orders and epsilons together) and Monte
// Carlo samples.
inline constexpr std::size_t kMaxQuantities = 10'000;
inline constexpr long kMaxSamples = 100'000'000;
inline constexpr long kMinSamples = 100;  // a Monte Carlo run's least (its confidence interval needs them)
// With --engine mc every quantity draws its own samples and sets up its own sampler (a mixture's importance shift:
// about as long as 10^5 draws). The call's total, quantities times (samples + 10^5), is bounded too (10^9 draws:
// about a minute for a two-component mixture on one core), so a long list is refused up front.
inline constexpr double kMaxSampleTotal = 1e9, kSampleSetup = 1e5;

struct DivergenceRequest {
  std::vector<double> renyi;         // orders α > 1; +inf for R_∞
  std::vector<double> hockey_stick;  // ε ≥ 0
  bool kl = false, tv = false;
  std::string engine = "auto";       // auto | closed | sum | quadrature | gsl | mc | certified
  double rel_tol = 1e-13;
  long samples = 1'000'000;  // at most kMaxSamples
  std::uint64_t seed = 1;
  double level = 0.99;
  std::function<void(std::size_t done, std::size_t total)> progress;  // as values are computed (may be empty)
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

// An ε(δ) search evaluates the profile at about 32 points, both directions: 64 quantities per δ.
inline constexpr double kEpsilonSearchQuantities = 64;
// InvalidArgument where `quantities` Monte Carlo quantities of request.samples each (with --engine mc) would cost more
// than kMaxSampleTotal draws; `what` says what the quantities are ("10000 hockey-stick epsilons").
void check_monte_carlo_work(double quantities, const DivergenceRequest& request, const std::string& what);
// The same for `deltas` ε(δ) searches (kEpsilonSearchQuantities each): the command line's and Python's lists.
void check_epsilon_work(std::size_t deltas, const DivergenceRequest& request);

// ε(δ) of the pair: the smallest ε ≥ 0 with δ(ε) = max(H_ε(μ‖ν), H_ε(ν‖μ)) ≤ δ, as a bracket [lower, upper] by
// bisection on the profile's intervals (computed as `request` says; its quantities are ignored): δ(lower) is
// certainly above δ (its interval's lower end is) and δ(upper) certainly at most δ, so the true ε lies between. The
// bracket narrows to `rel_tol` or stops where the profile's own interval straddles δ (the method says so); its kind
// is the weakest kind of the profile intervals it used. InvalidArgument for δ outside (0, 1), eps_max outside
// (0, 10^6] or rel_tol outside [1e-15, 1), or when δ(eps_max) is still above δ; NumericalError when the profile's
// interval straddles δ before a bracket is found or a profile value cannot be computed.
verify::Estimate epsilon_for_delta(const std::string& mu, const std::string& nu, double delta, const DivergenceRequest& request,
                                   double eps_max = 1e3, double rel_tol = 1e-9);
// ε(δ) at each of `deltas`, one search after another, reporting request.progress per δ (the command line's
// --epsilon and account --delta lists; a progress that throws, a work limit, stops the list).
std::vector<verify::Estimate> epsilons_for_deltas(const std::string& mu, const std::string& nu, const std::vector<double>& deltas,
                                                  const DivergenceRequest& request, double eps_max = 1e3);
// Results as trees (verify/records/codec.hpp: ordered, non-finite numbers kept), built once here: the command line
// prints them (verify::sorted_json) and Python receives them as objects, so both front ends have the same keys.
verify::Tree to_tree(const DivergenceResult& result);  // the stable object documented in the README
// An estimate as the API writes it: its fields (verify/records/fields.hpp), error_kind "none" where the value was not
// computed.
verify::Tree estimate_tree(const verify::Estimate& e);
// eps(delta) as the API writes it: the estimate, its quantity ("epsilon(D)" with the delta D, as renyi(A) carries
// its order; "epsilon(delta)" when no delta is given) and the delta; several
// as the command line prints them ({"epsilon": [...]}, one per delta).
verify::Tree epsilon_tree(const verify::Estimate& e, std::optional<double> delta = std::nullopt);
verify::Tree epsilon_tree(const std::vector<verify::Estimate>& e, const std::vector<double>& deltas);
// The privacy profile δ(ε) = max(H_ε(μ‖ν), H_ε(ν‖μ)) at each ε of `request.hockey_stick` (its other quantities are
// ignored), both directions in one pass each, on two threads when a core is free. Per ε: the larger direction's
// estimate (chosen by its log: both may be below the double range), with lower/upper (and their logs) the larger
// ends of the two intervals, the weaker kind of interval and the smaller level. NumericalError naming ε and the
// direction when a value cannot be computed.
struct PrivacyProfile {
  std::string p, q;  // as DivergenceResult
  std::vector<double> eps;
  std::vector<verify::Estimate> delta;
  std::vector<bool> reversed;  // the larger value is H_ε(ν‖μ)
};
PrivacyProfile privacy_profile(const std::string& mu, const std::string& nu, const DivergenceRequest& request);

// ---- a finite Markov kernel (`privamp kernel`) ----
// A matrix from text: a JSON-style list of rows "[[0.5, 0.5], [0.1, 0.9]]", or CSV (one row per line).
sim::FiniteKernel parse_kernel(const std::string& text);
// From a file: .csv, .json, or .toml with a key K = [[...]].
sim::FiniteKernel read_kernel_file(const std::string& path);
// From rows of numbers (Python's nested lists or a NumPy array). `check_kernel_shape` refuses a shape before its
// numbers are copied: square, at least one and at most kMaxKernelStates states.
inline constexpr std::size_t kMaxKernelStates = 1024;  // its coefficients take O(states^3)
void check_kernel_shape(std::size_t rows, std::size_t columns);
sim::FiniteKernel kernel_from_rows(const std::vector<std::vector<double>>& rows);

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
verify::Tree to_tree(const KernelResult& result);

// ---- the theorem catalogue over case files (`privamp verify`) ----
struct VerifyRequest {
  std::vector<std::string> only;  // theorem IDs (empty: all)
  int jobs = 0;                   // workers (0: the cores)
  std::string out;                // when given: results.csv, results.json and report.md there, as `verify --out`
  std::string junit;              // when given: the JUnit XML report, as `verify --junit`
  std::string html;               // when given: index.html there, as `verify --html`
  std::string version, commit, command;  // what the reports say produced them
};
struct VerifyResult {
  std::vector<verify::Row> rows;
  std::string summary;  // the summary table per theorem ID
  long violated = 0, errors = 0;
  std::vector<std::string> notes;  // verify::unread_parameter_notes of the cases run
};
// Loads (and validates) every case file or directory (and checks the output paths) before anything runs.
VerifyResult verify(const std::vector<std::string>& paths, const VerifyRequest& request);

// ---- searches (`privamp explore`) ----
struct ExploreRequest {
  std::vector<std::string> targets;  // one case file or theorem ID; with `all`, files and directories (none: cases_dir)
  std::string case_name, id;         // only the case of this name, only this ID (empty: all)
  std::string cases_dir;             // where a theorem ID and `all` look for cases
  bool all = false;                  // every case with a [case.explore] table
};
// The cases a request reads and the (case index, ID) pairs it explores, in order; InvalidArgument when none.
struct ExploreSelection {
  std::vector<verify::Case> cases;
  std::vector<std::pair<std::size_t, std::string>> runs;
};
ExploreSelection select_explore(const ExploreRequest& request);
// How to search, as the command line and Python take it.
struct ExploreSettings {
  std::string goal = "loosest";
  double budget = 200, max_seconds = 0;
  long long seed = 1;
  int starts = 3, jobs = 0;  // jobs 0: the number of cores
  bool ignore_hypotheses = false;
  std::vector<std::string> where;
  std::string frontier;  // a parameter or derived quantity: the best ratio per bin of it
  int bins = 8;
};
// The search options of these settings; InvalidArgument naming the setting as its caller spells it (`prefix`
// "--" on the command line), its value and the range.
verify::ExploreOptions explore_options(const ExploreSettings& settings, const std::string& prefix = "");
struct ExploreRun {
  std::size_t case_index = 0;
  std::string id;
  std::string stem;               // the file stem of its outputs: distinct per run ("a b", "a_b" -> a_b, a_b-2)
  verify::FrontierResult result;  // a plain search fills .search only
  double seconds = 0;
};
struct ExploreHooks {
  std::function<std::function<void(std::size_t done, std::size_t total)>(const std::string& id)> progress;  // per run
  std::function<void(const ExploreRun&)> done;  // each run as it ends (the command writes its files then)
};
// What explore would refuse for any run of the selection (options, --where, --frontier), before any output is made.
void check_explore(const ExploreSelection& selection, const ExploreSettings& settings, const verify::ExploreOptions& options);
// Every run of the selection in order, with `options` (from explore_options, plus a communicator): the one loop of
// the command and Python.
std::vector<ExploreRun> explore(const ExploreSelection& selection, const ExploreSettings& settings,
                                verify::ExploreOptions options, const ExploreHooks& hooks = {});

// ---- the law catalogue (`privamp laws`) ----
// Per law: name, summary, example and params (name, kind, default, doc, allowed: a number's declared range or null).
verify::Tree laws();

}  // namespace privamp::api
