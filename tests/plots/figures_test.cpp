// Figures as data: the shipped declarations load and name existing cases, IDs and parameters; bad declarations are
// refused with file, line and key; the selection of verified rows keeps intervals, filters, scales and leaves out
// rows in error; a reduced figure renders to CSV, script, PDF and PNG of the configured size.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <catch2/catch.hpp>

#include "support/cases.hpp"
#include "support/scratch.hpp"
#include "numerics/errors.hpp"
#include "plots/figures.hpp"

using namespace privamp;

namespace {

const std::filesystem::path kFigures = std::filesystem::path(PRIVAMP_SOURCE_DIR) / "plots" / "figures.toml";

std::filesystem::path write_temp(const std::string& name, const std::string& text, const std::string& more = "") {
  return test::scratch_file(name, text + more);
}

const std::string kCase = R"toml(
[[case]]
name = "chain"
bounds = ["T4.closed"]
mu = "gaussian_chain(x0=1, r={r}, L={L})"
nu = "gaussian_chain(x0=0, r={r}, L={L})"
quantity = "renyi"
order = "{alpha}"
[case.grid]
alpha = 2
delta = 1
sigma = 1
L = [0.5, 1]
r = {from = 1, to = 5, points = 5}
)toml";

}  // namespace

TEST_CASE("the shipped figures are declared as data over existing cases", "[plots]") {
  const plots::FigureSet set = plots::load_figures({kFigures});
  std::set<std::string> names;
  for (const auto& f : set.figures) {
    INFO(f.name);
    CHECK(names.insert(f.name).second);
    CHECK(!f.series.empty());
    CHECK(!f.description.empty());
  }
  CHECK(names == std::set<std::string>{"ou_vs_gaussian", "sgd_per_index", "mixing_kernel", "iterated_laplace", "iteration",
                                       "diffusions", "repeated_noise", "shuffling", "subsampling", "formula_maps"});
  // Every case of the file is drawn by some figure (no dead cases), and reduction keeps the x axes short.
  std::vector<const plots::Figure*> all;
  for (const auto& f : set.figures) all.push_back(&f);
  const auto cases = plots::cases_for(all, set, true);
  CHECK(cases.size() == set.cases.size());
  for (const auto& c : cases)
    for (const auto& [key, values] : c.grid) CHECK(values.size() <= 8);
}

TEST_CASE("grid ranges expand with both ends included", "[plots][cases]") {
  const auto path = write_temp("privamp_range_case.toml", kCase);
  const auto cases = verify::load_cases({path});
  REQUIRE(cases.size() == 1);
  const auto points = cases[0].points();
  CHECK(points.size() == 10);
  std::set<double> r;
  for (const auto& p : points) r.insert(p.at("r"));
  CHECK(r == std::set<double>{1, 2, 3, 4, 5});
  const auto log = write_temp("privamp_range_log.toml", test::case_text({.name = "log", .grid = R"toml(
alpha = {from = 2, to = 200, points = 3, scale = "log"}
delta = 1
sigma1 = 1
sigma2 = 1
)toml"}));
  std::set<double> alphas;
  for (const auto& p : verify::load_cases({log})[0].points()) alphas.insert(p.at("alpha"));
  REQUIRE(alphas.size() == 3);
  CHECK(*alphas.begin() == 2);
  CHECK(*std::next(alphas.begin()) == Approx(20).epsilon(1e-14));
  CHECK(*alphas.rbegin() == 200);
  const auto bad = write_temp("privamp_range_bad.toml",
                              test::case_text({.name = "bad", .mu = "gaussian(1, 1)",
                                               .grid = "alpha = {from = 0, to = 2, points = 3, scale = \"log\"}\n"}));
  CHECK_THROWS_WITH(verify::load_cases({bad}), Catch::Contains("privamp_range_bad.toml:9: key 'grid.alpha'") &&
                                                    Catch::Contains("from > 0"));
}

TEST_CASE("bad figure declarations are refused with file, line and key", "[plots]") {
  auto refused = [](const std::string& figure, const std::string& message) {
    const auto path = write_temp("privamp_bad_figure.toml", kCase, figure);
    CHECK_THROWS_WITH(plots::load_figures({path}), Catch::Contains(message));
  };
  const std::string head = "\n[[figure]]\nname = \"f\"\nx = \"r\"\n[[figure.series]]\n";
  refused(head + "case = \"nope\"\nid = \"T4.closed\"\n", "key 'series.case': no case named 'nope'");
  refused(head + "case = \"chain\"\nid = \"E1\"\n", "does not check E1");
  refused(head + "case = \"chain\"\nid = \"T4.closed\"\ny = \"value\"\n", "must be exact, bound or ratio");
  refused(head + "case = \"chain\"\nid = \"T4.closed\"\nwhere = {s = 1}\n", "has no parameter 's'");
  refused("\n[[figure]]\nname = \"f\"\nx = \"t\"\n[[figure.series]]\ncase = \"chain\"\nid = \"T4.closed\"\n",
          "no parameter 't' for the x axis");
  refused("\n[[figure]]\nname = \"a b\"\nx = \"r\"\n[[figure.series]]\ncase = \"chain\"\nid = \"T4.closed\"\n",
          "privamp_bad_figure.toml:17: key 'name'");
  refused("\n[[figure]]\nname = \"f\"\nx = \"r\"\n", "a figure needs [[figure.series]] tables");
}

TEST_CASE("a figure draws only verified rows, with their intervals", "[plots]") {
  plots::Figure f{.name = "f", .x = "r", .log = "y"};
  plots::Series exact{"chain", "T4.closed", plots::Series::Y::exact, {{"L", 0.5}}, "", "exact", "points", 1};
  plots::Series bound{"chain", "T4.closed", plots::Series::Y::bound, {{"L", 0.5}}, "2*r", "bound", "lines", 2};
  plots::Series ratio{"chain", "T4.closed", plots::Series::Y::ratio, {}, "", "ratio", "lines", 3};
  f.series = {exact, bound, ratio};
  auto row = [](double r, double L, double value, verify::Verdict v) {
    verify::Row row;
    row.case_name = "chain";
    row.id = "T4.closed";
    row.params.numbers = {{"r", r}, {"L", L}};
    row.exact = verify::Estimate::from_interval(value * 0.9, value * 1.1, verify::ErrorKind::quadrature, "test");
    row.exact.value = value;
    row.bound = 2 * value;
    row.verdict = v;
    return row;
  };
  const std::vector<verify::Row> rows = {row(3, 0.5, 1, verify::Verdict::holds), row(1, 0.5, 4, verify::Verdict::holds),
                                         row(2, 0.5, 2, verify::Verdict::error), row(1, 1, 8, verify::Verdict::holds),
                                         row(5, 0.5, 0, verify::Verdict::holds)};
  const auto data = plots::select(f, rows);
  REQUIRE(data.size() == 3);
  // exact, L = 0.5: the error row is left out, the zero is off the log scale, sorted by x.
  REQUIRE(data[0].size() == 2);
  CHECK(data[0][0].x == 1);
  CHECK(data[0][0].y == 4);
  CHECK(data[0][0].lower == Approx(3.6));
  CHECK(data[0][0].upper == Approx(4.4));
  CHECK(data[0][1].x == 3);
  // bound, scaled by 2 r
  REQUIRE(data[1].size() == 2);
  CHECK(data[1][1].y == Approx(2 * 1 * 2 * 3));
  CHECK(data[1][1].lower == data[1][1].y);
  // ratio bound/exact with the exact interval carried through, every L (no zero exact: its ratio is undefined)
  REQUIRE(data[2].size() == 3);
  for (const auto& p : data[2]) {
    CHECK(p.y == Approx(2));
    CHECK(p.lower == Approx(2 / 1.1));
    CHECK(p.upper == Approx(2 / 0.9));
  }
}

TEST_CASE("a reduced figure renders CSV, script, PDF and PNG of the configured size", "[plots]") {
  if (!plots::gnuplot_available()) {
    WARN("gnuplot not installed: rendering not tested");
    return;
  }
  const auto path = write_temp("privamp_render_figure.toml", kCase, R"toml(
[[figure]]
name = "chain"
x = "r"
log = "y"
[[figure.series]]
case = "chain"
id = "T4.closed"
title = "exact"
[[figure.series]]
case = "chain"
id = "T4.closed"
y = "bound"
title = "T4.closed"
)toml");
  const plots::FigureSet set = plots::load_figures({path});
  REQUIRE(set.figures.size() == 1);
  const auto cases = plots::cases_for({&set.figures[0]}, set, true);
  const auto rows = verify::run_cases(cases, {});
  const auto data = plots::select(set.figures[0], rows);
  CHECK(data[0].size() == 6);  // r = 1, 3, 5 (reduced) at both L
  const auto dir = test::scratch() / "figures";
  plots::render(set.figures[0], data, dir);
  for (const char* ext : {".csv", ".gp", ".pdf", ".png"}) {
    INFO(ext);
    CHECK(std::filesystem::file_size(dir / (std::string("chain") + ext)) > 100);
  }
  // PNG header: width and height are big-endian at bytes 16..23 (1000 x 720 in the shared style).
  std::ifstream png(dir / "chain.png", std::ios::binary);
  unsigned char header[24];
  png.read(reinterpret_cast<char*>(header), 24);
  const auto be = [&](int at) { return (header[at] << 24) | (header[at + 1] << 16) | (header[at + 2] << 8) | header[at + 3]; };
  CHECK(be(16) == 1000);
  CHECK(be(20) == 720);
  std::ifstream pdf(dir / "chain.pdf", std::ios::binary);
  std::string magic(5, '\0');
  pdf.read(magic.data(), 5);
  CHECK(magic == "%PDF-");
}
