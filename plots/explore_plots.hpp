// The figures of an exploration, through the same gnuplot pipeline and style as `privamp figures`: the objective
// over the two most influential axes (every evaluated point coloured by its slack, the reported points marked) and
// the convergence of the search (best slack so far against the evaluation count, the end of the global phase
// marked). Written as STEM_map.{csv,gp,pdf,png} and STEM_convergence.{csv,gp,pdf,png}.
#pragma once

#include <filesystem>
#include <string>

#include "verify/explore/explore.hpp"

namespace privamp::plots {

void render_explore(const verify::ExploreResult& r, bool ignore_hypotheses, const std::filesystem::path& dir,
                    const std::string& stem);
// A frontier (STEM_frontier.{csv,gp,pdf,png}): every candidate point's ratio against the frontier's quantity (grey),
// the best point of each bin re-evaluated (a line through them), and each bin's degenerate optimum where it beats
// the best point (open red triangles).
void render_frontier(const verify::FrontierResult& f, bool ignore_hypotheses, const std::filesystem::path& dir,
                     const std::string& stem);

}  // namespace privamp::plots
