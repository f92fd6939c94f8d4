#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "numerics/errors.hpp"
#include "numerics/files.hpp"
#include "plots/figures.hpp"
#include "verify/report/report.hpp"

namespace privamp::cli {

namespace {

// The figures --only names (all where it is empty); an unknown name refused with the known ones.
std::vector<const plots::Figure*> chosen_figures(const plots::FigureSet& set, const std::string& only) {
  std::vector<const plots::Figure*> chosen;
  if (only.empty()) {
    for (const auto& f : set.figures) chosen.push_back(&f);
    return chosen;
  }
  std::vector<std::string> names;
  for (const auto& f : set.figures) names.push_back(f.name);
  for (const std::string& name : list_option("figures", "--only", only)) {
    const auto it = std::find_if(set.figures.begin(), set.figures.end(), [&](const plots::Figure& f) { return f.name == name; });
    if (it == set.figures.end()) invalid_input("unknown figure '{}' ({}known: {})", name, did_you_mean(name, names), fmt::join(names, ", "));
    chosen.push_back(&*it);
  }
  return chosen;
}

// One figure from the verified rows: its files in `out`, a line saying which, and a warning for every empty series.
void draw_verified_figure(const plots::Figure& f, const std::vector<verify::Row>& rows, const std::string& out) {
  const auto data = plots::select(f, rows);
  std::size_t points = 0;
  for (std::size_t k = 0; k < data.size(); ++k) {
    points += data[k].size();
    if (data[k].empty())
      std::cerr << fmt::format("{}: series {} ({} of {} in '{}') has no point to draw (rows in error, or values off a log scale)\n",
                               f.name, k + 1, f.series[k].y == plots::Series::Y::exact ? "exact" : "bound", f.series[k].id,
                               f.series[k].case_name);
  }
  plots::render(f, data, out);
  std::vector<std::string> kinds = {"csv"};
  if (f.style.wants("pdf") || f.style.wants("png")) kinds.emplace_back("gp");  // (the gnuplot script draws them)
  for (const char* kind : {"pdf", "png"})
    if (f.style.wants(kind)) kinds.emplace_back(kind);
  if (f.style.wants("pgfplots")) kinds.emplace_back("tex");
  std::cout << fmt::format("{:<18} {}/{}.{{{}}}  {} points\n", f.name, escape::plain(out), f.name, fmt::join(kinds, ","), points);
}

}  // namespace

Action add_figures_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> paths;
    std::string only, out = "figures", size;
    bool list = false, reduced = false;
    int jobs = 0;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("figures", "Draw figures declared as data from verified rows (CSV, gnuplot script, PDF, PNG)");
  cmd->add_option("paths", args->paths, "files or directories with [[figure]] tables and their cases (default: plots)");
  cmd->add_option("--only", args->only, "comma-separated figure names (see --list)");
  cmd->add_option("--out", args->out, "output directory")->capture_default_str();
  cmd->add_option("--jobs,-j", args->jobs, "parallel workers (default: the number of cores)");
  cmd->add_flag("--list", args->list, "list the figures and what they show");
  cmd->add_flag("--reduced", args->reduced, "at most three points per x axis (a quick look; the curves are coarse)");
  cmd->add_option("--size", args->size, "single (one column, 3.5 x 2.6 in) or double (the page width, 7 x 3 in): every figure drawn at that "
                                        "size, over its style's size, width and height (no TOML edit)");
  return [cmd, args]() {
    if (!cmd->parsed()) return -1;
    const int jobs = worker_count("figures", args->jobs);
    std::vector<std::filesystem::path> paths = input_paths(args->paths);
    if (paths.empty()) paths.emplace_back(data_path("plots"));
    if (!args->size.empty() && args->size != "single" && args->size != "double")
      invalid_input("--size: '{}' is not a size; single (3.5 x 2.6 in) or double (7 x 3 in)", escape::plain(args->size));
    plots::FigureSet set = plots::load_figures(paths);
    if (set.figures.empty()) invalid_input("no [[figure]] tables in the files given");
    if (!args->size.empty())
      for (plots::Figure& f : set.figures) f.style.resize(args->size);
    if (args->list) {
      for (const auto& f : set.figures) std::cout << fmt::format("{}\n  {}\n  {}\n\n", f.name, plots::enhanced_to_plain(f.title), plots::enhanced_to_plain(f.description));
      return 0;
    }
    const std::vector<const plots::Figure*> chosen = chosen_figures(set, args->only);
    if (const std::string missing = plots::missing_plot_tools(); !missing.empty())  // before the computation
      invalid_input("{}", missing);
    plots::source_date_epoch();  // a bad SOURCE_DATE_EPOCH, too
    // A file named like the folder, or links where figures go (every file render writes): refused now.
    OutputFolder folder{"--out", args->out, {}};
    for (const plots::Figure* f : chosen)
      for (const std::string& file : plots::figure_files(*f)) folder.files.push_back(file);
    std::vector<std::pair<std::string, std::filesystem::path>> outputs;  // none of them one of the files read
    for (const std::string& file : folder.files) outputs.emplace_back("--out", std::filesystem::path(args->out) / file);
    check_distinct_outputs(outputs, verify::case_files(paths));
    const std::vector<OutputLock> lock = lock_output_folders({folder});
    // The rows are verified exactly as `privamp verify` would: the same runner, verdicts, cross-checks.
    const auto start = std::chrono::steady_clock::now();
    verify::RunOptions options;
    options.jobs = jobs;
    options.progress = terminal_progress("points");
    const auto rows = verify::run_cases(plots::cases_for(chosen, set, args->reduced), options);
    std::cout << verify::summary_table(rows);
    std::cout << fmt::format("{} verified rows in {:.1f} s\n", rows.size(),
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    long bad = 0;
    for (const auto& r : rows)
      if (r.verdict == verify::Verdict::error) {
        std::cerr << "error (not drawn): " << r.key() << ": " << r.reason << "\n";
        ++bad;
      } else if (r.verdict == verify::Verdict::violated) {
        std::cerr << "violated (drawn): " << r.key() << ": " << r.reason << "\n";
        ++bad;
      }
    for (const plots::Figure* f : chosen) draw_verified_figure(*f, rows, args->out);
    return bad > 0 ? 1 : 0;
  };
}

}  // namespace privamp::cli
