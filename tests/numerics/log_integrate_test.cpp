#include <cmath>
#include <iomanip>
#include <numbers>

#include <catch2/catch.hpp>

#include "numerics/errors.hpp"
#include "numerics/log_integrate.hpp"
#include "support/check.hpp"
#include "support/reference.hpp"

using namespace privamp;

TEST_CASE("log_integrate finds a far, narrow peak and reports an error bar that holds", "[numerics]") {
  // ∫ exp(c − (x − m)²/(2s²)) dx = c + log(s √(2π)), for peaks far from the anchor and very narrow or wide.
  for (double m : {0.0, 37.0, 1e4, -3e5}) {
    for (double s : {1e-3, 1.0, 50.0}) {
      const double c = 1e3;
      std::function<double(double)> h = [&](double x) { return c - (x - m) * (x - m) / (2 * s * s); };
      LogIntegrateOptions<double> opt;
      opt.scale = 1;
      const auto r = log_integrate<double>(h, {0.0}, opt);
      const double truth = c + std::log(s * std::sqrt(2 * std::numbers::pi));
      INFO("m = " << m << ", s = " << s << ", evaluations " << r.evaluations << std::setprecision(17) << " got " << r.log_value << " truth " << truth << " rel " << r.rel_error);
      CHECK(r.converged);
      // |log I − log truth| ≤ rel_error (log1p(rel) ≈ rel), with the rounding of the exponent c.
      CHECK(std::fabs(r.log_value - truth) <= r.rel_error + 4e-16 * c);
      // Accuracy is limited by the rounding of the abscissae when the peak is narrow and far: |x|·eps/s.
      CHECK(r.rel_error < std::max(1e-9, 1e4 * 2.2e-16 * std::fabs(m) / s));
    }
  }
}

TEST_CASE("log_integrate handles kinks given as anchors, finite domains and -inf outside the support", "[numerics]") {
  // ∫_{-1}^{2} e^{−|x|} dx = (1 − e^{−1}) + (1 − e^{−2}).
  std::function<double(double)> h = [](double x) { return -std::fabs(x); };
  LogIntegrateOptions<double> opt;
  opt.lo = -1;
  opt.hi = 2;
  const auto r = log_integrate<double>(h, {0.0}, opt);
  const double truth = std::log(2 - std::exp(-1.0) - std::exp(-2.0));
  CHECK(std::fabs(r.log_value - truth) <= r.rel_error);
  CHECK(r.rel_error < 1e-12);
  // Integrand identically −inf: the integral is an exact zero.
  std::function<double(double)> none = [](double) { return -std::numeric_limits<double>::infinity(); };
  CHECK(log_integrate<double>(none, {0.0}, opt).log_value == -std::numeric_limits<double>::infinity());
}

TEST_CASE("log_integrate looks between two points where the integrand vanishes", "[numerics]") {
  // (x − 3/4)² on (0, 1), 0 at the anchor 3/4 and taken as 0 at the end 1 (a density's support end): the piece between,
  // both of whose ends are −inf, once counted as 0 (here 1/27 of the integral; a clamped pair's R_1.5 lost 1 %).
  const double inf = std::numeric_limits<double>::infinity();
  std::function<double(double)> h = [inf](double x) { return x >= 1 || x == 0.75 ? -inf : 2 * std::log(std::fabs(x - 0.75)); };
  LogIntegrateOptions<double> opt;
  opt.lo = 0;
  opt.hi = 1;
  opt.scale = 1;
  const auto r = log_integrate<double>(h, {0.75}, opt);
  const double truth = std::log((0.25 * 0.25 * 0.25 + 0.75 * 0.75 * 0.75) / 3);
  CHECK(std::fabs(r.log_value - truth) <= std::max(r.rel_error, 1e-13));
  CHECK(r.rel_error < 1e-10);
  // Only zeros at the scanned points (the ends and a midpoint anchor): the mass between is found too.
  std::function<double(double)> hump = [inf](double x) { return x <= 0 || x >= 1 || x == 0.5 ? -inf : std::log(std::fabs(x - 0.5)); };
  const auto z = log_integrate<double>(hump, {0.5}, opt);
  CHECK(std::fabs(z.log_value - std::log(0.25)) <= std::max(z.rel_error, 1e-13));
}

TEST_CASE("log_integrate bounds power-law tails, and reports a tail it cannot bound as unbounded", "[numerics]") {
  // ∫ (1 + x²)^{−0.8} dx = √π Γ(0.3)/Γ(0.8): log 1.51610325934293802 (mpmath, 30 digits). A tail bound that
  // assumed a log-concave tail put the interval 1.7e-7 below the truth (a Rényi divergence of Student-type laws).
  LogIntegrateOptions<double> opt;
  std::function<double(double)> power = [](double x) { return -0.8 * std::log1p(x * x); };
  const auto r = log_integrate<double>(power, {0.0}, opt);
  INFO(std::setprecision(17) << r.log_value << " rel " << r.rel_error);
  CHECK(std::fabs(r.log_value - 1.51610325934293802) <= r.rel_error);
  CHECK(r.rel_error < 1e-8);
  // (1 + x²)^{−1/2} is not integrable (a 1/x tail): no finite error bar, however small the part already integrated.
  std::function<double(double)> harmonic = [](double x) { return -0.5 * std::log1p(x * x); };
  CHECK(log_integrate<double>(harmonic, {0.0}, opt).rel_error == std::numeric_limits<double>::infinity());
  // Rising to the end of the double range (once "+inf at x = 8.98e307", an error): infinite as far as doubles tell.
  std::function<double(double)> rising = [](double x) { return 0.01 * std::fabs(x) - 5; };
  const auto up = log_integrate<double>(rising, {0.0}, opt);
  CHECK(up.log_value == std::numeric_limits<double>::infinity());
  CHECK(up.rel_error == std::numeric_limits<double>::infinity());
}

TEST_CASE("log_integrate follows an end to its reach: a mode behind a dip deeper than the margin", "[numerics]") {
  // e^{−x²/2} + e^{100 − (x − 1000)²/2}: the march 2^k out from 0 meets the second mode only on its flank (e^{−164}
  // of its top at x = 1023) and, without a reach, stops long before. log ∫ = 100 + log √(2π) + log1p(e^{−100}).
  std::function<double(double)> two = [](double x) {
    const double a = -x * x / 2, b = 100 - (x - 1000) * (x - 1000) / 2;
    return std::max(a, b) + std::log1p(std::exp(std::min(a, b) - std::max(a, b)));
  };
  LogIntegrateOptions<double> opt;
  opt.reach_lo = -1e4;
  opt.reach_hi = 1e4;
  const auto r = log_integrate<double>(two, {0.0}, opt);
  INFO(std::setprecision(17) << r.log_value << " rel " << r.rel_error);
  CHECK(std::fabs(r.log_value - 100.918938533204672742) <= r.rel_error + 1e-14 * 100);
  CHECK(r.rel_error < 1e-10);
}

TEST_CASE("log_integrate rejects NaN integrands and empty domains", "[numerics]") {
  std::function<double(double)> bad = [](double x) { return x > 0.5 ? std::nan("") : -x * x; };
  CHECK_THROWS_AS(log_integrate<double>(bad, {0.0}, {}), NumericalError);
  LogIntegrateOptions<double> empty;
  empty.lo = 1;
  empty.hi = 1;
  std::function<double(double)> ok = [](double x) { return -x * x; };
  CHECK_THROWS_AS(log_integrate<double>(ok, {0.0}, empty), InvalidArgument);
}

TEST_CASE("log_integrate in 50 digits agrees with the closed form to 1e-30", "[numerics][mp]") {
  using test::Real50;
  const Real50 m = 1234, s("0.25");
  std::function<Real50(Real50)> h = [&](Real50 x) { return Real50(-(x - m) * (x - m) / (2 * s * s)); };
  LogIntegrateOptions<Real50> opt;
  opt.rel_tol = Real50("1e-35");
  opt.margin = 120;
  const auto r = log_integrate<Real50>(h, {Real50(0)}, opt);
  const Real50 truth = log(s * boost::math::constants::root_two_pi<Real50>());
  CHECK(static_cast<double>(abs(r.log_value - truth)) < 1e-30);
  CHECK(static_cast<double>(abs(r.log_value - truth)) <= static_cast<double>(r.rel_error));
}
