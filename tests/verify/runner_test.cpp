// The verify layer: formulas in case files, case-file validation, verdicts (a deliberately wrong bound is caught),
// golden-file regression, and the catalogue's coverage by the shipped cases.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cases.hpp"
#include "support/scratch.hpp"
#include "support/check.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/cases/case.hpp"
#include "verify/divergence/closed_form.hpp"
#include "verify/report/report.hpp"
#include "verify/records/codec.hpp"
#include "verify/runner/runner.hpp"

using namespace privamp;
using namespace privamp::verify;
using Catch::Matchers::Contains;
using test::error_of;

namespace {

std::filesystem::path temp_file(const std::string& name, const std::string& text) { return test::scratch_file(name, text); }
std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const char* kGood = R"toml(
[[case]]
name = "gaussian pair"
bounds = ["E1"]
mu = "gaussian_chain(x0={delta}, r=1, sigma={sigma2}, sigma0={sigma1})"
nu = "gaussian_chain(x0=0, r=1, sigma={sigma2}, sigma0={sigma1})"
quantity = "renyi"
order = "{alpha}"
[case.grid]
alpha = [2, 4]
delta = 1
sigma1 = 1
sigma2 = [1, 2]
)toml";

}  // namespace

TEST_CASE("formulas: arithmetic, functions, parameters and errors", "[verify][runner]") {
  Params p;
  p.numbers = {{"a", 2}, {"b", 3}};
  p.words = {{"noise", "laplace"}};
  CHECK(evaluate_formula("a + b * 2", p) == 8);
  CHECK(evaluate_formula("-a^2", p) == -4);
  CHECK(evaluate_formula("2^3^2", p) == 512);  // right-associative
  CHECK(evaluate_formula("sqrt(a^2 + (b+1)^2) / 2", p) == Approx(std::sqrt(20.0) / 2).epsilon(1e-15));
  CHECK(evaluate_formula("max(a, b, 1) - min(a, b)", p) == 1);
  // Law templates are expressions of the same language: {expr} groups, bare names are parameters or words.
  CHECK(law_text("gaussian({a/4}, {b})", p) == "gaussian(0.5, 3)");
  CHECK(law_text("gaussian(a, sigma=b)", p) == "gaussian(2, sigma=3)");
  CHECK(law_text("subsample(scheme=poisson, base={noise}, side=1, q=0.5, scale=b)", p) ==
        "subsample(scheme=poisson, base=laplace, side=1, q=0.5, scale=3)");
  CHECK_THAT(error_of([&] { evaluate_formula("a + c", p); }), Contains("unknown parameter 'c'"));
  CHECK_THAT(error_of([&] { evaluate_formula("log(a - 2)", p); }), Contains("is -inf at a=2, b=3, noise=laplace (a pole"));
  CHECK_THAT(error_of([&] { evaluate_formula("foo(a)", p); }), Contains("unknown function 'foo'"));
  CHECK_THAT(error_of([&] { law_text("gaussian({a", p); }), Contains("expected '}'"));
  CHECK_THAT(error_of([&] { law_text("gaussian(c, 1)", p); }), Contains("column 10: unknown parameter 'c'"));
}

TEST_CASE("malformed case files are rejected with file, line and key", "[verify][runner][bad-input]") {
  auto load = [](const std::string& text) {
    const auto path = temp_file("bad.toml", text);
    return error_of([&] { load_cases({path}); });
  };
  CHECK(error_of([&] { load_cases({temp_file("good.toml", kGood)}); }) == "(no error)");
  std::string t = kGood;
  CHECK_THAT(load(std::string(kGood) + "\n[extra]\nx = 1\n"), Contains("unknown top-level key"));
  CHECK_THAT(load(std::string(t).replace(t.find("quantity = \"renyi\""), 18, "quantity = \"renyii\"")),
             Contains(":7: key 'quantity': must be renyi"));
  CHECK_THAT(load(std::string(t).replace(t.find("[\"E1\"]"), 6, "[\"E99\"]")), Contains("unknown theorem ID 'E99'"));
  CHECK_THAT(load(std::string(t).replace(t.find("name ="), 6, "nmae =")), Contains("key 'nmae': unknown key"));
  CHECK_THAT(load(std::string(t).replace(t.find("{sigma2}, sigma0"), 8, "{sigma3}")), Contains("unknown parameter 'sigma3'"));
  CHECK_THAT(load(std::string(t).replace(t.find("alpha = [2, 4]"), 14, "alpha = [2, true]")),
             Contains("values must be numbers or strings"));
  CHECK_THAT(load(std::string(t).replace(t.find("[case.grid]"), 11, "engine = \"fast\"\n[case.grid]")),
             Contains("unknown engine 'fast'"));
  CHECK_THAT(load("[[case]]\nname = \"x\"\nbounds = [\"E1\"\n"), Contains("bad.toml:"));
  CHECK_THAT(load(std::string(kGood) + kGood), Contains("duplicate case name"));
  CHECK_THAT(error_of([] { load_cases({"no/such/dir"}); }), Contains("no such file or directory"));
}

TEST_CASE("verdicts: a deliberately wrong bound is caught as violated", "[verify][runner]") {
  Case c = load_cases({temp_file("good.toml", kGood)}).front();
  // Test-only entries: the E1 formula halved (wrong), doubled (loose), and as a lower bound at 0.9 (holds).
  auto e1 = [](const Params& p) {
    return p.at("alpha") * p.at("delta") * p.at("delta") / (2 * (p.at("sigma1") * p.at("sigma1") + p.at("sigma2") * p.at("sigma2")));
  };
  auto entry = [](std::string id, Direction direction, std::function<BoundValue(const Params&)> bound) {
    return BoundEntry{.id = std::move(id), .family = "test", .source = "test", .statement = "a test bound",
                      .quantity = "renyi(alpha)", .direction = direction, .bound = std::move(bound)};
  };
  RunOptions o;
  o.extra_bounds = {entry("TEST.wrong", Direction::upper, [=](const Params& p) { return BoundValue{0.5 * e1(p), ""}; }),
                    entry("TEST.loose", Direction::upper, [=](const Params& p) { return BoundValue{2 * e1(p), ""}; }),
                    entry("TEST.lower", Direction::lower, [=](const Params& p) { return BoundValue{0.9 * e1(p), ""}; }),
                    entry("TEST.na", Direction::upper, [=](const Params& p) { return BoundValue{e1(p), ""}; })};
  o.extra_bounds.back().not_applicable = [](const Params&) -> std::optional<std::string> { return "hypothesis H fails"; };
  c.bounds = {"E1", "TEST.wrong", "TEST.loose", "TEST.lower", "TEST.na"};
  const auto rows = run_cases({c}, o);
  REQUIRE(rows.size() == 4 * 5);
  for (const Row& r : rows) {
    INFO(r.key() << " " << to_string(r.verdict) << " " << r.reason);
    if (r.id == "E1") CHECK(r.verdict == Verdict::tight);
    if (r.id == "TEST.wrong") {
      CHECK(r.verdict == Verdict::violated);
      CHECK_THAT(r.reason, Contains("> bound"));
    }
    if (r.id == "TEST.loose") CHECK(r.verdict == Verdict::holds);
    if (r.id == "TEST.lower") CHECK(r.verdict == Verdict::holds);
    if (r.id == "TEST.na") {
      CHECK(r.verdict == Verdict::not_applicable);
      // The reason, then what the formula gives without the hypothesis (here: exactly E1, so tight).
      CHECK_THAT(r.reason, Contains("hypothesis H fails; without it the formula gives"));
      CHECK_THAT(r.reason, Contains(": tight"));
    }
  }
  // The rules on intervals directly: a bound inside the error bar is tight only within the tolerance.
  Estimate e = Estimate::from_value(1.0, 0.1, ErrorKind::quadrature, "test");
  std::string why;
  CHECK(decide(Direction::upper, e, 1.05, 1e-6, why) == Verdict::inconclusive);
  CHECK(decide(Direction::upper, e, 1.2, 1e-6, why) == Verdict::holds);
  CHECK(decide(Direction::upper, e, 0.8, 1e-6, why) == Verdict::violated);
  CHECK(decide(Direction::upper, e, 1.05, 0.1, why) == Verdict::tight);
  CHECK(decide(Direction::lower, e, 1.2, 1e-6, why) == Verdict::violated);
  CHECK(decide(Direction::identity, e, 1.05, 1e-6, why) == Verdict::tight);
  CHECK(decide(Direction::identity, e, 1.5, 1e-6, why) == Verdict::violated);
}

TEST_CASE("a row that fails before its value is computed carries no value, no bound and no interval kind", "[verify][runner]") {
  // An error row used to keep the default estimate: 0 in [0, 0], labelled exact, in results.csv and results.json.
  Case c = load_cases({temp_file("good.toml", kGood)}).front();
  RunOptions o;
  o.extra_bounds = {BoundEntry{.id = "TEST.fails", .family = "test", .source = "test", .statement = "a test bound",
                               .quantity = "renyi(alpha)", .direction = Direction::upper,
                               .bound = [](const Params&) { return BoundValue{1, ""}; }}};
  o.extra_bounds.back().not_applicable = [](const Params&) -> std::optional<std::string> {
    throw std::runtime_error("the hypothesis cannot be evaluated here");
  };
  c.bounds = {"TEST.fails"};
  const auto rows = run_cases({c}, o);
  REQUIRE(!rows.empty());
  const Row& r = rows.front();
  REQUIRE(r.verdict == Verdict::error);
  CHECK_THAT(r.reason, Contains("cannot be evaluated"));
  CHECK(std::isnan(r.exact.value));
  CHECK(error_kind_label(r.exact) == "none");
  CHECK(std::isnan(r.bound));  // the bound was not computed either (it read 0)
  const FlatTable flat = flat_table({r});
  const auto column = [&](const std::string& name) {
    const auto at = std::find(flat.columns.begin(), flat.columns.end(), name);
    REQUIRE(at != flat.columns.end());
    return static_cast<std::size_t>(at - flat.columns.begin());
  };
  CHECK(std::get<std::string>(flat.rows[0][column("error_kind")]) == "none");
  CHECK(std::isnan(std::get<double>(flat.rows[0][column("exact")])));
  const nlohmann::json record = to_json(r);
  CHECK(record["exact"]["error_kind"] == "none");
  CHECK(record["bound"].is_null());
  const Row back = row_from_json(record);  // the record reads back as written: still no value
  CHECK(std::isnan(back.exact.value));
  CHECK(error_kind_label(back.exact) == "none");
  const auto dir = test::scratch() / "not_computed";
  std::filesystem::create_directories(dir);
  write_markdown({r}, ReportMeta{}, dir / "report.md");
  std::ifstream in(dir / "report.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string errors = md.substr(md.find("## Errors"));
  CHECK_THAT(errors, Contains("| not computed | not computed | error |"));
  CHECK_THAT(errors, !Contains("nan"));
}

TEST_CASE("golden results: unchanged runs pass, moved values and changed verdicts are caught", "[verify][runner]") {
  const Case c = load_cases({temp_file("golden_case.toml", kGood)}).front();
  auto rows = run_cases({c}, {});
  const auto dir = test::scratch() / "expected";
  update_golden(rows, dir);
  CHECK(check_golden(rows, dir, false).empty());
  auto moved = rows;
  moved[0].exact = Estimate::from_value(rows[0].exact.value * 1.001, 1e-12, ErrorKind::exact, "test");
  const auto p1 = check_golden(moved, dir, false);
  REQUIRE(p1.size() == 1);
  CHECK_THAT(p1[0], Contains("value moved"));
  auto changed = rows;
  changed[1].verdict = Verdict::violated;
  CHECK_THAT(check_golden(changed, dir, false).at(0), Contains("verdict changed tight -> violated"));
  changed.pop_back();
  CHECK_THAT(check_golden(changed, dir, false).back(), Contains("golden row missing"));
  CHECK(check_golden(changed, dir, true).size() == 1);  // partial runs (--only) ignore the rows not run
  // A bound is a formula of the point: a change beyond its rounding is reported, its rounding is not.
  auto rebound = rows;
  rebound[0].bound *= 1 + 1e-6;
  REQUIRE(check_golden(rebound, dir, false).size() == 1);
  CHECK_THAT(check_golden(rebound, dir, false).at(0), Contains("bound changed"));
  rebound[0].bound = rows[0].bound * (1 + 1e-12);
  CHECK(check_golden(rebound, dir, false).empty());
}

// Values below the double range are 0 as doubles: the golden rows keep their logs, and a move there is a move.
TEST_CASE("golden results below the double range: logs recorded, a move in log space caught, a range violation named", "[verify][runner]") {
  const Case c = load_cases({temp_file("golden_case.toml", kGood)}).front();
  auto rows = run_cases({c}, {});
  REQUIRE(rows.size() >= 2);
  rows[0].exact = Estimate::from_log_interval(-26784.84, 1e-9, ErrorKind::exact, "test");
  REQUIRE(rows[0].exact.value == 0);
  const auto dir = test::scratch() / "expected_logs";
  update_golden(rows, dir);
  const auto file = dir / (std::filesystem::path(rows[0].file).stem().string() + ".json");
  const nlohmann::json written = nlohmann::json::parse(read_text(file));
  CHECK(written[0].at("log_value").get<double>() == Catch::Detail::Approx(-26784.84).epsilon(1e-15));
  CHECK(written[0].contains("log_lower"));
  CHECK(!written[1].contains("log_value"));  // a value the double holds keeps no log
  CHECK(check_golden(rows, dir, false).empty());
  // The same 0 as a double, another number: caught, in logs.
  auto moved = rows;
  moved[0].exact = Estimate::from_log_interval(-20000, 1e-9, ErrorKind::exact, "test");
  REQUIRE(moved[0].exact.value == 0);
  const auto p = check_golden(moved, dir, false);
  REQUIRE(p.size() >= 1);
  CHECK_THAT(p[0], Contains("value moved exp(-26784.84") && Contains("-> exp(-20000)") && Contains("in logs"));
  // Within its bar it has not moved.
  moved[0].exact = Estimate::from_log_interval(-26784.84 + 5e-10, 1e-9, ErrorKind::exact, "test");
  CHECK(check_golden(moved, dir, false).empty());
  // An exact 0 now: changed.
  moved[0].exact = Estimate::from_value(0, 0, ErrorKind::exact, "test");
  REQUIRE(!check_golden(moved, dir, false).empty());
  CHECK_THAT(check_golden(moved, dir, false).at(0), Contains("-> 0"));
  // Above the double range alike: inf both times as a double, its log compared (adversary round 23: exp(5000) for
  // exp(1381.55) passed).
  {
    auto huge = rows;
    huge[0].exact = Estimate::from_log_interval(1381.55, 1e-9, ErrorKind::exact, "test");
    REQUIRE(std::isinf(huge[0].exact.value));
    const auto huge_dir = test::scratch() / "expected_huge";
    update_golden(huge, huge_dir);
    CHECK(check_golden(huge, huge_dir, false).empty());
    huge[0].exact = Estimate::from_log_interval(5000, 1e-9, ErrorKind::exact, "test");
    const auto h = check_golden(huge, huge_dir, false);
    REQUIRE(h.size() == 1);
    CHECK_THAT(h[0], Contains("value moved exp(1381.55") && Contains("-> exp(5000)"));
    // The lower end rounded down to the largest double keeps its log too: without it the recorded half-width in logs
    // was (1381.55 - 709.78) / 2 and a move of 0.15 went unseen.
    update_golden(huge, huge_dir);
    const auto huge_file = huge_dir / (std::filesystem::path(huge[0].file).stem().string() + ".json");
    const nlohmann::json h_written = nlohmann::json::parse(read_text(huge_file));
    CHECK(h_written[0].at("lower").get<double>() == std::numeric_limits<double>::max());
    CHECK(h_written[0].at("log_lower").get<double>() == Catch::Detail::Approx(5000).epsilon(1e-12));
    huge[0].exact = Estimate::from_log_interval(5000.15, 1e-9, ErrorKind::exact, "test");
    REQUIRE(check_golden(huge, huge_dir, false).size() == 1);
    nlohmann::json no_log = h_written;
    no_log[0].erase("log_lower");
    std::ofstream(huge_file) << no_log.dump(1);
    CHECK_THROWS_WITH(check_golden(huge, huge_dir, false), Contains("row 1: 'lower' is the largest double without 'log_lower'"));
  }
  // A log that is not its double's, or beside a double that holds the number, or null: refused when read.
  {
    nlohmann::json null_log = written;
    null_log[0]["log_value"] = nullptr;
    std::ofstream(file) << null_log.dump(1);
    CHECK_THROWS_WITH(check_golden(rows, dir, false), Contains("row 1: 'log_value' is null (a recorded log is a finite number"));
  }
  nlohmann::json bad = written;
  bad[0]["log_value"] = -20;
  std::ofstream(file) << bad.dump(1);
  CHECK_THROWS_WITH(check_golden(rows, dir, false), Contains("row 1: 'log_value' -20 is not the log of 'value' 0"));
  bad = written;
  bad[1]["log_value"] = std::log(written[1]["value"].get<double>() + 1);
  std::ofstream(file) << bad.dump(1);
  CHECK_THROWS_WITH(check_golden(rows, dir, false), Contains("row 2: 'log_value'"));
  // A recorded interval outside the divergence's range (a hand-widened bar that would hide any move) is named.
  rows = run_cases({c}, {});
  update_golden(rows, dir);
  nlohmann::json wide = nlohmann::json::parse(read_text(file));
  REQUIRE(rows[1].divergence);
  wide[1]["lower"] = -1e300;
  std::ofstream(file) << wide.dump(1);
  const auto q = check_golden(rows, dir, false);
  REQUIRE(q.size() == 1);
  CHECK_THAT(q[0], Contains("golden interval [-1.0000000000000001e+300") && Contains("lies outside the range of a"));
}

// A golden file is untrusted input: a row that contradicts itself (its key, its interval), a verdict that is none, two
// rows of one key, a key twice in one table, or a value nested past any stack is refused (exit 2 naming the file and
// the row), never read as something else.
TEST_CASE("golden files: self-contradicting, repeated and deeply nested rows are refused by name", "[verify][runner]") {
  const Case c = load_cases({temp_file("golden_case.toml", kGood)}).front();
  const auto rows = run_cases({c}, {});
  const auto dir = test::scratch() / "hostile_golden";
  update_golden(rows, dir);
  const auto file = dir / (std::filesystem::path(rows[0].file).stem().string() + ".json");
  std::string good;
  {
    std::ifstream in(file);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  const nlohmann::json valid = nlohmann::json::parse(good);
  REQUIRE(valid.size() >= 2);
  const auto refused = [&](const std::string& text) {
    std::ofstream(file, std::ios::trunc) << text;
    return error_of([&] { check_golden(rows, dir, false); });
  };
  const auto with = [&](const char* field, const nlohmann::json& v) {
    nlohmann::json j = valid;
    j[0][field] = v;
    return j.dump();
  };
  CHECK_THAT(refused(with("verdict", "banana")), Contains("row 1: 'verdict': unknown verdict \"banana\""));
  CHECK_THAT(refused(with("key", "another row")), Contains("row 1: 'key' \"another row\" is not its case, id and parameters"));
  CHECK_THAT(refused(with("id", "T.other")), Contains("is not its case, id and parameters"));
  CHECK_THAT(refused(with("lower", nullptr)), Contains("some null, some not"));
  CHECK_THAT(refused(with("value", 7)), Contains("'value' 7 is not in ['lower', 'upper']"));
  // An infinite end does not widen the check: a moved value is still caught.
  {
    nlohmann::json loose = valid;
    loose[0]["lower"] = "-inf";
    loose[0]["value"] = loose[0]["value"].get<double>() * 0.5;
    std::ofstream(file, std::ios::trunc) << loose.dump();
    const auto problems = check_golden(rows, dir, false);
    REQUIRE(problems.size() == 2);
    CHECK_THAT(problems[0], Contains("value moved"));
    CHECK_THAT(problems[1], Contains("golden interval [-inf,") && Contains("lies outside the range of a"));  // (a Rényi divergence is >= 0)
  }
  nlohmann::json twice = valid;
  twice.push_back(valid[0]);
  CHECK_THAT(refused(twice.dump()), Contains(fmt::format("row {}: the same key as row 1", twice.size())));
  std::string repeated = valid.dump();
  repeated.insert(repeated.find('{') + 1, "\"verdict\": \"violated\", ");
  CHECK_THAT(refused(repeated), Contains("the key \"verdict\" appears twice in one table"));
  // A list where a text goes: the message names the value by its size, never prints it.
  std::string nested = with("verdict", "X");
  nested.replace(nested.find("\"X\""), 3, std::string(20, '[') + std::string(20, ']'));
  const std::string message = refused(nested);
  CHECK_THAT(message, Contains("row 1: 'verdict': expected a text, got a list of 1 item(s)"));
  CHECK(message.size() < 1000);
  // Nested 100,000 deep: refused before it is parsed (copying and destroying such a tree recurse; a kernel file of
  // 150,000 brackets crashed).
  std::string deep = with("verdict", "X");
  deep.replace(deep.find("\"X\""), 3, std::string(100000, '[') + std::string(100000, ']'));
  CHECK_THAT(refused(deep), Contains("golden file: brackets nested more than 64 deep (at character"));
  CHECK(refused(deep).size() < 1000);
  CHECK_THAT(refused(with("verdict", std::string(1 << 20, 'x'))), Contains("(1048576 bytes)"));
  std::ofstream(file, std::ios::trunc) << good;
  CHECK(check_golden(rows, dir, false).empty());
}

TEST_CASE("every catalogue entry is exercised by a shipped case, on points known independently", "[verify][runner]") {
  const auto cases = load_cases({std::filesystem::path(PRIVAMP_SOURCE_DIR) / "cases"});
  std::set<std::string> exercised;
  for (const Case& c : cases) exercised.insert(c.bounds.begin(), c.bounds.end());
  for (const BoundEntry& b : bound_catalogue()) {
    INFO(b.id);
    CHECK(exercised.count(b.id) == 1);
  }
  // Independent values: bounds that are exact for their cases equal a closed form computed here.
  Params p;
  p.numbers = {{"alpha", 3}, {"delta", 2}, {"sigma1", 1}, {"sigma2", 1}, {"L", 0.5}, {"sigma", 1}, {"r", 3},
               {"t", 0.5}, {"theta", 1}, {"rho", 1}, {"lambda1", 1}, {"lambda2", 1}, {"n", 4}, {"scale", 1}};
  p.words = {{"noise", "gaussian"}};
  CHECK(find_bound("E1").bound(p).value == Approx(3.0 * 4 / 4).epsilon(1e-15));
  // T4.path with linear ψ equals the exact Gaussian-chain value αL^{2r}Δ²/(2σ²Σ_{j<r}L^{2j}).
  CHECK(find_bound("T4.path").bound(p).value == Approx(3 * std::pow(0.5, 6) * 4 / (2 * (1 + 0.25 + 0.0625))).epsilon(1e-14));
  // T6's numerically integrated Λ(t) equals C7's closed form for OU.
  CHECK(find_bound("T6").bound(p).value == Approx(find_bound("C7").bound(p).value).epsilon(1e-10));
  // RNA.thm for Gaussian noise: n·α(1/n)²/(2σ²) = α/(2nσ²).
  CHECK(find_bound("RNA.thm").bound(p).value == Approx(3.0 / 8).epsilon(1e-15));
  // E2 at λ1 = λ2: the optimum over w is the exact value's upper bound and beats w at either end.
  const double e2 = find_bound("E2").bound(p).value;
  CHECK(e2 <= laplace_renyi(2, 1, 3).value);
  CHECK(e2 >= 0);
}

TEST_CASE("the catalogue covers every result ID of THEOREMS.md", "[verify][runner]") {
  // The result IDs, read from the specification itself (docs/THEOREMS.md: the first cell of each table row; GT
  // rows are engine checks, tested in closed_form_test.cpp), against the built-in catalogue and the bounds the
  // shipped case files declare.
  std::ifstream spec(std::filesystem::path(PRIVAMP_SOURCE_DIR) / "docs" / "THEOREMS.md");
  REQUIRE(spec);
  std::set<std::string> ids;
  for (std::string line; std::getline(spec, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    const std::string id = line.substr(2, line.find(" |", 2) - 2);
    if (id == "ID" || id.rfind("GT.", 0) == 0 || id.find(' ') != std::string::npos || id.find('-') == 0) continue;
    ids.insert(id);
  }
  CHECK(ids.size() >= 35);
  const std::string cases = (std::filesystem::path(PRIVAMP_SOURCE_DIR) / "cases").string();
  const Loaded loaded = load({cases});  // with the bounds the shipped case files declare
  std::set<std::string> known;
  for (const BoundEntry& b : bound_catalogue()) known.insert(b.id);
  for (const BoundEntry& b : *loaded.bounds) known.insert(b.id);
  for (const std::string& id : ids) {
    INFO(id);
    CHECK(known.count(id) == 1);
  }
  for (const std::string& id : known) {
    INFO(id << " is not a result ID of THEOREMS.md");
    CHECK(ids.count(id) == 1);
  }
}

TEST_CASE("formulas: comparisons, if, sum, special functions and divergences with intervals", "[verify][runner]") {
  Params p;
  p.numbers = {{"n", 4}, {"b", 1}, {"Delta", 1}, {"alpha", 2}};
  p.words = {{"loss", "logistic"}};
  CHECK(evaluate_formula("n >= 1", p) == 1);
  CHECK(evaluate_formula("b > 2", p) == 0);
  CHECK(evaluate_formula("if(n == 4, 10, 20)", p) == 10);
  CHECK(evaluate_formula("sum(k, 0, n, binom(n, k))", p) == 16);
  CHECK(evaluate_formula("sum(k, 1, 0, k)", p) == 0);  // empty
  CHECK(evaluate_formula("Phi(0) + exp(logPhi(0))", p) == Approx(1).epsilon(1e-15));
  CHECK(evaluate_formula("erf(1) + erfc(1)", p) == Approx(1).epsilon(1e-15));
  CHECK(evaluate_formula("exp(lgamma(5))", p) == Approx(24).epsilon(1e-13));
  CHECK(evaluate_formula("pow(2, 10)", p) == 1024);
  // A divergence between laws whose arguments are formulas: R_2(N(1/4, 1) || N(0, 1)) = 2·(1/4)²/2 = 1/16; its
  // interval is carried through the arithmetic (here ×n).
  const FormulaValue v = evaluate_formula_interval("n * renyi(gaussian(Delta/n, b), gaussian(0, b), alpha)", p);
  CHECK(v.value == Approx(0.25).epsilon(1e-14));
  CHECK(v.lower <= 0.25);
  CHECK(0.25 <= v.upper);
  const FormulaValue hs = evaluate_formula_interval("hockey_stick(laplace(Delta, b), laplace(0, b), 0.5)", p);
  CHECK(hs.value == Approx(1 - std::exp(-0.25)).epsilon(1e-12));  // GT.lap.hs: 1 − e^{(ε − Δ/b)/2}
  CHECK(hs.lower <= hs.value);
  CHECK(evaluate_formula("tv(mix(q=0.5, gaussian(0, b), gaussian(Delta, b)), gaussian(0, b))", p) > 0);
  CHECK_THAT(error_of([&] { evaluate_formula("renyi(gauss(0, 1), gaussian(0, 1), 2)", p); }), Contains("'gauss' is not a law"));
  CHECK_THAT(error_of([&] { evaluate_formula("renyi(gaussian(0, 1), gaussian(0, 1))", p); }), Contains("expected the order"));
  CHECK_THAT(error_of([&] { evaluate_formula("sum(k, 0, 1e7, k)", p); }), Contains("at most 10^6"));
  CHECK_THAT(error_of([&] { evaluate_formula("renyi(gaussian(0, -1), gaussian(0, 1), 2)", p); }), Contains("sigma"));
  CHECK_THAT(error_of([&] { evaluate_formula(std::string(100, '(') + "1" + std::string(100, ')'), p); }), Contains("nesting"));
}

TEST_CASE("bounds declared as data: registered, checked against the case, decided through their intervals",
          "[verify][runner]") {
  const std::string text = R"toml(
[[bound]]
id = "TESTDECL.nfold"
statement = "n-fold Laplace <= n times one step"
quantity = "renyi"
direction = "upper"
requires = ["n >= 1"]
formula = "n * renyi(laplace(Delta/n, b), laplace(0, b), alpha)"

[[bound]]
id = "TESTDECL.too-small"
quantity = "renyi"
formula = "0.5 * renyi(laplace(Delta, b), laplace(0, b), alpha)"

[[bound]]
id = "TESTDECL.na"
quantity = "renyi"
requires = ["n >= 100"]
formula = "1"

)toml" + test::case_text({.name = "n-fold",
                                     .bounds = R"("TESTDECL.nfold", "TESTDECL.too-small", "TESTDECL.na")",
                                     .mu = "laplace_nfold({n}, {Delta}, {b})",
                                     .nu = "laplace_nfold({n}, 0, {b})",
                                     .grid = "n = [1, 3]\nDelta = 1\nb = 1\nalpha = 2\n"});
  const auto cases = load_cases({temp_file("declared.toml", text)});
  CHECK(cases.front().entry("TESTDECL.nfold").formula == "n * renyi(laplace(Delta/n, b), laplace(0, b), alpha)");
  CHECK_THROWS_AS(find_bound("TESTDECL.nfold"), InvalidArgument);  // nothing of a load is global
  const auto rows = run_cases(cases, RunOptions{});
  REQUIRE(rows.size() == 6);
  for (const Row& r : rows) {
    INFO(r.key() << " " << to_string(r.verdict) << " " << r.reason);
    if (r.id == "TESTDECL.nfold") {
      CHECK(r.verdict == (r.params.at("n") == 1 ? Verdict::tight : Verdict::holds));
      CHECK(r.bound_lower <= r.bound);  // the bound carries the engines' interval
      CHECK(r.bound <= r.bound_upper);
    }
    // R_α(P^{*n}) ≤ R_α(one step): half of the one-step value is below the exact value at n = 1.
    if (r.id == "TESTDECL.too-small" && r.params.at("n") == 1) CHECK(r.verdict == Verdict::violated);
    if (r.id == "TESTDECL.na") {
      CHECK(r.verdict == Verdict::not_applicable);
      CHECK_THAT(r.reason, Contains("needs n >= 100"));
    }
  }
  // The bound's quantity is checked against the case that lists it.
  const std::string wrong_quantity = R"toml(
[[bound]]
id = "TESTDECL.hs"
quantity = "hockey_stick"
formula = "1"
[[case]]
name = "renyi case"
bounds = ["TESTDECL.hs"]
mu = "gaussian(1, 1)"
nu = "gaussian(0, 1)"
quantity = "renyi"
order = "2"
[case.grid]
x = 1
)toml";
  CHECK_THAT(error_of([&] { load_cases({temp_file("wrong_quantity.toml", wrong_quantity)}); }),
             Contains("TESTDECL.hs bounds hockey_stick") && Contains("this case computes renyi"));
  // Built-in IDs cannot be redeclared; formulas are checked at load (unknown parameters, laws).
  CHECK_THAT(error_of([&] { parse_cases("[[bound]]\nid = \"E1\"\nquantity = \"renyi\"\nformula = \"1\"\n", "x.toml"); }),
             Contains("x.toml:2: key 'id'") && Contains("built in"));
  const std::string unknown_param = R"toml(
[[bound]]
id = "TESTDECL.typo"
quantity = "renyi"
formula = "alpha * sigmaa"
[[case]]
name = "typo"
bounds = ["TESTDECL.typo"]
mu = "gaussian(1, 1)"
nu = "gaussian(0, 1)"
quantity = "renyi"
order = "{alpha}"
[case.grid]
alpha = 2
)toml";
  CHECK_THAT(error_of([&] { load_cases({temp_file("typo.toml", unknown_param)}); }),
             Contains("TESTDECL.typo") && Contains("unknown parameter 'sigmaa'"));
}

TEST_CASE("formulas: intervals decide comparisons only when they can, real powers need a positive base", "[verify][runner]") {
  Params p;
  p.numbers = {{"alpha", 2}};
  // R_2(N(1,1) || N(0,1)) = 1 exactly: its interval straddles 1, so "< 1" is undecided and if() takes the hull.
  const FormulaValue undecided = evaluate_formula_interval("renyi(gaussian(1, 1), gaussian(0, 1), alpha) < 1", p);
  CHECK(undecided.lower == 0);
  CHECK(undecided.upper == 1);
  const FormulaValue hull = evaluate_formula_interval("if(renyi(gaussian(1, 1), gaussian(0, 1), alpha) < 1, 5, 7)", p);
  CHECK(hull.lower == 5);
  CHECK(hull.upper == 7);
  // Decided: the whole interval is below 10.
  CHECK(evaluate_formula_interval("renyi(gaussian(1, 1), gaussian(0, 1), alpha) < 10", p).upper == 1);
  // An interval result is widened outwards (rounding inside); an exact value stays a point.
  const FormulaValue sum = evaluate_formula_interval("renyi(gaussian(1, 1), gaussian(0, 1), alpha) + 0.1", p);
  CHECK(sum.lower < 1.1);
  CHECK(sum.upper > 1.1);
  CHECK(evaluate_formula_interval("binom(100, 50)", p).lower <= 1.0089134454556419e29);  // lgamma route
  CHECK(evaluate_formula_interval("binom(100, 50)", p).upper >= 1.0089134454556419e29);
  CHECK(evaluate_formula("binom(52, 5)", p) == 2598960);
  CHECK(evaluate_formula_interval("binom(66, 33)", p).lower <= 7219428434016265740.0);  // exact, then rounded
  CHECK(evaluate_formula_interval("binom(66, 33)", p).upper >= 7219428434016265740.0);
  // Only the taken branch is evaluated; an empty sum evaluates nothing (both still parsed).
  CHECK(evaluate_formula("if(alpha > 5, renyi(gaussian(0, -1), gaussian(0, 1), 2), 3)", p) == 3);
  CHECK(evaluate_formula("sum(k, 1, 0, renyi(gaussian(0, -1), gaussian(0, 1), 2))", p) == 0);
  CHECK_THAT(error_of([&] { evaluate_formula("if(alpha > 5, renyi(gauss(0, 1), gaussian(0, 1), 2), 3)", p); }),
             Contains("'gauss' is not a law"));
  // An integer power is defined below 0 (x·x): its enclosure is [0, w^2]; a real power of an interval reaching below 0
  // is outside the domain, an error that names it.
  const FormulaValue square = evaluate_formula_interval("(renyi(gaussian(1, 1), gaussian(0, 1), alpha) - 1)^2", p);
  CHECK(square.lower == 0);
  CHECK(square.upper > 0);
  CHECK(square.upper < 1e-20);
  CHECK_THAT(error_of([&] { evaluate_formula("(renyi(gaussian(1, 1), gaussian(0, 1), alpha) - 1)^0.5", p); }),
             Contains("a power of an interval outside its domain"));
  CHECK_THAT(error_of([&] { evaluate_formula("lgamma(renyi(gaussian(1, 1), gaussian(0, 1), alpha) - 1)", p); }),
             Contains("lgamma of an interval outside its domain"));
  // A quotient by an interval reaching 0 is an error naming it, not a bound of interval [-inf, inf].
  CHECK_THAT(error_of([&] { evaluate_formula("1 / (renyi(gaussian(1, 1), gaussian(0, 1), alpha) - 1)", p); }),
             Contains("a quotient is unbounded over its argument's interval"));
  CHECK_THAT(error_of([&] { evaluate_formula("if(renyi(gaussian(1, 1), gaussian(0, 1), alpha) > 1, 1/(renyi(gaussian(1, 1), gaussian(0, 1), alpha) - 1), 0)", p); }),
             Contains("unbounded"));
  // x^b on [0, h]: [0, h^b], not [0, 1].
  const FormulaValue root = evaluate_formula_interval("hockey_stick(gaussian(0, 1), gaussian(1, 1), 40)^0.5", p);
  CHECK(root.lower == 0);
  CHECK(root.upper < 1e-150);
  CHECK_THAT(error_of([&] { evaluate_formula("binom(2^53 + 2, 1)", p); }), Contains("0 <= n <= 2^53"));
}

TEST_CASE("the language: words compare by text, default() for optional parameters, sinh", "[verify][runner]") {
  Params p;
  p.numbers = {{"eps0", 1}};
  p.words = {{"noise", "laplace"}};
  CHECK(evaluate_formula("noise == laplace", p) == 1);
  CHECK(evaluate_formula("noise != laplace", p) == 0);
  CHECK(evaluate_formula("if(noise == gaussian, 1, 2)", p) == 2);
  CHECK(evaluate_formula("default(k, 2) + default(eps0, 5)", p) == 3);
  CHECK(evaluate_formula("sinh(eps0)", p) == std::sinh(1.0));
  CHECK_THAT(error_of([&] { evaluate_formula("noise < laplace", p); }), Contains("words compare only with == and !="));
  CHECK_THAT(error_of([&] { evaluate_formula("default(2, 3)", p); }), Contains("the first argument is a parameter name"));
  CHECK_THAT(error_of([&] { evaluate_formula("noise + 1", p); }), Contains("'laplace' where a number is expected"));
}

TEST_CASE("the catalogue's closed forms are tables, a user's value bound can name a built-in exact route", "[verify][runner]") {
  // Built-in tables: formula shown, not redeclarable, the same values as the derivations.
  const BoundEntry& e1 = find_bound("E1");
  CHECK(e1.formula == "alpha * delta * delta / (2 * (sigma1 * sigma1 + sigma2 * sigma2))");
  CHECK(e1.declared_in.empty());
  Params p;
  p.numbers = {{"alpha", 3}, {"delta", 2}, {"sigma1", 1}, {"sigma2", 2}, {"n", 1000}, {"eps0", 1}, {"eps", 0.3}};
  CHECK(e1.bound(p).value == 3.0 * 2 * 2 / (2 * (1 + 4)));
  // SHUF.thm with and without k (binary randomized response: k = 2).
  const double g = 2 / (std::exp(1.0) + 1), c = std::pow(std::exp(0.3) + 1, 2) * std::pow(2 * std::sinh(1.0), 2);
  const double expected = g * c / (4 * 1000 * std::expm1(0.3)) * std::exp(-0.86 * 1000 * std::min(g, std::expm1(0.3) * std::expm1(0.3) / (g * c)));
  CHECK(find_bound("SHUF.thm").bound(p).value == expected);
  CHECK_THAT(error_of([&] { parse_cases("[[bound]]\nid = \"E1\"\nquantity = \"renyi\"\nformula = \"1\"\n", "mine.toml"); }),
             Contains("built in"));
  // A user's value bound on the exact E_OU/E_GM ratio (route mse_ratio), checked by a value case.
  const auto path = temp_file("value_bound.toml", R"toml(
[[bound]]
id = "MY.ratio-half"
exact = "mse_ratio"
requires = ["t > 0"]
formula = "0.5"

[[case]]
name = "OU against GM, a deliberately wrong bound"
bounds = ["MY.ratio-half"]
kind = "value"
[case.grid]
d = 1
R = 1
rho = 1
delta = 1
theta = 0.5
t = 0.01
)toml");
  const auto rows = run_cases(load_cases({path}), {});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].quantity() == "E_OU/E_GM");
  CHECK(rows[0].cross.has_value());
  CHECK(rows[0].verdict == Verdict::violated);  // the ratio is close to 1 at small t
  CHECK_THAT(error_of([&] { parse_cases("[[bound]]\nid = \"MY.x\"\nexact = \"nope\"\nformula = \"1\"\n", "mine.toml"); }),
             Contains("unknown exact route 'nope' (known: blanket, gm_mse, mse_ratio, ou_mse)"));
}

TEST_CASE("built-in entries declare their parameters: missing, out-of-range and conditional ones refused at load",
          "[verify][runner]") {
  const std::string subsample = test::case_text({.name = "table",
                                                 .bounds = "\"SUB.table\"",
                                                 .mu = "subsample(scheme={scheme}, base=gaussian, n=100, m=10, side=1, sigma=1)",
                                                 .nu = "subsample(scheme={scheme}, base=gaussian, n=100, m=10, side=0, sigma=1)",
                                                 .quantity = "hockey_stick",
                                                 .order = "{eps_prime}",
                                                 .grid = "eps_prime = 1\nbase = \"gaussian\"\nsigma = 1\n"});
  // wor reads m and n; poisson reads q (each only under its scheme).
  CHECK_THAT(error_of([&] { parse_cases(subsample + "scheme = \"wor\"\nn = 100\n", "t.toml"); }),
             Contains("key 'grid': at eps_prime=1, n=100, sigma=1, base=gaussian, scheme=wor: SUB.table (built in) reads "
                      "parameter 'm' (an integer in [1, 1000000]) where scheme is wor or wr: missing"));
  CHECK_NOTHROW(parse_cases(subsample + "scheme = \"wor\"\nn = 100\nm = 10\n", "t.toml"));
  CHECK_THAT(error_of([&] { parse_cases(subsample + "scheme = \"poisson\"\nq = 0\n", "t.toml"); }),
             Contains("key 'grid.q': at eps_prime=1, q=0, sigma=1, base=gaussian, scheme=poisson: SUB.table (built in) "
                      "parameter 'q' = 0: must be a finite number in (0, 1]"));
  // A property's instances, bounded before any work; an explore range's end is checked like a grid point.
  const std::string property = R"toml(
[[case]]
name = "t2"
bounds = ["T2"]
kind = "property"
[case.grid]
alpha = 2
seed = 1
states = 4
)toml";
  CHECK_THAT(error_of([&] { parse_cases(property + "instances = 1e9\n", "p.toml"); }),
             Contains("key 'grid.instances'"));
  CHECK_THAT(error_of([&] { parse_cases(property + "instances = 10\n[case.explore]\nstates = {min = 2, max = 1000, integer = true}\n", "p.toml"); }),
             Contains("key 'explore.states': at alpha=2, instances=10, seed=1, states=1000: T2 (built in) parameter 'states' = 1000"));
  std::string worded = property;
  worded.replace(worded.find("alpha = 2"), 9, "alpha = \"two\"");
  CHECK_THAT(error_of([&] { parse_cases(worded + "instances = 10\n", "p.toml"); }),
             Contains("parameter 'alpha' = 'two': must be a finite number > 1"));
}

TEST_CASE("a row resting on a certified enclosure prints the estimate's value, not the enclosure's midpoint", "[verify][runner][certified]") {
  // Noisy projected SGD over 64 steps: the grid estimate is about 4e-42, the certified chain enclosure [0, 8.5e-9]
  // (its width does not shrink with the value). The verdict rests on the enclosure; the value printed and drawn is
  // the estimate's, inside it, where the midpoint 4.2e-9 would be no estimate of anything.
  const char* text = R"toml(
[[case]]
name = "sgd, 64 steps"
bounds = ["T5"]
mu = "noisy_sgd(n={n}, i=1, zi={R}, eta={eta}, sigma={sigma}, lambda={lambda}, R={R}, cells=200)"
nu = "noisy_sgd(n={n}, i=1, zi={-R}, eta={eta}, sigma={sigma}, lambda={lambda}, R={R}, cells=200)"
quantity = "renyi"
order = "{alpha}"
[case.grid]
n = 64
i = 1
eta = 0.5
sigma = 1
lambda = 1
R = 1
alpha = 2
)toml";
  const auto rows = run_cases(load_cases({temp_file("certified_value.toml", text)}), {});
  REQUIRE(rows.size() == 1);
  const Row& row = rows[0];
  REQUIRE(row.exact.error_kind == ErrorKind::certified);
  REQUIRE(row.cross.has_value());
  CHECK(row.cross->error_kind != ErrorKind::certified);
  CHECK(row.exact.value == row.cross->value);
  CHECK(row.exact.log_value() == Approx(row.cross->log_value()).epsilon(1e-14));
  CHECK(row.exact.lower <= row.exact.value);
  CHECK(row.exact.value <= row.exact.upper);
  CHECK(row.exact.value < 1e-30);
  CHECK(row.exact.upper > 1e-9);
  CHECK(row.verdict == Verdict::inconclusive);
}

TEST_CASE("a grid parameter that nothing reads is named before the run, and the shipped cases have none", "[verify][runner][notes]") {
  const char* text = R"toml(
[[bound]]
id = "MY.g"
quantity = "renyi"
formula = "alpha * delta^2 / 2"
requires = ["floor >= 0"]
[[case]]
name = "g"
bounds = ["MY.g"]
mu = "gaussian({delta}, 1)"
nu = "gaussian(0, 1)"
quantity = "renyi"
order = "{alpha}"
[case.grid]
alpha = 2
delta = [0.5, 1]
floor = [0, 1]
spare = [1, 2, 3]
label = ["a", "b"]
)toml";
  const std::vector<Case> cases = load_cases({temp_file("unread.toml", text)});
  REQUIRE(cases.size() == 1);
  // delta (a law), floor (a requirement of the declared bound) are read; spare and label are not.
  CHECK(unread_grid_parameters(cases[0]) == std::vector<std::string>{"label", "spare"});  // the grid's order
  const std::vector<std::string> notes = unread_parameter_notes(cases, {});
  REQUIRE(notes.size() == 2);
  CHECK_THAT(notes[1], Contains("unread.toml:7: case 'g': grid parameter 'spare' takes 3 values and nothing reads it"));
  CHECK_THAT(notes[1], Contains("every result is computed 3 times"));
  CHECK(unread_parameter_notes(cases, {"E1"}).empty());  // a case that does not run is not named
  // A figure of the file that reads a parameter (its x, a series' where or scale) counts as reading it.
  const std::string with_figure = std::string(text) + "[[figure]]\nname = \"f\"\nx = \"spare\"\n[[figure.series]]\ncase = \"g\"\n"
                                  "id = \"MY.g\"\nwhere = {label = \"a\"}\n";
  CHECK(unread_grid_parameters(parse_cases(with_figure, "figure.toml")[0]).empty());
  // Every shipped case reads every parameter it varies (a built-in entry's declared parameters, a formula inside a
  // word value, the kernel's constants count as reads).
  for (const char* folder : {"cases", "docs/examples"}) {
    const std::vector<Case> shipped = load_cases({std::filesystem::path(PRIVAMP_SOURCE_DIR) / folder});
    CHECK(shipped.size() > 0);
    for (const Case& c : shipped) {
      INFO(c.file << ": " << c.name);
      CHECK(unread_grid_parameters(c).empty());
    }
  }
}

TEST_CASE("an explore range may carry its axis label, held to the text policy", "[verify][runner][explore]") {
  const std::string head = "[[case]]\nname = \"g\"\nbounds = [\"E4\"]\nmu = \"gaussian({delta}, 1)\"\nnu = \"gaussian(0, 1)\"\n"
                           "quantity = \"renyi\"\norder = \"{alpha}\"\n[case.grid]\nalpha = 2\ndelta = 1\nt = 1\n[case.explore]\n";
  const auto cases = parse_cases(head + "delta = {min = 0.1, max = 2, label = \"Δ, the shift\"}\n", "label.toml");
  REQUIRE(cases.size() == 1);
  REQUIRE(cases[0].explore.size() == 1);
  CHECK(cases[0].explore[0].label == "Δ, the shift");
  CHECK(parse_cases(head + "delta = {min = 0.1, max = 2}\n", "label.toml")[0].explore[0].label.empty());
  CHECK_THAT(error_of([&] { parse_cases(head + "delta = {min = 0.1, max = 2, label = \"a\\u202Eb\"}\n", "label.toml"); }),
             Contains("label.toml:13: key 'explore.delta.label': holds a bidirectional control"));
  CHECK_THAT(error_of([&] { parse_cases(head + "delta = {min = 0.1, max = 2, label = \"" + std::string(81, 'x') + "\"}\n", "label.toml"); }),
             Contains("81 bytes; at most 80"));
  CHECK_THAT(error_of([&] { parse_cases(head + "delta = {min = 0.1, max = 2, label = \"  \"}\n", "label.toml"); }),
             Contains("key 'explore.delta.label': must not be blank"));
  CHECK_THAT(error_of([&] { parse_cases(head + "delta = {min = 0.1, max = 2, label = 3}\n", "label.toml"); }),
             Contains("key 'explore.delta.label': must be a string"));
}

TEST_CASE("a case's cross_check that is the route its engine fell to is passed over for another", "[verify][runner]") {
  // engine = auto falls to quadrature on a shifted clamp (the certified engine refuses its ends); cross_check =
  // quadrature then repeated the deciding route and read as confirmation. The true R_1.5 is 0.51288 (both
  // clamped Laplaces centred at the interval's ends: the unclamped pair's value), above the bound 0.48.
  const std::string text = R"toml(
[[bound]]
id = "X.r"
quantity = "renyi"
formula = "0.48"
[[case]]
name = "shifted clamp, quadrature cross-check"
bounds = ["X.r"]
mu = "shift(clamp(laplace(1, 1), 0, 1), by=0.3)"
nu = "shift(clamp(laplace(0, 1), 0, 1), by=0.3)"
quantity = "renyi"
order = "{alpha}"
cross_check = "quadrature"
[case.grid]
alpha = [1.5]
)toml";
  const auto rows = run_cases(load_cases({temp_file("repeated_route.toml", text)}), {});
  REQUIRE(rows.size() == 1);
  const Row& r = rows.front();
  INFO(r.note << " | " << r.exact.method);
  CHECK_THAT(r.note, Contains("second route quadrature is the route that decided; second route gsl"));
  REQUIRE(r.cross);
  CHECK_THAT(r.cross->method, Contains("GSL"));
  const double truth = 2 * std::log(0.75 * std::exp(0.5) + 0.25 * std::exp(-1.5));
  CHECK(r.exact.lower <= truth);
  CHECK(truth <= r.exact.upper);
  CHECK(r.verdict == Verdict::violated);
}

// E_OU/E_GM of Theorem 8 (a) leaves the double range from θt ≈ 354 (σ̃² = ρ²(e^{2θt} − 1)/θ overflows): it was a silent
// 0 labelled exact, [0, 0], where the truth is positive. Now in log space, from the engine's R_2 in logs while it
// runs, from C7's closed form once the laws' means underflow; both against the closed form computed here.
TEST_CASE("the OU against Gaussian MSE ratio below the double range is printed in log space and not as 0", "[verify][runner]") {
  const char* text = R"toml(
[[case]]
name = "T8.a far out"
bounds = ["T8.a"]
kind = "value"
[case.grid]
d = 10
R = 1
rho = 1
delta = 1
theta = [40, 80]
t = [5, 10]
)toml";
  const auto rows = run_cases(load_cases({temp_file("t8a_far.toml", text)}), {});
  REQUIRE(rows.size() == 4);
  for (const Row& row : rows) {
    const double theta = row.params.at("theta"), t = row.params.at("t"), d = 10;
    const double mse = std::pow(1 - std::exp(-theta * t), 2) + d / theta * -std::expm1(-2 * theta * t);
    const double log_ratio = std::log(mse) - std::log(d) - (std::log(1 / theta) + 2 * theta * t + std::log1p(-std::exp(-2 * theta * t)));
    INFO("theta = " << theta << ", t = " << t);
    CHECK(row.exact.log_value() == Approx(log_ratio).epsilon(1e-12));
    CHECK(row.exact.log_lower() <= log_ratio + 1e-9);
    CHECK(row.exact.log_upper() >= log_ratio - 1e-9);
    CHECK(row.exact.error_kind == ErrorKind::exact);
  }
}
