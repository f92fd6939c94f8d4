// Subcommands of the `privamp` executable. Each registers its options on the CLI11 app and returns the action
// to run after parsing; actions return the process exit status (0 ok, 1 a violation or a failed computation,
// 2 bad input).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "numerics/files.hpp"
#include "verify/explore/explore.hpp"
#include "verify/runner/run.hpp"

namespace privamp::cli {

using Action = std::function<int()>;

Action add_divergence_command(CLI::App& app);
Action add_account_command(CLI::App& app);
Action add_laws_command(CLI::App& app);
Action add_engines_command(CLI::App& app);
Action add_verify_command(CLI::App& app);
Action add_list_command(CLI::App& app);
Action add_figures_command(CLI::App& app);
Action add_kernel_command(CLI::App& app);
Action add_explore_command(CLI::App& app);

// The processes of this run (MPI ranks when built with MPI and started by mpirun; otherwise one). Construct one
// in main() before parsing: it initialises MPI when there is an MPI launcher, and finalises it on destruction.
struct Processes {
  Processes(int* argc, char*** argv);
  ~Processes();
  Processes(const Processes&) = delete;
  Processes& operator=(const Processes&) = delete;
};
using verify::Communicator;
const Communicator& process_communicator();
// Runs `f` on the first process only (locking output folders, creating them) and lets every process learn its
// refusal: an InvalidArgument thrown there is thrown on every process, so that no process waits for one that left.
void on_first_process(const Communicator& comm, const std::function<void()>& f);

// Progress on standard error, with the time left: a bar on a terminal, otherwise a line every 5 s (nothing for a
// run shorter than that).
std::function<void(std::size_t done, std::size_t total)> terminal_progress(const std::string& unit);
// The shipped data `name` (cases, plots): `name` in the working directory when it exists there (a source tree),
// otherwise the installed copy beside the executable (<prefix>/share/privamp/name) when there is one, otherwise
// `name` (whose absence the caller reports).
std::string data_path(const std::string& name);
// The paths given on the command line, each as given when it exists, else its copy in the installed catalogue
// (data_path: `privamp verify cases/composition.toml` from any folder), with a note on stderr saying so.
std::vector<std::filesystem::path> input_paths(const std::vector<std::string>& given);

// The command line as typed (each argument shell-quoted where needed), for the reports' metadata: set once by main.
void set_command_line(int argc, const char* const* argv);
const std::string& command_line();
// "a,b,,c" -> {a, b, c}
std::vector<std::string> split(const std::string& s);
// A comma-separated list option such as --only: its items, InvalidArgument when the text names none (",,").
std::vector<std::string> list_option(const std::string& command, const std::string& option, const std::string& text);
// (Output directories: numerics/files.hpp; --jobs: verify::worker_count in verify/runner/run.hpp.)
using verify::worker_count;

}  // namespace privamp::cli
