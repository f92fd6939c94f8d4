// Peers' own test suites as data: tests/reference/peer_expectations.json quotes the expectations of Google's
// dp_accounting and Microsoft's prv_accountant tests (file, commit, the lines the number comes from), each with the law
// pair privamp computes for it. Each is checked against privamp's interval: within the test's own tolerance, an upper
// bound that privamp's exact value does not exceed, a disagreement settled by an independent reference that lies in
// privamp's interval, or a refusal with its reason.
#include <cmath>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/language/expression.hpp"
#include "verify/api/api.hpp"
#include "verify/divergence/engines.hpp"

using namespace privamp;

namespace {

struct Value {
  double value, lower, upper;
  std::string kind;
};

Value one_direction(const std::string& mu, const std::string& nu, const nlohmann::json& e) {
  const std::string quantity = e["quantity"];
  const verify::Quantity q = quantity == "renyi"          ? verify::Quantity::renyi(e["parameter"].get<double>())
                             : quantity == "renyi_inf"    ? verify::Quantity::renyi_inf()
                                                          : verify::Quantity::hockey_stick(e["parameter"].get<double>());
  const verify::Estimate r = verify::compute_divergence(*sim::parse_law(mu), *sim::parse_law(nu), q);
  return {r.value, r.lower, r.upper, verify::to_string(r.error_kind)};
}

Value privamp_value(const nlohmann::json& e) {
  const std::string mu = e["mu"], nu = e["nu"];
  if (e["quantity"] == "epsilon") {
    const verify::Estimate r = api::epsilon_for_delta(mu, nu, e["parameter"].get<double>(), api::DivergenceRequest{});
    return {r.value, r.lower, r.upper, verify::to_string(r.error_kind)};
  }
  Value v = one_direction(mu, nu, e);
  if (e["directions"] == "max") {
    const Value back = one_direction(nu, mu, e);
    if (back.value > v.value) v.value = back.value, v.kind = back.kind;
    v.lower = std::max(v.lower, back.lower);
    v.upper = std::max(v.upper, back.upper);
  }
  return v;
}

}  // namespace

TEST_CASE("peers' expectations: dp_accounting's and prv_accountant's tests against privamp's intervals", "[composition][peers]") {
  std::ifstream in(std::string(PRIVAMP_SOURCE_DIR) + "/tests/reference/peer_expectations.json");
  REQUIRE(in);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto& all = doc["expectations"];
  REQUIRE(all.size() >= 30);
  int within = 0, bounds = 0, disagreements = 0, refusals = 0;
  for (const auto& e : all) {
    const std::string check = e["check"];
    INFO(e["source"].get<std::string>() << ": " << e["mechanism"].get<std::string>() << " (" << e["quantity"].get<std::string>()
                                        << ", checked " << check << ")");
    if (check == "refused") {
      CHECK_THROWS_WITH(privamp_value(e), Catch::Contains(e["refusal"].get<std::string>()));
      ++refusals;
      continue;
    }
    const Value v = privamp_value(e);
    const double expected = e["expected"], tol = e["tolerance"];
    INFO("privamp " << v.value << " in [" << v.lower << ", " << v.upper << "] (" << v.kind << "), expected " << expected
                    << " +- " << tol);
    CHECK(v.lower <= v.value);
    CHECK(v.value <= v.upper);
    // Far narrower than the peer's tolerance (eps: its root search stops at 1e-9 relative), or, for a certified bracket
    // of the privacy-loss lattices, as wide as the entry allows (`bracket_width`, at most the tolerance).
    const double width = e.contains("bracket_width") ? e["bracket_width"].get<double>() : 1e-2 * tol + 1e-9 * std::fabs(v.value);
    CHECK(v.upper - v.lower <= width);
    if (e.contains("bracket_width")) {
      CHECK(width <= tol);
      CHECK(v.kind == "certified");
    }
    if (check == "within") {
      CHECK(std::fabs(v.value - expected) <= tol);
      ++within;
    } else if (check == "at_most") {
      CHECK(v.upper <= expected + tol);
      ++bounds;
    } else {
      REQUIRE(check == "disagrees");
      const double reference = e["reference"];
      CHECK(std::fabs(v.value - expected) > tol);  // the disagreement stands
      CHECK(v.lower <= reference);                 // and the independent reference sides with privamp
      CHECK(reference <= v.upper);
      CHECK_FALSE(e["resolution"].get<std::string>().empty());
      ++disagreements;
    }
  }
  CHECK(within >= 25);
  CHECK(bounds + disagreements + refusals >= 2);  // (the one refusal, q = 0.2 at three releases, is now a certified bracket)
}
