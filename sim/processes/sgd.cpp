#include "sim/processes/sgd.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "numerics/cache.hpp"
#include "numerics/errors.hpp"
#include "sim/formulas/certify.hpp"
#include "sim/formulas/formula.hpp"
#include "sim/laws/spec.hpp"
#include "sim/processes/joint_grid.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

SgdLoss parse_sgd_loss(const std::string& name) {
  if (name == "quadratic") return SgdLoss::quadratic;
  if (name == "logistic") return SgdLoss::logistic;
  invalid_input("loss = '{}': allowed quadratic, logistic", name);
}

std::string to_string(SgdLoss loss) {
  return loss == SgdLoss::quadratic ? "quadratic" : loss == SgdLoss::logistic ? "logistic" : "formula";
}

void NoisySgd::set_loss(const std::string& text, const Params& params) {
  if (text == "quadratic" || text == "logistic") {
    loss = parse_sgd_loss(text);
    loss_formula = nullptr;
    return;
  }
  loss = SgdLoss::formula;
  loss_formula = Formula::parse(text, {"x", "z"}, params, "loss");
}

std::string NoisySgd::loss_identity() const { return loss_formula ? loss_formula->text() : to_string(loss); }

DomainShape parse_domain_shape(const std::string& name) {
  if (name == "ball") return DomainShape::ball;
  if (name == "box") return DomainShape::box;
  invalid_input("domain = '{}': allowed ball, box", name);
}

void NoisySgd::check() const {
  const char* where = "noisy_sgd";
  if (n < 1 || n > 100000) throw_invalid(where, "n", n, "1 <= n <= 100000");
  if (dim < 1 || dim > 100000) throw_invalid(where, "d", dim, "1 <= d <= 100000");
  check_positive_finite(where, "eta", eta);
  check_positive_finite(where, "sigma", sigma);
  check_positive_finite(where, "lambda", lambda);
  check_positive_finite(where, "R", radius);
  check_positive_finite(where, "A", feature_bound);
  if (!(std::fabs(x0) <= radius)) throw_invalid(where, "x0", x0, "|x0| <= R");
  const double beta = constants().beta;
  if (!(eta * beta < 2))
    throw_invalid(where, "eta", eta, fmt::format("eta * beta < 2 with beta = {} (otherwise the gradient step is expansive)",
                                                 format_number(beta)));
}

double NoisySgd::data_bound() const { return loss == SgdLoss::quadratic ? radius : feature_bound; }

namespace {
// The certified constants of a formula loss, shared by the copies of one NoisySgd (computed once per loss and box).
LossConstants certified(const Formula& loss, double radius, double data) {
  static Cache<std::tuple<std::string, double, double>, LossConstants> cache(256);
  return cache.get_or_build(std::make_tuple(loss.text(), radius, data),
                            [&] { return loss_constants(loss, -radius, radius, -data, data); });
}
}  // namespace

LossConstants NoisySgd::certified_constants() const {
  if (!loss_formula) invalid_input("noisy_sgd: certified constants are computed for a formula loss");
  return certified(*loss_formula, radius, feature_bound);
}

SgdConstants NoisySgd::constants() const {
  const double sqrt_d = std::sqrt(static_cast<double>(dim));
  const double max_norm = shape == DomainShape::ball ? radius : radius * sqrt_d;  // sup ‖x‖ over 𝕂
  SgdConstants c{};
  if (loss == SgdLoss::formula) {  // the conservative ends of the certified enclosures
    if (dim != 1) throw_invalid("noisy_sgd", "d", dim, "d = 1 for a formula loss");
    const LossConstants k = certified_constants();
    c.C = k.C.value.hi;
    c.beta = k.beta.value.hi;
    c.rho = k.rho.value.lo;
  } else if (loss == SgdLoss::quadratic) {
    c.C = 2 * lambda * max_norm;  // sup ‖λ(x − z)‖ over x, z ∈ 𝕂 = λ·diam(𝕂)
    c.beta = c.rho = lambda;
  } else {
    c.C = feature_bound + lambda * max_norm;  // ‖−z σ(−⟨z,x⟩) + λx‖ ≤ A + λ‖x‖
    c.beta = feature_bound * feature_bound / 4 + lambda;  // the Hessian σ'(·) z zᵀ + λI, σ' ≤ 1/4
    c.rho = lambda;
  }
  c.eta_max = 2 / (c.beta + c.rho);
  return c;
}

void NoisySgd::check_theorem_step() const {
  const SgdConstants c = constants();
  if (!(eta <= c.eta_max))
    throw_invalid("noisy_sgd", "eta", eta,
                  fmt::format("eta <= 2/(beta + rho) = {} (Theorem 5, {} loss: beta = {}, rho = {})", format_number(c.eta_max),
                              to_string(loss), format_number(c.beta), format_number(c.rho)));
}

namespace {
double sigmoid(double t) { return t >= 0 ? 1 / (1 + std::exp(-t)) : std::exp(t) / (1 + std::exp(t)); }
}  // namespace

Eigen::VectorXd NoisySgd::gradient(const Eigen::VectorXd& x, const Eigen::VectorXd& z) const {
  if (loss_formula) {
    if (x.size() != 1) throw_invalid("noisy_sgd", "d", static_cast<double>(x.size()), "d = 1 for a formula loss");
    return Eigen::VectorXd::Constant(1, gradient(x[0], z[0]));
  }
  if (loss == SgdLoss::quadratic) return lambda * (x - z);
  return -sigmoid(-z.dot(x)) * z + lambda * x;
}

double NoisySgd::gradient(double x, double z) const {
  if (loss_formula) {
    const double at[2] = {x, z};
    return derivative(*loss_formula, at);
  }
  if (loss == SgdLoss::quadratic) return lambda * (x - z);
  return -sigmoid(-z * x) * z + lambda * x;
}

void NoisySgd::project(Eigen::VectorXd& x) const {
  if (shape == DomainShape::box) {
    x = x.cwiseMax(-radius).cwiseMin(radius);
    return;
  }
  const double norm = x.norm();
  if (norm > radius) x = x / norm * radius;  // in 1-D exactly ±R: the boundary atoms stay atoms
}

void check_exact_law(const NoisySgd& sgd, int i, double zi, int intervals) {
  sgd.check();
  check_noise_resolved("noisy_sgd", "eta*sigma", sgd.eta * sgd.sigma, -sgd.radius, sgd.radius, intervals);
  if (sgd.dim != 1) throw_invalid("noisy_sgd", "d", sgd.dim, "d = 1 for the exact law (use the simulator for d > 1)");
  if (i < 1 || i > sgd.n) throw_invalid("noisy_sgd", "i", i, fmt::format("1 <= i <= n = {}", sgd.n));
  if (!(std::fabs(zi) <= sgd.data_bound()))
    throw_invalid("noisy_sgd", "zi", zi, sgd.loss == SgdLoss::quadratic ? "|zi| <= R" : "|zi| <= A");
}

namespace {

// The projected gradient step with data point z, as a propagator on `intervals` cells. Building one evaluates its
// (N+1)² kernel entries, more than the steps of a short run cost; the plain step (z = 0) of the laws alone, both laws
// of a pair and both directions is kept (the latest 9 processes and resolutions; thread-safe). The step at the
// differing index is applied once per law and computes its entries as it goes.
Propagator sgd_step_once(const NoisySgd& sgd, double z, int intervals) {
  return {-sgd.radius, sgd.radius, intervals, [sgd, z](double x) { return x - sgd.eta * sgd.gradient(x, z); },
          sgd.eta * sgd.sigma, Propagator::Use::once};
}

std::shared_ptr<const Propagator> sgd_step(const NoisySgd& sgd, double z, int intervals) {
  using Key = std::tuple<std::string, std::vector<double>, int>;
  static Cache<Key, std::shared_ptr<const Propagator>> cache(9);
  const Key key{sgd.loss_identity(), {sgd.eta, sgd.sigma, sgd.lambda, sgd.radius, sgd.feature_bound, z}, intervals};
  return cache.get_or_build(key, [&] {
    return std::make_shared<const Propagator>(
        -sgd.radius, sgd.radius, intervals, [sgd, z](double x) { return x - sgd.eta * sgd.gradient(x, z); }, sgd.eta * sgd.sigma);
  });
}

}  // namespace

namespace {

// The law after `steps` steps on the data z = 0 from x0: the prefix that every law of the process whose differing
// index comes after it shares (both laws of a pair, both directions of a joint computation, the laws alone), cached
// per process and resolution (the latest 8; thread-safe).
//
// The plain step contracts, so the prefix converges geometrically to the stationary law: the iteration stops once
// the change still to come is below kSettled relative (GeometricSettling, sim/processes/projected_chain.hpp).
IntervalLaw prefix_law(const NoisySgd& sgd, int steps, int intervals) {
  using Key = std::tuple<std::string, std::vector<double>, int, int>;
  static Cache<Key, std::shared_ptr<const IntervalLaw>> cache(8);
  const Key key{sgd.loss_identity(), {sgd.eta, sgd.sigma, sgd.lambda, sgd.radius, sgd.x0, sgd.feature_bound}, steps, intervals};
  return *cache.get_or_build(key, [&] {
    IntervalLaw law = IntervalLaw::point(sgd.x0, -sgd.radius, sgd.radius, intervals);
    const auto plain_step = sgd_step(sgd, 0.0, intervals);  // held: the cache may drop it meanwhile
    const Propagator& plain = *plain_step;
    GeometricSettling settling;
    for (int j = 1; j <= steps; ++j) {
      IntervalLaw next = plain(law);
      const double change = j > 1 ? relative_change(law, next) : 1.0;
      law = std::move(next);
      if (settling.settled_after(change)) break;
    }
    return std::make_shared<const IntervalLaw>(std::move(law));
  });
}

}  // namespace

IntervalLaw noisy_sgd_law(const NoisySgd& sgd, int i, double zi, int intervals) {
  check_exact_law(sgd, i, zi, intervals);
  IntervalLaw law = prefix_law(sgd, i - 1, intervals);
  const auto plain_step = sgd_step(sgd, 0.0, intervals);
  const Propagator &plain = *plain_step, differing = sgd_step_once(sgd, zi, intervals);
  for (int j = i; j <= sgd.n; ++j) law = j == i ? differing(law) : plain(law);
  return law;
}

std::array<IntervalLawPair, 2> noisy_sgd_pairs(const NoisySgd& sgd, int i, double zi, double zi_q, int intervals) {
  check_exact_law(sgd, i, zi, intervals);
  check_exact_law(sgd, i, zi_q, intervals);
  // Before index i both laws are the prefix law.
  const IntervalLaw p = prefix_law(sgd, i - 1, intervals);
  auto pairs = differing_pairs(p, sgd_step_once(sgd, zi, intervals), sgd_step_once(sgd, zi_q, intervals));
  propagate_pairs(pairs, *sgd_step(sgd, 0.0, intervals), sgd.n - i);
  return pairs;
}

namespace {
// ψ(x) = x − η ∂ℓ/∂x(x, z) with ψ' and ψ'' over x: the built-in losses' gradients written out, a formula loss
// differentiated three times (its gradient's value, slope and curvature).
MapEnclosure sgd_map(const NoisySgd& sgd, double z, const Enclosure& x) {
  using D1 = Dual<Enclosure>;
  using D2 = Dual<D1>;
  using D3 = Dual<D2>;
  Enclosure g, g1, g2;
  if (sgd.loss_formula) {
    const D3 args[2] = {D3(D2(D1(x, Enclosure(1.0)), D1(Enclosure(1.0), Enclosure(0.0))),
                           D2(D1(Enclosure(1.0), Enclosure(0.0)), D1(Enclosure(0.0), Enclosure(0.0)))),
                        D3(z)};
    const D3 r = sgd.loss_formula->evaluate<D3>(std::span<const D3>(args, 2));
    // (each level from the innermost duals that carry it: an outer level is unbounded where a branch switch joins
    // branches whose inner derivatives differ, e.g. at the kink of a Huber loss's gradient)
    g = r.v.v.d, g1 = r.v.d.d, g2 = r.d.d.d;
  } else {
    const D2 at = map_argument(x);
    const D2 grad = sgd.loss == SgdLoss::quadratic ? D2(sgd.lambda) * (at - D2(z))
                                                    : D2(-z) / (D2(1.0) + exp(D2(z) * at)) + D2(sgd.lambda) * at;
    g = grad.v.v, g1 = grad.v.d, g2 = grad.d.d;
  }
  const Enclosure eta(sgd.eta);
  return {x - eta * g, Enclosure(1.0) - eta * g1, Enclosure(0.0) - eta * g2};
}
}  // namespace

ChainForm noisy_sgd_chain(const NoisySgd& sgd, int i, double zi) {
  ChainForm form{-sgd.radius, sgd.radius, sgd.x0, {}};
  const double s = sgd.eta * sgd.sigma;
  for (int j = 1; j <= sgd.n; ++j) {
    const double z = j == i ? zi : 0.0;
    form.steps.push_back({[sgd, z](const Enclosure& x) { return sgd_map(sgd, z, x); }, s,
                          fmt::format("sgd {} eta {:a} lambda {:a} A {:a} z {:a}", sgd.loss_identity(), sgd.eta, sgd.lambda,
                                      sgd.feature_bound, z)});
  }
  return form;
}

double simulate_noisy_sgd_1d(const NoisySgd& sgd, int i, double zi, Rng& rng) {
  double x = sgd.x0;
  for (int j = 1; j <= sgd.n; ++j)
    x = std::clamp(x - sgd.eta * (sgd.gradient(x, j == i ? zi : 0.0) + sgd.sigma * rng.normal()), -sgd.radius, sgd.radius);
  return x;
}

Eigen::MatrixXd simulate_noisy_sgd(const NoisySgd& sgd, const std::vector<Eigen::VectorXd>& data, long runs,
                                   std::uint64_t seed) {
  sgd.check();
  if (static_cast<long>(data.size()) != sgd.n)
    invalid_input("noisy_sgd: {} data points for n = {} steps", data.size(), sgd.n);
  for (const auto& z : data) {
    if (z.size() != sgd.dim) invalid_input("noisy_sgd: a data point has dimension {} (d = {})", z.size(), sgd.dim);
    const double bound = sgd.loss == SgdLoss::quadratic && sgd.shape == DomainShape::box
                             ? sgd.radius * std::sqrt(static_cast<double>(sgd.dim)) : sgd.data_bound();
    if (!(z.norm() <= bound * (1 + 1e-12)))
      throw_invalid("noisy_sgd", "data norm", z.norm(), fmt::format("<= {}", format_number(bound)));
  }
  if (runs < 1 || runs > 100'000'000) throw_invalid("noisy_sgd", "runs", static_cast<double>(runs), "1 <= runs <= 1e8");
  Eigen::MatrixXd out(runs, sgd.dim);
  Rng rng(seed);
  Eigen::VectorXd x(sgd.dim), noise(sgd.dim);
  for (long run = 0; run < runs; ++run) {
    x.setConstant(sgd.x0 / std::sqrt(static_cast<double>(sgd.dim)));
    for (int j = 0; j < sgd.n; ++j) {
      rng.normal(std::span<double>(noise.data(), static_cast<std::size_t>(sgd.dim)));
      x -= sgd.eta * (sgd.gradient(x, data[static_cast<std::size_t>(j)]) + sgd.sigma * noise);
      sgd.project(x);
    }
    out.row(run) = x.transpose();
  }
  return out;
}

// ---- The law of the expression language (sim/laws/spec.hpp).

LawSpec noisy_sgd_law_spec() {
  using K = ParamKind;
  LawSpec spec{"noisy_sgd", "law of x_n of 1-D noisy projected SGD on [-R, R], data z_i = zi and z_j = 0 otherwise",
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
      return noisy_sgd_process_law(sgd, static_cast<int>(a.integer("i")), a.number("zi"), cells);
    }};
  spec.check = [](const Args& a) {
    // i ≤ n at load for every grid point (it was an error row at run time)
    if (const long n = a.integer("n"), i = a.integer("i"); i > n)
      throw_invalid("noisy_sgd", "i", static_cast<double>(i), fmt::format("1 <= i <= n = {}", n));
    check_propagation_work("noisy_sgd", "n", a.integer("n"), a.integer("cells"));
  };
  return spec;
}
PRIVAMP_LAW(60, noisy_sgd_law_spec);

}  // namespace privamp::sim
