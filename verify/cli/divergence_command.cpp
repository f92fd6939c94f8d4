#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "numerics/errors.hpp"
#include "sim/laws/expression.hpp"
#include "verify/cli/commands.hpp"
#include "verify/cli/quantity_list.hpp"
#include "verify/divergence/engines.hpp"

namespace privamp::cli {

namespace {

struct DivergenceArgs {
  std::string p, q;
  std::vector<std::string> renyi, hockey_stick;
  bool kl = false, tv = false, json = false;
  std::string engine = "auto";
  double rel_tol = 1e-13;
  long samples = 1'000'000;
  std::uint64_t seed = 1;
  double level = 0.99;
};

// A number for people: shortest form, or e^x when it under- or overflows (tiny hockey-stick values, Rényi
// divergences of laws 1e300 scales apart).
std::string show(double value, double log_value) {
  if (std::isinf(value) && std::isfinite(log_value)) return fmt::format("exp({:.10g})", log_value);  // overflow
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0 && log_value > -std::numeric_limits<double>::infinity()) return fmt::format("exp({:.10g})", log_value);
  return fmt::format("{:.12g}", value);
}

nlohmann::json number_json(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

}  // namespace

Action add_divergence_command(CLI::App& app) {
  auto args = std::make_shared<DivergenceArgs>();
  auto* cmd = app.add_subcommand("divergence", "Compute divergences between two laws, with error bars");
  cmd->add_option("p", args->p, "law mu (see `privamp laws`), e.g. 'mix(q=0.01, gaussian(0,1), gaussian(1,1))'")->required();
  cmd->add_option("q", args->q, "law nu, e.g. 'gaussian(0, 1)'")->required();
  cmd->add_option("--renyi", args->renyi,
                  "Renyi orders alpha > 1: a list '2,4.5,inf', a range 'a:b:step' or 'a:b:xN' (N log-spaced)");
  cmd->add_option("--hockey-stick", args->hockey_stick, "hockey-stick epsilons >= 0 (same list and range forms)");
  cmd->add_flag("--kl", args->kl, "Kullback-Leibler divergence");
  cmd->add_flag("--tv", args->tv, "total variation distance");
  cmd->add_option("--engine", args->engine, "auto | closed | sum | quadrature | gsl | mc")->capture_default_str();
  cmd->add_option("--rel-tol", args->rel_tol, "target relative error of the quadrature")->capture_default_str();
  cmd->add_option("--samples", args->samples, "Monte Carlo samples")->capture_default_str();
  cmd->add_option("--seed", args->seed, "Monte Carlo seed")->capture_default_str();
  cmd->add_option("--level", args->level, "confidence level of Monte Carlo intervals")->capture_default_str();
  cmd->add_flag("--json", args->json, "print a JSON object instead of a table");
  return [cmd, args]() {
    if (!cmd->parsed()) return -1;
    using verify::Quantity;
    std::vector<Quantity> quantities;
    for (const std::string& item : args->renyi)
      for (double a : parse_number_list(item, "--renyi"))
        quantities.push_back(std::isinf(a) ? Quantity::renyi_inf() : Quantity::renyi(a));
    for (const std::string& item : args->hockey_stick)
      for (double e : parse_number_list(item, "--hockey-stick")) quantities.push_back(Quantity::hockey_stick(e));
    if (args->kl) quantities.push_back(Quantity::kl());
    if (args->tv) quantities.push_back(Quantity::tv());
    if (quantities.empty()) throw InvalidArgument("nothing to compute: give --renyi, --hockey-stick, --kl or --tv");
    const sim::LawPtr p = sim::parse_law(args->p), q = sim::parse_law(args->q);
    // The canonical expression (defaults filled in), unless the law is tabulated (grid laws of propagated
    // processes print every node): then the expression as typed.
    auto shown = [](const sim::Law& law, const std::string& typed) {
      std::string e = law.expression();
      return e.size() <= 300 ? e : typed;
    };
    verify::DivergenceOptions options;
    options.engine = verify::parse_engine(args->engine);
    options.rel_tol = args->rel_tol;
    options.monte_carlo.samples = args->samples;
    options.monte_carlo.seed = args->seed;
    options.monte_carlo.level = args->level;
    const auto results = verify::compute_divergences(*p, *q, quantities, options);
    if (args->json) {
      nlohmann::json out;
      out["p"] = shown(*p, args->p);
      out["q"] = shown(*q, args->q);
      out["engine"] = args->engine;
      out["results"] = nlohmann::json::array();
      for (std::size_t i = 0; i < results.size(); ++i) {
        const auto& e = results[i];
        nlohmann::json row;
        row["quantity"] = quantities[i].label();
        row["value"] = number_json(e.value);
        row["lower"] = number_json(e.lower);
        row["upper"] = number_json(e.upper);
        row["log_value"] = number_json(e.log_value);
        row["log_lower"] = number_json(e.log_lower);
        row["log_upper"] = number_json(e.log_upper);
        row["error_kind"] = verify::to_string(e.error_kind);
        if (e.error_kind == verify::ErrorKind::discretised) {
          row["numerical_error"] = e.numerical_error;
          row["discretisation_error"] = e.discretisation_error;
        }
        row["level"] = e.level;
        row["method"] = e.method;
        row["work"] = e.work;
        row["seconds"] = e.seconds;
        out["results"].push_back(row);
      }
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::cout << fmt::format("mu = {}\nnu = {}\n", shown(*p, args->p), shown(*q, args->q));
    std::cout << fmt::format("{:<20} {:>20} {:>44} {:<13} {:>10}  {}\n", "quantity", "value", "interval", "error",
                             "time", "method");
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& e = results[i];
      const std::string kind = e.error_kind == verify::ErrorKind::statistical
                                   ? fmt::format("{}% CI", e.level * 100)
                                   : verify::to_string(e.error_kind);
      std::cout << fmt::format("{:<20} {:>20} {:>44} {:<13} {:>8.3g}s  {}\n", quantities[i].label(),
                               show(e.value, e.log_value),
                               fmt::format("[{}, {}]", show(e.lower, e.log_lower), show(e.upper, e.log_upper)), kind,
                               e.seconds, e.method);
    }
    return 0;
  };
}

}  // namespace privamp::cli
