#include "sim/processes/langevin.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include <boost/numeric/odeint/integrate/integrate_adaptive.hpp>
#include <boost/numeric/odeint/stepper/generation.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_dopri5.hpp>
#include <fmt/format.h>

#include "numerics/cache.hpp"
#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/log_integrate.hpp"
#include "numerics/symmetric_tridiagonal.hpp"
#include "sim/formulas/certify.hpp"
#include "sim/formulas/formula.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/spec.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

Potential Potential::double_well() {
  return {"double_well", [](double x) { return x * x * x * x / 4 - x * x / 2; }, nullptr, [](double x) { return x * x * x - x; }};
}

Potential Potential::named(const std::string& text) {
  if (text == "double_well") return double_well();
  return of(Formula::parse(text, {"x"}, {}, "potential"));
}

Potential Potential::of(std::shared_ptr<const Formula> formula) {
  return {formula->text(), [formula](double x) { return (*formula)(x); }, formula,
          [formula](double x) { return derivative(*formula, std::span<const double>(&x, 1)); }};
}

void Potential::check(double lo, double hi) const {
  if (!formula) return;
  const Enclosure box[1] = {{lo, hi}};
  extremum(*formula, 0, 0, box, true);  // throws where U is not finite
  const Extremum drift = sup_abs(*formula, 0, 1, box);
  if (drift.value.hi > kMaxDrift)
    invalid_input("potential '{}': |U'| reaches {:.6g} on [{}, {}] (certified enclosure {}): above {}, the "
                  "discretised generator is too stiff; narrow [lo, hi]", name, drift.value.lo,
                  format_number(lo), format_number(hi), describe(drift, *formula), kMaxDrift);
}

Potential Potential::quadratic(double theta) {
  check_positive_finite("quadratic potential", "theta", theta);
  return {fmt::format("quadratic({})", theta), [theta](double x) { return theta * x * x / 2; }, nullptr,
          [theta](double x) { return theta * x; }};
}

double langevin_simulation_steps(double t) { return std::ceil(std::max(100.0, t * kSimulationSteps)); }

double simulate_langevin(const Potential& potential, double x0, double t, double lo, double hi, Rng& rng) {
  if (!potential.slope) invalid_input("langevin: potential '{}' has no slope to simulate with", potential.name);
  const double steps_wanted = langevin_simulation_steps(t);
  if (!(steps_wanted <= 20000))
    throw_invalid("langevin simulation", "t", t, fmt::format("<= {} (at most 20,000 steps of 1/{})", 20000 / kSimulationSteps, kSimulationSteps));
  const int steps = static_cast<int>(steps_wanted);
  const double dt = t / steps, noise = std::sqrt(2 * dt);
  auto reflect = [lo, hi](double x) {
    for (int k = 0; k < 4 && (x < lo || x > hi); ++k) x = x < lo ? 2 * lo - x : 2 * hi - x;
    return std::clamp(x, lo, hi);  // a jump of several widths (a steep drift): the nearest end
  };
  double x = x0;
  for (int k = 0; k < steps; ++k) {
    const double w = noise * rng.normal(), a = -potential.slope(x);
    const double predictor = reflect(x + a * dt + w);
    x = reflect(x + 0.5 * (a - potential.slope(predictor)) * dt + w);
  }
  return x;
}

LangevinChain::LangevinChain(Potential potential, double lo, double hi, int cells)
    : potential_(std::move(potential)), lo_(lo), hi_(hi) {
  throw_if_interrupted();  // between the resolutions of a discretised pair
  check_finite("langevin", "lo", lo);
  check_finite("langevin", "hi", hi);
  if (!(lo < hi)) invalid_input("langevin: need lo < hi");
  if (cells < 4 || cells > 4000) throw_invalid("langevin", "cells", cells, "4 <= cells <= 4000");
  const int n = cells + 1;
  h_ = (hi - lo) / cells;
  x_.resize(n);
  Eigen::VectorXd u(n);
  for (int i = 0; i < n; ++i) {
    x_[i] = lo + i * h_;
    u[i] = potential_.u(x_[i]);
    check_finite("langevin", "U(x)", u[i]);
  }
  up_ = Eigen::VectorXd::Zero(n);
  down_ = Eigen::VectorXd::Zero(n);
  for (int i = 0; i + 1 < n; ++i) {
    up_[i] = std::exp(-(u[i + 1] - u[i]) / 2) / (h_ * h_);
    down_[i + 1] = std::exp(-(u[i] - u[i + 1]) / 2) / (h_ * h_);
  }
  // The end nodes stand for half cells (the reflecting boundary as a finite volume): their exit rates are doubled
  // and their invariant weights halved. With full cells at the ends the law near a boundary that carries mass
  // converges at first order only (seen on log-cosh, whose invariant law reaches the ends).
  up_[0] *= 2;
  down_[n - 1] *= 2;
  // π_i ∝ w_i e^{−U_i} (w = 1/2 at the ends, 1 inside), normalised in log-space; the symmetrised generator
  // S = π^{1/2} Q π^{-1/2} has off-diagonal sqrt(q(i→i+1) q(i+1→i)) (the exponentials cancel) and diagonal −(up + down).
  const double m = -u.minCoeff();
  Eigen::VectorXd log_w = Eigen::VectorXd::Zero(n);
  log_w[0] = log_w[n - 1] = -std::log(2.0);
  double z = 0;
  for (int i = 0; i < n; ++i) z += std::exp(log_w[i] - u[i] - m);
  log_pi_half_ = (log_w.array() - u.array() - m - std::log(z)) / 2;
  Eigen::VectorXd diagonal(n), off(n - 1);
  for (int i = 0; i < n; ++i) {
    diagonal[i] = -(up_[i] + down_[i]);
    if (i + 1 < n) off[i] = std::sqrt(up_[i] * down_[i + 1]);
  }
  TridiagonalEigen decomposition = [&] {
    try {
      return symmetric_tridiagonal_eigen(std::move(diagonal), std::move(off));  // interruptible
    } catch (const NumericalError& e) {  // (named by the chain: "symmetric_tridiagonal_eigen" told a user nothing)
      throw NumericalError(fmt::format("langevin: the generator of the chain on {} cells of [{}, {}] could not be diagonalised ({}); "
                                       "a smaller 'cells' (the discretised engine also builds chains of 2 and 4 times it) or a narrower [lo, hi] may help", cells, format_number(lo), format_number(hi), e.what()));
    }
  }();
  eigenvalues_ = std::move(decomposition.values);
  eigenvectors_ = std::move(decomposition.vectors);
  // S is negative semidefinite with the single eigenvalue 0 (eigenvector π^{1/2}: the chain conserves mass), which
  // rounding puts at ±1e-16: at t = 1e20, e^{λt} was inf (then inf·0) or 0 for every mode, and the law NaN. The top
  // eigenvalue is set to 0 and the others kept ≤ 0, so that a long time gives the invariant law.
  Eigen::Index top = 0;
  eigenvalues_.maxCoeff(&top);
  eigenvalues_ = eigenvalues_.cwiseMin(0.0);
  eigenvalues_[top] = 0;
}

int LangevinChain::node(double x) const {
  const double k = (x - lo_) / h_;
  const long i = std::lround(k);
  if (i < 0 || i >= nodes() || std::fabs(k - static_cast<double>(i)) > 1e-9)
    invalid_input("langevin: x = {} is not a grid node (lo {}, spacing {})", format_number(x),
                  format_number(lo_), format_number(h_));
  return static_cast<int>(i);
}

Eigen::VectorXd LangevinChain::law(int start, double t) const {
  check_nonnegative_finite("langevin", "t", t);
  // P_t(i, ·) = π_i^{1/2} Σ_k v_k(i) e^{λ_k t} v_k(·) π^{-1/2}(·); eigenvalues ≤ 0 so e^{λt} never overflows.
  const Eigen::VectorXd weights = (eigenvalues_.array() * t).exp() * eigenvectors_.row(start).transpose().array();
  Eigen::VectorXd p = eigenvectors_ * weights;
  // e^{Qt} = π^{-1/2} e^{St} π^{1/2}: row `start` is scaled by π_start^{-1/2}, column j by π_j^{1/2}.
  for (int j = 0; j < nodes(); ++j) p[j] *= std::exp(log_pi_half_[j] - log_pi_half_[start]);
  p = p.cwiseMax(0.0);  // rounding leaves tiny negatives far from the start
  return p / p.sum();
}

Eigen::VectorXd LangevinChain::law_time_stepped(int start, double t, double rel_tol) const {
  check_nonnegative_finite("langevin", "t", t);
  using State = std::vector<double>;
  State p(static_cast<std::size_t>(nodes()), 0.0);
  p[static_cast<std::size_t>(start)] = 1;
  auto rhs = [&](const State& y, State& dy, double) {
    throw_if_interrupted();
    const std::size_t n = y.size();
    for (std::size_t i = 0; i < n; ++i) {
      double v = -(up_[static_cast<Eigen::Index>(i)] + down_[static_cast<Eigen::Index>(i)]) * y[i];
      if (i > 0) v += up_[static_cast<Eigen::Index>(i - 1)] * y[i - 1];
      if (i + 1 < n) v += down_[static_cast<Eigen::Index>(i + 1)] * y[i + 1];
      dy[i] = v;
    }
  };
  if (t > 0) {
    using namespace boost::numeric::odeint;
    auto stepper = make_controlled(rel_tol * 1e-3, rel_tol, runge_kutta_dopri5<State>());
    integrate_adaptive(stepper, rhs, p, 0.0, t, t * 1e-4);
  }
  Eigen::VectorXd out = Eigen::Map<Eigen::VectorXd>(p.data(), nodes()).cwiseMax(0.0);
  return out / out.sum();
}

Eigen::VectorXd LangevinChain::law_uniformized(int start, double t) const {
  check_nonnegative_finite("langevin", "t", t);
  const Eigen::Index n = nodes();
  if (start < 0 || start >= n) invalid_input("langevin: start node {} outside [0, {})", start, n);
  const double rate = max_rate(), mean = rate * t;
  if (mean == 0) {  // t = 0: the point mass at the start
    Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
    e[start] = 1;
    return e;
  }
  if (!(mean <= 1e7))
    invalid_input("langevin: uniformization needs rate·t <= 1e7 (here {:.3g}); use law()", mean);
  // Terms k = 0 … K, K = Λt + 40√(Λt) + 50: the Poisson mass left out is below e^{−300}.
  const long last = static_cast<long>(mean + 40 * std::sqrt(mean) + 50);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(n), next(n), out = Eigen::VectorXd::Zero(n);
  v[start] = 1;
  // v ← v (I + Q/Λ): mass moves up and down with probabilities rate_i/Λ and stays with the rest (the staying
  // probabilities computed once; the moves as (v·rate)/Λ, so that the sums keep their roundings).
  const Eigen::VectorXd stay = 1 - (up_ + down_).array() / rate;
  const double log_mean = mean > 0 ? std::log(mean) : 0;
  for (long k = 0; k <= last; ++k) {
    if (k % 1024 == 0) throw_if_interrupted();
    const double log_w = -mean + static_cast<double>(k) * log_mean - std::lgamma(static_cast<double>(k) + 1);
    if (log_w > -745) out += std::exp(log_w) * v;
    next[0] = v[0] * stay[0] + (n > 1 ? v[1] * down_[1] / rate : 0.0);
    for (Eigen::Index i = 1; i + 1 < n; ++i)
      next[i] = v[i] * stay[i] + v[i - 1] * up_[i - 1] / rate + v[i + 1] * down_[i + 1] / rate;
    if (n > 1) next[n - 1] = v[n - 1] * stay[n - 1] + v[n - 2] * up_[n - 2] / rate;
    v.swap(next);
  }
  return out / out.sum();
}

Eigen::VectorXd LangevinChain::invariant() const { return (2 * log_pi_half_.array()).exp(); }

double LangevinChain::kappa(int start, int other, double t) const {
  const Eigen::VectorXd a = law(start, t), b = law(other, t);
  // The supremum is taken where both laws carry mass above 1e-6 of their maxima: there the spectral sums are
  // accurate to many digits; further out the computed log-ratio is rounding noise (and, near the truncation of
  // the domain, an artefact of the reflecting ends).
  const double floor_a = 1e-6 * a.maxCoeff(), floor_b = 1e-6 * b.maxCoeff();
  double best = 0;
  for (int j = 1; j + 1 < nodes(); ++j) {
    if (!(a[j - 1] > floor_a && a[j + 1] > floor_a && b[j - 1] > floor_b && b[j + 1] > floor_b)) continue;
    // Centred difference of log(p/q) at node j.
    const double slope = (std::log(a[j + 1] / b[j + 1]) - std::log(a[j - 1] / b[j - 1])) / (2 * h_);
    best = std::max(best, slope * slope);
  }
  return best;
}

double LangevinChain::intrinsic_sensitivity(int start, int other, double t) const {
  check_positive_finite("langevin", "t", t);
  // Once the laws have mixed, κ decays like e^{−2 g s} with g the spectral gap; by s = t + 40/g it is e^{-80}
  // of its size at t and below the rounding of the computed log-ratios (~1e-28 here), which would otherwise be
  // integrated over an unbounded range. Values under 1e-24·κ(t) are that rounding floor and count as 0.
  const double gap = -eigenvalues_[nodes() - 2];  // eigenvalues ascending; the largest is 0 (the invariant law)
  const double at_t = kappa(start, other, t);
  if (!(at_t > 0)) return 0;
  std::function<double(double)> h = [&](double s) {
    const double k = kappa(start, other, s);
    return k > 1e-24 * at_t ? std::log(k) : -std::numeric_limits<double>::infinity();
  };
  LogIntegrateOptions<double> o;
  o.lo = t;
  o.hi = t + 40 / gap;
  o.scale = std::min(t, 1 / gap);
  o.rel_tol = 1e-8;
  return std::exp(log_integrate<double>(h, {2 * t}, o).log_value);
}

std::shared_ptr<const LangevinChain> langevin_chain(const Potential& potential, double lo, double hi, int cells) {
  using Key = std::tuple<std::string, double, double, int>;
  static Cache<Key, std::shared_ptr<const LangevinChain>> cache(24);
  return cache.get_or_build(Key{potential.name, lo, hi, cells},
                            [&] { return std::make_shared<const LangevinChain>(potential, lo, hi, cells); });
}

// ---- The laws of the expression language (sim/laws/spec.hpp).

namespace {

// The law at time t from x0 of the Langevin chain of `potential` on [lo, hi] (double_well and langevin).
LawPtr langevin_law(const Args& a, const Potential& potential) {
  const int cells = a.cells("cells", kMinCells, kMaxGeneratorCells, 4 * kMaxGeneratorCells, 2, "discretised generator");
  const double lo = a.number("lo"), hi = a.number("hi"), x0 = a.number("x0");
  const char* law = potential.formula ? "langevin" : "double_well";
  if (!potential.formula) {  // U' = x^3 - x: beyond |x| = 10 the drift (~1000) is too stiff for the eigendecomposition
    if (!(lo >= -10 && lo < 0)) throw_invalid(law, "lo", lo, "-10 <= lo < 0");
    if (!(hi > 0 && hi <= 10)) throw_invalid(law, "hi", hi, "0 < hi <= 10");
  } else if (!(lo < hi) || std::fabs(lo) > 100 || std::fabs(hi) > 100) {
    throw_invalid(law, "hi", hi, fmt::format("lo = {} < hi, both within [-100, 100]", format_number(lo)));
  }
  if (!(x0 >= lo && x0 <= hi)) throw_invalid(law, "x0", x0, fmt::format("lo = {} <= x0 <= hi = {}", lo, hi));
  potential.check(lo, hi);
  const auto chain = langevin_chain(potential, lo, hi, cells);
  const double t = a.number("t");
  // The spectral sums lose the relative digits of entries far below the law's maximum (cancellation): at short t a
  // far node reads 0 or rounding noise where the other start's law has mass, and a divergence would print inf. There
  // the law comes from uniformization instead (a Poisson sum of non-negative terms: every entry keeps its digits down
  // to the double range), when its work (rate·t·nodes) is bounded; the same generator, the same discretisation.
  Eigen::VectorXd p = chain->law(chain->node(x0), t);
  if (p.minCoeff() < 1e-11 * p.maxCoeff() && t > 0 &&
      chain->max_rate() * t * static_cast<double>(chain->nodes()) <= 4e8)  // about a second at most
    p = chain->law_uniformized(chain->node(x0), t);
  std::vector<double> at(chain->x().data(), chain->x().data() + chain->nodes());
  // Samples are simulated paths of the diffusion itself, each counted at the node whose cell it ends in (the
  // chain's probabilities are the cells' masses): Monte Carlo on them checks the discretised generator.
  const ProcessIdentity identity{law, {lo, hi, t, static_cast<double>(cells)}, {potential.name}};
  return std::make_shared<ProcessLaw>(
      std::make_shared<FiniteLaw>(at, p), identity, std::vector<double>{x0}, ProcessLaw::Joint{},
      [potential, x0, t, lo, hi, h = chain->h(), last = chain->nodes() - 1](Rng& rng, std::span<double> out) {
        for (double& v : out) {
          const long k = std::clamp(std::lround((simulate_langevin(potential, x0, t, lo, hi, rng) - lo) / h), 0L, static_cast<long>(last));
          v = lo + static_cast<double>(k) * h;  // the node, as the chain places it
        }
      },
      2.0 * langevin_simulation_steps(t));  // two drift evaluations per step
}

// The domain's order and the start within it, at load (they were error rows at run time).
std::vector<Tie> langevin_ties() {
  return {{"hi", Tie::Relation::above, "lo"}, {"x0", Tie::Relation::at_least, "lo"}, {"x0", Tie::Relation::at_most, "hi"}};
}

// The start must be a node of the base grid (then of every refinement of it), at load as well: its spacing is
// (hi - lo)/cells, as LangevinChain places them.
void check_start_node(const Args& a, const char* law) {
  const double lo = a.number("lo"), hi = a.number("hi"), x0 = a.number("x0");
  const double h = (hi - lo) / static_cast<double>(a.integer("cells")), k = (x0 - lo) / h;
  if (std::fabs(k - std::round(k)) > 1e-9)
    throw_invalid(law, "x0", x0, fmt::format("a grid node lo + k·spacing with lo = {}, spacing = {} (hi - lo over cells = {}): "
                                             "the nearest are {:.6g} and {:.6g}", format_number(lo), format_number(h),
                                             a.integer("cells"), lo + std::floor(k) * h, lo + std::ceil(k) * h));
}

}  // namespace

LawSpec double_well_law_spec() {
  using K = ParamKind;
  LawSpec spec{"double_well", "law at time t of the Langevin diffusion dX = -U'(X)dt + sqrt(2)dW, U = x^4/4 - x^2/2, from x0",
    {{"x0", K::number, std::nullopt, "starting point, a node of the grid"},
    ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive()),
    // U' = x^3 - x: beyond |x| = 10 the drift (~1000) is too stiff for the eigendecomposition
    ParamSpec{"lo", K::number, "-4", "lower end of the (reflecting) domain, -10 <= lo < 0"}.within(Range{-10, 0, false, true}),
    ParamSpec{"hi", K::number, "4", "upper end of the domain, 0 < hi <= 10"}.within(Range{0, 10, true, false}),
    ParamSpec{"cells", K::integer, "400", "grid cells of the discretised generator, 16 <= cells <= 800 (also computed at 2x and 4x for the error bar)"}.within(Range::between(kMinCells, kMaxGeneratorCells))},
    "double_well(x0=1, t=0.5)",
    [](const Args& a) { return langevin_law(a, Potential::double_well()); }};
  spec.ties = langevin_ties();
  spec.check = [](const Args& a) { check_start_node(a, "double_well"); };
  return spec;
}
PRIVAMP_LAW(80, double_well_law_spec);

LawSpec langevin_law_spec() {
  using K = ParamKind;
  LawSpec spec{"langevin", "law at time t of the Langevin diffusion dX = -U'(X)dt + sqrt(2)dW for a potential U given as a formula, from x0",
    {{"potential", K::formula, std::nullopt, "U: double_well, or a formula in x, e.g. \"x^4/4 - x^2/2 + 0.2*x\" (|U'| <= 1000 on [lo, hi], certified)",
      {"double_well"}, {"x"}},
    {"x0", K::number, std::nullopt, "starting point, a node of the grid"},
    ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive()),
    ParamSpec{"lo", K::number, "-4", "lower end of the (reflecting) domain, within [-100, 100]"}.within(Range::between(-100, 100)),
    ParamSpec{"hi", K::number, "4", "upper end of the domain, > lo, within [-100, 100]"}.within(Range::between(-100, 100)),
    ParamSpec{"cells", K::integer, "400", "grid cells of the discretised generator, 16 <= cells <= 800 (also computed at 2x and 4x for the error bar)"}.within(Range::between(kMinCells, kMaxGeneratorCells))},
    "langevin(potential=\"log(cosh(x))\", x0=1, t=0.5)",
    [](const Args& a) {
      const auto f = a.formula("potential");
      return langevin_law(a, f ? Potential::of(f) : Potential::named(a.word("potential")));
    }};
  spec.ties = langevin_ties();
  spec.check = [](const Args& a) { check_start_node(a, "langevin"); };
  return spec;
}
PRIVAMP_LAW(90, langevin_law_spec);

}  // namespace privamp::sim
