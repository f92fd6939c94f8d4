// The values of the law language as the evaluator computes them (sim/language/language.cpp): a number with its
// enclosure, a word, a list or a law (its arithmetic is the function table's: sim/formulas/functions.hpp). Internal to sim/laws/.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "sim/formulas/enclosure.hpp"
#include "sim/language/expression.hpp"
#include "sim/laws/law.hpp"

namespace privamp::sim {

struct Val {
  enum class Kind { number, word, list, law };
  Kind kind = Kind::number;
  double v = 0, lo = 0, hi = 0;  // the value and the interval it prints (lo = v = hi unless it carries one)
  Enclosure enclosure;           // a rigorous enclosure of the exact value (formula.hpp: Formula::Leaf)
  std::string word;
  bool unresolved = false;  // a bare name that is no parameter (fine as a word, an error as a number)
  std::vector<Val> list;
  LawPtr law;  // null when only checked
  long dimension = 1;  // a law's (known also when it is only checked)
  static Val point(double x) { return {Kind::number, x, x, x, Enclosure(x), {}, false, {}, nullptr, 1}; }
  bool is_point() const { return lo == v && hi == v; }
  bool finite() const { return std::isfinite(lo) && std::isfinite(hi); }
};

inline Value to_law_value(const Val& v) {
  Value out;
  switch (v.kind) {
    case Val::Kind::number:
      out.kind = Value::Kind::number;
      out.number = v.v;
      break;
    case Val::Kind::word:
      out.kind = Value::Kind::word;
      out.word = v.word;
      break;
    case Val::Kind::list:
      out.kind = Value::Kind::list;
      for (const Val& e : v.list) out.list.push_back(to_law_value(e));
      break;
    case Val::Kind::law:
      out.kind = Value::Kind::law;
      out.law = v.law;
      out.dimension = v.dimension;
      break;
  }
  return out;
}

}  // namespace privamp::sim
