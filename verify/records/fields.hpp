// The fields of privamp's results, named in this one file: an estimate's, a row's, a golden row's, those of explore's
// searches (their points, frontier bins and the search itself), of the API's results, of figures' tidy tables and of
// privacy-profile points. Every output is generated from these lists: results.json and the API's JSON, the rows processes exchange under MPI (CBOR), results.csv and the rows
// Python's verify returns (the flat table), the golden files (verify/records/codec.cpp); Python's Estimate and its
// dicts (python/module.cpp); explore's CSV and JSON files and Python's searches (verify/explore/explore_report.cpp);
// the API's results, printed by the command line and handed to Python (verify/api); figures' tidy tables (plots/).
// Adding a field is one line here, plus the line that computes it where the result is made. The records (row.hpp,
// this file, codec.hpp) sit in verify/records/, below the runner that makes rows: every layer that writes or reads a
// result includes them from there.
//
// Each list calls f(field, member) in order, where `member` is a reference to the record's member (read back into
// it) or a Derived value (computed from others: written, never read). The lists of explore's, the API's and the
// figures' results are templates over their types (those layers sit above this one), instantiated where the results
// are written; tests/structure.py checks that the writers spell no field name themselves.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "verify/divergence/estimate.hpp"
#include "verify/records/row.hpp"

namespace privamp::verify {

// A cell of a flat table: empty, a number (NaN where undefined) or a text.
using Cell = std::variant<std::monostate, double, std::string>;
// A result as a tree built once and rendered twice (codec.hpp): ordered JSON whose numbers keep non-finite values.
using Tree = nlohmann::ordered_json;

// A field computed from others: written, never read back.
template <class T>
struct Derived {
  T value;
};
template <class T>
constexpr bool is_derived = false;
template <class T>
constexpr bool is_derived<Derived<T>> = true;

// ---- estimates ----------------------------------------------------------------------------------------------------

// How a field of an estimate is written and read back.
enum class FieldRule {
  measure,      // a number; NaN (null in JSON) where not computed, NaN when absent
  required,     // present in every record read back
  count,        // a number; 0 when absent
  timing,       // a number, 0 when absent; not part of a reproducible record (rows leave it out)
  discretised,  // written only for ErrorKind::discretised estimates; 0 otherwise
  budget,       // the parts of the interval's width (ErrorBudget): an object of named numbers in keyed records (null
                // for an amount below the double range), one text cell ("quadrature 1.2e-12, lumping 3.4e-09") in
                // flat ones; empty where none
  log_budget,   // the same parts' natural logs (finite also below the double range)
  flag,         // a yes/no read off the other fields (bounded_above_only): written, never read back
};
// The fields of an estimate: f(name, member, rule), in this order; `E` is Estimate or const Estimate. The logs are
// handed over as doubles; where `E` is not const, what `f` writes into them is restored with the linear ends
// (Estimate::restore_logs: a record read back).
// Written (`E` const), the value and its log are those outputs show (shown_value: null where the estimate is bounded
// above only, as its flag says); a record restores the engine's point (codec.cpp), so that a run read back is the run.
template <class E, class F>
void for_each_field(E& e, F&& f) {
  constexpr bool writing = std::is_const_v<E>;
  double logs[3] = {writing ? shown_log_value(e) : e.log_value(), e.log_lower(), e.log_upper()};
  if constexpr (writing) {
    const double shown = shown_value(e);
    f("value", shown, FieldRule::measure);
  } else {
    f("value", e.value, FieldRule::measure);
  }
  f("lower", e.lower, FieldRule::measure);
  f("upper", e.upper, FieldRule::measure);
  f("log_value", logs[0], FieldRule::measure);
  f("log_lower", logs[1], FieldRule::measure);
  f("log_upper", logs[2], FieldRule::measure);
  f("error_kind", e.error_kind, FieldRule::required);
  f("level", e.level, FieldRule::required);
  f("method", e.method, FieldRule::required);
  f("work", e.work, FieldRule::count);
  f("seconds", e.seconds, FieldRule::timing);
  f("numerical_error", e.numerical_error, FieldRule::discretised);
  f("discretisation_error", e.discretisation_error, FieldRule::discretised);
  f("error_budget", e.budget, FieldRule::budget);
  f("log_error_budget", e.budget, FieldRule::log_budget);
  bool above_only = bounded_above_only(e);
  f("bounded_above_only", above_only, FieldRule::flag);
  if constexpr (!writing) e.restore_logs(logs[0], logs[1], logs[2]);
}
// What a record (results.json, golden rows, rows between processes) writes over the shown value and its log where the
// outputs show none: the engine's point, f(name, number), so that a run read back is the run.
template <class F>
void record_point(const Estimate& e, F&& f) {
  if (!std::isnan(shown_value(e)) || std::isnan(e.value)) return;
  f("value", e.value);
  f("log_value", e.log_value());
}
// Whether a field is written for `e` (the discretised ones only for a discretised estimate; timings only where the
// record keeps them).
inline bool written(const Estimate& e, FieldRule rule, bool with_timing = true) {
  if (rule == FieldRule::timing) return with_timing;
  return rule != FieldRule::discretised || e.error_kind == ErrorKind::discretised;
}

// ---- rows ---------------------------------------------------------------------------------------------------------

// Where a row's field is written: the keyed record (results.json, the API, CBOR; an estimate there is nested with
// its own fields) and the flat table (results.csv, Python's rows; one cell per field).
enum RowOutput : unsigned { kRecord = 1, kTable = 2 };
struct RowField {
  const char* name;
  unsigned in = kRecord | kTable;
  bool if_set = false;  // written only where set (a number not NaN, a text not empty, an optional with a value):
                        // elsewhere absent from the record (unset when read back) or an empty cell of the table.
                        // The other fields of a record are required when read back.
  bool label = false;   // the quantity's label: written as Row::quantity(), read back into `what` (a row without its
                        // divergence)
};

// The fields of a row (`R` is Row or const Row), in the order of the flat table's columns; the table then has one
// column per parameter (codec.hpp).
template <class R, class F>
void for_each_row_field(R& r, F&& f) {
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  f(RowField{"file"}, r.file);
  f(RowField{"case"}, r.case_name);
  f(RowField{"id"}, r.id);
  f(RowField{"parameters"}, r.params);  // an object of the record; the table's cell is its text
  f(RowField{"divergence", kRecord, true}, r.divergence);
  f(RowField{"quantity", kRecord | kTable, false, true}, r.what);
  f(RowField{"order", kRecord}, r.order);
  f(RowField{"order", kTable, true}, r.order);
  f(RowField{"mu"}, r.mu);
  f(RowField{"nu"}, r.nu);
  f(RowField{"exact", kRecord}, r.exact);
  f(RowField{"exact", kTable}, Derived<double>{shown_value(r.exact)});  // (null where bounded above only)
  f(RowField{"exact_lower", kTable}, r.exact.lower);
  f(RowField{"exact_upper", kTable}, r.exact.upper);
  // The natural log of the exact value: finite where the value underflows to 0 or overflows to inf in the column
  // beside it (e^-800, e^921), so the table never says 0 or inf for a value it knows.
  f(RowField{"exact_log", kTable}, Derived<double>{shown_log_value(r.exact)});
  f(RowField{"exact_bounded_above_only", kTable}, Derived<bool>{bounded_above_only(r.exact)});
  f(RowField{"error_kind", kTable}, Derived<std::string>{error_kind_label(r.exact)});  // "none": not computed
  f(RowField{"method", kTable}, r.exact.method);
  f(RowField{"error_budget", kTable}, Derived<std::string>{budget_text(r.exact.budget)});
  f(RowField{"log_error_budget", kTable}, Derived<std::string>{log_budget_text(r.exact.budget)});
  f(RowField{"cross_check", kRecord, true}, r.cross);
  f(RowField{"cross_check", kTable}, Derived<double>{r.cross ? r.cross->value : none});
  f(RowField{"bound"}, r.bound);
  f(RowField{"bound_lower", kRecord, true}, r.bound_lower);
  f(RowField{"bound_upper", kRecord, true}, r.bound_upper);
  f(RowField{"direction"}, r.direction);  // upper, lower or identity: bound_over_exact read the right way round
  f(RowField{"bound_over_exact"}, Derived<double>{r.ratio()});
  f(RowField{"verdict"}, r.verdict);
  f(RowField{"reason"}, r.reason);
  f(RowField{"note"}, r.note);
  f(RowField{"outside", kRecord, true}, r.outside);
}

// The fields of a row's divergence (`Q` is Quantity or const Quantity).
template <class Q, class F>
void for_each_quantity_field(Q& q, F&& f) {
  f("kind", q.kind);
  f("order", q.parameter);  // alpha or eps
}

// ---- golden rows --------------------------------------------------------------------------------------------------

// A golden row (cases/expected/STEM.json, what --check-golden compares a run with): the row's key, case, ID,
// parameters, exact value and interval, bound and verdict; and the natural logs of the value and its ends where the
// double does not hold the number (0 or subnormal below the double range, inf or the largest double above it), absent
// elsewhere. A value
// of exp(-26784) that moved to exp(-20000) is 0 both times as a double: its log is what is compared.
struct GoldenRow {
  std::string key, case_name, id;
  Params params;
  double value = 0, lower = 0, upper = 0, bound = 0;
  Verdict verdict = Verdict::error;
  std::optional<double> log_value, log_lower, log_upper;
};
// The log of an end where its double has lost the number (and the log is finite), else none.
inline std::optional<double> lost_log(double end, double log_end) {
  // (the largest double too: an end rounded down from beyond the range is it, whatever its log)
  const bool lost = end == 0 || std::fabs(end) >= std::numeric_limits<double>::max() || std::fabs(end) < std::numeric_limits<double>::min();
  if (lost && std::isfinite(log_end)) return log_end;
  return std::nullopt;
}
inline GoldenRow golden_row(const Row& r) {
  const Estimate& e = r.exact;
  return {r.key(),   r.case_name, r.id,    r.params, e.value, e.lower, e.upper, r.bound, r.verdict,
          lost_log(e.value, e.log_value()), lost_log(e.lower, e.log_lower()), lost_log(e.upper, e.log_upper())};
}
// Its fields, f(name, member): the logs written only where set, the others required when read back.
template <class G, class F>
void for_each_golden_field(G& g, F&& f) {
  f("key", g.key);
  f("case", g.case_name);
  f("id", g.id);
  f("parameters", g.params);
  f("value", g.value);
  f("lower", g.lower);
  f("upper", g.upper);
  f("log_value", g.log_value);
  f("log_lower", g.log_lower);
  f("log_upper", g.log_upper);
  f("bound", g.bound);
  f("verdict", g.verdict);
}

// ---- the API's results (verify/api: each built once; the command line prints it, Python receives it) --------------

// A field of a record that holds no value is left out of it (an optional part such as a divergence's error).
inline Tree absent() { return Tree(Tree::value_t::discarded); }
// A record (each of the structs below, its fields listed by fields_of) as one tree object, in the list's order;
// absent fields left out.
template <class S>
Tree record(S& s) {
  Tree j = Tree::object();
  fields_of(s, [&](const char* name, const Tree& value) {
    if (!value.is_discarded()) j[name] = value;
  });
  return j;
}
// Fields that follow an estimate's own in a record: what it is of (a divergence's label, "epsilon(delta)"), the
// delta asked for, the kernel's eps' or alpha, the maximising map, the second route, Theorem 1's bounds there, and
// why it has no value.
struct EstimateExtras {
  Tree quantity = absent(), delta = absent(), eps_prime = absent(), alpha = absent(), map = absent(),
       cross_check = absent(), bounds = absent(), error = absent();
};
template <class F>
void fields_of(EstimateExtras& s, F&& f) {
  f("quantity", s.quantity);
  f("delta", s.delta);
  f("eps_prime", s.eps_prime);
  f("alpha", s.alpha);
  f("map", s.map);
  f("cross_check", s.cross_check);
  f("bounds", s.bounds);
  f("error", s.error);
}
// Divergences between two laws (`privamp divergence --json`, Python's divergence): the laws, the engine, a record per
// quantity.
struct DivergenceRecord {
  Tree p, q, engine, results;
};
template <class F>
void fields_of(DivergenceRecord& s, F&& f) {
  f("p", s.p);
  f("q", s.q);
  f("engine", s.engine);
  f("results", s.results);
}
// eps(delta) at several deltas (`privamp divergence --epsilon --json`).
struct EpsilonRecord {
  Tree epsilon;
};
template <class F>
void fields_of(EpsilonRecord& s, F&& f) {
  f("epsilon", s.epsilon);
}
// A finite kernel (`privamp kernel --json`, Python's kernel): its states and matrix, its coefficients, and with a
// mechanism (dp) Theorem 1's bounds, the exact amplified profile and the worst-case Renyi divergences.
struct KernelRecord {
  Tree states, K, dobrushin, doeblin, ultra_mixing, dobrushin_at, dp = absent(), theorem1 = absent(), profile = absent(),
       renyi = absent();
};
template <class F>
void fields_of(KernelRecord& s, F&& f) {
  f("states", s.states);
  f("K", s.K);
  f("dobrushin", s.dobrushin);
  f("doeblin", s.doeblin);
  f("ultra_mixing", s.ultra_mixing);
  f("dobrushin_at", s.dobrushin_at);
  f("dp", s.dp);
  f("theorem1", s.theorem1);
  f("profile", s.profile);
  f("renyi", s.renyi);
}
// A mixing coefficient with its rounding interval; Doeblin's with its omega, ultra-mixing's with the largest log
// ratio, the (gamma, eps)-Dobrushin coefficient with its eps.
struct CoefficientRecord {
  Tree value, lower, upper, omega = absent(), log_ratio_bound = absent(), eps = absent();
};
template <class F>
void fields_of(CoefficientRecord& s, F&& f) {
  f("value", s.value);
  f("lower", s.lower);
  f("upper", s.upper);
  f("omega", s.omega);
  f("log_ratio_bound", s.log_ratio_bound);
  f("eps", s.eps);
}
// The mechanism a kernel follows, and one of Theorem 1's guarantees for it.
struct MechanismRecord {
  Tree eps, delta;
};
template <class F>
void fields_of(MechanismRecord& s, F&& f) {
  f("eps", s.eps);
  f("delta", s.delta);
}
struct GuaranteeRecord {
  Tree id, statement, eps_prime, delta_prime;
};
template <class F>
void fields_of(GuaranteeRecord& s, F&& f) {
  f("id", s.id);
  f("statement", s.statement);
  f("eps_prime", s.eps_prime);
  f("delta_prime", s.delta_prime);
}
// The law catalogue (`privamp laws`, Python's laws): per law, and per parameter of a law.
struct LawRecord {
  Tree name, summary, example, params;
};
template <class F>
void fields_of(LawRecord& s, F&& f) {
  f("name", s.name);
  f("summary", s.summary);
  f("example", s.example);
  f("params", s.params);
}
struct ParamRecord {
  Tree name, kind, default_value, doc, allowed;
};
template <class F>
void fields_of(ParamRecord& s, F&& f) {
  f("name", s.name);
  f("kind", s.kind);
  f("default", s.default_value);
  f("doc", s.doc);
  f("allowed", s.allowed);  // a number's declared range, or null
}

// ---- figures (privamp figures) -----------------------------------------------------------------------------------

// A drawn point of a figure as its tidy table holds it (NAME_tidy.csv): the series' title, its ID, case and what is
// drawn (exact, bound or bound/exact), x (named "order", or "x_" and the figure's x parameter), the value, its
// interval and the verdict; the table then has one column per parameter.
struct FigurePointLine {
  Cell series, id, case_name, y, x, value, lower, upper, verdict;
};
template <class F>
void for_each_figure_point_field(const FigurePointLine& l, const std::string& x, F&& f) {
  f(std::string("series"), l.series);
  f(std::string("id"), l.id);
  f(std::string("case"), l.case_name);
  f(std::string("y"), l.y);
  f(x == "order" ? x : "x_" + x, l.x);
  f(std::string("value"), l.value);
  f(std::string("lower"), l.lower);
  f(std::string("upper"), l.upper);
  f(std::string("verdict"), l.verdict);
}

// ---- privacy profiles --------------------------------------------------------------------------------------------

// The fields of a point of a privacy profile (Python's ProfilePoint, built as columns): f(name, cell) with cell(i)
// the i-th point's value. `P` is api::PrivacyProfile.
template <class P, class F>
void for_each_profile_field(const P& p, F&& f) {
  f("eps", [&p](std::size_t i) { return p.eps[i]; });
  f("delta", [&p](std::size_t i) { return shown_value(p.delta[i]); });
  f("lower", [&p](std::size_t i) { return p.delta[i].lower; });
  f("upper", [&p](std::size_t i) { return p.delta[i].upper; });
  f("direction", [&p](std::size_t i) { return std::string(p.reversed[i] ? "nu||mu" : "mu||nu"); });
  f("error_kind", [&p](std::size_t i) { return error_kind_label(p.delta[i]); });
  f("log_delta", [&p](std::size_t i) { return shown_log_value(p.delta[i]); });
  f("log_lower", [&p](std::size_t i) { return p.delta[i].log_lower(); });
  f("log_upper", [&p](std::size_t i) { return p.delta[i].log_upper(); });
  f("bounded_above_only", [&p](std::size_t i) { return bounded_above_only(p.delta[i]); });
}

// ---- searches (privamp explore) ------------------------------------------------------------------------------------

// The fields of an explored point (STEM.csv, the points of STEM.json, Python's): f(name, value) with a number or a
// text; `axes()` where the searched axes' columns go. `E` is verify::Evaluation, `index` its place in the search,
// `objective` its value of the goal's objective.
template <class E, class F, class A>
void for_each_point_field(const E& e, std::size_t index, double objective, F&& f, A&& axes) {
  f("index", static_cast<double>(index));
  f("phase", e.start < 0 ? std::string("global") : "local" + std::to_string(e.start + 1));
  axes();
  f("status", to_string(e.status));
  f("verdict", to_string(e.verdict()));
  f("outside", e.outside() ? 1.0 : 0.0);
  // (the exact value as every output shows it: none where only its upper end is known, its log below the double range)
  f("exact", e.has_numbers() ? shown_value(e.row.exact) : e.exact());
  f("exact_log", e.has_numbers() ? shown_log_value(e.row.exact) : e.exact());
  f("exact_bounded_above_only", e.has_numbers() && bounded_above_only(e.row.exact) ? 1.0 : 0.0);
  f("exact_lower", e.exact_lower());
  f("exact_upper", e.exact_upper());
  f("bound", e.bound());
  f("bound_lower", e.bound_lower());
  f("bound_upper", e.bound_upper());
  f("slack", e.slack);
  f("ratio", std::exp(e.slack));  // bound/exact (exact/bound for a lower bound)
  f("objective", objective);
  f("message", e.message());
}

// A bin of a frontier along `x` as its table holds it (STEM_frontier.csv); empty cells where the bin has no best
// point or no degenerate optimum.
struct FrontierLine {
  Cell bin, lower, upper, candidates, best_x, best_ratio, point, exact, exact_lower, exact_upper, bound, verdict,
      degenerate_ratio, degenerate_point, degenerate_condition;
};
template <class F>
void for_each_frontier_field(const FrontierLine& l, const std::string& x, F&& f) {
  f("bin", l.bin);
  f(x + "_lower", l.lower);
  f(x + "_upper", l.upper);
  f("candidates", l.candidates);
  f("best_" + x, l.best_x);
  f("best_ratio", l.best_ratio);
  f("point", l.point);
  f("exact", l.exact);
  f("exact_lower", l.exact_lower);
  f("exact_upper", l.exact_upper);
  f("bound", l.bound);
  f("verdict", l.verdict);
  f("degenerate_ratio", l.degenerate_ratio);
  f("degenerate_point", l.degenerate_point);
  f("degenerate_condition", l.degenerate_condition);
}

// A search as STEM.json holds it and Python's explore returns it (verify/explore/explore_report.hpp says what each
// holds); frontier is null, or the frontier's name, scale and bins.
struct SearchRecord {
  Tree file, case_name, id, goal, direction, budget, seed, ignore_hypotheses, axes, ranges, influence, coverage, where,
      global_points, points, best, best_index, degenerate, degenerate_index, stopped, passed_over, passed_over_reason,
      frontier;
};
template <class F>
void fields_of(SearchRecord& s, F&& f) {
  f("file", s.file);
  f("case", s.case_name);
  f("id", s.id);
  f("goal", s.goal);
  f("direction", s.direction);
  f("budget", s.budget);
  f("seed", s.seed);
  f("ignore_hypotheses", s.ignore_hypotheses);
  f("axes", s.axes);
  f("ranges", s.ranges);
  f("influence", s.influence);
  f("coverage", s.coverage);
  f("where", s.where);
  f("global_points", s.global_points);
  f("points", s.points);
  f("best", s.best);
  f("best_index", s.best_index);
  f("degenerate", s.degenerate);
  f("degenerate_index", s.degenerate_index);
  f("stopped", s.stopped);
  f("passed_over", s.passed_over);
  f("passed_over_reason", s.passed_over_reason);
  f("frontier", s.frontier);
}
struct FrontierRecord {
  Tree name, log, bins;
};
template <class F>
void fields_of(FrontierRecord& s, F&& f) {
  f("name", s.name);
  f("log", s.log);
  f("bins", s.bins);
}
struct BinRecord {
  Tree lower, upper, candidates, refined, not_refined, best_index, best, degenerate_index, degenerate,
      degenerate_condition;
};
template <class F>
void fields_of(BinRecord& s, F&& f) {
  f("lower", s.lower);
  f("upper", s.upper);
  f("candidates", s.candidates);
  f("refined", s.refined);
  f("not_refined", s.not_refined);
  f("best_index", s.best_index);
  f("best", s.best);
  f("degenerate_index", s.degenerate_index);
  f("degenerate", s.degenerate);
  f("degenerate_condition", s.degenerate_condition);
}

}  // namespace privamp::verify
