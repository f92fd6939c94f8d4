#include "verify/divergence/engines.hpp"

#include <chrono>
#include <memory>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/divergence/closed_form.hpp"
#include "verify/divergence/density_engines.hpp"
#include "verify/divergence/prepared_pair.hpp"

namespace privamp::verify {

namespace {
constexpr std::pair<Engine, const char*> kNames[] = {
    {Engine::automatic, "auto"},       {Engine::closed_form, "closed"}, {Engine::finite_sum, "sum"},
    {Engine::quadrature, "quadrature"}, {Engine::gsl, "gsl"},           {Engine::monte_carlo, "mc"}};

bool purely_atomic(const sim::Law& law) { return law.dimension() == 1 && law.continuous_mass() == 0; }

// A law with lumped outcomes is a post-processing of the observation it stands for: the estimate is a lower end
// of that observation's divergence, whose excess is bounded by what the lumped outcomes (mass r_p under μ,
// likelihood ratios within e^{±L}) can contribute: hockey-stick r_p, TV (r_p + r_q)/2, KL 2 r_p L, R_∞ up to L,
// Rényi (since ∫p^α q^{1−α} ≥ 1) r_p e^{(α−1)L}/(α−1).
void widen_for_lumping(Estimate& e, const sim::Law& p, const sim::Law& q, const Quantity& quantity) {
  const auto lp = p.lumped(), lq = q.lumped();
  if (!lp && !lq) return;
  const double x = lp ? lp->x : lq->x;
  const double max_log_ratio = std::max(lp ? lp->max_log_ratio : 0.0, lq ? lq->max_log_ratio : 0.0);
  const double r_p = std::exp(p.log_atom_mass(x)), r_q = std::exp(q.log_atom_mass(x));
  if (r_p == 0 && r_q == 0) return;
  double excess = 0;
  switch (quantity.kind) {
    case Quantity::Kind::hockey_stick: excess = r_p; break;
    case Quantity::Kind::tv: excess = 0.5 * (r_p + r_q); break;
    case Quantity::Kind::kl: excess = 2 * r_p * max_log_ratio; break;
    case Quantity::Kind::renyi_inf: excess = std::max(0.0, max_log_ratio - e.upper); break;
    case Quantity::Kind::renyi: {
      const double t = quantity.parameter - 1;
      excess = std::exp(std::log(r_p) + t * max_log_ratio) / t;
      break;
    }
  }
  if (!(excess >= 0)) excess = std::numeric_limits<double>::infinity();
  e.upper += excess;
  e.log_upper = e.upper > 0 ? std::log(e.upper) : -std::numeric_limits<double>::infinity();
  e.method += " + lumped outcomes";
}
}  // namespace

std::string to_string(Engine engine) {
  for (const auto& [e, name] : kNames)
    if (e == engine) return name;
  return "?";
}

Engine parse_engine(const std::string& name) {
  for (const auto& [e, n] : kNames)
    if (name == n) return e;
  throw InvalidArgument(fmt::format("unknown engine '{}' (known: auto, closed, sum, quadrature, gsl, mc)", name));
}

std::vector<Estimate> compute_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                          const DivergenceOptions& options) {
  check_positive_finite("divergence", "rel_tol", options.rel_tol);
  std::unique_ptr<PreparedPair> prepared;
  auto pair = [&]() -> PreparedPair& {
    if (!prepared) prepared = std::make_unique<PreparedPair>(p, q, options.rel_tol);
    return *prepared;
  };
  std::vector<Estimate> out;
  for (const Quantity& quantity : quantities) {
    const auto start = std::chrono::steady_clock::now();
    Engine engine = options.engine;
    std::optional<Estimate> result;
    if (engine == Engine::automatic || engine == Engine::closed_form) {
      result = closed_form(p, q, quantity);
      if (!result && engine == Engine::closed_form)
        throw InvalidArgument(fmt::format("no closed form for {} between {} and {}", quantity.label(), p.expression(),
                                          q.expression()));
      if (!result) engine = purely_atomic(p) && purely_atomic(q) ? Engine::finite_sum : Engine::quadrature;
    }
    if (!result) {
      if ((p.dimension() != 1 || q.dimension() != 1) && engine != Engine::closed_form)
        throw InvalidArgument("d-dimensional Gaussians need the closed-form engine and a pair of equal sigma");
      switch (engine) {
        case Engine::finite_sum: {
          if (!purely_atomic(p) || !purely_atomic(q))
            throw InvalidArgument("the finite-sum engine needs two finite laws (pmfs)");
          const std::string method = "finite sum (log-space)";
          if (quantity.kind == Quantity::Kind::renyi_inf) {
            result = renyi_inf(pair(), method);
            break;
          }
          RenyiRoute route = quantity.kind == Quantity::Kind::renyi ? first_renyi_route(quantity.parameter)
                                                                     : RenyiRoute::direct;
          Part part = atom_part(pair(), quantity, route);
          if (quantity.kind == Quantity::Kind::renyi && route == RenyiRoute::direct && wants_excess_route(part)) {
            route = RenyiRoute::excess;
            part = atom_part(pair(), quantity, route);
          }
          result = finish(part, quantity, ErrorKind::exact, method, route);
          break;
        }
        case Engine::quadrature:
        case Engine::gsl: {
          const bool boost = engine == Engine::quadrature;
          PreparedPair& pp = pair();
          const std::string method = !pp.p_has_density ? "finite sum (log-space)"
                                     : boost           ? "quadrature (Gauss-Kronrod 21, log-space)"
                                                       : "quadrature (GSL QAG/QAGI)";
          if (quantity.kind == Quantity::Kind::renyi_inf) {
            result = renyi_inf(pp, pp.p_has_density ? "supremum search of the privacy loss" : method);
            break;
          }
          const ErrorKind kind = pp.p_has_density ? ErrorKind::quadrature : ErrorKind::exact;
          auto parts = [&](RenyiRoute route) {
            Part part = atom_part(pp, quantity, route);
            part.add(boost ? density_part_boost(pp, quantity, route) : density_part_gsl(pp, quantity));
            return part;
          };
          RenyiRoute route = quantity.kind == Quantity::Kind::renyi && boost ? first_renyi_route(quantity.parameter)
                                                                              : RenyiRoute::direct;
          Part part = parts(route);
          if (quantity.kind == Quantity::Kind::renyi && boost && route == RenyiRoute::direct && wants_excess_route(part)) {
            route = RenyiRoute::excess;
            const long work = part.work;
            part = parts(route);
            part.work += work;
          }
          result = finish(part, quantity, kind, method, route);
          break;
        }
        case Engine::monte_carlo: result = monte_carlo_divergence(p, q, quantity, options.monte_carlo); break;
        case Engine::automatic:
        case Engine::closed_form: break;
      }
    }
    widen_for_lumping(*result, p, q, quantity);
    result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.push_back(*result);
  }
  return out;
}

Estimate compute_divergence(const sim::Law& p, const sim::Law& q, const Quantity& quantity,
                            const DivergenceOptions& options) {
  return compute_divergences(p, q, std::span<const Quantity>(&quantity, 1), options).front();
}

}  // namespace privamp::verify
