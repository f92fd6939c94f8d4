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

Action add_explore_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> targets;
    std::string case_name, id, goal = "loosest", out = "explore", cases_dir = data_path("cases"), frontier;
    std::vector<std::string> where;
    int bins = 8;
    double budget = 200, max_seconds = 0;
    int jobs = 0, starts = 3;
    long long seed = 1;
    bool all = false, ignore_hypotheses = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("explore", "Search a case's parameter space for where a bound is loosest, tightest or false");
  cmd->add_option("target", args->targets, "a case file, or a theorem ID (its cases in --cases with a [case.explore] table)");
  cmd->add_option("--case", args->case_name, "explore only the case of this name");
  cmd->add_option("--id", args->id, "explore only this bound ID of the case (default: each of its IDs)");
  cmd->add_option("--goal", args->goal, "loosest | tightest | violation")->capture_default_str();
  cmd->add_option("--budget", args->budget, "evaluations per case and ID (global Sobol points + local refinement)")->capture_default_str();
  cmd->add_option("--max-seconds", args->max_seconds,
                  "stop each case and ID's search after this many seconds (0: no limit); its best points are then re-evaluated")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "seed of the Sobol rotation (results are reproducible from it)")->capture_default_str();
  cmd->add_option("--starts", args->starts, "local refinements from the best distinct global points")->capture_default_str();
  cmd->add_option("--jobs,-j", args->jobs, "threads per process (default: the number of cores)");
  cmd->add_option("--out", args->out, "output directory")->capture_default_str();
  cmd->add_option("--cases", args->cases_dir, "where theorem IDs and --all look for cases")->capture_default_str();
  cmd->add_flag("--all", args->all, "explore every case with a [case.explore] table (in the targets, or in --cases)");
  cmd->add_option("--where", args->where,
                  "a condition a point must meet to be a candidate, e.g. \"exact >= 1e-12\" or \"gamma_doeblin <= 0.9\" "
                  "(repeatable; added to the case's [case.explore] where)");
  cmd->add_option("--frontier", args->frontier,
                  "the best ratio as a function of this parameter or derived quantity (binned, each bin searched)");
  cmd->add_option("--bins", args->bins, "bins of --frontier")->capture_default_str();
  cmd->add_flag("--ignore-hypotheses", args->ignore_hypotheses,
                "also search outside the bound's hypotheses (and report where its conclusion fails)");
  return [cmd, args]() {
    if (!cmd->parsed()) return -1;
    const Communicator& comm = process_communicator();
    const bool root = comm.rank() == 0;
    verify::ExploreOptions options;
    options.goal = verify::parse_goal(args->goal);
    if (!(args->budget >= 2 && args->budget <= 1e7 && args->budget == std::floor(args->budget)))
      throw_invalid("explore", "--budget", args->budget, "an integer with 2 <= budget <= 10^7");
    if (args->seed < 0) throw_invalid("explore", "--seed", static_cast<double>(args->seed), "seed >= 0");
    options.budget = static_cast<int>(args->budget);
    if (!(args->max_seconds >= 0 && args->max_seconds <= 1e7))
      throw_invalid("explore", "--max-seconds", args->max_seconds, "0 (no limit) <= max-seconds <= 10^7");
    options.max_seconds = args->max_seconds;
    options.seed = static_cast<std::uint64_t>(args->seed);
    options.starts = args->starts;
    options.jobs = worker_count("explore", args->jobs);
    options.ignore_hypotheses = args->ignore_hypotheses;
    options.where = args->where;
    if (!args->frontier.empty() && !(args->bins >= 1 && args->bins <= 100))
      throw_invalid("explore", "--bins", args->bins, "an integer with 1 <= bins <= 100");
    options.communicator = comm.size() > 1 ? &comm : nullptr;

    check_output_dir("--out", args->out);
    const api::ExploreSelection selection =
        api::select_explore({args->targets, args->case_name, args->id, args->cases_dir, args->all});
    std::vector<std::pair<const verify::Case*, std::string>> runs;
    for (const auto& [index, id] : selection.runs) runs.emplace_back(&selection.cases[index], id);
    const std::filesystem::path dir(args->out);
    OutputLock lock;  // held until the files are written: a second run into the folder is refused
    on_first_process(comm, [&] { lock = make_output_dir("--out", dir); });
    const std::string missing_tools = plots::missing_plot_tools();
    const bool figures = missing_tools.empty();
    if (root && !figures) std::cerr << missing_tools << ": the exploration figures are skipped\n";
    if (root && comm.size() > 1)
      std::cout << fmt::format("{} processes x {} threads\n", comm.size(), options.jobs);

    std::string index = fmt::format("# privamp explore: {} search, budget {} per case and ID, seed {}{}\n\n"
                                    "| case | ID | best {} | re-evaluated | verdict | evaluations | time |\n"
                                    "| --- | --- | --- | --- | --- | --- | --- |\n",
                                    args->goal, args->budget, args->seed, args->ignore_hypotheses ? ", hypotheses ignored" : "",
                                    "ratio");
    int refuted = 0;
    if (root && args->frontier.empty())
      std::cout << fmt::format("{:<52} {:<20} {:>14} {:>34} {:>14} {:>7}\n", "case", "ID", "best ratio", "re-evaluated exact / bound",
                               "verdict", "time");
    // One file stem per run: distinct names that map to the same stem ("a b", "a_b") get -2, -3, ...
    std::vector<std::string> stems;
    {
      std::map<std::string, int> used;
      for (const auto& [c, id] : runs) {
        const std::string base = verify::explore_stem(c->name, id);
        const int n = ++used[base];
        stems.push_back(n == 1 ? base : fmt::format("{}-{}", base, n));
      }
    }
    for (std::size_t run = 0; run < runs.size(); ++run) {
      const auto& [c, id] = runs[run];
      const auto start = std::chrono::steady_clock::now();
      options.progress = root ? terminal_progress(fmt::format("evaluations ({})", id)) : nullptr;
      if (!args->frontier.empty()) {
        const verify::FrontierResult f = verify::frontier(*c, id, options, args->frontier, args->bins);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!root) continue;
        const std::string stem = stems[run] + "_frontier";
        write_file(dir / (stem + ".md"), verify::frontier_markdown(*c, f, options, stems[run]));
        verify::write_table_csv(verify::frontier_table(f), dir / (stem + ".csv"));
        verify::write_explore_csv(f.search, dir / (stems[run] + ".csv"));
        if (figures) plots::render_frontier(f, options.ignore_hypotheses, dir, stems[run]);
        std::cout << fmt::format("{} {} along {} in '{}' ({:.1f} s):\n{:>4} {:>25} {:>10} {:>14} {:>14}  {}\n", id, args->goal,
                                 args->frontier, c->name, seconds, "bin", args->frontier, "candidates",
                                 "best " + verify::slack_ratio_name(f.search.direction), "verdict", "degenerate optimum");
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
          std::cout << fmt::format("note: {} of {} bins not refined (bin {}: {})\n", unrefined, f.bins.size(),
                                   first - f.bins.begin() + 1, first->not_refined);
        }
        index += fmt::format("| {} | {} | frontier along {}: see {}.md | | | {} | {:.1f} s |\n", escape::markdown(c->name), escape::markdown(id), escape::markdown(args->frontier), escape::markdown(stem),
                             f.search.evaluations.size(), seconds);
        continue;
      }
      const verify::ExploreResult r = verify::explore(*c, id, options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!root) continue;
      const std::string& stem = stems[run];
      write_file(dir / (stem + ".md"), verify::explore_markdown(*c, r, options, stem));
      verify::write_explore_csv(r, dir / (stem + ".csv"));
      verify::write_explore_json(r, options, dir / (stem + ".json"));
      for (std::size_t k = 0; k < r.best.size(); ++k)
        write_file(dir / fmt::format("{}_point{}.toml", stem, k + 1), verify::one_point_case(*c, r, k));
      verify::remove_stale_point_files(dir, stem, r.best.size());
      if (figures) plots::render_explore(r, options.ignore_hypotheses, dir, stem);
      std::string best = "-", again = "no candidate", verdict = "-";
      if (!r.best.empty()) {
        const verify::Row& row = r.best.front();
        best = verify::ratio_text(r.evaluations[r.best_index.front()].slack);
        again = fmt::format("{:.6g} [{:.6g}, {:.6g}] / {:.6g}", row.exact.value, row.exact.lower, row.exact.upper, row.bound);
        verdict = verify::to_string(row.verdict) + (row.outside.empty() ? "" : " (outside)");
        for (const verify::Row& b : r.best) refuted += b.verdict == verify::Verdict::violated && b.outside.empty();
      }
      std::string name = c->name.size() > 52 ? c->name.substr(0, 49) + "..." : c->name;
      std::cout << fmt::format("{:<52} {:<20} {:>14} {:>34} {:>14} {:>6.1f}s\n", name, id, best, again, verdict, seconds);
      if (!r.stopped.empty()) std::cout << fmt::format("{:<52} {:<20} note: {}\n", "", "", r.stopped);
      if (r.degenerate)
        std::cout << fmt::format("{:<52} {:<20} {:>14} degenerate: {}\n", "", "", verify::ratio_text(r.evaluations[*r.degenerate_index].slack),
                                 r.evaluations[*r.degenerate_index].degenerate);
      index += fmt::format("| {} | {} | {} | {} | {} | {} | {:.1f} s |\n", escape::markdown(c->name), escape::markdown(id), best, again, verdict, r.evaluations.size(), seconds);
    }
    if (!root) return 0;
    // Runs never overwrite each other's summary: summary.md, then summary-2.md, ...
    std::filesystem::path summary = dir / "summary.md";
    for (int k = 2; std::filesystem::exists(summary); ++k) summary = dir / fmt::format("summary-{}.md", k);
    write_file(summary, index);
    if (args->frontier.empty())
      std::cout << fmt::format("wrote {} and, per case and ID, STEM.md, .csv, .json, _point*.toml{}\n", summary.string(),
                               figures ? ", _map and _convergence figures" : "");
    else
      std::cout << fmt::format("wrote {} and, per case and ID, STEM_frontier.md, STEM_frontier.csv, STEM.csv{}\n", summary.string(),
                               figures ? ", the _frontier figure" : "");
    if (refuted > 0) std::cout << fmt::format("{} re-evaluated point(s) violate a bound inside its hypotheses\n", refuted);
    return refuted > 0 ? 1 : 0;
  };
}

}  // namespace privamp::cli
