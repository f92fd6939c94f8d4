#include "verify/divergence/engines.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "verify/divergence/work.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/closed_form.hpp"
#include "verify/divergence/composition.hpp"
#include "verify/divergence/density_engines.hpp"
#include "verify/divergence/discretised.hpp"
#include "verify/divergence/engine_entry.hpp"
#include "verify/divergence/prepared_pair.hpp"
#include "sim/laws/gaussian.hpp"

namespace privamp::verify {

bool purely_atomic(const sim::Law& law) { return law.dimension() == 1 && law.continuous_mass() == 0; }

std::string needs_one_dimension(const sim::Law& p, const sim::Law& q) {
  if (p.dimension() == 1 && q.dimension() == 1) return "";
  return fmt::format("no engine for this pair of {}-dimensional laws: only isotropic Gaussians of equal sigma have closed "
                     "forms in d > 1 ({} vs {})", p.dimension(), p.brief(), q.brief());
}

namespace {

// A law with lumped outcomes is a post-processing of the observation it stands for: the estimate is a lower end
// of that observation's divergence, whose excess is bounded by what the lumped outcomes (mass r_p under μ,
// likelihood ratios within e^{±L}) can contribute: hockey-stick r_p, TV (r_p + r_q)/2, KL 2 r_p L, R_∞ up to L,
// Rényi (since ∫p^α q^{1−α} ≥ 1) r_p e^{(α−1)L}/(α−1).
void widen_for_lumping(Estimate& e, const sim::Law& p, const sim::Law& q, const Quantity& quantity) {
  const auto lp = p.lumped(), lq = q.lumped();
  if (!lp && !lq) return;
  // Two lumpings of one observation put the rare outcomes in the same place; laws lumped at different places are not
  // a post-processing of one pair of observations (a shift of one of them, say), and no widening bounds them.
  if (lp && lq && lp->x != lq->x)
    invalid_input("{} and {} lump improbable outcomes at different locations ({} and {}): compare laws "
                  "lumped alike (shift both or neither)",
                  p.brief(), q.brief(), format_number(lp->x), format_number(lq->x));
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
  const double width_before = e.upper - e.lower;
  e.set_upper(e.upper + excess);
  if (quantity.kind == Quantity::Kind::hockey_stick || quantity.kind == Quantity::Kind::tv) e.clip(0, 1);
  e.add_widening(ErrorPart::lumping, width_before);
  e.method += " + lumped outcomes";
}
// Laws whose log-density is known to ±e (Law::log_density_error: a normaliser or an inner integral computed
// numerically) are p = p̂·e^a, q = q̂·e^b with |a| ≤ e_p, |b| ≤ e_q, where p̂, q̂ are what the engine integrated.
// Then log ∫p^α q^{1−α} moves by at most α e_p + (α − 1) e_q; KL = e^a·KL̂ + (a − b) (p̂ has mass e^{−a}); a
// hockey-stick integral is e^a ∫[p̂ − e^{ε+b−a} q̂]_+, its level moving by δ = e_p + e_q, which changes the integral by
// at most e^{ε+e_q}·expm1(δ); R_∞ moves by δ.
void widen_for_density_error(Estimate& e, const sim::Law& p, const sim::Law& q, const Quantity& quantity) {
  const double ep = p.log_density_error(), eq = q.log_density_error();
  if (!(ep > 0) && !(eq > 0)) return;
  const double delta = ep + eq, width_before = e.upper - e.lower;
  switch (quantity.kind) {
    case Quantity::Kind::renyi: {
      const double a = quantity.parameter, move = (a * ep + (a - 1) * eq) / (a - 1);
      e.set_lower(std::max(0.0, e.lower - move));
      e.set_upper(e.upper + move);
      break;
    }
    case Quantity::Kind::kl: {
      const double move = std::expm1(ep) * std::max(std::fabs(e.lower), std::fabs(e.upper)) + delta;
      e.set_lower(std::max(0.0, e.lower - move));
      e.set_upper(e.upper + move);
      break;
    }
    case Quantity::Kind::hockey_stick:
    case Quantity::Kind::tv: {
      const double eps = quantity.kind == Quantity::Kind::tv ? 0.0 : quantity.parameter;
      const double move = std::exp(eps + eq) * std::expm1(delta);
      e.set_lower(std::max(0.0, std::exp(-ep) * (e.lower - move)));
      e.set_upper(std::min(1.0, std::exp(ep) * (e.upper + move)));
      break;
    }
    case Quantity::Kind::renyi_inf:
      e.set_lower(std::max(0.0, e.lower - delta));
      e.set_upper(e.upper + delta);
      break;
  }
  e.add_widening(ErrorPart::density, width_before);
  e.method += fmt::format(" (log-density error {:.1e} of the numerically normalised laws included)", delta);
}

// Laws computed jointly give the loss to ±δ (PairLoss::error); the interval must hold for every loss in that
// range. Hockey-stick and TV grow with the loss: their ends are the values at the levels ε ∓ δ. The generators of
// KL and of the excess Rényi route are convex with minimum 0 at L = 0: their ends push the loss away from and
// towards 0. The direct Rényi route's log-integral moves by at most (α − 1)δ, so R by at most δ.
template <class Estimator>
void widen_for_loss_error(Estimate& e, const Quantity& quantity, RenyiRoute route, double delta, bool from_rounding,
                          Estimator estimate) {
  const double width_before = e.upper - e.lower;
  auto widen = [&](const Estimate& low, const Estimate& high) {
    e.hull(Estimate::span(low, high));
  };
  switch (quantity.kind) {
    case Quantity::Kind::hockey_stick:
    case Quantity::Kind::tv: {
      const double eps = quantity.kind == Quantity::Kind::tv ? 0.0 : quantity.parameter;
      if (from_rounding) {
        // Moving the level by δ changes ∫[p − e^ε q]_+ by at most e^ε·(e^δ − 1)·q(L > ε ∓ δ) ≤ e^ε·expm1(δ) (any
        // pair of measures with q of mass ≤ 1), so no second integration is needed.
        const double move = std::exp(eps) * std::expm1(delta);
        e.set_lower(std::max(0.0, e.lower - move));
        e.set_upper(std::min(1.0, e.upper + move));
        break;
      }
      // Levels below 0 are fine for the sums and integrals (internal use only: no public constructor allows them).
      widen(estimate(Quantity{Quantity::Kind::hockey_stick, eps + delta}, route, 0),
            estimate(Quantity{Quantity::Kind::hockey_stick, eps - delta}, route, 0));
      break;
    }
    case Quantity::Kind::kl: widen(estimate(quantity, route, -1), estimate(quantity, route, +1)); break;
    case Quantity::Kind::renyi:
      if (route == RenyiRoute::excess) {
        widen(estimate(quantity, route, -1), estimate(quantity, route, +1));
      } else {
        e.set_lower(std::max(0.0, e.lower - delta));
        e.set_upper(e.upper + delta);
      }
      break;
    case Quantity::Kind::renyi_inf: break;  // renyi_inf() adds δ itself
  }
  e.add_widening(ErrorPart::loss, width_before);
  e.method += from_rounding ? fmt::format(" (rounding of the loss, {:.1e}, included: the laws nearly coincide)", delta)
                            : fmt::format(" (joint laws: loss error {:.1e} included)", delta);
}

}  // namespace

std::string to_string(Engine engine) {
  if (engine == Engine::automatic) return "auto";
  for (const EngineEntry* e : engine_table())
    if (e->engine == engine) return e->name;
  return "?";
}

Engine parse_engine(const std::string& name) {
  if (name == "auto") return Engine::automatic;
  for (const EngineEntry* e : engine_table())
    if (name == e->name) return e->engine;
  invalid_input("unknown engine '{}' (known: {})", name, engine_names());
}

std::string engine_names() {
  std::vector<std::string> names = {"auto"};
  for (const EngineEntry* e : engine_table()) names.push_back(e->name);
  return fmt::format("{}", fmt::join(names, " | "));
}

namespace {
std::vector<Estimate> plain_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                        const DivergenceOptions& options);
// How long auto mode lets the certified engine try to replace an estimate (most pairs take milliseconds).
constexpr double kArbiterSeconds = 2;
std::vector<Estimate> engine_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                         const DivergenceOptions& options);

// Isotropic Gaussians of equal σ in ℝ^d: every divergence is invariant under rotations and translations, and the
// coordinates orthogonal to m_μ − m_ν carry the same law under both, so the pair reduces exactly to
// N(‖m_μ − m_ν‖, σ²) against N(0, σ²) on the line through the means. The numerical engines (a second route
// beside the closed form) work on that line; the norm's rounding is carried by the 1-D engines' own bars on
// Δ/σ only to first order, so it is added explicitly.
std::optional<std::vector<Estimate>> reduced_gaussian_nd(const sim::Law& p, const sim::Law& q,
                                                         std::span<const Quantity> quantities,
                                                         const DivergenceOptions& options) {
  const sim::ExactForm fp = p.exact_form(), fq = q.exact_form();
  const auto* a = std::get_if<sim::form::GaussianND>(&fp);
  const auto* b = std::get_if<sim::form::GaussianND>(&fq);
  if (!a || !b || a->sigma != b->sigma || a->mean.size() < 2 || a->mean.size() != b->mean.size()) return std::nullopt;
  double scale = 0;
  for (std::size_t i = 0; i < a->mean.size(); ++i) scale = std::max(scale, std::fabs(a->mean[i] - b->mean[i]));
  double sum = 0;
  if (scale > 0)
    for (std::size_t i = 0; i < a->mean.size(); ++i) {
      const double d = (a->mean[i] - b->mean[i]) / scale;
      sum += d * d;
    }
  const double distance = scale * std::sqrt(sum);
  // The distance is correct to a few ulps (d + 4 roundings). Every divergence of N(Δ, σ²) against N(0, σ²) is
  // non-decreasing in Δ (data processing: the smaller shift is a post-processing of the larger one), so the
  // engines run at both ends of Δ's rounding interval: the lower end comes from the smaller Δ, the upper end
  // from the larger.
  const double dimension = static_cast<double>(a->mean.size());
  const double r = 2.0 * (dimension + 4) * std::numeric_limits<double>::epsilon();
  const sim::Gaussian low_p(distance * (1 - r), a->sigma), high_p(distance * (1 + r), a->sigma), base(0, a->sigma);
  DivergenceOptions quiet = options;  // the list's progress is reported once, by the second pass
  quiet.progress = nullptr;
  const std::vector<Estimate> low = plain_divergences(low_p, base, quantities, quiet);
  std::vector<Estimate> out = plain_divergences(high_p, base, quantities, options);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double width_before = out[i].upper - out[i].lower;
    out[i].hull(Estimate::span(low[i], out[i]));  // the lower end from the smaller shift
    out[i].add_widening(ErrorPart::reduction, width_before);
    out[i].work += low[i].work;
    out[i].method += fmt::format(" on the line through the means (R^{} reduced to R)", a->mean.size());
  }
  return out;
}

// The certified engine's enclosure, or nullopt where it does not cover the pair or cannot certify in its budget.
std::optional<Estimate> certified_or_nothing(const sim::Law& p, const sim::Law& q, const Quantity& quantity,
                                             const DivergenceOptions& options) {
  if (certified_refusal(p, q)) return std::nullopt;
  CertifiedOptions co;
  co.seconds = options.certified_seconds;
  try {
    const auto start = std::chrono::steady_clock::now();
    Estimate e = certified_divergence(p, q, quantity, co);
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return e;
  } catch (const NumericalError&) {
    return std::nullopt;
  } catch (const InvalidArgument&) {
    return std::nullopt;
  }
}

// A quadrature that integrated to exactly 0 ([0, 0]) met no mass: every evaluation underflowed, or none fell where
// the loss exceeds the level (ε for hockey-stick, 0 otherwise). The supremum search of the loss says what that
// shows: HS_ε = E_μ[(1 − e^{ε−L})_+] ≤ 1 − e^{ε − sup L} (and TV likewise with ε = 0), so the answer is [0, that]
// where it is small (below 1e-6: at or just past the largest loss, as a Laplace pair at ε = Δ/b); a Rényi divergence
// or KL is 0 where the loss is nowhere positive. Elsewhere the route refuses: its 0 would be a silent guess.
void settle_zero(PreparedPair& pp, const Quantity& quantity, Estimate& result) {
  const bool hockey = quantity.kind == Quantity::Kind::hockey_stick || quantity.kind == Quantity::Kind::tv;
  const double level = quantity.kind == Quantity::Kind::hockey_stick ? quantity.parameter : 0.0;
  const Estimate sup = renyi_inf(pp, "supremum search of the privacy loss");
  const double cap = hockey ? (sup.upper <= level ? 0.0 : -std::expm1(level - sup.upper)) : (sup.upper <= 0 ? 0.0 : std::numeric_limits<double>::infinity());
  if (!(cap <= 1e-6))
    throw NumericalError(fmt::format("{} of {} and {}: the {} route found no mass (every evaluation underflowed, or none met the "
                                     "region where the loss exceeds {:g}, although the loss reaches {:.6g}), which does not show the "
                                     "value is 0: where the two laws agree to every digit a double holds (a difference a long chain "
                                     "contracted below 1e-16), only an engine that computes in exact terms can bound it "
                                     "(--engine certified, where it covers the pair)",
                                     quantity.label(), pp.p.brief(), pp.q.brief(), result.method, level, sup.value));
  const double width_before = result.upper - result.lower;
  result.set_upper(cap);
  result.add_widening(ErrorPart::quadrature, width_before);
  result.method += fmt::format(" (no mass found: the privacy loss is at most {:.10g} by the supremum search, so the value is at most "
                               "{:.3g})", sup.upper, cap);
}

// The answer of auto mode from a fast route's estimate and the certified enclosure of the same value (see
// plain_divergences).
Estimate arbitrate(Estimate fast, Estimate certified) {
  constexpr double tiny = std::numeric_limits<double>::min();
  const bool agree = fast.lower <= certified.upper && certified.lower <= fast.upper &&
                     fast.log_lower() <= certified.log_upper() && certified.log_lower() <= fast.log_upper();
  const bool sharp = certified.log_upper() - certified.log_lower() <= 1e-6 || certified.upper - certified.lower <= 1e-6 * certified.value;
  if (!(fast.value >= tiny)) {
    // (0 need not be an underflow: a KL of 8.6e-201 came out 0 by cancellation, which "below the double range" misnamed)
    certified.method += fmt::format(" (the fast route, {}, gave {:.3g}: no digits at that size)", fast.method, fast.value);
  } else if (!agree) {
    certified.method += fmt::format(" (the fast route, {}, gave {:.12g} in [{:.12g}, {:.12g}], outside this enclosure: the enclosure decides)",
                                    fast.method, fast.value, fast.lower, fast.upper);
  } else if (sharp) {
    certified.method += fmt::format(" (the fast route, {}, agrees)", fast.method);
  } else {  // a wide enclosure that contains the estimate: the estimate, inside it
    fast.intersect(certified);  // they agree: the common part is not empty
    fast.method += fmt::format(" (inside the certified enclosure [{:.6g}, {:.6g}])", certified.lower, certified.upper);
    fast.work += certified.work;
    return fast;
  }
  certified.work += fast.work;
  return certified;
}

// Finite chains: mu K^t in double keeps no difference below 1e-16 of a probability, so a finite sum over it would
// print "exact" values that are rounding (or 0). The certified engine recomputes the chain in balls (about a
// millisecond a value): in auto mode it decides, and the fast route runs only where it refuses (nullopt: it refused
// one of the values).
std::optional<std::vector<Estimate>> certified_chain(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                                     const DivergenceOptions& options) {
  std::vector<Estimate> out;
  for (const Quantity& quantity : quantities) {
    auto e = certified_or_nothing(p, q, quantity, options);
    if (!e) return std::nullopt;
    out.push_back(std::move(*e));
  }
  return out;
}

// A chain's law in double resolves no value below the double range (the masses' differences underflow), whatever
// the sum over it: such a value keeps only its upper end (the certified engine gives it).
std::vector<Estimate> unresolved_below_double_range(std::vector<Estimate> out) {
  constexpr double tiny = std::numeric_limits<double>::min();
  for (Estimate& e : out)
    if (e.error_kind != ErrorKind::certified && e.value < tiny) {
      e.set_upper(std::max(e.upper, tiny));
      e.set_lower(0);
      e.set_value(0);
      e.method += " (below the double range: the chain's law in double cannot resolve it, so only an upper end; "
                  "--engine auto or certified recomputes the chain in balls)";
    }
  return out;
}

}  // namespace

// The finite-sum and quadrature routes (Boost's Gauss-Kronrod in log space, or GSL's QAG/QAGI in double) on a
// prepared pair: the atoms' sum plus the density's integral, the Rényi route chosen by the direct integral, widened
// for the loss's error, and a [0, 0] settled by the supremum search.
Estimate density_route(PreparedPair& pp, const Quantity& quantity, Engine engine) {
  const bool boost = engine != Engine::gsl;
  const std::string method = !pp.p_has_density ? "finite sum (log-space)"
                             : boost           ? "quadrature (Gauss-Kronrod 21, log-space)"
                                               : "quadrature (GSL QAG/QAGI)";
  if (quantity.kind == Quantity::Kind::renyi_inf) return renyi_inf(pp, pp.p_has_density ? "supremum search of the privacy loss" : method);
  const ErrorKind kind = pp.p_has_density ? ErrorKind::quadrature : ErrorKind::exact;
  long work = 0;
  auto estimate = [&](const Quantity& qt, RenyiRoute route, int push) {
    Part part = atom_part(pp, qt, route, push);
    pp.density.loss_push = push;
    pp.density.loss_delta = pp.loss_error;
    part.add(boost ? density_part_boost(pp, qt, route) : density_part_gsl(pp, qt));
    pp.density.loss_push = 0;
    work += part.work;
    return finish(part, qt, kind, method, route);
  };
  RenyiRoute route = quantity.kind == Quantity::Kind::renyi && boost ? first_renyi_route(quantity.parameter) : RenyiRoute::direct;
  std::optional<Estimate> result;
  if (quantity.kind == Quantity::Kind::renyi && boost && route == RenyiRoute::direct) {
    Part direct = atom_part(pp, quantity, route);
    direct.add(density_part_boost(pp, quantity, route));
    work += direct.work;
    if (wants_excess_route(direct)) route = RenyiRoute::excess;
    else result = finish(direct, quantity, kind, method, route);
  }
  if (!result) {
    pp.check_loss_rounding();
    result = estimate(quantity, route, 0);
  }
  if (pp.loss_error > 0 && std::isfinite(result->value))
    widen_for_loss_error(*result, quantity, route, pp.loss_error, pp.loss_error_from_rounding, estimate);
  // GSL integrates in double: a value below the smallest normal double is an underflow, not a value. Its interval
  // keeps only what it knows, [0, 2.2e-308], never a silent [0, 0].
  if (!boost && pp.p_has_density && !(result->upper >= std::numeric_limits<double>::min()) && !std::isfinite(result->log_upper())) {
    const double width_before = result->upper - result->lower;
    result->set_upper(std::numeric_limits<double>::min());
    result->add_widening(ErrorPart::quadrature, width_before);
    result->method += " (below the double range: GSL integrates in double, so only an upper end; the default or "
                      "certified engine gives the value in log space)";
  }
  result->work = work;
  if (pp.p_has_density && !(result->upper > 0)) settle_zero(pp, quantity, *result);
  return *result;
}

namespace {

const EngineEntry& entry_of(Engine engine) {
  for (const EngineEntry* e : engine_table())
    if (e->engine == engine) return *e;
  throw std::logic_error("internal: no engine entry for " + to_string(engine));
}

// One value by the policy of the engine asked for: the first route that covers the pair and does not decline
// answers, widened where its route says so. `closed` says whether a closed form answered.
Estimate one_value(const sim::Law& p, const sim::Law& q, const Quantity& quantity, const DivergenceOptions& options,
                   const std::function<PreparedPair&()>& pair, bool& closed) {
  std::string refused;
  for (Engine engine : engine_policy(options.engine).tried) {
    const EngineEntry& route = entry_of(engine);
    if (std::string why = route.refusal(p, q); !why.empty()) {
      refused = std::move(why);
      continue;
    }
    std::optional<Estimate> result = route.compute({p, q, quantity, options, pair, engine});
    if (!result) {
      refused = fmt::format(fmt::runtime(route.declined), quantity.label(), p.brief(), q.brief());
      continue;
    }
    closed = engine == Engine::closed_form;
    if (route.widened) {
      widen_for_lumping(*result, p, q, quantity);
      widen_for_density_error(*result, p, q, quantity);
    }
    return *result;
  }
  invalid_input("{}", refused);
}

// The arbiter of auto mode: an estimate (a-posteriori quadrature, or a value below the double range that may be an
// underflow) is never the answer where the certified engine covers the pair within a short budget and says more:
// where the two disagree the enclosure decides (and says so); where they agree the enclosure is the answer if it is
// sharp (1e-6 relative), and otherwise it bounds the estimate (intersected). Closed forms and exact sums keep theirs.
Estimate arbitrated(Estimate result, const sim::Law& p, const sim::Law& q, const Quantity& quantity, const DivergenceOptions& options) {
  if (result.error_kind == ErrorKind::exact && result.value >= std::numeric_limits<double>::min()) return result;
  DivergenceOptions quick = options;
  quick.certified_seconds = std::min(options.certified_seconds, kArbiterSeconds);
  quick.progress = nullptr;  // one value of the caller's list
  if (auto certified = certified_or_nothing(p, q, quantity, quick)) return arbitrate(std::move(result), std::move(*certified));
  return result;
}

std::vector<Estimate> plain_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                        const DivergenceOptions& options) {
  // The pair's reductions, in the order engines.hpp states (the certified engine reads exact forms itself: none).
  const bool chain = options.engine != Engine::certified && certified_reads_chain(p, q);
  if (options.engine == Engine::automatic && chain)
    if (auto certified = certified_chain(p, q, quantities, options)) return std::move(*certified);
  if (options.engine != Engine::automatic && options.engine != Engine::closed_form && options.engine != Engine::certified)
    if (auto reduced = reduced_gaussian_nd(p, q, quantities, options)) return std::move(*reduced);
  // Laws of one process that differ in a start or a data point are recomputed together first (sim::Law::joint_with).
  if (options.engine != Engine::monte_carlo && options.engine != Engine::certified)
    if (const auto joint = p.joint_with(q)) {
      std::vector<Estimate> out = plain_divergences(*joint->first, *joint->second, quantities, options);
      return chain ? unresolved_below_double_range(std::move(out)) : out;
    }
  std::unique_ptr<PreparedPair> prepared;
  const std::function<PreparedPair&()> pair = [&]() -> PreparedPair& {
    if (!prepared) prepared = std::make_unique<PreparedPair>(p, q, options.rel_tol);
    return *prepared;
  };
  std::vector<Estimate> out;
  for (const Quantity& quantity : quantities) {
    throw_if_interrupted();  // between values of a long list (Ctrl-C once waited for 2,000 closed-form sums)
    // Values done so far, before each but the first (the caller reports the end): 300 orders ran 42 s silently.
    if (options.progress && !out.empty()) options.progress(out.size(), quantities.size());
    const auto start = std::chrono::steady_clock::now();
    bool closed = false;
    // (each value with its own density work: past it the densities are NaN, and whatever an engine made of them —
    // a value or an error — gives way to the refusal naming the cost)
    const ValueWork work;
    const auto spent = [&] {
      throw_if_work_spent(fmt::format("{} of {} against {}", quantity.label(), p.brief(), q.brief()), prepared ? prepared->point_cost : 2);
    };
    Estimate result;
    try {
      result = one_value(p, q, quantity, options, pair, closed);
      if (engine_policy(options.engine).arbitrated && !closed) result = arbitrated(std::move(result), p, q, quantity, options);
    } catch (...) {
      spent();
      throw;
    }
    spent();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.push_back(std::move(result));
  }
  return chain ? unresolved_below_double_range(std::move(out)) : out;
}

}  // namespace

// Every result leaves the engines through this check: its value inside its own interval and inside the quantity's
// mathematical range (divergences ≥ 0; hockey-stick and TV ≤ 1). A value outside its own interval, or an interval
// wholly outside the range, is an engine's bug: refused (NumericalError naming it), never printed or clamped. An
// interval that reaches past the range (a sum's rounding bar around a hockey-stick of 1) is intersected with it (both
// contain the truth), and a value rounded past the range within its bar moves to the range's end.

void settle_result(Estimate& e, const Quantity& q, const sim::Law& p, const sim::Law& nu) {
  const auto refuse = [&](const std::string& what) {
    throw NumericalError(fmt::format("internal: {} of {} and {}: {} ({} in [{:.17g}, {:.17g}], {}); please report it", q.label(),
                                     p.brief(), nu.brief(), what, e.value, e.lower, e.upper, e.method));
  };
  if (std::isnan(e.value) && std::isnan(e.lower) && std::isnan(e.upper)) return;  // no value (said by the method)
  if (!(e.lower <= e.value && e.value <= e.upper)) refuse("the value lies outside its own interval");
  // (The logs are rounded apart from the values: a few ulps of either.)
  const double log_slack = 8 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::fabs(e.log_value()));
  if (std::isfinite(e.log_value()) && !(e.log_lower() - log_slack <= e.log_value() && e.log_value() <= e.log_upper() + log_slack) && e.value > 0)
    refuse("the log value lies outside its log interval");
  if (e.error_kind == ErrorKind::statistical) return;  // a confidence interval may reach past the range
  const bool at_most_one = q.kind == Quantity::Kind::hockey_stick || q.kind == Quantity::Kind::tv;
  if (e.upper < 0 || (at_most_one && e.lower > 1)) refuse("the interval lies outside the quantity's range");
  e.clip(0, at_most_one ? 1.0 : std::numeric_limits<double>::infinity());
  if (e.value < e.lower || e.value > e.upper) e.set_value(e.value);  // a rounding inside its own bar, moved into the range
}

// The policies, read off the engines' table: auto tries the engines marked tried_by_default in the table's order,
// and the arbiter checks its estimates; any other setting is its engine alone.
const std::vector<EnginePolicy>& engine_policies() {
  static const std::vector<EnginePolicy> policies = [] {
    std::vector<EnginePolicy> out = {{Engine::automatic, {}, true}};
    for (const EngineEntry* e : engine_table()) {
      if (e->tried_by_default) out.front().tried.push_back(e->engine);
      out.push_back({e->engine, {e->engine}, false});
    }
    return out;
  }();
  return policies;
}

const EnginePolicy& engine_policy(Engine asked) {
  for (const EnginePolicy& policy : engine_policies())
    if (policy.asked == asked) return policy;
  throw std::logic_error("internal: no policy for engine " + to_string(asked));
}

std::string engine_policy_text() {
  std::string out =
      "before the routes, in order:\n"
      "  compositions (power, product): each release's values by this same policy, then composed\n"
      "  laws in different dimensions: refused\n"
      "  laws on grids: each value at three resolutions with Richardson (not mc, which takes the base resolution;\n"
      "    not certified, which refuses grids)\n"
      "  finite chains, auto: recomputed in ball arithmetic where the certified engine covers every value\n"
      "  Gaussian pairs in R^d, explicit numerical engines: reduced to the line through the means\n"
      "  laws of one process differing in a start or a data point, not mc or certified: computed jointly\n"
      "value routes:\n";
  for (const EngineEntry* r : engine_table())
    out += fmt::format("  {}: {}{}\n", r->name, r->covers, r->widened ? "" : " (not widened: exact forms)");
  out += "policies (--engine: routes tried in order):\n";
  for (const EnginePolicy& policy : engine_policies()) {
    const std::string name = to_string(policy.asked);
    std::vector<std::string> tried;
    for (Engine e : policy.tried) tried.push_back(to_string(e));
    out += fmt::format("  {}: {}{}\n", name, fmt::join(tried, ", "), policy.arbitrated ? "; estimates arbitrated by certified" : "");
  }
  out += "second route of a verdict (in order: a later one runs where those before do not apply, or certified refuses\n"
         "at run time):\n"
         "  1. certified, where it covers the pair and does not decide\n"
         "  2. the case's cross_check (certified: only where it covers the pair)\n"
         "  3. without a cross_check: gsl, for densities on the line, deciding engine neither gsl nor mc, not R_inf\n"
         "  4. none (said in the row's note)\n";
  return out;
}

SecondRoute second_route(const sim::Law& mu, const sim::Law& nu, const Quantity& quantity, Engine deciding,
                         std::optional<Engine> cross_check) {
  SecondRoute out;
  const std::optional<std::string> uncovered = certified_refusal(mu, nu);
  out.certifiable = deciding != Engine::certified && !uncovered;
  if (out.certifiable) out.routes.push_back(Engine::certified);
  if (cross_check == Engine::certified) {
    if (!out.certifiable)
      out.note = uncovered ? fmt::format("cross_check = certified does not cover these laws ({})", *uncovered)
                           : "cross_check = certified is the case's own engine";
    return out;
  }
  if (cross_check) {
    out.routes.push_back(*cross_check);
    return out;
  }
  const auto densities_on_the_line = [](const sim::Law& law) {
    return law.dimension() == 1 && law.continuous_mass() > 0 && !law.discretisation();
  };
  if (quantity.kind != Quantity::Kind::renyi_inf && deciding != Engine::gsl && deciding != Engine::monte_carlo &&
      densities_on_the_line(mu) && densities_on_the_line(nu))
    out.routes.push_back(Engine::gsl);
  if (out.routes.empty()) out.note = "no second route applies to these laws (give the case a cross_check, e.g. mc)";
  return out;
}

std::vector<Estimate> compute_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                          const DivergenceOptions& options) {
  std::vector<Estimate> out = engine_divergences(p, q, quantities, options);
  for (std::size_t i = 0; i < out.size(); ++i) settle_result(out[i], quantities[i], p, q);
  return out;
}

namespace {

std::vector<Estimate> engine_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                         const DivergenceOptions& options) {
  check_positive_finite("divergence", "rel_tol", options.rel_tol);
  if (is_composition(p) || is_composition(q)) {
    DivergenceOptions quiet = options;  // the releases' values: the composition reports its own progress
    quiet.progress = nullptr;
    return composed_divergences(p, q, quantities, options,
                                [quiet](const sim::Law& a, const sim::Law& b, std::span<const Quantity> qs) {
                                  return compute_divergences(a, b, qs, quiet);
                                });
  }
  if (p.dimension() != q.dimension())
    invalid_input("the laws live in different dimensions: mu in R^{} ({}), nu in R^{} ({})",
                  p.dimension(), p.brief(), q.dimension(), q.brief());
  if (!p.discretisation() && !q.discretisation()) return plain_divergences(p, q, quantities, options);
  // Monte Carlo: sampling noise dwarfs the discretisation (1e-4 relative at the default resolution against a
  // confidence interval of ~1e-2), so the laws at their base resolution give the privacy loss; for process laws
  // the samples are simulated runs of the process itself.
  if (options.engine == Engine::monte_carlo || options.engine == Engine::certified)
    return plain_divergences(p, q, quantities, options);  // certified: refuses discretised laws itself
  const auto start = std::chrono::steady_clock::now();
  DivergenceOptions quiet = options;  // three resolutions: no progress of their own
  quiet.progress = nullptr;
  auto out = discretised_divergences(p, q, quantities, [&](const sim::Law& a, const sim::Law& b, std::span<const Quantity> qs) {
    return plain_divergences(a, b, qs, quiet);
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (Estimate& e : out) e.seconds = seconds / static_cast<double>(out.size());
  return out;
}

}  // namespace

Estimate compute_divergence(const sim::Law& p, const sim::Law& q, const Quantity& quantity,
                            const DivergenceOptions& options) {
  return compute_divergences(p, q, std::span<const Quantity>(&quantity, 1), options).front();
}

}  // namespace privamp::verify
