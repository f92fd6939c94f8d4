// Subcommands of the `privamp` executable. Each registers its options on the CLI11 app and returns the action
// to run after parsing; actions return the process exit status (0 ok, 1 a violation or a failed computation,
// 2 bad input).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace privamp::cli {

using Action = std::function<int()>;

Action add_divergence_command(CLI::App& app);
Action add_laws_command(CLI::App& app);
Action add_verify_command(CLI::App& app);
Action add_list_command(CLI::App& app);
Action add_figures_command(CLI::App& app);
Action add_kernel_command(CLI::App& app);

}  // namespace privamp::cli
