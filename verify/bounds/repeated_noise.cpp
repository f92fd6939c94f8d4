// RNA — privacy amplification by repeated noise addition (blog post, after Feldman et al. 2018).
#include <cmath>

#include <fmt/format.h>

#include <limits>
#include <map>

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
  std::vector<std::map<int, double>> plan;  // the transport U → U': row i, the fractions of atom i by target
};

// `slack` widens the reach: the right side's lower end must not lose a move that z + a, rounded, excludes; the left
// side's plan must keep every move within z as given (slack 0).
ShiftedRenyi shifted_renyi(const Eigen::VectorXd& u, const Eigen::VectorXd& v, double s, double alpha, double slack) {
  const int k = static_cast<int>(u.size());
  const double inf = std::numeric_limits<double>::infinity();
  auto allowed = [&](int i, int j) { return v[j] > 0 && std::fabs(static_cast<double>(i - j)) <= s + slack; };
  auto objective = [&](const Eigen::VectorXd& w) {
    double f = 0;
    for (int j = 0; j < k; ++j)
      if (w[j] > 0) f += std::pow(w[j], alpha) * std::pow(v[j], 1 - alpha);
    return f;
  };
  // Start: every atom to its nearest allowed target.
  Eigen::VectorXd w = Eigen::VectorXd::Zero(k);
  std::vector<std::map<int, double>> plan(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    if (u[i] == 0) continue;
    int best = -1;
    for (int j = 0; j < k; ++j)
      if (allowed(i, j) && (best < 0 || std::abs(i - j) < std::abs(i - best))) best = j;
    if (best < 0) return {inf, inf, {}, {}};
    w[best] += u[i];
    plan[static_cast<std::size_t>(i)][best] = 1;
  }
  double gap = inf, f = objective(w);
  for (int it = 0; it < 3000 && gap > 1e-10 * f; ++it) {
    Eigen::VectorXd g(k);
    for (int j = 0; j < k; ++j) g[j] = v[j] > 0 ? alpha * std::pow(w[j] / v[j], alpha - 1) : inf;
    Eigen::VectorXd vertex = Eigen::VectorXd::Zero(k);  // linear minimisation: each atom to its cheapest target
    std::vector<int> target(static_cast<std::size_t>(k), -1);
    for (int i = 0; i < k; ++i) {
      if (u[i] == 0) continue;
      int best = -1;
      for (int j = 0; j < k; ++j)
        if (allowed(i, j) && (best < 0 || g[j] < g[best])) best = j;
      vertex[best] += u[i];
      target[static_cast<std::size_t>(i)] = best;
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
    for (int i = 0; i < k; ++i) {  // the plan moves along with U': (1 − γ)·plan + γ·(the vertex's map)
      if (target[static_cast<std::size_t>(i)] < 0 || lo == 0) continue;
      auto& row = plan[static_cast<std::size_t>(i)];
      for (auto& [j, f_ij] : row) f_ij *= 1 - lo;
      row[target[static_cast<std::size_t>(i)]] += lo;
    }
  }
  const double t = alpha - 1;
  return {std::log(f) / t, f - gap > 0 ? std::log(f - gap) / t : 0.0, w, std::move(plan)};
}

Eigen::VectorXd binomial_on_lattice(int k, double p) {
  Eigen::VectorXd w(k + 1);
  for (int i = 0; i <= k; ++i) w[i] = std::exp(log_binomial_pmf(i, k, p));
  return w / w.sum();
}

// Σ_j w_j·ζ(j): the lattice law w plus the noise. `source` gives w exactly (Bin(K, p) carried by a plan from
// atom k to lattice point j, the move's `component` field naming j), for the certified engine.
sim::LawPtr noisy(const Eigen::VectorXd& weights, const Params& p, sim::Mixture::BinomialWeights source) {
  std::vector<double> ws;
  std::vector<sim::LawPtr> laws;
  std::map<std::size_t, std::size_t> component;  // lattice point → component
  const bool gauss = p.word("noise") == "gaussian";
  for (Eigen::Index j = 0; j < weights.size(); ++j) {
    if (weights[j] <= 0) continue;
    component[static_cast<std::size_t>(j)] = ws.size();
    ws.push_back(weights[j]);
    // The centres are integers and the scale the user's number: exact as given.
    if (gauss) {
      auto g = std::make_shared<sim::Gaussian>(static_cast<double>(j), p.at("scale"));
      g->set_parameters_exact();
      laws.push_back(std::move(g));
    } else {
      auto l = std::make_shared<sim::Laplace>(static_cast<double>(j), p.at("scale"));
      l->set_parameters_exact();
      laws.push_back(std::move(l));
    }
  }
  double total = 0;
  for (double x : ws) total += x;
  for (double& x : ws) x /= total;
  auto mixture = std::make_shared<sim::Mixture>(ws, laws);
  std::erase_if(source.moves, [&](const auto& mv) { return mv.fraction == 0 || !component.count(mv.component); });
  for (auto& mv : source.moves) mv.component = component.at(mv.component);
  mixture->set_binomial_weights(std::move(source));
  return mixture;
}

// Bin(K, p) left where it is.
sim::Mixture::BinomialWeights in_place(int k, double p) {
  sim::Mixture::BinomialWeights b{k, p, {}};
  for (int i = 0; i <= k; ++i) b.moves.push_back({i, static_cast<std::size_t>(i), 1.0});
  return b;
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
  const auto r = shifted_renyi(in.u, in.v, p.at("z") + a, alpha, 1e-9);
  const double noise = p.word("noise") == "gaussian" ? gaussian_renyi(a, p.at("scale"), alpha).value
                                                    : laplace_renyi(a, p.at("scale"), alpha).value;
  return {r.lower + noise, fmt::format("R^(z+a)(U||V) in [{:.8g}, {:.8g}] (Frank-Wolfe), noise term {:.8g}", r.lower, r.upper, noise)};
}

// LHS: R^{(z)}_α(U+ζ ‖ V+ζ) ≤ R_α(U''+ζ ‖ V+ζ) for the lattice shift U'' of U (within z) that is best without noise;
// the interval [0, that value] contains the truth (an upper estimate, so only 'holds' can be concluded). U'' is the
// image of the exact U = Bin(K, p1) under the transport plan found (every move within z), so it is feasible as
// computed, and the certified engine encloses its divergence with the weights recomputed in ball arithmetic.
Estimate shift_reduction_lhs(const Params& p) {
  const auto in = shift_instance(p);
  const auto r = shifted_renyi(in.u, in.v, p.at("z"), p.at("alpha"), 0);
  if (!std::isfinite(r.upper)) throw NumericalError("no lattice shift within z reaches V's support");
  const int k = static_cast<int>(p.at("K"));
  sim::Mixture::BinomialWeights moved{k, p.at("p1"), {}};
  for (std::size_t i = 0; i < r.plan.size(); ++i)
    for (const auto& [j, f] : r.plan[i]) moved.moves.push_back({static_cast<long>(i), static_cast<std::size_t>(j), f});
  DivergenceOptions o;
  o.engine = Engine::certified;
  const Estimate e = compute_divergence(*noisy(r.minimiser, p, std::move(moved)), *noisy(in.v, p, in_place(k, p.at("p2"))),
                                        Quantity::renyi(p.at("alpha")), o);
  Estimate out = e;
  out.set_lower(0);
  out.method = "upper estimate (the best lattice shift within z, then the noise), " + e.method + "; the infimum is below it";
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
                   if (!std::isfinite(shifted_renyi(in.u, in.v, p.at("z") + p.at("a"), p.at("alpha"), 1e-9).upper))
                     return "z + a too small for U to reach V's support: the right side is infinite";
                   return std::nullopt;
                 },
                 .bound = shift_reduction_bound});
}

}  // namespace privamp::verify
