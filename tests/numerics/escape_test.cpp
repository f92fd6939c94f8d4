// The escapers, one per output language, on the payloads a hostile case file carries: none of them may let a text
// form a command, a tag, a link, a cell or a formula, or carry a character its language forbids.
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "numerics/escape.hpp"

using namespace privamp;

namespace {

const std::vector<std::string>& payloads() {
  static const std::vector<std::string> p = {
      "\\input{/etc/passwd}", "\\immediate\\openout5=x.tex \\write18{touch pwned}", "$x^2_1$ & # % ~ { } \\",
      "<script>alert(1)</script>", "[click](javascript:alert(1))", "<javascript:alert(1)>", "a | b | c",
      "=cmd|' /C calc'!A0", "+1+2", "@SUM(A1:A2)", "-2+3", "name\xEF\xBF\xBE\xEF\xBF\xBF", "evil\xE2\x80\xAEtxt.exe",
      "bad \xC3\x28 utf8 \xF0\x28\x8C\x28", "tab\there\nnewline\r\x01\x7F", "`code` *em* _u_ ![img](x.png)",
      "\xEF\xB7\x90 U+FDD0", "\xED\xA0\x80 surrogate", "\xC0\xAF overlong"};
  return p;
}

// U+FFFE, U+FFFF, U+FDD0–U+FDEF, the bidirectional controls, C0/C1 controls, invalid UTF-8.
bool has_forbidden(const std::string& s, bool allow_newline) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && !(allow_newline && c == '\n')) || c == 0x7F) return true;
  }
  for (const char* bad : {"\xEF\xBF\xBE", "\xEF\xBF\xBF", "\xE2\x80\xAE", "\xE2\x80\xAA", "\xE2\x81\xA6", "\xEF\xB7\x90", "\xED\xA0\x80", "\xC2\x80"})
    if (s.find(bad) != std::string::npos) return true;
  // Well-formed UTF-8 throughout.
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return true;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return true;
    i += n;
  }
  return false;
}

}  // namespace

TEST_CASE("escape::plain keeps text and drops what no output should carry", "[escape]") {
  CHECK(escape::plain("κ = 0.5, α ≥ 2") == "κ = 0.5, α ≥ 2");
  CHECK(escape::plain("a\tb\nc") == "a b c");
  CHECK(escape::plain("a\nb", true) == "a\nb");
  CHECK(escape::plain("evil\xE2\x80\xAEtxt") == "evil\xEF\xBF\xBDtxt");
  for (const auto& p : payloads()) CHECK_FALSE(has_forbidden(escape::plain(p), false));
}

TEST_CASE("escape::latex: no command, group or math can be formed", "[escape]") {
  // Every backslash the escaper writes starts one of its own text-mode commands or escapes one special character.
  const std::regex own(R"(\\(textbackslash\{\}|textasciitilde\{\}|textasciicircum\{\}|textless\{\}|textgreater\{\}|textbar\{\}|[{}$&#_%]))");
  for (const auto& p : payloads()) {
    const std::string e = escape::latex(p);
    INFO(p << " -> " << e);
    CHECK_FALSE(has_forbidden(e, false));
    const std::string stripped = std::regex_replace(e, own, "");
    CHECK(stripped.find_first_of("\\{}$&#_%^~") == std::string::npos);
  }
  CHECK(escape::latex("\\input{/etc/passwd}") == "\\textbackslash{}input\\{/etc/passwd\\}");
  CHECK(escape::latex("50% of n_1") == "50\\% of n\\_1");
}

TEST_CASE("escape::xml and escape::html: no markup, only characters XML 1.0 allows", "[escape]") {
  for (const auto& p : payloads()) {
    for (const std::string& e : {escape::xml(p), escape::html(p)}) {
      INFO(p << " -> " << e);
      CHECK_FALSE(has_forbidden(e, true));
      CHECK(e.find_first_of("<>\"'") == std::string::npos);
      // Every & starts an entity of ours.
      for (std::size_t i = e.find('&'); i != std::string::npos; i = e.find('&', i + 1))
        CHECK(std::regex_search(e.substr(i, 6), std::regex("^&(amp|lt|gt|quot|apos|#39);")));
    }
  }
  CHECK(escape::xml("a<b & 'c'") == "a&lt;b &amp; &apos;c&apos;");
  CHECK(escape::html("<script>") == "&lt;script&gt;");
}

TEST_CASE("escape::markdown: no link, tag, code span or cell separator survives", "[escape]") {
  for (const auto& p : payloads()) {
    const std::string e = escape::markdown(p);
    INFO(p << " -> " << e);
    CHECK_FALSE(has_forbidden(e, false));
    CHECK(e.find_first_of("<>") == std::string::npos);
    // Each markup character is preceded by a backslash (which is itself escaped when it stands alone).
    for (std::size_t i = 0; i < e.size(); ++i)
      if (std::string("|[]()!*_`#").find(e[i]) != std::string::npos) {
        std::size_t slashes = 0;
        for (std::size_t k = i; k > 0 && e[k - 1] == '\\'; --k) ++slashes;
        CHECK(slashes % 2 == 1);
      }
  }
  CHECK(escape::markdown("a | b") == "a \\| b");
}

TEST_CASE("escape::csv: quoted fields, no formulas, numbers untouched", "[escape]") {
  CHECK(escape::csv("plain") == "plain");
  CHECK(escape::csv("a,b") == "\"a,b\"");
  CHECK(escape::csv("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(escape::csv("=1+1") == "'=1+1");
  CHECK(escape::csv("@SUM(A1)") == "'@SUM(A1)");
  CHECK(escape::csv("+cmd") == "'+cmd");
  CHECK(escape::csv("-1.5e-3") == "-1.5e-3");
  CHECK(escape::csv("=cmd|' /C calc'!A0,x") == "\"'=cmd|' /C calc'!A0,x\"");
  for (const auto& p : payloads()) {
    std::string e = escape::csv(p);
    if (!e.empty() && e.front() == '"') e = e.substr(1);
    INFO(p << " -> " << e);
    CHECK_FALSE(has_forbidden(e, true));
    if (!e.empty() && std::string("=+@").find(e.front()) != std::string::npos) FAIL("a formula cell: " << e);
  }
}
