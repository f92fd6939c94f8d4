#include "verify/explore/explore.hpp"

#include <algorithm>
#include <ranges>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gsl/gsl_qrng.h>
#include <nlopt.h>

#include "numerics/errors.hpp"
#include "numerics/range.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/parallel.hpp"
#include "sim/kernels/finite_kernel.hpp"
#include "verify/input/formula.hpp"
#include "verify/explore/exchange.hpp"
#include "verify/records/codec.hpp"

namespace privamp::verify {

constexpr int kLocalRunMinimum = 12;  // the fewest evaluations a local (BOBYQA) run starts with: 2n + 1 for its model

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kBarrier = 1e3;  // what the optimiser sees where the slack is undefined (log units)

// Runs f(i) for i in [0, n) on `jobs` threads; f writes only its own slot.
template <class F>
void parallel_for(std::size_t n, int jobs, F&& f) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    const WorkerClaim claim;
    for (std::size_t i = next++; i < n; i = next++) f(i);
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < std::min<int>(jobs, static_cast<int>(n)); ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
}

// The slack of a point (explore.hpp). An identity's is minus the log-distance between the exact interval and the
// bound's enclosure (their overlap, positive, where they meet): below 0 exactly where the two are apart, so that
// the violation goal looks for the point that refutes the identity, not for the one that agrees best.
double slack_of(Direction direction, bool property, double log_exact, double log_bound, const Evaluation& e) {
  if (property) return -log_exact;
  switch (direction) {
    case Direction::upper: return log_bound - log_exact;
    case Direction::lower: return log_exact - log_bound;
    case Direction::identity: {
      const auto log_of = [](double x) { return std::log(std::max(x, 0.0)); };  // an end at or below 0: -inf
      return -std::max(log_of(e.bound_lower()) - log_of(e.exact_upper()), log_of(e.exact_lower()) - log_of(e.bound_upper()));
    }
  }
  return kNaN;
}

// The evaluation of points of a case's search space: the checks of the options, the clock and progress, one
// point (its row, status, slack, region), points spread over processes and threads, and the full re-evaluation of
// reported points.
class ExploreEvaluator {
 public:
  ExploreEvaluator(const Case& c, std::string id, const ExploreOptions& o)
      : case_(c), id_(std::move(id)), entry_(c.entry(id_)), options_(o), space_(c) {
    if (std::find(c.bounds.begin(), c.bounds.end(), id_) == c.bounds.end())
      invalid_input("case '{}' does not check {} (it checks {})", c.name, id_, fmt::format("{}", fmt::join(c.bounds, ", ")));
    if (space_.dimension() == 0)
      invalid_input("case '{}' has no search space: give it a [case.explore] table", c.name);
    if (space_.dimension() > 40) invalid_input("explore: at most 40 axes (Sobol points in GSL)");
    if (o.budget < 2 || o.budget > 10'000'000) throw_invalid("explore", "budget", o.budget, "2 <= budget <= 10^7");
    if (o.starts < 1 || o.starts > 64) throw_invalid("explore", "starts", o.starts, "1 <= starts <= 64");
    if (!(o.local_share >= 0 && o.local_share < 1)) throw_invalid("explore", "local_share", o.local_share, "0 <= local_share < 1");
    if (!(o.max_seconds >= 0 && o.max_seconds <= 1e7)) throw_invalid("explore", "max_seconds", o.max_seconds, "0 (no limit) <= max_seconds <= 10^7");
    search_.cross_check = false;
    search_.ignore_hypotheses = o.ignore_hypotheses;
    search_.rel_tol = o.search_rel_tol;
    where_ = c.explore_where;
    where_.insert(where_.end(), o.where.begin(), o.where.end());
    check_conditions(o.where);
  }

  // The search space's centre as its points are evaluated (derived parameters, a kernel's constants, and exact,
  // bound and ratio at 1), or nothing where that point is refused.
  std::optional<Params> centre() const {
    try {
      Params p = case_.with_derived(space_.point(std::vector<double>(space_.dimension(), 0.5)));
      if (case_.kind == Case::Kind::kernel) add_kernel_constants(case_.kernel_at(p), p);
      return with_search_values(p, 1, 1);
    } catch (const InvalidArgument&) {
      return std::nullopt;
    }
  }

 protected:
  ExploreResult empty_result() const {
    ExploreResult r{.file = case_.file, .case_name = case_.name, .id = id_, .goal = options_.goal, .direction = entry_.direction,
                    .space = space_};
    return r;
  }

  // The local refinement's share of the budget (none without a continuous axis).
  int local_budget() const {
    bool local = false;
    for (std::size_t j = 0; j < space_.dimension(); ++j) local = local || space_.continuous(j);
    return local ? static_cast<int>(std::lround(options_.budget * options_.local_share)) : 0;
  }

  int rank() const { return options_.communicator ? options_.communicator->rank() : 0; }
  int size() const { return options_.communicator ? options_.communicator->size() : 1; }

  void tick() {
    const std::size_t d = ++done_;
    if (options_.progress && rank() == 0) {
      std::lock_guard<std::mutex> lock(progress_mutex_);
      options_.progress(std::min(d * size(), total_), total_);
    }
  }

  // --max-seconds: the clock starts with the search; evaluations asked for after the limit are not run (they are
  // marked, then dropped from the results), and the local runs stop.
  void start_clock() {
    deadline_ = options_.max_seconds > 0
                    ? std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                             std::chrono::duration<double>(options_.max_seconds))
                    : std::chrono::steady_clock::time_point::max();
    limited_ = false;
  }
  bool out_of_time() const { return std::chrono::steady_clock::now() >= deadline_; }
  double seconds_left() const {
    return std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
  }
  static bool unrun(const Evaluation& e) { return e.status == Evaluation::Status::error && e.message() == kUnrun; }
  static void drop_unrun(std::vector<Evaluation>& v) { std::erase_if(v, unrun); }
  void note_time_limit(ExploreResult& r) const {
    if (limited_)
      r.stopped = fmt::format("stopped by --max-seconds {} after {} of {} evaluations", format_number(options_.max_seconds),
                              r.evaluations.size(), options_.budget);
  }

  Evaluation evaluate(std::vector<double> u) {
    Evaluation e;
    e.u = std::move(u);
    if (out_of_time()) {
      limited_ = true;
      e.status = Evaluation::Status::error;
      e.row.reason = kUnrun;
      return e;
    }
    if (interrupt_requested()) {  // stop quickly: the entry point throws Interrupted once the search unwinds
      e.status = Evaluation::Status::error;
      e.row.reason = "interrupted";
      return e;
    }
    try {
      e.point = space_.point(e.u);  // what is known if the derived parameters fail
      e.point = case_.with_derived(e.point);
      e.row = evaluate_point(case_, e.point, {id_}, search_).front();
      if (case_.kind == Case::Kind::kernel) add_kernel_constants(case_.kernel_at(e.point), e.point);  // for conditions, frontiers
      fill(e);
    } catch (const std::exception& err) {  // an error row, also when the row was computed before the failure
      e.status = Evaluation::Status::error;
      e.row = Row{};
      e.row.reason = err.what();
    }
    tick();
    return e;
  }

  // The status and slack of an evaluated row.
  void fill(Evaluation& e) const {
    const Row& row = e.row;
    if (row.verdict == Verdict::error) return void(e.status = Evaluation::Status::error);  // no numbers: the message says why
    if (row.verdict == Verdict::not_applicable) return void(e.status = Evaluation::Status::not_applicable);
    const bool property = entry_.property() != nullptr;
    // On a log scale where the engine has one (values below the smallest double keep their logarithm).
    const double log_exact = std::isfinite(row.exact.log_value()) ? row.exact.log_value() : std::log(e.exact());
    if (!property && bounded_above_only(row.exact)) return void(e.status = Evaluation::Status::exact_bounded_above);
    if (!(log_exact > -std::numeric_limits<double>::infinity()) && !property) {
      e.status = Evaluation::Status::exact_zero;
      return;
    }
    if (!property && log_exact < std::log(std::numeric_limits<double>::min())) {  // digits lost: no ratio
      e.status = Evaluation::Status::exact_underflow;
      return;
    }
    if (!std::isfinite(e.bound())) {
      e.status = Evaluation::Status::bound_infinite;
      return;
    }
    if (!(e.bound() > 0) && !property) {
      // A zero bound (possibly a bound that underflowed): against an exact interval that excludes 0 it is a
      // violation at any scale; otherwise there is no ratio.
      if (!(e.exact_lower() > 0)) {
        e.status = Evaluation::Status::exact_zero;
        return;
      }
      e.status = Evaluation::Status::ok;
      e.slack = entry_.direction == Direction::lower ? std::numeric_limits<double>::infinity()
                                                     : -std::numeric_limits<double>::infinity();
      return;
    }
    if (!property && std::abs(e.bound()) < std::numeric_limits<double>::min()) {  // subnormal: digits lost
      e.status = Evaluation::Status::bound_underflow;
      return;
    }
    e.status = Evaluation::Status::ok;
    e.slack = slack_of(entry_.direction, property, log_exact, std::log(e.bound()), e);
    classify(e, e.point);
  }

  // The region and degeneracy of a point with a slack: `where` and `degenerate` at its parameters, exact and bound.
  void classify(Evaluation& e, const Params& params) const {
    if (where_.empty() && case_.explore_degenerate.empty()) return;
    const Params p = with_search_values(params, e.exact(), e.bound());
    for (const std::string& c : where_)
      if (evaluate_formula(c, p) == 0) {
        e.in_region = false;
        break;
      }
    for (const std::string& c : case_.explore_degenerate)
      if (evaluate_formula(c, p) != 0) {
        e.degenerate = c;
        break;
      }
  }

  // Conditions given with the options: their syntax and names at a point of the space (the case's own are checked
  // when it is loaded), before anything runs.
  void check_conditions(const std::vector<std::string>& conditions) const {
    if (conditions.empty()) return;
    const std::optional<Params> centre_point = centre();
    if (!centre_point) return;  // that point is refused: the conditions are checked where they are evaluated
    const Params& p = *centre_point;
    for (const std::string& c : conditions) try {
        check_formula_work(c, p);
        evaluate_formula(c, p);
      } catch (const InvalidArgument& err) {
        invalid_input("--where '{}': {}", c, err.what());
      }
  }

  // Evaluates `points` spread over processes (i % size == rank) and threads; every process ends with all results.
  std::vector<Evaluation> evaluate_all(const std::vector<std::vector<double>>& points) {
    std::vector<std::size_t> mine;
    for (std::size_t i = static_cast<std::size_t>(rank()); i < points.size(); i += static_cast<std::size_t>(size())) mine.push_back(i);
    std::vector<Evaluation> local(mine.size());
    parallel_for(mine.size(), options_.jobs, [&](std::size_t k) { local[k] = evaluate(points[mine[k]]); });
    std::vector<Evaluation> out(points.size());
    if (size() == 1) {
      for (std::size_t k = 0; k < mine.size(); ++k) out[mine[k]] = std::move(local[k]);
      drop_unrun(out);
      return out;
    }
    const auto all = exchange_evaluations(*options_.communicator, {local});
    for (int r = 0; r < size(); ++r) {
      std::size_t k = 0;
      for (std::size_t i = static_cast<std::size_t>(r); i < points.size(); i += static_cast<std::size_t>(size()))
        out[i] = all[r].at(0).at(k++);
    }
    limited_ = limited_ || std::any_of(out.begin(), out.end(), unrun);
    drop_unrun(out);
    return out;
  }

  // Reported points are distinct: some axis differs by at least 1% of its range (of its logarithm's, on a log
  // axis), or a choice or an integer differs (a local run's neighbouring steps are one point).
  bool distinct(const std::vector<double>& u, const std::vector<Evaluation>& all, const std::vector<std::size_t>& chosen) const {
    for (std::size_t k : chosen)
      if (!space_.distinct(u, all[k].u)) return false;
    return true;
  }

  bool candidate(const Evaluation& e, bool degenerate = false) const { return is_candidate(e, options_.ignore_hypotheses, degenerate); }

  bool better(const Evaluation& a, const Evaluation& b) const {
    return objective(options_.goal, a.slack) < objective(options_.goal, b.slack);
  }

  // The points (indices in `all`) re-evaluated with the case's full options, spread over processes (point k on rank
  // k % size) and threads; the rows in the points' order on the first process (empty on the others). `failed`, if
  // given, receives on every process which rows are errors.
  std::vector<Row> reevaluate_points(const std::vector<Evaluation>& all, const std::vector<std::size_t>& points,
                                     std::vector<bool>* failed = nullptr) const {
    PointOptions full;
    full.ignore_hypotheses = options_.ignore_hypotheses;
    std::vector<std::size_t> mine;
    for (std::size_t k = static_cast<std::size_t>(rank()); k < points.size(); k += static_cast<std::size_t>(size()))
      mine.push_back(k);
    TaskRows rows(mine.size());
    parallel_for(mine.size(), options_.jobs, [&](std::size_t m) {
      rows[m] = {mine[m], evaluate_point(case_, case_.with_derived(space_.point(all[points[mine[m]]].u)), {id_}, full)};
    });
    if (failed) {  // every process learns which rows are errors (the choice of the next points depends on it)
      failed->assign(points.size(), false);
      std::vector<std::uint8_t> mine;  // the indices of this process's error rows, 8 bytes each
      for (const auto& [k, list] : rows)
        if (list.front().verdict == Verdict::error) {
          const std::uint64_t index = k;
          const auto* b = reinterpret_cast<const std::uint8_t*>(&index);
          mine.insert(mine.end(), b, b + sizeof index);
        }
      for (const auto& bytes : size() > 1 ? options_.communicator->all_gather(mine) : std::vector<std::vector<std::uint8_t>>{mine})
        for (std::size_t o = 0; o + sizeof(std::uint64_t) <= bytes.size(); o += sizeof(std::uint64_t)) {
          std::uint64_t index = 0;
          std::memcpy(&index, bytes.data() + o, sizeof index);
          failed->at(index) = true;
        }
    }
    if (size() > 1) {
      const auto gathered = options_.communicator->gather(encode_rows(rows));
      rows.clear();
      for (const auto& bytes : gathered)
        for (auto& t : decode_rows(bytes)) rows.push_back(std::move(t));
    }
    if (rank() != 0) return {};
    std::vector<Row> out(points.size());
    for (auto& [k, list] : rows) out.at(k) = std::move(list.front());
    return out;
  }

  const Case& case_;
  std::string id_;
  const BoundEntry& entry_;
  ExploreOptions options_;
  SearchSpace space_;
  PointOptions search_;
  std::vector<std::string> where_;
  int starts_used_ = 0;  // local runs started so far (they are numbered in order)
  std::atomic<std::size_t> done_{0};
  std::size_t total_ = 0;
  std::mutex progress_mutex_;
  static constexpr const char* kUnrun = "not run: the --max-seconds limit was reached";
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  std::atomic<bool> limited_ = false;
};

// The phases of a search: the global Sobol phase, local runs from its best points, the statistics of the axes and
// the re-evaluation of the best distinct candidates.
class ExploreSearch : public ExploreEvaluator {
 public:
  using ExploreEvaluator::ExploreEvaluator;

 protected:
  std::vector<Evaluation> global_phase(int n) {
    const std::size_t d = space_.dimension();
    const std::unique_ptr<gsl_qrng, void (*)(gsl_qrng*)> sobol(gsl_qrng_alloc(gsl_qrng_sobol, static_cast<unsigned>(d)),
                                                               gsl_qrng_free);
    gsl_qrng* q = sobol.get();
    if (!q) throw NumericalError("explore: cannot allocate the Sobol generator");
    std::mt19937_64 rng(options_.seed);
    std::uniform_real_distribution<double> uniform(0, 1);
    std::vector<double> shift(d);
    for (double& s : shift) s = uniform(rng);
    // In chunks, so that memory grows with the evaluations run, not with the budget (10^7 points of 40 axes held at
    // once would be gigabytes), and a --max-seconds stop ends the phase after the chunk it falls in. (`limited_` is
    // the same on every process after a chunk's exchange, so all of them leave the loop together.)
    const std::size_t chunk = 1024 * static_cast<std::size_t>(size());
    std::vector<Evaluation> out;
    for (std::size_t done = 0; done < static_cast<std::size_t>(n) && !limited_;) {
      std::vector<std::vector<double>> points(std::min(chunk, static_cast<std::size_t>(n) - done), std::vector<double>(d));
      for (auto& u : points) {
        gsl_qrng_get(q, u.data());
        for (std::size_t j = 0; j < d; ++j) u[j] = std::fmod(u[j] + shift[j], 1.0);
      }
      done += points.size();
      std::vector<Evaluation> part = evaluate_all(points);
      const bool interrupted = std::any_of(part.begin(), part.end(), [](const Evaluation& e) {
        return e.status == Evaluation::Status::error && e.message() == "interrupted";
      });
      out.insert(out.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
      if (interrupted) break;  // (seen in the exchanged results: every process leaves here)
    }
    return out;
  }

  struct LocalRun {
    ExploreSearch* self;
    std::vector<double> start;
    std::vector<std::size_t> dims;  // the refined axes
    std::vector<Evaluation> trajectory;
    std::map<std::vector<double>, double> cache;
    std::function<bool(const Evaluation&)> accept = {};  // a further constraint (a frontier's bin); empty: none
  };

  static double local_objective(unsigned n, const double* x, double* /*grad*/, void* data) {
    auto* run = static_cast<LocalRun*>(data);
    std::vector<double> u = run->start;
    for (unsigned k = 0; k < n; ++k) u[run->dims[k]] = std::clamp(x[k], 0.0, 1.0);
    if (const auto it = run->cache.find(u); it != run->cache.end()) return it->second;
    Evaluation e = run->self->evaluate(u);
    if (unrun(e)) return kBarrier;  // out of time: NLopt's own time limit ends the run
    const double g = objective(run->self->options_.goal, e.slack);
    const bool candidate = run->self->candidate(e) && (!run->accept || run->accept(e));
    const double value = candidate && std::isfinite(g) ? g : (candidate && g < 0 ? -kBarrier : kBarrier);
    run->trajectory.push_back(std::move(e));
    run->cache.emplace(std::move(u), value);
    return value;
  }

  void refine(LocalRun& run, int budget) {
    const unsigned n = static_cast<unsigned>(run.dims.size());
    nlopt_opt opt = nlopt_create(n >= 2 ? NLOPT_LN_BOBYQA : NLOPT_LN_NELDERMEAD, n);
    std::vector<double> lo(n, 0.0), hi(n, 1.0), x(n), step(n, 0.1);
    for (unsigned k = 0; k < n; ++k) x[k] = run.start[run.dims[k]];
    nlopt_set_lower_bounds(opt, lo.data());
    nlopt_set_upper_bounds(opt, hi.data());
    nlopt_set_initial_step(opt, step.data());
    nlopt_set_min_objective(opt, &ExploreSearch::local_objective, &run);
    nlopt_set_maxeval(opt, budget);
    if (deadline_ != std::chrono::steady_clock::time_point::max()) nlopt_set_maxtime(opt, std::max(1e-3, seconds_left()));
    nlopt_set_xtol_abs1(opt, 1e-6);
    double f = 0;
    nlopt_optimize(opt, x.data(), &f);  // the trajectory is the result; stopping codes are not errors here
    nlopt_destroy(opt);
  }

  // Local runs from the best distinct candidates of `global` (those `accept` takes, when given).
  std::vector<Evaluation> local_phase(const std::vector<Evaluation>& global, int budget,
                                      const std::function<bool(const Evaluation&)>& accept = {}) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < global.size(); ++i)
      if (candidate(global[i]) && (!accept || accept(global[i]))) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return objective(options_.goal, global[a].slack) < objective(options_.goal, global[b].slack);
    });
    std::vector<std::size_t> dims;
    for (std::size_t j = 0; j < space_.dimension(); ++j)
      if (space_.continuous(j)) dims.push_back(j);
    // Rounds of local runs from the next best distinct starts, while budget is left (a run that converges early
    // leaves its share to the next round). Each run gets at least 12 evaluations (BOBYQA needs 2n + 1 to build
    // its first model).
    std::vector<Evaluation> out;
    std::size_t next = 0;
    int left = budget, round = 0;
    std::vector<std::size_t> used;
    while (left >= kLocalRunMinimum && next < order.size() && round < 16 && !out_of_time()) {
      const int starts = std::max(1, std::min(options_.starts, left / kLocalRunMinimum));
      std::vector<LocalRun> runs;
      while (static_cast<int>(runs.size()) < starts && next < order.size()) {
        const std::size_t i = order[next++];
        if (!distinct(global[i].u, global, used)) continue;
        used.push_back(i);
        runs.push_back({this, global[i].u, dims, {}, {}, accept});
      }
      if (runs.empty()) break;
      std::vector<Evaluation> batch = refine_all(runs, left / static_cast<int>(runs.size()), starts_used_);
      starts_used_ += static_cast<int>(runs.size());
      left -= static_cast<int>(batch.size());
      for (Evaluation& e : batch) out.push_back(std::move(e));
      ++round;
    }
    return out;
  }

  // One round of local runs (starts numbered from `first`), spread over processes then threads.
  std::vector<Evaluation> refine_all(std::vector<LocalRun>& runs, int each, int first) {
    // Starts spread over processes (k % size == rank), then over threads; trajectories exchanged in start order.
    std::vector<std::size_t> mine;
    for (std::size_t k = static_cast<std::size_t>(rank()); k < runs.size(); k += static_cast<std::size_t>(size())) mine.push_back(k);
    parallel_for(mine.size(), options_.jobs, [&](std::size_t m) { refine(runs[mine[m]], each); });
    std::vector<Evaluation> out;
    if (size() == 1) {
      for (std::size_t k = 0; k < runs.size(); ++k)
        for (Evaluation& e : runs[k].trajectory) {
          e.start = first + static_cast<int>(k);
          out.push_back(std::move(e));
        }
      return out;
    }
    std::vector<std::vector<Evaluation>> my_trajectories;
    for (std::size_t k : mine) my_trajectories.push_back(runs[k].trajectory);
    const auto all = exchange_evaluations(*options_.communicator, my_trajectories);
    std::vector<std::vector<Evaluation>> trajectories(runs.size());
    for (int r = 0; r < size(); ++r) {
      std::size_t j = 0;
      for (std::size_t k = static_cast<std::size_t>(r); k < runs.size(); k += static_cast<std::size_t>(size()))
        trajectories[k] = all[r].at(j++);
    }
    for (std::size_t k = 0; k < runs.size(); ++k)
      for (Evaluation& e : trajectories[k]) {
        e.start = first + static_cast<int>(k);
        out.push_back(std::move(e));
      }
    return out;
  }

  void statistics(ExploreResult& r) const {
    const std::size_t d = space_.dimension();
    r.influence.assign(d, 0.0);
    r.coverage.assign(d, 0.0);
    std::vector<double> g;
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < r.global_points; ++i) {
      const double v = r.evaluations[i].slack;  // (not the goal's objective: the same axes for every goal's map)
      if (candidate(r.evaluations[i]) && std::isfinite(v)) {
        g.push_back(v);
        idx.push_back(i);
      }
    }
    double mean = 0, var = 0;
    for (double v : g) mean += v;
    if (!g.empty()) mean /= static_cast<double>(g.size());
    for (double v : g) var += (v - mean) * (v - mean);
    for (std::size_t j = 0; j < d; ++j) {
      const std::size_t bins = space_.axes[j].kind == ExploreAxis::Kind::choice ? space_.axes[j].choices.size() : 10;
      auto bin = [&](double u) { return std::min(bins - 1, static_cast<std::size_t>(u * static_cast<double>(bins))); };
      std::vector<char> hit(bins, 0);
      for (std::size_t i = 0; i < r.global_points; ++i) hit[bin(r.evaluations[i].u[j])] = 1;
      r.coverage[j] = static_cast<double>(std::count(hit.begin(), hit.end(), 1)) / static_cast<double>(bins);
      if (!(var > 0)) continue;
      std::vector<double> sum(bins, 0), count(bins, 0);
      for (std::size_t k = 0; k < g.size(); ++k) {
        sum[bin(r.evaluations[idx[k]].u[j])] += g[k];
        count[bin(r.evaluations[idx[k]].u[j])] += 1;
      }
      double between = 0;
      for (std::size_t b = 0; b < bins; ++b)
        if (count[b] > 0) between += count[b] * std::pow(sum[b] / count[b] - mean, 2);
      r.influence[j] = between / var;
    }
  }

  // The best distinct candidates, re-evaluated with the case's full options: spread over processes (point k on
  // rank k % size) and threads; the first process collects the rows.
  // A point whose full re-evaluation is an error (an engine refusing what the search's options accepted) is passed
  // over for the next distinct candidate, up to 2 x --starts such points; the rest are reported as they are.
  void reevaluate(ExploreResult& r) const {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < r.evaluations.size(); ++i)
      if (candidate(r.evaluations[i])) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return objective(options_.goal, r.evaluations[a].slack) < objective(options_.goal, r.evaluations[b].slack);
    });
    const std::size_t starts = static_cast<std::size_t>(options_.starts), max_passed = 2 * starts;
    std::vector<std::size_t> taken;  // kept and passed over: a next candidate must be distinct from both
    std::vector<std::pair<std::size_t, Row>> kept;  // (index, row); rows on the first process only
    for (std::size_t next = 0; kept.size() < starts && next < order.size();) {
      std::vector<std::size_t> batch;
      for (; next < order.size() && kept.size() + batch.size() < starts; ++next)
        if (distinct(r.evaluations[order[next]].u, r.evaluations, taken)) {
          batch.push_back(order[next]);
          taken.push_back(order[next]);
        }
      if (batch.empty()) break;
      std::vector<bool> failed;
      std::vector<Row> rows = reevaluate_points(r.evaluations, batch, &failed);
      for (std::size_t k = 0; k < batch.size(); ++k) {
        if (failed[k] && r.passed_over < max_passed) {
          if (r.passed_over++ == 0 && rank() == 0) r.passed_over_reason = rows[k].reason;
          continue;
        }
        kept.emplace_back(batch[k], rank() == 0 ? std::move(rows[k]) : Row{});
      }
    }
    std::stable_sort(kept.begin(), kept.end(), [&](const auto& a, const auto& b) { return better(r.evaluations[a.first], r.evaluations[b.first]); });
    for (auto& [i, row] : kept) {
      r.best_index.push_back(i);
      if (rank() == 0) r.best.push_back(std::move(row));
    }
    // The best degenerate point, when it beats the best one: reported apart.
    for (std::size_t i = 0; i < r.evaluations.size(); ++i)
      if (candidate(r.evaluations[i], true) &&
          (!r.degenerate_index || better(r.evaluations[i], r.evaluations[*r.degenerate_index])))
        r.degenerate_index = i;
    if (r.degenerate_index && !r.best_index.empty() && !better(r.evaluations[*r.degenerate_index], r.evaluations[r.best_index.front()]))
      r.degenerate_index.reset();
    std::vector<Row> rows;
    if (r.degenerate_index) rows = reevaluate_points(r.evaluations, {*r.degenerate_index});
    if (rank() != 0) {
      r.best_index.clear();  // only the first process reports
      r.degenerate_index.reset();
      return;
    }
    if (r.degenerate_index) r.degenerate = rows.back();
  }
};

// A search (run) or a frontier (run_frontier: the best point per bin of a quantity).
class Explorer : public ExploreSearch {
 public:
  using ExploreSearch::ExploreSearch;

  ExploreResult run() {
    start_clock();
    ExploreResult r = empty_result();
    const int local_budget = this->local_budget();
    const int global = options_.budget - local_budget;
    total_ = static_cast<std::size_t>(options_.budget);
    r.evaluations = global_phase(global);
    r.global_points = r.evaluations.size();
    if (local_budget > 0) {
      for (Evaluation& e : local_phase(r.evaluations, local_budget)) r.evaluations.push_back(std::move(e));
    }
    if (options_.progress && rank() == 0 && done_ * static_cast<std::size_t>(size()) < total_)
      options_.progress(total_, total_);  // the local runs converged before the budget was spent
    r.where = where_;
    note_time_limit(r);
    statistics(r);
    reevaluate(r);
    return r;
  }

  FrontierResult run_frontier(const std::string& name, int bins) {
    if (!(bins >= 1 && bins <= 100)) throw_invalid("explore", "--bins", bins, "an integer with 1 <= bins <= 100");
    start_clock();
    FrontierResult f;
    f.name = name;
    ExploreResult& r = f.search;
    r = empty_result();
    r.where = where_;
    total_ = static_cast<std::size_t>(options_.budget);
    const int local_budget = this->local_budget();
    r.evaluations = global_phase(options_.budget - local_budget);
    r.global_points = r.evaluations.size();
    const Bins edges = frontier_bins(f, bins);
    search_bins(f, edges, local_budget);
    if (options_.progress && rank() == 0) options_.progress(total_, total_);
    note_time_limit(r);
    statistics(r);
    best_per_bin(f, edges);
    return f;
  }

 private:
  // The bins of a frontier's quantity: their edges and which bin an evaluation falls in (−1: none; a value past the
  // range, the global phase's for a derived quantity, where a local search may step, in the end bin on its side).
  struct Bins {
    std::vector<double> edges;
    double lo = 0, hi = 0;  // the range (the ends of edges, as given)
    std::function<double(const Evaluation&)> value;
    int of(const Evaluation& e) const {
      const double v = std::clamp(value(e), lo, hi);
      if (!(v >= lo && v <= hi)) return -1;
      const auto it = std::upper_bound(edges.begin() + 1, edges.end() - 1, v);
      return static_cast<int>(it - edges.begin()) - 1;
    }
  };

  // The quantity's value at an evaluation (a parameter, derived quantity or mixing constant, or exact, bound, ratio)
  // and its range: the axis's, or the values seen at the global phase's candidates.
  Bins frontier_bins(FrontierResult& f, int bins) const {
    const std::string name = f.name;
    Bins out;
    out.value = [this, name](const Evaluation& e) {
      const Params p = with_search_values(e.point, e.exact(), e.bound());
      const auto it = p.numbers.find(name);
      return it == p.numbers.end() ? kNaN : it->second;
    };
    const auto axis = std::find_if(space_.axes.begin(), space_.axes.end(), [&](const ExploreAxis& a) { return a.name == name; });
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    if (axis != space_.axes.end() && axis->kind != ExploreAxis::Kind::choice) {
      lo = axis->min;
      hi = axis->max;
      f.log = axis->log;
    } else {
      bool known = false;
      for (const Evaluation& e : f.search.evaluations) {
        const double v = out.value(e);
        known = known || !std::isnan(v);
        if (!(candidate(e) || candidate(e, true)) || !std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      if (!known) {
        std::vector<std::string> names = {"exact", "bound", "ratio"};
        for (const Evaluation& e : f.search.evaluations)
          if (e.status == Evaluation::Status::ok) {
            for (const auto& [k, v] : e.point.numbers) names.push_back(k);
            break;
          }
        invalid_input("--frontier {}: not a number of the points of case '{}' (known: {})", name, case_.name,
                      fmt::join(names, ", "));
      }
      if (!(lo < hi))
        invalid_input("--frontier {}: the candidate points {} (a frontier needs a range of values)", name,
                      lo > hi ? "are none: widen the search or its region" : "all have " + name + " = " + format_number(lo));
      f.log = lo > 0 && hi / lo >= 100;
    }
    out.lo = lo;
    out.hi = hi;
    out.edges.resize(static_cast<std::size_t>(bins) + 1);
    for (int b = 0; b <= bins; ++b) {
      const double t = static_cast<double>(b) / bins;
      out.edges[static_cast<std::size_t>(b)] = b == bins ? hi : f.log ? log_spaced(lo, hi, b, bins + 1) : lo + (hi - lo) * t;
    }
    return out;
  }

  // Each bin searched on its own: local runs from its best points, the bin a constraint. A bin whose share is below
  // what one local run needs is not refined, and says so (its best point is then the global phase's).
  void search_bins(FrontierResult& f, const Bins& edges, int local_budget) {
    ExploreResult& r = f.search;
    const int bins = static_cast<int>(edges.edges.size()) - 1;
    const std::vector<Evaluation> global = r.evaluations;
    f.bins.resize(static_cast<std::size_t>(bins));
    for (int b = 0; b < bins; ++b) {
      FrontierBin& bin = f.bins[static_cast<std::size_t>(b)];
      bin.lower = edges.edges[static_cast<std::size_t>(b)];
      bin.upper = edges.edges[static_cast<std::size_t>(b) + 1];
      const int share = local_budget / bins;
      if (share < kLocalRunMinimum) {
        bin.not_refined = local_budget == 0 ? "no continuous axis to refine"
                                            : fmt::format("its share of the budget, {} evaluations, is below the {} a local run needs "
                                                          "(raise --budget to {} or more)", share, kLocalRunMinimum,
                                                          static_cast<int>(std::ceil(kLocalRunMinimum * bins / options_.local_share)));
        continue;
      }
      const auto accept = [&, b](const Evaluation& e) { return edges.of(e) == b; };
      if (std::none_of(global.begin(), global.end(), [&](const Evaluation& e) { return candidate(e) && accept(e); })) {
        bin.not_refined = "no candidate point of the global phase in the bin to start from";
        continue;
      }
      for (Evaluation& e : local_phase(global, share, accept)) {
        r.evaluations.push_back(std::move(e));
        ++bin.refined;
      }
      if (bin.refined == 0) bin.not_refined = out_of_time() ? "the --max-seconds limit was reached" : "no distinct start point in the bin";
    }
  }

  // Per bin: the best candidate and, when it is better, the best degenerate point, re-evaluated with the case's
  // full options. The end bins, which hold the points local runs took beyond the range (Bins::of), widened to them.
  void best_per_bin(FrontierResult& f, const Bins& edges) const {
    ExploreResult& r = f.search;
    for (std::size_t i = 0; i < r.evaluations.size(); ++i) {
      const Evaluation& e = r.evaluations[i];
      const int b = edges.of(e);
      if (b < 0) continue;
      FrontierBin& bin = f.bins[static_cast<std::size_t>(b)];
      for (const bool degenerate : {false, true}) {
        if (!candidate(e, degenerate)) continue;
        const double v = edges.value(e);  // (fmin and fmax keep the edge where v is NaN)
        if (b == 0) bin.lower = std::fmin(bin.lower, v);
        if (b + 1 == static_cast<int>(f.bins.size())) bin.upper = std::fmax(bin.upper, v);
        bin.candidates += !degenerate;
        auto& best = degenerate ? bin.degenerate_index : bin.best_index;
        if (!best || better(e, r.evaluations[*best])) best = i;
      }
    }
    std::vector<std::size_t> points;
    for (FrontierBin& bin : f.bins) {
      if (bin.degenerate_index && bin.best_index && !better(r.evaluations[*bin.degenerate_index], r.evaluations[*bin.best_index]))
        bin.degenerate_index.reset();
      if (bin.best_index) points.push_back(*bin.best_index);
      if (bin.degenerate_index) points.push_back(*bin.degenerate_index);
    }
    const std::vector<Row> rows = reevaluate_points(r.evaluations, points);
    if (rank() != 0) return;
    std::size_t k = 0;
    for (FrontierBin& bin : f.bins) {
      if (bin.best_index) {
        bin.best = rows[k++];
        r.best_index.push_back(*bin.best_index);
        r.best.push_back(*bin.best);
      }
      if (bin.degenerate_index) bin.degenerate = rows[k++];
    }
  }
};

}  // namespace

void check_explore(const Case& c, const std::string& id, const ExploreOptions& options, const std::string& frontier) {
  const ExploreEvaluator checked(c, id, options);  // its constructor checks the case, the ID and the options
  // --frontier: a number of the space's centre (the frontier checks again against its points).
  const std::optional<Params> centre = frontier.empty() ? std::nullopt : checked.centre();
  if (centre && !centre->numbers.contains(frontier))
    invalid_input("--frontier {}: not a number of the points of case '{}' (known: {})", frontier, c.name,
                  fmt::join(std::views::keys(centre->numbers), ", "));
}

ExploreResult explore(const Case& c, const std::string& id, const ExploreOptions& options) {
  ExploreResult r = Explorer(c, id, options).run();
  throw_if_interrupted();
  return r;
}

FrontierResult frontier(const Case& c, const std::string& id, const ExploreOptions& options, const std::string& name, int bins) {
  FrontierResult f = Explorer(c, id, options).run_frontier(name, bins);
  throw_if_interrupted();
  return f;
}

}  // namespace privamp::verify
