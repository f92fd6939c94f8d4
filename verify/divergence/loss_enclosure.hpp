// The supremum of the privacy loss L = log p − log q over an interval by branch and bound on the laws' log-density
// enclosures (sim::LogDensityRanges, read through sim::Computation::ranges), for pairs where both laws have one. The density engines' R_∞ search
// (a scan, then Brent at the best point) sees only the maxima its scan resolves: a loss that oscillates between the
// scan's points (−|x|^1.5 + |x|^1.4 sin x against −|x|^1.5) has maxima it steps over. Here every piece of the
// interval is either bounded below the best loss found, or split: what is returned holds for the whole interval, up
// to the laws' log-density errors.
#pragma once

#include <optional>

#include "sim/laws/law.hpp"

namespace privamp::verify {

struct LossBound {
  double best = 0;      // the largest loss at a point evaluated (a lower end of sup L over the interval)
  double bound = 0;     // sup L over the interval is at most this (pieces left by the budget count with their bound)
  bool complete = false;  // every piece was bounded within the tolerance of `best` (bound = best + tolerance)
  long evaluations = 0;
};

// Best-first branch and bound over [a, b] (finite, within p's support): pieces are taken in the order of their
// bound, the loss evaluated at each one's middle, and pieces whose bound is within `tolerance` of the best loss are
// done. At most `budget` pieces are split. nullopt if either law has no enclosure there.
std::optional<LossBound> bound_loss(const sim::Law& p, const sim::Law& q, double a, double b, double tolerance,
                                    long budget = 20000);

}  // namespace privamp::verify
