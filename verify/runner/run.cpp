#include "verify/runner/run.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/records/codec.hpp"

namespace privamp::verify {

int worker_count(const std::string& command, int jobs, const std::string& name) {
  // At most one worker per core: each holds one point's laws (a grid process at its finest resolution, about 330 MB
  // at the work limit), so more workers than cores add memory without speed (-j 16 took 5.3 GB on two cores).
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (jobs < 0 || jobs > cores)
    throw_invalid(command, name, jobs, fmt::format("0 <= jobs <= {}, the cores of this machine; 0: all of them", cores));
  return jobs > 0 ? jobs : cores;
}

namespace {

// The IDs the loaded cases check, each once, in the order met.
std::string checked_ids(const Loaded& loaded) {
  std::vector<std::string> ids;
  for (const Case& c : loaded.cases)
    for (const std::string& id : c.bounds)
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  return ids.empty() ? "none" : fmt::format("{}", fmt::join(ids, ", "));
}

}  // namespace

RunResult run(const Loaded& loaded, const RunSettings& settings) {
  for (const auto& id : settings.only) {
    find_bound(id, *loaded.bounds);  // InvalidArgument listing the known IDs
    // A known ID that no loaded case checks would run nothing and say all is well.
    if (std::none_of(loaded.cases.begin(), loaded.cases.end(),
                     [&](const Case& c) { return std::find(c.bounds.begin(), c.bounds.end(), id) != c.bounds.end(); }))
      invalid_input("--only {}: no case of the files given checks {} (their cases check: {})", id, id, checked_ids(loaded));
  }
  RunOptions options;
  options.only = settings.only;
  options.jobs = worker_count("verify", settings.jobs);
  const Communicator one;
  const Communicator& comm = settings.communicator ? *settings.communicator : one;
  options.process = comm.rank();
  options.processes = comm.size();
  if (comm.rank() == 0) options.progress = settings.progress;
  auto tasks = run_tasks(loaded.cases, options);
  RunResult out;
  if (comm.size() > 1) {
    TaskRows mine;
    for (std::size_t i = static_cast<std::size_t>(comm.rank()); i < tasks.size(); i += static_cast<std::size_t>(comm.size()))
      mine.emplace_back(i, std::move(tasks[i]));
    const auto all = comm.gather(encode_rows(mine));
    if (comm.rank() != 0) {
      out.reporting = false;
      return out;
    }
    for (const auto& bytes : all)
      for (auto& [i, list] : decode_rows(bytes)) tasks.at(i) = std::move(list);
  }
  for (auto& list : tasks)
    out.rows.insert(out.rows.end(), std::make_move_iterator(list.begin()), std::make_move_iterator(list.end()));
  for (const Row& r : out.rows) {
    out.violated += r.verdict == Verdict::violated;
    out.errors += r.verdict == Verdict::error;
  }
  return out;
}

}  // namespace privamp::verify
