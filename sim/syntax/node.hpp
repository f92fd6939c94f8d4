// The tree of the expression language (language.hpp): what the parser builds and the evaluators walk. Its height
// is bounded by the parser (kMaxTreeHeight), so walks may recurse.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
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
};

}  // namespace privamp::sim
