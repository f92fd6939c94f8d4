// What the exploration figures share (plots/explore_plots.cpp: the map; explore_frontier.cpp; explore_convergence.cpp):
// their style, which points they draw, how their titles name the search and how ratio axes are ticked.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "plots/figures.hpp"
#include "verify/explore/explore.hpp"

namespace privamp::plots::explore_parts {

// The page width of a two-column paper, a little taller than the figures' (a colour bar and a longer key), 9 pt.
Style explore_style();
// A point the search may answer with and a figure can place (a finite ratio).
bool candidate(const verify::Evaluation& e, bool ignore);
// A point verify judged tight that has no ratio (exact and bound 0, or below the double range).
bool tight_without_ratio(const verify::Evaluation& e);
// A ratio named for a tick or a key from its log10: 0.534, 1.00077, 10^{15}.
std::string ratio_tick(double log10_ratio);
// The convergence figure (explore_convergence.cpp): STEM_convergence.{csv,gp,pdf,png} in DIR.
void render_convergence(const verify::ExploreResult& r, bool ignore, const std::filesystem::path& dir, const std::string& stem);
// A searched parameter's axis label in enhanced text (its range's label, else the name: delta as δ).
std::string axis_label(const verify::ExploreResult& r, const std::string& name);
// Ticks of a ratio axis (AXIS: y, or cb for a colour bar) from log10 LO to log10 HI, labelled with ratios.
std::string ratio_tics(double lo, double hi, const std::string& axis = "y");
// What the search looked for, as a title says it.
std::string goal_phrase(verify::Goal goal);
// The axes in the order a map draws them: the most influential of those on which the evaluations take 5 or more
// values, then the others (a word or a short list, on which points pile up) by influence.
std::vector<std::size_t> map_axes(const verify::ExploreResult& r);
// A map axis's gnuplot settings (label, range, ticks) and a point's coordinate on it: a categorical axis (a choice of
// words, or of fewer than 5 numbers) places its values at their indices, each ticked.
std::string axis_settings(const verify::ExploreAxis& a, char axis);
double coordinate(const verify::ExploreAxis& a, const verify::Params& p);
// The statement by its source's label with the ID in brackets, then the case.
std::string title_head(const verify::ExploreResult& r);

}  // namespace privamp::plots::explore_parts
