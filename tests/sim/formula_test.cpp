// Formulas as numbers: the compiled program against direct evaluation, its enclosures against sampled points,
// dual-number derivatives against analytic ones, certified constants against constants derived by hand, and the
// processes written as formulas against the built-in instances they generalise; the language's intervals (the same
// function table) against 50-digit values.
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/expm1.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/log1p.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/formulas/certify.hpp"
#include "numerics/real50.hpp"
#include "sim/formulas/formula.hpp"
#include "sim/language/expression.hpp"
#include "sim/processes/langevin.hpp"
#include "sim/processes/projected_chain.hpp"
#include "sim/processes/sgd.hpp"
#include "sim/random/rng.hpp"
#include "support/check.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;
using sim::Enclosure;
using privamp::Real50;

namespace {
const std::vector<std::string> kX = {"x"};
const std::vector<std::string> kXZ = {"x", "z"};
double sigmoid(double t) { return 1 / (1 + std::exp(-t)); }
}  // namespace

TEST_CASE("formulas evaluate as written, with parameters substituted", "[formula]") {
  sim::Params p;
  p.numbers["lambda"] = 0.3;
  const auto f = sim::Formula::parse("lambda * (x - z)^2 / 2 + if(x < 0, -x, x^3) + max(x, z, 0.5)", kXZ, p);
  for (double x : {-1.3, -0.2, 0.0, 0.7, 2.5})
    for (double z : {-1.0, 0.4}) {
      const double expected = 0.3 * (x - z) * (x - z) / 2 + (x < 0 ? -x : x * x * x) + std::max({x, z, 0.5});
      CHECK((*f)(x, z) == Approx(expected).epsilon(1e-15));
    }
  // The text holds the values: it parses back to the same function without the parameters.
  CHECK(f->text().find("lambda") == std::string::npos);
  const auto g = sim::Formula::parse(f->text(), kXZ);
  CHECK((*g)(0.37, -0.81) == (*f)(0.37, -0.81));
  // Constant subexpressions are folded into one constant.
  CHECK(sim::Formula::parse("x * (2 + 3 * exp(1))", kX)->operations() == 3);
}

TEST_CASE("a formula's enclosure over a box contains its value at every point of the box", "[formula]") {
  const std::vector<std::string> texts = {
      "x^4/4 - x^2/2 + 0.3*x", "log(cosh(x))", "atan(3*x) - sin(x)*cos(2*x)", "sqrt(1 + x^2) / (2 + tanh(x))",
      "exp(-x^2) * erf(x) + erfc(x)", "abs(x - 0.3) + min(x, 0.2) - max(2*x, -1)", "if(x <= 0.1, x^2, 0.2*x - 0.01)",
      "Phi(x) + logPhi(x - 1) + sinh(x/3) + expm1(x/5) + log1p(x^2)", "x^-2 + pow(1 + x^2, 0.3)"};
  sim::Rng rng(11);
  for (const auto& text : texts) {
    INFO(text);
    const auto f = sim::Formula::parse(text, kX);
    for (int trial = 0; trial < 200; ++trial) {
      const double a = -3 + 6 * rng.uniform(), w = std::pow(10.0, -6 * rng.uniform());
      const Enclosure box{a, a + w};
      if (text.starts_with("x^-2") && box.contains(0)) continue;
      const Enclosure e = f->evaluate<Enclosure>(std::span<const Enclosure>(&box, 1));
      const auto d = f->evaluate<sim::Dual<Enclosure>>(std::vector<sim::Dual<Enclosure>>{{box, 1.0}});
      for (int k = 0; k <= 8; ++k) {
        const double x = a + w * k / 8;
        const double v = (*f)(x);
        CHECK(e.lo <= v);
        CHECK(v <= e.hi);
        // The derivative at x lies in the derivative's enclosure (away from the kinks of the piecewise formulas).
        const double at[1] = {x};
        const double dv = sim::derivative(*f, at);
        CHECK(d.d.lo <= dv);
        CHECK(dv <= d.d.hi);
      }
    }
  }
}

TEST_CASE("enclosures stay exact where the arithmetic is exact", "[formula]") {
  const Enclosure h{0, 0.25};
  CHECK((Enclosure(1) + h).lo == 1);
  CHECK((Enclosure(1) / (Enclosure(1) + h)).hi == 1);
  CHECK(sim::powi(Enclosure(-2, 3), 2).lo == 0);
  CHECK(sim::powi(Enclosure(-2, 3), 2).hi == 9);
  CHECK(sim::powi(Enclosure(-2, 3), 3).lo == -8);
  // Integer exponents beyond int's range (every double from 2^53 on is even): the power of |x| with the sign of an odd
  // power, an interval through 0 from 0, and a negative exponent as the reciprocal ((-1)^1e18 had no enclosure).
  const auto contains = [](const Enclosure& e, double v) { return e.lo <= v && v <= e.hi; };
  CHECK(sim::pow(Enclosure(-1), Enclosure(1e18)).lo == 1);
  CHECK(sim::pow(Enclosure(-1), Enclosure(1e18)).hi == 1);
  CHECK(sim::pow(Enclosure(-1), Enclosure(4294967297.0)).hi == -1);  // odd, beyond 2^31
  CHECK(contains(sim::pow(Enclosure(-1.0000001), Enclosure(4294967297.0)), -std::pow(1.0000001, 4294967297.0)));
  CHECK(contains(sim::pow(Enclosure(-0.5, -0.25), Enclosure(4294967296.0)), 0));  // underflows to 0 from above
  CHECK(sim::pow(Enclosure(-0.5, -0.25), Enclosure(4294967296.0)).lo >= 0);
  const Enclosure through_zero = sim::pow(Enclosure(-1, 0.5), Enclosure(1e18));
  CHECK(through_zero.lo == 0);
  CHECK(through_zero.hi == 1);
  const Enclosure odd_through_zero = sim::pow(Enclosure(-1, 0.5), Enclosure(4294967297.0));
  CHECK(odd_through_zero.lo == -1);
  CHECK(odd_through_zero.hi >= 0);
  CHECK(sim::pow(Enclosure(-1), Enclosure(-1e18)).lo == 1);
  CHECK_FALSE(sim::pow(Enclosure(-1, 1), Enclosure(-1e18)).finite());  // 1/0 inside
  CHECK_FALSE(sim::pow(Enclosure(-1), Enclosure(1e18, 1e18 + 256)).valid());  // not a point: both parities
  const Enclosure third = Enclosure(1) / Enclosure(3);
  CHECK(third.lo < third.hi);  // 1/3 is not a double: the enclosure is one ulp wide
  CHECK(third.lo <= 1.0 / 3 + 1e-17);
}

TEST_CASE("dual numbers give the derivatives of a formula", "[formula]") {
  const auto f = sim::Formula::parse("log(1 + exp(-z*x)) + 0.25*x^2", kXZ);
  for (double x : {-0.9, 0.0, 0.4})
    for (double z : {-1.0, 0.6}) {
      const double at[2] = {x, z};
      CHECK(sim::derivative(*f, at) == Approx(-z * sigmoid(-z * x) + 0.5 * x).epsilon(1e-14));
      CHECK(sim::derivative(*f, at, 0, 2) == Approx(z * z * sigmoid(z * x) * sigmoid(-z * x) + 0.5).epsilon(1e-14));
      CHECK(sim::derivative(*f, at, 1) == Approx(-x * sigmoid(-z * x)).margin(1e-15));
    }
}

TEST_CASE("certified constants enclose the analytic ones", "[formula][certify]") {
  const Enclosure wide[1] = {{-3, 3}};
  SECTION("Lipschitz constants of maps") {
    struct Case {
      const char* map;
      double lo, hi, lipschitz;
    };
    for (const Case& c : {Case{"0.9*atan(x)", -3, 3, 0.9}, Case{"tanh(x)", -2, 2, 1.0},
                          Case{"sin(x)", 0.2, 1.0, std::cos(0.2)}, Case{"max(0.5*x, 0.9*x)", -3, 3, 0.9},
                          Case{"max(-2, min(2, 0.8*x))", -4, 4, 0.8}, Case{"x/(1 + abs(x))", 0.5, 2, 1 / 2.25}}) {
      INFO(c.map);
      const auto f = sim::Formula::parse(c.map, kX);
      const Enclosure box[1] = {{c.lo, c.hi}};
      const sim::Extremum e = sim::sup_abs(*f, 0, 1, box);
      CHECK(e.value.lo <= c.lipschitz);
      CHECK(c.lipschitz <= e.value.hi);
      CHECK(e.value.hi - e.value.lo <= 1e-9);
    }
    // A kinked map attains its constant exactly: the enclosure is a point (a formula of x is the function the
    // simulators compute, with the literal's double).
    const auto kink = sim::Formula::parse("if(x < 0, 0.5*x, 0.9*x)", kX);
    CHECK(sim::sup_abs(*kink, 0, 1, wide).value.hi == 0.9);
  }
  SECTION("a Huber loss with a ridge: C, beta and rho") {
    // l = huber_0.5(x - z) + 0.1 x^2 on [-1, 1]^2: l_x = clamp(x - z, -0.5, 0.5) + 0.2 x, so C = 0.7; l_xx is 1.2
    // inside the quadratic zone and 0.2 outside: beta = 1.2, rho = 0.2.
    const auto huber = sim::Formula::parse("if(abs(x - z) <= 0.5, (x - z)^2/2, 0.5*abs(x - z) - 0.125) + 0.1*x^2", kXZ);
    const sim::LossConstants k = sim::loss_constants(*huber, -1, 1, -1, 1);
    CHECK(k.C.value.lo <= 0.7);
    CHECK(0.7 <= k.C.value.hi);
    CHECK(k.C.value.hi < 0.7 + 1e-9);
    CHECK(k.beta.value.lo <= 1.2);
    CHECK(1.2 <= k.beta.value.hi);
    CHECK(k.rho.value.lo <= 0.2);
    CHECK(0.2 <= k.rho.value.hi);
  }
  SECTION("the logistic loss written as a formula: the built-in bounds hold and the suprema are attained") {
    // -z s(-zx) + l x on |x| <= 1, |z| <= 1 with l = 0.5: sup = s(1) + 0.5; l_xx = z^2 s'(zx) + 0.5 in [0.5, 0.75].
    const auto logistic = sim::Formula::parse("log(1 + exp(-z*x)) + 0.5/2*x^2", kXZ);
    const sim::LossConstants k = sim::loss_constants(*logistic, -1, 1, -1, 1);
    const double c = sigmoid(1) + 0.5;
    CHECK(k.C.value.lo <= c);
    CHECK(c <= k.C.value.hi);
    CHECK(k.C.value.hi - k.C.value.lo < 1e-8);
    CHECK(k.beta.value.lo <= 0.75);
    CHECK(0.75 <= k.beta.value.hi);
    CHECK(k.rho.value.lo <= 0.5);
    CHECK(0.5 <= k.rho.value.hi);
    sim::NoisySgd builtin{10, 0.5, 1, 0.5, 1, 0};
    builtin.loss = sim::SgdLoss::logistic;
    CHECK(k.C.value.hi <= builtin.constants().C);  // the built-in C = A + lambda R is an upper bound
    CHECK(k.beta.value.lo <= builtin.constants().beta);
  }
  SECTION("a formula that is not finite on the box is refused, naming where") {
    const auto f = sim::Formula::parse("1/(x - 0.25)", kX);
    CHECK_THAT(test::error_of([&] { sim::sup_abs(*f, 0, 1, wide); }), Catch::Matchers::Contains("not finite"));
    const auto g = sim::Formula::parse("sqrt(x)", kX);
    CHECK_THAT(test::error_of([&] { sim::extremum(*g, 0, 0, wide, true); }), Catch::Matchers::Contains("x = -"));
  }
}

TEST_CASE("formula names, functions and values that are not functions of x are refused", "[formula]") {
  sim::Params p;
  p.words["noise"] = "laplace";
  const auto error = [&](const std::string& text) { return test::error_of([&] { sim::Formula::parse(text, kX, p); }); };
  CHECK_THAT(error("x + y"), Catch::Matchers::Contains("unknown name 'y'"));
  CHECK_THAT(error("x * noise"), Catch::Matchers::Contains("word parameter"));
  CHECK_THAT(error("floor(x)"), Catch::Matchers::Contains("not continuous"));
  CHECK_THAT(error("sum(k, 1, 3, x^k)"), Catch::Matchers::Contains("not available in a formula"));
  CHECK_THAT(error("kl(gaussian(0, 1), gaussian(x, 1))"), Catch::Matchers::Contains("not available in a formula"));
  CHECK_THAT(error("[x, 1]"), Catch::Matchers::Contains("a list"));
  CHECK_THAT(error("exp(x, 2)"), Catch::Matchers::Contains("takes 1 argument"));
  // Long formulas are refused when compiled (constants fold, so only operations on x count).
  std::string sum = "x";
  for (int k = 0; k < 40; ++k) sum += "+(x*x+x*x+x*x+x*x+x*x+x*x+x*x+x*x+x*x+x*x)";  // 40 x 40 operations
  CHECK_THAT(error(sum), Catch::Matchers::Contains("the limit is 1000"));
  std::string constant = "x";
  for (int k = 0; k < 200; ++k) constant += "+2*3";
  CHECK_NOTHROW(sim::Formula::parse("x*(" + constant.substr(2) + ")", kX));
}

TEST_CASE("a formula of x takes constants of the whole language, a decided if() compiles only its branch", "[formula]") {
  sim::Params p;
  p.numbers["n"] = 7.5;
  p.numbers["m"] = -1;
  // floor, ceil, lgamma, binom of parameters are constants: allowed (of x they are refused, above).
  const auto f = sim::Formula::parse("floor(n) * x + binom(6, 2) + ceil(n) + lgamma(n)", kX, p);
  CHECK((*f)(2.0) == 7 * 2.0 + 15 + 8 + std::lgamma(7.5));
  CHECK_THAT(test::error_of([&] { sim::Formula::parse("binom(x, 2)", kX, p); }), Catch::Matchers::Contains("takes integers"));
  // A decided condition: only its branch is compiled (log(m) of m = -1 is never evaluated, nor a NaN carried).
  const auto g = sim::Formula::parse("if(m > 0, log(m), 2) * x", kX, p);
  CHECK((*g)(3.0) == 6);
  CHECK(g->operations() == 3);
  const sim::Enclosure e = g->evaluate<sim::Enclosure>(std::span<const sim::Enclosure>(std::array<sim::Enclosure, 1>{sim::Enclosure(1, 2)}));
  CHECK(e.lo == 2);
  CHECK(e.hi == 4);
  // A condition of x stays a switch of the program.
  const auto h = sim::Formula::parse("if(x > 0, x, -x)", kX, p);
  CHECK((*h)(-2.0) == 2);
  CHECK(h->operations() > 3);
}

TEST_CASE("processes written as formulas reproduce the built-in instances", "[formula][sim]") {
  SECTION("projected chain: 0.7*tanh(x) against the named map") {
    const sim::ChainMap named{"tanh", 0.7};
    const sim::ChainMap formula{"", 1, sim::Formula::parse("0.7*tanh(x)", kX)};
    const auto a = sim::projected_chain_law(named.psi(), 0.4, 5, 0.8, -3, 3, 200);
    const auto b = sim::projected_chain_law(formula.psi(), 0.4, 5, 0.8, -3, 3, 200);
    for (std::size_t k = 0; k < a.density.size(); ++k) CHECK(test::near_rel(a.density[k], b.density[k], 1e-13, 1e-300));
  }
  SECTION("noisy SGD: the quadratic loss as a formula") {
    sim::NoisySgd builtin{12, 0.4, 1.5, 0.8, 1, 0};
    sim::NoisySgd formula = builtin;
    formula.set_loss("(lambda/2)*(x - z)^2", [] {
      sim::Params p;
      p.numbers["lambda"] = 0.8;
      return p;
    }());
    formula.feature_bound = 1;  // data |z| <= A = R
    CHECK(formula.gradient(0.3, -0.7) == Approx(builtin.gradient(0.3, -0.7)).epsilon(1e-15));
    const auto a = sim::noisy_sgd_law(builtin, 7, 1.0, 200), b = sim::noisy_sgd_law(formula, 7, 1.0, 200);
    for (std::size_t k = 0; k < a.density.size(); ++k) CHECK(test::near_rel(a.density[k], b.density[k], 1e-12, 1e-300));
    // Certified constants of the formula against the built-in closed forms: C = 2 lambda R, beta = rho = lambda.
    const auto c = formula.constants(), d = builtin.constants();
    CHECK(c.C == Approx(d.C).epsilon(1e-9));
    CHECK(c.beta == Approx(d.beta).epsilon(1e-9));
    CHECK(c.rho == Approx(d.rho).epsilon(1e-9));
    CHECK(c.C >= d.C);
    CHECK(c.rho <= d.rho);
  }
  SECTION("Langevin: the double well as a formula") {
    const auto a = sim::langevin_chain(sim::Potential::double_well(), -4, 4, 160);
    const auto b = sim::langevin_chain(sim::Potential::named("x^4/4 - x^2/2"), -4, 4, 160);
    const Eigen::VectorXd p = a->law(a->node(1.0), 0.7), q = b->law(b->node(1.0), 0.7);
    CHECK((p - q).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("certified constants in case formulas: lipschitz() and the loss constants", "[formula][certify]") {
  sim::Params p;
  p.words["map"] = "0.9*atan(x)";
  p.words["loss"] = "if(abs(x - z) <= 0.5, (x - z)^2/2, 0.5*abs(x - z) - 0.125) + ridge*x^2";
  p.numbers["K"] = 3;
  p.numbers["ridge"] = 0.1;
  const auto eval = [&](const std::string& text) { return sim::Expression::parse(text, "formula")->number(p).value; };
  CHECK(eval("lipschitz(map, -K, K)") == Approx(0.9).epsilon(1e-9));
  CHECK(eval("lipschitz(map, -K, K)") >= 0.9);
  CHECK(eval("lipschitz('x/(1+abs(x))', 1, 2)") == Approx(0.25).epsilon(1e-9));
  CHECK(eval("gradient_bound(loss, -1, 1, -1, 1)") == Approx(0.7).epsilon(1e-9));
  CHECK(eval("smoothness(loss, -1, 1, -1, 1)") == Approx(1.2).epsilon(1e-9));
  CHECK(eval("strong_convexity(loss, -1, 1, -1, 1)") <= 0.2);
  CHECK(eval("strong_convexity(loss, -1, 1, -1, 1)") == Approx(0.2).epsilon(1e-9));
  CHECK_THAT(test::error_of([&] { eval("lipschitz(map, K, -K)"); }), Catch::Matchers::Contains("lo <= hi"));
  // Each certification is up to a second of work: a sum of many is refused before it runs.
  CHECK_THAT(test::error_of([&] { eval("sum(k, 1, 100, lipschitz('x*k', 0, 1))"); }), Catch::Matchers::Contains("limit"));
}

TEST_CASE("a formula's text keeps only the brackets its precedence needs and parses back to the same function", "[formula]") {
  sim::Params p;
  p.numbers["a"] = -0.5;
  p.numbers["b"] = 2;
  const auto text = [&](const std::string& t) { return sim::Formula::parse(t, kXZ, p)->text(); };
  CHECK(text("(x - z)^2/2 + b*x") == "(x - z)^2 / 2 + 2 * x");
  CHECK(text("x - (z - 1)") == "x - (z - 1)");
  CHECK(text("(x - z) - 1") == "x - z - 1");
  CHECK(text("x / (z * 2)") == "x / (z * 2)");
  CHECK(text("x^z^2") == "x^z^2");
  CHECK(text("(x^z)^2") == "(x^z)^2");
  CHECK(text("(-x)^2") == "(-x)^2");
  CHECK(text("a*x") == "-0.5 * x");
  CHECK(text("x^a") == "x^(-0.5)");
  CHECK(text("if(x < z, a, b)") == "if(x < z, -0.5, 2)");
  for (const std::string t : {"(x - z)^2/2 + b*x", "x - (z - 1)", "x^z^2", "(x^z)^2", "(-x)^2", "a*x - -z", "x/(z*2)/3",
                              "-x^2", "-(x - z)*a"}) {
    const auto f = sim::Formula::parse(t, kXZ, p);
    const auto g = sim::Formula::parse(f->text(), kXZ);
    INFO(t << " -> " << f->text());
    CHECK((*f)(1.3, 0.7) == (*g)(1.3, 0.7));
  }
}

TEST_CASE("a linear map written as a formula reproduces the Gaussian chain's closed form within its interval", "[formula][sim]") {
  // X_r of X_i = clamp(0.9 X_(i-1) + N(0, 1), -12, 12) from ±0.5: the clamp moves less than 1e-30 of mass, so R_2
  // is that of the unprojected chain, N(±0.5·0.9^3, Σ 0.81^j) (gaussian_chain, a closed form).
  const auto chain = [](double x0) {
    return sim::parse_law(fmt::format("projected_chain(x0={}, r=3, map=\"0.9*x\", sigma=1, lo=-12, hi=12, cells=400)", x0));
  };
  const auto gaussian = [](double x0) { return sim::parse_law(fmt::format("gaussian_chain(x0={}, r=3, L=0.9, sigma=1)", x0)); };
  const verify::Estimate grid = verify::compute_divergence(*chain(0.5), *chain(-0.5), verify::Quantity::renyi(2));
  const verify::Estimate exact = verify::compute_divergence(*gaussian(0.5), *gaussian(-0.5), verify::Quantity::renyi(2));
  INFO(test::describe(grid) << " against " << test::describe(exact));
  CHECK(grid.lower <= exact.upper);
  CHECK(exact.lower <= grid.upper);
  CHECK(grid.upper - grid.lower < 1e-6 * exact.value);
}

TEST_CASE("certified constants are those of the formula as written: jumps and kinks are not hidden", "[formula][certify]") {
  sim::Params p;
  const auto eval = [&](const std::string& text) { return sim::Expression::parse(text, "formula")->number(p, nullptr, true).value; };
  // Jumps: a comparison used as a number, an if() whose branches differ at the switch. Not Lipschitz: +inf, so a
  // theorem that needs an L-Lipschitz map is not-applicable (the audit found these certified at 0, 0.5 and 1).
  CHECK(eval("lipschitz('if(x < 0, -1, 1)', -1, 1)") == INFINITY);
  CHECK(eval("lipschitz('0.5*x + (x > 0)', -3, 3)") == INFINITY);
  CHECK(eval("lipschitz('x*(x != 0.3)', -3, 3)") == INFINITY);
  CHECK(eval("lipschitz('if(x < 0, 0.5*x - 0.5, 0.5*x + 0.5)', -3, 3)") == INFINITY);
  CHECK(eval("lipschitz('if(x < 0, x, x + 0.01)', -3, 3)") == INFINITY);       // smaller than a starting piece
  CHECK(eval("lipschitz('if(x < 0.3, x, x + 1e-6)', -3, 3)") == INFINITY);     // at a point no bisection hits
  CHECK(eval("gradient_bound('(x > z)*x', -1, 1, -1, 1)") == INFINITY);
  // Kinks: the first derivative is the hull of the one-sided ones; the second is unbounded.
  CHECK(eval("lipschitz('if(x < 0, -x, x)', -1, 1)") == Approx(1).epsilon(1e-12));
  CHECK(eval("lipschitz('if(x <= 1, 2*x, x + 1)', 0, 3)") == Approx(2).epsilon(1e-12));
  CHECK(eval("gradient_bound('abs(x - z)', -1, 1, -1, 1)") == Approx(1).epsilon(1e-12));
  CHECK(eval("smoothness('abs(x - z)', -1, 1, -1, 1)") == INFINITY);
  CHECK(eval("strong_convexity('x^2 - abs(x - z)', -1, 1, -1, 1)") == -INFINITY);
  CHECK(eval("strong_convexity('x^2 + abs(x - z)', -1, 1, -1, 1)") <= 2);  // sound (a convex kink is not credited)
  // A C^1 switch (Huber): the second derivative jumps but stays bounded.
  CHECK(eval("smoothness('if(abs(x - z) <= 0.5, (x - z)^2/2, 0.5*abs(x - z) - 0.125)', -1, 1, -1, 1)") == Approx(1).epsilon(1e-9));
}

TEST_CASE("certified Lipschitz constants of random piecewise-linear maps, continuous or with a jump", "[formula][certify]") {
  // Maps written as nested if()s with breakpoints at random points: continuous ones have the constant max |slope|
  // (enclosed); one jump of random size from 1e-6 to 1 anywhere makes it +inf. The seed is fixed: a failing instance
  // is reproduced by its printed formula.
  sim::Rng rng(20261127);
  for (int trial = 0; trial < 60; ++trial) {
    const int pieces = 2 + trial % 4;
    std::vector<double> breaks;
    for (int k = 1; k < pieces; ++k) breaks.push_back(-2.5 + 5 * rng.uniform());
    std::sort(breaks.begin(), breaks.end());
    std::vector<double> slopes, offsets;
    double lipschitz = 0;
    for (int k = 0; k < pieces; ++k) {
      slopes.push_back(-2 + 4 * rng.uniform());
      lipschitz = std::max(lipschitz, std::fabs(slopes.back()));
      // Continuity at the previous breakpoint: a_k + s_k b = a_{k-1} + s_{k-1} b.
      offsets.push_back(k == 0 ? rng.uniform() : offsets[k - 1] + (slopes[k - 1] - slopes[k]) * breaks[k - 1]);
    }
    const bool jump = trial % 2 == 1;
    const int where = static_cast<int>(rng.uniform() * (pieces - 1));
    if (jump) offsets[static_cast<std::size_t>(where) + 1] += std::pow(10.0, -6 * rng.uniform()) * (rng.uniform() < 0.5 ? -1 : 1);
    if (jump)  // a jump moves every later piece with it (the later breakpoints stay continuous)
      for (std::size_t k = static_cast<std::size_t>(where) + 2; k < offsets.size(); ++k) offsets[k] = offsets[k - 1] + (slopes[k - 1] - slopes[k]) * breaks[k - 1];
    std::string text = fmt::format("{:.17g} + {:.17g}*x", offsets.back(), slopes.back());
    for (int k = pieces - 2; k >= 0; --k)
      text = fmt::format("if(x < {:.17g}, {:.17g} + {:.17g}*x, {})", breaks[static_cast<std::size_t>(k)], offsets[static_cast<std::size_t>(k)],
                         slopes[static_cast<std::size_t>(k)], text);
    INFO(text);
    const auto f = sim::Formula::parse(text, kX);
    const Enclosure box[1] = {{-3, 3}};
    const sim::Extremum e = sim::sup_abs(*f, 0, 1, box);
    if (jump) {
      CHECK(e.value.hi == INFINITY);
      CHECK_FALSE(e.unbounded_near.empty());
    } else {
      CHECK(e.value.lo <= lipschitz * (1 + 1e-12));
      CHECK(lipschitz <= e.value.hi);
      CHECK(e.value.hi <= lipschitz * (1 + 1e-9));
      CHECK(e.unresolved_switches == 0);
    }
  }
}

// The language's interval rule is the function table's (sim/formulas/functions.hpp): a number that carries an
// interval (here a divergence call answered with a random interval) goes through every function as an enclosure. Each
// interval must contain the formula's exact value at every point of the input's interval, computed at 50 digits.
TEST_CASE("the language's intervals contain the 50-digit value at every point of the input's interval", "[formula][language]") {
  using R = Real50;
  using boost::math::erf, boost::math::erfc, boost::math::lgamma, boost::math::log1p, boost::math::expm1;
  const R sqrt2 = boost::multiprecision::sqrt(R(2));
  const auto Phi = [&](const R& t) { return erfc(-t / sqrt2) / 2; };
  const std::string d = "kl(gaussian(0, 1), gaussian(1, 1))";
  struct Case {
    std::string text;  // in D, the divergence
    std::function<R(const R&)> exact;
  };
  const std::vector<Case> cases = {
      {"exp(D) - log1p(D) + sinh(D/3)", [](const R& x) { return exp(x) - log1p(x) + sinh(x / 3); }},
      {"sqrt(D) * atan(D) / (1 + D^2)", [](const R& x) { return sqrt(x) * atan(x) / (1 + x * x); }},
      {"erf(D) + erfc(2*D) + Phi(-D) + logPhi(D - 1)", [&](const R& x) { return erf(x) + erfc(2 * x) + Phi(-x) + log(Phi(x - 1)); }},
      {"(D - 0.4)^3 + abs(D - 0.4) + min(D, 0.4) - max(2*D, 0.5)",
       [](const R& x) { const R y = x - R(0.4); return y * y * y + abs(y) + (x < R(0.4) ? x : R(0.4)) - (2 * x > R(0.5) ? 2 * x : R(0.5)); }},
      {"pow(D, 0.7) + tanh(D) * cos(3*D) - sin(D)", [](const R& x) { return pow(x, R(0.7)) + tanh(x) * cos(3 * x) - sin(x); }},
      {"lgamma(2 + D) + floor(10*D)/10 + expm1(-D) + cosh(D) - log(D)",
       [](const R& x) { return lgamma(2 + x) + floor(10 * x) / 10 + expm1(-x) + cosh(x) - log(x); }},
      {"sum(k, 1, 5, D^k / k)", [](const R& x) { R s = 0, p = 1; for (int k = 1; k <= 5; ++k) { p *= x; s += p / k; } return s; }},
      // Each function alone (in a sum its rounding would hide under the addition's widening).
      {"exp(D)", [](const R& x) { return exp(x); }}, {"log(D)", [](const R& x) { return log(x); }},
      {"log1p(D)", [](const R& x) { return log1p(x); }}, {"expm1(-D)", [](const R& x) { return expm1(-x); }},
      {"sin(D)", [](const R& x) { return sin(x); }}, {"cos(D)", [](const R& x) { return cos(x); }},
      {"tanh(D)", [](const R& x) { return tanh(x); }}, {"atan(D)", [](const R& x) { return atan(x); }},
      {"sinh(D)", [](const R& x) { return sinh(x); }}, {"cosh(D)", [](const R& x) { return cosh(x); }},
      {"erf(D)", [](const R& x) { return erf(x); }}, {"erfc(D)", [](const R& x) { return erfc(x); }},
      {"Phi(D)", [&](const R& x) { return Phi(x); }}, {"logPhi(-D)", [&](const R& x) { return log(Phi(-x)); }},
      {"lgamma(2 + D)", [](const R& x) { return lgamma(2 + x); }}, {"sqrt(D)", [](const R& x) { return sqrt(x); }},
      {"D^0.3", [](const R& x) { return pow(x, R(0.3)); }}, {"1/D", [](const R& x) { return 1 / x; }},
      // Far tails, where rounding the argument of erfc moves the value by x² ulps; the binomial's routes by size;
      // lgamma across its minimum; an odd power of a negative interval beyond the compiler's small exponents.
      {"Phi(-37 + D/1000)", [&](const R& x) { return Phi(-37 + x / 1000); }},
      {"Phi(-8.25 - D)", [&](const R& x) { return Phi(-R(8.25) - x); }},
      {"logPhi(36 + D/1000)", [&](const R& x) { return log1p(-erfc((36 + x / 1000) / sqrt2) / 2); }},
      {"logPhi(3 + D)", [&](const R& x) { return log1p(-erfc((3 + x) / sqrt2) / 2); }},
      {"binom(1e15, 10) * D", [](const R& x) { R c = 1; for (int i = 1; i <= 10; ++i) c *= (R(1e15) - 10 + i) / i; return c * x; }},
      {"binom(4503599627370496, 2) * D", [](const R& x) { return R(4503599627370496.0) * R(4503599627370495.0) / 2 * x; }},
      {"binom(2000, 100) * D", [](const R& x) { return exp(lgamma(R(2001)) - lgamma(R(101)) - lgamma(R(1901))) * x; }},
      {"lgamma(0.5 + D)", [](const R& x) { return lgamma(R(0.5) + x); }},
      {"(D - 2)^1025 * 1e-250", [](const R& x) { return pow(x - 2, 1025) * pow(R(10), -250); }},
      {"if(D < 0.4, D^2, D/2) - (D != 0.4)", [](const R& x) { return (x < R(0.4) ? x * x : x / 2) - (x != R(0.4) ? 1 : 0); }},
      // Values from points meeting an interval carry their own rounding: lgamma left of 0 (by reflection), a long sum
      // of a rounded literal, an exact binom of a binom, a 64th power.
      {"D*0.001 + lgamma(-2.5)", [](const R& x) { return x / 1000 + lgamma(R(-2.5)); }},
      {"D + lgamma(-7.25 + 1e-9)", [](const R& x) { return x + lgamma(R(-7.25) + R(1e-9)); }},
      {"D + sum(k, 1, 1000, 0.1) - 100", [](const R& x) { return x + 1000 * R(0.1) - 100; }},
      {"D * binom(binom(4, 2), 2)", [](const R& x) { return 15 * x; }},
      {"D * 1.1^64", [](const R& x) { return x * pow(R(1.1), 64); }},
  };
  sim::Rng rng(2026);
  for (const Case& c : cases) {
    std::string text = c.text;
    for (std::size_t at; (at = text.find('D')) != std::string::npos;) text.replace(at, 1, d);
    INFO(c.text);
    const auto e = sim::Expression::parse(text, "formula");
    for (int trial = 0; trial < 60; ++trial) {
      const double a = 0.05 + 1.45 * rng.uniform(), b = a + a * std::pow(10.0, -1 - 14 * rng.uniform());
      const sim::DivergenceFunction answer = [&](const sim::Law&, const sim::Law&, sim::Divergence, double) {
        return sim::Bracketed{a + (b - a) / 2, a, b};
      };
      const sim::Bracketed v = e->number({}, &answer);
      INFO(fmt::format("D in [{:.17g}, {:.17g}]: [{:.17g}, {:.17g}]", a, b, v.lower, v.upper));
      CHECK(v.lower <= v.value);
      CHECK(v.value <= v.upper);
      for (int k = 0; k <= 8; ++k) {
        const R exact = c.exact(R(a) + (R(b) - R(a)) * k / 8);  // a point of the input's interval, taken exactly
        CHECK(R(v.lower) <= exact);
        CHECK(exact <= R(v.upper));
      }
    }
  }
}

TEST_CASE("the language's numbers: a value that is not a number is an error where it arises, exact intervals are points", "[formula][language]") {
  sim::Params p;
  p.numbers["n"] = 0;
  p.numbers["b"] = 1.1;
  const auto value = [&](const std::string& text) { return sim::Expression::parse(text, "formula")->number(p); };
  const auto error = [&](const std::string& text) { return test::error_of([&] { value(text); }); };
  // NaN is refused at the function that makes it, with its column, even where min/max or ^0 would hide it later.
  CHECK_THAT(error("min(1, sqrt(n - 1))"), Catch::Matchers::Contains("column 8: sqrt is undefined at these values"));
  CHECK_THAT(error("max(0, log(n - 2)) + 1"), Catch::Matchers::Contains("column 8: log is undefined"));
  CHECK_THAT(error("sqrt(n - 1)^0 + 1"), Catch::Matchers::Contains("sqrt is undefined"));
  CHECK_THAT(error("if(0/0, 5, 6)"), Catch::Matchers::Contains("column 5: a quotient is undefined"));
  CHECK_THAT(error("sum(k, 0, 2, sqrt(k - 1)) + 1"), Catch::Matchers::Contains("column 14: sqrt is undefined"));
  // An overflowed argument is named as the cause (exp(1000)·exp(-1000) is inf·0, no function left its domain).
  CHECK_THAT(error("exp(1000)*exp(-1000)"), Catch::Matchers::Contains("column 10: an operation is undefined at these values: an argument "
                                                                       "overflows the double range"));
  CHECK_THAT(error("log(-1)*1"), Catch::Matchers::Contains("(an argument outside its domain)"));
  CHECK(value("(-1)^1e18").value == 1);  // an even integer power: 1, a point
  // A decided condition compiles only its branch.
  CHECK(value("if(n > 0, log(n), 7)").value == 7);
  // Values from points are doubles as the C library computes them, printed as points: binom of a binom (exact),
  // powers through pow (within an ulp, where repeated squaring loses several), lgamma left of 0.
  const sim::Bracketed c = value("binom(binom(4, 2), 2)");
  CHECK(c.value == 15);
  CHECK(c.lower == 15);
  CHECK(c.upper == 15);
  CHECK(value("b^64").value == std::pow(1.1, 64.0));
  CHECK(value("b^7").value == std::pow(1.1, 7.0));
  CHECK(value("lgamma(-2.5)").value == std::lgamma(-2.5));
  // A summand of k and parameters is compiled once; it gives the general path's value (taken by a summand with a
  // leaf: here a comparison of words).
  p.words["w"] = "a";
  CHECK(value("sum(k, 1, 1000, 1/k^2)").value == value("sum(k, 1, 1000, 1/k^2 + (w == zz))").value);
  CHECK(value("sum(k, 1, 1000, 1/k^2)").value > 1.6);
}
