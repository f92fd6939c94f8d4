// The exact description of a projected Gaussian chain on an interval, read by the certified engine
// (verify/divergence/certified/chains.cpp), which encloses the chain's law rigorously instead of propagating it
// on a grid with an estimated error:
//   X_0 = start,   X_t = Π_[lo,hi](ψ_t(X_{t−1}) + N(0, s_t²)),   t = 1..T.
// A step's map ψ_t is given by enclosures of ψ, ψ' and ψ'' over an interval of x (interval arithmetic on the
// formula or the named map, sim/formulas/enclosure.hpp); ψ'' may be unbounded over intervals that hold a kink.
// Two chains of one process (Law::chain_forms_with) share their interval and may differ in the start and in
// the maps of some steps; steps with equal `id` and `s` are the same kernel.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/formulas/enclosure.hpp"

namespace privamp::sim {

struct MapEnclosure {
  Enclosure value, slope, curvature;  // ψ, ψ', ψ'' over the interval
};

struct ChainStep {
  std::function<MapEnclosure(const Enclosure& x)> map;
  double s = 1;    // the noise's standard deviation (exact as stored)
  std::string id;  // what identifies the map among the chain's steps
  bool same_kernel(const ChainStep& o) const { return id == o.id && s == o.s; }
};

struct ChainForm {
  double lo = 0, hi = 1;
  double start = 0;
  std::vector<ChainStep> steps;
};

}  // namespace privamp::sim
