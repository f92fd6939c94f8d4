// Shuffling (BLANKET, SHUF.*): the exact law of the shuffled output of randomized response, and the blanket
// decomposition of a local randomizer.
//
// Binary randomized response (shuffled_rr_counts): n users each report their bit truthfully with probability
// p = e^{ε0}/(1+e^{ε0}); the analyst sees the number of 1s. With the first user holding `first` and `ones` of the
// other n−1 users holding 1, the count is Bin(ones, p) + Bin(n−1−ones, 1−p) + Bernoulli(first ? p : 1−p).
//
// k-ary randomized response (shuffled_krr_counts): user j reports its value x_j with probability e^{ε0}/Z and each
// other value with probability 1/Z, Z = e^{ε0} + k − 1; the analyst sees the histogram of the n reports. The first
// user holds a (first = 1) or b (first = 0); the other n − 1 users hold b. Every user's report lands in {a, b} with
// the same probability r = (e^{ε0}+1)/Z whatever its value, and given that it does not, it is uniform on the other
// k − 2 values; so (m, h_a), m = h_a + h_b, is a sufficient statistic of the histogram, m ~ Bin(n, r) has the same
// law under both neighbours, and given m the first user is among the m with probability m/n:
//   P(h_a | m) = (m/n)·[Bernoulli(first ? p : q) + Bin(m−1, q)] + (1 − m/n)·Bin(m, q),   q = 1/(e^{ε0}+1).
// For k = 2 this is shuffled_rr_counts(n, ε0, 0, first). For k ≥ 3, outcomes whose probability is below e^{−cut}
// under both neighbours are reported as one symbol "rare" (location −1, Law::lumped()): a post-processing, so the
// divergences of these laws are lower ends of the shuffled output's; the engines widen the upper ends by what the
// rare outcomes can add (their likelihood ratios are within e^{±ε0}), e.g. by P(rare) < 1e-30 for hockey-stick.
// Atom locations encode the statistic as m·(n+1) + h_a.
//
// Blanket (blanket_gamma): γ = ∫ min_x p_{R(x)}(y) dy over a finite set of outputs R(x) (atoms: the minimum mass
// of each location; density: the log-space adaptive quadrature of log min_x p), with its error bar. For a
// location family with log-concave noise on inputs [0, 1] the minimum over x ∈ [0, 1] is attained at x ∈ {0, 1},
// so the two outputs suffice; passing more inputs can only confirm it.
#pragma once

#include <span>

#include "sim/laws/finite.hpp"

namespace privamp::sim {

// Count law of shuffled binary randomized response; exact in log-space, O(n·(1+min(ones, n−1−ones))).
FiniteLaw shuffled_rr_counts(long n, double eps0, long ones, int first);

// Law of the sufficient statistic (m, h_a) of shuffled k-ary randomized response (see above), k ≥ 2, n ≤ 10^5
// (10^8 for k = 2). The number of atoms kept grows like cut·n·r(1−r)·q(1−q)·2π.
FiniteLaw shuffled_krr_counts(long n, int k, double eps0, int first, double cut = 80);

struct BlanketGamma {
  double gamma;      // ∫ min_x p_{R(x)}
  double rel_error;  // bound on |error|/gamma (quadrature + rounding; 0 for atoms only)
  long evaluations;  // density evaluations
};
BlanketGamma blanket_gamma(std::span<const LawPtr> outputs);

// The blanket ω: density (and atoms) min_x p_{R(x)} / γ. Sampled by rejection from the first output.
class BlanketLaw final : public Law {
 public:
  explicit BlanketLaw(std::vector<LawPtr> outputs);
  std::string expression() const override;
  double log_density(double x) const override;
  std::span<const Atom> atoms() const override { return atoms_; }
  Shape shape() const override { return shape_; }
  std::vector<double> breakpoints() const override;
  std::vector<double> anchors() const override;
  void sample_into(Rng& rng, std::span<double> out) const override;
  // Its log-density is log min_x p_x − log γ: off by the outputs' largest log-density error, and log γ by that again
  // (γ integrates those densities) plus γ's own quadrature error.
  Computation computation() const override;
  const BlanketGamma& gamma() const { return gamma_; }

 private:
  double log_min(double x) const;
  double draw(Rng& rng) const;
  Shape shape_;
  std::vector<LawPtr> outputs_;
  BlanketGamma gamma_;
  std::vector<Atom> atoms_;
};

}  // namespace privamp::sim
