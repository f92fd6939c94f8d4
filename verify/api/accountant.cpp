#include "verify/api/accountant.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <functional>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/records/fields.hpp"

namespace privamp::api {

namespace {

constexpr long kMaxStepsCalibrated = 10'000'000;  // the largest power(·, T) a law expression takes
constexpr double kMinNoise = 1e-3, kMaxNoise = 1e6, kMinRate = 1e-12;

std::string number(double x) { return format_number(x); }

// A probe's answer to "is the run (target ε, δ)-DP?", decided on the profile's interval at the target.
enum class Side { yes, no, undecided };

struct Probe {
  Side side = Side::undecided;
  double log_gap = 0;  // log δ(target) − log δ at the interval's midpoint (for the secant), ±inf where it vanishes
};

}  // namespace

std::pair<std::string, std::string> composed_pair(const std::vector<Release>& releases) {
  if (releases.empty()) invalid_input("accountant: no mechanism was composed (compose at least one event)");
  if (releases.size() > 64)
    invalid_input("accountant: {} different mechanisms; at most 64 (self-compose repeated ones: a count)",
                  releases.size());
  std::vector<std::string> mu, nu;
  for (const Release& r : releases) {
    if (r.count < 1 || r.count > kMaxStepsCalibrated)
      throw_invalid("accountant", "count", static_cast<double>(r.count), "1 <= count <= 10^7");
    mu.push_back(r.count == 1 ? r.mu : fmt::format("power({}, {})", r.mu, r.count));
    nu.push_back(r.count == 1 ? r.nu : fmt::format("power({}, {})", r.nu, r.count));
  }
  if (mu.size() == 1) return {mu.front(), nu.front()};
  return {fmt::format("product([{}])", fmt::join(mu, ", ")), fmt::format("product([{}])", fmt::join(nu, ", "))};
}

// The most profile evaluations one calibration may make (CalibrationRequest::max_probes).
constexpr int kMaxProbes = 64;

Release dpsgd_step(double noise_multiplier, double sample_rate, long steps, const DpsgdNames& n) {
  if (!(noise_multiplier >= kMinNoise && noise_multiplier <= kMaxNoise))
    throw_invalid(n.where, n.noise_multiplier, noise_multiplier, "1e-3 <= sigma <= 1e6");
  // (a subnormal rate, 5e-324, carries no digits the composed profile could resolve; 1e-300 gives a certified 0)
  if (!(sample_rate >= std::numeric_limits<double>::min() && sample_rate <= 1))
    throw_invalid(n.where, n.sample_rate, sample_rate, "2.2e-308 <= q <= 1");
  if (steps < 1 || steps > kMaxStepsCalibrated) throw_invalid(n.where, n.steps, static_cast<double>(steps), "1 <= T <= 10^7");
  const std::string sigma = number(noise_multiplier);
  Release r;
  r.nu = fmt::format("gaussian(0, {})", sigma);
  r.mu = sample_rate == 1 ? fmt::format("gaussian(1, {})", sigma)
                          : fmt::format("mix(q={}, gaussian(0, {}), gaussian(1, {}))", number(sample_rate), sigma, sigma);
  r.count = steps;
  return r;
}

namespace {

// The run of the request with the open parameter at x.
Release run_at(const CalibrationRequest& r, const std::string& solved, double x) {
  if (solved == "noise_multiplier") return dpsgd_step(x, *r.sample_rate, *r.steps);
  if (solved == "sample_rate") return dpsgd_step(*r.noise_multiplier, x, *r.steps);
  return dpsgd_step(*r.noise_multiplier, *r.sample_rate, static_cast<long>(x));
}

// Secant (Illinois) and bisection steps in y on a monotone question: "yes" for y ≥ y* (the caller maps its parameter
// to y so), from a "no" end and a "yes" end, until they are within `tol`. A probe the profile cannot decide (its
// interval holds δ) ends the search: from it the ends step towards it from each side, from a thousandth of `tol`,
// doubling while the probes stay undecided, so that they close in as far as the profile can tell them apart.
struct Bracket {
  double no, yes;
  bool undecided = false;
  double undecided_at = 0;
};
Bracket narrow(Bracket b, double f_no, double f_yes, double tol, const std::function<Probe(double)>& probe) {
  int side = 0;  // Illinois: the end that stayed twice has its value halved
  while (std::fabs(b.yes - b.no) > tol) {
    const double w = b.yes - b.no;
    double y = b.no + 0.5 * w;
    if (std::isfinite(f_no) && std::isfinite(f_yes) && f_no != f_yes) {
      const double secant = b.yes - f_yes * w / (f_yes - f_no);
      if ((secant - b.no) / w > 0.01 && (b.yes - secant) / w > 0.01) y = secant;
    }
    const Probe p = probe(y);
    if (p.side == Side::yes) {
      b.yes = y, f_yes = p.log_gap;
      if (side == 1) f_no /= 2;
      side = 1;
      continue;
    }
    if (p.side == Side::no) {
      b.no = y, f_no = p.log_gap;
      if (side == -1) f_yes /= 2;
      side = -1;
      continue;
    }
    b.undecided = true;
    b.undecided_at = y;
    for (const bool towards_yes : {false, true}) {
      double& end = towards_yes ? b.yes : b.no;
      for (double share = 1.0 / 1024; share <= 1; share *= 2) {
        const double z = y + std::copysign(std::min(share * tol, 0.5 * std::fabs(end - y)), end - y);
        if (z == end) break;
        const Side got = probe(z).side;
        if (got == (towards_yes ? Side::yes : Side::no)) {
          end = z;
          break;
        }
      }
    }
    return b;
  }
  return b;
}

}  // namespace

namespace {

using ProbeAt = std::function<Probe(double)>;

// The largest T with ε(δ) ≤ target: doubling up or halving down from 1024 (compositions of a few releases are the
// hardest for the profile's engines: they are visited only when the answer lies there), then integer bisection.
void solve_steps(const CalibrationRequest& r, const ProbeAt& probe, Calibration& c) {
  long yes = 0, no = 0;
  bool undecided = false;
  for (long t = 1024;;) {
    const Probe p = probe(static_cast<double>(t));
    if (p.side == Side::yes) {
      yes = t;
      if (no != 0 || t == kMaxStepsCalibrated) break;
      t = std::min(2 * t, kMaxStepsCalibrated);
    } else {
      no = t;
      undecided = undecided || p.side == Side::undecided;
      if (yes != 0 || t == 1) break;
      t /= 2;
    }
  }
  if (yes == 0)
    invalid_input("calibrate: even one step is not ({}, {})-DP at noise multiplier {} and sample rate {}{}",
                  number(r.target_epsilon), number(r.delta), number(*r.noise_multiplier), number(*r.sample_rate),
                  undecided ? " (or within the profile's error of it)" : "");
  while (no != 0 && no - yes > 1 && !undecided) {
    const long mid = yes + (no - yes) / 2;
    const Probe p = probe(static_cast<double>(mid));
    if (p.side == Side::yes) yes = mid;
    else no = mid, undecided = p.side == Side::undecided;
  }
  c.value = c.lower = static_cast<double>(yes);
  c.upper = no == 0 ? static_cast<double>(kMaxStepsCalibrated) : static_cast<double>(no - 1);
  c.method = no == 0 ? "every number of steps up to 10^7 is within the target"
             : undecided ? fmt::format("the profile at {} steps holds delta in its interval: the largest certain count is given", no)
                         : "integer bisection: the run of the next count is certainly above the target";
}

// The smallest noise multiplier, or the largest sample rate, with ε(δ) ≤ target: in y = log σ (−log q, so that "yes"
// is y ≥ y*), a bracket by doubling or halving from σ = 1 (q = 0.01), then narrow().
void solve_continuous(const CalibrationRequest& r, const ProbeAt& probe_x, Calibration& c) {
  const bool noise = c.solved == "noise_multiplier";
  const double sign = noise ? 1.0 : -1.0;
  const auto x_of = [&](double y) { return std::exp(sign * y); };
  const auto probe = [&](double y) { return probe_x(x_of(y)); };
  const double y_min = noise ? std::log(kMinNoise) : 0.0, y_max = noise ? std::log(kMaxNoise) : -std::log(kMinRate);
  const double tol = std::log1p(r.rel_tol);
  double y = noise ? 0.0 : -std::log(0.01), f_yes = 0, f_no = 0;
  std::optional<double> y_yes, y_no;
  while (!(y_yes && y_no)) {
    const Probe p = probe(y);
    if (p.side == Side::undecided) {
      // Within the profile's error of the threshold: decided probes are looked for on each side, one tolerance away
      // and then twice as far each time (the profile's interval may be wide there: a bracket of the lattices), up to
      // the range's ends; the answer is then the safe end of the bracket they make.
      for (const bool up : {true, false}) {
        for (double d = tol; !(up ? y_yes : y_no); d *= 2) {
          const double z = std::clamp(up ? y + d : y - d, y_min, y_max);
          const Probe q = probe(z);
          if (q.side == (up ? Side::yes : Side::no)) (up ? y_yes : y_no) = z, (up ? f_yes : f_no) = q.log_gap;
          else if (z == (up ? y_max : y_min))
            throw NumericalError(fmt::format("calibrate: the profile's interval holds delta from {} = {} to the end of its "
                                             "range, {}: the {} cannot be placed", c.solved, number(x_of(y)),
                                             number(x_of(z)), c.solved));
        }
      }
      break;
    }
    (p.side == Side::yes ? y_yes : y_no) = y;
    (p.side == Side::yes ? f_yes : f_no) = p.log_gap;
    if (y_yes && y_no) break;
    if (y_yes && y <= y_min) {  // "yes" down to the end of the range: the answer is that end
      c.value = c.lower = c.upper = x_of(y_min);
      c.method = noise ? fmt::format("every noise multiplier down to {} is within the target", number(kMinNoise))
                       : "sample rate 1 (every record in every step) is within the target";
      return;
    }
    if (y_no && y >= y_max)
      invalid_input("calibrate: no {} in [{}, {}] makes the run ({}, {})-DP", c.solved,
                    number(noise ? kMinNoise : kMinRate), number(noise ? kMaxNoise : 1.0),
                    number(r.target_epsilon), number(r.delta));
    y = std::clamp(y_yes ? y - std::log(2.0) : y + std::log(2.0), y_min, y_max);
  }
  const Bracket b = narrow(Bracket{*y_no, *y_yes}, f_no, f_yes, tol, probe);
  c.value = x_of(b.yes);  // the safe end
  c.lower = std::min(x_of(b.no), x_of(b.yes));
  c.upper = std::max(x_of(b.no), x_of(b.yes));
  c.method = b.undecided ? fmt::format("bracket by secant and bisection in log {}, to the profile's resolution (at {} = {:.10g} its "
                                       "interval holds delta; the ends are the nearest probes it decides)", c.solved, c.solved, x_of(b.undecided_at))
                         : fmt::format("bracket by secant and bisection in log {} to relative width {:.1e}", c.solved, r.rel_tol);
}

}  // namespace

Calibration calibrate(const CalibrationRequest& r) {
  const auto start = std::chrono::steady_clock::now();
  if (!(r.target_epsilon > 0 && r.target_epsilon <= 1e4)) throw_invalid("calibrate", "target_epsilon", r.target_epsilon, "0 < target_epsilon <= 1e4");
  if (!(r.delta > 0 && r.delta < 1)) throw_invalid("calibrate", "delta", r.delta, "0 < delta < 1");
  if (!(r.rel_tol >= 1e-12 && r.rel_tol <= 0.1)) throw_invalid("calibrate", "rel_tol", r.rel_tol, "1e-12 <= rel_tol <= 0.1");
  if (r.max_probes < 1 || r.max_probes > kMaxProbes)
    throw_invalid("calibrate", "max_probes", r.max_probes, fmt::format("1 <= max_probes <= {}", kMaxProbes));
  const int open = !r.noise_multiplier + !r.sample_rate + !r.steps;
  if (open != 1)
    invalid_input("calibrate: leave exactly one of noise_multiplier, sample_rate and steps open (the one to "
                  "solve for); {} are open", open);
  Calibration c;
  c.solved = !r.noise_multiplier ? "noise_multiplier" : !r.sample_rate ? "sample_rate" : "steps";
  run_at(r, c.solved, c.solved == "sample_rate" ? 0.5 : 1.0);  // the fixed parameters checked now, before any work
  DivergenceRequest at = r.engine;
  at.renyi.clear(), at.kl = at.tv = false;
  at.hockey_stick = {r.target_epsilon};
  // "Is the run with the open parameter at x (target ε, δ)-DP?", on the profile's interval at the target. The work
  // is bounded by the number of probes: past max_probes (a calibration usually takes 15 to 25; near a target the
  // profile resolves poorly, such as ε = 1e-6, the search for decided probes took 57 and 125 s), the best setting
  // certainly within the target is the answer, and its method says so.
  struct ProbesExhausted {};
  const bool larger_is_safer = c.solved == "noise_multiplier";  // (a larger rate or more steps cost privacy)
  std::optional<double> best_yes, nearest_no;
  const auto probe = [&](double x) {
    if (c.probes >= r.max_probes) throw ProbesExhausted{};
    const auto [mu, nu] = composed_pair({run_at(r, c.solved, x)});
    const verify::Estimate d = privacy_profile(mu, nu, at).delta.front();
    ++c.probes;
    const Side side = d.upper <= r.delta ? Side::yes : d.lower > r.delta ? Side::no : Side::undecided;
    if (r.on_probe) r.on_probe(c.probes, x, side == Side::yes ? "yes" : side == Side::no ? "no" : "undecided");
    const auto nearer = [&](double a, double b) { return larger_is_safer ? a < b : a > b; };  // a closer to the edge
    if (side == Side::yes && (!best_yes || nearer(x, *best_yes))) best_yes = x;
    if (side == Side::no && (!nearest_no || nearer(*nearest_no, x))) nearest_no = x;
    return Probe{side, d.log_value() - std::log(r.delta)};
  };
  try {
    if (c.solved == "steps") solve_steps(r, probe, c);
    else solve_continuous(r, probe, c);
  } catch (const ProbesExhausted&) {
    if (!best_yes)
      throw NumericalError(fmt::format("calibrate: no {} certainly within ({}, {}) was found in {} probes (the limit)", c.solved,
                                       number(r.target_epsilon), number(r.delta), r.max_probes));
    c.value = *best_yes;
    const double other = !nearest_no ? *best_yes : c.solved == "steps" ? *nearest_no - 1 : *nearest_no;
    c.lower = std::min(c.value, other), c.upper = std::max(c.value, other);
    c.method = fmt::format("stopped at the limit of {} probes: {} = {:.10g} is the best setting found certainly within the "
                           "target{}", r.max_probes, c.solved, c.value,
                           nearest_no ? fmt::format(", {:.10g} the nearest certainly beyond it", *nearest_no) : "");
  }
  // The run at the answer and its ε(δ).
  c.noise_multiplier = c.solved == "noise_multiplier" ? c.value : *r.noise_multiplier;
  c.sample_rate = c.solved == "sample_rate" ? c.value : *r.sample_rate;
  c.steps = c.solved == "steps" ? static_cast<long>(c.value) : *r.steps;
  const auto [mu, nu] = composed_pair({dpsgd_step(c.noise_multiplier, c.sample_rate, c.steps)});
  c.delta = r.delta;
  c.epsilon = epsilon_for_delta(mu, nu, r.delta, at, std::max(1e3, 4 * r.target_epsilon));
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

verify::Tree calibration_tree(const Calibration& c) {
  verify::Tree t = verify::Tree::object();
  t["solved"] = c.solved;
  t["value"] = c.value;
  t["lower"] = c.lower;
  t["upper"] = c.upper;
  t["noise_multiplier"] = c.noise_multiplier;
  t["sample_rate"] = c.sample_rate;
  t["steps"] = c.steps;
  t["epsilon"] = epsilon_tree(c.epsilon, c.delta);
  t["probes"] = c.probes;
  t["seconds"] = c.seconds;
  t["method"] = c.method;
  return t;
}

}  // namespace privamp::api
