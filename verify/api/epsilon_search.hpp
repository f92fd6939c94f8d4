// The search of ε(δ) on a pair's privacy profile (epsilon_for_delta, api.hpp): the profile's interval at one ε, and
// the bracketed root search on those intervals. Internal to verify/api.
#pragma once

#include <string>

#include "verify/api/api.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::api {

// δ(ε) = max(H_ε(μ‖ν), H_ε(ν‖μ)) at one ε: its interval and the interval's kind and level.
struct ProfileAt {
  double lower = 0, upper = 0;
  verify::ErrorKind kind = verify::ErrorKind::exact;
  double level = 1;
};
ProfileAt profile_at(const std::string& mu, const std::string& nu, double eps, const DivergenceRequest& request);

// The bracket of ε(δ) by a search on the profile's intervals (epsilon_for_delta checks the inputs): a probe moves an
// end only where the profile's interval is certainly above δ (lower) or certainly at most δ (upper).
verify::Estimate bracket_epsilon(const std::string& mu, const std::string& nu, double delta, const DivergenceRequest& request,
                                 double eps_max, double rel_tol);

}  // namespace privamp::api
