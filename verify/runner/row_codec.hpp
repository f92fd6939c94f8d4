// Rows as bytes (CBOR, which keeps every double bit for bit, infinities and NaN included), for runs spread over
// processes: each process encodes the rows of its tasks, the first process decodes and reassembles them in task
// order, so that its report is identical to a one-process run.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "verify/runner/runner.hpp"

namespace privamp::verify {

using TaskRows = std::vector<std::pair<std::size_t, std::vector<Row>>>;  // (task index, its rows)

std::vector<std::uint8_t> encode_rows(const TaskRows& rows);
TaskRows decode_rows(const std::vector<std::uint8_t>& bytes);

}  // namespace privamp::verify
