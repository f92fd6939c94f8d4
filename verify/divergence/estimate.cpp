#include "verify/divergence/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <gsl/gsl_cdf.h>

#include "numerics/errors.hpp"
#include "numerics/log_space.hpp"

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

int weakness(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::exact: return 0;
    case ErrorKind::certified: return 1;
    case ErrorKind::quadrature: return 2;
    case ErrorKind::discretised: return 3;
    case ErrorKind::statistical: return 4;
  }
  return 4;
}

std::string to_string(ErrorPart part) {
  switch (part) {
    case ErrorPart::rounding: return "rounding";
    case ErrorPart::quadrature: return "quadrature";
    case ErrorPart::enclosure: return "enclosure";
    case ErrorPart::sampling: return "sampling";
    case ErrorPart::discretisation: return "discretisation";
    case ErrorPart::lumping: return "lumping";
    case ErrorPart::density: return "density";
    case ErrorPart::loss: return "loss";
    case ErrorPart::reduction: return "reduction";
  }
  return "?";
}

std::optional<ErrorPart> parse_error_part(std::string_view name) {
  for (ErrorPart part : kErrorParts)
    if (to_string(part) == name) return part;
  return std::nullopt;
}

std::string budget_text(const ErrorBudget& budget) {
  std::string out;
  for (const ErrorTerm& t : budget)
    out += t.amount > 0 ? fmt::format("{}{} {:.3g}", out.empty() ? "" : ", ", to_string(t.part), t.amount)
                        : fmt::format("{}{} exp({:.7g})", out.empty() ? "" : ", ", to_string(t.part), t.log_amount);
  return out;
}

std::string log_budget_text(const ErrorBudget& budget) {
  std::string out;
  for (const ErrorTerm& t : budget) out += fmt::format("{}{} {:.7g}", out.empty() ? "" : ", ", to_string(t.part), t.log_amount);
  return out;
}

void Estimate::add_error(ErrorPart part, double amount) {
  if (!(amount > 0) || !std::isfinite(amount)) return;
  for (ErrorTerm& t : budget)
    if (t.part == part) {
      t.amount += amount;
      t.log_amount = t.amount > 0 && std::isfinite(t.amount) ? std::log(t.amount) : log_add(t.log_amount, std::log(amount));
      return;
    }
  budget.push_back({part, amount, std::log(amount)});
}

void Estimate::add_log_error(ErrorPart part, double log_amount) {
  if (!std::isfinite(log_amount)) return;
  if (const double amount = std::exp(log_amount); amount > 0 && std::isfinite(amount)) return add_error(part, amount);
  for (ErrorTerm& t : budget)
    if (t.part == part) {
      t.log_amount = log_add(t.log_amount, log_amount);
      return;
    }
  budget.push_back({part, 0.0, log_amount});
}

void Estimate::add_widening(ErrorPart part, double width_before) {
  const double width = upper - lower;
  if (width / 2 >= std::numeric_limits<double>::min() || !(log_upper() > -std::numeric_limits<double>::infinity()) || std::isinf(log_upper()))
    return add_error(part, (width - width_before) / 2);
  // Below the double range both widths are 0 as doubles: by logs, the half-width beyond what the budget holds (a hull
  // at e^-46257 had added nothing, and the parts fell 5 times short of the half-width).
  const double log_half = log_upper() + std::log1p(-std::exp(log_lower() - log_upper())) - std::log(2.0);
  double log_parts = -std::numeric_limits<double>::infinity();
  for (const ErrorTerm& t : budget) log_parts = log_add(log_parts, t.log_amount);
  if (log_half > log_parts) add_log_error(part, log_half + std::log1p(-std::exp(log_parts - log_half)));
}

std::optional<ErrorTerm> Estimate::dominant_error() const {
  std::optional<ErrorTerm> best;
  for (const ErrorTerm& t : budget)
    if (!best || t.log_amount > best->log_amount) best = t;
  return best;
}

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// The part of an interval's width that an engine's own error kind stands for.
std::optional<ErrorPart> base_part(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::exact: return ErrorPart::rounding;
    case ErrorKind::certified: return ErrorPart::enclosure;
    case ErrorKind::quadrature: return ErrorPart::quadrature;
    case ErrorKind::statistical: return ErrorPart::sampling;
    case ErrorKind::discretised: return std::nullopt;  // its two parts are added where it is assembled
  }
  return std::nullopt;
}
double safe_log(double x) { return x > 0 ? std::log(x) : -kInf; }
// The log of an end, rounded outwards: std::log is within one ulp, so one step outwards keeps the log interval around
// the truth the linear one holds (log 1 = 0 and log 0 = −inf are exact).
// One step towards `to` where x is rounded (finite and not 0: the logs of 1, 0 and ∞ are exact).
double step(double x, double to) { return std::isfinite(x) && x != 0 ? std::nextafter(x, to) : x; }
double log_down(double x) { return step(safe_log(x), -kInf); }
double log_up(double x) { return step(safe_log(x), kInf); }
// a + b rounded towards `to`: the sum's rounding error is exact (Knuth's two-sum), so the result moves one step only
// where the nearest double lies on the wrong side (a sum that absorbs a small term of the right sign stays as it is).
double add_towards(double a, double b, double to) {
  const double s = a + b;
  if (!std::isfinite(s)) return s;
  const double bb = s - a;
  const double err = (a - (s - bb)) + (b - bb);
  return (to > 0 ? err > 0 : err < 0) ? std::nextafter(s, to) : s;
}
// The linear ends of log ends, rounded outwards: exp is within one ulp, and one step outwards keeps the interval
// valid, also for subnormal values, where an ulp (4.9e-324) is far more than the relative error (exact values near
// 1e-320 occur in the far tails).
double exp_down(double log_x) { return log_x == -kInf ? 0.0 : std::nextafter(std::exp(log_x), 0.0); }
double exp_up(double log_x) {
  if (log_x == -kInf) return 0.0;  // exactly zero
  if (log_x == kInf) return kInf;
  return std::nextafter(std::exp(log_x), kInf);
}
void check_not_nan(std::initializer_list<double> xs, const std::string& method) {
  for (double x : xs)
    if (std::isnan(x)) throw NumericalError("internal: an engine produced NaN (" + method + ")");
}
}  // namespace

double Estimate::paired(double end, const LogEnd& stored, int outwards) {
  if (std::isnan(end)) return end;
  if (end == stored.of) return stored.log;
  return outwards < 0 ? log_down(end) : outwards > 0 ? log_up(end) : safe_log(end);
}

Estimate Estimate::from_value(double value, double abs_error, ErrorKind kind, std::string method, double floor) {
  check_not_nan({value, abs_error}, method);
  Estimate e;
  e.value = std::max(value, floor);
  e.lower = std::max(value - abs_error, floor);
  e.upper = std::max(value + abs_error, e.value);
  e.error_kind = kind;
  e.method = std::move(method);
  if (const auto part = base_part(kind)) e.add_error(*part, abs_error);
  return e;
}

Estimate Estimate::from_interval(double lower, double upper, ErrorKind kind, std::string method) {
  if (std::isnan(lower) || std::isnan(upper) || lower > upper)
    throw NumericalError(fmt::format("internal: an invalid interval [{}, {}] ({})", lower, upper, method));
  Estimate e = from_value(std::isfinite(upper) ? lower + (upper - lower) / 2 : lower, 0, kind, std::move(method), -kInf);
  e.lower = lower;
  e.upper = upper;
  if (const auto part = base_part(kind)) e.add_error(*part, (upper - lower) / 2);
  return e;
}

Estimate Estimate::from_sample_mean(double mean, double sd, long n, double level, std::string method) {
  if (!(n >= 2) || !(level > 0 && level < 1))
    invalid_input("from_sample_mean: n = {} (allowed >= 2), level = {} (allowed (0, 1))", n, level);
  const double half = gsl_cdf_ugaussian_Pinv(0.5 + level / 2) * sd / std::sqrt(static_cast<double>(n));
  Estimate e = from_interval(mean - half, mean + half, ErrorKind::statistical, std::move(method));
  e.value = mean;
  e.level = level;
  e.work = n;
  return e;
}

Estimate Estimate::from_log_bounds(double log_value, double log_lower, double log_upper, ErrorKind kind, std::string method) {
  check_not_nan({log_value, log_lower, log_upper}, method);
  if (log_lower > log_upper)
    throw NumericalError(fmt::format("internal: an invalid log interval [{}, {}] ({})", log_lower, log_upper, method));
  Estimate e;
  e.error_kind = kind;
  e.method = std::move(method);
  e.set_log_ends(log_lower, log_upper);
  e.set_log_value(log_value);
  if (const auto part = base_part(kind)) {
    // The half-width; by its log where it underflows with the ends: log((u − l)/2) = log u + log1p(−l/u) − log 2.
    if (const double half = (e.upper - e.lower) / 2; half >= std::numeric_limits<double>::min()) e.add_error(*part, half);
    else e.add_log_error(*part, e.log_upper() + std::log1p(-std::exp(e.log_lower() - e.log_upper())) - std::log(2.0));
  }
  return e;
}

Estimate Estimate::from_log(double log_value, double rel_error, ErrorKind kind, std::string method) {
  check_not_nan({log_value, rel_error}, method);
  const double log_lower = rel_error < 1 ? log_value + std::log1p(-rel_error) : -kInf;
  return from_log_bounds(log_value, log_lower, log_value + std::log1p(rel_error), kind, std::move(method));
}

Estimate Estimate::from_log_interval(double log_value, double log_error, ErrorKind kind, std::string method) {
  check_not_nan({log_value, log_error}, method);
  return from_log_bounds(log_value, log_value - log_error, log_value + log_error, kind, std::move(method));
}

Estimate Estimate::infinite(std::string method) {
  Estimate e;
  e.value = e.lower = e.upper = kInf;
  e.method = std::move(method);
  return e;
}

std::string error_kind_label(const Estimate& e) { return std::isnan(e.value) ? "none" : to_string(e.error_kind); }

Estimate Estimate::unknown(std::string why) {
  Estimate e;
  e.value = e.lower = e.upper = std::numeric_limits<double>::quiet_NaN();
  e.method = std::move(why);
  return e;
}

void Estimate::restore_logs(double log_v, double log_lo, double log_hi) {
  log_value_ = {log_v, value};
  log_lower_ = {log_lo, lower};
  log_upper_ = {log_hi, upper};
}

void Estimate::set_log_ends(double log_lower, double log_upper) {
  lower = exp_down(log_lower);
  upper = exp_up(log_upper);
  log_lower_ = {log_lower, lower};
  log_upper_ = {log_upper, upper};
}

void Estimate::keep_value_inside() {
  if (!(lower <= upper)) return;
  const double log_v = log_value();
  if (value < lower || value > upper) value = std::clamp(value, lower, upper);
  const double log_lo = log_lower(), log_hi = log_upper();
  log_value_ = {log_lo <= log_hi ? std::clamp(log_v, log_lo, log_hi) : safe_log(value), value};
}

// An end set to the value it holds keeps the wider of its log and the log of that value: a lower end written as 0
// over a log of −800 widens to −inf (the caller meant "at least 0"), an upper end of 0 keeps its −800 (as wide).
void Estimate::set_lower(double x) {
  const double log_x = x == lower ? std::min(log_lower(), log_down(x)) : log_down(x);
  lower = x;
  log_lower_ = {log_x, x};
  keep_value_inside();
}

void Estimate::set_upper(double x) {
  const double log_x = x == upper ? std::max(log_upper(), log_up(x)) : log_up(x);
  upper = x;
  log_upper_ = {log_x, x};
  keep_value_inside();
}

void Estimate::scale(double factor, double rel) {
  const double log_factor = std::log(factor);
  // The logs of the factors (within one ulp) and the sums rounded outwards.
  const double log_v = log_value() + log_factor,
               log_lo = add_towards(add_towards(log_lower(), step(log_factor, -kInf), -kInf), step(std::log1p(-std::min(rel, 0.5)), -kInf), -kInf),
               log_hi = add_towards(add_towards(log_upper(), step(log_factor, kInf), kInf), step(std::log1p(rel), kInf), kInf);
  // The products rounded outwards (a zero is exact); a number below the normal range (0 included, where its log is
  // finite) has too few digits to be scaled up, so it comes from its log.
  constexpr double kTiny = std::numeric_limits<double>::min();
  auto from_log = [](double x, double log_x) { return std::fabs(x) < kTiny && std::isfinite(log_x); };
  const double lo = lower * factor * (1 - rel), hi = upper * factor * (1 + rel);
  const double v = from_log(value, log_v) ? std::exp(log_v) : value * factor;
  set_ends(from_log(lower, log_lo) ? exp_down(log_lo) : lo == 0 ? lo : std::nextafter(lo, -kInf), log_lo,
           from_log(upper, log_hi) ? exp_up(log_hi) : hi == 0 ? hi : std::nextafter(hi, kInf), log_hi);
  value = std::clamp(v, lower, upper);
  log_value_ = {std::clamp(log_v, log_lo, log_hi), value};
  // The budget scales with the interval (in log space where the product leaves the normal range); the factor's own
  // relative error is rounding.
  for (ErrorTerm& t : budget) {
    t.log_amount += log_factor;
    const double a = t.amount > 0 ? t.amount * factor : std::exp(t.log_amount);
    t.amount = a >= kTiny && std::isfinite(a) ? a : 0;
  }
  std::erase_if(budget, [](const ErrorTerm& t) { return !std::isfinite(t.log_amount); });
  if (rel > 0) add_log_error(ErrorPart::rounding, std::log(rel) + log_v);
}

void Estimate::set_ends(double lo, double log_lo, double hi, double log_hi) {
  lower = lo, upper = hi;
  log_lower_ = {log_lo, lo};
  log_upper_ = {log_hi, hi};
  keep_value_inside();
}

void Estimate::max_with(const Estimate& other) {
  set_ends(std::max(lower, other.lower), std::max(log_lower(), other.log_lower()), std::max(upper, other.upper),
           std::max(log_upper(), other.log_upper()));
}

Estimate Estimate::span(const Estimate& low, const Estimate& high) {
  Estimate e = low;
  e.upper = high.upper;
  e.log_upper_ = {high.log_upper(), high.upper};
  e.keep_value_inside();
  return e;
}

void Estimate::set_log_lower(double log_x) {
  lower = exp_down(log_x);
  log_lower_ = {log_x, lower};
  keep_value_inside();
}

void Estimate::set_log_upper(double log_x) {
  upper = exp_up(log_x);
  log_upper_ = {log_x, upper};
  keep_value_inside();
}

void Estimate::clip(double floor, double ceiling) {
  if (lower < floor) set_lower(floor);
  if (upper > ceiling) set_upper(ceiling);
  if (upper < floor) set_upper(floor);
  if (lower > ceiling) set_lower(ceiling);
}

void Estimate::hull(const Estimate& other) {
  const double log_lo = std::min(log_lower(), other.log_lower()), log_hi = std::max(log_upper(), other.log_upper());
  lower = std::min(lower, other.lower);
  upper = std::max(upper, other.upper);
  log_lower_ = {log_lo, lower};
  log_upper_ = {log_hi, upper};
  keep_value_inside();
}

bool Estimate::intersect(const Estimate& other) {
  const double lo = std::max(lower, other.lower), hi = std::min(upper, other.upper);
  const double log_lo = std::max(log_lower(), other.log_lower()), log_hi = std::min(log_upper(), other.log_upper());
  if (!(lo <= hi) || !(log_lo <= log_hi)) return false;
  lower = lo, upper = hi;
  log_lower_ = {log_lo, lower};
  log_upper_ = {log_hi, upper};
  keep_value_inside();
  return true;
}

void Estimate::set_value(double v) {
  value = lower <= upper ? std::clamp(v, lower, upper) : v;
  log_value_ = {};
  keep_value_inside();  // (a value that underflows to 0 keeps a log inside the log interval)
}

void Estimate::set_log_value(double log_v) {
  const double log_lo = log_lower(), log_hi = log_upper();
  const double clamped = log_lo <= log_hi ? std::clamp(log_v, log_lo, log_hi) : log_v;
  value = lower <= upper ? std::clamp(std::exp(clamped), lower, upper) : std::exp(clamped);
  log_value_ = {clamped, value};
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
  return {Kind::hockey_stick, eps + 0.0};  // −0 is 0 (its label read hockey_stick(-0))
}

namespace {

// x to `digits` significant digits, rounded towards `direction` (0: nearest): the nearest decimal, moved one unit in
// its last place where it lies on the wrong side of x.
std::string directed_text(double x, int direction, int digits) {
  std::string s = fmt::format("{:.{}g}", x, digits);
  if (direction == 0 || !std::isfinite(x) || x == 0) return s;
  const double back = std::strtod(s.c_str(), nullptr);
  if (direction < 0 ? back <= x : back >= x) return s;
  const double unit = std::pow(10.0, std::floor(std::log10(std::fabs(back))) - (digits - 1));
  return fmt::format("{:.{}g}", back + direction * unit, digits);
}

}  // namespace

std::string number_text(double value, double log_value, int direction, int digits) {
  const bool beyond = std::isfinite(log_value) && (std::isinf(value) || log_value < -708 || log_value > 709.78);
  if (beyond) return fmt::format("exp({})", directed_text(log_value, direction, digits - 2));
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return directed_text(value, direction, digits);
}

bool bounded_above_only(const Estimate& e) {
  if (!(e.log_upper() > -kInf)) return false;
  if (e.value == 0 && e.log_value() == -kInf) return true;
  const bool rigorous = e.error_kind == ErrorKind::certified || e.error_kind == ErrorKind::exact;
  return rigorous && e.log_lower() == -kInf;
}

// (a value below the double range, 0 as a double with a finite log, is shown by its log alone: "value": 0 beside
// "log_value": -26761 read as zero to whoever reads the value)
double shown_value(const Estimate& e) {
  const bool underflow = e.value == 0 && std::isfinite(e.log_value());
  return bounded_above_only(e) || underflow ? std::numeric_limits<double>::quiet_NaN() : e.value;
}
double shown_log_value(const Estimate& e) { return bounded_above_only(e) ? std::numeric_limits<double>::quiet_NaN() : e.log_value(); }

std::string value_text(const Estimate& e) {
  if (bounded_above_only(e)) return "< " + number_text(e.upper, e.log_upper(), 1);
  return number_text(e.value, e.log_value());
}

std::string interval_text(const Estimate& e, int digits) {
  return fmt::format("[{}, {}]", number_text(e.lower, e.log_lower(), -1, digits), number_text(e.upper, e.log_upper(), 1, digits));
}

}  // namespace privamp::verify
