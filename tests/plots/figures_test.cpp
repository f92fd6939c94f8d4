// Figures as data: the shipped declarations load and name existing cases, IDs and parameters; bad declarations are
// refused with file, line and key; the selection of verified rows keeps intervals, filters, scales and leaves out
// rows in error; a reduced figure renders to CSV, script, PDF and PNG of the configured size.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "numerics/range.hpp"
#include "plots/figure_model.hpp"
#include "plots/gnuplot.hpp"
#include "plots/markup.hpp"
#include "support/cases.hpp"
#include "support/scratch.hpp"
#include "numerics/errors.hpp"
#include "plots/figures.hpp"

using namespace privamp;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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
  CHECK(names == std::set<std::string>{"ou_vs_gaussian", "sgd_per_index", "sgd_steps", "mixing_kernel", "mixing_kernel_dirichlet", "iterated_laplace", "iteration",
                                       "diffusions", "repeated_noise", "shuffling", "shuffling_epsilon", "subsampling", "subsampling_replacement", "subsampling_rr", "formula_maps"});
  // Every case of the file is drawn by some figure (no dead cases), and reduction keeps the x axes short.
  std::vector<const plots::Figure*> all;
  for (const auto& f : set.figures) all.push_back(&f);
  const auto cases = plots::cases_for(all, set, true);
  CHECK(cases.size() == set.cases.size());
  for (const auto& c : cases)
    for (const auto& [key, values] : c.grid) CHECK(values.size() <= 8);
}

TEST_CASE("every series of a shipped figure reads apart in grayscale", "[plots]") {
  // The six line styles differ in dash pattern and point type (not only in colour), in gnuplot and pgfplots alike.
  std::set<std::string> dashes, points, pgf_dashes, pgf_marks;
  for (int line = 1; line <= 6; ++line) {
    const plots::SeriesLook look = plots::series_look(line);
    dashes.insert(look.dash);
    points.insert(std::to_string(look.point));
    pgf_dashes.insert(look.pgf_dash);
    pgf_marks.insert(look.pgf_mark);
  }
  CHECK(dashes.size() == 6);
  CHECK(points.size() == 6);
  CHECK(pgf_dashes.size() == 6);
  // The gray reference line (line 9) has a dash pattern of its own as well.
  CHECK(dashes.count(plots::series_look(9).dash) == 0);
  CHECK(pgf_dashes.count(plots::series_look(9).pgf_dash) == 0);
  CHECK(pgf_marks.size() == 6);
  const std::string preamble = plots::style_preamble("f.pdf");
  for (int line = 1; line <= 6; ++line) {
    const plots::SeriesLook look = plots::series_look(line);
    CHECK_THAT(preamble, Contains(fmt::format("set style line {} ", line)) && Contains(fmt::format("pt {} ps 0.5 dt {}\n", look.point, look.dash)));
  }
  // Within a figure, two series that share a line style must differ in how they are drawn (points against lines),
  // or be an exact value and its bound (which differ in dash and fill: checked below), or a reader in grayscale
  // cannot tell them apart.
  const plots::FigureSet set = plots::load_figures({kFigures});
  const auto style = [](const plots::Series& s) { return s.style.empty() ? (s.y == plots::Series::Y::exact ? "points" : "lines") : s.style; };
  for (const auto& f : set.figures)
    for (std::size_t k = 0; k < f.series.size(); ++k)
      for (std::size_t j = k + 1; j < f.series.size(); ++j) {
        const auto& a = f.series[k];
        const auto& b = f.series[j];
        if (a.line != b.line || style(a) != style(b)) continue;
        INFO(f.name << ": series '" << a.title << "' and '" << b.title << "' (line " << a.line << ", " << style(a) << ")");
        const bool pair = a.line != 9 && a.y != b.y && a.y != plots::Series::Y::ratio && b.y != plots::Series::Y::ratio;
        CHECK(pair);
      }
  // An exact value and a bound of one line differ in dash and fill as well (the shuffling figures' pairs once differed
  // only by their small markers): the exact value solid with filled marks, the bound in another dash with open ones;
  // every pair's bound differs from every other series of its figure in dash or colour.
  for (const auto& f : set.figures)
    for (std::size_t k = 0; k < f.series.size(); ++k)
      for (std::size_t j = 0; j < f.series.size(); ++j) {
        const auto& a = f.series[k];
        const auto& b = f.series[j];
        if (a.line != b.line || a.line == 9 || a.y != plots::Series::Y::exact || b.y != plots::Series::Y::bound) continue;
        const plots::SeriesLook exact = plots::figure_look(f, k), bound = plots::figure_look(f, j);
        INFO(f.name << ": '" << a.title << "' against '" << b.title << "'");
        CHECK(std::string(exact.dash) == "1");
        CHECK(std::string(exact.pgf_dash) == "solid");
        CHECK(std::string(bound.dash) != "1");
        CHECK(std::string(bound.pgf_dash) != std::string(exact.pgf_dash));
        if (exact.point != 3) CHECK(exact.point != bound.point);  // (the asterisk has no open form)
        CHECK((std::string(exact.pgf_mark) != std::string(bound.pgf_mark) || exact.point == 3));
      }
  // One meaning of dash and fill in every figure (a paper shows them side by side): a bound dashed with open marks,
  // an exact value or a ratio solid with filled ones — an exact series once drew dashed with open squares in
  // ou_vs_gaussian, iteration and shuffling, the style of a bound in shuffling_epsilon. Series that are not bounds
  // then differ from each other in mark shape, so that those drawn with marks read apart in grayscale, and at most
  // one of them per figure is drawn without marks.
  const std::set<std::string> open = {"o", "square", "triangle", "diamond", "pentagon"};
  for (const auto& f : set.figures) {
    std::set<std::string> shapes;
    int unmarked = 0;
    for (std::size_t k = 0; k < f.series.size(); ++k) {
      const auto& s = f.series[k];
      const plots::SeriesLook look = plots::figure_look(f, k);
      INFO(f.name << ": '" << s.title << "'");
      const bool bound = s.y == plots::Series::Y::bound;
      CHECK((std::string(look.dash) != "1") == bound);
      CHECK((std::string(look.pgf_dash) != "solid") == bound);
      if (s.line == 9) continue;  // (the gray reference has no marks)
      if (look.point != 3) CHECK(open.count(look.pgf_mark) == (bound ? 1u : 0u));
      if (bound) continue;
      if (style(s) == "lines") ++unmarked;
      else CHECK(shapes.insert(std::to_string(look.point)).second);
    }
    INFO(f.name);
    CHECK(unmarked <= 1);
  }
  // Lines 1, 2 and 3, which most figures draw, differ in grey too (line 3's green once printed as line 2's vermilion).
  const auto grey = plots::grey_luminance;
  const std::vector<std::string> palette = plots::Style{}.palette;
  CHECK(grey("#0072B2") == Approx(0.299 * 0x00 + 0.587 * 0x72 + 0.114 * 0xB2));
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b) CHECK(std::fabs(grey(palette[static_cast<std::size_t>(a)]) - grey(palette[static_cast<std::size_t>(b)])) >= 25);
  // Lines of a colour light in grey (orange and sky blue: their bounds and open marks faded in grayscale print) are
  // drawn 1.5 times as wide, by gnuplot and by pgfplots alike.
  const plots::Style defaults;
  const std::string lines = plots::style_preamble("x.pdf", defaults);
  for (int k = 1; k <= 6; ++k) {
    INFO("line " << k);
    const bool light = grey(palette[static_cast<std::size_t>(k - 1)]) > 155;
    CHECK(light == (k == 5 || k == 6));
    const double lw = plots::line_width(defaults, k);
    CHECK(lw == Approx(light ? 1.5 * defaults.line_width : defaults.line_width));
    CHECK(lines.find(fmt::format("set style line {} lc rgb '{}' lw {} ", k, palette[static_cast<std::size_t>(k - 1)], lw)) != std::string::npos);
  }
}

TEST_CASE("a key outside the plot is never opaque (it would paint over the axis labels), inside, as asked", "[plots]") {
  for (const char* outside : {"below", "above", "outside right", "below left"}) {
    INFO(outside);
    plots::KeyOptions k;
    k.position = outside;
    k.opaque = true;
    CHECK_THAT(k.render(), Contains("noopaque"));
  }
  plots::KeyOptions inside = plots::parse_key_words("top left box opaque");
  CHECK_THAT(inside.render(), Contains(" opaque") && !Contains("noopaque"));
  inside.opaque = false;
  CHECK_THAT(inside.render(), Contains("noopaque"));
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
  // A range across the double range: its points stay finite (it was refused "at delta=-inf"), both ends exact; log
  // spacing over [5e-324, 1e308] (b/a overflows) likewise.
  const auto wide = write_temp("privamp_range_wide.toml", test::case_text({.name = "wide", .grid = R"toml(
alpha = 2
delta = 1
sigma1 = 1
sigma2 = 1
spread = {from = -1e308, to = 1e308, points = 3}
)toml"}));
  std::set<double> deltas;
  for (const auto& p : verify::load_cases({wide})[0].points()) deltas.insert(p.at("spread"));
  CHECK(deltas == std::set<double>{-1e308, 0, 1e308});
  for (long i = 0; i < 5; ++i) {
    const double x = log_spaced(5e-324, 1e308, i, 5);
    CHECK(std::isfinite(x));
    CHECK(x > 0);
  }
  CHECK(log_spaced(5e-324, 1e308, 0, 5) == 5e-324);
  CHECK(log_spaced(5e-324, 1e308, 2, 5) == Approx(std::sqrt(5e-324) * 1e154).epsilon(1e-9));
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
  // A name gnuplot would read as an option (it runs NAME.gp: "-p.gp" was its option -p), or too long for the file
  // system once its outputs' suffixes and temporary names are added, is refused at load.
  refused("\n[[figure]]\nname = \"-p\"\nx = \"r\"\n[[figure.series]]\ncase = \"chain\"\nid = \"T4.closed\"\n",
          "not starting with '-' (got 2 characters, the first '-')");
  refused("\n[[figure]]\nname = \"" + std::string(101, 'f') + "\"\nx = \"r\"\n[[figure.series]]\ncase = \"chain\"\nid = \"T4.closed\"\n",
          "must be a file stem of 1 to 100 letters, digits, '_' and '-', not starting with '-' (got 101 characters)");
  refused(head + "case = \"chain\"\nid = \"T4.closed\"\npoint_size = 9\n", "key 'series.point_size': must be in [0.3, 4]");
  // Markup gnuplot and the LaTeX renderer would read differently: braces that do not pair, a script with no text.
  const std::string titled = "\n[[figure]]\nname = \"f\"\nx = \"r\"\n";
  const std::string series = "[[figure.series]]\ncase = \"chain\"\nid = \"T4.closed\"\n";
  refused(titled + "title = \"R_{x\"\n" + series, "key 'title': markup: a '{' at byte 3 is never closed");
  refused(titled + "xlabel = \"a}b\"\n" + series, "key 'xlabel': markup: a '}' at byte 2 closes no '{'");
  refused(titled + "ylabel = \"e^\"\n" + series, "key 'ylabel': markup: a '^' at byte 2 with nothing to raise or lower");
  refused(titled + "description = \"{/Symbol a\"\n" + series, "key 'description': markup: a '{' at byte 1 is never closed");
  refused(head + "case = \"chain\"\nid = \"T4.closed\"\ntitle = \"x_{}}\"\n", "key 'title': markup: a '}' at byte 5 closes no '{'");
  CHECK(plots::markup_problem("R_{/Symbol a}^{2} \\{ braces \\} as text, e^2").empty());
  // gnuplot's own operators print as themselves in the PDF, as in the caption (a title could hide a word with
  // &{...}, @, ~ or a font change the LaTeX outputs print); font changes and octal codes are refused at load.
  CHECK(plots::markup_quoted("bound &{NOT }violated; x@y ~a{.8-}") == "'bound \\&{NOT }violated; x\\@y \\~a{.8-}'");
  CHECK(plots::markup_quoted("a \\& b") == "'a \\& b'");  // already escaped: as it is
  // An explicit tick's label is a format of its position in gnuplot: '%' doubled, markup characters literal.
  CHECK(plots::tic_label("50%d_{x}'") == "'50%%d\\_\\{x\\}'''");
  CHECK(plots::tic_label("\\047 $\\x$") == "'\\047 $\\x$'");  // gnuplot prints a tick label's backslash as it is
  CHECK(plots::markup_quoted("a \\n_b \\") == "'a \\\\n_b \\\\'");  // a backslash before a letter is text, printed
  CHECK(plots::markup_quoted("a \\n b \\") == "'a \\n b \\'");  // single where gnuplot reads no enhanced text (no ^_@&~{})
  CHECK(plots::quoted(plots::literal("p\\q")) == "'p\\q'");
  // An apostrophe that opens a text is written as a right single quote (gnuplot read three apostrophes as an empty
  // string and a second one, and the figure failed after its rows were computed); one inside is doubled.
  CHECK(plots::quoted("'quoted' series") == "'\u2019quoted'' series'");
  CHECK(plots::markup_title("'a' b", 3) == "'\u2019a'''.\"\\n\".'b'");
  CHECK(plots::markup_quoted("{/Symbol k} <= 4, n >= 2, x -> y") == "'{/Symbol k} ≤ 4, n ≥ 2, x → y'");
  // A long title in lines of at most `width` printed characters, broken at spaces outside markup groups (the
  // space of {/Symbol a} and of an escaped "\ " never), each line quoted as markup_quoted quotes it.
  CHECK(plots::markup_title("short {/Symbol a}", 20) == plots::markup_quoted("short {/Symbol a}"));
  CHECK(plots::markup_title("one two three four", 9) == "'one two'.\"\\n\".'three'.\"\\n\".'four'");
  CHECK(plots::markup_title("ab {/Symbol a}_{x y} cd", 4) == "'ab'.\"\\n\".'{/Symbol a}_{x y}'.\"\\n\".'cd'");  // α_xy: 4 printed
  CHECK(plots::markup_title("a\\ b c", 3) == "'a\\ b'.\"\\n\".'c'");
  // Balanced: as few lines as the width allows, of about equal length (a greedy fill left "d)" alone on its line).
  const std::string title = "[T8.a] Theorem 8 (a): OU against the Gaussian mechanism (search for the loosest points; over every d)";
  const std::string wrapped = plots::markup_title(title, 90);
  const auto cut = wrapped.find(".\"\\n\".");
  REQUIRE(cut != std::string::npos);
  CHECK(wrapped.find(".\"\\n\".", cut + 1) == std::string::npos);  // two lines, as the greedy fill
  const std::size_t first = cut - 2, second = wrapped.size() - cut - 8;  // (their quotes left out)
  INFO(wrapped);
  CHECK(std::min(first, second) * 10 >= std::max(first, second) * 7);
  CHECK(plots::markup_title("unbreakable-word-longer-than-width", 5) == plots::markup_quoted("unbreakable-word-longer-than-width"));
  CHECK_THAT(plots::markup_problem("x {/=40 BIG} y"), Catch::Contains("a '{/' at byte 3: gnuplot's font changes are not markup"));
  CHECK_THAT(plots::markup_problem("{/Helvetica-Bold x}"), Catch::Contains("font changes"));
  CHECK_THAT(plots::markup_problem("a \\101 b"), Catch::Contains("octal character code"));
  CHECK(plots::markup_problem("up to {/Symbol \\245} and {/Symbol a}").empty());
  // A declared marker size is read (and the default is 1).
  const auto sized = write_temp("privamp_sized_figure.toml", kCase,
                                head + "case = \"chain\"\nid = \"T4.closed\"\npoint_size = 2.6\n[[figure.series]]\ncase = \"chain\"\nid = \"T4.closed\"\n");
  const plots::FigureSet set = plots::load_figures({sized});
  REQUIRE(set.figures.size() == 1);
  REQUIRE(set.figures[0].series.size() == 2);
  CHECK(set.figures[0].series[0].point_size == 2.6);
  CHECK(set.figures[0].series[1].point_size == 1);
}

TEST_CASE("a scaled series keeps an interval that contains its value: each end rounded outward where inexact", "[plots]") {
  plots::Figure f;
  f.name = "f";
  f.x = "r";
  plots::Series tiny{"chain", "T4.closed", plots::Series::Y::exact, {}, "1e-320*r", "tiny", "points", 1};
  plots::Series exact{"chain", "T4.closed", plots::Series::Y::exact, {}, "-2*r", "exact", "points", 2};
  f.series = {tiny, exact};
  verify::Row row;
  row.case_name = "chain";
  row.id = "T4.closed";
  row.params.numbers = {{"r", 3}};
  row.exact = verify::Estimate::from_interval(0.1, 0.3, verify::ErrorKind::quadrature, "test");
  row.exact.value = 0.2;
  row.verdict = verify::Verdict::holds;
  const auto data = plots::select(f, {row});
  REQUIRE((data.size() == 2 && data[0].size() == 1 && data[1].size() == 1));
  // 0.3 × 3e-320 is subnormal (a few digits): rounded outward, the interval is wider than its rounded ends
  const plots::Point& t = data[0][0];
  CHECK(t.lower < 0.1 * 3e-320);
  CHECK(t.upper > 0.3 * 3e-320);
  CHECK(t.lower <= t.y);
  CHECK(t.y <= t.upper);
  // a negative scale swaps the ends; exact products (0.5 · −6 would be) stay as they are, inexact ones move out
  const plots::Point& e = data[1][0];
  CHECK(e.lower <= -0.3 * 6);
  CHECK(e.upper >= -0.1 * 6);
  CHECK(e.lower < e.y);
  CHECK(e.y < e.upper);
}

TEST_CASE("a figure draws only verified rows, with their intervals", "[plots]") {
  plots::Figure f;
  f.name = "f";
  f.x = "r";
  f.log = "y";
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
  // exact, L = 0.5: the error row is left out, sorted by x; the zero (its interval [0, 0]) is kept, for the bottom
  // frame of the log axis.
  REQUIRE(data[0].size() == 3);
  CHECK((data[0][2].x == 5 && data[0][2].y == 0 && data[0][2].upper == 0));
  CHECK(data[0][0].x == 1);
  CHECK(data[0][0].y == 4);
  CHECK(data[0][0].lower == Approx(3.6));
  CHECK(data[0][0].upper == Approx(4.4));
  CHECK(data[0][1].x == 3);
  // bound, scaled by 2 r; its zero is kept as the exact value's is (a table's bound of 0 was once left out: its line
  // just stopped, the zeros unmarked)
  REQUIRE(data[1].size() == 3);
  CHECK(data[1][1].y == Approx(2 * 1 * 2 * 3));
  CHECK(data[1][1].lower == data[1][1].y);
  CHECK((data[1][2].x == 5 && data[1][2].y == 0 && data[1][2].upper == 0));
  // ratio bound/exact with the exact interval carried through, every L (no zero exact: its ratio is undefined)
  REQUIRE(data[2].size() == 3);
  for (const auto& p : data[2]) {
    CHECK(p.y == Approx(2));
    CHECK(p.lower == Approx(2 / 1.1));
    CHECK(p.upper == Approx(2 / 0.9));
  }
}

TEST_CASE("on a log axis a value below it breaks its line and is marked just inside the bottom frame", "[plots]") {
  plots::Figure f;
  f.name = "f";
  f.x = "eps";
  f.log = "y";
  f.yrange = std::make_pair(1e-3, 1.0);
  f.series = {plots::Series{"c", "X", plots::Series::Y::exact, {}, "", "exact", "lines", 1}};
  const plots::Point inside{0.1, 0.2, 0.19, 0.21, "holds"}, limit{0.5, 0.01, 0, 0.02, "holds"},
      below{0.8, 1e-14, 0, 2.4e-14, "holds"}, zero{0.9, 0, 0, 0, "holds"}, above{1.0, 0.5, 0, 7, "holds"};
  const std::vector<std::vector<plots::Point>> data = {{inside, limit, below, zero, above}};
  const plots::model::DrawnY shown = plots::model::drawn_y(f, data);
  // The line: a value with a lower end on the axis as it is; one reaching 0 breaks it (no drop to the frame, where a
  // line drawn along the bottom hid under it).
  CHECK(shown.value(inside) == 0.2);
  for (const auto& p : {limit, below, zero, above}) CHECK(std::isnan(shown.value(p)));
  // The upper limits: at the upper end where it is on the axis, 3 % of the axis' height above its bottom where it is
  // below (also a value of exactly 0), none above the axis.
  CHECK(!plots::model::limit_mark_y(f, data, inside));
  CHECK(plots::model::limit_mark_y(f, data, limit) == 0.02);
  const double mark = 1e-3 * std::pow(1e3, 0.03);
  CHECK(plots::model::limit_mark_y(f, data, below).value() == Approx(mark));
  CHECK(plots::model::limit_mark_y(f, data, zero).value() == Approx(mark));
  CHECK(!plots::model::limit_mark_y(f, data, above));
  // gnuplot computes the same from the columns.
  CHECK_THAT(shown.gnuplot(), Catch::Contains("valy(y, l, u) = l > 0 ? y : 1/0"));
  CHECK_THAT(shown.gnuplot(), Catch::Contains("limity(l, u) = l > 0 || !(u >= 0) || u > 1 ? 1/0 : u >= 0.001 ? u : 0.00123"));
}

TEST_CASE("a reduced figure renders CSV, script, PDF and PNG of the configured size", "[plots]") {
  if (!plots::gnuplot_available()) {
    WARN("gnuplot not installed: rendering not tested");
    return;
  }
  const auto path = write_temp("privamp_render_figure.toml", kCase, R"toml(
[style]
width = 4
height = 3
font_size = 8

[[figure]]
name = "chain"
x = "r"
log = "y"
ylabel = "R_{/Symbol a} (100%)"
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
  // PNG header: width and height are big-endian at bytes 16..23 (the file's [style]: 4 x 3 in at 200 px per inch, and
  // the key's row below the plot with a line of space: 2 x 1.25 x 8 pt more).
  std::ifstream png(dir / "chain.png", std::ios::binary);
  unsigned char header[24];
  png.read(reinterpret_cast<char*>(header), 24);
  const auto be = [&](int at) { return (header[at] << 24) | (header[at + 1] << 16) | (header[at + 2] << 8) | header[at + 3]; };
  CHECK(be(16) == 800);
  CHECK(be(20) == 656);
  const std::string script = read_text(dir / "chain.gp");
  CHECK_THAT(script, Contains("size 4in,3.27777"));
  // One picture: the PNG is the PDF rasterised, not a second rendering with its own fonts and marks.
  CHECK(script.find("pngcairo") == std::string::npos);
  CHECK(std::count(script.begin(), script.end(), '\n') > 10);
  // Intervals too narrow to see draw no error bars (their caps would leave specks along the lines).
  CHECK(script.find("yerrorbars") == std::string::npos);
  {  // Visible intervals (here widened to a factor 2 by hand: bars reaching well past the marks, figure_model.hpp's
     // draws_bars) draw error bars that carry no point (gnuplot's point type -1
     // paints a background disk over the markers beneath), before every series, so no marker looks hollow; the
     // pgfplots output draws the same series' bars.
    auto wide = data;
    for (auto& p : wide[0]) p.lower = p.y * 0.5, p.upper = p.y * 1.5;
    plots::Figure f = set.figures[0];
    f.style.outputs = {"pdf", "pgfplots"};
    plots::render(f, wide, dir / "wide");
    const std::string barred = read_text(dir / "wide" / "chain.gp");
    CHECK(barred.find("pt -1") == std::string::npos);
    const auto bars = barred.rfind("with yerrorbars"), first_series = barred.find("using 2:(valy($3, $4, $5)) with");
    REQUIRE(bars != std::string::npos);
    REQUIRE(first_series != std::string::npos);
    CHECK(bars < first_series);
    CHECK_THAT(barred, Contains("with yerrorbars ls 1 dt 1 ps 0 notitle"));
    const std::string tex = read_text(dir / "wide" / "chain.tex");
    std::size_t barred_series = 0;
    for (std::size_t at = tex.find("error bars/.cd"); at != std::string::npos; at = tex.find("error bars/.cd", at + 1)) ++barred_series;
    CHECK(barred_series == 1);
    CHECK_THAT(read_text(dir / "wide" / "chain_caption.txt"), Contains("Error bars show each exact value's interval where it reaches past the marks (relative width at most 1"));
  }
  CHECK(script.find(dir.string()) == std::string::npos);  // relative paths only
  // The tidy CSV: one row per point, the series by title, the parameters as columns.
  const std::string tidy = read_text(dir / "chain_tidy.csv");
  CHECK_THAT(tidy, StartsWith("series,id,case,y,x_r,value,lower,upper,verdict,"));
  CHECK(std::count(tidy.begin(), tidy.end(), '\n') == 1 + 12);
  CHECK_THAT(tidy, Contains("\nT4.closed,T4.closed,chain,bound,"));
  // The caption is for the paper (no bound IDs, cases or verdict counts); where each series comes from is beside it.
  const std::string caption = read_text(dir / "chain_caption.txt");
  CHECK_THAT(caption, Contains("error bar too narrow to see at this scale (relative width at most $"));
  {  // "at most X" holds: X ($m\times 10^{e}$), rounded up, is at least every relative width in the data
    const std::size_t at = caption.find("(relative width at most $") + 25;
    const std::size_t power = caption.find("\\times 10^{", at);
    REQUIRE(power != std::string::npos);
    const double stated = std::stod(caption.substr(at)) * std::pow(10.0, std::stod(caption.substr(power + 11)));
    double widest = 0;
    std::istringstream rows(tidy);
    std::string line;
    std::getline(rows, line);
    while (std::getline(rows, line)) {
      std::vector<std::string> cells;
      std::istringstream cols(line);
      for (std::string c; std::getline(cols, c, ',');) cells.push_back(c);
      const double value = std::stod(cells.at(5)), lower = std::stod(cells.at(6)), upper = std::stod(cells.at(7));
      if (value != 0) widest = std::max(widest, (upper - lower) / std::abs(value));
    }
    CHECK(widest > 0);
    CHECK(stated >= widest);
    CHECK(stated <= 1.1 * widest);
  }
  for (const char* internal : {"T4.closed", "in case", "Verdicts"}) CHECK(caption.find(internal) == std::string::npos);
  const std::string provenance = read_text(dir / "chain_provenance.txt");
  CHECK_THAT(provenance, Contains("- exact: exact of T4.closed in case 'chain', 6 points"));
  CHECK_THAT(provenance, Contains("Verdicts of the points drawn:"));
  CHECK_THAT(provenance, Contains("not visible at this scale"));
  CHECK_FALSE(std::filesystem::exists(dir / "chain.tex"));  // pgfplots only when asked
  std::ifstream pdf(dir / "chain.pdf", std::ios::binary);
  std::string magic(5, '\0');
  pdf.read(magic.data(), 5);
  CHECK(magic == "%PDF-");
}

TEST_CASE("figure style as data: presets, outputs, pgfplots with LaTeX labels, bad style refused", "[plots]") {
  CHECK(plots::enhanced_to_latex("R_{/Symbol a}(i), {/Symbol a} = 2") == "R$_{\\alpha }$(i), $\\alpha $ = 2");
  CHECK(plots::enhanced_to_latex("E_{OU} / E_{GM}") == "E$_{\\mathrm{OU}}$ / E$_{\\mathrm{GM}}$");  // names upright, as gnuplot draws them
  CHECK(plots::enhanced_to_latex("x_i, L^{1-r}") == "x$_{i}$, L$^{1-r}$");
  // a prime after a symbol inside the formula; a minus sign where a hyphen stood alone or before a digit; an
  // opening quote at a word's start; hyphens in words and closing quotes left as they were
  CHECK(plots::enhanced_to_latex("{/Symbol e}' = 1") == "$\\varepsilon' $ = 1");
  CHECK(plots::enhanced_to_latex("(1 - L) at -3, log-space") == "(1 $-$ L) at $-$3, log-space");
  CHECK(plots::enhanced_to_latex("post 'Privacy amplification', q'") == "post `Privacy amplification', q'");
  CHECK(plots::enhanced_to_latex("R_{/Symbol \\245}") == "R$_{\\infty }$");  // gnuplot's octal escape for infinity
  CHECK(plots::enhanced_to_latex("50% & $x^2 #") == "50\\% \\& \\$x$^{2}$ \\#");
  // Characters past ASCII go through the one LaTeX escaper whole (they once passed as raw bytes: α, ε and ŀ stopped
  // pdflatex in a caption).
  CHECK(plots::enhanced_to_latex("gauss αfig ŀ é ∞") == "gauss \\ensuremath{\\alpha}fig [U+0140] é \\ensuremath{\\infty}");
  // Relations, in text and in a script; the same markup as plain text (terminal listings, comments).
  CHECK(plots::enhanced_to_latex("{/Symbol k} <= 4, {/Symbol e}' -> {/Symbol d}'") ==
        "$\\kappa $ $\\le $ 4, $\\varepsilon' $ $\\to $ $\\delta' $");
  CHECK(plots::enhanced_to_latex("e^{-{/Symbol e}_0} <= 1") == "e$^{-\\varepsilon _{0}}$ $\\le $ 1");
  CHECK(plots::enhanced_to_plain("R_{/Symbol a}(P^{*n}) <= n R_{/Symbol \\245}, E_{OU}, e^{-t}, {/Symbol k} = 2") ==
        "R_α(P^(*n)) ≤ n R_∞, E_OU, e^(-t), κ = 2");
  // Scripts: a second one in a row gets a base, a trailing one is dropped, a character is a whole UTF-8 one (also
  // in math, where text goes in \mbox), nesting deeper than 8 is flattened (bounded work and recursion).
  CHECK(plots::enhanced_to_latex("x_{i_j_k} x^{a^}") == "x$_{i_{j}{}_{k}}$ x$^{a}$");
  CHECK(plots::enhanced_to_latex("R_α x_{é}") == "R$_{\\mbox{\\ensuremath{\\alpha}}}$ x$_{\\mbox{é}}$");
  // ... through the one LaTeX escaper, as outside math: a character pdflatex cannot typeset is [U+XXXX] in a script
  // too (raw in \mbox, ж stopped pdflatex on a figure's label).
  CHECK(plots::enhanced_to_latex("n_{ж漢} x^{Ω}") == "n$_{\\mbox{[U+0436]}\\mbox{[U+6F22]}}$ x$^{\\mbox{[U+03A9]}}$");
  CHECK(plots::enhanced_to_plain("R_α x^é") == "R_α x^é");
  std::string deep = "x";
  for (int k = 0; k < 50000; ++k) deep += "^{";
  CHECK(plots::enhanced_to_latex(deep).size() < 200);
  CHECK(plots::enhanced_to_plain(deep).size() <= deep.size() + 64);  // the text, a pair of brackets per level
  // gnuplot's infinity only as the group {/Symbol \245}; elsewhere its text, never a raw byte.
  CHECK(plots::enhanced_to_latex("a /Symbol \\245 b") == "a /Symbol \\textbackslash{}245 b");
  CHECK(plots::enhanced_to_plain("R_{2{/Symbol \\245}}, P^{{/Symbol \\245}}") == "R_(2∞), P^∞");
  // gnuplot strings: always single-quoted (gnuplot runs `commands` inside double quotes); two apostrophes in a row,
  // which gnuplot cannot read doubled (a syntax error), keep the second as a right single quote.
  CHECK(plots::quoted("it's `rm x`") == "'it''s `rm x`'");
  CHECK(plots::quoted("q'' c'''") == "'q''\u2019 c''\u2019\u2019'");
  CHECK(plots::quoted("q'' c'''").find("''''") == std::string::npos);
  // Hostile text stays text: LaTeX's specials escaped, control and bidirectional characters dropped.
  CHECK(plots::enhanced_to_latex("\\input{/etc/passwd} ~ \\x") == "\\textbackslash{}input/etc/passwd \\textasciitilde{} \\textbackslash{}x");
  const auto path = write_temp("privamp_style_figure.toml", kCase, R"toml(
[[figure]]
name = "styled"
x = "r"
log = "y"
xlabel = "steps r"
ylabel = "R_{/Symbol a}"
style = {size = "double", outputs = ["pgfplots"], palette = ["#112233", "#445566"], line_width = 2}
[[figure.series]]
case = "chain"
id = "T4.closed"
title = "exact, {/Symbol s} = 1"
[[figure.series]]
case = "chain"
id = "T4.closed"
y = "bound"
title = "Theorem 4"
)toml");
  const plots::FigureSet set = plots::load_figures({path});
  REQUIRE(set.figures.size() == 1);
  const plots::Style& st = set.figures[0].style;
  CHECK(st.width == 7.0);
  CHECK(st.height == 3.0);
  CHECK(st.line_width == 2);
  CHECK(st.outputs == std::vector<std::string>{"pgfplots"});
  const auto cases = plots::cases_for({&set.figures[0]}, set, true);
  const auto data = plots::select(set.figures[0], verify::run_cases(cases, {}));
  const auto dir = test::scratch() / "styled";
  plots::render(set.figures[0], data, dir);
  CHECK_FALSE(std::filesystem::exists(dir / "styled.pdf"));  // not asked for
  const std::string tex = read_text(dir / "styled.tex");
  CHECK_THAT(tex, Contains("\\setlength\\privampfigurewidth{\\textwidth}"));  // "double": the text width
  CHECK_THAT(tex, Contains("\\begin{axis}[width=\\privampfigurewidth, height=3in"));
  CHECK_THAT(tex, Contains("\\ifdim\\wd\\privampfigurebox>\\textwidth"));  // narrowed to fit when pgfplots' estimate overshoots
  CHECK_THAT(tex, Contains("% size: double"));
  CHECK_THAT(tex, Contains("mark=square,") || Contains("dashed"));  // the second series' own look
  CHECK_THAT(tex, Contains("legend to name=privamp-legend-styled"));  // below the axes, inside the text width
  CHECK_THAT(tex, Contains("ylabel={R$_{\\alpha }$}"));
  CHECK_THAT(tex, Contains("ymode=log"));
  CHECK_THAT(tex, Contains("\\definecolor{privampA}{HTML}{112233}"));
  CHECK_THAT(tex, Contains("\\addlegendentry{exact, $\\sigma $ = 1}"));
  CHECK(std::count(tex.begin(), tex.end(), '{') == std::count(tex.begin(), tex.end(), '}'));
  CHECK(tex.find("\\end{tikzpicture}") != std::string::npos);

  auto refused = [&](const std::string& style, const std::string& message) {
    const auto bad = write_temp("privamp_bad_style.toml", kCase, "\n[style]\n" + style + "\n[[figure]]\nname = \"f\"\nx = \"r\"\n"
                                "[[figure.series]]\ncase = \"chain\"\nid = \"T4.closed\"\n");
    CHECK_THROWS_WITH(plots::load_figures({bad}), Catch::Contains(message));
  };
  refused("size = \"a4\"", "must be single (3.5 x 2.6 in) or double");
  refused("width = 100", "key 'style.width': must be in [1, 20] inches");
  refused("palette = [\"red\"]", "'red' is not a colour");
  refused("outputs = [\"svg\"]", "'svg': allowed pdf, png, pgfplots");
  refused("font = \"Helvetica'; system 'x\"", "key 'style.font': must be a font family name");
  refused("colour = 1", "unknown key in [style]");
}

TEST_CASE("a figure file's texts reach the caption, the pgfplots file and the gnuplot script escaped", "[plots][escape]") {
  // A hostile co-author's figure file: LaTeX commands that would read or write files in the paper that inputs the
  // caption, and gnuplot/shell syntax. Nothing of them may survive as a command.
  // The shared test case under a hostile name.
  std::string payload_case = kCase;
  payload_case.replace(payload_case.find("name = \"chain\""), 14, "name = \"c\\\\input{/etc/passwd}$x$\"");
  const auto path = write_temp("privamp_hostile_figure.toml", payload_case, R"toml(
[[figure]]
name = "hostile"
x = "r"
title = "\\input{x/etc/passwd} `rm -rf ~` 100%"
description = "\\immediate\\write18{touch pwned} \\openout5=x & # ^ _ ~ <script> x^{\\input{y}$z$_{\\openout}}"
style = {outputs = ["pgfplots"]}
[[figure.series]]
case = "c\\input{/etc/passwd}$x$"
id = "T4.closed"
title = "a\\input{b}"
)toml");
  const plots::FigureSet set = plots::load_figures({path});
  const auto rows = verify::run_cases(plots::cases_for({&set.figures[0]}, set, true), {});
  const auto data = plots::select(set.figures[0], rows);
  const auto dir = test::scratch() / "hostile";
  std::filesystem::create_directories(dir);
  plots::render(set.figures[0], data, dir);
  for (const char* file : {"hostile_caption.txt", "hostile.tex"}) {
    INFO(file);
    const std::string text = read_text(dir / file);
    for (const char* command : {"\\input", "\\immediate", "\\write18", "\\openout", "$x$"}) CHECK(text.find(command) == std::string::npos);
    CHECK_THAT(text, Contains("\\textbackslash{}"));
  }
  // The title as gnuplot text (braces group), drawn over the plot (show_title's default) and so not in the caption.
  CHECK_THAT(read_text(dir / "hostile.tex"), Contains("title={\\textbackslash{}inputx/etc/passwd"));
  const std::string caption = read_text(dir / "hostile_caption.txt");
  CHECK(caption.find("passwd") == std::string::npos);
  // The description is figure markup (as titles are): ^ and _ are scripts, their text escaped for math (a backslash
  // before a letter is drawn, as gnuplot draws it).
  CHECK_THAT(caption, Contains("\\& \\# $^{ }$$_{ }$\\textasciitilde{} \\textless{}script\\textgreater{} "
                               "x$^{\\backslash inputy\\$z\\$_{\\backslash openout}}$"));
  // The provenance is plain text for people, never input into a paper: the names as written.
  CHECK_THAT(read_text(dir / "hostile_provenance.txt"), Contains("in case 'c\\input{/etc/passwd}$x$'"));
}

// Axis labels of parameters: a Greek letter's name is the letter (an exploration map's axes read "delta" and "alpha"),
// digits after it a subscript; any other name is itself, its markup characters escaped.
TEST_CASE("parameter names as axis labels: Greek letters by name, everything else literal", "[plots]") {
  CHECK(plots::parameter_label("delta") == "{/Symbol d}");
  CHECK(plots::parameter_label("sigma2") == "{/Symbol s}_{2}");
  CHECK(plots::parameter_label("Delta") == "{/Symbol D}");
  CHECK(plots::parameter_label("eps") == "{/Symbol e}");
  CHECK(plots::parameter_label("deltas") == plots::literal("deltas"));
  CHECK(plots::parameter_label("T_1") == plots::literal("T_1"));
  CHECK(plots::parameter_label("gamma_doeblin") == "{/Symbol g}_{doeblin}");  // a Greek name, then a word: its subscript
  CHECK(plots::parameter_label("gamma_") == plots::literal("gamma_"));
  CHECK(plots::parameter_label("gammas_x") == plots::literal("gammas_x"));
  CHECK(plots::parameter_label("eps_prime") == "{/Symbol e}'");  // a prime, not the subscript "prime"
  CHECK(plots::parameter_label("n_prime") == plots::literal("n") + "'");
  CHECK(plots::parameter_label("_prime") == plots::literal("_prime"));
  CHECK(plots::enhanced_to_plain(plots::parameter_label("sigma2")) == "σ_2");
}

TEST_CASE("an automatic log axis labelled every few decades ends at most half a step beyond its outer labels", "[plots]") {
  plots::Figure f;
  f.name = "f";
  f.x = "i";
  f.log = "y";
  f.series = {plots::Series{"c", "X", plots::Series::Y::exact, {}, "", "exact", "lines", 1}};
  auto point = [](double x, double y) { return plots::Point{x, y, y, y, "holds"}; };
  // 5e-9 to 30: labels every two decades; padded, the top (about 52) lay 1.7 decades above the label 10^0 and is
  // widened to 10^2; the bottom (about 1.6e-9) lies 0.8 decades below 10^-8, within the step: kept.
  const std::vector<std::vector<plots::Point>> wide = {{point(1, 5e-9), point(2, 30)}};
  const auto [lo, hi] = plots::model::axis_range(f, wide, 'y');
  CHECK(hi == Approx(100));
  CHECK(lo == Approx(1.6e-9).epsilon(0.05));
  const auto ticks = plots::model::axis_ticks(f, wide, 'y');
  REQUIRE(ticks.decades);
  CHECK(ticks.at.front() == Approx(1e-8));
  CHECK(ticks.at.back() == Approx(100));
  // Within half a step of a label: the padded data range as before (1.2e-8 to 2, labelled every two decades, padded
  // to about 5.1, 0.7 decades above the label 10^0).
  const std::vector<std::vector<plots::Point>> near = {{point(1, 1.2e-8), point(2, 2)}};
  CHECK(plots::model::axis_range(f, near, 'y').second < 10);
  CHECK(plots::model::axis_range(f, near, 'y').first > 1e-9);
  // Labelled every decade, the same rule with a step of one decade: 3e-8 to 2 padded reaches about 4.9, 0.69 decades
  // above 10^0, and is widened to 10; 3e-8 to 1.2 padded (about 2.9, 0.46 decades above) is kept.
  const std::vector<std::vector<plots::Point>> decade = {{point(1, 3e-8), point(2, 2)}};
  CHECK(plots::model::axis_range(f, decade, 'y').second == Approx(10));
  const std::vector<std::vector<plots::Point>> within = {{point(1, 3e-8), point(2, 1.2)}};
  CHECK(plots::model::axis_range(f, within, 'y').second < 3);
  const std::vector<std::vector<plots::Point>> few = {{point(1, 0.02), point(2, 30)}};
  CHECK(plots::model::axis_range(f, few, 'y').second == Approx(100));
  // Below the data, the same rule: 2e-7 to 1e3 padded reaches about 6.6e-8, 1.2 decades below the label 10^-6.
  const std::vector<std::vector<plots::Point>> low = {{point(1, 2e-7), point(2, 1e3)}};
  CHECK(plots::model::axis_range(f, low, 'y').first == Approx(1e-8));
}

TEST_CASE("decade ticks from 0.001 to 10000 are labelled as numbers, beyond as powers of ten", "[plots]") {
  // (a ratio axis of 1 to 2000 read 10^0 … 10^3 where 1, 10, 100, 1000 say the same in fewer glyphs)
  const auto ticks = [](double lo, double hi) { return plots::model::log_ticks({lo, hi}); };
  const auto small = ticks(0.8, 2500);
  REQUIRE(small.at.size() == 4);
  CHECK_FALSE(small.decades);
  CHECK_FALSE(ticks(0.0009, 20).decades);  // 0.001, 0.01 … 10: numbers
  CHECK(ticks(0.00009, 20).decades);       // a tick at 10^-4: all as powers of ten
  CHECK_FALSE(ticks(0.5, 2e4).decades);    // 1 … 10000
  CHECK(ticks(0.5, 2e5).decades);          // a tick at 10^5
  CHECK(ticks(1e-30, 1).decades);
}

TEST_CASE("linear ticks: 0 is written 0, never -0", "[plots]") {
  // An axis padded below 0 (ceil of a small negative fraction is -0): pgfplots printed the tick "-0" in seven figures.
  plots::Figure f;
  f.name = "f";
  f.x = "x";
  f.series = {plots::Series{"c", "X", plots::Series::Y::exact, {}, "", "exact", "lines", 1}};
  const std::vector<std::vector<plots::Point>> data = {{plots::Point{0, 0, 0, 0, "holds"}, plots::Point{1.2, 1, 1, 1, "holds"}}};
  for (const char axis : {'x', 'y'}) {
    const auto ticks = plots::model::linear_ticks(f, data, axis);
    REQUIRE(!ticks.empty());
    CHECK(plots::model::axis_range(f, data, axis).first < 0);
    for (double t : ticks) CHECK_FALSE((t == 0 && std::signbit(t)));
  }
}
