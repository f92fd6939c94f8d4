#include "numerics/constants.hpp"
#include "verify/divergence/prepared_pair.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/log_space.hpp"
#include "verify/divergence/generators.hpp"
#include "verify/divergence/loss_enclosure.hpp"
#include "verify/divergence/work.hpp"

namespace privamp::verify {

namespace {

// True if μ's tail on one side decays slower than ν's (the likelihood ratio is unbounded there).
// Whether tail a decays strictly slower than tail b (then the loss grows without bound there: R_∞ = inf). Tails read
// off a formula's derivatives are known to a relative 1e-6 (and a quadratic part below 1e-12 of the linear one is
// rounding): they count as heavier only by more than that margin, otherwise the supremum search decides.
bool heavier(const sim::TailShape& a, const sim::TailShape& b) {
  // An unmodelled tail's slope or curvature depends on where it was read: the model cannot say which tail is heavier
  // (the loss of −|x|^β against −|x − m|^β is bounded for β < 1, although the slopes differ where they were read).
  if (a.unmodelled || b.unmodelled) return false;
  if (!a.estimated && !b.estimated) {
    if (a.quad != b.quad) return a.quad < b.quad;
    return a.lin < b.lin;
  }
  const double scale = std::max({std::fabs(a.lin), std::fabs(b.lin), 1e-300});
  const double qa = a.quad < 1e-12 * scale ? 0 : a.quad, qb = b.quad < 1e-12 * scale ? 0 : b.quad;
  if (std::fabs(qa - qb) > 1e-6 * std::max(qa, qb)) return qa < qb;
  return a.lin < b.lin - 1e-6 * scale;
}

// Where the quadrature engine's scan cannot resolve a pair of densities: scales that differ by more than 1e8 (a peak
// narrower than the scan step of the other law) or locations more than 1e12 scales apart (the loss then rounds away).
// Refused rather than answered wrongly.
void check_resolvable(const sim::Law& p, const sim::Law& q) {
  const double sp = p.scale(), sq = q.scale(), ratio = std::max(sp / sq, sq / sp);
  if (!(ratio <= 1e8))
    invalid_input("the laws' scales differ by a factor {:.3g} (mu: {:.3g}, nu: {:.3g}); the quadrature "
                  "engine resolves ratios up to 1e8", ratio, sp, sq);
  // Its windows reach 2^60 scales out from the laws' locations: beyond 1e300 they leave the doubles (a scale of
  // 1.7e308 made the scan's ladder endless: bad_alloc). The divergences do not change when both laws are rescaled.
  const double reach = std::max({sp, sq, std::fabs(p.location()), std::fabs(q.location())});
  if (!(reach <= 1e300))
    invalid_input("the laws' scales or locations reach {:.3g} (mu: scale {:.3g} at {:.3g}; nu: scale {:.3g} at {:.3g}); "
                  "the quadrature engine's windows hold laws up to 1e300 in doubles: rescale both laws by one factor "
                  "(the divergences do not change)", reach, sp, p.location(), sq, q.location());
  const double offset = std::fabs(p.location() - q.location()) / std::min(sp, sq);
  if (!(offset <= 1e12))
    invalid_input("the laws' locations are {:.3g} scales apart (mu at {:.6g}, nu at {:.6g}); the "
                  "quadrature engine resolves offsets up to 1e12 scales", offset, p.location(),
                  q.location());
}

// Each location once (a mixture of 40,000 components at 100 locations gave 40,000 anchors, each laddered by the scan).
std::vector<double> distinct(std::vector<double> a) {
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

}  // namespace

PreparedPair::PreparedPair(const sim::Law& p_, const sim::Law& q_, double rel_tol) : p(p_), q(q_) {
  if (p.dimension() != 1 || q.dimension() != 1)
    invalid_input("this engine needs one-dimensional laws; d-dimensional Gaussians have closed forms only");
  const std::optional<sim::PairLoss> joint = p.loss_against(q);
  // Atoms on the union of locations (both lists are sorted).
  const auto pa = p.atoms(), qa = q.atoms();
  std::size_t i = 0, j = 0;
  while (i < pa.size() || j < qa.size()) {
    if (j == qa.size() || (i < pa.size() && pa[i].x < qa[j].x)) {
      atom_log_p.push_back(pa[i++].log_mass);
      atom_log_q.push_back(-kInf);
      if (joint) atom_loss.push_back(kInf);
    } else if (i == pa.size() || qa[j].x < pa[i].x) {
      atom_log_p.push_back(-kInf);
      atom_log_q.push_back(qa[j++].log_mass);
      if (joint) atom_loss.push_back(-kInf);
    } else {
      if (joint) atom_loss.push_back(joint->atom(pa[i].x));
      atom_log_p.push_back(pa[i++].log_mass);
      atom_log_q.push_back(qa[j++].log_mass);
    }
  }
  if (joint) {
    loss_error = joint->error;
    for (double& l : atom_loss)
      if (std::isnan(l)) throw NumericalError("internal: the joint laws' loss is undefined at an atom");
  }
  for (std::size_t k = 0; k < atom_log_p.size(); ++k)
    if (atom_log_p[k] > -kInf && atom_log_q[k] == -kInf) not_absolutely_continuous = true;

  p_has_density = p.continuous_mass() > 0;
  if (p_has_density && q.continuous_mass() > 0) check_resolvable(p, q);
  if (p_has_density) {
    const bool q_has_density = q.continuous_mass() > 0;
    const sim::Interval sp = p.support(), sq = q.support();
    if (!q_has_density || sp.lo < sq.lo || sp.hi > sq.hi) not_absolutely_continuous = true;
    // After Ctrl-C a density is NaN (no throw: the integrand may be called from GSL's C code): each engine then gives
    // up on its value at once, and the entry point raises the interrupt.
    // The same once the value's density work is spent (verify/divergence/work.hpp): plain_divergences then refuses it.
    const double p_cost = p.computation().density_cost, q_cost = q.computation().density_cost;
    point_cost = p_cost + q_cost;
    density.log_p = [&law = p, p_cost](double x) {
      return interrupt_requested() || !charge_density_work(p_cost) ? std::nan("") : law.log_density(x);
    };
    density.log_q = [&law = q, q_cost](double x) {
      return interrupt_requested() || !charge_density_work(q_cost) ? std::nan("") : law.log_density(x);
    };
    density.p_anchors = distinct(p.anchors());
    density.anchors = density.p_anchors;
    // ν's anchors matter where ν has a density (a purely atomic ν of 10^6 outcomes would only slow the scan).
    if (q_has_density) {
      density.q_anchors = distinct(q.anchors());
      for (double a : density.q_anchors) density.anchors.push_back(a);
      density.anchors = distinct(std::move(density.anchors));
    }
    // The loss scan alone evaluates both densities at about 15 points per anchor, and a value's integrals take as
    // much again: refused before it starts where the scan needs more than half a value's density work (a mixture of
    // 8,000 Gaussians spent the whole of it on each of three values, 20 s, before being refused).
    if (const double scan = (15.0 * static_cast<double>(density.anchors.size()) + 1000) * point_cost; scan > kMaxDensityWork / 2)
      invalid_input("the quadrature engine would evaluate the densities of {} and {} more than {:.0e} times ({} anchors, "
                    "{:g} closed-form densities per point, as a mixture costs one per component): fewer mixture "
                    "components, or another engine", p.brief(), q.brief(), kMaxDensityWork / 2, density.anchors.size(), point_cost);
    density.scale = q_has_density ? std::min(p.scale(), q.scale()) : p.scale();
    for (const double f : {p.shape().fine_scale, q_has_density ? q.shape().fine_scale : 0.0})
      if (f > 0 && f < density.scale / 16) density.fine_scale = density.fine_scale > 0 ? std::min(density.fine_scale, f) : f;
    density.lo = sp.lo;
    density.hi = sp.hi;
    density.q_lo = q_has_density ? q.support().lo : sp.lo;
    density.q_hi = q_has_density ? q.support().hi : sp.hi;
    density.rel_tol = rel_tol;
    if (joint) density.loss = joint->density;
    plain_densities = !joint && q_has_density;
  }
}

// L = log p − log q rounds by ~4·eps·(|log p| + |log q|). Where that is not negligible (1%) against the largest |L|
// across the mass of μ (laws that nearly coincide: gaussian(4e-18, 0.5) against gaussian(0, 0.5) has L = 0 exactly
// at almost every double), the rounding is carried as a loss error like that of jointly computed laws, so that
// every quantity is evaluated over the range of losses it allows and a positive divergence is never a silent
// [0, 0]. Probed where μ's density is within e^{−60} of its peak; once per pair, and only for
// the quantities that can be affected (not the direct Rényi route, which is taken only for laws far apart).
void PreparedPair::check_loss_rounding() {
  if (rounding_checked) return;
  rounding_checked = true;
  if (!plain_densities) return;
  // A few points around each anchor, up to 8 scales out (cheap: ~40 density pairs; the scan is not needed).
  std::vector<double> xs, lp, lq;
  for (double a : density.anchors)
    for (double k : {-8.0, -4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0, 8.0}) xs.push_back(a + k * p.scale());
  double peak = -kInf;
  for (double x : xs) {
    lp.push_back(density.log_p(x));
    lq.push_back(density.log_q(x));
    peak = std::max(peak, lp.back());
  }
  double rounding = 0, largest = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (!(lp[i] >= peak - 60) || !std::isfinite(lq[i])) continue;
    rounding = std::max(rounding, 4 * std::numeric_limits<double>::epsilon() * (std::fabs(lp[i]) + std::fabs(lq[i]) + 1));
    largest = std::max(largest, std::fabs(lp[i] - lq[i]));
  }
  if (rounding > 1e-2 * largest) {
    loss_error = rounding;
    loss_error_from_rounding = true;
  }
}

const LossScan<double>& PreparedPair::loss_scan() {
  if (!scan) scan = scan_loss(density);
  return *scan;
}

bool PreparedPair::renyi_tail_diverges(double alpha, bool* estimated) const {
  if (!p_has_density) return false;
  auto side = [&](const sim::TailShape& tp, const sim::TailShape& tq) {
    if (tp.bounded()) return false;
    if (estimated) *estimated = tp.estimated || tq.estimated;
    if (tq.bounded()) return true;
    // Tails the model does not describe (read at different radii, −|x|^1.5 against −|x − 1|^1.5 + 0.1 sin x would
    // "diverge"): not decided here, the integral decides.
    if (tp.unmodelled || tq.unmodelled) return false;
    const double quad = alpha * tp.quad + (1 - alpha) * tq.quad;
    if (std::fabs(quad) > 1e-14 * (alpha * tp.quad + (alpha - 1) * tq.quad)) return quad < 0;
    return alpha * tp.lin + (1 - alpha) * tq.lin < 0;
  };
  return side(p.left_tail(), q.left_tail()) || side(p.right_tail(), q.right_tail());
}

bool PreparedPair::renyi_tail_marginal(double alpha) const {
  if (!p_has_density) return false;
  auto side = [&](const sim::TailShape& tp, const sim::TailShape& tq) {
    if (tp.bounded() || tq.bounded() || tp.unmodelled || tq.unmodelled) return false;
    const double tol = tp.estimated || tq.estimated ? 1e-6 : 64 * std::numeric_limits<double>::epsilon();
    const double quad = alpha * tp.quad + (1 - alpha) * tq.quad, lin = alpha * tp.lin + (1 - alpha) * tq.lin;
    return std::fabs(quad) <= tol * (alpha * tp.quad + (alpha - 1) * tq.quad) &&
           std::fabs(lin) <= tol * (alpha * std::fabs(tp.lin) + (alpha - 1) * std::fabs(tq.lin));
  };
  return side(p.left_tail(), q.left_tail()) || side(p.right_tail(), q.right_tail());
}

bool PreparedPair::loss_outgrows_density() {
  if (!p_has_density) return false;
  // A law that cannot be evaluated as far out as the scan goes (a convolution refuses beyond the accuracy it
  // declares) leaves the question open: the integral's own tail rules stand.
  const LossScan<double>* scanned = nullptr;
  try {
    scanned = &loss_scan();
  } catch (const NumericalError&) {
    return false;
  }
  const LossScan<double>& s = *scanned;
  // The local powers of the loss and of −log p between the last two usable scan points at one end (x, log p and
  // the loss finite, log p < 0 < L), each read as Δ log y / Δ log |x|.
  auto side = [&](bool right) {
    std::vector<std::size_t> use;
    const std::size_t n = s.x.size();
    for (std::size_t k = 0; k < n && use.size() < 2; ++k) {
      const std::size_t i = right ? n - 1 - k : k;
      if (std::isfinite(s.log_p[i]) && s.log_p[i] < 0 && std::isfinite(s.loss[i]) && s.loss[i] > 0 && s.x[i] != 0) use.push_back(i);
    }
    if (use.size() < 2) return false;
    const std::size_t o = use[0], i = use[1];
    const double spread = std::log(std::fabs(s.x[o]) / std::fabs(s.x[i]));
    if (!(spread > 0) || !(s.loss[o] > s.loss[i]) || !(s.log_p[o] < s.log_p[i])) return false;
    const double power_loss = std::log(s.loss[o] / s.loss[i]) / spread, power_p = std::log(s.log_p[o] / s.log_p[i]) / spread;
    return power_loss > power_p + 0.05;
  };
  return (!std::isfinite(density.hi) && side(true)) || (!std::isfinite(density.lo) && side(false));
}

void Part::add(double log_v, double rel) { add(log_v, rel, rel); }

void Part::add(double log_v, double rel, double rel_below) {
  if (log_v == -kInf) return;
  const double total = log_add(log_value, log_v);
  if (total == kInf) {  // an integral that is +inf as far as doubles tell: nothing bounds it
    log_value = kInf;
    rel_error = rel_error_below = kInf;
    return;
  }
  // An unbounded part (rel = inf) stays unbounded, however small its value: 0·inf is not 0 here.
  auto weighted = [total](double r, double log_part) { return r == kInf ? kInf : r * std::exp(log_part - total); };
  rel_error = (log_value == -kInf ? 0 : weighted(rel_error, log_value)) + weighted(rel, log_v);
  rel_error_below = (log_value == -kInf ? 0 : weighted(rel_error_below, log_value)) + weighted(rel_below, log_v);
  log_value = total;
}

void Part::add(const Part& other) {
  add(other.log_value, other.rel_error, other.rel_error_below);
  // Infinite exactly if either part is: an estimated +inf only when no exact one stands beside it.
  infinite_estimated = infinite && other.infinite ? infinite_estimated && other.infinite_estimated
                       : infinite                 ? infinite_estimated
                                                  : other.infinite_estimated;
  infinite = infinite || other.infinite;
  work += other.work;
}

RenyiRoute first_renyi_route(double alpha) { return alpha - 1 < 0.1 ? RenyiRoute::excess : RenyiRoute::direct; }

bool wants_excess_route(const Part& direct_part) { return !direct_part.infinite && direct_part.log_value < 0.5; }

Part atom_part(const PreparedPair& pair, const Quantity& quantity, RenyiRoute route, int push) {
  Part part;
  const std::size_t n = pair.atom_log_p.size();
  part.work = static_cast<long>(n);
  if (n == 0) return part;
  const double alpha = quantity.parameter;
  const bool q_weighted = quantity.kind == Quantity::Kind::kl ||
                          (quantity.kind == Quantity::Kind::renyi && route == RenyiRoute::excess);
  // Each term e^{x} carries the rounding of its exponent, ~eps·(|x| + |log p| + |log q|)·(sensitivity), in
  // proportion to its weight: the sum of term·magnitude over the sum of terms is the relative rounding error.
  LogSumAccumulator<double> sum, weighted;
  for (std::size_t k = 0; k < n; ++k) {
    const double lp = pair.atom_log_p[k], lq = pair.atom_log_q[k];
    if (lp > -kInf && lq == -kInf) {
      if (quantity.kind == Quantity::Kind::renyi || quantity.kind == Quantity::Kind::kl) {
        part.infinite = true;
        return part;
      }
      sum.add(lp);  // HS: the atom of μ lies outside ν's atoms and counts in full
      weighted.add(lp + std::log(std::fabs(lp) + 1));
      continue;
    }
    double term = -kInf, magnitude = 1;
    const bool joint = !pair.atom_loss.empty();
    const double l = joint && lp > -kInf ? pair.atom_loss[k] : lp - lq;  // −inf where μ has no atom
    // Rounding of the loss, in units of eps: of log p − log q, or, for a joint loss (relatively accurate; its own
    // error is evaluated by `push`), of the loss itself.
    // An atom that μ does not have (p = 0 exactly) has the loss −inf exactly: nothing to amplify.
    const double loss_error = lp == -kInf ? 0 : joint ? std::fabs(l) + 1e-300 : std::fabs(lp) + std::fabs(lq);
    // The convex generators over the loss's range ±δ (see DensityPair::loss_push).
    auto generator = [&](auto log_g) {
      const double d = pair.loss_error;
      if (push == 0 || d == 0) return log_g(l);
      if (push > 0) return std::max(log_g(l + d), log_g(l - d));
      return std::fabs(l) <= d ? -kInf : log_g(l > 0 ? l - d : l + d);
    };
    switch (quantity.kind) {
      case Quantity::Kind::renyi:
        if (q_weighted) {
          term = lq + generator([alpha](double x) { return log_renyi_generator(x, alpha); });
          magnitude = std::fabs(lq) + loss_error * std::min(renyi_generator_sensitivity(l, alpha), 1e250);
        } else if (lp > -kInf) {
          term = alpha * lp + (1 - alpha) * lq;
          magnitude = alpha * std::fabs(lp) + (alpha - 1) * std::fabs(lq);
        }
        break;
      case Quantity::Kind::kl:
        term = lq + generator([](double x) { return log_kl_generator(x); });
        magnitude = std::fabs(lq) + loss_error * std::min(kl_generator_sensitivity(l), 1e250);
        break;
      case Quantity::Kind::hockey_stick:
      case Quantity::Kind::tv: {
        const double eps = quantity.kind == Quantity::Kind::tv ? 0.0 : quantity.parameter;
        if (l > eps) {
          term = lp + log1mexp(eps - l);
          magnitude = std::fabs(lp) + loss_error * std::min(std::exp(eps - l) / -std::expm1(eps - l), 1e250);
        }
        break;
      }
      case Quantity::Kind::renyi_inf: break;
    }
    if (!std::isfinite(term)) continue;
    sum.add(term);
    weighted.add(term + std::log(magnitude + 1));
  }
  const double rel = sum.value() == -kInf ? 0.0
                                          : 8 * kEps * std::exp(weighted.value() - sum.value()) +
                                                kEps * static_cast<double>(n);
  part.add(sum.value(), rel);
  return part;
}

Estimate finish(const Part& part, const Quantity& quantity, ErrorKind kind, const std::string& method,
                RenyiRoute route) {
  Estimate e;
  switch (quantity.kind) {
    case Quantity::Kind::renyi: {
      if (part.infinite && part.infinite_estimated) {
        Estimate inf = Estimate::infinite(method + " (a tail of the integrand does not decay, as read off the formulas' derivatives)");
        inf.error_kind = ErrorKind::quadrature;  // an estimate's conclusion, not an exact one
        return inf;
      }
      if (part.infinite) return Estimate::infinite(method);
      const double t = quantity.parameter - 1;
      const double rel = std::min(part.rel_error, 0.5);
      if (part.rel_error > 0.5) {
        // A wide or unbounded integral (a tail the quadrature could not bound: rel_error = inf): the interval from
        // its lower end (or 0) to its upper end (or +inf), never a cap that hides the unbounded side.
        const double log_i = route == RenyiRoute::excess ? log_add(0.0, part.log_value) : part.log_value;
        const double log_hi = route == RenyiRoute::excess ? log_add(0.0, part.log_value + std::log1p(part.rel_error))
                                                          : part.log_value + std::log1p(part.rel_error);
        // Below, only the quadrature's own error counts (an unbounded tail only adds mass): R ≥ what was integrated.
        const double below = std::min(part.rel_error_below, 1.0);
        const double log_lo = part.log_value == kInf ? -kInf  // infinite as far as doubles tell: no lower end but 0
                              : route == RenyiRoute::excess ? log_add(0.0, part.log_value + std::log1p(-below))
                                                            : part.log_value + std::log1p(-below);
        e = Estimate::from_value(std::max(0.0, log_i / t), 0, kind, method);
        e.set_upper(log_hi == kInf ? kInf : std::max(e.value, log_hi / t));
        e.set_lower(std::clamp(log_lo / t - 4 * kEps * std::fabs(log_lo) / t, 0.0, e.value));
        e.add_error(ErrorPart::quadrature, e.upper - e.value);
        break;
      }
      if (route == RenyiRoute::excess) {
        // R = log1p(J)/(α−1); |d log1p(J)| = J/(1+J) · |dJ|/J.
        const double log1p_j = log_add(0.0, part.log_value);
        const double err = rel * std::exp(part.log_value - log1p_j) / t + 4 * kEps * log1p_j / t;
        e = Estimate::from_value(log1p_j / t, err, kind, method);
      } else {
        e = Estimate::from_value(part.log_value / t, -std::log1p(-rel) / t + 4 * kEps * std::fabs(part.log_value) / t,
                                 kind, method);
      }
      break;
    }
    case Quantity::Kind::kl:
      if (part.infinite) return Estimate::infinite(method);
      e = part.log_value == -kInf ? Estimate::from_value(0, 0, kind, method)
                                  : Estimate::from_log(part.log_value, part.rel_error, kind, method);
      break;
    case Quantity::Kind::hockey_stick:
    case Quantity::Kind::tv:
      if (part.log_value == -kInf) e = Estimate::from_value(0, 0, kind, method);
      else e = Estimate::from_log(part.log_value, part.rel_error, kind, method);
      break;
    case Quantity::Kind::renyi_inf: throw NumericalError("internal: renyi_inf is not finished from parts");
  }
  e.work = part.work;
  return e;
}

namespace {

// Maxima of the loss that the scan stepped over (loss_enclosure.hpp), where both laws have enclosures and the loss
// is computed from their densities: branch and bound over the scanned range, in three parts — the inner half around
// μ's location and the outer quarters on unbounded sides. nullopt when nothing above the scan's maximum `found` (by
// more than the tolerance) is found, or without enclosures: the scan's result stands. Otherwise the scan's reading of
// the loss is wrong, and with it what it says beyond its ends: the largest loss found is the lower end, and the upper
// end is the bound over the range where the support is bounded, or where the bound completed and the outer parts
// reach no higher than the inner half; +inf otherwise (a loss that may grow outwards, beyond what was searched).
std::optional<Estimate> stepped_over_maxima(PreparedPair& pair, double found, double found_error, const std::string& method) {
  if (pair.density.loss) return std::nullopt;
  const auto& x = pair.loss_scan().x;
  if (x.size() < 2) return std::nullopt;
  const double a = x.front(), b = x.back(), c = std::clamp(pair.p.location(), a, b);
  const double log_error = pair.p.log_density_error() + pair.q.log_density_error();
  const double tolerance = std::max(1e-6 * std::max(1.0, std::fabs(found)), found_error) + log_error;
  const bool left_open = !std::isfinite(pair.density.lo), right_open = !std::isfinite(pair.density.hi);
  const double inner_a = left_open ? c - 0.5 * (c - a) : a, inner_b = right_open ? c + 0.5 * (b - c) : b;
  const auto inner = bound_loss(pair.p, pair.q, inner_a, inner_b, tolerance);
  if (!inner) return std::nullopt;
  double best = inner->best, upper = inner->bound;
  long work = inner->evaluations;
  bool rising = !inner->complete;
  for (const auto& [from, to] : {std::pair{a, inner_a}, std::pair{inner_b, b}}) {
    if (!(from < to)) continue;
    const auto outer = bound_loss(pair.p, pair.q, from, to, tolerance);
    if (!outer) return std::nullopt;
    best = std::max(best, outer->best);
    upper = std::max(upper, outer->bound);
    work += outer->evaluations;
    rising = rising || !outer->complete || outer->best > inner->bound + tolerance;
  }
  if (!(best > found + tolerance)) return std::nullopt;
  rising = rising && (left_open || right_open);
  Estimate e = Estimate::from_interval(std::max(0.0, best - log_error), rising ? kInf : upper + log_error, ErrorKind::quadrature,
                                       method + (rising ? " (branch and bound on the laws' enclosures: maxima the scan stepped over, "
                                                          "and none bounded beyond them: no upper end)"
                                                        : " (branch and bound on the laws' enclosures: maxima the scan stepped over)"));
  e.work = work + pair.loss_scan().evaluations;
  return e;
}

}  // namespace

Estimate renyi_inf(PreparedPair& pair, const std::string& method) {
  if (pair.not_absolutely_continuous) return Estimate::infinite(method);
  double best = -kInf, err = 0;
  for (std::size_t k = 0; k < pair.atom_log_p.size(); ++k) {
    const double lp = pair.atom_log_p[k];
    if (lp == -kInf) continue;
    const double l = pair.atom_loss.empty() ? lp - pair.atom_log_q[k] : pair.atom_loss[k];
    best = std::max(best, l);
    err = std::max(err, 4 * kEps * (std::fabs(lp) + std::fabs(pair.atom_log_q[k])));
  }
  err += pair.loss_error;
  ErrorKind kind = ErrorKind::exact;
  long work = static_cast<long>(pair.atom_log_p.size());
  if (pair.p_has_density) {
    const bool left = heavier(pair.p.left_tail(), pair.q.left_tail()), right = heavier(pair.p.right_tail(), pair.q.right_tail());
    if (left || right) {
      const sim::TailShape& a = left ? pair.p.left_tail() : pair.p.right_tail();
      const sim::TailShape& b = left ? pair.q.left_tail() : pair.q.right_tail();
      if (!a.estimated && !b.estimated) return Estimate::infinite(method);
      Estimate e = Estimate::infinite(method + " (a tail of mu decays slower than nu's, as read off the formulas' derivatives)");
      e.error_kind = ErrorKind::quadrature;  // an estimate's conclusion, not an exact one
      return e;
    }
    const auto sup = sup_loss(pair.density, pair.loss_scan());
    if (sup.value == kInf) return Estimate::infinite(method);
    if (sup.error == kInf) {
      // Still rising at the scan's unbounded end (sup_loss): at least what was seen, at most +inf.
      Estimate e = Estimate::from_value(std::max(std::max(best, sup.value), 0.0), 0, ErrorKind::quadrature,
                                        method + " (the loss still rises at the end of the scan: no upper end)");
      e.set_upper(kInf);
      e.set_lower(std::max(0.0, std::max(best, sup.value) - (err + 1e-10 * std::fabs(sup.value))));
      e.work = work + sup.evaluations + pair.loss_scan().evaluations;
      return e;
    }
    if (auto missed = stepped_over_maxima(pair, std::max(best, sup.value), sup.error, method)) return *missed;
    if (sup.value > best) best = sup.value;
    err = std::max(err, sup.error + 1e-10 * std::max(1.0, std::fabs(sup.value)));  // Brent: √eps in x, eps in L
    kind = ErrorKind::quadrature;
    work += sup.evaluations + pair.loss_scan().evaluations;
  }
  Estimate e = Estimate::from_value(std::max(best, 0.0), err, kind, method);
  e.work = work;
  return e;
}

}  // namespace privamp::verify
