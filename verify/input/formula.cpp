#include "verify/input/formula.hpp"

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/language/expression.hpp"
#include "verify/divergence/engines.hpp"

namespace privamp::verify {

namespace {

// Divergence calls in formulas: the engines' value with its interval; a bound never rests on a Monte Carlo value.
sim::Bracketed engine_divergence(const sim::Law& mu, const sim::Law& nu, sim::Divergence kind, double order) {
  const Quantity q = Quantity::of(kind, order);
  const Estimate e = compute_divergence(mu, nu, q);
  if (e.error_kind == ErrorKind::statistical)
    invalid_input("{}", quantity_name(kind) + ": a bound cannot rest on a Monte Carlo value");
  return {e.value, e.lower, e.upper};
}

const sim::DivergenceFunction kEngines = engine_divergence;

std::shared_ptr<const sim::Expression> law_expression(const std::string& text) {
  return sim::Expression::parse_cached(text, "law expression");
}

}  // namespace

FormulaValue evaluate_formula_interval(const std::string& formula, const Params& params) {
  const sim::Bracketed v = sim::Expression::parse_cached(formula, "formula")->number(params, &kEngines);
  return {v.value, v.lower, v.upper, v.interval};
}

double evaluate_derived(const std::string& formula, const Params& params) {
  return sim::Expression::parse_cached(formula, "formula")->number(params, &kEngines, true).value;
}

double check_formula_work(const std::string& formula, const Params& params) {
  const double w = sim::Expression::parse_cached(formula, "formula")->work(params);
  if (w > static_cast<double>(sim::kMaxFormulaWork))
    invalid_input("'{}': {}", formula.size() > 80 ? formula.substr(0, 77) + "..." : formula,
                  sim::work_limit_message(w));
  return w;
}

double evaluate_formula(const std::string& formula, const Params& params) {
  return evaluate_formula_interval(formula, params).value;
}

std::string law_text(const std::string& expression, const Params& params) {
  return law_expression(expression)->law_text(params);
}

sim::LawPtr build_law(const std::string& expression, const Params& params, std::string* text) {
  return law_expression(expression)->law_cached(params, text);
}

long check_law(const std::string& expression, const Params& params) { return law_expression(expression)->check_law(params); }

}  // namespace privamp::verify
