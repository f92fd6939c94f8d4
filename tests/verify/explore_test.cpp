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
#include "plots/explore_parts.hpp"
#include "verify/explore/explore.hpp"
#include "verify/explore/explore_report.hpp"
#include "verify/records/codec.hpp"

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
  // A point on a range's end is named (its optimum may lie beyond the box), on the axis's own scale: within a
  // thousandth of the log range for alpha, never for a choice.
  ExploreResult r;
  r.space = s;
  CHECK(edges_text(r, lo) == "alpha = 2 at its lower end, sigma1 = 1 at its lower end");
  CHECK(edges_text(r, hi) == "alpha = 200 at its upper end, sigma1 = 10 at its upper end");
  CHECK(edges_text(r, mid).empty());
  Params near = mid;
  near.numbers["alpha"] = 2 * std::pow(100.0, 0.0009);  // 0.09% of the log range above 2
  CHECK(edges_text(r, near) == "alpha = " + privamp::format_number(near.at("alpha")) + " at its lower end");
  near.numbers["alpha"] = 2 * std::pow(100.0, 0.002);
  CHECK(edges_text(r, near).empty());
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
    if (e.status == Evaluation::Status::ok) CHECK(e.outside() == (e.point.at("L") > 1));
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
  // (the kernel's delta' comes as [0, u], u its rounding: known from above only, which is no zero either)
  for (const Evaluation& e : r.evaluations) {
    INFO("exact [" << e.exact_lower() << ", " << e.exact_upper() << "]");
    CHECK(e.status == (e.exact_upper() > 0 ? Evaluation::Status::exact_bounded_above : Evaluation::Status::exact_zero));
    CHECK(std::isnan(e.slack));
  }
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
      CHECK(a.message() == b.message());
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
  CHECK(b.exact.log_value() == -800);
  CHECK(b.exact.lower == r.exact.lower);
  CHECK(b.exact.upper == r.exact.upper);
  CHECK(b.exact.log_lower() == r.exact.log_lower());
  CHECK(std::isinf(b.cross->value));
  CHECK(std::isnan(b.bound_lower));
  CHECK(b.bound == r.bound);
  CHECK(b.verdict == Verdict::inconclusive);
  CHECK(b.outside == r.outside);
  CHECK(b.exact.method == "test");
}

TEST_CASE("distinct points differ by 1% of a real axis, or in a choice or an integer", "[explore]") {
  const Case c = load_one(test::case_text({.name = "distinct", .grid = R"toml(
alpha = 2
delta = [1, 2, 3]
sigma1 = 1
sigma2 = 1
)toml", .more = R"toml([case.explore]
alpha = {min = 2, max = 200, scale = "log"}
sigma1 = {min = 1, max = 3, integer = true}
)toml"}));
  const SearchSpace s(c);  // axes: alpha, delta (choice), sigma1
  const std::vector<double> a = {0.5, 0.10, 0.50};
  CHECK_FALSE(s.distinct(a, std::vector<double>{0.505, 0.20, 0.45}));  // same choice, same integer, 0.5% apart
  CHECK(s.distinct(a, std::vector<double>{0.52, 0.10, 0.50}));         // 2% of alpha's (log) range
  CHECK(s.distinct(a, std::vector<double>{0.5, 0.50, 0.50}));          // another choice of delta
  CHECK(s.distinct(a, std::vector<double>{0.5, 0.10, 0.99}));          // another integer
}

TEST_CASE("a region of interest: points outside the where conditions are never candidates", "[explore]") {
  Case c = chain(1.0);
  ExploreOptions o;
  o.budget = 60;
  o.goal = Goal::loosest;
  const ExploreResult free = explore(c, "T4.closed", o);
  REQUIRE_FALSE(free.best.empty());
  CHECK(free.best.front().params.at("r") > 10);  // unconstrained, the loosest point has many steps
  o.where = {"r <= 5", "ratio < 1e6"};
  const ExploreResult r = explore(c, "T4.closed", o);
  REQUIRE_FALSE(r.best.empty());
  CHECK(r.where == o.where);
  std::size_t outside = 0;
  for (const Evaluation& e : r.evaluations)
    if (e.status == Evaluation::Status::ok) {
      CHECK(e.in_region == (e.point.at("r") <= 5 && e.bound() / e.exact() < 1e6));
      outside += !e.in_region;
    }
  CHECK(outside > 0);
  for (const Row& row : r.best) CHECK(row.params.at("r") <= 5);
  // A condition naming no parameter is refused before anything runs.
  o.where = {"rr <= 5"};
  CHECK_THROWS_WITH(explore(c, "T4.closed", o), Catch::Contains("--where 'rr <= 5'") && Catch::Contains("unknown parameter 'rr'"));
  // In a case file: checked at load, with file, line and key.
  std::string text = std::string(kChain) + "where = [\"r <=\"]\n";
  text.replace(text.find("LMAX"), 4, "1");
  CHECK_THROWS_WITH(parse_cases(text, "w.toml"), Catch::Contains("explore.where"));
}

namespace {
// Random Dirichlet kernels: at small concentrations the kernel barely mixes and T1.3 is trivially tight.
const char* kKernels = R"toml(
[[case]]
name = "kernels"
bounds = ["T1.3"]
kind = "kernel"
kernel = "dirichlet"
quantity = "hockey_stick"
order = "{eps}"
[case.grid]
states = 4
concentration = 1
seed = 1
eps = 1
delta = 0.1
[case.explore]
concentration = {min = 0.05, max = 10, scale = "log"}
seed = {min = 1, max = 500, integer = true}
eps = {min = 0.1, max = 3, scale = "log"}
delta = {min = 1e-3, max = 0.5, scale = "log"}
DEGENERATE
)toml";

Case kernels(const std::string& degenerate) {
  std::string text = kKernels;
  text.replace(text.find("DEGENERATE"), 10, degenerate);
  return load_one(text);
}
}  // namespace

TEST_CASE("degenerate points are searched apart and named, never the answer", "[explore]") {
  ExploreOptions o;
  o.budget = 150;
  o.goal = Goal::tightest;
  const ExploreResult plain = explore(kernels(""), "T1.3", o);
  const Case c = kernels("degenerate = [\"gamma_doeblin >= 0.999\", \"exact >= 0.999 * delta\"]");
  const ExploreResult r = explore(c, "T1.3", o);
  REQUIRE_FALSE(plain.best.empty());
  REQUIRE_FALSE(r.best.empty());
  std::size_t degenerate = 0;
  for (const Evaluation& e : r.evaluations) {
    if (e.status != Evaluation::Status::ok) continue;
    const bool is = e.point.at("gamma_doeblin") >= 0.999 || e.exact() >= 0.999 * e.point.at("delta");
    CHECK(e.degenerate.empty() != is);
    degenerate += is;
  }
  CHECK(degenerate > 0);
  for (std::size_t i : r.best_index) CHECK(r.evaluations[i].degenerate.empty());
  // Without the conditions the tightest point is a degenerate one; with them it is named and set apart.
  const Evaluation& first = plain.evaluations[plain.best_index.front()];
  const Params p = with_search_values(first.point, first.exact(), first.bound());
  REQUIRE((p.at("gamma_doeblin") >= 0.999 || p.at("exact") >= 0.999 * p.at("delta")));
  REQUIRE(r.degenerate_index);
  REQUIRE(r.degenerate);
  CHECK_FALSE(r.evaluations[*r.degenerate_index].degenerate.empty());
  CHECK(std::abs(r.evaluations[*r.degenerate_index].slack) <= std::abs(r.evaluations[r.best_index.front()].slack));
}

TEST_CASE("a frontier: the best ratio per bin of a derived quantity, each bin searched on its own", "[explore]") {
  const Case c = kernels("degenerate = [\"gamma_doeblin >= 0.999\"]");
  ExploreOptions o;
  o.budget = 200;
  o.goal = Goal::tightest;
  const FrontierResult f = frontier(c, "T1.3", o, "gamma_doeblin", 5);
  REQUIRE(f.bins.size() == 5);
  CHECK(f.name == "gamma_doeblin");
  std::size_t with_best = 0;
  for (std::size_t b = 0; b < f.bins.size(); ++b) {
    const FrontierBin& bin = f.bins[b];
    if (b > 0) CHECK(bin.lower == f.bins[b - 1].upper);
    if (!bin.best_index) continue;
    ++with_best;
    REQUIRE(bin.best);
    const Evaluation& best = f.search.evaluations[*bin.best_index];
    const double g = best.point.at("gamma_doeblin");
    CHECK(g >= bin.lower);
    CHECK(g <= bin.upper);
    CHECK(best.degenerate.empty());
    // No candidate in the bin is tighter.
    for (const Evaluation& e : f.search.evaluations)
      if (e.status == Evaluation::Status::ok && e.degenerate.empty() && e.point.at("gamma_doeblin") >= bin.lower &&
          e.point.at("gamma_doeblin") < bin.upper)
        CHECK(std::abs(best.slack) <= std::abs(e.slack));
    CHECK(bin.best->verdict != Verdict::error);
  }
  CHECK(with_best >= 3);
  CHECK(f.search.evaluations.size() > f.search.global_points);  // the bins were refined
  for (const auto& bin : f.bins) CHECK((bin.refined > 0) == bin.not_refined.empty());  // each says whether, or why not
  // An unknown quantity is refused with the names there are.
  CHECK_THROWS_WITH(frontier(c, "T1.3", o, "gamma_dobelin", 5), Catch::Contains("known:") && Catch::Contains("gamma_doeblin"));
  CHECK_THROWS_AS(frontier(c, "T1.3", o, "gamma_doeblin", 0), InvalidArgument);
}

TEST_CASE("values below the smallest normal double have no ratio", "[explore][report]") {
  Row r;
  r.verdict = Verdict::holds;  // a ratio only where the verdict compared the two
  r.exact = Estimate::from_value(7.39e-309, 0, ErrorKind::exact, "closed form");
  r.bound = 1;
  CHECK(std::isnan(r.ratio()));
  r.exact = Estimate::from_value(1e-300, 0, ErrorKind::exact, "closed form");
  CHECK(r.ratio() == Approx(1e300));
  r.bound = 5e-320;
  CHECK(std::isnan(r.ratio()));
  CHECK(std::isnan(with_search_values({}, 7.39e-309, 1).at("ratio")));
}

TEST_CASE("violation on an identity looks for the refuting point: a half-wrong identity is refuted", "[explore]") {
  // R_2(N(delta, 1) || N(0, 1)) = delta^2; the declared identity is wrong by 10 % where delta >= 1. The slack of an
  // identity is minus the distance between the intervals, so the violation goal climbs away from agreement.
  const Case c = load_one(R"toml(
[[bound]]
id = "TESTX.half-wrong"
quantity = "renyi"
direction = "identity"
formula = "if(delta < 1, delta^2, 1.1 * delta^2)"

[[case]]
name = "half-wrong identity"
bounds = ["TESTX.half-wrong"]
mu = "gaussian({delta}, 1)"
nu = "gaussian(0, 1)"
quantity = "renyi"
order = "2"
[case.grid]
delta = 0.5
[case.explore]
delta = {min = 0.1, max = 2}
)toml");
  ExploreOptions o;
  o.budget = 30;
  o.goal = Goal::violation;
  const ExploreResult r = explore(c, "TESTX.half-wrong", o);
  REQUIRE(!r.best.empty());
  CHECK(r.best.front().verdict == Verdict::violated);
  CHECK(r.best.front().params.at("delta") >= 1);
  for (const Evaluation& e : r.evaluations)
    if (e.status == Evaluation::Status::ok) CHECK((e.slack < 0) == (e.point.at("delta") >= 1));
  o.goal = Goal::loosest;  // the opposite goal finds agreement
  const ExploreResult agree = explore(c, "TESTX.half-wrong", o);
  REQUIRE(!agree.best.empty());
  CHECK(agree.best.front().verdict == Verdict::tight);
}

TEST_CASE("explore: a best ratio from a wide interval states what the intervals establish", "[verify][explore]") {
  // An upper bound of 1.3e-13 against an engine value of 1.6e-47 enclosed in [0, 2.4e-15]: the values' ratio is 8e33,
  // but only bound/upper = 54 is established, and nothing above it.
  Row row;
  row.direction = Direction::upper;
  row.bound = 1.3e-13;
  row.exact.value = 1.6e-47;
  row.exact.lower = 0;
  row.exact.upper = 2.4e-15;
  CHECK(ratio_range_note(Direction::upper, row) == " (the intervals allow " + ratio_text(std::log(1.3e-13 / 2.4e-15)) + " to inf)");
  // The bound's own enclosure widens the range; a lower bound reads exact/bound.
  row.bound_lower = 1.2e-13;
  row.bound_upper = 1.4e-13;
  CHECK(ratio_range_note(Direction::upper, row) == " (the intervals allow " + ratio_text(std::log(1.2e-13 / 2.4e-15)) + " to inf)");
  CHECK(ratio_range_note(Direction::lower, row) == " (the intervals allow 0 to " + ratio_text(std::log(2.4e-15 / 1.2e-13)) + ")");
  // An interval within 1% of the value: nothing to add.
  row.bound_lower = row.bound_upper = std::nan("");
  row.exact.lower = 1.6e-47 * 0.999;
  row.exact.upper = 1.6e-47 * 1.001;
  CHECK(ratio_range_note(Direction::upper, row).empty());
  row.exact.upper = 1.6e-47 * 1.05;
  CHECK_FALSE(ratio_range_note(Direction::upper, row).empty());
}

TEST_CASE("a map draws the most influential axes that spread the points, a few-valued axis only where it must", "[explore][plots]") {
  // Three axes: a word of three values with the largest influence, t over many values, alpha over two. The word and
  // alpha pile the points on 3 and 2 lines: the map takes t and, of the rest, the most influential (the word), as the
  // formula-potential Langevin map once took x and alpha (4 and 2 values) and hid 51 of 57 points.
  ExploreResult r;
  const auto axis = [](std::string name, ExploreAxis::Kind kind) {
    ExploreAxis a;
    a.name = std::move(name);
    a.kind = kind;
    return a;
  };
  ExploreAxis potential = axis("potential", ExploreAxis::Kind::choice);
  potential.choices = {std::string("a"), std::string("b"), std::string("c")};
  ExploreAxis alpha = axis("alpha", ExploreAxis::Kind::choice);
  alpha.choices = {2.0, 8.0};
  r.space.axes = {potential, axis("t", ExploreAxis::Kind::real), alpha};
  for (int k = 0; k < 30; ++k) {
    Evaluation e;
    e.point.words["potential"] = std::string(1, static_cast<char>('a' + k % 3));
    e.point.numbers["t"] = 0.4 + 0.1 * k;
    e.point.numbers["alpha"] = k % 2 ? 8.0 : 2.0;
    r.evaluations.push_back(e);
  }
  r.influence = {0.7, 0.1, 0.2};
  CHECK(privamp::plots::explore_parts::map_axes(r) == std::vector<std::size_t>{1, 0, 2});
  // Two axes spread the points: they are drawn, by influence, whatever the word's.
  ExploreAxis u = axis("u", ExploreAxis::Kind::real);
  r.space.axes.push_back(u);
  for (std::size_t k = 0; k < r.evaluations.size(); ++k) r.evaluations[k].point.numbers["u"] = 1.0 + static_cast<double>(k % 7);
  r.influence = {0.7, 0.1, 0.2, 0.15};
  CHECK(privamp::plots::explore_parts::map_axes(r) == std::vector<std::size_t>{3, 1, 0, 2});
  // With no axis spread (every axis few-valued), influence alone decides.
  for (auto& e : r.evaluations) e.point.numbers["t"] = 1, e.point.numbers["u"] = 1;
  CHECK(privamp::plots::explore_parts::map_axes(r) == std::vector<std::size_t>{0, 2, 3, 1});
}

// The influence is that of the log ratio over the global phase, whose points one seed fixes: every goal finds the
// same influences and draws the same axes (a tightest search, scored by |log ratio|, drew a case on other axes than
// its loosest search).
TEST_CASE("searches of one case with one seed draw their maps on the same axes, whatever the goal", "[explore][plots]") {
  // R_2(N(delta, sigma^2) || N(0, sigma^2)) = delta^2/sigma^2 against a bound off by a factor 1.5 (delta < 1) or 0.8
  // (delta >= 1) times e^{0.3(sigma - 1.25)}: log ratios on both sides of 0, where |log ratio| (the tightest
  // search's objective) and the log ratio itself spread differently over the two axes.
  const Case c = load_one(R"toml(
[[bound]]
id = "TESTX.two-sided"
quantity = "renyi"
direction = "upper"
formula = "if(delta < 1, 1.5, 0.8) * exp(0.3 * (sigma - 1.25)) * delta^2 / sigma^2"

[[case]]
name = "two-sided ratios"
bounds = ["TESTX.two-sided"]
mu = "gaussian({delta}, {sigma})"
nu = "gaussian(0, {sigma})"
quantity = "renyi"
order = "2"
[case.grid]
delta = 0.5
sigma = 1
[case.explore]
delta = {min = 0.2, max = 2}
sigma = {min = 0.5, max = 2}
)toml");
  ExploreOptions o;
  o.budget = 40;
  o.seed = 11;
  o.jobs = 1;
  std::vector<ExploreResult> results;
  for (Goal goal : {Goal::loosest, Goal::tightest, Goal::violation}) {
    o.goal = goal;
    results.push_back(explore(c, "TESTX.two-sided", o));
  }
  REQUIRE(results[0].space.axes.size() == 2);
  REQUIRE(results[0].global_points > 0);
  bool both_signs[2] = {false, false};
  for (const auto& e : results[0].evaluations)
    if (std::isfinite(e.slack)) both_signs[e.slack > 0 ? 1 : 0] = true;
  CHECK((both_signs[0] && both_signs[1]));
  for (const ExploreResult& r : results) {
    CHECK(r.influence == results[0].influence);
    CHECK(privamp::plots::explore_parts::map_axes(r) == privamp::plots::explore_parts::map_axes(results[0]));
  }
}

// A short list of numbers (alpha = [2, 8]) is drawn by category, as words are: at indices 0 and 1, each ticked with its
// value (drawn as a number line from 2 to 8, it left the map's middle empty); a longer list keeps its number line.
TEST_CASE("a map draws a short list of numbers by category, each value ticked", "[explore][plots]") {
  ExploreAxis alpha;
  alpha.name = "alpha";
  alpha.kind = ExploreAxis::Kind::choice;
  alpha.choices = {2.0, 8.0};
  Params p;
  p.numbers["alpha"] = 8.0;
  using privamp::plots::explore_parts::axis_settings;
  using privamp::plots::explore_parts::coordinate;
  CHECK(coordinate(alpha, p) == 1);
  CHECK_THAT(axis_settings(alpha, 'y'), Catch::Contains("set ytics ('2' 0, '8' 1)") && Catch::Contains("set yrange [-0.5:1.5]"));
  alpha.choices = {1.0, 2.0, 4.0, 8.0, 16.0};
  CHECK(coordinate(alpha, p) == 8);
  CHECK_THAT(axis_settings(alpha, 'y'), Catch::Contains("set yrange [") && !Catch::Contains("'2' 0"));
}

// An exact value known only from above ([0, u]: three Laplace releases at eps within 1e-4 of the largest loss 3) is
// no zero: it was counted "exact-zero, infinitely loose" where its truth, 4.6e-6, violates a bound of 1e-12.
TEST_CASE("a point whose exact value is known only from above has no ratio and is not called zero", "[explore]") {
  const Case c = load_one(R"toml(
[[bound]]
id = "TESTX.tiny"
quantity = "hockey_stick"
formula = "1e-12"

[[case]]
name = "composed Laplace near its largest loss"
bounds = ["TESTX.tiny"]
mu = "power(laplace(0, 1), 3)"
nu = "power(laplace(1, 1), 3)"
quantity = "hockey_stick"
order = "{eps}"
[case.grid]
eps = 2.9
[case.explore]
eps = {min = 2.9999, max = 3}
)toml");
  ExploreOptions o;
  o.budget = 8;
  o.starts = 1;
  o.jobs = 1;
  o.goal = Goal::violation;
  const ExploreResult r = explore(c, "TESTX.tiny", o);
  std::size_t above_only = 0;
  for (const Evaluation& e : r.evaluations) {
    CHECK(e.status != Evaluation::Status::exact_zero);
    if (e.status != Evaluation::Status::exact_bounded_above) continue;
    ++above_only;
    CHECK(e.verdict() == Verdict::inconclusive);
    CHECK(std::isnan(e.slack));
    CHECK(e.exact_upper() > 1e-12);
  }
  CHECK(above_only > 0);
}
