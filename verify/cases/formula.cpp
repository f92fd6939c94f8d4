#include "verify/cases/formula.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "numerics/errors.hpp"

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

class FormulaParser {
 public:
  FormulaParser(const std::string& s, const Params& p) : s_(s), p_(p) {}

  double parse() {
    const double v = sum();
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
  double sum() {
    double v = product();
    for (;;) {
      if (eat('+')) v += product();
      else if (eat('-')) v -= product();
      else return v;
    }
  }
  double product() {
    double v = unary();
    for (;;) {
      if (eat('*')) v *= unary();
      else if (eat('/')) v /= unary();
      else return v;
    }
  }
  double unary() {
    if (eat('-')) return -unary();
    if (eat('+')) return unary();
    return power();
  }
  double power() {
    const double base = atom();
    if (eat('^')) return std::pow(base, unary());  // right-associative: a^b^c = a^(b^c)
    return base;
  }
  double atom() {
    skip();
    if (eat('(')) {
      const double v = sum();
      if (!eat(')')) fail("expected ')'");
      return v;
    }
    if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      const std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string name = s_.substr(start, pos_ - start);
      if (eat('(')) {
        std::vector<double> args{sum()};
        while (eat(',')) args.push_back(sum());
        if (!eat(')')) fail("expected ')' after the arguments of " + name);
        return call(name, args);
      }
      const auto it = p_.numbers.find(name);
      if (it == p_.numbers.end()) fail("unknown parameter '" + name + "'");
      return it->second;
    }
    double x = 0;
    const auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), x);
    if (ec != std::errc() || ptr == s_.data() + pos_) fail("expected a number, a parameter or '('");
    pos_ = static_cast<std::size_t>(ptr - s_.data());
    return x;
  }
  double call(const std::string& f, const std::vector<double>& a) {
    auto one = [&](double (*g)(double)) {
      if (a.size() != 1) fail(f + " takes one argument");
      return g(a[0]);
    };
    if (f == "sqrt") return one(std::sqrt);
    if (f == "exp") return one(std::exp);
    if (f == "log") return one(std::log);
    if (f == "log1p") return one(std::log1p);
    if (f == "expm1") return one(std::expm1);
    if (f == "abs") return one(std::fabs);
    if (f == "min" || f == "max") {
      if (a.size() < 2) fail(f + " takes at least two arguments");
      double v = a[0];
      for (double x : a) v = f == "min" ? std::min(v, x) : std::max(v, x);
      return v;
    }
    fail("unknown function '" + f + "'");
  }

  const std::string& s_;
  const Params& p_;
  std::size_t pos_ = 0;
};

}  // namespace

double evaluate_formula(const std::string& formula, const Params& params) {
  const double v = FormulaParser(formula, params).parse();
  if (!std::isfinite(v)) throw InvalidArgument(fmt::format("formula '{}' is not finite ({})", formula, params.describe()));
  return v;
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
