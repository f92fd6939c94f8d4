// 50-decimal-digit binary floating point, for reference recomputations in tests and tools. Heavy header:
// include it only where multiprecision is used.
#pragma once

#include <boost/multiprecision/cpp_bin_float.hpp>

#include "numerics/log_integrate.hpp"

namespace privamp {

using Real50 = boost::multiprecision::cpp_bin_float_50;

extern template LogIntegral<Real50> log_integrate<Real50>(const std::function<Real50(Real50)>&,
                                                          std::vector<Real50>, const LogIntegrateOptions<Real50>&);

}  // namespace privamp
