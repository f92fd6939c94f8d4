// The law-expression language, its first half: parameters (Params), the parser from text to a tree, the checks a
// tree passes before any point is known, and the error at a column. Evaluation is language.cpp.
#include "sim/laws/language.hpp"

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
#include "sim/laws/expression.hpp"
#include "sim/laws/language_internal.hpp"
#include "sim/laws/node.hpp"
#include "sim/formulas/certify.hpp"

namespace privamp::sim {

double Params::at(const std::string& name) const {
  const auto it = numbers.find(name);
  if (it == numbers.end()) throw InvalidArgument(fmt::format("missing numeric parameter '{}'", name));
  return it->second;
}

const std::string& Params::word(const std::string& name) const {
  const auto it = words.find(name);
  if (it == words.end()) throw InvalidArgument(fmt::format("missing word parameter '{}'", name));
  return it->second;
}

std::string Params::describe() const {
  std::string out;
  for (const auto& [k, v] : numbers) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, format_number(v));
  for (const auto& [k, v] : words) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, v);
  return out;
}

void expression_error(const std::string& label, const std::string& text, std::size_t column, const std::string& why) {
  // The text around the column (at most 60 characters each side), with a caret under it.
  const std::size_t from = column > 60 ? column - 60 : 0, to = std::min(text.size(), column + 60);
  const std::string before = from > 0 ? "..." : "", after = to < text.size() ? "..." : "";
  throw InvalidArgument(fmt::format("{}, column {}: {}\n  {}{}{}\n  {}^", label, column + 1, why, before,
                                    text.substr(from, to - from), after, std::string(before.size() + column - from, ' ')));
}

std::string work_limit_message(double work) {
  return fmt::format("about {:.3g} steps of work for one evaluation; the limit is {:.0e} (each divergence call counts "
                     "{:.0e}, each certified constant {:.0e}): use fewer terms in sum()",
                     work, static_cast<double>(kMaxFormulaWork), static_cast<double>(kDivergenceWork),
                     static_cast<double>(kCertifyWork));
}

namespace {

// ------------------------------------------------------------------------------------------------------------------
// Parsing

class Parser {
 public:
  Parser(std::string_view text, const std::string& label) : s_(text), label_(label) {}

  NodePtr parse() {
    if (s_.size() > kMaxExpressionLength)
      throw InvalidArgument(fmt::format("{}: {} characters; an expression has at most {}", label_, s_.size(), kMaxExpressionLength));
    NodePtr n = comparison();
    skip();
    if (pos_ != s_.size()) fail(label_ == "law expression" ? "unexpected text after the law" : "unexpected text");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& why, std::optional<std::size_t> at = std::nullopt) const {
    fail_at(label_, std::string(s_), at.value_or(pos_), why);
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool eat(std::string_view op) {
    skip();
    if (s_.substr(pos_).starts_with(op)) {
      pos_ += op.size();
      return true;
    }
    return false;
  }
  bool at_name() {
    skip();
    return pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_');
  }
  std::string name() {
    skip();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  // Bounds the recursion: nesting deeper than kMaxExpressionDepth is refused.
  struct Nest {
    explicit Nest(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxExpressionDepth)
        parser.fail(fmt::format("nesting deeper than {} levels of brackets and calls", kMaxExpressionDepth));
    }
    ~Nest() { --parser.depth_; }
    Parser& parser;
  };
  // Every node is made here: a tree higher than kMaxTreeHeight (deep brackets, or long flat chains such as
  // 0+0+…+0, which are one level per operator) is refused before it is built, so that nothing that walks the
  // tree (checks, evaluation, destruction) recurses deeper than that.
  NodePtr make(Node n) const {
    for (const auto& a : n.args) n.height = std::max(n.height, a->height + 1);
    if (n.height > kMaxTreeHeight)
      fail(fmt::format("the expression is more than {} levels deep (each operator of a chain such as a+b+c+... counts one "
                       "level): split it, e.g. with sum(k, from, to, expr)", kMaxTreeHeight),
           n.column);
    return std::make_shared<const Node>(std::move(n));
  }

  NodePtr comparison() {
    NodePtr a = sum();
    skip();
    const std::size_t at = pos_;
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (eat(std::string_view(op))) {
        Node n{Node::Kind::compare, at, 0, op, {a, sum()}, {}};
        return make(std::move(n));
      }
    return a;
  }
  NodePtr sum() {
    NodePtr v = product();
    for (;;) {
      skip();
      const std::size_t at = pos_;
      if (eat('+')) v = make({Node::Kind::binary, at, 0, "+", {v, product()}, {}});
      else if (eat('-')) v = make({Node::Kind::binary, at, 0, "-", {v, product()}, {}});
      else return v;
    }
  }
  NodePtr product() {
    NodePtr v = unary();
    for (;;) {
      skip();
      const std::size_t at = pos_;
      if (eat('*')) v = make({Node::Kind::binary, at, 0, "*", {v, unary()}, {}});
      else if (eat('/')) v = make({Node::Kind::binary, at, 0, "/", {v, unary()}, {}});
      else return v;
    }
  }
  NodePtr unary() {
    skip();
    const std::size_t at = pos_;
    if (eat('-')) {
      const Nest nest(*this);
      return make({Node::Kind::negate, at, 0, "-", {unary()}, {}});
    }
    if (eat('+')) {
      const Nest nest(*this);
      return unary();
    }
    NodePtr base = atom();
    skip();
    const std::size_t op = pos_;
    if (eat('^')) {  // right-associative
      const Nest nest(*this);
      return make({Node::Kind::binary, op, 0, "^", {base, unary()}, {}});
    }
    return base;
  }
  NodePtr atom() {
    const Nest nest(*this);
    skip();
    const std::size_t at = pos_;
    if (pos_ >= s_.size()) fail("expected a value");
    if (eat('(')) {
      NodePtr v = comparison();
      if (!eat(')')) fail("expected ')'");
      return v;
    }
    if (eat('{')) {
      NodePtr v = comparison();
      if (!eat('}')) fail("expected '}'");
      return v;
    }
    if (eat('[')) {
      Node list{Node::Kind::list, at, 0, "", {}, {}};
      if (!eat(']')) {
        do list.args.push_back(comparison());
        while (eat(','));
        if (!eat(']')) fail("expected ',' or ']'");
      }
      return make(std::move(list));
    }
    if (s_[pos_] == '"' || s_[pos_] == '\'') {  // a quoted text: a formula given as text, or a word
      const char quote = s_[pos_];
      const std::size_t close = s_.find(quote, pos_ + 1);
      if (close == std::string_view::npos) fail(fmt::format("a text opened with {} is not closed", quote));
      Node t{Node::Kind::text, at, 0, std::string(s_.substr(pos_ + 1, close - pos_ - 1)), {}, {}};
      pos_ = close + 1;
      return make(std::move(t));
    }
    if (at_name()) {
      const std::string id = name();
      if (id == "inf" || id == "nan" || id == "infinity") fail("numbers must be finite", at);
      if (!eat('(')) return make({Node::Kind::name, at, 0, id, {}, {}});
      Node call{Node::Kind::call, at, 0, id, {}, {}};
      if (!eat(')')) {
        do {
          skip();
          const std::size_t mark = pos_;
          std::string key;
          if (at_name()) {  // NAME '=' (not '==') names the argument
            const std::string maybe = name();
            skip();
            if (pos_ < s_.size() && s_[pos_] == '=' && (pos_ + 1 >= s_.size() || s_[pos_ + 1] != '=')) {
              ++pos_;
              key = maybe;
            } else {
              pos_ = mark;
            }
          }
          call.keys.push_back(key);
          call.args.push_back(comparison());
        } while (eat(','));
        if (!eat(')')) fail("expected ',' or ')'");
      }
      return make(std::move(call));
    }
    double x = 0;
    const auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), x);
    if (ec == std::errc::result_out_of_range)
      fail("number out of the range of doubles (allowed: |x| <= 1.8e308, and 0 or |x| >= 2.2e-308)", at);
    if (ec != std::errc() || ptr == s_.data() + pos_) fail("expected a number, a name, a law, a list [..] or '('");
    pos_ = static_cast<std::size_t>(ptr - s_.data());
    if (!std::isfinite(x)) fail("numbers must be finite", at);
    return make({Node::Kind::number, at, x, "", {}, {}});
  }

  std::string_view s_;
  const std::string& label_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};


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
  e->root_ = Parser(e->text_, e->label_).parse();
  validate(*e, *e->root_);
  return e;
}

}  // namespace privamp::sim
