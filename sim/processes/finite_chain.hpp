// The law chain(K, mu, t) of the expression language: X_t of a finite Markov chain, mu K^t, computed jointly
// with the chain of the same K and t from another start (its difference propagated).
#pragma once

namespace privamp::sim {

struct LawSpec;
LawSpec chain_law_spec();

}  // namespace privamp::sim
