// privamp explore: the search space's mapping, the objective, determinism over threads and (simulated) processes,
// a known optimum found, violations found only outside the hypotheses and reported through the full re-evaluation,
// points without a ratio kept away from the optimiser, bad input refused; rows survive the byte encoding used
// between processes bit for bit.
#include <barrier>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "support/cases.hpp"
#include "numerics/errors.hpp"
#include "verify/explore/explore.hpp"
#include "verify/explore/explore_report.hpp"
#include "verify/runner/codec.hpp"

using namespace privamp;
using namespace privamp::verify;

namespace {

Case load_one(const std::string& text) {
  auto cases = parse_cases(text, "explore_test.toml");
  REQUIRE(cases.size() == 1);
  return cases.front();
}

// r noisy linear Gaussian steps: T4.closed/exact grows as L falls and r grows (the closed form loses a factor
// that grows with r for L < 1), and T4.closed needs L <= 1.
const std::string kChain = R"toml(
[[case]]
name = "chain"
bounds = ["T4.path", "T4.closed"]
mu = "gaussian_chain(x0={delta}, r={r}, L={L}, sigma={sigma})"
nu = "gaussian_chain(x0=0, r={r}, L={L}, sigma={sigma})"
quantity = "renyi"
order = "{alpha}"
tolerance = 1e-9
cross_check = "quadrature"
[case.grid]
alpha = 2
delta = 1
sigma = [1, 2]
L = 0.5
r = 1
[case.explore]
L = {min = 0.3, max = LMAX}
r = {min = 1, max = 30, integer = true}
)toml";

Case chain(double lmax) {
  std::string text = kChain;
  text.replace(text.find("LMAX"), 4, std::to_string(lmax));
  return load_one(text);
}

}  // namespace

TEST_CASE("the search space maps the unit cube onto ranges, integers and choices", "[explore]") {
  const Case c = load_one(test::case_text({.name = "space", .grid = R"toml(
alpha = 2
delta = [1, 2, 3]
sigma1 = 1
sigma2 = 1
kind = "a"
)toml", .more = R"toml([case.explore]
alpha = {min = 2, max = 200, scale = "log"}
sigma1 = {min = 1, max = 10, integer = true}
kind = ["a", "b"]
)toml"}));
  const SearchSpace s(c);
  REQUIRE(s.dimension() == 4);  // alpha, delta (several grid values: a choice), sigma1, kind; sigma2 fixed
  CHECK(s.fixed.at("sigma2") == 1);
  const Params lo = s.point(std::vector<double>{0, 0, 0, 0});
  const Params mid = s.point(std::vector<double>{0.5, 0.5, 0.5, 0.5});
  const Params hi = s.point(std::vector<double>{1, 1, 1, 1});
  CHECK(lo.at("alpha") == Approx(2));
  CHECK(mid.at("alpha") == Approx(20));  // log scale: the geometric middle
  CHECK(hi.at("alpha") == Approx(200));
  CHECK(lo.at("delta") == 1);
  CHECK(mid.at("delta") == 2);
  CHECK(hi.at("delta") == 3);
  CHECK(mid.at("sigma1") == std::round(mid.at("sigma1")));
  CHECK(hi.at("sigma1") == 10);
  CHECK(lo.word("kind") == "a");
  CHECK(hi.word("kind") == "b");
  auto axis = [&](const std::string& name) {
    for (std::size_t j = 0; j < s.dimension(); ++j)
      if (s.axes[j].name == name) return j;
    FAIL("no axis " << name);
    return std::size_t{0};
  };
  CHECK(s.continuous(axis("alpha")));
  CHECK_FALSE(s.continuous(axis("delta")));
  CHECK_FALSE(s.continuous(axis("kind")));
  CHECK(s.continuous(axis("sigma1")));  // ten integers: refined locally (and rounded)
}

TEST_CASE("the objective: loosest maximises the slack, tightest its size, violation its negative part", "[explore]") {
  CHECK(objective(Goal::loosest, 2.0) == -2.0);
  CHECK(objective(Goal::tightest, -0.5) == 0.5);
  CHECK(objective(Goal::violation, -0.5) == -0.5);
  CHECK(std::isnan(objective(Goal::loosest, std::nan(""))));
  CHECK(parse_goal("violation") == Goal::violation);
  CHECK_THROWS_WITH(parse_goal("worst"), Catch::Contains("allowed loosest, tightest, violation"));
}

TEST_CASE("loosest finds the corner where T4.closed is loosest, identically with one or two threads", "[explore]") {
  const Case c = chain(1.0);
  ExploreOptions o;
  o.budget = 120;
  o.seed = 7;
  o.jobs = 1;
  const ExploreResult one = explore(c, "T4.closed", o);
  o.jobs = 2;
  const ExploreResult two = explore(c, "T4.closed", o);
  REQUIRE(one.evaluations.size() == two.evaluations.size());
  for (std::size_t i = 0; i < one.evaluations.size(); ++i) {
    CHECK(one.evaluations[i].u == two.evaluations[i].u);
    CHECK((one.evaluations[i].slack == two.evaluations[i].slack || (std::isnan(one.evaluations[i].slack) && std::isnan(two.evaluations[i].slack))));
  }
  REQUIRE(!one.best.empty());
  const Row& best = one.best.front();
  CHECK(best.verdict == Verdict::holds);
  // The loosest point is the corner L = 0.3, r = 30 (smallest contraction, most steps); the search reports a
  // ratio at least that of the corner evaluated directly, within the search's own quadrature tolerance.
  Params corner = SearchSpace(c).fixed;
  corner.numbers["L"] = 0.3;
  corner.numbers["r"] = 30;
  corner.numbers["sigma"] = best.params.at("sigma");
  const Row direct = evaluate_point(c, c.with_derived(corner), {"T4.closed"}).front();
  CHECK(best.params.at("r") >= 27);
  CHECK(best.params.at("L") <= 0.33);
  CHECK(std::log(best.bound / best.exact.value) >= std::log(direct.bound / direct.exact.value) - 0.05);
}

TEST_CASE("a violation is found only outside the hypotheses, and decided by the full re-evaluation", "[explore]") {
  const Case c = chain(1.5);  // L up to 1.5: T4.closed does not apply above 1
  ExploreOptions o;
  o.budget = 40;
  o.goal = Goal::violation;
  const ExploreResult inside = explore(c, "T4.closed", o);
  for (const Evaluation& e : inside.evaluations)
    if (e.point.at("L") > 1) CHECK(e.status == Evaluation::Status::not_applicable);
  for (const Row& r : inside.best) {
    CHECK(r.params.at("L") <= 1);
    CHECK(r.verdict != Verdict::violated);
  }
  o.ignore_hypotheses = true;
  const ExploreResult outside = explore(c, "T4.closed", o);
  REQUIRE(!outside.best.empty());
  const Row& worst = outside.best.front();
  // T4.closed's formula beyond L = 1: either refuted there or not; whatever the search reports is the full
  // re-evaluation's verdict, and a point outside the hypotheses says which hypothesis fails.
  if (worst.params.at("L") > 1) CHECK_THAT(worst.outside, Catch::Contains("needs L <= 1"));
  else CHECK(worst.outside.empty());
  for (const Evaluation& e : outside.evaluations)
    if (e.status == Evaluation::Status::ok) CHECK(e.outside == (e.point.at("L") > 1));
}

TEST_CASE("points without a ratio are reported as such and never become candidates", "[explore]") {
  // delta = 0: a (eps, 0)-DP mechanism through any kernel has delta' = 0 at eps' = eps, and T1.1's bound is 0.
  const Case c = load_one(R"toml(
[[case]]
name = "zeros"
bounds = ["T1.1"]
kind = "kernel"
kernel = "randomized_response"
quantity = "hockey_stick"
order = "{eps}"
[case.grid]
k = 3
eps0 = 1
eps = 1
delta = 0
[case.explore]
eps0 = {min = 0.1, max = 3}
)toml");
  ExploreOptions o;
  o.budget = 12;
  const ExploreResult r = explore(c, "T1.1", o);
  for (const Evaluation& e : r.evaluations) CHECK(e.status == Evaluation::Status::exact_zero);
  CHECK(r.best.empty());
  CHECK_THAT(explore_markdown(c, r, o, "zeros"), Catch::Contains("No candidate point"));
}

namespace {

// Two "processes" as two threads of this test, exchanging through shared memory: the same all_gather contract
// as MPI, so the packing of evaluations between ranks is tested without an MPI launcher.
class ThreadCommunicator : public Communicator {
 public:
  struct Shared {
    explicit Shared(int n) : slots(n), bytes(n), sync(n) {}
    std::vector<std::vector<std::uint8_t>> slots;
    std::vector<std::vector<std::uint8_t>> bytes;
    std::barrier<> sync;
  };
  ThreadCommunicator(Shared& s, int rank) : s_(s), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(s_.slots.size()); }
  std::vector<std::vector<std::uint8_t>> all_gather(const std::vector<std::uint8_t>& mine) const override {
    s_.slots[rank_] = mine;
    s_.sync.arrive_and_wait();
    auto all = s_.slots;
    s_.sync.arrive_and_wait();
    return all;
  }
  std::vector<std::vector<std::uint8_t>> gather(const std::vector<std::uint8_t>& mine) const override {
    s_.bytes[rank_] = mine;
    s_.sync.arrive_and_wait();
    std::vector<std::vector<std::uint8_t>> all;
    if (rank_ == 0) all = s_.bytes;
    s_.sync.arrive_and_wait();
    return all;
  }

 private:
  Shared& s_;
  int rank_;
};

}  // namespace

TEST_CASE("results over two processes equal a one-process run", "[explore]") {
  const Case c = chain(1.5);
  ExploreOptions o;
  o.budget = 30;
  o.ignore_hypotheses = true;
  const ExploreResult single = explore(c, "T4.closed", o);
  ThreadCommunicator::Shared shared(2);
  std::vector<ExploreResult> results;
  std::mutex m;
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      ThreadCommunicator comm(shared, r);
      ExploreOptions mine = o;
      mine.communicator = &comm;
      ExploreResult result = explore(c, "T4.closed", mine);
      std::lock_guard<std::mutex> lock(m);
      if (r == 0) results.insert(results.begin(), std::move(result));
      else results.push_back(std::move(result));
    });
  for (auto& t : ranks) t.join();
  REQUIRE(results.size() == 2);
  for (const ExploreResult& r : results) {
    REQUIRE(r.evaluations.size() == single.evaluations.size());
    for (std::size_t i = 0; i < r.evaluations.size(); ++i) {
      const Evaluation &a = r.evaluations[i], &b = single.evaluations[i];
      CHECK(a.u == b.u);
      CHECK(a.status == b.status);
      CHECK(a.message == b.message);
      CHECK((a.slack == b.slack || (std::isnan(a.slack) && std::isnan(b.slack))));
    }
  }
  // The re-evaluations are shared out; the first process collects and reports them.
  REQUIRE(results[0].best.size() == single.best.size());
  for (std::size_t k = 0; k < single.best.size(); ++k) {
    CHECK(results[0].best[k].exact.value == single.best[k].exact.value);
    CHECK(results[0].best[k].verdict == single.best[k].verdict);
  }
  CHECK(results[1].best.empty());
}

TEST_CASE("explore tables and options are checked", "[explore]") {
  const std::string head = test::case_text({.name = "bad", .grid = "alpha = 2\ndelta = 1\nsigma1 = 1\nsigma2 = 1\n",
                                            .more = "[case.explore]\n"});
  auto refused = [&](const std::string& line, const std::string& message) {
    CHECK_THROWS_WITH(parse_cases(head + line + "\n", "explore_bad.toml"), Catch::Contains(message));
  };
  refused("beta = {min = 1, max = 2}", "key 'explore.beta': is not a grid parameter");
  refused("delta = {min = 2, max = 1}", "key 'explore.delta.max': must exceed min = 2");
  refused("delta = {min = 0, max = 1, scale = \"log\"}", "a log-scale range needs min > 0");
  refused("delta = {min = 0.5, max = 3, integer = true}", "an integer range needs integer ends");
  refused("delta = []", "empty list of choices");
  refused("delta = {min = 1, max = 2, step = 1}", "unknown key");
  refused("alpha = {min = 0.5, max = 2}", "key 'order'");  // the order at the range's end is not a valid alpha
  const Case ok = chain(1.0);
  ExploreOptions o;
  o.budget = 1;
  CHECK_THROWS_WITH(explore(ok, "T4.closed", o), Catch::Contains("budget"));
  o.budget = 10;
  CHECK_THROWS_WITH(explore(ok, "E1", o), Catch::Contains("does not check E1"));
  const Case none = load_one(head.substr(0, head.find("[case.explore]")));
  CHECK_THROWS_WITH(explore(none, "E1", o), Catch::Contains("no search space"));
}

TEST_CASE("rows survive the encoding between processes bit for bit", "[explore][runner]") {
  Row r;
  r.file = "f.toml";
  r.case_name = "c";
  r.id = "E1";
  r.params.numbers = {{"alpha", 2.5}, {"tiny", 4.9e-324}};
  r.params.words = {{"noise", "laplace"}};
  r.exact = Estimate::from_log(-800, 1e-12, ErrorKind::quadrature, "test");
  r.cross = Estimate::infinite("inf");
  r.bound = 1.0 / 3.0;
  r.order = 2.5;
  r.verdict = Verdict::inconclusive;
  r.reason = "why";
  r.outside = "needs L <= 1";
  const TaskRows rows = {{3, {r}}, {7, {}}};
  const TaskRows back = decode_rows(encode_rows(rows));
  REQUIRE(back.size() == 2);
  CHECK(back[0].first == 3);
  CHECK(back[1].first == 7);
  CHECK(back[1].second.empty());
  const Row& b = back[0].second.at(0);
  CHECK(b.params.numbers == r.params.numbers);
  CHECK(b.params.words == r.params.words);
  CHECK(b.exact.log_value == -800);
  CHECK(b.exact.lower == r.exact.lower);
  CHECK(b.exact.upper == r.exact.upper);
  CHECK(b.exact.log_lower == r.exact.log_lower);
  CHECK(std::isinf(b.cross->value));
  CHECK(std::isnan(b.bound_lower));
  CHECK(b.bound == r.bound);
  CHECK(b.verdict == Verdict::inconclusive);
  CHECK(b.outside == r.outside);
  CHECK(b.exact.method == "test");
}
