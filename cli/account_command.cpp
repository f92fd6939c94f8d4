// privamp account: DP-SGD accounting in the accountants' vocabulary — ε of a run at one or more δ, δ at one or more ε,
// and the calibration of the one parameter left open to a target ε (verify/api/accountant.hpp).
#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/quantity_list.hpp"
#include "numerics/errors.hpp"
#include "numerics/work_limit.hpp"
#include "verify/api/accountant.hpp"
#include "verify/records/codec.hpp"
#include "verify/records/fields.hpp"

namespace privamp::cli {

namespace {

struct AccountArgs {
  std::optional<double> noise_multiplier, sample_rate, target_epsilon;
  std::optional<long> steps;
  std::vector<std::string> delta, epsilon;
  std::string engine = "auto";
  double rel_tol = 1e-6;
  double eps_max = 1e3;  // --delta: the largest eps searched
  double max_seconds = 600;  // a list of deltas or epsilons projected past it stops (numerics/work_limit.hpp)
  bool json = false;
};

std::vector<double> account_list(const std::vector<std::string>& items, const char* option) {
  std::vector<double> out;
  for (const std::string& item : items)
    for (double v : parse_number_list(item, option)) out.push_back(v);
  if (out.size() > 10'000) throw_invalid("account", option, static_cast<double>(out.size()), "at most 10,000 values");
  return out;
}

// A number, or e^x below the double range (a delta of 1e-400 is not printed as 0); an interval rounded outwards.
std::string account_interval(const verify::Estimate& e) { return verify::interval_text(e); }

// --target-epsilon: the parameter left out calibrated to the target at the one delta, and the run it gives.
int account_calibration(const AccountArgs& a, const std::vector<double>& deltas, const std::vector<double>& epsilons,
                        const api::DivergenceRequest& engine) {
  if (deltas.size() != 1) invalid_input("account --target-epsilon: give exactly one --delta");
  if (!epsilons.empty()) invalid_input("account --target-epsilon: --epsilon is a separate request");
  api::CalibrationRequest r;
  r.target_epsilon = *a.target_epsilon;
  r.delta = deltas.front();
  r.noise_multiplier = a.noise_multiplier;
  r.sample_rate = a.sample_rate;
  r.steps = a.steps;
  r.rel_tol = a.rel_tol;
  r.engine = engine;
  // A search of many probes shows it is alive: a line every 5 s (a calibration once ran 70 s silent).
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  r.on_probe = [&](long probes, double x, const std::string& side) {
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last).count() < 5) return;
    last = now;
    std::cerr << fmt::format("privamp: calibrating: probe {} at {:.10g} ({}), {:.0f} s elapsed\n", probes, x,
                             side == "yes" ? "within the target" : side == "no" ? "above the target" : "undecided",
                             std::chrono::duration<double>(now - start).count());
  };
  const api::Calibration c = api::calibrate(r);
  if (a.json) {
    std::cout << verify::sorted_json(api::calibration_tree(c)).dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{} = {:.10g}   (exact threshold in [{:.10g}, {:.10g}]; {} profile evaluations, {:.3g} s)\n", c.solved,
                           c.value, c.lower, c.upper, c.probes, c.seconds);
  std::cout << fmt::format("run: noise multiplier {:.10g}, sample rate {:.10g}, {} steps: epsilon({}) = {:.10g} in {} {}\n",
                           c.noise_multiplier, c.sample_rate, c.steps, r.delta, c.epsilon.value, account_interval(c.epsilon),
                           verify::error_kind_label(c.epsilon));
  std::cout << c.method << "\n";
  return 0;
}

}  // namespace

Action add_account_command(CLI::App& app) {
  auto a = std::make_shared<AccountArgs>();
  auto* cmd = app.add_subcommand("account", "DP-SGD accounting: epsilon of a run, delta at epsilons, or calibrate one parameter");
  cmd->add_option("--noise-multiplier", a->noise_multiplier, "noise standard deviation over the clipping norm (sigma)");
  cmd->add_option("--sample-rate", a->sample_rate, "Poisson sampling rate q (batch size / dataset size), 0 < q <= 1");
  cmd->add_option("--steps", a->steps, "number of steps T, 1 <= T <= 10^7");
  cmd->add_option("--delta", a->delta, "deltas in (0, 1): eps(delta) of the run (a list '1e-5,1e-6')");
  cmd->add_option("--epsilon", a->epsilon, "epsilons >= 0: delta(eps) of the run (a list, or 'a:b:step', 'a:b:xN')");
  cmd->add_option("--target-epsilon", a->target_epsilon,
                  "calibrate: the parameter left out (noise multiplier, steps or sample rate) for which eps(delta) <= this; "
                  "needs one --delta");
  cmd->add_option("--engine", a->engine, "auto | certified (the profile's engine)")->capture_default_str();
  cmd->add_option("--rel-tol", a->rel_tol, "calibrate: relative width of the bracket on the noise multiplier or sample rate")
      ->capture_default_str();
  cmd->add_option("--eps-max", a->eps_max, "--delta: the largest eps searched (at most 1e6)")->capture_default_str();
  cmd->add_option("--max-seconds", a->max_seconds, "a list of deltas or epsilons projected (from its first items) to run longer is "
                  "stopped, exit 2; 0: no limit")->capture_default_str();
  cmd->add_flag("--json", a->json, "print a JSON object instead of a table");
  return [cmd, a]() {
    if (!cmd->parsed()) return -1;
    const std::vector<double> deltas = account_list(a->delta, "--delta"), epsilons = account_list(a->epsilon, "--epsilon");
    for (double d : deltas)
      if (!(d > 0 && d < 1)) throw_invalid("account", "--delta", d, "0 < delta < 1");
    for (double e : epsilons)
      if (!(e >= 0 && std::isfinite(e))) throw_invalid("account", "--epsilon", e, "0 <= eps < inf");
    if (!(a->eps_max > 0 && a->eps_max <= 1e6)) throw_invalid("account", "--eps-max", a->eps_max, "0 < eps_max <= 1e6");
    check_max_seconds("account", a->max_seconds);
    api::DivergenceRequest engine;
    engine.engine = a->engine;
    if (a->engine != "auto" && a->engine != "certified") invalid_input("account --engine {}: auto or certified", a->engine);
    if (a->target_epsilon) return account_calibration(*a, deltas, epsilons, engine);
    if (!a->noise_multiplier || !a->sample_rate || !a->steps)
      invalid_input("account: give --noise-multiplier, --sample-rate and --steps (or leave one out with --target-epsilon)");
    if (deltas.empty() && epsilons.empty()) invalid_input("account: nothing to compute: give --delta, --epsilon or --target-epsilon");
    const auto [mu, nu] = api::composed_pair({api::dpsgd_step(*a->noise_multiplier, *a->sample_rate, *a->steps,
                                                                        {"account", "--noise-multiplier", "--sample-rate", "--steps"})});
    // Progress and the time limit for the list of deltas (one ε search each) and the profile's epsilons.
    api::DivergenceRequest searches = engine;
    searches.progress = limited_progress(terminal_progress("deltas"), a->max_seconds, "account --delta", "deltas", "--max-seconds");
    const std::vector<verify::Estimate> eps_at = api::epsilons_for_deltas(mu, nu, deltas, searches, a->eps_max);
    api::PrivacyProfile profile;
    if (!epsilons.empty()) {
      api::DivergenceRequest at = engine;
      at.progress = limited_progress(terminal_progress("values"), a->max_seconds, "account --epsilon", "values", "--max-seconds");
      at.hockey_stick = epsilons;
      profile = api::privacy_profile(mu, nu, at);
    }
    if (a->json) {
      verify::Tree t = verify::Tree::object();
      t["mu"] = mu;
      t["nu"] = nu;
      t["epsilon"] = api::epsilon_tree(eps_at, deltas)["epsilon"];
      if (!epsilons.empty()) {
        verify::Tree points = verify::Tree::array();
        for (std::size_t i = 0; i < profile.eps.size(); ++i) {
          verify::Tree point = verify::Tree::object();
          verify::for_each_profile_field(profile, [&](const char* name, const auto& cell) { point[name] = cell(i); });
          points.push_back(point);
        }
        t["delta"] = points;
      }
      std::cout << verify::sorted_json(t).dump(2) << "\n";
      return 0;
    }
    std::cout << fmt::format("DP-SGD: noise multiplier {:g}, sample rate {:g}, {} steps (add/remove neighbours)\n", *a->noise_multiplier,
                             *a->sample_rate, *a->steps);
    std::cout << fmt::format("{:<22} {:>20} {:>44} {:<13}\n", "quantity", "value", "interval", "error");
    for (std::size_t i = 0; i < deltas.size(); ++i)
      std::cout << fmt::format("{:<22} {:>20.12g} {:>44} {:<13}\n", fmt::format("epsilon({})", deltas[i]), eps_at[i].value,
                               account_interval(eps_at[i]), verify::error_kind_label(eps_at[i]));
    for (std::size_t i = 0; i < epsilons.size(); ++i) {
      const verify::Estimate& d = profile.delta[i];
      std::cout << fmt::format("{:<22} {:>20} {:>44} {:<13}\n", fmt::format("delta({})", epsilons[i] + 0.0), verify::value_text(d),
                               account_interval(d),
                               verify::error_kind_label(d));
    }
    return 0;
  };
}

}  // namespace privamp::cli
