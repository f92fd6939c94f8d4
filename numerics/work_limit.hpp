// Long loops bounded by their measured cost. A loop over values, deltas or grid points whose items take unknown time
// (a quadrature of a convolved density, an accountant at a tiny delta) is projected from the time its first items
// took: once they have run for a probe (1 % of the limit, at least 2 s), a loop projected past its limit stops with
// an InvalidArgument (exit 2 on the command line) naming the count, the projection and the limit, instead of running
// for hours. The Monte Carlo pass's rule (verify/divergence/monte_carlo.cpp), for every loop with a progress report.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace privamp {

using ProgressFunction = std::function<void(std::size_t done, std::size_t total)>;

// `progress` (may be empty) that also projects the loop's time at each report and, past `seconds`, throws
// InvalidArgument: "<what>: <total> <unit> would take about <time> at the rate of the first <done> ...; the limit is
// <seconds> s (<option>)". A limit of 0 is none (progress is returned as it is). The returned function keeps the
// loop's start: make it where the loop starts.
ProgressFunction limited_progress(ProgressFunction progress, double seconds, std::string what, std::string unit, std::string option);

// InvalidArgument unless 0 <= seconds < inf (0: no limit): the check of a command's --max-seconds.
void check_max_seconds(const std::string& command, double seconds);

// "42 s", "3 min 07 s", "2 h 05 min".
std::string duration_text(double seconds);

}  // namespace privamp
