#include "verify/divergence/work.hpp"

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp::verify {

namespace {
thread_local double work = 0;
thread_local int depth = 0;
thread_local bool spent = false;
}  // namespace

ValueWork::ValueWork() {
  if (depth++ == 0) work = 0, spent = false;
}
ValueWork::~ValueWork() { --depth; }

bool charge_density_work(double evaluations) noexcept {
  if (depth == 0) return true;
  if ((work += evaluations) > kMaxDensityWork) spent = true;
  return !spent;
}

double density_work() noexcept { return work; }

void throw_if_work_spent(const std::string& what, double point_cost) {
  if (depth > 0 && spent)
    throw NumericalError(fmt::format("{} would need more than {:.0e} density evaluations (about ten seconds; each point "
                                     "costs {:g} closed-form densities, as a mixture costs one per component): fewer "
                                     "mixture components, or another engine",
                                     what, kMaxDensityWork, point_cost));
}

}  // namespace privamp::verify
