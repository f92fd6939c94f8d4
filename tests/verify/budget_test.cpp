// The error budget (verify/divergence/estimate.hpp, ErrorPart): every interval the engines return says what its
// width is made of, as named numbers that account for the whole width, and the records carry them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/language/language.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/records/codec.hpp"

namespace sim = privamp::sim;
using privamp::verify::DivergenceOptions;
using privamp::verify::Engine;
using privamp::verify::ErrorPart;
using privamp::verify::Estimate;
using privamp::verify::Quantity;

namespace {

double budget_sum(const Estimate& e) {
  double sum = 0;
  for (const auto& t : e.budget) sum += t.amount;
  return sum;
}

bool has_part(const Estimate& e, ErrorPart part) {
  for (const auto& t : e.budget)
    if (t.part == part && t.amount > 0) return true;
  return false;
}

Estimate budgeted(const std::string& mu, const std::string& nu, const Quantity& q, Engine engine = Engine::automatic) {
  DivergenceOptions o;
  o.engine = engine;
  o.monte_carlo.samples = 20000;
  return privamp::verify::compute_divergence(*sim::parse_law(mu), *sim::parse_law(nu), q, o);
}

}  // namespace

TEST_CASE("the error budget accounts for the whole width of every engine's interval", "[verify][budget]") {
  struct Case {
    const char* mu;
    const char* nu;
    Quantity quantity;
    Engine engine;
    ErrorPart expected;  // a part the interval must name
  };
  const std::vector<Case> cases = {
      {"gaussian(0.7, 1.3)", "gaussian(0, 1.3)", Quantity::renyi(3), Engine::closed_form, ErrorPart::rounding},
      {"laplace(0.4, 1)", "laplace(0, 1)", Quantity::kl(), Engine::quadrature, ErrorPart::quadrature},
      {"mix(q=0.2, gaussian(0,1), gaussian(1.5,1))", "gaussian(0,1)", Quantity::hockey_stick(0.3), Engine::certified,
       ErrorPart::enclosure},
      {"gaussian(0.5, 1)", "gaussian(0, 1)", Quantity::tv(), Engine::monte_carlo, ErrorPart::sampling},
      {"power(laplace(0.3, 1), 4)", "power(laplace(0, 1), 4)", Quantity::renyi(2), Engine::automatic, ErrorPart::rounding},
      {"gaussian_nd([0.3, 0.4], 1)", "gaussian_nd([0, 0], 1)", Quantity::kl(), Engine::quadrature, ErrorPart::reduction},
      {"shuffled_krr(n=30, k=4, eps0=2, first=1, cut=20)", "shuffled_krr(n=30, k=4, eps0=2, first=0, cut=20)",
       Quantity::hockey_stick(0.2), Engine::automatic, ErrorPart::lumping},
      {"projected_chain(x0=1, r=3, map=tanh, L=0.9)", "projected_chain(x0=-1, r=3, map=tanh, L=0.9)", Quantity::renyi(2),
       Engine::automatic, ErrorPart::discretisation},
  };
  for (const Case& c : cases) {
    INFO(c.mu << " || " << c.nu << ", " << c.quantity.label() << ", engine " << to_string(c.engine));
    const Estimate e = budgeted(c.mu, c.nu, c.quantity, c.engine);
    INFO("[" << e.lower << ", " << e.upper << "] " << e.method << "; budget: " << budget_text(e.budget));
    CHECK(has_part(e, c.expected));
    // The parts add up to at least the half-width (an interval intersected with a certified one afterwards is
    // narrower than its parts; none here is wider).
    // (within the rounding of the ends themselves: value ± a bar rounds by an ulp of the value)
    const double half = (e.upper - e.lower) / 2;
    const double ulps = 2 * 0x1p-52 * std::max(std::fabs(e.lower), std::fabs(e.upper));
    CHECK(budget_sum(e) >= half * (1 - 1e-12) - ulps);
    for (const auto& t : e.budget) CHECK((t.amount > 0 && std::isfinite(t.amount)));
  }
}

TEST_CASE("an estimate's record carries its error budget, read back alike, and refuses one it cannot read", "[verify][budget]") {
  Estimate e = Estimate::from_value(0.25, 1e-9, privamp::verify::ErrorKind::quadrature, "crafted");
  e.add_error(ErrorPart::lumping, 3e-7);
  e.add_error(ErrorPart::quadrature, 1e-9);  // added to the existing part
  REQUIRE(e.budget.size() == 2);
  CHECK(e.budget[0].amount == 2e-9);
  CHECK(e.dominant_error()->part == ErrorPart::lumping);
  CHECK(budget_text(e.budget) == "quadrature 2e-09, lumping 3e-07");
  const nlohmann::json j = privamp::verify::to_json(e);
  REQUIRE(j.contains("error_budget"));
  CHECK(j["error_budget"]["lumping"] == 3e-7);
  // (a JSON object lists the parts by name)
  auto by_part = [](privamp::verify::ErrorBudget b) {
    std::sort(b.begin(), b.end(), [](const auto& x, const auto& y) { return x.part < y.part; });
    return b;
  };
  const Estimate back = privamp::verify::estimate_from_json(j);
  CHECK(by_part(back.budget) == by_part(e.budget));
  nlohmann::json bad = j;
  bad["error_budget"] = {{"made_up", 1.0}};
  CHECK_THROWS_WITH(privamp::verify::estimate_from_json(bad), Catch::Contains("unknown part 'made_up'"));
  bad["error_budget"] = 3;
  CHECK_THROWS_WITH(privamp::verify::estimate_from_json(bad), Catch::Contains("object of named numbers"));
  // A record without one (written before budgets) reads back with none; logs of parts it does not name are refused.
  nlohmann::json old = j;
  old.erase("error_budget");
  CHECK_THROWS_WITH(privamp::verify::estimate_from_json(old), Catch::Contains("which error_budget does not"));
  old.erase("log_error_budget");
  CHECK(privamp::verify::estimate_from_json(old).budget.empty());
  // A log that is not the amount's is refused (a record edited by hand).
  nlohmann::json edited = j;
  edited["log_error_budget"]["lumping"] = -3.0;
  CHECK_THROWS_WITH(privamp::verify::estimate_from_json(edited), Catch::Contains("not the log of"));
}

// A value far below the double range (log −26761) has a half-width that is 0 as a double: the budget keeps its log.
// It was empty ("error_budget": {}) on such rows; a part now reads null beside its log, never a silent 0.
TEST_CASE("an interval below the double range keeps its budget in log space, through scaling and records", "[verify][budget]") {
  using privamp::verify::ErrorKind;
  const double lv = -26761.0, rel = 1e-6;  // (the logs' own spacing here is 3.6e-12)
  Estimate e = Estimate::from_log(lv, rel, ErrorKind::exact, "crafted");
  REQUIRE(e.budget.size() == 1);
  CHECK(e.budget[0].amount == 0);
  // log of the half-width: lv + log((1+r) − (1−r))/2 = lv + log r (to rounding of the logs' ends)
  CHECK(std::fabs(e.budget[0].log_amount - (lv + std::log(rel))) < 1e-3);
  CHECK_THAT(budget_text(e.budget), Catch::Contains("rounding exp(-26774.8"));
  const nlohmann::json j = privamp::verify::to_json(e);
  CHECK(j["error_budget"]["rounding"].is_null());
  CHECK(j["log_error_budget"]["rounding"] == e.budget[0].log_amount);
  const Estimate back = privamp::verify::estimate_from_json(j);
  CHECK(back.budget == e.budget);
  // Scaled by 1e-100 (a subsampling weight): the budget moves with the value, by log(1e-100) = −230.26, and the
  // factor's relative error joins it as rounding.
  Estimate scaled = e;
  scaled.scale(1e-100, 1e-15);
  REQUIRE(scaled.budget.size() == 1);
  CHECK(std::fabs(scaled.budget[0].log_amount - std::log(std::exp(e.budget[0].log_amount - lv) * 1 + 1e-15) - lv -
                  std::log(1e-100)) < 1e-3);
  // A hull far below the double range (the subsampled Gaussian's closed form at a moved level: HS of e^-46257) widens
  // by logs: the parts, by their logs, add up to the half-width (they fell 5 times short).
  const Estimate far = budgeted("mix(q=0.01, gaussian(0,1), gaussian(1,1))", "gaussian(0,1)", Quantity::hockey_stick(300));
  REQUIRE(far.upper < 1e-300);
  double log_parts = -INFINITY;
  for (const auto& t : far.budget) log_parts = std::max(log_parts, t.log_amount) + std::log1p(std::exp(-std::fabs(log_parts - t.log_amount)));
  const double log_half = far.log_upper() + std::log1p(-std::exp(far.log_lower() - far.log_upper())) - std::log(2.0);
  INFO(budget_text(far.budget) << " against a half-width exp(" << log_half << ")");
  // (within the rounding of the ends themselves, as above: here the ulps of logs of magnitude 46257, 1e-11 each)
  const double ends_rounding = 4 * 0x1p-52 * std::fabs(far.log_upper());
  CHECK(std::exp(log_parts - far.log_upper()) >= std::exp(log_half - far.log_upper()) - ends_rounding);
  // ... and an estimate in the double range scaled keeps its parts in proportion (the budget was left unscaled:
  // q·HS with q = 0.01 carried the Gaussian pair's bar, 100 times its own).
  Estimate normal = Estimate::from_value(0.25, 1e-9, ErrorKind::quadrature, "crafted");
  normal.scale(0.01, 0);
  REQUIRE(normal.budget.size() == 1);
  CHECK(normal.budget[0].amount == Approx(1e-11).epsilon(1e-12));
  // (the ends rounded outwards by an ulp of the value, as in the first test)
  CHECK(budget_sum(normal) >= (normal.upper - normal.lower) / 2 - 2 * 0x1p-52 * normal.upper);
}
