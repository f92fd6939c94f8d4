#include "sim/syntax/syntax.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp::sim {

using NodePtr = std::shared_ptr<const Node>;

namespace {

// A decimal number as its significant digits (no leading or trailing zeros) and the power of ten of the first one.
struct Decimal {
  std::string digits;
  long exponent = 0;
};

Decimal normalised(std::string_view text) {
  Decimal d;
  long point = 0, exponent = 0;
  bool seen_point = false;
  std::size_t i = 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.') {
      seen_point = true;
      continue;
    }
    if (text[i] < '0' || text[i] > '9') continue;
    if (d.digits.empty() && text[i] == '0') {  // a leading zero
      if (seen_point) --point;
      continue;
    }
    d.digits += text[i];
    if (!seen_point) ++point;
  }
  if (i < text.size()) {
    const std::string_view e = text.substr(i + 1);
    const bool negative = !e.empty() && e[0] == '-';
    for (char c : e)
      if (c >= '0' && c <= '9') exponent = std::min(exponent * 10 + (c - '0'), 100000L);
    if (negative) exponent = -exponent;
  }
  while (!d.digits.empty() && d.digits.back() == '0') d.digits.pop_back();
  d.exponent = d.digits.empty() ? 0 : exponent + point - 1;
  return d;
}

}  // namespace

bool decimal_is_exact(std::string_view text, double x) {
  const Decimal literal = normalised(text);
  if (x == 0) return literal.digits.empty();
  // A double's exact decimal expansion has at most 767 significant digits; fmt prints them exactly.
  const Decimal exact = normalised(fmt::format("{:.780e}", std::fabs(x)));
  return literal.digits == exact.digits && literal.exponent == exact.exponent;
}

double Params::at(const std::string& name) const {
  const auto it = numbers.find(name);
  if (it == numbers.end()) invalid_input("missing numeric parameter '{}'", name);
  return it->second;
}

const std::string& Params::word(const std::string& name) const {
  const auto it = words.find(name);
  if (it == words.end()) invalid_input("missing word parameter '{}'", name);
  return it->second;
}

std::string Params::describe() const {
  std::string out;
  for (const auto& [k, v] : numbers) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, format_number(v));
  // A word that could be read as more than one (a comma, '=', '|', a quote, spaces at its ends, or a number) is quoted, its quotes
  // and backslashes escaped: a = ["x, b=y", "x"] against b = ["z", "y, b=z"] gave two rows one key ("a=x, b=y, b=z").
  const auto word = [](const std::string& v) {
    char* end = nullptr;
    const bool number = !v.empty() && (std::strtod(v.c_str(), &end), end == v.c_str() + v.size());  // (the word "1" is not 1)
    const bool plain = !number && v.find_first_of(",=|\"\\") == std::string::npos && !v.empty() && v.front() != ' ' && v.back() != ' ';
    if (plain) return v;
    std::string q = "\"";
    for (char c : v) q += c == '"' || c == '\\' ? std::string{'\\', c} : std::string(1, c);
    return q + "\"";
  };
  for (const auto& [k, v] : words) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, word(v));
  return out;
}

void expression_error(const std::string& label, const std::string& text, std::size_t column, const std::string& why) {
  // The text around the column (at most 60 characters each side), with a caret under it.
  const std::size_t from = column > 60 ? column - 60 : 0, to = std::min(text.size(), column + 60);
  const std::string before = from > 0 ? "..." : "", after = to < text.size() ? "..." : "";
  invalid_input("{}, column {}: {}\n  {}{}{}\n  {}^", label, column + 1, why, before,
                text.substr(from, to - from), after, std::string(before.size() + column - from, ' '));
}

namespace {

// ------------------------------------------------------------------------------------------------------------------
// Parsing

class Parser {
 public:
  Parser(std::string_view text, const std::string& label) : s_(text), label_(label) {}

  NodePtr parse() {
    if (s_.size() > kMaxExpressionLength)
      invalid_input("{}: {} characters; an expression has at most {}", label_, s_.size(), kMaxExpressionLength);
    NodePtr n = comparison();
    skip();
    if (pos_ != s_.size()) fail(label_ == "law expression" ? "unexpected text after the law" : "unexpected text");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& why, std::optional<std::size_t> at = std::nullopt) const {
    expression_error(label_, std::string(s_), at.value_or(pos_), why);
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
    // (subnormals are read: a law's parameters may be as small as doubles go, and the engines keep their digits in
    // logs; the command line's options, which name amounts, refuse them: numerics/errors.hpp)
    if (ec == std::errc::result_out_of_range)
      fail("number out of the range of doubles (allowed: |x| <= 1.8e308, and 0 or |x| >= 4.9e-324)", at);
    if (ec != std::errc() || ptr == s_.data() + pos_) fail("expected a number, a name, a law, a list [..] or '('");
    pos_ = static_cast<std::size_t>(ptr - s_.data());
    if (!std::isfinite(x)) fail("numbers must be finite", at);
    Node number{Node::Kind::number, at, x, "", {}, {}};
    number.rounded = !decimal_is_exact(s_.substr(at, pos_ - at), x);
    return make(std::move(number));
  }

  std::string_view s_;
  const std::string& label_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};


}  // namespace

std::shared_ptr<const Node> parse_tree(std::string_view text, const std::string& label) { return Parser(text, label).parse(); }

}  // namespace privamp::sim
