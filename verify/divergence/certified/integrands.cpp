// The certified engine: the integrands of R_alpha, KL and HS on a segment between breakpoints, and the quadrature.
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

// ---- evaluation on a segment between breakpoints --------------------------------------------------------------


Segment active_on(const Side& side, double u, double v) {
  Segment out;
  for (const Piece& pc : side.pieces)
    if (pc.lo <= u && v <= pc.hi) out.push_back({&pc, pc.laplace ? (u >= pc.m_d ? 1 : -1) : 0});
  return out;
}

// log(w f(z)) of one active piece (an analytic function of z on the segment's branch: entire for a Gaussian or a
// Laplace; for a Laplace sum, log P(τ) is analytic where P does not vanish, which `analytic` asks Arb to check).
void log_piece(acb_t out, const Active& a, const acb_t z, slong prec, int analytic) {
  const Piece& pc = *a.piece;
  acb_t t;
  acb_init(t);
  acb_sub_arb(t, z, pc.m.get(), prec);
  if (!pc.laplace) {  // −(z−m)²/(2s²)
    acb_sqr(t, t, prec);
    acb_div_arb(t, t, pc.s2.get(), prec);
    acb_mul_2exp_si(t, t, -1);
    acb_neg(t, t);
  } else {  // ∓(z−m)/s = −τ
    acb_div_arb(t, t, Ball(pc.s).get(), prec);
    if (a.sign > 0) acb_neg(t, t);
  }
  acb_add_arb(out, t, pc.log_c.get(), prec);
  if (pc.sum()) {  // + log G(τ), τ = −t; the last values are kept (each integrand point asks for each piece twice)
    struct Entry {
      std::uint64_t id = 0;  // the piece's G (0: empty)
      slong prec = 0;
      int analytic = 0;
      Complex tau, value;
    };
    thread_local std::array<Entry, 4> cache;
    thread_local std::size_t next = 0;
    acb_neg(t, t);
    Entry* hit = nullptr;
    for (Entry& e : cache)
      if (e.id == pc.id && e.prec == prec && e.analytic == analytic && acb_equal(e.tau.get(), t)) hit = &e;
    if (!hit) {
      hit = &cache[next++ % cache.size()];
      g_value(hit->value.get(), pc, t, prec);
      acb_log_analytic(hit->value.get(), hit->value.get(), analytic, prec);
      acb_set(hit->tau.get(), t);
      hit->id = pc.id, hit->prec = prec, hit->analytic = analytic;
    }
    acb_add(out, out, hit->value.get(), prec);
  }
  acb_clear(t);
}

// Every density is evaluated relative to a reference piece r of the segment: p = f_r · P̃ with
// P̃ = Σ_i w_i f_i/f_r, and log(w_i f_i/f_r) is written without the cancellation of two large squares when the
// shapes agree (then it is linear in z, or constant). Ball radii then grow with the integrand's own variation,
// not with |z|²/s² times the order α.
void log_relative(acb_t out, const Active& a, const Active& r, const acb_t z, slong prec, int analytic) {
  const Piece& A = *a.piece;
  const Piece& R = *r.piece;
  if (&A == &R) {  // the reference itself: its weight
    acb_set_arb(out, A.log_w.get());
    return;
  }
  Ball c;  // log_c_a − (log_c_r − log_w_r): weight of a, normalisers of a and r
  arb_sub(c.get(), A.log_c.get(), R.log_c.get(), prec);
  arb_add(c.get(), c.get(), R.log_w.get(), prec);
  if (!A.laplace && !R.laplace && A.s == R.s) {  // (m_a − m_r)(2z − m_a − m_r)/(2s²)
    Ball d, m;
    arb_sub(d.get(), A.m.get(), R.m.get(), prec);
    arb_add(m.get(), A.m.get(), R.m.get(), prec);
    acb_mul_2exp_si(out, z, 1);
    acb_sub_arb(out, out, m.get(), prec);
    acb_mul_arb(out, out, d.get(), prec);
    acb_div_arb(out, out, A.s2.get(), prec);
    acb_mul_2exp_si(out, out, -1);
    acb_add_arb(out, out, c.get(), prec);
    return;
  }
  if (same_shape(a, r)) {  // ±(m_a − m_r)/s: constant (log G cancels exactly for two sums with one centre)
    Ball d;
    arb_sub(d.get(), A.m.get(), R.m.get(), prec);
    div_d(d.get(), d.get(), a.sign > 0 ? A.s : -A.s, prec);
    arb_add(d.get(), d.get(), c.get(), prec);
    acb_set_arb(out, d.get());
    return;
  }
  acb_t t;
  acb_init(t);
  log_piece(out, a, z, prec, analytic);
  log_piece(t, r, z, prec, analytic);
  acb_sub(out, out, t, prec);
  acb_add_arb(out, out, R.log_w.get(), prec);
  acb_clear(t);
}

// log f_r(z) (r's weight excluded).
void log_reference(acb_t out, const Active& r, const acb_t z, slong prec, int analytic) {
  log_piece(out, r, z, prec, analytic);
  acb_sub_arb(out, out, r.piece->log_w.get(), prec);
}

// P̃ = Σ w_i f_i/f_r over the segment's pieces, and its log.
void relative_sum(acb_t out, const Segment& seg, const Active& r, const acb_t z, slong prec, int analytic) {
  acb_zero(out);
  acb_t t;
  acb_init(t);
  for (const Active& a : seg) {
    log_relative(t, a, r, z, prec, analytic);
    acb_exp(t, t, prec);
    acb_add(out, out, t, prec);
  }
  acb_clear(t);
}
void relative_log(acb_t out, const Segment& seg, const Active& r, const acb_t z, int analytic, slong prec) {
  if (seg.size() == 1) return log_relative(out, seg.front(), r, z, prec, analytic);
  relative_sum(out, seg, r, z, prec, analytic);
  acb_log_analytic(out, out, analytic, prec);
}

// φ(u) = (1 + u) log(1 + u) − u ≥ 0, by its series Σ_{k≥2} (−1)^k u^k/(k(k−1)) when |u| ≤ 1/8 (no cancellation).
void phi(acb_t out, const acb_t u, int analytic, slong prec) {
  mag_t m;
  mag_init(m);
  acb_get_mag(m, u);
  const bool small = mag_cmp_2exp_si(m, -3) <= 0;
  if (!small) {
    acb_t l;
    acb_init(l);
    acb_add_ui(l, u, 1, prec);
    acb_log_analytic(l, l, analytic, prec);
    acb_add_ui(out, u, 1, prec);
    acb_mul(out, out, l, prec);
    acb_sub(out, out, u, prec);
    acb_clear(l);
    mag_clear(m);
    return;
  }
  const slong terms = prec / 3 + 2;  // |u|^k ≤ 2^{−3k}
  acb_t power, term;
  acb_init(power);
  acb_init(term);
  acb_zero(out);
  acb_mul(power, u, u, prec);
  for (slong k = 2; k < terms + 2; ++k) {
    acb_div_ui(term, power, static_cast<ulong>(k * (k - 1)), prec);
    if (k % 2) acb_sub(out, out, term, prec);
    else acb_add(out, out, term, prec);
    acb_mul(power, power, u, prec);
  }
  // Remainder: |Σ_{k ≥ K} u^k/(k(k−1))| ≤ |u|^K/(1 − |u|) ≤ (8/7)|u|^K.
  mag_t rem;
  mag_init(rem);
  mag_pow_ui(rem, m, static_cast<ulong>(terms + 2));
  mag_mul_ui(rem, rem, 2);
  acb_add_error_mag(out, rem);
  mag_clear(rem);
  mag_clear(m);
  acb_clear(power);
  acb_clear(term);
}



// d/dz log f_a(z) of one piece.
void log_piece_derivative(acb_t out, const Active& a, const acb_t z, slong prec) {
  const Piece& pc = *a.piece;
  if (pc.sum()) {  // (σ/s)(G'(τ)/G(τ) − 1), τ = σ(z − m)/s, σ the side
    Ball side(a.sign > 0 ? pc.s : -pc.s);
    Complex tau, g, dg;
    acb_sub_arb(tau.get(), z, pc.m.get(), prec);
    acb_div_arb(tau.get(), tau.get(), side.get(), prec);
    g_value(g.get(), pc, tau.get(), prec);
    g_derivative(dg.get(), pc, tau.get(), prec);
    acb_div(out, dg.get(), g.get(), prec);
    acb_sub_ui(out, out, 1, prec);
    acb_div_arb(out, out, side.get(), prec);
    return;
  }
  if (pc.laplace) {  // ∓1/s
    acb_set_si(out, a.sign > 0 ? -1 : 1);
    acb_div_arb(out, out, Ball(pc.s).get(), prec);
    return;
  }
  acb_sub_arb(out, z, pc.m.get(), prec);  // −(z − m)/s²
  acb_neg(out, out);
  acb_div_arb(out, out, pc.s2.get(), prec);
}

// d/dz log(w_a f_a/f_r), without cancellation where the shapes agree (as log_relative).
void log_relative_derivative(acb_t out, const Active& a, const Active& r, const acb_t z, slong prec) {
  const Piece& A = *a.piece;
  const Piece& R = *r.piece;
  if (&A == &R || same_shape(a, r)) {
    acb_zero(out);
    return;
  }
  if (!A.laplace && !R.laplace && A.s == R.s) {  // (m_a − m_r)/s²
    Ball d;
    arb_sub(d.get(), A.m.get(), R.m.get(), prec);
    arb_div(d.get(), d.get(), A.s2.get(), prec);
    acb_set_arb(out, d.get());
    return;
  }
  Complex t;
  log_piece_derivative(out, a, z, prec);
  log_piece_derivative(t.get(), r, z, prec);
  acb_sub(out, out, t.get(), prec);
}

// (log P̃)' over the segment's pieces: Σ_i e^{ℓ_i − ℓ_k} ℓ_i' / Σ_i e^{ℓ_i − ℓ_k}, ℓ_i = log(w_i f_i/f_r), relative
// to the piece k that dominates at the ball's centre: where it dominates, the quotient is ℓ_k' plus terms as small
// as e^{ℓ_i − ℓ_k}, instead of the quotient of two balls whose radii are both of the size of P̃'s.
void relative_log_derivative(acb_t out, const Segment& seg, const Active& r, const acb_t z, slong prec) {
  if (seg.size() == 1) return log_relative_derivative(out, seg.front(), r, z, prec);
  std::vector<Complex> l(seg.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < seg.size(); ++i) {
    log_relative(l[i].get(), seg[i], r, z, prec, 0);
    if (arf_cmp(arb_midref(acb_realref(l[i].get())), arb_midref(acb_realref(l[k].get()))) > 0) k = i;
  }
  Complex e, d, total, weighted;
  for (std::size_t i = 0; i < seg.size(); ++i) {
    log_relative_derivative(d.get(), seg[i], r, z, prec);
    if (i == k) {
      acb_one(e.get());
    } else {
      acb_sub(e.get(), l[i].get(), l[k].get(), prec);
      acb_exp(e.get(), e.get(), prec);
    }
    acb_add(total.get(), total.get(), e.get(), prec);
    acb_addmul(weighted.get(), e.get(), d.get(), prec);
  }
  acb_div(out, weighted.get(), total.get(), prec);
}

namespace {

// The Rényi integrand's exponent g = log f_r + α log P̃ + (1 − α) log Q̃ − C.
void renyi_exponent(acb_t out, const Job& j, const Active& r, const acb_t z, int analytic, slong prec) {
  Complex a, b;
  log_reference(out, r, z, prec, analytic);
  relative_log(a.get(), *j.p, r, z, analytic, prec);
  relative_log(b.get(), *j.q, r, z, analytic, prec);
  acb_addmul_arb(out, a.get(), j.alpha.get(), prec);
  acb_addmul_arb(out, b.get(), j.beta.get(), prec);
  acb_sub_arb(out, out, j.shift.get(), prec);
}

// g over a wide ball Z by the centred form g(c) + g'(Z)·(Z − c), intersected with the natural extension g(Z).
// The natural extension adds the radii of α log P̃ and of log f_r, which nearly cancel where the integrand peaks
// (a tilted Gaussian, α large): its bound on Arb's ellipses is then off by e^{~α·radius}, and the quadrature
// subdivides until that is small. The centred form's radius is |g'(Z)|·rad Z, with g' ≈ 0 at the peak.
void renyi_exponent_on_ball(acb_t out, const Job& j, const Active& r, const acb_t z, int analytic, slong prec) {
  renyi_exponent(out, j, r, z, analytic, prec);  // also checks that the logs are analytic on Z
  if (!acb_is_finite(out)) return;
  Complex c, gc, d, t;
  acb_get_mid(c.get(), z);
  renyi_exponent(gc.get(), j, r, c.get(), analytic, prec);
  log_piece_derivative(d.get(), r, z, prec);
  relative_log_derivative(t.get(), *j.p, r, z, prec);
  acb_addmul_arb(d.get(), t.get(), j.alpha.get(), prec);
  relative_log_derivative(t.get(), *j.q, r, z, prec);
  acb_addmul_arb(d.get(), t.get(), j.beta.get(), prec);
  acb_sub(t.get(), z, c.get(), prec);
  acb_addmul(gc.get(), d.get(), t.get(), prec);
  if (!acb_is_finite(gc.get())) return;
  Ball re, im;
  if (arb_intersection(re.get(), acb_realref(out), acb_realref(gc.get()), prec) &&
      arb_intersection(im.get(), acb_imagref(out), acb_imagref(gc.get()), prec))
    acb_set_arb_arb(out, re.get(), im.get());
}

// A ball wider than the rounding of a quadrature node (Arb's bounds on ellipses).
bool wide(const acb_t z) {
  mag_t r, m;
  mag_init(r);
  mag_init(m);
  mag_hypot(r, arb_radref(acb_realref(z)), arb_radref(acb_imagref(z)));
  acb_get_mag(m, z);
  mag_mul_2exp_si(m, m, -40);
  const bool out = mag_cmp(r, m) > 0 && mag_cmp_2exp_si(r, -40) > 0;
  mag_clear(r);
  mag_clear(m);
  return out;
}


// The KL integrand over a wide ball Z, with log p = log f_r + log P̃ and log q in the centred form of
// renyi_exponent_on_ball (α = 1 or 0): as products f_r·P̃ their factors' radii did not cancel, e^{m·rad Z} apart for
// Gaussians m apart, and KL of N(10^4, 1) against N(0, 1) ended [0, e^{97900}] within the budget. Then
// p (log P̃ − log Q̃ − 1) + q, or q φ(P̃/Q̃ − 1) where the ratio is near 1.
void kl_on_ball(acb_t out, const Job& j, const Active& r, const acb_t z, int analytic, slong prec) {
  Job as_p = j, as_q = j;
  arb_one(as_p.alpha.get());
  arb_zero(as_p.beta.get());
  arb_zero(as_q.alpha.get());
  arb_one(as_q.beta.get());
  arb_zero(as_p.shift.get());
  arb_zero(as_q.shift.get());
  Complex lp, lq, a, b, u;
  renyi_exponent_on_ball(lp.get(), as_p, r, z, analytic, prec);
  renyi_exponent_on_ball(lq.get(), as_q, r, z, analytic, prec);
  relative_log(a.get(), *j.p, r, z, analytic, prec);
  relative_log(b.get(), *j.q, r, z, analytic, prec);
  acb_sub(u.get(), a.get(), b.get(), prec);  // log(p/q), f_r cancelled exactly
  acb_exp(lq.get(), lq.get(), prec);
  mag_t m;
  mag_init(m);
  acb_get_mag(m, u.get());
  if (mag_cmp_2exp_si(m, -4) <= 0) {
    acb_expm1(u.get(), u.get(), prec);
    phi(out, u.get(), analytic, prec);
    acb_mul(out, out, lq.get(), prec);
  } else {
    acb_exp(lp.get(), lp.get(), prec);
    acb_sub_ui(u.get(), u.get(), 1, prec);
    acb_mul(out, u.get(), lp.get(), prec);
    acb_add(out, out, lq.get(), prec);
  }
  mag_clear(m);
}
}  // namespace

int integrand(acb_ptr out, const acb_t z, void* param, slong order, slong prec) {
  const Job& j = *static_cast<const Job*>(param);
  if (j.deadline) j.deadline->spend(std::max<slong>(1, prec / 128));  // (tests evaluate integrands without one)
  const int analytic = order != 0;
  const Active r = j.ref();
  acb_t a, b, base;
  acb_init(a);
  acb_init(b);
  acb_init(base);
  if (j.kind != Integrand::renyi) log_reference(base, r, z, prec, analytic);
  switch (j.kind) {
    case Integrand::renyi:  // exp(log f_r + α log P̃ + (1 − α) log Q̃ − C)
      if (wide(z)) renyi_exponent_on_ball(out, j, r, z, analytic, prec);
      else renyi_exponent(out, j, r, z, analytic, prec);
      acb_exp(out, out, prec);
      break;
    case Integrand::kl:  // f_r·[P̃ log(P̃/Q̃) − P̃ + Q̃] = f_r Q̃ φ(P̃/Q̃ − 1); where p vanishes, q
      if (!j.p->empty() && wide(z)) {
        kl_on_ball(out, j, r, z, analytic, prec);
        break;
      }
      if (j.p->empty()) {
        relative_sum(out, *j.q, r, z, prec, analytic);
      } else {
        relative_log(a, *j.p, r, z, analytic, prec);
        relative_log(b, *j.q, r, z, analytic, prec);
        acb_t pp, qq, u;
        acb_init(pp);
        acb_init(qq);
        acb_init(u);
        acb_exp(pp, a, prec);
        acb_exp(qq, b, prec);
        acb_sub(u, a, b, prec);  // log(P̃/Q̃)
        mag_t m;
        mag_init(m);
        acb_get_mag(m, u);
        if (mag_cmp_2exp_si(m, -4) <= 0) {  // P̃/Q̃ − 1 small: the series, free of cancellation
          acb_expm1(u, u, prec);
          phi(out, u, analytic, prec);
          acb_mul(out, out, qq, prec);
        } else {  // P̃ (log P̃ − log Q̃) − P̃ + Q̃ from the logs (no log of a sum that may vanish)
          acb_mul(out, u, pp, prec);
          acb_sub(out, out, pp, prec);
          acb_add(out, out, qq, prec);
        }
        mag_clear(m);
        acb_clear(pp);
        acb_clear(qq);
        acb_clear(u);
      }
      acb_exp(base, base, prec);
      acb_mul(out, out, base, prec);
      break;
    case Integrand::hs:  // f_r (P̃ − e^ε Q̃)
      relative_sum(a, *j.p, r, z, prec, analytic);
      if (!j.q->empty()) {
        relative_sum(b, *j.q, r, z, prec, analytic);
        acb_mul_arb(b, b, j.exp_eps.get(), prec);
        acb_sub(a, a, b, prec);
      }
      acb_exp(base, base, prec);
      acb_mul(out, a, base, prec);
      break;
  }
  acb_clear(a);
  acb_clear(b);
  acb_clear(base);
  return 0;
}

Ball integrate(Job& job, double u, double v, long goal, const Ball& tol_scale, slong prec) {
  job.deadline->check();
  Complex a, b, res;
  acb_set_d(a.get(), u);
  acb_set_d(b.get(), v);
  // The integrand is itself a ball (inputs known to their last place): asking for more relative digits than it
  // carries (at the best of a few points) only spends the evaluation budget.
  slong carried = -1;
  for (double t : {0.25, 0.5, 0.75}) {
    Complex z, f;
    acb_set_d(z.get(), u + t * (v - u));
    integrand(f.get(), z.get(), &job, 0, prec);
    if (acb_is_finite(f.get()) && !acb_contains_zero(f.get())) carried = std::max(carried, acb_rel_accuracy_bits(f.get()));
  }
  if (carried >= 0) goal = std::max<long>(8, std::min<long>(goal, carried - 4));
  // Four bits beyond: with the centred form's bounds Arb stops near the tolerance, where the cruder bounds of the
  // natural extension made it overshoot; asked this much more, its enclosures are as narrow as they were before.
  goal += 4;
  acb_calc_integrate_opt_t opt;
  acb_calc_integrate_opt_init(opt);
  opt->eval_limit = 50'000 + 500 * prec;
  mag_t tol;
  mag_init(tol);
  arb_get_mag(tol, tol_scale.get());
  mag_mul_2exp_si(tol, tol, -goal);
  acb_calc_integrate(res.get(), integrand, &job, a.get(), b.get(), goal, tol, opt, prec);
  mag_clear(tol);
  Ball out;
  arb_set(out.get(), acb_realref(res.get()));
  // The integral of a real function over a real segment is real: the imaginary part is rounding.
  return out;
}

}  // namespace privamp::verify::certified_detail
