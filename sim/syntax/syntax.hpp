// The syntax of privamp's expression language, below everything that gives it meaning: a point's parameters
// (Params), the parser from text to a tree (node.hpp) and the error at a column. The language (sim/language/) checks
// names against the law catalogue and evaluates; the compiled formulas (sim/formulas/) compile the same trees.
//
//   expr     := sum [('<' | '<=' | '>' | '>=' | '==' | '!=') sum]
//   sum      := product {('+' | '-') product}
//   product  := unary {('*' | '/') unary}
//   unary    := ('-' | '+') unary | power
//   power    := atom ['^' unary]                                          right-associative
//   atom     := NUMBER | NAME | NAME '(' [arg {',' arg}] ')' | '(' expr ')' | '{' expr '}' | '[' [expr {',' expr}] ']'
//               | '"' text '"'
//   arg      := [NAME '='] expr
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "sim/syntax/node.hpp"

namespace privamp::sim {

// The parameters of a point: numbers and words (e.g. noise = "laplace") by name.
struct Params {
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> words;

  double at(const std::string& name) const;  // InvalidArgument naming the missing parameter
  const std::string& word(const std::string& name) const;
  bool has(const std::string& name) const { return numbers.count(name) || words.count(name); }
  std::string describe() const;  // "alpha=2, delta=1, noise=laplace"
};

// Nesting depth of brackets and calls that the parser accepts.
inline constexpr int kMaxExpressionDepth = 64;
// Height of an expression's tree (brackets, calls and each operator of a chain count one level) and its text's
// length: larger inputs are refused with a message naming the limit, so that no input length sets the depth of a
// recursion.
inline constexpr int kMaxTreeHeight = 256;
inline constexpr std::size_t kMaxExpressionLength = 1'000'000;

// The tree of `text`; InvalidArgument naming `label` ("law expression", "formula") and the column on a syntax error.
std::shared_ptr<const Node> parse_tree(std::string_view text, const std::string& label);

// An error in the text of an expression: InvalidArgument naming `label` and the column, with the text around it and
// a caret under the column.
[[noreturn]] void expression_error(const std::string& label, const std::string& text, std::size_t column,
                                   const std::string& why);

}  // namespace privamp::sim
