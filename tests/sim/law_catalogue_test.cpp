// A rig over every law of the catalogue (sim::law_catalogue()), so that a new law is tested the moment it is listed:
// its example builds and prints an expression that rebuilds the same law; its density integrates to its continuous
// mass and its atoms to the rest; its samples land where it has mass and follow its distribution function (19
// quantiles against the density's integral); its stated tail masses agree with that integral; its mean and variance
// (where it states them) agree with the quadrature and the samples; and each of its parameters refuses a bad value.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/language/expression.hpp"
#include "support/check.hpp"
#include "sim/random/rng.hpp"

using namespace privamp;
using namespace privamp::sim;

namespace {

// The top-level arguments of "name(a, b, key=c)": texts, split at commas outside brackets.
std::vector<std::string> arguments(const std::string& call) {
  const std::size_t open = call.find('('), close = call.rfind(')');
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = call[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(current);
      current.clear();
    } else if (!(current.empty() && c == ' ')) {
      current += c;
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

// The example with parameter `name` set to `value` (by name; a positional argument in its place is replaced).
std::string with_argument(const LawSpec& spec, const std::string& name, const std::string& value) {
  std::vector<std::string> args = arguments(spec.example);
  bool replaced = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::size_t eq = args[i].find('=');
    const bool named = eq != std::string::npos && args[i].find('(') > eq && args[i].find('[') > eq;
    const std::string key = named ? args[i].substr(0, eq) : i < spec.params.size() ? spec.params[i].name : "";
    if (key == name) {
      args[i] = name + "=" + value;
      replaced = true;
    } else if (!named) {
      args[i] = key + "=" + args[i];  // positional arguments by name, so that the order no longer matters
    }
  }
  if (!replaced) args.push_back(name + "=" + value);
  std::string out = spec.name + "(";
  for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
  return out + ")";
}

// ∫ exp(log p) over the support up to `upto` (all of it by default), split at the law's breakpoints (adaptive
// Gauss–Kronrod on each piece).
double integral(const Law& law, const std::function<double(double)>& weight, double upto = INFINITY) {
  const Interval s = law.support();
  const double hi = std::min(s.hi, upto);
  if (!(hi > s.lo)) return 0;
  std::vector<double> cuts{s.lo};
  for (double b : law.breakpoints())
    if (b > s.lo && b < hi) cuts.push_back(b);
  cuts.push_back(hi);
  std::sort(cuts.begin(), cuts.end());
  double total = 0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    if (!(cuts[i + 1] > cuts[i])) continue;
    auto f = [&](double x) {
      const double l = law.log_density(x);
      return l == -INFINITY ? 0.0 : weight(x) * std::exp(l);
    };
    total += boost::math::quadrature::gauss_kronrod<double, 31>::integrate(f, cuts[i], cuts[i + 1], 20, 1e-11);
  }
  return total;
}

}  // namespace

TEST_CASE("every law of the catalogue: example, normalisation, samples, mean, bad parameters", "[sim][laws]") {
  const auto& catalogue = law_catalogue();
  REQUIRE(catalogue.size() >= 25);
  for (const LawSpec& spec : catalogue) {
    INFO(spec.name << ": " << spec.example);
    LawPtr law;
    REQUIRE_NOTHROW(law = parse_law(spec.example));
    // The printed expression rebuilds the same law.
    LawPtr again;
    REQUIRE_NOTHROW(again = parse_law(law->expression()));
    CHECK(again->expression() == law->expression());
    // Each parameter refuses a bad value: an infinite number, a fractional integer, an unknown word, a number where
    // a law or a list is expected.
    for (const ParamSpec& p : spec.params) {
      std::string bad;
      switch (p.kind) {
        case ParamKind::number: bad = "exp(800)"; break;  // infinite: reaches the law (1e999 would not parse)
        case ParamKind::integer: bad = "2.5"; break;
        case ParamKind::word: bad = "no_such_word"; break;
        case ParamKind::law: bad = "1"; break;
        case ParamKind::laws: case ParamKind::numbers: case ParamKind::matrix: bad = "gaussian(0, 1)"; break;
        case ParamKind::formula: bad = "x +"; break;  // a syntax error
      }
      if (p.kind == ParamKind::word && p.words.empty()) continue;  // any word is allowed
      const std::string text = with_argument(spec, p.name, bad);
      INFO(text);
      CHECK_THROWS_AS(parse_law(text), InvalidArgument);
    }
    if (law->dimension() != 1) continue;  // the checks below are one-dimensional
    const double continuous = law->continuous_mass();
    double atoms = 0;
    for (const Atom& a : law->atoms()) atoms += std::exp(a.log_mass);
    CHECK(continuous + atoms == Approx(1).margin(1e-9));
    if (continuous > 0) CHECK(integral(*law, [](double) { return 1.0; }) == Approx(continuous).epsilon(1e-6).margin(1e-9));
    // Samples land where the law has mass.
    Rng rng(12345);
    std::vector<double> x(4000);
    law->sample(rng, x);
    long outside = 0;
    for (double v : x) {
      const bool atom = std::any_of(law->atoms().begin(), law->atoms().end(), [&](const Atom& a) { return a.x == v; });
      if (!atom && !(law->log_density(v) > -INFINITY)) ++outside;
    }
    CHECK(outside == 0);
    // The sampler against the law: the empirical distribution function at 19 of the samples' quantiles against
    // P(X <= t) from the density's integral and the atoms (within 6 binomial standard errors), so a sampler drawing
    // with the wrong scale or location is caught; where the law states its tail masses, they must agree with the
    // same integral and add up to 1 (a swapped or mis-scaled tail is caught).
    {
      std::vector<double> sorted = x;
      std::sort(sorted.begin(), sorted.end());
      for (int j = 1; j < 20; ++j) {
        const double t = sorted[static_cast<std::size_t>(j * sorted.size() / 20)];
        double below = continuous > 0 ? integral(*law, [](double) { return 1.0; }, t) : 0.0;
        for (const Atom& a : law->atoms())
          if (a.x <= t) below += std::exp(a.log_mass);
        const double empirical = static_cast<double>(std::upper_bound(sorted.begin(), sorted.end(), t) - sorted.begin()) / sorted.size();
        INFO("t = " << t << ": P(X <= t) = " << below << ", empirical " << empirical);
        CHECK(std::fabs(empirical - below) <= 6 * std::sqrt(std::max(below * (1 - below), 1e-4) / sorted.size()) + 1e-6);
        double log_cdf = NAN, log_sf = NAN;
        try {
          log_cdf = law->log_cdf(t);
          log_sf = law->log_sf(t);
        } catch (const InvalidArgument&) {
          continue;  // no closed-form tail masses
        }
        CHECK(std::exp(log_cdf) == Approx(below).epsilon(1e-6).margin(1e-8));
        CHECK(std::exp(log_cdf) + std::exp(log_sf) == Approx(1).epsilon(1e-9));
      }
    }
    // The stated variance against the samples' (within 6 standard errors of the sample variance).
    if (const auto variance = law->variance()) {
      const double mu = std::accumulate(x.begin(), x.end(), 0.0) / x.size();
      double m2 = 0, m4 = 0;
      for (double v : x) m2 += (v - mu) * (v - mu), m4 += std::pow(v - mu, 4);
      m2 /= x.size(), m4 /= x.size();
      CHECK(std::fabs(m2 - *variance) <= 6 * std::sqrt(std::max(m4 - m2 * m2, 0.0) / x.size()) + 1e-12);
    }
    // The stated mean: from the density and atoms, and from the samples (within 6 standard errors).
    if (const auto mean = law->mean()) {
      double m = continuous > 0 ? integral(*law, [](double v) { return v; }) : 0.0;
      for (const Atom& a : law->atoms()) m += a.x * std::exp(a.log_mass);
      CHECK(m == Approx(*mean).epsilon(1e-6).margin(1e-8));
      const double sample_mean = std::accumulate(x.begin(), x.end(), 0.0) / x.size();
      double ss = 0;
      for (double v : x) ss += (v - sample_mean) * (v - sample_mean);
      const double se = std::sqrt(ss / (x.size() - 1) / x.size());
      CHECK(std::fabs(sample_mean - *mean) <= 6 * se + 1e-12);
    }
  }
}

// Declared ranges (ParamSpec::range) are what a case file's load-time check sees at every grid point, where nothing
// is built: a value just outside either end is refused there with the range in the message, the value at the lower
// end (or just above an open one) is not, and every default lies inside. (That no range is stricter than its law is
// checked by every shipped case, example and figure loading as before.)
TEST_CASE("every declared parameter range is checked at load without building", "[sim][laws]") {
  int ranged = 0;
  for (const LawSpec& spec : law_catalogue())
    for (const ParamSpec& p : spec.params) {
      if (!p.range.bounded()) continue;
      REQUIRE((p.kind == ParamKind::number || p.kind == ParamKind::integer || p.kind == ParamKind::numbers ||
               p.kind == ParamKind::matrix));
      ++ranged;
      const Range& r = p.range;
      const bool integer = p.kind == ParamKind::integer, matrix = p.kind == ParamKind::matrix;
      // A matrix (a chain's kernel) is given as [[x, 0], [0, 1]]: its first entry checked, its other row valid.
      const auto text = [&](double x) {
        const std::string v = fmt::format("{}", x);
        return with_argument(spec, p.name, matrix ? "[[" + v + ", 0], [0, 1]]" : p.kind == ParamKind::numbers ? "[" + v + "]" : v);
      };
      const std::string refusal = fmt::format("parameter '{}' = ", p.name);
      std::vector<double> outside;
      if (std::isfinite(r.lo)) outside.push_back(r.lo_open ? r.lo : integer ? r.lo - 1 : std::nextafter(r.lo, -INFINITY));
      if (std::isfinite(r.hi)) outside.push_back(r.hi_open ? r.hi : integer ? r.hi + 1 : std::nextafter(r.hi, INFINITY));
      for (double x : outside) {
        INFO(text(x));
        CHECK_THROWS_WITH(check_law_syntax(text(x)),
                          Catch::Contains(refusal) && Catch::Contains("is out of range (allowed: " + r.text() + ")"));
      }
      if (std::isfinite(r.lo)) {
        const double inside = r.lo_open ? r.lo + std::max(1.0, std::fabs(r.lo)) * 1e-6 : r.lo;
        // A list that must sum to 1 (pmf p, mixture weights) is given as [x, 1 - x].
        const std::string written = !p.sums_to_one ? text(inside)
                                    : matrix      ? with_argument(spec, p.name, fmt::format("[[{}, {}], [0, 1]]", inside, 1 - inside))
                                                  : with_argument(spec, p.name, fmt::format("[{}, {}]", inside, 1 - inside));
        INFO(written);
        // Its own range's end is accepted; a tie to another parameter may then refuse it, naming the other and its
        // value (noisy_sgd at n = 1 with the example's i = 5: 'i' = 5 is out of range, 1 <= i <= n = 1; langevin at
        // hi = -100 with the default lo = -4: 'hi' = -100 is out of range, hi > lo = -4; double_well at lo = -10: 'x0' = 1
        // is not a grid node with lo = -10), never by its own range.
        const std::string own = test::error_of([&] { check_law_syntax(written); });
        static const std::regex tie(R"(\(allowed: [^)]*\b\w+ = )");
        CHECK((own == "(no error)" || (own.find("(allowed: " + r.text() + ")") == std::string::npos && std::regex_search(own, tie))));
        if (p.sums_to_one)
          CHECK_THROWS_WITH(check_law_syntax(text(inside)), Catch::Contains("parameter '" + p.name + "' is not normalised"));
      }
      if (p.default_value && p.default_value->find("...") == std::string::npos && p.kind != ParamKind::numbers && !matrix) {
        INFO(spec.name << "." << p.name << " default " << *p.default_value);
        CHECK(r.contains(Expression::parse(*p.default_value)->number({}).value));
      }
    }
  CHECK(ranged >= 50);
}

// The dimension a case file's load-time check compares (mu's against nu's, at every grid point) is known without
// building: it agrees with the built law's for every example and for compositions, and laws of different
// dimensions inside one law are refused there.
TEST_CASE("a law's dimension is known without building it and agrees with the built law", "[sim][laws]") {
  std::vector<std::string> texts;
  for (const LawSpec& spec : law_catalogue()) texts.push_back(spec.example);
  texts.insert(texts.end(), {"power(gaussian_nd(loc=[1, 0], sigma=1), 3)", "brownian_nd(x0=[1, 2, 3], t=1)",
                             "product(power(gaussian(1, 1), 2), gaussian_nd(loc=[1, 2, 3]))"});
  for (const std::string& text : texts) {
    INFO(text);
    const long checked = Expression::parse(text)->check_law({});
    CHECK(checked == parse_law(text)->dimension());
  }
  CHECK(Expression::parse("power(gaussian_nd(loc=[1, 0], sigma=1), 3)")->check_law({}) == 6);
  CHECK_THROWS_WITH(check_law_syntax("mix(q=0.5, gaussian_nd(loc=[1, 0]), gaussian(0, 1))"),
                    Catch::Contains("mix: its laws live in different dimensions (R^2 and R^1)"));
  CHECK_THROWS_WITH(Expression::parse("renyi(gaussian_nd(loc=[1, 0]), gaussian(0, 1), 2)")->number({}),
                    Catch::Contains("a divergence is computed only in formulas"));
}

// Orders between a law's parameters (its ties) are checked where nothing is built, as a case file's load does at
// every grid point: a crossed domain or a start outside it was an error row at run time. Both routes give the same
// message, and every law that declares ties has a crossing here.
TEST_CASE("a law's ties are refused at load, without building, with the message its builder gives", "[sim][laws][bad-input]") {
  const std::vector<std::pair<std::string, std::string>> crossings = {
      {"clamp(gaussian(0, 1), lo=2, hi=1)", "clamp: parameter 'hi' = 1 is out of range (allowed: hi > lo = 2)"},
      {"clamp(gaussian(0, 1), lo=1, hi=1)", "clamp: parameter 'hi' = 1 is out of range (allowed: hi > lo = 1)"},
      {"density(log_pdf=\"-x^2\", lo=1, hi=-1)", "density: parameter 'hi' = -1 is out of range (allowed: hi > lo = 1)"},
      {"density(log_pdf=\"-x^2\", lo=0, hi=1, loc=3)", "density: parameter 'loc' = 3 is out of range (allowed: loc <= hi = 1)"},
      {"projected_chain(x0=4, r=2)", "projected_chain: parameter 'x0' = 4 is out of range (allowed: x0 <= hi = 3)"},
      {"projected_chain(x0=0, lo=1, hi=0.5)", "projected_chain: parameter 'hi' = 0.5 is out of range (allowed: hi > lo = 1)"},
      {"double_well(x0=-5, t=1)", "double_well: parameter 'x0' = -5 is out of range (allowed: x0 >= lo = -4)"},
      {"langevin(potential=\"x^2\", x0=0, t=1, lo=2, hi=1)", "langevin: parameter 'hi' = 1 is out of range (allowed: hi > lo = 2)"},
      {"double_well(x0=0.013, t=1)", "double_well: parameter 'x0' = 0.013 is out of range (allowed: a grid node lo + k·spacing "
                                     "with lo = -4, spacing = 0.02 (hi - lo over cells = 400): the nearest are 0 and 0.02)"},
  };
  std::set<std::string> covered;
  for (const auto& [text, message] : crossings) {
    INFO(text);
    CHECK_THROWS_WITH(Expression::parse(text)->check_law({}), Catch::Contains(message));
    CHECK_THROWS_WITH(parse_law(text), Catch::Contains(message));
    covered.insert(text.substr(0, text.find('(')));
  }
  for (const LawSpec& spec : law_catalogue())
    if (!spec.ties.empty()) {
      INFO(spec.name << " declares ties");
      CHECK(covered.count(spec.name) == 1);
    }
  // A tie with a parameter left to its builder (density without lo) is not checked: the builder decides.
  CHECK_NOTHROW(Expression::parse("density(log_pdf=\"-x^2\", hi=1, loc=0.5)")->check_law({}));
}
