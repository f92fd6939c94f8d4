// Certified laws of projected Gaussian chains (sim/laws/chain_form.hpp) and their divergences: R_α, KL, HS_ε, TV, R_∞.
//
// The chain X_t = Π_[lo,hi](ψ_t(X_{t−1}) + N(0, s²)) is followed in law on N equal cells of [lo, hi] plus atoms (the
// ends, and the starting points). Of ν (the second law) the engine keeps, for every cell C, enclosures of its mass
// ν(C) and first moment ∫_C (x − c) dν; of the difference d = μ − ν the same and a bound V ≥ |d|(C). A step maps
// them exactly up to remainders that are bounded, not estimated: with z = ψ(x) for x in the source cell C_j, z_ℓ a
// lattice point near ψ(c_j) and g(z) the kernel's mass of a target cell (or its first moment, or the mass sent to an
// end), Taylor's theorem gives
//   ∫_{C_j} g(ψ(x)) dν = g(z_ℓ) ν(C_j) + g'(z_ℓ) E1 + R,   |R| ≤ ½ sup|g''| ∫ (ψ − z_ℓ)² d|ν|,
//   E1 = ∫ (ψ(x) − z_ℓ) dν = (ψ(c_j) − z_ℓ) ν(C_j) + ψ'(c_j) ∫(x − c_j) dν ± ½ sup|ψ''| (h/2)² |ν|(C_j)
// (where ψ'' is unbounded on the cell, a kink, the last term is the oscillation of ψ' times h/2). g, g' at lattice
// points are tabulated once in ball arithmetic (Arb): Gaussian masses of a cell, φ at the cell's ends, the first
// moment; g'' of a cell's mass is ∫ φ'' over the cell's offsets (|g''| ≤ h sup|φ''|), that of its first moment the
// trapezoid rule's error for ∫ φ' (≤ h³/12 sup|φ'''|), with the suprema over lattice cells tabulated too. So each
// step's error is second order in h/s. Masses of ν are also sandwiched to first order (min and max of the kernel over
// the source cell) and the two enclosures intersected; the step where the chains differ applies the kernels'
// difference jointly. The bound V of the difference's variation follows from |d|(C) ≤ |d(C)| + h² sup_C |δ'|, with
// |δ'| ≤ Σ_j V_j sup|φ'| (chain_steps.cpp).
//
// The divergence: with r = dμ/dν − 1 and a convex R with R(0) = 0 (Integrand below),
//   e^{(α−1) R_α(μ‖ν)} = 1 + ∫ R(r) dν,   R(r) = (1 + r)^α − 1 − α r     (∫ r dν = d([lo, hi]) = 0 exactly),
//   KL(μ‖ν) = ∫ R(r) dν,                   R(r) = (1 + r) log(1 + r) − r,
//   HS_ε(μ‖ν) = ∫ R(r) dν,                 R(r) = (r − (e^ε − 1))_+        (TV at ε = 0),
// and R_∞ = log(1 + sup r). Below, Jensen on each cell (the perspective m R(d/m) is jointly convex): ∫_C R(r) dν ≥
// ν(C) R(d(C)/ν(C)) — the divergence of the laws coarsened to the cells (data processing); sup r ≥ each cell's mean
// ratio. Above, each cell's density and difference fitted by their mass and first moment (within 25/96 sup|''| h²),
// where F(f, δ) = f R(δ/f) is bounded at the cell's ends (convex along the cell); else the range of r over the cell
// (ν's density is log-Lipschitz: |(log f)'(y)| ≤ max_z |y − z|/s² over the last step's ψ-range; δ varies by at most
// h sup|δ'|). Atoms are points (their r is d/ν exactly). Every double operation's rounding is carried (each sum keeps
// the sum of the magnitudes it rounded; products of balls add their radii).
//
// What is certified is the chain as privamp holds it: its parameters as doubles (the noise s as stored), ψ through
// interval arithmetic on the map (sim/formulas/enclosure.hpp: C library functions widened by 4 ulps, as for every
// certified hypothesis).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "numerics/cache.hpp"
#include "numerics/errors.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/projected.hpp"
#include "numerics/interrupt.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/certified/chain_parts.hpp"
#include "verify/divergence/certified/internal.hpp"

namespace privamp::verify {

namespace {

using namespace chain_detail;
constexpr double kCellsPerNoise = 40;   // the first resolution: h ≤ s/40 for the narrowest noise
constexpr long kMinCells = 64, kMaxCells = 4096;
constexpr double kMaxPairs = 6e7;       // cell pairs over all steps and resolutions (about half a second on one core)
constexpr int kMaxDoublings = 3;        // resolutions after the first
constexpr double kGoodWidth = 1e-2;     // relative width of the divergence at which the resolution stops doubling

// One cell's or atom's share. Below, Jensen: ∫_C R(r) dν ≥ m R(d/m), which decreases in m and is smallest at the end
// of d nearest 0 (R is convex with its minimum 0 at 0); the supremum of r is at least the cell's mean ratio. Above,
// for an atom the largest m R(d/m) over the balls (at the least mass); for a cell its mass times the largest R over
// the range [r_lo, r_hi] that the cell's data allow.
struct Share {
  double lo = 0, hi = 0, sup_lo = -1, sup_hi = -1;
};

Share share(const DBall& m, const DBall& dm, double r_lo, double r_hi, bool point, const Integrand& R) {
  Share out;
  const double m_hi = m.hi(), m_lo = std::max(0.0, m.lo());
  const double near = dm.lo() > 0 ? dm.lo() : dm.hi() < 0 ? dm.hi() : 0.0;
  if (near != 0 && m_hi > 0) out.lo = m_hi * R(near > 0 ? down(near / m_hi) : up(near / m_hi)).first * (1 - 4 * kUnit);
  if (m_hi > 0) out.sup_lo = down(dm.lo() >= 0 ? dm.lo() / m_hi : m_lo > 0 ? dm.lo() / m_lo : -1.0);
  if (point) {
    if (!(m_lo > 0)) {
      out.hi = out.sup_hi = kInf;
      return out;
    }
    r_lo = down(dm.lo() / m_lo);
    r_hi = up(dm.hi() / m_lo);
  }
  out.sup_hi = std::max(-1.0, r_hi);
  out.hi = (point ? m_lo : m_hi) * std::max(R(std::max(-1.0, r_lo)).second, R(std::max(-1.0, r_hi)).second) * (1 + 4 * kUnit);
  return out;
}

}  // namespace

Enclosed chain_detail::enclose(const Grid& g, const Measure& nu, const Measure& d, double s, double z_lo, double z_hi, const Integrand& R) {
  Enclosed out;
  double lo_sum = 0, hi_sum = 0;
  long terms = 0;
  auto add = [&](const Share& sh) {
    lo_sum += sh.lo;
    hi_sum += sh.hi;
    out.sup_lo = std::max(out.sup_lo, sh.sup_lo);
    out.sup_hi = std::max(out.sup_hi, sh.sup_hi);
    ++terms;
  };
  const double h = g.h_up, h_lo = down(g.h.lo);
  const DBall h_ball = from(g.h);
  const DBall h2_ball = h_ball * h_ball;
  // Second order, where the cell's data allow: f and δ are their affine fits (mass and first moment) within
  // e ≤ 25/96 sup|''| h² (Taylor at the centre); F(f, δ) = f R(δ/f) decreases in f and, on each side of 0, grows with
  // |δ|, so F(f, δ) ≤ G(y) = max over δ' ∈ δ_aff(y) ± e_δ of F(f_aff(y) − e_f, δ'), a maximum of convex functions of y,
  // and ∫_C G ≤ h (G(left) + G(right))/2. The ratio of two affine functions is monotone, so r's largest value is at an
  // end too. Nothing where the fit minus its error is not positive.
  auto affine = [&](const DBall& m0, const DBall& m1, const DBall& d0, const DBall& d1, double kf, double kd) {
    std::optional<Share> none;
    const double h2 = up(h * h);
    const double ef = up(0.2605 * up(kf * h2)), ed = up(0.2605 * up(kd * h2));
    Share sh;
    double total = 0;
    for (int side = -1; side <= 1; side += 2) {
      const DBall six{6.0 * side, 0};
      const DBall fe = quotient(m0, h_ball) + quotient(six * m1, h2_ball);  // the fit at c ± h/2: n0/h ± 6 n1/h²
      const DBall de = quotient(d0, h_ball) + quotient(six * d1, h2_ball);
      const double f_lo = down(fe.lo() - ef);
      if (!(f_lo > 0)) return none;
      const double r1 = down(down(de.lo() - ed) / f_lo), r2 = up(up(de.hi() + ed) / f_lo);
      total += f_lo * std::max(R(std::max(-1.0, r1)).second, R(std::max(-1.0, r2)).second);
      sh.sup_hi = std::max(sh.sup_hi, r2);
    }
    sh.hi = up(up(total * up(h / 2)) * (1 + 8 * kUnit));
    return std::optional<Share>(sh);
  };
  for (long k = 0; k < g.cells; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const DBall& m = nu.mass[i];
    const DBall& dm = d.mass[i];
    if (dm.mid == 0 && dm.rad == 0 && d.slope_sup[i] == 0) {
      out.sup_lo = std::max(out.sup_lo, 0.0);
      out.sup_hi = std::max(out.sup_hi, 0.0);
      continue;
    }
    // First order: f is log-Lipschitz (|(log f)'(y)| ≤ max |y − z|/s² over the last step's ψ-range), so
    // f ∈ ν(C)/h e^{±G h}; δ varies by at most h sup|δ'| about its mean d(C)/h.
    const double y_lo = g.lo + static_cast<double>(k) * g.h.lo, y_hi = g.lo + static_cast<double>(k + 1) * g.h.hi;
    const double G = up(up(std::max(std::fabs(y_hi - z_lo), std::fabs(y_lo - z_hi)) + 4 * h) / (s * s) * (1 + 8 * kUnit));
    const double spread = std::exp(up(G * h) * (1 + 4 * kUnit)) * (1 + 8 * kUnit);
    const double f_lo = std::max(0.0, m.lo()) / h / spread * (1 - 8 * kUnit);
    const double f_hi = m.hi() / h_lo * spread * (1 + 8 * kUnit);
    const double dd = up(d.slope_sup[i] * h);
    const double delta_lo = down(dm.lo() / (dm.lo() >= 0 ? h : h_lo) - dd), delta_hi = up(dm.hi() / (dm.hi() >= 0 ? h_lo : h) + dd);
    if (!(f_lo > 0)) {
      if (delta_lo < 0 || delta_hi > 0) hi_sum = out.sup_hi = kInf;
      continue;
    }
    const double r_lo = std::min(delta_lo / f_lo, delta_lo / f_hi) * (1 + 4 * kUnit) - kTiny;
    const double r_hi = std::max(delta_hi / f_lo, delta_hi / f_hi) * (1 + 4 * kUnit) + kTiny;
    Share sh = share(m, dm, r_lo, r_hi, false, R);
    if (const auto second = affine(m, nu.moment[i], dm, d.moment[i], nu.curv_sup[i], d.curv_sup[i])) {
      sh.hi = std::min(sh.hi, second->hi);
      sh.sup_hi = std::min(sh.sup_hi, second->sup_hi);
    }
    add(sh);
  }
  for (std::size_t a = 0; a < nu.atoms.size(); ++a)
    if (d.atoms[a].mid != 0 || d.atoms[a].rad != 0) add(share(nu.atoms[a], d.atoms[a], 0, 0, true, R));
  const double g_err = 2.0 * static_cast<double>(terms + 4) * kUnit;
  out.lo = std::max(0.0, lo_sum * (1 - g_err));
  out.hi = up(hi_sum * (1 + g_err) + static_cast<double>(terms + 1) * kTiny);
  return out;
}

namespace {

// The laws after the last step: ν's (m) and the difference d = μ − ν, with what the final integral needs.
struct Propagated {
  Grid grid;
  Measure m, d;
  double s = 1, z_lo = 0, z_hi = 0;  // the last step's noise and ψ-range
  double pairs = 0;                  // cell pairs computed (the work)
};

Grid make_grid(double lo, double hi, long cells) {
  Grid g{lo, hi, cells, 0, {}, {}};
  g.h = (Enclosure(hi) - Enclosure(lo)) / Enclosure(static_cast<double>(cells));
  g.hp = g.h / Enclosure(static_cast<double>(kLattice));
  g.h_up = up(g.h.hi);
  return g;
}

// What identifies a chain's first `steps` steps on `cells` cells (the cache's keys).
std::string chain_key(const sim::ChainForm& f, std::size_t steps, long cells) {
  std::string key = fmt::format("{:a} {:a} {:a} {}", f.lo, f.hi, f.start, cells);
  for (std::size_t t = 0; t < steps; ++t) key += fmt::format("\x1f{}\x1e{:a}", f.steps[t].id, f.steps[t].s);
  return key;
}

// Propagated laws shared between the quantities and directions of one pair, the theorems checked on it and the rows
// of one process that share a prefix of steps (the law before the steps where the chains differ): a few recent ones,
// in the program's one cache policy (numerics/cache.hpp).
constexpr std::size_t kCachedPropagations = 24;
Cache<std::string, std::shared_ptr<const Propagated>>& propagated_cache() {
  static Cache<std::string, std::shared_ptr<const Propagated>> cache(kCachedPropagations);
  return cache;
}
Cache<std::string, std::shared_ptr<const Measure>>& prefix_cache() {
  static Cache<std::string, std::shared_ptr<const Measure>> cache(kCachedPropagations);
  return cache;
}

std::shared_ptr<const Propagated> propagate_chains(const sim::ChainForm& mu, const sim::ChainForm& nu, long cells) {
  const std::string key = chain_key(mu, mu.steps.size(), cells) + "\x1d" + chain_key(nu, nu.steps.size(), cells);
  if (auto hit = propagated_cache().find(key)) return *hit;
  auto out = std::make_shared<Propagated>();
  const Grid g = make_grid(nu.lo, nu.hi, cells);
  out->grid = g;
  // ν's law m, and d = μ − ν (both start as atoms at the starting points).
  Measure m, d;
  std::size_t first = 0;  // the steps before `first` are the same for both chains, which start at one point
  std::size_t begin = 0;  // the first step to compute (after a cached prefix)
  if (mu.start == nu.start) {
    m = point_measure(g, {{nu.start, 1.0}});
    d = point_measure(g, {{nu.start, 0.0}});
    while (first < nu.steps.size() && mu.steps[first].same_kernel(nu.steps[first])) ++first;
    // The longest cached prefix of ν's law.
    for (std::size_t t = first; t > 0; --t)
      if (auto prefix = prefix_cache().find(chain_key(nu, t, cells))) {
        m = **prefix;
        d = zero_like(m);
        begin = t;
        break;
      }
  } else {
    m = point_measure(g, {{mu.start, 0.0}, {nu.start, 1.0}});
    d = point_measure(g, {{mu.start, 1.0}, {nu.start, -1.0}});
  }
  std::map<double, Tables> tables;  // one per noise
  for (std::size_t t = begin; t < nu.steps.size(); ++t) {
    const sim::ChainStep& sn = nu.steps[t];
    const sim::ChainStep& sm = mu.steps[t];
    const bool differ = !sm.same_kernel(sn);
    const StepGeometry gn = geometry(g, sn, m.atoms_x);
    std::optional<StepGeometry> gm;
    if (differ) gm = geometry(g, sm, m.atoms_x);
    const long need_first = std::min(gn.first, gm ? gm->first : gn.first), need_last = std::max(gn.last, gm ? gm->last : gn.last);
    auto it = tables.find(sn.s);
    if (it == tables.end() || it->second.first > need_first ||
        it->second.first + static_cast<long>(it->second.mass.size()) - 1 < need_last) {
      long lo = need_first, hi = need_last;
      if (it != tables.end()) {
        lo = std::min(lo, it->second.first);
        hi = std::max(hi, it->second.first + static_cast<long>(it->second.mass.size()) - 1);
      }
      if (hi - lo + 1 > kMaxTable)
        throw certified_detail::Refused(fmt::format("the map sends the chain {} cells beyond the interval (at most {} lattice "
                                                    "points are tabulated)", (hi - lo) / kLattice, kMaxTable));
      tables[sn.s] = make_tables(sn.s, g.lo, g.hi, cells, lo, hi);
      it = tables.find(sn.s);
    }
    const Tables& tab = it->second;
    const bool d_zero = d.zero();
    Measure m_next = step_measure(g, gn, tab, m, true);
    if (differ) {
      const Measure b = step_measure(g, *gm, tab, m, false, &gn);  // ν (K^μ − K^ν)
      d = d_zero ? b : combine(step_measure(g, *gm, tab, d, false), b, g.h_up);
      out->z_lo = std::min(gn.z_lo, gm->z_lo);
      out->z_hi = std::max(gn.z_hi, gm->z_hi);
    } else {
      d = d_zero ? zero_like(m_next) : step_measure(g, gn, tab, d, false);
      out->z_lo = gn.z_lo;
      out->z_hi = gn.z_hi;
    }
    out->pairs += static_cast<double>(cells) * static_cast<double>(cells) * (differ ? 4 : d_zero ? 1 : 2);
    out->s = sn.s;
    m = std::move(m_next);
    if (t + 1 == first && begin < first) {
      const auto prefix = std::make_shared<const Measure>(m);
      prefix_cache().get_or_build(chain_key(nu, first, cells), [&] { return prefix; });
    }
  }
  out->m = std::move(m);
  out->d = std::move(d);
  return propagated_cache().get_or_build(key, [&] { return std::shared_ptr<const Propagated>(out); });
}

// One step from a point is a clamped Gaussian: where ψ(start) is a double (a linear map at a representable point),
// the engine for Gaussian pieces integrates it directly, with no cells (nullopt elsewhere).
std::optional<Estimate> one_step_from_point(const sim::ChainForm& mu, const sim::ChainForm& nu, const Quantity& quantity,
                                            const CertifiedOptions& options) {
  if (nu.steps.size() == 1) {
    const Enclosure a = mu.steps[0].map(Enclosure(mu.start)).value, b = nu.steps[0].map(Enclosure(nu.start)).value;
    if (a.is_point() && b.is_point()) {
      // (exact: the centres are the maps' values, proven by their point enclosures; s is the chain's as stored)
      auto gp = std::make_shared<sim::Gaussian>(a.lo, mu.steps[0].s), gq = std::make_shared<sim::Gaussian>(b.lo, nu.steps[0].s);
      gp->set_parameters_exact();
      gq->set_parameters_exact();
      const sim::Clamped p(gp, mu.lo, mu.hi), q(gq, nu.lo, nu.hi);
      Estimate e = certified_divergence(p, q, quantity, options);
      e.method += " (one step of the chain from a point: a clamped Gaussian)";
      return e;
    }
  }
  return std::nullopt;
}

// The integrand R of the quantity (r = dμ/dν − 1).
Integrand integrand_of(const Quantity& quantity) {
  using Kind = Quantity::Kind;
  Integrand R{Integrand::Kind::renyi, quantity.parameter, 0};
  if (quantity.kind == Kind::kl) R.kind = Integrand::Kind::kl;
  if (quantity.kind == Kind::hockey_stick || quantity.kind == Kind::tv) {
    R.kind = Integrand::Kind::hockey;
    R.level = quantity.kind == Kind::tv ? 0.0 : std::expm1(quantity.parameter);
    if (!std::isfinite(R.level)) throw NumericalError(fmt::format("certified engine: e^eps overflows at eps = {}", quantity.parameter));
  }
  return R;
}

// The value from the enclosed ∫ R(r) dν (or the supremum of r), ends rounded outwards.
std::pair<double, double> value_of(const Quantity& quantity, const Enclosed& x) {
  using Kind = Quantity::Kind;
  switch (quantity.kind) {
    case Kind::renyi: {
      const double a1 = quantity.parameter - 1;
      return {down(std::log1p(x.lo) / a1 * (1 - 4 * kUnit)), up(std::log1p(x.hi) / a1 * (1 + 4 * kUnit))};
    }
    case Kind::renyi_inf:
      return {x.sup_lo > -1 ? down(std::log1p(x.sup_lo) * (1 - 4 * kUnit) - kTiny) : -kInf, up(std::log1p(x.sup_hi) * (1 + 4 * kUnit) + kTiny)};
    case Kind::hockey_stick:
    case Kind::tv: return {down(x.lo), std::min(1.0, up(x.hi))};
    case Kind::kl: return {down(x.lo), up(x.hi)};
  }
  return {0, kInf};
}

// The first resolution: kCellsPerNoise cells per noise width, within the budget (fewer for long chains: a wider
// enclosure, still certified).
long first_cells(const sim::ChainForm& nu) {
  double s_min = kInf;
  for (const auto& st : nu.steps) s_min = std::min(s_min, st.s);
  long cells = static_cast<long>(std::ceil(kCellsPerNoise * (nu.hi - nu.lo) / s_min));
  cells = std::clamp(cells, kMinCells, kMaxCells);
  // The first resolution within the budget: fewer cells for long chains (a wider enclosure, still certified).
  const double steps = static_cast<double>(nu.steps.size());
  cells = std::min(cells, static_cast<long>(std::sqrt(kMaxPairs / (2 * steps))));
  if (cells < kMinCells)
    throw NumericalError(fmt::format("certified engine: {} steps need at least {} cells each, beyond its budget of {:g} cell pairs",
                                     nu.steps.size(), kMinCells, kMaxPairs));
  return cells;
}

}  // namespace

std::optional<std::string> certified_chain_refusal(const sim::ChainForm& mu, const sim::ChainForm& nu) {
  if (mu.lo != nu.lo || mu.hi != nu.hi || mu.steps.size() != nu.steps.size())
    return "the two chains differ in their interval or number of steps";
  if (nu.steps.empty()) return "a chain of no steps (its laws are point masses)";
  if (!(nu.lo < nu.hi) || !std::isfinite(nu.lo) || !std::isfinite(nu.hi)) return "the chain's interval is not finite";
  for (std::size_t t = 0; t < nu.steps.size(); ++t)
    if (mu.steps[t].s != nu.steps[t].s || !(nu.steps[t].s > 0)) return "the two chains' noises differ at a step";
  return std::nullopt;
}

Estimate certified_chain_divergence(const sim::ChainForm& mu, const sim::ChainForm& nu, const Quantity& quantity,
                                    const CertifiedOptions& options) {
  if (const auto why = certified_chain_refusal(mu, nu)) throw NumericalError("certified engine: " + *why);
  if (auto e = one_step_from_point(mu, nu, quantity, options)) return std::move(*e);
  const Integrand R = integrand_of(quantity);
  long cells = first_cells(nu);
  const auto start = std::chrono::steady_clock::now();
  std::optional<Estimate> best;
  double pairs = 0, previous_width = kInf;
  int doublings = 0;
  for (;; cells *= 2) {
    std::shared_ptr<const Propagated> run;
    try {
      run = propagate_chains(mu, nu, cells);
    } catch (const certified_detail::Refused& e) {
      throw NumericalError(fmt::format("certified engine: {}", e.what()));
    }
    pairs += run->pairs;
    const auto [lo, hi] = value_of(quantity, enclose(run->grid, run->m, run->d, run->s, run->z_lo, run->z_hi, R));
    if (std::isfinite(hi))
      best = Estimate::from_interval(std::max(0.0, lo), hi, ErrorKind::certified,
                                     fmt::format("certified chain propagation ({} cells, second-order cell moments with bounded "
                                                 "remainders; Jensen below, second-order cell fits above)",
                                                 cells));
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Doubling the cells divides a second-order width by about 4: stop when the enclosure is narrow, when it no longer
    // halves (rounding, not the cells, sets it), or when the next resolution would pass the budget.
    const double width = best ? best->upper - best->lower : kInf;
    const bool narrow = best && width <= kGoodWidth * std::max(best->upper, 1e-300);
    const bool stalled = best && previous_width < kInf && width > 0.35 * previous_width;
    previous_width = width;
    const double next = static_cast<double>(cells) * 2;
    if (narrow || stalled || next > kMaxCells || ++doublings > kMaxDoublings || pairs + 4 * run->pairs > kMaxPairs || elapsed * 5 > options.seconds) break;
  }
  if (!best) throw NumericalError("certified engine: the chain's enclosure is not finite (a cell where nu's mass is not bounded below)");
  best->work = static_cast<long>(pairs);
  return *best;
}

}  // namespace privamp::verify
