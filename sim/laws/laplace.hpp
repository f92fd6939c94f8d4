// Laplace laws and sums of independent Laplaces (iterated Laplace mechanism E2/L3, repeated noise addition RNA).
//
// Laplace(μ, b): p(x) = e^{−|x−μ|/b} / (2b).
// Sum of n iid Laplace(0, b) (the n-fold convolution; the half-integer Bessel form written as a finite sum):
//   p(y) = e^{−|y|/b} / (2^n b (n−1)!) · Σ_{k=0}^{n−1} (n−1+k)! / (k! (n−1−k)!) · (|y|/b)^{n−1−k} 2^{−k}.
// Sum of Laplace(0, b_j) with distinct scales (partial fractions of Π_j (1 + b_j² t²)^{−1}):
//   p(y) = Σ_j c_j e^{−|y|/b_j} / (2 b_j),   c_j = Π_{k≠j} b_j² / (b_j² − b_k²).
// The c_j alternate in sign and grow as scales meet: the terms cancel by the factor
//   K = sup_y Σ_j |c_j| e^{−y/b_j}/(2b_j) / p(y) ≤ 2s·Σ_j |c_j|/(2b_j) · Π_{k: b_k≠s} (1 + b_k/s),   s = max_j b_j
// (the numerator decreases at least as e^{−y/s}; p(y) ≥ e^{−y/s}/(2s) · E e^{−Σ_k |L_k|/s} over the other terms,
// and E e^{−|L_k|/s} = 1/(1 + b_k/s)). Evaluated in doubles the density would carry a relative error of about K·ε
// (5 digits kept at eight scales 1% apart, none at twenty), so where K > 16 the sum is formed in 50-digit
// arithmetic from coefficients computed in it: then K·1e-50 ≤ 1e-17 (K ≤ 1e33 is checked; the 1% gap keeps twenty
// scales near 1e26).
#pragma once

#include <memory>
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
  // Distinct scales whose terms cancel (K > 16, above): c_j/(2b_j) and 1/b_j to 50 digits (laplace.cpp; the
  // multiprecision type stays out of this header). Null where doubles keep the digits.
  struct Terms50;
  std::shared_ptr<const Terms50> terms50_;
  double log_norm_ = 0;
};

// K of the header for a law's scales (1 for equal scales or two: no cancellation).
double laplace_sum_cancellation(const std::vector<double>& scales);

}  // namespace privamp::sim
