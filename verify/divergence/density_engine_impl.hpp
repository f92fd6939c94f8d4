// Implementation of the density-pair engine (density_pair.hpp); included by the instantiation files only.
#pragma once

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include "numerics/errors.hpp"
#include "numerics/log_integrate_impl.hpp"
#include "numerics/log_space.hpp"
#include "verify/divergence/density_pair.hpp"
#include "verify/divergence/generators.hpp"

namespace privamp::verify {

namespace detail {

template <class Real>
Real inf() {
  return std::numeric_limits<Real>::infinity();
}

template <class Real>
Real loss_at(const DensityPair<Real>& pair, const Real& x, Real* log_p_out = nullptr) {
  const Real lp = pair.log_p(x);
  if (log_p_out) *log_p_out = lp;
  if (lp == -inf<Real>()) return -inf<Real>();
  if (pair.loss) return pair.loss(x);
  const Real lq = pair.log_q(x);
  if (lq == -inf<Real>()) return inf<Real>();
  return lp - lq;
}

// log G(L) for a convex generator G ≥ 0 with G(0) = 0, with L known to ±pair.loss_delta: the largest value over
// that range (push +1) or the smallest (push −1); the nominal value otherwise.
template <class Real, class LogG>
Real pushed_generator(const DensityPair<Real>& pair, const Real& l, LogG log_g) {
  using std::abs;
  using std::max;
  const Real d = pair.loss_delta;
  if (pair.loss_push == 0 || d == 0) return log_g(l);
  if (pair.loss_push > 0) return max(Real(log_g(Real(l + d))), Real(log_g(Real(l - d))));
  if (abs(l) <= d) return -inf<Real>();
  return log_g(Real(l > 0 ? l - d : l + d));
}

template <class Real>
bool inside(const DensityPair<Real>& pair, const Real& x) {
  return x > pair.lo && x < pair.hi;
}

// Where L crosses the level between a and b, L(a) and L(b) on opposite sides of it: TOMS 748 when both are finite,
// bisection otherwise.
template <class Real>
Real level_root(const DensityPair<Real>& pair, const Real& level, Real a, Real b, long& evaluations) {
  auto f = [&](const Real& x) {
    ++evaluations;
    return loss_at(pair, x) - level;
  };
  Real fa = f(a), fb = f(b);
  using std::isfinite;
  if (isfinite(fa) && isfinite(fb) && fa != 0 && fb != 0) {
    boost::uintmax_t iters = 200;
    const auto r = boost::math::tools::toms748_solve(
        f, a, b, fa, fb, boost::math::tools::eps_tolerance<Real>(std::numeric_limits<Real>::digits - 3), iters);
    return (r.first + r.second) / 2;
  }
  for (int k = 0; k < 2000; ++k) {
    const Real m = (a + b) / 2;
    if (!(m > a && m < b)) break;
    const Real fm = f(m);
    if ((fm > 0) == (fa > 0)) {
      a = m;
      fa = fm;
    } else {
      b = m;
    }
  }
  return (a + b) / 2;
}

// Intervals of μ's support where L − level > 0.
template <class Real>
std::vector<std::pair<Real, Real>> level_regions(const DensityPair<Real>& pair, const LossScan<Real>& scan,
                                                 const Real& level, long& evaluations) {
  std::vector<std::pair<Real, Real>> regions;
  const std::size_t n = scan.x.size();
  if (n == 0) return regions;
  // A region narrower than the scan's spacing hides between two points on the same side of the level: the sampled
  // loss then shows a local maximum below the level (or a local minimum above it) next to it. Each such extremum
  // is refined (Brent) and, where the refined one crosses the level, its point joins the scan, so that both
  // crossings are found. This finds every region of a loss that is unimodal between the scan's kinks (the
  // log-concave families: sums of Laplaces against a Laplace have two such regions 0.7 scales apart).
  std::vector<Real> xs(scan.x), ls(scan.loss);
  {
    std::vector<std::pair<Real, Real>> extra;
    using std::isfinite;
    for (std::size_t i = 1; i + 1 < n && extra.size() < 64; ++i) {
      const Real a = scan.loss[i - 1], m = scan.loss[i], b = scan.loss[i + 1];
      if (!isfinite(a) || !isfinite(m) || !isfinite(b)) continue;
      const bool peak = m <= level && m >= a && m >= b && (m > a || m > b);
      const bool dip = m > level && m <= a && m <= b && (m < a || m < b);
      if (!peak && !dip) continue;
      const Real sign = peak ? Real(-1) : Real(1);
      boost::uintmax_t iters = 100;
      auto g = [&](const Real& x) {
        ++evaluations;
        const Real l = loss_at(pair, x);
        return isfinite(l) ? sign * l : Real(std::numeric_limits<Real>::max());
      };
      const auto [x, v] = boost::math::tools::brent_find_minima(g, scan.x[i - 1], scan.x[i + 1],
                                                                std::numeric_limits<Real>::digits / 2, iters);
      const Real l = sign * v;
      if (peak ? l > level : l <= level) extra.emplace_back(x, l);
    }
    if (!extra.empty()) {
      for (const auto& [x, l] : extra) {
        const auto at = std::lower_bound(xs.begin(), xs.end(), x);
        const auto k = at - xs.begin();
        if (at != xs.end() && *at == x) continue;
        xs.insert(at, x);
        ls.insert(ls.begin() + k, l);
      }
    }
  }
  auto side = [&](std::size_t i) { return ls[i] > level; };
  bool open = side(0);
  Real start = pair.lo;  // a run that starts at the first scan point extends to the support's lower end
  for (std::size_t i = 1; i < xs.size(); ++i) {
    const bool now = side(i);
    if (now == open) continue;
    const Real r = level_root(pair, level, xs[i - 1], xs[i], evaluations);
    if (now) start = r;
    else regions.emplace_back(start, r);
    open = now;
  }
  if (open) regions.emplace_back(start, pair.hi);
  return regions;
}

// Absolute rounding error of a log-integrand built from log p, log q and the loss: each log-density is
// relatively accurate, so terms carry eps·|log p| and eps·|log q|, multiplied by the weights the integrand gives them.
template <class Real>
Real rounding(const Real& weight_p, const Real& lp, const Real& weight_q, const Real& lq) {
  using std::abs;
  using std::isfinite;
  const Real eps = std::numeric_limits<Real>::epsilon();
  Real e = 8 * eps;
  if (isfinite(lp)) e += 4 * eps * abs(weight_p * lp);
  if (isfinite(lq)) e += 4 * eps * abs(weight_q * lq);
  return e;
}

// Rounding of h = log p + log g(L) where g(L) amplifies the error of L = log p − log q by `amplification(L)`. Not
// capped (a cap hid the cancellation of L when the laws nearly coincide): next to a zero of g the integrand's own
// factor cancels the amplification.
template <class Real, class A>
auto loss_rounding(const DensityPair<Real>& pair, A amplification) {
  return [&pair, amplification](Real x) {
    using std::abs;
    using std::isfinite;
    using std::min;
    const Real eps = std::numeric_limits<Real>::epsilon();
    const Real lp = pair.log_p(x), lq = pair.log_q(x);
    if (!isfinite(lp) || !isfinite(lq)) return Real(8 * eps);
    // A jointly computed loss carries its own error (the caller evaluates the loss's range); only p rounds here.
    if (pair.loss) return Real(8 * eps + 4 * eps * abs(lp));
    const Real amp = min(Real(amplification(Real(lp - lq))), Real(1e250));
    // Nearly equal laws: the loss's rounding up to loss_delta is covered by evaluating the quantity over the
    // losses it allows (engines.cpp); only the rounding beyond it is amplified here.
    using std::max;
    const Real uncovered = max(Real(0), Real(4 * eps * (abs(lp) + abs(lq)) - pair.loss_delta));
    return Real(8 * eps + 4 * eps * abs(lp) + uncovered * amp);
  };
}

// The scan stops where μ's density has dropped by e^{−1e7}; a level ε beyond the largest loss seen there may still
// be reached further out, where L keeps increasing (Gaussian pairs: L is linear). Then the march goes on.
template <class Real>
bool end_rising_below(const LossScan<Real>& s, bool right, const Real& level) {
  const std::size_t n = s.x.size();
  if (n < 2) return false;
  const std::size_t end = right ? n - 1 : 0, inner = right ? n - 2 : 1;
  using std::isfinite;
  return isfinite(s.loss[end]) && s.loss[end] <= level && s.loss[end] > s.loss[inner] && s.log_p[end] > -inf<Real>();
}

template <class Real>
bool needs_extension(const DensityPair<Real>& pair, const LossScan<Real>& s, const Real& level) {
  using std::isfinite;
  return (!isfinite(pair.hi) && end_rising_below(s, true, level)) || (!isfinite(pair.lo) && end_rising_below(s, false, level));
}

template <class Real>
LossScan<Real> extend_scan(const DensityPair<Real>& pair, LossScan<Real> s, const Real& level) {
  using std::isfinite;
  for (const bool right : {true, false}) {
    if (right ? isfinite(pair.hi) : isfinite(pair.lo)) continue;
    std::vector<Real> xs, ls, ps;
    for (int k = 0; k < 2000 && end_rising_below(s, right, level); ++k) {
      const std::size_t n = s.x.size();
      const Real x_end = right ? s.x[n - 1] : s.x[0], x_in = right ? s.x[n - 2] : s.x[1];
      const Real x = x_end + 2 * (x_end - x_in);
      if (!isfinite(x)) break;
      Real lp;
      const Real l = loss_at(pair, x, &lp);
      ++s.evaluations;
      if (right) {
        s.x.push_back(x);
        s.loss.push_back(l);
        s.log_p.push_back(lp);
      } else {
        s.x.insert(s.x.begin(), x);
        s.loss.insert(s.loss.begin(), l);
        s.log_p.insert(s.log_p.begin(), lp);
      }
    }
  }
  return s;
}

// How far the integrators' marches into infinite ends must go: where both laws have dropped e^{−1e7} below their
// largest value at the anchors (or vanish, or x leaves the double range). Beyond, every integrand made of p and q
// (p·G(L), q·G(L)) is negligible as long as the log-densities are doubles; the Rényi integrand p^α q^{1−α} may
// still rise out there, and the march then follows it (log_integrate). Without this reach a dip of the integrand
// deeper than the margin stopped the march before a second mode (−2|x|^1.5 + x²/(1 + 0.01|x|) peaks at ±1100).
template <class Real>
std::pair<Real, Real> far_reach(const DensityPair<Real>& pair) {
  using std::isfinite;
  using std::max;
  const Real far_drop = -kFarLogDensity;
  Real top_p = -inf<Real>(), top_q = -inf<Real>(), lo = 0, hi = 0;
  for (const Real& a : pair.anchors) {
    top_p = max(top_p, pair.log_p(a));
    top_q = max(top_q, pair.log_q(a));
    lo = std::min(lo, a);
    hi = max(hi, a);
  }
  // A law that cannot be evaluated out there (one computed numerically refuses beyond the accuracy it declares)
  // ends the reach where it stands.
  auto negligible = [&](const Real& x) {
    try {
      const Real lp = pair.log_p(x), lq = pair.log_q(x);
      return (!(lp > -inf<Real>()) || lp < top_p - far_drop) && (!(lq > -inf<Real>()) || lq < top_q - far_drop);
    } catch (const NumericalError&) {
      return true;
    }
  };
  auto march = [&](Real x, const Real& direction) {
    Real step = pair.scale;
    for (int k = 0; k < 1100; ++k) {
      const Real next = x + direction * step;
      if (!isfinite(next)) break;
      x = next;
      if (negligible(x)) break;
      step *= 2;
    }
    return x;
  };
  const bool lo_open = !isfinite(pair.lo) || !isfinite(pair.q_lo), hi_open = !isfinite(pair.hi) || !isfinite(pair.q_hi);
  return {lo_open ? march(lo, Real(-1)) : Real(0), hi_open ? march(hi, Real(1)) : Real(0)};
}

template <class Real>
LogIntegrateOptions<Real> options_for(const DensityPair<Real>& pair, const Real& lo, const Real& hi,
                                      std::function<Real(Real)> h_error = {}) {
  LogIntegrateOptions<Real> o;
  std::tie(o.reach_lo, o.reach_hi) = far_reach(pair);
  o.h_error = std::move(h_error);
  o.lo = lo;
  o.hi = hi;
  o.scale = pair.scale;
  o.rel_tol = pair.rel_tol;
  o.margin = Real(std::numeric_limits<Real>::digits) * Real(0.7);  // e^{−margin} far below the precision
  return o;
}

template <class Real>
std::vector<Real> anchors_in(const DensityPair<Real>& pair, const Real& lo, const Real& hi) {
  std::vector<Real> a;
  for (const Real& x : pair.anchors)
    if (x > lo && x < hi) a.push_back(x);
  // Features narrower than the scale that are no peak (DensityPair::fine_scale): a ladder 4^k fine scales from each
  // anchor up to the scale (a sum of Laplaces of scales 1e-4 and 1.7: KL off by 6e-7 of itself, R_2000 by 6e-10).
  if (pair.fine_scale > 0)
    for (const Real& x : pair.anchors)
      for (Real r = pair.fine_scale / 4; r < pair.scale; r *= 4)
        for (const Real& y : {Real(x - r), Real(x + r)})
          if (y > lo && y < hi) a.push_back(y);
  return a;
}

// The anchors of the Rényi integrand p^α q^{1−α}, with its tilted modes: a component of μ centred at c against ν
// centred at m puts mass near m + α(c − m) — for Gaussians of equal variance exactly there (α(x−c)² + (1−α)(x−m)²
// is smallest at x = m + α(c − m)); for a Poisson-subsampled Gaussian at order α that is α·Δ, far beyond where the
// laws' own anchors and the scan's geometric steps look. Every pair of anchors of μ and ν gives one point (at most
// 4096 pairs); the integrator's scan then sees the mode and refines it.
template <class Real>
std::vector<Real> renyi_anchors_in(const DensityPair<Real>& pair, const Real& alpha, const Real& lo, const Real& hi) {
  std::vector<Real> a = anchors_in(pair, lo, hi);
  using std::isfinite;
  if (pair.p_anchors.size() * pair.q_anchors.size() > 4096) return a;
  for (const Real& c : pair.p_anchors)
    for (const Real& m : pair.q_anchors) {
      const Real t = m + alpha * (c - m);
      if (isfinite(t) && t > lo && t < hi && t != c) a.push_back(t);
    }
  return a;
}

// Σ over regions of ∫ exp(integrand); relative errors combine as a weighted sum.
template <class Real, class F, class E>
LogIntegral<Real> integrate_regions(const DensityPair<Real>& pair, const std::vector<std::pair<Real, Real>>& regions,
                                    F integrand, E error) {
  LogIntegral<Real> total{-inf<Real>(), Real(0), Real(0), 0, true};
  std::function<Real(Real)> h = integrand;
  Real abs_err_scaled = 0, below_scaled = 0;  // Σ rel_i · e^{log_i − log_total}, accumulated after the total is known
  std::vector<LogIntegral<Real>> parts;
  for (const auto& [a, b] : regions) {
    if (!(a < b)) continue;
    parts.push_back(log_integrate<Real>(h, anchors_in(pair, a, b), options_for<Real>(pair, a, b, error)));
    total.log_value = log_add(total.log_value, parts.back().log_value);
    total.evaluations += parts.back().evaluations;
    total.converged = total.converged && parts.back().converged;
  }
  using std::exp;
  auto weighted = [&](const Real& rel, const Real& log_part) {  // an unbounded part stays unbounded (0·inf is not 0)
    return rel == inf<Real>() ? rel : Real(rel * exp(log_part - total.log_value));
  };
  for (const auto& p : parts)
    if (p.log_value > -inf<Real>()) {
      abs_err_scaled += weighted(p.rel_error, p.log_value);
      below_scaled += weighted(p.rel_error_below, p.log_value);
    }
  total.rel_error = abs_err_scaled;
  total.rel_error_below = below_scaled;
  return total;
}

// A peak of the loss narrower than the scan's spacing, tens of scales out (a bump 30·e^{−(x−20)²/0.1} on a
// Gaussian's log-density: R_∞ = 30 was printed as [0, 6e-8]): the peaks of a uniform probe (probe_peaks) join the
// scan.
template <class Real>
void probe_loss(const DensityPair<Real>& pair, LossScan<Real>& s) {
  if (pair.anchors.empty() || s.x.empty()) return;
  const auto [lo_a, hi_a] = std::minmax_element(pair.anchors.begin(), pair.anchors.end());
  std::vector<privamp::detail::LogPoint<Real>> known;  // the scan so far, sorted
  for (std::size_t i = 0; i < s.x.size(); ++i) known.push_back({s.x[i], s.loss[i]});
  std::sort(known.begin(), known.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  const auto found = privamp::detail::probe_peaks(*lo_a, *hi_a, pair.scale, pair.lo, pair.hi, [&](const Real& x) {
    ++s.evaluations;
    return loss_at(pair, x);
  }, known);
  for (const auto& p : found) {
    Real lp;
    s.x.push_back(p.x);
    s.loss.push_back(loss_at(pair, p.x, &lp));
    s.log_p.push_back(lp);
    ++s.evaluations;
  }
}

}  // namespace detail

template <class Real>
LossScan<Real> scan_loss(const DensityPair<Real>& pair) {
  using std::isfinite;
  LossScan<Real> s;
  std::vector<Real> xs;
  for (const Real& a : pair.anchors)
    if (detail::inside(pair, a)) xs.push_back(a);
  if (isfinite(pair.lo) && isfinite(pair.hi)) {
    for (int k = 1; k < 64; ++k) xs.push_back(pair.lo + (pair.hi - pair.lo) * Real(k) / Real(64));
  }
  if (xs.empty()) xs.push_back(isfinite(pair.lo) ? pair.lo + pair.scale : isfinite(pair.hi) ? pair.hi - pair.scale : Real(0));
  std::sort(xs.begin(), xs.end());
  // A ladder around each anchor and a uniform fill of gaps, so that crossings near the bulk are resolved.
  std::vector<Real> pts = xs;
  for (const Real& a : xs)
    for (int k = -3; k <= 3; ++k) {  // d = scale/8 … 8·scale, counted (d <= 8·scale never failed at 8·scale = inf)
      pts.push_back(a - pair.scale * Real(std::ldexp(1.0, k)));
      pts.push_back(a + pair.scale * Real(std::ldexp(1.0, k)));
    }
  for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
    const Real w = xs[i + 1] - xs[i];
    const int k = static_cast<int>(std::min<double>(32.0, static_cast<double>(w / (pair.scale / 2))));
    for (int j = 1; j < k; ++j) pts.push_back(xs[i] + w * Real(j) / Real(k));
  }
  // A geometric ladder into each finite end of the support (down to 2^-52 of a width): a supremum or a crossing
  // of the loss at the very end of the support (densities that stay positive up to it) is located.
  {
    using std::isfinite;
    const Real width = isfinite(pair.lo) && isfinite(pair.hi) ? Real(pair.hi - pair.lo) : Real(64 * pair.scale);
    for (int k = 6; k <= 52; ++k) {
      const Real d = width * Real(std::ldexp(1.0, -k));
      if (isfinite(pair.lo)) pts.push_back(pair.lo + d);
      if (isfinite(pair.hi)) pts.push_back(pair.hi - d);
    }
  }
  // March into unbounded ends with doubling steps until the density of μ is negligible beyond any use
  // (e^{−1e7}); hockey-stick divergences as small as e^{−125000} (Gaussian, ε = 500) are still located.
  const Real far_drop = -kFarLogDensity;
  Real lp_max = -detail::inf<Real>();
  auto sample = [&](const Real& x) {  // records the loss and log p(x); returns log p(x)
    Real lp;
    const Real l = detail::loss_at(pair, x, &lp);
    ++s.evaluations;
    s.x.push_back(x);
    s.loss.push_back(l);
    s.log_p.push_back(lp);
    return lp;
  };
  for (const Real& x : pts)
    if (detail::inside(pair, x)) lp_max = std::max(lp_max, sample(x));
  auto march = [&](Real x, Real dir) {
    Real step = pair.scale;
    for (int k = 0; k < 400; ++k) {
      x += dir * step;
      step *= 2;
      if (!detail::inside(pair, x) || !isfinite(x)) break;
      const Real lp = sample(x);
      if (lp < lp_max - far_drop || lp == -detail::inf<Real>()) break;
    }
  };
  if (!s.x.empty()) {
    const Real xmax = *std::max_element(s.x.begin(), s.x.end());
    const Real xmin = *std::min_element(s.x.begin(), s.x.end());
    if (!isfinite(pair.hi)) march(xmax, Real(1));
    if (!isfinite(pair.lo)) march(xmin, Real(-1));
  }
  detail::probe_loss(pair, s);
  std::vector<std::size_t> order(s.x.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
  LossScan<Real> sorted;
  sorted.evaluations = s.evaluations;
  for (std::size_t i : order) {
    if (!sorted.x.empty() && sorted.x.back() == s.x[i]) continue;
    sorted.x.push_back(s.x[i]);
    sorted.loss.push_back(s.loss[i]);
    sorted.log_p.push_back(s.log_p[i]);
  }
  return sorted;
}

template <class Real>
LogIntegral<Real> renyi_log_integral(const DensityPair<Real>& pair, Real alpha) {
  std::function<Real(Real)> h = [&](Real x) {
    const Real lp = pair.log_p(x);
    if (lp == -detail::inf<Real>()) return lp;
    const Real lq = pair.log_q(x);
    if (lq == -detail::inf<Real>()) {
      // Where μ's density is already negligible, ν's −inf is one that left the double range (log(1 + x²) at 1e154),
      // not a gap in its support: nothing is concluded from it (the integrand is taken as 0 there, and a tail still
      // rising into it is unbounded: log_integrate).
      if (lp < Real(kFarLogDensity)) return -detail::inf<Real>();
      throw NotAbsolutelyContinuous{};
    }
    return alpha * lp + (1 - alpha) * lq;
  };
  auto err = [&](Real x) { return detail::rounding(alpha, pair.log_p(x), Real(alpha - 1), pair.log_q(x)); };
  return log_integrate<Real>(h, detail::renyi_anchors_in(pair, alpha, pair.lo, pair.hi),
                             detail::options_for<Real>(pair, pair.lo, pair.hi, err));
}

namespace detail {

// log ∫ over q's support of q·G(L), for a generator G given in log form with its sensitivity to errors in L.
// `split` gives the generator's linear part at a large loss (generators.hpp: GeneratorSplit), used where the loss
// is log p − log q exactly (not pushed, not a joint loss).
template <class Real, class LogG, class Sensitivity, class Split>
LogIntegral<Real> q_weighted_integral(const DensityPair<Real>& pair, LogG log_g, Sensitivity sensitivity, Split split,
                                      std::vector<Real> anchors) {
  std::function<Real(Real)> h = [&](Real x) {
    const Real lq = pair.log_q(x);
    if (lq == -inf<Real>()) {
      // (ν's −inf where μ's density is negligible: a density that left the double range, as above)
      if (const Real lp = pair.log_p(x); lp >= Real(kFarLogDensity)) throw NotAbsolutelyContinuous{};
      return lq;
    }
    if (!pair.loss) {
      // At a large loss the generator is increasing: the loss pushed away from 0 is l + δ, towards 0 l − δ.
      const Real lp = pair.log_p(x), l = lp - lq, d = pair.loss_push == 0 ? Real(0) : pair.loss_delta;
      const Real pushed = pair.loss_push > 0 ? l + d : pair.loss_push < 0 ? l - d : l;
      if (l - d > 30)
        if (const auto s = split(pushed)) return Real(s->slope * lp + (1 - s->slope) * lq + s->slope * (pushed - l) + s->rest);
    }
    const Real l = pair.loss ? pair.loss(x) : Real(pair.log_p(x) - lq);
    return lq + pushed_generator(pair, l, log_g);
  };
  auto err = [&](Real x) {
    using std::abs;
    using std::isfinite;
    const Real eps = std::numeric_limits<Real>::epsilon();
    const Real lp = pair.log_p(x), lq = pair.log_q(x);
    if (!isfinite(lq)) return Real(8 * eps);
    if (!isfinite(lp)) return Real(8 * eps + 4 * eps * abs(lq));
    if (pair.loss) return Real(8 * eps + 4 * eps * abs(lq));  // the loss's own error: see loss_push
    using std::min;
    using std::max;
    // When the loss is pushed by loss_delta (the rounding of nearly equal laws, PreparedPair::check_loss_rounding),
    // only the rounding beyond it is amplified here, by the largest sensitivity over the loss's rounding range where
    // that range keeps the loss's sign (the far-negative sensitivity is tiny only where all of it is far below 0),
    // and by the sensitivity at the loss otherwise (next to 0 the integrand's own factor cancels it).
    const Real uncovered = max(Real(0), Real(4 * eps * (abs(lp) + abs(lq)) - pair.loss_delta));
    const Real l = lp - lq;
    const Real amp = l - uncovered <= 0 && l + uncovered >= 0
                         ? min(Real(sensitivity(l)), Real(1e250))
                         : min(max({Real(sensitivity(l)), Real(sensitivity(Real(l - uncovered))), Real(sensitivity(Real(l + uncovered)))}),
                               Real(1e250));
    return Real(8 * eps + 4 * eps * abs(lq) + uncovered * amp);
  };
  return log_integrate<Real>(h, std::move(anchors), options_for<Real>(pair, pair.q_lo, pair.q_hi, err));
}

}  // namespace detail

template <class Real>
LogIntegral<Real> renyi_excess_integral(const DensityPair<Real>& pair, Real alpha) {
  return detail::q_weighted_integral(
      pair, [alpha](Real l) { return log_renyi_generator(l, alpha); },
      [alpha](Real l) { return renyi_generator_sensitivity(l, alpha); },
      [alpha](Real l) { return split_renyi_generator(l, alpha); },
      detail::renyi_anchors_in(pair, alpha, pair.q_lo, pair.q_hi));
}

template <class Real>
LogIntegral<Real> kl_integral(const DensityPair<Real>& pair) {
  return detail::q_weighted_integral(
      pair, [](Real l) { return log_kl_generator(l); }, [](Real l) { return kl_generator_sensitivity(l); },
      [](Real l) { return split_kl_generator(l); },
      detail::anchors_in(pair, pair.q_lo, pair.q_hi));
}

template <class Real>
LogIntegral<Real> hockey_stick_integral(const DensityPair<Real>& pair, const LossScan<Real>& scan, Real eps) {
  long evals = 0;
  const LossScan<Real>* use = &scan;
  LossScan<Real> extended;
  if (detail::needs_extension(pair, scan, eps)) {
    extended = detail::extend_scan(pair, scan, eps);
    use = &extended;
    evals += extended.evaluations - scan.evaluations;
  }
  const auto regions = detail::level_regions(pair, *use, eps, evals);
  auto r = detail::integrate_regions(pair, regions, [&](Real x) {
    Real lp;
    const Real l = detail::loss_at(pair, x, &lp);
    return l > eps ? lp + log1mexp(Real(eps - l)) : -detail::inf<Real>();
  }, detail::loss_rounding(pair, [eps](Real l) {
    using std::exp;
    using std::expm1;
    return Real(exp(eps - l) / -expm1(Real(eps - l)));
  }));
  r.evaluations += evals;
  return r;
}

namespace detail {

// The supremum is approached at an end of the scan (index `best`): the rest of the loss's rise beyond it, added to
// r's error (an unbounded end), or its value one unit in the last place inside a finite end.
template <class Real>
void sup_at_scan_end(const DensityPair<Real>& pair, const LossScan<Real>& scan, std::size_t best, SupResult<Real>& r) {
  using std::isfinite;
  const std::size_t n = scan.x.size();
  // If that end is unbounded, L may still increase beyond it; with doubling steps the remaining increase of a 1/x-type approach is about the last increment.
  const bool right = best + 1 == n;
  const std::size_t inner = right ? n - 2 : 1;
  const bool unbounded = right ? !isfinite(pair.hi) : !isfinite(pair.lo);
  using std::abs;
  if (unbounded) {
    // The scan's steps double out there: a loss approaching its supremum like c − a/|x| gains half as much at
    // each step (what is left is at most the last gain); one that gains as much or more (log(1 + x²)/2 between
    // power-law tails, x²/2 − |x|^1.9) has no supremum the scan can bound: the upper end is +inf.
    // (Gains within the loss's rounding there, 8 eps (|log p| + |log q|), are no rise: a constant loss.)
    const Real last = abs(scan.loss[best] - scan.loss[inner]);
    const std::size_t before = right ? n - 3 : 2;
    const Real previous = n >= 3 ? Real(abs(scan.loss[inner] - scan.loss[before])) : last;
    const Real lp = scan.log_p[best], lq = lp - scan.loss[best];
    const Real rounding = 8 * std::numeric_limits<Real>::epsilon() * (abs(lp) + abs(lq));
    r.error += n >= 3 && last > Real(0.75) * previous && last > rounding ? detail::inf<Real>() : Real(2 * last);
  } else {
    // A finite end: the loss one unit in the last place inside it, and the first-order change over the last
    // step of the ladder (it halves towards the end) as the error.
    const Real end = right ? pair.hi : pair.lo;
    using std::nextafter;
    const Real l = detail::loss_at(pair, Real(nextafter(end, right ? pair.lo : pair.hi)));
    ++r.evaluations;
    if (isfinite(l)) r.value = std::max(r.value, l);
    r.error += abs(scan.loss[best] - scan.loss[inner]);
  }
}

}  // namespace detail

template <class Real>
SupResult<Real> sup_loss(const DensityPair<Real>& pair, const LossScan<Real>& scan) {
  SupResult<Real> r{-detail::inf<Real>(), Real(0), 0};
  const std::size_t n = scan.x.size();
  if (n == 0) return r;
  std::size_t best = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (scan.loss[i] > scan.loss[best]) best = i;
  r.value = scan.loss[best];
  using std::isfinite;
  if (!isfinite(r.value)) return r;
  {
    // L = log p − log q rounds by eps·(|log p| + |log q|) where the supremum is found (far out in a tail the two
    // are large and nearly equal); a jointly computed loss rounds relative to itself.
    using std::abs;
    const Real eps = std::numeric_limits<Real>::epsilon();
    const Real lp = scan.log_p[best], lq = lp - scan.loss[best];
    r.error += pair.loss ? Real(4 * eps * abs(r.value)) : Real(4 * eps * (abs(lp) + abs(lq)));
  }
  if (best > 0 && best + 1 < n) {
    boost::uintmax_t iters = 200;
    auto neg = [&](const Real& x) {
      ++r.evaluations;
      const Real l = detail::loss_at(pair, x);
      return isfinite(l) ? Real(-l) : Real(l == detail::inf<Real>() ? -std::numeric_limits<Real>::max() : std::numeric_limits<Real>::max());
    };
    const int bits = std::numeric_limits<Real>::digits / 2;
    const auto [x, v] = boost::math::tools::brent_find_minima(neg, scan.x[best - 1], scan.x[best + 1], bits, iters);
    r.value = std::max(r.value, Real(-v));
    // Brent places the maximiser to a relative 2^-bits, and a smooth maximum's value to its square; at a cusp (the
    // loss of −|x|^β against −|x − m|^β, β < 1, peaks with infinite slopes at m) the value is off by as much as the
    // loss varies over that bracket. A ternary search narrows the bracket around the maximiser to rounding, and the
    // loss's variation over the final bracket, from its best point to either end, is added to the error.
    using std::abs;
    using std::ldexp;
    using std::max;
    const Real h = ldexp(Real(4), -bits) * max(abs(x), Real(pair.scale));
    Real a = x - h, b = x + h, best_x = x, best_l = Real(-v);
    for (int i = 0; i < 200 && b - a > 4 * std::numeric_limits<Real>::epsilon() * max(abs(best_x), Real(pair.scale)); ++i) {
      const Real m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
      const Real l1 = detail::loss_at(pair, m1), l2 = detail::loss_at(pair, m2);
      r.evaluations += 2;
      if (!isfinite(l1) || !isfinite(l2)) break;
      if (l1 > best_l) best_l = l1, best_x = m1;
      if (l2 > best_l) best_l = l2, best_x = m2;
      if (l1 < l2) a = m1;
      else b = m2;
    }
    r.value = max(r.value, best_l);
    Real variation = 0;
    for (const Real& y : {a, b}) {
      const Real l = detail::loss_at(pair, y);
      ++r.evaluations;
      if (isfinite(l)) variation = max(variation, Real(best_l - l));
    }
    r.error += variation;
  } else if (n >= 2) {
    detail::sup_at_scan_end(pair, scan, best, r);
  }
  return r;
}

}  // namespace privamp::verify
