// Results of the divergence engines. Every number carries an interval that contains the truth (with
// probability `level` for Monte Carlo), the kind of error behind it and the method that produced it.
#pragma once

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
// How weak an interval kind is (exact 0, certified 1, a-posteriori 2, discretised 3, statistical 4): an interval
// combined from several is labelled by the weakest.
int weakness(ErrorKind kind);

// What an interval's width is made of: the contributions the engines add, each a named number. `method` says how
// an interval was obtained; the budget says how much each part weighs ("which term dominates this wide row?").
enum class ErrorPart {
  rounding,        // floating-point rounding of a closed form, a sum or an argument (outward)
  quadrature,      // the a-posteriori error of a numerical method (quadrature, root finding, supremum search)
  enclosure,       // the radius of a certified enclosure (ball arithmetic)
  sampling,        // a Monte Carlo confidence interval's half-width
  discretisation,  // a law computed on a grid: the error of the resolution (three resolutions, Richardson)
  lumping,         // outcomes lumped into one (a law with too many atoms)
  density,         // the error of numerically normalised densities (Law::log_density_error)
  loss,            // the error of the privacy loss of laws computed jointly (its rounding, or the joint grid's)
  reduction,       // a pair in R^d reduced to the line through its means (the distance's rounding)
};
inline constexpr ErrorPart kErrorParts[] = {ErrorPart::rounding, ErrorPart::quadrature, ErrorPart::enclosure,
                                            ErrorPart::sampling, ErrorPart::discretisation, ErrorPart::lumping,
                                            ErrorPart::density, ErrorPart::loss, ErrorPart::reduction};
std::string to_string(ErrorPart part);
std::optional<ErrorPart> parse_error_part(std::string_view name);
// A contribution: the half-width (in the value's units) a part added to the interval, and its natural log (kept
// beside it: the half-width of a value below the double range is 0 as a double, its log finite).
struct ErrorTerm {
  ErrorPart part;
  double amount;      // 0 where it underflows
  double log_amount;  // log(amount) where that is positive
  bool operator==(const ErrorTerm&) const = default;
};
// The contributions in the order they were first added, one per part (amounts of a part added up). They describe
// the interval as built: an interval intersected with another afterwards (a certified enclosure) may be narrower
// than their sum.
using ErrorBudget = std::vector<ErrorTerm>;
// "quadrature 1.2e-12, lumping 3.4e-09" (empty for none): the budget as one text cell; an amount below the double
// range as exp(its log), as the values are ("rounding exp(-26795.2)").
std::string budget_text(const ErrorBudget& budget);
// The log of each amount ("rounding -34.3, quadrature -26795.2"): the flat tables' cell of log_error_budget.
std::string log_budget_text(const ErrorBudget& budget);

// An interval [lower, upper] containing the truth, with its point value, in two representations kept in step by
// this type alone: the linear ends (public: reading is free) and their natural logs (private, read through
// log_value(), log_lower(), log_upper()). Hockey-stick values below 1e-308 underflow in the linear ends but stay
// exact in log space: a positive truth is never reported as a silent 0.
//
// The invariant: each log is paired with the linear end it was set with. Setting an end in log space (the log-space
// constructors, set_log_lower/upper, hull, intersect) stores its log beside the rounded-outwards linear end; writing a
// linear end directly (allowed for the point value only, see below) makes its log the log of what was written. So a
// log end can never describe an interval other than the linear one, whichever member last changed it.
// Library code outside estimate.cpp writes no end directly (tests/structure.py): set_lower/set_upper/clip/widen_*
// are the only ways to move an end, and each keeps the pair.
struct Estimate {
  double value = 0;
  double lower = 0;  // interval [lower, upper] containing the truth
  double upper = 0;
  ErrorKind error_kind = ErrorKind::exact;
  double level = 1;  // confidence level of the interval (1 for deterministic methods)
  std::string method;
  long work = 0;     // integrand evaluations, terms or samples
  // The two parts of a discretised estimate's error bar (ErrorKind::discretised): the engine's own and the
  // discretisation's. Zero otherwise.
  double numerical_error = 0;
  double discretisation_error = 0;
  double seconds = 0;
  ErrorBudget budget;  // the parts of the interval's width (see ErrorPart)

  // Adds `amount` (a half-width ≥ 0; nothing for 0, NaN or inf) to the budget's entry for `part`.
  void add_error(ErrorPart part, double amount);
  // The same by its log (nothing for −inf, NaN or +inf): a half-width below the double range is kept.
  void add_log_error(ErrorPart part, double log_amount);
  // Adds to `part` half of what the width grew since it was `width_before` (a widening step: call with the width
  // read before it).
  void add_widening(ErrorPart part, double width_before);
  // The part with the largest contribution (nullopt for an empty budget).
  std::optional<ErrorTerm> dominant_error() const;

  // Natural logs of value, lower and upper (−inf for 0, NaN where the end is NaN).
  double log_value() const { return paired(value, log_value_, 0); }
  double log_lower() const { return paired(lower, log_lower_, -1); }  // rounded outwards where derived
  double log_upper() const { return paired(upper, log_upper_, +1); }

  // From a value and an absolute error bar; `floor` clips the interval from below (divergences are ≥ 0).
  static Estimate from_value(double value, double abs_error, ErrorKind kind, std::string method, double floor = 0);
  // From a log-value and a relative error bar (for quantities that may underflow).
  static Estimate from_log(double log_value, double rel_error, ErrorKind kind, std::string method);
  // log value ± an absolute error of the log (for values far below the double range, where a relative error of the
  // value is not a double).
  static Estimate from_log_interval(double log_value, double log_error, ErrorKind kind, std::string method);
  // From log-space ends known to contain the truth (log_lower ≤ log_upper; −inf for an end at 0, +inf for an
  // unbounded upper end); the point value is log_value clamped into them.
  static Estimate from_log_bounds(double log_value, double log_lower, double log_upper, ErrorKind kind, std::string method);
  // From an interval known to contain the truth; the value is its midpoint.
  static Estimate from_interval(double lower, double upper, ErrorKind kind, std::string method);
  // The mean of n independent samples with sample standard deviation sd: a CLT interval at `level`.
  static Estimate from_sample_mean(double mean, double sd, long n, double level, std::string method);
  static Estimate infinite(std::string method);  // +inf, exactly (e.g. μ not absolutely continuous w.r.t. ν)
  // No value (NaN throughout, written as empty fields): a report row whose exact value could not be computed;
  // `why` says what failed. Never the result of an engine.
  static Estimate unknown(std::string why);
  // A record read back (results.json, golden rows): the logs as written, paired with the linear ends as they are.
  void restore_logs(double log_value, double log_lower, double log_upper);

  // Moving the ends. Each keeps its log in step; none lets the point value leave the interval.
  void set_lower(double lower);  // a linear end (its log is its log)
  void set_upper(double upper);
  void set_log_lower(double log_lower);  // a log end (the linear end is its exp, rounded outwards)
  void set_log_upper(double log_upper);
  // The interval clipped to [floor, ceiling] (a probability to [0, 1], a divergence to [0, ∞)); the logs of ends
  // inside both stay as they were.
  void clip(double floor, double ceiling);
  // low's lower end and high's upper end (both representations); the rest from low, its value moved inside.
  static Estimate span(const Estimate& low, const Estimate& high);
  // The estimate times a positive factor known to a relative error `rel` (both representations; the value and the
  // budget times the factor, `rel`'s share added as rounding).
  void scale(double factor, double rel);
  // An interval known in both representations (a ball's ends and the ends of its log, each rigorous).
  void set_ends(double lower, double log_lower, double upper, double log_upper);
  // The interval of max(this value, other's), each end the larger of the two ends (the value this one's, inside).
  void max_with(const Estimate& other);
  // Widening: the smallest interval containing this one and `other` (in both representations); the value stays.
  void hull(const Estimate& other);
  // Both intervals contain the truth: keep their common part (in both representations) and move the value into it.
  // Returns false, changing nothing, where they do not overlap (then one of them is wrong).
  bool intersect(const Estimate& other);
  // Moves the point value inside the interval (clamped to it); its log in step.
  void set_value(double v);
  // The point value from its log (clamped into the log interval; kept where exp underflows).
  void set_log_value(double log_value);
  double abs_error() const { return std::max(upper - value, value - lower); }
  bool contains(double x) const { return lower <= x && x <= upper; }

 private:
  // A log and the linear end it belongs to: valid while that end still holds `of` (NaN: never, so the log of the
  // end is used).
  struct LogEnd {
    double log = 0;
    double of = std::numeric_limits<double>::quiet_NaN();
  };
  static double paired(double end, const LogEnd& stored, int outwards);  // outwards: −1 down, +1 up, 0 nearest
  void set_log_ends(double log_lower, double log_upper);
  void keep_value_inside();
  LogEnd log_value_, log_lower_, log_upper_;
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

// A number as people read it, to `digits` significant digits rounded in a direction: 0 to the nearest, -1 down, +1 up
// (an interval's ends round outwards: [0.9999999999999999, 1] does not print as [1, 1], which would exclude its own
// lower end); as exp(x) where the value over- or underflows the double range (below 1e-308 it has lost digits, or is
// the smallest double standing for less), x its log rounded the same way to `digits` - 2 digits.
std::string number_text(double value, double log_value, int direction = 0, int digits = 12);
// Whether only the interval's upper end is known: the value 0 with a positive upper end (as far below the double
// range), or a certified or exact interval from 0, whose point carries no digits of its own (a ball's midpoint, or a
// double that lost its digits to cancellation: a KL of about 1e-200 came out 7.6e-24 in [0, 1.7e-19]). Such a value is
// shown as "< upper" in tables, and as null (NaN in Python) with bounded_above_only = true in structured outputs; a
// record (results.json, a golden row) keeps the engine's point, flagged, so that a run read back is the run.
bool bounded_above_only(const Estimate& e);
// The value and its log as outputs show them: NaN where the estimate is bounded above only; the value NaN also where
// it is below the double range (0 as a double, its log finite: the log carries it).
double shown_value(const Estimate& e);
double shown_log_value(const Estimate& e);
// The value as a table prints it: number_text, or "< upper" where it is bounded above only.
std::string value_text(const Estimate& e);
// "[lower, upper]", each end rounded outwards by number_text.
std::string interval_text(const Estimate& e, int digits = 12);

}  // namespace privamp::verify
