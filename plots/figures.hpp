// Figures as data. A figure is a selection of the rows that `verify` computes plus presentation, declared in a
// [[figure]] table beside the cases it draws from (plots/figures.toml ships the paper figures; every key: docs/case-files.md):
//
//   [[figure]]
//   name = "iteration"                     # file stem of NAME.csv, NAME.gp, NAME.pdf, NAME.png
//   title = "Amplification by iteration (Theorem 4)"
//   description = "what is plotted, in the documents' notation"   # the same markup as titles: the caption's text
//   x = "r"                                # a parameter of the rows, or "order" (the row's alpha or eps')
//   xlabel = "r"                           # gnuplot enhanced text; ylabel likewise
//   log = "xy"                             # "", "x", "y" or "xy"
//   xrange = [1, 50]                       # optional, as yrange
//   key = "below nobox"                    # key words (below above top bottom left right center inside outside box
//                                          # nobox opaque noopaque off), or {position = "top left", box = true,
//                                          # opaque = false, columns = 2, off = false}; the default keeps it off the data
//   [[figure.series]]
//   case = "noisy linear iteration"        # a case of the files loaded with the figure
//   id = "T4.closed"                       # the row's theorem ID
//   y = "exact"                            # exact (with its interval as error bars) | bound | ratio (bound/exact)
//   where = {L = 0.5}                      # optional: keep the rows with these parameter values
//   scale = "1/alpha"                      # optional: a formula of the row's parameters multiplying y
//   title = "exact, L = 0.5"
//   style = "points"                       # points | lines | linespoints (default: points for exact, lines else)
//   line = 1                               # the shared style's line 1..6, or 9 (thin black reference)
//   point_size = 1.3                       # markers of a points series (a larger one shows under a coinciding one)
//
// `privamp figures` runs the cases its figures use through the same runner as `verify` (verdicts and all) and
// draws only those rows, so a figure cannot show a number that was not verified. Rows in error are not drawn;
// a not-applicable row is drawn where its values were computed (the CSV keeps each point's verdict).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "plots/gnuplot.hpp"
#include "plots/markup.hpp"
#include "verify/cases/case.hpp"
#include "verify/runner/runner.hpp"

namespace privamp::plots {

struct Series {
  enum class Y { exact, bound, ratio };
  std::string case_name, id;
  Y y = Y::exact;
  std::vector<std::pair<std::string, std::variant<double, std::string>>> where;
  std::string scale;  // formula (empty: 1)
  std::string title;
  std::string style;  // points | lines | linespoints
  int line = 1;
  double point_size = 1.0;  // the markers of a points series: 2 pt from centre to edge per unit, in every rendering
};

// How a figure looks, as data: a file's [style] table applies to its figures, a figure's style = {...} over it.
// Sizes in inches: size = "single" (one column of a two-column paper, 3.5 x 2.6, the default) or "double" (the
// page width, 7 x 3), or width and height; the font and its size in points are those of the PDF; outputs: pdf
// (gnuplot's cairo terminal), png (that PDF rasterised at 200 pixels per inch by pdftoppm: the same picture, legend
// and proportions) and pgfplots (NAME.tex, a tikzpicture whose labels the paper's LaTeX typesets, with the data
// inline, \columnwidth wide for "single" and \textwidth for "double", the legend below the axes).
struct Style {
  std::string size = "single";  // "single", "double", or "" for a width and height of the file's
  double width = 3.5, height = 2.6;
  std::string font = "Helvetica";
  double font_size = 9;
  double line_width = 1.5;
  // Okabe-Ito, ordered so that lines 1, 2, 3 (the series most figures draw) differ in grey as well: luminance 87, 119,
  // 151 (green, 106, was line 3 and merged with line 2's vermilion in grayscale print).
  std::vector<std::string> palette = {"#0072B2", "#D55E00", "#CC79A7", "#009E73", "#E69F00", "#56B4E9"};
  std::vector<std::string> outputs = {"pdf", "png"};
  // Where the title goes, once: true, over the plot (PDF, PNG and pgfplots) and not in NAME_caption.txt; false, in
  // NAME_caption.txt (a paper's caption) and not over the plot.
  bool show_title = true;
  bool wants(const std::string& output) const;
  bool resize(const std::string& preset);  // "single" or "double" with its width and height; false for another word
};

struct Figure {
  std::string file = {};  // where it was declared
  std::string name = {}, title = {}, description = {};
  std::string x = {}, xlabel = {}, ylabel = {}, log = {};
  KeyOptions key = {};
  std::optional<std::pair<double, double>> xrange = {}, yrange = {};
  std::vector<Series> series = {};
  Style style = {};
};

struct FigureSet {
  std::vector<Figure> figures;
  std::vector<verify::Case> cases;  // every case of the files (bounds declared there are registered)
};

// Loads the [[figure]] tables and the cases of the files (or of every *.toml below a directory), checking that
// every series names an existing case, one of its bound IDs and, for x, a parameter of its grid. Errors name the
// file, line and key.
FigureSet load_figures(const std::vector<std::filesystem::path>& paths);

// The cases the figures draw from (by name), with only the bound IDs they plot; reduced: at most three values per
// grid axis (first, middle, last) for a quick look.
std::vector<verify::Case> cases_for(const std::vector<const Figure*>& figures, const FigureSet& set, bool reduced);

struct Point {
  double x, y, lower, upper;  // lower = upper = y for bounds
  std::string verdict;
  verify::Params params = {};
};

// Each series' points, sorted by x, from the verified rows.
std::vector<std::vector<Point>> select(const Figure& figure, const std::vector<verify::Row>& rows);

// The gnuplot settings of the shared look: the PDF terminal of `style` writing `output`, the grid and key, and the
// series' line styles (line k of the figure files: colour, dash pattern and point type all distinct, so that a
// figure reads in grayscale; line 9 a thin black dashed reference).
std::string style_preamble(const std::string& output, const Style& style = {});
// The dash pattern and point type of line k (1..6, 9) in gnuplot's terms, and its pgfplots mark and dash pattern.
struct SeriesLook {
  int point;
  const char* dash;
  const char* pgf_mark;
  const char* pgf_dash;
};
SeriesLook series_look(int line);
// The line width of line k (1..6, 9) in a style: the style's, and 1.5 times it for a colour light in grey (luminance
// above 155 of 255: Okabe-Ito's orange, 162, and sky blue, 158), whose lines and open marks faded in grayscale print
// (line 3's pink, 151, is the lightest of lines 1-3 so that they differ in grey, and keeps the width). The luminance,
// 0.299 R + 0.587 G + 0.114 B, of a "#RRGGBB" colour.
double grey_luminance(const std::string& colour);
double line_width(const Style& style, int line);
// A series' look in its figure: the colour and mark shape of its line; a bound dashed with open marks, an exact value
// or a ratio solid with filled ones, in every figure alike (line 9, the gray reference, as series_look has it).
SeriesLook figure_look(const Figure& figure, std::size_t series);

// Writes NAME.csv (one block per series with points, two blank lines apart: series index, x, y, lower, upper,
// verdict) and NAME.gp and runs gnuplot for the style's PDF and PNG; NAME_tidy.csv (one row per point: series,
// its ID, case and quantity, x, value, lower, upper, verdict, the row's parameters); NAME_caption.txt (what is
// drawn, the series' selections, the verdicts, whether the intervals are visible; titles in LaTeX); NAME.tex for pgfplots when the
// style asks. Throws InvalidArgument with a clear message when gnuplot is not installed, NumericalError if it fails.
// The files render writes for a figure (its data, tidy data, captions, provenance, and the style's pgfplots file and
// gnuplot outputs): what a run checks before its computation.
std::vector<std::string> figure_files(const Figure& figure);
void render(const Figure& figure, const std::vector<std::vector<Point>>& data, const std::filesystem::path& dir);

// Writes NAME.gp (the comment, the shared style, the title and the body, for the PDF then the PNG) and runs gnuplot
// for `dir` (the body names its files relative to `dir`; user text in it must come through quoted()): the script,
// PDF, PNG and NAME.log, empty or not, are published together into `dir` (explore's staged folder, whose commit
// drops empty logs).
void render_gnuplot(const std::filesystem::path& dir, const std::string& name, const std::string& title,
                    const std::string& comment, const std::string& body, const Style& style = {});


}  // namespace privamp::plots
