#include "sim/laws/spec.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp::sim {

namespace {

// (rank, spec) of every registered law; filled during static initialisation, before main.
std::vector<std::pair<int, LawSpec (*)()>>& registry() {
  static std::vector<std::pair<int, LawSpec (*)()>> entries;
  return entries;
}

}  // namespace

LawRegistration::LawRegistration(int rank, LawSpec (*spec)()) { registry().emplace_back(rank, spec); }

const std::vector<LawSpec>& law_catalogue() {
  static const std::vector<LawSpec> catalogue = [] {
    auto entries = registry();
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<LawSpec> out;
    for (const auto& [rank, spec] : entries) out.push_back(spec());
    for (std::size_t i = 1; i < out.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (out[i].name == out[j].name) throw std::logic_error("two laws registered as " + out[i].name);
    return out;
  }();
  return catalogue;
}

void check_propagation_work(const char* law, const char* steps_name, long steps, long cells) {
  const double work = static_cast<double>(steps) * static_cast<double>(cells) * static_cast<double>(cells);
  if (work > DiscretisationLimits::max_propagation_work)
    invalid_input("{}: {} x cells^2 = {} x {}^2 = {:.3g} exceeds the work limit {:.0e} (about 10 s); "
                  "lower {} or cells", law, steps_name, steps, cells, work, DiscretisationLimits::max_propagation_work,
                  steps_name);
}
void check_ties(const LawSpec& spec, const Args& args) {
  for (const Tie& tie : spec.ties) {
    if (!args.has(tie.subject) || !args.has(tie.other)) continue;
    const double x = args.number(tie.subject), y = args.number(tie.other);
    using R = Tie::Relation;
    const bool holds = tie.relation == R::above      ? x > y
                       : tie.relation == R::at_least ? x >= y
                       : tie.relation == R::below    ? x < y
                                                     : x <= y;
    if (holds) continue;
    const char* op = tie.relation == R::above ? ">" : tie.relation == R::at_least ? ">=" : tie.relation == R::below ? "<" : "<=";
    throw_invalid(spec.name, tie.subject, x, fmt::format("{} {} {} = {}", tie.subject, op, tie.other, format_number(y)));
  }
}

std::string to_string(ParamKind kind) {
  switch (kind) {
    case ParamKind::number: return "number";
    case ParamKind::integer: return "integer";
    case ParamKind::numbers: return "list of numbers";
    case ParamKind::matrix: return "matrix [[..], ..]";
    case ParamKind::law: return "law";
    case ParamKind::laws: return "list of laws";
    case ParamKind::word: return "name";
    case ParamKind::formula: return "formula";
  }
  return "?";
}

const Value& Args::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) invalid_input("{}: missing parameter '{}'", law_, name);
  return it->second;
}

double Args::number(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind != Value::Kind::number) invalid_input("{}: parameter '{}' must be a number", law_, name);
  return v.number;
}

long Args::integer(const std::string& name) const {
  const double x = number(name);
  if (x != std::floor(x) || std::fabs(x) > 9e15)
    invalid_input("{}: parameter '{}' = {} must be an integer", law_, name, format_number(x));
  return static_cast<long>(x);
}

std::vector<double> Args::numbers(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind == Value::Kind::number) return {v.number};
  if (v.kind != Value::Kind::list) invalid_input("{}: parameter '{}' must be a list of numbers", law_, name);
  std::vector<double> out;
  for (const Value& e : v.list) {
    if (e.kind != Value::Kind::number)
      invalid_input("{}: parameter '{}' must be a list of numbers", law_, name);
    out.push_back(e.number);
  }
  return out;
}

std::vector<std::vector<double>> Args::matrix(const std::string& name) const {
  const Value& v = get(name);
  auto bad = [&]() { return InvalidArgument(fmt::format("{}: parameter '{}' must be a matrix [[a, b], [c, d]]", law_, name)); };
  if (v.kind != Value::Kind::list || v.list.empty()) throw bad();
  std::vector<std::vector<double>> rows;
  for (const Value& r : v.list) {
    if (r.kind != Value::Kind::list) throw bad();
    std::vector<double> row;
    for (const Value& e : r.list) {
      if (e.kind != Value::Kind::number) throw bad();
      row.push_back(e.number);
    }
    if (!rows.empty() && row.size() != rows.front().size())
      invalid_input("{}: parameter '{}': rows of different lengths", law_, name);
    rows.push_back(std::move(row));
  }
  return rows;
}

LawPtr Args::law(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind != Value::Kind::law) invalid_input("{}: parameter '{}' must be a law", law_, name);
  return v.law;
}

const std::string& Args::word(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind != Value::Kind::word && v.kind != Value::Kind::formula)
    invalid_input("{}: parameter '{}' must be a name", law_, name);
  return v.word;
}

std::shared_ptr<const Formula> Args::formula(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind == Value::Kind::word) return nullptr;
  if (v.kind != Value::Kind::formula) invalid_input("{}: parameter '{}' must be a formula", law_, name);
  return v.formula;
}

int Args::cells(const std::string& name, int lo, int hi, int max_cells, int order, const std::string& what) const {
  const long c = integer(name);
  if (c < lo || c > hi)
    throw_invalid(law_, name, static_cast<double>(c), fmt::format("{} <= {} <= {} (refined up to {} for the error model)",
                                                                  lo, name, hi, max_cells));
  const int factor = context_ ? context_->resolution_factor : 1;
  if (context_) {
    if (!context_->order) {
      context_->order = order;
      context_->cells = static_cast<int>(c);
      context_->what = what;
    }
    context_->order = std::min(*context_->order, order);
    context_->max_factor = std::min<int>(context_->max_factor, max_cells / static_cast<int>(c));
  }
  if (c * factor > max_cells)
    throw_invalid(law_, name, static_cast<double>(c * factor), fmt::format("refined cells <= {}", max_cells));
  return static_cast<int>(c) * factor;
}

std::vector<LawPtr> Args::laws(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind != Value::Kind::list) invalid_input("{}: parameter '{}' must be a list of laws", law_, name);
  std::vector<LawPtr> out;
  for (const Value& e : v.list) {
    if (e.kind != Value::Kind::law) invalid_input("{}: parameter '{}' must be a list of laws", law_, name);
    out.push_back(e.law);
  }
  return out;
}

std::vector<long> Args::dimensions(const std::string& name) const {
  const Value& v = get(name);
  if (v.kind == Value::Kind::law) return {v.dimension};
  std::vector<long> out;
  if (v.kind == Value::Kind::list)
    for (const Value& e : v.list)
      if (e.kind == Value::Kind::law) out.push_back(e.dimension);
  return out;
}

}  // namespace privamp::sim
