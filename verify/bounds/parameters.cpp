#include "verify/bounds/parameters.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"

namespace privamp::verify {

Parameter Parameter::above(double lower) const {
  Parameter p = *this;
  p.range.lo = lower;
  p.range.lo_open = true;
  return p;
}

Parameter Parameter::when(std::string word, std::vector<std::string> values) const {
  Parameter p = *this;
  p.when_word = std::move(word);
  p.when_values = std::move(values);
  return p;
}

namespace {
const std::string kAnyValue = "\x01any";  // when_present: a value no word can take
}  // namespace

Parameter Parameter::when_present(std::string word) const { return when(std::move(word), {kAnyValue}); }

Parameter Parameter::if_present() const {
  Parameter p = *this;
  p.optional = true;
  return p;
}

std::string Parameter::describe() const {
  if (kind == Kind::word) return words.empty() ? "a word" : fmt::format("one of {}", fmt::join(words, ", "));
  const std::string what = kind == Kind::integer ? "an integer" : "a finite number";
  const Range& r = range;
  const bool low = std::isfinite(r.lo), high = std::isfinite(r.hi);
  if (low && high)
    return fmt::format("{} in {}{}, {}{}", what, r.lo_open ? "(" : "[", format_number(r.lo), format_number(r.hi), r.hi_open ? ")" : "]");
  if (low) return fmt::format("{} {} {}", what, r.lo_open ? ">" : ">=", format_number(r.lo));
  if (high) return fmt::format("{} {} {}", what, r.hi_open ? "<" : "<=", format_number(r.hi));
  return what;
}

namespace {
Parameter of_kind(std::string name, Parameter::Kind kind) {
  Parameter p;
  p.name = std::move(name);
  p.kind = kind;
  return p;
}
}  // namespace

Parameter number(std::string name, double min, double max) {
  Parameter p = of_kind(std::move(name), Parameter::Kind::number);
  p.range = Range::between(min, max);
  return p;
}

Parameter positive(std::string name) { return number(std::move(name)).above(0); }

Parameter integer(std::string name, double min, double max) {
  Parameter p = of_kind(std::move(name), Parameter::Kind::integer);
  p.range = Range::between(min, max);
  return p;
}

Parameter word(std::string name, std::vector<std::string> allowed) {
  Parameter p = of_kind(std::move(name), Parameter::Kind::word);
  p.words = std::move(allowed);
  return p;
}

namespace {

bool applies(const Parameter& p, const Params& point) {
  if (p.when_word.empty()) return true;
  const auto it = point.words.find(p.when_word);
  const std::string value = it == point.words.end() ? "" : it->second;
  if (p.when_values == std::vector<std::string>{kAnyValue}) return it != point.words.end();
  return std::find(p.when_values.begin(), p.when_values.end(), value) != p.when_values.end();
}

}  // namespace

std::optional<ParameterProblem> check_parameters(const std::vector<Parameter>& spec, const Params& point) {
  for (const Parameter& p : spec) {
    if (!applies(p, point)) continue;
    const std::string condition =
        p.when_word.empty() ? ""
        : p.when_values == std::vector<std::string>{kAnyValue} ? fmt::format(" where {} is given", p.when_word)
                                                               : fmt::format(" where {} is {}", p.when_word, fmt::join(p.when_values, " or "));
    const bool is_number = point.numbers.count(p.name) > 0, is_word = point.words.count(p.name) > 0;
    if (!is_number && !is_word) {
      if (p.optional) continue;
      return ParameterProblem{p.name, fmt::format("reads parameter '{}' ({}){}: missing", p.name, p.describe(), condition)};
    }
    if (p.kind == Parameter::Kind::word) {
      if (!is_word)
        return ParameterProblem{p.name, fmt::format("parameter '{}' = {}: must be {}", p.name, format_number(point.numbers.at(p.name)), p.describe())};
      const std::string& w = point.words.at(p.name);
      if (!p.words.empty() && std::find(p.words.begin(), p.words.end(), w) == p.words.end())
        return ParameterProblem{p.name, fmt::format("parameter '{}' = '{}': must be {}", p.name, w, p.describe())};
      continue;
    }
    if (!is_number) return ParameterProblem{p.name, fmt::format("parameter '{}' = '{}': must be {}", p.name, point.words.at(p.name), p.describe())};
    const double v = point.numbers.at(p.name);
    const bool ok = std::isfinite(v) && p.range.contains(v) &&
                    (p.kind != Parameter::Kind::integer || v == std::floor(v));
    if (!ok) return ParameterProblem{p.name, fmt::format("parameter '{}' = {}: must be {}", p.name, format_number(v), p.describe())};
  }
  return std::nullopt;
}

void add_parameters(std::vector<Parameter>& spec, const std::vector<Parameter>& more) {
  for (const Parameter& p : more)
    if (std::none_of(spec.begin(), spec.end(), [&](const Parameter& q) { return q.name == p.name && q.when_word == p.when_word; }))
      spec.push_back(p);
}

}  // namespace privamp::verify
