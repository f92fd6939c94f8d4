#include <algorithm>
#include <chrono>
#include <sstream>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "plots/figures.hpp"
#include "cli/commands.hpp"

namespace privamp::cli {

Action add_figures_command(CLI::App& app) {
  struct Args {
    std::string only, out = "figures";
    bool list = false, reduced = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("figures", "Compute and render the paper figures (CSV, gnuplot script, PDF, PNG)");
  cmd->add_option("--only", args->only, "comma-separated figure names (see --list)");
  cmd->add_option("--out", args->out, "output directory")->capture_default_str();
  cmd->add_flag("--list", args->list, "list the figures and what they show");
  cmd->add_flag("--reduced", args->reduced, "small grids (a quick look; the curves are coarse)");
  return [cmd, args]() {
    if (!cmd->parsed()) return -1;
    const auto& all = plots::figure_catalogue();
    if (args->list) {
      for (const auto& f : all) std::cout << fmt::format("{}\n  {}\n  {}\n\n", f.name, f.title, f.description);
      return 0;
    }
    std::vector<const plots::Figure*> chosen;
    std::vector<std::string> names;
    for (const auto& f : all) names.push_back(f.name);
    if (args->only.empty()) {
      for (const auto& f : all) chosen.push_back(&f);
    } else {
      std::stringstream in(args->only);
      std::string name;
      while (std::getline(in, name, ',')) {
        const auto it = std::find_if(all.begin(), all.end(), [&](const plots::Figure& f) { return f.name == name; });
        if (it == all.end())
          throw InvalidArgument(fmt::format("unknown figure '{}' (known: {})", name, fmt::join(names, ", ")));
        chosen.push_back(&*it);
      }
    }
    for (const plots::Figure* f : chosen) {
      const auto start = std::chrono::steady_clock::now();
      plots::render(*f, args->out, args->reduced);
      std::cout << fmt::format("{:<18} {}/{}.{{csv,gp,pdf,png}}  {:.1f} s\n", f->name, args->out, f->name,
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return 0;
  };
}

}  // namespace privamp::cli
