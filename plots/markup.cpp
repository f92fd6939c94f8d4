#include "plots/markup.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "numerics/escape.hpp"

namespace privamp::plots {

namespace {

// The one table of symbols: what {/Symbol x} is in each language.
struct Symbol {
  char key;  // the letter after /Symbol (\245: gnuplot's octal escape for infinity)
  const char* latex;
  const char* unicode;
};
constexpr Symbol kSymbols[] = {
    {'a', "\\alpha", "α"},   {'b', "\\beta", "β"},     {'g', "\\gamma", "γ"},   {'d', "\\delta", "δ"},
    {'e', "\\varepsilon", "ε"}, {'h', "\\eta", "η"},   {'q', "\\theta", "θ"},   {'k', "\\kappa", "κ"},
    {'l', "\\lambda", "λ"},  {'m', "\\mu", "μ"},       {'n', "\\nu", "ν"},      {'p', "\\pi", "π"},
    {'r', "\\rho", "ρ"},     {'s', "\\sigma", "σ"},    {'t', "\\tau", "τ"},     {'f', "\\phi", "φ"},
    {'c', "\\chi", "χ"},     {'y', "\\psi", "ψ"},      {'w', "\\omega", "ω"},   {'D', "\\Delta", "Δ"},
    {'G', "\\Gamma", "Γ"},   {'L', "\\Lambda", "Λ"},   {'S', "\\Sigma", "Σ"},   {'W', "\\Omega", "Ω"},
    {'\245', "\\infty", "∞"}};
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

// The markup after escape::plain, with gnuplot's octal escape for infinity as the one byte the table knows.
std::string markup(const std::string& input) {
  const std::string plain = escape::plain(input);  // valid UTF-8, no control or bidirectional characters
  std::string text;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    const bool infinity = plain.compare(i, 12, "/Symbol \\245") == 0;
    text += infinity ? std::string("/Symbol \245") : std::string(1, plain[i]);
    if (infinity) i += 11;
  }
  return text;
}

// The symbol of `{/Symbol x}` at i (its closing brace at i + 10), or null.
const Symbol* symbol_at(const std::string& t, std::size_t i) {
  if (t.compare(i, 9, "{/Symbol ") != 0 || i + 10 >= t.size() || t[i + 10] != '}') return nullptr;
  return find_symbol(t[i + 9]);
}

// The group after _ or ^ at i: its text and the index of its last character.
std::pair<std::string, std::size_t> script_group(const std::string& text, std::size_t i) {
  if (text[i + 1] != '{') return {text.substr(i + 1, 1), i + 1};
  int depth = 0;
  std::size_t j = i + 1;
  for (; j < text.size(); ++j) {
    depth += text[j] == '{' ? 1 : text[j] == '}' ? -1 : 0;
    if (depth == 0) break;
  }
  return {text.substr(i + 2, j - i - 2), j};
}

}  // namespace

std::string enhanced_to_latex(const std::string& input) {
  const std::string text = markup(input);
  // In math: a Greek letter, a relation, a nested script, or a group's text escaped for math.
  std::function<std::string(const std::string&)> math = [&](const std::string& t) {
    if (t.size() == 9 && t.compare(0, 8, "/Symbol ") == 0 && find_symbol(t[8]))  // _{/Symbol a}
      return std::string(find_symbol(t[8])->latex) + " ";
    std::string out;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (const Symbol* s = symbol_at(t, i)) {
        out += s->latex;
        out += ' ';
        i += 10;
        continue;
      }
      if (const Relation* r = relation_at(t, i)) {
        out += r->latex;
        out += ' ';
        ++i;
        continue;
      }
      const char c = t[i];
      if ((c == '_' || c == '^') && i + 1 < t.size()) {  // e^{-{/Symbol e}_0}
        const auto [group, last] = script_group(t, i);
        out += fmt::format("{}{{{}}}", c, math(group));
        i = last;
        continue;
      }
      if (c == '{' || c == '}') continue;
      if (c == '%' || c == '#' || c == '&' || c == '$' || c == '_' || c == '^') out += std::string("\\") + c;
      else if (c == '\\' || c == '~') out += ' ';
      else out += c;
    }
    return out;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (const Symbol* s = symbol_at(text, i)) {
      out += fmt::format("${} $", s->latex);
      i += 10;
      continue;
    }
    if (const Relation* r = relation_at(text, i)) {
      out += fmt::format("${} $", r->latex);
      ++i;
      continue;
    }
    if ((c == '_' || c == '^') && i + 1 < text.size()) {
      const auto [group, last] = script_group(text, i);
      out += fmt::format("${}{{{}}}$", c, math(group));
      i = last;
      continue;
    }
    switch (c) {
      case '{': case '}': break;  // gnuplot's grouping
      default:  // one escaper for LaTeX text (bytes of multi-byte characters pass whole)
        if (static_cast<unsigned char>(c) < 0x80) out += escape::latex(std::string_view(&c, 1));
        else out += c;
    }
  }
  return out;
}

std::string enhanced_to_plain(const std::string& input) {
  const std::string text = markup(input);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (const Symbol* s = symbol_at(text, i)) {
      out += s->unicode;
      i += 10;
    } else if (const Relation* r = relation_at(text, i)) {
      out += r->unicode;
      ++i;
    } else if ((c == '_' || c == '^') && i + 1 < text.size()) {  // x_{OU} as x_OU, e^{-t} as e^(-t)
      const auto [group, last] = script_group(text, i);
      const Symbol* alone = group.size() == 9 && group.compare(0, 8, "/Symbol ") == 0 ? find_symbol(group[8]) : nullptr;
      const std::string inner = alone ? alone->unicode : enhanced_to_plain(group);  // R_{/Symbol a}
      const bool one = inner.size() == 1 || (inner.size() <= 2 && static_cast<unsigned char>(inner[0]) >= 0x80);
      out += c == '_' || one || std::all_of(inner.begin(), inner.end(), [](char d) { return std::isalnum(static_cast<unsigned char>(d)); })
                 ? std::string(1, c) + inner
                 : std::string(1, c) + "(" + inner + ")";
      i = last;
    } else if (c != '{' && c != '}') {
      out += c;
    }
  }
  return out;
}

}  // namespace privamp::plots
