// The divergence engines, one entry each (engine_entry.hpp), defined in the engines' own units. The order is the
// order in which the default engine tries those it tries; `privamp engines` prints this table.
#include "verify/divergence/engine_entry.hpp"

namespace privamp::verify {

extern const EngineEntry kClosedFormEngine;   // closed_form.cpp
extern const EngineEntry kFiniteSumEngine;    // boost_density_engine.cpp
extern const EngineEntry kQuadratureEngine;   // boost_density_engine.cpp
extern const EngineEntry kGslEngine;          // gsl_density_engine.cpp
extern const EngineEntry kMonteCarloEngine;   // monte_carlo.cpp
extern const EngineEntry kCertifiedEngine;    // certified.cpp

std::span<const EngineEntry* const> engine_table() {
  static const EngineEntry* const table[] = {&kClosedFormEngine, &kFiniteSumEngine, &kQuadratureEngine,
                                             &kGslEngine,        &kMonteCarloEngine, &kCertifiedEngine};
  return table;
}

}  // namespace privamp::verify
