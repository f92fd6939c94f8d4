// RNA — privacy amplification by repeated noise addition (blog post, after Feldman et al. 2018).
#include <cmath>

#include <fmt/format.h>

#include <limits>

#include <Eigen/Core>

#include "numerics/errors.hpp"
#include "numerics/special.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/laplace.hpp"
#include "sim/laws/mixture.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/divergence/closed_form.hpp"

namespace privamp::verify {

namespace {

// inf over laws U' with W∞(U, U') ≤ s of F(U') = Σ_j U'_j^α V_j^{1−α}, for U, V on the lattice {0, …, K}: U' must
// live on V's support, so U' is the image of a transport plan moving each atom of U by at most s onto V's atoms —
// a convex problem over a polytope, solved by Frank–Wolfe with exact line search. The duality gap certifies a
// lower bound: F* ∈ [F(U') − gap, F(U')]. Returns +inf if some atom of U cannot reach V's support.
struct ShiftedRenyi {
  double upper, lower;     // of R^{(s)}_α(U ‖ V) = log(F*)/(α − 1)
  Eigen::VectorXd minimiser;  // U' attaining the upper value
};

ShiftedRenyi shifted_renyi(const Eigen::VectorXd& u, const Eigen::VectorXd& v, double s, double alpha) {
  const int k = static_cast<int>(u.size());
  const double inf = std::numeric_limits<double>::infinity();
  auto allowed = [&](int i, int j) { return v[j] > 0 && std::fabs(static_cast<double>(i - j)) <= s + 1e-12; };
  auto objective = [&](const Eigen::VectorXd& w) {
    double f = 0;
    for (int j = 0; j < k; ++j)
      if (w[j] > 0) f += std::pow(w[j], alpha) * std::pow(v[j], 1 - alpha);
    return f;
  };
  // Start: every atom to its nearest allowed target.
  Eigen::VectorXd w = Eigen::VectorXd::Zero(k);
  for (int i = 0; i < k; ++i) {
    if (u[i] == 0) continue;
    int best = -1;
    for (int j = 0; j < k; ++j)
      if (allowed(i, j) && (best < 0 || std::abs(i - j) < std::abs(i - best))) best = j;
    if (best < 0) return {inf, inf, {}};
    w[best] += u[i];
  }
  double gap = inf, f = objective(w);
  for (int it = 0; it < 3000 && gap > 1e-10 * f; ++it) {
    Eigen::VectorXd g(k);
    for (int j = 0; j < k; ++j) g[j] = v[j] > 0 ? alpha * std::pow(w[j] / v[j], alpha - 1) : inf;
    Eigen::VectorXd vertex = Eigen::VectorXd::Zero(k);  // linear minimisation: each atom to its cheapest target
    for (int i = 0; i < k; ++i) {
      if (u[i] == 0) continue;
      int best = -1;
      for (int j = 0; j < k; ++j)
        if (allowed(i, j) && (best < 0 || g[j] < g[best])) best = j;
      vertex[best] += u[i];
    }
    gap = g.dot(w - vertex);
    if (!(gap > 0)) break;
    // Exact line search on the convex φ(γ) = F(w + γ(vertex − w)): bisection on the sign of φ'(γ).
    const Eigen::VectorXd d = vertex - w;
    auto slope = [&](double gamma) {
      double sl = 0;
      for (int j = 0; j < k; ++j) {
        const double x = w[j] + gamma * d[j];
        if (x > 0) sl += alpha * std::pow(x / v[j], alpha - 1) * d[j];
      }
      return sl;
    };
    double lo = 0, hi = 1;
    if (slope(1) <= 0) lo = 1;
    else
      for (int b = 0; b < 60; ++b) (slope((lo + hi) / 2) > 0 ? hi : lo) = (lo + hi) / 2;
    w += lo * d;
    f = objective(w);
  }
  const double t = alpha - 1;
  return {std::log(f) / t, f - gap > 0 ? std::log(f - gap) / t : 0.0, w};
}

Eigen::VectorXd binomial_on_lattice(int k, double p) {
  Eigen::VectorXd w(k + 1);
  for (int i = 0; i <= k; ++i) w[i] = std::exp(log_binomial_pmf(i, k, p));
  return w / w.sum();
}

sim::LawPtr noisy(const Eigen::VectorXd& weights, const Params& p) {
  std::vector<double> ws;
  std::vector<sim::LawPtr> laws;
  const bool gauss = p.word("noise") == "gaussian";
  for (Eigen::Index j = 0; j < weights.size(); ++j) {
    if (weights[j] <= 0) continue;
    ws.push_back(weights[j]);
    if (gauss) laws.push_back(std::make_shared<sim::Gaussian>(static_cast<double>(j), p.at("scale")));
    else laws.push_back(std::make_shared<sim::Laplace>(static_cast<double>(j), p.at("scale")));
  }
  double total = 0;
  for (double x : ws) total += x;
  for (double& x : ws) x /= total;
  return std::make_shared<sim::Mixture>(ws, laws);
}

// The instance: U = Bin(K, p1), V = Bin(K, p2) on the lattice {0, …, K}, noise ζ Gaussian or Laplace.
struct ShiftInstance {
  Eigen::VectorXd u, v;
};
ShiftInstance shift_instance(const Params& p) {
  const int k = static_cast<int>(p.at("K"));
  return {binomial_on_lattice(k, p.at("p1")), binomial_on_lattice(k, p.at("p2"))};
}

// RHS: R^{(z+a)}_α(U‖V) (its certified lower end) + sup_{|x|≤a} R_α(ζ + x ‖ ζ) (attained at |x| = a).
BoundValue shift_reduction_bound(const Params& p) {
  const auto in = shift_instance(p);
  const double alpha = p.at("alpha"), a = p.at("a");
  const auto r = shifted_renyi(in.u, in.v, p.at("z") + a, alpha);
  const double noise = p.word("noise") == "gaussian" ? gaussian_renyi(a, p.at("scale"), alpha).value
                                                    : laplace_renyi(a, p.at("scale"), alpha).value;
  return {r.lower + noise, fmt::format("R^(z+a)(U||V) in [{:.8g}, {:.8g}] (Frank-Wolfe), noise term {:.8g}", r.lower, r.upper, noise)};
}

// LHS: R^{(z)}_α(U+ζ ‖ V+ζ) ≤ R_α(U''+ζ ‖ V+ζ) for the lattice shift U'' of U (within z) that is best without noise;
// the interval [0, that value] contains the truth (an upper estimate, so only 'holds' can be concluded).
Estimate shift_reduction_lhs(const Params& p) {
  const auto in = shift_instance(p);
  const auto r = shifted_renyi(in.u, in.v, p.at("z"), p.at("alpha"));
  if (!std::isfinite(r.upper)) throw NumericalError("no lattice shift within z reaches V's support");
  DivergenceOptions o;
  o.engine = Engine::quadrature;
  const Estimate e = compute_divergence(*noisy(r.minimiser, p), *noisy(in.v, p), Quantity::renyi(p.at("alpha")), o);
  Estimate out = e;
  out.lower = 0;
  out.log_lower = -std::numeric_limits<double>::infinity();
  out.method = "upper estimate (best lattice shift within z, then the noise) by quadrature; the infimum is below it";
  return out;
}

}  // namespace

void add_repeated_noise_bounds(std::vector<BoundEntry>& out) {
  // (RNA.thm is a table in catalogue.toml.)
  out.push_back({.id = "RNA.shift",
                 .family = "repeated_noise",
                 .source = "Privacy amplification by repeated noise addition (blog), shift reduction (Feldman et al. 2018)",
                 .statement = "R^(z)_alpha(U + zeta || V + zeta) <= R^(z+a)_alpha(U || V) + sup_{|x|<=a} R_alpha(zeta + x || zeta); "
                              "checked on lattice laws U, V with an upper estimate of the left side",
                 .quantity = "shifted renyi(alpha)",
                 .check = ValueCheck{.exact = shift_reduction_lhs},
                 .parameters = {integer("K", 1, 10000), number("p1", 0, 1), number("p2", 0, 1), number("z", 0), number("a", 0),
                                number("alpha").above(1), word("noise", {"gaussian", "laplace"}), positive("scale")},
                 .not_applicable = [](const Params& p) -> std::optional<std::string> {
                   const auto in = shift_instance(p);
                   if (!std::isfinite(shifted_renyi(in.u, in.v, p.at("z") + p.at("a"), p.at("alpha")).upper))
                     return "z + a too small for U to reach V's support: the right side is infinite";
                   return std::nullopt;
                 },
                 .bound = shift_reduction_bound});
}

}  // namespace privamp::verify
