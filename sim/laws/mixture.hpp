// Finite mixtures Σ_i w_i μ_i, e.g. the Poisson-subsampled mechanism (1−q)·M(D) + q·M(D').
// Densities combine by log-sum-exp; atoms at equal locations merge.
#pragma once

#include <algorithm>

#include <functional>
#include <optional>
#include <vector>

#include "sim/laws/law.hpp"

namespace privamp::sim {

class Mixture final : public Law {
 public:
  Mixture(std::vector<double> weights, std::vector<LawPtr> components);
  std::string expression() const override;
  double log_density(double x) const override;
  void log_density(std::span<const double> x, std::span<double> out) const override;
  std::span<const Atom> atoms() const override { return atoms_; }
  Shape shape() const override { return shape_; }
  std::vector<double> breakpoints() const override;
  std::vector<double> anchors() const override;
  double log_tail_mass(double x, bool upper) const override;
  Moments moments() const override;
  void sample_into(Rng& rng, std::span<double> out) const override;
  // log Σ w p_i moves by at most the largest error of a component; a density visits every component, a sample one.
  Computation computation() const override;
  const std::vector<double>& weights() const { return weights_; }
  const std::vector<LawPtr>& components() const { return components_; }

  // The weights' exact source, for the certified engine (which recomputes them in ball arithmetic; see
  // sim/laws/exact_form.hpp).
  using BinomialWeights = sim::BinomialWeights;
  const BinomialWeights* binomial_weights() const { return binomial_ ? &*binomial_ : nullptr; }
  void set_binomial_weights(BinomialWeights b) { binomial_ = std::move(b); }
  ExactForm exact_form() const override { return form::Mixture{weights_, components_, binomial_weights()}; }

 private:
  std::optional<BinomialWeights> binomial_;
  std::vector<double> weights_, log_weights_, cumulative_;
  std::vector<LawPtr> components_;
  std::vector<Atom> atoms_;
  Shape shape_;
};

// Σ_{k=0}^{m} Bin(k; m, p)·component(k): a record drawn k times by sampling with replacement. Terms below 1e-300
// cannot contribute and are dropped (the weights renormalised).
// At most kMaxBinomialComponents components of weight >= 1e-300 (InvalidArgument before building, naming m and p).
inline constexpr long kMaxBinomialComponents = 2000;
std::shared_ptr<const Mixture> binomial_mixture(long m, double p, const std::function<LawPtr(long)>& component);

}  // namespace privamp::sim
