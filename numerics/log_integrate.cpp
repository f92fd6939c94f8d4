#include "numerics/log_integrate_impl.hpp"

namespace privamp {
template LogIntegral<double> log_integrate<double>(const std::function<double(double)>&, std::vector<double>,
                                                   const LogIntegrateOptions<double>&);
}
