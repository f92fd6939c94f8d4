// One escaper per output language. Every text that reaches an output file from a case file, a figure file or the
// command line passes through exactly one of these, chosen by the file's language; none of them lets a text change
// the structure of its output (start a command, a tag, a cell, a link or a formula).
//
// All of them first make the text plain: the code points no output should carry (control characters, the
// bidirectional overrides and isolates that reorder what a reader sees, U+FFFE/U+FFFF and the other noncharacters
// that XML 1.0 forbids, U+FFFD itself) become a visible escape such as [U+202E], an invalid byte [0xFF], a newline or tab a space —
// never U+FFFD, which hides what was there and which pdflatex cannot typeset. The gnuplot escaper (a single-quoted
// gnuplot string) is plots::quoted, beside the code that writes gnuplot scripts.
//
// Identifiers (bound IDs, case names, labels) are held to one policy at load, text_problem below: a text that plain()
// would change is refused there, so the escapes above only ever show in text from other sources.
#pragma once

#include <string>
#include <string_view>

namespace privamp::escape {

// Valid UTF-8 without control characters (newlines, tabs and carriage returns become spaces, newlines kept with
// keep_newlines; every other control character, like bidirectional controls and noncharacters, is written as
// [U+XXXX]; an invalid byte as [0xXX]).
std::string plain(std::string_view text, bool keep_newlines = false);

// The same with newlines, tabs and carriage returns visible too ([U+000A]): a name quoted in a message, where a space
// would hide what the name holds.
std::string visible(std::string_view text);

// The text policy for identifiers and labels: empty if `text` is valid UTF-8 without control characters, bidirectional
// controls or noncharacters; otherwise what is wrong and where ("a control character U+001B at byte 3").
std::string text_problem(std::string_view text);

// LaTeX text mode: \ { } $ & # ^ _ % ~ written as their text-mode commands, < > | as \textless{} \textgreater{}
// \textbar{} (so that T1 and OT1 encodings print them), newlines kept as spaces. No command can be formed. Of the
// code points past ASCII, those of Latin-1 and Latin Extended-A that pdflatex's utf8 input defines in both OT1 and
// T1 pass, lowercase Greek letters become \ensuremath{\alpha} and the like, and every other one the visible
// [U+XXXX]: pdflatex stops at a character it has no definition for, so none reaches it. Mathematical symbols (≤ ≥ ∑ ∞
// …) become \ensuremath{\le} and the like; the fonts' ligatures (-- ``, '' ,, !` ?`) are broken by an empty group.
std::string latex(std::string_view text);
// Whether LaTeX's fonts would join c and the character after it into a ligature (a dash, curly quotes, „ ¡ ¿): an
// escaper writing character by character puts an empty group between them.
bool latex_ligature(char c, char next);

// XML 1.0 character data and attribute values: & < > " ' as entities.
std::string xml(std::string_view text);

// HTML character data and attribute values: & < > " ' as entities.
std::string html(std::string_view text);

// Markdown inline text (a table cell, a heading): what would start markup — HTML tags and entities (& < >), links and
// images ([ ] ( ) !), emphasis and code (* _ `), the cell separator | and the backslash — escaped, so the text
// renders as written and no link, script or raw HTML reaches the page.
std::string markdown(std::string_view text);
// Text as a Markdown code span (a command line in report.md): fenced by more backticks than any run inside it, so
// nothing in it closes the span; controls and the like made visible as plain() does.
std::string markdown_code(std::string_view text);

// A TOML basic string ("...") that reads back as the same text: " and \ escaped, control characters and every code
// point plain() would make visible (bidirectional controls, invisible characters, noncharacters, U+FFFD) as \uXXXX or
// \UXXXXXXXX, so that no text can end the string or start a key, and a file shows what it holds. (TOML files hold
// valid UTF-8 only; an invalid byte, which no text read from one has, is written as the visible text [0xFF].)
std::string toml(std::string_view text);

// A CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a text that a spreadsheet would take
// for a formula (starting with = + - @, a tab or a carriage return, and not a number) gets a leading apostrophe.
std::string csv(std::string_view text);

}  // namespace privamp::escape
