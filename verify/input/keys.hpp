// Every table a case file may hold and the keys each accepts. The readers (verify/cases/case.cpp for cases and
// bounds, plots/figures.cpp for figures) check a file's keys against these lists, and docs/case-files.md documents
// each key of each table: a test reads the reference and fails on any key it does not document.
#pragma once

#include <array>
#include <string_view>
#include <vector>

namespace privamp::verify {

struct KeyTable {
  std::string_view name;  // as the reference heads its section: "[[case]]", "[case.grid] ranges", ...
  std::vector<std::string_view> keys;
};

inline const KeyTable kFileKeys{"top level", {"case", "bound", "figure", "style"}};
inline const KeyTable kCaseKeys{"[[case]]",
                                {"name", "bounds", "kind", "mu", "nu", "kernel", "quantity", "order", "symmetric", "engine",
                                 "cross_check", "tolerance", "grid", "derived", "explore", "comment"}};
inline const KeyTable kGridRangeKeys{"[case.grid] ranges", {"from", "to", "points", "scale"}};
inline const KeyTable kExploreRangeKeys{"[case.explore] ranges", {"min", "max", "scale", "integer", "label"}};
// [case.explore]'s keys besides the grid parameters it searches.
inline const KeyTable kExploreKeys{"[case.explore] conditions", {"where", "degenerate"}};
inline const KeyTable kBoundKeys{"[[bound]]",
                                 {"id", "source", "statement", "quantity", "direction", "requires", "formula", "order",
                                  "family", "exact", "comment"}};
inline const KeyTable kFigureKeys{"[[figure]]",
                                  {"name", "title", "description", "x", "xlabel", "ylabel", "log", "xrange", "yrange",
                                   "key", "series", "style"}};
// A figure's look: [style] for every figure of a file, style = {...} in a [[figure]] over it.
inline const KeyTable kStyleKeys{"[style]",
                                 {"size", "width", "height", "font", "font_size", "line_width", "palette", "outputs", "show_title"}};
inline const KeyTable kFigureKeyKeys{"[figure.key]", {"position", "box", "opaque", "columns", "off"}};
inline const KeyTable kSeriesKeys{"[[figure.series]]", {"case", "id", "y", "where", "scale", "title", "style", "line", "point_size"}};

inline const std::array<const KeyTable*, 10> kAllKeyTables = {&kFileKeys,    &kCaseKeys,   &kGridRangeKeys, &kExploreRangeKeys,
                                                              &kExploreKeys, &kBoundKeys,  &kFigureKeys,    &kFigureKeyKeys,
                                                              &kSeriesKeys,  &kStyleKeys};

}  // namespace privamp::verify
