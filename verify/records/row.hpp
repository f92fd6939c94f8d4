// A verified row: one bound ID of one case at one grid point, its exact value, bound and verdict (verify/runner
// computes rows; verify/records/fields.hpp names their fields and codec.hpp writes and reads them).
#pragma once

#include <limits>
#include <optional>
#include <string>

#include "verify/cases/case.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

enum class Verdict { tight, holds, inconclusive, violated, not_applicable, error };
std::string to_string(Verdict v);
Verdict parse_verdict(const std::string& s);

struct Row {
  std::string file, case_name, id;
  Params params;
  std::optional<Quantity> divergence;  // laws and kernel rows: the divergence computed, with its order
  std::string what;               // otherwise what is bounded: a value entry's quantity ("E_OU/E_GM"), "property"
  double order = std::numeric_limits<double>::quiet_NaN();  // its alpha or eps (NaN: the quantity has none)
  std::string mu, nu;             // the law expressions (laws cases)
  Estimate exact;                 // property rows: value = max lhs/rhs, interval = [value, value]
  std::optional<Estimate> cross;  // the cross-check engine's value
  double bound = 0;
  double bound_lower = std::numeric_limits<double>::quiet_NaN();  // the bound's enclosure, where it has one
  double bound_upper = std::numeric_limits<double>::quiet_NaN();  // (declared bounds); NaN: a C++ bound's double
  std::string note;               // the bound's choice (optimal w …), or the worst property instance
  Direction direction = Direction::upper;  // the bound's: which side of the exact value it claims
  Verdict verdict = Verdict::error;
  std::string reason;             // not-applicable reason, error message, or violation detail
  std::string outside;            // evaluated with ignore_hypotheses where this hypothesis fails
  double ratio() const;           // bound / exact (NaN where undefined, and on not-applicable and error rows)
  // How loose the bound is, the ratio the summaries rank: bound/exact for an upper bound (and an identity),
  // exact/bound for a lower one — at least 1 where the bound holds, larger the looser (NaN as ratio()).
  double looseness() const;
  std::string quantity() const { return divergence ? divergence->label() : what; }  // its label, as reports write it
  bool is_property() const { return !divergence && what == kPropertyLabel; }
  static constexpr const char* kPropertyLabel = "property";
  std::string key() const;        // case name + ID + parameters: identifies the row across runs
};

// A row's key: case name + ID + parameters (Row::key, and a golden row's check of its own key).
std::string row_key(const std::string& case_name, const std::string& id, const Params& params);

}  // namespace privamp::verify
