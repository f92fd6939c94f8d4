// DIFF — diffusion mechanisms (Balle et al. 2019, §5). T6 is evaluated with Λ(t) = ∫_t^∞ κ(s) ds computed by
// quadrature from the carré du champ of the process (independently of the closed forms E5 and C7 print).
#include <cmath>

#include <fmt/format.h>

#include "numerics/log_integrate.hpp"
#include "verify/bounds/catalogue.hpp"

namespace privamp::verify {

namespace {

const std::string kSource = "Balle, Barthe, Gaboardi, Geumlek 2019";

std::optional<std::string> positive_time(const Params& p) {
  if (!(p.at("t") > 0)) return "needs t > 0";
  return std::nullopt;
}

// κ(s) for OU dX = −θX ds + √2ρ dW (θ = 0: Brownian with diffusion 2ρ²): Γ(f) = ρ²|f'|², and
// ∂_y log p_s(x,y)/p_s(x',y) = e^{−θs}(x − x')/v(s), v(s) = (ρ²/θ)(1 − e^{−2θs}), so κ = ρ²Δ²e^{−2θs}/v(s)².
double log_kappa(double s, double delta, double theta, double rho) {
  const double v = theta * s < 1e-300 ? 2 * rho * rho * s : -rho * rho * std::expm1(-2 * theta * s) / theta;
  return 2 * std::log(rho * delta) - 2 * theta * s - 2 * std::log(v);
}

BoundValue t6(const Params& p) {
  const double t = p.at("t"), d = p.at("delta"), th = p.at("theta"), rho = p.at("rho");
  std::function<double(double)> h = [&](double s) { return log_kappa(s, d, th, rho); };
  LogIntegrateOptions<double> o;
  o.lo = t;
  o.scale = t;
  const auto lam = log_integrate<double>(h, {2 * t}, o);
  return {p.at("alpha") * std::exp(lam.log_value),
          fmt::format("Lambda(t) by quadrature of kappa (rel. err {:.1e})", lam.rel_error)};
}

}  // namespace

void add_diffusion_bounds(std::vector<BoundEntry>& out) {
  out.push_back({"E4", "diffusions", kSource + ", Example 4",
                 "Brownian mechanism P_t(f(D)) = N(f(D), 2tI) is (alpha, alpha Delta^2/(4t))-RDP", "renyi(alpha)",
                 Direction::upper, positive_time,
                 [](const Params& p) {
                   return BoundValue{p.at("alpha") * p.at("delta") * p.at("delta") / (4 * p.at("t")), ""};
                 }, {}, {}});
  out.push_back({"E5", "diffusions", kSource + ", Example 5 (via Theorem 6)",
                 "Brownian: kappa = Delta^2/(4t^2), Lambda(t) = Delta^2/(4t): (alpha, alpha Lambda(t))-RDP",
                 "renyi(alpha)", Direction::upper, positive_time,
                 [](const Params& p) {
                   return BoundValue{p.at("alpha") * p.at("delta") * p.at("delta") / (4 * p.at("t")), ""};
                 }, {}, {}});
  out.push_back({"C7", "diffusions", kSource + ", Corollary 7",
                 "OU mechanism: (alpha, alpha theta Delta^2/(2 rho^2 (e^(2 theta t) - 1)))-RDP", "renyi(alpha)",
                 Direction::upper,
                 [](const Params& p) -> std::optional<std::string> {
                   if (!(p.at("theta") > 0)) return "needs theta > 0 (theta = 0 is the Brownian case, E4)";
                   return positive_time(p);
                 },
                 [](const Params& p) {
                   const double th = p.at("theta"), d = p.at("delta"), rho = p.at("rho");
                   return BoundValue{p.at("alpha") * th * d * d / (2 * rho * rho * std::expm1(2 * th * p.at("t"))), ""};
                 }, {}, {}});
  out.push_back({"T6", "diffusions", kSource + ", Theorem 6",
                 "diffusion mechanism is (alpha, alpha Lambda(t))-RDP, Lambda(t) = int_t^inf kappa(s) ds",
                 "renyi(alpha)", Direction::upper, positive_time, t6, {}, {}});
}

}  // namespace privamp::verify
