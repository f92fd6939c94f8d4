#include "numerics/escape.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

namespace privamp::escape {

namespace {

// A code point written visibly in ASCII: [U+202E].
std::string code_point(char32_t cp) { return fmt::format("[U+{:04X}]", static_cast<unsigned>(cp)); }

// The code point of the well-formed UTF-8 sequence at s[i] and its length, or length 0 if ill-formed.
std::pair<char32_t, std::size_t> decode(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  std::size_t n = 0;
  char32_t cp = 0;
  if (c >= 0xC2 && c < 0xE0) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c < 0xF0) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c < 0xF5) n = 4, cp = c & 0x07;
  else return {0, 0};
  if (i + n > s.size()) return {0, 0};
  for (std::size_t k = 1; k < n; ++k) {
    const auto t = static_cast<unsigned char>(s[i + k]);
    if ((t & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (t & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are ill-formed.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, n};
}

// Characters that draw nothing (Unicode's format characters, Cf, as of Unicode 15; variation selectors, fillers,
// the combining grapheme joiner, the blank braille pattern) or whose look is private: a name holding one can look
// like another name.
bool invisible(char32_t cp) {
  constexpr std::pair<char32_t, char32_t> kRanges[] = {
      {0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x0600, 0x0605}, {0x061C, 0x061C}, {0x06DD, 0x06DD}, {0x070F, 0x070F},
      {0x0890, 0x0891}, {0x08E2, 0x08E2}, {0x115F, 0x1160}, {0x17B4, 0x17B5}, {0x180B, 0x180F}, {0x200B, 0x200F},
      {0x202A, 0x202E}, {0x2060, 0x206F}, {0x2800, 0x2800}, {0x3164, 0x3164}, {0xE000, 0xF8FF}, {0xFE00, 0xFE0F},
      {0xFEFF, 0xFEFF}, {0xFFA0, 0xFFA0}, {0xFFF9, 0xFFFB}, {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F},
      {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF}, {0xF0000, 0x10FFFF}};
  for (const auto& [lo, hi] : kRanges)
    if (cp >= lo && cp <= hi) return true;
  return false;
}

bool unwanted(char32_t cp) {
  if (cp >= 0x80 && cp < 0xA0) return true;                               // C1 controls
  if (cp == 0x200E || cp == 0x200F || cp == 0x061C) return true;          // direction marks
  if (cp >= 0x202A && cp <= 0x202E) return true;                          // embeddings and overrides
  if (cp >= 0x2066 && cp <= 0x2069) return true;                          // isolates
  if (cp == 0x2028 || cp == 0x2029) return true;                          // line and paragraph separators
  if (cp >= 0xFDD0 && cp <= 0xFDEF) return true;                          // noncharacters
  if ((cp & 0xFFFE) == 0xFFFE) return true;                               // U+xFFFE, U+xFFFF in every plane
  if (cp == 0xFFFD) return true;  // the replacement character: it hides what was there, and pdflatex cannot typeset it
  return invisible(cp);
}

// A number as privamp writes one (a sign, digits, a point, an exponent; inf and nan bare): what strtod reads but a
// spreadsheet might not ("nan(HYPERLINK)", hex floats) is not one.
bool is_number(std::string_view s) {
  std::string_view body = s;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) body.remove_prefix(1);
  if (body == "inf" || body == "nan") return true;
  if (body.empty() || body.find_first_not_of("0123456789.eE+-") != std::string_view::npos) return false;
  const std::string t(s);
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

}  // namespace

std::string plain(std::string_view s, bool keep_newlines) {
  // Printable ASCII (most of what privamp writes) needs nothing.
  if (std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7F; })) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto [cp, n] = decode(s, i);
    if (n == 0) {
      out += fmt::format("[0x{:02X}]", static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (cp == '\n' || cp == '\t' || cp == '\r') out += keep_newlines && cp == '\n' ? '\n' : ' ';  // white space
    else if (cp < 0x20 || cp == 0x7F) out += code_point(cp);  // ESC, BEL …: visible, never a silent space
    else if (unwanted(cp)) out += code_point(cp);
    else out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string visible(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {  // (ASCII bytes: never inside a multi-byte sequence)
    if (c == '\n' || c == '\t' || c == '\r') out += code_point(static_cast<unsigned char>(c));
    else out += c;
  }
  return plain(out);
}

std::string text_problem(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto [cp, n] = decode(s, i);
    if (n == 0) return fmt::format("an invalid UTF-8 byte 0x{:02X} at byte {}", static_cast<unsigned char>(s[i]), i + 1);
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
      return fmt::format("a control character {} at byte {} (newlines, tabs and escapes are not allowed)", code_point(cp), i + 1);
    if (unwanted(cp))
      return fmt::format("a bidirectional control, line separator, invisible character, noncharacter or replacement character {} at byte {}", code_point(cp),
                         i + 1);
    i += n;
  }
  return "";
}

namespace {

// Lowercase Greek (U+03B1 … U+03C9) as math-mode commands; ο and ς have none and are escaped visibly.
constexpr std::array<const char*, 25> kGreek = {"alpha", "beta",  "gamma", "delta", "varepsilon", "zeta", "eta",
                                                "theta", "iota",  "kappa", "lambda", "mu", "nu", "xi", nullptr, "pi",
                                                "rho",   nullptr, "sigma", "tau", "upsilon", "varphi", "chi", "psi", "omega"};

}  // namespace

namespace {

// Code points of Latin-1 and Latin Extended-A that pdflatex's utf8 input does not define in the OT1 encoding
// (LaTeX's default) or in T1 (measured: each typeset alone with both): « » Ð Þ ð þ, the ogonek letters, Đ đ Ħ ħ
// ĸ Ŀ ŀ ŉ Ŋ ŋ Ŧ ŧ ſ.
constexpr std::array<char32_t, 27> kLatexUndefined = {0xAB,  0xBB,  0xD0,  0xDE,  0xF0,  0xFE,  0x104, 0x105, 0x110,
                                                      0x111, 0x118, 0x119, 0x126, 0x127, 0x12E, 0x12F, 0x138, 0x13F,
                                                      0x140, 0x149, 0x14A, 0x14B, 0x166, 0x167, 0x172, 0x173, 0x17F};

bool latex_defines(char32_t cp) {
  return cp < 0x180 && std::find(kLatexUndefined.begin(), kLatexUndefined.end(), cp) == kLatexUndefined.end();
}

// Mathematical symbols a bound's text may hold, as math-mode commands (they printed as [U+2264] where gnuplot draws ≤).
struct MathSymbol {
  char32_t cp;
  const char* command;
};
constexpr std::array<MathSymbol, 20> kMathSymbols = {{{0x2264, "\\le"},     {0x2265, "\\ge"},     {0x2260, "\\neq"},    {0x2248, "\\approx"},
                                                      {0x221E, "\\infty"},  {0x2211, "\\sum"},    {0x220F, "\\prod"},   {0x222B, "\\int"},
                                                      {0x2192, "\\to"},     {0x2190, "\\leftarrow"}, {0x2208, "\\in"}, {0x2202, "\\partial"},
                                                      {0x221A, "\\surd"},   {0x2212, "-"},        {0x2207, "\\nabla"},  {0x2200, "\\forall"},
                                                      {0x2203, "\\exists"}, {0x2282, "\\subset"}, {0x2286, "\\subseteq"}, {0x2218, "\\circ"}}};

const char* math_symbol(char32_t cp) {
  for (const MathSymbol& m : kMathSymbols)
    if (m.cp == cp) return m.command;
  return nullptr;
}

}  // namespace

bool latex_ligature(char c, char next) {
  return ((c == '-' || c == '\'' || c == '`' || c == ',') && next == c) || ((c == '!' || c == '?') && next == '`');
}

std::string latex(std::string_view text) {
  std::string out;
  const std::string clean = plain(text);
  for (std::size_t i = 0; i < clean.size();) {
    const auto [cp, n] = decode(clean, i);
    if (cp >= 0x80) {
      if (latex_defines(cp)) out.append(clean.substr(i, n));
      else if (cp >= 0x3B1 && cp <= 0x3C9 && kGreek[cp - 0x3B1]) out += fmt::format("\\ensuremath{{\\{}}}", kGreek[cp - 0x3B1]);
      else if (const char* m = math_symbol(cp)) out += fmt::format("\\ensuremath{{{}}}", m);
      else out += code_point(cp);
      i += n;
      continue;
    }
    const char c = clean[i++];
    switch (c) {
      case '\\': out += "\\textbackslash{}"; break;
      case '{': case '}': case '$': case '&': case '#': case '_': case '%': out += '\\'; out += c; break;
      case '~': out += "\\textasciitilde{}"; break;
      case '^': out += "\\textasciicircum{}"; break;
      case '<': out += "\\textless{}"; break;
      case '>': out += "\\textgreater{}"; break;
      case '|': out += "\\textbar{}"; break;
      default: out += c;
    }
    // The fonts' ligatures (-- ---, `` '', ,, and !` ?`) would typeset a dash, curly quotes, „ ¡ ¿ where the text
    // holds the characters themselves: an empty group between them.
    if (i < clean.size() && latex_ligature(c, clean[i])) out += "{}";
  }
  return out;
}

namespace {

// Markup languages: & < > " and the apostrophe as entities (XML's &apos; is not HTML 4's).
std::string entities(std::string_view text, std::string_view apostrophe) {
  std::string out;
  for (char c : plain(text, true)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += apostrophe; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string toml(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto [cp, n] = decode(text, i);
    if (n == 0) {
      out += fmt::format("[0x{:02X}]", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (cp == '"' || cp == '\\') out += fmt::format("\\{}", static_cast<char>(cp));
    else if (cp < 0x20 || cp == 0x7F || unwanted(cp)) out += cp > 0xFFFF ? fmt::format("\\U{:08X}", static_cast<unsigned>(cp)) : fmt::format("\\u{:04X}", static_cast<unsigned>(cp));
    else out.append(text.substr(i, n));
    i += n;
  }
  return out + "\"";
}

std::string xml(std::string_view text) { return entities(text, "&apos;"); }

std::string html(std::string_view text) { return entities(text, "&#39;"); }

std::string markdown(std::string_view text) {
  std::string out;
  for (char c : plain(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      // Inline markup of CommonMark and its common extensions: links, emphasis, code, headings, cells, math ($),
      // strikethrough (~~), superscript (^), attributes ({}).
      case '\\': case '|': case '[': case ']': case '(': case ')': case '!': case '*': case '_': case '`': case '#':
      case '$': case '~': case '^': case '{': case '}':
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

std::string markdown_code(std::string_view text) {
  const std::string s = plain(text);
  std::size_t longest = 0, run = 0;
  for (char c : s) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(longest + 1, '`');
  return fence + " " + s + " " + fence;  // the spaces: a span may start or end with a backtick
}

std::string csv(std::string_view text) {
  std::string s = plain(text, true);
  if (!s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@') && !is_number(s)) s.insert(s.begin(), '\'');
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace privamp::escape
