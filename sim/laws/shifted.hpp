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
  std::span<const Atom> atoms() const override { return atoms_; }
  Shape shape() const override;
  std::vector<double> breakpoints() const override;
  std::vector<double> anchors() const override;
  double log_tail_mass(double x, bool upper) const override { return base_->log_tail_mass(x - by_, upper); }
  Moments moments() const override;
  void sample_into(Rng& rng, std::span<double> out) const override;
  // The base's, with a lumped outcome moved with the law; a shift is not a discretisation.
  Computation computation() const override;
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
