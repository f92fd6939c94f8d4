// The Law interface: what the divergence engines need from a probability distribution on the real line.
//
// A law is a finite set of atoms plus a (sub-probability) density: μ = Σ_a m_a δ_{x_a} + p(x) dx with
// Σ m_a + ∫ p = 1. Pure densities (Gaussian, Laplace, sums of Laplaces), finite pmfs (atoms only) and the
// laws that projection onto an interval produces (atoms at the ends plus a density) are all of this form, so one
// engine handles them: atoms by exact finite sums, the density by quadrature.
//
// Engines also need where to look (anchors: modes, kinks), a length scale, the tail shape (to decide whether a
// Rényi integral converges), and a sampler for Monte Carlo. A virtual interface, because law expressions are
// built at run time and nest (mixtures of mixtures).
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace privamp::sim {

class Rng;

struct Atom {
  double x;         // location
  double log_mass;  // log of its probability
};

// log p(x) = −quad·x² − lin·|x| + o(|x|) as |x| → ∞ on one side (lin may be negative: a Gaussian centred at
// μ has lin = ∓μ/σ² on the right/left). {inf, inf} for a bounded support. Decides whether a Rényi integral
// converges and whether the privacy loss is unbounded.
struct TailShape {
  double quad = 0;
  double lin = 0;
  bool bounded() const { return quad == std::numeric_limits<double>::infinity(); }
  static TailShape none() {
    return {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  }
};

struct Interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
};

class Law {
 public:
  virtual ~Law() = default;

  // The law expression that rebuilds this law (see `privamp laws`).
  virtual std::string expression() const = 0;
  // Dimension of the sample space; only isotropic Gaussians are multi-dimensional.
  virtual int dimension() const { return 1; }

  // Density of the continuous part (integrates to continuous_mass()); −inf where it vanishes.
  virtual double log_density(double x) const = 0;
  virtual void log_density(std::span<const double> x, std::span<double> out) const;
  virtual double continuous_mass() const { return 1.0; }
  // Atoms, sorted by location, with distinct locations. Empty for a pure density.
  virtual std::span<const Atom> atoms() const { return {}; }
  // Closure of the support of the continuous part.
  virtual Interval support() const { return {}; }

  // Points where the density is not smooth (kinks, support ends); split points for quadrature.
  virtual std::vector<double> breakpoints() const { return {}; }
  // Points worth looking at: modes, component centres, breakpoints.
  virtual std::vector<double> anchors() const;
  virtual double location() const = 0;
  virtual double scale() const = 0;
  virtual TailShape left_tail() const = 0;
  virtual TailShape right_tail() const = 0;

  // log P(X ≤ x) and log P(X > x), atoms included. Laws without a closed form throw InvalidArgument.
  virtual double log_cdf(double x) const;
  virtual double log_sf(double x) const;

  virtual std::optional<double> mean() const { return std::nullopt; }
  virtual std::optional<double> variance() const { return std::nullopt; }

  virtual double sample(Rng& rng) const = 0;
  virtual void sample(Rng& rng, std::span<double> out) const;

  // log of the mass (atoms) at exactly x, −inf if x is not an atom.
  double log_atom_mass(double x) const;

  // Laws of an observation in which improbable outcomes were lumped into one atom (a post-processing, so the
  // divergences computed are lower ends of those of the unlumped observation; the engines widen the upper end).
  struct Lumped {
    double x;              // the lumped atom's location
    double max_log_ratio;  // bound on |log p/q| between neighbours inside it (+inf if unknown)
  };
  virtual std::optional<Lumped> lumped() const { return std::nullopt; }
};

using LawPtr = std::shared_ptr<const Law>;

}  // namespace privamp::sim
