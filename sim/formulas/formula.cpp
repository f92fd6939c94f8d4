#include "sim/formulas/formula.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "sim/syntax/node.hpp"

namespace privamp::sim {

namespace {

using Code = Formula::Code;
using Op = Formula::Op;

template <class T>
T load_constant(double value, const Enclosure& enclosed) {
  if constexpr (std::is_same_v<T, double>) return value;
  else if constexpr (std::is_same_v<T, Enclosure>) return enclosed;
  else {
    using Inner = decltype(T{}.v);
    return T(load_constant<Inner>(value, enclosed), Inner(0.0));
  }
}

// Net stack effect of an operation.
int effect(Code c) {
  switch (c) {
    case Code::constant:
    case Code::variable: return 1;
    case Code::add: case Code::subtract: case Code::multiply: case Code::divide: case Code::power: case Code::min:
    case Code::max: case Code::less: case Code::less_equal: case Code::equal: case Code::not_equal: case Code::binom:
      return -1;
    case Code::select: return -2;
    default: return 0;
  }
}

// Runs a program on a stack of T (its depth computed when the program was compiled).
template <class T>
T run(std::span<const Op> program, const std::vector<double>& constants, const std::vector<Enclosure>& enclosed,
      std::span<const T> args, int depth, JoinNotes* notes) {
  // Formulas of moderate depth run on a stack in place (no allocation per evaluation: simulators call them in loops).
  constexpr int kInPlace = 32;
  std::array<T, kInPlace> local;  // NOLINT: written before read
  local[0] = T(0.0);              // (an empty program reads it: GCC sees that path)
  std::vector<T> heap(depth > kInPlace ? static_cast<std::size_t>(depth) : 0);
  T* stack = depth > kInPlace ? heap.data() : local.data();
  std::size_t top = 0;  // the number of values on the stack
  auto pop = [&]() -> T& { return stack[--top]; };
  for (const Op& op : program) {
    switch (op.code) {
      case Code::constant:
        stack[top++] = load_constant<T>(constants[static_cast<std::size_t>(op.arg)], enclosed[static_cast<std::size_t>(op.arg)]);
        break;
      case Code::variable: stack[top++] = args[static_cast<std::size_t>(op.arg)]; break;
      case Code::power_int: stack[top - 1] = apply_power_int(stack[top - 1], op.arg); break;
      case Code::select: {
        const T b = pop(), a = pop();
        stack[top - 1] = apply_select(stack[top - 1], a, b, notes);
        break;
      }
      default:  // the functions and operators of the table (functions.hpp)
        if (effect(op.code) == 0) {
          stack[top - 1] = apply(op.code, stack[top - 1], notes);
        } else {
          const T b = pop();
          stack[top - 1] = apply(op.code, stack[top - 1], b, notes);
        }
    }
  }
  return stack[0];
}

}  // namespace

class FormulaCompiler {
 public:
  FormulaCompiler(const std::vector<std::string>& variables, const Params& params, const std::string& label,
                  const std::string& source)
      : variables_(variables), params_(params), label_(label), source_(source) {}

  std::shared_ptr<const Formula> run(const Node& root) {
    std::shared_ptr<Formula> f(new Formula());
    f_ = f.get();
    f->variables_ = variables_;
    emit(root);
    if (f->program_.size() > Formula::kMaxOperations)
      fail(root, fmt::format("a formula of {} has {} operations after folding its constants; the limit is {} (it is "
                             "evaluated at every grid node, simulated step and certification piece)",
                             fmt::join(variables_, ", "), f->program_.size(), Formula::kMaxOperations));
    f->text_ = render(root);
    int depth = 0;
    for (const Op& op : f->program_) {
      depth += effect(op.code);
      f->stack_ = std::max(f->stack_, depth);
    }
    return f;
  }

 private:
  [[noreturn]] void fail(const Node& n, const std::string& why) const { expression_error(label_, source_, n.column, why); }

  void push(Code c, int arg = 0) { f_->program_.push_back({c, arg}); }
  void push_constant(double value, Enclosure enclosed, bool interval = false) {
    f_->constants_.push_back(value);
    f_->enclosed_constants_.push_back(enclosed);
    interval_.push_back(interval);
    push(Code::constant, static_cast<int>(f_->constants_.size() - 1));
  }

  // Emits the program of `n`; returns whether it depends on a variable. A constant subexpression of more than one
  // operation is folded into one constant (its double value, and its enclosure for the rigorous types).
  // A folded constant carries an interval when one of its arguments does (a leaf's), or when it is binom's (whose
  // double rounds the integer).
  bool emit(const Node& n) {
    const std::size_t start = f_->program_.size();
    const bool variable = emit_node(n);
    if (!variable && f_->program_.size() - start > 1) {
      const std::span<const Op> sub(f_->program_.data() + start, f_->program_.size() - start);
      const double value = privamp::sim::run<double>(sub, f_->constants_, f_->enclosed_constants_, {}, static_cast<int>(sub.size()), nullptr);
      Enclosure enclosed = privamp::sim::run<Enclosure>(sub, f_->constants_, f_->enclosed_constants_, {}, static_cast<int>(sub.size()), nullptr);
      bool interval = false, bounded = true, overflowed = false;
      for (const Op& op : sub)
        if (op.code == Code::constant) {
          const auto k = static_cast<std::size_t>(op.arg);
          interval = interval || interval_[k];
          bounded = bounded && f_->enclosed_constants_[k].finite();
          overflowed = overflowed || std::isinf(f_->constants_[k]);
        }
      const Code code = sub.back().code;
      if (checked_) {
        check(n, code, value, enclosed, interval, bounded, overflowed);
        // binom's double rounds a large integer: its enclosure is what it carries
        if (code == Code::binom) interval = true;
        // an interval that has shrunk to its value is a point (R*0 + 5, a binom that is exact)
        if (interval && enclosed.lo == value && enclosed.hi == value) interval = false;
      }
      f_->program_.resize(start);
      push_constant(value, enclosed, interval);
    }
    return variable;
  }

  // The language's rules on a folded value: binom of integers only, and of points; an interval outside the
  // function's domain, or unbounded although the arguments are bounded, is an error naming the function (a bound
  // whose interval is the whole line would only make its rows undecided, silently).
  void check(const Node& n, Code code, double value, const Enclosure& e, bool interval, bool bounded, bool overflowed) const {
    const std::string what = n.kind == Node::Kind::negate    ? "a negation"
                             : n.kind == Node::Kind::compare ? "a comparison"
                             : n.kind == Node::Kind::binary  ? (n.text == "^" ? "a power" : n.text == "/" ? "a quotient" : "an operation")
                                                             : n.text;
    if (code == Code::binom) {
      if (interval) fail(n, "binom of intervals");
      if (std::isnan(value)) fail(n, "binom(n, k) needs integers n and k with 0 <= n <= 2^53");
      interval = true;  // its enclosure is checked as an interval's
    }
    // (an argument that overflowed is named as such: exp(1000)*exp(-1000) is inf·0, not a function outside its domain)
    if (std::isnan(value) && overflowed)
      fail(n, fmt::format("{} is undefined at these values: an argument overflows the double range (as exp(1000) does), "
                          "and inf·0, inf − inf or inf/inf has no value; rewrite it in logs (exp(1000 - 1000))", what));
    if (std::isnan(value)) fail(n, fmt::format("{} is undefined at these values (an argument outside its domain)", what));
    if (!interval) return;
    if (!e.valid()) fail(n, fmt::format("{} of an interval outside its domain", what));
    if (bounded && !e.finite())
      fail(n, fmt::format("{} is unbounded over its argument's interval (a divisor or a negative power's base reaching "
                          "0, or a value beyond the double range)", what));
  }

  // The integer exponent of x^n when n is a constant integer of moderate size (then x^n is defined for x < 0 and
  // its enclosure is exact-where-possible).
  std::optional<int> integer_constant(std::size_t at) const {
    if (f_->program_.size() != at + 1 || f_->program_[at].code != Code::constant) return std::nullopt;
    const double c = f_->constants_[static_cast<std::size_t>(f_->program_[at].arg)];
    if (c == std::floor(c) && std::fabs(c) <= 64) return static_cast<int>(c);
    return std::nullopt;
  }

  bool emit_node(const Node& n) {
    ++nodes_;
    if (leaf_)
      if (const std::optional<Formula::Leaf> l = (*leaf_)(n)) {
        push_constant(l->value, l->enclosure, l->interval);
        return false;
      }
    switch (n.kind) {
      case Node::Kind::number:
        // A number of the language is the formula's value as written: a decimal literal that is no double (0.1) is
        // enclosed by its neighbours. A formula of variables is the function the simulators compute, with the
        // literal's double.
        push_constant(n.number, checked_ && n.rounded ? Enclosure::around(n.number) : Enclosure(n.number));
        return false;
      case Node::Kind::name: {
        const auto v = std::find(variables_.begin(), variables_.end(), n.text);
        if (v != variables_.end()) {
          push(Code::variable, static_cast<int>(v - variables_.begin()));
          return true;
        }
        if (const auto it = params_.numbers.find(n.text); it != params_.numbers.end()) {
          push_constant(it->second, it->second);
          return false;
        }
        if (params_.words.count(n.text)) fail(n, fmt::format("'{}' is a word parameter, not a number", n.text));
        fail(n, fmt::format("unknown name '{}' (the formula's variable{}: {}; other names must be numeric parameters of "
                            "the point)", n.text, variables_.size() == 1 ? "" : "s", fmt::join(variables_, ", ")));
      }
      case Node::Kind::text: fail(n, "a quoted text where a number is expected");
      case Node::Kind::list: fail(n, "a list where a number is expected");
      case Node::Kind::negate: {
        const bool v = emit(*n.args[0]);
        push(Code::negate);
        return v;
      }
      case Node::Kind::binary: {
        const bool a = emit(*n.args[0]);
        const std::size_t exponent_at = f_->program_.size();
        const bool b = emit(*n.args[1]);
        if (n.text == "^") {
          if (const auto k = integer_constant(exponent_at); k && !b) {
            f_->program_.pop_back();
            push(Code::power_int, *k);
          } else {
            push(Code::power);
          }
        } else {
          push(binary_code(n.text));
        }
        return a || b;
      }
      case Node::Kind::compare: {
        const Comparison c = comparison_code(n.text);
        const bool a = emit(*n.args[c.swap ? 1 : 0]);
        const bool b = emit(*n.args[c.swap ? 0 : 1]);
        push(c.code);
        return a || b;
      }
      case Node::Kind::call: return emit_call(n);
    }
    fail(n, "internal: unknown node");
  }

  bool emit_call(const Node& n) {
    const std::string& f = n.text;
    for (const auto& k : n.keys)
      if (!k.empty()) fail(n, fmt::format("{} takes no named arguments in a formula", f));
    const auto want = [&](std::size_t count) {
      if (n.args.size() != count) fail(n, fmt::format("{} takes {} argument{}", f, count, count == 1 ? "" : "s"));
    };
    const Function* fn = find_function(f);
    if (fn && fn->code == Code::power) {  // pow(a, b) is a^b
      want(2);
      Node power{Node::Kind::binary, n.column, 0, "^", n.args, {}};
      return emit_node(power);
    }
    if (fn && fn->arity >= 1) {
      want(static_cast<std::size_t>(fn->arity));
      bool v = false;
      for (const auto& a : n.args) v = emit(*a) || v;
      // floor, ceil, lgamma, binom: of constants only (a jump, or no derivative, in the variables)
      if (v && !fn->refused.empty())
        fail(n, fmt::format("{} {}: not available in a formula of {}", f, fn->refused, fmt::join(variables_, ", ")));
      push(fn->code);
      return v;
    }
    if (fn) {  // min, max: folded pairwise
      if (n.args.size() < 2) fail(n, f + " takes at least two arguments");
      bool v = emit(*n.args[0]);
      for (std::size_t i = 1; i < n.args.size(); ++i) {
        v = emit(*n.args[i]) || v;
        push(fn->code);
      }
      return v;
    }
    if (f == "if") {
      want(3);
      const std::size_t at = f_->program_.size();
      bool v = emit(*n.args[0]);
      if (!v && f_->program_.size() == at + 1 && f_->program_[at].code == Code::constant) {
        // A condition of constants compiles only its branch where it is decided (the other may leave its domain:
        // if(n > 0, log(n), 0)), by its enclosure: a condition that rounding leaves open (0.1 + 0.2 == 0.3 as written
        // is true; its doubles say false) takes the hull of both branches, never the branch its doubles chose.
        const auto k = static_cast<std::size_t>(f_->program_[at].arg);
        const std::optional<bool> d = decided(f_->enclosed_constants_[k]);
        if (d) {
          f_->program_.pop_back();
          return emit(*n.args[*d ? 1 : 2]);
        }
      }
      v = emit(*n.args[1]) || v;
      v = emit(*n.args[2]) || v;
      push(Code::select);
      return v;
    }
    if (f == "default") {
      want(2);
      if (n.args[0]->kind != Node::Kind::name) fail(*n.args[0], "default(name, value): the first argument is a parameter name");
      return emit(params_.has(n.args[0]->text) ? *n.args[0] : *n.args[1]);
    }
    std::vector<std::string> functions;
    for (const Function& g : kFunctions)
      if (g.refused.empty()) functions.emplace_back(g.name);
    functions.emplace_back("if");
    fail(n, fmt::format("'{}' is not available in a formula of {} ({}functions: {})", f, fmt::join(variables_, ", "),
                        did_you_mean(f, functions), fmt::join(functions, ", ")));
  }

  // The text with the parameters' values substituted, bracketed by precedence (comparison < + − < × ÷ < unary − <
  // ^, left-associative except ^), so that it parses back to the same tree.
  static int precedence(const Node& n) {
    if (n.kind == Node::Kind::compare) return 1;
    if (n.kind == Node::Kind::negate) return 4;
    if (n.kind != Node::Kind::binary) return 6;
    return n.text == "+" || n.text == "-" ? 2 : n.text == "^" ? 5 : 3;
  }
  std::string render(const Node& n) const {
    // An operand, bracketed when it binds less tightly than its operator (or equally, on the side that
    // associativity would regroup); a negative parameter value counts as a unary minus.
    const auto operand = [&](const Node& a, int outer, bool right_side, bool right_assoc) {
      const std::string s = render(a);
      int p = precedence(a);
      if (a.kind == Node::Kind::name && s.starts_with("-")) p = 4;
      const bool bracket = p < outer || (p == outer && outer != 6 && right_side != right_assoc) ||
                           (outer == 5 && p == 4);  // (-x)^2 is not -(x^2)
      return bracket ? "(" + s + ")" : s;
    };
    switch (n.kind) {
      case Node::Kind::number: return format_number(n.number);
      case Node::Kind::name: {
        if (std::find(variables_.begin(), variables_.end(), n.text) != variables_.end()) return n.text;
        return format_number(params_.at(n.text));
      }
      case Node::Kind::negate: {  // (not "-" + string: GCC 12 warns falsely of an overlapping copy, bug 105651)
        std::string out = "-";
        return out += operand(*n.args[0], 4, true, true);
      }
      case Node::Kind::binary:
      case Node::Kind::compare: {
        const int p = precedence(n);
        const bool right_assoc = n.text == "^";
        const std::string space = n.text == "^" ? "" : " ";
        return operand(*n.args[0], p, false, right_assoc) + space + n.text + space + operand(*n.args[1], p, true, right_assoc);
      }
      case Node::Kind::call: {
        if (n.text == "default") return render(params_.has(n.args[0]->text) ? *n.args[0] : *n.args[1]);
        std::vector<std::string> parts;
        for (const auto& a : n.args) parts.push_back(render(*a));
        return fmt::format("{}({})", n.text, fmt::join(parts, ", "));
      }
      default: return "?";
    }
  }

  const std::vector<std::string>& variables_;
  const Params& params_;
  const std::string& label_;
  const std::string& source_;
  Formula* f_ = nullptr;
  std::vector<bool> interval_;  // per constant: it carries an interval (a leaf's, or binom's)

 public:
  const Formula::Leaves* leaf_ = nullptr;  // the language's leaves (evaluate_number)
  bool checked_ = false;                   // the language's checks on folded values
  std::uint64_t nodes_ = 0;

  Formula::Number number(const Node& root) {
    Formula f;
    f_ = &f;
    emit(root);
    const auto k = static_cast<std::size_t>(f.program_.at(0).arg);
    return {f.constants_[k], f.enclosed_constants_[k], interval_[k], nodes_};
  }
};

Formula::Number Formula::evaluate_number(const Node& root, const Params& params, const std::string& label,
                                         const std::string& source, const Leaves& leaf) {
  static const std::vector<std::string> kNoVariables;
  FormulaCompiler compiler(kNoVariables, params, label, source);
  compiler.leaf_ = &leaf;
  compiler.checked_ = true;
  return compiler.number(root);
}

std::shared_ptr<const Formula> Formula::compile(const Node& root, const std::vector<std::string>& variables,
                                                const Params& params, const std::string& label, const std::string& source) {
  return FormulaCompiler(variables, params, label, source).run(root);
}

std::shared_ptr<const Formula> Formula::parse(const std::string& text, const std::vector<std::string>& variables,
                                              const Params& params, const std::string& label) {
  return compile(*parse_tree(text, label), variables, params, label, text);
}

template <class T>
T Formula::evaluate(std::span<const T> args, JoinNotes* notes) const {
  if (args.size() != variables_.size())
    invalid_input("formula '{}': {} values for {} variables", text_, args.size(), variables_.size());
  return run<T>(program_, constants_, enclosed_constants_, args, stack_, notes);
}

template double Formula::evaluate<double>(std::span<const double>, JoinNotes*) const;
template Enclosure Formula::evaluate<Enclosure>(std::span<const Enclosure>, JoinNotes*) const;
template Dual<double> Formula::evaluate<Dual<double>>(std::span<const Dual<double>>, JoinNotes*) const;
template Dual<Dual<double>> Formula::evaluate<Dual<Dual<double>>>(std::span<const Dual<Dual<double>>>, JoinNotes*) const;
template Dual<Enclosure> Formula::evaluate<Dual<Enclosure>>(std::span<const Dual<Enclosure>>, JoinNotes*) const;
template Dual<Dual<Enclosure>> Formula::evaluate<Dual<Dual<Enclosure>>>(std::span<const Dual<Dual<Enclosure>>>, JoinNotes*) const;
template Dual<Dual<Dual<Enclosure>>> Formula::evaluate<Dual<Dual<Dual<Enclosure>>>>(std::span<const Dual<Dual<Dual<Enclosure>>>>, JoinNotes*) const;

double derivative(const Formula& f, std::span<const double> at, std::size_t var, int order) {
  constexpr std::size_t kMax = 8;  // variables held in place (simulators call this in their inner loops)
  if (at.size() > kMax) invalid_input("formula '{}': derivatives in at most {} variables", f.text(), kMax);
  if (order == 1) {
    std::array<Dual<double>, kMax> x;
    for (std::size_t i = 0; i < at.size(); ++i) x[i] = Dual<double>(at[i], i == var ? 1.0 : 0.0);
    return f.evaluate<Dual<double>>(std::span<const Dual<double>>(x.data(), at.size())).d;
  }
  std::array<Dual<Dual<double>>, kMax> x;
  for (std::size_t i = 0; i < at.size(); ++i) {
    const double seed = i == var ? 1.0 : 0.0;
    x[i] = Dual<Dual<double>>(Dual<double>(at[i], seed), Dual<double>(seed, 0.0));
  }
  return f.evaluate<Dual<Dual<double>>>(std::span<const Dual<Dual<double>>>(x.data(), at.size())).d.d;
}

}  // namespace privamp::sim
