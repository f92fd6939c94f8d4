#include "verify/cases/formula.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <deque>
#include <limits>
#include <mutex>
#include <numbers>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/special.hpp"
#include "sim/laws/expression.hpp"
#include "verify/divergence/engines.hpp"

namespace privamp::verify {

double Params::at(const std::string& name) const {
  const auto it = numbers.find(name);
  if (it == numbers.end()) throw InvalidArgument(fmt::format("missing numeric parameter '{}'", name));
  return it->second;
}

const std::string& Params::word(const std::string& name) const {
  const auto it = words.find(name);
  if (it == words.end()) throw InvalidArgument(fmt::format("missing word parameter '{}'", name));
  return it->second;
}

std::string Params::describe() const {
  std::string out;
  for (const auto& [k, v] : numbers) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, format_number(v));
  for (const auto& [k, v] : words) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, v);
  return out;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A value with an interval that contains the exact one: numbers and parameters are points; divergence calls bring
// the engines' intervals, which arithmetic and the monotone functions carry through (corners of the box).
struct Val {
  double v, lo, hi;
  static Val point(double x) { return {x, x, x}; }
  bool is_point() const { return lo == v && hi == v; }
};

// An interval result widened outwards by two ulps at each end, so that the rounding of the operation is inside.
Val outward(Val r) {
  if (r.is_point()) return r;
  for (int i = 0; i < 2; ++i) {
    r.lo = std::nextafter(r.lo, -kInf);
    r.hi = std::nextafter(r.hi, kInf);
  }
  return r;
}

// f monotone in each argument over the box (callers ensure it): the extremes are at the corners. A NaN corner
// means the box leaves f's domain.
template <class F>
std::optional<Val> corners(const Val& a, const Val& b, F f) {
  const double c[4] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
  Val r{f(a.v, b.v), c[0], c[0]};
  for (double x : c) {
    if (std::isnan(x)) return std::nullopt;
    r.lo = std::min(r.lo, x);
    r.hi = std::max(r.hi, x);
  }
  return outward(r);
}

template <class F>
Val monotone(const Val& a, F f) {  // increasing or decreasing: the ends map to the ends
  const double x = f(a.lo), y = f(a.hi);
  return outward({f(a.v), std::min(x, y), std::max(x, y)});
}

bool is_law_name(const std::string& name) {
  for (const auto& spec : sim::law_catalogue())
    if (spec.name == name) return true;
  return false;
}

class FormulaParser {
 public:
  FormulaParser(const std::string& s, const Params& p) : s_(s), p_(p) {}

  Val parse() {
    const Val v = comparison();
    skip();
    if (pos_ != s_.size()) fail("unexpected text");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw InvalidArgument(fmt::format("formula '{}', at {}: {}", s_, pos_ + 1, why));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool eat(std::string_view op) {
    skip();
    if (s_.compare(pos_, op.size(), op) == 0) {
      pos_ += op.size();
      return true;
    }
    return false;
  }
  void enter() {
    if (++depth_ > sim::kMaxExpressionDepth) fail(fmt::format("nesting deeper than {}", sim::kMaxExpressionDepth));
  }
  // Comparisons give 1 or 0 (of the values; for `requires` and if()).
  Val comparison() {
    const Val a = sum();
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"}) {
      if (eat(std::string_view(op))) {
        const Val b = sum();
        const std::string o = op;
        auto holds = [&](double x, double y) {
          return o == "<=" ? x <= y : o == ">=" ? x >= y : o == "==" ? x == y : o == "!=" ? x != y : o == "<" ? x < y : x > y;
        };
        const bool r = holds(a.v, b.v);
        // With intervals, the comparison is decided only if it holds (or fails) for every pair of points in them.
        if (!a.is_point() || !b.is_point()) {
          bool all = true, none = true;
          if (o == "==" || o == "!=") {  // equal somewhere unless the intervals are disjoint
            const bool disjoint = a.hi < b.lo || b.hi < a.lo;
            all = o == "!=" && disjoint;
            none = o == "==" && disjoint;
          } else {  // orderings: the extreme pairs decide
            for (double x : {a.lo, a.hi})
              for (double y : {b.lo, b.hi}) (holds(x, y) ? none : all) = false;
          }
          if (!all && !none) return {r ? 1.0 : 0.0, 0, 1};
        }
        return Val::point(r ? 1 : 0);
      }
    }
    return a;
  }
  Val sum() {
    Val v = product();
    for (;;) {
      if (eat('+')) {
        const Val b = product();
        v = outward({v.v + b.v, v.lo + b.lo, v.hi + b.hi});
      } else if (eat('-')) {
        const Val b = product();
        v = outward({v.v - b.v, v.lo - b.hi, v.hi - b.lo});
      } else {
        return v;
      }
    }
  }
  Val product() {
    Val v = unary();
    for (;;) {
      if (eat('*')) {
        const auto r = corners(v, unary(), [](double x, double y) { return x * y; });
        if (!r) fail("a product of an infinite and a zero end");
        v = *r;
      } else if (eat('/')) {
        const Val d = unary();
        if (d.lo <= 0 && d.hi >= 0 && !d.is_point()) fail("a divisor's interval contains 0");
        const auto r = corners(v, d, [](double x, double y) { return x / y; });
        if (!r) fail("a quotient outside its domain");
        v = *r;
      } else return v;
    }
  }
  Val unary() {
    if (eat('-')) {
      const Val a = unary();
      return {-a.v, -a.hi, -a.lo};
    }
    if (eat('+')) return unary();
    return power();
  }
  Val power() {
    const Val base = atom();
    if (eat('^')) return power_of(base, unary());  // right-associative
    return base;
  }
  // x^y is monotone in each argument only for x > 0: intervals need a positive base.
  Val power_of(const Val& x, const Val& y) {
    if (x.is_point() && y.is_point()) return Val::point(std::pow(x.v, y.v));
    if (!(x.lo > 0)) fail("a power of an interval that reaches 0 or below");
    const auto r = corners(x, y, [](double a, double b) { return std::pow(a, b); });
    if (!r) fail("a power outside its domain");
    return *r;
  }
  std::string identifier() {
    skip();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  bool at_identifier() {
    skip();
    return pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_');
  }
  Val atom() {
    skip();
    enter();
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    if (eat('(')) {
      const Val v = comparison();
      if (!eat(')')) fail("expected ')'");
      return v;
    }
    if (at_identifier()) {
      const std::string name = identifier();
      if (eat('(')) return call(name);
      const auto it = p_.numbers.find(name);
      if (it == p_.numbers.end()) fail("unknown parameter '" + name + "'");
      return Val::point(it->second);
    }
    double x = 0;
    const auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), x);
    if (ec == std::errc::result_out_of_range) fail("a number out of the range of doubles");
    if (ec != std::errc() || ptr == s_.data() + pos_) fail("expected a number, a parameter or '('");
    pos_ = static_cast<std::size_t>(ptr - s_.data());
    return Val::point(x);
  }
  std::vector<Val> arguments(const std::string& f) {
    std::vector<Val> args{comparison()};
    while (eat(',')) args.push_back(comparison());
    if (!eat(')')) fail("expected ')' after the arguments of " + f);
    return args;
  }

  // A law expression inside a formula, e.g. laplace(Delta/n, b): its numeric arguments are formulas, evaluated
  // here; nested laws and lists are rewritten the same way; a bare name that is not a parameter stays a word
  // (loss=logistic). Returns the law expression with numbers in round-trip form.
  std::string law_text() {
    const std::string name = identifier();
    if (!is_law_name(name)) fail(fmt::format("'{}' is not a law (see privamp laws)", name));
    if (!eat('(')) fail("expected '(' after the law " + name);
    enter();
    std::string out = name + "(";
    bool first = true;
    skip();
    if (!eat(')')) {
      do {
        if (!first) out += ", ";
        first = false;
        skip();
        const std::size_t mark = pos_;
        if (at_identifier()) {  // name = value?
          const std::string key = identifier();
          skip();
          if (pos_ < s_.size() && s_[pos_] == '=' && (pos_ + 1 >= s_.size() || s_[pos_ + 1] != '=')) {
            ++pos_;
            out += key + "=";
          } else {
            pos_ = mark;
          }
        }
        out += law_value();
      } while (eat(','));
      if (!eat(')')) fail("expected ')' after the arguments of the law " + name);
    }
    --depth_;
    return out + ")";
  }
  std::string law_value() {
    skip();
    if (eat('[')) {
      enter();
      std::string out = "[";
      if (!eat(']')) {
        bool first = true;
        do {
          if (!first) out += ", ";
          first = false;
          out += law_value();
        } while (eat(','));
        if (!eat(']')) fail("expected ']'");
      }
      --depth_;
      return out + "]";
    }
    if (at_identifier()) {
      const std::size_t mark = pos_;
      const std::string word = identifier();
      skip();
      const bool call_follows = pos_ < s_.size() && s_[pos_] == '(';
      if (call_follows && is_law_name(word)) {
        pos_ = mark;
        return law_text();
      }
      if (!call_follows && !p_.numbers.count(word)) return p_.words.count(word) ? p_.words.at(word) : word;
      pos_ = mark;
    }
    const Val v = sum();
    if (!v.is_point()) fail("a law's parameter cannot carry an interval (a divergence inside a law)");
    return format_number(v.v);
  }

  Val divergence(const std::string& f) {
    const std::string mu = law_text();
    if (!eat(',')) fail(f + "(mu, nu, ...): expected ',' after mu");
    const std::string nu = law_text();
    std::optional<double> order;
    if (f == "renyi" || f == "hockey_stick") {
      if (!eat(',')) fail(fmt::format("{}(mu, nu, {}): expected the order", f, f == "renyi" ? "alpha" : "eps"));
      const Val o = comparison();
      if (!o.is_point()) fail("an order cannot carry an interval");
      order = o.v;
    }
    if (!eat(')')) fail("expected ')' after the arguments of " + f);
    const Quantity q = f == "renyi" ? Quantity::renyi(*order)
                     : f == "hockey_stick" ? Quantity::hockey_stick(*order)
                     : f == "kl" ? Quantity::kl() : f == "tv" ? Quantity::tv() : Quantity::renyi_inf();
    if (dry_) {
      sim::check_law_syntax(mu);
      sim::check_law_syntax(nu);
      return Val::point(0);
    }
    const Estimate e = compute_divergence(*sim::parse_law_cached(mu), *sim::parse_law_cached(nu), q);
    if (e.error_kind == ErrorKind::statistical)
      fail(f + ": a bound cannot rest on a Monte Carlo value");
    return {e.value, e.lower, e.upper};
  }

  // sum(k, from, to, expr): expr with the parameter k = from, from + 1, …, to (at most 10^6 terms).
  Val summation() {
    const std::string k = identifier();
    if (k.empty()) fail("sum(k, from, to, expr): expected the index name");
    if (!eat(',')) fail("sum(k, from, to, expr): expected ','");
    const Val from = comparison();
    if (!eat(',')) fail("sum(k, from, to, expr): expected ','");
    const Val to = comparison();
    if (!eat(',')) fail("sum(k, from, to, expr): expected ','");
    if (!from.is_point() || !to.is_point() || from.v != std::floor(from.v) || to.v != std::floor(to.v))
      fail("sum: the bounds must be integers");
    if (to.v - from.v > 1e6) fail("sum: at most 10^6 terms");
    const std::size_t body = pos_;
    Params inner = p_;
    Val total = Val::point(0);
    std::size_t end = body;
    if (to.v < from.v) {  // empty: the body is parsed (its syntax checked) but not evaluated
      inner.numbers[k] = from.v;
      FormulaParser skipper(s_, inner);
      skipper.pos_ = body;
      skipper.dry_ = true;
      skipper.comparison();
      end = skipper.pos_;
    }
    for (double i = from.v; i <= to.v; ++i) {
      inner.numbers[k] = i;
      FormulaParser term(s_, inner);
      term.pos_ = body;
      term.depth_ = depth_;
      term.dry_ = dry_;
      const Val t = term.comparison();
      total = outward({total.v + t.v, total.lo + t.lo, total.hi + t.hi});
      end = term.pos_;
    }
    pos_ = end;
    if (!eat(')')) fail("expected ')' after sum(...)");
    return total;
  }

  Val call(const std::string& f) {
    if (f == "renyi" || f == "hockey_stick" || f == "kl" || f == "tv" || f == "renyi_inf") return divergence(f);
    if (f == "sum") return summation();
    if (f == "if") {
      const Val c = comparison();
      if (!eat(',')) fail("if(c, a, b): expected ','");
      // Both branches are parsed (their syntax is checked); a decided condition evaluates only its branch, so
      // the other may leave its domain (if(n > 0, log(n), 0)).
      const bool was_dry = dry_;
      dry_ = was_dry || (c.is_point() && c.v == 0);
      const Val a = comparison();
      if (!eat(',')) fail("if(c, a, b): expected ','");
      dry_ = was_dry || (c.is_point() && c.v != 0);
      const Val b = comparison();
      dry_ = was_dry;
      if (!eat(')')) fail("expected ')' after if(...)");
      if (c.is_point()) return c.v != 0 ? a : b;
      // An undecided condition (a comparison of intervals that overlap): the hull of both branches.
      const Val& pick = c.v != 0 ? a : b;
      return {pick.v, std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
    }
    const std::vector<Val> a = arguments(f);
    if (dry_) return Val::point(0);  // parsed, not evaluated (an untaken branch, an empty sum)
    auto want = [&](std::size_t n) {
      if (a.size() != n) fail(fmt::format("{} takes {} argument{}", f, n, n == 1 ? "" : "s"));
    };
    if (f == "sqrt") return want(1), monotone(a[0], [](double x) { return std::sqrt(x); });
    if (f == "exp") return want(1), monotone(a[0], [](double x) { return std::exp(x); });
    if (f == "log") return want(1), monotone(a[0], [](double x) { return std::log(x); });
    if (f == "log1p") return want(1), monotone(a[0], [](double x) { return std::log1p(x); });
    if (f == "expm1") return want(1), monotone(a[0], [](double x) { return std::expm1(x); });
    if (f == "erf") return want(1), monotone(a[0], [](double x) { return std::erf(x); });
    if (f == "erfc") return want(1), monotone(a[0], [](double x) { return std::erfc(x); });
    if (f == "Phi") return want(1), monotone(a[0], [](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); });
    if (f == "logPhi") return want(1), monotone(a[0], [](double x) { return log_normal_cdf(x); });
    if (f == "floor") return want(1), monotone(a[0], [](double x) { return std::floor(x); });
    if (f == "ceil") return want(1), monotone(a[0], [](double x) { return std::ceil(x); });
    if (f == "lgamma") {
      want(1);
      if (!a[0].is_point() && a[0].lo < 2) fail("lgamma of an interval reaching below 2 (not monotone there)");
      return monotone(a[0], [](double x) { return std::lgamma(x); });
    }
    if (f == "abs") {
      want(1);
      const Val& x = a[0];
      if (x.lo >= 0) return x;
      if (x.hi <= 0) return {-x.v, -x.hi, -x.lo};
      return {std::fabs(x.v), 0, std::max(-x.lo, x.hi)};
    }
    if (f == "pow") return want(2), power_of(a[0], a[1]);
    if (f == "binom") {  // binomial coefficient C(n, k) of integers
      want(2);
      if (!a[0].is_point() || !a[1].is_point()) fail("binom of intervals");
      const double n = a[0].v, k = a[1].v;
      if (n != std::floor(n) || k != std::floor(k) || n < 0) fail("binom(n, k) needs integers n >= 0");
      if (k < 0 || k > n) return Val::point(0);
      if (n <= 66) {  // exactly in 64 bits: C(n, i) = C(n, i−1)·(n − i + 1)/i, divided by gcd first
        std::uint64_t c = 1;
        for (std::uint64_t i = 1; i <= static_cast<std::uint64_t>(std::min(k, n - k)); ++i) {
          const std::uint64_t g = std::gcd(c, i);
          c = c / g * ((static_cast<std::uint64_t>(n) - i + 1) / (i / g));
        }
        const double d = static_cast<double>(c);
        if (d <= 9007199254740992.0) return Val::point(d);  // exactly representable
        return {d, std::nextafter(d, 0.0), std::nextafter(d, kInf)};
      }
      const double d = std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1));
      const double rel = 16 * std::numeric_limits<double>::epsilon() * (std::lgamma(n + 1) + 1);  // lgamma's rounding
      return {d, d * (1 - rel), d * (1 + rel)};
    }
    if (f == "min" || f == "max") {
      if (a.size() < 2) fail(f + " takes at least two arguments");
      Val v = a[0];
      for (const Val& x : a) {
        if (f == "min") v = {std::min(v.v, x.v), std::min(v.lo, x.lo), std::min(v.hi, x.hi)};
        else v = {std::max(v.v, x.v), std::max(v.lo, x.lo), std::max(v.hi, x.hi)};
      }
      return v;
    }
    fail("unknown function '" + f + "'");
  }

  const std::string& s_;
  const Params& p_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool dry_ = false;  // parse only: no divergences computed, functions give 0
};

}  // namespace

FormulaValue evaluate_formula_interval(const std::string& formula, const Params& params) {
  const Val v = FormulaParser(formula, params).parse();
  if (!std::isfinite(v.v) || std::isnan(v.lo) || std::isnan(v.hi))
    throw InvalidArgument(fmt::format("formula '{}' is not finite ({})", formula, params.describe()));
  return {v.v, v.lo, v.hi};
}

double evaluate_formula(const std::string& formula, const Params& params) {
  return evaluate_formula_interval(formula, params).value;
}

std::string substitute(const std::string& text, const Params& params) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    if (open == std::string::npos) {
      out += text.substr(i);
      break;
    }
    const std::size_t close = text.find('}', open);
    if (close == std::string::npos) throw InvalidArgument(fmt::format("template '{}': unclosed '{{'", text));
    out += text.substr(i, open - i);
    const std::string inner = text.substr(open + 1, close - open - 1);
    const auto word = params.words.find(inner);
    out += word != params.words.end() ? word->second : format_number(evaluate_formula(inner, params));
    i = close + 1;
  }
  return out;
}

}  // namespace privamp::verify
