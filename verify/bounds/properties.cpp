// Properties checked on random finite instances: DIV.* (divergences), MIX.implications and MIX.ldp (mixing
// coefficients), and T2 (amplification by couplings) with random laws, kernels and couplings. Every comparison
// is lhs ≤ rhs through error bars: a violation needs lower(lhs) > upper(rhs).
#include <cmath>
#include <random>

#include <Eigen/Core>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "sim/laws/finite.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/divergence/engines.hpp"

namespace privamp::verify {

namespace {


struct Instances {
  std::mt19937_64 rng;
  int states;
  explicit Instances(const Params& p) : rng(static_cast<std::uint64_t>(p.at("seed"))), states(static_cast<int>(p.at("states"))) {}

  // Dirichlet(0.5) draws: sparse, spiky laws are the hard cases.
  Eigen::VectorXd law(int k = 0) {
    std::gamma_distribution<double> g(0.5, 1.0);
    Eigen::VectorXd v(k ? k : states);
    for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = g(rng) + 1e-12;
    return v / v.sum();
  }
  Eigen::MatrixXd kernel(int rows, int cols) {
    Eigen::MatrixXd m(rows, cols);
    for (int i = 0; i < rows; ++i) m.row(i) = law(cols).transpose();
    return m;
  }
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
};

sim::FiniteLaw finite(const Eigen::VectorXd& p) {
  std::vector<double> at;
  for (Eigen::Index i = 0; i < p.size(); ++i) at.push_back(static_cast<double>(i));
  return sim::FiniteLaw(at, p / p.sum());
}

Estimate D(const Eigen::VectorXd& p, const Eigen::VectorXd& q, const Quantity& quantity) {
  return compute_divergence(finite(p), finite(q), quantity);
}

// Records lhs ≤ rhs for one instance.
void record(PropertyResult& r, double lhs_lower, double lhs_value, double rhs_upper, double rhs_value,
            const std::string& what) {
  ++r.instances;
  if (lhs_lower > rhs_upper * (1 + 1e-12) + 1e-300) ++r.violations;
  const double ratio = rhs_value > 0 ? lhs_value / rhs_value : (lhs_value > 0 ? INFINITY : 0);
  if (ratio > r.max_ratio || r.worst.empty()) {
    r.max_ratio = std::max(r.max_ratio, ratio);
    r.worst = what;
  }
}

long count(const Params& p) { return static_cast<long>(p.at("instances")); }

PropertyResult hs_monotone(const Params& p) {
  Instances in(p);
  PropertyResult r;
  for (long i = 0; i < count(p); ++i) {
    const auto a = in.law(), b = in.law();
    const double e1 = in.uniform(0, 2), e2 = e1 + in.uniform(0, 2);
    const auto lo = D(a, b, Quantity::hockey_stick(e2)), hi = D(a, b, Quantity::hockey_stick(e1));
    record(r, lo.lower, lo.value, hi.upper, hi.value, fmt::format("instance {}: HS at eps {:.4g} vs {:.4g}", i, e2, e1));
    const auto tv = D(a, b, Quantity::tv()), hs0 = D(a, b, Quantity::hockey_stick(0));
    record(r, tv.lower, tv.value, hs0.upper, hs0.value, fmt::format("instance {}: TV vs HS_0", i));
  }
  return r;
}

PropertyResult dpi(const Params& p) {
  Instances in(p);
  PropertyResult r;
  const std::vector<Quantity> qs = {Quantity::tv(), Quantity::hockey_stick(0.5), Quantity::kl(), Quantity::renyi(2),
                                    Quantity::renyi(16), Quantity::renyi_inf()};
  for (long i = 0; i < count(p); ++i) {
    const auto a = in.law(), b = in.law();
    const Eigen::MatrixXd k = in.kernel(in.states, in.states);
    const Eigen::VectorXd ak = k.transpose() * a, bk = k.transpose() * b;
    for (const Quantity& q : qs) {
      const auto after = D(ak, bk, q), before = D(a, b, q);
      record(r, after.lower, after.value, before.upper, before.value, fmt::format("instance {}: {}", i, q.label()));
    }
  }
  return r;
}

PropertyResult joint_convexity(const Params& p) {
  Instances in(p);
  PropertyResult r;
  for (long i = 0; i < count(p); ++i) {
    const auto m1 = in.law(), m2 = in.law(), n1 = in.law(), n2 = in.law();
    const double g = in.uniform(0.01, 0.99), e = in.uniform(0, 2);
    const auto lhs = D((1 - g) * m1 + g * m2, (1 - g) * n1 + g * n2, Quantity::hockey_stick(e));
    const auto a = D(m1, n1, Quantity::hockey_stick(e)), b = D(m2, n2, Quantity::hockey_stick(e));
    record(r, lhs.lower, lhs.value, (1 - g) * a.upper + g * b.upper, (1 - g) * a.value + g * b.value,
           fmt::format("instance {}: gamma {:.4g}, eps {:.4g}", i, g, e));
  }
  return r;
}

PropertyResult advanced_joint_convexity(const Params& p) {
  Instances in(p);
  PropertyResult r;
  for (long i = 0; i < count(p); ++i) {
    const auto m1 = in.law(), m2 = in.law(), n2 = in.law();
    const double g = in.uniform(0.01, 0.99), e = in.uniform(0, 3);
    const double ep = std::log1p(g * std::expm1(e)), w = std::exp(ep - e);
    const auto lhs = D((1 - g) * m1 + g * m2, (1 - g) * m1 + g * n2, Quantity::hockey_stick(ep));
    const auto a = D(m2, m1, Quantity::hockey_stick(e)), b = D(m2, n2, Quantity::hockey_stick(e));
    record(r, lhs.lower, lhs.value, g * ((1 - w) * a.upper + w * b.upper), g * ((1 - w) * a.value + w * b.value),
           fmt::format("instance {}: gamma {:.4g}, eps {:.4g}", i, g, e));
  }
  return r;
}

PropertyResult tv_coupling(const Params& p) {
  Instances in(p);
  PropertyResult r;
  for (long i = 0; i < count(p); ++i) {
    const auto a = in.law(), b = in.law();
    const auto tv = D(a, b, Quantity::tv());
    const double coupling = 1 - a.cwiseMin(b).sum();  // mismatch probability of the maximal coupling
    // An identity: both directions of the inequality.
    record(r, tv.lower, tv.value, coupling, coupling, fmt::format("instance {}: TV <= 1 - sum min", i));
    record(r, coupling, coupling, tv.upper, tv.value, fmt::format("instance {}: 1 - sum min <= TV", i));
  }
  return r;
}

sim::FiniteKernel random_kernel(Instances& in, long i) {
  const auto seed = static_cast<std::uint64_t>(in.rng());
  switch (i % 3) {
    case 0: return sim::random_dirichlet_kernel(in.states, 0.5, seed);
    case 1: return sim::lazy_kernel(sim::random_dirichlet_kernel(in.states, 1.0, seed), 0.5);
    default: return sim::random_sparse_kernel(in.states, 1 + static_cast<int>(i % in.states), seed);
  }
}

PropertyResult mix_implications(const Params& p) {
  Instances in(p);
  PropertyResult r;
  for (long i = 0; i < count(p); ++i) {
    const auto k = random_kernel(in, i);
    const auto m = sim::mixing_coefficients(k);
    const double e = in.uniform(0, 2), hs = sim::dobrushin_at(k, e);
    const double round = 1e-15;
    record(r, m.dobrushin, m.dobrushin, m.doeblin + round, m.doeblin, fmt::format("kernel {}: Dobrushin <= Doeblin", i));
    record(r, m.doeblin, m.doeblin, m.ultra_mixing + round, m.ultra_mixing, fmt::format("kernel {}: Doeblin <= ultra", i));
    record(r, hs, hs, m.dobrushin + round, m.dobrushin, fmt::format("kernel {}: (gamma,{:.3g})-Dobrushin <= Dobrushin", i, e));
  }
  return r;
}

PropertyResult mix_ldp(const Params& p) {
  // Table 1 rows checked as identities on random kernels: (γ,ε)-Dobrushin constant = the LDP δ of K at ε;
  // ultra-mixing γ ⇔ K is (log 1/(1−γ), 0)-LDP.
  Instances in(p);
  PropertyResult r;
  for (long i = 0; i < count(p); ++i) {
    const auto k = random_kernel(in, i);
    const auto m = sim::mixing_coefficients(k);
    const double e = in.uniform(0, 2);
    double ldp_delta = 0, ldp_eps = 0;  // sup over input pairs of HS_ε(K(x)‖K(x')), and of log K(x,y)/K(x',y)
    for (int x = 0; x < k.size(); ++x)
      for (int x2 = 0; x2 < k.size(); ++x2) {
        if (x == x2) continue;
        ldp_delta = std::max(ldp_delta, compute_divergence(finite(k.row(x)), finite(k.row(x2)), Quantity::hockey_stick(e)).value);
        ldp_eps = std::max(ldp_eps, compute_divergence(finite(k.row(x)), finite(k.row(x2)), Quantity::renyi_inf()).value);
      }
    const double hs = sim::dobrushin_at(k, e), tol = 1e-12;
    record(r, hs, hs, ldp_delta * (1 + tol), ldp_delta, fmt::format("kernel {}: (gamma,eps)-Dobrushin vs LDP delta", i));
    record(r, ldp_delta, ldp_delta, hs * (1 + tol), hs, fmt::format("kernel {}: LDP delta vs (gamma,eps)-Dobrushin", i));
    if (std::isfinite(ldp_eps))
      record(r, ldp_eps, ldp_eps, m.ultra_mixing_ldp * (1 + tol), m.ultra_mixing_ldp,
             fmt::format("kernel {}: LDP eps vs log(1/(1-gamma_ultra))", i));
  }
  return r;
}

// Northwest-corner coupling of ω and μ after a random relabelling: an extreme point of C(ω, μ).
Eigen::MatrixXd random_coupling(Instances& in, const Eigen::VectorXd& w, const Eigen::VectorXd& m) {
  const int n = static_cast<int>(w.size());
  std::vector<int> rows(n), cols(n);
  for (int i = 0; i < n; ++i) rows[i] = cols[i] = i;
  std::shuffle(rows.begin(), rows.end(), in.rng);
  std::shuffle(cols.begin(), cols.end(), in.rng);
  Eigen::MatrixXd pi = Eigen::MatrixXd::Zero(n, n);
  Eigen::VectorXd a = w, b = m;
  int i = 0, j = 0;
  while (i < n && j < n) {
    const double t = std::min(a[rows[i]], b[cols[j]]);
    pi(rows[i], cols[j]) += t;
    a[rows[i]] -= t;
    b[cols[j]] -= t;
    if (a[rows[i]] <= 1e-15) ++i;
    else ++j;
  }
  return pi;
}

PropertyResult coupling_theorem(const Params& p) {
  Instances in(p);
  PropertyResult r;
  const double alpha = p.at("alpha");
  for (long i = 0; i < count(p); ++i) {
    const auto mu = in.law(), nu = in.law(), omega = i % 2 ? in.law() : Eigen::VectorXd(0.5 * mu + 0.5 * nu);
    const Eigen::MatrixXd k = in.kernel(in.states, in.states);
    const Eigen::MatrixXd pi = random_coupling(in, omega, mu);
    const Eigen::VectorXd mk = k.transpose() * mu, nk = k.transpose() * nu;
    const auto lhs = D(mk, nk, Quantity::renyi(alpha));
    const auto first = D(omega, nu, Quantity::renyi(alpha));
    double sup = 0, sup_value = 0;
    for (int x = 0; x < in.states; ++x) {
      if (omega[x] <= 0) continue;
      const Eigen::VectorXd h = pi.row(x).transpose() / omega[x];      // H_π(x)
      const Eigen::VectorXd hk = k.transpose() * (h / h.sum());        // (H_π K)(x)
      const auto term = D(hk, k.row(x).transpose(), Quantity::renyi(alpha));
      sup = std::max(sup, term.upper);
      sup_value = std::max(sup_value, term.value);
    }
    record(r, lhs.lower, lhs.value, first.upper + sup, first.value + sup_value,
           fmt::format("instance {}: alpha {}", i, format_number(alpha)));
  }
  return r;
}

}  // namespace

void add_property_bounds(std::vector<BoundEntry>& out) {
  // Random instances: how many, of how many states, from which seed (the work grows as instances x states^3).
  const std::vector<Parameter> instances = {integer("instances", 1, 100000), integer("states", 1, 256),
                                            integer("seed", 0, 2147483647)};
  auto property = [&](std::string id, std::string family, std::string source, std::string statement,
                      std::function<PropertyResult(const Params&)> check, std::vector<Parameter> more = {}) {
    std::vector<Parameter> parameters = instances;
    add_parameters(parameters, more);
    out.push_back({.id = std::move(id),
                   .family = std::move(family),
                   .source = std::move(source),
                   .statement = std::move(statement),
                   .quantity = "property",
                   .check = PropertyCheck{std::move(check)},
                   .parameters = std::move(parameters)});
  };
  property("DIV.hs.monotone", "divergence_properties", "standard", "eps -> HS_eps is non-increasing; HS_0 = TV", hs_monotone);
  property("DIV.dpi", "divergence_properties", "standard", "data processing for HS_eps, TV, R_alpha, KL, R_inf", dpi);
  property("DIV.jointconvex", "divergence_properties", "standard", "HS_eps is jointly convex", joint_convexity);
  property("DIV.ajc", "divergence_properties", "Balle, Privacy Amplification (slides); Balle, Barthe, Gaboardi 2018",
           "advanced joint convexity of HS", advanced_joint_convexity);
  property("DIV.tv.coupling", "divergence_properties", "standard", "TV = 1 - sum min(p, q) (maximal coupling)", tv_coupling);
  property("MIX.implications", "mixing", kPaper + ", Figure 1",
           "ultra-mixing => Doeblin => Dobrushin => (gamma,eps)-Dobrushin (best constants ordered)", mix_implications);
  property("MIX.ldp", "mixing", kPaper + ", Table 1",
           "(gamma,eps)-Dobrushin <=> (eps,gamma)-LDP; gamma-ultra-mixing <=> (log 1/(1-gamma), 0)-LDP", mix_ldp);
  property("T2", "couplings", kPaper + ", Theorem 2",
           "R_alpha(muK||nuK) <= R_alpha(omega||nu) + sup_x R_alpha((H_pi K)(x)||K(x)) (random omega, couplings, K)",
           coupling_theorem, {number("alpha").above(1)});
}

}  // namespace privamp::verify
