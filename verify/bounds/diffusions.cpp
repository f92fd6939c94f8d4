// DIFF — diffusion mechanisms (Balle et al. 2019, §5). T6 is evaluated with Λ(t) = ∫_t^∞ κ(s) ds computed by
// quadrature from the carré du champ of the process (independently of the closed forms E5 and C7 print).
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include <fmt/format.h>

#include <boost/math/tools/minima.hpp>

#include "numerics/errors.hpp"
#include "numerics/log_integrate.hpp"
#include "sim/formulas/certify.hpp"
#include "sim/formulas/dual.hpp"
#include "sim/formulas/formula.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/finite.hpp"
#include "sim/processes/diffusion.hpp"
#include "sim/processes/langevin.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/bounds/catalogue.hpp"

namespace privamp::verify {

namespace {


std::optional<std::string> positive_time(const Params& p) { return requires_positive("t")(p); }

// κ(s) for OU dX = −θX ds + √2ρ dW (θ = 0: Brownian with diffusion 2ρ²): Γ(f) = ρ²|f'|², and
// ∂_y log p_s(x,y)/p_s(x',y) = e^{−θs}(x − x')/v(s), v(s) = (ρ²/θ)(1 − e^{−2θs}), so κ = ρ²Δ²e^{−2θs}/v(s)².
double log_kappa(double s, double delta, double theta, double rho) {
  const double v = theta * s < 1e-300 ? 2 * rho * rho * s : -rho * rho * std::expm1(-2 * theta * s) / theta;
  return 2 * std::log(rho * delta) - 2 * theta * s - 2 * std::log(v);
}

// A Langevin diffusion given by its potential: double_well, or a formula in x (sim::Potential::named).
bool has_potential(const Params& p) { return p.words.count("potential") > 0; }

std::shared_ptr<const sim::LangevinChain> chain_of(const Params& p, int cells) {
  const sim::Potential u = sim::Potential::named(p.word("potential"));
  u.check(p.at("lo"), p.at("hi"));
  return sim::langevin_chain(u, p.at("lo"), p.at("hi"), cells);
}

// A quantity computed on the N- and 2N-cell chains, extrapolated (the discretisation is O(h²)); the size of the
// Richardson step is the error estimate.
template <class F>
std::pair<double, double> on_two_grids(const Params& p, F f) {
  const int cells = static_cast<int>(p.at("cells"));
  const double coarse = f(*chain_of(p, cells));
  const double fine = f(*chain_of(p, 2 * cells));
  return {fine + (fine - coarse) / 3, std::fabs(fine - coarse)};
}

// Exact R_α(P_t(x) ‖ P_t(x')) of the double-well diffusion mechanism (value cases of T6): the laws on the chain's
// nodes carry their discretisation, so the engines evaluate them at N, 2N and 4N cells and extrapolate.
// `spectral`: the chain's law from its eigendecomposition; otherwise by uniformization, the second route: the same
// spatial discretisation (whose error the three resolutions estimate) with an independent, cancellation-free
// time integration.
Estimate double_well_renyi(const Params& p, bool spectral) {
  if (!has_potential(p)) invalid_input("T6 value cases need a potential (double_well or a formula in x)");
  const int cells = static_cast<int>(p.at("cells"));
  auto law = [&](double x0) {
    return sim::make_discretised([&p, x0, spectral](int n) -> sim::LawPtr {
      const auto chain = chain_of(p, n);
      const sim::LangevinChain& c = *chain;
      std::vector<double> at(c.x().data(), c.x().data() + c.nodes());
      return std::make_shared<const sim::FiniteLaw>(
          at, spectral ? c.law(c.node(x0), p.at("t")) : c.law_uniformized(c.node(x0), p.at("t")));
    }, cells, 2, 4, spectral ? "Langevin chain (spectral)" : "Langevin chain (uniformization)");
  };
  const Estimate e = compute_divergence(*law(p.at("x")), *law(p.at("x2")), Quantity::renyi(p.at("alpha")));
  if (!std::isfinite(e.value))
    throw NumericalError("the chain's laws have entries below rounding where the other law has mass (t too small "
                         "for the spectral route on this grid)");
  return e;
}

BoundValue t6(const Params& p) {
  if (has_potential(p)) {
    // κ is the supremum over the region carrying mass (see LangevinChain::kappa): it can only be smaller than the
    // true supremum, so this bound is at most Theorem 6's: a 'holds' verdict is conclusive.
    const auto [lam, err] = on_two_grids(p, [&](const sim::LangevinChain& c) {
      return c.intrinsic_sensitivity(c.node(p.at("x")), c.node(p.at("x2")), p.at("t"));
    });
    return {p.at("alpha") * lam, fmt::format("Lambda(t) = {:.6g} from the chain's kappa (discretisation {:.1e})", lam, err)};
  }
  const double t = p.at("t"), d = p.at("delta"), th = p.at("theta"), rho = p.at("rho");
  std::function<double(double)> h = [&](double s) { return log_kappa(s, d, th, rho); };
  LogIntegrateOptions<double> o;
  o.lo = t;
  o.scale = t;
  const auto lam = log_integrate<double>(h, {2 * t}, o);
  return {p.at("alpha") * std::exp(lam.log_value),
          fmt::format("Lambda(t) by quadrature of kappa (rel. err {:.1e})", lam.rel_error)};
}

// Mean squared errors (§5.2), derived here from the laws rather than from the printed formulas:
//   E_OU from the OU law N(e^{−θt}x, v(t)I) (GT.ou.law) at the worst input ‖f(D)‖ = R: ‖x − m‖² + d·v(t);
//   σ̃² of the Gaussian mechanism calibrated to the OU mechanism's exact RDP: the closed form of
//   R_α(P_t(x) ‖ P_t(x')) at ‖x − x'‖ = Δ (GT.gauss.renyi on the OU laws), then σ̃² = αΔ²/(2R_α);
//   E_GM = dσ̃²; E_PGM = min_β max_{‖f‖≤R} E‖f − β(f + Z)‖² by a one-dimensional minimisation.
double ou_mse(const Params& p) {
  const sim::OrnsteinUhlenbeck ou(p.at("theta"), p.at("rho"));
  const double t = p.at("t"), r = p.at("R"), d = p.at("d");
  const double m = ou.mean_factor(t) * r;
  return (r - m) * (r - m) + d * ou.variance(t);
}

// log σ̃², σ̃² = αΔ²/(2 R_2) with R_2 of the OU laws from Δ and 0 by the engine, in logs: R_2 leaves the double range
// from θt ≈ 354 (σ̃² was infinite, and E_OU/E_GM a silent 0 labelled exact). Where the laws' means underflow too
// (θt ≳ 708: the engine's R_2 is then 0), from C7's closed form σ̃² = ρ²(e^{2θt} − 1)/θ in logs, which the engine's
// value matches to rounding wherever both run (tests/verify/runner_test.cpp).
double log_calibrated_sigma2(const Params& p) {
  const double theta = p.at("theta"), rho = p.at("rho"), t = p.at("t");
  const sim::OrnsteinUhlenbeck ou(theta, rho);
  const double alpha = 2, delta = p.at("delta");
  const int d = static_cast<int>(p.at("d"));
  std::vector<double> x(static_cast<std::size_t>(d), 0.0), y = x;
  x[0] = delta;
  const auto r = compute_divergence(ou.law(x, t), ou.law(y, t), Quantity::renyi(alpha));
  if (std::isfinite(r.log_value())) return std::log(alpha * delta * delta / 2) - r.log_value();
  if (theta == 0) return std::log(2 * rho * rho * t);
  return 2 * std::log(rho) - std::log(theta) + 2 * theta * t + std::log1p(-std::exp(-2 * theta * t));
}

double calibrated_sigma2(const Params& p) { return std::exp(log_calibrated_sigma2(p)); }

// Minimised over u = log β (β* can be 1e-9 when σ̃ is large; a search in β itself would lose the minimum's
// digits). The error bar covers the location error of Brent's method (relative 2^-26 in β): the value moves by
// less than the change over a relative step of 1e-7.
// min over β of the worst case over ‖f‖ ≤ R of E‖β(f + N(0, σ̃² I)) − f‖² = (1 − β)²‖f‖² + β² d σ̃², which is largest at
// ‖f‖ = R. The minimum over the line is attained in [0, 1] (left of 0 the quadratic exceeds its value R² at 0, right of
// 1 its value d σ̃² at 1). It is enclosed without the vertex formula that the bound restates: Brent finds a point b̂,
// q(b̂) (interval arithmetic) is an upper end, and strong convexity gives the lower end q(b̂) − q'(b̂)²/(2m) with
// m = inf q'' over [0, 1] (certified, sim/formulas/certify.hpp). q grows with R² and d σ̃²: evaluated at the lower ends
// of their enclosures (σ̃² from its closed form, taken to 64 ulps) for the lower end, at the upper ends for the upper.
Estimate pgm_mse(const Params& p) {
  using D2 = sim::Dual<sim::Dual<sim::Enclosure>>;
  const double s2 = calibrated_sigma2(p), r = p.at("R"), d = p.at("d");
  const double slack = 64 * std::numeric_limits<double>::epsilon();
  const sim::Enclosure r2 = sim::Enclosure(r) * sim::Enclosure(r);
  const sim::Enclosure noise = sim::Enclosure(d) * sim::Enclosure(s2 * (1 - slack), s2 * (1 + slack));
  const sim::Enclosure box[1] = {{0.0, 1.0}};
  auto least = [&](double a, double b, bool upper) {
    const auto f = sim::Formula::parse("(1 - beta)^2 * a + beta^2 * b", {"beta"}, Params{{{"a", a}, {"b", b}}, {}}, "E_PGM");
    // (in log β: the minimum may sit at β ~ 1e-9, below Brent's absolute resolution on [0, 1]; a scan brackets it)
    auto g = [&](double x) { return (*f)(std::exp(x)); };
    double best = 0;
    for (double x = -200; x <= 0; x += 1)
      if (g(x) < g(best)) best = x;
    const double at = std::exp(boost::math::tools::brent_find_minima(g, best - 1, std::min(best + 1, 0.0), 52).first);
    const D2 arg(sim::Dual<sim::Enclosure>(sim::Enclosure(at), sim::Enclosure(1.0)), sim::Dual<sim::Enclosure>(sim::Enclosure(1.0), sim::Enclosure(0.0)));
    const D2 q = f->evaluate<D2>(std::span<const D2>(&arg, 1));
    if (upper) return q.v.v.hi;
    const double m = sim::extremum(*f, 0, 2, box, false).value.lo;
    if (!(m > 0)) throw NumericalError("E_PGM: the worst-case MSE is not strongly convex in beta (internal)");
    const sim::Enclosure gap = q.v.d * q.v.d / (sim::Enclosure(2.0) * sim::Enclosure(m));
    return (q.v.v - gap).lo;
  };
  return Estimate::from_interval(least(r2.lo, noise.lo, false), least(r2.hi, noise.hi, true), ErrorKind::certified,
                                 "min over beta in [0, 1] of the worst-case MSE: a value at Brent's point, strong convexity below");
}

Estimate value_estimate(double v, const char* method) {
  return Estimate::from_value(v, 64 * std::numeric_limits<double>::epsilon() * std::fabs(v), ErrorKind::exact, method);
}
// The same from the value's log, for values that leave the double range (E_OU/E_GM at θt ≳ 354 is below 1e-308):
// printed in log space, never a silent 0.
Estimate log_value_estimate(double log_v, const char* method) {
  if (std::fabs(log_v) < 700) return value_estimate(std::exp(log_v), method);
  return Estimate::from_log(log_v, 64 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::fabs(log_v)), ErrorKind::exact, method);
}

// Second routes for the value rows. E_OU by Monte Carlo over simulated OU paths (exact OU transition steps, so no
// discretisation bias; 10^5 paths per coordinate, a CLT interval at level 1 − 1e-6): the coordinate along f(D)
// starts at R, the d − 1 others at 0. σ̃² from R_2 of the 1-D OU laws by log-space quadrature instead of the
// closed form; its interval is carried through every formula that uses it (each is monotone in σ̃²).
constexpr long kPaths = 100'000;
constexpr double kLevel = 1 - 1e-6;

Estimate ou_mse_simulated(const Params& p) {
  const sim::OrnsteinUhlenbeck ou(p.at("theta"), p.at("rho"));
  const double t = p.at("t"), r = p.at("R"), d = p.at("d");
  const auto along = sim::simulate_terminal(ou.sde(), r, t, 8, sim::SdeScheme::exact_ou, kPaths, 11, &ou);
  const auto across = sim::simulate_terminal(ou.sde(), 0, t, 8, sim::SdeScheme::exact_ou, kPaths, 12, &ou);
  double sum = 0, sum2 = 0;
  for (long k = 0; k < kPaths; ++k) {
    const double z = (along[k] - r) * (along[k] - r) + (d - 1) * across[k] * across[k];
    sum += z;
    sum2 += z * z;
  }
  const double n = static_cast<double>(kPaths), mean = sum / n;
  const double sd = std::sqrt(std::max(0.0, (sum2 / n - mean * mean) * n / (n - 1)));
  return Estimate::from_sample_mean(mean, sd, kPaths, kLevel, "Monte Carlo over 10^5 simulated OU paths (exact steps)");
}

// [lower, upper] of σ̃² = αΔ²/(2 R_α) with R_2 of the 1-D OU laws by quadrature.
std::pair<double, double> calibrated_sigma2_by_quadrature(const Params& p) {
  const sim::OrnsteinUhlenbeck ou(p.at("theta"), p.at("rho"));
  const double alpha = 2, delta = p.at("delta");
  DivergenceOptions o;
  o.engine = Engine::quadrature;
  const Estimate r = compute_divergence(ou.law(delta, p.at("t")), ou.law(0.0, p.at("t")), Quantity::renyi(alpha), o);
  return {alpha * delta * delta / (2 * r.upper), alpha * delta * delta / (2 * r.lower)};
}

Estimate gm_mse_by_quadrature(const Params& p) {
  const auto [lo, hi] = calibrated_sigma2_by_quadrature(p);
  const double round = 8 * std::numeric_limits<double>::epsilon();
  return Estimate::from_interval(p.at("d") * lo * (1 - round), p.at("d") * hi * (1 + round), ErrorKind::quadrature,
                                 "d sigma~^2 with R_2 of the 1-D OU laws by quadrature");
}

// The worst-case MSE (1 − β)²R² + β²dσ̃² is a quadratic in β: its minimum R²dσ̃²/(R² + dσ̃²), increasing in σ̃².
Estimate pgm_mse_by_quadrature(const Params& p) {
  const auto [lo, hi] = calibrated_sigma2_by_quadrature(p);
  const double r2 = p.at("R") * p.at("R"), d = p.at("d");
  auto best = [&](double s2) { return std::isinf(s2) ? r2 : r2 * d * s2 / (r2 + d * s2); };
  const double round = 8 * std::numeric_limits<double>::epsilon();
  return Estimate::from_interval(best(lo) * (1 - round), best(hi) * (1 + round), ErrorKind::quadrature,
                                 "minimum of the quadratic in beta, sigma~^2 from R_2 by quadrature");
}

Estimate mse_ratio_by_simulation(const Params& p) {
  const Estimate ou = ou_mse_simulated(p);
  const auto [lo, hi] = calibrated_sigma2_by_quadrature(p);
  const double d = p.at("d");
  const double round = 8 * std::numeric_limits<double>::epsilon();
  Estimate e = Estimate::from_interval(std::max(0.0, ou.lower) / (d * hi) * (1 - round), ou.upper / (d * lo) * (1 + round),
                                       ErrorKind::statistical,
                                       "E_OU over 10^5 simulated OU paths / E_GM with R_2 by quadrature");
  e.level = kLevel;
  return e;
}

// What the OU entries read: the process (theta, rho), the time, the sensitivity, the range R and the dimension d
// (the calibration builds d-dimensional laws: at most 10^4).
std::vector<Parameter> ou_parameters() {
  return {number("theta", 0), positive("rho"), number("t"), positive("delta"), positive("R"), integer("d", 1, 1e4)};
}

// T6: the OU/Brownian process (theta, rho, delta), or a Langevin diffusion on its chain when a potential is given
// (double_well or a formula in x).
std::vector<Parameter> t6_parameters() {
  std::vector<Parameter> out = {number("alpha").above(1), number("t"), word("potential").if_present()};
  for (const char* name : {"delta", "theta", "rho"}) out.push_back(number(name).when("potential", {""}));
  out.push_back(integer("cells", sim::DiscretisationLimits::min_cells, sim::DiscretisationLimits::max_generator_cells)
                    .when_present("potential"));
  for (const char* name : {"lo", "hi", "x", "x2"}) out.push_back(number(name).when_present("potential"));
  return out;
}

}  // namespace

void add_diffusion_bounds(std::vector<BoundEntry>& out) {
  out.push_back({.id = "T6",
                 .family = "diffusions",
                 .source = kPaper + ", Theorem 6",
                 .statement = "diffusion mechanism is (alpha, alpha Lambda(t))-RDP, Lambda(t) = int_t^inf kappa(s) ds",
                 .quantity = "renyi(alpha)",
                 .check = ValueCheck{.exact = [](const Params& p) { return double_well_renyi(p, true); },
                                     .cross = [](const Params& p) { return double_well_renyi(p, false); },
                                     .divergence = Quantity::Kind::renyi,
                                     .parameters = {word("potential")}},
                 .parameters = t6_parameters(),
                 .not_applicable = positive_time,
                 .bound = t6});
  // (MSE.ou, MSE.gm, T8.a and T8.b are closed forms in catalogue.toml, with the exact routes below.)
  out.push_back({.id = "MSE.pgm",
                 .family = "diffusions",
                 .source = kPaper + ", Section 5.2 (typo corrected: R^2)",
                 .statement = "E_PGM <= E_GM (1 + d sigma~^2/R^2)^(-1)",
                 .quantity = "E_PGM (optimal beta, worst |f| <= R)",
                 .check = ValueCheck{.exact = [](const Params& p) { return pgm_mse(p); },
                                     .cross = pgm_mse_by_quadrature,
                                     .parameters = ou_parameters()},
                 .parameters = ou_parameters(),
                 .not_applicable = positive_time,
                 .bound = [](const Params& p) {
                   const double s2 = calibrated_sigma2(p), d = p.at("d"), r = p.at("R");
                   return BoundValue{d * s2 / (1 + d * s2 / (r * r)), ""};
                 }});
}

// The exact values of the mean-squared-error entries (MSE.ou, MSE.gm, T8.a, T8.b in catalogue.toml).
void add_diffusion_routes(std::map<std::string, ExactRoute>& out) {
  out["ou_mse"] = {"E_OU at |f(D)| = R", [](const Params& p) { return value_estimate(ou_mse(p), "mean squared error from the OU law"); },
                   ou_mse_simulated, ou_parameters()};
  out["gm_mse"] = {"E_GM", [](const Params& p) {
                     return log_value_estimate(std::log(p.at("d")) + log_calibrated_sigma2(p), "d sigma~^2, sigma~ calibrated to the exact OU RDP");
                   },
                   gm_mse_by_quadrature, ou_parameters()};
  out["mse_ratio"] = {"E_OU/E_GM", [](const Params& p) {
                        return log_value_estimate(std::log(ou_mse(p)) - std::log(p.at("d")) - log_calibrated_sigma2(p), "ratio from the laws");
                      },
                      mse_ratio_by_simulation, ou_parameters()};
}

}  // namespace privamp::verify
