#include "verify/bounds/parameters.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"

namespace privamp::verify {

Parameter Parameter::above(double lower) const {
  Parameter p = *this;
  p.min = lower;
  p.min_open = true;
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
  const bool low = std::isfinite(min), high = std::isfinite(max);
  if (low && high) return fmt::format("{} in {}{}, {}]", what, min_open ? "(" : "[", format_number(min), format_number(max));
  if (low) return fmt::format("{} {} {}", what, min_open ? ">" : ">=", format_number(min));
  if (high) return fmt::format("{} <= {}", what, format_number(max));
  return what;
}

Parameter number(std::string name, double min, double max) {
  return {.name = std::move(name), .kind = Parameter::Kind::number, .min = min, .max = max};
}

Parameter positive(std::string name) { return number(std::move(name)).above(0); }

Parameter integer(std::string name, double min, double max) {
  return {.name = std::move(name), .kind = Parameter::Kind::integer, .min = min, .max = max};
}

Parameter word(std::string name, std::vector<std::string> allowed) {
  return {.name = std::move(name), .kind = Parameter::Kind::word, .words = std::move(allowed)};
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
    const bool ok = std::isfinite(v) && (p.min_open ? v > p.min : v >= p.min) && v <= p.max &&
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
