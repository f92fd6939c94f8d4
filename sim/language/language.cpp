#include "sim/language/language.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/cache.hpp"
#include "numerics/errors.hpp"
#include "sim/language/expression.hpp"
#include "sim/language/language_internal.hpp"
#include "sim/language/language_values.hpp"
#include "sim/syntax/node.hpp"
#include "sim/formulas/certify.hpp"
#include "sim/formulas/formula.hpp"
#include "sim/formulas/functions.hpp"

namespace privamp::sim {

namespace {

// The built laws of the latest expressions, by their text with values (laws are immutable once built).
LawPtr cached_law(const std::string& key, const std::function<LawPtr()>& build) {
  static Cache<std::string, LawPtr> cache(16);
  return cache.get_or_build(key, build);
}

}  // namespace

// ------------------------------------------------------------------------------------------------------------------
// Evaluation

// What every part of the evaluation shares: the expression, the point's parameters, the mode, the work done, the
// error at a node; and the values the parts ask of each other (a number, a law, a formula).
class EvaluatorCore {
 public:
  enum class Mode { evaluate, check };

  EvaluatorCore(std::shared_ptr<const Expression> e, Params params, const DivergenceFunction* divergence, Mode mode,
                int resolution_factor)
      : expression_(std::move(e)), params_(std::move(params)), divergence_(divergence), mode_(mode) {
    context_.resolution_factor = resolution_factor;
    context_.validate_only = mode == Mode::check;
  }
  virtual ~EvaluatorCore() = default;

  virtual Val eval(const Node& n) = 0;

  // A value that must be a number.
  Val number(const Node& n) {
    Val v = eval(n);
    as_number(n, v);
    return v;
  }
  void as_number(const Node& n, const Val& v) const {
    if (v.kind == Val::Kind::number) return;
    if (v.unresolved) fail(n, fmt::format("unknown parameter '{}'", v.word));
    fail(n, v.kind == Val::Kind::law ? "a law where a number is expected" : fmt::format("'{}' where a number is expected", v.word));
  }

  // A value that must be a law.
  Val law(const Node& n) {
    if (n.kind == Node::Kind::call && !find_law(n.text)) {
      std::vector<std::string> names;
      for (const LawSpec& l : law_catalogue()) names.push_back(l.name);
      fail(n, fmt::format("unknown law '{}' ({}known: {})", n.text, did_you_mean(n.text, names), fmt::join(names, ", ")));
    }
    const Val v = eval(n);
    if (v.kind != Val::Kind::law) fail(n, "expected a law such as gaussian(0, 1)");
    return v;
  }


 protected:
  [[noreturn]] void fail(const Node& n, const std::string& why) const {
    fail_at(expression_->label_, expression_->text_, n.column, why);
  }

  [[noreturn]] void over_budget(const Node& n, double work) const { fail(n, work_limit_message(work)); }

  // A formula argument in `variables`: a quoted text or a word parameter holding one (e.g. map = "0.9*atan(x)" in
  // [case.grid]), or the expression itself (map = 0.9*atan(x)). Names other than the variables are the point's
  // parameters.
  std::shared_ptr<const Formula> formula(const Node& arg, const std::vector<std::string>& variables) {
    const bool as_text = arg.kind == Node::Kind::text ||
                         (arg.kind == Node::Kind::name && params_.words.count(arg.text) &&
                          std::find(variables.begin(), variables.end(), arg.text) == variables.end());
    if (!as_text) return Formula::compile(arg, variables, params_, expression_->label_, expression_->text_);
    const std::string text = eval(arg).word;
    try {
      return Formula::parse(text, variables, params_, "formula");
    } catch (const InvalidArgument& e) {
      fail(arg, e.what());
    }
  }

  std::shared_ptr<const Expression> expression_;
  Params params_;
  const DivergenceFunction* divergence_;
  Mode mode_;
  BuildContext context_;
  std::uint64_t work_ = 0;  // nodes evaluated, plus kDivergenceWork per divergence call
  long divergence_calls_ = 0;
  double divergence_seconds_ = 0;  // the time spent in divergence calls (their laws' building included)
};

// Laws: a call of the catalogue built from its arguments (checked against the parameters' declarations), and
// the text of a law with its arguments' values.
class LawMaker : public EvaluatorCore {
 public:
  using EvaluatorCore::EvaluatorCore;

  // A formula argument as law_text writes it: a named alternative bare, a formula as a quoted text.
  static std::string quoted(const Value& v) {
    if (v.kind == Value::Kind::word) return v.word;
    return v.word.find('"') == std::string::npos ? "\"" + v.word + "\"" : "'" + v.word + "'";
  }

  // The text of a law (or any value) with its arguments' values.
  // A bare name that is no parameter is rendered as a word only where the law takes one (`words_ok`).
  std::string render(const Node& n, bool words_ok = false) {
    if (n.kind == Node::Kind::call) {
      if (const LawSpec* spec = find_law(n.text)) {
        std::vector<std::string> parts;
        std::vector<bool> given(spec->params.size(), false);
        std::size_t positional = 0;
        for (std::size_t i = 0; i < n.args.size(); ++i) {
          std::size_t k = 0;  // the parameter this argument fills (as make_law assigns them)
          if (n.keys[i].empty()) {
            while (positional < given.size() && given[positional]) ++positional;
            k = positional++;
          } else {
            while (k < given.size() && spec->params[k].name != n.keys[i]) ++k;
          }
          const bool word = k < given.size() && spec->params[k].kind == ParamKind::word;
          const bool formula = k < given.size() && spec->params[k].kind == ParamKind::formula;
          if (k < given.size()) given[k] = true;
          const std::string value = formula ? quoted(formula_value(*n.args[i], spec->params[k])) : render(*n.args[i], word);
          parts.push_back(fmt::format("{}{}{}", n.keys[i], n.keys[i].empty() ? "" : "=", value));
        }
        return fmt::format("{}({})", n.text, fmt::join(parts, ", "));
      }
    }
    if (n.kind == Node::Kind::list) {
      std::vector<std::string> parts;
      for (const auto& e : n.args) parts.push_back(render(*e));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
    const Val v = eval(n);
    if (v.kind == Val::Kind::word) {
      if (v.unresolved && !words_ok) fail(n, fmt::format("unknown parameter '{}'", v.word));
      return v.word;
    }
    if (v.kind != Val::Kind::number) fail(n, "expected a number, a word, a list or a law");
    if (!v.is_point()) fail(n, "a law's parameter cannot carry an interval (a divergence inside a law)");
    check_rounding(n, v);
    return format_number(v.v);
  }


 protected:
  Val make_law(const Node& n, const LawSpec& spec);  // (defined after Evaluator, which it uses for defaults)

  // The dimension of the law a call builds, from its arguments (LawSpec::dimension, or the one its laws share).
  long dimension_of(const Node& n, const LawSpec& spec, const std::map<std::string, Value>& values) const {
    if (spec.dimension) try {
        return spec.dimension(Args(spec.name, values));
      } catch (const InvalidArgument& e) {
        fail(n, e.what());
      }
    std::optional<long> shared;
    for (const ParamSpec& ps : spec.params) {
      if ((ps.kind != ParamKind::law && ps.kind != ParamKind::laws) || !values.count(ps.name)) continue;
      for (long d : Args(spec.name, {{ps.name, values.at(ps.name)}}).dimensions(ps.name)) {
        if (shared && *shared != d)
          fail(n, fmt::format("{}: its laws live in different dimensions (R^{} and R^{})", spec.name, *shared, d));
        shared = d;
      }
    }
    return shared.value_or(1);
  }

  // A formula parameter's value: one of its named alternatives (a word), or the compiled formula with its text.
  Value formula_value(const Node& arg, const ParamSpec& ps) {
    Value out;
    if (arg.kind == Node::Kind::name || arg.kind == Node::Kind::text) {
      const Val v = eval(arg);
      if (v.kind == Val::Kind::word && std::find(ps.words.begin(), ps.words.end(), v.word) != ps.words.end()) {
        out.kind = Value::Kind::word;
        out.word = v.word;
        return out;
      }
    }
    out.kind = Value::Kind::formula;
    out.formula = formula(arg, ps.variables);
    out.word = out.formula->text();
    return out;
  }

  // A law is built at its parameters' doubles: one whose computation rounded beyond 1e-12 of its value (1 + 1e16 − 1e16
  // is 0 in doubles) is refused, since the law built would not be the law written.
  void check_rounding(const Node& n, const Val& v) const {
    if (v.kind != Val::Kind::number || !v.enclosure.valid()) return;
    if (v.enclosure.width() > 1e-12 * std::max(std::fabs(v.v), 1e-300) + 1e-300)
      fail(n, fmt::format("a law's parameter is {} in doubles, but its value as written lies in [{:.17g}, {:.17g}]: write it without "
                          "the cancellation", format_number(v.v), v.enclosure.lo, v.enclosure.hi));
  }

  // Numbers given to laws are points; a bare name that is no parameter is a word only where the law takes one.
  void check_argument(const Node& arg, const Val& v, const LawSpec& spec, const ParamSpec& ps) const {
    if (v.kind == Val::Kind::number && !v.is_point())
      fail(arg, "a law's parameter cannot carry an interval (a divergence inside a law)");
    check_rounding(arg, v);
    // Every law's numbers are finite, also those its other parameters make it ignore (subsample's q for scheme wr).
    if (v.kind == Val::Kind::number && !std::isfinite(v.v))
      fail(arg, fmt::format("parameter '{}' = {}: allowed a finite number", ps.name, v.v));
    // The declared range and integrality, here so that a load-time check (nothing built) sees them at every point.
    const auto check_number = [&](double x) {
      if (ps.kind == ParamKind::integer && (x != std::floor(x) || std::fabs(x) > 9e15))
        fail(arg, fmt::format("{}: parameter '{}' = {} must be an integer", spec.name, ps.name, format_number(x)));
      if (!ps.range.contains(x))
        fail(arg, fmt::format("{}: parameter '{}' = {} is out of range (allowed: {})", spec.name, ps.name,
                              format_number(x), ps.range.text()));
    };
    if (v.kind == Val::Kind::number) check_number(v.v);
    if (v.kind == Val::Kind::list && ps.kind == ParamKind::numbers)
      for (const Val& e : v.list)
        if (e.kind == Val::Kind::number && e.is_point()) check_number(e.v);
    // A word where a number goes (a grid's word in a number's place) is refused here too, at every grid point.
    if ((ps.kind == ParamKind::number || ps.kind == ParamKind::integer) && v.kind == Val::Kind::word && !v.unresolved)
      fail(arg, fmt::format("{}: parameter '{}' must be a number, not the word '{}'", spec.name, ps.name, v.word));
    if (v.kind == Val::Kind::list && ps.kind == ParamKind::numbers)
      for (const Val& e : v.list)
        if (e.kind == Val::Kind::word && !e.unresolved)
          fail(arg, fmt::format("{}: parameter '{}' lists the word '{}' where a number goes", spec.name, ps.name, e.word));
    // A list that sums to 1, or a matrix each of whose rows does (a row-stochastic kernel), each entry in range.
    auto check_sum = [&](const std::vector<Val>& list, const std::string& what) {
      double total = 0;
      for (const Val& e : list)
        if (e.kind == Val::Kind::number) total += e.v;
      const double allowed = 1e-12 * static_cast<double>(list.size());
      if (!list.empty() && std::fabs(total - 1) > allowed)
        fail(arg, fmt::format("{}: parameter '{}' is not normalised: {} sum to {} (allowed within {:.0e} of 1)",
                              spec.name, ps.name, what, format_number(total), allowed));
    };
    if (ps.sums_to_one && v.kind == Val::Kind::list && ps.kind == ParamKind::numbers) check_sum(v.list, "its entries");
    if (ps.kind == ParamKind::matrix && v.kind == Val::Kind::list)
      for (std::size_t r = 0; r < v.list.size(); ++r) {
        const Val& row = v.list[r];
        if (row.kind != Val::Kind::list) continue;
        for (const Val& e : row.list)
          if (e.kind == Val::Kind::number && e.is_point()) check_number(e.v);
        if (ps.sums_to_one) check_sum(row.list, fmt::format("the entries of row {}", r));
      }
    if (v.unresolved && ps.kind != ParamKind::word) fail(arg, fmt::format("unknown parameter '{}'", v.word));
    if (ps.kind == ParamKind::word && !ps.words.empty() &&
        (v.kind != Val::Kind::word || std::find(ps.words.begin(), ps.words.end(), v.word) == ps.words.end()))
      fail(arg, fmt::format("{} = '{}': allowed {}", ps.name, v.kind == Val::Kind::word ? v.word : "a non-word",
                            fmt::join(ps.words, ", ")));
    if (v.kind == Val::Kind::list)
      for (const Val& e : v.list) {
        if (e.unresolved) fail(arg, fmt::format("unknown parameter '{}'", e.word));
        if (e.kind == Val::Kind::number && !e.is_point()) fail(arg, "a law's parameter cannot carry an interval");
      }
  }

};

class Evaluator final : public LawMaker {
 public:
  Evaluator(std::shared_ptr<const Expression> e, Params params, const DivergenceFunction* divergence, Mode mode,
            int resolution_factor = 1)
      : LawMaker(std::move(e), std::move(params), divergence, mode, resolution_factor) {}

  Val eval(const Node& n) override {
    if (++work_ > kMaxFormulaWork) over_budget(n, work_);
    switch (n.kind) {
      case Node::Kind::number: {
        Val v = Val::point(n.number);
        if (n.rounded) v.enclosure = Enclosure::around(n.number);
        return v;
      }
      case Node::Kind::name: {
        if (const auto it = params_.numbers.find(n.text); it != params_.numbers.end()) return Val::point(it->second);
        Val w;
        w.kind = Val::Kind::word;
        if (const auto it = params_.words.find(n.text); it != params_.words.end()) {
          w.word = it->second;
        } else {
          w.word = n.text;
          w.unresolved = true;
        }
        return w;
      }
      case Node::Kind::text: {
        Val w;
        w.kind = Val::Kind::word;
        w.word = n.text;
        return w;
      }
      case Node::Kind::negate:
      case Node::Kind::binary: return arithmetic(n);
      case Node::Kind::compare: return words_compared(n) ? compare_words(n) : arithmetic(n);
      case Node::Kind::list: {
        Val l;
        l.kind = Val::Kind::list;
        for (const auto& e : n.args) l.list.push_back(eval(*e));
        return l;
      }
      case Node::Kind::call: return arithmetic_call(n) ? arithmetic(n) : call(n);
    }
    fail(n, "internal: unknown node");
  }

  // The law at node n, wrapped when it is discretised so that it can be rebuilt at finer resolutions.
  LawPtr built_law(const Node& n) {
    Val v = law(n);
    if (mode_ == Mode::check || !context_.order || context_.resolution_factor != 1) return v.law;
    Discretisation d{context_.cells, *context_.order, context_.max_factor,
                     [e = expression_, node = &n, p = params_](int factor) {
                       Evaluator refined(e, p, nullptr, Mode::evaluate, factor);
                       return refined.law(*node).law;
                     },
                     context_.what};
    return std::make_shared<DiscretisedLaw>(std::move(v.law), std::move(d));
  }


 private:
  // Numbers are computed by the one evaluator of formulas (sim/formulas/formula.hpp): the arithmetic at n (operators,
  // comparisons, the table's functions, if()) is compiled with the point's parameters and folded, its double and,
  // where a leaf carries an interval (a divergence's), its enclosure with the checks of the language. The leaves
  // are what this evaluator computes itself (divergences, sums, certified constants, comparisons of words; a
  // word, a law or a list where a number is expected is its error).
  static bool arithmetic_call(const Node& n) { return find_function(n.text) != nullptr || n.text == "if"; }
  bool leaf(const Node& n) const {
    switch (n.kind) {
      case Node::Kind::number:
      case Node::Kind::negate:
      case Node::Kind::binary: return false;
      case Node::Kind::name: return params_.numbers.count(n.text) == 0;
      case Node::Kind::compare: return words_compared(n);
      case Node::Kind::call: return !arithmetic_call(n) && n.text != "default";
      default: return true;
    }
  }
  Val arithmetic(const Node& n) {
    const Formula::Leaves leaves = [this](const Node& m) -> std::optional<Formula::Leaf> {
      if (!leaf(m)) return std::nullopt;
      const Val v = number(m);
      return Formula::Leaf{v.v, v.enclosure, !v.is_point()};
    };
    const Formula::Number r = Formula::evaluate_number(n, params_, expression_->label_, expression_->text_, leaves);
    work_ += r.nodes - 1;  // (n itself was counted by eval)
    if (work_ > kMaxFormulaWork) over_budget(n, static_cast<double>(work_));
    Val v = Val::point(r.value);
    v.enclosure = r.enclosure;
    if (r.interval) v.lo = r.enclosure.lo, v.hi = r.enclosure.hi;
    return v;
  }

  // A side of a comparison that is a word: a text, a name that is no numeric parameter, default() giving one.
  bool word_valued(const Node& a) const {
    if (a.kind == Node::Kind::text) return true;
    if (a.kind == Node::Kind::name) return params_.numbers.count(a.text) == 0;
    if (a.kind == Node::Kind::call && a.text == "default" && a.args.size() == 2 && a.args[0]->kind == Node::Kind::name)
      return word_valued(params_.has(a.args[0]->text) ? *a.args[0] : *a.args[1]);
    return false;
  }
  bool words_compared(const Node& n) const { return word_valued(*n.args[0]) || word_valued(*n.args[1]); }

  // Words compare by their text, with == and != (noise == laplace); a word against a number is an error.
  Val compare_words(const Node& n) {
    const std::string& o = n.text;
    const Val a = eval(*n.args[0]), b = eval(*n.args[1]);
    if (a.kind == Val::Kind::word && b.kind == Val::Kind::word) {
      if (o != "==" && o != "!=") fail(n, "words compare only with == and !=");
      // Two bare words compare the same way at every point: one of them must be a parameter (a missing
      // parameter, such as randomizer in randomizer == rr, would otherwise make the comparison silently false).
      if (a.unresolved && b.unresolved)
        fail(n, fmt::format("neither '{}' nor '{}' is a parameter of the point (a comparison of two words needs a "
                            "parameter on one side: is one missing from the grid?)", a.word, b.word));
      return Val::point((a.word == b.word) == (o == "==") ? 1 : 0);
    }
    as_number(*n.args[0], a);
    as_number(*n.args[1], b);
    fail(n, "internal: a comparison of numbers taken for one of words");
  }

  Val call(const Node& n) {
    const std::string& f = n.text;
    if (const LawSpec* spec = find_law(f)) return make_law(n, *spec);
    const auto& functions = function_names();
    if (std::find(functions.begin(), functions.end(), f) == functions.end())
      fail(n, fmt::format("unknown function '{}' (functions: {}; laws: see privamp laws)", f, fmt::join(functions, ", ")));
    for (const auto& k : n.keys)
      if (!k.empty()) fail(n, fmt::format("{} takes no named arguments", f));
    const auto& a = n.args;
    auto want = [&](std::size_t count) {
      if (a.size() != count) fail(n, fmt::format("{} takes {} argument{}", f, count, count == 1 ? "" : "s"));
    };
    if (is_divergence(f)) return divergence(n);
    if (f == "sum") return summation(n);
    if (f == "default") {  // default(name, value): the parameter's value where the point has it, else value
      want(2);
      if (a[0]->kind != Node::Kind::name) fail(*a[0], "default(name, value): the first argument is a parameter name");
      if (params_.has(a[0]->text)) return eval(*a[0]);
      return eval(*a[1]);
    }
    if (is_certified_constant(f)) return certified(n);
    fail(n, fmt::format("internal: '{}' reached the language's calls", f));
  }

  // Certified constants of a formula (sim/formulas/certify.hpp), the conservative end of each enclosure:
  //   lipschitz(psi, lo, hi)                     sup |psi'| over [lo, hi] (upper end)
  //   gradient_bound(loss, lo, hi, zlo, zhi)     sup |d loss/dx| over x in [lo, hi], z in [zlo, zhi] (upper end)
  //   smoothness(loss, lo, hi, zlo, zhi)         sup |d^2 loss/dx^2| (upper end)
  //   strong_convexity(loss, lo, hi, zlo, zhi)   inf d^2 loss/dx^2 (lower end)
  Val certified(const Node& n) {
    const std::string& f = n.text;
    work_ += kCertifyWork;
    if (work_ > kMaxFormulaWork) over_budget(n, static_cast<double>(work_));
    const bool map = f == "lipschitz";
    const std::size_t count = map ? 3 : 5;
    if (n.args.size() != count)
      fail(n, map ? "lipschitz(psi, lo, hi): a formula in x and the interval"
                  : fmt::format("{}(loss, lo, hi, zlo, zhi): a formula in x and z, the domain and the data range", f));
    const auto formula_of = this->formula(*n.args[0], map ? std::vector<std::string>{"x"} : std::vector<std::string>{"x", "z"});
    std::vector<Enclosure> box;
    for (std::size_t i = 1; i + 1 < count + 1; i += 2) {
      const Val lo = number(*n.args[i]), hi = number(*n.args[i + 1]);
      if (!lo.is_point() || !hi.is_point() || !(lo.v <= hi.v))
        fail(*n.args[i], fmt::format("{}: the range [{}, {}] must be two numbers with lo <= hi", f, format_number(lo.v), format_number(hi.v)));
      box.emplace_back(lo.v, hi.v);
    }
    try {
      if (map) return Val::point(sup_abs(*formula_of, 0, 1, box).value.hi);
      if (f == "gradient_bound") return Val::point(sup_abs(*formula_of, 0, 1, box).value.hi);
      if (f == "smoothness") return Val::point(sup_abs(*formula_of, 0, 2, box).value.hi);
      return Val::point(extremum(*formula_of, 0, 2, box, false).value.lo);
    } catch (const InvalidArgument& e) {
      fail(n, e.what());
    }
  }

  // sum(k, from, to, expr): expr with the parameter k = from, from + 1, …, to (at most 10^6 terms). The work of
  // the whole sum (the terms times the first term's work) is checked against the budget before it runs.
  Val summation(const Node& n) {
    if (n.args.size() != 4 || n.args[0]->kind != Node::Kind::name)
      fail(n, "sum(k, from, to, expr): an index name, two integer bounds and the summand");
    const std::string& k = n.args[0]->text;
    const Val from = number(*n.args[1]), to = number(*n.args[2]);
    if (!from.is_point() || !to.is_point() || from.v != std::floor(from.v) || to.v != std::floor(to.v))
      fail(n, "sum: the bounds must be integers");
    for (const Val* b : {&from, &to})  // the term count as written, not as the doubles round it
      if (!b->enclosure.is_point())
        fail(n, fmt::format("sum: a bound is {} by its double but its exact value as written lies in [{}, {}] (rounding decides it: "
                            "write the bound without it)", format_number(b->v), format_number(b->enclosure.lo), format_number(b->enclosure.hi)));
    constexpr double kMaxIndex = 9007199254740992.0;  // 2^53: every integer up to it is a double
    if (std::abs(from.v) > kMaxIndex || std::abs(to.v) > kMaxIndex)
      fail(n, fmt::format("sum: bounds {} and {}; allowed: integers of magnitude at most 2^53", format_number(from.v), format_number(to.v)));
    const std::int64_t first = static_cast<std::int64_t>(from.v), last = static_cast<std::int64_t>(to.v);
    if (static_cast<double>(last - first) + 1 > kMaxSumTerms)
      fail(n, fmt::format("sum: {} terms; at most 10^6", static_cast<double>(last - first) + 1));
    const bool had = params_.numbers.count(k) > 0;
    const double saved = had ? params_.numbers[k] : 0.0;  // restored after the sum (no optional: GCC 12 warns falsely)
    // A summand of k and the parameters alone is compiled once, as a formula of k, and run per term: its double and
    // its enclosure, as the general path computes them. A term whose double is not a number goes the general path,
    // which names the function where it arises; so does a summand with leaves (divergences, words, sums).
    std::shared_ptr<const Formula> summand;
    params_.numbers[k] = static_cast<double>(first);  // (so that default(k, ...) sees the index)
    try {
      summand = Formula::compile(*n.args[3], {k}, params_, expression_->label_, expression_->text_);
    } catch (const InvalidArgument&) {
    }
    const auto term = [&](double index) {
      if (summand) {
        const double v = summand->evaluate<double>(std::span<const double>(&index, 1));
        if (!std::isnan(v)) {
          const Enclosure at(index);
          const Enclosure e = summand->evaluate<Enclosure>(std::span<const Enclosure>(&at, 1));
          work_ += summand->operations();
          Val t = Val::point(v);
          t.enclosure = e;
          return t;
        }
      }
      params_.numbers[k] = index;
      return number(*n.args[3]);
    };
    Val total = Val::point(0);
    for (std::int64_t i = first; i <= last; ++i) {
      const std::uint64_t before = work_;
      const Val t = term(static_cast<double>(i));
      if (i == first) {
        const double estimate = static_cast<double>(work_ - before) * static_cast<double>(last - first + 1);
        if (static_cast<double>(before) + estimate > static_cast<double>(kMaxFormulaWork)) over_budget(n, static_cast<double>(before) + estimate);
      }
      // the terms' doubles added, their rigorous enclosures added, and the enclosure printed where a term carries
      // an interval
      const bool points = total.is_point() && t.is_point();
      total.enclosure = total.enclosure + t.enclosure;
      if (!points && total.finite() && t.finite() && !total.enclosure.finite())
        fail(n, "a sum is unbounded over its terms' intervals (a value beyond the double range)");
      total.v += t.v;
      total.lo = points ? total.v : total.enclosure.lo;
      total.hi = points ? total.v : total.enclosure.hi;
    }
    if (had) params_.numbers[k] = saved;
    else params_.numbers.erase(k);
    return total;
  }

  Val divergence(const Node& n) {
    const std::string& f = n.text;
    const bool ordered = has_order(*parse_divergence(f));
    if (ordered && n.args.size() == 2)
      fail(n, fmt::format("{}(mu, nu, {}): expected the order after nu", f, f == "renyi" ? "alpha" : "eps"));
    if (n.args.size() != (ordered ? 3u : 2u))
      fail(n, ordered ? f + "(mu, nu, " + (f == "renyi" ? "alpha" : "eps") + ") takes three arguments" : f + "(mu, nu) takes two arguments");
    double order = 0;
    if (ordered) {
      const Val o = number(*n.args[2]);
      if (!o.is_point()) fail(*n.args[2], "an order cannot carry an interval");
      order = o.v;
    }
    if (mode_ == Mode::check) {
      const Val mu = law(*n.args[0]), nu = law(*n.args[1]);
      if (mu.dimension != nu.dimension)
        fail(n, fmt::format("{}(mu, nu): the laws live in different dimensions: mu in R^{}, nu in R^{}", f, mu.dimension,
                            nu.dimension));
      return Val::point(0);
    }
    if (!divergence_) fail(n, "a divergence is computed only in formulas of case files (privamp verify)");
    auto built = [&](const Node& arg) {
      Evaluator sub(expression_, params_, nullptr, Mode::evaluate);
      const std::string key = sub.render(arg);
      return cached_law(key, [&] { return sub.built_law(arg); });
    };
    work_ += kDivergenceWork;
    if (work_ > kMaxFormulaWork) over_budget(n, static_cast<double>(work_));
    // Divergence calls differ in cost by orders of magnitude (a closed form against a propagated process): their
    // time is bounded too, checked before each call (a call under way finishes within its own limits).
    // (Wall-clock time: on a loaded machine the limit is reached after less work; it is a bound on waiting, far
    // above what the shipped cases' formulas take.)
    if (divergence_seconds_ > kMaxFormulaSeconds)
      fail(n, fmt::format("its divergence calls have run {:.0f} s ({} calls), beyond the {:.0f} s one evaluation of a "
                          "formula may take: use fewer divergence calls (fewer terms in sum()), or laws that cost less",
                          divergence_seconds_, divergence_calls_, kMaxFormulaSeconds));
    const auto started = std::chrono::steady_clock::now();
    const LawPtr mu = built(*n.args[0]), nu = built(*n.args[1]);
    Bracketed r;
    try {
      r = (*divergence_)(*mu, *nu, *parse_divergence(f), order);
    } catch (const InvalidArgument& e) {
      fail(n, e.what());
    }
    ++divergence_calls_;
    divergence_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    Val v = Val::point(r.value);
    v.lo = r.lower;
    v.hi = r.upper;
    v.enclosure = Enclosure(r.lower, r.upper);
    return v;
  }

};

Val LawMaker::make_law(const Node& n, const LawSpec& spec) {
  std::map<std::string, Value> values;
  std::size_t positional = 0;
  const bool gathered = spec.variadic && !n.args.empty() &&
                        !(n.args.size() == 1 && n.args.front()->kind == Node::Kind::list) &&
                        std::all_of(n.keys.begin(), n.keys.end(), [](const std::string& k) { return k.empty(); });
  if (gathered) {  // product(a, b, c): the laws form the first parameter's list
    Value list;
    list.kind = Value::Kind::list;
    for (const auto& arg : n.args) {
      const Val v = eval(*arg);
      if (v.kind != Val::Kind::law) fail(*arg, fmt::format("{}: every argument must be a law", spec.name));
      list.list.push_back(to_law_value(v));
    }
    values[spec.params.front().name] = std::move(list);
  }
  for (std::size_t i = 0; i < n.args.size() && !gathered; ++i) {
    const Node& arg = *n.args[i];
    std::string key = n.keys[i];
    const ParamSpec* ps = nullptr;
    if (key.empty()) {
      // A positional argument fills the first parameter, in the listed order, not given yet.
      while (positional < spec.params.size() && values.count(spec.params[positional].name)) ++positional;
      if (positional >= spec.params.size()) fail(arg, fmt::format("{} takes at most {} arguments", spec.name, spec.params.size()));
      ps = &spec.params[positional++];
      key = ps->name;
    } else {
      const auto p = std::find_if(spec.params.begin(), spec.params.end(), [&](const ParamSpec& s) { return s.name == key; });
      if (p == spec.params.end()) {
        std::vector<std::string> names;
        for (const ParamSpec& s : spec.params) names.push_back(s.name);
        fail(arg, fmt::format("unknown parameter '{}' for {} ({}parameters: {})", key, spec.name, did_you_mean(key, names),
                              fmt::join(names, ", ")));
      }
      ps = &*p;
    }
    if (values.count(key)) fail(arg, fmt::format("parameter '{}' given twice", key));
    if (ps->kind == ParamKind::formula) {
      values[key] = formula_value(arg, *ps);
      continue;
    }
    const Val v = eval(arg);
    if (ps->kind == ParamKind::law && v.kind != Val::Kind::law)
      fail(arg, fmt::format("{}: parameter '{}' must be a law", spec.name, ps->name));
    check_argument(arg, v, spec, *ps);
    values[key] = to_law_value(v);
  }
  // Defaults (written in the catalogue as expressions) for parameters not given.
  for (const ParamSpec& ps : spec.params) {
    if (values.count(ps.name)) continue;
    if (!ps.default_value) fail(n, fmt::format("{}: missing required parameter '{}' ({})", spec.name, ps.name, ps.doc));
    if (ps.default_value->find("...") != std::string::npos) continue;  // computed by the builder
    const auto e = Expression::parse_cached(*ps.default_value, "default of " + spec.name + "." + ps.name);
    Evaluator d(e, Params{}, nullptr, mode_);
    values[ps.name] = to_law_value(d.eval(*e->root_));
  }
  Val v;
  v.kind = Val::Kind::law;
  v.dimension = dimension_of(n, spec, values);
  try {  // conditions between the arguments (orders, work limits): at load too, not when the point is reached
    const Args args(spec.name, values);
    check_ties(spec, args);
    if (spec.check) spec.check(args);
  } catch (const InvalidArgument& e) {
    fail(n, e.what());
  }
  if (mode_ == Mode::check) return v;
  try {
    v.law = spec.build(Args(spec.name, std::move(values), &context_));
  } catch (const InvalidArgument& e) {
    fail(n, e.what());
  }
  v.dimension = v.law->dimension();
  return v;
}


// ------------------------------------------------------------------------------------------------------------------
// Expression

Expression::~Expression() = default;

// The work of evaluating `n` at a point, computed from the tree without evaluating it: one step per node, a
// divergence call kDivergenceWork, if() its costlier branch, sum() its terms times its summand. A sum's bounds are
// evaluated at the point; a bound that depends on an enclosing sum's index is taken at both ends of that index's
// range; a bound that cannot be evaluated counts as the most terms allowed (10^6). Recursion follows the tree,
// whose height is bounded by the parser.
namespace {

// Whether `name` occurs in the tree (a sum's body that never names its index costs the same at every index).
bool mentions(const Node& n, const std::string& name) {
  if (n.kind == Node::Kind::name && n.text == name) return true;
  for (const auto& a : n.args)
    if (mentions(*a, name)) return true;
  return false;
}

// Nodes the estimate of one formula has visited: sums whose bounds name outer indices are estimated at both ends of
// each, 2^depth visits for nested ones, so the estimate itself is bounded; past it the formula counts as over the
// limit (refused, never run).
thread_local long estimate_visits = 0;
constexpr long kMaxEstimateVisits = 100'000;

}  // namespace

double Expression::work(const Node& n, Params& params) const {
  if (++estimate_visits > kMaxEstimateVisits) return std::numeric_limits<double>::infinity();
  const auto children = [&](std::size_t from) {
    double w = 0;
    for (std::size_t i = from; i < n.args.size(); ++i) w += work(*n.args[i], params);
    return w;
  };
  if (n.kind != Node::Kind::call) return 1 + children(0);
  if (n.text == "if" && n.args.size() == 3)
    return 1 + work(*n.args[0], params) + std::max(work(*n.args[1], params), work(*n.args[2], params));
  if (is_divergence(n.text)) return static_cast<double>(kDivergenceWork) + children(0);
  if (is_certified_constant(n.text)) return static_cast<double>(kCertifyWork) + children(0);
  if (n.text != "sum" || n.args.size() != 4 || n.args[0]->kind != Node::Kind::name) return 1 + children(0);
  const auto bound = [&](const Node& b) -> std::optional<double> {
    try {
      Evaluator ev(shared_from_this(), params, nullptr, Evaluator::Mode::evaluate);
      return ev.number(b).v;
    } catch (const InvalidArgument&) {
      return std::nullopt;
    }
  };
  const std::optional<double> from = bound(*n.args[1]), to = bound(*n.args[2]);
  const double terms = from && to ? std::clamp(*to - *from + 1, 0.0, kMaxSumTerms) : kMaxSumTerms;
  if (terms == 0) return 1 + children(1);
  const std::string& k = n.args[0]->text;
  const bool had = params.numbers.count(k) > 0;
  const double saved = had ? params.numbers[k] : 0.0;
  double body = 0;
  const bool depends = mentions(*n.args[3], k);
  for (const std::optional<double>& end : {from, to}) {
    if (end) params.numbers[k] = *end;
    else params.numbers.erase(k);
    body = std::max(body, work(*n.args[3], params));
    // A body that does not name k costs the same at the other end; one over the limit at one end already cannot
    // come back at the other (nested sums would otherwise be estimated at both ends of every level).
    if (!depends || terms * body > static_cast<double>(kMaxFormulaWork)) break;
  }
  if (had) params.numbers[k] = saved;
  else params.numbers.erase(k);
  return 1 + work(*n.args[1], params) + work(*n.args[2], params) + terms * body;
}

double Expression::work(const Params& params) const {
  Params p = params;
  estimate_visits = 0;
  return work(*root_, p);
}


std::shared_ptr<const Expression> Expression::parse_cached(const std::string& text, const std::string& label) {
  // A bound on memory for programs that generate texts: entries and characters.
  static Cache<std::string, std::shared_ptr<const Expression>> cache(4096, 64u << 20);
  const std::string key = label + '\n' + text;
  // (a syntax error throws: nothing is cached)
  return cache.get_or_build(key, [&] { return parse(text, label); }, key.size());
}

Bracketed Expression::number(const Params& params, const DivergenceFunction* divergence, bool allow_infinite) const {
  Evaluator ev(shared_from_this(), params, divergence, Evaluator::Mode::evaluate);
  const Val v = ev.number(*root_);
  // (named by what went wrong: "not finite" said neither whether it overflowed nor whether it is undefined)
  if (std::isnan(v.v) || std::isnan(v.lo) || std::isnan(v.hi))
    invalid_input("{} '{}' is undefined (NaN: e.g. 0/0, inf - inf or a function outside its domain) at {}", label_, text_, params.describe());
  if (!allow_infinite && !std::isfinite(v.v))
    invalid_input("{} '{}' is {}inf at {} (a pole such as log(0) or 1/0, or a value beyond the double range)", label_, text_,
                  v.v < 0 ? "-" : "+", params.describe());
  if (!v.enclosure.valid()) {  // an operation overflowed on the way (its enclosure left a function's domain)
    if (allow_infinite && std::isinf(v.v)) return {v.v, v.v, v.v, false};
    invalid_input("{} '{}' cannot be enclosed at {}: an intermediate value overflows the double range, or its interval leaves a "
                  "function's domain (a negative base to an exponent that is not an exact integer, as (-1)^(1e18 + 1), whose sum "
                  "rounds; sqrt or log of an interval that reaches below 0)", label_, text_, params.describe());
  }
  if (!(v.enclosure.lo <= v.v && v.v <= v.enclosure.hi))  // an evaluator's bug, not an input's
    throw std::logic_error(fmt::format("{} '{}': value {} outside its enclosure [{}, {}]", label_, text_, v.v, v.enclosure.lo, v.enclosure.hi));
  return {v.v, v.enclosure.lo, v.enclosure.hi, !v.is_point()};
}

LawPtr Expression::law(const Params& params) const {
  Evaluator ev(shared_from_this(), params, nullptr, Evaluator::Mode::evaluate);
  return ev.built_law(*root_);
}

LawPtr Expression::law_cached(const Params& params, std::string* text) const {
  std::string key = law_text(params);
  LawPtr law = cached_law(key, [&] { return this->law(params); });
  if (text) *text = std::move(key);
  return law;
}

std::string Expression::law_text(const Params& params) const {
  Evaluator ev(shared_from_this(), params, nullptr, Evaluator::Mode::evaluate);
  return ev.render(*root_);
}

long Expression::check_law(const Params& params) const {
  Evaluator ev(shared_from_this(), params, nullptr, Evaluator::Mode::check);
  return ev.law(*root_).dimension;
}

// The law-expression entry points (see expression.hpp): one language, parsed once per text.

LawPtr parse_law(std::string_view text) { return Expression::parse(text, "law expression")->law({}); }

void check_law_syntax(std::string_view text) { Expression::parse(text, "law expression")->check_law({}); }

}  // namespace privamp::sim
