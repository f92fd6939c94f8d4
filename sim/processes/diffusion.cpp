#include "sim/processes/diffusion.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include <boost/numeric/odeint/integrate/integrate_n_steps.hpp>
#include <boost/numeric/odeint/stepper/stepper_categories.hpp>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/spec.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

namespace {

using State = std::vector<double>;

// Odeint Stepper concept; the system is std::pair<Drift, Noise> with drift(x, dxdt) and noise(x, dW) filling
// b·N(0,1) per path (scaled by √dt here).
// The type names odeint's Stepper concept asks for.
struct StepperTypes {
  using state_type = State;
  using deriv_type = State;
  using value_type = double;
  using time_type = double;
  using order_type = unsigned short;
  using stepper_category = boost::numeric::odeint::stepper_tag;
};

class EulerMaruyamaStepper : public StepperTypes {
 public:
  static order_type order() { return 1; }

  template <class System>
  void do_step(System system, state_type& x, time_type, time_type dt) {
    drift_.resize(x.size());
    noise_.resize(x.size());
    system.first(x, drift_);
    system.second(x, noise_);
    const double s = std::sqrt(dt);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += dt * drift_[i] + s * noise_[i];
  }

 private:
  State drift_, noise_;
};

class StochasticHeunStepper : public StepperTypes {
 public:
  static order_type order() { return 2; }

  template <class System>
  void do_step(System system, state_type& x, time_type, time_type dt) {
    const std::size_t n = x.size();
    drift_.resize(n);
    noise_.resize(n);
    predictor_.resize(n);
    drift_predicted_.resize(n);
    system.first(x, drift_);
    system.second(x, noise_);
    const double s = std::sqrt(dt);
    for (std::size_t i = 0; i < n; ++i) predictor_[i] = x[i] + dt * drift_[i] + s * noise_[i];
    system.first(predictor_, drift_predicted_);
    for (std::size_t i = 0; i < n; ++i) x[i] += 0.5 * dt * (drift_[i] + drift_predicted_[i]) + s * noise_[i];
  }

 private:
  State drift_, noise_, predictor_, drift_predicted_;
};

constexpr long kChunk = 1 << 14;

}  // namespace

OrnsteinUhlenbeck::OrnsteinUhlenbeck(double theta_, double rho_) : theta(theta_), rho(rho_) {
  check_nonnegative_finite("ou", "theta", theta);
  check_positive_finite("ou", "rho", rho);
}

double OrnsteinUhlenbeck::mean_factor(double t) const { return std::exp(-theta * t); }

double OrnsteinUhlenbeck::variance(double t) const {
  check_nonnegative_finite("ou", "t", t);
  // (ρ²/θ)(1 − e^{−2θt}) = −ρ² expm1(−2θt)/θ; the θ → 0 limit 2ρ²t is the Brownian case.
  if (theta * t < 1e-300) return 2 * rho * rho * t;
  return -rho * rho * std::expm1(-2 * theta * t) / theta;
}

Gaussian OrnsteinUhlenbeck::law(double x0, double t) const {
  check_finite("ou", "x0", x0);
  check_positive_finite("ou", "t", t);
  return Gaussian(mean_factor(t) * x0, std::sqrt(variance(t)));
}

GaussianND OrnsteinUhlenbeck::law(const std::vector<double>& x0, double t) const {
  check_positive_finite("ou", "t", t);
  std::vector<double> m = x0;
  for (double& v : m) v *= mean_factor(t);
  return GaussianND(m, std::sqrt(variance(t)));
}

AdditiveSde OrnsteinUhlenbeck::sde() const {
  const double th = theta;
  return {[th](double x) { return -th * x; }, std::sqrt(2.0) * rho};
}

std::vector<double> simulate_terminal(const AdditiveSde& sde, double x0, double t, int steps, SdeScheme scheme,
                                      long paths, std::uint64_t seed, const OrnsteinUhlenbeck* exact) {
  check_positive_finite("simulate", "t", t);
  if (steps < 1) throw_invalid("simulate", "steps", steps, "steps >= 1");
  if (paths < 1) throw_invalid("simulate", "paths", static_cast<double>(paths), "paths >= 1");
  if (scheme == SdeScheme::exact_ou && !exact) invalid_input("simulate: exact stepping needs an OU process");
  const double dt = t / steps;
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(paths));
  for (long start = 0, chunk = 0; start < paths; start += kChunk, ++chunk) {
    Rng rng(seed, static_cast<std::uint64_t>(chunk));
    State x(static_cast<std::size_t>(std::min(kChunk, paths - start)), x0);
    if (scheme == SdeScheme::exact_ou) {
      const double f = exact->mean_factor(dt), s = std::sqrt(exact->variance(dt));
      for (int k = 0; k < steps; ++k)
        for (double& v : x) v = f * v + s * rng.normal();
    } else {
      auto drift = [&](const State& s, State& d) {
        for (std::size_t i = 0; i < s.size(); ++i) d[i] = sde.drift(s[i]);
      };
      auto noise = [&](const State&, State& w) {
        rng.normal(w);
        for (double& v : w) v *= sde.noise;
      };
      auto system = std::make_pair(drift, noise);
      if (scheme == SdeScheme::euler_maruyama) {
        EulerMaruyamaStepper stepper;
        boost::numeric::odeint::integrate_n_steps(stepper, system, x, 0.0, dt, static_cast<std::size_t>(steps));
      } else {
        StochasticHeunStepper stepper;
        boost::numeric::odeint::integrate_n_steps(stepper, system, x, 0.0, dt, static_cast<std::size_t>(steps));
      }
    }
    out.insert(out.end(), x.begin(), x.end());
  }
  return out;
}

SchemeMoments ou_scheme_moments(const OrnsteinUhlenbeck& ou, double x0, double t, int steps, SdeScheme scheme) {
  if (steps < 1) throw_invalid("ou_scheme_moments", "steps", steps, "steps >= 1");
  const double dt = t / steps, th = ou.theta, b2 = 2 * ou.rho * ou.rho;
  // One step maps (m, v) to (f m, f² v + g² b² dt) with f the drift factor and g the factor on ΔW.
  double f = 0, g = 0;
  switch (scheme) {
    case SdeScheme::euler_maruyama: f = 1 - th * dt; g = 1; break;
    case SdeScheme::heun: f = 1 - th * dt + 0.5 * th * th * dt * dt; g = 1 - 0.5 * th * dt; break;
    case SdeScheme::exact_ou: return {ou.mean_factor(t) * x0, ou.variance(t)};
  }
  SchemeMoments m{x0, 0};
  for (int k = 0; k < steps; ++k) {
    m.mean *= f;
    m.variance = f * f * m.variance + g * g * b2 * dt;
  }
  return m;
}

// ---- The laws of the expression language (sim/laws/spec.hpp).

namespace {
// A law expression's OU mean x0·e^{−θt} below the normal doubles keeps few digits or none (at t = 746 it rounded to 0
// and two starting points became one law: a divergence of exactly 0 labelled exact; at t = 740 the rounding of a
// subnormal mean left the exact interval beside the truth). Refused rather than rounded, as gaussian_chain does.
// (The expressions' laws only: the OU entries of the catalogue compute their values from the semigroup's factors.)
void check_ou_mean(const std::vector<double>& x0, double theta, double t) {
  for (double x : x0)
    if (const double mean = x * std::exp(-theta * t);
        std::fabs(x) >= std::numeric_limits<double>::min() && std::fabs(mean) < std::numeric_limits<double>::min())
      invalid_input("ou: with theta = {} at t = {} the law's mean x0·e^(-theta·t) underflows the double range (log10 |mean| = "
                    "{:.6g}): it keeps no digits; give a shorter time or a smaller theta", format_number(theta), format_number(t),
                    std::log10(std::fabs(x)) - theta * t / std::numbers::ln10);
}
}  // namespace

LawSpec ou_law_spec() {
  using K = ParamKind;
  return {"ou", "Ornstein-Uhlenbeck semigroup P_t(x0) for dX = -theta X dt + sqrt(2) rho dW (GT.ou.law)",
    {{"x0", K::number, std::nullopt, "starting point"},
    ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive()),
    ParamSpec{"theta", K::number, "1", "mean-reversion rate, >= 0 (0 gives Brownian motion)"}.within(Range::non_negative()),
    ParamSpec{"rho", K::number, "1", "noise scale, > 0"}.within(Range::positive())},
    "ou(x0=1, t=0.5, theta=2, rho=1)",
    [](const Args& a) {
      check_ou_mean({a.number("x0")}, a.number("theta"), a.number("t"));
      return std::make_shared<Gaussian>(OrnsteinUhlenbeck(a.number("theta"), a.number("rho")).law(a.number("x0"), a.number("t")));
    }};
}
PRIVAMP_LAW(30, ou_law_spec);

LawSpec ou_nd_law_spec() {
  using K = ParamKind;
  return {"ou_nd", "d-dimensional Ornstein-Uhlenbeck semigroup P_t(x0), isotropic",
    {{"x0", K::numbers, std::nullopt, "starting point in R^d"},
    ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive()),
    ParamSpec{"theta", K::number, "1", "mean-reversion rate, >= 0"}.within(Range::non_negative()),
    ParamSpec{"rho", K::number, "1", "noise scale, > 0"}.within(Range::positive())},
    "ou_nd(x0=[1, 0], t=1, theta=1, rho=1)",
    [](const Args& a) {
      check_ou_mean(a.numbers("x0"), a.number("theta"), a.number("t"));
      return std::make_shared<GaussianND>(OrnsteinUhlenbeck(a.number("theta"), a.number("rho")).law(a.numbers("x0"), a.number("t")));
    },
    /*variadic=*/false, [](const Args& a) { return static_cast<long>(a.numbers("x0").size()); }};
}
PRIVAMP_LAW(40, ou_nd_law_spec);

LawSpec brownian_law_spec() {
  using K = ParamKind;
  return {"brownian", "Brownian semigroup P_t(x0) = N(x0, 2t) for dX = sqrt(2) dW (GT.bm.law)",
    {{"x0", K::number, std::nullopt, "starting point"}, ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive())},
    "brownian(x0=1, t=0.25)",
    [](const Args& a) { return std::make_shared<Gaussian>(OrnsteinUhlenbeck(0, 1).law(a.number("x0"), a.number("t"))); }};
}
PRIVAMP_LAW(100, brownian_law_spec);

LawSpec brownian_nd_law_spec() {
  using K = ParamKind;
  return {"brownian_nd", "d-dimensional Brownian semigroup N(x0, 2t I)",
    {{"x0", K::numbers, std::nullopt, "starting point in R^d"}, ParamSpec{"t", K::number, std::nullopt, "time, > 0"}.within(Range::positive())},
    "brownian_nd(x0=[1, 2], t=0.25)",
    [](const Args& a) { return std::make_shared<GaussianND>(OrnsteinUhlenbeck(0, 1).law(a.numbers("x0"), a.number("t"))); },
    /*variadic=*/false, [](const Args& a) { return static_cast<long>(a.numbers("x0").size()); }};
}
PRIVAMP_LAW(110, brownian_nd_law_spec);

}  // namespace privamp::sim
