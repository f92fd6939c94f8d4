// Finite laws (pmfs): atoms only. Stored as log-masses so that counts of n = 10^6 users keep their far tails.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "sim/laws/law.hpp"

namespace privamp::sim {

class FiniteLaw final : public Law {
 public:
  // Masses (not logs) at the given distinct locations; checks non-negativity and normalisation (|Σ−1| ≤ 1e-9).
  FiniteLaw(std::vector<double> locations, const Eigen::VectorXd& masses);
  // From log-masses already normalised (the caller guarantees it; checked to 1e-9).
  static FiniteLaw from_log_masses(std::vector<double> locations, std::vector<double> log_masses, std::string expr);

  std::string expression() const override { return expression_; }
  double log_density(double) const override { return -std::numeric_limits<double>::infinity(); }
  std::span<const Atom> atoms() const override { return atoms_; }
  Shape shape() const override {
    constexpr double inf = std::numeric_limits<double>::infinity();
    return {.continuous_mass = 0, .support = {inf, -inf}, .location = mean_, .scale = scale_, .left = TailShape::none(),
            .right = TailShape::none()};
  }
  double log_tail_mass(double x, bool upper) const override;
  Moments moments() const override { return {mean_, std::nullopt}; }
  void sample_into(Rng& rng, std::span<double> out) const override;

  Computation computation() const override {
    Computation c;
    c.lumped = lumped_;
    return c;
  }
  void set_lumped(Lumped lumped) { lumped_ = lumped; }

  // Probability vector (linear scale) in location order.
  Eigen::VectorXd masses() const;

  // What produced the masses in exact terms, when known: the certified engine recomputes them from it in ball
  // arithmetic instead of trusting the rounded doubles. Either masses as given (normalised by their exact sum)
  // or a finite chain mu K^t (K non-empty).
  using ExactSource = FiniteSource;
  const ExactSource* exact_source() const { return exact_source_ ? &*exact_source_ : nullptr; }
  void set_exact_source(ExactSource source) { exact_source_ = std::move(source); }
  ExactForm exact_form() const override { return form::Finite{atoms_, exact_source()}; }

 private:
  FiniteLaw() = default;
  void finish();
  std::vector<Atom> atoms_;
  std::vector<double> cumulative_;
  std::string expression_;
  double mean_ = 0, scale_ = 1;
  std::optional<Lumped> lumped_;
  std::optional<ExactSource> exact_source_;
};

}  // namespace privamp::sim
