// Untrusted input: expression sizes and work, bounds declared per load, the gnuplot text escaping and key
// vocabulary, and the far-tail hockey-stick of shifted Gaussians (references: mpmath at 80 digits, computed once by
// log(ncdf(a) - exp(eps) ncdf(b)) with a = Delta/2sigma - eps sigma/Delta, b = -Delta/2sigma - eps sigma/Delta).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "numerics/errors.hpp"
#include "plots/gnuplot.hpp"
#include "sim/language/expression.hpp"
#include "verify/cases/case.hpp"
#include "verify/divergence/closed_form.hpp"

using namespace privamp;
using Catch::Matchers::Contains;

namespace {
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("expressions: long flat chains and deep trees are refused before any recursion", "[untrusted]") {
  std::string chain = "0";
  for (int i = 0; i < 10000; ++i) chain += "+0";
  CHECK_THAT(message_of([&] { verify::evaluate_formula(chain, {}); }), Contains("more than 256 levels deep"));
  CHECK_THAT(message_of([&] { sim::parse_law("gaussian(" + chain + ", 1)"); }), Contains("more than 256 levels deep"));
  // 200 terms are fine, and the message of a long text shows only the text around the column.
  std::string ok = "1";
  for (int i = 0; i < 200; ++i) ok += "+1";
  CHECK(verify::evaluate_formula(ok, {}) == 201);
  CHECK(message_of([&] { verify::evaluate_formula(chain, {}); }).size() < 600);
}

TEST_CASE("sum(): integer index, bounds up to 2^53, work estimated before it runs", "[untrusted]") {
  verify::Params p;
  p.numbers = {{"n", 1e5}};
  CHECK(verify::evaluate_formula("sum(k, 1, 3, k)", p) == 6);
  CHECK(verify::evaluate_formula("sum(k, 9007199254740990, 9007199254740992, 1)", p) == 3);
  CHECK_THAT(message_of([&] { verify::evaluate_formula("sum(k, 1e17, 1e17, 1)", p); }), Contains("at most 2^53"));
  CHECK_THAT(message_of([&] { verify::evaluate_formula("sum(k, 1, 1e6, sum(j, 1, 1e6, 1))", p); }), Contains("the limit is 2e+07"));
  // The estimate at load follows the grid: n terms of an inner sum of n terms.
  CHECK_NOTHROW(verify::check_formula_work("sum(k, 1, 1000, sum(j, 1, k, 1))", p));
  CHECK_THAT(message_of([&] { verify::check_formula_work("sum(k, 1, n, sum(j, 1, n, 1))", p); }), Contains("steps of work"));
  CHECK_THAT(message_of([&] { verify::check_formula_work("sum(k, 1, n, renyi(gaussian(1,1), gaussian(0,1), 2))", p); }),
             Contains("steps of work"));
  // Nested sums 40 deep: refused by the estimate alone, which stops at the first end that is over the limit (it
  // used to estimate both ends of every level: 2^40 estimates, a test that would not end).
  std::string deep = "1";
  for (int k = 0; k < 40; ++k) deep = fmt::format("sum(j{}, 1, 10, {})", k, deep);
  CHECK_THAT(message_of([&] { verify::check_formula_work(deep, p); }), Contains("steps of work"));
  // Nested sums 22 deep, 2 terms each, 1.7e7 steps in all (under the limit, so no level stops the estimate early):
  // a body that does not name its index is estimated once per level, not at both ends (2^22 estimates, 1 s).
  std::string two = "1";
  for (int k = 0; k < 22; ++k) two = fmt::format("sum(j{}, 1, 2, {})", k, two);
  CHECK(verify::check_formula_work(two, p) > 1.6e7);
  // Bounds that name the outer index force both ends at every level: the estimate itself is bounded (10^5 nodes)
  // and a formula past it is refused, saying so.
  std::string dependent = "1";
  for (int k = 0; k < 24; ++k) dependent = fmt::format("sum(j{}, 1, 1 + 0*j{}, {})", k, k + 1, dependent);
  dependent = fmt::format("sum(j24, 1, 2, {})", dependent);
  CHECK_THAT(message_of([&] { verify::check_formula_work(dependent, p); }), Contains("could not be estimated within 100,000 steps"));
  // Two bare words compared: a missing parameter, not a silent false.
  CHECK_THAT(message_of([&] { verify::evaluate_formula("randomizer == rr", p); }), Contains("neither 'randomizer' nor 'rr'"));
}

TEST_CASE("a load's declared bounds are its own: twice is refused, nothing is global", "[untrusted]") {
  const std::string a = "[[bound]]\nid = \"U.x\"\nquantity = \"renyi\"\nformula = \"1\"\n";
  CHECK_THAT(message_of([&] { verify::parse_cases(a + "\n" + a, "twice.toml"); }),
             Contains("twice.toml:6: key 'id': bound 'U.x' is declared twice: here and at twice.toml:1"));
  CHECK(verify::parse_cases(a, "one.toml").empty());
  CHECK_THROWS_AS(verify::find_bound("U.x"), InvalidArgument);
}

TEST_CASE("gnuplot text: quoted without substitution or line ends, the key from a vocabulary", "[untrusted]") {
  CHECK(plots::quoted("Bob's `touch x` @m") == "'Bob''s `touch x` @m'");
  CHECK(plots::quoted("t\nsystem \"x\"\r#") == "'t system \"x\" #'");
  CHECK(plots::parse_key_words("below nobox").render() == "below nobox noopaque Left reverse height 1");  // below the plot: never opaque (it would hide the x label), clear of it
  CHECK(plots::parse_key_words("top left box opaque").render() == "top left box opaque Left reverse");
  CHECK_THAT(message_of([] { plots::parse_key_words("below nobox; system 'touch x'"); }), Contains("'nobox;' is not a key word"));
  CHECK(plots::has_control_character("a\tb"));
  CHECK_FALSE(plots::has_control_character("αβ 'x'"));
}

// TOML nests a table per part of a dotted key, and toml++ recurses over them: 50,000 parts in a 100 KB file
// overflowed the stack (a segmentation fault in verify, list, figures, and Python's interpreter). Refused by line.
TEST_CASE("case files: dotted keys of thousands of parts are refused, not a stack overflow", "[untrusted]") {
  std::string dotted;
  for (int i = 0; i < 50000; ++i) dotted += i ? ".a" : "a";
  for (const std::string& text : {"\n" + dotted + " = 1\n", "\n[" + dotted + "]\n", "\nx = {" + dotted + " = 1}\n",
                                  "\n[case." + dotted + "]\n"})
    CHECK_THAT(message_of([&] { verify::parse_cases(text, "deep.toml"); }), Contains("deep.toml:2: a dotted key of more than 64 parts"));
  // What is not a key is not counted: dots in strings and comments, numbers and dates, and keys of 63 parts parse
  // (the loader then refuses the keys it does not know, after the TOML is read).
  std::string strings = "s = \"" + dotted + "\"\nt = '''" + dotted + "'''\n# " + dotted + "\n";
  std::string numbers = "v = [";
  for (int i = 0; i < 1000; ++i) numbers += "1.5, ";
  numbers += "2.5]\nd = 1979-05-27T07:32:00.999\n";
  std::string ok = "a";
  for (int i = 0; i < 62; ++i) ok += ".a";
  CHECK_THAT(message_of([&] { verify::parse_cases(strings + numbers + ok + " = 1\n", "fine.toml"); }), Contains("unknown top-level key"));
}

TEST_CASE("Gaussian hockey-stick far in the tail: log space, inside 80-digit references", "[untrusted]") {
  struct Ref {
    double delta, sigma, eps, log_value;
  };
  for (const Ref& r : {Ref{0.3, 2, 3000, -199998522.6258461454517213}, Ref{1, 1, 20000, -199990020.8509136451519288},
                       Ref{2, 0.5, 1e6, -31249500026.39107656575755}, Ref{1, 1, 1000, -499514.859451841160165648}}) {
    INFO(r.delta << " " << r.sigma << " " << r.eps);
    const verify::Estimate e = verify::gaussian_hockey_stick(r.delta, r.sigma, r.eps);
    CHECK(e.log_lower() <= r.log_value);
    CHECK(r.log_value <= e.log_upper());
    CHECK(e.log_upper() - e.log_lower() < 1e-6 * std::abs(r.log_value));
    CHECK(e.upper > 0);
  }
  // Δ/σ from 1e8 to 1e150 (one side of the level far right, the other far left): 1 to within the rounding; it was NaN
  // from about 1e51 (GSL's log_erfc) and [0, 1] from 1e-6 on (a's rounding counted as a² where a is far above 0).
  for (double ratio : {1e8, 1e30, 1e60, 1e100, 1e149})
    for (double eps : {0.5, 1.0, 30.0}) {
      INFO("delta/sigma = " << ratio << ", eps = " << eps);
      const verify::Estimate e = verify::gaussian_hockey_stick(1, 1 / ratio, eps);
      CHECK(e.lower > 1 - 1e-12);
      CHECK(e.upper <= 1 + 1e-12);
      CHECK(e.error_kind == verify::ErrorKind::exact);
    }
  // Beyond a^2 overflowing: an upper end only, never NaN and never a zero upper end.
  for (double eps : {1e70, 1e200, 1e300}) {
    const verify::Estimate e = verify::gaussian_hockey_stick(1, 1, eps);
    CHECK_FALSE(std::isnan(e.upper));
    CHECK(e.upper > 0);
    CHECK(e.log_upper() < -1e100);
  }
}

// Hostile numbers from an adversary's round: shifts that overflow when subtracted, scales whose squares underflow,
// chains whose mean leaves the double range, and TOML's inf and nan in a grid.
TEST_CASE("shifts beyond the double range, tiny scales and non-finite grid values", "[untrusted]") {
  const auto divergence = [](const std::string& mu, const std::string& nu, const verify::Quantity& quantity) {
    return verify::compute_divergence(*sim::parse_law(mu), *sim::parse_law(nu), quantity);
  };
  // R_2 of Laplaces 2e308 apart is Δ/b + log(2/3) (to e^-Δ): its log is log(2e308) to 1e-300 (it was "'delta' = inf").
  const verify::Estimate lap = divergence("laplace(1e308, 1)", "laplace(-1e308, 1)", verify::Quantity::renyi(2));
  CHECK(std::abs(lap.log_value() - (std::log(2.0) + std::log(1e308))) < 1e-12 * 710);
  CHECK(lap.error_kind == verify::ErrorKind::exact);
  // R_2 of isotropic Gaussians (1e308, 1e308) apart, σ = 1: ‖Δ‖² = 2e616, log 2 + 2 log 1e308.
  const verify::Estimate nd = divergence("gaussian_nd(loc=[1e308, 1e308])", "gaussian_nd(loc=[0, 0])", verify::Quantity::renyi(2));
  CHECK(std::abs(nd.log_value() - (std::log(2.0) + 2 * std::log(1e308))) < 1e-12 * 1420);
  // A sum of Laplaces of scale 1e-200 shifted by 1e-200: the divergence of scale 1 shifted by 1 (its scale was 0).
  const verify::Estimate tiny = divergence("laplace_nfold(n=2, scale=1e-200, loc=1e-200)", "laplace_nfold(n=2, scale=1e-200)",
                                           verify::Quantity::renyi(2));
  const verify::Estimate unit = divergence("laplace_nfold(n=2, scale=1, loc=1)", "laplace_nfold(n=2, scale=1)", verify::Quantity::renyi(2));
  CHECK(std::abs(tiny.value - unit.value) < 1e-9 * unit.value);
  CHECK_THAT(message_of([] { sim::parse_law("gaussian_chain(x0=1, r=100000, L=2)"); }),
             Contains("gaussian_chain: with L = 2 over r = 100000 steps the law's mean exceeds the double range"));
  for (const char* value : {"inf", "-inf", "nan"}) {
    const std::string text = fmt::format(
        "[[case]]\nname = \"g\"\nbounds = [\"E1\"]\nmu = \"gaussian(1, 1)\"\nnu = \"gaussian(0, 1)\"\nquantity = \"renyi\"\n"
        "order = \"2\"\n[case.grid]\nsigma1 = 1\nsigma2 = 0\nw = {}\n", value);
    CHECK_THAT(message_of([&] { verify::parse_cases(text, "grid.toml"); }), Contains("grid.toml:11: key 'grid.w':") && Contains("is not a finite number"));
  }
}
