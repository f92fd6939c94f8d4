// CPL — amplification from couplings (Balle et al. 2019, §4). Exact values come from law cases (Gaussian chains
// in closed form, sums of Laplaces by quadrature) and, for projected iterations (T4 with nonlinear maps, T5), from
// value cases: laws propagated on a grid with a Richardson error bar.
#include <cmath>
#include <functional>

#include <boost/math/tools/minima.hpp>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/bounds/catalogue.hpp"
#include "sim/language/expression.hpp"
#include "sim/processes/sgd.hpp"
#include "verify/divergence/closed_form.hpp"
#include "verify/divergence/engines.hpp"

namespace privamp::verify {

namespace {


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

// The process of the point: loss quadratic, logistic, or a formula in x and z (its other names are the point's
// parameters), whose constants are then certified enclosures.
sim::NoisySgd sgd_of(const Params& p) {
  sim::NoisySgd sgd{static_cast<int>(p.at("n")), p.at("eta"), p.at("sigma"), p.has("lambda") ? p.at("lambda") : 1.0,
                    p.at("R"), 0.0};
  if (p.has("loss")) sgd.set_loss(p.word("loss"), p);
  if (p.has("A")) sgd.feature_bound = p.at("A");
  return sgd;
}

// Exact per-index R_α of 1-D noisy projected SGD between the datasets z_i = ±(data bound) (all other z_j = 0). The
// laws are built as the law expressions of a laws case build them (one path: the catalogue's limits on cells and
// work, the discretisation at N, 2N and 4N cells with Richardson extrapolation, verify/divergence/discretised.hpp):
// a template of the language whose names are the process's values (passed as numbers and words, never printed).
Estimate noisy_sgd_renyi(const Params& p) {
  const sim::NoisySgd sgd = sgd_of(p);
  const double z = sgd.data_bound();
  static const auto noisy_sgd = sim::Expression::parse_cached(
      "noisy_sgd(n=n, i=i, zi=zi, eta=eta, sigma=sigma, lambda=lambda, R=R, cells=cells, loss=loss, A=A)", "noisy_sgd law");
  auto law = [&](double zi) {
    Params values;
    values.numbers = {{"n", static_cast<double>(sgd.n)},         {"i", p.at("i")},          {"zi", zi},           {"eta", sgd.eta},
                      {"sigma", sgd.sigma}, {"lambda", sgd.lambda},    {"R", sgd.radius},    {"cells", p.at("intervals")},
                      {"A", sgd.feature_bound}};
    values.words = {{"loss", sgd.loss_identity()}};
    return noisy_sgd->law(values);
  };
  DivergenceOptions o;
  o.engine = Engine::quadrature;
  return compute_divergence(*law(z), *law(-z), Quantity::renyi(p.at("alpha")), o);
}

std::optional<std::string> sgd_hypotheses(const Params& p) {
  const sim::NoisySgd sgd = sgd_of(p);
  const auto c = sgd.constants();
  if (sgd.loss_formula) {  // the certified enclosures decide
    const sim::LossConstants k = sgd.certified_constants();
    if (!(k.rho.value.lo > 0))
      return fmt::format("needs a strongly convex loss: inf d2 loss/dx2 in {} is not certified > 0",
                         sim::describe(k.rho, *sgd.loss_formula));
  }
  if (sgd.eta > c.eta_max)
    return fmt::format("needs eta <= 2/(beta + rho) = {} (eta = {})", format_number(c.eta_max), format_number(sgd.eta));
  return std::nullopt;
}

// T5 with the loss's constants C, β, ρ on 𝕂 = [−R, R] (sim::NoisySgd::constants).
BoundValue noisy_sgd_bound(const Params& p) {
  const double n = p.at("n"), i = p.at("i"), eta = p.at("eta"), s = p.at("sigma");
  const sim::NoisySgd sgd = sgd_of(p);
  const auto k = sgd.constants();
  const double c = k.C, beta = k.beta, rho = k.rho;
  std::string certified;
  if (sgd.loss_formula) {
    const sim::LossConstants e = sgd.certified_constants();
    certified = fmt::format("; certified over [-R, R] x [-A, A]: sup|dl/dx| in {}, sup|d2l/dx2| in {}, inf d2l/dx2 in {}",
                            sim::describe(e.C, *sgd.loss_formula), sim::describe(e.beta, *sgd.loss_formula),
                            sim::describe(e.rho, *sgd.loss_formula));
  }
  const double eps = i >= n ? 2 * c * c / (s * s)
                            : 2 * c * c / ((n - i) * s * s) * std::pow(1 - 2 * eta * beta * rho / (beta + rho), (n - i + 1) / 2);
  const double baseline = i >= n ? 2 * c * c / (s * s) : 2 * c * c / ((n - i) * s * s);
  return {p.at("alpha") * eps, fmt::format("C = {:.4g}, beta = {:.4g}, rho = {:.4g}; convex baseline alpha 2C^2/((n-i) sigma^2) = {:.6g}{}",
                                           c, beta, rho, p.at("alpha") * baseline, certified)};
}

}  // namespace

void add_coupling_bounds(std::vector<BoundEntry>& out) {
  out.push_back({.id = "E2",
                 .family = "couplings",
                 .source = kPaper + ", Example 2 (via Theorem 2)",
                 .statement = "iterated Laplace: R_alpha <= min_w log(g(|w-v|/l1) g(|u-w|/l2))/(alpha-1)",
                 .quantity = "renyi(alpha)",
                 .check = DivergenceCheck{.quantity = Quantity::Kind::renyi},
                 .parameters = {number("alpha").above(1), number("delta", 0), positive("lambda1"), positive("lambda2")},
                 .bound = iterated_laplace});
  out.push_back({.id = "T5",
                 .family = "noisy_sgd",
                 .source = kPaper + ", Theorem 5",
                 .statement = "NoisyProjSGD, C-Lipschitz beta-smooth rho-strongly convex loss, eta <= 2/(beta+rho): (alpha, alpha "
                              "eps_i)-RDP at index i, eps_i = 2C^2/((n-i)sigma^2) (1 - 2 eta beta rho/(beta+rho))^((n-i+1)/2), "
                              "eps_n = 2C^2/sigma^2",
                 .quantity = "renyi(alpha) at index i",
                 .check = ValueCheck{.exact = noisy_sgd_renyi,
                                     .divergence = Quantity::Kind::renyi,
                                     .parameters = {integer("intervals", sim::DiscretisationLimits::min_cells,
                                                                    sim::DiscretisationLimits::max_grid_cells)}},
                 .parameters = {number("alpha").above(1), integer("n", 1, 1e6), integer("i", 1, 1e6), positive("eta"),
                                positive("sigma"), number("lambda", 0).when("loss", {"", "quadratic", "logistic"}), positive("R"),
                                word("loss").if_present(), positive("A").if_present()},
                 .not_applicable = sgd_hypotheses,
                 .bound = noisy_sgd_bound});
}

}  // namespace privamp::verify
