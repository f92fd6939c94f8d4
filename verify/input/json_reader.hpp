// JSON text privamp reads from users (kernels given as JSON, golden files), checked before it is parsed: brackets
// nested at most kMaxJsonNesting deep, no key twice in one object (nlohmann keeps the last without a word), no number
// that the doubles cannot hold (nlohmann reads 1e-400 as 0). A SAX pass that builds nothing, then the parse.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace privamp::verify {

// InvalidArgument ("K: the key \"K\" appears twice in one table", "K: number 1e-400 is out of the range of doubles
// (...)") for the checks above, `what` naming the input. Malformed JSON passes the checks and
// throws nlohmann's parse_error from the parse. Subnormal numbers (below 2.2e-308, which keep few digits) are refused
// too unless `subnormals` (golden files record what was computed, down to the last subnormal).
nlohmann::json parse_json_input(std::string_view what, const std::string& text, bool subnormals = false);

}  // namespace privamp::verify
