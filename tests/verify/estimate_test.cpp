// Estimate keeps its linear ends and their logs in step by itself (verify/divergence/estimate.hpp). A property test:
// random intervals across the double range and far below it, random operations on them, and after every operation
// the two representations agree and a truth known to lie inside stays inside both.
#include <catch2/catch.hpp>

#include <cmath>
#include <iomanip>
#include <limits>
#include <random>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include "verify/api/api.hpp"
#include "verify/divergence/estimate.hpp"
#include "verify/records/codec.hpp"

using privamp::verify::ErrorKind;
using privamp::verify::Estimate;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A linear end and its log describe the same number: within a few ulps where it is a normal double, within a few
// subnormal steps below (exp of the log underflows exactly as the end does).
bool agree(double end, double log_end) {
  if (std::isnan(end) || std::isnan(log_end)) return std::isnan(end) && std::isnan(log_end);
  // (an end past the double range: +inf, its log exact)
  if (end == kInfinity || log_end == kInfinity) return end == kInfinity && log_end > std::log(std::numeric_limits<double>::max());
  if (log_end == -kInfinity) return end == 0;
  const double from_log = std::exp(log_end);
  // (A log carries an absolute rounding of the largest logs added into it: a factor e^30 added to a log of 0.4 leaves
  // it ulp(30) off, 16 ulps of the value; at 1e-300, |log| = 690 ulps. A log out of step, as a missed update, is
  // off by far more: an end moved by an error bar, or a relative 1e-9 of the log.)
  return std::fabs(from_log - end) <= 1e-12 * (1 + std::fabs(log_end) / 100) * std::max(from_log, end) +
                                          2 * std::numeric_limits<double>::denorm_min();
}

void check_invariants(const Estimate& e) {
  INFO(std::setprecision(17) << "value " << e.value << " in [" << e.lower << ", " << e.upper << "], logs " << e.log_value() << " in ["
                << e.log_lower() << ", " << e.log_upper() << "]");
  REQUIRE(agree(e.lower, e.log_lower()));
  REQUIRE(agree(e.upper, e.log_upper()));
  REQUIRE(agree(e.value, e.log_value()));
  REQUIRE(e.lower <= e.value);
  REQUIRE(e.value <= e.upper);
  REQUIRE(e.log_lower() <= e.log_value());
  REQUIRE(e.log_value() <= e.log_upper());
  // An upper end of 0 is an exact zero in both representations.
  if (e.upper == 0) REQUIRE(e.log_upper() == -kInfinity);
}

// The truth (given by its log) lies inside the interval in both representations.
void check_contains(const Estimate& e, double log_truth) {
  INFO("log truth " << log_truth << " in [" << e.log_lower() << ", " << e.log_upper() << "], linear [" << e.lower << ", "
                    << e.upper << "]");
  REQUIRE(e.log_lower() <= log_truth);
  REQUIRE(log_truth <= e.log_upper());
  // (the truth's linear value is exp of its log, as exact as that log: the slack of agree() in linear terms; none in
  // log terms)
  const double truth = std::exp(log_truth);
  const double slack = 1e-12 * (1 + std::fabs(log_truth) / 100) * truth + 2 * std::numeric_limits<double>::denorm_min();
  if (truth == kInfinity) {  // past the double range: only the upper end can say so
    REQUIRE(e.upper == kInfinity);
    return;
  }
  REQUIRE(e.lower <= truth + slack);
  REQUIRE(truth - slack <= e.upper);
}

struct Draw {
  std::mt19937_64 rng{20261129};
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  // A log across the double range and far below it (hockey-stick tails reach e^-10^4 and beyond).
  double log_point() {
    switch (pick(4)) {
      case 0: return uniform(-5, 5);
      case 1: return uniform(-760, -700);  // normal, subnormal and below the last subnormal
      case 2: return uniform(-1e4, -745);
      default: return uniform(-700, 700);
    }
  }
  // An estimate whose interval holds exp(log_truth).
  Estimate around(double log_truth) {
    const double below = uniform(0, 3), above = uniform(0, 3);
    switch (pick(4)) {
      case 0: return Estimate::from_log_bounds(log_truth + uniform(-below, above), log_truth - below, log_truth + above,
                                               ErrorKind::exact, "log bounds");
      case 1: return Estimate::from_log_interval(log_truth, std::max(below, above), ErrorKind::exact, "log interval");
      case 2: return Estimate::from_log(log_truth, uniform(0, 0.9), ErrorKind::exact, "log");
      default: {
        const double t = std::exp(log_truth);
        return Estimate::from_interval(t * std::exp(-below), t * std::exp(above) + 1e-300, ErrorKind::exact, "linear");
      }
    }
  }
};

}  // namespace

TEST_CASE("an estimate keeps its linear ends and their logs in step through every operation", "[verify][estimate]") {
  Draw draw;
  int operations = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    double log_truth = draw.log_point();
    Estimate e = draw.around(log_truth);
    // (a linear draw of a subnormal truth may round past it)
    if (e.lower > std::exp(log_truth) || std::exp(log_truth) > e.upper || e.log_lower() > log_truth || log_truth > e.log_upper()) continue;
    check_invariants(e);
    check_contains(e, log_truth);
    for (int step = 0; step < 12; ++step, ++operations) {
      const int op = draw.pick(11);
      INFO("trial " << trial << " step " << step << " operation " << op);
      switch (op) {
        case 0: e.hull(draw.around(log_truth)); break;
        case 1: {
          const Estimate other = draw.around(log_truth);
          if (!(other.lower <= std::exp(log_truth) && std::exp(log_truth) <= other.upper && other.log_lower() <= log_truth &&
                log_truth <= other.log_upper()))
            break;
          REQUIRE(e.intersect(other));  // both hold the truth: they overlap
          break;
        }
        case 2: {  // widening a lower end by a linear amount (an engine adding an error bar)
          const double lowered = std::max(0.0, e.lower - draw.uniform(0, 1) * e.lower);
          e.set_lower(draw.pick(2) ? lowered : 0.0);
          break;
        }
        case 3: e.set_upper(e.upper + draw.uniform(0, 1) * e.upper); break;
        case 4: e.set_log_lower(e.log_lower() - draw.uniform(0, 50)); break;
        case 5: e.set_log_upper(e.log_upper() + draw.uniform(0, 50)); break;
        case 6: {  // a positive factor known exactly: the truth moves with it
          const double log_factor = draw.uniform(-30, 30);
          e.scale(std::exp(log_factor), 0);
          log_truth += std::log(std::exp(log_factor));
          break;
        }
        case 7: e.clip(0, std::max(1.0, std::exp(log_truth + 1e-12 * (1 + std::fabs(log_truth))))); break;  // above the truth
        case 8: e.set_value(draw.uniform(e.lower, std::isfinite(e.upper) ? e.upper : e.lower + 1)); break;
        case 9: {
          const double a = std::max(e.log_lower(), -2e4), b = std::min(e.log_upper(), 800.0);
          if (a <= b) e.set_log_value(draw.uniform(a, b));
          break;
        }
        default: {  // the maximum of this quantity and a smaller one: the truth stays the max
          e.max_with(draw.around(log_truth - draw.uniform(1, 5)));
          break;
        }
      }
      check_invariants(e);
      check_contains(e, log_truth);
    }
  }
  CHECK(operations > 20000);
}

TEST_CASE("setting an end to the value it holds never narrows its log", "[verify][estimate]") {
  // A value far below the double range: both linear ends are 0 and 4.9e-324, the logs hold the truth.
  Estimate e = Estimate::from_log_interval(-800, 1, ErrorKind::exact, "far tail");
  REQUIRE(e.lower == 0);
  REQUIRE(e.log_lower() == -801);
  e.set_lower(0);  // "at least 0": the log widens to -inf, it does not keep -801
  CHECK(e.log_lower() == -kInfinity);
  e.clip(0, 1);  // a clip that changes nothing keeps the logs
  CHECK(e.log_upper() == -799);
  // An upper end "raised" to the double it holds (a bar below half its ulp added) widens to that double's log: the
  // old log no longer bounds the widened end.
  Estimate g = Estimate::from_log_interval(-690, 1e-12, ErrorKind::exact, "near the end of the normal range");
  const double stored = g.log_upper();
  const double upper = g.upper;
  g.set_upper(g.upper + 1e-320);
  REQUIRE(g.upper == upper);
  CHECK(g.log_upper() == std::max(stored, std::nextafter(std::log(upper), kInfinity)));  // the log rounded up
  // A direct write of a linear end (allowed for the value) is read back with its own log.
  Estimate f = Estimate::from_log_interval(-900, 1, ErrorKind::exact, "far tail");
  f.value = 0.5;
  CHECK(f.log_value() == std::log(0.5));
}

TEST_CASE("logs derived from linear ends are rounded outwards: they hold the log of the truth", "[verify][estimate]") {
  // An interval of one double [x, x] (a closed form's value): log_lower() <= log x <= log_upper() for the exact log,
  // computed at 50 digits. std::log rounds to nearest, below the true log for about half the x (Laplace's KL at
  // Δ = 1e-8 read log ends -37.53450867179801 both, above the true -37.5345086717980096).
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> exponent(-700, 700);
  int above = 0;
  for (int i = 0; i < 20000; ++i) {
    const double x = std::exp(exponent(rng));
    const Estimate e = Estimate::from_interval(x, x, ErrorKind::exact, "one double");
    const boost::multiprecision::cpp_bin_float_50 truth = log(boost::multiprecision::cpp_bin_float_50(x));
    INFO(std::setprecision(17) << "x = " << x);
    REQUIRE(boost::multiprecision::cpp_bin_float_50(e.log_lower()) <= truth);
    REQUIRE(truth <= boost::multiprecision::cpp_bin_float_50(e.log_upper()));
    if (boost::multiprecision::cpp_bin_float_50(std::log(x)) > truth) ++above;
  }
  CHECK(above > 1000);  // the rounded log alone would have failed
  const Estimate one = Estimate::from_interval(1, 1, ErrorKind::exact, "one");  // exact logs stay exact
  CHECK(one.log_lower() == 0);
  CHECK(one.log_upper() == 0);
}

TEST_CASE("intersecting estimates that do not overlap changes nothing and says so", "[verify][estimate]") {
  Estimate a = Estimate::from_interval(0.1, 0.2, ErrorKind::exact, "a");
  const Estimate b = Estimate::from_interval(0.3, 0.4, ErrorKind::certified, "b");
  CHECK_FALSE(a.intersect(b));
  CHECK(a.lower == 0.1);
  CHECK(a.upper == 0.2);
  // Overlapping in linear terms but apart in log space (two ends below the double range): refused as well.
  Estimate c = Estimate::from_log_interval(-900, 1, ErrorKind::exact, "c");
  const Estimate d = Estimate::from_log_interval(-800, 1, ErrorKind::exact, "d");
  CHECK(c.lower <= d.upper);
  CHECK_FALSE(c.intersect(d));
  CHECK(c.log_upper() == -899);
}

TEST_CASE("a rigorous interval from 0 prints its value as '< upper', an estimate its point", "[verify][estimate][text]") {
  using privamp::verify::value_text;
  const double inf = std::numeric_limits<double>::infinity();
  // A certified KL of about 1e-200 whose ball's midpoint read 7.6e-24: only the upper end means anything.
  const Estimate from_zero = Estimate::from_log_bounds(std::log(7.62e-24), -inf, std::log(1.70205612325e-19), ErrorKind::certified, "");
  CHECK(value_text(from_zero) == "< 1.70205612325e-19");
  CHECK(value_text(Estimate::from_log_bounds(std::log(1e-30), -inf, std::log(1e-20), ErrorKind::exact, "")) == "< 1e-20");
  // An estimate's point is its estimate, printed; so is a rigorous interval's away from 0.
  CHECK(value_text(Estimate::from_log_bounds(std::log(0.1), -inf, std::log(0.3), ErrorKind::statistical, "")) == "0.1");
  CHECK(value_text(Estimate::from_log_bounds(std::log(0.1), -inf, std::log(0.3), ErrorKind::quadrature, "")) == "0.1");
  CHECK(value_text(Estimate::from_log_bounds(std::log(2e-20), std::log(1e-20), std::log(1e-19), ErrorKind::certified, "")) == "2e-20");
  // A point 0 of a rigorous [0, 0] is 0.
  CHECK(value_text(Estimate::from_interval(0, 0, ErrorKind::exact, "")) == "0");
}

TEST_CASE("an estimate bounded above only shows no point in structured outputs, its record keeps it, zero is +0",
          "[verify][estimate][records]") {
  using privamp::verify::bounded_above_only;
  const double inf = std::numeric_limits<double>::infinity();
  // The cases value_text prints as "< upper" and no other.
  const Estimate from_zero = Estimate::from_log_bounds(std::log(7.62e-24), -inf, std::log(1.70205612325e-19), ErrorKind::certified, "");
  Estimate point_zero = Estimate::from_interval(0, 1e-30, ErrorKind::quadrature, "");
  point_zero.value = 0;
  CHECK(bounded_above_only(from_zero));
  CHECK(bounded_above_only(point_zero));
  CHECK_FALSE(bounded_above_only(Estimate::from_log_bounds(std::log(0.1), -inf, std::log(0.3), ErrorKind::statistical, "")));
  CHECK_FALSE(bounded_above_only(Estimate::from_log_bounds(std::log(2e-20), std::log(1e-20), std::log(1e-19), ErrorKind::certified, "")));
  CHECK_FALSE(bounded_above_only(Estimate::from_interval(0, 0, ErrorKind::exact, "")));
  CHECK_FALSE(bounded_above_only(Estimate::unknown("not computed")));
  // The API's record (Python, --json, --format csv/jsonl): no value, no log value, the flag.
  const auto shown = privamp::verify::sorted_json(privamp::api::estimate_tree(from_zero));
  CHECK(shown["value"].is_null());
  CHECK(shown["log_value"].is_null());
  CHECK(shown["bounded_above_only"] == true);
  CHECK(shown["upper"] == from_zero.upper);
  CHECK(privamp::verify::sorted_json(privamp::api::estimate_tree(Estimate::from_value(0.25, 1e-9, ErrorKind::quadrature, "")))["bounded_above_only"] == false);
  // A record (results.json, a golden row) keeps the engine's point, flagged, and reads back to the same estimate.
  const nlohmann::json record = privamp::verify::to_json(from_zero);
  CHECK(record["value"] == from_zero.value);
  CHECK(record["bounded_above_only"] == true);
  const Estimate back = privamp::verify::estimate_from_json(record);
  CHECK(back.value == from_zero.value);
  CHECK(back.log_value() == from_zero.log_value());
  CHECK(back.upper == from_zero.upper);
  // A value below the double range shows its log only: no "value": 0 beside "log_value": -26761.
  const Estimate tiny = Estimate::from_log_bounds(-26761.07, -26761.08, std::log(5e-324), ErrorKind::exact, "");
  REQUIRE(tiny.value == 0);
  CHECK_FALSE(bounded_above_only(tiny));
  CHECK(std::isnan(privamp::verify::shown_value(tiny)));
  CHECK(privamp::verify::shown_log_value(tiny) == -26761.07);
  const auto tiny_shown = privamp::verify::sorted_json(privamp::api::estimate_tree(tiny));
  CHECK(tiny_shown["value"].is_null());
  CHECK(tiny_shown["log_value"] == -26761.07);
  // A −0 (an interval's end max(0, −0)) is written +0.
  CHECK_FALSE(std::signbit(privamp::verify::json_number(-0.0).get<double>()));
  CHECK(privamp::verify::sorted_json(privamp::verify::Tree(-0.0)).dump() == "0.0");
}

TEST_CASE("interval text rounds its ends outwards: the printed interval contains the computed one", "[verify][estimate][text]") {
  using privamp::verify::interval_text;
  using privamp::verify::number_text;
  // [0.9999999999999999, 1] printed to 12 digits must not read [1, 1], which leaves out its own lower end.
  const Estimate near_one = Estimate::from_interval(std::nextafter(1.0, 0.0), 1.0, ErrorKind::certified, "");
  CHECK(interval_text(near_one) == "[0.99999999999, 1]");
  CHECK(number_text(1 + 1e-15, 0, 1) == "1.00000000001");
  CHECK(number_text(1 + 1e-15, 0, 0) == "1");
  // Below the double range: the log, rounded the same way.
  CHECK(number_text(0, -782.33760676336261, -1) == "exp(-782.3376068)");
  CHECK(number_text(0, -782.33760676336261, 1) == "exp(-782.3376067)");
  // Random ends across the double range and far below it: parsed back, the printed lower end is at most the lower
  // end and the printed upper end at least the upper end (the logs likewise where they are printed).
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> exponent(-330, 300), mantissa(1, 10);
  const auto parse = [](const std::string& text, bool& is_log) {
    is_log = text.rfind("exp(", 0) == 0;
    return std::strtod(text.c_str() + (is_log ? 4 : 0), nullptr);
  };
  for (int i = 0; i < 20000; ++i) {
    const double a = mantissa(rng) * std::pow(10.0, exponent(rng)), b = a * (1 + std::ldexp(mantissa(rng), -static_cast<int>(rng() % 60)));
    const double log_a = std::log(mantissa(rng)) - 800 * (i % 7 == 0);  // some ends far below the double range
    const Estimate e = i % 7 == 0 ? Estimate::from_log_bounds(log_a, log_a, log_a + 1e-9, ErrorKind::certified, "")
                                  : Estimate::from_interval(a, b, ErrorKind::certified, "");
    const std::string text = interval_text(e);
    const auto comma = text.find(", ");
    bool lo_log = false, hi_log = false;
    const double lo = parse(text.substr(1, comma - 1), lo_log), hi = parse(text.substr(comma + 2), hi_log);
    INFO(text << " for [" << std::setprecision(17) << e.lower << ", " << e.upper << "] logs " << e.log_lower() << ", " << e.log_upper());
    CHECK((lo_log ? lo <= e.log_lower() : lo <= e.lower));
    CHECK((hi_log ? hi >= e.log_upper() : hi >= e.upper));
  }
}
