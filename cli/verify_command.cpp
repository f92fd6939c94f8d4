#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/version.hpp"
#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "numerics/files.hpp"
#include "numerics/work_limit.hpp"
#include "verify/report/report.hpp"
#include "verify/runner/run.hpp"

namespace privamp::cli {

namespace {

struct VerifyArgs {
  std::vector<std::string> paths;
  std::string only;
  int jobs = 0;
  std::string out;
  bool check_golden = false, update_golden = false;
  std::string golden_dir, junit, html;
  double max_seconds = 3600;  // a run projected past it stops (numerics/work_limit.hpp)
};

// The run's output folders locked (a second run into one is refused) and the files it will write checked, before the
// computation: a link planted where privamp would write is refused now, not after the run.
std::vector<OutputLock> lock_outputs(const VerifyArgs& args, const std::filesystem::path& golden) {
  std::vector<OutputFolder> folders = verify::report_folders("--out", args.out, "--html", args.html, "--junit", args.junit);
  if (args.update_golden) folders.push_back({"--update-golden", golden, {}});  // created on the first update
  return lock_output_folders(folders);
}

// No output may overwrite another (a golden file named like --out's results.json) or an input (a case file).
void check_outputs_apart(const VerifyArgs& args, const verify::Loaded& loaded, const std::filesystem::path& golden,
                         const std::vector<std::filesystem::path>& paths) {
  if (args.update_golden) verify::check_golden_targets(loaded.cases, golden);
  auto outputs = verify::report_outputs("--out", args.out, "--html", args.html, "--junit", args.junit);
  if (args.update_golden)
    for (const auto& target : verify::golden_targets(loaded.cases, golden)) outputs.emplace_back("--update-golden", target);
  check_distinct_outputs(outputs, verify::case_files(paths));
}

// The reports asked for: --out's files, --html's page, --junit's file.
void write_outputs(const VerifyArgs& args, const std::vector<verify::Row>& rows, const verify::ReportMeta& meta) {
  if (!args.out.empty()) {
    verify::write_reports(rows, meta, args.out);
    std::cout << fmt::format("wrote {}/results.csv, results.json, report.md, summary.tex, summary_wide.tex\n", escape::plain(args.out));
  }
  if (!args.html.empty()) {
    verify::write_html(rows, meta, args.html);
    std::cout << fmt::format("wrote {}/index.html\n", escape::plain(args.html));
  }
  if (!args.junit.empty()) {
    verify::write_junit(rows, args.junit);
    std::cout << fmt::format("wrote {}\n", escape::plain(args.junit));
  }
}

void add_verify_options(CLI::App* cmd, VerifyArgs& args) {
  cmd->add_option("paths", args.paths, "case files or directories (default: cases)");
  cmd->add_option("--only", args.only, "comma-separated theorem IDs to check (e.g. T1.3,E2)");
  cmd->add_option("--jobs,-j", args.jobs, "parallel workers (default: the number of cores)");
  cmd->add_option("--out", args.out, "write results.csv, results.json, report.md, summary.tex and summary_wide.tex to this directory");
  cmd->add_option("--html", args.html, "write a self-contained HTML report, index.html, to this directory");
  cmd->add_option("--junit", args.junit, "write a JUnit XML report to this file (one test case per theorem ID and case)");
  cmd->add_flag("--check-golden", args.check_golden,
                "compare with the golden results (exit 1 if a verdict changed or a value moved beyond its error bar)");
  cmd->add_flag("--update-golden", args.update_golden, "rewrite the golden results from this run");
  cmd->add_option("--golden-dir", args.golden_dir, "golden results directory (default: <first path>/expected)");
  cmd->add_option("--max-seconds", args.max_seconds, "a run projected (from its first points) to take longer is stopped, exit 2; "
                  "0: no limit")->capture_default_str();
}

}  // namespace

Action add_verify_command(CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify", "Check the theorem catalogue against exact values over the case files");
  add_verify_options(cmd, *args);
  return [cmd, args]() {
    if (!cmd->parsed()) return -1;
    if (args->check_golden && args->update_golden)
      invalid_input("give --check-golden or --update-golden, not both");
    if (args->update_golden && !args->only.empty())
      invalid_input("--update-golden rewrites whole case files: run it without --only");
    check_max_seconds("verify", args->max_seconds);
    verify::RunSettings settings;
    settings.jobs = worker_count("verify", args->jobs);
    settings.only = list_option("verify", "--only", args->only);
    if (!args->out.empty()) check_output_dir("--out", args->out);  // found unusable now, not after the whole run
    check_distinct_outputs(verify::report_outputs("--out", args->out, "--html", args->html, "--junit", args->junit));
    if (!args->junit.empty()) check_output_file("--junit", args->junit, {args->out, args->html});
    if (!args->html.empty()) check_output_dir("--html", args->html);
    std::vector<std::filesystem::path> paths = input_paths(args->paths);
    if (paths.empty()) paths.emplace_back(data_path("cases"));
    const verify::Loaded loaded = verify::load(paths);  // all validation happens before anything runs or is written
    for (const auto& id : settings.only) verify::find_bound(id, *loaded.bounds);
    for (const std::string& note : verify::unread_parameter_notes(loaded.cases, settings.only))
      std::cerr << "note: " << escape::plain(note) << "\n";
    const std::filesystem::path golden =
        args->golden_dir.empty()
            ? (std::filesystem::is_directory(paths.front()) ? paths.front() : paths.front().parent_path()) / "expected"
            : std::filesystem::path(args->golden_dir);
    check_outputs_apart(*args, loaded, golden, paths);
    if (args->check_golden) {
      std::error_code ec;
      if (!std::filesystem::is_directory(golden, ec))  // a misspelt --golden-dir: exit 2 now, not "differences" after the run
        invalid_input("--check-golden: the golden folder '{}' is not a folder (give --golden-dir, or write one with --update-golden)",
                      golden.string());
      verify::golden_verdicts(golden);  // a malformed golden file: exit 2 now, not after the run
    }
    // Each output folder locked for the run (a second run into one is refused) and its files checked now: a link
    // planted where privamp would write is refused before the computation, not after it.
    // Only the first process writes (the others send it their rows), so only it locks.
    const Communicator& comm = process_communicator();
    std::vector<OutputLock> locks;
    on_first_process(comm, [&] { locks = lock_outputs(*args, golden); });
    settings.communicator = &comm;
    settings.progress = limited_progress(terminal_progress("points"), args->max_seconds, "verify", "points", "--max-seconds");
    const auto start = std::chrono::steady_clock::now();
    const verify::RunResult result = verify::run(loaded, settings);
    if (!result.reporting) return 0;  // another process reports
    const auto& rows = result.rows;
    std::cout << verify::summary_table(rows);
    const verify::ReportMeta meta = verify::report_meta(rows, *loaded.bounds, kVersion, kCommit, command_line(),
                                                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    write_outputs(*args, rows, meta);
    for (const auto& r : rows)
      if (r.verdict == verify::Verdict::error) std::cerr << "error: " << r.key() << ": " << r.reason << "\n";
    if (args->update_golden) {
      verify::update_golden(rows, golden);
      std::cout << fmt::format("golden results written to {}\n", escape::plain(golden.string()));
      return result.errors > 0 ? 1 : 0;
    }
    if (args->check_golden) {
      const auto problems = verify::check_golden(rows, golden, !settings.only.empty());
      for (const auto& p : problems) std::cerr << "golden: " << escape::plain(p) << "\n";
      std::cout << fmt::format("golden check against {}: {} difference(s); {} violation(s) (as recorded), {} error(s)\n",
                               escape::plain(golden.string()), problems.size(), result.violated, result.errors);
      return problems.empty() && result.errors == 0 ? 0 : 1;
    }
    if (result.violated > 0) std::cout << fmt::format("{} violation(s): see the report (--out DIR)\n", result.violated);
    return result.violated + result.errors > 0 ? 1 : 0;
  };
}

}  // namespace privamp::cli
