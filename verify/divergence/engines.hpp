// The divergence engines and the one entry point that picks among them.
//
//   closed_form  the GT formulas (closed_form.hpp) for the pairs they cover
//   finite_sum   exact sums over atoms in log-space (pmfs, shuffled counts)
//   quadrature   atoms by exact sums + densities by log-space adaptive Gauss–Kronrod (Boost.Math), any 1-D laws
//   gsl          atoms by exact sums + densities by GSL QAG/QAGIU/QAGIL: an independent cross-check
//   certified    rigorous enclosures in ball arithmetic (Arb) for the laws with exact forms (certified.hpp)
//   monte_carlo  samples of μ with the exact privacy loss; empirical-Bernstein or CLT intervals; importance
//                sampling by shifting μ towards the region {L > ε} for small hockey-stick values
//   automatic    closed form if the pair has one, finite sum if both laws are finite, quadrature otherwise; an
//                estimate (a-posteriori, or below the double range) is then arbitrated by the certified engine where
//                it covers the pair within its budget (units of work, about 2 s; not wall-clock time, so the answer
//                does not depend on the load): its enclosure answers where sharp, decides where the two disagree,
//                and bounds the estimate otherwise
// Every result passes one check on the way out (compute_divergences): its value inside its own interval and the
// quantity's range, or the engine's bug is refused, never printed.
//
// The policy, as the code runs it. compute_divergences takes a pair through these steps in order:
//   1. compositions (power, product): composition.hpp, each release's values by this same policy;
//   2. laws in different dimensions: refused;
//   3. laws on grids: every value at three resolutions with Richardson (discretised.hpp) — not for monte_carlo (the
//      base resolution: its noise dwarfs the grid's error) nor certified (it refuses grids itself);
// then, for the pair (at each resolution), plain_divergences:
//   4. finite chains, auto: the certified engine recomputes the chain in balls and answers where it covers every
//      value (a chain's law in double resolves nothing below 1e-16, so other routes keep only an upper end there);
//   5. Gaussian pairs in R^d, explicit numerical engines: reduced to the line through the means;
//   6. laws of one process that differ in a start or a data point, except monte_carlo and certified: recomputed
//      jointly (sim::Law::joint_with), then this list from step 4 for the joint pair;
//   7. each value by the routes its engine setting tries, in order (engine_policy below, read off the engines'
//      table, engine_entry.hpp, where each engine says what it covers): the first that covers the pair and does not decline
//      answers, widened for lumped outcomes and numerically normalised densities unless it reads exact forms;
//   8. auto: a value that is not exact (or is below the double range) is arbitrated by the certified engine.
// A verdict's second route (second_route below) is chosen by this header's policy too, not by its callers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/laws/law.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

enum class Engine { automatic, closed_form, finite_sum, quadrature, gsl, monte_carlo, certified };

std::string to_string(Engine engine);
Engine parse_engine(const std::string& name);  // InvalidArgument listing the names on failure
std::string engine_names();                    // "auto | closed | sum | …": every name parse_engine accepts

struct MonteCarloOptions {
  long samples = 1'000'000;
  std::uint64_t seed = 1;
  double level = 0.99;       // confidence level of the reported intervals
  bool importance = true;    // shift μ towards {L > ε} for hockey-stick values below 1e-3
};

struct DivergenceOptions {
  Engine engine = Engine::automatic;
  double rel_tol = 1e-13;  // quadrature target (relative, on the integral)
  MonteCarloOptions monte_carlo;
  double certified_seconds = 60;  // the certified engine's budget per value (counted as work: kWorkPerSecond per second)
  // Called with (values done, values in all) as a long list of values is computed (a composed privacy profile of
  // thousands of levels); empty: silent.
  std::function<void(std::size_t, std::size_t)> progress;
};

// For each engine setting: the value routes tried in order (step 7), and whether the arbiter runs (step 8).
struct EnginePolicy {
  Engine asked;
  std::vector<Engine> tried;
  bool arbitrated;
};
const EnginePolicy& engine_policy(Engine asked);
// The value routes (engine: what it covers), the policies, one line each (the tables step 7 runs), and the second
// route's rules.
std::string engine_policy_text();

// The second route of a value a verdict rests on (`privamp verify`'s laws cases, and explore's points through them),
// chosen in this order:
//   1. the certified engine, where it covers the pair and is not the deciding engine (an enclosure shares no blind
//      spot with a quadrature); where it refuses at run time (budget, a quantity it does not cover), the next route;
//   2. the case's cross_check; a cross_check = certified that does not cover the pair is no route (the note says so);
//   3. without a cross_check: GSL on the densities, for laws with densities on the line (not on grids), when the
//      deciding engine is neither GSL nor Monte Carlo and the quantity is not R_inf (both quadratures share the
//      supremum search, so GSL would be no second route there);
//   4. none: the note says why.
// Where two routes disagree, the certified engine settles the row if it covers the pair (`certifiable`).
struct SecondRoute {
  std::vector<Engine> routes;  // in order; each is tried where the one before refused at run time
  bool certifiable = false;    // the certified engine covers the pair and is not the deciding engine
  std::string note;            // where there is no route: why
};
SecondRoute second_route(const sim::Law& mu, const sim::Law& nu, const Quantity& quantity, Engine deciding,
                         std::optional<Engine> cross_check);

// The check every result passes on its way out of compute_divergences (see above): NumericalError "internal: ..."
// where the value lies outside its interval (or the log value outside the log interval) or the interval outside the
// quantity's range; a bar that reaches past the range is intersected with it. Public so that its refusals are tested.
void settle_result(Estimate& e, const Quantity& q, const sim::Law& p, const sim::Law& nu);

// All quantities for one pair, sharing the work that can be shared (the privacy-loss scan, atom alignment).
std::vector<Estimate> compute_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                          const DivergenceOptions& options = {});
Estimate compute_divergence(const sim::Law& p, const sim::Law& q, const Quantity& quantity,
                            const DivergenceOptions& options = {});

}  // namespace privamp::verify
