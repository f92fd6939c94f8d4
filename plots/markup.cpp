#include "plots/markup.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "numerics/escape.hpp"
#include "plots/gnuplot.hpp"

namespace privamp::plots {

namespace {

// The one table of symbols: what {/Symbol x} is in each language.
struct Symbol {
  char key;  // the letter after /Symbol (kInfinity: gnuplot's octal escape \245 for infinity)
  const char* latex;
  const char* unicode;
};
constexpr char kInfinity = '\x01';  // a byte no sanitised text holds (escape::plain drops control characters)
constexpr Symbol kSymbols[] = {
    {'a', "\\alpha", "α"},   {'b', "\\beta", "β"},     {'g', "\\gamma", "γ"},   {'d', "\\delta", "δ"},
    {'e', "\\varepsilon", "ε"}, {'h', "\\eta", "η"},   {'q', "\\theta", "θ"},   {'k', "\\kappa", "κ"},
    {'l', "\\lambda", "λ"},  {'m', "\\mu", "μ"},       {'n', "\\nu", "ν"},      {'p', "\\pi", "π"},
    {'r', "\\rho", "ρ"},     {'s', "\\sigma", "σ"},    {'t', "\\tau", "τ"},     {'f', "\\phi", "φ"},
    {'c', "\\chi", "χ"},     {'y', "\\psi", "ψ"},      {'w', "\\omega", "ω"},   {'D', "\\Delta", "Δ"},
    {'G', "\\Gamma", "Γ"},   {'L', "\\Lambda", "Λ"},   {'S', "\\Sigma", "Σ"},   {'W', "\\Omega", "Ω"},
    {kInfinity, "\\infty", "∞"}};
// Parameter names that are Greek letters' names, and their keys in the table above.
constexpr std::pair<const char*, char> kGreekNames[] = {
    {"alpha", 'a'}, {"beta", 'b'}, {"gamma", 'g'}, {"delta", 'd'}, {"eps", 'e'}, {"epsilon", 'e'}, {"eta", 'h'},
    {"theta", 'q'}, {"kappa", 'k'}, {"lambda", 'l'}, {"mu", 'm'}, {"nu", 'n'}, {"rho", 'r'}, {"sigma", 's'},
    {"tau", 't'}, {"phi", 'f'}, {"psi", 'y'}, {"omega", 'w'}, {"Delta", 'D'}, {"Gamma", 'G'}, {"Lambda", 'L'},
    {"Sigma", 'S'}, {"Omega", 'W'}};

const Symbol* find_symbol(char key) {
  for (const Symbol& s : kSymbols)
    if (s.key == key) return &s;
  return nullptr;
}
struct Relation {
  const char* text;
  const char* latex;
  const char* unicode;
};
constexpr Relation kRelations[] = {{"<=", "\\le", "≤"}, {">=", "\\ge", "≥"}, {"->", "\\to", "→"}};
const Relation* relation_at(const std::string& t, std::size_t i) {
  for (const Relation& r : kRelations)
    if (t.compare(i, 2, r.text) == 0) return &r;
  return nullptr;
}

// Scripts nest at most this deep; deeper groups are shown as their text (a deep nesting would otherwise recurse once
// per level: the renderers' work and stack stay bounded whatever the input).
constexpr int kMaxDepth = 8;

// The markup after escape::plain (valid UTF-8, no control or bidirectional characters), with gnuplot's octal escape
// for infinity, {/Symbol \245}, as the symbol table's key.
std::string markup(const std::string& input) {
  const std::string plain = escape::plain(input);
  std::string text;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    if (plain.compare(i, 14, "{/Symbol \\245}") == 0) {
      text += std::string("{/Symbol ") + kInfinity + "}";
      i += 13;
    } else {
      text += plain[i];
    }
  }
  return text;
}

// The symbol of `{/Symbol x}` at i (its closing brace at i + 10), or null.
const Symbol* symbol_at(const std::string& t, std::size_t i) {
  if (t.compare(i, 9, "{/Symbol ") != 0 || i + 10 >= t.size() || t[i + 10] != '}') return nullptr;
  return find_symbol(t[i + 9]);
}
// A script's whole group `/Symbol x` (as in R_{/Symbol a}), or null.
const Symbol* symbol_group(const std::string& g) {
  return g.size() == 9 && g.compare(0, 8, "/Symbol ") == 0 ? find_symbol(g[8]) : nullptr;
}

// gnuplot's escapes in enhanced text, as its PDF draws them: a backslash before one of \ _ ^ { } @ & ~ is that character
// as text; before anything else it is itself. The character escaped at i (a backslash there), or 0.
char escaped_at(const std::string& t, std::size_t i) {
  if (t[i] != '\\' || i + 1 >= t.size()) return 0;
  const char n = t[i + 1];
  return std::string_view("\\_^{}@&~").find(n) != std::string_view::npos ? n : 0;
}

// The bytes of the UTF-8 character starting at i (1 for ASCII and for anything that is not a lead byte).
std::size_t character_length(const std::string& t, std::size_t i) {
  const auto c = static_cast<unsigned char>(t[i]);
  const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return std::min(n, t.size() - i);
}

// The group after _ or ^ at i: a braced group to its matching brace (or the end), else one character. Returns its
// text and the index of its last byte.
std::pair<std::string, std::size_t> script_group(const std::string& text, std::size_t i) {
  if (text[i + 1] != '{') {
    const std::size_t n = character_length(text, i + 1);
    return {text.substr(i + 1, n), i + n};
  }
  int depth = 0;
  std::size_t j = i + 1;
  for (; j < text.size(); ++j) {
    if (escaped_at(text, j)) {  // an escaped brace is text
      ++j;
      continue;
    }
    depth += text[j] == '{' ? 1 : text[j] == '}' ? -1 : 0;
    if (depth == 0) break;
  }
  return {text.substr(i + 2, std::min(j, text.size()) - i - 2), std::min(j, text.size() - 1)};
}

// A group's text in LaTeX math: symbols, relations and nested scripts as math; other ASCII escaped for math; other
// characters in \mbox (text inside math). `depth`: the scripts around it.
std::string latex_math(const std::string& t, int depth) {
  if (const Symbol* s = symbol_group(t)) return std::string(s->latex) + " ";  // _{/Symbol a}
  // A word of two letters or more (E_{OU}) is a name, upright as gnuplot draws it; one letter (x_i) a variable.
  if (t.size() >= 2 && std::all_of(t.begin(), t.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }))
    return "\\mathrm{" + t + "}";
  std::string out;
  bool after_script = false;  // a second script in a row needs a base: {}_{...}
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (const Symbol* s = symbol_at(t, i)) {
      out += s->latex;
      out += ' ';
      i += 10;
      after_script = false;
      continue;
    }
    if (const Relation* r = relation_at(t, i)) {
      out += r->latex;
      out += ' ';
      ++i;
      after_script = false;
      continue;
    }
    const char c = t[i];
    if (const char e = escaped_at(t, i)) {
      out += "\\mbox{" + escape::latex(std::string(1, e)) + "}";  // the character as text, as outside math
      ++i;
      after_script = false;
      continue;
    }
    if (c == '_' || c == '^') {
      // Nothing to raise or lower, or nested too deep: no script (the group's text follows flat).
      if (i + 1 >= t.size() || depth >= kMaxDepth) continue;
      const auto [group, last] = script_group(t, i);
      out += fmt::format("{}{}{{{}}}", after_script ? "{}" : "", c, latex_math(group, depth + 1));
      i = last;
      after_script = true;
      continue;
    }
    after_script = false;
    if (static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t n = character_length(t, i);
      out += "\\mbox{" + escape::latex(t.substr(i, n)) + "}";  // (escaped as outside math: [U+0436] for ж, which pdflatex cannot typeset)
      i += n - 1;
      continue;
    }
    if (c == '{' || c == '}') continue;
    if (c == '%' || c == '#' || c == '&' || c == '$' || c == '_') out += std::string("\\") + c;
    else if (c == '\\') out += "\\backslash ";  // (gnuplot draws a backslash before other characters)
    else if (c == '~') out += ' ';
    else out += c;
  }
  return out;
}

// A group's text as Unicode: symbols, relations; scripts as _x, ^x, or _(…), ^(…) around more than one character.
std::string plain_text(const std::string& text, int depth) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (const char e = escaped_at(text, i)) {
      out += e;
      ++i;
    } else if (const Symbol* s = symbol_at(text, i)) {
      out += s->unicode;
      i += 10;
    } else if (const Relation* r = relation_at(text, i)) {
      out += r->unicode;
      ++i;
    } else if ((c == '_' || c == '^') && i + 1 < text.size()) {  // x_{OU} as x_OU, e^{-t} as e^(-t)
      const auto [group, last] = script_group(text, i);
      const Symbol* alone = symbol_group(group);
      const std::string inner = alone ? alone->unicode : depth + 1 < kMaxDepth ? plain_text(group, depth + 1) : escape::plain(group);
      const bool one = !inner.empty() && character_length(inner, 0) == inner.size();
      const bool word = std::all_of(inner.begin(), inner.end(), [](char d) { return std::isalnum(static_cast<unsigned char>(d)); });
      out += c;
      out += one || word ? inner : "(" + inner + ")";
      i = last;
    } else if (c != '{' && c != '}') {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string enhanced_to_latex(const std::string& input) {
  const std::string text = markup(input);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (const char e = escaped_at(text, i)) {  // the character as text
      out += escape::latex(std::string(1, e));
      ++i;
      continue;
    }
    if (const Symbol* s = symbol_at(text, i)) {
      i += 10;
      std::string primes;  // ε' is a prime in the formula, not a closing quote after it
      while (i + 1 < text.size() && text[i + 1] == '\'') primes += '\'', ++i;
      out += fmt::format("${}{} $", s->latex, primes);
      continue;
    }
    if (const Relation* r = relation_at(text, i)) {
      out += fmt::format("${} $", r->latex);
      ++i;
      continue;
    }
    const bool word_start = i == 0 || text[i - 1] == ' ' || text[i - 1] == '(';
    if (c == '-' && word_start && i + 1 < text.size() && (text[i + 1] == ' ' || std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      out += "$-$";  // a minus sign (1 - L, -3), not a hyphen
      continue;
    }
    if (c == '\'' && word_start && i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '\'') {
      out += '`';  // an opening quote ('Privacy …' typeset as ’Privacy …)
      continue;
    }
    if ((c == '_' || c == '^') && i + 1 < text.size()) {
      const auto [group, last] = script_group(text, i);
      out += fmt::format("${}{{{}}}$", c, latex_math(group, 1));
      i = last;
      continue;
    }
    switch (c) {
      case '{': case '}': break;  // gnuplot's grouping
      default: {  // one escaper for LaTeX text, given each character whole (a multi-byte one with all its bytes)
        std::size_t n = 1;
        while (i + n < text.size() && (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80) ++n;
        out += escape::latex(std::string_view(text).substr(i, n));
        i += n - 1;
        if (i + 1 < text.size() && escape::latex_ligature(c, text[i + 1])) out += "{}";  // (escaped one character at a time)
      }
    }
  }
  return out;
}

std::string enhanced_to_plain(const std::string& input) { return plain_text(markup(input), 0); }

std::string markup_problem(const std::string& text) {
  std::vector<std::size_t> open;  // bytes of the braces not yet closed
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && text.compare(i >= 9 ? i - 9 : 0, 13, "{/Symbol \\245") == 0 && i >= 9) {
      i += 3;  // gnuplot's infinity, {/Symbol \245}
    } else if (c == '\\') {
      // An escaped character is text; gnuplot would read a digit after the backslash as an octal character code
      // (any character, drawn in the PDF where the caption prints the digits).
      if (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))
        return fmt::format("a '\\' and a digit at byte {} (an octal character code; only {{/Symbol \\245}} is markup)", i + 1);
      ++i;
    } else if (c == '{' && text.compare(i, 2, "{/") == 0 && text.compare(i, 9, "{/Symbol ") != 0) {
      return fmt::format("a '{{/' at byte {}: gnuplot's font changes are not markup (only {{/Symbol x}})", i + 1);
    } else if (c == '{') {
      open.push_back(i);
    } else if (c == '}') {
      if (open.empty()) return fmt::format("a '}}' at byte {} closes no '{{'", i + 1);
      open.pop_back();
    } else if ((c == '_' || c == '^') && (i + 1 == text.size() || text[i + 1] == '}')) {
      return fmt::format("a '{}' at byte {} with nothing to raise or lower", c, i + 1);
    }
  }
  if (!open.empty()) return fmt::format("a '{{' at byte {} is never closed", open.back() + 1);
  return "";
}

std::string parameter_label(const std::string& name) {
  // (eps_prime as ε', not ε with the subscript "prime")
  constexpr std::string_view prime = "_prime";
  if (name.size() > prime.size() && name.compare(name.size() - prime.size(), prime.size(), prime) == 0)
    return parameter_label(name.substr(0, name.size() - prime.size())) + "'";
  std::size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
  const std::string stem = name.substr(0, digits), index = name.substr(digits);
  for (const auto& [greek, key] : kGreekNames)
    if (stem == greek) return fmt::format("{{/Symbol {}}}{}", key, index.empty() ? "" : "_{" + index + "}");
  // A Greek name with a word after '_' (gamma_doeblin): the letter with the word as its subscript.
  if (const auto bar = name.find('_'); bar != std::string::npos && bar + 1 < name.size())
    for (const auto& [greek, key] : kGreekNames)
      if (name.compare(0, bar, greek) == 0 && name.size() > std::string_view(greek).size() &&
          std::string_view(greek).size() == bar)
        return fmt::format("{{/Symbol {}}}_{{{}}}", key, literal(name.substr(bar + 1)));
  return literal(name);
}

}  // namespace privamp::plots
