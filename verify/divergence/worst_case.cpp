#include "verify/divergence/worst_case.hpp"

#include <cmath>
#include <limits>

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"

namespace privamp::verify {

namespace {
void check_size(const sim::FiniteKernel& kernel, const char* where, int limit = kMaxWorstCaseStates) {
  if (kernel.size() > limit)
    invalid_input("{}: the kernel has {} states; allowed at most {} (the exact worst case enumerates "
                  "states^4 maps of the canonical pair)", where, kernel.size(), limit);
}
// The pair after K that the map g attains, with the enumeration's size.
WorstCase attained(const CanonicalPair& c, const Eigen::MatrixXd& k, const std::array<int, 4>& g) {
  WorstCase r;
  r.map = g;
  r.maps = static_cast<long>(k.rows()) * k.rows() * k.rows() * k.rows();
  r.mu = c.p[0] * k.row(g[0]) + c.p[1] * k.row(g[1]) + c.p[2] * k.row(g[2]) + c.p[3] * k.row(g[3]);
  r.nu = c.q[0] * k.row(g[0]) + c.q[1] * k.row(g[1]) + c.q[2] * k.row(g[2]) + c.q[3] * k.row(g[3]);
  return r;
}
}  // namespace

CanonicalPair canonical_pair(double eps, double delta) {
  check_nonnegative_finite("canonical_pair", "eps", eps);
  check_probability("canonical_pair", "delta", delta);
  // e^ε/(1+e^ε) and 1/(1+e^ε) written to avoid overflow at large ε.
  const double hi = 1 / (1 + std::exp(-eps)), lo = 1 / (1 + std::exp(eps));
  CanonicalPair c;
  c.p << delta, (1 - delta) * hi, (1 - delta) * lo, 0;
  c.q << 0, (1 - delta) * lo, (1 - delta) * hi, delta;
  return c;
}

std::vector<WorstCase> worst_case_amplification(const sim::FiniteKernel& kernel, double eps, double delta,
                                                const std::vector<double>& eps_primes) {
  check_size(kernel, "worst_case_amplification");
  const CanonicalPair c = canonical_pair(eps, delta);
  const int n = kernel.size();
  const Eigen::MatrixXd& k = kernel.matrix();
  std::vector<WorstCase> out;
  for (double eps_prime : eps_primes) {
    check_nonnegative_finite("worst_case_amplification", "eps_prime", eps_prime);
    const double w = std::exp(eps_prime);
    // μK − e^{ε'}νK = Σ_i (P0_i − w Q0_i) K(g(i)); the middle pair (g1, g2) is summed once for all (g0, g3).
    const double c0 = c.p[0] - w * c.q[0], c1 = c.p[1] - w * c.q[1], c2 = c.p[2] - w * c.q[2], c3 = c.p[3] - w * c.q[3];
    double best = -1;
    std::array<int, 4> arg{};
    Eigen::ArrayXd middle(n);
    for (int g1 = 0; g1 < n; ++g1)
      for (int g2 = 0; g2 < n; ++g2) {
        throw_if_interrupted();  // every n² maps (at 64 states, about a millisecond): Ctrl-C within a second
        middle = c1 * k.row(g1).transpose().array() + c2 * k.row(g2).transpose().array();
        for (int g0 = 0; g0 < n; ++g0) {
          const Eigen::ArrayXd with0 = middle + c0 * k.row(g0).transpose().array();
          for (int g3 = 0; g3 < n; ++g3) {
            const double v = (with0 + c3 * k.row(g3).transpose().array()).max(0.0).sum();
            if (v > best) {
              best = v;
              arg = {g0, g1, g2, g3};
            }
          }
        }
      }
    WorstCase r = attained(c, k, arg);
    // Rounding, the same bound for every map: each μK_y and νK_y is a sum of four products (relative error 4·eps),
    // and the positive parts are summed over n states; so every map's computed HS is within (16 + 2n)·eps·(1 + e^{ε'})
    // of its true value, and the true maximum is within that of the computed one (whichever map attains it).
    const double err = (16.0 + 2.0 * n) * std::numeric_limits<double>::epsilon() * (1 + w);
    r.value = Estimate::from_value(std::max(best, 0.0), err, ErrorKind::exact, "exact worst case over all (eps,delta)-DP pairs (GT.canonical)");
    r.value.work = r.maps;
    out.push_back(r);
  }
  return out;
}

std::vector<WorstCase> worst_case_renyi(const sim::FiniteKernel& kernel, double eps, double delta,
                                        const std::vector<double>& alphas) {
  check_size(kernel, "worst_case_renyi", kMaxWorstCaseRenyiStates);
  const CanonicalPair c = canonical_pair(eps, delta);
  const int n = kernel.size();
  const Eigen::MatrixXd& k = kernel.matrix();
  std::vector<WorstCase> out;
  for (double alpha : alphas) {
    check_greater("worst_case_renyi", "alpha", alpha, 1);
    if (!std::isfinite(alpha)) invalid_input("worst_case_renyi: alpha must be finite (allowed 1 < alpha < inf)");
    double best = -kInfinity;  // log Σ μ^α ν^{1−α}
    double best_error = 0;      // its rounding
    double highest = -kInfinity;  // the largest log Σ + its rounding over all maps: the true maximum is below it
    std::array<int, 4> arg{};
    Eigen::ArrayXd mu(n), nu(n);
    for (int g0 = 0; g0 < n && best < kInfinity; ++g0)
      for (int g1 = 0; g1 < n && best < kInfinity; ++g1)
        for (int g2 = 0; g2 < n && best < kInfinity; ++g2) {
          throw_if_interrupted();  // every n maps
          for (int g3 = 0; g3 < n && best < kInfinity; ++g3) {
            mu = c.p[0] * k.row(g0).transpose().array() + c.p[1] * k.row(g1).transpose().array() +
                 c.p[2] * k.row(g2).transpose().array() + c.p[3] * k.row(g3).transpose().array();
            nu = c.q[0] * k.row(g0).transpose().array() + c.q[1] * k.row(g1).transpose().array() +
                 c.q[2] * k.row(g2).transpose().array() + c.q[3] * k.row(g3).transpose().array();
            double top = -kInfinity, magnitude = 0;
            bool infinite = false;
            for (int y = 0; y < n; ++y) {
              if (mu[y] <= 0) continue;
              if (nu[y] <= 0) {
                infinite = true;
                continue;
              }
              const double lm = std::log(mu[y]), ln = std::log(nu[y]);
              top = std::max(top, alpha * lm + (1 - alpha) * ln);
              // Each log-term rounds by ~eps·(α|log μ| + (α−1)|log ν|) plus μ's and ν's own 4·eps (times α).
              magnitude = std::max(magnitude, alpha * std::fabs(lm) + (alpha - 1) * std::fabs(ln) + 4 * alpha);
            }
            double v = kInfinity;
            if (!infinite) {
              double sum = 0;
              for (int y = 0; y < n; ++y)
                if (mu[y] > 0) sum += std::exp(alpha * std::log(mu[y]) + (1 - alpha) * std::log(nu[y]) - top);
              v = top + std::log(sum);
            }
            const double error = 16 * std::numeric_limits<double>::epsilon() * (magnitude + n + std::fabs(v));
            highest = std::max(highest, v + error);
            if (v > best) {
              best = v;
              best_error = error;
              arg = {g0, g1, g2, g3};
            }
          }
        }
    WorstCase r = attained(c, k, arg);
    const char* method = "exact worst case of R_alpha over all (eps,delta)-DP pairs (canonical maps)";
    if (best == kInfinity) {
      r.value = Estimate::infinite(method);
    } else {
      // R = log I/(α − 1): the lower end from the winning map's rounding, the upper end from the largest computed
      // value plus rounding over all maps (a map with larger rounding could truly be the maximum).
      r.value = Estimate::from_interval(std::max(0.0, (best - best_error) / (alpha - 1)),
                                        std::max(0.0, highest / (alpha - 1)), ErrorKind::exact, method);
      r.value.value = std::max(best, 0.0) / (alpha - 1);
    }
    r.value.work = r.maps;
    out.push_back(r);
  }
  return out;
}

Estimate worst_case_by_output_sets(const sim::FiniteKernel& kernel, double eps, double delta, double eps_prime) {
  check_nonnegative_finite("worst_case_by_output_sets", "eps_prime", eps_prime);
  const int n = kernel.size();
  if (n > 16)
    invalid_input("worst_case_by_output_sets: the kernel has {} states; allowed at most 16 (2^states "
                  "output sets are enumerated)", n);
  const CanonicalPair c = canonical_pair(eps, delta);
  const double w = std::exp(eps_prime);
  const Eigen::Vector4d coef = c.p - w * c.q;
  const Eigen::MatrixXd& k = kernel.matrix();
  double best = 0;  // T = ∅
  Eigen::VectorXd mass(n);
  for (unsigned long set = 1; set < (1ul << n); ++set) {
    for (int x = 0; x < n; ++x) {
      double s = 0;
      for (int y = 0; y < n; ++y)
        if (set >> y & 1ul) s += k(x, y);
      mass[x] = s;
    }
    const double hi = mass.maxCoeff(), lo = mass.minCoeff();
    double v = 0;
    for (int i = 0; i < 4; ++i) v += coef[i] * (coef[i] > 0 ? hi : lo);
    best = std::max(best, v);
  }
  // Each K(x, T) is a sum of at most n terms (relative error n·eps), weighted by Σ|c_i| ≤ 1 + e^{ε'}.
  const double err = 4.0 * (n + 4) * std::numeric_limits<double>::epsilon() * (1 + w);
  Estimate e = Estimate::from_value(best, err, ErrorKind::exact, "worst case by enumerating output sets (2^|Y| sets)");
  e.work = 1l << n;
  return e;
}

}  // namespace privamp::verify
