// A law translated by a constant: X + c. Used to build laws such as Σ_k Bin(k; m, p)·(μ + k) (the output of
// subsampling with replacement, where a record is drawn k times).
#pragma once

#include "sim/laws/law.hpp"

namespace privamp::sim {

class Shifted final : public Law {
 public:
  Shifted(LawPtr base, double by);
  std::string expression() const override;
  double log_density(double x) const override { return base_->log_density(x - by_); }
  void log_density(std::span<const double> x, std::span<double> out) const override;
  double continuous_mass() const override { return base_->continuous_mass(); }
  std::span<const Atom> atoms() const override { return atoms_; }
  Interval support() const override {
    const Interval s = base_->support();  // once: nested shifts would otherwise cost 2^depth
    return {s.lo + by_, s.hi + by_};
  }
  std::vector<double> breakpoints() const override;
  std::vector<double> anchors() const override;
  double location() const override { return base_->location() + by_; }
  double scale() const override { return base_->scale(); }
  TailShape left_tail() const override;
  TailShape right_tail() const override;
  double log_cdf(double x) const override { return base_->log_cdf(x - by_); }
  double log_sf(double x) const override { return base_->log_sf(x - by_); }
  std::optional<double> mean() const override;
  std::optional<double> variance() const override { return base_->variance(); }
  double sample(Rng& rng) const override { return base_->sample(rng) + by_; }
  double log_density_error() const override { return base_->log_density_error(); }
  double density_cost() const override { return base_->density_cost(); }
  double sample_cost() const override { return base_->sample_cost(); }
  const Law& base() const { return *base_; }
  double by() const { return by_; }
  // False when `by` is a rounded product (binomial_mix: k·step): the certified engine then refuses the law.
  bool by_exact() const { return by_exact_; }
  void set_by_inexact() { by_exact_ = false; }
  ExactForm exact_form() const override { return form::Shifted{base_.get(), by_, by_exact_}; }

 private:
  LawPtr base_;
  double by_;
  bool by_exact_ = true;
  std::vector<Atom> atoms_;
};

}  // namespace privamp::sim
