// The certified engine: closed-form bounds of the integrands and of the loss beyond the integration window.
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

// ---- tails: each density is dominated by exp(quadratic)s ------------------------------------------------------


// log G(T) and g(T) = G'(T)/G(T) of a Laplace sum at a ball T > 0. log G is concave on t ≥ 0 (Piece), so
//   log G(τ) ≤ log G(T) + g(T)(τ − T) for every τ ≥ T (the tangent), and log G(τ) ≥ log G(T) (G increases).
std::pair<Ball, Ball> log_g_and_slope(const Piece& pc, const Ball& T, slong prec) {
  Ball v, d;
  g_value(v.get(), pc, T, prec);
  g_derivative(d.get(), pc, T, prec);
  arb_div(d.get(), d.get(), v.get(), prec);
  arb_log(v.get(), v.get(), prec);
  return {std::move(v), std::move(d)};
}

// The same bound for two Laplace sums of one shape (α ≥ 0 ≥ β), kept tight by pairing them: with τ = (x − m)/s,
//   α log f_i + β log f_j = α(c_i − τ_i) + β(c_j − τ_j) + (α + β) log G(τ_i) + |β| (log G(τ_i) − log G(τ_j)),
// and by concavity log G(τ_j + Δ) − log G(τ_j) ≤ g(T_j)·Δ for Δ = τ_i − τ_j = (m_j − m_i)/s > 0 (≤ 0 for Δ ≤ 0),
// while (α + β) log G(τ_i) takes the one-piece bound of its sign: the decay needs g(T) < 1, not α·g(T) < 1.
Quad combine_sums(const Piece& i, const Piece& j, const Ball& alpha, const Ball& beta, double B, slong prec) {
  Quad q;
  Ball Ti, Tj, sum, t;
  for (auto [T, pc] : {std::pair{&Ti, &i}, std::pair{&Tj, &j}}) {
    arb_sub(T->get(), Ball(B).get(), pc->m.get(), prec);
    div_d(T->get(), T->get(), pc->s, prec);
    if (!arb_is_positive(T->get())) {
      arb_pos_inf(q.c.get());
      return q;
    }
  }
  arb_add(sum.get(), alpha.get(), beta.get(), prec);
  // Linear parts: −(α + β) x/s + α(c_i + m_i/s) + β(c_j + m_j/s), c = log_c − log_w.
  for (auto [coef, pc] : {std::pair{&alpha, &i}, std::pair{&beta, &j}}) {
    Ball c;
    arb_sub(c.get(), pc->log_c.get(), pc->log_w.get(), prec);
    div_d(t.get(), pc->m.get(), pc->s, prec);
    arb_add(c.get(), c.get(), t.get(), prec);
    arb_mul(c.get(), c.get(), coef->get(), prec);
    arb_add(q.c.get(), q.c.get(), c.get(), prec);
  }
  arb_neg(q.b.get(), sum.get());
  div_d(q.b.get(), q.b.get(), i.s, prec);
  // (α + β) log G(τ_i): the tangent at T_i from above, log G(T_i) from below.
  if (!arb_is_zero(sum.get())) {
    auto [logg, slope] = log_g_and_slope(i, Ti, prec);
    if (arb_is_positive(sum.get())) {
      arb_mul(t.get(), slope.get(), Ti.get(), prec);  // g(T)(τ − T), τ = (x − m_i)/s
      arb_sub(logg.get(), logg.get(), t.get(), prec);
      div_d(slope.get(), slope.get(), i.s, prec);
      arb_mul(t.get(), slope.get(), i.m.get(), prec);
      arb_sub(logg.get(), logg.get(), t.get(), prec);
      arb_mul(slope.get(), slope.get(), sum.get(), prec);
      arb_add(q.b.get(), q.b.get(), slope.get(), prec);
    } else if (!arb_is_negative(sum.get())) {
      arb_pos_inf(q.c.get());  // α + β of unknown sign
      return q;
    }
    arb_mul(logg.get(), logg.get(), sum.get(), prec);
    arb_add(q.c.get(), q.c.get(), logg.get(), prec);
  }
  // |β| (log G(τ_i) − log G(τ_j)) ≤ |β| max(0, g(T_j)·Δ).
  Ball delta;
  arb_sub(delta.get(), j.m.get(), i.m.get(), prec);
  div_d(delta.get(), delta.get(), i.s, prec);
  if (!arb_is_nonpositive(delta.get()) && !arb_is_zero(beta.get())) {
    Ball g = log_g_and_slope(j, Tj, prec).second;
    arb_mul(g.get(), g.get(), delta.get(), prec);
    arb_nonnegative_part(g.get(), g.get());
    arb_neg(t.get(), beta.get());
    arb_mul(g.get(), g.get(), t.get(), prec);
    arb_add(q.c.get(), q.c.get(), g.get(), prec);
  }
  return q;
}

// One piece's upper bound a x² + b x + c of log f (weight excluded) on [B, ∞), as `combine` uses it with the sign of
// its coefficient; `unbounded` set where a Laplace sum's window does not reach its tail (T ≤ 0).
Quad tail_quad(const Piece& pc, const Ball& coefficient, double B, slong prec, bool& unbounded) {
  Quad q;  // log_c carries log w: subtract it back, weights are handled by the callers
  arb_sub(q.c.get(), pc.log_c.get(), pc.log_w.get(), prec);
  if (pc.sum()) {
    Ball T;
    arb_sub(T.get(), Ball(B).get(), pc.m.get(), prec);
    div_d(T.get(), T.get(), pc.s, prec);
    if (!arb_is_positive(T.get())) {
      unbounded = true;
      return q;
    }
    auto [logg, slope] = log_g_and_slope(pc, T, prec);
    arb_add(q.c.get(), q.c.get(), logg.get(), prec);
    arb_set_si(q.b.get(), -1);  // the slope in τ: −1, or −1 + g(T) for the upper bound (the tangent)
    if (!arb_is_negative(coefficient.get())) {
      arb_add(q.b.get(), q.b.get(), slope.get(), prec);
      arb_mul(slope.get(), slope.get(), T.get(), prec);
      arb_sub(q.c.get(), q.c.get(), slope.get(), prec);
    }
    div_d(q.b.get(), q.b.get(), pc.s, prec);  // in x: b, and c − b·m
    Ball t;
    arb_mul(t.get(), q.b.get(), pc.m.get(), prec);
    arb_sub(q.c.get(), q.c.get(), t.get(), prec);
    return q;
  }
  if (!pc.laplace) {  // −(x−m)²/(2s²) − log(s√(2π)) = a x² + (m/s²) x − m²/(2s²) − log(s√(2π))
    arb_inv(q.a.get(), pc.s2.get(), prec);
    arb_mul_2exp_si(q.a.get(), q.a.get(), -1);
    arb_neg(q.a.get(), q.a.get());
    arb_div(q.b.get(), pc.m.get(), pc.s2.get(), prec);
    Ball t;
    arb_sqr(t.get(), pc.m.get(), prec);
    arb_mul(t.get(), t.get(), q.a.get(), prec);
    arb_add(q.c.get(), q.c.get(), t.get(), prec);
  } else {  // −(x−m)/s − log(2s)
    arb_set_si(q.b.get(), -1);
    div_d(q.b.get(), q.b.get(), pc.s, prec);
    Ball t;
    div_d(t.get(), pc.m.get(), pc.s, prec);
    arb_add(q.c.get(), q.c.get(), t.get(), prec);
  }
  return q;
}

// An upper bound a x² + b x + c of α·log f_i + β·log f_j on the right tail [B, ∞) (B ≥ both centres), weights
// excluded; exact for Gaussians and Laplaces (exact cancellations kept exact). A Laplace sum's log G(τ) is bounded
// on τ ≥ T = (B − m)/s by its tangent at T from above and by log G(T) from below (log_g_and_slope), taking the
// side its coefficient's sign needs; at T ≤ 0 the bound is +∞ (the caller's window grows).
Quad combine(const Piece& i, const Piece& j, const Ball& alpha, const Ball& beta, double B, slong prec) {
  if (i.sum() && j.sum() && i.scales == j.scales && arb_is_nonnegative(alpha.get()) &&
      arb_is_nonpositive(beta.get()))
    return combine_sums(i, j, alpha, beta, B, prec);
  bool unbounded = false;
  const Quad qi = tail_quad(i, alpha, B, prec, unbounded), qj = tail_quad(j, beta, B, prec, unbounded);
  Quad out;
  if (unbounded) {
    arb_pos_inf(out.c.get());
    return out;
  }
  auto mix = [&](arb_ptr r, arb_srcptr x, arb_srcptr y) {
    Ball t;
    arb_mul(r, x, alpha.get(), prec);
    arb_mul(t.get(), y, beta.get(), prec);
    arb_add(r, r, t.get(), prec);
  };
  mix(out.a.get(), qi.a.get(), qj.a.get());
  mix(out.b.get(), qi.b.get(), qj.b.get());
  mix(out.c.get(), qi.c.get(), qj.c.get());
  if (i.laplace == j.laplace && i.s == j.s && !i.sum() && !j.sum()) {
    Ball sum;  // α + β exactly (doubles): equal shapes cancel exactly when α = −β
    arb_add(sum.get(), alpha.get(), beta.get(), prec);
    if (!i.laplace) {
      arb_mul(out.a.get(), qi.a.get(), sum.get(), prec);
      if (arb_is_zero(sum.get())) arb_zero(out.a.get());
      Ball t, u;  // (α m_i + β m_j)/s²
      arb_mul(t.get(), i.m.get(), alpha.get(), 2 * prec + 128);
      arb_mul(u.get(), j.m.get(), beta.get(), 2 * prec + 128);
      arb_add(t.get(), t.get(), u.get(), 2 * prec + 128);
      if (arb_is_zero(t.get())) arb_zero(out.b.get());
    } else {
      arb_mul(out.b.get(), qi.b.get(), sum.get(), prec);
      if (arb_is_zero(sum.get())) arb_zero(out.b.get());
    }
  }
  return out;
}

// ∫_B^∞ exp(a x² + b x + c) dx, or nullopt if it may diverge.
std::optional<Ball> integral_right(const Quad& q, double B, slong prec) {
  Ball out;
  if (arb_is_negative(q.a.get())) {  // e^{c + b²/(4κ)} · ½√(π/κ) · erfc(√κ (B − b/(2κ))),  κ = −a
    Ball kappa, x0, t, r;
    arb_neg(kappa.get(), q.a.get());
    arb_div(x0.get(), q.b.get(), kappa.get(), prec);
    arb_mul_2exp_si(x0.get(), x0.get(), -1);
    arb_sqr(t.get(), x0.get(), prec);
    arb_mul(t.get(), t.get(), kappa.get(), prec);
    arb_add(t.get(), t.get(), q.c.get(), prec);
    arb_exp(out.get(), t.get(), prec);
    arb_const_pi(r.get(), prec);
    arb_div(r.get(), r.get(), kappa.get(), prec);
    arb_sqrt(r.get(), r.get(), prec);
    arb_mul_2exp_si(r.get(), r.get(), -1);
    arb_mul(out.get(), out.get(), r.get(), prec);
    arb_sqrt(r.get(), kappa.get(), prec);
    arb_sub(t.get(), Ball(B).get(), x0.get(), prec);
    arb_mul(t.get(), t.get(), r.get(), prec);
    arb_hypgeom_erfc(t.get(), t.get(), prec);
    arb_mul(out.get(), out.get(), t.get(), prec);
    return out;
  }
  if (arb_is_zero(q.a.get()) && arb_is_negative(q.b.get())) {  // e^{bB + c}/(−b)
    mul_d(out.get(), q.b.get(), B, prec);
    arb_add(out.get(), out.get(), q.c.get(), prec);
    arb_exp(out.get(), out.get(), prec);
    Ball nb;
    arb_neg(nb.get(), q.b.get());
    arb_div(out.get(), out.get(), nb.get(), prec);
    return out;
  }
  return std::nullopt;
}

// sup over [B, ∞) of a x² + b x + c (an upper bound), or nullopt if unbounded.
std::optional<Ball> sup_right(const Quad& q, double B, slong prec) {
  Ball at_b;
  mul_d(at_b.get(), q.a.get(), B * B, prec);  // B² may round: a ball product below covers it
  {
    Ball bb(B);
    arb_sqr(bb.get(), bb.get(), prec);
    arb_mul(at_b.get(), q.a.get(), bb.get(), prec);
  }
  Ball lin;
  mul_d(lin.get(), q.b.get(), B, prec);
  arb_add(at_b.get(), at_b.get(), lin.get(), prec);
  arb_add(at_b.get(), at_b.get(), q.c.get(), prec);
  if (arb_is_negative(q.a.get())) {
    Ball vertex, kappa;  // the global maximum c + b²/(4κ)
    arb_neg(kappa.get(), q.a.get());
    arb_sqr(vertex.get(), q.b.get(), prec);
    arb_div(vertex.get(), vertex.get(), kappa.get(), prec);
    arb_mul_2exp_si(vertex.get(), vertex.get(), -2);
    arb_add(vertex.get(), vertex.get(), q.c.get(), prec);
    Ball x0;
    arb_div(x0.get(), q.b.get(), kappa.get(), prec);
    arb_mul_2exp_si(x0.get(), x0.get(), -1);
    if (arb_lt(x0.get(), Ball(B).get())) return at_b;  // decreasing on [B, ∞)
    return vertex;
  }
  if (arb_is_zero(q.a.get()) && arb_is_nonpositive(q.b.get())) return at_b;
  return std::nullopt;
}

// The pieces of a side reflected through 0 (x → −x): left tails become right tails.
Side mirrored(const Side& s) {
  Side out;
  for (const Piece& pc : s.pieces) {
    Piece r = pc;
    arb_neg(r.m.get(), pc.m.get());
    r.m_d = -pc.m_d;
    r.lo = -pc.hi;
    r.hi = -pc.lo;
    out.pieces.push_back(std::move(r));
  }
  return out;
}

// q's piece that dominates its right tail from below (heaviest: Laplace before Gaussian, larger scale, further
// right), among the pieces unbounded on the right; nullptr if q's density vanishes on a right half-line.
const Piece* tail_piece(const Side& q) {
  const Piece* best = nullptr;
  for (const Piece& pc : q.pieces) {
    if (pc.hi != kInf) continue;
    auto key = [](const Piece& x) { return std::make_tuple(x.laplace, x.s, x.scales.size(), x.m_d); };
    if (!best || key(pc) > key(*best)) best = &pc;
  }
  return best;
}

// ∫_B^∞ p^α q^{1−α} ≤ w_j^{1−α} (Σ_i w_i I_i^{1/α})^α with I_i = ∫_B^∞ f_i^α f_j^{1−α}: q ≥ w_j f_j, and
// Minkowski's inequality in L^α(f_j^{1−α} dx) for p = Σ_i w_i f_i. (Each weight keeps its own power: where one
// component dominates a tail, W^α Σ_i I_i would overstate it by (W/w_i)^α.) α > 1.
Tail renyi_tail(const Side& p, const Side& q, const Ball& alpha, double B, slong prec) {
  Tail out;
  bool any = false;
  for (const Piece& pc : p.pieces) any = any || pc.hi > B;
  if (!any) return out;
  const Piece* j = tail_piece(q);
  if (!j) {
    out.kind = Tail::Kind::infinite_divergence;  // p has density where q has none
    return out;
  }
  Ball beta;
  arb_sub_si(beta.get(), alpha.get(), 1, prec);
  arb_neg(beta.get(), beta.get());
  Ball roots;  // Σ_i w_i I_i^{1/α}
  for (const Piece& pc : p.pieces) {
    if (pc.hi <= B) continue;
    const double from = std::max(B, std::max(pc.m_d, j->m_d));
    const auto v = integral_right(combine(pc, *j, alpha, beta, from, prec), from, prec);
    if (!v && (pc.sum() || j->sum())) {  // a Laplace sum's bound is not exact: not yet decaying is not divergence
      arb_pos_inf(out.value.get());
      return out;
    }
    if (!v) {
      out.kind = (p.pieces.size() == 1 && q.pieces.size() == 1) ? Tail::Kind::infinite_divergence : Tail::Kind::unbounded;
      return out;
    }
    // w_i I_i^{1/α} from I_i's upper end (a point: its log is exact to rounding).
    Ball upper, t;
    arb_get_ubound_arf(arb_midref(upper.get()), v->get(), prec);
    if (arf_sgn(arb_midref(upper.get())) <= 0) continue;
    if (!arf_is_finite(arb_midref(upper.get()))) {
      arb_pos_inf(out.value.get());
      return out;
    }
    arb_log(t.get(), upper.get(), prec);
    arb_div(t.get(), t.get(), alpha.get(), prec);
    arb_add(t.get(), t.get(), pc.log_w.get(), prec);
    arb_exp(t.get(), t.get(), prec);
    arb_add(roots.get(), roots.get(), t.get(), prec);
  }
  if (arb_is_zero(roots.get())) return out;
  Ball w, t;
  arb_log(w.get(), roots.get(), prec);
  arb_mul(w.get(), w.get(), alpha.get(), prec);
  arb_mul(t.get(), j->log_w.get(), beta.get(), prec);
  arb_add(w.get(), w.get(), t.get(), prec);
  arb_exp(out.value.get(), w.get(), prec);
  return out;
}

Ball mass_tail(const Side& p, double B, slong prec) {
  Ball out;
  for (const Piece& pc : p.pieces) {
    Ball m = piece_mass(pc, B, kInf, prec);
    arb_add(out.get(), out.get(), m.get(), prec);
  }
  return out;
}


// On [B, ∞), with r q's heaviest piece: p/f_r = Σ_i w_i e^{D_i} ≤ Σ_i w_i e^{sup D_i} and q/f_r ≥ w_r, so
// L ≤ log Σ_i w_i e^{sup D_i} − log w_r (exact for Laplaces of one scale, whose D_i are constants). L → +∞ is
// certified when some piece i of μ outgrows every piece k of ν (p ≥ w_i f_i, q ≤ n·max_k w_k f_k).
LossSup loss_sup_tail(const Side& p, const Side& q, double B, slong prec) {
  LossSup out;
  bool any = false;
  for (const Piece& pc : p.pieces) any = any || pc.hi > B;
  if (!any) {
    out.p_vanishes = true;
    return out;
  }
  const Piece* j = tail_piece(q);
  if (!j) {
    out.q_vanishes = true;
    return out;
  }
  auto grows = [&](const Quad& d) {
    return arb_is_positive(d.a.get()) || (arb_is_zero(d.a.get()) && arb_is_positive(d.b.get()));
  };
  for (const Piece& pc : p.pieces) {
    if (pc.hi <= B) continue;
    bool outgrows_all = true;
    for (const Piece& k : q.pieces)  // (a Laplace sum's bound is one-sided: it cannot certify growth)
      if (k.hi > B && (pc.sum() || k.sum() || !grows(combine(pc, k, Ball(1), Ball(-1), B, prec)))) outgrows_all = false;
    if (outgrows_all) {
      out.infinite = true;
      return out;
    }
  }
  Ball sum;
  for (const Piece& pc : p.pieces) {
    if (pc.hi <= B) continue;
    const double from = std::max(B, std::max(pc.m_d, j->m_d));
    const auto v = sup_right(combine(pc, *j, Ball(1), Ball(-1), from, prec), from, prec);
    if (!v) return out;
    Ball t;
    arb_add(t.get(), v->get(), pc.log_w.get(), prec);
    arb_exp(t.get(), t.get(), prec);
    arb_add(sum.get(), sum.get(), t.get(), prec);
  }
  arb_log(sum.get(), sum.get(), prec);
  arb_sub(sum.get(), sum.get(), j->log_w.get(), prec);
  out.sup = sum;
  return out;
}

}  // namespace privamp::verify::certified_detail
