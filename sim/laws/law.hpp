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

#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <string>
#include <vector>

#include "sim/formulas/enclosure.hpp"
#include "sim/laws/chain_form.hpp"
#include "sim/laws/exact_form.hpp"

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
  // Read off a formula's derivatives at one point (density()): known to a relative 1e-6, not exactly, so a
  // comparison of two such tails (which is heavier: R_∞ = inf) needs a margin.
  bool estimated = false;
  // The (quad, lin) model does not describe the tail: further out its prediction of log p, or the curvature, is off
  // by more than 1e-6 (a tail lighter than no exponential such as −|x|^β for β < 1, one between linear and quadratic,
  // one with an oscillating part).
  // Whether one such tail is heavier than another, or whether a Rényi integral converges, is then not read off the
  // model: the integral decides.
  bool unmodelled = false;
  bool bounded() const { return quad == std::numeric_limits<double>::infinity(); }
  static TailShape none() {
    return {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  }
};

struct Interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
};

struct Discretisation;
class Law;
using LawPtrPair = std::pair<std::shared_ptr<const Law>, std::shared_ptr<const Law>>;

// What two laws of one process offer together (Law::process_pair_with), each computed on request: the pair
// recomputed jointly (empty if the process has no joint computation) and the pair's chain forms (empty unless the
// process is a projected Gaussian chain).
struct ProcessPair {
  std::function<LawPtrPair()> joint;
  std::function<std::pair<ChainForm, ChainForm>()> chains;
};
using LawPtr = std::shared_ptr<const Law>;

// The privacy loss between two laws computed together (Law::joint_with), taken from their propagated difference
// instead of log p − log q, which loses every digit when the laws nearly coincide.
struct PairLoss {
  std::function<double(double)> density;  // log(dμ/dν) at x inside the support of both continuous parts
  std::function<double(double)> atom;     // log(dμ/dν) at a common atom location
  double error = 0;                       // bound on the absolute error of either, anywhere
};

// Where a law on the line lives, read by engines to plan a computation: the mass and support of its density part, a
// centre and a length scale, and the shape of each tail. A law of several releases or dimensions has none (its shape()
// throws InvalidArgument saying so).
struct Shape {
  double continuous_mass = 1;  // the density part's mass: 1 − the atoms' (0 for a finite law)
  Interval support;            // closure of the density part's support
  double location = 0;         // a centre: mode, mean or median
  double scale = 1;            // a length scale of the density
  TailShape left, right;
  // The narrowest feature's width where it is far below `scale` (a sum of Laplaces of scales 1e-4 and 1.7: a dip at
  // its centre 1e-4 wide that is no peak for the engines to find); 0: none narrower than `scale`.
  double fine_scale = 0;
};

struct Moments {
  std::optional<double> mean, variance;  // where known in closed form
};

// Laws of an observation in which improbable outcomes were lumped into one atom (a post-processing, so the
// divergences computed are lower ends of those of the unlumped observation; the engines widen the upper end).
struct Lumped {
  double x;              // the lumped atom's location
  double max_log_ratio;  // bound on |log p/q| between neighbours inside it (+inf if unknown)
};

// How a law is computed, for the engines that must account for it.
// Enclosures of a law's log-density over intervals, for laws that can give them (closed forms, formula densities):
// read through Computation::ranges. The density engines bound R_∞ by branch and bound on them
// (verify/divergence/loss_enclosure.hpp).
class LogDensityRanges {
 public:
  virtual ~LogDensityRanges() = default;
  // An enclosure of the law's log_density over [a, b] (a ≤ b; up to its log_density_error, which engines carry
  // apart), or nullopt where none can be given.
  virtual std::optional<Enclosure> range(double a, double b) const = 0;
};

struct Computation {
  // A bound on the absolute error of log_density (and of log P(atom)) anywhere, from a normalising constant or an
  // inner integral computed numerically (density(), convolve()); 0 for laws known in closed form. Engines read it
  // after they have evaluated the law (a law may learn its error as it is evaluated) and widen their intervals
  // for it (verify/divergence/engines.cpp).
  double log_density_error = 0;
  // The work of one log_density evaluation, in evaluations of a closed-form density (1 for those). A convolution's
  // density is an integral over its operands' densities (hundreds of evaluations), so nesting multiplies it;
  // convolve refuses laws whose cost would make a divergence take minutes (Convolution::kMaxDensityCost).
  double density_cost = 1;
  // The work of one sample, in elementary steps (1 for a direct draw; a process law's samples are simulated runs:
  // its steps per run). The Monte Carlo engine bounds samples × this before it starts.
  double sample_cost = 1;
  std::optional<Lumped> lumped;
  // Set for laws computed by discretisation (see Discretisation below); engines must then account for it.
  const Discretisation* discretisation = nullptr;
  // Set for laws whose log-density has interval enclosures.
  const LogDensityRanges* ranges = nullptr;
};

// A law has fifteen virtual members, in three groups: what users and the expression language ask of any law (its
// expression, dimension, exact form, samples), the density and atoms engines integrate and sum, and what engines
// read to plan and bound a computation (shape, breakpoints, anchors, tail masses, moments, how it is computed, and
// the joint recomputation of two laws of one process). Scalar conveniences (location(), log_cdf(), sample(), ...) are
// non-virtual readings of these.
class Law {
 public:
  virtual ~Law() = default;

  // --- What users and the language ask of any law.
  // The law expression that rebuilds this law (see `privamp laws`).
  virtual std::string expression() const = 0;
  // The expression as messages quote it: abbreviated beyond 200 characters (numerics/errors.hpp).
  std::string brief() const;
  // Dimension of the sample space; only isotropic Gaussians and compositions are multi-dimensional.
  virtual int dimension() const { return 1; }
  // The family and parameters that engines working with formulas read (sim/laws/exact_form.hpp); none for a law
  // computed numerically.
  virtual ExactForm exact_form() const { return form::None{}; }
  // Independent draws into `out`.
  virtual void sample_into(Rng& rng, std::span<double> out) const = 0;
  double sample(Rng& rng) const {
    double x;
    sample_into(rng, std::span<double>(&x, 1));
    return x;
  }
  void sample(Rng& rng, std::span<double> out) const { sample_into(rng, out); }

  // --- The density and the atoms.
  // Density of the continuous part (integrates to shape().continuous_mass); −inf where it vanishes.
  virtual double log_density(double x) const = 0;
  virtual void log_density(std::span<const double> x, std::span<double> out) const;
  // Atoms, sorted by location, with distinct locations. Empty for a pure density.
  virtual std::span<const Atom> atoms() const { return {}; }
  // log of the mass (atoms) at exactly x, −inf if x is not an atom.
  double log_atom_mass(double x) const;

  // --- What engines read to plan and bound a computation.
  virtual Shape shape() const = 0;
  double continuous_mass() const { return shape().continuous_mass; }
  Interval support() const { return shape().support; }
  double location() const { return shape().location; }
  double scale() const { return shape().scale; }
  TailShape left_tail() const { return shape().left; }
  TailShape right_tail() const { return shape().right; }
  // Points where the density is not smooth (kinks, support ends); split points for quadrature.
  virtual std::vector<double> breakpoints() const { return {}; }
  // Points worth looking at: modes, component centres, breakpoints.
  virtual std::vector<double> anchors() const;
  // log P(X > x) if upper, else log P(X ≤ x), atoms included. Laws without a closed form throw InvalidArgument.
  virtual double log_tail_mass(double x, bool upper) const;
  double log_cdf(double x) const { return log_tail_mass(x, false); }
  double log_sf(double x) const { return log_tail_mass(x, true); }
  virtual Moments moments() const { return {}; }
  std::optional<double> mean() const { return moments().mean; }
  std::optional<double> variance() const { return moments().variance; }
  virtual Computation computation() const { return {}; }
  std::optional<Lumped> lumped() const { return computation().lumped; }
  double log_density_error() const { return computation().log_density_error; }
  const Discretisation* discretisation() const { return computation().discretisation; }
  // An enclosure of log_density over [a, b] (Computation::ranges), or nullopt.
  std::optional<Enclosure> log_density_range(double a, double b) const;
  // Two laws of one process (this and `other`, differing only in a starting point, a data point or an initial law):
  // what can be done with them together, each on request; nullopt if `other` is not a law of the same process.
  virtual std::optional<ProcessPair> process_pair_with(const Law& /*other*/) const { return std::nullopt; }
  // The pair recomputed together, so that their difference keeps its digits when they nearly coincide: (this, other)
  // so recomputed, or nullopt. Engines call it before anything else.
  std::optional<std::pair<LawPtr, LawPtr>> joint_with(const Law& other) const;
  // For a law returned by joint_with: the privacy loss log(d this / d other) against its partner; nullopt for any
  // other law.
  virtual std::optional<PairLoss> loss_against(const Law& /*other*/) const { return std::nullopt; }
  // Two laws of one projected Gaussian chain (this, other) in exact terms, for the certified engine; nullopt if
  // `other` is not a law of the same process or the process is not such a chain (sim/laws/chain_form.hpp).
  std::optional<std::pair<ChainForm, ChainForm>> chain_forms_with(const Law& other) const;
  // The law under its decorators (DiscretisedLaw, LazyLaw): what joint_with and loss_against compare.
  const Law& unwrapped() const;
};

// A law with lumped outcomes (Computation::lumped) stands for an observation whose divergences the engines bound by
// widening what they compute between it and its partner. A law built from it by a shift keeps that (shift moves the
// lumped outcome), and so do compositions for the quantities that add up over releases (Rényi, KL: each release's
// value is widened); any other combination (a mixture, a clamp, a convolution, a composed hockey-stick or TV) would
// silently lose the widening: refused, InvalidArgument naming `what` and the law.
void refuse_lumped(const Law& law, const std::string& what);

// The error model of a law computed by discretising a continuous object (a grid propagation, a discretised
// generator): its resolution, the method's order in the cell width (error = C·h^order + o(h^order)) and a way to
// rebuild the same law at a multiple of the resolution. The engines evaluate every quantity at several
// resolutions, check the observed order against `order` and extrapolate (verify/divergence/discretised.hpp).
// The limits of the discretised laws, in one place (the law catalogue and the case-file parameters of the entries
// that build such laws read them). The error model evaluates a law at 1x, 2x and 4x its base resolution: grid
// propagation holds an (N+1)² kernel (6400 cells: 330 MB), the generator's spectral route costs O(N³) (3200 cells:
// ~40 s); steps × cells² at the base resolution of 2e8 is about 10 s for a jointly propagated pair at the three
// resolutions.
struct DiscretisationLimits {
  static constexpr int min_cells = 16;
  static constexpr int max_grid_cells = 1600;       // grid propagation (noisy_sgd, projected_chain)
  static constexpr int max_generator_cells = 800;   // discretised generators (double_well)
  static constexpr double max_propagation_work = 2e8;
};

struct Discretisation {
  int cells = 0;  // base resolution (the first discretised law of an expression)
  int order = 2;
  int max_factor = 1;  // refine() accepts factors up to this (the laws' limits on cells)
  std::function<LawPtr(int factor)> refine;  // the same law at factor × the base resolution, itself undiscretised
  std::string what;  // e.g. "grid propagation"
};

// A law that forwards every query to another one: the base of decorators that add one capability.
class LawDecorator : public Law {
 public:
  explicit LawDecorator(LawPtr base) : base_(std::move(base)) {}
  // The law forwarded to (a decorator that builds it on first use overrides this).
  virtual const Law& base() const { return *base_; }
  // The law under the decorators: the base's, unless the decorator is itself what joint_with compares (ProcessLaw).
  virtual const Law& undecorated() const { return base().unwrapped(); }

  std::string expression() const override { return base().expression(); }
  int dimension() const override { return base().dimension(); }
  ExactForm exact_form() const override { return base().exact_form(); }
  void sample_into(Rng& rng, std::span<double> out) const override { base().sample_into(rng, out); }
  double log_density(double x) const override { return base().log_density(x); }
  void log_density(std::span<const double> x, std::span<double> out) const override { base().log_density(x, out); }
  std::span<const Atom> atoms() const override { return base().atoms(); }
  Shape shape() const override { return base().shape(); }
  std::vector<double> breakpoints() const override { return base().breakpoints(); }
  std::vector<double> anchors() const override { return base().anchors(); }
  double log_tail_mass(double x, bool upper) const override { return base().log_tail_mass(x, upper); }
  Moments moments() const override { return base().moments(); }
  Computation computation() const override { return base().computation(); }
  std::optional<ProcessPair> process_pair_with(const Law& other) const override { return base().process_pair_with(other); }
  std::optional<PairLoss> loss_against(const Law& other) const override { return base().loss_against(other); }

 private:
  LawPtr base_;
};

// A law together with its discretisation.
class DiscretisedLaw final : public LawDecorator {
 public:
  DiscretisedLaw(LawPtr base, Discretisation discretisation)
      : LawDecorator(std::move(base)), discretisation_(std::move(discretisation)) {}
  Computation computation() const override {
    Computation c = base().computation();
    c.discretisation = &discretisation_;
    return c;
  }

 private:
  Discretisation discretisation_;
};

// A law built on first use, from any thread (once): a process law whose divergences are computed from a joint
// propagation (Law::joint_with) never needs its law alone. What engines read before computing (dimension, exact form,
// how it is computed) is declared, so reading it builds nothing; the built law must agree with the declaration
// (checked when it is built: a std::logic_error otherwise). A discretised law is wrapped outside it (DiscretisedLaw),
// never built inside it.
class LazyLaw final : public LawDecorator {
 public:
  explicit LazyLaw(std::function<LawPtr()> make, int dimension = 1, Computation computation = {})
      : LawDecorator(nullptr), make_(std::move(make)), dimension_(dimension), computation_(computation) {}
  int dimension() const override { return dimension_; }
  // Built on first use means computed (a propagated process's law): no exact form, and no need to build it to say so.
  ExactForm exact_form() const override { return form::None{"computed when first used"}; }
  Computation computation() const override { return computation_; }
  const Law& base() const override {
    std::call_once(built_, [this] {
      law_ = make_();
      check_declared();
      was_built_ = true;
    });
    return *law_;
  }
  // Whether the law has been built (a test reads it: a joint route must not build the laws alone).
  bool built() const { return was_built_; }

 private:
  void check_declared() const;
  std::function<LawPtr()> make_;
  int dimension_;
  Computation computation_;
  mutable std::once_flag built_;
  mutable LawPtr law_;
  mutable std::atomic<bool> was_built_{false};
};

// The law `at(cells)` with its discretisation: refinable by factors up to `max_factor` of `cells`.
inline std::shared_ptr<const DiscretisedLaw> make_discretised(std::function<LawPtr(int cells)> at, int cells, int order,
                                                              int max_factor, std::string what) {
  Discretisation d{cells, order, max_factor, [at, cells](int factor) { return at(factor * cells); }, std::move(what)};
  return std::make_shared<const DiscretisedLaw>(at(cells), std::move(d));
}

// Which process, with which parameters (all but those in which neighbours differ): two laws of one identity are
// laws of the same process and can be computed together. Compared exactly, number by number.
struct ProcessIdentity {
  std::string process;
  std::vector<double> numbers;
  std::vector<std::string> words = {};
  bool operator==(const ProcessIdentity&) const = default;
};

// A law of a process that can be recomputed together with another law of the same process (Law::joint_with).
// `identity` names the process and every parameter except the ones in which neighbours differ (`varying`: a
// starting point, a data point, an initial law); `joint(mine, theirs)` recomputes both laws together (none: the
// laws are computed apart).
// Its samples, when `simulate` is given, are simulated runs of the process itself (not draws from the computed,
// possibly discretised, law): Monte Carlo on them is an independent check of that law.
class ProcessLaw final : public LawDecorator {
 public:
  using Joint = std::function<std::pair<LawPtr, LawPtr>(const std::vector<double>& mine, const std::vector<double>& theirs)>;
  using Simulate = std::function<void(Rng& rng, std::span<double> out)>;
  // The chain forms of (mine, theirs), for a process that is a projected Gaussian chain.
  using Chain = std::function<std::pair<ChainForm, ChainForm>(const std::vector<double>& mine, const std::vector<double>& theirs)>;
  // `steps`: the work of one simulated run (Law::sample_cost).
  ProcessLaw(LawPtr base, ProcessIdentity identity, std::vector<double> varying, Joint joint, Simulate simulate = {},
             double steps = 1, Chain chain = {})
      : LawDecorator(std::move(base)), identity_(std::move(identity)), varying_(std::move(varying)), joint_(std::move(joint)),
        simulate_(std::move(simulate)), steps_(steps), chain_(std::move(chain)) {}
  std::optional<ProcessPair> process_pair_with(const Law& other) const override;
  const Law& undecorated() const override { return *this; }
  void sample_into(Rng& rng, std::span<double> out) const override;
  Computation computation() const override {
    Computation c = base().computation();
    if (simulate_) c.sample_cost = steps_;
    return c;
  }

 private:
  ProcessIdentity identity_;
  std::vector<double> varying_;
  Joint joint_;
  Simulate simulate_;
  double steps_;
  Chain chain_;
};

}  // namespace privamp::sim
