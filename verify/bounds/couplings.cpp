// CPL — amplification from couplings (Balle et al. 2019, §4). Exact values come from law cases: Gaussian chains
// in closed form and sums of Laplaces by quadrature.
#include <cmath>

#include <boost/math/tools/minima.hpp>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/divergence/closed_form.hpp"

namespace privamp::verify {

namespace {

const std::string kSource = "Balle, Barthe, Gaboardi, Geumlek 2019";

std::optional<std::string> applies(const Params&) { return std::nullopt; }

// log g_α(z) = (α − 1)·R_α(Lap(z, 1) ‖ Lap(0, 1)) (GT.lap.renyi).
double log_g(double alpha, double z) { return (alpha - 1) * laplace_renyi(z, 1.0, alpha).value; }

// E2: min over w ∈ [v, u] of log(g_α(|w−v|/λ1) g_α(|u−w|/λ2))/(α−1); convex in w, so Brent finds the minimum.
BoundValue iterated_laplace(const Params& p) {
  const double a = p.at("alpha"), d = p.at("delta"), l1 = p.at("lambda1"), l2 = p.at("lambda2");
  auto f = [&](double w) { return log_g(a, w / l1) + log_g(a, (d - w) / l2); };
  const auto [w, v] = boost::math::tools::brent_find_minima(f, 0.0, d, 40);
  const double best = std::min({v, f(0.0), f(d)});
  const double at = best == f(0.0) ? 0.0 : best == f(d) ? d : w;
  return {best / (a - 1), fmt::format("w* = {:.6g} (of Delta = {})", at, format_number(d))};
}

}  // namespace

void add_coupling_bounds(std::vector<BoundEntry>& out) {
  out.push_back({"E1", "couplings", kSource + ", Example 1 (via Theorem 2)",
                 "iterated Gaussian: R_alpha <= alpha Delta^2/(2(sigma1^2 + sigma2^2)) (tight)", "renyi(alpha)",
                 Direction::upper, applies,
                 [](const Params& p) {
                   const double d = p.at("delta"), s1 = p.at("sigma1"), s2 = p.at("sigma2");
                   return BoundValue{p.at("alpha") * d * d / (2 * (s1 * s1 + s2 * s2)), ""};
                 }, {}, {}});
  out.push_back({"E2", "couplings", kSource + ", Example 2 (via Theorem 2)",
                 "iterated Laplace: R_alpha <= min_w log(g(|w-v|/l1) g(|u-w|/l2))/(alpha-1)", "renyi(alpha)",
                 Direction::upper, applies, iterated_laplace, {}, {}});
  out.push_back({"L3", "couplings", kSource + ", Lemma 3",
                 "iterated Laplace is not (eps,0)-DP for eps < Delta/max(l1,l2): R_inf >= Delta/max(l1,l2)",
                 "renyi_inf", Direction::lower, applies,
                 [](const Params& p) {
                   return BoundValue{p.at("delta") / std::max(p.at("lambda1"), p.at("lambda2")), ""};
                 }, {}, {}});
  out.push_back({"E3", "couplings", kSource + ", Example 3",
                 "Lipschitz Gaussian kernel: R_alpha <= alpha Delta^2/(2 sigma*^2), sigma*^2 = sigma1^2 + sigma2^2/L^2",
                 "renyi(alpha)", Direction::upper,
                 [](const Params& p) -> std::optional<std::string> {
                   if (!(p.at("L") > 0)) return "needs L > 0";
                   return std::nullopt;
                 },
                 [](const Params& p) {
                   const double d = p.at("delta"), s1 = p.at("sigma1"), s2 = p.at("sigma2"), l = p.at("L");
                   return BoundValue{p.at("alpha") * d * d / (2 * (s1 * s1 + s2 * s2 / (l * l))), ""};
                 }, {}, {}});
  out.push_back({"T4.path", "couplings", kSource + ", Theorem 4 (optimal path)",
                 "r projected noisy L-Lipschitz steps: R_alpha <= alpha L^2 Delta^2/(2 sigma^2 sum_{j<r} L^(-2j))",
                 "renyi(alpha)", Direction::upper,
                 [](const Params& p) -> std::optional<std::string> {
                   if (!(p.at("L") > 0)) return "needs L > 0";
                   return std::nullopt;
                 },
                 [](const Params& p) {
                   const double l = p.at("L"), d = p.at("delta"), s = p.at("sigma");
                   const int r = static_cast<int>(p.at("r"));
                   double sum = 0;
                   for (int j = 0; j < r; ++j) sum += std::pow(l, -2.0 * j);
                   return BoundValue{p.at("alpha") * l * l * d * d / (2 * s * s * sum), "steps w_i proportional to L^(-2(r-i))"};
                 }, {}, {}});
  out.push_back({"T4.closed", "couplings", kSource + ", Theorem 4 (closed form, L <= 1)",
                 "L <= 1: R_alpha <= alpha Delta^2 L^(r+1)/(2 r sigma^2)", "renyi(alpha)", Direction::upper,
                 [](const Params& p) -> std::optional<std::string> {
                   if (p.at("L") > 1) return fmt::format("needs L <= 1 (L = {})", format_number(p.at("L")));
                   return std::nullopt;
                 },
                 [](const Params& p) {
                   const double l = p.at("L"), d = p.at("delta"), s = p.at("sigma"), r = p.at("r");
                   return BoundValue{p.at("alpha") * d * d * std::pow(l, r + 1) / (2 * r * s * s), ""};
                 }, {}, {}});
}

}  // namespace privamp::verify
