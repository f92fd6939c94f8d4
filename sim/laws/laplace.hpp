// Laplace laws and sums of independent Laplaces (iterated Laplace mechanism E2/L3, repeated noise addition RNA).
//
// Laplace(μ, b): p(x) = e^{−|x−μ|/b} / (2b).
// Sum of n iid Laplace(0, b) (the n-fold convolution; the half-integer Bessel form written as a finite sum):
//   p(y) = e^{−|y|/b} / (2^n b (n−1)!) · Σ_{k=0}^{n−1} (n−1+k)! / (k! (n−1−k)!) · (|y|/b)^{n−1−k} 2^{−k}.
// Sum of Laplace(0, b_j) with distinct scales (partial fractions of Π_j (1 + b_j² t²)^{−1}):
//   p(y) = Σ_j c_j e^{−|y|/b_j} / (2 b_j),   c_j = Π_{k≠j} b_j² / (b_j² − b_k²).
#pragma once

#include <vector>

#include "sim/laws/law.hpp"

namespace privamp::sim {

class Laplace final : public Law, public LogDensityRanges {
 public:
  Laplace(double mean, double scale);
  std::string expression() const override;
  double log_density(double x) const override;
  void log_density(std::span<const double> x, std::span<double> out) const override;
  std::optional<Enclosure> range(double a, double b) const override;
  Computation computation() const override {
    Computation c;
    c.ranges = this;
    return c;
  }
  std::vector<double> breakpoints() const override { return {mean_}; }
  Shape shape() const override {
    return {.continuous_mass = 1, .support = {}, .location = mean_, .scale = b_, .left = {0, 1 / b_}, .right = {0, 1 / b_}};
  }
  double log_tail_mass(double x, bool upper) const override;
  Moments moments() const override { return {mean_, 2 * b_ * b_}; }
  void sample_into(Rng& rng, std::span<double> out) const override;
  // As Gaussian::parameters_exact: location and scale as the user gave them.
  bool parameters_exact() const { return parameters_exact_; }
  void set_parameters_exact() { parameters_exact_ = true; }
  ExactForm exact_form() const override { return form::Laplace{mean_, b_, parameters_exact_}; }

 private:
  double mean_, b_, log_norm_;
  bool parameters_exact_ = false;
};

// loc + Σ_j Laplace(0, scales[j]); the scales must be all equal or pairwise distinct (relative gap ≥ 1e-2, below
// which the partial-fraction weights cancel catastrophically).
class LaplaceSum final : public Law {
 public:
  LaplaceSum(double loc, std::vector<double> scales);
  std::string expression() const override;
  double log_density(double x) const override;
  std::vector<double> breakpoints() const override { return {loc_}; }
  Shape shape() const override;
  Moments moments() const override;
  void sample_into(Rng& rng, std::span<double> out) const override;
  const std::vector<double>& scales() const { return scales_; }
  ExactForm exact_form() const override { return form::LaplaceSum{loc_, scales_}; }

 private:
  double loc_;
  std::vector<double> scales_;
  double max_scale_;
  bool equal_;
  // equal scales: log of the k-th coefficient (n−1+k)!/(k!(n−1−k)!) 2^{−k}; distinct: log|c_j|/(2b_j) and signs.
  std::vector<double> log_coef_;
  std::vector<int> sign_;
  double log_norm_ = 0;
};

}  // namespace privamp::sim
