#include "verify/records/codec.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"

namespace privamp::verify {

using nlohmann::json;

std::string describe_json(const json& j) {
  if (j.is_array()) return fmt::format("a list of {} item(s)", j.size());
  if (j.is_object()) return fmt::format("a table of {} key(s)", j.size());
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s.size() > 40) return json(s.substr(0, 40)).dump(-1, ' ', false, json::error_handler_t::replace) + "... (" + std::to_string(s.size()) + " bytes)";
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json json_number(double x) {
  if (std::isnan(x)) return nullptr;
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return plain_zero(x);
}

double number_from_json(const json& j) {
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (j.is_number()) return j.get<double>();
  if (j.is_string() && j.get<std::string>() == "inf") return std::numeric_limits<double>::infinity();
  if (j.is_string() && j.get<std::string>() == "-inf") return -std::numeric_limits<double>::infinity();
  invalid_input("expected a number, \"inf\", \"-inf\" or null, got {}", describe_json(j));
}

namespace {

ErrorKind error_kind_from(const std::string& s) {
  for (ErrorKind k : {ErrorKind::exact, ErrorKind::certified, ErrorKind::quadrature, ErrorKind::statistical, ErrorKind::discretised})
    if (to_string(k) == s) return k;
  if (s == "none") return ErrorKind::exact;  // a value not computed (NaN): error_kind_label writes it so
  invalid_input("unknown error kind '{}'", s);
}


}  // namespace

void budget_from_json(const json& j, FieldRule rule, ErrorBudget& budget) {
  if (!j.is_object()) invalid_input("an error budget must be an object of named numbers, got {}", describe_json(j));
  if (rule == FieldRule::budget) budget.clear();
  for (const auto& [name, amount] : j.items()) {
    const auto part = parse_error_part(name);
    if (!part) invalid_input("an error budget names an unknown part '{}'", abbreviate(name));
    if (rule == FieldRule::budget) {
      const double a = amount.is_null() ? 0.0 : number_from_json(amount);  // null: below the double range
      if (!(a >= 0) || std::isinf(a)) invalid_input("an error budget's part '{}' is {} (allowed: a finite number >= 0)", name, a);
      budget.push_back({*part, a, std::log(a)});
      continue;
    }
    const auto t = std::find_if(budget.begin(), budget.end(), [&](const ErrorTerm& x) { return x.part == *part; });
    if (t == budget.end()) invalid_input("log_error_budget names '{}', which error_budget does not", name);
    const double log_a = number_from_json(amount);
    // The log read back must be the amount's where that is a double (it is written so).
    if (std::isnan(log_a) || (t->amount > 0 && std::abs(log_a - t->log_amount) > 1e-9 * std::max(1.0, std::abs(log_a))))
      invalid_input("log_error_budget's part '{}' is {}, not the log of error_budget's {}", name, log_a, t->amount);
    t->log_amount = log_a;
  }
}

json to_json(const Estimate& e, bool with_timing) {
  json j = json::object();
  for_each_field(e, [&](const char* name, const auto& member, FieldRule rule) {
    using T = std::decay_t<decltype(member)>;
    if (!written(e, rule, with_timing)) return;
    if constexpr (std::is_same_v<T, double>) j[name] = rule == FieldRule::measure ? json_number(member) : json(member);
    else if constexpr (std::is_same_v<T, ErrorKind>) j[name] = error_kind_label(e);  // "none": not computed
    else if constexpr (std::is_same_v<T, ErrorBudget>) j[name] = budget_json(member, rule);
    else j[name] = member;
  });
  // A record keeps the engine's point where the outputs show none (bounded above only, below the double range): a run
  // read back is the run.
  record_point(e, [&](const char* name, double x) { j[name] = json_number(x); });
  return j;
}

Estimate estimate_from_json(const json& j) {
  Estimate e;
  for_each_field(e, [&](const char* name, auto& member, FieldRule rule) {
    using T = std::decay_t<decltype(member)>;
    if (rule == FieldRule::flag) return;  // read off the other fields, not read back
    if (!j.contains(name)) {
      if (rule == FieldRule::required) invalid_input("an estimate without its key '{}'", name);
      if constexpr (std::is_same_v<T, double>) member = rule == FieldRule::measure ? std::nan("") : 0.0;
      else if constexpr (std::is_same_v<T, long>) member = 0;
      return;
    }
    const json& v = j.at(name);
    if constexpr (std::is_same_v<T, double>) member = number_from_json(v);
    else if constexpr (std::is_same_v<T, ErrorKind>) member = error_kind_from(v.get<std::string>());
    else if constexpr (std::is_same_v<T, ErrorBudget>) budget_from_json(v, rule, member);
    else member = v.get<T>();
  });
  return e;
}

json to_json(const Params& p) {
  json j = json::object();
  for (const auto& [k, v] : p.numbers) j[k] = v;
  for (const auto& [k, v] : p.words) j[k] = v;
  return j;
}

Params params_from_json(const json& j) {
  Params p;
  for (const auto& [k, v] : j.items()) {
    if (v.is_number()) p.numbers[k] = v.get<double>();
    else if (v.is_string()) p.words[k] = v.get<std::string>();
    else invalid_input("parameter '{}': expected a number or a word, got {}", k, describe_json(v));
  }
  return p;
}

Cell parameter_cell(const Params& point, const std::string& name) {
  if (const auto n = point.numbers.find(name); n != point.numbers.end()) return n->second;
  if (const auto w = point.words.find(name); w != point.words.end()) return w->second;
  return std::monostate{};
}

namespace {

// A member of a row or golden row as a value of a keyed record, and back.
json record_value(const std::string& s) { return s; }
json record_value(const Params& p) { return to_json(p); }
json record_value(double x) { return json_number(x); }
json record_value(const Estimate& e) { return to_json(e, /*with_timing=*/false); }  // a row is reproducible
json record_value(Verdict v) { return to_string(v); }
json record_value(Direction d) { return to_string(d); }
json record_value(const Quantity& q) {
  json j = json::object();
  for_each_quantity_field(q, [&](const char* name, const auto& member) {
    if constexpr (std::is_same_v<std::decay_t<decltype(member)>, Quantity::Kind>) j[name] = quantity_name(member);
    else j[name] = member;
  });
  return j;
}
template <class T>
json record_value(const std::optional<T>& v) { return record_value(*v); }
template <class T>
json record_value(const Derived<T>& d) { return record_value(d.value); }

void read_value(const json& j, std::string& s) {
  if (!j.is_string()) invalid_input("expected a text, got {}", describe_json(j));
  s = j.get<std::string>();
}
void read_value(const json& j, Params& p) {
  if (!j.is_object()) invalid_input("expected a table of parameters, got {}", describe_json(j));
  p = params_from_json(j);
}
void read_value(const json& j, double& x) { x = number_from_json(j); }
void read_value(const json& j, Estimate& e) { e = estimate_from_json(j); }
void read_value(const json& j, Verdict& v) {
  std::string s;
  read_value(j, s);
  try {
    v = parse_verdict(s);
  } catch (const InvalidArgument&) {
    invalid_input("unknown verdict {} (allowed: tight, holds, inconclusive, violated, not_applicable, error)", describe_json(j));
  }
}
void read_value(const json& j, Direction& d) {
  std::string s;
  read_value(j, s);
  for (Direction k : {Direction::upper, Direction::lower, Direction::identity})
    if (to_string(k) == s) return void(d = k);
  invalid_input("unknown direction {} (allowed: upper, lower, identity)", describe_json(j));
}
void read_value(const json& j, Quantity& q) {
  std::optional<Quantity::Kind> kind;
  double order = 0;
  for_each_quantity_field(q, [&](const char* name, const auto& member) {
    if (!j.contains(name)) invalid_input("a divergence without its key '{}'", name);
    if constexpr (std::is_same_v<std::decay_t<decltype(member)>, Quantity::Kind>) {
      std::string text;
      read_value(j.at(name), text);
      kind = parse_quantity_kind(text);
      if (!kind) invalid_input("unknown divergence {}", describe_json(j.at(name)));
    } else {
      read_value(j.at(name), order);
    }
  });
  q = Quantity::of(*kind, order);
}
template <class T>
void read_value(const json& j, std::optional<T>& v) {
  T t;
  read_value(j, t);
  v = std::move(t);
}

// Whether a member holds a value (a field written only where set).
template <class T>
constexpr bool is_optional = false;
template <class T>
constexpr bool is_optional<std::optional<T>> = true;

bool is_set(double x) { return !std::isnan(x); }
bool is_set(const std::string& s) { return !s.empty(); }
template <class T>
bool is_set(const std::optional<T>& v) { return v.has_value(); }
template <class T>
bool is_set(const T&) { return true; }

// A member of a row as a cell of the flat table.
Cell table_cell(const std::string& s) { return s; }
Cell table_cell(const Params& p) { return p.describe(); }
Cell table_cell(double x) { return x; }
Cell table_cell(bool b) { return b ? 1.0 : 0.0; }  // (as explore's `outside`)
Cell table_cell(Verdict v) { return to_string(v); }
Cell table_cell(Direction d) { return to_string(d); }
template <class T>
Cell table_cell(const Derived<T>& d) { return table_cell(d.value); }

// A field list that puts a member where it has no form (fields.hpp): a programming error, caught by any test that
// writes the output.
[[noreturn]] void unwritable(const char* field, const char* output) {
  throw std::logic_error(fmt::format("internal: field '{}' has no form in the {}", field, output));
}

}  // namespace

FlatTable flat_table(const std::vector<Row>& rows) {
  FlatTable t;
  const Row header;
  for_each_row_field(header, [&](const RowField& field, const auto&) {
    if (field.in & kTable) t.columns.emplace_back(field.name);
  });
  const std::size_t fixed = t.columns.size();
  std::set<std::string> names;
  for (const Row& r : rows) {
    for (const auto& [name, value] : r.params.numbers) names.insert(name);
    for (const auto& [name, value] : r.params.words) names.insert(name);
  }
  for (const auto& name : names)
    t.columns.push_back(std::find(t.columns.begin(), t.columns.begin() + static_cast<std::ptrdiff_t>(fixed), name) ==
                                t.columns.begin() + static_cast<std::ptrdiff_t>(fixed)
                            ? name
                            : "param_" + name);
  t.rows.reserve(rows.size());
  for (const Row& r : rows) {
    std::vector<Cell> cells;
    cells.reserve(t.columns.size());
    for_each_row_field(r, [&](const RowField& field, const auto& member) {
      if (!(field.in & kTable)) return;
      if (field.label) cells.emplace_back(r.quantity());
      else if (field.if_set && !is_set(member)) cells.emplace_back(std::monostate{});
      else if constexpr (requires { table_cell(member); }) cells.push_back(table_cell(member));
      else unwritable(field.name, "table");
    });
    for (const auto& name : names) cells.push_back(parameter_cell(r.params, name));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

json to_json(const Row& r) {
  json j = json::object();
  for_each_row_field(r, [&](const RowField& field, const auto& member) {
    if (!(field.in & kRecord) || (field.if_set && !is_set(member))) return;
    if (field.label) j[field.name] = r.quantity();
    else if constexpr (requires { record_value(member); }) j[field.name] = record_value(member);
    else unwritable(field.name, "record");
  });
  return j;
}

Row row_from_json(const json& j) {
  if (!j.is_object()) invalid_input("a row that is not a table");
  Row r;
  for_each_row_field(r, [&](const RowField& field, auto&& member) {
    using T = std::decay_t<decltype(member)>;
    if constexpr (!is_derived<T>) {
      if (!(field.in & kRecord)) return;
      if (field.label && r.divergence) return;  // its label is the divergence's
      if (!j.contains(field.name)) {
        if (field.if_set) return;
        invalid_input("a row without its key '{}'", field.name);
      }
      if constexpr (requires { read_value(j, member); }) {
        try {
          read_value(j.at(field.name), member);
        } catch (const InvalidArgument& e) {
          invalid_input("'{}': {}", field.name, e.what());
        }
      } else {
        unwritable(field.name, "record");
      }
    }
  });
  return r;
}

json golden_json(const Row& r) {
  json j = json::object();
  const GoldenRow g = golden_row(r);
  for_each_golden_field(g, [&](const char* name, const auto& member) {
    if constexpr (is_optional<std::decay_t<decltype(member)>>)
      if (!member) return;  // (a log only where the double lost the number)
    j[name] = record_value(member);
  });
  return j;
}

GoldenRow golden_from_json(const json& j) {
  if (!j.is_object()) invalid_input("not a table: {}", describe_json(j));
  GoldenRow g;
  std::set<std::string> known;
  for_each_golden_field(g, [&](const char* name, auto&) { known.insert(name); });
  // (a key no golden row has is a file edited by hand or by another program, not a record of a run: refused, not
  // ignored)
  for (const auto& [name, value] : j.items())
    if (!known.contains(name)) invalid_input("an unknown key '{}' (a golden row has {})", abbreviate(name), fmt::join(known, ", "));
  for_each_golden_field(g, [&](const char* name, auto& member) {
    if (!j.contains(name)) {
      if constexpr (is_optional<std::decay_t<decltype(member)>>) return;  // (written only where set)
      invalid_input("no '{}'", name);
    }
    try {
      read_value(j.at(name), member);
    } catch (const InvalidArgument& e) {
      invalid_input("'{}': {}", name, e.what());
    }
  });
  // A row that contradicts itself is not a record of a run: its key is its case, ID and parameters, and its value lies
  // in its interval (all three null where the run computed none).
  const std::string key = row_key(g.case_name, g.id, g.params);
  if (g.key != key) invalid_input("'key' {} is not its case, id and parameters ({})", describe_json(j.at("key")), describe_json(json(key)));
  for (double* x : {&g.value, &g.lower, &g.upper}) *x = plain_zero(*x);  // (-0 is 0)
  const int nulls = std::isnan(g.value) + std::isnan(g.lower) + std::isnan(g.upper);
  if (nulls != 0 && nulls != 3) invalid_input("'value', 'lower' and 'upper': some null, some not (a value and its interval, or none)");
  if (nulls == 0 && !(g.lower <= g.value && g.value <= g.upper))
    invalid_input("'value' {:.17g} is not in ['lower', 'upper'] = [{:.17g}, {:.17g}]", g.value, g.lower, g.upper);
  // A log is written only where its double lost the number, and is that number's log.
  for (const auto& [name, end, log] : {std::tuple{"value", g.value, g.log_value}, std::tuple{"lower", g.lower, g.log_lower},
                                       std::tuple{"upper", g.upper, g.log_upper}}) {
    if (!log) {
      // (an end rounded down to the largest double always has its finite log beside it: without it the row's bar in
      // logs would reach down to 709.78 and hide a move)
      if (std::fabs(end) == std::numeric_limits<double>::max())
        invalid_input("'{}' is the largest double without 'log_{}' (a number beyond the doubles is recorded with its log)", name, name);
      continue;
    }
    if (!std::isfinite(*log))
      invalid_input("'log_{}' is {} (a recorded log is a finite number; the key is left out where there is none)", name,
                    std::isnan(*log) ? "null" : *log > 0 ? "inf" : "-inf");
    if (!lost_log(end, *log))
      invalid_input("'log_{}' {:.17g} beside '{}' {:.17g}, which the double holds (a log is recorded only where the double "
                    "is 0, subnormal, infinite or the largest double)", name, *log, name, end);
    // (exp of the log rounds to the double within a few of the smallest subnormal steps, or overflows with it)
    const double back = std::exp(*log), step = std::numeric_limits<double>::denorm_min();
    const bool above = std::fabs(end) >= std::numeric_limits<double>::max();  // (inf, or the largest double rounded down)
    if (!(above ? end > 0 && *log >= std::log(std::numeric_limits<double>::max()) - 1e-9 : std::fabs(back - end) <= 4 * step))
      invalid_input("'log_{}' {:.17g} is not the log of '{}' {:.17g}", name, *log, name, end);
  }
  if (g.log_lower && g.log_value && *g.log_lower > *g.log_value) invalid_input("'log_lower' > 'log_value'");
  if (g.log_value && g.log_upper && *g.log_value > *g.log_upper) invalid_input("'log_value' > 'log_upper'");
  return g;
}

Tree table_records(const FlatTable& t) {
  Tree out = Tree::array();
  for (const auto& cells : t.rows) {
    Tree record = Tree::object();
    for (std::size_t i = 0; i < cells.size(); ++i) {
      Tree& v = record[t.columns.at(i)];
      if (const double* x = std::get_if<double>(&cells[i])) v = *x;
      else if (const std::string* s = std::get_if<std::string>(&cells[i])) v = *s;
    }
    out.push_back(std::move(record));
  }
  return out;
}

namespace {
Tree finite_numbers(const Tree& t) {
  if (t.is_number_float()) {
    const double x = t.get<double>();
    return Tree(json_number(x));
  }
  if (!t.is_structured()) return t;
  Tree out = t.is_array() ? Tree::array() : Tree::object();
  for (auto it = t.begin(); it != t.end(); ++it) {
    if (t.is_array()) out.push_back(finite_numbers(*it));
    else out[it.key()] = finite_numbers(*it);
  }
  return out;
}
}  // namespace

std::string json_text(const Tree& tree) { return finite_numbers(tree).dump(1) + "\n"; }

json sorted_json(const Tree& tree) { return json(finite_numbers(tree)); }

std::vector<std::uint8_t> encode_rows(const TaskRows& rows) {
  json all = json::array();
  for (const auto& [task, list] : rows) {
    json t = {{"task", task}, {"rows", json::array()}};
    for (const Row& r : list) t["rows"].push_back(to_json(r));
    all.push_back(std::move(t));
  }
  return json::to_cbor(all);
}

TaskRows decode_rows(const std::vector<std::uint8_t>& bytes) {
  TaskRows out;
  for (const json& t : json::from_cbor(bytes)) {
    std::vector<Row> list;
    for (const json& r : t.at("rows")) list.push_back(row_from_json(r));
    out.emplace_back(t.at("task").get<std::size_t>(), std::move(list));
  }
  return out;
}

}  // namespace privamp::verify
