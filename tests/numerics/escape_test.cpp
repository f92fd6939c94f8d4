// The escapers, one per output language, on the payloads a hostile case file carries: none of them may let a text
// form a command, a tag, a link, a cell or a formula, or carry a character its language forbids.
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "numerics/escape.hpp"
#include "numerics/files.hpp"
#include "support/scratch.hpp"

using namespace privamp;

namespace {

const std::vector<std::string>& payloads() {
  static const std::vector<std::string> p = {
      "\\input{/etc/passwd}", "\\immediate\\openout5=x.tex \\write18{touch pwned}", "$x^2_1$ & # % ~ { } \\",
      "<script>alert(1)</script>", "[click](javascript:alert(1))", "<javascript:alert(1)>", "a | b | c",
      "=cmd|' /C calc'!A0", "+1+2", "@SUM(A1:A2)", "-2+3", "name\xEF\xBF\xBE\xEF\xBF\xBF", "evil\xE2\x80\xAEtxt.exe",
      "bad \xC3\x28 utf8 \xF0\x28\x8C\x28", "tab\there\nnewline\r\x01\x7F", "`code` *em* _u_ ![img](x.png)",
      "\xEF\xB7\x90 U+FDD0", "\xED\xA0\x80 surrogate", "\xC0\xAF overlong", "line\xE2\x80\xA8sep",
      "a literal \xEF\xBF\xBD replacement character"};
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
  // What cannot be shown is shown as what it was, never as U+FFFD (which hides it and which pdflatex cannot set).
  CHECK(escape::plain("evil\xE2\x80\xAEtxt") == "evil[U+202E]txt");
  CHECK(escape::plain("bad \xC3\x28") == "bad [0xC3](");
  // A name quoted in a message shows its white space too (a path "o\nx" was shown as "o x").
  CHECK(escape::visible("o\x1b[31mred\nx\ty\rz κ") == "o[U+001B][31mred[U+000A]x[U+0009]y[U+000D]z κ");
  CHECK(escape::visible("evil\xE2\x80\xAE") == "evil[U+202E]");
  for (const auto& p : payloads()) {
    CHECK_FALSE(has_forbidden(escape::plain(p), false));
    CHECK(escape::plain(p).find("\xEF\xBF\xBD") == std::string::npos);
  }
}

TEST_CASE("escape::text_problem: one policy for identifiers, naming the character and where it is", "[escape]") {
  CHECK(escape::text_problem("T4.closed").empty());
  CHECK(escape::text_problem("Rényi bound, α ≥ 2").empty());
  CHECK_THAT(escape::text_problem("id\x1b]0;pwned\x07"), Catch::Contains("control character [U+001B] at byte 3"));
  CHECK_THAT(escape::text_problem("a\tb"), Catch::Contains("control character [U+0009]"));
  CHECK_THAT(escape::text_problem("x\xC2\x85y"), Catch::Contains("control character [U+0085]"));
  CHECK_THAT(escape::text_problem("evil\xE2\x80\xAEtxt"), Catch::Contains("bidirectional control, line separator, invisible character, noncharacter or replacement character [U+202E] at byte 5"));
  // A literal U+FFFD reached every output raw (pdflatex stops on it; it hides what was there).
  CHECK_THAT(escape::text_problem("g \xEF\xBF\xBD"), Catch::Contains("[U+FFFD] at byte 3"));
  CHECK(escape::plain("s \xEF\xBF\xBD") == "s [U+FFFD]");
  // Characters that break a line in JavaScript, Markdown and terminals, or hide inside an ID ("E\u200B1" reads as E1).
  CHECK_THAT(escape::text_problem("a\xE2\x80\xA8" "b"), Catch::Contains("[U+2028] at byte 2"));
  CHECK_THAT(escape::text_problem("a\xE2\x80\xA9" "b"), Catch::Contains("[U+2029] at byte 2"));
  CHECK_THAT(escape::text_problem("E\xE2\x80\x8B" "1"), Catch::Contains("[U+200B] at byte 2"));
  CHECK_THAT(escape::text_problem("\xEF\xBB\xBFT5"), Catch::Contains("[U+FEFF] at byte 1"));
  CHECK_THAT(escape::plain("a\xE2\x80\xA8" "b"), Catch::Equals("a[U+2028]b"));
  CHECK_THAT(escape::text_problem("bad \xC3\x28"), Catch::Contains("invalid UTF-8 byte 0xC3 at byte 5"));
  // Every payload that plain() would change breaks the policy.
  for (const auto& p : payloads())
    if (escape::plain(p) != p) CHECK_FALSE(escape::text_problem(p).empty());
}

TEST_CASE("escape::latex: no command, group or math can be formed", "[escape]") {
  // Every backslash the escaper writes starts one of its own text-mode commands or escapes one special character.
  // (and an empty group, which only breaks a ligature: -{}- is two hyphens)
  const std::regex own(R"(\\(textbackslash\{\}|textasciitilde\{\}|textasciicircum\{\}|textless\{\}|textgreater\{\}|textbar\{\}|ensuremath\{(\\[a-z]+|-)\}|[{}$&#_%])|\{\})");
  for (const auto& p : payloads()) {
    const std::string e = escape::latex(p);
    INFO(p << " -> " << e);
    CHECK_FALSE(has_forbidden(e, false));
    const std::string stripped = std::regex_replace(e, own, "");
    CHECK(stripped.find_first_of("\\{}$&#_%^~") == std::string::npos);
  }
  CHECK(escape::latex("\\input{/etc/passwd}") == "\\textbackslash{}input\\{/etc/passwd\\}");
  CHECK(escape::latex("50% of n_1") == "50\\% of n\\_1");
  // Past ASCII: Latin letters pass, lowercase Greek becomes math, anything else a visible escape pdflatex can set.
  CHECK(escape::latex("Rényi, ε-DP, α ≥ 2") == "Rényi, \\ensuremath{\\varepsilon}-DP, \\ensuremath{\\alpha} \\ensuremath{\\ge} 2");
  CHECK(escape::latex("∑ ∞ − ⊕") == "\\ensuremath{\\sum} \\ensuremath{\\infty} \\ensuremath{-} [U+2295]");
  // The fonts' ligatures broken: the characters typeset as themselves (they read as a dash, curly quotes, „ ¡ ¿).
  CHECK(escape::latex("a--b ---c ``q'' ,, !` ?`") == "a-{}-b -{}-{}-c `{}`q'{}' ,{}, !{}` ?{}`");
  CHECK(escape::latex("evil\xE2\x80\xAEtxt") == "evil[U+202E]txt");
  for (const auto& p : payloads()) CHECK(escape::latex(p).find("\xEF\xBF\xBD") == std::string::npos);
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
      if (std::string("|[]()!*_`#$~^{}").find(e[i]) != std::string::npos) {
        std::size_t slashes = 0;
        for (std::size_t k = i; k > 0 && e[k - 1] == '\\'; --k) ++slashes;
        CHECK(slashes % 2 == 1);
      }
  }
  CHECK(escape::markdown("a | b") == "a \\| b");
  CHECK(escape::markdown("$x$ ~~y~~ ^z^ {.c}") == "\\$x\\$ \\~\\~y\\~\\~ \\^z\\^ \\{.c\\}");
}

TEST_CASE("escape::markdown_code: nothing closes the span", "[escape]") {
  CHECK(escape::markdown_code("privamp verify a.toml") == "` privamp verify a.toml `");
  // A file name with a backtick once closed the span, and the HTML and link after it were live.
  const std::string name = "privamp verify 'fn/f` <img src=x onerror=alert(1)> [l](javascript:alert(1)) ``.toml'";
  const std::string e = escape::markdown_code(name);
  CHECK(e.substr(0, 4) == "``` ");
  CHECK(e.substr(e.size() - 4) == " ```");
  CHECK(e.substr(4, e.size() - 8) == name);
  CHECK(escape::markdown_code("a\x1b[2Jb\xE2\x80\xAE" "c") == "` a[U+001B][2Jb[U+202E]c `");
}

TEST_CASE("escape::csv: quoted fields, no formulas, numbers untouched", "[escape]") {
  CHECK(escape::csv("plain") == "plain");
  CHECK(escape::csv("a,b") == "\"a,b\"");
  CHECK(escape::csv("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(escape::csv("=1+1") == "'=1+1");
  CHECK(escape::csv("@SUM(A1)") == "'@SUM(A1)");
  CHECK(escape::csv("+cmd") == "'+cmd");
  CHECK(escape::csv("-1.5e-3") == "-1.5e-3");
  CHECK(escape::csv("-inf") == "-inf");
  CHECK(escape::csv("-nan(HYPERLINK)") == "'-nan(HYPERLINK)");  // strtod reads it, a spreadsheet runs it
  CHECK(escape::csv("-0x1p3") == "'-0x1p3");
  CHECK(escape::csv("=cmd|' /C calc'!A0,x") == "\"'=cmd|' /C calc'!A0,x\"");
  for (const auto& p : payloads()) {
    std::string e = escape::csv(p);
    if (!e.empty() && e.front() == '"') e = e.substr(1);
    INFO(p << " -> " << e);
    CHECK_FALSE(has_forbidden(e, true));
    if (!e.empty() && std::string("=+@").find(e.front()) != std::string::npos) FAIL("a formula cell: " << e);
  }
}

TEST_CASE("escape::latex: pdflatex typesets every hostile payload, none runs anything", "[escape][latex]") {
  // The same corpus in one document, typeset with the default (restricted) shell escape and halt-on-error: a
  // character pdflatex has no definition for (U+FFFD once) stops it; \\write18 or \\input must not act.
  if (std::system("command -v pdflatex > /dev/null 2>&1") != 0) {
    WARN("pdflatex is not installed (scripts/install-deps.sh --tests installs it): the typesetting check did not run");
    return;
  }
  const auto dir = test::scratch() / "latex_escape";
  std::filesystem::create_directories(dir);
  // Every code point of Latin-1 and Latin Extended-A and -B (ŀ, ŉ, ſ, Ħ and « once passed and stopped pdflatex), in
  // LaTeX's default encoding (OT1) and in T1.
  std::string latin;
  for (char32_t cp = 0xA1; cp < 0x250; ++cp) {
    if (cp == 0xAD) continue;  // the soft hyphen: refused as invisible before it reaches an escaper
    if (cp < 0x800) latin += {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
    latin += ' ';
  }
  for (const char* encoding : {"", "\\usepackage[T1]{fontenc}\n"}) {
    std::string doc = std::string("\\documentclass{article}\n") + encoding + "\\begin{document}\n";
    for (const auto& p : payloads()) doc += escape::latex(p) + "\\par\n";
    doc += escape::latex("Rényi, ε-DP, α ≥ 2, ς ο Ω ∞ ← 中文 😀") + "\\par\n" + escape::latex(latin) + "\\par\n\\end{document}\n";
    write_file(dir / "payloads.tex", doc);
    const std::string command = "cd '" + dir.string() + "' && rm -f payloads.pdf && pdflatex -interaction=nonstopmode -halt-on-error payloads.tex > typeset.log 2>&1";
    const int status = std::system(command.c_str());
    INFO(doc);
    CHECK(status == 0);
    CHECK(std::filesystem::exists(dir / "payloads.pdf"));
    CHECK_FALSE(std::filesystem::exists(dir / "pwned"));
  }
}
