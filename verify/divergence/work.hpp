// The density evaluations one value may take. Each value an engine computes (one quantity of one pair, one level of a
// composed curve) runs inside a ValueWork scope; closed-form density evaluations are charged to it before they are
// made — a mixture of m laws costs m per point (sim::Computation::density_cost) — and past kMaxDensityWork the value
// is refused, naming the cost, instead of running for minutes (a plain mixture of 40,000 Gaussians took 96 s for one
// Rényi order, a composed binomial_mix of 2,000 components minutes).
#pragma once

#include <string>

namespace privamp::verify {

// About ten seconds of closed-form densities (a Gaussian's log-density costs about 10 ns).
inline constexpr double kMaxDensityWork = 1e9;

// One value's budget on this thread: the outermost scope starts it afresh; nested scopes share it.
class ValueWork {
 public:
  ValueWork();
  ~ValueWork();
  ValueWork(const ValueWork&) = delete;
  ValueWork& operator=(const ValueWork&) = delete;
};

// Charges `evaluations` density evaluations to the current value; false once its total passes kMaxDensityWork (and
// from then on until the scope ends). Outside any scope nothing is counted and the answer is true. Never throws: the
// densities it guards are called from GSL's C code, which returns NaN instead (as after Ctrl-C).
bool charge_density_work(double evaluations) noexcept;
// The evaluations charged to the current value so far.
double density_work() noexcept;
// NumericalError naming the value (`what`) and the cost of one point when the current value's budget is spent.
void throw_if_work_spent(const std::string& what, double point_cost);

}  // namespace privamp::verify
