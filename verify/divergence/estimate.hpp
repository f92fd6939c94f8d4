// Results of the divergence engines. Every number carries an interval that contains the truth (with
// probability `level` for Monte Carlo), the kind of error behind it and the method that produced it.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "sim/syntax/divergence_kind.hpp"

namespace privamp::verify {

enum class ErrorKind {
  exact,       // closed form or finite sum: the interval covers floating-point rounding only
  certified,   // a rigorous enclosure computed in ball arithmetic (verify/divergence/certified.hpp)
  quadrature,  // a-posteriori error bound of a numerical method (quadrature, root finding, sup search)
  statistical,  // confidence interval of a Monte Carlo estimate at the stated level
  discretised   // a-posteriori error of the engine + the discretisation error of a law computed on a grid
                // (several resolutions, observed order checked, Richardson extrapolation with a safety factor)
};

std::string to_string(ErrorKind kind);

struct Estimate {
  double value = 0;
  double lower = 0;  // interval [lower, upper] containing the truth
  double upper = 0;
  // Natural logs of value, lower and upper (−inf for 0). Hockey-stick values below 1e-308 underflow in
  // `value` but stay exact here: a positive truth is never reported as a silent 0.
  double log_value = -std::numeric_limits<double>::infinity();
  double log_lower = -std::numeric_limits<double>::infinity();
  double log_upper = -std::numeric_limits<double>::infinity();
  ErrorKind error_kind = ErrorKind::exact;
  double level = 1;  // confidence level of the interval (1 for deterministic methods)
  std::string method;
  long work = 0;     // integrand evaluations, terms or samples
  // The two parts of a discretised estimate's error bar (ErrorKind::discretised): the engine's own and the
  // discretisation's. Zero otherwise.
  double numerical_error = 0;
  double discretisation_error = 0;
  double seconds = 0;

  // From a value and an absolute error bar; `floor` clips the interval from below (divergences are ≥ 0).
  static Estimate from_value(double value, double abs_error, ErrorKind kind, std::string method, double floor = 0);
  // From a log-value and a relative error bar (for quantities that may underflow).
  static Estimate from_log(double log_value, double rel_error, ErrorKind kind, std::string method);
  // log value ± an absolute error of the log (for values far below the double range, where a relative error of the
  // value is not a double).
  static Estimate from_log_interval(double log_value, double log_error, ErrorKind kind, std::string method);
  // From an interval known to contain the truth; the value is its midpoint.
  static Estimate from_interval(double lower, double upper, ErrorKind kind, std::string method);
  // The mean of n independent samples with sample standard deviation sd: a CLT interval at `level`.
  static Estimate from_sample_mean(double mean, double sd, long n, double level, std::string method);
  static Estimate infinite(std::string method);  // +inf, exactly (e.g. μ not absolutely continuous w.r.t. ν)
  // No value (NaN throughout, written as empty fields): a report row whose exact value could not be computed;
  // `why` says what failed. Never the result of an engine.
  static Estimate unknown(std::string why);

  // Moves the point value inside the interval (clamped to it), keeping log_value in step.
  void set_value(double v);
  double abs_error() const { return std::max(upper - value, value - lower); }
  bool contains(double x) const { return lower <= x && x <= upper; }
};

// The error kind as outputs for users print it: "none" where the value was not computed (the record's error or
// method says why).
std::string error_kind_label(const Estimate& e);

// What can be computed between two laws.
struct Quantity {
  using Kind = sim::Divergence;  // one enum and one name table for the program (sim/syntax/divergence_kind.hpp)
  Kind kind;
  double parameter = 0;  // α for renyi, ε for hockey_stick
  std::string label() const;

  static Quantity renyi(double alpha);  // α > 1, finite
  static Quantity hockey_stick(double eps);  // ε ≥ 0
  static Quantity kl() { return {Kind::kl, 0}; }
  static Quantity renyi_inf() { return {Kind::renyi_inf, 0}; }
  static Quantity tv() { return {Kind::tv, 0}; }
  // The quantity of a kind at an order (alpha or eps; ignored by kl, tv, renyi_inf).
  static Quantity of(Kind kind, double order);
};

inline std::string quantity_name(Quantity::Kind kind) { return sim::divergence_name(kind); }
inline std::optional<Quantity::Kind> parse_quantity_kind(std::string_view name) { return sim::parse_divergence(name); }
inline constexpr const char* kQuantityNames = "renyi, renyi_inf, kl, tv or hockey_stick";

}  // namespace privamp::verify
