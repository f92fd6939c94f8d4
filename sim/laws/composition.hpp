// Composition: the law of T independent releases, μ^{⊗T}, and of releases of different mechanisms in sequence,
// μ_1^{⊗T_1} ⊗ … ⊗ μ_k^{⊗T_k} (the output of DP-SGD over T steps, of a Gaussian mechanism answered T times).
//
// Written power(mu, T) and product(power(mu1, T1), power(mu2, T2), …) in the law language. A composition is only
// ever compared with a composition of the same structure (power(mu, T) against power(nu, T)): its privacy loss is
// the sum of the factors' losses, so Rényi divergences, KL and R_∞ add up over the factors and the hockey-stick
// divergence is that of the composed privacy-loss distribution (verify/divergence/composition.hpp). Nested
// compositions are flattened: power(power(mu, 2), 3) is power(mu, 6).
#pragma once

#include <vector>

#include "sim/laws/law.hpp"

namespace privamp::sim {

class Composition final : public Law {
 public:
  using Factor = ReleaseFactor;
  // The limits on a composition, checked when it is built (InvalidArgument naming the value and the range).
  static constexpr long kMaxCount = 10'000'000;  // releases in all
  static constexpr int kMaxFactors = 64;

  explicit Composition(std::vector<Factor> factors);
  const std::vector<Factor>& factors() const { return factors_; }
  long releases() const { return releases_; }
  ExactForm exact_form() const override { return form::Composition{factors_, releases_}; }

  std::string expression() const override;
  // The dimension of one release times the number of releases (at most kMaxCount × a factor's dimension).
  int dimension() const override { return dimension_; }
  // No density on the line: the engines read the factors (these throw InvalidArgument saying so).
  double log_density(double x) const override;
  Shape shape() const override;
  void sample_into(Rng& rng, std::span<double> out) const override;

 private:
  std::vector<Factor> factors_;
  long releases_ = 0;
  int dimension_ = 0;
};

// power(law, count) and product(laws): the flattened composition (a factor that is itself a composition
// contributes its factors).
LawPtr compose_power(const LawPtr& law, long count);
LawPtr compose_product(const std::vector<LawPtr>& laws);

}  // namespace privamp::sim
