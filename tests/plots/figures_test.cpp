// Figures: each one's data on a reduced grid has the documented columns and finite values where expected; rendering
// produces a non-empty PDF and a PNG of the configured size when gnuplot is installed.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <catch2/catch.hpp>

#include "plots/figures.hpp"

using namespace privamp;

TEST_CASE("every figure's data has its columns on a reduced grid", "[plots]") {
  std::set<std::string> names;
  for (const auto& f : plots::figure_catalogue()) {
    INFO(f.name);
    CHECK(names.insert(f.name).second);
    const plots::Table t = f.data(true);
    REQUIRE(!t.rows.empty());
    for (const auto& row : t.rows) {
      CHECK(row.size() == t.columns.size());
      CHECK(std::isfinite(row[0]));  // the abscissa
      // NaN marks a missing value (an empty CSV field); every row carries at least one value.
      CHECK(std::any_of(row.begin() + 1, row.end(), [](double v) { return !std::isnan(v); }));
    }
    // The plot commands refer only to existing columns.
    for (std::size_t at = f.plot.find("using 1:"); at != std::string::npos; at = f.plot.find("using 1:", at + 1))
      CHECK(std::stoul(f.plot.substr(at + 8)) <= t.columns.size());
  }
  CHECK(names.size() == 9);
}

TEST_CASE("rendering writes CSV, script, PDF and PNG of the configured size", "[plots]") {
  if (!plots::gnuplot_available()) {
    WARN("gnuplot not installed: rendering not tested");
    return;
  }
  const auto dir = std::filesystem::temp_directory_path() / "privamp_figures_test";
  std::filesystem::remove_all(dir);
  const auto& f = plots::figure_catalogue().front();
  plots::render(f, dir, true);
  for (const char* ext : {".csv", ".gp", ".pdf", ".png"}) {
    INFO(ext);
    CHECK(std::filesystem::file_size(dir / (f.name + ext)) > 100);
  }
  // PNG header: width and height are big-endian at bytes 16..23 (1000 x 680 in the shared style).
  std::ifstream png(dir / (f.name + ".png"), std::ios::binary);
  unsigned char header[24];
  png.read(reinterpret_cast<char*>(header), 24);
  const auto be = [&](int at) { return (header[at] << 24) | (header[at + 1] << 16) | (header[at + 2] << 8) | header[at + 3]; };
  CHECK(be(16) == 1000);
  CHECK(be(20) == 680);
  std::ifstream pdf(dir / (f.name + ".pdf"), std::ios::binary);
  std::string magic(5, '\0');
  pdf.read(magic.data(), 5);
  CHECK(magic == "%PDF-");
}
