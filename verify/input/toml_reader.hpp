// Typed access to a TOML table for the data files (case files, figure files): every failure names the file, the
// line and the key. Included only by the readers' own translation units (toml++ is a heavy header).
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include "numerics/errors.hpp"
#include "verify/input/keys.hpp"

namespace privamp::verify {

// TOML nests a table per part of a dotted key (`a.b.c = 1`, `[a.b.c]`, `{a.b.c = 1}`), and toml++ builds and destroys
// them recursively: 50,000 parts in a 100 KB file overflow the stack. Before parsing, the dots between structural
// characters (= , [ ] { } and line ends; strings and comments skipped) are counted: more than kMaxKeyParts − 1 in one
// stretch is refused, naming the line (a number has at most one dot, a date-time one).
inline constexpr int kMaxKeyParts = 64;
inline void check_key_parts(std::string_view text, const std::string& name) {
  int dots = 0, line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\'') {  // a string: basic (escapes) or literal, one line or three quotes
      const bool triple = text.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
      const std::string_view close = triple ? text.substr(i, 3) : text.substr(i, 1);
      std::size_t j = i + close.size();
      while (j < text.size() && text.substr(j, close.size()) != close) {
        if (text[j] == '\\' && c == '"') ++j;
        else if (text[j] == '\n') ++line;
        ++j;
      }
      i = j + close.size() - 1;
    } else if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '.') {
      if (++dots >= kMaxKeyParts)
        invalid_input("{}:{}: a dotted key of more than {} parts (tables nest at most {} deep)", name, line, kMaxKeyParts, kMaxKeyParts);
    } else if (c == '\n' || c == '=' || c == ',' || c == '[' || c == ']' || c == '{' || c == '}') {
      dots = 0;
      line += c == '\n';
    }
  }
}

// Numbers below the normal doubles: toml++ reads 1e-400 as 0 and keeps 1e-310 with few digits (a grid value of 1e-400
// ran as 0, silently). Refused, naming the line and the literal, with the command line's rule for numbers; an exact
// zero (0.0, -0e5) stays. The literal is read back from the text at the node's position (columns count characters).
inline void check_number_range(const toml::node& node, std::string_view text, const std::string& name) {
  if (const auto* t = node.as_table()) {
    for (const auto& [k, v] : *t) check_number_range(v, text, name);
  } else if (const auto* a = node.as_array()) {
    for (const auto& v : *a) check_number_range(v, text, name);
  } else if (const auto* f = node.as_floating_point()) {
    const double v = f->get();
    if (std::fabs(v) >= std::numeric_limits<double>::min() || std::isnan(v)) return;
    const auto at = f->source().begin;
    std::size_t i = 0;
    for (std::size_t line = 1; line < at.line && i < text.size(); ++i) line += text[i] == '\n';
    for (std::size_t column = 1; column < at.column && i < text.size(); ++column)  // (continuation bytes: no column)
      for (++i; i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;) ++i;
    std::size_t end = i;
    while (end < text.size() && std::string_view("0123456789eE+-._").find(text[end]) != std::string_view::npos) ++end;
    const std::string_view literal = text.substr(i, end - i);
    const std::string_view mantissa = literal.substr(0, literal.find_first_of("eE"));
    // (a zero written as one; where the literal cannot be read back, the zero is refused too)
    if (v == 0 && !mantissa.empty() && mantissa.find_first_of("0") != std::string_view::npos &&
        mantissa.find_first_of("123456789") == std::string_view::npos)
      return;
    invalid_input("{}:{}: number {} is out of the range of doubles (allowed: {})", name, at.line,
                  literal.empty() ? fmt::format("{}", v) : std::string(literal), kDoubleRange);
  }
}

// A TOML document's text parsed; a syntax error is InvalidArgument "name:line: what"; so is a number below the
// normal doubles (check_number_range).
inline toml::table parse_toml(std::string_view text, const std::string& name) {
  check_key_parts(text, name);
  try {
    toml::table doc = toml::parse(text, name);
    check_number_range(doc, text, name);
    return doc;
  } catch (const toml::parse_error& e) {
    // toml++ 3.x prints a redefined key from a buffer it has overwritten ('"ababc" ' for "abc", '\u\u0061bc'):
    // its text is dropped and the rule said instead.
    std::string what(e.description());
    if (const auto at = what.find("cannot redefine existing "); at != std::string::npos) {
      if (const auto quote = what.find(" '", at); quote != std::string::npos)
        what = what.substr(0, quote) + ": a key given twice in one table (quoted or not, escaped or not, it is one key)";
    }
    invalid_input("{}:{}: {}", name, e.source().begin.line, what);
  }
}

class TomlReader {
 public:
  explicit TomlReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::node* node, const std::string& key, const std::string& why) const {
    const int line = node ? static_cast<int>(node->source().begin.line) : 0;
    invalid_input("{}:{}: key '{}': {}", file_, line, key, why);
  }

  std::string text(const toml::table& t, const std::string& key, std::optional<std::string> fallback = std::nullopt) const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (fallback) return *fallback;
      fail(&t, key, "missing");
    }
    if (!n->is_string()) fail(n, key, "must be a string");
    return **n->as_string();
  }

  // A number (NaN when absent and no fallback is given).
  double number(const toml::table& t, const std::string& key,
                double fallback = std::numeric_limits<double>::quiet_NaN()) const {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    if (auto v = n->value<double>()) return *v;
    // An integer beyond 2^53 is a number too (toml++ converts only exact ones): the rule about its size is the caller's.
    if (n->is_integer()) return static_cast<double>(**n->as_integer());
    fail(n, key, "must be a number");
  }

  bool boolean(const toml::table& t, const std::string& key, bool fallback) const {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    if (!n->is_boolean()) fail(n, key, "must be true or false");
    return **n->as_boolean();
  }

  // Every key of `t` is one of `keys` (failure names the key, with `prefix` before it, and the known ones).
  void check_keys(const toml::table& t, const KeyTable& keys, const std::string& prefix = "") const {
    for (const auto& [k, v] : t) {
      bool known = false;
      for (std::string_view key : keys.keys) known = known || key == k.str();
      if (!known)
        fail(&v, prefix + std::string(k.str()), fmt::format("unknown key in {} (known: {})", keys.name, fmt::join(keys.keys, ", ")));
    }
  }

  const std::string& file() const { return file_; }

 protected:
  std::string file_;
};

}  // namespace privamp::verify
