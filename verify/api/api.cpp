#include "verify/api/api.hpp"
#include "verify/api/epsilon_search.hpp"

#include "verify/divergence/consistency.hpp"

#include <algorithm>
#include <charconv>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <future>
#include <tuple>
#include <limits>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "numerics/escape.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/files.hpp"
#include "numerics/parallel.hpp"
#include "sim/language/expression.hpp"
#include "verify/divergence/engines.hpp"
#include "verify/explore/explore_report.hpp"
#include "verify/input/json_reader.hpp"
#include "verify/input/toml_reader.hpp"
#include "verify/report/report.hpp"
#include "verify/records/codec.hpp"
#include "verify/runner/run.hpp"
#include "verify/runner/runner.hpp"

namespace privamp::api {

using verify::Tree;

Tree estimate_tree(const verify::Estimate& e) {
  Tree t = Tree::object();
  verify::for_each_field(e, [&](const char* name, const auto& member, verify::FieldRule rule) {
    using T = std::decay_t<decltype(member)>;
    if (!verify::written(e, rule)) return;  // a discretised estimate's error parts only for those
    if constexpr (std::is_same_v<T, verify::ErrorKind>) t[name] = verify::error_kind_label(e);  // "none" where not computed
    else if constexpr (std::is_same_v<T, verify::ErrorBudget>) t[name] = verify::budget_json<Tree>(member, rule);
    else t[name] = member;
  });
  return t;
}

// ---- divergences ----

void check_monte_carlo_work(double quantities, const DivergenceRequest& r, const std::string& what) {
  if (r.engine != "mc" || r.samples < 1) return;  // (a bad sample count is refused by name)
  if (const double total = quantities * (static_cast<double>(r.samples) + kSampleSetup); total > kMaxSampleTotal)
    invalid_input("divergence: {} on the Monte Carlo engine at {} samples each cost about {:.3g} draws in all (each quantity "
                  "draws its own, and its sampler's set-up costs about {:.0e} more; an eps(delta) search about {:.0f} quantities "
                  "per delta); at most {:.0e} per call: fewer values, fewer samples, or several calls",
                  what, r.samples, total, kSampleSetup, kEpsilonSearchQuantities, kMaxSampleTotal);
}

void check_epsilon_work(std::size_t deltas, const DivergenceRequest& r) {
  check_monte_carlo_work(kEpsilonSearchQuantities * static_cast<double>(deltas), r,
                         fmt::format("{} eps(delta) search{}", deltas, deltas == 1 ? "" : "es"));
}

DivergenceResult divergence(const std::string& mu, const std::string& nu, const DivergenceRequest& r) {
  using verify::Quantity;
  DivergenceResult out;
  for (double a : r.renyi) out.quantities.push_back(std::isinf(a) && a > 0 ? Quantity::renyi_inf() : Quantity::renyi(a));
  for (double e : r.hockey_stick) out.quantities.push_back(Quantity::hockey_stick(e));
  if (r.kl) out.quantities.push_back(Quantity::kl());
  if (r.tv) out.quantities.push_back(Quantity::tv());
  if (out.quantities.empty()) invalid_input("nothing to compute: give renyi, hockey_stick, kl or tv");
  // Every size and amount of work bounded before anything is built or computed.
  if (out.quantities.size() > kMaxQuantities)
    invalid_input("divergence: {} quantities in one call ({} Renyi orders, {} hockey-stick epsilons{}); at most {}: "
                  "split them over several calls",
                  out.quantities.size(), r.renyi.size(), r.hockey_stick.size(),
                  r.kl || r.tv ? ", KL/TV" : "", kMaxQuantities);
  // (one range, the Monte Carlo engine's lower end included: 0 was said to allow 1, and 99 then to need 100)
  if (r.samples < kMinSamples || r.samples > kMaxSamples)
    throw_invalid("divergence", "samples", static_cast<double>(r.samples),
                  fmt::format("{} <= samples <= {:.0e}", kMinSamples, static_cast<double>(kMaxSamples)));
  check_monte_carlo_work(static_cast<double>(out.quantities.size()), r, fmt::format("{} quantities", out.quantities.size()));
  if (!(r.rel_tol >= 1e-15 && r.rel_tol <= 0.5)) throw_invalid("divergence", "rel_tol", r.rel_tol, "1e-15 <= rel_tol <= 0.5");
  if (!(r.level >= 0.5 && r.level <= 1 - 1e-12))  // the Monte Carlo engine's range, checked before anything runs
    throw_invalid("divergence", "level", r.level, "0.5 <= level <= 1 - 1e-12");
  const sim::LawPtr p = sim::parse_law(mu), q = sim::parse_law(nu);
  // The canonical expression (defaults filled in), unless the law is tabulated (grid laws of propagated processes
  // print every node, and would be built only to be printed: a joint route never needs them): then as typed.
  auto shown = [](const sim::Law& law, const std::string& typed) {
    if (law.discretisation()) return typed;
    std::string e = law.expression();
    return e.size() <= 300 ? e : typed;
  };
  out.p = shown(*p, mu);
  out.q = shown(*q, nu);
  out.engine = r.engine;
  verify::DivergenceOptions options;
  options.engine = verify::parse_engine(r.engine);
  options.rel_tol = r.rel_tol;
  options.monte_carlo.samples = r.samples;
  options.monte_carlo.seed = r.seed;
  options.monte_carlo.level = r.level;
  options.progress = r.progress;
  out.errors.assign(out.quantities.size(), "");
  try {
    out.estimates = verify::compute_divergences(*p, *q, out.quantities, options);
  } catch (const InvalidArgument&) {
    throw;
  } catch (const Interrupted&) {
    throw;  // the user's Ctrl-C ends the call: never a row of NaN
  } catch (const std::exception& e) {
    if (out.quantities.size() == 1) throw;
    // One quantity that cannot be computed does not take the others with it: each on its own.
    out.estimates.clear();
    options.progress = nullptr;  // (reported here, value by value)
    for (std::size_t i = 0; i < out.quantities.size(); ++i) {
      if (r.progress) r.progress(i, out.quantities.size());
      try {
        out.estimates.push_back(verify::compute_divergence(*p, *q, out.quantities[i], options));
      } catch (const InvalidArgument&) {
        throw;
      } catch (const Interrupted&) {
        throw;
      } catch (const std::exception& f) {
        out.estimates.push_back(verify::Estimate::unknown(f.what()));
        out.errors[i] = f.what();
      }
    }
  }
  if (r.progress) r.progress(out.quantities.size(), out.quantities.size());  // the end, once
  const auto violations = verify::ordering_violations(out.quantities, out.estimates);
  for (std::size_t i = 0; i < violations.size(); ++i)
    if (violations[i] && out.errors[i].empty()) out.errors[i] = *violations[i];
  return out;
}

PrivacyProfile privacy_profile(const std::string& mu, const std::string& nu, const DivergenceRequest& request) {
  DivergenceRequest r = request;
  r.renyi.clear();
  r.kl = r.tv = false;
  if (r.hockey_stick.size() > kMaxQuantities)
    invalid_input("privacy profile: {} values of eps in one call; at most {}: split them over several calls", r.hockey_stick.size(),
                  kMaxQuantities);
  // Progress over both directions (computed in two threads): values done in each, reported as one count of 2n.
  std::array<std::atomic<std::size_t>, 2> done{};
  std::mutex report;
  std::size_t reported = 0;
  auto direction_progress = [&](std::size_t which) -> std::function<void(std::size_t, std::size_t)> {
    if (!request.progress) return {};
    return [&, which](std::size_t d, std::size_t total) {
      done[which] = d;
      const std::lock_guard hold(report);
      const std::size_t sum = done[0] + done[1];
      if (sum == reported && sum != 0) return;  // (both directions may end at once: the end is reported once)
      reported = sum;
      request.progress(sum, 2 * total);
    };
  };
  DivergenceRequest r_back = r;
  r.progress = direction_progress(0);
  r_back.progress = direction_progress(1);
  auto reverse = std::async(std::launch::async, [&] {
    const WorkerClaim claim;
    return divergence(nu, mu, r_back);
  });
  std::optional<DivergenceResult> forward;
  {
    const WorkerClaim claim;
    try {
      forward = divergence(mu, nu, r);
    } catch (...) {
      reverse.wait();  // the other thread reads r, mu and nu
      throw;
    }
  }
  const DivergenceResult back = reverse.get();
  const DivergenceResult& fwd = *forward;
  PrivacyProfile out{fwd.p, fwd.q, r.hockey_stick, {}, {}};
  for (std::size_t i = 0; i < r.hockey_stick.size(); ++i) {
    for (const auto& [d, a, b] : {std::tuple{&fwd, &mu, &nu}, std::tuple{&back, &nu, &mu}})
      if (!d->errors[i].empty())
        throw NumericalError(fmt::format("the privacy profile at eps = {:g} ({} || {}): {}", r.hockey_stick[i], *a, *b, d->errors[i]));
    const verify::Estimate &f = fwd.estimates[i], &g = back.estimates[i];
    const bool reversed = std::pair(g.log_value(), g.value) > std::pair(f.log_value(), f.value);
    verify::Estimate e = reversed ? g : f;
    e.max_with(reversed ? f : g);
    if (verify::weakness(f.error_kind) > verify::weakness(e.error_kind)) e.error_kind = f.error_kind;
    if (verify::weakness(g.error_kind) > verify::weakness(e.error_kind)) e.error_kind = g.error_kind;
    e.level = std::min(f.level, g.level);
    out.delta.push_back(std::move(e));
    out.reversed.push_back(reversed);
  }
  return out;
}

std::vector<verify::Estimate> epsilons_for_deltas(const std::string& mu, const std::string& nu, const std::vector<double>& deltas,
                                                  const DivergenceRequest& request, double eps_max) {
  std::vector<verify::Estimate> out;
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    if (request.progress && i > 0) request.progress(i, deltas.size());
    out.push_back(epsilon_for_delta(mu, nu, deltas[i], request, eps_max));
  }
  if (request.progress && !deltas.empty()) request.progress(deltas.size(), deltas.size());
  return out;
}

verify::Estimate epsilon_for_delta(const std::string& mu, const std::string& nu, double delta, const DivergenceRequest& request,
                                   double eps_max, double rel_tol) {
  if (!(delta > 0 && delta < 1)) throw_invalid("epsilon", "delta", delta, "0 < delta < 1");
  if (!(eps_max > 0 && eps_max <= 1e6)) throw_invalid("epsilon", "eps_max", eps_max, "0 < eps_max <= 1e6");
  if (!(rel_tol >= 1e-15 && rel_tol < 1)) throw_invalid("epsilon", "rel_tol", rel_tol, "1e-15 <= rel_tol < 1");
  check_epsilon_work(1, request);
  if (request.engine != "certified") return bracket_epsilon(mu, nu, delta, request, eps_max, rel_tol);
  // Certified: a bracket rests on its two ends alone (δ certainly above at the lower one, certainly at most δ at
  // the upper one), whatever located them. So the default engine locates the root, and the certified engine is
  // asked only at the bracket's ends; where either end is not confirmed, the search runs again on certified values
  // throughout.
  const auto start = std::chrono::steady_clock::now();
  DivergenceRequest fast = request;
  fast.engine = "auto";
  std::optional<verify::Estimate> located;
  try {
    located = bracket_epsilon(mu, nu, delta, fast, eps_max, rel_tol);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception&) {
  }
  if (located) {
    std::optional<ProfileAt> low, high;
    if (located->lower > 0) low = profile_at(mu, nu, located->lower, request);
    high = profile_at(mu, nu, located->upper, request);
    if ((!low || low->lower > delta) && high->upper <= delta) {
      verify::ErrorKind kind = high->kind;
      if (low && verify::weakness(low->kind) > verify::weakness(kind)) kind = low->kind;
      verify::Estimate e = verify::Estimate::from_interval(
          located->lower, located->upper, kind,
          fmt::format("a bracket of the root whose ends rest on {} intervals of max(H_eps(mu||nu), H_eps(nu||mu)) "
                      "(located by a search on the default engine's profile, {} evaluations)",
                      verify::to_string(kind), located->work));
      e.level = std::min(high->level, low ? low->level : 1.0);
      e.work = located->work + (low ? 2 : 1);
      e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return e;
    }
  }
  return bracket_epsilon(mu, nu, delta, request, eps_max, rel_tol);
}

bool DivergenceResult::ok() const {
  for (const std::string& e : errors)
    if (!e.empty()) return false;
  return true;
}

namespace {
// An estimate's record followed by the fields that say what it is (fields.hpp: EstimateExtras).
Tree estimate_record(const verify::Estimate& e, verify::EstimateExtras extras) {
  Tree t = estimate_tree(e);
  verify::fields_of(extras, [&](const char* name, const Tree& value) {
    if (!value.is_discarded()) t[name] = value;
  });
  return t;
}
}  // namespace

Tree to_tree(const DivergenceResult& r) {
  verify::DivergenceRecord out{r.p, r.q, r.engine, Tree::array()};
  for (std::size_t i = 0; i < r.estimates.size(); ++i) {
    verify::EstimateExtras extras;
    extras.quantity = r.quantities[i].label();
    if (i < r.errors.size() && !r.errors[i].empty()) extras.error = r.errors[i];
    out.results.push_back(estimate_record(r.estimates[i], std::move(extras)));
  }
  return verify::record(out);
}

Tree epsilon_tree(const verify::Estimate& e, std::optional<double> delta) {
  verify::EstimateExtras extras;
  extras.quantity = delta ? fmt::format("epsilon({})", format_number(*delta)) : std::string("epsilon(delta)");
  if (delta) extras.delta = *delta;
  return estimate_record(e, std::move(extras));
}

Tree epsilon_tree(const std::vector<verify::Estimate>& e, const std::vector<double>& deltas) {
  verify::EpsilonRecord out{Tree::array()};
  for (std::size_t i = 0; i < e.size(); ++i) out.epsilon.push_back(epsilon_tree(e[i], deltas.at(i)));
  return verify::record(out);
}

// ---- kernels ----

namespace {

Eigen::MatrixXd to_matrix(const std::vector<std::vector<double>>& rows, const std::string& what) {
  if (rows.empty()) invalid_input("{}: the matrix is empty", what);
  const std::size_t n = rows.size();
  if (n > kMaxKernelStates)
    invalid_input("{}: {} rows; allowed at most {}", what, n, kMaxKernelStates);
  Eigen::MatrixXd m(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) {
    if (rows[i].size() != n)
      invalid_input("{}: row {} has {} entries; a kernel on {} states needs {} (square matrix)", what, i,
                    rows[i].size(), n, n);
    for (std::size_t j = 0; j < n; ++j) m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  }
  return m;
}

std::vector<std::vector<double>> rows_from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_array()) invalid_input("{}: expected a list of rows [[..], [..]]", what);
  std::vector<std::vector<double>> rows;
  for (const auto& row : j) {
    if (!row.is_array()) invalid_input("{}: row {} is not a list", what, rows.size());
    std::vector<double> r;
    for (const auto& v : row) {
      if (!v.is_number())
        invalid_input("{}: row {} entry {} is not a number", what, rows.size(), r.size());
      r.push_back(v.get<double>());
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<std::vector<double>> rows_from_csv(const std::string& text, const std::string& what) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    std::vector<double> r;
    // Cells are decimal numbers as everywhere else (std::stod also read 0x1p-1, inf and nan), and a row ends in a
    // number (getline drops the empty cell after a trailing comma).
    if (line.find_last_not_of(" \t\r") != std::string::npos && line[line.find_last_not_of(" \t\r")] == ',')
      invalid_input("{}: row {} ends with a comma: one number per column", what, rows.size());
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) {
      const auto first = cell.find_first_not_of(" \t\r"), last = cell.find_last_not_of(" \t\r");
      const std::string number = first == std::string::npos ? "" : cell.substr(first, last - first + 1);
      double v = 0;
      const char* begin = number.data() + (!number.empty() && number[0] == '+' ? 1 : 0);
      const auto [end, ec] = std::from_chars(begin, number.data() + number.size(), v);
      if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(v) ||
          number.find_first_not_of("+-.0123456789eE") != std::string::npos)
        invalid_input("{}: row {}: '{}' is not a number (decimal or exponent notation, e.g. 0.5 or 1e-5)", what, rows.size(), cell);
      r.push_back(v);
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

sim::FiniteKernel parse_kernel(const std::string& text) {
  const std::string what = "K";
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '[' || text[first] == '{')) {
    nlohmann::json j;
    try {
      // (a key twice in an object, a number the doubles cannot hold: refused by name; see json_reader.hpp)
      j = verify::parse_json_input("K", text);
    } catch (const nlohmann::json::parse_error& e) {
      // Where it stopped, in the user's text (numbers must be finite decimals: NaN, inf and fractions like 1/3 are not).
      const std::size_t at = e.byte > 0 ? std::min<std::size_t>(e.byte - 1, text.size()) : 0;
      const std::size_t from = at > 20 ? at - 20 : 0;
      invalid_input("K: not a list of rows of decimal numbers such as [[0.5, 0.5], [0.2, 0.8]]: unexpected "
                    "text at character {}: '{}' (NaN, inf and fractions such as 1/3 are not numbers here)",
                    at + 1, text.substr(from, std::min<std::size_t>(40, text.size() - from)));
    } catch (const nlohmann::json::exception& e) {  // e.g. a number beyond the range of doubles (1e400)
      invalid_input("K: not a list of rows of finite decimal numbers (numbers must be within "
                    "+-1.8e308): {}", e.what());
    }
    // A JSON object holds the rows under "K" (as a TOML file does).
    if (j.is_object()) {
      if (!j.contains("K") || j.size() != 1) invalid_input("K: a JSON object holds the kernel's rows as its one key \"K\": {{\"K\": [[..], [..]]}}");
      j = nlohmann::json(j["K"]);
    }
    return sim::FiniteKernel(to_matrix(rows_from_json(j, what), what));
  }
  return sim::FiniteKernel(to_matrix(rows_from_csv(text, what), what));
}

void check_kernel_shape(std::size_t rows, std::size_t columns) {
  if (rows == 0) invalid_input("K: the matrix is empty");
  if (rows > kMaxKernelStates) invalid_input("K: {} rows; allowed at most {}", rows, kMaxKernelStates);
  if (columns != rows)
    invalid_input("K: {} x {}; a kernel on {} states is a square {} x {} matrix", rows, columns, rows, rows, rows);
}

sim::FiniteKernel kernel_from_rows(const std::vector<std::vector<double>>& rows) {
  return sim::FiniteKernel(to_matrix(rows, "K"));
}

sim::FiniteKernel read_kernel_file(const std::string& path) {
  std::stringstream buffer(read_input_file("--K-file", path, 64u << 20));
  if (path.size() > 5 && path.substr(path.size() - 5) == ".toml") {
    const toml::table t = verify::parse_toml(buffer.str(), path);
    for (const auto& [key, value] : t)  // a misspelt or extra key is refused, as in case files (it was ignored)
      if (key.str() != "K") invalid_input("{}: unknown key '{}' (a kernel file holds K = [[..], [..]] alone)", path, escape::plain(std::string(key.str())));
    const toml::array* k = t["K"].as_array();
    if (!k) invalid_input("{}: needs a key K = [[..], [..]]", path);
    std::vector<std::vector<double>> rows;
    for (const auto& row : *k) {
      const toml::array* r = row.as_array();
      if (!r) invalid_input("{}: K row {} is not a list", path, rows.size());
      std::vector<double> v;
      for (const auto& x : *r) {
        const auto d = x.value<double>();
        if (!d) invalid_input("{}: K row {} entry {} is not a number", path, rows.size(), v.size());
        v.push_back(*d);
      }
      rows.push_back(std::move(v));
    }
    return sim::FiniteKernel(to_matrix(rows, path));
  }
  return parse_kernel(buffer.str());
}

KernelResult kernel(const sim::FiniteKernel& k, const KernelRequest& r) {
  // Every value checked and the whole request's cost estimated before anything is computed.
  // exp(eps) must be a double: eps <= 700.
  for (double e : r.eps)
    if (!(e >= 0 && e <= 700)) throw_invalid("kernel", "eps", e, "0 <= eps <= 700");
  if ((!r.eps_prime.empty() || !r.renyi.empty()) && !r.dp)
    invalid_input("the amplified profiles need the mechanism's privacy: give dp = (eps, delta) (--dp EPS,DELTA)");
  if (r.dp) {
    if (!(r.dp->first >= 0 && r.dp->first <= 700)) throw_invalid("kernel", "dp EPS", r.dp->first, "0 <= EPS <= 700 (exp(EPS) must be a double)");
    check_probability("kernel", "dp DELTA", r.dp->second);
  }
  for (double e : r.eps_prime)
    if (!(e >= 0 && e <= 700)) throw_invalid("kernel", "eps_prime", e, "0 <= eps' <= 700");
  for (double a : r.renyi)
    if (!(a > 1 && a <= 1e6)) throw_invalid("kernel", "renyi", a, "1 < alpha <= 10^6");
  // The state limits of the exact enumerations, before anything runs (a 64-state kernel with --renyi was refused by
  // the enumeration's own name after the coefficients and the eps' profile had been computed).
  if (r.dp && !r.renyi.empty() && k.size() > verify::kMaxWorstCaseRenyiStates)
    invalid_input("kernel: renyi (the exact worst-case Renyi profile) takes kernels of at most {} states; this one has {} "
                  "(leave out the orders, or give a smaller kernel)", verify::kMaxWorstCaseRenyiStates, k.size());
  if (r.dp && !r.eps_prime.empty() && k.size() > verify::kMaxWorstCaseStates)
    invalid_input("kernel: eps_prime (the exact worst-case amplification) takes kernels of at most {} states; this one has "
                  "{} (leave out eps', or give a smaller kernel)", verify::kMaxWorstCaseStates, k.size());
  // The coefficients compare every pair of rows (states^3 operations: about 2 s at 1,024 states, and 9 s per
  // Dobrushin coefficient at an eps, Theorem 1's included); the exact worst cases enumerate states^4 maps per value, each map costing
  // states operations (hockey-stick: about a second per value at 64 states) or states logarithms (Rényi: about a
  // second per order at 30 states, bench/ WorstCaseRenyi). The whole request is refused before it starts when it
  // would take more than about a minute.
  const double n = static_cast<double>(k.size());
  const double seconds = std::pow(n / 1024, 3) * (2 + 9 * static_cast<double>(r.eps.size() + (r.dp ? 1 : 0))) +
                         (r.dp ? std::pow(n / 64, 4) * static_cast<double>(r.eps_prime.size()) +
                                     std::pow(n / 30, 5) * static_cast<double>(r.renyi.size())
                               : 0);
  if (seconds > 60)
    invalid_input("kernel: {} values of eps, {} of eps' and {} orders alpha on a {}-state kernel: about {:.0f} s "
                  "(the coefficients: ~2 s and ~9 s per eps at 1,024 states; the exact enumeration: states^4 maps per "
                  "value, ~1 s per eps' at 64 states, ~1 s per alpha at 30 states); at most ~60 s per call: give fewer "
                  "values or a smaller kernel",
                  r.eps.size(), r.eps_prime.size(), r.renyi.size(), k.size(), seconds);
  KernelResult out;
  out.matrix = k.matrix();
  out.coefficients = sim::mixing_coefficients(k);
  out.rounding = 4.0 * (k.size() + 2) * std::numeric_limits<double>::epsilon();
  for (double e : r.eps) out.dobrushin_at.emplace_back(e, sim::dobrushin_at(k, e));
  if (!r.dp) return out;
  const auto [eps, delta] = *r.dp;
  out.dp = r.dp;
  out.theorem1 = verify::theorem1_points(k, eps, delta);
  // (Each enumeration runs only when asked for: its state limit applies to what is computed.)
  const auto worst = r.eps_prime.empty() ? std::vector<verify::WorstCase>{}
                                         : verify::worst_case_amplification(k, eps, delta, r.eps_prime);
  for (std::size_t i = 0; i < worst.size(); ++i) {
    ProfilePoint point{r.eps_prime[i], worst[i], std::nullopt, {}};
    if (k.size() <= 16) point.cross = verify::worst_case_by_output_sets(k, eps, delta, r.eps_prime[i]);
    for (const auto& t : out.theorem1)
      point.bounds.push_back(r.eps_prime[i] >= t.eps_prime * (1 - 1e-15) ? std::optional<double>(t.delta_prime) : std::nullopt);
    out.profile.push_back(std::move(point));
  }
  const auto renyi = r.renyi.empty() ? std::vector<verify::WorstCase>{} : verify::worst_case_renyi(k, eps, delta, r.renyi);
  for (std::size_t i = 0; i < renyi.size(); ++i) out.renyi.emplace_back(r.renyi[i], renyi[i]);
  return out;
}

Tree to_tree(const KernelResult& r) {
  using verify::record;
  const auto n = r.matrix.rows();
  verify::KernelRecord out;
  out.states = n;
  out.K = Tree::array();
  for (Eigen::Index i = 0; i < n; ++i) {
    Tree row = Tree::array();
    for (Eigen::Index j = 0; j < n; ++j) row.push_back(r.matrix(i, j));
    out.K.push_back(std::move(row));
  }
  const auto coefficient = [&](double v) {
    return verify::CoefficientRecord{v, std::max(0.0, v - r.rounding), std::min(1.0, v + r.rounding)};
  };
  const auto& c = r.coefficients;
  verify::CoefficientRecord dobrushin = coefficient(c.dobrushin);
  out.dobrushin = record(dobrushin);
  verify::CoefficientRecord doeblin = coefficient(c.doeblin);
  doeblin.omega = std::vector<double>(c.omega.data(), c.omega.data() + c.omega.size());
  out.doeblin = record(doeblin);
  verify::CoefficientRecord ultra = coefficient(c.ultra_mixing);
  ultra.log_ratio_bound = c.ultra_mixing_ldp;
  out.ultra_mixing = record(ultra);
  out.dobrushin_at = Tree::array();
  for (const auto& [e, g] : r.dobrushin_at) {
    verify::CoefficientRecord at = coefficient(g);
    at.eps = e;
    out.dobrushin_at.push_back(record(at));
  }
  if (r.dp) {
    verify::MechanismRecord dp{r.dp->first, r.dp->second};
    out.dp = record(dp);
    out.theorem1 = Tree::array();
    for (const auto& t : r.theorem1) {
      verify::GuaranteeRecord g{t.id, t.statement, t.eps_prime, t.delta_prime};
      out.theorem1.push_back(record(g));
    }
    out.profile = Tree::array();
    for (const auto& p : r.profile) {
      verify::EstimateExtras extras;
      extras.eps_prime = p.eps_prime;
      extras.map = p.exact.map;
      if (p.cross) extras.cross_check = estimate_tree(*p.cross);
      extras.bounds = Tree::object();
      for (std::size_t i = 0; i < p.bounds.size(); ++i) extras.bounds[r.theorem1[i].id] = p.bounds[i] ? Tree(*p.bounds[i]) : Tree(nullptr);
      out.profile.push_back(estimate_record(p.exact.value, std::move(extras)));
    }
    out.renyi = Tree::array();
    for (const auto& [alpha, w] : r.renyi) {
      verify::EstimateExtras extras;
      extras.alpha = alpha;
      extras.map = w.map;
      out.renyi.push_back(estimate_record(w.value, std::move(extras)));
    }
  }
  return record(out);
}

VerifyResult verify(const std::vector<std::string>& paths, const VerifyRequest& request) {
  std::vector<std::filesystem::path> files(paths.begin(), paths.end());
  if (files.empty()) invalid_input("verify: give at least one case file or directory");
  verify::RunSettings settings;
  settings.only = request.only;
  settings.jobs = verify::worker_count("verify", request.jobs, "jobs");  // checked before the files are read
  if (!request.out.empty()) check_output_dir("out", request.out);
  check_distinct_outputs(verify::report_outputs("out", request.out, "html", request.html, "junit", request.junit));
  if (!request.junit.empty()) check_output_file("junit", request.junit, {request.out, request.html});
  if (!request.html.empty()) check_output_dir("html", request.html);
  const verify::Loaded loaded = verify::load(files);
  check_distinct_outputs(verify::report_outputs("out", request.out, "html", request.html, "junit", request.junit),
                         verify::case_files(files));  // no output overwrites a case file
  // As the command: the folders locked and the files they will hold checked before the run, held while written.
  const std::vector<OutputLock> locks = lock_output_folders(verify::report_folders("out", request.out, "html", request.html, "junit", request.junit));
  const auto start = std::chrono::steady_clock::now();
  const verify::RunResult r = verify::run(loaded, settings);  // IDs and jobs checked before it runs
  VerifyResult out;
  out.notes = verify::unread_parameter_notes(loaded.cases, request.only);
  out.summary = verify::summary_table(r.rows);
  out.violated = r.violated;
  out.errors = r.errors;
  if (!request.out.empty() || !request.html.empty()) {
    const verify::ReportMeta meta = verify::report_meta(r.rows, *loaded.bounds, request.version, request.commit, request.command,
                                                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!request.out.empty()) verify::write_reports(r.rows, meta, request.out);
    if (!request.html.empty()) verify::write_html(r.rows, meta, request.html);
  }
  if (!request.junit.empty()) verify::write_junit(r.rows, request.junit);
  out.rows = r.rows;
  return out;
}

// ---- searches ----

ExploreSelection select_explore(const ExploreRequest& request) {
  std::vector<std::filesystem::path> paths;
  std::string only_id = request.id;
  if (request.all) {
    for (const auto& t : request.targets) paths.emplace_back(t);
    if (paths.empty()) paths.emplace_back(request.cases_dir);
  } else {
    if (request.targets.size() != 1) invalid_input("explore: give one case file or theorem ID (or --all)");
    const std::string& t = request.targets.front();
    if (std::filesystem::exists(t)) {
      paths.emplace_back(t);
    } else {
      verify::find_bound(t);  // an unknown ID (not a file either) is refused with the list of IDs
      paths.emplace_back(request.cases_dir);
      if (!only_id.empty() && only_id != t) invalid_input("--id {} contradicts the target {}", only_id, t);
      only_id = t;
    }
  }
  ExploreSelection out;
  out.cases = verify::load_cases(paths);
  for (std::size_t i = 0; i < out.cases.size(); ++i) {
    const verify::Case& c = out.cases[i];
    if (!request.case_name.empty() && c.name != request.case_name) continue;
    if (c.explore.empty() && (request.all || request.case_name.empty())) continue;
    for (const std::string& id : c.bounds)
      if (only_id.empty() || id == only_id) out.runs.emplace_back(i, id);
  }
  if (out.runs.empty())
    invalid_input("explore: no case {}{}with a [case.explore] table in {}",
                  request.case_name.empty() ? "" : "named '" + request.case_name + "' ",
                  only_id.empty() ? "" : "checking " + only_id + " ",
                  fmt::join(request.targets.empty() ? std::vector<std::string>{request.cases_dir} : request.targets, ", "));
  return out;
}

verify::ExploreOptions explore_options(const ExploreSettings& s, const std::string& prefix) {
  verify::ExploreOptions options;
  options.goal = verify::parse_goal(s.goal);
  if (!(s.budget >= 2 && s.budget <= 1e7 && s.budget == std::floor(s.budget)))
    throw_invalid("explore", prefix + "budget", s.budget, "an integer with 2 <= budget <= 10^7");
  if (s.seed < 0) throw_invalid("explore", prefix + "seed", static_cast<double>(s.seed), "seed >= 0");
  if (!(s.max_seconds >= 0 && s.max_seconds <= 1e7))
    throw_invalid("explore", prefix + (prefix.empty() ? "max_seconds" : "max-seconds"), s.max_seconds,
                  "0 (no limit) <= max-seconds <= 10^7");
  if (!(s.bins >= 1 && s.bins <= 100))
    throw_invalid("explore", prefix + "bins", s.bins, "an integer with 1 <= bins <= 100");
  options.budget = static_cast<int>(s.budget);
  options.max_seconds = s.max_seconds;
  options.seed = static_cast<std::uint64_t>(s.seed);
  options.starts = s.starts;
  if (s.starts < 1 || s.starts > 64) throw_invalid("explore", prefix + "starts", s.starts, "1 <= starts <= 64");
  options.jobs = verify::worker_count("explore", s.jobs, prefix + "jobs");
  options.ignore_hypotheses = s.ignore_hypotheses;
  options.where = s.where;
  return options;
}

void check_explore(const ExploreSelection& selection, const ExploreSettings& settings, const verify::ExploreOptions& options) {
  for (const auto& [index, id] : selection.runs) verify::check_explore(selection.cases[index], id, options, settings.frontier);
}

std::vector<ExploreRun> explore(const ExploreSelection& selection, const ExploreSettings& settings,
                                verify::ExploreOptions options, const ExploreHooks& hooks) {
  std::vector<ExploreRun> runs;
  std::map<std::string, int> used;
  for (const auto& [index, id] : selection.runs) {
    const std::string base = verify::explore_stem(selection.cases[index].name, id);
    const int n = ++used[base];
    runs.push_back({index, id, n == 1 ? base : fmt::format("{}-{}", base, n), {}, 0});
  }
  for (ExploreRun& run : runs) {
    const verify::Case& c = selection.cases[run.case_index];
    const auto start = std::chrono::steady_clock::now();
    if (hooks.progress) options.progress = hooks.progress(run.id);
    if (settings.frontier.empty()) run.result.search = verify::explore(c, run.id, options);
    else run.result = verify::frontier(c, run.id, options, settings.frontier, settings.bins);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (hooks.done) hooks.done(run);
  }
  return runs;
}

Tree laws() {
  Tree out = Tree::array();
  for (const sim::LawSpec& law : sim::law_catalogue()) {
    verify::LawRecord l{law.name, law.summary, law.example, Tree::array()};
    for (const sim::ParamSpec& p : law.params) {
      verify::ParamRecord param{p.name, sim::to_string(p.kind), p.default_value ? Tree(*p.default_value) : Tree(nullptr), p.doc,
                                p.range.bounded() ? Tree(p.range.text()) : Tree(nullptr)};
      l.params.push_back(verify::record(param));
    }
    out.push_back(verify::record(l));
  }
  return out;
}

}  // namespace privamp::api
