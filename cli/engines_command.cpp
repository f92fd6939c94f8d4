#include <iostream>

#include "cli/commands.hpp"
#include "verify/divergence/engines.hpp"

namespace privamp::cli {

Action add_engines_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("engines", "List the divergence engines, the routes each --engine setting tries, and a verdict's second route");
  return [cmd]() {
    if (!cmd->parsed()) return -1;
    std::cout << verify::engine_policy_text();
    return 0;
  };
}

}  // namespace privamp::cli
