// A law's exact form: what the engines that work with formulas (the closed forms, the certified engine, the
// composition's contour) read of a law — its family and parameters as data — or none, with the reason.
//
// Each law answers for itself (Law::exact_form); decorators forward the question, and a law built on first use
// answers without being built. Engines read a form with std::get_if / std::visit, never by recognising classes,
// so a new law with a closed form adds one alternative here and its own exact_form(); a law without one needs
// nothing.
//
// Spans and pointers in a form refer into the law that gave it: use a form while that law lives.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include <Eigen/Core>

namespace privamp::sim {

class Law;
using LawPtr = std::shared_ptr<const Law>;
struct Atom;

// The exact source of a mixture's weights: a binomial law Bin(m, p) whose atoms k are carried onto the
// components by a plan. Component c receives the sum, over the moves (k, c, f), of Bin(k; m, p)·f / (the sum of f
// over k's moves). binomial_mixture moves each k to its own component (the terms below 1e-300 are dropped); a
// lattice law shifted by a transport plan splits atoms.
struct BinomialWeights {
  struct Move {
    long k = 0;
    std::size_t component = 0;
    double fraction = 1;
  };
  long m = 0;
  double p = 0;
  std::vector<Move> moves;
};

// What produced a finite law's masses in exact terms: either masses as given (normalised by their exact sum) or a
// finite chain mu K^t (K non-empty). The certified engine recomputes the masses from it in ball arithmetic.
struct FiniteSource {
  std::vector<double> masses;
  Eigen::MatrixXd K;
  std::vector<double> mu;
  long t = 0;
};

// One factor of a composition: `count` independent releases of `law` (not itself a composition).
struct ReleaseFactor {
  LawPtr law;
  long count;
};

namespace form {

// No exact form: the law is computed numerically (a density formula, a convolution, a grid). `why` is empty
// unless the law says more than that.
struct None {
  std::string why;
};
// `exact`: the parameters are numbers the user gave, not computed from a process's parameters in floating point
// (the closed forms take either; the certified engine only exact ones).
struct Gaussian {
  double mean, sigma;
  bool exact;
};
struct GaussianND {  // isotropic N(mean, σ² I)
  std::span<const double> mean;
  double sigma;
  bool exact;  // as Gaussian::exact: the parameters as the user gave them
};
struct Laplace {
  double mean, scale;
  bool exact;
};
struct LaplaceSum {  // location + Σ_j Laplace(0, scales[j])
  double location;
  std::span<const double> scales;
};
struct Shifted {  // base + by; `exact`: by is not a rounded product
  const Law* base;
  double by;
  bool exact;
};
struct Mixture {
  std::span<const double> weights;
  std::span<const LawPtr> components;
  const BinomialWeights* binomial;  // the weights' exact source, or null
};
struct Finite {
  std::span<const Atom> atoms;
  const FiniteSource* source;  // or null: masses computed in floating point
};
struct Clamped {  // the projection of base onto [lo, hi]
  const Law* base;
  double lo, hi;
};
struct Composition {
  std::span<const ReleaseFactor> factors;
  long releases;
};

}  // namespace form

using ExactForm = std::variant<form::None, form::Gaussian, form::GaussianND, form::Laplace, form::LaplaceSum, form::Shifted,
                               form::Mixture, form::Finite, form::Clamped, form::Composition>;

}  // namespace privamp::sim
