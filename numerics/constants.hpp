// The floating-point constants every engine uses, spelled once.
#pragma once

#include <limits>

namespace privamp {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kEps = std::numeric_limits<double>::epsilon();  // the spacing of doubles at 1
inline constexpr double kU = kEps / 2;                                  // unit roundoff of round-to-nearest
// Relative slack when two printed intervals are compared (the rounding of their ends to doubles).
inline constexpr double kSlack = 1e-12;

}  // namespace privamp
