// Parsing of quantity lists on the command line: "0.5", "1,2,4", ranges "a:b:step" (inclusive, linear) and
// "a:b:xN" (N points spaced evenly in log scale), and "inf" where a supremum is meant.
#pragma once

#include <string>
#include <vector>

namespace privamp::cli {

std::vector<double> parse_number_list(const std::string& text, const std::string& flag);

}  // namespace privamp::cli
