// The one serialiser of results, generated from the field lists of fields.hpp: estimates, parameters and rows to
// keyed JSON and back, golden rows, and rows as the flat table of results.csv and Python. results.json and the
// golden files, the API (and through it Python), and the rows that processes exchange under MPI (as CBOR, which
// keeps every double bit for bit) are written by these functions and read by their inverses. Non-finite numbers
// are "inf" / "-inf" strings and null for NaN (JSON has no literal for them).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "verify/records/fields.hpp"
#include "verify/records/row.hpp"

namespace privamp::verify {

nlohmann::json json_number(double x);
// A JSON value as an error message shows it: a scalar as written (a long text cut at 40 bytes), a list or table by
// its size (never the whole of an untrusted value).
std::string describe_json(const nlohmann::json& j);
double number_from_json(const nlohmann::json& j);  // inverse of json_number (InvalidArgument on anything else)

// An estimate's fields (fields.hpp); with_timing = false leaves out its timing (a row is reproducible).
nlohmann::json to_json(const Estimate& e, bool with_timing = true);
// An estimate's error budget as a keyed record ({"quadrature": 1.2e-12, ...}, in the order the parts were added;
// J is nlohmann::json or the API's ordered Tree) and back.
// rule: FieldRule::budget (the amounts, null below the double range) or FieldRule::log_budget (their logs).
template <class J = nlohmann::json>
J budget_json(const ErrorBudget& budget, FieldRule rule = FieldRule::budget) {
  J o = J::object();
  for (const ErrorTerm& t : budget) {  // (finite: add_error keeps no other)
    if (rule == FieldRule::log_budget) o[to_string(t.part)] = t.log_amount;
    else if (t.amount > 0) o[to_string(t.part)] = t.amount;
    else o[to_string(t.part)] = nullptr;
  }
  return o;
}
// Reads error_budget (rule budget) into `budget`, or log_error_budget's logs (rule log_budget) into the parts read.
void budget_from_json(const nlohmann::json& j, FieldRule rule, ErrorBudget& budget);
Estimate estimate_from_json(const nlohmann::json& j);
// Parameters as one object: numbers as numbers, words as strings.
nlohmann::json to_json(const Params& p);
Params params_from_json(const nlohmann::json& j);
// A row: case, ID, parameters, quantity, laws, the exact value with its interval and second route, the bound with
// its interval, bound/exact, verdict, reason, note, and where a hypothesis was ignored.
nlohmann::json to_json(const Row& r);
Row row_from_json(const nlohmann::json& j);

// Golden rows (fields.hpp): golden_from_json checks a row read back: InvalidArgument naming the first missing or
// mistyped field.
nlohmann::json golden_json(const Row& r);
GoldenRow golden_from_json(const nlohmann::json& j);

// The rows as one flat table (what results.csv holds and Python's verify returns): the columns of the row's field
// list (fields.hpp), then one column per parameter over all rows, sorted by name ("param_" before a name that is also
// a fixed column). A cell is empty (a row without that parameter, a field written only where set), a number (NaN
// where undefined) or a text.
struct FlatTable {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};
FlatTable flat_table(const std::vector<Row>& rows);
// A parameter of a point as a cell: its number, its word, or empty where the point has no such parameter.
Cell parameter_cell(const Params& point, const std::string& name);
// A result as a tree built once and rendered twice (explore's searches and frontiers): ordered JSON in memory, whose
// numbers keep their non-finite values (NaN, ±inf) so that Python receives them as floats. A table becomes a list of
// records, one key per column in the columns' order (an empty cell is null). json_text writes the tree as a file
// holds it: non-finite numbers as json_number writes them.
Tree table_records(const FlatTable& t);
std::string json_text(const Tree& tree);
// The tree as keyed JSON (keys sorted, as every other JSON privamp prints), non-finite numbers as json_number writes
// them.
nlohmann::json sorted_json(const Tree& tree);
// Rows of several tasks as bytes, for runs spread over processes: each process encodes the rows of its tasks, the
// first decodes and reassembles them in task order, so that its report is identical to a one-process run.
using TaskRows = std::vector<std::pair<std::size_t, std::vector<Row>>>;  // (task index, its rows)
std::vector<std::uint8_t> encode_rows(const TaskRows& rows);
TaskRows decode_rows(const std::vector<std::uint8_t>& bytes);

}  // namespace privamp::verify
