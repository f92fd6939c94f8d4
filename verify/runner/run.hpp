// One run of the catalogue over loaded case files, for every front end: the command line, the Python module and a
// C++ caller get the same rows from the same function. Over several processes (MPI), each computes its share of
// the points and the first one receives every row, in the order of a one-process run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "verify/cases/case.hpp"
#include "verify/runner/communicator.hpp"
#include "verify/runner/runner.hpp"

namespace privamp::verify {

struct RunSettings {
  std::vector<std::string> only;  // theorem IDs to check (empty: all); each must be known to the load
  int jobs = 0;                   // threads; 0: the number of cores
  std::function<void(std::size_t done, std::size_t total)> progress;
  const Communicator* communicator = nullptr;  // null: one process
};

struct RunResult {
  std::vector<Row> rows;  // every row on the first process (empty on the others)
  long violated = 0, errors = 0;
  bool reporting = true;  // this process holds the rows and reports them (false on MPI ranks other than 0)
};

// --jobs: 0 is the number of cores; outside [0, 1024] an InvalidArgument naming the command.
int worker_count(const std::string& command, int jobs, const std::string& name = "--jobs");  // name: as the caller spells it

// Checks the settings (IDs, jobs) before anything runs, then runs every case of the load.
RunResult run(const Loaded& loaded, const RunSettings& settings);

}  // namespace privamp::verify
