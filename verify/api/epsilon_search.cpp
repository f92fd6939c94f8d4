#include "verify/api/epsilon_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::api {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

ProfileAt profile_at(const std::string& mu, const std::string& nu, double eps, const DivergenceRequest& request) {
  DivergenceRequest r = request;
  r.hockey_stick = {eps};
  r.progress = nullptr;  // one step of a root search: no progress of its own
  const verify::Estimate e = privacy_profile(mu, nu, r).delta.front();
  return {e.lower, e.upper, e.error_kind, e.level};
}


namespace {

// The bracket of ε(δ) by a search on the profile's intervals (epsilon_for_delta checks the inputs). A probe moves an
// end only by the rule of the bracket: δ certainly above (lower) or certainly at most (upper).
class EpsilonSearch {
 public:
  EpsilonSearch(const std::string& mu, const std::string& nu, double delta, const DivergenceRequest& request, double eps_max,
                double rel_tol)
      : mu_(mu), nu_(nu), delta_(delta), log_delta_(std::log(delta)), request_(request), eps_max_(eps_max), rel_tol_(rel_tol) {}

  verify::Estimate run() {
    const auto at_zero = profile(0);
    if (at_zero.second <= delta_) return finish(0, 0, "delta(0) is already at most delta");
    lower_ = 0;
    f_lower_ = offset(at_zero);
    find_upper();
    refine();
    verify::Estimate e = finish(lower_, upper_, how());
    place_value(e);
    return e;
  }

 private:
  using Interval = std::pair<double, double>;

  // The profile's interval at eps; the kinds and levels of every probe are carried into the result.
  Interval profile(double eps) {
    const ProfileAt p = profile_at(mu_, nu_, eps, request_);
    if (verify::weakness(p.kind) > verify::weakness(kind_)) kind_ = p.kind;
    level_ = std::min(level_, p.level);
    ++evaluations_;
    return {p.lower, p.upper};
  }
  // log of the interval's midpoint − log δ: the function whose root the secant steps look for.
  double offset(const Interval& d) const {
    const double m = 0.5 * (d.first + d.second);
    return (m > 0 ? std::log(m) : -kInf) - log_delta_;
  }
  verify::Estimate finish(double lower, double upper, const std::string& how) const {
    verify::Estimate e = verify::Estimate::from_interval(lower, upper, kind_, how);
    e.level = level_;
    e.work = evaluations_;
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return e;
  }
  // Relative to the bracket's upper end, small ε included (an ε of 1e-9 is bracketed to rel_tol of itself, not to
  // rel_tol); below 1e-12 the tolerance stays rel_tol·1e-12, so a search near 0 ends in a bounded number of steps.
  double tolerance() const { return rel_tol_ * std::max(1e-12, upper_); }
  bool undecided() const { return s_lo_ <= s_hi_; }  // some probe straddled δ

  // A bracket: double eps until the profile is certainly at most δ.
  void find_upper() {
    for (double hi = std::min(1.0, eps_max_);; hi = std::min(2 * hi, eps_max_)) {
      const Interval d = profile(hi);
      if (d.second <= delta_) {
        upper_ = hi;
        f_upper_ = offset(d);
        return;
      }
      if (!(d.first > delta_))
        throw NumericalError(fmt::format("epsilon: the profile's interval at eps = {:g}, [{:.6g}, {:.6g}], straddles delta = {:g} "
                                         "before a bracket was found", hi, d.first, d.second, delta_));
      lower_ = hi;
      f_lower_ = offset(d);
      if (hi >= eps_max_)
        // (the lower end rounded down: 0.99999968 printed "1")
        invalid_input("epsilon: delta({:g}) >= {} > delta = {:g} up to eps_max = {:g} (raise eps_max: --eps-max on the command "
                      "line, eps_max= in Python; at most 1e6; no eps is enough where the privacy loss is +inf with probability "
                      "above delta: an outcome one law has and the other has not)", hi, verify::number_text(d.first, std::log(d.first), -1, 6),
                      delta_, eps_max_);
    }
  }

  // Inside the bracket: the secant through the last two probes of log δ(ε) (smooth and nearly linear in ε: a few
  // steps reach the root), a probe half the tolerance past the last one where the secant lands that close to it (so
  // that the other end closes in too), and a bisection whenever three probes have not halved the bracket. A probe
  // whose interval straddles δ lies near the root, not at the end of the search: such probes span an undecided
  // stretch [s_lo, s_hi], and the search steps out of it towards each end (half the tolerance first, doubling while
  // the probes still straddle; never past the gap's midpoint) until each gap is within the tolerance or no wider than
  // the stretch itself (the profile cannot place the root more finely).
  void refine() {
    probes_ = {{lower_, f_lower_}, {upper_, f_upper_}};
    x_prev_ = lower_, f_prev_ = f_lower_, x_last_ = upper_, f_last_ = f_upper_, checkpoint_ = upper_ - lower_;
    while (!done()) {
      const double x = next_probe();
      const Interval d = profile(x);
      probes_.emplace_back(x, offset(d));
      if (d.second <= delta_) {
        upper_ = x;
      } else if (d.first > delta_) {
        lower_ = x;
      } else {
        if (!undecided()) step_below_ = step_above_ = 0.5 * tolerance();  // the first such probe: the root is near
        if (!undecided() || x < s_lo_ || x > s_hi_) straddle_ = d;
        s_lo_ = std::min(s_lo_, x), s_hi_ = std::max(s_hi_, x);
      }
      x_prev_ = x_last_, f_prev_ = f_last_;
      x_last_ = x, f_last_ = probes_.back().second;
      if (upper_ - lower_ <= 0.5 * checkpoint_) checkpoint_ = upper_ - lower_, since_halved_ = 0;
      else ++since_halved_;
    }
  }
  bool done() const {
    if (upper_ - lower_ <= tolerance()) return true;
    if (!undecided()) return false;
    const double reach = std::max(0.5 * tolerance(), s_hi_ - s_lo_);
    return s_lo_ - lower_ <= reach && upper_ - s_hi_ <= reach;
  }
  double next_probe() {
    const double tol = tolerance();
    if (undecided()) {  // step out of the undecided stretch on the side with the wider gap, doubling the step there
      const bool below = s_lo_ - lower_ >= upper_ - s_hi_;
      double& step = below ? step_below_ : step_above_;
      const double x = below ? std::max(0.5 * (lower_ + s_lo_), s_lo_ - step) : std::min(0.5 * (s_hi_ + upper_), s_hi_ + step);
      step *= 2;
      return x;
    }
    if (since_halved_ < 3 && std::isfinite(f_prev_) && std::isfinite(f_last_) && f_prev_ != f_last_) {
      const double secant = x_last_ - f_last_ * (x_last_ - x_prev_) / (f_last_ - f_prev_);
      if (secant > lower_ && secant < upper_) {
        double x = secant;
        if (std::fabs(x - x_last_) < 0.5 * tol) x = x_last_ + (x_last_ == lower_ ? 0.5 : -0.5) * tol;
        return std::clamp(x, lower_ + 0.25 * tol, upper_ - 0.25 * tol);
      }
    }
    return 0.5 * (lower_ + upper_);
  }
  std::string how() const {
    return fmt::format(
        "bracketed root search (secant and bisection) on max(H_eps(mu||nu), H_eps(nu||mu)): a bracket of the root from {} "
        "intervals of the profile{}",
        verify::to_string(kind_),
        undecided() && upper_ - lower_ > tolerance()
            ? fmt::format(" (wider than the tolerance {:.1e}: at eps in [{:.12g}, {:.12g}] the profile's interval, e.g. [{:.12g}, {:.12g}], "
                          "contains delta = {:g})",
                          rel_tol_, s_lo_, s_hi_, straddle_.first, straddle_.second, delta_)
            : "");
  }
  // The value printed: where log δ(ε) crosses log δ between the two probes around the crossing (linear interpolation
  // of the interval midpoints' logarithms), inside the bracket; the bracket's midpoint only where the probes say
  // nothing finer.
  void place_value(verify::Estimate& e) {
    std::sort(probes_.begin(), probes_.end());
    for (std::size_t i = 0; i + 1 < probes_.size(); ++i) {
      const auto [x0, f0] = probes_[i];
      const auto [x1, f1] = probes_[i + 1];
      if (std::isfinite(f0) && std::isfinite(f1) && f0 >= 0 && f1 <= 0 && f0 != f1 && x0 >= lower_ && x1 <= upper_) {
        e.set_value(x0 + f0 * (x1 - x0) / (f0 - f1));
        return;
      }
    }
  }

  const std::string& mu_;
  const std::string& nu_;
  const double delta_, log_delta_;
  const DivergenceRequest& request_;
  const double eps_max_, rel_tol_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  long evaluations_ = 0;
  verify::ErrorKind kind_ = verify::ErrorKind::exact;
  double level_ = 1;
  double lower_ = 0, upper_ = 0, f_lower_ = 0, f_upper_ = -kInf;  // the bracket and its offsets
  std::vector<Interval> probes_;                                 // (eps, offset) of every probe
  double s_lo_ = kInf, s_hi_ = -kInf, step_below_ = 0, step_above_ = 0;  // the undecided stretch
  Interval straddle_{0, 0};
  double x_prev_ = 0, f_prev_ = 0, x_last_ = 0, f_last_ = 0, checkpoint_ = 0;
  int since_halved_ = 0;
};

}  // namespace

verify::Estimate bracket_epsilon(const std::string& mu, const std::string& nu, double delta, const DivergenceRequest& request,
                                 double eps_max, double rel_tol) {
  return EpsilonSearch(mu, nu, delta, request, eps_max, rel_tol).run();
}


}  // namespace privamp::api
