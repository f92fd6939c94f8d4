// The accountant: DP-SGD and sequences of mechanisms in the vocabulary of privacy accountants (noise multiplier,
// sample rate, steps, δ), on top of the exact privacy profile of the composed pair (api.hpp). Shared by
// `privamp account` and Python's dpsgd / calibrate / Accountant.
//
// Neighbouring datasets differ by one record added or removed; a mechanism's pair is (μ, ν) = (the output law with
// the record, without it), its sensitivity 1. The profile δ(ε) = max(H_ε(μ‖ν), H_ε(ν‖μ)) of the composition covers
// both directions, as PRV and dp_accounting's PLD accountants do.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "verify/api/api.hpp"

namespace privamp::api {

// One mechanism of a sequence: its pair of laws (law expressions, `privamp laws`) released `count` times.
struct Release {
  std::string mu, nu;
  long count = 1;
};

// The composed pair of a sequence: power(μ, n) against power(ν, n) for one mechanism, product(...) of the powers for
// several (at most 64 mechanisms; 1 ≤ count ≤ 10^7 each). InvalidArgument otherwise.
std::pair<std::string, std::string> composed_pair(const std::vector<Release>& releases);

// One step of DP-SGD: the Gaussian mechanism with noise multiplier σ (noise standard deviation over the clipping norm)
// on a Poisson sample of rate q: μ = (1 − q)·N(0, σ²) + q·N(1, σ²), ν = N(0, σ²). InvalidArgument for σ outside
// [1e-3, 1e6] or q outside (0, 1].
// `names`: how the caller calls the three (the command line's options, Python's arguments) and itself, for messages.
struct DpsgdNames {
  std::string_view where = "dpsgd", noise_multiplier = "noise_multiplier", sample_rate = "sample_rate", steps = "steps";
};
Release dpsgd_step(double noise_multiplier, double sample_rate, long steps = 1, const DpsgdNames& names = {});

// Calibration: the one DP-SGD parameter left open (noise multiplier, steps or sample rate) for which the run is
// (target ε, δ)-DP, the others fixed. Each probe decides "ε ≤ target" by the profile at the target, δ(target) ≤ δ,
// on its interval: certainly yes (upper end ≤ δ), certainly no (lower end > δ), or not decided (the interval holds δ;
// the probe is then within the profile's error of the threshold and the search stops on that side).
struct CalibrationRequest {
  double target_epsilon = 0, delta = 0;
  std::optional<double> noise_multiplier, sample_rate;
  std::optional<long> steps;
  double rel_tol = 1e-6;  // of the bracket on the noise multiplier or sample rate
  // The most profile evaluations (1 to 64): past them the answer is the best setting found certainly within the
  // target (the method says so), an error if none was.
  int max_probes = 64;
  DivergenceRequest engine;  // engine and its settings; quantities ignored
  // Called after each probe with the probes so far, the value probed and whether its run is within the target
  // ("yes", "no" or "undecided"): a long search shows it is alive (may be empty).
  std::function<void(long probes, double x, const std::string& side)> on_probe;
};
struct Calibration {
  std::string solved;  // "noise_multiplier", "steps" or "sample_rate"
  // The answer to use (safe: its run is certainly (target ε, δ)-DP), and the bracket [lower, upper] that holds the
  // exact threshold: the smallest noise multiplier, or the largest steps / sample rate, whose ε(δ) ≤ target.
  double value = 0, lower = 0, upper = 0;
  double noise_multiplier = 0, sample_rate = 0;
  long steps = 0;
  double delta = 0;
  verify::Estimate epsilon;  // ε(δ) of the run at `value`
  long probes = 0;           // profile evaluations of the search
  double seconds = 0;
  std::string method;        // how the bracket ended
};
Calibration calibrate(const CalibrationRequest& request);
verify::Tree calibration_tree(const Calibration& c);

}  // namespace privamp::api
