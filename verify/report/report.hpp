// Writers of verify results: the terminal summary per theorem ID, CSV, JSON and a Markdown report with every
// row reproducible (all inputs, engine and method), and the golden files of cases/expected/ for regression.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <variant>
#include <utility>
#include <vector>

#include "numerics/files.hpp"
#include "verify/records/codec.hpp"
#include "verify/runner/runner.hpp"

namespace privamp::verify {

// Per theorem ID (in ID order): the counts per verdict, the share of valued rows a second route confirmed, and the
// ratios bound/exact (exact/bound for lower bounds) over the rows that have one, with the rows where the ratio is
// smallest (tightest) and largest (loosest). Rows of properties and rows without a ratio (an exact value below the
// double range, an undefined bound) have none.
struct TheoremSummary {
  std::string id;
  long points = 0, valued = 0, crossed = 0;
  // The verdicts (tight, holds, inconclusive, violated) by the kind of interval they rest on.
  std::map<ErrorKind, long> decided_on;
  double proven_share() const;  // of those verdicts, the share on exact or certified intervals (NaN: none)
  std::map<Verdict, long> counts;
  std::vector<double> ratios;  // sorted
  const Row* tightest = nullptr;
  const Row* loosest = nullptr;
  long count(Verdict v) const;
};
std::vector<TheoremSummary> theorem_summaries(const std::vector<Row>& rows);
std::string ratio_at(const Row* row);  // "1.106 at eps=1, delta=0.01 (case name)", "-" for none
// The kinds of interval behind the rows' exact values, with their counts ("certified 530, exact 412").
std::string interval_kinds(const std::vector<Row>& rows);
std::string summary_table(const std::vector<Row>& rows);

// What the reports say beside the rows: the run (version, commit, command line, UTC date, wall time) and each
// theorem's statement and source.
struct ReportMeta {
  std::string version, commit, command, date;
  double seconds = 0;
  struct Theorem {
    std::string statement, source;
  };
  std::map<std::string, Theorem> theorems;
};
// The statements and sources of the rows' IDs (the catalogue and the load's declared bounds) and today's date.
ReportMeta report_meta(const std::vector<Row>& rows, const DeclaredBounds& declared, std::string version,
                       std::string commit, std::string command, double seconds);

// A table as CSV (RFC 4180: a field with a comma, quote or line break quoted; numbers with 17 digits, NaN and
// empty cells as empty fields).
void write_table_csv(const FlatTable& table, const std::filesystem::path& file);
void write_csv(const std::vector<Row>& rows, const std::filesystem::path& file);
void write_json(const std::vector<Row>& rows, const std::filesystem::path& file);
// The rows as a JSON array (what write_json writes): "inf" strings for infinities, null for undefined values.
std::string rows_json(const std::vector<Row>& rows, int indent = -1);
// report.md: the run, the summary, each theorem's statement, source and loosest and tightest rows, then the rows
// that are violated, in error, inconclusive or not applicable.
void write_markdown(const std::vector<Row>& rows, const ReportMeta& meta, const std::filesystem::path& file);
// The summary per theorem as a LaTeX table (booktabs: \usepackage{booktabs}); texts escaped for LaTeX.
std::string latex_summary(const std::vector<Row>& rows, const ReportMeta& meta);       // one column of a two-column paper
std::string latex_summary_wide(const std::vector<Row>& rows, const ReportMeta& meta);  // every count in its column (table*)
// results.csv, results.json, report.md, summary.tex and summary_wide.tex in `dir` (created if missing): what `privamp
// verify --out DIR` writes.
void write_reports(const std::vector<Row>& rows, const ReportMeta& meta, const std::filesystem::path& dir);
// The files write_reports writes into its folder.
inline constexpr const char* kReportFiles[] = {"results.csv", "results.json", "report.md", "summary.tex", "summary_wide.tex"};
// Every file a verify run writes for its reports (`out` and `html` folders, with their locks, and the `junit` file;
// an empty path: not asked), named by the options given, for check_distinct_outputs (numerics/files.hpp) before the
// run: a --junit named like one of --out's files, or like a folder's lock, is refused, not written over it.
std::vector<std::pair<std::string, std::filesystem::path>> report_outputs(const std::string& out_option, const std::filesystem::path& out,
                                                                          const std::string& html_option, const std::filesystem::path& html,
                                                                          const std::string& junit_option, const std::filesystem::path& junit);
// The folders a verify run writes its reports into, each with the files it will hold, to be locked for the run
// (lock_output_folders): --out's, --html's and the JUnit file's own folder (a JUnit file written into a folder that
// another run holds once replaced that run's file).
std::vector<OutputFolder> report_folders(const std::string& out_option, const std::filesystem::path& out,
                                         const std::string& html_option, const std::filesystem::path& html,
                                         const std::string& junit_option, const std::filesystem::path& junit);
// A self-contained HTML report, DIR/index.html (no script, no file or network resource): the run, the summary,
// per theorem its statement and source, loosest and tightest rows and a plot of bound/exact over its rows, and
// every violated or erroneous row. Texts from case files are escaped.
void write_html(const std::vector<Row>& rows, const ReportMeta& meta, const std::filesystem::path& dir);
// A JUnit XML report for CI systems: one test case per theorem ID and case, a failure listing its violated rows,
// an error its rows in error, skipped where every row is not-applicable. Texts from case files are escaped.
void write_junit(const std::vector<Row>& rows, const std::filesystem::path& file);

// Golden results: one JSON file per case file, <dir>/<stem>.json, keyed by Row::key(), each row with its case, ID
// and parameters as fields beside its value, interval, bound and verdict.
void update_golden(const std::vector<Row>& rows, const std::filesystem::path& dir);
// Before --update-golden runs: every golden file it would write (DIR/STEM.json per case file) is new or a golden
// file already (a JSON list of rows with key and verdict), and no two case files share a stem; InvalidArgument
// naming the file otherwise, so that no unrelated file is overwritten.
void check_golden_targets(const std::vector<Case>& cases, const std::filesystem::path& dir);
// The golden files --update-golden writes for `cases` into `dir` (one per case file: its stem, .json).
std::vector<std::filesystem::path> golden_targets(const std::vector<Case>& cases, const std::filesystem::path& dir);
// The verdicts recorded in the golden files of `dir` (*.json), counted per theorem ID and verdict; InvalidArgument
// naming a file that is not a golden file.
std::map<std::string, std::map<std::string, int>> golden_verdicts(const std::filesystem::path& dir);
// Differences that matter: a verdict changed, a value moved beyond its error bar, a row appeared or vanished.
std::vector<std::string> check_golden(const std::vector<Row>& rows, const std::filesystem::path& dir, bool partial);

}  // namespace privamp::verify
