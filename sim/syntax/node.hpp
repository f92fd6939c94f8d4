// The tree of the expression language (language.hpp): what the parser builds and the evaluators walk. Its height
// is bounded by the parser (kMaxTreeHeight), so walks may recurse.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace privamp::sim {

struct Node {
  enum class Kind { number, name, text, negate, binary, compare, call, list };
  Kind kind = Kind::number;
  std::size_t column = 0;
  double number = 0;
  std::string text;                 // a name, a quoted text, an operator, or the called law or function
  std::vector<std::shared_ptr<const Node>> args;
  std::vector<std::string> keys;    // a call's argument names ("" for positional ones)
  int height = 1;                   // levels of the tree below and including this node
  bool rounded = false;             // a number literal whose decimal value is not `number` (0.1): the language's
                                    // numbers enclose it by its neighbouring doubles (formulas of x use the double)
};

// Whether the decimal literal `text` (digits, an optional point and exponent, as the parser reads numbers) has
// exactly the value x (the double it was read as): its exact decimal expansion is compared digit by digit.
bool decimal_is_exact(std::string_view text, double x);

}  // namespace privamp::sim
