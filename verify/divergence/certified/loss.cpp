// The certified engine: enclosures of the privacy loss L - eps and of its derivative on an interval.
#include "verify/divergence/certified/internal.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <vector>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/laplace.hpp"
#include "sim/laws/mixture.hpp"
#include "sim/laws/projected.hpp"
#include "sim/laws/shifted.hpp"

namespace privamp::verify::certified_detail {

// ---- enclosures of the privacy loss L − ε on an interval (sign tests, branch and bound) -----------------------

// (log f_a)' − (log f_r)' over the interval x, written without cancellation when the shapes agree: a constant
// for Gaussians of one scale, exactly 0 for Laplaces of one scale on the same side of their centres.
Ball relative_derivative(const Active& a, const Active& r, const Ball& x, slong prec) {
  const Piece& A = *a.piece;
  const Piece& R = *r.piece;
  Ball d;
  if (!A.laplace && !R.laplace && A.s == R.s) {  // (m_a − m_r)/s²
    arb_sub(d.get(), A.m.get(), R.m.get(), prec);
    arb_div(d.get(), d.get(), A.s2.get(), prec);
    return d;
  }
  if (same_shape(a, r)) return d;  // exactly 0
  auto single = [&](const Active& p) {
    Ball v;
    if (p.piece->sum()) {  // (sign/s)(G'(τ)/G(τ) − 1), τ = sign·(x − m)/s ≥ 0
      Ball tau, pv, dv;
      arb_sub(tau.get(), x.get(), p.piece->m.get(), prec);
      div_d(tau.get(), tau.get(), p.sign > 0 ? p.piece->s : -p.piece->s, prec);
      g_value(pv.get(), *p.piece, tau, prec);
      g_derivative(dv.get(), *p.piece, tau, prec);
      arb_div(v.get(), dv.get(), pv.get(), prec);
      arb_sub_si(v.get(), v.get(), 1, prec);
      div_d(v.get(), v.get(), p.sign > 0 ? p.piece->s : -p.piece->s, prec);
    } else if (p.piece->laplace) {
      arb_set_si(v.get(), p.sign > 0 ? -1 : 1);
      div_d(v.get(), v.get(), p.piece->s, prec);
    } else {
      arb_sub(v.get(), p.piece->m.get(), x.get(), prec);
      arb_div(v.get(), v.get(), p.piece->s2.get(), prec);
    }
    return v;
  };
  Ball t = single(r);
  d = single(a);
  arb_sub(d.get(), d.get(), t.get(), prec);
  return d;
}

// p'/p − f_r'/f_r over an interval = Σ π_i ((log f_i)' − (log f_r)') with π_i = w_i f_i/p ∈ [0, 1], Σ π_i = 1:
// inside the hull of the relative derivatives (tight on long intervals), and equal to the π-weighted sum with
// the weights as balls (tight on short ones); the intersection of both.
Ball log_derivative(const Segment& seg, const Active& r, const Ball& x, slong prec) {
  Ball hull;
  bool first = true;
  std::vector<Ball> rel;
  rel.reserve(seg.size());
  for (const Active& a : seg) {
    rel.push_back(relative_derivative(a, r, x, prec));
    if (first) hull = rel.back();
    else arb_union(hull.get(), hull.get(), rel.back().get(), prec);
    first = false;
  }
  if (seg.size() == 1) return hull;
  Complex z, total, t;
  acb_set_arb(z.get(), x.get());
  relative_sum(total.get(), seg, r, z.get(), prec);
  Ball sum;
  for (std::size_t i = 0; i < seg.size(); ++i) {
    log_relative(t.get(), seg[i], r, z.get(), prec);
    acb_exp(t.get(), t.get(), prec);
    Ball pi;
    arb_div(pi.get(), acb_realref(t.get()), acb_realref(total.get()), prec);
    arb_mul(pi.get(), pi.get(), rel[i].get(), prec);
    arb_add(sum.get(), sum.get(), pi.get(), prec);
  }
  Ball out;
  if (!arb_is_finite(sum.get()) || !arb_intersection(out.get(), hull.get(), sum.get(), prec)) return hull;
  return out;
}

Ball loss_at(const Segment& p, const Segment& q, const Ball& x, const Ball& eps, slong prec) {
  Complex z, lp, lq;
  acb_set_arb(z.get(), x.get());
  const Active r = q.front();
  relative_log(lp.get(), p, r, z.get(), 0, prec);
  relative_log(lq.get(), q, r, z.get(), 0, prec);
  Ball out;
  arb_sub(out.get(), acb_realref(lp.get()), acb_realref(lq.get()), prec);
  arb_sub(out.get(), out.get(), eps.get(), prec);
  return out;
}

Ball interval_ball(double u, double v, slong prec) {
  Ball out;
  arf_t a, b;
  arf_init(a);
  arf_init(b);
  arf_set_d(a, u);
  arf_set_d(b, v);
  arb_set_interval_arf(out.get(), a, b, prec);
  arf_clear(a);
  arf_clear(b);
  return out;
}

// L − ε over [u, v] by the centred form L(c) + L'([u, v])·[−w/2, w/2].
// `constant` is set when L' is exactly 0 there (Laplaces of one scale on one side of their centres).
Ball loss_on(const Segment& p, const Segment& q, double u, double v, const Ball& eps, slong prec,
             bool* constant) {
  const double c = u + (v - u) / 2;
  Ball at_c = loss_at(p, q, Ball(c), eps, prec);
  Ball x = interval_ball(u, v, prec);
  Ball d = log_derivative(p, q.front(), x, prec), dq = log_derivative(q, q.front(), x, prec);
  arb_sub(d.get(), d.get(), dq.get(), prec);
  if (constant) *constant = arb_is_zero(d.get());
  Ball half = interval_ball(-(v - u) / 2, (v - u) / 2, prec);
  arb_mul(d.get(), d.get(), half.get(), prec);
  arb_add(at_c.get(), at_c.get(), d.get(), prec);
  // The natural extension (each relative log evaluated on the whole interval) is tight where the centred form is
  // not: a loss that is tiny but has a wide derivative range (a mixture weight of 1e-9). Both enclose L − ε.
  Complex z, lp, lq;
  acb_set_arb(z.get(), x.get());
  relative_log(lp.get(), p, q.front(), z.get(), 0, prec);
  relative_log(lq.get(), q, q.front(), z.get(), 0, prec);
  Ball natural;
  arb_sub(natural.get(), acb_realref(lp.get()), acb_realref(lq.get()), prec);
  arb_sub(natural.get(), natural.get(), eps.get(), prec);
  Ball both;
  if (arb_is_finite(natural.get()) && arb_intersection(both.get(), at_c.get(), natural.get(), prec)) return both;
  return at_c;
}

}  // namespace privamp::verify::certified_detail
