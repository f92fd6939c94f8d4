#include "numerics/constants.hpp"
#include "verify/runner/runner.hpp"

#include <algorithm>
#include <limits>
#include <atomic>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/parallel.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "sim/language/expression.hpp"
#include "verify/divergence/consistency.hpp"
#include "verify/divergence/worst_case.hpp"

namespace privamp::verify {

Verdict decide(Direction dir, const Estimate& e, double b, double tol, std::string& reason, double b_lo, double b_hi) {
  // A C++ bound's double: its rounding, a relative kSlack either side, is the enclosure.
  if (std::isnan(b_lo) || std::isnan(b_hi)) {
    b_lo = b - kSlack * std::fabs(b) - 1e-300;
    b_hi = b + kSlack * std::fabs(b) + 1e-300;
  }
  if (std::isnan(e.value) || std::isnan(e.lower) || std::isnan(e.upper) || e.lower > e.upper) {
    reason = fmt::format("the exact value is undefined ({}): no verdict", e.method);
    return Verdict::error;
  }
  if (std::isnan(b)) {
    reason = "the bound is undefined (NaN) at this point";
    return Verdict::error;
  }
  const double v = e.value;
  // Tight at 0 only where the exact value is 0, not where it is below the double range (its log is finite there:
  // a bound that underflowed to 0 is then not "tight", ratio 1, against e^-745).
  const bool exact_zero = v == 0 && e.log_value() == -std::numeric_limits<double>::infinity();
  // Tight only where the bound is known within the tolerance: its enclosure no wider than tol·|v| (a formula whose
  // enclosure was [-1, 3], or [0.99889, 1] around a double of 1, read "tight" on its double).
  const bool bound_known = v == 0 || (b_hi - b_lo) <= tol * std::fabs(v);
  const bool within = v != 0 ? std::fabs(b / v - 1) <= tol && bound_known : exact_zero && b == 0;
  switch (dir) {
    case Direction::upper:
      if (e.lower > b_hi) {
        reason = fmt::format("exact lower end {:.10g} > bound {:.10g} (its enclosure's upper end {:.17g})", e.lower, b, b_hi);
        return Verdict::violated;
      }
      if (within) return Verdict::tight;
      if (e.upper <= b_lo) return Verdict::holds;
      reason = "the error bar straddles the bound";
      return Verdict::inconclusive;
    case Direction::lower:
      if (e.upper < b_lo) {
        reason = fmt::format("exact upper end {:.10g} < lower bound {:.10g} (its enclosure's lower end {:.17g})", e.upper, b, b_lo);
        return Verdict::violated;
      }
      if (within) return Verdict::tight;
      if (e.lower >= b_hi) return Verdict::holds;
      reason = "the error bar straddles the bound";
      return Verdict::inconclusive;
    case Direction::identity:
      // Violated only where the exact interval and the bound's enclosure are apart by more than the tolerance.
      if (std::max(b_lo - e.upper, e.lower - b_hi) <= tol * std::fabs(v)) {
        if (bound_known) return Verdict::tight;
        reason = fmt::format("the formula's enclosure [{:.12g}, {:.12g}] is wider than the tolerance: no verdict", b_lo, b_hi);
        return Verdict::inconclusive;
      }
      reason = fmt::format("identity fails: exact {:.12g} in [{:.12g}, {:.12g}] vs formula {:.12g} in [{:.12g}, {:.12g}]", v, e.lower,
                           e.upper, b, b_lo, b_hi);
      return Verdict::violated;
  }
  return Verdict::error;
}

namespace {

bool overlap(const Estimate& a, const Estimate& b) {
  const double slack = kSlack * std::max(std::fabs(a.value), std::fabs(b.value));
  return a.lower <= b.upper + slack && b.lower <= a.upper + slack;
}

// The exact value of one point for one entry, as the case's kind computes it, with its second route.
struct Exact {
  Estimate value = {};
  std::optional<Estimate> cross = {};
  std::optional<Quantity> divergence = {};  // laws and kernel cases: what was computed
  std::string what = {};                    // value cases: what the entry computes
  double order = std::numeric_limits<double>::quiet_NaN();
  std::string mu = {}, nu = {};  // laws cases: the law expressions, in the direction that attained the value
  std::string note = {};         // what the computation chose: the worst map, the reverse direction, a route refused or settled
};

constexpr const char* kReversedNote = "the reverse direction (nu || mu of the case) attains the maximum";

// How a kind of case computes the exact value of a point (property cases have none: their entry checks itself).
class ExactSource {
 public:
  virtual ~ExactSource() = default;
  // second_route: also run the independent route (not-applicable rows skip it where it is the entry's own).
  virtual Exact exact(const BoundEntry& entry, const Params& p, bool second_route) = 0;
  // Rows whose values break an ordering of their quantity across the point's orders become errors.
  virtual void check_orderings(std::vector<Row>&) const {}
};

// Value cases: the entry's own exact value and second route.
class ValueSource final : public ExactSource {
 public:
  explicit ValueSource(const PointOptions& options) : options_(options) {}
  Exact exact(const BoundEntry& entry, const Params& p, bool second_route) override {
    if (!entry.value()) invalid_input("{} is {}: a value case cannot check it", entry.id, entry.kind_name());
    const ValueCheck& v = *entry.value();
    Exact out{v.exact(p), std::nullopt, std::nullopt, entry.quantity};
    if (v.cross && second_route && options_.cross_check) {
      try {
        out.cross = v.cross(p);
      } catch (const std::exception& e) {  // no second route at this point: said in the note, not a verdict
        out.note = fmt::format("second route failed: {}", e.what());
      }
    }
    return out;
  }

 private:
  const PointOptions& options_;
};

// Laws and kernel cases: a divergence at the entry's order (or the case's), computed once per order and shared by
// the point's entries; the values at several orders must respect their quantity's orderings.
class DivergenceSource : public ExactSource {
 public:
  DivergenceSource(const Case& c, const PointOptions& options) : case_(c), options_(options) {}
  Exact exact(const BoundEntry& entry, const Params& p, bool) override {
    const DivergenceCheck* d = entry.divergence();
    const double order = d && d->order ? d->order(p) : case_.order.empty() ? 0.0 : evaluate_formula(case_.order, p);
    auto it = cache_.find(order);
    if (it == cache_.end()) {
      const Quantity q = Quantity::of(case_.quantity, order);
      Exact x = compute(p, q);
      x.divergence = q;
      if (!case_.order.empty()) x.order = order;
      it = cache_.emplace(order, std::move(x)).first;
    }
    return it->second;
  }
  void check_orderings(std::vector<Row>& rows) const override {
    if (cache_.size() < 2) return;
    std::vector<Quantity> quantities;
    std::vector<Estimate> values;
    for (const auto& [order, exact] : cache_) {
      quantities.push_back(Quantity::of(case_.quantity, order));
      values.push_back(exact.value);
    }
    const auto violations = ordering_violations(quantities, values);
    for (std::size_t i = 0; i < violations.size(); ++i) {
      if (!violations[i]) continue;
      for (Row& r : rows)
        if (r.divergence && r.divergence->kind == quantities[i].kind && r.divergence->parameter == quantities[i].parameter &&
            r.verdict != Verdict::not_applicable) {
          r.verdict = Verdict::error;
          r.reason = *violations[i];
        }
    }
  }

 protected:
  virtual Exact compute(const Params& p, const Quantity& q) = 0;
  const Case& case_;
  const PointOptions& options_;

 private:
  std::map<double, Exact> cache_;
};

// Kernel cases: the worst case of HS_eps'(mu K || nu K) over all (eps, delta)-DP pairs, enumerated over output sets as
// the second route for kernels of at most 16 states.
class KernelSource final : public DivergenceSource {
 public:
  KernelSource(const Case& c, const PointOptions& options, sim::FiniteKernel kernel)
      : DivergenceSource(c, options), kernel_(std::move(kernel)) {}

 private:
  Exact compute(const Params& p, const Quantity& q) override {
    const auto w = worst_case_amplification(kernel_, p.at("eps"), p.at("delta"), {q.parameter}).front();
    Exact out{w.value};
    out.note = fmt::format("worst map g = ({}, {}, {}, {})", w.map[0], w.map[1], w.map[2], w.map[3]);
    if (options_.cross_check && kernel_.size() <= 16)
      out.cross = worst_case_by_output_sets(kernel_, p.at("eps"), p.at("delta"), q.parameter);
    return out;
  }
  sim::FiniteKernel kernel_;
};

// Laws cases: the divergence between the case's laws by its engine, checked by the second route the engines' policy
// chooses (engines.hpp, second_route); when two routes disagree, the certified engine settles the row if it can.
class LawsSource final : public DivergenceSource {
 public:
  using DivergenceSource::DivergenceSource;

 private:
  Exact compute(const Params& p, const Quantity& q) override {
    Exact out;
    const auto mu = build_law(case_.mu, p, &out.mu), nu = build_law(case_.nu, p, &out.nu);
    // Symmetric cases report the worse direction; the row names the direction that attained it, so that the row
    // reproduces its value (mu and nu are swapped when it is the reverse one).
    bool reversed = false;
    auto divergence = [&](Engine engine, bool decide_direction) {
      DivergenceOptions o;
      o.engine = engine;
      o.rel_tol = options_.rel_tol;
      if (engine == Engine::monte_carlo && !decide_direction) {
        // A Monte Carlo cross-check: 10^5 samples at level 1 − 1e-6, so that a run of 10^4 rows almost never
        // disagrees by chance.
        o.monte_carlo.samples = 100'000;
        o.monte_carlo.level = 1 - 1e-6;
      }
      const Estimate forward = compute_divergence(*mu, *nu, q, o);
      if (!case_.symmetric) return forward;
      const Estimate back = compute_divergence(*nu, *mu, q, o);
      if (decide_direction) reversed = back.value > forward.value;
      return reversed ? back : forward;
    };
    out.value = divergence(case_.engine, true);
    // The second route by the engines' policy (engines.hpp, second_route); a route that fails (the certified engine's
    // budget, a quadrature that cannot reach a pair 10^13 standard deviations apart) falls to the next, and a row
    // whose every second route failed keeps its first value, saying so (it once became an error row although its
    // value was a closed form). A second route the case names itself (cross_check) that fails is the row's error,
    // unless it is the certified engine, whose refusals (what it does not cover) are never errors.
    SecondRoute route = second_route(*mu, *nu, q, case_.engine, case_.cross_check);
    if (options_.cross_check) {
      out.note = route.note;
      // A second route that is the route which decided (the case's cross_check naming the engine `auto` fell to) only
      // repeats it: it is passed over, with the policy's own second routes after it (a shifted clamp decided by
      // quadrature and 'cross-checked' by quadrature read as confirmed at a value 12 % low).
      if (case_.cross_check)
        for (const Engine e : second_route(*mu, *nu, q, case_.engine, std::nullopt).routes)
          if (std::find(route.routes.begin(), route.routes.end(), e) == route.routes.end()) route.routes.push_back(e);
      for (std::size_t i = 0; i < route.routes.size() && !out.cross; ++i) {
        const auto failed = [&](const std::exception& e) {
          const std::string what = route.routes[i] == Engine::certified
                                       ? fmt::format("certified engine refused ({})", e.what())
                                       : fmt::format("second route {} failed ({})", to_string(route.routes[i]), e.what());
          out.note = i + 1 < route.routes.size() ? fmt::format("{}; second route {}", what, to_string(route.routes[i + 1]))
                                                 : fmt::format("{}; no other second route applies", what);
        };
        try {
          out.cross = divergence(route.routes[i], false);
          if (out.cross->method == out.value.method && out.value.error_kind != ErrorKind::exact) {
            out.cross.reset();
            out.note = i + 1 < route.routes.size()
                           ? fmt::format("second route {} is the route that decided; second route {}", to_string(route.routes[i]),
                                         to_string(route.routes[i + 1]))
                           : fmt::format("second route {} is the route that decided; no other second route applies",
                                         to_string(route.routes[i]));
          }
        } catch (const NumericalError& e) {  // a route that fails (the case's own cross_check: the row's error)
          if (case_.cross_check && route.routes[i] != Engine::certified) throw;
          failed(e);
        } catch (const InvalidArgument& e) {  // or does not cover what the first route computed
          if (case_.cross_check && route.routes[i] != Engine::certified) throw;
          failed(e);
        }
      }
    }
    if (out.cross && !overlap(out.value, *out.cross)) settle(out, route.certifiable, divergence);
    if (reversed) {
      std::swap(out.mu, out.nu);
      out.note = kReversedNote;
    }
    return out;
  }

  // Two routes disagree: the verdict rests on the certified enclosure, and the route that agrees with it stays as
  // the second one; without an arbiter the row reports the disagreement.
  template <class Divergence>
  static void settle(Exact& out, bool certifiable, Divergence& divergence) {
    std::optional<Estimate> judge;
    if (out.cross->error_kind == ErrorKind::certified) judge = out.cross;
    else if (certifiable) {
      try {
        judge = divergence(Engine::certified, false);
      } catch (const NumericalError&) {
      }
    }
    if (!judge) return;
    const bool first_ok = overlap(out.value, *judge);
    const bool second_ok = overlap(*out.cross, *judge) && out.cross->error_kind != ErrorKind::certified;
    const auto interval = [](const Estimate& e) { return fmt::format("({}, [{:.12g}, {:.12g}])", e.method, e.lower, e.upper); };
    const std::string wrong = first_ok    ? fmt::format("the second route {} was wrong", interval(*out.cross))
                              : second_ok ? fmt::format("the deciding engine {} was wrong", interval(out.value))
                                          : fmt::format("{} gave [{:.12g}, {:.12g}], outside the certified enclosure",
                                                        out.value.method, out.value.lower, out.value.upper);
    out.note = fmt::format("routes disagreed; settled by the certified engine: {}", wrong);
    std::optional<Estimate> agreeing;
    if (first_ok) agreeing = out.value;
    else if (second_ok) agreeing = out.cross;
    out.value = *judge;
    out.cross = agreeing;
  }
};

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
  r.exact = Estimate::unknown("not computed");  // a row that fails before its value says so: NaN, kind "none"
  r.bound = std::numeric_limits<double>::quiet_NaN();  // and before its bound: NaN (null in JSON), not 0
  return r;
}

// A property entry checks itself on its random instances.
void property_row(Row& row, const PropertyCheck& check, const Params& p, double tolerance) {
  row.what = Row::kPropertyLabel;
  const PropertyResult r = check.check(p);
  row.exact = Estimate::from_value(r.max_ratio, 0, ErrorKind::exact, fmt::format("{} random instances", r.instances));
  row.bound = 1;
  row.note = r.worst;
  if (r.violations > 0) {
    row.verdict = Verdict::violated;
    row.reason = fmt::format("{} of {} instances violate the inequality", r.violations, r.instances);
  } else {
    row.verdict = r.max_ratio >= 1 - tolerance ? Verdict::tight : Verdict::holds;
  }
}

void take_exact(Row& row, const Exact& x) {
  row.exact = x.value;
  row.cross = x.cross;
  row.divergence = x.divergence;
  row.what = x.what;
  row.order = x.order;
  row.mu = x.mu;
  row.nu = x.nu;
  row.note = x.note;
}

// The row's interval becomes the best the routes give: a certified second route (it overlaps the first, checked by the
// caller) replaces an estimate as the row's interval, and the estimate becomes the second route; two rigorous
// intervals (exact and certified) are intersected. So a verdict never rests on an estimate where a certificate exists,
// and a certificate that straddles the bound makes the row inconclusive, whatever the estimate says. The row's value
// (a point to print and draw, not a bound) is then the estimate's, clamped into the enclosure: the midpoint of a
// wide enclosure ([0, 8.5e-9] around an estimate of 4.2e-42) is no estimate of anything.
void rest_on_certified(Row& row) {
  if (row.cross && row.cross->error_kind == ErrorKind::certified && row.exact.error_kind != ErrorKind::certified) {
    if (row.exact.error_kind == ErrorKind::exact) {
      row.exact.intersect(*row.cross);  // (they overlap: checked by the caller)
    } else {
      std::swap(row.exact, *row.cross);
      if (row.cross->value > 0) row.exact.set_value(row.cross->value);
      else row.exact.set_log_value(row.cross->log_value());  // below the double range: its log
      const std::string note = fmt::format("verdict on the certified enclosure; the {} estimate is the second route", to_string(row.cross->error_kind));
      row.note = row.note.empty() ? note : row.note + "; " + note;
    }
  }
}

// The turn from (entry, exact value, bound) into a verdict: routes that disagree make an error; a Monte Carlo
// violation stands only where a deterministic second route confirms it.
void judge(Row& row, const BoundEntry& entry, const BoundValue& b, double tolerance) {
  row.bound = b.value;
  row.bound_lower = b.lower;
  row.bound_upper = b.upper;
  if (!b.note.empty()) row.note = row.note.empty() ? b.note : row.note + "; " + b.note;
  if (row.cross && !overlap(row.exact, *row.cross)) {
    row.verdict = Verdict::error;
    row.reason = fmt::format("engines disagree: {} gives [{:.12g}, {:.12g}], {} gives [{:.12g}, {:.12g}]", row.exact.method,
                             row.exact.lower, row.exact.upper, row.cross->method, row.cross->lower, row.cross->upper);
    return;
  }
  rest_on_certified(row);
  row.direction = entry.direction;
  row.verdict = decide(entry.direction, row.exact, row.bound, tolerance, row.reason, b.lower, b.upper);
  if (row.verdict == Verdict::violated && row.exact.error_kind == ErrorKind::statistical) {
    std::string confirm;
    const bool confirmed = row.cross && row.cross->error_kind != ErrorKind::statistical &&
                           decide(entry.direction, *row.cross, row.bound, tolerance, confirm, b.lower, b.upper) == Verdict::violated;
    if (!confirmed) {
      row.verdict = Verdict::inconclusive;
      row.reason = "Monte Carlo violation not confirmed by an exact engine: " + row.reason;
    }
  }
}

// A hypothesis fails: the row says which, and what the formula would give without it (when it can be evaluated).
void not_applicable_row(Row& row, const BoundEntry& entry, ExactSource& source, const Params& p, double tolerance,
                        std::string why) {
  row.verdict = Verdict::not_applicable;
  row.reason = std::move(why);
  row.what = entry.quantity;
  try {
    Exact x;
    try {
      x = source.exact(entry, p, false);
    } catch (const std::exception& e) {
      row.exact = Estimate::unknown(std::string("not computed: ") + e.what());
      throw;
    }
    const std::string reason = row.reason;
    take_exact(row, x);
    if (row.cross && overlap(row.exact, *row.cross)) rest_on_certified(row);  // "what it would give" on the best interval
    row.cross.reset();
    const BoundValue b = entry.bound(p);
    row.bound = b.value;
    if (!std::isfinite(row.bound) || !std::isfinite(row.exact.value)) throw NumericalError("not finite");
    std::string detail;
    const Verdict would = decide(entry.direction, row.exact, row.bound, tolerance, detail, b.lower, b.upper);
    row.reason = reason + fmt::format("; without it the formula gives {:.6g} against {:.6g}: {}", row.bound,
                                      row.exact.value, to_string(would));
  } catch (const std::exception&) {
    // The formula itself needs the hypothesis (e.g. a division by zero): nothing more to report.
  }
}

// The source of a case's exact values at a point; kernel cases add the kernel's constants to the point.
std::unique_ptr<ExactSource> source_for(const Case& c, Params& p, const PointOptions& options) {
  switch (c.kind) {
    case Case::Kind::laws: return std::make_unique<LawsSource>(c, options);
    case Case::Kind::kernel: {
      sim::FiniteKernel kernel = c.kernel_at(p);
      add_kernel_constants(kernel, p);
      return std::make_unique<KernelSource>(c, options, std::move(kernel));
    }
    case Case::Kind::value: return std::make_unique<ValueSource>(options);
    case Case::Kind::property: return nullptr;
  }
  return nullptr;
}

}  // namespace

std::vector<Row> evaluate_point(const Case& c, const Params& point, const std::vector<std::string>& ids,
                                const PointOptions& options, const std::vector<BoundEntry>& extra) {
  Params p = point;
  std::unique_ptr<ExactSource> source;
  try {
    source = source_for(c, p, options);
  } catch (const std::exception& e) {
    Row r = make_row(c, "*", point);
    r.verdict = Verdict::error;
    r.reason = e.what();
    return {r};
  }
  std::vector<Row> rows;
  for (const std::string& id : ids) {
    const BoundEntry& entry = lookup(c, id, extra);
    Row row = make_row(c, id, point);
    try {
      if (const PropertyCheck* property = entry.property()) {
        property_row(row, *property, p, c.tolerance);
      } else if (!source) {  // the loader refuses such a pairing; a caller of evaluate_point may not
        invalid_input("{} is {}: a {} case cannot check it", id, entry.kind_name(), to_string(c.kind));
      } else if (const auto outside = entry.outside(p); outside && !options.ignore_hypotheses) {
        not_applicable_row(row, entry, *source, p, c.tolerance, *outside);
      } else {
        take_exact(row, source->exact(entry, p, true));
        if (outside) row.outside = *outside;
        judge(row, entry, entry.bound(p), c.tolerance);
      }
    } catch (const std::exception& e) {
      row.verdict = Verdict::error;
      row.reason = e.what();
    }
    rows.push_back(std::move(row));
  }
  if (source) source->check_orderings(rows);
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
    invalid_input("run_cases: process {} of {}", options.process, options.processes);
  std::vector<std::size_t> mine;  // this process's share: round robin over the tasks
  for (std::size_t i = static_cast<std::size_t>(options.process); i < tasks.size(); i += static_cast<std::size_t>(options.processes))
    mine.push_back(i);
  std::vector<std::vector<Row>> results(tasks.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex progress_mutex;
  // A progress report may stop the run by throwing (a work limit: numerics/work_limit.hpp); the workers then stop and
  // the calling thread rethrows it (a throw inside a worker thread would end the program).
  std::exception_ptr stopped;
  std::atomic<bool> stop{false};
  auto worker = [&]() {
    const WorkerClaim claim;  // a core for this worker: computations inside it take helpers only from free ones
    for (std::size_t k = next++; k < mine.size(); k = next++) {
      if (interrupt_requested() || stop) break;  // the calling thread throws once the workers have stopped
      const std::size_t i = mine[k];
      results[i] = evaluate_point(*tasks[i].c, tasks[i].point, tasks[i].ids, {}, options.extra_bounds);
      const std::size_t d = ++done;
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        try {
          options.progress(d, mine.size());
        } catch (...) {
          if (!stopped) stopped = std::current_exception();
          stop = true;
        }
      }
    }
  };
  const int jobs = std::max(1, std::min<int>(options.jobs, static_cast<int>(std::max<std::size_t>(mine.size(), 1))));
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  throw_if_interrupted();
  if (stopped) std::rethrow_exception(stopped);
  return results;
}

}  // namespace privamp::verify
