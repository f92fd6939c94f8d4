// docs/case-files.md against the loaders: every key each table of a case file accepts is documented in that
// table's section, no section documents a key the loader refuses, and the parameters each built-in bound reads are
// listed as the catalogue declares them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "verify/bounds/catalogue.hpp"
#include "verify/input/keys.hpp"

namespace {

using namespace privamp::verify;

std::string reference() {
  std::ifstream in(std::string(PRIVAMP_SOURCE_DIR) + "/docs/case-files.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The lines of the section whose "## " heading contains `name`, up to the next "## " heading.
std::vector<std::string> section(const std::string& doc, std::string_view name) {
  std::vector<std::string> out;
  std::istringstream in(doc);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) {
      if (inside) break;
      inside = line.find(name) != std::string::npos;
      continue;
    }
    if (inside) out.push_back(line);
  }
  return out;
}

// The first cell of a table row written "| `word` | ...", or "" for any other line.
std::string first_cell(const std::string& line) {
  if (line.rfind("| `", 0) != 0) return "";
  const auto end = line.find("` |", 3);
  return end == std::string::npos ? "" : line.substr(3, end - 3);
}

}  // namespace

TEST_CASE("the case-file reference documents exactly the keys the loaders accept", "[docs]") {
  const std::string doc = reference();
  REQUIRE_FALSE(doc.empty());
  for (const KeyTable* table : kAllKeyTables) {
    INFO("section " << table->name);
    const auto lines = section(doc, table->name);
    REQUIRE_FALSE(lines.empty());
    std::set<std::string> documented;
    for (const auto& line : lines)
      if (const std::string key = first_cell(line); !key.empty()) documented.insert(key);
    for (std::string_view key : table->keys) {
      INFO("key " << key);
      CHECK(documented.count(std::string(key)) == 1);
    }
    for (const std::string& key : documented) {
      INFO("documented key " << key << " is not accepted by the loader");
      CHECK(std::find(table->keys.begin(), table->keys.end(), key) != table->keys.end());
    }
  }
}

TEST_CASE("the case-file reference lists the parameters each built-in bound reads", "[docs]") {
  const auto lines = section(reference(), "Parameters the built-in bounds read");
  REQUIRE_FALSE(lines.empty());
  std::set<std::string> rows(lines.begin(), lines.end()), listed;
  for (const auto& line : lines)
    if (const std::string id = first_cell(line); !id.empty()) listed.insert(id);
  std::set<std::string> with_parameters;
  for (const BoundEntry& b : bound_catalogue()) {
    if (b.parameters.empty()) continue;  // a formula entry reads the names in its formula (privamp list shows it)
    with_parameters.insert(b.id);
    std::vector<std::string> names;
    for (const Parameter& p : b.parameters) names.push_back(p.name + (p.optional ? " (optional)" : ""));
    const std::string want = fmt::format("| `{}` | {} |", b.id, fmt::join(names, ", "));
    INFO(want);
    CHECK(rows.count(want) == 1);
  }
  CHECK(listed == with_parameters);
}
