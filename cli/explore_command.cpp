#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "numerics/files.hpp"
#include "plots/explore_plots.hpp"
#include "plots/figures.hpp"
#include "verify/api/api.hpp"
#include "verify/explore/explore_report.hpp"

namespace privamp::cli {

namespace {

struct Args {
  std::vector<std::string> targets;
  std::string case_name, id, out = "explore", cases_dir = data_path("cases");
  bool all = false;
  api::ExploreSettings settings;
};

void add_options(CLI::App* cmd, Args& a) {
  api::ExploreSettings& s = a.settings;
  cmd->add_option("target", a.targets, "a case file, or a theorem ID (its cases in --cases with a [case.explore] table)");
  cmd->add_option("--case", a.case_name, "explore only the case of this name");
  cmd->add_option("--id", a.id, "explore only this bound ID of the case (default: each of its IDs)");
  cmd->add_option("--goal", s.goal, "loosest | tightest | violation")->capture_default_str();
  cmd->add_option("--budget", s.budget, "evaluations per case and ID (global Sobol points + local refinement)")->capture_default_str();
  cmd->add_option("--max-seconds", s.max_seconds,
                  "stop each case and ID's search after this many seconds (0: no limit); its best points are then re-evaluated")
      ->capture_default_str();
  cmd->add_option("--seed", s.seed, "seed of the Sobol rotation (results are reproducible from it)")->capture_default_str();
  cmd->add_option("--starts", s.starts, "local refinements from the best distinct global points")->capture_default_str();
  cmd->add_option("--jobs,-j", s.jobs, "threads per process (default: the number of cores)");
  cmd->add_option("--out", a.out, "output directory")->capture_default_str();
  cmd->add_option("--cases", a.cases_dir, "where theorem IDs and --all look for cases")->capture_default_str();
  cmd->add_flag("--all", a.all, "explore every case with a [case.explore] table (in the targets, or in --cases)");
  cmd->add_option("--where", s.where,
                  "a condition a point must meet to be a candidate, e.g. \"exact >= 1e-12\" or \"gamma_doeblin <= 0.9\" "
                  "(repeatable; added to the case's [case.explore] where)");
  CLI::Option* frontier = cmd->add_option("--frontier", s.frontier,
                                          "the best ratio as a function of this parameter or derived quantity (binned, each bin searched)");
  cmd->add_option("--bins", s.bins, "bins of --frontier")->capture_default_str()->needs(frontier);
  cmd->add_flag("--ignore-hypotheses", s.ignore_hypotheses,
                "also search outside the bound's hypotheses (and report where its conclusion fails)");
}

// A search's files (Markdown, CSV, JSON, one-point cases, figures) and console lines; its row of summary.md.
std::string report_search(const verify::Case& c, const api::ExploreRun& run, const verify::ExploreOptions& options,
                          const std::filesystem::path& dir, bool figures, int& refuted) {
  const verify::ExploreResult& r = run.result.search;
  const std::string& stem = run.stem;
  {
    // The search's files are published together once all were written (a full disk leaves none of them).
    StagedFiles staged(dir, stem);
    const auto& folder = staged.folder();
    write_file(folder / (stem + ".md"), verify::explore_markdown(c, r, options, stem));
    verify::write_explore_csv(r, folder / (stem + ".csv"));
    write_file(folder / (stem + ".json"), verify::json_text(verify::explore_json(r, options)));
    for (std::size_t k = 0; k < r.best.size(); ++k)
      write_file(folder / fmt::format("{}_point{}.toml", stem, k + 1), verify::one_point_case(c, r, k));
    if (figures) plots::render_explore(r, options.ignore_hypotheses, folder, stem);
    staged.commit({"*.log"});  // a helper's empty log is not published (an earlier one is removed)
  }
  verify::remove_stale_point_files(dir, stem, r.best.size());
  std::string best = "-", again = "no candidate", verdict = "-";
  if (!r.best.empty()) {
    const verify::Row& row = r.best.front();
    best = verify::ratio_text(r.evaluations[r.best_index.front()].slack);
    again = fmt::format("{:.6g} {} / {:.6g}", row.exact.value, verify::interval_text(row.exact, 6), row.bound);
    verdict = verify::to_string(row.verdict) + (row.outside.empty() ? "" : " (outside)");
    for (const verify::Row& b : r.best) refuted += b.verdict == verify::Verdict::violated && b.outside.empty();
  }
  const std::string name = c.name.size() > 52 ? c.name.substr(0, 49) + "..." : c.name;
  std::cout << fmt::format("{:<52} {:<20} {:>14} {:>34} {:>14} {:>6.1f}s\n", name, run.id, best, again, verdict, run.seconds);
  if (!r.stopped.empty()) std::cout << fmt::format("{:<52} {:<20} note: {}\n", "", "", r.stopped);
  if (!r.best.empty())
    if (const std::string range = verify::ratio_range_note(r.direction, r.best.front()); !range.empty())
      std::cout << fmt::format("{:<52} {:<20} note: the best ratio is the values'; {}\n", "", "", range.substr(2, range.size() - 3));
  if (!r.best.empty())
    if (const std::string edges = verify::edges_text(r, r.best.front().params); !edges.empty())
      std::cout << fmt::format("{:<52} {:<20} note: the best point lies on the edge of the box searched ({}): the optimum may lie beyond\n",
                               "", "", escape::plain(edges));
  if (r.degenerate)
    std::cout << fmt::format("{:<52} {:<20} {:>14} degenerate: {}\n", "", "", verify::ratio_text(r.evaluations[*r.degenerate_index].slack),
                             r.evaluations[*r.degenerate_index].degenerate);
  if (!r.best.empty()) best += verify::ratio_range_note(r.direction, r.best.front());
  return fmt::format("| {} | {} | {} | {} | {} | {} | {:.1f} s |\n", escape::markdown(c.name), escape::markdown(run.id), best, again,
                     verdict, r.evaluations.size(), run.seconds);
}

// A frontier's files and its table on the console; its row of summary.md.
std::string report_frontier(const verify::Case& c, const api::ExploreRun& run, const verify::ExploreOptions& options,
                            const api::ExploreSettings& s, const std::filesystem::path& dir, bool figures, int& refuted) {
  const verify::FrontierResult& f = run.result;
  const std::string stem = run.stem + "_frontier";
  {
    StagedFiles staged(dir, stem);  // published together, as a search's files
    const auto& folder = staged.folder();
    write_file(folder / (stem + ".md"), verify::frontier_markdown(c, f, options, run.stem));
    verify::write_table_csv(verify::frontier_table(f), folder / (stem + ".csv"));
    write_file(folder / (stem + ".json"), verify::json_text(verify::frontier_json(f, options)));
    verify::write_explore_csv(f.search, folder / (run.stem + ".csv"));
    if (figures) plots::render_frontier(f, options.ignore_hypotheses, folder, run.stem);
    staged.commit({"*.log"});  // a helper's empty log is not published (an earlier one is removed)
  }
  std::cout << fmt::format("{} {} along {} in '{}' ({:.1f} s):\n{:>4} {:>25} {:>10} {:>14} {:>14}  {}\n", run.id, s.goal, s.frontier,
                           c.name, run.seconds, "bin", s.frontier, "candidates", "best " + verify::slack_ratio_name(f.search.direction),
                           "verdict", "degenerate optimum");
  for (std::size_t b = 0; b < f.bins.size(); ++b) {
    const verify::FrontierBin& bin = f.bins[b];
    const std::string ratio = bin.best ? verify::ratio_text(f.search.evaluations[*bin.best_index].slack) : "-";
    std::cout << fmt::format("{:>4} {:>25} {:>10} {:>14} {:>14}  {}\n", b + 1, fmt::format("[{:.4g}, {:.4g}]", bin.lower, bin.upper),
                             bin.candidates, ratio, bin.best ? verify::to_string(bin.best->verdict) : "-",
                             bin.degenerate ? verify::ratio_text(f.search.evaluations[*bin.degenerate_index].slack) + " (" +
                                                  f.search.evaluations[*bin.degenerate_index].degenerate + ")"
                                            : "");
    if (bin.best) refuted += bin.best->verdict == verify::Verdict::violated && bin.best->outside.empty();
  }
  if (!f.search.stopped.empty()) std::cout << "note: the search was " << f.search.stopped << "\n";
  // Bins without their own local search are said to be so (their best point is the global phase's).
  const auto unrefined = std::count_if(f.bins.begin(), f.bins.end(), [](const verify::FrontierBin& b) { return !b.not_refined.empty(); });
  if (unrefined > 0) {
    const auto first = std::find_if(f.bins.begin(), f.bins.end(), [](const verify::FrontierBin& b) { return !b.not_refined.empty(); });
    std::cout << fmt::format("note: {} of {} bins not refined (bin {}: {})\n", unrefined, f.bins.size(), first - f.bins.begin() + 1,
                             first->not_refined);
  }
  return fmt::format("| {} | {} | frontier along {}: see {}.md | | | {} | {:.1f} s |\n", escape::markdown(c.name),
                     escape::markdown(run.id), escape::markdown(s.frontier), escape::markdown(stem), f.search.evaluations.size(),
                     run.seconds);
}

// summary.md (never overwriting an earlier run's: summary-2.md, ...) and the closing lines; the exit status.
int finish(const std::filesystem::path& dir, const std::string& index, const api::ExploreSettings& s, bool figures, int refuted) {
  std::filesystem::path summary = dir / "summary.md";
  // (a link counts as taken, dangling or not: `exists` follows it, and a dangling one was then written through)
  const auto taken = [](const std::filesystem::path& p) { return std::filesystem::exists(std::filesystem::symlink_status(p)); };
  for (int k = 2; taken(summary); ++k) summary = dir / fmt::format("summary-{}.md", k);
  write_file(summary, index);
  if (s.frontier.empty())
    std::cout << fmt::format("wrote {} and, per case and ID, STEM.md, .csv, .json and, where a point was evaluated, _point*.toml{}\n",
                             escape::plain(summary.string()), figures ? ", _map and _convergence figures" : "");
  else
    std::cout << fmt::format("wrote {} and, per case and ID, STEM_frontier.md, STEM_frontier.csv, STEM.csv{}\n", escape::plain(summary.string()),
                             figures ? ", the _frontier figure" : "");
  if (refuted > 0) std::cout << fmt::format("{} re-evaluated point(s) violate a bound inside its hypotheses\n", refuted);
  return refuted > 0 ? 1 : 0;
}

// Every file a search writes is named after its stem (STEM.md, STEM_point2.toml, STEM_map.png, STEM_frontier.csv …)
// or is a summary (summary.md, summary-2.md …): any entry of the folder so named that is a link, folder or pipe, or
// one of the case files read, is refused before the searches, not after them (a case file named like a point file
// was overwritten by it; a link at summary.md was found only when the summary was written).
void check_explore_targets(const std::filesystem::path& dir, const api::ExploreSelection& selection) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;
  std::vector<std::string> stems;
  std::vector<std::filesystem::path> inputs;
  for (const auto& [index, id] : selection.runs) {
    stems.push_back(verify::explore_stem(selection.cases[index].name, id));
    inputs.push_back(resolved_path(selection.cases[index].file));
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const bool summary = name.starts_with("summary") && name.ends_with(".md");  // summary.md, summary-2.md …
    if (!summary && !std::any_of(stems.begin(), stems.end(), [&](const std::string& stem) { return name.starts_with(stem); })) continue;
    check_target("--out", entry.path());
    if (std::find(inputs.begin(), inputs.end(), resolved_path(entry.path())) != inputs.end())
      invalid_input("--out '{}': {} is a case file this search reads, and a name its outputs take: give another --out",
                    dir.string(), entry.path().string());
  }
}

}  // namespace

Action add_explore_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("explore", "Search a case's parameter space for where a bound is loosest, tightest or false");
  add_options(cmd, *args);
  return [cmd, args]() {
    if (!cmd->parsed()) return -1;
    const Communicator& comm = process_communicator();
    const bool root = comm.rank() == 0;
    const api::ExploreSettings& s = args->settings;
    verify::ExploreOptions options = api::explore_options(s, "--");
    options.communicator = comm.size() > 1 ? &comm : nullptr;
    check_output_dir("--out", args->out);
    // Case files not in this folder are read from the installed catalogue (theorem IDs are left as they are).
    std::vector<std::string> targets;
    for (const std::string& t : args->targets)
      targets.push_back(t.find('/') == std::string::npos && !t.ends_with(".toml") ? t : input_paths({t}).front().string());
    const api::ExploreSelection selection = api::select_explore({targets, args->case_name, args->id, args->cases_dir, args->all});
    plots::source_date_epoch();  // a bad SOURCE_DATE_EPOCH is refused before the search
    api::check_explore(selection, s, options);  // and every option the searches read, before the folder is made
    const std::filesystem::path dir(args->out);
    OutputLock lock;  // held until the files are written: a second run into the folder is refused
    on_first_process(comm, [&] {
      check_explore_targets(dir, selection);
      lock = make_output_dir("--out", dir);
    });
    const std::string missing_tools = plots::missing_plot_tools();
    const bool figures = missing_tools.empty();
    if (root && !figures) std::cerr << missing_tools << ": the exploration figures are skipped\n";
    if (root && comm.size() > 1) std::cout << fmt::format("{} processes x {} threads\n", comm.size(), options.jobs);
    std::string index = fmt::format("# privamp explore: {} search, budget {} per case and ID, seed {}{}\n\n"
                                    "| case | ID | best ratio | re-evaluated | verdict | evaluations | time |\n"
                                    "| --- | --- | --- | --- | --- | --- | --- |\n",
                                    s.goal, s.budget, s.seed, s.ignore_hypotheses ? ", hypotheses ignored" : "");
    if (root && s.frontier.empty())
      std::cout << fmt::format("{:<52} {:<20} {:>14} {:>34} {:>14} {:>7}\n", "case", "ID", "best ratio", "re-evaluated exact / bound",
                               "verdict", "time");
    int refuted = 0;
    api::ExploreHooks hooks;
    if (root) hooks.progress = [](const std::string& id) { return terminal_progress(fmt::format("evaluations ({})", id)); };
    hooks.done = [&](const api::ExploreRun& run) {
      if (!root) return;
      const verify::Case& c = selection.cases[run.case_index];
      index += s.frontier.empty() ? report_search(c, run, options, dir, figures, refuted)
                                  : report_frontier(c, run, options, s, dir, figures, refuted);
    };
    api::explore(selection, s, options, hooks);
    return root ? finish(dir, index, s, figures, refuted) : 0;
  };
}

}  // namespace privamp::cli
