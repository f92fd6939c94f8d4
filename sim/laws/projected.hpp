// Laws with atoms plus a density, as projection onto an interval produces them.
//
// Clamped: the law of Π_[lo,hi](X) for X ~ base, exactly: atoms P(X ≤ lo) at lo and P(X ≥ hi) at hi, the base's
// atoms inside (lo, hi), and the base density restricted to (lo, hi). Needs the base's CDF in closed form.
//
// GridLaw: a density given by its values at x0 + i·dx (linear in between, zero outside) plus atoms; what the
// numerical propagation of projected iterations produces. Checked to carry total mass 1 (to 1e-9).
#pragma once

#include <algorithm>
#include <vector>

#include "sim/laws/law.hpp"

namespace privamp::sim {

class Clamped final : public Law {
 public:
  Clamped(LawPtr base, double lo, double hi);
  std::string expression() const override;
  double log_density(double x) const override;
  std::span<const Atom> atoms() const override { return atoms_; }
  Shape shape() const override {
    const Shape b = base_->shape();
    return {.continuous_mass = continuous_mass_, .support = {lo_, hi_}, .location = std::clamp(b.location, lo_, hi_),
            .scale = std::min(b.scale, hi_ - lo_), .left = TailShape::none(), .right = TailShape::none()};
  }
  std::vector<double> breakpoints() const override;
  std::vector<double> anchors() const override;
  void sample_into(Rng& rng, std::span<double> out) const override;
  Computation computation() const override {
    Computation c;
    c.sample_cost = base_->computation().sample_cost;
    return c;
  }
  const Law& base() const { return *base_; }
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  ExactForm exact_form() const override { return form::Clamped{base_.get(), lo_, hi_}; }

 private:
  LawPtr base_;
  double lo_, hi_, continuous_mass_ = 0;
  std::vector<Atom> atoms_;
};

class GridLaw final : public Law {
 public:
  GridLaw(double x0, double dx, std::vector<double> density, std::vector<double> atom_locations,
          std::vector<double> atom_masses);
  std::string expression() const override;
  double log_density(double x) const override;
  std::span<const Atom> atoms() const override { return atoms_; }
  Shape shape() const override;
  std::vector<double> breakpoints() const override;
  Moments moments() const override { return {mean_, std::nullopt}; }
  void sample_into(Rng& rng, std::span<double> out) const override;

 private:
  double draw(Rng& rng) const;
  double x0_, dx_;
  std::vector<double> density_, cell_cumulative_;
  std::vector<Atom> atoms_;
  double continuous_mass_ = 0, mean_ = 0, scale_ = 1;
};

}  // namespace privamp::sim
