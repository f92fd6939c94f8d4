// What the language's two halves share (grammar.cpp parses and validates, language.cpp evaluates): the names of
// laws and functions, and the error at a column. Internal to sim/laws/.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/language/expression.hpp"
#include "sim/language/language.hpp"
#include "sim/formulas/functions.hpp"
#include "sim/syntax/node.hpp"

namespace privamp::sim {

using NodePtr = std::shared_ptr<const Node>;

[[noreturn]] inline void fail_at(const std::string& label, const std::string& text, std::size_t column, const std::string& why) {
  expression_error(label, text, column, why);
}

inline const LawSpec* find_law(const std::string& name) {
  for (const LawSpec& spec : law_catalogue())
    if (spec.name == name) return &spec;
  return nullptr;
}

// The functions of the table (sim/formulas/functions.hpp), then the language's own forms.
inline const std::vector<std::string>& function_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Function& f : kFunctions) v.emplace_back(f.name);
    for (const char* form : {"if", "sum", "default", "lipschitz", "gradient_bound", "smoothness", "strong_convexity",
                             "renyi", "hockey_stick", "kl", "tv", "renyi_inf"})
      v.emplace_back(form);
    return v;
  }();
  return names;
}

inline bool is_divergence(const std::string& f) { return parse_divergence(f).has_value(); }

inline bool is_certified_constant(const std::string& f) {
  return f == "lipschitz" || f == "gradient_bound" || f == "smoothness" || f == "strong_convexity";
}

}  // namespace privamp::sim
