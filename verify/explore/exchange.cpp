#include "verify/explore/exchange.hpp"

#include <string>

#include "verify/records/codec.hpp"

namespace privamp::verify {

namespace {

// What of an evaluation travels between processes: its row through the codec (the one field list of results), and
// the search's own readings of it.
nlohmann::json evaluation_to_json(const Evaluation& e) {
  return {{"u", e.u},
          {"point", verify::to_json(e.point)},
          {"row", verify::to_json(e.row)},
          {"status", to_string(e.status)},
          {"slack", json_number(e.slack)},
          {"in_region", e.in_region},
          {"degenerate", e.degenerate}};
}

Evaluation evaluation_from_json(const nlohmann::json& j) {
  Evaluation e;
  e.u = j.at("u").get<std::vector<double>>();
  e.point = params_from_json(j.at("point"));
  e.row = row_from_json(j.at("row"));
  const std::string status = j.at("status").get<std::string>();
  for (auto s : {Evaluation::Status::ok, Evaluation::Status::not_applicable, Evaluation::Status::error,
                 Evaluation::Status::exact_zero, Evaluation::Status::exact_underflow, Evaluation::Status::bound_infinite,
                 Evaluation::Status::bound_underflow, Evaluation::Status::exact_bounded_above})
    if (to_string(s) == status) e.status = s;
  e.slack = number_from_json(j.at("slack"));
  e.in_region = j.at("in_region").get<bool>();
  e.degenerate = j.at("degenerate").get<std::string>();
  return e;
}

}  // namespace

std::vector<std::vector<std::vector<Evaluation>>> exchange_evaluations(const Communicator& c, const std::vector<std::vector<Evaluation>>& mine) {
  nlohmann::json lists = nlohmann::json::array();
  for (const auto& list : mine) {
    nlohmann::json l = nlohmann::json::array();
    for (const Evaluation& e : list) l.push_back(evaluation_to_json(e));
    lists.push_back(std::move(l));
  }
  std::vector<std::vector<std::vector<Evaluation>>> out;
  for (const auto& bytes : c.all_gather(nlohmann::json::to_cbor(lists))) {
    auto& theirs = out.emplace_back();
    for (const auto& l : nlohmann::json::from_cbor(bytes)) {
      auto& list = theirs.emplace_back();
      for (const auto& e : l) list.push_back(evaluation_from_json(e));
    }
  }
  return out;
}

}  // namespace privamp::verify
