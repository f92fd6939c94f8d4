#include "verify/runner/runner.hpp"

#include <atomic>
#include <cmath>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "sim/laws/expression.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/consistency.hpp"
#include "verify/divergence/worst_case.hpp"

namespace privamp::verify {

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::tight: return "tight";
    case Verdict::holds: return "holds";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::violated: return "violated";
    case Verdict::not_applicable: return "not-applicable";
    case Verdict::error: return "error";
  }
  return "?";
}

Verdict parse_verdict(const std::string& s) {
  for (Verdict v : {Verdict::tight, Verdict::holds, Verdict::inconclusive, Verdict::violated, Verdict::not_applicable,
                    Verdict::error})
    if (to_string(v) == s) return v;
  throw InvalidArgument(fmt::format("unknown verdict '{}'", s));
}

double Row::ratio() const {
  if (exact.value == 0) return bound == 0 ? 1.0 : std::nan("");
  return bound / exact.value;
}

std::string Row::key() const { return fmt::format("{} | {} | {}", case_name, id, params.describe()); }

namespace {

constexpr double kSlack = 1e-12;

Quantity make_quantity(Quantity::Kind kind, double order) {
  switch (kind) {
    case Quantity::Kind::renyi: return Quantity::renyi(order);
    case Quantity::Kind::hockey_stick: return Quantity::hockey_stick(order);
    case Quantity::Kind::kl: return Quantity::kl();
    case Quantity::Kind::tv: return Quantity::tv();
    case Quantity::Kind::renyi_inf: return Quantity::renyi_inf();
  }
  return Quantity::kl();
}

}  // namespace

Verdict decide(Direction dir, const Estimate& e, double b, double tol, std::string& reason, double b_lo, double b_hi) {
  if (std::isnan(b_lo)) b_lo = b;
  if (std::isnan(b_hi)) b_hi = b;
  if (std::isnan(e.value) || std::isnan(e.lower) || std::isnan(e.upper) || e.lower > e.upper) {
    reason = fmt::format("the exact value is undefined ({}): no verdict", e.method);
    return Verdict::error;
  }
  if (std::isnan(b)) {
    reason = "the bound is undefined (NaN) at this point";
    return Verdict::error;
  }
  const double v = e.value;
  const bool within = v != 0 ? std::fabs(b / v - 1) <= tol : b == 0;
  switch (dir) {
    case Direction::upper:
      if (e.lower > b_hi * (1 + kSlack) + 1e-300) {
        reason = fmt::format("exact lower end {:.10g} > bound {:.10g}", e.lower, b);
        return Verdict::violated;
      }
      if (within) return Verdict::tight;
      if (e.upper <= b_lo * (1 + kSlack)) return Verdict::holds;
      reason = "the error bar straddles the bound";
      return Verdict::inconclusive;
    case Direction::lower:
      if (e.upper < b_lo * (1 - kSlack)) {
        reason = fmt::format("exact upper end {:.10g} < lower bound {:.10g}", e.upper, b);
        return Verdict::violated;
      }
      if (within) return Verdict::tight;
      if (e.lower >= b_hi * (1 - kSlack)) return Verdict::holds;
      reason = "the error bar straddles the bound";
      return Verdict::inconclusive;
    case Direction::equal:
      if (std::fabs(b - v) <= e.abs_error() + (b_hi - b_lo) + tol * std::fabs(v) + kSlack * std::fabs(b)) return Verdict::tight;
      reason = fmt::format("identity fails: exact {:.12g} vs formula {:.12g}", v, b);
      return Verdict::violated;
  }
  return Verdict::error;
}

namespace {

bool overlap(const Estimate& a, const Estimate& b) {
  const double slack = kSlack * std::max(std::fabs(a.value), std::fabs(b.value));
  return a.lower <= b.upper + slack && b.lower <= a.upper + slack;
}

// The deciding engine and the second route give disjoint intervals: no verdict.
void disagree(Row& row) {
  row.verdict = Verdict::error;
  row.reason = fmt::format("engines disagree: {} gives [{:.12g}, {:.12g}], {} gives [{:.12g}, {:.12g}]", row.exact.method,
                           row.exact.lower, row.exact.upper, row.cross->method, row.cross->lower, row.cross->upper);
}

// The exact value at one order for one point: one direction, or the worse of both.
struct Exact {
  Estimate value;
  std::optional<Estimate> cross;
  bool reversed = false;  // symmetric cases: the reverse direction attained the value
};

constexpr const char* kReversedNote = "the reverse direction (nu || mu of the case) attains the maximum";

Exact exact_for(const Case& c, const Params& p, double order, const sim::FiniteKernel* kernel, Row& row,
                const PointOptions& options) {
  const Quantity q = make_quantity(c.quantity, order);
  row.quantity = q.label();
  if (c.kind == Case::Kind::kernel) {
    const auto w = worst_case_amplification(*kernel, p.at("eps"), p.at("delta"), {order}).front();
    row.note = fmt::format("worst map g = ({}, {}, {}, {})", w.map[0], w.map[1], w.map[2], w.map[3]);
    std::optional<Estimate> cross;
    if (options.cross_check && kernel->size() <= 16) cross = worst_case_by_output_sets(*kernel, p.at("eps"), p.at("delta"), order);
    return {w.value, cross};
  }
  const auto mu = build_law(c.mu, p, &row.mu), nu = build_law(c.nu, p, &row.nu);
  // Symmetric cases report the worse direction; the row names the direction that attained it, so that the row
  // reproduces its value (mu and nu are swapped when it is the reverse one).
  bool reversed = false;
  auto compute = [&](Engine engine, bool decide_direction) {
    DivergenceOptions o;
    o.engine = engine;
    o.rel_tol = options.rel_tol;
    if (engine == Engine::monte_carlo && !decide_direction) {
      // A Monte Carlo cross-check: 10^5 samples at level 1 − 1e-6, so that a run of 10^4 rows almost never
      // disagrees by chance.
      o.monte_carlo.samples = 100'000;
      o.monte_carlo.level = 1 - 1e-6;
    }
    const Estimate forward = compute_divergence(*mu, *nu, q, o);
    if (!c.symmetric) return forward;
    const Estimate back = compute_divergence(*nu, *mu, q, o);
    if (decide_direction) reversed = back.value > forward.value;
    return reversed ? back : forward;
  };
  Exact out{compute(c.engine, true), std::nullopt, false};
  // The certified engine is the second route wherever it covers the pair (its enclosure shares no blind spot
  // with a quadrature), and the arbiter when two routes disagree.
  const bool certifiable = c.engine != Engine::certified && !certified_refusal(*mu, *nu);
  if (c.cross_check && options.cross_check) {
    try {
      out.cross = compute(certifiable ? Engine::certified : *c.cross_check, false);
    } catch (const NumericalError& e) {  // the certified engine refused (budget): the case's own second route
      if (!certifiable) throw;
      out.cross = compute(*c.cross_check, false);
      row.note = fmt::format("certified engine refused ({}); second route {}", e.what(), to_string(*c.cross_check));
    }
  }
  if (out.cross && !overlap(out.value, *out.cross)) {
    std::optional<Estimate> judge;
    if (out.cross->error_kind == ErrorKind::certified) judge = out.cross;
    else if (certifiable) {
      try {
        judge = compute(Engine::certified, false);
      } catch (const NumericalError&) {  // no arbiter: the row reports the disagreement
      }
    }
    if (judge) {
      const bool first_ok = overlap(out.value, *judge), second_ok = overlap(*out.cross, *judge);
      std::string verdict;
      if (first_ok) verdict = fmt::format("the second route ({}, [{:.12g}, {:.12g}]) was wrong", out.cross->method,
                                           out.cross->lower, out.cross->upper);
      else if (second_ok && out.cross->error_kind != ErrorKind::certified)
        verdict = fmt::format("the deciding engine ({}, [{:.12g}, {:.12g}]) was wrong", out.value.method, out.value.lower,
                              out.value.upper);
      else verdict = fmt::format("{} gave [{:.12g}, {:.12g}], outside the certified enclosure", out.value.method,
                                 out.value.lower, out.value.upper);
      row.note = fmt::format("routes disagreed; settled by the certified engine: {}", verdict);
      // The verdict rests on the certified enclosure; the route that agrees with it stays as the second one.
      std::optional<Estimate> agreeing;
      if (first_ok) agreeing = out.value;
      else if (second_ok && out.cross->error_kind != ErrorKind::certified) agreeing = out.cross;
      out.value = *judge;
      out.cross = agreeing;
    }
  }
  out.reversed = reversed;
  if (reversed) {
    std::swap(row.mu, row.nu);
    row.note = kReversedNote;
  }
  return out;
}

const BoundEntry& lookup(const Case& c, const std::string& id, const std::vector<BoundEntry>& extra) {
  for (const BoundEntry& b : extra)
    if (b.id == id) return b;
  return c.entry(id);
}

Row make_row(const Case& c, const std::string& id, const Params& point) {
  Row r;
  r.file = c.file;
  r.case_name = c.name;
  r.id = id;
  r.params = point;
  return r;
}

}  // namespace

std::vector<Row> evaluate_point(const Case& c, const Params& point, const std::vector<std::string>& ids,
                                const PointOptions& options, const std::vector<BoundEntry>& extra) {
  std::vector<Row> rows;
  Params p = point;
  std::optional<sim::FiniteKernel> kernel;
  try {
    if (c.kind == Case::Kind::kernel) {
      kernel.emplace(c.kernel_at(p));
      const auto m = sim::mixing_coefficients(*kernel);
      p.numbers["gamma_tv"] = m.dobrushin;
      p.numbers["gamma_doeblin"] = m.doeblin;
      p.numbers["gamma_ultra"] = m.ultra_mixing;
      p.numbers["gamma_hs_tilde"] = sim::dobrushin_tilde(*kernel, p.at("eps"), p.at("delta"));
    }
  } catch (const std::exception& e) {
    Row r = make_row(c, "*", point);
    r.verdict = Verdict::error;
    r.reason = e.what();
    return {r};
  }
  std::map<double, Exact> cache;  // exact values per order, shared by the IDs of the point
  for (const std::string& id : ids) {
    const BoundEntry& entry = lookup(c, id, extra);
    Row row = make_row(c, id, point);
    try {
      if (entry.property) {
        row.quantity = "property";
        const PropertyResult r = entry.property(p);
        row.exact = Estimate::from_value(r.max_ratio, 0, ErrorKind::exact, fmt::format("{} random instances", r.instances));
        row.bound = 1;
        row.note = r.worst;
        if (r.violations > 0) {
          row.verdict = Verdict::violated;
          row.reason = fmt::format("{} of {} instances violate the inequality", r.violations, r.instances);
        } else {
          row.verdict = r.max_ratio >= 1 - c.tolerance ? Verdict::tight : Verdict::holds;
        }
        rows.push_back(std::move(row));
        continue;
      }
      const std::optional<std::string> outside = entry.not_applicable(p);
      if (outside && options.ignore_hypotheses) row.outside = *outside;
      if (c.kind == Case::Kind::value && (!outside || options.ignore_hypotheses)) {  // value cases: the entry's own exact value
        row.quantity = entry.quantity;
        row.exact = entry.exact(p);
        if (entry.cross && options.cross_check) {
          try {
            row.cross = entry.cross(p);
          } catch (const std::exception& e) {  // no second route at this point: said in the note, not a verdict
            row.note = fmt::format("second route failed: {}", e.what());
          }
        }
        const BoundValue b = entry.bound(p);
        row.bound = b.value;
        row.bound_lower = b.lower;
        row.bound_upper = b.upper;
        if (!b.note.empty()) row.note = row.note.empty() ? b.note : b.note + "; " + row.note;
        if (row.cross && !overlap(row.exact, *row.cross)) disagree(row);
        else row.verdict = decide(entry.direction, row.exact, row.bound, c.tolerance, row.reason, b.lower, b.upper);
        rows.push_back(std::move(row));
        continue;
      }
      if (outside && !options.ignore_hypotheses) {
        const std::string& why = *outside;
        row.verdict = Verdict::not_applicable;
        row.reason = why;
        row.quantity = entry.quantity;
        // What the hypothesis buys: evaluate the formula anyway and say what the verdict would be without it.
        try {
          const double order = entry.order ? entry.order(p) : (c.order.empty() ? 0.0 : evaluate_formula(c.order, p));
          if (c.kind != Case::Kind::value && !c.order.empty()) row.order = order;
          try {
            row.exact = c.kind == Case::Kind::value ? entry.exact(p) : exact_for(c, p, order, kernel ? &*kernel : nullptr, row, options).value;
          } catch (const std::exception& e) {
            row.exact = Estimate::unknown(std::string("not computed: ") + e.what());
            throw;
          }
          row.bound = entry.bound(p).value;
          if (!std::isfinite(row.bound) || !std::isfinite(row.exact.value)) throw NumericalError("not finite");
          std::string detail;
          const Verdict would = decide(entry.direction, row.exact, row.bound, c.tolerance, detail);
          row.reason += fmt::format("; without it the formula gives {:.6g} against {:.6g}: {}", row.bound, row.exact.value,
                                    to_string(would));
        } catch (const std::exception&) {
          // The formula itself needs the hypothesis (e.g. a division by zero): nothing more to report.
        }
        rows.push_back(std::move(row));
        continue;
      }
      const double order = entry.order ? entry.order(p) : (c.order.empty() ? 0.0 : evaluate_formula(c.order, p));
      if (c.kind != Case::Kind::value && !c.order.empty()) row.order = order;
      auto it = cache.find(order);
      if (it == cache.end()) it = cache.emplace(order, exact_for(c, p, order, kernel ? &*kernel : nullptr, row, options)).first;
      else {
        row.quantity = make_quantity(c.quantity, order).label();
        row.mu = c.kind == Case::Kind::laws ? law_text(c.mu, p) : "";
        row.nu = c.kind == Case::Kind::laws ? law_text(c.nu, p) : "";
        if (it->second.reversed) {
          std::swap(row.mu, row.nu);
          row.note = kReversedNote;
        }
      }
      row.exact = it->second.value;
      row.cross = it->second.cross;
      const BoundValue b = entry.bound(p);
      row.bound = b.value;
      row.bound_lower = b.lower;
      row.bound_upper = b.upper;
      if (!b.note.empty()) row.note = row.note.empty() ? b.note : row.note + "; " + b.note;
      if (row.cross && !overlap(row.exact, *row.cross)) {
        disagree(row);
      } else {
        row.verdict = decide(entry.direction, row.exact, row.bound, c.tolerance, row.reason, b.lower, b.upper);
        const bool statistical = row.exact.error_kind == ErrorKind::statistical;
        if (row.verdict == Verdict::violated && statistical) {
          std::string confirm;
          const bool confirmed = row.cross && row.cross->error_kind != ErrorKind::statistical &&
                                 decide(entry.direction, *row.cross, row.bound, c.tolerance, confirm, b.lower, b.upper) ==
                                     Verdict::violated;
          if (!confirmed) {
            row.verdict = Verdict::inconclusive;
            row.reason = "Monte Carlo violation not confirmed by an exact engine: " + row.reason;
          }
        }
      }
    } catch (const std::exception& e) {
      row.verdict = Verdict::error;
      row.reason = e.what();
    }
    rows.push_back(std::move(row));
  }
  // Values at several orders of one point must respect the orderings of their quantity (R_α non-decreasing in
  // α, HS_ε non-increasing in ε): a proven violation makes every row that used either value an error.
  if (cache.size() > 1 && c.kind != Case::Kind::value) {
    std::vector<Quantity> quantities;
    std::vector<Estimate> values;
    for (const auto& [order, exact] : cache) {
      quantities.push_back(make_quantity(c.quantity, order));
      values.push_back(exact.value);
    }
    const auto violations = ordering_violations(quantities, values);
    for (std::size_t i = 0; i < violations.size(); ++i) {
      if (!violations[i]) continue;
      for (Row& r : rows)
        if (r.quantity == quantities[i].label() && r.verdict != Verdict::not_applicable) {
          r.verdict = Verdict::error;
          r.reason = *violations[i];
        }
    }
  }
  return rows;
}

std::vector<Row> run_cases(const std::vector<Case>& cases, const RunOptions& options) {
  std::vector<Row> rows;
  for (auto& r : run_tasks(cases, options))
    rows.insert(rows.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  return rows;
}

std::vector<std::vector<Row>> run_tasks(const std::vector<Case>& cases, const RunOptions& options) {
  struct Task {
    const Case* c;
    Params point;
    std::vector<std::string> ids;
  };
  std::vector<Task> tasks;
  for (const Case& c : cases) {
    std::vector<std::string> ids;
    for (const std::string& id : c.bounds)
      if (options.only.empty() || std::find(options.only.begin(), options.only.end(), id) != options.only.end())
        ids.push_back(id);
    if (ids.empty()) continue;
    for (Params& p : c.points()) tasks.push_back({&c, std::move(p), ids});
  }
  if (options.processes < 1 || options.process < 0 || options.process >= options.processes)
    throw InvalidArgument(fmt::format("run_cases: process {} of {}", options.process, options.processes));
  std::vector<std::size_t> mine;  // this process's share: round robin over the tasks
  for (std::size_t i = static_cast<std::size_t>(options.process); i < tasks.size(); i += static_cast<std::size_t>(options.processes))
    mine.push_back(i);
  std::vector<std::vector<Row>> results(tasks.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex progress_mutex;
  auto worker = [&]() {
    for (std::size_t k = next++; k < mine.size(); k = next++) {
      const std::size_t i = mine[k];
      results[i] = evaluate_point(*tasks[i].c, tasks[i].point, tasks[i].ids, {}, options.extra_bounds);
      const std::size_t d = ++done;
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        options.progress(d, mine.size());
      }
    }
  };
  const int jobs = std::max(1, std::min<int>(options.jobs, static_cast<int>(std::max<std::size_t>(mine.size(), 1))));
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace privamp::verify
