// privamp: exact divergences and privacy-amplification bounds. Subcommands are in cli/.
#include <iostream>

#include <CLI/CLI.hpp>

#include "numerics/errors.hpp"
#include "cli/commands.hpp"
#include "cli/version.hpp"

int main(int argc, char** argv) {
  const privamp::cli::Processes processes(&argc, &argv);
  const bool root = privamp::cli::process_communicator().rank() == 0;  // only rank 0 reports errors
  privamp::cli::set_command_line(argc, argv);
  CLI::App app{"privamp — exact Renyi and hockey-stick divergences, and checks of privacy-amplification theorems"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("privamp ") + privamp::cli::kVersion + " (commit " + privamp::cli::kCommit + ")",
                       "print the version and the commit it was built from, and exit");
  std::vector<privamp::cli::Action> actions = {
      privamp::cli::add_verify_command(app), privamp::cli::add_list_command(app), privamp::cli::add_figures_command(app),
      privamp::cli::add_divergence_command(app), privamp::cli::add_laws_command(app),
      privamp::cli::add_kernel_command(app), privamp::cli::add_explore_command(app)};
  // "-hgaussian(0,1)" would be read as the help flag: a law never starts with '-', so say what is wrong.
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] == 'h') {
      std::cerr << "privamp: error: unknown option '" << a << "' (-h takes no value; a law expression starts with a name)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    for (const auto& action : actions) {
      const int status = action();
      if (status >= 0) return status;
    }
  } catch (const privamp::InvalidArgument& e) {
    if (root) std::cerr << "privamp: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    if (root) std::cerr << "privamp: computation failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
