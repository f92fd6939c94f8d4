#include "verify/bounds/declared.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "sim/language/language.hpp"

namespace privamp::verify {

namespace {

// A TOML value as privamp writes it back (explore's point files declare the bound again): every string through the
// one TOML escaper, so that no text of a user's can end a string or start a key. (toml++'s own formatter wrote a
// statement holding ''' and a newline inside a '''-string: the point file then declared direction = 'lower' and
// reported a violation the search had not found.)
std::string toml_key(std::string_view key);

std::string toml_value(const toml::node& node) {
  if (const auto* s = node.as_string()) return escape::toml(s->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* k = node.as_integer()) return fmt::format("{}", k->get());
  if (const auto* x = node.as_floating_point()) {
    const double v = x->get();
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    const std::string text = fmt::format("{:.17g}", v);
    return text.find_first_of(".eE") == std::string::npos ? text + ".0" : text;  // (a float stays a float)
  }
  std::vector<std::string> parts;
  if (const auto* a = node.as_array()) {
    for (const toml::node& item : *a) parts.push_back(toml_value(item));
    return fmt::format("[{}]", fmt::join(parts, ", "));
  }
  if (const auto* t = node.as_table()) {
    for (const auto& [key, item] : *t) parts.push_back(fmt::format("{} = {}", toml_key(key.str()), toml_value(item)));
    return fmt::format("{{{}}}", fmt::join(parts, ", "));
  }
  throw std::logic_error("a TOML value of a kind privamp does not write (a date or time)");
}

// A key: bare where it is a word of letters, digits, '_' and '-' (the loader's fixed keys), else a basic string.
std::string toml_key(std::string_view key) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  return bare ? std::string(key) : escape::toml(key);
}

// A table's keys and values, one per line.
std::string toml_text(const toml::table& t) {
  std::string out;
  for (const auto& [key, node] : t) out += fmt::format("{} = {}\n", toml_key(key.str()), toml_value(node));
  return out;
}

}  // namespace

namespace {

class BoundReader : public TomlReader {
 public:
  using TomlReader::TomlReader;

  // IDs are ASCII words (T4.closed, MY.gaussian-limit): no character can make one ID look like another.
  std::string read_id(const toml::table& t) const {
    const std::string id = text(t, "id");
    if (const std::string problem = escape::text_problem(id); !problem.empty()) fail(t.get("id"), "id", "holds " + problem);
    const auto id_character = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; };
    if (id.empty() || !std::isalnum(static_cast<unsigned char>(id[0])) || !std::all_of(id.begin(), id.end(), id_character))
      fail(t.get("id"), "id",
           fmt::format("'{}' is not an ID: ASCII letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. MY.gaussian-limit)",
                       escape::plain(id)));
    if (id.size() > 200) fail(t.get("id"), "id", fmt::format("{} bytes; at most 200", id.size()));
    return id;
  }

  // Formulas' syntax at load, named at their own line, whether or not a case uses the bound (an unused one with a
  // broken formula was accepted; a used one's error was reported at the case's line).
  void check_syntax(const toml::table& t, const std::string& key, const std::vector<std::string>& formulas) const {
    for (const std::string& formula : formulas) try {
        (void)sim::Expression::parse_cached(formula, key == "formula" ? "formula" : "condition");
      } catch (const InvalidArgument& x) {
        fail(t.get(key), key, x.what());
      }
  }

  // A [[bound]] table: a bound declared as data. user: a user's file (its IDs may not be built-in ones); otherwise
  // the catalogue's own tables.
  BoundEntry read_bound(const toml::table& t, bool user) const {
    check_keys(t, kBoundKeys, "bound.");
    BoundEntry e;
    e.id = read_id(t);
    e.family = text(t, "family", std::filesystem::path(file_).stem().string());
    e.declared_in = file_;
    e.declared_line = static_cast<int>(t.source().begin.line);
    e.declaration = toml_text(t);
    if (user)
      for (const BoundEntry& b : bound_catalogue())
        if (b.id == e.id) fail(t.get("id"), "id", fmt::format("bound ID '{}' is built in: choose another ID for a declared bound", e.id));
    e.source = text(t, "source", "declared in " + file_);
    e.statement = text(t, "statement", "");
    if (t.get("exact")) {  // a value bound: its exact value is a built-in route, checked by value cases
      const std::string route = text(t, "exact");
      const auto& routes = exact_routes();
      const auto it = routes.find(route);
      if (it == routes.end()) {
        std::vector<std::string> names;
        for (const auto& [k, v] : routes) names.push_back(k);
        fail(t.get("exact"), "exact", fmt::format("unknown exact route '{}' (known: {})", route, fmt::join(names, ", ")));
      }
      if (t.get("quantity")) fail(t.get("quantity"), "quantity", fmt::format("a value bound computes {} (its exact route)", it->second.quantity));
      if (t.get("order")) fail(t.get("order"), "order", "only divergence bounds take an order (this one has exact = ROUTE)");
      e.quantity = it->second.quantity;
      e.check = ValueCheck{.exact = it->second.exact, .cross = it->second.cross, .parameters = it->second.parameters};
    } else {
      e.quantity = text(t, "quantity");
      const auto kind = parse_quantity_kind(e.quantity);
      if (!kind) fail(t.get("quantity"), "quantity", fmt::format("must be {} (or give exact = ROUTE)", kQuantityNames));
      DivergenceCheck d{.quantity = *kind};
      if (t.get("order")) {  // kernel cases: the eps' at which the bound speaks (default: the case's order)
        const std::string order = text(t, "order");
        d.order = [order](const Params& p) { return evaluate_formula(order, p); };
      }
      e.check = std::move(d);
    }
    const std::string direction = text(t, "direction", "upper");
    bool known_direction = false;
    for (Direction d : {Direction::upper, Direction::lower, Direction::identity})
      if (to_string(d) == direction) {
        e.direction = d;
        known_direction = true;
      }
    if (!known_direction) fail(t.get("direction"), "direction", "must be upper, lower or identity");
    std::vector<std::string> requirements;
    if (const toml::node* r = t.get("requires")) {
      if (!r->is_array()) fail(r, "requires", "must be a list of conditions, e.g. [\"n >= 1\", \"b > 0\"]");
      for (const auto& c : *r->as_array()) {
        if (!c.is_string()) fail(&c, "requires", "conditions must be strings");
        requirements.push_back(**c.as_string());
      }
    }
    e.formula = text(t, "formula");
    if (e.formula.find_first_not_of(" \t") == std::string::npos) fail(t.get("formula"), "formula", "must not be empty");
    check_syntax(t, "formula", {e.formula});
    check_syntax(t, "requires", requirements);
    e.not_applicable = [requirements](const Params& p) -> std::optional<std::string> {
      for (const std::string& c : requirements)
        if (evaluate_formula(c, p) == 0) return "needs " + c;
      return std::nullopt;
    };
    e.bound = [formula = e.formula](const Params& p) {
      // The verdict is decided on the formula's enclosure, never on its double: log(1 + x) loses digits of x that
      // the enclosure keeps.
      const FormulaValue v = evaluate_formula_interval(formula, p);
      // (+ 0.0: a formula's −0, "-0*1", is the bound 0; it was printed "-0" in results and reasons)
      return BoundValue{v.value + 0.0, "", v.lower + 0.0, v.upper + 0.0};
    };
    return e;
  }
};

}  // namespace

std::vector<BoundEntry> bound_tables(const toml::table& doc, const std::string& name, bool user) {
  std::vector<BoundEntry> out;
  const toml::node* bounds = doc.get("bound");
  if (!bounds) return out;
  BoundReader reader(name);
  if (!bounds->is_array_of_tables()) reader.fail(bounds, "bound", "bounds are [[bound]] tables");
  for (const auto& t : *bounds->as_array()) out.push_back(reader.read_bound(*t.as_table(), user));
  return out;
}

void add_declared(DeclaredBounds& all, std::vector<BoundEntry> bounds) {
  for (BoundEntry& e : bounds) {
    for (const BoundEntry& b : all)
      if (b.id == e.id)
        invalid_input("{}:{}: key 'id': bound '{}' is declared twice: here and at {} (one ID, one bound: rename one of them)",
                      e.declared_in, e.declared_line, e.id, declared_at(b));
    all.push_back(std::move(e));
  }
}

std::vector<BoundEntry> read_bound_tables(std::string_view text, const std::string& name) {
  return bound_tables(parse_toml(text, name), name, false);
}

}  // namespace privamp::verify
