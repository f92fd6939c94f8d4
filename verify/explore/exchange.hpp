// Explore's evaluations between the processes of an MPI run: what of an evaluation travels (keyed, through the
// row codec's numbers; the point is recomputed from u everywhere).
#pragma once

#include <vector>

#include "verify/explore/explore.hpp"
#include "verify/runner/communicator.hpp"

namespace privamp::verify {

// Every process's lists of evaluations, exchanged as CBOR: out[r] are process r's lists, in its order.
std::vector<std::vector<std::vector<Evaluation>>> exchange_evaluations(const Communicator& c,
                                                                        const std::vector<std::vector<Evaluation>>& mine);

}  // namespace privamp::verify
