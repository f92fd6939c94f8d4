#include <cmath>
#include <iomanip>

#include <boost/math/special_functions/binomial.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <catch2/catch.hpp>

#include "numerics/errors.hpp"
#include "numerics/special.hpp"
#include "support/check.hpp"
#include "support/reference.hpp"

using namespace privamp;
using test::Real50;

TEST_CASE("log_normal_cdf matches a 50-digit erfc over the whole line", "[numerics]") {
  for (double x : {-1e4, -1e3, -40.0, -38.5, -10.0, -1.0, -0.5, 0.0, 0.5, 3.0, 8.0, 30.0}) {
    const double ref = static_cast<double>(test::log_normal_cdf50(Real50(x)));
    INFO("x = " << x << std::setprecision(17) << " ours " << log_normal_cdf(x) << " ref " << ref);
    // Relative to |log Φ| (or absolute 1e-300 where log Φ underflows to −0 near +∞).
    // erfc's few-ulp accuracy, and the rounding of x/√2 amplified by |d log Φ̄/dx|·|x| ≈ x².
    CHECK(test::near_rel(log_normal_cdf(x), ref, 1e-14 * (1 + x * x), 1e-300));
  }
}

// GSL's log_erfc is NaN beyond an argument of about 1e76 (a Gaussian hockey-stick at Δ/σ = 1e100 printed NaN): far
// left, the Mills-ratio series. References: mpmath, log(erfc(−x/√2)/2) at 40 digits.
TEST_CASE("log_normal_cdf far in the left tail, beyond GSL's log_erfc", "[numerics]") {
  const std::pair<double, double> refs[] = {{-2e7, -200000000000017.7301813647}, {-1e8, -5000000000000019.339619277},
                                            {-3.7e40, -6.845e80}, {-1e100, -5e199}};
  for (const auto& [x, ref] : refs) {
    INFO("x = " << x);
    CHECK(test::near_rel(log_normal_cdf(x), ref, 1e-15, 0));
  }
  CHECK(log_normal_cdf(-1e200) == -std::numeric_limits<double>::infinity());  // below every double
}

TEST_CASE("log_binomial_pmf is accurate at n = 1e6 where lgamma differences lose digits", "[numerics]") {
  using std::lgamma;
  const long n = 1'000'000;
  for (long k : {0L, 1L, 1000L, 269'000L, 500'000L, 731'059L, 999'999L, 1'000'000L}) {
    for (double p : {0.5, 0.7310585786300049, 1e-3}) {
      const Real50 nn(n), kk(k), pp(p);
      const Real50 ref = boost::math::lgamma(nn + 1) - boost::math::lgamma(kk + 1) - boost::math::lgamma(nn - kk + 1) +
                         kk * log(pp) + (nn - kk) * log1p(-pp);
      INFO("k = " << k << ", p = " << p);
      CHECK(test::near_rel(log_binomial_pmf(k, n, p), static_cast<double>(ref), 2e-14, 2e-13));
    }
  }
  CHECK(log_binomial_pmf(-1, 10, 0.5) == -std::numeric_limits<double>::infinity());
  CHECK_THROWS_AS(log_binomial_pmf(1, 10, 1.5), InvalidArgument);
}

TEST_CASE("did you mean: near names are offered, far ones and crowds are not", "[numerics][messages]") {
  const std::vector<std::string> laws = {"gaussian", "gaussian_nd", "laplace", "laplace_sum", "noisy_sgd", "ou"};
  CHECK(did_you_mean("lapalce", laws) == "did you mean 'laplace'? ");    // a transposition
  CHECK(did_you_mean("Gausian", laws) == "did you mean 'gaussian'? ");   // a letter missing, case ignored
  CHECK(did_you_mean("noisy_sgd", laws) == "did you mean 'noisy_sgd'? ");  // (callers ask only for unknown words)
  CHECK(did_you_mean("laplace_", laws) == "did you mean 'laplace_sum'? ");  // the name it begins before a slip
  CHECK(did_you_mean("laplace_s", laws) == "did you mean 'laplace_sum'? ");
  CHECK(did_you_mean("xyz", laws).empty());
  CHECK(did_you_mean("o", laws) == "did you mean 'ou'? ");  // one edit
  CHECK(did_you_mean("x", laws).empty());
  CHECK(did_you_mean("", laws).empty());
  CHECK(did_you_mean(std::string(1000, 'a'), laws).empty());
  const std::vector<std::string> ids = {"T1.1", "T1.2", "T1.3", "T1.4", "T4.path", "T4.closed"};
  CHECK(did_you_mean("T1", ids).empty());  // four equally near: no guess
  CHECK(did_you_mean("t4.closd", ids) == "did you mean 'T4.closed'? ");
}

TEST_CASE("abbreviate keeps short text and cuts long text at a character boundary, saying how long it was", "[numerics]") {
  CHECK(abbreviate("gaussian(0, 1)") == "gaussian(0, 1)");
  const std::string exact(200, 'x');
  CHECK(abbreviate(exact) == exact);
  std::string longer = "x";
  for (int i = 0; i < 300; ++i) longer += "σ";  // two bytes in UTF-8: byte 150, where the cut falls, is a second byte
  const std::string out = abbreviate(longer);
  CHECK(out.size() < 200);
  CHECK_THAT(out, Catch::EndsWith("… (" + std::to_string(longer.size()) + " characters in all)"));
  CHECK(out.substr(0, out.find("…")) == longer.substr(0, out.find("…")));
  const std::string kept = out.substr(0, out.find("…"));
  CHECK((static_cast<unsigned char>(kept.back()) & 0xC0) != 0xC0);  // no lead byte left without its continuation
}
