// The law-expression language, its first half: the checks a parsed tree (sim/syntax/) passes before any point is known
// (every call names a law of the catalogue or a function, laws' argument names). Evaluation is language.cpp.
#include "sim/language/language.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "sim/language/expression.hpp"
#include "sim/language/language_internal.hpp"
#include "sim/syntax/node.hpp"
#include "sim/formulas/certify.hpp"

namespace privamp::sim {

std::string work_limit_message(double work) {
  if (std::isinf(work))
    return fmt::format("its work could not be estimated within 100,000 steps (sums nested so deep, with bounds that name "
                       "outer indices, that even their estimate is refused); the limit is {:.0e} steps: nest fewer sum()s",
                       static_cast<double>(kMaxFormulaWork));
  return fmt::format("about {:.3g} steps of work for one evaluation; the limit is {:.0e} (each divergence call counts "
                     "{:.0e}, each certified constant {:.0e}): use fewer terms in sum()",
                     work, static_cast<double>(kMaxFormulaWork), static_cast<double>(kDivergenceWork),
                     static_cast<double>(kCertifyWork));
}

namespace {

// What can be checked without a point, over every branch (an untaken if() branch and an empty sum are never
// evaluated, but a typo there is still an error): every call names a law or a function, a divergence's first two
// arguments are laws, a law's named arguments exist and its positional ones are not too many.
void validate_node(const std::string& label, const std::string& text, const Node& n) {
  if (n.kind == Node::Kind::call) {
    const LawSpec* spec = find_law(n.text);
    const auto& functions = function_names();
    if (!spec && std::find(functions.begin(), functions.end(), n.text) == functions.end()) {
      std::vector<std::string> laws;
      for (const LawSpec& l : law_catalogue()) laws.push_back(l.name);
      fail_at(label, text, n.column,
              label == "law expression"
                  ? fmt::format("unknown law '{}' ({}known: {})", n.text, did_you_mean(n.text, laws), fmt::join(laws, ", "))
                  : fmt::format("unknown function '{}' ({}functions: {}; laws: see privamp laws)", n.text,
                                did_you_mean(n.text, functions), fmt::join(functions, ", ")));
    }
    if (is_divergence(n.text))
      for (std::size_t i = 0; i < std::min<std::size_t>(2, n.args.size()); ++i) {
        const Node& a = *n.args[i];
        if (a.kind != Node::Kind::call || !find_law(a.text))
          fail_at(label, text, a.column, fmt::format("'{}' is not a law (see privamp laws)", a.kind == Node::Kind::call || a.kind == Node::Kind::name ? a.text : "this"));
      }
    if (spec && !spec->variadic) {
      std::size_t positional = 0;
      for (std::size_t i = 0; i < n.args.size(); ++i) {
        if (n.keys[i].empty()) {
          if (++positional > spec->params.size())
            fail_at(label, text, n.args[i]->column, fmt::format("{} takes at most {} arguments", spec->name, spec->params.size()));
          continue;
        }
        if (std::none_of(spec->params.begin(), spec->params.end(), [&](const ParamSpec& p) { return p.name == n.keys[i]; })) {
          std::vector<std::string> names;
          for (const ParamSpec& p : spec->params) names.push_back(p.name);
          fail_at(label, text, n.args[i]->column,
                  fmt::format("unknown parameter '{}' for {} ({}parameters: {})", n.keys[i], spec->name,
                              did_you_mean(n.keys[i], names), fmt::join(names, ", ")));
        }
      }
    }
  }
  for (const auto& a : n.args) validate_node(label, text, *a);
}

}  // namespace

void Expression::validate(const Expression& e, const Node& root) { validate_node(e.label_, e.text_, root); }

std::shared_ptr<const Expression> Expression::parse(std::string_view text, std::string label) {
  std::shared_ptr<Expression> e(new Expression());
  e->text_ = std::string(text);
  e->label_ = std::move(label);
  e->root_ = parse_tree(e->text_, e->label_);
  validate(*e, *e->root_);
  return e;
}

}  // namespace privamp::sim
