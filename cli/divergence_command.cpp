#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "numerics/errors.hpp"
#include "numerics/work_limit.hpp"
#include "numerics/escape.hpp"
#include "sim/language/expression.hpp"
#include "cli/commands.hpp"
#include "cli/quantity_list.hpp"
#include "verify/api/api.hpp"
#include "verify/records/codec.hpp"
#include "verify/records/fields.hpp"

namespace privamp::cli {

namespace {

struct DivergenceArgs {
  std::string p, q;
  std::vector<std::string> renyi, hockey_stick, epsilon, profile;
  bool kl = false, tv = false, json = false, with_method = false;
  std::string format = "text";  // text | json | csv | jsonl
  std::string engine = "auto";
  double rel_tol = 1e-13;
  long samples = 1'000'000;
  long long seed = 1;
  double level = 0.99;
  double eps_max = 1e3;  // --epsilon: the largest eps searched
  double max_seconds = 600;  // a list projected past it stops (numerics/work_limit.hpp)
};

// A number for people (verify/divergence/estimate.hpp: e^x beyond the double range).

// One line per quantity, streamed (csv or jsonl): the quantity, then the estimate's fields in fields.hpp's order
// (the method's prose only when asked: it is most of the bytes of a long list), then the reason a value is missing.
// Numbers in the shortest form that reads back to the same double; csv writes inf, -inf and an empty cell for none,
// jsonl "inf", "-inf" and null (as every JSON privamp writes).
void stream_rows(const api::DivergenceResult& r, bool jsonl, bool with_method) {
  std::string out;
  if (!jsonl) {
    out += "quantity";
    verify::for_each_field(r.estimates.front(), [&](const char* name, const auto&, verify::FieldRule) {
      if (with_method || std::string_view(name) != "method") out += fmt::format(",{}", name);
    });
    out += ",error\n";
  }
  auto number = [&](double x) {
    if (std::isnan(x)) return std::string(jsonl ? "null" : "");
    if (std::isinf(x)) return std::string(jsonl ? (x > 0 ? "\"inf\"" : "\"-inf\"") : (x > 0 ? "inf" : "-inf"));
    return fmt::format("{}", plain_zero(x));
  };
  // (One line per value: a message's line breaks become spaces in both.)
  auto text = [&](std::string t) {
    std::replace(t.begin(), t.end(), '\n', ' ');
    return jsonl ? nlohmann::json(t).dump() : escape::csv(t);
  };
  for (std::size_t i = 0; i < r.estimates.size(); ++i) {
    const verify::Estimate& e = r.estimates[i];
    out += jsonl ? fmt::format("{{\"quantity\":{}", text(r.quantities[i].label())) : text(r.quantities[i].label());
    verify::for_each_field(e, [&](const char* name, const auto& member, verify::FieldRule rule) {
      using T = std::decay_t<decltype(member)>;
      if (!with_method && std::string_view(name) == "method") return;
      std::string cell;
      if constexpr (std::is_same_v<T, double>) cell = number(member);
      else if constexpr (std::is_same_v<T, verify::ErrorKind>) cell = text(verify::error_kind_label(e));  // "none": not computed
      else if constexpr (std::is_same_v<T, verify::ErrorBudget>) cell = jsonl ? verify::budget_json(member, rule).dump()
                                                                                 : text(rule == verify::FieldRule::log_budget ? verify::log_budget_text(member)
                                                                                                                               : verify::budget_text(member));
      else if constexpr (std::is_same_v<T, std::string>) cell = text(member);
      else cell = fmt::format("{}", member);
      out += jsonl ? fmt::format(",\"{}\":{}", name, cell) : "," + cell;
    });
    out += jsonl ? fmt::format(",\"error\":{}}}\n", text(r.errors[i])) : "," + text(r.errors[i]) + "\n";
    if (out.size() > (1u << 16)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// The privacy profile δ(ε) = max of both directions (`--profile`, Python's privacy_profile): one line per ε with
// the fields of verify/records/fields.hpp (for_each_profile_field), streamed as csv or jsonl, or as a JSON object
// {"p", "q", "profile": [...]}, or a table.
void print_profile(const api::PrivacyProfile& profile, const std::string& format) {
  const std::size_t n = profile.delta.size();
  if (format == "text") {
    std::cout << fmt::format("mu = {}\nnu = {}\n{:<14} {:>20} {:>44} {:<13} {}\n", profile.p, profile.q, "eps", "delta", "interval", "error",
                             "larger direction");
    for (std::size_t i = 0; i < n; ++i) {
      const verify::Estimate& e = profile.delta[i];
      std::cout << fmt::format("{:<14.8g} {:>20} {:>44} {:<13} {}\n", profile.eps[i], verify::value_text(e),
                               verify::interval_text(e),
                               verify::error_kind_label(e), profile.reversed[i] ? "nu||mu" : "mu||nu");
    }
    return;
  }
  const bool csv = format == "csv", jsonl = format == "jsonl";
  // One cell written where it goes (the bulk of a long profile's time was the strings made for each cell).
  auto cell = [&](fmt::memory_buffer& out, const auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::string>) {
      const std::string text = csv ? escape::csv(v) : nlohmann::json(v).dump();
      out.append(text.data(), text.data() + text.size());
    } else if (std::isnan(v)) {
      fmt::format_to(std::back_inserter(out), "{}", csv ? "" : "null");
    } else if (std::isinf(v)) {
      fmt::format_to(std::back_inserter(out), "{}", csv ? (v > 0 ? "inf" : "-inf") : (v > 0 ? "\"inf\"" : "\"-inf\""));
    } else {
      fmt::format_to(std::back_inserter(out), "{}", v);
    }
  };
  fmt::memory_buffer out;
  if (!csv && !jsonl) {  // json: one object, its values as jsonl writes them
    fmt::format_to(std::back_inserter(out), "{{\n  \"p\": {},\n  \"q\": {},\n  \"profile\": [", nlohmann::json(profile.p).dump(),
                   nlohmann::json(profile.q).dump());
    for (std::size_t i = 0; i < n; ++i) {
      fmt::format_to(std::back_inserter(out), "{}\n    {{", i == 0 ? "" : ",");
      bool first = true;
      verify::for_each_profile_field(profile, [&](const char* name, const auto& at) {
        fmt::format_to(std::back_inserter(out), "{}\"{}\": ", first ? "" : ", ", name);
        cell(out, at(i));
        first = false;
      });
      out.push_back('}');
    }
    fmt::format_to(std::back_inserter(out), "\n  ]\n}}\n");
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    return;
  }
  if (csv) {
    bool first = true;
    verify::for_each_profile_field(profile, [&](const char* name, const auto&) {
      fmt::format_to(std::back_inserter(out), "{}{}", first ? "" : ",", name);
      first = false;
    });
    out.push_back('\n');
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (jsonl) out.push_back('{');
    bool first = true;
    verify::for_each_profile_field(profile, [&](const char* name, const auto& at) {
      if (!first) out.push_back(',');
      if (jsonl) fmt::format_to(std::back_inserter(out), "\"{}\":", name);
      cell(out, at(i));
      first = false;
    });
    if (jsonl) out.push_back('}');
    out.push_back('\n');
    if (out.size() > (1u << 16)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// The epsilons of `--profile`, checked against the other requests (it is its own), and that something is asked.
std::vector<double> profile_request(const DivergenceArgs& args, bool quantities_asked, bool deltas_asked) {
  std::vector<double> eps;
  for (const std::string& item : args.profile)
    for (double e : parse_number_list(item, "--profile")) eps.push_back(e);
  if (!quantities_asked && !deltas_asked && eps.empty())
    invalid_input("nothing to compute: give --renyi, --hockey-stick, --kl, --tv, --epsilon or --profile");
  if (!eps.empty() && (quantities_asked || deltas_asked))
    invalid_input("--profile is its own request: give it without --renyi, --hockey-stick, --kl, --tv and --epsilon");
  if (!eps.empty() && args.with_method) invalid_input("--with-method: --profile has no method column");
  return eps;
}

// eps(delta) per delta (`--epsilon`): a JSON object ({"epsilon": [...]}) or a table.
void print_epsilons(const std::vector<verify::Estimate>& epsilons, const std::vector<double>& deltas, bool json) {
  if (json) {
    std::cout << verify::sorted_json(api::epsilon_tree(epsilons, deltas)).dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{:<20} {:>20} {:>44} {:<13} {:>10}  {}\n", "quantity", "value", "interval", "error", "time", "method");
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    const verify::Estimate& e = epsilons[i];
    std::cout << fmt::format("{:<20} {:>20.12g} {:>44} {:<13} {:>8.3g}s  {}\n", fmt::format("epsilon({})", deltas[i]), e.value,
                             verify::interval_text(e), verify::error_kind_label(e), e.seconds, e.method);
  }
}

void add_options(CLI::App* cmd, DivergenceArgs* args) {
  cmd->add_option("p", args->p, "law mu (see `privamp laws`), e.g. 'mix(q=0.01, gaussian(0,1), gaussian(1,1))'")->required();
  cmd->add_option("q", args->q, "law nu, e.g. 'gaussian(0, 1)'")->required();
  cmd->add_option("--renyi", args->renyi,
                  "Renyi orders alpha > 1: a list '2,4.5,inf', a range 'a:b:step' or 'a:b:xN' (N log-spaced)");
  cmd->add_option("--hockey-stick", args->hockey_stick, "hockey-stick epsilons >= 0 (same list and range forms)");
  cmd->add_option("--epsilon", args->epsilon,
                  "deltas in (0, 1): eps(delta) of the pair, the smallest eps with max(H_eps(mu||nu), H_eps(nu||mu)) <= delta, "
                  "bracketed by a root search on the profile's intervals");
  cmd->add_option("--profile", args->profile,
                  "epsilons >= 0: the privacy profile delta(eps) = max(H_eps(mu||nu), H_eps(nu||mu)), both directions in one "
                  "call (same list and range forms; Python's privacy_profile)");
  cmd->add_option("--eps-max", args->eps_max, "--epsilon: the largest eps searched (at most 1e6)")->capture_default_str();
  cmd->add_option("--max-seconds", args->max_seconds, "a list of values or deltas projected (from its first items) to run longer is "
                  "stopped, exit 2; 0: no limit")->capture_default_str();
  cmd->add_flag("--kl", args->kl, "Kullback-Leibler divergence");
  cmd->add_flag("--tv", args->tv, "total variation distance");
  cmd->add_option("--engine", args->engine, verify::engine_names())->capture_default_str();
  cmd->add_option("--rel-tol", args->rel_tol, "target relative error of the quadrature")->capture_default_str();
  cmd->add_option("--samples", args->samples, "Monte Carlo samples")->capture_default_str();
  cmd->add_option("--seed", args->seed, "Monte Carlo seed")->capture_default_str();
  cmd->add_option("--level", args->level, "confidence level of Monte Carlo intervals")->capture_default_str();
  cmd->add_flag("--json", args->json, "print a JSON object instead of a table (the same as --format json)");
  cmd->add_option("--format", args->format,
                  "text | json | csv | jsonl: csv and jsonl stream one line per value (for long lists; the method's "
                  "prose only with --with-method)")
      ->check(CLI::IsMember({"text", "json", "csv", "jsonl"}))
      ->capture_default_str();
  cmd->add_flag("--with-method", args->with_method, "csv and jsonl: a method column too");
}

// What the command line asks (every list read and checked before anything runs): the divergence request, the deltas
// of --epsilon and the epsilons of --profile.
struct Asked {
  api::DivergenceRequest request;
  std::vector<double> deltas, profile_eps;
  bool quantities = false;
};

Asked read_request(const DivergenceArgs* args) {
  Asked asked;
  api::DivergenceRequest& request = asked.request;
  std::vector<double>& deltas = asked.deltas;
  for (const std::string& item : args->renyi)
    for (double a : parse_number_list(item, "--renyi")) request.renyi.push_back(a);
  for (const std::string& item : args->hockey_stick)
    for (double e : parse_number_list(item, "--hockey-stick")) request.hockey_stick.push_back(e);
  request.kl = args->kl;
  request.tv = args->tv;
  for (const std::string& item : args->epsilon)
    for (double d : parse_number_list(item, "--epsilon")) {
      if (!(d > 0 && d < 1)) throw_invalid("divergence", "--epsilon", d, "0 < delta < 1");
      deltas.push_back(d);
    }
  if (deltas.size() > 100) throw_invalid("divergence", "--epsilon", static_cast<double>(deltas.size()), "at most 100 deltas");
  asked.quantities = !request.renyi.empty() || !request.hockey_stick.empty() || request.kl || request.tv;
  asked.profile_eps = profile_request(*args, asked.quantities, !deltas.empty());
  request.engine = args->engine;
  request.rel_tol = args->rel_tol;
  request.samples = args->samples;
  if (args->seed < 0) throw_invalid("divergence", "--seed", static_cast<double>(args->seed), "seed >= 0");
  request.seed = static_cast<std::uint64_t>(args->seed);
  request.level = args->level;
  // Long lists of values (a composed profile of thousands of levels) show they are alive: a progress line on
  // stderr every few seconds, or a bar on a terminal (nothing for a short call).
  check_max_seconds("divergence", args->max_seconds);
  request.progress = limited_progress(terminal_progress(args->epsilon.empty() ? "values" : "deltas"), args->max_seconds, "divergence",
                                      args->epsilon.empty() ? "values" : "deltas", "--max-seconds");
  if (asked.quantities && !deltas.empty())
    invalid_input("--epsilon is its own request: give it without --renyi, --hockey-stick, --kl and --tv");
  if (!(args->eps_max > 0 && args->eps_max <= 1e6)) throw_invalid("divergence", "--eps-max", args->eps_max, "0 < eps_max <= 1e6");
  if (!deltas.empty() && args->with_method) invalid_input("--with-method: for --format csv or jsonl, not --epsilon");
  if (!deltas.empty() && (args->format == "csv" || args->format == "jsonl"))
    invalid_input("--format {}: for lists of divergences; --epsilon prints a table or --json", args->format);
  if (args->json && args->format != "text" && args->format != "json") invalid_input("--json and --format {}: give one of them", args->format);
  if (asked.quantities && args->with_method && args->format != "csv" && args->format != "jsonl")
    invalid_input("--with-method: only with --format csv or jsonl (the text table and JSON always carry the method)");
  return asked;
}

// The text table of a divergence call; the reasons for values not computed on stderr.
void print_table(const api::DivergenceResult& r) {
  const auto& quantities = r.quantities;
  const auto& results = r.estimates;
  std::cout << fmt::format("mu = {}\nnu = {}\n", r.p, r.q);
  std::cout << fmt::format("{:<20} {:>20} {:>44} {:<13} {:>10}  {}\n", "quantity", "value", "interval", "error",
                           "time", "method");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& e = results[i];
    if (std::isnan(e.value)) {  // could not be computed: the reason follows the table
      std::cout << fmt::format("{:<20} {:>20} {:>44} {:<13}\n", quantities[i].label(), "-", "-", "error");
      continue;
    }
    const std::string kind = e.error_kind == verify::ErrorKind::statistical
                                 ? fmt::format("{}% CI", e.level * 100)
                                 : verify::error_kind_label(e);
    std::cout << fmt::format("{:<20} {:>20} {:>44} {:<13} {:>8.3g}s  {}\n", quantities[i].label(),
                             verify::value_text(e),
                             verify::interval_text(e), kind,
                             e.seconds, e.method);
  }
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!r.errors[i].empty()) std::cerr << fmt::format("privamp: {}: {}\n", quantities[i].label(), r.errors[i]);
}

}  // namespace

Action add_divergence_command(CLI::App& app) {
  auto args = std::make_shared<DivergenceArgs>();
  auto* cmd = app.add_subcommand("divergence", "Compute divergences between two laws, with error bars");
  add_options(cmd, args.get());
  return [cmd, args]() {
    if (!cmd->parsed()) return -1;
    Asked asked = read_request(args.get());
    if (!asked.profile_eps.empty()) {
      asked.request.hockey_stick = asked.profile_eps;
      print_profile(api::privacy_profile(args->p, args->q, asked.request), args->json ? "json" : args->format);
      return 0;
    }
    if (!asked.quantities) {
      // eps(delta) per delta, computed before anything is printed (bad laws are refused by the first).
      std::vector<verify::Estimate> epsilons;
      api::check_epsilon_work(asked.deltas.size(), asked.request);
      epsilons = api::epsilons_for_deltas(args->p, args->q, asked.deltas, asked.request, args->eps_max);
      print_epsilons(epsilons, asked.deltas, args->json || args->format == "json");
      return 0;
    }
    const api::DivergenceResult r = api::divergence(args->p, args->q, asked.request);
    if (args->format == "csv" || args->format == "jsonl") {
      stream_rows(r, args->format == "jsonl", args->with_method);
      for (std::size_t i = 0; i < r.errors.size(); ++i)
        if (!r.errors[i].empty()) std::cerr << fmt::format("privamp: {}: {}\n", r.quantities[i].label(), r.errors[i]);
      return r.ok() ? 0 : 1;
    }
    if (args->json || args->format == "json") {
      std::cout << verify::sorted_json(api::to_tree(r)).dump(2) << "\n";
      return r.ok() ? 0 : 1;
    }
    print_table(r);
    return r.ok() ? 0 : 1;
  };
}

}  // namespace privamp::cli
