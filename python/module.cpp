// _privamp: the compiled half of the `privamp` Python package (python/privamp/__init__.py is the other). Results
// cross as Python objects built here from the engines' own results — dicts, lists, floats (infinities and NaN as
// floats), strings — never as text; the package wraps them in named tuples and NumPy arrays. Every function runs
// the same entry points as the command line (verify/api/api.hpp), so both front ends give the same numbers; the GIL
// is released while the engines run. Errors: InvalidArgument → ValueError, NumericalError → RuntimeError, with the
// command line's message.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <signal.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "verify/api/accountant.hpp"
#include "verify/api/api.hpp"
#include "verify/explore/explore_report.hpp"
#include "verify/report/report.hpp"
#include "verify/runner/run.hpp"

namespace py = pybind11;
using namespace privamp;

namespace {

// The fields of an estimate in order, each with its type ("number", "integer", "text") and whether every estimate
// has it (the parts of a discretised estimate's error bar only those): Python's Estimate is made from this list.
py::list estimate_fields() {
  py::list out;
  const verify::Estimate any;
  verify::for_each_field(any, [&](const char* name, const auto& member, verify::FieldRule rule) {
    using T = std::decay_t<decltype(member)>;
    out.append(py::make_tuple(name, std::is_same_v<T, double>                 ? "number"
                                    : std::is_same_v<T, long>                 ? "integer"
                                    : std::is_same_v<T, verify::ErrorBudget> ? "mapping"
                                    : std::is_same_v<T, bool>                 ? "flag"
                                                                             : "text",
                              rule != verify::FieldRule::discretised));
  });
  return out;
}

// A Python callable progress(done, total) as the engines' progress hook (None: none). It is called from the threads
// that compute (the GIL released), so it takes the GIL; at most about ten times a second, and always at the end. An
// exception it raises stops the computation (through the interrupt flag, as Ctrl-C does) and is raised by the call in
// place of its result: nothing the callback raises is lost, and no partial result is returned.
class Progress {
 public:
  Progress() = default;
  explicit Progress(const py::object& callback) {
    if (callback.is_none()) return;
    state_ = std::make_shared<State>();
    state_->callback = callback;
  }

  std::function<void(std::size_t, std::size_t)> hook() const {
    if (!state_) return {};
    return [state = state_](std::size_t done, std::size_t total) {
      const std::lock_guard lock(state->mutex);
      if (state->error) return;
      const auto now = std::chrono::steady_clock::now();
      if (done < total && now - state->last < std::chrono::milliseconds(100)) return;
      state->last = now;
      const py::gil_scoped_acquire hold;
      try {
        state->callback(done, total);
      } catch (py::error_already_set& e) {
        state->error = std::move(e);
        request_interrupt();
      }
    };
  }

  // What the callback raised, raised here (the GIL held); nothing when it raised nothing.
  void raise_if_raised() const {
    if (!state_) return;
    std::optional<py::error_already_set> error;
    {
      const std::lock_guard lock(state_->mutex);
      error.swap(state_->error);
    }
    if (error) throw *error;
  }

 private:
  struct State {
    py::object callback;
    std::mutex mutex;
    std::chrono::steady_clock::time_point last{};
    std::optional<py::error_already_set> error;
    ~State() {
      const py::gil_scoped_acquire hold;  // the last reference may go in a worker thread
      error.reset();
      callback = py::object();
    }
  };
  std::shared_ptr<State> state_;
};

// How a divergence call computes (its engine and their settings), as divergence() and epsilon() take it.
api::DivergenceRequest engine_request(const std::string& engine, double rel_tol, long samples, std::uint64_t seed, double level) {
  api::DivergenceRequest r;
  r.engine = engine;
  r.rel_tol = rel_tol;
  r.samples = samples;
  r.seed = seed;
  r.level = level;
  return r;
}

// A result tree (codec.hpp) as Python objects: dicts in the tree's key order, non-finite numbers as floats.
py::object python_object(const verify::Tree& t) {
  switch (t.type()) {
    case verify::Tree::value_t::null: return py::none();
    case verify::Tree::value_t::boolean: return py::bool_(t.get<bool>());
    case verify::Tree::value_t::number_integer: return py::int_(t.get<std::int64_t>());
    case verify::Tree::value_t::number_unsigned: return py::int_(t.get<std::uint64_t>());
    case verify::Tree::value_t::number_float: return py::float_(plain_zero(t.get<double>()));
    case verify::Tree::value_t::string: return py::str(t.get_ref<const std::string&>());
    case verify::Tree::value_t::array: {
      py::list l;
      for (const auto& e : t) l.append(python_object(e));
      return l;
    }
    case verify::Tree::value_t::object: {
      py::dict d;
      for (auto it = t.begin(); it != t.end(); ++it) d[py::str(it.key())] = python_object(it.value());
      return d;
    }
    default: invalid_input("internal: a result tree holds a value Python cannot receive");
  }
}

// A table as a list of dicts, one key per column (in the columns' order): its records (codec.hpp) as Python objects.
py::list table_dicts(const verify::FlatTable& t) { return python_object(verify::table_records(t)); }

// A kernel from a 2-D float64 buffer (the package turns any NumPy array into one) or from nested sequences; the
// shape is checked before any number is copied.
sim::FiniteKernel kernel_from_object(const py::object& K) {
  if (py::isinstance<py::buffer>(K) && !py::isinstance<py::str>(K) && !py::isinstance<py::bytes>(K)) {
    const py::buffer_info b = py::reinterpret_borrow<py::buffer>(K).request();
    if (b.ndim != 2) invalid_input("K: a {}-dimensional array; a kernel is a 2-dimensional matrix", b.ndim);
    if (b.format != py::format_descriptor<double>::format() || b.itemsize != sizeof(double))
      invalid_input("K: array of element format '{}'; expected float64", b.format);
    api::check_kernel_shape(static_cast<std::size_t>(b.shape[0]), static_cast<std::size_t>(b.shape[1]));
    std::vector<std::vector<double>> rows(static_cast<std::size_t>(b.shape[0]));
    const auto* base = static_cast<const char*>(b.ptr);
    for (py::ssize_t i = 0; i < b.shape[0]; ++i)
      for (py::ssize_t j = 0; j < b.shape[1]; ++j)
        rows[static_cast<std::size_t>(i)].push_back(*reinterpret_cast<const double*>(base + i * b.strides[0] + j * b.strides[1]));
    return api::kernel_from_rows(rows);
  }
  const py::sequence seq = py::reinterpret_borrow<py::sequence>(K);
  api::check_kernel_shape(seq.size(), seq.size() == 0 ? 0 : py::len(seq[0]));
  return api::kernel_from_rows(K.cast<std::vector<std::vector<double>>>());
}

// One search (explore_report.hpp names its fields), with the seconds it took.
py::dict explore_dict(const verify::Tree& tree, double seconds) {
  py::dict out = python_object(tree);
  out["seconds"] = seconds;
  return out;
}

}  // namespace

// Ctrl-C while a call computes (the GIL released, so Python's own handler only sets a flag Python reads later): for
// the call's duration SIGINT sets privamp's interrupt flag, which the long loops read; the call then raises
// KeyboardInterrupt. The previous handler is restored afterwards. Only where SIGINT's Python handler is the default
// one (KeyboardInterrupt): a program that ignores SIGINT (pool workers) or handles it itself keeps its handler, and
// the call runs to its end.
class InterruptScope {
 public:
  explicit InterruptScope(bool take) {
    clear_interrupt();
    if (!take) return;
    struct sigaction mine {};
    mine.sa_handler = [](int) { request_interrupt(); };
    sigemptyset(&mine.sa_mask);
    installed_ = ::sigaction(SIGINT, &mine, &previous_) == 0;
  }
  ~InterruptScope() {
    if (installed_) ::sigaction(SIGINT, &previous_, nullptr);
    clear_interrupt();
  }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

// Runs compute() with the GIL released and Ctrl-C interrupting it: a call during which Ctrl-C was pressed raises
// KeyboardInterrupt, whatever it returned or threw (densities read NaN once it is pressed, so some engines give up
// on a value with an error rather than stop); what the progress callback raised is raised in place of the result.
// Whether SIGINT's Python handler is the default one, which raises KeyboardInterrupt (read with the GIL held).
bool default_sigint() {
  const py::module_ signal = py::module_::import("signal");
  return signal.attr("getsignal")(signal.attr("SIGINT")).is(signal.attr("default_int_handler"));
}

template <class Compute>
auto released(Compute&& compute, const Progress& progress = Progress()) {
  const bool take = default_sigint();
  const auto run = [&] {
    const py::gil_scoped_release release;
    const InterruptScope interruptible(take);
    try {
      auto result = compute();
      throw_if_interrupted();  // a result finished while Ctrl-C was pressed may hold values given up on: dropped
      return result;
    } catch (const Interrupted&) {
      throw;
    } catch (...) {
      if (interrupt_requested()) throw Interrupted();  // an engine that failed on its interrupted integrand
      throw;
    }
  };
  try {
    auto result = run();
    progress.raise_if_raised();
    return result;
  } catch (const Interrupted&) {
    progress.raise_if_raised();
    throw;
  }
}

// The fields of the records the package builds its classes from.
void bind_fields(py::module_& m) {
  m.def("estimate_fields", &estimate_fields, "the fields of an estimate, in order, with their types");
  m.def(
      "profile_fields",
      []() {
        py::list names;
        verify::for_each_profile_field(api::PrivacyProfile{}, [&](const char* name, const auto&) { names.append(name); });
        return names;
      },
      "the fields of a point of the privacy profile, in order");
}

// Divergences, ε(δ) and the privacy profile of two law expressions.
void bind_divergences(py::module_& m) {
  m.def(
      "epsilon",
      [](const std::string& mu, const std::string& nu, double delta, double eps_max, double rel_tol, const std::string& engine,
         long samples, std::uint64_t seed, double level) {
        const api::DivergenceRequest r = engine_request(engine, api::DivergenceRequest{}.rel_tol, samples, seed, level);
        const verify::Estimate e = released([&] { return api::epsilon_for_delta(mu, nu, delta, r, eps_max, rel_tol); });
        return python_object(api::epsilon_tree(e, delta));
      },
      "eps(delta) of the pair as a bracket (see privamp.epsilon)");
  m.def(
      "check_epsilon_work",
      [](std::size_t deltas, const std::string& engine, long samples) {
        api::check_epsilon_work(deltas, engine_request(engine, api::DivergenceRequest{}.rel_tol, samples, 1, 0.99));
      },
      "ValueError where so many Monte Carlo eps(delta) searches would cost more than a call may draw (api::check_epsilon_work)");
  m.def(
      "divergence",
      [](const std::string& mu, const std::string& nu, const std::vector<double>& renyi,
         const std::vector<double>& hockey_stick, bool kl, bool tv, const std::string& engine, double rel_tol,
         long samples, std::uint64_t seed, double level, const py::object& progress) {
        api::DivergenceRequest r = engine_request(engine, rel_tol, samples, seed, level);
        const Progress hook(progress);
        r.progress = hook.hook();
        r.renyi = renyi;
        r.hockey_stick = hockey_stick;
        r.kl = kl;
        r.tv = tv;
        const api::DivergenceResult result = released([&] { return api::divergence(mu, nu, r); }, hook);
        return python_object(api::to_tree(result));
      },
      "divergences between two law expressions");
  m.def(
      "privacy_profile",
      [](const std::string& mu, const std::string& nu, const std::vector<double>& eps, const std::string& engine,
         double rel_tol, long samples, std::uint64_t seed, double level, const py::object& progress) {
        api::DivergenceRequest r = engine_request(engine, rel_tol, samples, seed, level);
        r.hockey_stick = eps;
        const Progress hook(progress);
        r.progress = hook.hook();
        const api::PrivacyProfile profile = released([&] { return api::privacy_profile(mu, nu, r); }, hook);
        // Columns, one list per field: no Python object per value until the caller builds its points.
        const std::size_t n = profile.delta.size();
        py::dict out;
        verify::for_each_profile_field(profile, [&](const char* name, const auto& cell) {
          py::list column(n);
          for (std::size_t i = 0; i < n; ++i) {
            const auto v = cell(i);
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) column[i] = plain_zero(v);
            else column[i] = v;
          }
          out[name] = column;
        });
        return out;
      },
      "the privacy profile of two law expressions, both directions at once, as columns");
}

// The accountant's pieces: composed pairs, DP-SGD steps, calibration.
void bind_accounting(py::module_& m) {
  m.def(
      "composed_pair",
      [](const std::vector<std::tuple<std::string, std::string, long>>& releases) {
        std::vector<api::Release> r;
        for (const auto& [mu, nu, count] : releases) r.push_back({mu, nu, count});
        return api::composed_pair(r);
      },
      "the law expressions of a sequence of (mu, nu, count) releases composed");
  m.def(
      "dpsgd_step",
      [](double noise_multiplier, double sample_rate) {
        const api::Release r = api::dpsgd_step(noise_multiplier, sample_rate);
        return py::make_tuple(r.mu, r.nu);
      },
      "the pair of laws of one DP-SGD step (Poisson-subsampled Gaussian)");
  m.def(
      "calibrate",
      [](double target_epsilon, double delta, std::optional<double> noise_multiplier, std::optional<double> sample_rate,
         std::optional<long> steps, double rel_tol, const std::string& engine) {
        api::CalibrationRequest r;
        r.target_epsilon = target_epsilon;
        r.delta = delta;
        r.noise_multiplier = noise_multiplier;
        r.sample_rate = sample_rate;
        r.steps = steps;
        r.rel_tol = rel_tol;
        r.engine.engine = engine;
        const api::Calibration c = released([&] { return api::calibrate(r); });
        return python_object(api::calibration_tree(c));
      },
      "the one DP-SGD parameter left open for a target epsilon (see privamp.calibrate)");
}

// Kernels, verify, explore and the law catalogue.
void bind_runs(py::module_& m) {
  m.def(
      "kernel",
      [](const py::object& K, const std::vector<double>& eps, const std::vector<double>& dp,
         const std::vector<double>& eps_prime, const std::vector<double>& renyi) {
        api::KernelRequest r;
        r.eps = eps;
        if (!dp.empty()) {
          if (dp.size() != 2) invalid_input("dp: expected (eps, delta), two numbers");
          r.dp = std::make_pair(dp[0], dp[1]);
        }
        r.eps_prime = eps_prime;
        r.renyi = renyi;
        const sim::FiniteKernel k = kernel_from_object(K);
        const api::KernelResult result = released([&] { return api::kernel(k, r); });
        return python_object(api::to_tree(result));
      },
      "coefficients and exact amplification of a finite kernel");
  m.def(
      "verify",
      [](const std::vector<std::string>& paths, const std::vector<std::string>& only, int jobs, const std::string& out,
         const std::string& junit, const std::string& html, const std::string& command) {
        const api::VerifyResult r = released(
            [&] { return api::verify(paths, {only, jobs, out, junit, html, PRIVAMP_VERSION, PRIVAMP_COMMIT, command}); });
        return py::make_tuple(table_dicts(verify::flat_table(r.rows)), r.summary, r.violated, r.errors, r.notes);
      },
      "the rows of privamp verify (dicts with a key per column of results.csv), the summary table, violations, errors, "
      "notes (grid parameters nothing reads)");
  m.def(
      "explore",
      [](const std::vector<std::string>& targets, const std::string& case_name, const std::string& id,
         const std::string& cases_dir, bool all, const std::string& goal, int budget, std::uint64_t seed, int starts,
         int jobs, bool ignore_hypotheses, const std::vector<std::string>& where, const std::string& frontier, int bins,
         double max_seconds) {
        const api::ExploreSettings settings{goal, static_cast<double>(budget), max_seconds, static_cast<long long>(seed),
                                            starts, jobs, ignore_hypotheses, where, frontier, bins};
        const verify::ExploreOptions options = api::explore_options(settings);
        const std::vector<api::ExploreRun> runs =
            released([&] { return api::explore(api::select_explore({targets, case_name, id, cases_dir, all}), settings, options); });
        py::list out;
        for (const api::ExploreRun& run : runs)
          out.append(explore_dict(frontier.empty() ? verify::explore_json(run.result.search, options) : verify::frontier_json(run.result, options), run.seconds));
        return out;
      },
      "searches of privamp explore: per case and ID, the evaluated points and the best points");
  m.def(
      "search_fields",
      []() {
        py::list fields;
        const verify::Tree empty = verify::explore_json({}, {});
        for (auto it = empty.begin(); it != empty.end(); ++it) fields.append(it.key());
        fields.append("seconds");
        return fields;
      },
      "the fields of one search of explore, in order");
  m.def(
      "laws",
      []() { return python_object(api::laws()); },
      "the law catalogue");
}

PYBIND11_MODULE(_privamp, m) {
  m.doc() = "privamp's engines (use the privamp package, not this module)";
  m.attr("__version__") = PRIVAMP_VERSION;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const NumericalError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const Interrupted&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
  bind_fields(m);
  bind_divergences(m);
  bind_accounting(m);
  bind_runs(m);
}
