// One divergence engine as the policy sees it (engines.hpp, step 7): its name on the command line, what it covers,
// the check before it runs, the computation, and whether the default engine tries it. Each engine's own unit
// defines its entry next to its code; engine_table.cpp lists the entries, in the order the default engine tries
// them. Adding an engine: its unit (with its entry), a line in the table, a name in the Engine enumeration, a test.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>

#include "sim/laws/law.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

class PreparedPair;

// What an engine is handed: the pair, one quantity, the options, and the pair prepared once for all values
// (the density routes share its privacy-loss scan).
struct ValueCall {
  const sim::Law& p;
  const sim::Law& q;
  const Quantity& quantity;
  const DivergenceOptions& options;
  const std::function<PreparedPair&()>& pair;
  Engine engine;
};

struct EngineEntry {
  Engine engine;
  const char* name;    // --engine NAME, case files' engine/cross_check, Python's engine=
  const char* covers;  // in words (privamp engines)
  bool widened;        // its values are widened for lumped outcomes and numerically normalised densities
  // Why the engine does not cover the pair (empty: it does), checked before it runs.
  std::string (*refusal)(const sim::Law& p, const sim::Law& q);
  // The value, or nullopt where the engine declines after looking (the next route is tried).
  std::optional<Estimate> (*compute)(const ValueCall& call);
  // What a decline means (the message where no later route covers the pair; "{}" are the quantity and the laws).
  const char* declined;
  bool tried_by_default;  // one of the routes --engine auto tries, in the table's order
};

// The engines, in the order the default engine tries those it tries (engine_table.cpp).
std::span<const EngineEntry* const> engine_table();

// Refusals shared by the engines on the line.
std::string needs_one_dimension(const sim::Law& p, const sim::Law& q);
bool purely_atomic(const sim::Law& law);
// Atoms by exact sums and densities by one of the two quadratures (finite_sum, quadrature, gsl): engines.cpp.
Estimate density_route(PreparedPair& pair, const Quantity& quantity, Engine engine);

}  // namespace privamp::verify
