// Paper figures: one specification per figure — the data it needs (computed by the engines and the theorem
// catalogue, never typed in) and the gnuplot commands that draw it. `privamp figures` writes NAME.csv (the columns
// named in the header row; enough to redraw the figure elsewhere), NAME.gp, and renders NAME.pdf (vector, for
// papers) and NAME.png (screens) with gnuplot's cairo terminals. Styling lives in one place: style_preamble().
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace privamp::plots {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
};

struct Figure {
  std::string name;         // file stem, e.g. "iterated_laplace"
  std::string title;
  std::string description;  // what is plotted, in the documents' notation
  std::function<Table(bool reduced)> data;  // reduced: a small grid for tests
  std::string plot;         // gnuplot commands after the shared preamble; the data file is 'DATA'
};

const std::vector<Figure>& figure_catalogue();

std::string style_preamble(const std::string& output, bool pdf);
void write_csv(const Table& table, const std::filesystem::path& file);

// Writes the CSV and the script, then runs gnuplot for the PDF and the PNG. Throws InvalidArgument with a
// clear message when gnuplot is not installed, NumericalError if it fails.
void render(const Figure& figure, const std::filesystem::path& dir, bool reduced = false);
bool gnuplot_available();

}  // namespace privamp::plots
