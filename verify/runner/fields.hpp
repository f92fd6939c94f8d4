// The fields of privamp's results, named in this one file: an estimate's, a row's and a golden row's. Every output
// is generated from these lists (verify/runner/codec.cpp): results.json and the API's JSON, the rows processes
// exchange under MPI (CBOR), results.csv and the rows Python's verify returns (the flat table), the golden files, and
// Python's Estimate and its dicts (python/module.cpp). Adding a field is one line here.
//
// Each list calls f(field, member) in order, where `member` is a reference to the record's member (read back into
// it) or a Derived value (computed from others: written, never read).
#pragma once

#include <limits>
#include <string>

#include "verify/divergence/estimate.hpp"
#include "verify/runner/runner.hpp"

namespace privamp::verify {

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
};
// The fields of an estimate: f(name, member, rule), in this order; `E` is Estimate or const Estimate.
template <class E, class F>
void for_each_field(E& e, F&& f) {
  f("value", e.value, FieldRule::measure);
  f("lower", e.lower, FieldRule::measure);
  f("upper", e.upper, FieldRule::measure);
  f("log_value", e.log_value, FieldRule::measure);
  f("log_lower", e.log_lower, FieldRule::measure);
  f("log_upper", e.log_upper, FieldRule::measure);
  f("error_kind", e.error_kind, FieldRule::required);
  f("level", e.level, FieldRule::required);
  f("method", e.method, FieldRule::required);
  f("work", e.work, FieldRule::count);
  f("seconds", e.seconds, FieldRule::timing);
  f("numerical_error", e.numerical_error, FieldRule::discretised);
  f("discretisation_error", e.discretisation_error, FieldRule::discretised);
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
  f(RowField{"exact", kTable}, r.exact.value);
  f(RowField{"exact_lower", kTable}, r.exact.lower);
  f(RowField{"exact_upper", kTable}, r.exact.upper);
  f(RowField{"error_kind", kTable}, r.exact.error_kind);
  f(RowField{"method", kTable}, r.exact.method);
  f(RowField{"cross_check", kRecord, true}, r.cross);
  f(RowField{"cross_check", kTable}, Derived<double>{r.cross ? r.cross->value : none});
  f(RowField{"bound"}, r.bound);
  f(RowField{"bound_lower", kRecord, true}, r.bound_lower);
  f(RowField{"bound_upper", kRecord, true}, r.bound_upper);
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
// parameters, exact value and interval, bound and verdict.
struct GoldenRow {
  std::string key, case_name, id;
  Params params;
  double value = 0, lower = 0, upper = 0, bound = 0;
  std::string verdict;
};
inline GoldenRow golden_row(const Row& r) {
  return {r.key(), r.case_name, r.id, r.params, r.exact.value, r.exact.lower, r.exact.upper, r.bound, to_string(r.verdict)};
}
// Its fields, f(name, member), every one required when read back.
template <class G, class F>
void for_each_golden_field(G& g, F&& f) {
  f("key", g.key);
  f("case", g.case_name);
  f("id", g.id);
  f("parameters", g.params);
  f("value", g.value);
  f("lower", g.lower);
  f("upper", g.upper);
  f("bound", g.bound);
  f("verdict", g.verdict);
}

}  // namespace privamp::verify
