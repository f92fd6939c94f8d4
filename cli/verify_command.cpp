#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "cli/commands.hpp"
#include "verify/report/report.hpp"
#include "verify/runner/codec.hpp"

namespace privamp::cli {

namespace {

struct VerifyArgs {
  std::vector<std::string> paths;
  std::string only;
  int jobs = 0;
  std::string out;
  bool check_golden = false, update_golden = false;
  std::string golden_dir;
};

}  // namespace

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<std::string> list_option(const std::string& command, const std::string& option, const std::string& text) {
  std::vector<std::string> items = split(text);
  if (items.empty() && !text.empty())
    throw InvalidArgument(fmt::format("{} {} '{}': names nothing (give a comma-separated list such as E1,T5)", command, option, text));
  return items;
}

void check_output_dir(const std::string& option, const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) {
    if (!std::filesystem::is_directory(dir, ec))
      throw InvalidArgument(fmt::format("{} {}: is a file, not a directory", option, dir.string()));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw InvalidArgument(fmt::format("{} {}: cannot write there", option, dir.string()));
    return;
  }
  // The nearest existing ancestor must be a directory we may create folders in.
  std::filesystem::path up = std::filesystem::absolute(dir, ec).parent_path();
  while (!up.empty() && !std::filesystem::exists(up, ec) && up != up.root_path()) up = up.parent_path();
  if (!std::filesystem::is_directory(up, ec))
    throw InvalidArgument(fmt::format("{} {}: cannot be created ({} is not a directory)", option, dir.string(), up.string()));
  if (::access(up.c_str(), W_OK | X_OK) != 0)
    throw InvalidArgument(fmt::format("{} {}: cannot be created (no permission to write in {})", option, dir.string(), up.string()));
}

void make_output_dir(const std::string& option, const std::filesystem::path& dir) {
  check_output_dir(option, dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InvalidArgument(fmt::format("{} {}: cannot be created: {}", option, dir.string(), ec.message()));
  // A probe file of our own (a unique name, created exclusively): no file of the user's is touched.
  std::string probe = (dir / ".privamp-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) throw InvalidArgument(fmt::format("{} {}: cannot write there", option, dir.string()));
  ::close(fd);
  ::unlink(probe.c_str());
}

int worker_count(const std::string& command, int jobs) {
  if (jobs < 0 || jobs > 1024) throw_invalid(command, "--jobs", jobs, "1 <= jobs <= 1024 (0: the number of cores)");
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::function<void(std::size_t, std::size_t)> terminal_progress(const std::string& unit) {
  if (!isatty(STDERR_FILENO)) return {};
  return [unit](std::size_t done, std::size_t total) {
    const int width = 40, filled = static_cast<int>(width * done / std::max<std::size_t>(total, 1));
    std::fprintf(stderr, "\r[%s%s] %zu/%zu %s", std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
                 done, total, unit.c_str());
    if (done == total) std::fprintf(stderr, "\n");
  };
}

Action add_verify_command(CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify", "Check the theorem catalogue against exact values over the case files");
  cmd->add_option("paths", args->paths, "case files or directories (default: cases)");
  cmd->add_option("--only", args->only, "comma-separated theorem IDs to check (e.g. T1.3,E2)");
  cmd->add_option("--jobs,-j", args->jobs, "parallel workers (default: the number of cores)");
  cmd->add_option("--out", args->out, "write results.csv, results.json and report.md to this directory");
  cmd->add_flag("--check-golden", args->check_golden,
                "compare with the golden results (exit 1 if a verdict changed or a value moved beyond its error bar)");
  cmd->add_flag("--update-golden", args->update_golden, "rewrite the golden results from this run");
  cmd->add_option("--golden-dir", args->golden_dir, "golden results directory (default: <first path>/expected)");
  return [cmd, args]() {
    if (!cmd->parsed()) return -1;
    if (args->check_golden && args->update_golden)
      throw InvalidArgument("give --check-golden or --update-golden, not both");
    if (args->update_golden && !args->only.empty())
      throw InvalidArgument("--update-golden rewrites whole case files: run it without --only");
    const int jobs = worker_count("verify", args->jobs);
    if (!args->out.empty()) check_output_dir("--out", args->out);  // found unusable now, not after the whole run
    std::vector<std::filesystem::path> paths;
    for (const auto& p : args->paths) paths.emplace_back(p);
    if (paths.empty()) paths.emplace_back("cases");
    const verify::Loaded loaded = verify::load(paths);  // all validation happens before anything runs or is written
    const auto& cases = loaded.cases;
    verify::RunOptions options;
    options.only = list_option("verify", "--only", args->only);
    for (const auto& id : options.only) verify::find_bound(id, *loaded.bounds);
    const std::filesystem::path golden =
        args->golden_dir.empty()
            ? (std::filesystem::is_directory(paths.front()) ? paths.front() : paths.front().parent_path()) / "expected"
            : std::filesystem::path(args->golden_dir);
    if (args->update_golden) verify::check_golden_targets(cases, golden);
    if (!args->out.empty()) make_output_dir("--out", args->out);
    options.jobs = jobs;
    options.progress = terminal_progress("points");
    // Over several processes (mpirun): each computes its share of the points, the first one reassembles them in
    // the order of a one-process run and does all the reporting.
    const Communicator& comm = process_communicator();
    options.process = comm.rank();
    options.processes = comm.size();
    if (comm.rank() != 0) options.progress = nullptr;
    auto tasks = verify::run_tasks(cases, options);
    if (comm.size() > 1) {
      verify::TaskRows mine;
      for (std::size_t i = static_cast<std::size_t>(comm.rank()); i < tasks.size(); i += static_cast<std::size_t>(comm.size()))
        mine.emplace_back(i, std::move(tasks[i]));
      const auto all = comm.gather(verify::encode_rows(mine));
      if (comm.rank() != 0) return 0;
      for (const auto& bytes : all)
        for (auto& [i, list] : verify::decode_rows(bytes)) tasks.at(i) = std::move(list);
    }
    std::vector<verify::Row> rows;
    for (auto& list : tasks) rows.insert(rows.end(), std::make_move_iterator(list.begin()), std::make_move_iterator(list.end()));
    std::cout << verify::summary_table(rows);
    if (!args->out.empty()) {
      const std::filesystem::path dir(args->out);
      std::filesystem::create_directories(dir);
      verify::write_csv(rows, dir / "results.csv");
      verify::write_json(rows, dir / "results.json");
      verify::write_markdown(rows, dir / "report.md");
      std::cout << fmt::format("wrote {}/results.csv, results.json, report.md\n", dir.string());
    }
    long violated = 0, errors = 0;
    for (const auto& r : rows) {
      violated += r.verdict == verify::Verdict::violated;
      errors += r.verdict == verify::Verdict::error;
    }
    for (const auto& r : rows)
      if (r.verdict == verify::Verdict::error) std::cerr << "error: " << r.key() << ": " << r.reason << "\n";
    if (args->update_golden) {
      verify::update_golden(rows, golden);
      std::cout << fmt::format("golden results written to {}\n", golden.string());
      return errors > 0 ? 1 : 0;
    }
    if (args->check_golden) {
      const auto problems = verify::check_golden(rows, golden, !options.only.empty());
      for (const auto& p : problems) std::cerr << "golden: " << p << "\n";
      std::cout << fmt::format("golden check against {}: {} difference(s); {} violation(s) (as recorded), {} error(s)\n",
                               golden.string(), problems.size(), violated, errors);
      return problems.empty() && errors == 0 ? 0 : 1;
    }
    if (violated > 0) std::cout << fmt::format("{} violation(s): see the report (--out DIR)\n", violated);
    return violated + errors > 0 ? 1 : 0;
  };
}

}  // namespace privamp::cli
