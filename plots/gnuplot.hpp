// Running gnuplot on text that came from users' files, safely. No shell is involved: gnuplot is looked up on PATH
// and started with fork/execv (by its absolute path) and an argument vector; it runs in the output directory, so a
// script names its data and output files relative to it and no path reaches a script; its messages go to a log
// file there. Every user string that reaches a script is a single-quoted gnuplot string (no backquote or macro
// substitution happens inside one; quotes are doubled) with control characters (which would end the command)
// replaced by spaces. Free gnuplot commands are never taken from a file: the key is structured (KeyOptions).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace privamp::plots {

// Text shown literally in gnuplot's enhanced mode (a parameter's name such as gamma_doeblin): the characters that
// mark subscripts, superscripts and groups escaped with a backslash (for quoted(), a single-quoted string).
std::string literal(const std::string& text);
// A gnuplot single-quoted string literal for any text (an escaped backslash, "\\", written single where gnuplot will
// not read the string as enhanced text: it holds none of ^ _ @ & ~ { }).
std::string quoted(const std::string& text);
// An explicit tick's label (`set xtics ('label' position)`) shown literally: gnuplot reads such a label as a format
// of the position, so '%' is doubled, on top of literal() and quoted().
std::string tic_label(const std::string& text);
// The figure markup (docs/case-files.md) as a gnuplot string: quoted() with gnuplot's enhanced-text operators that
// are not part of the markup (& invisible space, @ zero width, ~ overprint) escaped, so that they print as themselves
// — in the PDF as in the caption and the pgfplots file (an escaped character is copied as it is) — and the markup's
// relations <=, >=, -> drawn as ≤, ≥, →.
std::string markup_quoted(const std::string& text);
// A title as a gnuplot string expression: markup_quoted lines of at most about `width` characters as printed, broken
// at spaces outside markup groups ({/Symbol a} stays whole) and joined by "\n" (a title of 130 characters ran off
// both edges of a 7-inch plot: "rem 4 …").
std::string markup_title(const std::string& text, std::size_t width);

// Whether `text` breaks the text policy of escape::text_problem (refused at load in names, titles and labels).
bool has_control_character(const std::string& text);

// Where the key goes and how it looks, as `set key` words built from a fixed vocabulary.
struct KeyOptions {
  std::string position = "below";  // words from: below above top bottom left right center inside outside
  bool box = false, opaque = true, off = false;  // opaque: the shared style's key hides no data under it
  int columns = 0;  // 0: gnuplot's choice; else at most this many (gnuplot fills them column by column)
  std::string render() const;  // the arguments of `set key`
};
// Reads a key given as words ("below nobox", the figures' older form) into KeyOptions; InvalidArgument naming the
// first word outside the vocabulary.
KeyOptions parse_key_words(const std::string& words);
bool is_key_position_word(const std::string& word);

// What `figures` and `explore` need to draw: "" when gnuplot and pdftoppm are installed, else what to install.
std::string missing_plot_tools();
bool gnuplot_available();  // missing_plot_tools().empty()
bool program_available(const std::string& name);  // on PATH and executable
// Runs NAME (looked up on PATH, started by its absolute path with fork/execv and ARGS; no shell) in `dir`, its
// output appended to LOG (relative to `dir`; never through a link). NumericalError quoting the log when it fails;
// InvalidArgument when it is not installed.
void run_program(const std::filesystem::path& dir, const std::string& name, const std::vector<std::string>& args,
                 const std::string& log);
// Runs `gnuplot SCRIPT` in `dir` (SCRIPT a path relative to it), its output going to LOG (relative to `dir`); data
// files not in `dir` are read from `data_dir` (relative to `dir`). NumericalError quoting the log when gnuplot fails.
void run_gnuplot(const std::filesystem::path& dir, const std::string& script, const std::string& log, const std::string& data_dir = "");
// NumericalError unless `file` ends with `trailer` within its last 64 bytes (a PDF's %%EOF, a PNG's IEND chunk): a
// helper's output checked complete before it is published.
void require_complete(const std::filesystem::path& file, std::string_view trailer);

// The reproducible-builds convention for a PDF's creation date: the time SOURCE_DATE_EPOCH gives (whole seconds
// since 1970, UTC), or none when it is unset, so that two runs draw identical PDFs. InvalidArgument naming the
// variable, its value and the allowed range when it is set to anything else (checked before a computation starts).
std::optional<long long> source_date_epoch();
// Writes that date over the creation date cairo put in PDF (its "/CreationDate (D:YYYYMMDDHHMMSSZ)", the same
// length, so that the file's offsets stay valid); nothing when SOURCE_DATE_EPOCH is unset. NumericalError when the
// file has no such date.
void stamp_pdf_date(const std::filesystem::path& pdf);

}  // namespace privamp::plots
