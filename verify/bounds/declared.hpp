// Bounds declared as data: the [[bound]] tables of case files and of the catalogue's own catalogue.toml (every key:
// docs/case-files.md). Included by the readers' translation units only (it brings toml++).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "verify/bounds/catalogue.hpp"
#include "verify/input/toml_reader.hpp"

namespace privamp::verify {

// The [[bound]] tables of a parsed document named `name`: a user's (user = true: an ID may not be a built-in one)
// or the catalogue's own. Errors name the file, line and key.
std::vector<BoundEntry> bound_tables(const toml::table& doc, const std::string& name, bool user);
// The catalogue's own [[bound]] tables, from its text.
std::vector<BoundEntry> read_bound_tables(std::string_view text, const std::string& name);
// Adds a file's declared bounds to those of the load; an ID declared twice (in one file or in two) is refused,
// naming both places.
void add_declared(DeclaredBounds& all, std::vector<BoundEntry> bounds);

}  // namespace privamp::verify
