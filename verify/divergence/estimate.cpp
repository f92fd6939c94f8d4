#include "verify/divergence/estimate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <gsl/gsl_cdf.h>

#include "numerics/errors.hpp"

namespace privamp::verify {

std::string to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::exact: return "exact";
    case ErrorKind::certified: return "certified";
    case ErrorKind::quadrature: return "a-posteriori";
    case ErrorKind::statistical: return "statistical";
    case ErrorKind::discretised: return "a-posteriori + discretisation";
  }
  return "?";
}

namespace {
double safe_log(double x) { return x > 0 ? std::log(x) : -std::numeric_limits<double>::infinity(); }
}  // namespace

Estimate Estimate::from_value(double value, double abs_error, ErrorKind kind, std::string method, double floor) {
  if (std::isnan(value) || std::isnan(abs_error))
    throw NumericalError("internal: an engine produced NaN (" + method + ")");
  Estimate e;
  e.value = std::max(value, floor);
  e.lower = std::max(value - abs_error, floor);
  e.upper = std::max(value + abs_error, e.value);
  e.log_value = safe_log(e.value);
  e.log_lower = safe_log(e.lower);
  e.log_upper = safe_log(e.upper);
  e.error_kind = kind;
  e.method = std::move(method);
  return e;
}

void Estimate::set_value(double v) {
  value = std::clamp(v, lower, upper);
  log_value = safe_log(value);
}

Estimate Estimate::from_interval(double lower, double upper, ErrorKind kind, std::string method) {
  if (std::isnan(lower) || std::isnan(upper) || lower > upper)
    throw NumericalError(fmt::format("internal: an invalid interval [{}, {}] ({})", lower, upper, method));
  Estimate e = from_value(std::isfinite(upper) ? lower + (upper - lower) / 2 : lower, 0, kind, std::move(method),
                          -std::numeric_limits<double>::infinity());
  e.lower = lower;
  e.upper = upper;
  e.log_lower = safe_log(lower);
  e.log_upper = safe_log(upper);
  return e;
}

Estimate Estimate::from_sample_mean(double mean, double sd, long n, double level, std::string method) {
  if (!(n >= 2) || !(level > 0 && level < 1))
    throw InvalidArgument(fmt::format("from_sample_mean: n = {} (allowed >= 2), level = {} (allowed (0, 1))", n, level));
  const double half = gsl_cdf_ugaussian_Pinv(0.5 + level / 2) * sd / std::sqrt(static_cast<double>(n));
  Estimate e = from_interval(mean - half, mean + half, ErrorKind::statistical, std::move(method));
  e.value = mean;
  e.log_value = safe_log(mean);
  e.level = level;
  e.work = n;
  return e;
}

Estimate Estimate::from_log(double log_value, double rel_error, ErrorKind kind, std::string method) {
  if (std::isnan(log_value) || std::isnan(rel_error))
    throw NumericalError("internal: an engine produced NaN (" + method + ")");
  Estimate e;
  e.log_value = log_value;
  e.log_upper = log_value + std::log1p(rel_error);
  e.log_lower = rel_error < 1 ? log_value + std::log1p(-rel_error) : -std::numeric_limits<double>::infinity();
  e.value = std::exp(e.log_value);
  // exp is within one ulp: one step outwards keeps the interval valid, also for subnormal values, where an ulp
  // (4.9e-324) is far more than the relative error (exact values near 1e-320 occur in the far tails).
  e.lower = std::nextafter(std::exp(e.log_lower), 0.0);
  e.upper = e.log_upper == -std::numeric_limits<double>::infinity()
                ? 0.0  // exactly zero
                : std::nextafter(std::exp(e.log_upper), std::numeric_limits<double>::infinity());
  e.error_kind = kind;
  e.method = std::move(method);
  return e;
}

Estimate Estimate::from_log_interval(double log_value, double log_error, ErrorKind kind, std::string method) {
  if (std::isnan(log_value) || std::isnan(log_error)) throw NumericalError("internal: an engine produced NaN (" + method + ")");
  Estimate e;
  e.log_value = log_value;
  e.log_lower = log_value - log_error;
  e.log_upper = log_value + log_error;
  e.value = std::exp(log_value);
  e.lower = std::nextafter(std::exp(e.log_lower), 0.0);
  e.upper = std::nextafter(std::exp(e.log_upper), std::numeric_limits<double>::infinity());
  e.error_kind = kind;
  e.method = std::move(method);
  return e;
}

Estimate Estimate::infinite(std::string method) {
  Estimate e;
  e.value = e.lower = e.upper = std::numeric_limits<double>::infinity();
  e.log_value = e.log_lower = e.log_upper = std::numeric_limits<double>::infinity();
  e.method = std::move(method);
  return e;
}

std::string error_kind_label(const Estimate& e) { return std::isnan(e.value) ? "none" : to_string(e.error_kind); }

Estimate Estimate::unknown(std::string why) {
  Estimate e;
  e.value = e.lower = e.upper = e.log_value = e.log_lower = e.log_upper = std::numeric_limits<double>::quiet_NaN();
  e.method = std::move(why);
  return e;
}

std::string Quantity::label() const {
  switch (kind) {
    case Kind::renyi: return fmt::format("renyi({})", format_number(parameter));
    case Kind::kl: return "kl";
    case Kind::renyi_inf: return "renyi_inf";
    case Kind::hockey_stick: return fmt::format("hockey_stick({})", format_number(parameter));
    case Kind::tv: return "tv";
  }
  return "?";
}

Quantity Quantity::of(Kind kind, double order) {
  switch (kind) {
    case Kind::renyi: return renyi(order);
    case Kind::hockey_stick: return hockey_stick(order);
    case Kind::kl: return kl();
    case Kind::tv: return tv();
    case Kind::renyi_inf: return renyi_inf();
  }
  return kl();
}

Quantity Quantity::renyi(double alpha) {
  if (!(alpha > 1) || !(alpha <= 1e6))
    throw_invalid("renyi", "alpha", alpha,
                  "1 < alpha <= 1e6 (use kl for alpha -> 1 and renyi_inf beyond: R_alpha tends to R_inf like 1/alpha)");
  return {Kind::renyi, alpha};
}

Quantity Quantity::hockey_stick(double eps) {
  if (!(eps >= 0) || !std::isfinite(eps)) throw_invalid("hockey_stick", "eps", eps, "0 <= eps < inf");
  return {Kind::hockey_stick, eps};
}

}  // namespace privamp::verify
