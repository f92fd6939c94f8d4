// The certified hockey-stick of a composition of subsampled Gaussian releases (certified.hpp says which pairs).
//
// A release in standard form: X ~ N(0, 1), u(X) = w0 + w1·e^{μX − μ²/2} the ratio of the mixture's density to the
// Gaussian's, and M(s) = E_μ[e^{sL}] = E[u(X)^z] with z = 1 + s (the mixture released: add) or z = −s (the
// Gaussian released: remove). An entire function of s. A Gaussian pair of equal σ has M(s) = e^{μ² s(s+1)/2}.
//
//   HS_ε = (1/2π) ∫ g(t) dt  (+ Π M_i(0)^{T_i} when −1 < c < 0, the residue at s = 0),
//   g(t) = Π_i M_i(c + it)^{T_i} e^{−(c+it)ε} / ((c + it)(1 + c + it)),
//
// enclosed in three parts, each rigorous:
//  1. the trapezoid rule (h/2π)[g(0) + 2 Re Σ_{k=1}^{K} g(kh)], every M_i(c + ikh) enclosed by acb_calc_integrate on
//     [−R, R] plus closed-form bounds of the tails (|u^z| = u^{Re z} on the real line: Gaussian integrals);
//  2. the trapezoid rule's error on the whole line, at most 2N/(e^{2πd/h} − 1)/(2π) for g analytic in the strip
//     |Im t| < d (Trefethen and Weideman 2014, Theorem 5.1), N = sup_{|y|<d} ∫|g(t + iy)| dt. On the line Re s = σ,
//     |M_i(σ + it)| ≤ M_i(σ) and ∫ dt/|s(s+1)| ≤ π/m (m the distance of σ to the poles 0 and −1), and
//     E(σ) = Π M_i(σ)^{T_i} e^{−σε} is log-convex (cumulant generating functions are convex): N ≤ max(E(c−d),
//     E(c+d))·π/m;
//  3. the nodes beyond K. On a segment [t_a, t_a + 2r] of t, |M_i(c + it)| ≤ |M_i(c + i(t_a + r))| + r·D_i, with
//     D_i = E[|log u| u^a] ≥ |dM_i/dt| (a = Re z); and for every t > 0, by parts in x (u' > 0),
//       M_i(s) = −(1/z) ∫ u^z k'(x) dx,  k = φ u/u' = φ(x)/μ + B φ(x + μ),  B = w0 e^{μ²}/(μ w1),
//     so |M_i(c + it)| ≤ C_i/t with C_i = I1/μ + B·I2, I1 = E[|X| u^a], I2 = ∫|x + μ| φ(x + μ) u^a dx. Each node
//     t_k ≥ t_a has |g(t_k)| ≤ e^{−cε} Π_i b_i^{T_i}/t_a², b_i the segment's bound; once the C_i/t bound alone makes
//     the rest of the line negligible, the sum over all further nodes is bounded by an integral of t^{−T−2}.
// The abscissa c (any c > 0 or −1 < c < 0 gives the same integral) and the tolerance come from the double-precision
// contour (the saddle point and its estimate): they choose the work, never the enclosure.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "numerics/cache.hpp"
#include "numerics/errors.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/certified/internal.hpp"

namespace privamp::verify {

namespace certified_detail {
namespace {

struct Release {
  bool gaussian = false;  // M(s) = e^{μ² s(s+1)/2}
  bool add = true;        // z = 1 + s; else z = −s
  Ball w0, w1, mu, mu2, half_mu2;
  Ball norm;  // 1/√(2π)
  long count = 0;
  // At the line's abscissa c (set by prepare): M(a) for a = Re z, the slope bound D and the by-parts constant C.
  Ball moment, slope, by_parts;
};

enum class Weight { one, abs_x, abs_x_mu, abs_log_u };

struct MomentJob {
  const Release* r;
  acb_srcptr z;
  Weight weight;
  const Deadline* deadline;  // each evaluation is a unit of its work budget
};

Ball inv_sqrt_2pi(slong prec) {
  Ball b;
  arb_const_pi(b.get(), prec);
  arb_mul_2exp_si(b.get(), b.get(), 1);
  arb_rsqrt(b.get(), b.get(), prec);
  return b;
}

// weight(x)·φ(x + shift)·u(x)^z, shift = μ for the abs_x_mu weight.
int moment_integrand(acb_ptr out, const acb_t x, void* param, slong order, slong prec) {
  const MomentJob& j = *static_cast<const MomentJob*>(param);
  j.deadline->spend(1);
  const Release& r = *j.r;
  const int analytic = order != 0;
  Complex y, u, lu, e, t;
  acb_mul_arb(y.get(), x, r.mu.get(), prec);
  acb_sub_arb(y.get(), y.get(), r.half_mu2.get(), prec);
  acb_exp(u.get(), y.get(), prec);
  acb_mul_arb(u.get(), u.get(), r.w1.get(), prec);
  acb_add_arb(u.get(), u.get(), r.w0.get(), prec);
  acb_log_analytic(lu.get(), u.get(), analytic, prec);
  acb_set(y.get(), x);
  if (j.weight == Weight::abs_x_mu) acb_add_arb(y.get(), y.get(), r.mu.get(), prec);
  acb_mul(e.get(), y.get(), y.get(), prec);
  acb_mul_2exp_si(e.get(), e.get(), -1);
  acb_neg(e.get(), e.get());
  acb_mul(t.get(), j.z, lu.get(), prec);
  acb_add(e.get(), e.get(), t.get(), prec);
  acb_exp(out, e.get(), prec);
  acb_mul_arb(out, out, r.norm.get(), prec);
  switch (j.weight) {
    case Weight::one: break;
    case Weight::abs_x: acb_real_abs(t.get(), x, analytic, prec); acb_mul(out, out, t.get(), prec); break;
    case Weight::abs_x_mu: acb_real_abs(t.get(), y.get(), analytic, prec); acb_mul(out, out, t.get(), prec); break;
    case Weight::abs_log_u: acb_real_abs(t.get(), lu.get(), analytic, prec); acb_mul(out, out, t.get(), prec); break;
  }
  return 0;
}

Ball normal_tail(const Ball& v, slong prec) {  // P(N(0,1) > v)
  Ball t;
  arb_sqrt_ui(t.get(), 2, prec);
  arb_div(t.get(), v.get(), t.get(), prec);
  arb_hypgeom_erfc(t.get(), t.get(), prec);
  arb_mul_2exp_si(t.get(), t.get(), -1);
  return t;
}
Ball normal_density(const Ball& v, slong prec) {
  Ball t;
  arb_sqr(t.get(), v.get(), prec);
  arb_mul_2exp_si(t.get(), t.get(), -1);
  arb_neg(t.get(), t.get());
  arb_exp(t.get(), t.get(), prec);
  arb_mul(t.get(), t.get(), inv_sqrt_2pi(prec).get(), prec);
  return t;
}

// An upper bound of ∫_{|x| ≥ R} weight(x) φ(x + s) u(x)^a dx for every a in the ball (R ≥ 2μ + 1, so that Y = μx − μ²/2 > 0 on the right
// and < 0 on the left). The weight is at most α0 + α1|x + s| (|log u| ≤ K0 + |Y| ≤ K0 + μ²/2 + μ|x|, K0 the larger of
// |log w0| and |log(w0 + w1)|). Right: u^a ≤ β^a e^{aY} with β = w0 e^{−Y(R)} + w1 (a ≥ 0), u^a ≤ w0^a (a < 0), and
// φ(y) e^{aμy} = φ(y − aμ) e^{(aμ)²/2}; left: u lies in [w0, w0 + w1].
Ball tail_bound(const Release& r, const Ball& a, Weight w, const Ball& R, slong prec) {
  Ball s, alpha0(1.0), alpha1(0.0);
  if (w == Weight::abs_x_mu) arb_set(s.get(), r.mu.get());
  if (w == Weight::abs_x || w == Weight::abs_x_mu) alpha0 = Ball(0.0), alpha1 = Ball(1.0);
  if (w == Weight::abs_log_u) {
    Ball l0, l1, sum;
    arb_log(l0.get(), r.w0.get(), prec);
    arb_abs(l0.get(), l0.get());
    arb_add(sum.get(), r.w0.get(), r.w1.get(), prec);
    arb_log(l1.get(), sum.get(), prec);
    arb_abs(l1.get(), l1.get());
    arb_max(alpha0.get(), l0.get(), l1.get(), prec);
    arb_add(alpha0.get(), alpha0.get(), r.half_mu2.get(), prec);
    arb_set(alpha1.get(), r.mu.get());
  }
  auto weighted = [&](const Ball& v, const Ball& m) {  // ∫_{v}^∞ (α0 + α1 y) φ(y − m) dy, v ≥ 0, m ≥ 0
    Ball d, out, first;
    arb_sub(d.get(), v.get(), m.get(), prec);
    const Ball tail = normal_tail(d, prec);
    arb_mul(out.get(), alpha0.get(), tail.get(), prec);
    arb_mul(first.get(), m.get(), tail.get(), prec);
    arb_add(first.get(), first.get(), normal_density(d, prec).get(), prec);
    arb_addmul(out.get(), alpha1.get(), first.get(), prec);
    return out;
  };
  Ball total, v, zero;
  // Right tail, for every a in the ball (a ball across 0 takes both bounds, each valid on its side).
  arb_add(v.get(), R.get(), s.get(), prec);
  if (!arb_is_negative(a.get())) {
    Ball yr, beta, m, f, g, t;
    arb_mul(yr.get(), r.mu.get(), R.get(), prec);
    arb_sub(yr.get(), yr.get(), r.half_mu2.get(), prec);
    arb_neg(yr.get(), yr.get());
    arb_exp(beta.get(), yr.get(), prec);
    arb_mul(beta.get(), beta.get(), r.w0.get(), prec);
    arb_add(beta.get(), beta.get(), r.w1.get(), prec);
    arb_pow(f.get(), beta.get(), a.get(), prec);
    arb_mul(m.get(), a.get(), r.mu.get(), prec);  // aμ
    arb_sqr(g.get(), m.get(), prec);               // (aμ)²/2 − aμ s − aμ²/2
    arb_mul_2exp_si(g.get(), g.get(), -1);
    arb_mul(t.get(), m.get(), s.get(), prec);
    arb_sub(g.get(), g.get(), t.get(), prec);
    arb_mul(t.get(), a.get(), r.half_mu2.get(), prec);
    arb_sub(g.get(), g.get(), t.get(), prec);
    arb_exp(g.get(), g.get(), prec);
    arb_mul(f.get(), f.get(), g.get(), prec);
    arb_addmul(total.get(), f.get(), weighted(v, m).get(), prec);
  }
  if (!arb_is_nonnegative(a.get())) {
    Ball f;
    arb_pow(f.get(), r.w0.get(), a.get(), prec);
    arb_addmul(total.get(), f.get(), weighted(v, zero).get(), prec);
  }
  // Left tail: y = x + s ≤ −(R − s).
  Ball top, f0, f1, sum;
  arb_add(sum.get(), r.w0.get(), r.w1.get(), prec);
  arb_pow(f0.get(), r.w0.get(), a.get(), prec);
  arb_pow(f1.get(), sum.get(), a.get(), prec);
  arb_max(top.get(), f0.get(), f1.get(), prec);
  arb_sub(v.get(), R.get(), s.get(), prec);
  arb_addmul(total.get(), top.get(), weighted(v, zero).get(), prec);
  return total;
}

// The moment integrals computed so far (the program's one cache policy): the levels of a curve share their lines, so
// a certified curve integrates each node of a line once. The key is every input of the integral, exactly (Arb's
// exact text of each ball: two releases whose parameters differ in the 100th bit are two keys).
std::string exact_text(arb_srcptr x) {
  char* text = arb_dump_str(x);
  std::string out(text);
  flint_free(text);
  return out;
}
Cache<std::string, std::pair<Ball, Ball>>& moment_cache() {
  static Cache<std::string, std::pair<Ball, Ball>> cache(50'000);  // (a few hundred bytes each)
  return cache;
}

void moment_integral(acb_t out, const Release& r, const acb_t z, Weight w, long goal, const Ball& scale, slong prec,
                     const Deadline& deadline);

// ∫ weight(x) φ(x + s) u(x)^z dx over the line: acb_calc_integrate on [−R, R] (absolute tolerance 2^{−goal}·scale)
// and the tails as an error; remembered.
void moment(acb_t out, const Release& r, const acb_t z, Weight w, long goal, const Ball& scale, slong prec,
            const Deadline& deadline) {
  const std::string key = fmt::format("{} {} {} {} {} {} {} {} {} {} {}", r.add, exact_text(r.w0.get()), exact_text(r.w1.get()),
                                      exact_text(r.mu.get()), exact_text(r.norm.get()), exact_text(acb_realref(z)),
                                      exact_text(acb_imagref(z)), static_cast<int>(w), goal, exact_text(scale.get()), prec);
  const auto [re, im] = moment_cache().get_or_build(key, [&] {
    Complex v;
    moment_integral(v.get(), r, z, w, goal, scale, prec, deadline);
    std::pair<Ball, Ball> parts;
    arb_set(parts.first.get(), acb_realref(v.get()));
    arb_set(parts.second.get(), acb_imagref(v.get()));
    return parts;
  });
  acb_set_arb_arb(out, re.get(), im.get());
}

void moment_integral(acb_t out, const Release& r, const acb_t z, Weight w, long goal, const Ball& scale, slong prec,
                     const Deadline& deadline) {
  deadline.check();
  Ball a;  // Re z
  arb_set(a.get(), acb_realref(z));
  // u^a with a > 0 moves the mass right, to about aμ (φ(x)e^{aμx} = φ(x − aμ)e^{(aμ)²/2}); with a ≤ 0 it stays in
  // the Gaussian's bulk (u ≥ w0 there).
  const double a_max = std::max(0.0, upper_d(a));
  const double mu = upper_d(r.mu);
  const double R_d = std::ceil(std::max(2 * mu + 1, a_max * mu + 1) + std::sqrt(2.0 * (goal + 40) * std::numbers::ln2));
  const Ball R(R_d);
  MomentJob job{&r, z, w, &deadline};
  Complex lo, hi;
  acb_set_d(lo.get(), -R_d);
  acb_set_d(hi.get(), R_d);
  acb_calc_integrate_opt_t opt;
  acb_calc_integrate_opt_init(opt);
  opt->eval_limit = 200'000 + 500 * prec;
  mag_t tol;
  mag_init(tol);
  arb_get_mag(tol, scale.get());
  mag_mul_2exp_si(tol, tol, -goal);
  // The weights with |x| are not analytic at 0 (or −μ): splitting there saves the integrator's bisection.
  const double cut = w == Weight::abs_x ? 0.0 : w == Weight::abs_x_mu ? -mid_d(r.mu) : kInf;
  if (std::isfinite(cut)) {
    Complex m, part;
    acb_set_d(m.get(), cut);
    acb_calc_integrate(out, moment_integrand, &job, lo.get(), m.get(), goal, tol, opt, prec);
    acb_calc_integrate(part.get(), moment_integrand, &job, m.get(), hi.get(), goal, tol, opt, prec);
    acb_add(out, out, part.get(), prec);
  } else {
    acb_calc_integrate(out, moment_integrand, &job, lo.get(), hi.get(), goal, tol, opt, prec);
  }
  mag_clear(tol);
  // |u^z| = u^{Re z} on the real line.
  const Ball t = tail_bound(r, a, w, R, prec);
  mag_t e;
  mag_init(e);
  arb_get_mag(e, t.get());
  acb_add_error_mag(out, e);
  mag_clear(e);
}

// z for the release at s.
void exponent(acb_t z, const Release& r, const acb_t s, slong prec) {
  if (r.add) acb_add_ui(z, s, 1, prec);
  else acb_neg(z, s);
}

// M(s) of one release: the closed form (Gaussian pair), else the moment integral with absolute tolerance
// 2^{−goal}·M(Re s) (r.moment, set by prepare, when s is on the line).
void release_mgf(acb_t out, const Release& r, const acb_t s, long goal, const Ball& scale, slong prec,
                 const Deadline& deadline) {
  if (r.gaussian) {
    acb_add_ui(out, s, 1, prec);
    acb_mul(out, out, s, prec);
    acb_mul_arb(out, out, r.mu2.get(), prec);
    acb_mul_2exp_si(out, out, -1);
    acb_exp(out, out, prec);
    return;
  }
  Complex z;
  exponent(z.get(), r, s, prec);
  moment(out, r, z.get(), Weight::one, goal, scale, prec, deadline);
}

// M(σ) on the real line (an enclosure at relative accuracy about 2^{−goal}).
Ball real_mgf(const Release& r, const Ball& sigma, long goal, slong prec, const Deadline& deadline) {
  Complex s, v;
  acb_set_arb(s.get(), sigma.get());
  if (r.gaussian) {
    release_mgf(v.get(), r, s.get(), goal, Ball(1.0), prec, deadline);
  } else {
    // The integrand is positive: the tolerance relative to the value at the integrator's own accuracy goal.
    Complex z;
    exponent(z.get(), r, s.get(), prec);
    moment(v.get(), r, z.get(), Weight::one, goal, Ball(0.0), prec, deadline);
  }
  Ball out;
  arb_set(out.get(), acb_realref(v.get()));
  return out;
}

// log E(σ) = Σ T_i log M_i(σ) − σε.
Ball log_height(std::vector<Release>& rs, const Ball& sigma, const Ball& eps, long goal, slong prec,
                const Deadline& deadline) {
  Ball out, l;
  arb_mul(out.get(), sigma.get(), eps.get(), prec);
  arb_neg(out.get(), out.get());
  for (const Release& r : rs) {
    l = real_mgf(r, sigma, goal, prec, deadline);
    arb_log(l.get(), l.get(), prec);
    arb_addmul_si(out.get(), l.get(), r.count, prec);
  }
  return out;
}

// M(a), D and C of each mixture release at the line's abscissa c (a = Re z).
void prepare(Release& r, const Ball& c, slong prec, const Deadline& deadline) {
  if (r.gaussian) return;
  Complex z, s, v;
  acb_set_arb(s.get(), c.get());
  exponent(z.get(), r, s.get(), prec);
  r.moment = real_mgf(r, c, 60, prec, deadline);
  auto integral = [&](Weight w) {
    moment(v.get(), r, z.get(), w, 24, r.moment, prec, deadline);
    Ball out;
    arb_set(out.get(), acb_realref(v.get()));
    arb_nonnegative_part(out.get(), out.get());
    return out;
  };
  r.slope = integral(Weight::abs_log_u);
  const Ball i1 = integral(Weight::abs_x), i2 = integral(Weight::abs_x_mu);
  Ball b;
  arb_exp(b.get(), r.mu2.get(), prec);
  arb_mul(b.get(), b.get(), r.w0.get(), prec);
  arb_div(b.get(), b.get(), r.mu.get(), prec);
  arb_div(b.get(), b.get(), r.w1.get(), prec);
  arb_div(r.by_parts.get(), i1.get(), r.mu.get(), prec);
  arb_addmul(r.by_parts.get(), b.get(), i2.get(), prec);
}

// The upper end of a ball as a ball (a bound used as a number).
Ball upper(const Ball& b, slong prec) {
  Ball out;
  arb_get_ubound_arf(arb_midref(out.get()), b.get(), prec);
  return out;
}

struct Contour {
  Ball value;
  long nodes = 0, segments = 0;
  double h = 0, d = 0;
};

// sup over t ≥ t_a of |M(c + it)| for a Gaussian pair: e^{μ²(c(1+c) − t_a²)/2}.
Ball gaussian_modulus(const Release& r, const Ball& c, const Ball& ta, slong prec) {
  Ball e;
  arb_add_ui(e.get(), c.get(), 1, prec);
  arb_mul(e.get(), e.get(), c.get(), prec);
  arb_submul(e.get(), ta.get(), ta.get(), prec);
  arb_mul(e.get(), e.get(), r.mu2.get(), prec);
  arb_mul_2exp_si(e.get(), e.get(), -1);
  arb_exp(e.get(), e.get(), prec);
  return e;
}

// What one line's parts share: the releases, ε and c as balls, π, the precision and the deadline.
struct Line {
  std::vector<Release>& rs;
  Ball eps, c, pi;
  slong prec;
  const Deadline& deadline;
  long releases = 0, mixed = 0;  // releases, and those of mixtures
};

struct Strip {
  double h = 0, d = 0;
  Ball log_n;  // log of the bound N on the strip
};

// The strip: the half-width d (a fraction of the distance to the poles 0 and −1) that allows the largest step h,
// with N/(π(e^{2πd/h} − 1)) ≤ tol/4, N ≤ max(E(c − d), E(c + d))·π/(pole − d).
Strip choose_strip(const Line& line, double c_d, double log_tol) {
  const slong prec = line.prec;
  Ball pole;
  if (c_d > 0) {
    pole = line.c;
  } else {
    Ball right;
    arb_add_ui(right.get(), line.c.get(), 1, prec);
    arb_neg(pole.get(), line.c.get());
    arb_min(pole.get(), pole.get(), right.get(), prec);
  }
  Strip best;
  for (double f : {0.5, 0.25, 0.125, 0.0625, 0.03125}) {
    const double d = f * mid_d(pole);
    const Ball D(d);
    Ball lo, hi, log_n, m;
    arb_sub(lo.get(), line.c.get(), D.get(), prec);
    arb_add(hi.get(), line.c.get(), D.get(), prec);
    const Ball a = log_height(line.rs, lo, line.eps, 30, prec, line.deadline);
    const Ball b = log_height(line.rs, hi, line.eps, 30, prec, line.deadline);
    arb_max(log_n.get(), a.get(), b.get(), prec);
    arb_sub(m.get(), pole.get(), D.get(), prec);
    if (!arb_is_positive(m.get())) continue;
    arb_div(m.get(), line.pi.get(), m.get(), prec);
    arb_log(m.get(), m.get(), prec);
    arb_add(log_n.get(), log_n.get(), m.get(), prec);
    const double need = std::log1p(std::exp(std::min(700.0, upper_d(log_n) - log_tol + std::log(4 / std::numbers::pi))));
    const double h = 2 * std::numbers::pi * d / (need + 1e-9);
    if (arb_is_finite(log_n.get()) && h > best.h) best = Strip{h, d, log_n};
  }
  if (!(best.h > 0)) throw Refused("the contour's step could not be chosen (the line's height is not finite)");
  return best;
}

// 1. The trapezoid rule at the nodes t_k = k·h (exact balls), until four nodes in a row are far below the target
//    with the slope margin of a segment. Returns the weighted sum of the nodes (Σ' Re f(t_k)) and sets K to the
//    first node not summed.
Ball trapezoid_nodes(const Line& line, const Ball& H, double h, long goal, double log_stop, long& K) {
  const slong prec = line.prec;
  Ball sum;
  Complex s, m, f, k, total;
  K = 0;
  // (The last node summed is one before a multiple of 128: the levels of a curve then start the rest of the line at one
  // of a few points, and share its segments' moment integrals; summing more nodes of the rule is exact.)
  for (int small = 0; small < 4 || K % 128 != 0; ++K) {
    if (K > 20'000) throw Refused("the composed integrand does not decay along the line within 20000 steps");
    arb_set(acb_realref(s.get()), line.c.get());
    arb_mul_si(acb_imagref(s.get()), H.get(), K, prec);
    acb_one(total.get());
    Ball log_mod;  // log of Π (|M_i(c+it)| + h·D_i)^{T_i} e^{−cε}
    arb_mul(log_mod.get(), line.c.get(), line.eps.get(), prec);
    arb_neg(log_mod.get(), log_mod.get());
    for (const Release& r : line.rs) {
      release_mgf(m.get(), r, s.get(), goal, r.moment, prec, line.deadline);
      acb_pow_ui(f.get(), m.get(), static_cast<ulong>(r.count), prec);
      acb_mul(total.get(), total.get(), f.get(), prec);
      // The modulus a segment of half-width h starting here would be bounded by (|M| + h·D): the nodes continue
      // until that bound, raised to the T-th power, is negligible — where |M|/M(c) is still close to 1 (many
      // releases), the slope term would otherwise dominate every segment.
      Ball mod;
      acb_abs(mod.get(), m.get(), prec);
      if (!r.gaussian) arb_addmul(mod.get(), H.get(), r.slope.get(), prec);
      arb_log(mod.get(), mod.get(), prec);
      arb_addmul_si(log_mod.get(), mod.get(), r.count, prec);
    }
    acb_mul_arb(f.get(), s.get(), line.eps.get(), prec);  // e^{−sε}/(s(s+1))
    acb_neg(f.get(), f.get());
    acb_exp(f.get(), f.get(), prec);
    acb_mul(total.get(), total.get(), f.get(), prec);
    acb_add_ui(k.get(), s.get(), 1, prec);
    acb_mul(k.get(), k.get(), s.get(), prec);
    acb_div(total.get(), total.get(), k.get(), prec);
    if (K == 0) arb_add(sum.get(), sum.get(), acb_realref(total.get()), prec);
    else arb_addmul_si(sum.get(), acb_realref(total.get()), 2, prec);
    const double t = static_cast<double>(K) * h;
    const bool below = K > 0 && upper_d(log_mod) - 2 * std::log(t) + std::log(h / std::numbers::pi) < log_stop;
    small = below ? small + 1 : 0;
  }
  return sum;
}

// 2. The discretisation error N/(π(e^{2πd/h} − 1)).
Ball discretisation_error(const Line& line, const Strip& strip, const Ball& H) {
  Ball disc, den;
  mul_d(den.get(), line.pi.get(), 2 * strip.d, line.prec);
  arb_div(den.get(), den.get(), H.get(), line.prec);
  arb_expm1(den.get(), den.get(), line.prec);
  arb_mul(den.get(), den.get(), line.pi.get(), line.prec);
  arb_exp(disc.get(), strip.log_n.get(), line.prec);
  arb_div(disc.get(), disc.get(), den.get(), line.prec);
  return disc;
}

// The whole rest of the line from t_a by the by-parts bounds:
// (1/π) e^{−cε} Π_mix C_i^{T_i} Π_gauss b_i^{T_i} [h t_a^{−p} + t_a^{1−p}/(p − 1)], p = Σ_mix T_i + 2.
Ball rest_of_line(const Line& line, const Ball& TA, const Ball& H, const Ball& base) {
  const slong prec = line.prec;
  Ball prod(1.0), f1, f2, rest;
  const long p = line.mixed + 2;
  for (const Release& r : line.rs) {
    Ball b = r.gaussian ? gaussian_modulus(r, line.c, TA, prec) : r.by_parts;
    arb_pow_ui(b.get(), upper(b, prec).get(), static_cast<ulong>(r.count), prec);
    arb_mul(prod.get(), prod.get(), b.get(), prec);
  }
  arb_pow_ui(f1.get(), TA.get(), static_cast<ulong>(p), prec);
  arb_div(f1.get(), H.get(), f1.get(), prec);
  arb_pow_ui(f2.get(), TA.get(), static_cast<ulong>(p - 1), prec);
  arb_mul_si(f2.get(), f2.get(), p - 1, prec);
  arb_inv(f2.get(), f2.get(), prec);
  arb_add(f1.get(), f1.get(), f2.get(), prec);
  arb_mul(rest.get(), prod.get(), f1.get(), prec);
  arb_mul(rest.get(), rest.get(), base.get(), prec);
  arb_div(rest.get(), rest.get(), line.pi.get(), prec);
  return rest;
}

// One segment [t_a, t_a + 2r]: its nodes (at most 2r/h + 1) each at most e^{−cε} Π b_i^{T_i}/t_a², with
// b_i = min(|M_i(c + i(t_a + r))| + r·D_i, C_i/t_a).
Ball segment_bound(const Line& line, const Ball& TA, double r_seg, const Ball& H, const Ball& base) {
  const slong prec = line.prec;
  Ball seg(1.0), ta2;
  const Ball R(r_seg);
  Complex s, m;
  arb_set(acb_realref(s.get()), line.c.get());
  arb_add(acb_imagref(s.get()), TA.get(), R.get(), prec);
  for (const Release& r : line.rs) {
    Ball b;
    if (r.gaussian) {
      b = gaussian_modulus(r, line.c, TA, prec);
    } else {
      release_mgf(m.get(), r, s.get(), 20, r.moment, prec, line.deadline);
      acb_abs(b.get(), m.get(), prec);
      arb_addmul(b.get(), R.get(), r.slope.get(), prec);
      Ball ibp;
      arb_div(ibp.get(), r.by_parts.get(), TA.get(), prec);
      arb_min(b.get(), b.get(), ibp.get(), prec);
    }
    arb_pow_ui(b.get(), upper(b, prec).get(), static_cast<ulong>(r.count), prec);
    arb_mul(seg.get(), seg.get(), b.get(), prec);
  }
  arb_mul(seg.get(), seg.get(), base.get(), prec);
  Ball width;
  arb_mul_2exp_si(width.get(), R.get(), 1);
  arb_add(width.get(), width.get(), H.get(), prec);
  arb_mul(seg.get(), seg.get(), width.get(), prec);
  arb_sqr(ta2.get(), TA.get(), prec);
  arb_div(seg.get(), seg.get(), ta2.get(), prec);
  arb_div(seg.get(), seg.get(), line.pi.get(), prec);
  return seg;
}

// 3. The nodes beyond K: t ≥ t_a = K·h (the last node summed was K − 1), in segments that double while their bound
//    stays below its share, until the by-parts bound of the whole rest is small enough.
Ball truncation_error(const Line& line, long K, double h, const Ball& H, double log_tol, long& segments) {
  Ball trunc, base;  // base = e^{−cε}
  arb_mul(base.get(), line.c.get(), line.eps.get(), line.prec);
  arb_neg(base.get(), base.get());
  arb_exp(base.get(), base.get(), line.prec);
  double ta = std::nextafter(static_cast<double>(K) * h, 0.0), r_seg = h;  // at or below the node K·h
  // Each segment's share: 2^{−8} of the target, lowered to a whole multiple of 8 bits of the target over e^{−cε} (the
  // part of a segment's bound that does not depend on ε): the levels of a curve that share a line then narrow the
  // same segments, whose moment integrals are remembered. (A lower share only narrows more segments.)
  const double c_eps = mid_d(line.c) * mid_d(line.eps), step = 8 * std::numbers::ln2;
  const double per_segment = std::exp(std::floor((log_tol - std::log(256.0) + c_eps) / step) * step - c_eps);
  segments = 0;
  for (long iteration = 0;; ++iteration) {
    if (iteration > 4000) throw Refused("the bounds of the composed integrand along the line did not close within 4000 segments");
    line.deadline.check();
    const Ball TA(ta);
    const Ball rest = rest_of_line(line, TA, H, base);
    if (upper_d(rest) <= std::exp(log_tol - std::log(8.0))) {
      arb_add(trunc.get(), trunc.get(), upper(rest, line.prec).get(), line.prec);
      return trunc;
    }
    const Ball seg = segment_bound(line, TA, r_seg, H, base);
    if (upper_d(seg) > per_segment && r_seg > h / 16) {  // narrower, down to segments of at most one node
      r_seg = std::max(h / 16, r_seg / 4);
      continue;
    }
    arb_add(trunc.get(), trunc.get(), upper(seg, line.prec).get(), line.prec);
    ta = std::nextafter(ta + 2 * r_seg, 0.0);  // at or below where this segment ends: no node falls between
    r_seg *= 2;
    ++segments;
  }
}

// The residue Π M_i(0)^{T_i} of a line left of the pole 0 (1 for laws of mass 1; the weights as stored).
Ball residue_at_zero(const Line& line) {
  Ball zero(0.0), one(1.0);
  for (const Release& r : line.rs) {
    Ball m0 = real_mgf(r, zero, 60, line.prec, line.deadline);
    arb_pow_ui(m0.get(), m0.get(), static_cast<ulong>(r.count), line.prec);
    arb_mul(one.get(), one.get(), m0.get(), line.prec);
  }
  return one;
}

Contour integrate_line(std::vector<Release>& rs, double eps_d, double c_d, double log_hint, slong prec,
                       const Deadline& deadline) {
  Line line{rs, Ball(eps_d), Ball(c_d), Ball(), prec, deadline};
  arb_const_pi(line.pi.get(), prec);
  for (const Release& r : rs) {
    line.releases += r.count;
    if (!r.gaussian) line.mixed += r.count;
  }
  for (Release& r : rs) prepare(r, line.c, prec, deadline);
  const Ball log_a = log_height(rs, line.c, line.eps, 60, prec, deadline);
  const double log_tol = log_hint - 48 * std::numbers::ln2;  // the parts' target: 2^{−48} of the value
  const Strip strip = choose_strip(line, c_d, log_tol);
  // The step rounded down to a power of 2^(1/4) and the accuracy goal up to a multiple of 8 bits (a smaller step and a
  // higher goal only tighten the bounds below): the levels of a curve that share a line then share its nodes, whose
  // moment integrals are remembered.
  const double h = std::exp2(std::floor(4 * std::log2(strip.h)) / 4);
  const Ball H(h);
  const long need = 56 + static_cast<long>(std::ceil(std::log2(static_cast<double>(line.releases)))) +
                    std::max<long>(0, static_cast<long>((upper_d(log_a) - log_hint) / std::numbers::ln2));
  const long goal = std::min<long>(prec - 16, (need + 7) / 8 * 8);
  long K = 0;
  const Ball sum = trapezoid_nodes(line, H, h, goal, log_tol - std::log(64.0), K);
  Ball value;
  arb_mul(value.get(), sum.get(), H.get(), prec);
  arb_div(value.get(), value.get(), line.pi.get(), prec);
  arb_mul_2exp_si(value.get(), value.get(), -1);
  Contour out;
  const Ball disc = discretisation_error(line, strip, H);
  const Ball trunc = truncation_error(line, K, h, H, log_tol, out.segments);
  Ball err;
  arb_add(err.get(), upper(disc, prec).get(), trunc.get(), prec);
  mag_t e;
  mag_init(e);
  arb_get_mag(e, err.get());
  arb_add_error_mag(value.get(), e);
  mag_clear(e);
  if (c_d < 0) arb_add(value.get(), value.get(), residue_at_zero(line).get(), prec);
  out.value = value;
  out.nodes = K;
  out.h = h;
  out.d = strip.d;
  return out;
}

// A release pair in standard form, or the reason it is not covered.
std::optional<Release> read_release(const ReleasePair& pair, std::string& why, slong prec) {
  Pair pr;
  try {
    pr = read_pair(*pair.mu, *pair.nu, prec);
  } catch (const Refused& e) {
    why = e.what();
    return std::nullopt;
  }
  auto gaussian_pieces = [](const Side& s) {
    if (!s.atoms.empty()) return false;
    for (const Piece& pc : s.pieces)
      if (pc.laplace || std::isfinite(pc.lo) || std::isfinite(pc.hi)) return false;
    return true;
  };
  if (!gaussian_pieces(pr.p) || !gaussian_pieces(pr.q)) {
    why = "only Gaussian releases and two-component Gaussian mixtures of equal sigma (subsampled Gaussians) are composed with a certificate";
    return std::nullopt;
  }
  Release r;
  r.count = pair.count;
  const Side* mix = nullptr;
  const Side* single = nullptr;
  if (pr.p.pieces.size() == 1 && pr.q.pieces.size() == 1) {
    const Piece &a = pr.p.pieces[0], &b = pr.q.pieces[0];
    if (a.s != b.s || !arb_is_zero(a.log_w.get()) || !arb_is_zero(b.log_w.get())) {
      why = "Gaussian releases of different sigma";
      return std::nullopt;
    }
    r.gaussian = true;
    arb_sub(r.mu.get(), a.m.get(), b.m.get(), prec);
    arb_abs(r.mu.get(), r.mu.get());
    div_d(r.mu.get(), r.mu.get(), a.s, prec);
  } else if (pr.p.pieces.size() == 2 && pr.q.pieces.size() == 1) {
    mix = &pr.p, single = &pr.q, r.add = true;
  } else if (pr.p.pieces.size() == 1 && pr.q.pieces.size() == 2) {
    mix = &pr.q, single = &pr.p, r.add = false;
  } else {
    why = "only Gaussian releases and two-component Gaussian mixtures (subsampled Gaussians) are composed with a certificate";
    return std::nullopt;
  }
  if (mix) {
    const Piece& g = single->pieces[0];
    const Piece *base = nullptr, *shifted = nullptr;
    for (const Piece& pc : mix->pieces) {
      if (pc.s != g.s) {
        why = "a mixture component whose sigma differs from the other law's";
        return std::nullopt;
      }
      if (!base && arb_equal(pc.m.get(), g.m.get())) base = &pc;
      else shifted = &pc;
    }
    if (!base || !shifted || !arb_is_zero(g.log_w.get())) {
      why = "a mixture none of whose components is the other law (not a subsampled Gaussian)";
      return std::nullopt;
    }
    arb_exp(r.w0.get(), base->log_w.get(), prec);
    arb_exp(r.w1.get(), shifted->log_w.get(), prec);
    arb_sub(r.mu.get(), shifted->m.get(), base->m.get(), prec);
    arb_abs(r.mu.get(), r.mu.get());
    div_d(r.mu.get(), r.mu.get(), g.s, prec);
  }
  if (!arb_is_positive(r.mu.get())) {
    why = "a release whose two laws are equal (its loss is constant)";
    return std::nullopt;
  }
  arb_sqr(r.mu2.get(), r.mu.get(), prec);
  arb_mul_2exp_si(r.half_mu2.get(), r.mu2.get(), -1);
  r.norm = inv_sqrt_2pi(prec);
  return r;
}

std::vector<Release> read_releases(const std::vector<ReleasePair>& pairs, slong prec) {
  std::vector<Release> out;
  std::string why;
  bool mixture = false;
  for (const ReleasePair& p : pairs) {
    auto r = read_release(p, why, prec);
    if (!r) throw Refused(fmt::format("{} ({} against {})", why, p.mu->brief(), p.nu->brief()));
    mixture = mixture || !r->gaussian;
    out.push_back(std::move(*r));
  }
  if (!mixture) throw Refused("Gaussian releases compose in closed form (the exact route)");
  return out;
}

}  // namespace
}  // namespace certified_detail

std::optional<std::string> certified_composition_refusal(const std::vector<ReleasePair>& pairs) {
  using namespace certified_detail;
  release_caches_at_thread_exit();
  try {
    read_releases(pairs, 64);
  } catch (const Refused& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

Estimate certified_composed_hockey_stick(const std::vector<ReleasePair>& pairs, double eps, double c, double log_hint,
                                         const CertifiedOptions& options) {
  using namespace certified_detail;
  const Deadline deadline(options.seconds);
  const auto refuse = [&](const std::string& why) {
    return NumericalError(fmt::format("certified engine: {} (composed hockey-stick at eps = {})", why, format_number(eps)));
  };
  if (!std::isfinite(log_hint)) throw refuse("the value is below what the contour resolves");
  if (!(c > 0) && !(c > -1 && c < 0)) throw refuse(fmt::format("no line between the poles at abscissa {}", c));
  // u^z varies over e^{|z| log u}: beyond this abscissa (levels near the largest composed loss, values like
  // e^{-1300}) the moment integrals' work outgrows any budget (c = 1851 takes 1.3 s, c = 7582 more than 60 s).
  constexpr double kMaxAbscissa = 2000;
  if (c > kMaxAbscissa)
    throw refuse(fmt::format("the line's abscissa c = {:.6g} is above {} (a level near the largest composed loss: the "
                             "moment integrals' range grows like e^(c log u)); the default engine's estimate stands",
                             c, kMaxAbscissa));
  std::optional<Contour> best;
  slong used = 0;
  for (slong prec = 128; prec <= 256; prec *= 2) {
    try {
      std::vector<Release> rs = read_releases(pairs, prec);
      best = integrate_line(rs, eps, c, log_hint, prec, deadline);
      used = prec;
    } catch (const Refused& e) {
      if (best) break;
      throw refuse(e.what());
    }
    // More bits help only where the rounding, not the stored weights (a one-ulp radius each, raised to the T-th
    // power), limits the enclosure.
    if (arb_rel_accuracy_bits(best->value.get()) >= 30) break;
  }
  Estimate e = enclosure_estimate(best->value, used, true);
  const double rel = e.upper > 0 ? (e.upper - e.lower) / e.upper : 0;
  if (!(rel < 0.5)) throw refuse(fmt::format("the enclosure [{:.6g}, {:.6g}] is too wide", e.lower, e.upper));
  e.method = fmt::format("certified (Arb ball arithmetic, {} bits; contour integral at c = {:.6g}: {} trapezoid nodes of "
                         "step {:.4g} with the strip bound at d = {:.4g}, {} segments bounding the rest of the line)",
                         used, c, best->nodes, best->h, best->d, best->segments);
  e.work = best->nodes;
  return e;
}

}  // namespace privamp::verify
