// The one serialiser of results: estimates, parameters and rows to keyed JSON and back. results.json, the API (and
// through it Python), and the rows that processes exchange under MPI (as CBOR, which keeps every double bit for bit)
// are written by these functions and read by their inverses. Non-finite numbers are "inf" / "-inf" strings and null
// for NaN (JSON has no literal for them).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "verify/runner/runner.hpp"

namespace privamp::verify {

nlohmann::json json_number(double x);
double number_from_json(const nlohmann::json& j);  // inverse of json_number (InvalidArgument on anything else)

nlohmann::json to_json(const Estimate& e);
Estimate estimate_from_json(const nlohmann::json& j);
// Parameters as one object: numbers as numbers, words as strings.
nlohmann::json to_json(const Params& p);
Params params_from_json(const nlohmann::json& j);
// A row: case, ID, parameters, quantity, laws, the exact value with its interval and second route, the bound with
// its interval, bound/exact, verdict, reason, note, and where a hypothesis was ignored.
nlohmann::json to_json(const Row& r);
Row row_from_json(const nlohmann::json& j);

// Rows of several tasks as bytes, for runs spread over processes: each process encodes the rows of its tasks, the
// first decodes and reassembles them in task order, so that its report is identical to a one-process run.
using TaskRows = std::vector<std::pair<std::size_t, std::vector<Row>>>;  // (task index, its rows)
std::vector<std::uint8_t> encode_rows(const TaskRows& rows);
TaskRows decode_rows(const std::vector<std::uint8_t>& bytes);

}  // namespace privamp::verify
