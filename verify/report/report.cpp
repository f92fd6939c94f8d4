#include "verify/report/report.hpp"
#include "verify/input/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "numerics/files.hpp"
#include "verify/records/codec.hpp"

namespace privamp::verify {

namespace {

// CSV numbers: full precision; undefined values (a formula outside its hypotheses, a ratio with a zero exact
// value) as empty fields.
std::string csv_number(double x) { return std::isnan(x) ? "" : fmt::format("{:.17g}", plain_zero(x)); }

std::string show(double x) {
  if (std::isnan(x)) return "-";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.4g}", x);
}



}  // namespace

long TheoremSummary::count(Verdict v) const {
  const auto it = counts.find(v);
  return it == counts.end() ? 0L : it->second;
}

std::vector<TheoremSummary> theorem_summaries(const std::vector<Row>& rows) {
  std::map<std::string, TheoremSummary> by_id;
  for (const Row& r : rows) {
    TheoremSummary& st = by_id[r.id];
    st.id = r.id;
    ++st.points;
    if (!r.is_property() && !std::isnan(r.exact.value) && r.verdict != Verdict::error) {
      ++st.valued;
      st.crossed += r.cross.has_value();
    }
    ++st.counts[r.verdict];
    if (!r.is_property() && (r.verdict == Verdict::tight || r.verdict == Verdict::holds ||
                             r.verdict == Verdict::violated || r.verdict == Verdict::inconclusive)) {
      ++st.decided_on[r.exact.error_kind];
      const double q = r.looseness();
      if (std::isnan(q)) continue;
      if (st.ratios.empty() || q < st.tightest->looseness()) st.tightest = &r;
      if (st.ratios.empty() || q > st.loosest->looseness()) st.loosest = &r;
      st.ratios.push_back(q);
    }
  }
  std::vector<TheoremSummary> out;
  for (auto& [id, st] : by_id) {
    std::sort(st.ratios.begin(), st.ratios.end());
    out.push_back(std::move(st));
  }
  return out;
}

double TheoremSummary::proven_share() const {
  long all = 0, proven = 0;
  for (const auto& [kind, n] : decided_on) {
    all += n;
    if (kind == ErrorKind::exact || kind == ErrorKind::certified) proven += n;
  }
  return all == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(proven) / static_cast<double>(all);
}

std::string summary_table(const std::vector<Row>& rows) {
  std::string out = fmt::format("{:<18} {:>6} {:>6} {:>6} {:>6} {:>6} {:>5} {:>6} {:>6}   {:>10} {:>10} {:>10} {:>7}\n", "theorem",
                                "points", "tight", "holds", "incon", "VIOL", "n/a", "error", "cross", "min ratio", "median", "max",
                                "proven");
  std::map<ErrorKind, long> total;
  const auto summaries = theorem_summaries(rows);
  for (const TheoremSummary& st : summaries)
    for (const auto& [kind, n] : st.decided_on) total[kind] += n;
  for (const TheoremSummary& st : summaries) {
    const auto& r = st.ratios;
    const std::string lo = r.empty() ? "-" : show(r.front()), med = r.empty() ? "-" : show(r[r.size() / 2]),
                      hi = r.empty() ? "-" : show(r.back());
    // The share of valued rows whose exact value was confirmed by a second, independent route.
    const std::string cross = st.valued == 0 ? "-" : fmt::format("{:.0f}%", 100.0 * static_cast<double>(st.crossed) / static_cast<double>(st.valued));
    // The share of its verdicts that rest on an exact or certified interval (the rest: estimates, confidence intervals).
    const double share = st.proven_share();
    out += fmt::format("{:<18} {:>6} {:>6} {:>6} {:>6} {:>6} {:>5} {:>6} {:>6}   {:>10} {:>10} {:>10} {:>7}\n", st.id, st.points,
                       st.count(Verdict::tight), st.count(Verdict::holds), st.count(Verdict::inconclusive),
                       st.count(Verdict::violated), st.count(Verdict::not_applicable), st.count(Verdict::error), cross, lo,
                       med, hi, std::isnan(share) ? "-" : fmt::format("{:.0f}%", 100 * share));
  }
  long all = 0;
  std::vector<std::string> parts;
  for (const auto& [kind, n] : total) {
    all += n;
    parts.push_back(fmt::format("{} {}", to_string(kind), n));
  }
  if (all > 0) {
    const long proven = (total.count(ErrorKind::exact) ? total[ErrorKind::exact] : 0) + (total.count(ErrorKind::certified) ? total[ErrorKind::certified] : 0);
    out += fmt::format("verdicts on exact or certified intervals: {} of {} ({:.0f}%); by interval: {}\n", proven, all,
                       100.0 * static_cast<double>(proven) / static_cast<double>(all), fmt::join(parts, ", "));
  }
  return out;
}

ReportMeta report_meta(const std::vector<Row>& rows, const DeclaredBounds& declared, std::string version,
                       std::string commit, std::string command, double seconds) {
  ReportMeta m;
  m.version = std::move(version);
  m.commit = std::move(commit);
  m.command = std::move(command);
  m.seconds = seconds;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &utc);
  m.date = date;
  for (const Row& r : rows)
    if (!m.theorems.count(r.id)) {
      const BoundEntry& e = find_bound(r.id, declared);
      m.theorems[r.id] = {e.statement, e.source};
    }
  return m;
}

void write_csv(const std::vector<Row>& rows, const std::filesystem::path& file) { write_table_csv(flat_table(rows), file); }

void write_table_csv(const FlatTable& t, const std::filesystem::path& file) {
  OutputFile checked(file);
  std::ostream& out = checked.stream();
  auto cell = [](const Cell& c) {
    if (const double* x = std::get_if<double>(&c)) return csv_number(*x);
    if (const std::string* s = std::get_if<std::string>(&c)) return escape::csv(*s);
    return std::string();
  };
  for (std::size_t i = 0; i < t.columns.size(); ++i) out << (i ? "," : "") << escape::csv(t.columns[i]);
  out << '\n';
  for (const auto& cells : t.rows) {
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << cell(cells[i]);
    out << '\n';
  }
  checked.close();
}

std::string rows_json(const std::vector<Row>& rows, int indent) {
  nlohmann::json all = nlohmann::json::array();
  for (const Row& r : rows) all.push_back(to_json(r));
  return all.dump(indent);
}

void write_json(const std::vector<Row>& rows, const std::filesystem::path& file) {
  write_file(file, rows_json(rows, 1) + "\n");
}

namespace {


}  // namespace

std::string ratio_at(const Row* r) {
  if (!r) return "-";
  return fmt::format("{} at {} ({})", show(r->looseness()), r->params.describe(), r->case_name);
}

std::string interval_kinds(const std::vector<Row>& rows) {
  std::map<std::string, long> kinds;
  for (const Row& r : rows)
    if (!r.is_property() && !std::isnan(r.exact.value)) ++kinds[to_string(r.exact.error_kind)];
  std::vector<std::string> parts;
  for (const auto& [kind, n] : kinds) parts.push_back(fmt::format("{} {}", kind, n));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

namespace {

// The rows whose intervals are widest relative to their values (at most `n`), with what their widths are made of,
// the largest part first: where an audit starts.
void write_widest(std::ostream& out, const std::vector<Row>& rows, std::size_t n) {
  // (a row whose value is 0, or below the double range, has no relative width: an exact zero's rounding bar or a
  // lone upper end, which its method names; it is left out)
  auto relative_width = [](const Row& r) {
    const double w = r.exact.upper - r.exact.lower, v = std::fabs(r.exact.value);
    return w > 0 && std::isfinite(w) && v >= std::numeric_limits<double>::min() ? w / v : 0.0;
  };
  std::vector<const Row*> wide;
  for (const Row& r : rows)
    if (!r.is_property() && relative_width(r) > 0) wide.push_back(&r);
  std::stable_sort(wide.begin(), wide.end(), [&](const Row* a, const Row* b) { return relative_width(*a) > relative_width(*b); });
  if (wide.size() > n) wide.resize(n);
  out << "## Widest intervals (" << wide.size() << ")\n\nRelative to the value; the parts of each width (half-widths, "
         "the largest first) are the estimate's error budget (results.json: error_budget). Rows whose value is 0 or below "
         "the double range are left out.\n\n";
  if (wide.empty()) {
    out << "None.\n\n";
    return;
  }
  out << "| ID | case | parameters | quantity | interval | kind | width/value | parts |\n|---|---|---|---|---|---|---|---|\n";
  for (const Row* r : wide) {
    ErrorBudget parts = r->exact.budget;
    std::stable_sort(parts.begin(), parts.end(), [](const ErrorTerm& a, const ErrorTerm& b) { return a.log_amount > b.log_amount; });
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {:.3g} | {} |\n", escape::markdown(r->id),
                       escape::markdown(r->case_name), escape::markdown(r->params.describe()), escape::markdown(r->quantity()),
                       interval_text(r->exact, 6), error_kind_label(r->exact), relative_width(*r),
                       parts.empty() ? "-" : escape::markdown(budget_text(parts)));
  }
  out << "\n";
}

}  // namespace

void write_markdown(const std::vector<Row>& rows, const ReportMeta& meta, const std::filesystem::path& file) {
  OutputFile checked(file);
  std::ostream& out = checked.stream();
  out << "# privamp verify report\n\n";
  out << fmt::format("privamp {} (commit {}), {}, {:.1f} s: {}\n\n", meta.version, meta.commit, meta.date, meta.seconds,
                     escape::markdown_code(meta.command));
  out << fmt::format("Kinds of interval behind the exact values (rows): {}.\n\n", interval_kinds(rows));
  out << "## Summary per theorem\n\n```\n" << summary_table(rows) << "```\n\n";
  out << "bound/exact: for upper bounds ≥ 1 when the bound holds (1 = tight); for lower bounds, exact/bound.\n\n";
  out << "## Theorems\n\n| ID | statement | source | loosest: ratio at | tightest: ratio at |\n|---|---|---|---|---|\n";
  for (const TheoremSummary& st : theorem_summaries(rows)) {
    const auto t = meta.theorems.find(st.id);
    out << fmt::format("| {} | {} | {} | {} | {} |\n", escape::markdown(st.id), escape::markdown(t == meta.theorems.end() ? "" : t->second.statement),
                       escape::markdown(t == meta.theorems.end() ? "" : t->second.source), escape::markdown(ratio_at(st.loosest)),
                       escape::markdown(ratio_at(st.tightest)));
  }
  out << "\n";
  auto section = [&](const char* title, auto keep) {
    std::vector<const Row*> sel;
    for (const Row& r : rows)
      if (keep(r)) sel.push_back(&r);
    out << "## " << title << " (" << sel.size() << ")\n\n";
    if (sel.empty()) {
      out << "None.\n\n";
      return;
    }
    out << "| ID | case | parameters | quantity | exact [interval] | bound | verdict | detail |\n|---|---|---|---|---|---|---|---|\n";
    for (const Row* r : sel) {
      // (a row that failed before its value or its bound was computed says so, not "nan [nan, nan]")
      const char* missing = r->verdict == Verdict::error ? "not computed" : "undefined";
      out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", escape::markdown(r->id),
                         escape::markdown(r->case_name), escape::markdown(r->params.describe()), escape::markdown(r->quantity()),
                         std::isnan(r->exact.value) ? std::string(missing)
                                                    : fmt::format("{} {}", value_text(r->exact), interval_text(r->exact, 10)),
                         std::isnan(r->bound) ? missing : fmt::format("{:.10g}", r->bound),
                         to_string(r->verdict), escape::markdown(r->reason + " " + r->note));
    }
    out << "\n";
  };
  section("Violations", [](const Row& r) { return r.verdict == Verdict::violated; });
  section("Errors", [](const Row& r) { return r.verdict == Verdict::error; });
  section("Inconclusive", [](const Row& r) { return r.verdict == Verdict::inconclusive; });
  section("Not applicable", [](const Row& r) { return r.verdict == Verdict::not_applicable; });
  write_widest(out, rows, 10);
  out << "## All rows\n\nSee results.csv and results.json beside this file: every row lists its case, parameters, the "
         "law expressions, the engine and method, the interval and the verdict.\n";
  checked.close();
}

namespace {


// A ratio for LaTeX: 4 significant digits, powers of ten as \times 10^{k}.
std::string latex_number(double x) {
  if (std::isnan(x)) return "--";
  if (std::isinf(x)) return x > 0 ? "$\\infty$" : "$-\\infty$";
  const std::string s = fmt::format("{:.3g}", x);
  const auto e = s.find('e');
  if (e == std::string::npos) return s;
  return fmt::format("${}\\times 10^{{{}}}$", s.substr(0, e), std::stoi(s.substr(e + 1)));
}

}  // namespace

std::string latex_summary(const std::vector<Row>& rows, const ReportMeta& meta) {
  // One column of a two-column paper: the verdict counts in one column (only those that occur, abbreviated), the
  // ratios' range; the ID column and the verdicts wrap rather than overflow (tabularx). summary_wide.tex has them all.
  std::string out = fmt::format("% privamp {} (commit {}), {}: the summary per theorem, one column wide. Needs \\usepackage{{booktabs,tabularx}}.\n"
                                "% Verdicts: t tight, h holds, i inconclusive, V violated, n not applicable, e error. Ratios are\n"
                                "% bound/exact (exact/bound for lower bounds) over the rows that have one. As wide as \\linewidth: a\n"
                                "% table in one column of a two-column paper (summary_wide.tex: every count in its column, for table*).\n",
                                meta.version, meta.commit, meta.date);
  out += "{\\footnotesize\\setlength{\\tabcolsep}{2.5pt}\n"
         "\\begin{tabularx}{\\linewidth}{@{}>{\\raggedright\\arraybackslash}p{0.3\\linewidth}r>{\\raggedright\\arraybackslash}Xrr@{}}\n"
         "\\toprule\n"
         "Theorem & Rows & Verdicts & \\multicolumn{2}{c@{}}{bound/exact} \\\\\n\\cmidrule(l){4-5}\n & & & min & max \\\\\n\\midrule\n";
  const std::pair<Verdict, const char*> letters[] = {{Verdict::tight, "t"},        {Verdict::holds, "h"},
                                                     {Verdict::inconclusive, "i"}, {Verdict::violated, "V"},
                                                     {Verdict::not_applicable, "n"}, {Verdict::error, "e"}};
  for (const TheoremSummary& st : theorem_summaries(rows)) {
    std::vector<std::string> counts;
    for (const auto& [v, letter] : letters)
      if (const long n = st.count(v); n > 0) counts.push_back(fmt::format("{}\\,{}", n, letter));
    const auto& r = st.ratios;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // The ID may break after its dots (a long declared ID wraps instead of widening the table).
    std::string id = escape::latex(st.id);
    for (std::size_t at = id.find('.'); at != std::string::npos; at = id.find('.', at + 1)) id.insert(++at, "\\allowbreak{}");
    out += fmt::format("{} & {} & {} & {} & {} \\\\\n", id, st.points, fmt::join(counts, " "), latex_number(r.empty() ? nan : r.front()),
                       latex_number(r.empty() ? nan : r.back()));
  }
  out += "\\bottomrule\n\\end{tabularx}}\n";
  return out;
}

std::string latex_summary_wide(const std::vector<Row>& rows, const ReportMeta& meta) {
  std::string out = fmt::format("% privamp {} (commit {}), {}: the summary per theorem, every count in its column. Needs \\usepackage{{booktabs}}.\n"
                                "% Ratios are bound/exact (exact/bound for lower bounds) over the rows that have one. The table is as wide as\n"
                                "% \\linewidth: a one-column text, or table* across two columns (summary.tex fits one column).\n",
                                meta.version, meta.commit, meta.date);
  out += "{\\small\\setlength{\\tabcolsep}{3pt}\n\\begin{tabular*}{\\linewidth}{@{\\extracolsep{\\fill}}lrrrrrrrrrr}\n\\toprule\n";
  out += "Theorem & Points & Tight & Holds & Inc. & Viol. & n/a & Error & \\multicolumn{3}{c}{bound/exact} \\\\\n"
         "\\cmidrule(l){9-11}\n & & & & & & & & min & median & max \\\\\n\\midrule\n";
  for (const TheoremSummary& st : theorem_summaries(rows)) {
    const auto& r = st.ratios;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    out += fmt::format("{} & {} & {} & {} & {} & {} & {} & {} & {} & {} & {} \\\\\n", escape::latex(st.id), st.points,
                       st.count(Verdict::tight), st.count(Verdict::holds), st.count(Verdict::inconclusive),
                       st.count(Verdict::violated), st.count(Verdict::not_applicable), st.count(Verdict::error),
                       latex_number(r.empty() ? nan : r.front()), latex_number(r.empty() ? nan : r[r.size() / 2]),
                       latex_number(r.empty() ? nan : r.back()));
  }
  out += "\\bottomrule\n\\end{tabular*}}\n";
  return out;
}

namespace {


}  // namespace

void write_junit(const std::vector<Row>& rows, const std::filesystem::path& file) {
  // One test case per theorem ID and case (in the order of the rows): a failure lists its violated rows, an error
  // its rows in error; a case whose rows are all not-applicable is skipped.
  struct Test {
    std::string id, case_name;
    long rows = 0, failures = 0, errors = 0, not_applicable = 0;
    std::string failure_text, error_text;
  };
  std::vector<Test> tests;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const Row& r : rows) {
    const auto [it, fresh] = index.emplace(std::make_pair(r.id, r.case_name), tests.size());
    if (fresh) {
      tests.emplace_back();
      tests.back().id = r.id;
      tests.back().case_name = r.case_name;
    }
    Test& t = tests[it->second];
    ++t.rows;
    const std::string line = fmt::format("{} ({}): {}\n", r.params.describe(), r.quantity(), r.reason);
    if (r.verdict == Verdict::violated) ++t.failures, t.failure_text += line;
    else if (r.verdict == Verdict::error) ++t.errors, t.error_text += line;
    else if (r.verdict == Verdict::not_applicable) ++t.not_applicable;
  }
  long failures = 0, errors = 0, skipped = 0;
  for (const Test& t : tests) {
    failures += t.failures > 0;
    errors += t.errors > 0 && t.failures == 0;
    skipped += t.not_applicable == t.rows;
  }
  OutputFile checked(file);
  std::ostream& out = checked.stream();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"privamp verify\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n", tests.size(), failures, errors);
  out << fmt::format("  <testsuite name=\"privamp verify\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
                     tests.size(), failures, errors, skipped);
  for (const Test& t : tests) {
    out << fmt::format("    <testcase classname=\"{}\" name=\"{}\">", escape::xml(t.id), escape::xml(t.case_name));
    if (t.failures > 0)
      out << fmt::format("\n      <failure type=\"violation\" message=\"{} of {} rows violate the bound\">{}</failure>", t.failures,
                         t.rows, escape::xml(t.failure_text));
    else if (t.errors > 0)
      out << fmt::format("\n      <error type=\"error\" message=\"{} of {} rows could not be computed\">{}</error>", t.errors, t.rows,
                         escape::xml(t.error_text));
    else if (t.not_applicable == t.rows)
      out << "\n      <skipped message=\"the bound's hypotheses fail at every point\"/>";
    out << (t.failures > 0 || t.errors > 0 || t.not_applicable == t.rows ? "\n    </testcase>\n" : "</testcase>\n");
  }
  out << "  </testsuite>\n</testsuites>\n";
  checked.close();
}

std::vector<std::pair<std::string, std::filesystem::path>> report_outputs(const std::string& out_option, const std::filesystem::path& out,
                                                                          const std::string& html_option, const std::filesystem::path& html,
                                                                          const std::string& junit_option, const std::filesystem::path& junit) {
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  if (!out.empty()) {
    for (const char* f : kReportFiles) files.emplace_back(out_option, out / f);
    files.emplace_back(out_option + " (its lock)", lock_file(out));
  }
  if (!html.empty()) {
    files.emplace_back(html_option, html / "index.html");
    // (one folder for both, as written or as it resolves where it exists already: one lock)
    const bool same = !out.empty() && resolved_path(out) == resolved_path(html);
    if (!same) files.emplace_back(html_option + " (its lock)", lock_file(html));
  }
  if (!junit.empty()) files.emplace_back(junit_option, junit);
  return files;
}

std::vector<OutputFolder> report_folders(const std::string& out_option, const std::filesystem::path& out,
                                         const std::string& html_option, const std::filesystem::path& html,
                                         const std::string& junit_option, const std::filesystem::path& junit) {
  std::vector<OutputFolder> folders;
  if (!out.empty()) folders.push_back({out_option, out, {std::begin(kReportFiles), std::end(kReportFiles)}});
  if (!html.empty()) folders.push_back({html_option, html, {"index.html"}});
  if (!junit.empty()) {
    std::error_code ec;
    folders.push_back({junit_option, std::filesystem::absolute(junit, ec).parent_path(), {junit.filename().string()}});
  }
  return folders;
}

void write_reports(const std::vector<Row>& rows, const ReportMeta& meta, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  write_csv(rows, dir / "results.csv");
  write_json(rows, dir / "results.json");
  write_markdown(rows, meta, dir / "report.md");
  write_file(dir / "summary.tex", latex_summary(rows, meta));
  write_file(dir / "summary_wide.tex", latex_summary_wide(rows, meta));
}

namespace {

// One golden file, checked (codec.hpp's golden_from_json), by key. A file that is not one is InvalidArgument naming it
// and the first bad row (exit 2), never a JSON type error.
std::map<std::string, GoldenRow> read_golden(const std::filesystem::path& file) {
  try {
    // (32 MB: the catalogue's largest golden file is about 100 times smaller; a larger one is refused before parsing.)
    const std::string text = read_input_file("golden file", file, 32u << 20);
    // (a key twice in one table would be read as its last value without a word; see json_reader.hpp)
    const nlohmann::json j = parse_json_input("golden file", text, /*subnormals=*/true);
    if (!j.is_array()) invalid_input("not a list of rows but {}", describe_json(j));
    std::map<std::string, GoldenRow> out;
    std::map<std::string, std::size_t> row_of;
    std::size_t n = 0;
    for (const auto& row : j) {
      ++n;
      try {
        GoldenRow g = golden_from_json(row);
        if (const auto [at, fresh] = row_of.emplace(g.key, n); !fresh)
          invalid_input("the same key as row {} ({})", at->second, describe_json(nlohmann::json(g.key)));
        out.emplace(g.key, std::move(g));
      } catch (const InvalidArgument& e) {
        invalid_input("row {}: {}", n, e.what());
      }
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    // The parser's own words, without its tag ("[json.exception.parse_error.101] "): NaN and inf are not JSON.
    std::string_view what = e.what();
    if (what.starts_with("[json.exception.")) what.remove_prefix(std::min(what.size(), what.find("] ") + 2));
    invalid_input("{}: not a privamp golden file (not valid JSON): {}", file.string(), what);
  } catch (const InvalidArgument& e) {
    invalid_input("{}: not a privamp golden file: {}", file.string(), e.what());
  }
}

// Where both values are beyond the double range on one side (0 or subnormal below it, inf or the largest double above
// it) the linear check above sees nothing: their logs are compared by the same rule, in log units (the larger of the
// two half-widths in logs; an unbounded one counts as none). None where they agree.
std::optional<std::string> moved_in_logs(const GoldenRow& old, const Estimate& now) {
  const auto side = [](double x) {
    return std::fabs(x) < std::numeric_limits<double>::min() ? -1 : std::fabs(x) >= std::numeric_limits<double>::max() ? 1 : 0;
  };
  if (side(old.value) == 0 || side(old.value) != side(now.value)) return std::nullopt;
  const auto log_of = [](const std::optional<double>& log, double end) { return log ? *log : std::log(std::fabs(end)); };
  const double ol = log_of(old.log_value, old.value), nl = now.log_value();
  if (ol == nl) return std::nullopt;  // (both exactly 0 too)
  const auto text = [](double log) { return std::isinf(log) ? std::string(log < 0 ? "0" : "inf") : fmt::format("exp({:.17g})", log); };
  if (!std::isfinite(ol) || !std::isfinite(nl)) return fmt::format("value changed {} -> {}", text(ol), text(nl));
  const auto half = [](double lo, double hi) { return std::isfinite(hi - lo) ? (hi - lo) / 2 : 0.0; };
  const double bar = std::max(half(log_of(old.log_lower, old.lower), log_of(old.log_upper, old.upper)),
                              half(now.log_lower(), now.log_upper()));
  if (std::fabs(nl - ol) <= bar + 1e-12 * std::fabs(ol)) return std::nullopt;
  return fmt::format("value moved {} -> {} (error bar {:.3g} in logs)", text(ol), text(nl), bar);
}

}  // namespace

std::vector<std::filesystem::path> golden_targets(const std::vector<Case>& cases, const std::filesystem::path& dir) {
  std::set<std::filesystem::path> out;
  for (const Case& c : cases) out.insert(dir / (std::filesystem::path(c.file).stem().string() + ".json"));
  return {out.begin(), out.end()};
}

void check_golden_targets(const std::vector<Case>& cases, const std::filesystem::path& dir) {
  std::map<std::string, std::string> stems;  // stem → case file
  for (const Case& c : cases) {
    const std::string stem = std::filesystem::path(c.file).stem().string();
    const auto [it, fresh] = stems.emplace(stem, c.file);
    if (!fresh && it->second != c.file)
      invalid_input("--update-golden: {} and {} would both write {}: give files with distinct names",
                    it->second, c.file, (dir / (stem + ".json")).string());
  }
  for (const auto& [stem, file] : stems) {
    const auto target = dir / (stem + ".json");
    check_target("--update-golden", target);  // a link, folder, device or pipe there: refused now, not after the run
    std::error_code ec;
    if (!std::filesystem::exists(target, ec)) continue;
    bool golden = std::filesystem::is_regular_file(target, ec);
    if (golden) try {
        read_golden(target);
      } catch (const InvalidArgument&) {
        golden = false;
      }
    if (!golden)
      invalid_input("--update-golden: {} exists and is not a privamp golden file: not overwritten "
                    "(choose another --golden-dir)", target.string());
  }
}

void update_golden(const std::vector<Row>& rows, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::map<std::string, nlohmann::json> files;
  for (const Row& r : rows) files[std::filesystem::path(r.file).stem().string()].push_back(golden_json(r));
  for (const auto& [stem, rows_json] : files) write_file(dir / (stem + ".json"), rows_json.dump(1) + "\n");
}

std::map<std::string, std::map<std::string, int>> golden_verdicts(const std::filesystem::path& dir) {
  std::map<std::string, std::map<std::string, int>> out;
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    invalid_input("golden results {}: not a directory", dir.string());
  if (!std::filesystem::is_directory(dir, ec)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".json") continue;
    // A golden file that is a pipe, a device, a folder or a link is refused now, not after the run that reads it.
    if (e.is_symlink() || !e.is_regular_file())
      invalid_input("golden file {}: not a regular file (a link, folder, pipe or device); privamp reads only "
                    "regular files there", e.path().string());
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files)
    for (const auto& [key, row] : read_golden(file)) ++out[row.id][to_string(row.verdict)];
  return out;
}

std::vector<std::string> check_golden(const std::vector<Row>& rows, const std::filesystem::path& dir, bool partial) {
  std::vector<std::string> problems;
  std::map<std::string, std::map<std::string, GoldenRow>> golden;  // stem → key → row
  std::map<std::string, std::vector<const Row*>> current;
  for (const Row& r : rows) current[std::filesystem::path(r.file).stem().string()].push_back(&r);
  for (const auto& [stem, list] : current) {
    const auto file = dir / (stem + ".json");
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
      problems.push_back(fmt::format("{}: no golden file (run --update-golden)", file.string()));
      continue;
    }
    auto& g = golden[stem];
    g = read_golden(file);
    for (const Row* r : list) {
      const auto it = g.find(r->key());
      if (it == g.end()) {
        problems.push_back(fmt::format("new row not in golden: {}", r->key()));
        continue;
      }
      const auto& old = it->second;
      if (old.verdict != r->verdict)
        problems.push_back(fmt::format("verdict changed {} -> {}: {}", to_string(old.verdict), to_string(r->verdict), r->key()));
      // A bound is a formula of the point, evaluated in doubles: the same to 1e-9 unless the formula changed.
      const double ob = old.bound, nb = r->bound;
      const bool same_bound = (std::isnan(ob) && std::isnan(nb)) || ob == nb ||
                              (std::isfinite(ob) && std::isfinite(nb) && std::fabs(nb - ob) <= 1e-9 * std::max(std::fabs(ob), std::fabs(nb)));
      if (!same_bound) problems.push_back(fmt::format("bound changed {:.17g} -> {:.17g}: {}", ob, nb, r->key()));  // the digits that differ
      const double ov = old.value, nv = r->exact.value;
      if (std::isfinite(ov) && std::isfinite(nv)) {
        // An infinite interval around a finite value says nothing about where it lies: only finite bars count.
        const double recorded = std::isfinite(old.upper - old.lower) ? (old.upper - old.lower) / 2 : 0;
        const double bar = std::max(recorded, r->exact.abs_error());
        if (std::fabs(nv - ov) > bar + 1e-12 * std::fabs(ov) + 1e-300)
          problems.push_back(fmt::format("value moved {:.17g} -> {:.17g} (error bar {:.3g}): {}", ov, nv, bar, r->key()));
      } else if (std::isfinite(ov) != std::isfinite(nv) || (std::isnan(ov) != std::isnan(nv))) {
        problems.push_back(fmt::format("value changed {} -> {}: {}", show(ov), show(nv), r->key()));
      }
      if (const auto moved = moved_in_logs(old, r->exact)) problems.push_back(fmt::format("{}: {}", *moved, r->key()));
      // A recorded interval outside the divergence's range is no record of a run (privamp clips to it), and its width
      // would hide any move.
      if (r->divergence && !std::isnan(old.lower)) {
        const auto kind = r->divergence->kind;
        const double ceiling = kind == Quantity::Kind::hockey_stick || kind == Quantity::Kind::tv ? 1.0 : std::numeric_limits<double>::infinity();
        if (!(old.lower >= 0 && old.upper <= ceiling))
          problems.push_back(fmt::format("golden interval [{:.17g}, {:.17g}] lies outside the range of a {} [0, {}]: not a "
                                         "record of a run: {}", old.lower, old.upper, r->divergence->label(), ceiling, r->key()));
      }
      g.erase(it);
    }
    if (!partial)
      for (const auto& [key, e] : g) problems.push_back(fmt::format("golden row missing from this run: {}", key));
  }
  return problems;
}

}  // namespace privamp::verify
