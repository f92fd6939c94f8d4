#include "sim/kernels/finite_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

FiniteKernel::FiniteKernel(Eigen::MatrixXd matrix, double tolerance) : k_(std::move(matrix)) {
  if (k_.rows() == 0 || k_.rows() != k_.cols())
    invalid_input("kernel: the matrix must be square and non-empty, got {}x{}", k_.rows(), k_.cols());
  for (Eigen::Index x = 0; x < k_.rows(); ++x) {
    double sum = 0;
    for (Eigen::Index y = 0; y < k_.cols(); ++y) {
      const double v = k_(x, y);
      if (!(v >= 0) || !std::isfinite(v))
        invalid_input("kernel: entry K({}, {}) = {} is out of range (allowed: 0 <= value < inf)", x,
                      y, format_number(v));
      sum += v;
    }
    if (std::fabs(sum - 1) > tolerance)
      invalid_input("kernel: row {} sums to {}, not 1: the matrix is not row-stochastic", x,
                    format_number(sum));
    k_.row(x) /= sum;  // remove the rounding left within the tolerance
  }
  cumulative_.resize(static_cast<std::size_t>(k_.rows()));
  for (Eigen::Index x = 0; x < k_.rows(); ++x) {
    double acc = 0;
    for (Eigen::Index y = 0; y < k_.cols(); ++y) cumulative_[static_cast<std::size_t>(x)].push_back(acc += k_(x, y));
  }
}

Eigen::VectorXd FiniteKernel::push(const Eigen::VectorXd& mu, int steps) const {
  if (mu.size() != k_.rows())
    invalid_input("kernel: initial law has {} entries for a {}-state kernel", mu.size(), k_.rows());
  if (steps < 0) throw_invalid("kernel", "t", steps, "t >= 0");
  if ((mu.array() < 0).any() || std::fabs(mu.sum() - 1) > 1e-9)
    invalid_input("kernel: initial law is not a probability vector (sum {})", format_number(mu.sum()));
  Eigen::RowVectorXd v = mu.transpose();
  for (int t = 0; t < steps; ++t) v = v * k_;
  return v.transpose();
}

std::pair<Eigen::VectorXd, Eigen::VectorXd> FiniteKernel::push_pair(const Eigen::VectorXd& mu, const Eigen::VectorXd& nu,
                                                                     int steps) const {
  push(mu, 0);  // validates both laws
  push(nu, 0);
  Eigen::RowVectorXd p = mu.transpose(), d = (nu - mu).transpose();
  for (int t = 0; t < steps; ++t) {
    p = p * k_;
    p /= p.sum();
    d = d * k_;
    d -= d.sum() * p;
  }
  return {p.transpose(), d.transpose()};
}

std::vector<int> FiniteKernel::path(int x0, int steps, Rng& rng) const {
  if (x0 < 0 || x0 >= size()) throw_invalid("kernel", "x0", x0, fmt::format("0 <= x0 < {}", size()));
  std::vector<int> p{x0};
  for (int t = 0; t < steps; ++t) {
    const auto& c = cumulative_[static_cast<std::size_t>(p.back())];
    const double u = rng.uniform() * c.back();
    const auto it = std::upper_bound(c.begin(), c.end(), u);
    p.push_back(std::min(static_cast<int>(it - c.begin()), size() - 1));
  }
  return p;
}

double dobrushin_tilde(const FiniteKernel& k, double eps, double delta) {
  check_nonnegative_finite("dobrushin_tilde", "eps", eps);
  check_probability("dobrushin_tilde", "delta", delta);
  if (delta > 0) {
    // ε' = log(1 + (e^ε − 1)/δ), in logs where the quotient overflows (δ = 1e-310 made ε' = inf, refused inside as
    // "'eps' = inf", a parameter the user never gave): log(e^ε − 1) − log δ + log1p(δ/(e^ε − 1)).
    const double a = std::expm1(eps);
    if (std::isfinite(a / delta)) return dobrushin_at(k, std::log1p(a / delta));
    const double log_a = eps + std::log1p(-std::exp(-eps)), log_delta = std::log(delta);
    return dobrushin_at(k, log_a - log_delta + std::log1p(std::exp(log_delta - log_a)));
  }
  double g = 0;
  for (int x = 0; x < k.size(); ++x)
    for (int x2 = 0; x2 < k.size(); ++x2) {
      if (x2 == 0) throw_if_interrupted();
      double outside = 0;
      for (int y = 0; y < k.size(); ++y)
        if (k.matrix()(x2, y) == 0) outside += k.matrix()(x, y);
      g = std::max(g, outside);
    }
  return g;
}

double hockey_stick(const Eigen::VectorXd& mu, const Eigen::VectorXd& nu, double eps) {
  const double w = std::exp(eps);  // inf past ε = 709.78: where ν is 0, μ's mass counts whatever w (not inf·0)
  return (nu.array() == 0).select(mu.array(), (mu.array() - w * nu.array()).max(0.0)).sum();
}

MixingCoefficients mixing_coefficients(const FiniteKernel& kernel) {
  const Eigen::MatrixXd& k = kernel.matrix();
  const int n = kernel.size();
  MixingCoefficients m{};
  m.dobrushin = 0;
  for (int x = 0; x < n; ++x) {
    throw_if_interrupted();
    for (int x2 = x + 1; x2 < n; ++x2) m.dobrushin = std::max(m.dobrushin, 0.5 * (k.row(x) - k.row(x2)).cwiseAbs().sum());
  }
  const Eigen::RowVectorXd column_min = k.colwise().minCoeff();
  const double overlap = column_min.sum();
  // 1 − Σ_y min_x K(x,y) = Σ_y (K(0,y) − min_x K(x,y)) since rows sum to 1: a sum of non-negative terms, without
  // the cancellation of 1 − overlap when the kernel mixes weakly.
  m.doeblin = std::clamp((k.row(0) - column_min).sum(), 0.0, 1.0);
  m.omega = overlap > 0 ? Eigen::VectorXd(column_min.transpose() / overlap) : Eigen::VectorXd::Constant(n, 1.0 / n);
  double min_ratio = 1, max_log_ratio = 0;
  for (int y = 0; y < n; ++y) {
    const double hi = k.col(y).maxCoeff(), lo = k.col(y).minCoeff();
    if (hi > 0) {
      min_ratio = std::min(min_ratio, lo / hi);
      max_log_ratio = std::max(max_log_ratio, lo > 0 ? std::log(hi) - std::log(lo) : std::numeric_limits<double>::infinity());
    }
  }
  m.ultra_mixing = 1 - min_ratio;
  m.ultra_mixing_ldp = max_log_ratio;
  return m;
}

double dobrushin_at(const FiniteKernel& kernel, double eps) {
  check_nonnegative_finite("dobrushin_at", "eps", eps);
  double g = 0;
  for (int x = 0; x < kernel.size(); ++x) {
    throw_if_interrupted();  // every states^2 operations: Ctrl-C within a second at 1,024 states
    for (int x2 = 0; x2 < kernel.size(); ++x2)
      if (x != x2) g = std::max(g, hockey_stick(kernel.row(x), kernel.row(x2), eps));
  }
  return g;
}

FiniteKernel random_dirichlet_kernel(int n, double concentration, std::uint64_t seed) {
  if (n < 1) throw_invalid("random_dirichlet_kernel", "n", n, "n >= 1");
  check_positive_finite("random_dirichlet_kernel", "concentration", concentration);
  Rng rng(seed);
  std::gamma_distribution<double> g(concentration, 1.0);
  Eigen::MatrixXd k(n, n);
  for (int x = 0; x < n; ++x) {
    for (int y = 0; y < n; ++y) k(x, y) = g(rng.engine()) + 1e-300;
    k.row(x) /= k.row(x).sum();
  }
  return FiniteKernel(k);
}

FiniteKernel lazy_kernel(const FiniteKernel& base, double laziness) {
  check_probability("lazy_kernel", "laziness", laziness);
  const int n = base.size();
  return FiniteKernel((1 - laziness) * base.matrix() + laziness * Eigen::MatrixXd::Identity(n, n));
}

FiniteKernel randomized_response_kernel(int k, double eps0) {
  if (k < 2) throw_invalid("randomized_response_kernel", "k", k, "k >= 2");
  check_local_epsilon("randomized_response_kernel", "eps0", eps0);
  const double e = std::exp(eps0);
  Eigen::MatrixXd m = Eigen::MatrixXd::Constant(k, k, 1.0 / (e + k - 1));
  m.diagonal().setConstant(e / (e + k - 1));
  return FiniteKernel(m);
}

FiniteKernel random_sparse_kernel(int n, int per_row, std::uint64_t seed) {
  if (n < 1) throw_invalid("random_sparse_kernel", "n", n, "n >= 1");
  if (per_row < 1 || per_row > n) throw_invalid("random_sparse_kernel", "per_row", per_row, fmt::format("1 <= per_row <= {}", n));
  Rng rng(seed);
  Eigen::MatrixXd k = Eigen::MatrixXd::Zero(n, n);
  std::vector<int> states(static_cast<std::size_t>(n));
  for (int x = 0; x < n; ++x) {
    for (int y = 0; y < n; ++y) states[static_cast<std::size_t>(y)] = y;
    std::shuffle(states.begin(), states.end(), rng.engine());
    for (int j = 0; j < per_row; ++j) k(x, states[static_cast<std::size_t>(j)]) = rng.uniform();
    k.row(x) /= k.row(x).sum();
  }
  return FiniteKernel(k);
}

}  // namespace privamp::sim
