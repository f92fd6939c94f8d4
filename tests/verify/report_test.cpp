// The report writers and the one serialiser of rows (verify/records/codec.hpp): a row survives JSON and CBOR bit for
// bit (infinities, NaN and words included), and the CSV, JSON and Markdown files say what the rows say.
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "numerics/errors.hpp"
#include "numerics/files.hpp"
#include "support/scratch.hpp"
#include "verify/report/report.hpp"
#include "verify/records/codec.hpp"

using namespace privamp;
using namespace privamp::verify;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;

namespace {

Row sample_row() {
  Row r;
  r.file = "cases/x.toml";
  r.case_name = "a case, with \"quotes\"";
  r.id = "T.x";
  r.params.numbers = {{"alpha", 2.5}, {"delta", 1e-300}};
  r.params.words = {{"noise", "laplace"}};
  r.divergence = Quantity::renyi(2.5);
  r.order = 2.5;
  r.mu = "laplace(1, 1)";
  r.nu = "laplace(0, 1)";
  r.exact = Estimate::from_log(-800, 1e-12, ErrorKind::quadrature, "test, with a comma");
  r.exact.work = 1234;
  r.cross = Estimate::infinite("inf route");
  r.bound = 1.0 / 3.0;
  r.bound_lower = 0.3;
  r.bound_upper = std::numeric_limits<double>::infinity();
  r.note = "line one\nline two";
  r.verdict = Verdict::violated;
  r.direction = Direction::lower;  // (not the default: the codec must carry it)
  r.reason = "exact lower end > bound";
  r.outside = "needs L <= 1";
  return r;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void check_same(const Estimate& a, const Estimate& b) {
  CHECK(same(a.value, b.value));
  CHECK(same(a.lower, b.lower));
  CHECK(same(a.upper, b.upper));
  CHECK(same(a.log_value(), b.log_value()));
  CHECK(same(a.log_lower(), b.log_lower()));
  CHECK(same(a.log_upper(), b.log_upper()));
  CHECK(a.error_kind == b.error_kind);
  CHECK(a.method == b.method);
  CHECK(a.work == b.work);
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a row survives the codec bit for bit, between processes too", "[verify][report]") {
  const Row r = sample_row();
  const TaskRows tasks = {{7, {r}}, {9, {}}};
  const TaskRows back = decode_rows(encode_rows(tasks));
  REQUIRE(back.size() == 2);
  CHECK(back[0].first == 7);
  CHECK(back[1].second.empty());
  const Row& b = back[0].second.at(0);
  CHECK(b.file == r.file);
  CHECK(b.case_name == r.case_name);
  CHECK(b.id == r.id);
  CHECK(b.params.numbers == r.params.numbers);
  CHECK(b.params.words == r.params.words);
  CHECK(b.quantity() == r.quantity());
  REQUIRE(b.divergence);
  CHECK(b.divergence->parameter == 2.5);
  CHECK(b.order == r.order);
  check_same(b.exact, r.exact);
  REQUIRE(b.cross);
  check_same(*b.cross, *r.cross);
  CHECK(b.bound == r.bound);
  CHECK(b.bound_lower == r.bound_lower);
  CHECK(b.bound_upper == r.bound_upper);
  CHECK(b.note == r.note);
  CHECK(b.verdict == r.verdict);
  CHECK(b.direction == r.direction);
  CHECK(b.reason == r.reason);
  CHECK(b.outside == r.outside);
  // Keyed, with non-finite numbers as strings; a malformed number is refused.
  const nlohmann::json j = to_json(r);
  CHECK(j["bound_upper"] == "inf");
  CHECK(j["cross_check"]["value"] == "inf");
  CHECK(j["parameters"]["noise"] == "laplace");
  CHECK_THROWS_AS(number_from_json(nlohmann::json("infinity")), InvalidArgument);
  // NaN is null and back.
  CHECK(std::isnan(number_from_json(json_number(std::nan("")))));
}

// The field lists (verify/records/fields.hpp) drive every reader: a record or golden row without one of its fields,
// or with a field of the wrong type, is refused with the field's name; a field written only where set may be absent.
TEST_CASE("records read back: every missing or mistyped field named, from the one field list", "[verify][report]") {
  const Row r = sample_row();
  const nlohmann::json full = to_json(r);
  int required = 0, optional = 0;
  int derived = 0;
  for_each_row_field(r, [&](const RowField& field, const auto& member) {
    if (!(field.in & kRecord)) return;
    INFO(field.name);
    if constexpr (is_derived<std::decay_t<decltype(member)>>) {  // computed from others: written, never read
      ++derived;
      REQUIRE(full.contains(field.name));
      return;
    }
    REQUIRE(full.contains(field.name));  // the sample sets every field: each is written
    nlohmann::json without = full;
    without.erase(field.name);
    if (field.if_set || field.label) {  // the label of a row with a divergence is the divergence's
      ++optional;
      CHECK_NOTHROW(row_from_json(without));
    } else {
      ++required;
      CHECK_THROWS_WITH(row_from_json(without), Contains("'" + std::string(field.name) + "'"));
    }
    nlohmann::json mistyped = full;
    mistyped[field.name] = nlohmann::json::array({1, 2});
    if (!field.label) CHECK_THROWS_WITH(row_from_json(mistyped), Contains("'" + std::string(field.name) + "'"));
  });
  CHECK(required >= 10);
  CHECK(derived == 1);  // bound_over_exact
  CHECK(optional == 6);  // divergence, quantity, cross_check, bound_lower, bound_upper, outside
  // A row without its divergence needs its label.
  nlohmann::json unlabelled = full;
  unlabelled.erase("divergence");
  CHECK(row_from_json(unlabelled).quantity() == r.quantity());
  unlabelled.erase("quantity");
  CHECK_THROWS_WITH(row_from_json(unlabelled), Contains("'quantity'"));

  const nlohmann::json golden = golden_json(r);
  const GoldenRow g = golden_from_json(golden);
  CHECK(g.key == r.key());
  CHECK(g.value == r.exact.value);
  CHECK(g.verdict == Verdict::violated);
  std::size_t fields = 0;
  for_each_golden_field(g, [&](const char* name, const auto& member) {
    INFO(name);
    ++fields;
    nlohmann::json without = golden;
    without.erase(name);
    if constexpr (requires { member.has_value(); }) {  // a log: written where the double lost the number (e^-800 here)
      REQUIRE(member.has_value());
      CHECK(golden.contains(name));
      CHECK_NOTHROW(golden_from_json(without));
    } else {
      CHECK_THROWS_WITH(golden_from_json(without), Contains(std::string("'") + name + "'"));
    }
    nlohmann::json mistyped = golden;
    mistyped[name] = nlohmann::json::array();
    CHECK_THROWS_WITH(golden_from_json(mistyped), Contains(std::string("'") + name + "'"));
  });
  CHECK(fields == golden.size());  // nothing written that the list does not name
  // A key no golden row has is refused, not ignored; -0 reads back as 0 (a message had printed "value moved -0 -> ...").
  nlohmann::json extra = golden;
  extra["foo"] = 1;
  CHECK_THROWS_WITH(golden_from_json(extra), Contains("an unknown key 'foo'"));
  nlohmann::json negative_zero = golden;
  negative_zero["value"] = negative_zero["lower"] = -0.0;
  negative_zero["upper"] = 1.0;
  for (const char* log : {"log_value", "log_lower", "log_upper"}) negative_zero.erase(log);
  const GoldenRow z = golden_from_json(negative_zero);
  CHECK(!std::signbit(z.value));
  CHECK(!std::signbit(z.lower));
  // The table's columns are the list's table fields, in order, then the parameters.
  std::vector<std::string> columns;
  for_each_row_field(r, [&](const RowField& field, const auto&) {
    if (field.in & kTable) columns.emplace_back(field.name);
  });
  const FlatTable t = flat_table({r});
  REQUIRE(t.columns.size() == columns.size() + 3);
  CHECK(std::equal(columns.begin(), columns.end(), t.columns.begin()));
  CHECK(t.rows.at(0).size() == t.columns.size());
}

TEST_CASE("the report writers: CSV fields quoted, JSON rows decodable, Markdown sections by verdict", "[verify][report]") {
  Row held = sample_row();
  held.verdict = Verdict::holds;
  held.id = "T.held";
  const std::vector<Row> rows = {sample_row(), held};
  const auto dir = test::scratch() / "report";
  std::filesystem::create_directories(dir);
  write_csv(rows, dir / "results.csv");
  write_json(rows, dir / "results.json");
  ReportMeta meta;
  meta.version = "9.9.9";
  meta.theorems["T.x"] = {"R_alpha <= |f(D)|", "a paper"};
  write_markdown(rows, meta, dir / "report.md");

  const std::string csv = read(dir / "results.csv");
  CHECK_THAT(csv, Contains("\"a case, with \"\"quotes\"\"\""));  // commas and quotes inside a quoted field
  CHECK_THAT(csv, Contains("\"line one\nline two\""));
  CHECK_THAT(csv, Contains(",violated,"));
  // One column per parameter after the fixed ones, in name order; a parameter named like a fixed column is prefixed.
  const std::string header = csv.substr(0, csv.find('\n'));
  CHECK_THAT(header, EndsWith(",reason,note,alpha,delta,noise"));
  CHECK_THAT(csv, Contains(",2.5,1e-300,laplace\n"));
  Row clash = held;
  clash.params.numbers = {{"exact", 3}};
  write_csv({clash}, dir / "clash.csv");
  CHECK_THAT(read(dir / "clash.csv"), Contains(",note,param_exact,noise\n"));
  // For data frames: the order as a number beside the quantity, and no ratio on a row whose verdict compared
  // nothing (a not-applicable bound's value must not reach a min() over the column).
  CHECK_THAT(header, Catch::Matchers::StartsWith("file,case,id,parameters,quantity,order,mu,nu,exact,"));
  Row compared = held;
  compared.exact = Estimate::from_value(0.25, 0, ErrorKind::exact, "closed form");
  Row inapplicable = compared;
  inapplicable.verdict = Verdict::not_applicable;
  inapplicable.bound = -3.4e19;
  CHECK(std::isnan(inapplicable.ratio()));
  CHECK(compared.ratio() == Approx(4.0 / 3.0));
  // An identity whose formula's double fell below 0 by cancellation (its enclosure straddles 0; "tight"): no ratio,
  // rather than a negative one that the summary showed as "min ratio -2221" and ranked tightest.
  Row cancelled = compared;
  cancelled.verdict = Verdict::tight;
  cancelled.bound = -5.6e-12;
  CHECK(std::isnan(cancelled.ratio()));
  CHECK(std::isnan(cancelled.looseness()));
  cancelled.bound = 3.3e-13;  // rounded above 0: the enclosure [-1.1e-8, 1.1e-8] says nothing about the ratio either
  cancelled.bound_lower = -1.1e-8;
  cancelled.bound_upper = 1.1e-8;
  CHECK(std::isnan(cancelled.ratio()));
  cancelled.bound_lower = 0.2;  // an enclosure away from 0: the ratio is the doubles'
  cancelled.bound_upper = 0.4;
  cancelled.bound = 0.3;
  CHECK(cancelled.ratio() == Approx(1.2));
  const FlatTable flat = flat_table({compared, inapplicable});
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(flat.columns.begin(), flat.columns.end(), name) - flat.columns.begin());
  };
  CHECK(std::get<double>(flat.rows[0][column("order")]) == held.order);
  CHECK(std::isnan(std::get<double>(flat.rows[1][column("bound_over_exact")])));
  Row kl = compared;
  kl.order = std::nan("");
  CHECK(std::holds_alternative<std::monostate>(flat_table({kl}).rows[0][column("order")]));

  const nlohmann::json json = nlohmann::json::parse(read(dir / "results.json"));
  REQUIRE(json.size() == 2);
  CHECK(row_from_json(json[1]).id == "T.held");
  CHECK(json[0]["exact"]["log_value"] == -800);

  const std::string md = read(dir / "report.md");
  CHECK_THAT(md, Contains("## Violations (1)"));
  CHECK_THAT(md, Contains("| T.x |"));
  CHECK_THAT(md, Contains("## Errors (0)"));
  CHECK_THAT(md, Contains("privamp 9.9.9"));
  // Texts from case files through the Markdown escaper: '|' cannot split a cell, '<' cannot open a tag, and the
  // characters of links, emphasis and code are escaped (the page shows "R_alpha <= |f(D)|").
  CHECK_THAT(md, Contains("| T.x | R\\_alpha &lt;= \\|f\\(D\\)\\| | a paper |"));
  CHECK_THAT(md, Contains("Kinds of interval behind the exact values (rows): a-posteriori 2."));
  CHECK_THAT(summary_table(rows), Contains("T.held"));

  // JUnit: one test case per ID and case; texts from case files escaped for XML (markup, control bytes, bad UTF-8).
  Row hostile = held;
  hostile.case_name = "a <case> & \"its\" 'quotes'\x01 \xff end \xc3\xa9";
  hostile.verdict = Verdict::error;
  hostile.reason = "</testcase><injected/>";
  write_junit({sample_row(), held, hostile}, dir / "junit.xml");
  const std::string xml = read(dir / "junit.xml");
  CHECK_THAT(xml, Contains("tests=\"3\" failures=\"1\" errors=\"1\""));
  // (a control character becomes a visible [U+0001], an invalid byte a visible [0xFF]: numerics/escape.hpp)
  CHECK_THAT(xml, Contains("name=\"a &lt;case&gt; &amp; &quot;its&quot; &apos;quotes&apos;[U+0001] [0xFF] end \xc3\xa9\""));
  CHECK_THAT(xml, Contains("&lt;/testcase&gt;&lt;injected/&gt;"));
  CHECK(xml.find('\x01') == std::string::npos);
  CHECK(xml.find("<injected") == std::string::npos);

  // A file that cannot be written is an error, not a silent loss.
  CHECK_THROWS_AS(write_csv(rows, dir / "no_such_dir" / "results.csv"), InvalidArgument);
  // And so is a write that fails after the file opened (a full disk).
  // A device is not a file privamp writes (it writes regular files only, atomically, by rename).
  if (std::filesystem::exists("/dev/full")) CHECK_THROWS_WITH(write_json(rows, "/dev/full"), Contains("not a regular file"));
}

TEST_CASE("reports name the loosest and tightest rows per theorem, LaTeX and HTML escape texts from case files", "[verify][report]") {
  auto row = [](double exact, double bound, Verdict v, double alpha) {
    Row r;
    r.file = "cases/x.toml";
    r.case_name = "c & <d> 100% _x_";
    r.id = "T_1&2";
    r.params.numbers = {{"alpha", alpha}};
    r.divergence = Quantity::renyi(alpha);
    r.exact = Estimate::from_value(exact, 0, ErrorKind::exact, "closed form");
    r.bound = bound;
    r.verdict = v;
    r.reason = "<script>alert(1)</script>";
    return r;
  };
  const std::vector<Row> rows = {row(1, 2, Verdict::holds, 2), row(1, 1e20, Verdict::holds, 3), row(1, 1.5, Verdict::holds, 4),
                                 row(2, 1, Verdict::violated, 5)};
  const auto summaries = theorem_summaries(rows);
  REQUIRE(summaries.size() == 1);
  const TheoremSummary& st = summaries.front();
  REQUIRE(st.loosest);
  REQUIRE(st.tightest);
  CHECK(st.loosest->params.at("alpha") == 3);   // ratio 1e20
  CHECK(st.tightest->params.at("alpha") == 5);  // ratio 0.5 (violated)
  CHECK(st.ratios == std::vector<double>{0.5, 1.5, 2, 1e20});
  CHECK(st.count(Verdict::violated) == 1);
  CHECK_THAT(ratio_at(st.loosest), Contains("1e+20 at alpha=3 (c & <d> 100% _x_)"));
  // A lower bound is ranked by exact/bound (at least 1 where it holds): exact 1 against 0.01 is the loosest, against
  // 0.99 the tightest, and a violated one (bound 1.5 over exact 1) reads 0.667 — bound/exact had them the other way.
  std::vector<Row> lower = {row(1, 0.01, Verdict::holds, 2), row(1, 0.99, Verdict::holds, 3), row(1, 1.5, Verdict::violated, 4)};
  for (Row& r : lower) r.direction = Direction::lower;
  const TheoremSummary low = theorem_summaries(lower).front();
  CHECK(low.loosest->params.at("alpha") == 2);
  CHECK(low.tightest->params.at("alpha") == 4);
  CHECK_THAT(ratio_at(low.tightest), Contains("0.6667 at alpha=4"));
  CHECK(lower[1].ratio() == 0.99);  // bound_over_exact keeps its name's meaning

  ReportMeta meta;
  meta.version = "1.2.3";
  meta.commit = "abc";
  meta.command = "privamp verify 'a b' --html <out>";
  meta.theorems["T_1&2"] = {"exact <= bound & more", "paper <i>"};
  const std::string wide = latex_summary_wide(rows, meta);
  CHECK_THAT(wide, Contains("\\begin{tabular*}{\\linewidth}"));
  CHECK_THAT(wide, Contains("\\toprule"));
  CHECK_THAT(wide, Contains("\\bottomrule"));
  CHECK_THAT(wide, Contains("T\\_1\\&2 & 4 & 0 & 3 & 0 & 1 & 0 & 0 & 0.5 & 2 & $1\\times 10^{20}$ \\\\"));
  // One column: the counts that occur, abbreviated, and the ratios' range.
  const std::string tex = latex_summary(rows, meta);
  CHECK_THAT(tex, Contains("\\begin{tabularx}{\\linewidth}"));
  CHECK_THAT(tex, Contains("T\\_1\\&2 & 4 & 3\\,h 1\\,V & 0.5 & $1\\times 10^{20}$ \\\\"));

  const auto dir = test::scratch() / "html-report";
  write_html(rows, meta, dir);
  const std::string page = read(dir / "index.html");
  CHECK_THAT(page, Contains("<!DOCTYPE html>"));
  CHECK_THAT(page, Contains("<h3>T_1&amp;2</h3>"));
  CHECK_THAT(page, Contains("exact &lt;= bound &amp; more"));
  CHECK_THAT(page, Contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
  CHECK_THAT(page, Contains("<code>privamp verify &#39;a b&#39; --html &lt;out&gt;</code>"));
  CHECK_THAT(page, Contains("<svg"));
  // The plot: a tooltip per point (its row's parameters, escaped), decades as powers of ten, not "1e0".
  CHECK_THAT(page, Contains("</title></circle>"));
  CHECK_THAT(page, Contains("<title>alpha=3 (c &amp; &lt;d&gt; 100% _x_): renyi(3), bound/exact 1e+20, holds</title>"));
  CHECK_THAT(page, Contains(">alpha (") && Contains(" rows with a ratio"));  // the varied parameter as the x axis
  CHECK_THAT(page, Contains("10<tspan dy=\"-5\" font-size=\"8\">20</tspan>"));
  CHECK(page.find(">1e0<") == std::string::npos);
  CHECK_THAT(page, Contains("<h2>Violations (1)</h2>"));
  CHECK(page.find("<script") == std::string::npos);  // nothing runs
  CHECK(page.find("src=") == std::string::npos);     // nothing is loaded
  CHECK(page.find("href=") == std::string::npos);

  // One ID on cases of different parameters (alpha here, m there): the plot's axis is a parameter every row has,
  // and a parameter some row lacks is no axis (asking each row for it threw std::out_of_range, "map::at").
  std::vector<Row> mixed = rows;
  mixed.push_back(row(1, 3, Verdict::holds, 6));
  mixed.back().params.numbers = {{"m", 3}};
  std::rotate(mixed.begin(), mixed.end() - 1, mixed.end());  // (the row without alpha first)
  const auto mixed_dir = test::scratch() / "html-report-mixed";
  CHECK_NOTHROW(write_html(mixed, meta, mixed_dir));
  CHECK_THAT(read(mixed_dir / "index.html"), Contains("<svg"));
}

TEST_CASE("golden results that are not regular files are refused when read for the check, before any run", "[report][golden]") {
  // A pipe, a folder or a link named like a golden file was once read only after the whole run.
  const auto base = test::scratch() / "golden_special";
  for (const char* kind : {"fifo", "folder", "link"}) {
    const auto dir = base / kind;
    std::filesystem::create_directories(dir);
    const auto file = dir / "cases.json";
    if (std::string(kind) == "fifo") REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
    if (std::string(kind) == "folder") std::filesystem::create_directories(file);
    if (std::string(kind) == "link") {
      write_file(base / "elsewhere.json", "[]\n");
      std::filesystem::create_symlink(base / "elsewhere.json", file);
    }
    INFO(kind);
    CHECK_THROWS_WITH(verify::golden_verdicts(dir), Catch::Contains("not a regular file") && Catch::Contains("cases.json"));
  }
  write_file(base / "plain.txt", "x");
  CHECK_THROWS_WITH(verify::golden_verdicts(base / "plain.txt"), Catch::Contains("not a directory"));
}

TEST_CASE("a golden file far larger than any catalogue's is refused before it is parsed", "[report][golden]") {
  // A 300,000-row golden file (137 MB) once took 20 s to parse before anything was said.
  const auto dir = test::scratch() / "golden_huge";
  std::filesystem::create_directories(dir);
  write_file(dir / "cases.json", "[]");
  std::filesystem::resize_file(dir / "cases.json", 33u << 20);
  CHECK_THROWS_WITH(verify::golden_verdicts(dir), Catch::Contains("golden file") && Catch::Contains("cases.json"));
}

TEST_CASE("report.md lists the widest intervals relative to their values, with the parts of their widths", "[verify][report]") {
  std::vector<Row> rows;
  for (int k = 0; k < 12; ++k) {  // relative widths 1e-12, 1e-11, ..., 0.1 (the widest last)
    Row r = sample_row();
    r.id = fmt::format("W{}", k);
    r.verdict = Verdict::holds;
    r.exact = Estimate::from_value(1.0, 0.5 * std::pow(10.0, k - 12), ErrorKind::quadrature, "quadrature");
    r.exact.add_error(ErrorPart::lumping, 0.25 * std::pow(10.0, k - 12));
    rows.push_back(r);
  }
  Row zero = sample_row();  // an exact zero's rounding bar: no relative width, left out
  zero.id = "Z0";
  zero.verdict = Verdict::holds;
  zero.exact = Estimate::from_interval(0, 1e-13, ErrorKind::exact, "exact zero");
  zero.exact.set_value(0);
  rows.push_back(zero);
  const auto dir = test::scratch() / "report_widest";
  std::filesystem::create_directories(dir);
  write_markdown(rows, ReportMeta{}, dir / "report.md");
  const std::string md = read(dir / "report.md");
  const std::string widest = md.substr(md.find("## Widest intervals (10)"));
  INFO(widest);
  CHECK(widest.find("| W11 |") < widest.find("| W10 |"));  // widest first
  CHECK_THAT(widest, Contains("| a-posteriori | 0.1 | quadrature 0.05, lumping 0.025 |"));  // the parts, largest first
  CHECK(widest.find("| W1 |") == std::string::npos);  // the ten widest only
  CHECK(widest.find("| Z0 |") == std::string::npos);
}

// report.md and the HTML report print an exact value as the other tables do: "< upper" where only the upper end is
// known, exp(x) below the double range ("0 [0, 1.25e-06]" and "0 [0, 4.94066e-324]" had stood for these).
TEST_CASE("report.md and the HTML report print values known from above and below the double range as the tables do", "[verify][report]") {
  Row tiny = sample_row();
  tiny.exact = Estimate::from_log(-1233.8691, 1e-9, ErrorKind::exact, "closed form");
  tiny.verdict = Verdict::violated;
  Row above = sample_row();
  above.id = "T.above";
  above.exact = Estimate::from_interval(0, 1.250595401e-6, ErrorKind::certified, "certified");
  above.verdict = Verdict::inconclusive;
  REQUIRE(bounded_above_only(above.exact));
  const std::vector<Row> rows = {tiny, above};
  ReportMeta meta;
  meta.theorems["T.x"] = {"s", "a paper"};
  const auto dir = test::scratch() / "report-shown";
  std::filesystem::create_directories(dir);
  write_markdown(rows, meta, dir / "report.md");
  write_html(rows, meta, dir / "html");
  const std::string md = read(dir / "report.md"), html = read(dir / "html" / "index.html");
  CHECK_THAT(md, Contains("exp(-1233.869"));
  CHECK_THAT(md, Contains("< 1.25059540"));
  CHECK(md.find("0 [0, 1.25") == std::string::npos);
  // (the HTML lists the violations: the row below the double range, its interval to as many digits as report.md's)
  CHECK_THAT(html, Contains("exp(-1233.8691) [exp(-1233.869"));
  CHECK(html.find("4.94066e-324") == std::string::npos);
}

// A row's key names its parameters unambiguously: a word with a comma or '=' is quoted (a = ["x, b=y", "x"] against
// b = ["z", "y, b=z"] gave two rows one key, and --update-golden wrote a file --check-golden then refused).
TEST_CASE("parameters that could read as others are quoted in keys: two rows, two keys", "[report][golden]") {
  Params one, two;
  one.words = {{"a", "x, b=y"}, {"b", "z"}};
  two.words = {{"a", "x"}, {"b", "y, b=z"}};
  CHECK(one.describe() != two.describe());
  CHECK(one.describe() == "a=\"x, b=y\", b=z");
  Params quoted;
  quoted.words = {{"w", "say \"hi\" \\ there"}, {"plain", "gaussian"}};
  CHECK(quoted.describe() == "plain=gaussian, w=\"say \\\"hi\\\" \\\\ there\"");
  // A word that reads as a number is quoted too: the word "1" is not the number 1 (a golden row with "1" matched a run
  // with 1).
  Params number, word;
  number.numbers = {{"k", 1}};
  word.words = {{"k", "1"}};
  CHECK(number.describe() != word.describe());
}
