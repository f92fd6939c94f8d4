// The search's vocabulary and space: goals, evaluation statuses, which evaluations are candidates and how they are
// ranked, and the map from the unit cube to a case's parameters (explore.hpp). The search itself is explore.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/explore/explore.hpp"

namespace privamp::verify {

Goal parse_goal(const std::string& s) {
  if (s == "loosest") return Goal::loosest;
  if (s == "tightest") return Goal::tightest;
  if (s == "violation") return Goal::violation;
  invalid_input("goal '{}': allowed loosest, tightest, violation", s);
}

std::string to_string(Goal goal) {
  switch (goal) {
    case Goal::loosest: return "loosest";
    case Goal::tightest: return "tightest";
    case Goal::violation: return "violation";
  }
  return "?";
}

std::string to_string(Evaluation::Status s) {
  switch (s) {
    case Evaluation::Status::ok: return "ok";
    case Evaluation::Status::not_applicable: return "not-applicable";
    case Evaluation::Status::error: return "error";
    case Evaluation::Status::exact_zero: return "exact-zero";
    case Evaluation::Status::exact_underflow: return "exact-underflow";
    case Evaluation::Status::bound_underflow: return "bound-underflow";
    case Evaluation::Status::bound_infinite: return "bound-infinite";
    case Evaluation::Status::exact_bounded_above: return "exact-bounded-above";
  }
  return "?";
}

bool is_candidate(const Evaluation& e, bool ignore_hypotheses, bool degenerate) {
  return e.status == Evaluation::Status::ok && e.in_region && e.degenerate.empty() != degenerate &&
         (!e.outside() || ignore_hypotheses) && !std::isnan(e.slack);
}

double objective(Goal goal, double slack) {
  if (std::isnan(slack)) return std::numeric_limits<double>::quiet_NaN();
  switch (goal) {
    case Goal::loosest: return -slack;
    case Goal::tightest: return std::abs(slack);
    case Goal::violation: return slack;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

SearchSpace::SearchSpace(const Case& c) {
  for (const auto& [name, values] : c.grid) {
    const auto it = std::find_if(c.explore.begin(), c.explore.end(), [&](const ExploreAxis& a) { return a.name == name; });
    if (it != c.explore.end()) {
      axes.push_back(*it);
    } else if (values.size() > 1) {
      ExploreAxis a;
      a.name = name;
      a.kind = ExploreAxis::Kind::choice;
      a.choices = values;
      axes.push_back(std::move(a));
    } else if (const double* d = std::get_if<double>(&values.front())) {
      fixed.numbers[name] = *d;
    } else {
      fixed.words[name] = std::get<std::string>(values.front());
    }
  }
}

bool SearchSpace::continuous(std::size_t axis) const {
  const ExploreAxis& a = axes.at(axis);
  return a.kind == ExploreAxis::Kind::real || (a.kind == ExploreAxis::Kind::integer && a.max - a.min >= 7);
}

bool SearchSpace::distinct(std::span<const double> a, std::span<const double> b, double share) const {
  const Params pa = point(a), pb = point(b);
  for (std::size_t j = 0; j < axes.size(); ++j) {
    const ExploreAxis& x = axes[j];
    if (x.kind == ExploreAxis::Kind::real) {
      if (std::abs(std::clamp(a[j], 0.0, 1.0) - std::clamp(b[j], 0.0, 1.0)) >= share) return true;
    } else if (pa.numbers.count(x.name) ? pa.numbers.at(x.name) != pb.numbers.at(x.name) : pa.words.at(x.name) != pb.words.at(x.name)) {
      return true;
    }
  }
  return false;
}

Params SearchSpace::point(std::span<const double> u) const {
  if (u.size() != axes.size()) invalid_input("SearchSpace::point: wrong dimension");
  Params p = fixed;
  for (std::size_t j = 0; j < axes.size(); ++j) {
    const ExploreAxis& a = axes[j];
    const double t = std::clamp(u[j], 0.0, 1.0);
    if (a.kind == ExploreAxis::Kind::choice) {
      const auto k = std::min(a.choices.size() - 1, static_cast<std::size_t>(t * static_cast<double>(a.choices.size())));
      if (const double* d = std::get_if<double>(&a.choices[k])) p.numbers[a.name] = *d;
      else p.words[a.name] = std::get<std::string>(a.choices[k]);
      continue;
    }
    double v = a.log ? a.min * std::pow(a.max / a.min, t) : a.min + (a.max - a.min) * t;
    if (a.kind == ExploreAxis::Kind::integer) v = std::clamp(std::round(v), a.min, a.max);
    p.numbers[a.name] = std::clamp(v, a.min, a.max);
  }
  return p;
}

}  // namespace privamp::verify
