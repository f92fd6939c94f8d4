// What `privamp explore` writes: a Markdown summary (the best points re-evaluated, the objective's trajectory, the
// coverage of the space, where the conclusion fails outside the hypotheses), CSV and JSON of every evaluated point,
// and a one-point case file per reported point that `privamp verify` reproduces.
#pragma once

#include <filesystem>
#include <string>

#include "verify/explore/explore.hpp"
#include "verify/report/report.hpp"
#include "verify/records/codec.hpp"

namespace privamp::verify {

// "bound/exact" for upper bounds, "exact/bound" for lower ones: exp(slack) in words.
std::string slack_ratio_name(Direction direction);
// exp(slack) as text; beyond the range of doubles as a power of ten ("1e+1234").
std::string ratio_text(double slack);
// What a re-evaluated row's ratio is known to be from the intervals of its exact value and bound (bound/upper to
// bound/lower for an upper bound), as " (the intervals allow 53.9 to inf)"; empty where that range is within 1% of
// the ratio. The search ranks points by the engine's value; where its interval is wide (an enclosure [0, u] of a
// value of 1e-47) the ratio of the values is an estimate and only the range is established.
std::string ratio_range_note(Direction direction, const Row& row);
// The searched axes on whose range's end a point lies (within a thousandth of the range, on its scale), as
// "delta = 0.01 at its lower end"; empty when none: an optimum there may lie beyond the box searched.
std::string edges_text(const ExploreResult& r, const Params& point);

std::string explore_markdown(const Case& c, const ExploreResult& r, const ExploreOptions& options,
                             const std::string& stem);
// Every evaluation as a row (what STEM.csv holds and Python's explore returns), its columns those of the point's
// field list (verify/records/fields.hpp): index, phase ("global" or "local K"), the searched axes, status, verdict,
// outside (0/1), exact, exact_lower, exact_upper, bound, bound_lower, bound_upper, slack, ratio (e^slack:
// bound/exact, exact/bound for a lower bound), objective, message.
FlatTable explore_table(const ExploreResult& r);
void write_explore_csv(const ExploreResult& r, const std::filesystem::path& file);
// A frontier per bin (STEM_frontier.csv; fields.hpp's frontier line): lower, upper, candidates, the best point's ratio
// and parameters, its re-evaluated exact value, bound and verdict, and the bin's degenerate optimum where it beats
// the best point.
FlatTable frontier_table(const FrontierResult& f);
std::string frontier_markdown(const Case& c, const FrontierResult& f, const ExploreOptions& options, const std::string& stem);
// A search as one tree (what STEM.json holds and Python's explore returns; fields.hpp's search record): file,
// case, id, goal, direction, budget, seed, ignore_hypotheses, axes (names), ranges, influence and coverage (per
// axis), where, global_points, points (explore_table's records), best (the re-evaluated rows, codec.hpp's records)
// and best_index, degenerate and degenerate_index, stopped, passed_over and passed_over_reason, and frontier (null).
Tree explore_json(const ExploreResult& r, const ExploreOptions& options);
// The frontier's search with frontier = {name, log, bins}; per bin: lower, upper, candidates, refined, not_refined,
// best_index, best, degenerate_index, degenerate, degenerate_condition (STEM_frontier.json).
Tree frontier_json(const FrontierResult& f, const ExploreOptions& options);

// A case file with the k-th best point as its only grid point (`privamp verify FILE` reproduces the row).
std::string one_point_case(const Case& c, const ExploreResult& r, std::size_t k);
// `privamp divergence 'mu' 'nu' --renyi 2` for a laws row (empty for other kinds or quantities).
std::string divergence_command(const Row& row);

// The file stem of a (case, ID) exploration: the case name and the ID, in letters, digits, '-' and '_', then six hex
// digits of a hash of the exact pair (distinct pairs get distinct stems, although cleaning maps "x " and "x" alike).
std::string explore_stem(const std::string& case_name, const std::string& id);
// The first words of every one-point case file explore writes.
inline constexpr const char* kPointFileHeader = "# Written by privamp explore:";
// Removes the STEM_pointK.toml files with K > `kept` that an earlier run wrote in `dir` (those starting with
// kPointFileHeader; any other file is left alone), so that a directory never mixes the points of two runs. Called
// after the new points 1..kept are written (each replaces its old file atomically): a run killed before it leaves
// the old files whole.
void remove_stale_point_files(const std::filesystem::path& dir, const std::string& stem, std::size_t kept);

}  // namespace privamp::verify
