#include "numerics/constants.hpp"
#include "verify/divergence/composition.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "numerics/cache.hpp"
#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/log_space.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/closed_form.hpp"
#include "verify/divergence/contour.hpp"

namespace privamp::verify {

namespace {

// Σ_i T_i·D_i in log space (the terms are ≥ 0), each end from the terms' ends; the multiplications and the
// log-sum-exp round by a few ulps per term, carried outwards.
Estimate add_up(const std::vector<std::pair<Estimate, long>>& terms) {
  Estimate out;
  out.value = 0;
  std::vector<double> lv, ll, lu;
  ErrorKind kind = ErrorKind::exact;
  double missing_level = 0;
  std::vector<std::string> methods;
  bool unbounded = false;  // a term known only from below (a Monte Carlo Rényi value's upper end may be +inf)
  for (const auto& [e, count] : terms) {
    if (std::isinf(e.value)) {
      Estimate inf = Estimate::infinite(fmt::format("{} (one release's divergence is infinite)", e.method));
      inf.error_kind = e.error_kind;
      return inf;
    }
    const double lt = std::log(static_cast<double>(count));
    lv.push_back(e.log_value() + lt);
    ll.push_back(e.log_lower() + lt);
    if (std::isinf(e.upper)) unbounded = true;
    else lu.push_back(e.log_upper() + lt);
    if (weakness(e.error_kind) > weakness(kind)) kind = e.error_kind;
    if (e.error_kind == ErrorKind::statistical) missing_level += 1 - e.level;
    methods.push_back(count == 1 ? e.method : fmt::format("{} x [{}]", count, e.method));
    out.work += e.work;
  }
  const double r = 8 * kU * static_cast<double>(terms.size() + 2);
  const long work = out.work;
  out = Estimate::from_log_bounds(log_sum_exp<double>(lv), log_sum_exp<double>(ll) + std::log1p(-r),
                                  unbounded ? kInf : log_sum_exp<double>(lu) + std::log1p(r), kind, "");
  out.work = work;
  // The budget: each release's parts times its count, and the sum's own rounding.
  out.budget.clear();
  for (const auto& [e, count] : terms)
    for (const ErrorTerm& t : e.budget) out.add_error(t.part, t.amount * static_cast<double>(count));
  out.add_error(ErrorPart::rounding, r * out.value);
  double parts = 0;  // (the ends' outward rounding beyond that: rounding too)
  for (const ErrorTerm& t : out.budget) parts += t.amount;
  out.add_error(ErrorPart::rounding, (out.upper - out.lower) / 2 - parts);
  out.level = kind == ErrorKind::statistical ? std::max(0.0, 1 - missing_level) : 1;  // Bonferroni
  out.method = fmt::format("sum over the releases: {}", fmt::join(methods, " + "));
  return out;
}

bool additive(const Quantity& q) { return q.kind != Quantity::Kind::hockey_stick && q.kind != Quantity::Kind::tv; }
double level_of(const Quantity& q) { return q.kind == Quantity::Kind::tv ? 0.0 : q.parameter; }

// ---------------------------------------------------------------------------------------------------------------
// Gaussian pairs of equal σ: the composition is one Gaussian pair with μ² = Σ T_i (Δ_i/σ_i)².

std::optional<double> gaussian_shift(const sim::Law& a, const sim::Law& b) {
  const sim::ExactForm fa = a.exact_form(), fb = b.exact_form();
  const auto* ga = std::get_if<sim::form::Gaussian>(&fa);
  const auto* gb = std::get_if<sim::form::Gaussian>(&fb);
  if (ga && gb && ga->sigma == gb->sigma) return std::fabs(ga->mean - gb->mean) / ga->sigma;
  const auto* na = std::get_if<sim::form::GaussianND>(&fa);
  const auto* nb = std::get_if<sim::form::GaussianND>(&fb);
  if (na && nb && na->sigma == nb->sigma && na->mean.size() == nb->mean.size()) {
    double d2 = 0;
    for (std::size_t i = 0; i < na->mean.size(); ++i) {
      const double d = (na->mean[i] - nb->mean[i]) / na->sigma;
      d2 += d * d;
    }
    return std::sqrt(d2);
  }
  return std::nullopt;
}

std::optional<Estimate> gaussian_composition(const std::vector<ReleasePair>& pairs, double eps) {
  double m2 = 0, terms = 0;
  for (const ReleasePair& r : pairs) {
    const auto d = gaussian_shift(*r.mu, *r.nu);
    if (!d) return std::nullopt;
    m2 += static_cast<double>(r.count) * *d * *d;
    terms += static_cast<double>(r.mu->dimension() + 4);
  }
  const double mu = std::sqrt(m2);
  // μ is correct to a relative few ulps per term; HS is non-decreasing in μ (the smaller shift is a post-processing
  // of the larger), so the ends come from μ at the ends of its rounding interval.
  const double r = 4 * (terms + 4) * kU;
  Estimate e = gaussian_hockey_stick(mu, 1.0, eps);
  if (mu > 0) {
    const Estimate lo = gaussian_hockey_stick(mu * (1 - r), 1.0, eps), hi = gaussian_hockey_stick(mu * (1 + r), 1.0, eps);
    const double width_before = e.upper - e.lower;
    e.hull(Estimate::span(lo, hi));
    e.add_widening(ErrorPart::rounding, width_before);
  }
  e.method = fmt::format("closed form GT.gauss.hs of the composed Gaussian pair (mu = sqrt(sum T_i Delta_i^2/sigma_i^2) = {:.17g})", mu);
  return e;
}

// ---------------------------------------------------------------------------------------------------------------
// Pmfs: the composed loss takes the values Σ_j n_j v_j over count vectors n (Σ n_j = T) of the release's distinct
// loss values v_j, with multinomial probabilities under μ. Releases whose loss is +∞ (μ-atoms where ν has none)
// make the sum +∞ and contribute fully.

struct LossAtoms {
  std::vector<double> value;     // distinct finite loss values
  std::vector<double> log_mass;  // their log-masses under μ
  double log_infinite = -kInf;   // log μ(L = +∞)
};

LossAtoms loss_atoms(const sim::Law& mu, const sim::Law& nu) {
  LossAtoms out;
  std::map<double, double> by_value;
  for (const sim::Atom& a : mu.atoms()) {
    if (a.log_mass == -kInf) continue;
    const double lq = nu.log_atom_mass(a.x);
    if (lq == -kInf) {
      out.log_infinite = log_add(out.log_infinite, a.log_mass);
      continue;
    }
    const double l = a.log_mass - lq;
    auto [it, fresh] = by_value.try_emplace(l, a.log_mass);
    if (!fresh) it->second = log_add(it->second, a.log_mass);
  }
  for (const auto& [v, lm] : by_value) {
    out.value.push_back(v);
    out.log_mass.push_back(lm);
  }
  return out;
}

double count_vectors(long t, std::size_t k) {  // C(t + k − 1, k − 1)
  if (k <= 1) return 1;
  return std::exp(std::lgamma(static_cast<double>(t + static_cast<long>(k))) - std::lgamma(static_cast<double>(t + 1)) -
                  std::lgamma(static_cast<double>(k)));
}

// One pair's composed loss as (value, log-mass, |error of value|, |error of log-mass|) over its count vectors.
struct LossPoint {
  double value, log_mass, value_error, log_error;
};

std::vector<LossPoint> composed_atoms(const LossAtoms& atoms, long t) {
  std::vector<LossPoint> out;
  const std::size_t k = atoms.value.size();
  if (k == 0) return out;
  std::vector<long> n(k, 0);
  const double lg_t = std::lgamma(static_cast<double>(t) + 1);
  // Enumerate count vectors of sum t (the last entry takes the rest).
  std::function<void(std::size_t, long)> visit = [&](std::size_t j, long rest) {
    if (j + 1 == k) {
      n[j] = rest;
      double value = 0, scale = 0, lm = lg_t, lscale = std::fabs(lg_t);
      for (std::size_t i = 0; i < k; ++i) {
        if (n[i] == 0) continue;
        const double ni = static_cast<double>(n[i]);
        value += ni * atoms.value[i];
        scale += ni * std::fabs(atoms.value[i]);
        const double lgi = std::lgamma(ni + 1);
        lm += ni * atoms.log_mass[i] - lgi;
        lscale += std::fabs(ni * atoms.log_mass[i]) + std::fabs(lgi);
      }
      // Each product and sum rounds by u of the running magnitude; lgamma is within a few ulps (16 taken).
      out.push_back({value, lm, 2 * static_cast<double>(k + 1) * kU * scale, 16 * static_cast<double>(k + 2) * kU * lscale});
      return;
    }
    for (long c = 0; c <= rest; ++c) {
      n[j] = c;
      visit(j + 1, rest - c);
    }
  };
  visit(0, t);
  return out;
}

// The count vectors the exact sum over a composition of pmfs visits.
double count_vectors(const std::vector<ReleasePair>& pairs) {
  double terms = 1;
  for (const ReleasePair& r : pairs) terms *= count_vectors(r.count, loss_atoms(*r.mu, *r.nu).value.size());
  return terms;
}

Estimate finite_composition(const std::vector<ReleasePair>& pairs, double eps) {
  double terms = 1, log_no_infinite = 0;
  std::vector<LossAtoms> atoms;
  for (const ReleasePair& r : pairs) {
    atoms.push_back(loss_atoms(*r.mu, *r.nu));
    terms *= count_vectors(r.count, atoms.back().value.size());
    if (atoms.back().log_infinite > -kInf)
      log_no_infinite += static_cast<double>(r.count) * log1mexp(atoms.back().log_infinite);
  }
  if (terms > kMaxCompositionTerms)
    invalid_input(
        "the exact sum over this composition of pmfs visits {:.3g} count vectors (at most {:.0e}: C(T + k - 1, k - 1) "
        "per factor with k distinct loss values); fewer releases or fewer distinct loss values are needed",
        terms, kMaxCompositionTerms);
  // The composed loss's points, pair by pair (lists multiply).
  std::vector<LossPoint> points{{0, 0, 0, 0}};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::vector<LossPoint> one = composed_atoms(atoms[i], pairs[i].count);
    std::vector<LossPoint> next;
    next.reserve(points.size() * one.size());
    for (const LossPoint& a : points)
      for (const LossPoint& b : one) {
        const double v = a.value + b.value;
        next.push_back({v, a.log_mass + b.log_mass, a.value_error + b.value_error + kU * std::fabs(v),
                        a.log_error + b.log_error + kU * std::fabs(a.log_mass + b.log_mass)});
      }
    points = std::move(next);
    throw_if_interrupted();
  }
  // HS_ε = P(S = ∞) + Σ_points P(point)·(1 − e^{ε − S})_+ ; the finite points carry mass P(no infinite release).
  // (1 − e^{ε−S})_+ is non-decreasing in S: the ends use S ∓ its error; the masses their log ∓ error.
  std::vector<double> lv, ll, lu;
  auto gain = [eps](double s) { return s <= eps ? -kInf : log1mexp(eps - s); };
  for (const LossPoint& p : points) {
    lv.push_back(p.log_mass + gain(p.value));
    ll.push_back(p.log_mass - p.log_error + gain(p.value - p.value_error));
    lu.push_back(p.log_mass + p.log_error + gain(p.value + p.value_error));
  }
  // P(some release's loss is +∞) = 1 − (1 − m_∞)^T: its log carries the rounding of T·log(1 − m_∞) (relative to
  // the result, amplified by |x|/(1 − e^x) for x = T·log(1 − m_∞)).
  const double log_infinite_part = log_no_infinite == 0 ? -kInf : log1mexp(log_no_infinite);
  const double infinite_error =
      log_no_infinite == 0 ? 0 : 16 * kU * (static_cast<double>(pairs.size()) + 2) * (1 + std::fabs(log_no_infinite) / -std::expm1(log_no_infinite));
  const double sum_error = 4 * kU * static_cast<double>(points.size() + 4);
  // HS_ε ≤ 1 (a theorem, not a rounding): the upper end is intersected with it, and the value, a sum of T rounded
  // masses that may exceed 1 by their rounding, is the point of the interval nearest to it (kept in log space where
  // it underflows). An upper end of 0: no point above ε.
  const double log_upper = log_add(log_infinite_part + std::log1p(infinite_error), log_sum_exp<double>(lu) + std::log1p(sum_error));
  Estimate e = Estimate::from_log_bounds(
      log_add(log_infinite_part, log_sum_exp<double>(lv)),
      log_add(log_infinite_part + std::log1p(-std::min(infinite_error, 0.5)), log_sum_exp<double>(ll) + std::log1p(-sum_error)),
      std::min(log_upper, 0.0), ErrorKind::exact,
      fmt::format("exact sum over the composed loss ({} count vectors, log space)", points.size()));
  e.clip(0, 1);
  e.work = static_cast<long>(points.size());
  return e;
}

bool finite_pair(const ReleasePair& r) {
  return r.mu->dimension() == 1 && r.nu->dimension() == 1 && r.mu->continuous_mass() == 0 &&
         r.nu->continuous_mass() == 0;
}

}  // namespace

std::string composition_key(const std::vector<ReleasePair>& pairs) {
  std::string key;
  for (const ReleasePair& r : pairs) key += fmt::format("{}|{}|{};", r.mu->expression(), r.nu->expression(), r.count);
  return key;
}

bool is_composition(const sim::Law& law) { return std::holds_alternative<sim::form::Composition>(law.exact_form()); }

// Walks both compositions' factors in order, consuming releases: power(a, 3) against product(b, power(c, 2)) pairs
// (a, b) once and (a, c) twice.
std::vector<ReleasePair> release_pairs(const sim::Law& p, const sim::Law& q) {
  const sim::ExactForm form_p = p.exact_form(), form_q = q.exact_form();
  const auto* cp = std::get_if<sim::form::Composition>(&form_p);
  const auto* cq = std::get_if<sim::form::Composition>(&form_q);
  if (!cp || !cq)
    invalid_input("a composition is compared with a composition of as many releases: {} against {} "
                  "(write power(nu, T) for the {} law)",
                  p.brief(), q.brief(), cp ? "second" : "first");
  if (cp->releases != cq->releases)
    invalid_input("the compositions have different numbers of releases: {} ({}) against {} ({})",
                  cp->releases, p.brief(), cq->releases, q.brief());
  const auto fp = cp->factors;
  const auto fq = cq->factors;
  std::vector<ReleasePair> out;
  std::size_t i = 0, j = 0;
  long ri = fp[0].count, rj = fq[0].count;
  while (i < fp.size() && j < fq.size()) {
    const long k = std::min(ri, rj);
    if (!out.empty() && out.back().mu == fp[i].law.get() && out.back().nu == fq[j].law.get())
      out.back().count += k;
    else
      out.push_back({fp[i].law.get(), fq[j].law.get(), k});
    if ((ri -= k) == 0 && ++i < fp.size()) ri = fp[i].count;
    if ((rj -= k) == 0 && ++j < fq.size()) rj = fq[j].count;
  }
  for (const ReleasePair& r : out) {
    if (r.mu->dimension() != r.nu->dimension())
      invalid_input("released laws of different dimensions are paired: {} (R^{}) against {} (R^{})",
                    r.mu->brief(), r.mu->dimension(), r.nu->brief(), r.nu->dimension());
  }
  return out;
}

namespace {

// The additive quantities (Rényi, KL, R_∞): one call of the one-release engines per distinct pair, summed.
void add_up_additive(const std::vector<ReleasePair>& pairs, std::span<const Quantity> quantities,
                     const ReleaseDivergences& release, std::vector<Estimate>& out) {
  std::vector<Quantity> sums;
  for (const Quantity& qt : quantities)
    if (additive(qt)) sums.push_back(qt);
  if (sums.empty()) return;
  std::vector<std::vector<Estimate>> per_pair;
  for (const ReleasePair& r : pairs) per_pair.push_back(release(*r.mu, *r.nu, sums));
  std::size_t k = 0;
  for (std::size_t i = 0; i < quantities.size(); ++i) {
    if (!additive(quantities[i])) continue;
    std::vector<std::pair<Estimate, long>> terms;
    for (std::size_t j = 0; j < pairs.size(); ++j) terms.push_back({per_pair[j][k], pairs[j].count});
    out[i] = add_up(terms);
    ++k;
  }
}

// Σ T_i R_∞ of the releases, μ against ν (or ν against μ), by the one-release engines.
Estimate composed_sup_loss(const std::vector<ReleasePair>& pairs, const ReleaseDivergences& release, bool reverse) {
  std::vector<std::pair<Estimate, long>> terms;
  const Quantity sup = Quantity::renyi_inf();
  for (const ReleasePair& r : pairs)
    terms.push_back({release(reverse ? *r.nu : *r.mu, reverse ? *r.mu : *r.nu, std::span(&sup, 1)).front(), r.count});
  return add_up(terms);
}

// A composed HS_ε by the routes that need no contour, for the engine asked: the Gaussian closed form, the exact sum
// over pmfs; refusals where the engine asked has no route (nullopt: the contour's turn).
std::optional<Estimate> composed_without_contour(const std::vector<ReleasePair>& pairs, double eps,
                                                 const DivergenceOptions& options, const sim::Law& p, const sim::Law& q) {
  const Engine engine = options.engine;
  if (engine == Engine::monte_carlo) invalid_input("engine 'mc': Monte Carlo of a composed hockey-stick divergence is not built (allowed here: auto, "
                  "certified, closed, sum, quadrature, gsl; auto is the default)");
  if (engine != Engine::quadrature && engine != Engine::gsl)
    if (auto g = gaussian_composition(pairs, eps)) return g;
  if (std::all_of(pairs.begin(), pairs.end(), finite_pair) && engine != Engine::closed_form) {
    // Beyond the exact sum's reach, the lattices bracket it (auto, certified).
    if (count_vectors(pairs) > kMaxCompositionTerms && (engine == Engine::automatic || engine == Engine::certified))
      return certified_lattice_hockey_stick(pairs, eps, {.seconds = options.certified_seconds});
    return finite_composition(pairs, eps);
  }
  if (engine == Engine::closed_form || engine == Engine::finite_sum)
    invalid_input("no {} value of a composed hockey-stick divergence for {} against {}: {}", to_string(engine), p.brief(), q.brief(),
                  engine == Engine::finite_sum ? "the exact sum needs pmfs"
                           : "only Gaussian pairs of equal sigma compose in closed form, and pmfs by exact "
                             "sums; the default engine gives an a-posteriori estimate (contour integral)");
  return std::nullopt;
}

// HS_ε where the largest composed loss decides it (nullopt elsewhere). A composed loss bounded by Σ T_i R_∞(μ_i‖ν_i)
// ≤ ε never exceeds the level: HS is 0 exactly there (the contour would integrate to rounding). At ε within rounding
// of it (composed Laplace at ε = TΔ/b) the contour's integrand has no room left, but HS_ε = E_μ[(1 − e^{ε−L})_+] ≤
// 1 − e^{ε − sup L} bounds it rigorously: [0, that], no contour. R_∞ comes with its interval's kind.
// `inside`: also where ε lies inside the interval of Σ T_i R_∞ (asked once the contour has refused: a supremum search's
// bar of 3e-8 per release makes it 150 ± 4.5e-6 for 150 Laplace releases, and no contour places ε = 150 against it).
std::optional<Estimate> at_the_largest_loss(const Estimate& sup_loss, double eps, bool inside = false) {
  const ErrorKind kind = sup_loss.error_kind == ErrorKind::statistical ? ErrorKind::quadrature : sup_loss.error_kind;
  if (sup_loss.upper <= eps)
    return Estimate::from_value(0, 0, kind, fmt::format("the composed loss is at most sum T_i R_inf = {:.17g} <= eps ({})",
                                                        sup_loss.upper, sup_loss.method));
  const bool near = sup_loss.upper - eps <= 1e-9 * std::max(1.0, eps) || (inside && sup_loss.lower <= eps);
  if (!near || !std::isfinite(sup_loss.upper)) return std::nullopt;
  Estimate e = Estimate::from_interval(0, -std::expm1(eps - sup_loss.upper), kind,
                                       fmt::format("eps is within {:.2g} of the largest composed loss sum T_i R_inf in [{:.17g}, {:.17g}] "
                                                   "({}): 0 <= H_eps <= 1 - e^(eps - sup L)",
                                                   sup_loss.upper - eps, sup_loss.lower, sup_loss.upper, sup_loss.method));
  e.set_value(0);
  return e;
}

// HS_ε from the composed loss's law, by the routes the engine asked has (composition.hpp): the contour (an
// a-posteriori estimate; certified for subsampled Gaussians under engine = certified) and the privacy-loss lattices
// (a certified bracket for every release the certified engine reads). Where the contour is not certified, or refuses,
// the lattices answer (auto, certified); the quadrature engine keeps the contour alone.
// Once the contour has refused a composition, the lattices answer its further values (a root search or a curve asks
// the same composition at many levels; the contour's refusal may take seconds each time).
Cache<std::string, bool>& refused_contours() {
  static Cache<std::string, bool> memo(8);
  return memo;
}

Estimate by_loss_transforms(const std::vector<ReleasePair>& pairs, double eps, const DivergenceOptions& options,
                            const std::function<Estimate()>& by_contour) {
  const bool lattices = options.engine == Engine::automatic || options.engine == Engine::certified;
  const bool certified_contour = options.engine == Engine::certified && !certified_composition_refusal(pairs);
  const CertifiedOptions budget{.seconds = options.certified_seconds};
  if (options.engine == Engine::certified && !certified_contour) return certified_lattice_hockey_stick(pairs, eps, budget);
  const std::string key = composition_key(pairs);
  if (lattices && refused_contours().find(key)) return certified_lattice_hockey_stick(pairs, eps, budget);
  const auto lattice_or = [&](const std::exception& contour_refused) {
    refused_contours().get_or_build(key, [] { return true; });
    try {
      return certified_lattice_hockey_stick(pairs, eps, budget);
    } catch (const NumericalError& e) {
      throw NumericalError(fmt::format("{}; and {}", contour_refused.what(), e.what()));
    }
  };
  try {
    return by_contour();
  } catch (const NumericalError& e) {
    if (!lattices) throw;
    return lattice_or(e);
  } catch (const InvalidArgument& e) {  // the contour's "no engine" for releases with atoms and a density
    if (!lattices) throw;
    return lattice_or(e);
  }
}

// Every composition's HS_ε lies between its largest release's (data processing: the other releases dropped) and the
// basic composition's sum Σ T_i HS_{ε/N}(μ_i‖ν_i), N = Σ T_i (the δ's add when ε is split evenly). Where the
// composed interval is wide (a lattice bracket of 6e-5 for a TV of 1e-30: releases whose losses round to 0) and the
// releases' values are exact or certified, it is narrowed to that bracket, both ends being rigorous.
void narrow_by_releases(const std::vector<ReleasePair>& pairs, double eps, const ReleaseDivergences& release, Estimate& e) {
  if (e.lower > 0 && e.upper <= e.lower * (1 + 1e-3)) return;  // already narrow: nothing to gain
  double n = 0;
  for (const ReleasePair& r : pairs) n += static_cast<double>(r.count);
  const Quantity at[2] = {eps == 0 ? Quantity::tv() : Quantity::hockey_stick(eps), Quantity::hockey_stick(eps / n)};
  double log_lower = -kInf, log_upper = -kInf;
  for (const ReleasePair& r : pairs) {
    const std::vector<Estimate> v = release(*r.mu, *r.nu, at);
    for (const Estimate& x : v)
      if (x.error_kind != ErrorKind::exact && x.error_kind != ErrorKind::certified) return;
    log_lower = std::max(log_lower, v[0].log_lower());
    log_upper = log_add(log_upper, std::log(static_cast<double>(r.count)) + v[1].log_upper());
  }
  log_upper = std::min(log_upper, 0.0);  // (HS ≤ 1)
  if (!(log_lower <= log_upper)) return;
  const Estimate bracket = Estimate::from_log_bounds(log_lower, log_lower, log_upper, ErrorKind::certified, "");
  if (e.intersect(bracket))
    e.method += " (narrowed to the releases' bracket: the largest release's value and the basic composition's sum)";
}

}  // namespace

std::vector<Estimate> composed_divergences(const sim::Law& p, const sim::Law& q, std::span<const Quantity> quantities,
                                           const DivergenceOptions& options, const ReleaseDivergences& release) {
  const std::vector<ReleasePair> pairs = release_pairs(p, q);
  if (pairs.size() == 1 && pairs.front().count == 1) return release(*pairs.front().mu, *pairs.front().nu, quantities);
  std::vector<Estimate> out(quantities.size());
  add_up_additive(pairs, quantities, release, out);
  // Hockey-stick and TV: the composed loss.
  std::optional<ContourIntegral> contour;
  std::optional<Estimate> sup_loss;  // Σ T_i R_∞, asked once
  std::optional<double> loss_bound;  // a bound of |composed loss| (both directions' R_∞), asked once
  for (std::size_t i = 0; i < quantities.size(); ++i) {
    if (options.progress) options.progress(i, quantities.size());
    if (additive(quantities[i])) continue;
    throw_if_interrupted();  // between values (a profile of thousands of epsilons stops within one of them)
    // The additive quantities above add up the one-release values, each widened for lumped outcomes; the composed
    // loss below has no such widening: a lumped factor is refused here (read now, not when the composition is built,
    // so that a factor built lazily is built only when computed with).
    for (const ReleasePair& r : pairs) {
      sim::refuse_lumped(*r.mu, "power (composed hockey-stick and TV)");
      sim::refuse_lumped(*r.nu, "power (composed hockey-stick and TV)");
    }
    const double eps = level_of(quantities[i]);
    const auto start = std::chrono::steady_clock::now();
    if (auto e = composed_without_contour(pairs, eps, options, p, q)) {
      out[i] = std::move(*e);
      out[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      continue;
    }
    if (!sup_loss) {
      // Asked once: where R_∞ cannot be found (its supremum not located within the engine's budget), the largest
      // loss is unknown, which only leaves the shortcut below unused — not a reason to fail, nor to search again at
      // every level.
      try {
        sup_loss = composed_sup_loss(pairs, release, false);
      } catch (const NumericalError& e) {
        sup_loss = Estimate::from_interval(0, std::numeric_limits<double>::infinity(), ErrorKind::quadrature,
                                           fmt::format("sum T_i R_inf not found: {}", e.what()));
      }
    }
    if (auto e = at_the_largest_loss(*sup_loss, eps)) {
      out[i] = std::move(*e);
      continue;
    }
    const auto by_contour = [&]() {
      if (!contour) contour.emplace(pairs);
      if (options.engine == Engine::certified) {
        // The double-precision contour gives the line's abscissa and the size of the value (they set the work, not
        // the enclosure).
        const Estimate estimate = contour->hockey_stick(eps);
        return certified_composed_hockey_stick(pairs, eps, contour->abscissa(eps), estimate.log_value());
      }
      // Where the composed loss is bounded on both sides (Laplace releases), the contour bounds its aliasing: |S| is
      // at most the larger of Σ T_i R_∞(μ_i‖ν_i) and Σ T_i R_∞(ν_i‖μ_i). Asked once; infinite otherwise.
      if (!loss_bound) {
        loss_bound = std::numeric_limits<double>::infinity();
        if (std::isfinite(sup_loss->upper))
          if (const Estimate reverse = composed_sup_loss(pairs, release, true); std::isfinite(reverse.upper))
            loss_bound = std::max(sup_loss->upper, reverse.upper);
      }
      return contour->hockey_stick(eps, *loss_bound);
    };
    try {
      out[i] = by_loss_transforms(pairs, eps, options, by_contour);
    } catch (const NumericalError& e) {
      auto inside = at_the_largest_loss(*sup_loss, eps, true);
      if (!inside) throw;
      out[i] = std::move(*inside);
      out[i].method += fmt::format(" (the contour refused: {})", e.what());
    }
    narrow_by_releases(pairs, eps, release, out[i]);
    out[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return out;
}

}  // namespace privamp::verify
