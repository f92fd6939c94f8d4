#include "sim/language/expression.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

#include <Eigen/Core>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/special.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "sim/laws/composition.hpp"
#include "sim/laws/density.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/processes/joint_grid.hpp"
#include "sim/laws/laplace.hpp"
#include "sim/laws/mixture.hpp"
#include "sim/laws/projected.hpp"
#include "sim/laws/shifted.hpp"
#include "sim/processes/diffusion.hpp"
#include "sim/processes/langevin.hpp"
#include "sim/processes/noise_chain.hpp"
#include "sim/processes/projected_chain.hpp"
#include "sim/processes/sgd.hpp"
#include "sim/processes/shuffling.hpp"
#include "sim/processes/subsampling.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

namespace {
// Resolutions and work of the discretised laws (sim/laws/law.hpp).
constexpr int kMinCells = DiscretisationLimits::min_cells, kMaxGridCells = DiscretisationLimits::max_grid_cells,
              kMaxGeneratorCells = DiscretisationLimits::max_generator_cells;
constexpr double kMaxPropagationWork = DiscretisationLimits::max_propagation_work;

void check_propagation_work(const char* law, const char* steps_name, long steps, long cells) {
  const double work = static_cast<double>(steps) * static_cast<double>(cells) * static_cast<double>(cells);
  if (work > kMaxPropagationWork)
    throw InvalidArgument(fmt::format("{}: {} x cells^2 = {} x {}^2 = {:.3g} exceeds the work limit {:.0e} (about 10 s); "
                                      "lower {} or cells", law, steps_name, steps, cells, work, kMaxPropagationWork,
                                      steps_name));
}
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

}  // namespace

std::string to_string(ParamKind kind) {
  switch (kind) {
    case ParamKind::number: return "number";
    case ParamKind::integer: return "integer";
    case ParamKind::numbers: return "list of numbers";
    case ParamKind::matrix: return "matrix [[..], ..]";
    case ParamKind::law: return "law";
    case ParamKind::laws: return "list of laws";
    case ParamKind::word: return "name";
    case ParamKind::formula: return "formula";
  }
  return "?";
}

const Value& Args::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw InvalidArgument(fmt::format("{}: missing parameter '{}'", law_, name));
  return it->second;
}

double Args::number(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind != Value::Kind::number) throw InvalidArgument(fmt::format("{}: parameter '{}' must be a number", law_, name));
  return v.number;
}

long Args::integer(const std::string& name) const {
  const double x = number(name);
  if (x != std::floor(x) || std::fabs(x) > 9e15)
    throw InvalidArgument(fmt::format("{}: parameter '{}' = {} must be an integer", law_, name, format_number(x)));
  return static_cast<long>(x);
}

std::vector<double> Args::numbers(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind == Value::Kind::number) return {v.number};
  if (v.kind != Value::Kind::list) throw InvalidArgument(fmt::format("{}: parameter '{}' must be a list of numbers", law_, name));
  std::vector<double> out;
  for (const Value& e : v.list) {
    if (e.kind != Value::Kind::number)
      throw InvalidArgument(fmt::format("{}: parameter '{}' must be a list of numbers", law_, name));
    out.push_back(e.number);
  }
  return out;
}

std::vector<std::vector<double>> Args::matrix(const std::string& name) const {
  const Value& v = get(name);
  auto bad = [&]() { return InvalidArgument(fmt::format("{}: parameter '{}' must be a matrix [[a, b], [c, d]]", law_, name)); };
  if (v.kind != Value::Kind::list || v.list.empty()) throw bad();
  std::vector<std::vector<double>> rows;
  for (const Value& r : v.list) {
    if (r.kind != Value::Kind::list) throw bad();
    std::vector<double> row;
    for (const Value& e : r.list) {
      if (e.kind != Value::Kind::number) throw bad();
      row.push_back(e.number);
    }
    if (!rows.empty() && row.size() != rows.front().size())
      throw InvalidArgument(fmt::format("{}: parameter '{}': rows of different lengths", law_, name));
    rows.push_back(std::move(row));
  }
  return rows;
}

LawPtr Args::law(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind != Value::Kind::law) throw InvalidArgument(fmt::format("{}: parameter '{}' must be a law", law_, name));
  return v.law;
}

const std::string& Args::word(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind != Value::Kind::word && v.kind != Value::Kind::formula)
    throw InvalidArgument(fmt::format("{}: parameter '{}' must be a name", law_, name));
  return v.word;
}

std::shared_ptr<const Formula> Args::formula(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind == Value::Kind::word) return nullptr;
  if (v.kind != Value::Kind::formula) throw InvalidArgument(fmt::format("{}: parameter '{}' must be a formula", law_, name));
  return v.formula;
}

int Args::cells(const std::string& name, int lo, int hi, int max_cells, int order, const std::string& what) const {
  const long c = integer(name);
  if (c < lo || c > hi)
    throw_invalid(law_, name, static_cast<double>(c), fmt::format("{} <= {} <= {} (refined up to {} for the error model)",
                                                                  lo, name, hi, max_cells));
  const int factor = context_ ? context_->resolution_factor : 1;
  if (context_) {
    if (!context_->order) {
      context_->order = order;
      context_->cells = static_cast<int>(c);
      context_->what = what;
    }
    context_->order = std::min(*context_->order, order);
    context_->max_factor = std::min<int>(context_->max_factor, max_cells / static_cast<int>(c));
  }
  if (c * factor > max_cells)
    throw_invalid(law_, name, static_cast<double>(c * factor), fmt::format("refined cells <= {}", max_cells));
  return static_cast<int>(c) * factor;
}

std::vector<LawPtr> Args::laws(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind != Value::Kind::list) throw InvalidArgument(fmt::format("{}: parameter '{}' must be a list of laws", law_, name));
  std::vector<LawPtr> out;
  for (const Value& e : v.list) {
    if (e.kind != Value::Kind::law) throw InvalidArgument(fmt::format("{}: parameter '{}' must be a list of laws", law_, name));
    out.push_back(e.law);
  }
  return out;
}

std::vector<long> Args::dimensions(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind == Value::Kind::law) return {v.dimension};
  std::vector<long> out;
  if (v.kind == Value::Kind::list)
    for (const Value& e : v.list)
      if (e.kind == Value::Kind::law) out.push_back(e.dimension);
  return out;
}

const std::vector<LawSpec>& law_catalogue() {
  using K = ParamKind;
  static const std::vector<LawSpec> catalogue = {
      {"gaussian", "normal law N(loc, sigma^2) on R",
       {{"loc", K::number, "0", "mean"}, ParamSpec{"sigma", K::number, "1", "standard deviation, > 0"}.within(Range::scale())},
       "gaussian(loc=1, sigma=2)",
       [](const Args& a) {
         auto g = std::make_shared<Gaussian>(a.number("loc"), a.number("sigma"));
         g->set_parameters_exact();
         return g;
       }},
      {"gaussian_nd", "isotropic normal law N(loc, sigma^2 I) on R^d (closed-form divergences only)",
       {{"loc", K::numbers, std::nullopt, "mean vector"}, ParamSpec{"sigma", K::number, "1", "standard deviation, > 0"}.within(Range::scale())},
       "gaussian_nd(loc=[1, 0, 2], sigma=1)",
       [](const Args& a) { return std::make_shared<GaussianND>(a.numbers("loc"), a.number("sigma")); },
       /*variadic=*/false, [](const Args& a) { return static_cast<long>(a.numbers("loc").size()); }},
      {"ou", "Ornstein-Uhlenbeck semigroup P_t(x0) for dX = -theta X dt + sqrt(2) rho dW (GT.ou.law)",
       {{"x0", K::number, std::nullopt, "starting point"},
        ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive()),
        ParamSpec{"theta", K::number, "1", "mean-reversion rate, >= 0 (0 gives Brownian motion)"}.within(Range::non_negative()),
        ParamSpec{"rho", K::number, "1", "noise scale, > 0"}.within(Range::positive())},
       "ou(x0=1, t=0.5, theta=2, rho=1)",
       [](const Args& a) {
         return std::make_shared<Gaussian>(OrnsteinUhlenbeck(a.number("theta"), a.number("rho")).law(a.number("x0"), a.number("t")));
       }},
      {"ou_nd", "d-dimensional Ornstein-Uhlenbeck semigroup P_t(x0), isotropic",
       {{"x0", K::numbers, std::nullopt, "starting point in R^d"},
        ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive()),
        ParamSpec{"theta", K::number, "1", "mean-reversion rate, >= 0"}.within(Range::non_negative()),
        ParamSpec{"rho", K::number, "1", "noise scale, > 0"}.within(Range::positive())},
       "ou_nd(x0=[1, 0], t=1, theta=1, rho=1)",
       [](const Args& a) {
         return std::make_shared<GaussianND>(OrnsteinUhlenbeck(a.number("theta"), a.number("rho")).law(a.numbers("x0"), a.number("t")));
       },
       /*variadic=*/false, [](const Args& a) { return static_cast<long>(a.numbers("x0").size()); }},
      {"gaussian_chain", "X_r of X_i = L X_(i-1) + N(0, sigma^2) from X_0 ~ N(x0, sigma0^2) (exact Gaussian law)",
       {{"x0", K::number, std::nullopt, "mean of X_0"},
        ParamSpec{"r", K::integer, "1", "number of steps, >= 1"}.within(Range::between(1, 100000)),
        {"L", K::number, "1", "the linear (L-Lipschitz) map x -> L x"},
        ParamSpec{"sigma", K::number, "1", "noise standard deviation per step, > 0"}.within(Range::positive()),
        ParamSpec{"sigma0", K::number, "0", "standard deviation of X_0 (0: a point)"}.within(Range::non_negative())},
       "gaussian_chain(x0=1, r=5, L=0.9, sigma=1)",
       [](const Args& a) {
         return std::make_shared<Gaussian>(linear_gaussian_chain(a.number("x0"), a.number("sigma0"), a.number("L"),
                                                                 a.number("sigma"), static_cast<int>(a.integer("r"))));
       }},
      {"noisy_sgd", "law of x_n of 1-D noisy projected SGD on [-R, R], data z_i = zi and z_j = 0 otherwise",
       {ParamSpec{"n", K::integer, std::nullopt, "number of steps"}.within(Range::between(1, 100000)),
        ParamSpec{"i", K::integer, std::nullopt, "the index whose data point is zi, 1 <= i <= n"}.within(Range::at_least(1)),
        {"zi", K::number, std::nullopt, "the data point at index i: |zi| <= R (quadratic), |zi| <= A (logistic)"},
        ParamSpec{"eta", K::number, std::nullopt, "step size, eta * beta < 2"}.within(Range::positive()),
        ParamSpec{"sigma", K::number, "1", "gradient noise standard deviation"}.within(Range::positive()),
        ParamSpec{"lambda", K::number, "1", "quadratic: curvature; logistic: l2 regularisation"}.within(Range::positive()),
        ParamSpec{"R", K::number, "1", "radius of the domain [-R, R]"}.within(Range::positive()),
        {"x0", K::number, "0", "starting point"},
        ParamSpec{"cells", K::integer, "400", "grid cells of the propagated density, 16 <= cells <= 1600 (also computed at 2x and 4x for the error bar)"}.within(Range::between(kMinCells, kMaxGridCells)),
        {"loss", K::formula, "quadratic", "quadratic (lambda/2)(x - z)^2 | logistic log(1 + e^(-z x)) + (lambda/2) x^2 | "
         "a formula in x and z, e.g. \"if(abs(x - z) <= 0.5, (x - z)^2/2, 0.5*abs(x - z) - 0.125) + 0.1*x^2\" (gradient "
         "by automatic differentiation; C, beta, rho certified over [-R, R] x [-A, A])",
         {"quadratic", "logistic"}, {"x", "z"}},
        ParamSpec{"A", K::number, "1", "logistic and formula losses: bound on |z|"}.within(Range::positive())},
       "noisy_sgd(n=20, i=5, zi=1, eta=0.2, loss=logistic, lambda=0.5)",
       [](const Args& a) {
         NoisySgd sgd{static_cast<int>(a.integer("n")), a.number("eta"), a.number("sigma"), a.number("lambda"),
                      a.number("R"), a.number("x0")};
         if (const auto f = a.formula("loss")) {
           sgd.loss = SgdLoss::formula;
           sgd.loss_formula = f;
         } else {
           sgd.loss = parse_sgd_loss(a.word("loss"));
         }
         sgd.feature_bound = a.number("A");
         const int cells = a.cells("cells", kMinCells, kMaxGridCells, 4 * kMaxGridCells, 2, "grid propagation");
         check_propagation_work("noisy_sgd", "n", sgd.n, a.integer("cells"));
         return noisy_sgd_process_law(sgd, static_cast<int>(a.integer("i")), a.number("zi"), cells);
       }},
      {"projected_chain", "X_r of X_i = clamp(psi(X_(i-1)) + N(0, sigma^2), lo, hi) from x0, psi an L-Lipschitz map",
       {{"x0", K::number, std::nullopt, "starting point in [lo, hi]"},
        ParamSpec{"r", K::integer, "1", "number of steps, >= 1"}.within(Range::between(1, 100000)),
        {"map", K::formula, "linear", "psi: linear L x | tanh L tanh(x) | sin L sin(x) | softsign L x/(1+|x|) | a formula "
         "in x, e.g. \"0.9*atan(x)\" (its Lipschitz constant: lipschitz(map, lo, hi) in a case file)",
         {"linear", "tanh", "sin", "softsign"}, {"x"}},
        {"L", K::number, "... (1)", "Lipschitz constant of the named maps (default 1); with a formula map, optional: "
         "checked against the certified sup |psi'| over [lo, hi] (refused unless it is at least the enclosure's upper end)"},
        ParamSpec{"sigma", K::number, "1", "noise standard deviation per step, > 0"}.within(Range::positive()),
        {"lo", K::number, "-3", "lower end of the projection interval"},
        {"hi", K::number, "3", "upper end"},
        ParamSpec{"cells", K::integer, "400", "grid cells of the propagated density, 16 <= cells <= 1600 (also computed at 2x and 4x for the error bar)"}.within(Range::between(kMinCells, kMaxGridCells))},
       "projected_chain(x0=1, r=3, map=tanh, L=0.9)",
       [](const Args& a) {
         const int cells = a.cells("cells", kMinCells, kMaxGridCells, 4 * kMaxGridCells, 2, "grid propagation");
         check_propagation_work("projected_chain", "r", a.integer("r"), a.integer("cells"));
         const ChainMap map{a.word("map"), a.has("L") ? a.number("L") : 1.0, a.formula("map"), a.has("L")};
         return projected_chain_process_law(map, a.number("x0"), static_cast<int>(a.integer("r")),
                                            a.number("sigma"), a.number("lo"), a.number("hi"), cells);
       }},
      {"double_well", "law at time t of the Langevin diffusion dX = -U'(X)dt + sqrt(2)dW, U = x^4/4 - x^2/2, from x0",
       {{"x0", K::number, std::nullopt, "starting point, a node of the grid"},
        ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive()),
        {"lo", K::number, "-4", "lower end of the (reflecting) domain"},
        {"hi", K::number, "4", "upper end of the domain"},
        ParamSpec{"cells", K::integer, "400", "grid cells of the discretised generator, 16 <= cells <= 800 (also computed at 2x and 4x for the error bar)"}.within(Range::between(kMinCells, kMaxGeneratorCells))},
       "double_well(x0=1, t=0.5)",
       [](const Args& a) { return langevin_law(a, Potential::double_well()); }},
      {"langevin", "law at time t of the Langevin diffusion dX = -U'(X)dt + sqrt(2)dW for a potential U given as a formula, from x0",
       {{"potential", K::formula, std::nullopt, "U: double_well, or a formula in x, e.g. \"x^4/4 - x^2/2 + 0.2*x\" (|U'| <= 1000 on [lo, hi], certified)",
         {"double_well"}, {"x"}},
        {"x0", K::number, std::nullopt, "starting point, a node of the grid"},
        ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive()),
        {"lo", K::number, "-4", "lower end of the (reflecting) domain"},
        {"hi", K::number, "4", "upper end of the domain"},
        ParamSpec{"cells", K::integer, "400", "grid cells of the discretised generator, 16 <= cells <= 800 (also computed at 2x and 4x for the error bar)"}.within(Range::between(kMinCells, kMaxGeneratorCells))},
       "langevin(potential=\"log(cosh(x))\", x0=1, t=0.5)",
       [](const Args& a) {
         const auto f = a.formula("potential");
         return langevin_law(a, f ? Potential::of(f) : Potential::named(a.word("potential")));
       }},
      {"brownian", "Brownian semigroup P_t(x0) = N(x0, 2t) for dX = sqrt(2) dW (GT.bm.law)",
       {{"x0", K::number, std::nullopt, "starting point"}, ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive())},
       "brownian(x0=1, t=0.25)",
       [](const Args& a) { return std::make_shared<Gaussian>(OrnsteinUhlenbeck(0, 1).law(a.number("x0"), a.number("t"))); }},
      {"brownian_nd", "d-dimensional Brownian semigroup N(x0, 2t I)",
       {{"x0", K::numbers, std::nullopt, "starting point in R^d"}, ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive())},
       "brownian_nd(x0=[1, 2], t=0.25)",
       [](const Args& a) { return std::make_shared<GaussianND>(OrnsteinUhlenbeck(0, 1).law(a.numbers("x0"), a.number("t"))); },
       /*variadic=*/false, [](const Args& a) { return static_cast<long>(a.numbers("x0").size()); }},
      {"laplace", "Laplace law with density exp(-|x-loc|/scale)/(2 scale)",
       {{"loc", K::number, "0", "centre"}, ParamSpec{"scale", K::number, "1", "scale b, > 0"}.within(Range::scale())},
       "laplace(loc=1, scale=0.5)",
       [](const Args& a) {
         auto l = std::make_shared<Laplace>(a.number("loc"), a.number("scale"));
         l->set_parameters_exact();
         return l;
       }},
      {"laplace_sum", "loc + a sum of independent Laplace(0, b_j) (closed-form density)",
       {{"loc", K::number, "0", "shift"},
        ParamSpec{"scales", K::numbers, std::nullopt, "the scales b_j: all equal (at most 1000), or at most 20 with each two at least 1% apart (relative to the smaller)"}.within(Range::scale())},
       "laplace_sum(loc=1, scales=[1, 2])",
       [](const Args& a) { return std::make_shared<LaplaceSum>(a.number("loc"), a.numbers("scales")); }},
      {"laplace_nfold", "loc + the sum of n independent Laplace(0, scale) (n-fold convolution)",
       {ParamSpec{"n", K::integer, std::nullopt, "number of terms, 1 <= n <= 1000"}.within(Range::between(1, 1000)),
        {"loc", K::number, "0", "shift"},
        ParamSpec{"scale", K::number, "1", "scale of each term, > 0"}.within(Range::scale())},
       "laplace_nfold(n=10, loc=0.1, scale=1)",
       [](const Args& a) {
         const long n = a.integer("n");
         if (n < 1 || n > 1000) throw_invalid("laplace_nfold", "n", static_cast<double>(n), "1 <= n <= 1000");
         return std::make_shared<LaplaceSum>(a.number("loc"),
                                             std::vector<double>(static_cast<std::size_t>(n), a.number("scale")));
       }},
      {"density", "a continuous law from its log-density written as a formula: exp(log_pdf(x))/Z on [lo, hi]",
       {{"log_pdf", K::formula, std::nullopt, "the log-density up to a constant, a formula in x, e.g. \"-abs(x)^1.5\" "
         "(Z by two quadratures whose agreement is checked; its error is in every interval)", {}, {"x"}},
        {"lo", K::number, "... (unbounded)", "lower end of the support; absent: unbounded below (log_pdf must decay)"},
        {"hi", K::number, "... (unbounded)", "upper end of the support; absent: unbounded above"},
        {"loc", K::number, "... (0, or the middle of [lo, hi])", "where the mass is: the scan for the mode starts here"},
        ParamSpec{"scale", K::number, "1", "the law's width (step of the scan)"}.within(Range::scale())},
       "density(log_pdf=\"-abs(x)^1.5\")",
       [](const Args& a) {
         const double lo = a.has("lo") ? a.number("lo") : -std::numeric_limits<double>::infinity();
         const double hi = a.has("hi") ? a.number("hi") : std::numeric_limits<double>::infinity();
         double loc = 0;
         if (a.has("loc")) loc = a.number("loc");
         else if (!(loc >= lo && loc <= hi)) loc = std::isfinite(lo) && std::isfinite(hi) ? 0.5 * (lo + hi) : std::isfinite(lo) ? lo : hi;
         const auto f = a.formula("log_pdf");
         if (!f) throw InvalidArgument("density: log_pdf must be a formula in x");
         return std::make_shared<FormulaDensity>(f, lo, hi, loc, a.number("scale"));
       }},
      {"convolve", "the law of X + Y for independent X ~ a and Y ~ b (any two one-dimensional laws)",
       {{"a", K::law, std::nullopt, "the law of X"}, {"b", K::law, std::nullopt, "the law of Y"}},
       "convolve(laplace(0, 1), gaussian(0, 0.5))",
       [](const Args& a) { return std::make_shared<Convolution>(a.law("a"), a.law("b")); }},
      {"power", "T independent releases of a law, law^(x T): composed with power(nu, T) it gives the T-fold composition",
       {{"law", K::law, std::nullopt, "the law of one release"},
        ParamSpec{"T", K::integer, std::nullopt, "number of releases, 1 <= T <= 10^7"}.within(Range::between(1, Composition::kMaxCount))},
       "power(mix(q=0.01, gaussian(0, 1), gaussian(1, 1)), 1000)",
       [](const Args& a) {
         const double t = a.number("T");
         if (!(t >= 1 && t <= static_cast<double>(Composition::kMaxCount) && t == std::floor(t)))
           throw_invalid("power", "T", t, fmt::format("an integer, 1 <= T <= {}", Composition::kMaxCount));
         return compose_power(a.law("law"), static_cast<long>(t));
       },
       /*variadic=*/false, [](const Args& a) { return a.dimensions("law").front() * a.integer("T"); }},
      {"product", "releases of different laws in sequence: product(power(a, 150), power(b, 20)) (heterogeneous composition)",
       {{"laws", K::laws, std::nullopt, "the laws released, in order (powers or single laws), at most 64"}},
       "product(power(gaussian(1, 1), 150), power(gaussian(1, 2), 20))",
       [](const Args& a) { return compose_product(a.laws("laws")); },
       /*variadic=*/true, [](const Args& a) {
         const std::vector<long> d = a.dimensions("laws");
         return std::accumulate(d.begin(), d.end(), 0L);
       }},
      {"mixture", "finite mixture sum_i weights[i] * laws[i]",
       {ParamSpec{"weights", K::numbers, std::nullopt, "non-negative, summing to 1"}.within(Range::probability()),
        {"laws", K::laws, std::nullopt, "the components (any one-dimensional laws)"}},
       "mixture(weights=[0.9, 0.1], laws=[gaussian(0, 1), laplace(3, 1)])",
       [](const Args& a) { return std::make_shared<Mixture>(a.numbers("weights"), a.laws("laws")); }},
      {"mix", "two-component mixture (1-q)*a + q*b, e.g. Poisson subsampling with rate q",
       {ParamSpec{"q", K::number, std::nullopt, "weight of b, in [0, 1]"}.within(Range::probability()),
        {"a", K::law, std::nullopt, "law taken with probability 1-q"},
        {"b", K::law, std::nullopt, "law taken with probability q"}},
       "mix(q=0.01, gaussian(0, 1), gaussian(1, 1))",
       [](const Args& a) {
         const double q = a.number("q");
         check_probability("mix", "q", q);
         return std::make_shared<Mixture>(std::vector<double>{1 - q, q}, std::vector<LawPtr>{a.law("a"), a.law("b")});
       }},
      {"shift", "the law translated by a constant: X + by",
       {{"law", K::law, std::nullopt, "any one-dimensional law"}, {"by", K::number, std::nullopt, "the translation"}},
       "shift(laplace(0, 1), by=2)",
       [](const Args& a) { return std::make_shared<Shifted>(a.law("law"), a.number("by")); }},
      {"binomial_mix", "sum_k Bin(k; m, p) (law + k step): a record drawn k times by sampling with replacement",
       {ParamSpec{"m", K::integer, std::nullopt, "number of draws, 1 <= m <= 100000"}.within(Range::between(1, 100000)),
        ParamSpec{"p", K::number, std::nullopt, "probability of drawing the record at each draw, in [0, 1]"}.within(Range::probability()),
        {"law", K::law, std::nullopt, "the law when the record is not drawn"},
        {"step", K::number, "1", "the shift per draw"}},
       "binomial_mix(m=10, p=0.01, law=gaussian(0, 1))",
       [](const Args& a) {
         const long m = a.integer("m");
         const double p = a.number("p"), step = a.number("step");
         if (m < 1 || m > 100000) throw_invalid("binomial_mix", "m", static_cast<double>(m), "1 <= m <= 100000");
         check_probability("binomial_mix", "p", p);
         check_finite("binomial_mix", "step", step);
         const LawPtr base = a.law("law");
         return binomial_mixture(m, p, [&](long k) -> LawPtr {
           if (k == 0) return base;
           const double by = static_cast<double>(k) * step;
           auto shifted = std::make_shared<Shifted>(base, by);
           if (std::fma(static_cast<double>(k), step, -by) != 0) shifted->set_by_inexact();
           return shifted;
         });
       }},
      {"subsample", "output law of a base mechanism on a counting query after subsampling, either side of the neighbours",
       {{"scheme", K::word, "poisson", "poisson (add/remove one) | wor (m of n, substitute) | wr (m draws of n, substitute)",
         {"poisson", "wor", "wr"}},
        {"base", K::word, "gaussian", "gaussian N(count, sigma^2) | laplace Lap(count, scale) | rr (wor only: the number of 1s among the m sampled reports)",
         {"gaussian", "laplace", "rr"}},
        ParamSpec{"side", K::integer, "1", "1: the dataset with the distinguished record (holding 1); 0: its neighbour"}.within(Range::between(0, 1)),
        ParamSpec{"q", K::number, "0.01", "poisson: sampling rate"}.within(Range::probability()),
        ParamSpec{"n", K::integer, "100", "wor, wr: dataset size"}.within(Range::between(1, 1e9)),
        ParamSpec{"m", K::integer, "10", "wor, wr: sample size / number of draws"}.within(Range::at_least(1)),
        ParamSpec{"sigma", K::number, "1", "gaussian base: noise standard deviation"}.within(Range::scale()),
        ParamSpec{"scale", K::number, "1", "laplace base: scale"}.within(Range::scale()),
        ParamSpec{"eps0", K::number, "1", "rr base: local privacy parameter"}.within(Range::non_negative())},
       "subsample(scheme=wr, base=laplace, n=50, m=20)",
       [](const Args& a) {
         Subsampling s;
         s.scheme = a.word("scheme");
         s.base = a.word("base");
         s.q = a.number("q");
         s.n = a.integer("n");
         s.m = a.integer("m");
         s.sigma = a.number("sigma");
         s.scale = a.number("scale");
         s.eps0 = a.number("eps0");
         return subsampled_law(s, static_cast<int>(a.integer("side")));
       }},
      {"pmf", "finite law: masses p[i] at locations at[i]",
       {ParamSpec{"p", K::numbers, std::nullopt, "probabilities, non-negative, summing to 1"}.within(Range::probability()),
        {"at", K::numbers, "[0, 1, ..., K-1]", "distinct locations"}},
       "pmf(p=[0.2, 0.5, 0.3])",
       [](const Args& a) {
         const std::vector<double> p = a.numbers("p");
         std::vector<double> at;
         if (a.has("at")) at = a.numbers("at");
         else
           for (std::size_t i = 0; i < p.size(); ++i) at.push_back(static_cast<double>(i));
         auto law = std::make_shared<FiniteLaw>(at, Eigen::Map<const Eigen::VectorXd>(p.data(), static_cast<Eigen::Index>(p.size())));
         law->set_exact_source({p, {}, {}, 0});
         return law;
       }},
      {"shuffled_rr", "number of 1s among n shuffled binary randomized-response reports",
       {ParamSpec{"n", K::integer, std::nullopt, "number of users, >= 1"}.within(Range::between(1, 1e8)),
        ParamSpec{"eps0", K::number, std::nullopt, "local privacy parameter, >= 0"}.within(Range::non_negative()),
        ParamSpec{"ones", K::integer, "0", "how many of the other n-1 users hold bit 1"}.within(Range::at_least(0)),
        ParamSpec{"first", K::integer, "0", "the bit of the first user (the one that differs between neighbours)"}.within(Range::between(0, 1))},
       "shuffled_rr(n=1000, eps0=1, first=1)",
       [](const Args& a) {
         return std::make_shared<FiniteLaw>(shuffled_rr_counts(a.integer("n"), a.number("eps0"), a.integer("ones"),
                                                               static_cast<int>(a.integer("first"))));
       }},
      {"shuffled_krr", "sufficient statistic (m, h_a) of n shuffled k-ary randomized-response reports; others hold b",
       {ParamSpec{"n", K::integer, std::nullopt, "number of users, 1 <= n <= 1e5 (1e8 for k = 2)"}.within(Range::between(1, 1e8)),
        ParamSpec{"k", K::integer, std::nullopt, "number of values, >= 2"}.within(Range::between(2, 1e6)),
        ParamSpec{"eps0", K::number, std::nullopt, "local privacy parameter, >= 0"}.within(Range::non_negative()),
        ParamSpec{"first", K::integer, "0", "1: the first user holds a; 0: it holds b like the others"}.within(Range::between(0, 1)),
        ParamSpec{"cut", K::number, "80", "k >= 3: outcomes below e^-cut under both neighbours are lumped, 20 <= cut <= 700"}.within(Range::between(20, 700))},
       "shuffled_krr(n=1000, k=4, eps0=1, first=1)",
       [](const Args& a) {
         return std::make_shared<FiniteLaw>(shuffled_krr_counts(a.integer("n"), static_cast<int>(a.integer("k")),
                                                                a.number("eps0"), static_cast<int>(a.integer("first")),
                                                                a.number("cut")));
       }},
      {"blanket", "blanket law of a local randomizer: min over its outputs R(x) of the density, normalised by gamma",
       {{"laws", K::laws, std::nullopt, "the outputs R(x) over the inputs x (for a location family on [0, 1] with "
                                        "log-concave noise, x = 0 and 1 suffice)"}},
       "blanket([laplace(0, 1), laplace(1, 1)])",
       [](const Args& a) { return std::make_shared<BlanketLaw>(a.laws("laws")); }},
      {"chain", "law of X_t of a finite Markov chain: mu K^t on the states 0..n-1",
       {{"K", K::matrix, std::nullopt, "row-stochastic n x n transition matrix"},
        ParamSpec{"mu", K::numbers, std::nullopt, "initial law (n probabilities)"}.within(Range::probability()),
        ParamSpec{"t", K::integer, "1", "number of steps, >= 0"}.within(Range::between(0, 1e6))},
       "chain(K=[[0.9, 0.1], [0.2, 0.8]], mu=[1, 0], t=3)",
       [](const Args& a) {
         const auto rows = a.matrix("K");
         Eigen::MatrixXd k(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.front().size()));
         for (std::size_t i = 0; i < rows.size(); ++i)
           for (std::size_t j = 0; j < rows[i].size(); ++j) k(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
         const std::vector<double> mu = a.numbers("mu");
         const long t = a.integer("t");
         if (t < 0 || t > 1'000'000) throw_invalid("chain", "t", static_cast<double>(t), "0 <= t <= 1e6");
         const double work = static_cast<double>(k.rows()) * static_cast<double>(k.rows()) * static_cast<double>(t);
         if (work > 2e9)
           throw InvalidArgument(fmt::format("chain: states^2 x t = {}^2 x {} = {:.3g} exceeds the work limit 2e9 (about 5 s); "
                                             "lower t", k.rows(), t, work));
         auto kernel = std::make_shared<const FiniteKernel>(k);
         auto vec = [](const std::vector<double>& v) {
           return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size())));
         };
         const Eigen::VectorXd law = kernel->push(vec(mu), static_cast<int>(t));
         std::vector<double> at;
         for (Eigen::Index i = 0; i < law.size(); ++i) at.push_back(static_cast<double>(i));
         // Two chains with the same K and t are computed jointly against each other (their difference propagated).
         ProcessIdentity family{"chain", {static_cast<double>(t), static_cast<double>(k.rows())}};
         family.numbers.insert(family.numbers.end(), k.data(), k.data() + k.size());
         auto finite = std::make_shared<FiniteLaw>(at, law / law.sum());
         finite->set_exact_source({{}, k, mu, t});
         return std::make_shared<ProcessLaw>(
             finite, family, mu,
             [kernel, at, t, vec](const std::vector<double>& mine, const std::vector<double>& theirs) {
               const auto forward = kernel->push_pair(vec(mine), vec(theirs), static_cast<int>(t));
               const auto backward = kernel->push_pair(vec(theirs), vec(mine), static_cast<int>(t));
               return joint_finite_laws(at, forward.first, forward.second, backward.second);
             });
       }},
      {"clamp", "projection of a law onto [lo, hi]: atoms at the ends plus the restricted density",
       {{"law", K::law, std::nullopt, "base law with a closed-form CDF (gaussian, laplace, pmf, mixtures)"},
        {"lo", K::number, std::nullopt, "lower end"},
        {"hi", K::number, std::nullopt, "upper end, > lo"}},
       "clamp(gaussian(0.3, 1), lo=0, hi=1)",
       [](const Args& a) { return std::make_shared<Clamped>(a.law("law"), a.number("lo"), a.number("hi")); }},
      {"grid", "density tabulated at x0 + i*dx (linear in between) plus atoms",
       {{"x0", K::number, "0", "first node"},
        ParamSpec{"dx", K::number, "1", "node spacing, > 0"}.within(Range::positive()),
        ParamSpec{"density", K::numbers, "[]", "density values at the nodes (>= 2 values, or none)"}.within(Range::non_negative()),
        {"atoms", K::numbers, "[]", "atom locations"},
        ParamSpec{"masses", K::numbers, "[]", "atom masses; density and atoms must carry total mass 1"}.within(Range::probability())},
       "grid(x0=0, dx=0.5, density=[0, 1, 0], atoms=[2], masses=[0.5])",
       [](const Args& a) {
         auto list = [&](const char* n) { return a.has(n) ? a.numbers(n) : std::vector<double>{}; };
         return std::make_shared<GridLaw>(a.number("x0"), a.number("dx"), list("density"), list("atoms"), list("masses"));
       }},
  };
  return catalogue;
}

}  // namespace privamp::sim
