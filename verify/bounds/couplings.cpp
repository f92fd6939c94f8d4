// CPL — amplification from couplings (Balle et al. 2019, §4). Exact values come from law cases: Gaussian chains
// in closed form and sums of Laplaces by quadrature.
#include <cmath>

#include <boost/math/tools/minima.hpp>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/bounds/catalogue.hpp"
#include "sim/processes/projected_chain.hpp"
#include "verify/divergence/closed_form.hpp"
#include "verify/divergence/engines.hpp"

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

sim::NoisySgd sgd_of(const Params& p) {
  return {static_cast<int>(p.at("n")), p.at("eta"), p.at("sigma"), p.at("lambda"), p.at("R"), 0.0};
}

// Exact per-index R_α of 1-D noisy projected SGD between the datasets z_i = R and z_i = −R (all other z_j = 0):
// the laws of x_n by grid propagation at N and 2N intervals, the divergence by the quadrature engine, and a
// Richardson step for the O(h²) discretisation, whose size |R_2N − R_N| is added to the error bar.
Estimate noisy_sgd_renyi(const Params& p) {
  const sim::NoisySgd sgd = sgd_of(p);
  const int i = static_cast<int>(p.at("i")), intervals = static_cast<int>(p.at("intervals"));
  DivergenceOptions o;
  o.engine = Engine::quadrature;
  auto at = [&](int cells) {
    const auto mu = sim::noisy_sgd_law(sgd, i, sgd.radius, cells).to_grid_law();
    const auto nu = sim::noisy_sgd_law(sgd, i, -sgd.radius, cells).to_grid_law();
    return compute_divergence(mu, nu, Quantity::renyi(p.at("alpha")), o);
  };
  const Estimate coarse = at(intervals), fine = at(2 * intervals);
  if (std::isinf(coarse.value) || std::isinf(fine.value))
    throw NumericalError("the propagated densities underflow at the edges of the domain (noise too small for the "
                         "domain): the laws look disjoint on the grid; a log-scale grid is needed here");
  const double value = fine.value + (fine.value - coarse.value) / 3;
  Estimate e = Estimate::from_value(value, std::fabs(fine.value - coarse.value) + fine.abs_error() + coarse.abs_error(),
                                    ErrorKind::quadrature,
                                    fmt::format("grid propagation ({} and {} cells, Richardson) + quadrature", intervals, 2 * intervals));
  return e;
}

std::optional<std::string> sgd_hypotheses(const Params& p) {
  const double l = p.at("lambda"), eta = p.at("eta");
  if (eta > 2 / (l + l)) return fmt::format("needs eta <= 2/(beta + rho) = {} (eta = {})", format_number(1 / l), format_number(eta));
  return std::nullopt;
}

// T5 with β = ρ = λ and C = 2λR (the quadratic loss on 𝕂 = [−R, R] with data in 𝕂).
BoundValue noisy_sgd_bound(const Params& p) {
  const double n = p.at("n"), i = p.at("i"), l = p.at("lambda"), eta = p.at("eta"), s = p.at("sigma");
  const double c = 2 * l * p.at("R"), beta = l, rho = l;
  const double eps = i >= n ? 2 * c * c / (s * s)
                            : 2 * c * c / ((n - i) * s * s) * std::pow(1 - 2 * eta * beta * rho / (beta + rho), (n - i + 1) / 2);
  const double baseline = i >= n ? 2 * c * c / (s * s) : 2 * c * c / ((n - i) * s * s);
  return {p.at("alpha") * eps, fmt::format("C = {:.4g}; convex baseline alpha 2C^2/((n-i) sigma^2) = {:.6g}", c, p.at("alpha") * baseline)};
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
                 requires_positive("L"),
                 [](const Params& p) {
                   const double d = p.at("delta"), s1 = p.at("sigma1"), s2 = p.at("sigma2"), l = p.at("L");
                   return BoundValue{p.at("alpha") * d * d / (2 * (s1 * s1 + s2 * s2 / (l * l))), ""};
                 }, {}, {}});
  out.push_back({"T4.path", "couplings", kSource + ", Theorem 4 (optimal path)",
                 "r projected noisy L-Lipschitz steps: R_alpha <= alpha L^2 Delta^2/(2 sigma^2 sum_{j<r} L^(-2j))",
                 "renyi(alpha)", Direction::upper,
                 requires_positive("L"),
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
  out.push_back({"T5", "noisy_sgd", kSource + ", Theorem 5",
                 "NoisyProjSGD, C-Lipschitz beta-smooth rho-strongly convex loss, eta <= 2/(beta+rho): (alpha, alpha eps_i)-RDP "
                 "at index i, eps_i = 2C^2/((n-i)sigma^2) (1 - 2 eta beta rho/(beta+rho))^((n-i+1)/2), eps_n = 2C^2/sigma^2",
                 "renyi(alpha) at index i", Direction::upper, sgd_hypotheses, noisy_sgd_bound, {}, {}, noisy_sgd_renyi});
}

}  // namespace privamp::verify
