#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "numerics/escape.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/cases/case.hpp"
#include "verify/report/report.hpp"

namespace privamp::cli {

Action add_list_command(CLI::App& app) {
  auto cases_dir = std::make_shared<std::string>(data_path("cases"));
  auto extra = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("list", "List the theorem catalogue: ID, statement, source, cases, latest verdicts; "
                                         "bounds declared in case files beside the built-in ones");
  cmd->add_option("--cases", *cases_dir, "case directory to scan")->capture_default_str();
  cmd->add_option("files", *extra, "further case files or directories (their declared bounds are listed too)");
  return [cmd, cases_dir, extra]() {
    if (!cmd->parsed()) return -1;
    std::map<std::string, std::set<std::string>> exercised;
    std::vector<std::filesystem::path> paths;
    if (std::filesystem::is_directory(*cases_dir)) paths.emplace_back(*cases_dir);
    for (const auto& f : *extra) paths.emplace_back(f);
    verify::Loaded loaded;
    if (!paths.empty()) loaded = verify::load(paths);
    for (const auto& c : loaded.cases)
      for (const auto& id : c.bounds) exercised[id].insert(escape::plain(fmt::format("{} ({})", c.file, c.name)));
    // Latest verdicts: the golden results.
    const auto verdicts = verify::golden_verdicts(std::filesystem::path(*cases_dir) / "expected");
    std::vector<verify::BoundEntry> all = verify::bound_catalogue();
    for (const auto& b : *loaded.bounds) all.push_back(b);
    // Every text a file declared reaches the terminal through escape::plain: control and bidirectional characters
    // shown as [U+001B], never sent (a statement once cleared the screen and set the window's title).
    const auto show = [](const std::string& text) { return escape::plain(text); };
    for (const auto& b : all) {
      std::cout << fmt::format("{}  [{}; {} bound on {}]\n  {}\n  source: {}\n", b.id, show(b.family),
                               verify::to_string(b.direction), b.quantity, show(b.statement), show(b.source));
      if (!b.formula.empty())
        std::cout << fmt::format("  {}: {}\n", b.declared_in.empty() ? "formula (verify/bounds/catalogue.toml)" : "declared in " + show(verify::declared_at(b)),
                                 show(b.formula));
      std::vector<std::string> reads;
      for (const verify::Parameter& p : b.parameters) reads.push_back(fmt::format("{} ({}{})", p.name, p.describe(), p.optional ? ", optional" : ""));
      if (!reads.empty()) std::cout << fmt::format("  parameters: {}\n", fmt::join(reads, ", "));
      else if (!b.formula.empty()) std::cout << "  parameters: the names in its formula\n";
      const auto ex = exercised.find(b.id);
      std::cout << "  cases: " << (ex == exercised.end() ? "none" : fmt::format("{}", fmt::join(ex->second, "; "))) << "\n";
      const auto v = verdicts.find(b.id);
      if (v != verdicts.end()) {
        std::vector<std::string> parts;
        for (const auto& [verdict, n] : v->second) parts.push_back(fmt::format("{} {}", n, verdict));
        std::cout << "  latest verdicts: " << fmt::format("{}", fmt::join(parts, ", ")) << "\n";
      }
      std::cout << "\n";
    }
    return 0;
  };
}

}  // namespace privamp::cli
