#include "verify/runner/codec.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <type_traits>

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp::verify {

using nlohmann::json;

json json_number(double x) {
  if (std::isnan(x)) return nullptr;
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

double number_from_json(const json& j) {
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (j.is_number()) return j.get<double>();
  if (j.is_string() && j.get<std::string>() == "inf") return std::numeric_limits<double>::infinity();
  if (j.is_string() && j.get<std::string>() == "-inf") return -std::numeric_limits<double>::infinity();
  throw InvalidArgument(fmt::format("expected a number, \"inf\", \"-inf\" or null, got {}", j.dump()));
}

namespace {

ErrorKind error_kind_from(const std::string& s) {
  for (ErrorKind k : {ErrorKind::exact, ErrorKind::certified, ErrorKind::quadrature, ErrorKind::statistical, ErrorKind::discretised})
    if (to_string(k) == s) return k;
  throw InvalidArgument(fmt::format("unknown error kind '{}'", s));
}

double number_at(const json& j, const char* key) { return j.contains(key) ? number_from_json(j.at(key)) : std::nan(""); }

}  // namespace

json to_json(const Estimate& e) {
  json j = json::object();
  for_each_field(e, [&](const char* name, const auto& member, FieldRule rule) {
    using T = std::decay_t<decltype(member)>;
    if (!written(e, rule)) return;
    if constexpr (std::is_same_v<T, double>) j[name] = rule == FieldRule::measure ? json_number(member) : json(member);
    else if constexpr (std::is_same_v<T, ErrorKind>) j[name] = to_string(member);
    else j[name] = member;
  });
  return j;
}

Estimate estimate_from_json(const json& j) {
  Estimate e;
  for_each_field(e, [&](const char* name, auto& member, FieldRule rule) {
    using T = std::decay_t<decltype(member)>;
    if (!j.contains(name)) {
      if (rule == FieldRule::required) throw InvalidArgument(fmt::format("an estimate without its key '{}'", name));
      if constexpr (std::is_same_v<T, double>) member = rule == FieldRule::measure ? std::nan("") : 0.0;
      else if constexpr (std::is_same_v<T, long>) member = 0;
      return;
    }
    const json& v = j.at(name);
    if constexpr (std::is_same_v<T, double>) member = number_from_json(v);
    else if constexpr (std::is_same_v<T, ErrorKind>) member = error_kind_from(v.get<std::string>());
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
    else throw InvalidArgument(fmt::format("parameter '{}': expected a number or a word, got {}", k, v.dump()));
  }
  return p;
}

Cell parameter_cell(const Params& point, const std::string& name) {
  if (const auto n = point.numbers.find(name); n != point.numbers.end()) return n->second;
  if (const auto w = point.words.find(name); w != point.words.end()) return w->second;
  return std::monostate{};
}

FlatTable flat_table(const std::vector<Row>& rows) {
  FlatTable t;
  t.columns = {"file", "case", "id", "parameters", "quantity", "order", "mu", "nu", "exact", "exact_lower", "exact_upper",
               "error_kind", "method", "cross_check", "bound", "bound_over_exact", "verdict", "reason", "note"};
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
  const double none = std::numeric_limits<double>::quiet_NaN();
  for (const Row& r : rows) {
    // The order as a number beside the quantity's label: alpha of renyi(alpha), eps of hockey_stick(eps).
    const Cell order = std::isnan(r.order) ? Cell(std::monostate{}) : Cell(r.order);
    std::vector<Cell> cells = {r.file, r.case_name, r.id, r.params.describe(), r.quantity(), order, r.mu, r.nu, r.exact.value,
                               r.exact.lower, r.exact.upper, to_string(r.exact.error_kind), r.exact.method,
                               r.cross ? r.cross->value : none, r.bound, r.ratio(), to_string(r.verdict), r.reason, r.note};
    for (const auto& name : names) cells.push_back(parameter_cell(r.params, name));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

json to_json(const Row& r) {
  json j = {{"file", r.file},         {"case", r.case_name},
            {"id", r.id},             {"parameters", to_json(r.params)},
            {"quantity", r.quantity()}, {"order", json_number(r.order)},
            {"mu", r.mu},             {"nu", r.nu},
            {"exact", to_json(r.exact)}};
  if (r.divergence) j["divergence"] = {{"kind", quantity_name(r.divergence->kind)}, {"order", r.divergence->parameter}};
  if (r.cross) j["cross_check"] = to_json(*r.cross);
  // A row is reproducible: an engine's timing is not part of it.
  j["exact"].erase("seconds");
  if (r.cross) j["cross_check"].erase("seconds");
  j["bound"] = json_number(r.bound);
  if (!std::isnan(r.bound_lower) || !std::isnan(r.bound_upper)) {
    j["bound_lower"] = json_number(r.bound_lower);
    j["bound_upper"] = json_number(r.bound_upper);
  }
  j["bound_over_exact"] = json_number(r.ratio());
  j["verdict"] = to_string(r.verdict);
  j["reason"] = r.reason;
  j["note"] = r.note;
  if (!r.outside.empty()) j["outside"] = r.outside;
  return j;
}

Row row_from_json(const json& j) {
  Row r;
  r.file = j.at("file").get<std::string>();
  r.case_name = j.at("case").get<std::string>();
  r.id = j.at("id").get<std::string>();
  r.params = params_from_json(j.at("parameters"));
  if (j.contains("divergence")) {
    const auto kind = parse_quantity_kind(j.at("divergence").at("kind").get<std::string>());
    if (!kind) throw InvalidArgument(fmt::format("unknown divergence {}", j.at("divergence").dump()));
    r.divergence = Quantity::of(*kind, j.at("divergence").at("order").get<double>());
  } else {
    r.what = j.at("quantity").get<std::string>();
  }
  r.order = number_at(j, "order");
  r.mu = j.at("mu").get<std::string>();
  r.nu = j.at("nu").get<std::string>();
  r.exact = estimate_from_json(j.at("exact"));
  if (j.contains("cross_check")) r.cross = estimate_from_json(j.at("cross_check"));
  r.bound = number_at(j, "bound");
  r.bound_lower = number_at(j, "bound_lower");
  r.bound_upper = number_at(j, "bound_upper");
  r.verdict = parse_verdict(j.at("verdict").get<std::string>());
  r.reason = j.at("reason").get<std::string>();
  r.note = j.at("note").get<std::string>();
  r.outside = j.value("outside", std::string());
  return r;
}

json golden_json(const Row& r) {
  return {{"key", r.key()},
          {"case", r.case_name},
          {"id", r.id},
          {"parameters", to_json(r.params)},
          {"value", json_number(r.exact.value)},
          {"lower", json_number(r.exact.lower)},
          {"upper", json_number(r.exact.upper)},
          {"bound", json_number(r.bound)},
          {"verdict", to_string(r.verdict)}};
}

GoldenRow golden_from_json(const json& j) {
  if (!j.is_object()) throw InvalidArgument("not a table");
  const auto text = [&](const char* k) {
    if (!j.contains(k) || !j.at(k).is_string()) throw InvalidArgument(fmt::format("no text '{}'", k));
    return j.at(k).get<std::string>();
  };
  const auto number = [&](const char* k) {
    if (!j.contains(k)) throw InvalidArgument(fmt::format("no '{}'", k));
    return number_from_json(j.at(k));
  };
  return {text("key"), text("id"), text("verdict"), number("value"), number("lower"), number("upper")};
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
    return std::isfinite(x) ? t : Tree(json_number(x));
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
