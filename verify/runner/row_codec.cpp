#include "verify/runner/row_codec.hpp"

#include <nlohmann/json.hpp>

namespace privamp::verify {

namespace {

using nlohmann::json;

json encode(const Estimate& e) {
  return json::array({e.value, e.lower, e.upper, e.log_value, e.log_lower, e.log_upper, static_cast<int>(e.error_kind), e.level,
                      e.method, e.work, e.numerical_error, e.discretisation_error, e.seconds});
}

Estimate decode_estimate(const json& j) {
  Estimate e;
  e.value = j[0];
  e.lower = j[1];
  e.upper = j[2];
  e.log_value = j[3];
  e.log_lower = j[4];
  e.log_upper = j[5];
  e.error_kind = static_cast<ErrorKind>(j[6].get<int>());
  e.level = j[7];
  e.method = j[8];
  e.work = j[9];
  e.numerical_error = j[10];
  e.discretisation_error = j[11];
  e.seconds = j[12];
  return e;
}

json encode(const Row& r) {
  json j = {{"file", r.file}, {"case", r.case_name}, {"id", r.id}, {"numbers", r.params.numbers}, {"words", r.params.words},
            {"quantity", r.quantity}, {"order", r.order}, {"mu", r.mu}, {"nu", r.nu}, {"exact", encode(r.exact)},
            {"bound", r.bound}, {"bound_lower", r.bound_lower}, {"bound_upper", r.bound_upper}, {"note", r.note},
            {"verdict", static_cast<int>(r.verdict)}, {"reason", r.reason}, {"outside", r.outside}};
  if (r.cross) j["cross"] = encode(*r.cross);
  return j;
}

Row decode_row(const json& j) {
  Row r;
  r.file = j["file"];
  r.case_name = j["case"];
  r.id = j["id"];
  r.params.numbers = j["numbers"].get<std::map<std::string, double>>();
  r.params.words = j["words"].get<std::map<std::string, std::string>>();
  r.quantity = j["quantity"];
  r.order = j["order"];
  r.mu = j["mu"];
  r.nu = j["nu"];
  r.exact = decode_estimate(j["exact"]);
  if (j.contains("cross")) r.cross = decode_estimate(j["cross"]);
  r.bound = j["bound"];
  r.bound_lower = j["bound_lower"];
  r.bound_upper = j["bound_upper"];
  r.note = j["note"];
  r.verdict = static_cast<Verdict>(j["verdict"].get<int>());
  r.reason = j["reason"];
  r.outside = j["outside"];
  return r;
}

}  // namespace

std::vector<std::uint8_t> encode_rows(const TaskRows& rows) {
  json all = json::array();
  for (const auto& [task, list] : rows) {
    json t = json::array();
    for (const Row& r : list) t.push_back(encode(r));
    all.push_back({task, t});
  }
  return json::to_cbor(all);
}

TaskRows decode_rows(const std::vector<std::uint8_t>& bytes) {
  TaskRows out;
  for (const json& t : json::from_cbor(bytes)) {
    std::vector<Row> list;
    for (const json& r : t[1]) list.push_back(decode_row(r));
    out.emplace_back(t[0].get<std::size_t>(), std::move(list));
  }
  return out;
}

}  // namespace privamp::verify
