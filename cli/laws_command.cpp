#include <iostream>

#include <fmt/format.h>

#include "sim/language/expression.hpp"
#include "cli/commands.hpp"

namespace privamp::cli {

Action add_laws_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("laws", "List the law expressions accepted by `privamp divergence`");
  return [cmd]() {
    if (!cmd->parsed()) return -1;
    std::cout << "Law expressions: NAME(arg, ..., name=value, ...). A positional argument fills the first parameter\n"
                 "(in the order listed) not given by name; lists are written [a, b, c]; laws nest (mixtures of\n"
                 "mixtures, clamp of a mixture).\n\n";
    for (const sim::LawSpec& law : sim::law_catalogue()) {
      std::cout << fmt::format("{}  —  {}\n", law.name, law.summary);
      for (const sim::ParamSpec& p : law.params)
        std::cout << fmt::format("    {:<9} {:<16} {:<22} {}{}\n", p.name, sim::to_string(p.kind),
                                 p.default_value ? "default " + *p.default_value : "required", p.doc,
                                 p.range.bounded() ? " [allowed: " + p.range.text() + "]" : "");
      std::cout << fmt::format("    example: {}\n\n", law.example);
    }
    return 0;
  };
}

}  // namespace privamp::cli
