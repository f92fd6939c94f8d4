// Laws built from other descriptions than a closed form:
//   density(log_pdf = "…", lo, hi)   a continuous law from a (possibly unnormalised) log-density written as a formula
//                                    in x (sim/formulas/formula.hpp), on [lo, hi] (either end may be absent);
//   convolve(a, b)                   the law of X + Y for independent X ~ a, Y ~ b, any two one-dimensional laws.
// Both compute something numerically — the normaliser, the convolution integral at each point — and carry its
// error as Law::log_density_error, which the engines add to their intervals.
#pragma once

#include <optional>
#include <utility>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim/formulas/formula.hpp"
#include "sim/laws/law.hpp"

namespace privamp::sim {

// exp(f(x))/Z on [lo, hi]. Z by two quadratures that do not share nodes (the log-space adaptive Gauss–Kronrod of
// numerics/log_integrate and Boost's tanh-sinh/exp-sinh on e^{f − max f}); they must agree within their error
// estimates, and the larger of their difference and the adaptive rule's error is the log-density error. loc and
// scale say where the mass is and its width (the scan that finds the mode starts there). The tails of an unbounded
// side are read from the formula's derivatives (dual numbers) where it has fallen 50 below its maximum; f must
// decay there (otherwise: not normalisable). Samples are exact: rejection from a piecewise-constant envelope built
// from the formula's interval enclosure on cells out to 2^40 scales (build_sampler, on the first draw); only cells
// whose envelope mass is below e^-46 of the total, and the support beyond 2^40 scales, are not sampled.
class FormulaDensity final : public Law, public LogDensityRanges {
 public:
  FormulaDensity(std::shared_ptr<const Formula> log_pdf, double lo, double hi, double loc, double scale);
  std::string expression() const override;
  double log_density(double x) const override;
  std::optional<Enclosure> range(double a, double b) const override;
  Shape shape() const override {
    return {.continuous_mass = 1, .support = {lo_, hi_}, .location = mode_, .scale = scale_, .left = left_, .right = right_};
  }
  std::vector<double> breakpoints() const override;
  std::vector<double> anchors() const override;
  void sample_into(Rng& rng, std::span<double> out) const override;
  Computation computation() const override {
    Computation c;
    c.log_density_error = log_z_error_;
    c.ranges = this;
    return c;
  }
  double log_normaliser() const { return log_z_; }

 private:
  // The constructor's steps, in order.
  void check_arguments() const;
  std::vector<double> find_mode();
  void find_window(const std::vector<double>& scan);
  void find_hidden_peaks(const std::vector<double>& scan);
  void normalise();
  double second_normaliser(double& error) const;
  void build_sampler() const;
  double checked(double x) const;  // log_pdf at x; InvalidArgument where it is NaN or +inf

  std::shared_ptr<const Formula> f_;
  double lo_, hi_, loc_, scale_;
  double mode_ = 0, max_ = 0, log_z_ = 0, log_z_error_ = 0;
  double window_lo_ = 0, window_hi_ = 0;
  TailShape left_, right_;
  struct Cell {
    double a, width, log_sup;  // sup f − max_ on [a, a + width]
  };
  mutable std::once_flag sampler_built_;
  mutable std::vector<Cell> cells_;       // the sampler's envelope (built on the first draw)
  mutable std::vector<double> cell_cdf_;  // its cumulative masses, normalised to 1
  std::vector<double> peaks_;   // where exp(f) peaks finer than the mode scan or beyond its window (anchors)
  std::vector<double> ladder_;  // split points around the narrow ones, at their widths times powers of 8
  std::vector<double> kinks_;   // where log_pdf is not smooth (breakpoints)
};

// X + Y. Its density at z is ∫ p_X(x) p_Y(z − x) dx (log-space adaptive quadrature, split at the anchors and kinks
// of both laws) plus the atoms of each law against the other's density; its atoms are the sums of atoms. Its
// log-density error is declared once, when the law is built, so that a result never depends on what was evaluated
// before: 10 × the largest a-posteriori error of the inner integral at probes around the law's anchors (within 32
// scales), plus its operands' errors. An evaluation whose own error exceeds that (beyond the rounding of a log
// density as large as it is) is a NumericalError, never a silently wider error. Samples are sums of samples: exact.
class Convolution final : public Law {
 public:
  Convolution(LawPtr a, LawPtr b);
  std::string expression() const override;
  double log_density(double z) const override;
  std::span<const Atom> atoms() const override { return atoms_; }
  Shape shape() const override;
  std::vector<double> breakpoints() const override;
  std::vector<double> anchors() const override;
  Moments moments() const override;
  void sample_into(Rng& rng, std::span<double> out) const override;
  Computation computation() const override;

  static constexpr std::size_t kMaxAtoms = 100000;  // pairs of atoms
  // One density evaluation integrates over the operands' densities with about kInnerEvaluations of them (21 per
  // piece where the operands have many breakpoints, as laws on grids do); a
  // convolution whose operand is itself a convolution of densities costs ~10^5 evaluations per point and a
  // divergence minutes (measured: 290 s for three generalised Gaussians): refused above kMaxDensityCost.
  static constexpr double kInnerEvaluations = 400;
  static constexpr double kMaxDensityCost = 2e4;

 private:
  LawPtr a_, b_;
  std::vector<Atom> atoms_;
  double continuous_mass_ = 1;
  bool a_density_ = true, b_density_ = true;  // whether each operand has a density part
  Interval support_;
  TailShape left_, right_;
  double cost_ = 1;
  double inner_error_ = 0;  // declared relative error of the inner integrals
  // ∫ p_X(x) p_Y(z − x) dx in log space and its a-posteriori relative error; nullopt where the supports miss.
  std::optional<std::pair<double, double>> inner(double z) const;
};

}  // namespace privamp::sim
