// Gaussian laws: N(μ, σ²) on ℝ, and the isotropic N(m, σ² I) on ℝ^d that the diffusion theorems use.
// Between two isotropic Gaussians of equal σ every divergence equals that of the 1-D pair
// N(‖m−m'‖, σ²) vs N(0, σ²) (rotate so that m − m' lies on the first axis; the other coordinates are equal laws).
#pragma once

#include <vector>

#include "sim/laws/law.hpp"

namespace privamp::sim {

class Gaussian final : public Law, public LogDensityRanges {
 public:
  Gaussian(double mean, double sigma);
  std::string expression() const override;
  double log_density(double x) const override;
  void log_density(std::span<const double> x, std::span<double> out) const override;
  std::optional<Enclosure> range(double a, double b) const override;
  Computation computation() const override {
    Computation c;
    c.ranges = this;
    return c;
  }
  // −(x−μ)²/(2σ²) = −x²/(2σ²) ± μ|x|/σ² + const on the right (−) and left (+) tails.
  Shape shape() const override {
    const double c = 0.5 / (sigma_ * sigma_), l = mean_ / (sigma_ * sigma_);
    return {.continuous_mass = 1, .support = {}, .location = mean_, .scale = sigma_, .left = {c, l}, .right = {c, -l}};
  }
  double log_tail_mass(double x, bool upper) const override;
  Moments moments() const override { return {mean_, sigma_ * sigma_}; }
  void sample_into(Rng& rng, std::span<double> out) const override;
  double sigma() const { return sigma_; }
  // True when mean and sigma are numbers the user gave (not computed from a process's parameters in floating
  // point): only then does the certified engine take the law as exact.
  bool parameters_exact() const { return parameters_exact_; }
  void set_parameters_exact() { parameters_exact_ = true; }
  ExactForm exact_form() const override { return form::Gaussian{mean_, sigma_, parameters_exact_}; }

 private:
  double mean_, sigma_, log_norm_;
  bool parameters_exact_ = false;
};

class GaussianND final : public Law {
 public:
  GaussianND(std::vector<double> mean, double sigma);
  std::string expression() const override;
  int dimension() const override { return static_cast<int>(mean_.size()); }
  const std::vector<double>& mean_vector() const { return mean_; }
  double sigma() const { return sigma_; }
  bool parameters_exact() const { return parameters_exact_; }
  void set_parameters_exact() { parameters_exact_ = true; }
  ExactForm exact_form() const override { return form::GaussianND{mean_, sigma_, parameters_exact_}; }
  // Laws on the line only: these throw; engines use the reduction above.
  double log_density(double x) const override;
  Shape shape() const override;
  void sample_into(Rng& rng, std::span<double> out) const override;

 private:
  bool parameters_exact_ = false;
  std::vector<double> mean_;
  double sigma_;
};

}  // namespace privamp::sim
