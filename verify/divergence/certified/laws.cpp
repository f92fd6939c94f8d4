// The certified engine: laws read in exact terms (pieces and atoms), their masses, and the pair.
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
#include "sim/laws/laplace.hpp"

namespace privamp::verify::certified_detail {

// ---- the laws in exact terms ----------------------------------------------------------------------------------


namespace {
constexpr double kMaxCancellation = 3e5;
}  // namespace

void laplace_sum_polynomials(Piece& pc, slong prec) {
  if (std::any_of(pc.scales.begin(), pc.scales.end(), [&](double b) { return b != pc.scales.front(); })) {
    // Distinct scales: a_j and κ_j (s = the largest scale).
    const std::size_t n = pc.scales.size();
    pc.amp.assign(n, Ball());
    pc.damp.assign(n, Ball());
    pc.tamp.assign(n, Ball());
    pc.kappa.assign(n, Ball());
    for (std::size_t j = 0; j < n; ++j) {
      Ball c, bj2, t;
      arb_one(c.get());
      arb_set_d(bj2.get(), pc.scales[j]);
      arb_sqr(bj2.get(), bj2.get(), prec);
      for (std::size_t k = 0; k < n; ++k) {
        if (k == j) continue;
        arb_set_d(t.get(), pc.scales[k]);
        arb_sqr(t.get(), t.get(), prec);
        arb_sub(t.get(), bj2.get(), t.get(), prec);
        arb_div(t.get(), bj2.get(), t.get(), prec);
        arb_mul(c.get(), c.get(), t.get(), prec);
      }
      arb_set_d(t.get(), pc.s);
      arb_div(t.get(), t.get(), Ball(pc.scales[j]).get(), prec);  // s/b_j
      arb_sub_si(pc.kappa[j].get(), t.get(), 1, prec);
      arb_mul(c.get(), c.get(), t.get(), prec);
      arb_mul_2exp_si(pc.amp[j].get(), c.get(), -1);
      arb_mul(pc.damp[j].get(), pc.amp[j].get(), pc.kappa[j].get(), prec);
      arb_neg(pc.damp[j].get(), pc.damp[j].get());
      arb_add_si(t.get(), pc.kappa[j].get(), 1, prec);
      arb_div(pc.tamp[j].get(), pc.amp[j].get(), t.get(), prec);
    }
    return;
  }
  const long n = static_cast<long>(pc.scales.size());
  pc.poly.assign(static_cast<std::size_t>(n), Ball());
  pc.dpoly.assign(static_cast<std::size_t>(std::max<long>(n - 1, 1)), Ball());
  pc.tail.assign(static_cast<std::size_t>(n), Ball());
  Ball den, t;
  arb_fac_ui(den.get(), static_cast<ulong>(n - 1), prec);
  arb_mul_2exp_si(den.get(), den.get(), 2 * n - 1);
  for (long k = 0; k < n; ++k) {
    Ball& c = pc.poly[static_cast<std::size_t>(k)];
    arb_fac_ui(c.get(), static_cast<ulong>(2 * n - 2 - k), prec);
    arb_mul_2exp_si(c.get(), c.get(), k);
    arb_div(c.get(), c.get(), den.get(), prec);
    arb_fac_ui(t.get(), static_cast<ulong>(k), prec);
    arb_div(c.get(), c.get(), t.get(), prec);
    arb_fac_ui(t.get(), static_cast<ulong>(n - 1 - k), prec);
    arb_div(c.get(), c.get(), t.get(), prec);
    if (k > 0) arb_mul_si(pc.dpoly[static_cast<std::size_t>(k - 1)].get(), c.get(), k, prec);
  }
  Ball suffix;  // E's coefficients e_j = Σ_{k≥j} c_k k!/j!, since ∫_t^∞ u^k e^{−u} du = k! e^{−t} Σ_{j≤k} t^j/j!
  for (long j = n - 1; j >= 0; --j) {
    arb_fac_ui(t.get(), static_cast<ulong>(j), prec);
    arb_mul(t.get(), t.get(), pc.poly[static_cast<std::size_t>(j)].get(), prec);
    arb_add(suffix.get(), suffix.get(), t.get(), prec);
    arb_fac_ui(t.get(), static_cast<ulong>(j), prec);
    arb_div(pc.tail[static_cast<std::size_t>(j)].get(), suffix.get(), t.get(), prec);
  }
}

// Σ c_k t^k (Arb's polynomial evaluation: rectangular splitting, real coefficients at a real or complex t). A
// vector of Balls is a contiguous array of arb_struct.
static_assert(sizeof(Ball) == sizeof(arb_struct));
void horner(arb_ptr out, const std::vector<Ball>& c, const Ball& t, slong prec) {
  _arb_poly_evaluate(out, reinterpret_cast<arb_srcptr>(c.data()), static_cast<slong>(c.size()), t.get(), prec);
}
void horner(acb_ptr out, const std::vector<Ball>& c, const acb_t t, slong prec) {
  _arb_poly_evaluate_acb(out, reinterpret_cast<arb_srcptr>(c.data()), static_cast<slong>(c.size()), t, prec);
}

// Σ_j c_j e^{−κ_j t} (a real t).
void exp_sum(arb_ptr out, const std::vector<Ball>& c, const std::vector<Ball>& kappa, const Ball& t, slong prec) {
  arb_zero(out);
  Ball e;
  for (std::size_t j = 0; j < c.size(); ++j) {
    arb_mul(e.get(), kappa[j].get(), t.get(), prec);
    arb_neg(e.get(), e.get());
    arb_exp(e.get(), e.get(), prec);
    arb_addmul(out, c[j].get(), e.get(), prec);
  }
}
// The same at a complex t.
void exp_sum(acb_ptr out, const std::vector<Ball>& c, const std::vector<Ball>& kappa, const acb_t t, slong prec) {
  acb_zero(out);
  Complex e;
  for (std::size_t j = 0; j < c.size(); ++j) {
    acb_mul_arb(e.get(), t, kappa[j].get(), prec);
    acb_neg(e.get(), e.get());
    acb_exp(e.get(), e.get(), prec);
    acb_addmul_arb(out, e.get(), c[j].get(), prec);
  }
}

// G(t), G'(t) and E(t) (∫_t^∞ e^{−u} G(u) du = e^{−t} E(t)) of a Laplace sum: a polynomial each (equal scales), or
// sums of the same exponentials e^{−κ_j t} with coefficients a_j, −κ_j a_j and a_j/(1 + κ_j) (distinct scales).
void g_value(arb_ptr out, const Piece& pc, const Ball& t, slong prec) {
  if (!pc.poly.empty()) return horner(out, pc.poly, t, prec);
  exp_sum(out, pc.amp, pc.kappa, t, prec);
}
void g_value(acb_ptr out, const Piece& pc, const acb_t t, slong prec) {
  if (!pc.poly.empty()) return horner(out, pc.poly, t, prec);
  exp_sum(out, pc.amp, pc.kappa, t, prec);
}
void g_derivative(arb_ptr out, const Piece& pc, const Ball& t, slong prec) {
  if (!pc.poly.empty()) return horner(out, pc.dpoly, t, prec);
  exp_sum(out, pc.damp, pc.kappa, t, prec);
}
void g_derivative(acb_ptr out, const Piece& pc, const acb_t t, slong prec) {
  if (!pc.poly.empty()) return horner(out, pc.dpoly, t, prec);
  exp_sum(out, pc.damp, pc.kappa, t, prec);
}
void g_tail(arb_ptr out, const Piece& pc, const Ball& t, slong prec) {
  if (!pc.poly.empty()) return horner(out, pc.tail, t, prec);
  exp_sum(out, pc.tamp, pc.kappa, t, prec);
}

void finish(Piece& pc, slong prec) {
  arb_set_d(pc.s2.get(), pc.s);
  arb_sqr(pc.s2.get(), pc.s2.get(), 2 * 64 + prec);  // exact: a double squared has ≤ 106 bits
  Ball k;
  if (!pc.laplace) {
    arb_const_pi(k.get(), prec);
    arb_mul_2exp_si(k.get(), k.get(), 1);
    arb_sqrt(k.get(), k.get(), prec);
    mul_d(k.get(), k.get(), pc.s, prec);
  } else {
    arb_set_d(k.get(), pc.sum() ? pc.s : 2 * pc.s);
  }
  arb_log(k.get(), k.get(), prec);
  arb_sub(pc.log_c.get(), pc.log_w.get(), k.get(), prec);
  if (pc.sum()) {
    laplace_sum_polynomials(pc, prec);
    static std::atomic<std::uint64_t> ids{0};
    pc.id = ++ids;
  }
}



Deadline::Deadline(double seconds)
    : start_(std::chrono::steady_clock::now()),
      end_(start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(kWallFactor * std::clamp(seconds, 0.0, 1e6)))),
      budget_(static_cast<long>(kWorkPerSecond * std::clamp(seconds, 0.0, 1e6))) {
  release_caches_at_thread_exit();
}

void Deadline::check() const {
  throw_if_interrupted();
  if (work_.fetch_add(1, std::memory_order_relaxed) >= budget_)
    throw Refused("the work budget ran out (CertifiedOptions::seconds)");
  if (std::chrono::steady_clock::now() > end_) throw Refused("the time budget ran out (CertifiedOptions::seconds)");
}

std::optional<double> exact_sum(double a, double b) {
  const double s = a + b;
  if (!std::isfinite(s)) return std::nullopt;
  const double bb = s - a, err = (a - (s - bb)) + (b - bb);  // TwoSum: the rounding error of a + b
  if (err != 0) return std::nullopt;
  return s;
}

void add_atom(Side& side, double x, const Ball& mass, slong prec) {
  auto [it, inserted] = side.atoms.try_emplace(x);
  if (inserted) it->second = mass;
  else arb_add(it->second.get(), it->second.get(), mass.get(), prec);
}

// Mass of a piece on [a, b] (a ≤ b, infinite ends allowed), weight included: a difference of tails taken on the
// side of the centre where both are small, so that far intervals keep their relative precision.
Ball piece_mass(const Piece& pc, double a, double b, slong prec) {
  a = std::max(a, pc.lo);
  b = std::min(b, pc.hi);
  Ball out;
  if (!(a < b)) return out;
  // ∫_x^∞ f (upper) or ∫_{−∞}^x f (lower).
  auto tail = [&](double x, bool upper) {
    Ball r;
    if (x == (upper ? -kInf : kInf)) {
      arb_one(r.get());
      return r;
    }
    if (!std::isfinite(x)) return r;
    Ball t(x);
    arb_sub(t.get(), t.get(), pc.m.get(), prec);  // x − m
    if (!upper) arb_neg(t.get(), t.get());        // lower tail at x = upper tail at −x of the mirrored law
    if (!pc.laplace) {  // ½ erfc(t/(s√2))
      Ball d(2);
      arb_sqrt(d.get(), d.get(), prec);
      mul_d(d.get(), d.get(), pc.s, prec);
      arb_div(t.get(), t.get(), d.get(), prec);
      arb_hypgeom_erfc(r.get(), t.get(), prec);
    } else if (pc.sum()) {  // G(t) = e^{−t} E(t) for t ≥ 0, 1 − G(−t) for t < 0; a t around 0: [G(|t|), 1 − G(|t|)]
      div_d(t.get(), t.get(), pc.s, prec);
      auto g = [&](const Ball& u) {
        Ball e, v;
        g_tail(v.get(), pc, u, prec);
        arb_neg(e.get(), u.get());
        arb_exp(e.get(), e.get(), prec);
        arb_mul(v.get(), v.get(), e.get(), prec);
        return v;
      };
      if (arb_is_nonnegative(t.get())) {
        r = g(t);
      } else if (arb_is_negative(t.get())) {
        arb_neg(t.get(), t.get());
        Ball v = g(t);
        arb_one(r.get());
        arb_sub(r.get(), r.get(), v.get(), prec);
      } else {
        Ball a;
        arb_get_abs_ubound_arf(arb_midref(a.get()), t.get(), prec);
        Ball v = g(a), w;
        arb_one(w.get());
        arb_sub(w.get(), w.get(), v.get(), prec);
        arb_union(r.get(), v.get(), w.get(), prec);
      }
      arb_mul_2exp_si(r.get(), r.get(), 1);  // halved below with the other shapes
    } else {  // t ≥ 0: ½ e^{−t/s}; t < 0: 1 − ½ e^{t/s}
      div_d(t.get(), t.get(), pc.s, prec);
      if (arb_is_nonnegative(t.get())) {
        arb_neg(t.get(), t.get());
        arb_exp(r.get(), t.get(), prec);
      } else {
        arb_exp(r.get(), t.get(), prec);
        arb_sub_si(r.get(), r.get(), 2, prec);
        arb_neg(r.get(), r.get());
      }
    }
    arb_mul_2exp_si(r.get(), r.get(), -1);
    return r;
  };
  if (b <= pc.m_d) {
    Ball hi = tail(b, false), lo = tail(a, false);
    arb_sub(out.get(), hi.get(), lo.get(), prec);
  } else if (a >= pc.m_d) {
    Ball lo = tail(a, true), hi = tail(b, true);
    arb_sub(out.get(), lo.get(), hi.get(), prec);
  } else {
    Ball l = tail(a, false), u = tail(b, true);
    arb_one(out.get());
    arb_sub(out.get(), out.get(), l.get(), prec);
    arb_sub(out.get(), out.get(), u.get(), prec);
  }
  Ball w;
  arb_exp(w.get(), pc.log_w.get(), prec);
  arb_mul(out.get(), out.get(), w.get(), prec);
  arb_nonnegative_part(out.get(), out.get());
  return out;
}

// Masses of a finite law from its exact source (pmf as given, or mu K^t), times exp(log_w).
void finite_atoms(const sim::FiniteSource& source, std::span<const sim::Atom> atoms, const Ball& log_w, double shift,
                  Side& side, slong prec) {
  const auto* src = &source;
  std::vector<Ball> mass(atoms.size());
  if (src->K.size() == 0) {
    if (src->masses.size() != atoms.size()) throw Refused("pmf: internal size mismatch");
    Ball total;
    for (double m : src->masses) arb_add(total.get(), total.get(), Ball(m).get(), prec);
    for (std::size_t i = 0; i < atoms.size(); ++i) arb_div(mass[i].get(), Ball(src->masses[i]).get(), total.get(), prec);
  } else {
    const slong n = static_cast<slong>(src->K.rows());
    if (static_cast<std::size_t>(n) != atoms.size()) throw Refused("chain: internal size mismatch");
    if (n > kMaxChainStates) throw Refused(fmt::format("chain: {} states; the certified engine takes at most {}", n, kMaxChainStates));
    arb_mat_t k, kt, v, out;
    arb_mat_init(k, n, n);
    arb_mat_init(kt, n, n);
    arb_mat_init(v, 1, n);
    arb_mat_init(out, 1, n);
    for (slong i = 0; i < n; ++i)
      for (slong j = 0; j < n; ++j) arb_set_d(arb_mat_entry(k, i, j), src->K(i, j));
    for (slong j = 0; j < n; ++j) arb_set_d(arb_mat_entry(v, 0, j), src->mu[static_cast<std::size_t>(j)]);
    arb_mat_pow_ui(kt, k, static_cast<ulong>(src->t), prec);  // non-negative entries: relative precision kept
    arb_mat_mul(out, v, kt, prec);
    Ball total;
    for (slong j = 0; j < n; ++j) arb_add(total.get(), total.get(), arb_mat_entry(out, 0, j), prec);
    for (slong j = 0; j < n; ++j) {
      arb_nonnegative_part(mass[static_cast<std::size_t>(j)].get(), arb_mat_entry(out, 0, j));
      arb_div(mass[static_cast<std::size_t>(j)].get(), mass[static_cast<std::size_t>(j)].get(), total.get(), prec);
    }
    arb_mat_clear(k);
    arb_mat_clear(kt);
    arb_mat_clear(v);
    arb_mat_clear(out);
  }
  Ball w;
  arb_exp(w.get(), log_w.get(), prec);
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    const auto x = exact_sum(atoms[i].x, shift);
    if (!x) throw Refused("a shifted atom's location is not a double");
    arb_mul(mass[i].get(), mass[i].get(), w.get(), prec);
    add_atom(side, *x, mass[i], prec);
  }
}

// A mixture's weights from their exact source: Bin(k; m, p) = C(m, k) p^k (1 − p)^{m−k} (1 − p exact in balls),
// carried onto the components by the plan's fractions, each atom's fractions normalised to sum 1.
std::vector<Ball> binomial_weights(const sim::BinomialWeights& b, std::size_t components, slong prec) {
  std::map<long, Ball> pmf, row;
  for (const auto& mv : b.moves) {
    if (mv.component >= components || mv.k < 0 || mv.k > b.m || !(mv.fraction >= 0))
      throw Refused("a mixture's binomial plan does not match its components");
    arb_add(row[mv.k].get(), row[mv.k].get(), Ball(mv.fraction).get(), prec);
    if (pmf.count(mv.k)) continue;
    Ball c, pk, qk;
    arb_bin_uiui(c.get(), static_cast<ulong>(b.m), static_cast<ulong>(mv.k), prec);
    arb_set_d(pk.get(), b.p);
    arb_pow_ui(pk.get(), pk.get(), static_cast<ulong>(mv.k), prec);
    arb_one(qk.get());
    arb_sub(qk.get(), qk.get(), Ball(b.p).get(), prec);
    arb_pow_ui(qk.get(), qk.get(), static_cast<ulong>(b.m - mv.k), prec);
    arb_mul(c.get(), c.get(), pk.get(), prec);
    arb_mul(pmf[mv.k].get(), c.get(), qk.get(), prec);
  }
  std::vector<Ball> out(components);
  for (const auto& mv : b.moves) {
    if (mv.fraction == 0) continue;
    Ball share;
    arb_mul(share.get(), pmf[mv.k].get(), Ball(mv.fraction).get(), prec);
    arb_div(share.get(), share.get(), row[mv.k].get(), prec);
    arb_add(out[mv.component].get(), out[mv.component].get(), share.get(), prec);
  }
  return out;
}

// A clamped law: its base law's pieces cut at the ends, and the mass beyond each end (pieces and atoms) an atom there.
void read_clamped(const sim::form::Clamped& c, const Ball& log_w, double shift, Side& side, slong prec) {
  const auto lo = exact_sum(c.lo, shift), hi = exact_sum(c.hi, shift);
  if (!lo || !hi) throw Refused("a shifted clamp's ends are not doubles");
  Side base;
  read_law(*c.base, log_w, shift, base, prec);
  Ball at_lo, at_hi;
  for (Piece& pc : base.pieces) {
    Ball below = piece_mass(pc, -kInf, *lo, prec), above = piece_mass(pc, *hi, kInf, prec);
    arb_add(at_lo.get(), at_lo.get(), below.get(), prec);
    arb_add(at_hi.get(), at_hi.get(), above.get(), prec);
    pc.lo = std::max(pc.lo, *lo);
    pc.hi = std::min(pc.hi, *hi);
    if (pc.lo < pc.hi) side.pieces.push_back(std::move(pc));
  }
  for (auto& [x, m] : base.atoms) {
    if (x <= *lo) arb_add(at_lo.get(), at_lo.get(), m.get(), prec);
    else if (x >= *hi) arb_add(at_hi.get(), at_hi.get(), m.get(), prec);
    else add_atom(side, x, m, prec);
  }
  add_atom(side, *lo, at_lo, prec);
  add_atom(side, *hi, at_hi, prec);
}

// Reads a law into pieces and atoms from its exact form; Refused names what is not covered.
void read_law(const sim::Law& law, const Ball& log_w, double shift, Side& side, slong prec) {
  if (law.discretisation())
    throw Refused(fmt::format("{} is computed by {}: its error is an estimate, not an enclosure", law.brief(),
                              law.discretisation()->what));
  if (law.dimension() != 1) throw Refused("only one-dimensional laws");
  const sim::ExactForm form = law.exact_form();
  if (const auto* g = std::get_if<sim::form::Gaussian>(&form)) {
    if (!g->exact)
      throw Refused(fmt::format("{}: its mean and sigma were computed from a process's parameters in floating point "
                                "(the closed forms cover it)", law.brief()));
    Piece pc;
    arb_add(pc.m.get(), Ball(g->mean).get(), Ball(shift).get(), prec);
    pc.m_d = mid_d(pc.m);
    pc.s = g->sigma;
    pc.log_w = log_w;
    side.pieces.push_back(std::move(pc));
  } else if (const auto* l = std::get_if<sim::form::Laplace>(&form)) {
    if (!l->exact) throw Refused(fmt::format("{}: its parameters were computed in floating point", law.brief()));
    const auto m = exact_sum(l->mean, shift);
    if (!m) throw Refused("a shifted Laplace centre is not a double (its kink would be uncertain)");
    Piece pc;
    pc.laplace = true;
    pc.m = Ball(*m);
    pc.m_d = *m;
    pc.s = l->scale;
    pc.log_w = log_w;
    side.pieces.push_back(std::move(pc));
  } else if (const auto* ls = std::get_if<sim::form::LaplaceSum>(&form)) {
    const auto m = exact_sum(ls->location, shift);
    if (!m) throw Refused("a shifted Laplace sum's centre is not a double (its kink would be uncertain)");
    // Over a subinterval the partial fractions' enclosure is K times wider than the density's variation: above
    // kMaxCancellation the subdivision needed does not fit the budget (4 scales 1.5% apart, K = 4e5, ran 30 s to fail;
    // 1.8e5 closed in 2.4 s).
    if (const double k = sim::laplace_sum_cancellation({ls->scales.begin(), ls->scales.end()}); k > kMaxCancellation)
      throw Refused(fmt::format("{}: its partial fractions cancel by a factor of about {:.1e} (above {:.0e}: their "
                                "enclosure over a subinterval is that much wider than the density's variation); the "
                                "quadrature engines evaluate it in 50-digit arithmetic", law.brief(), k, kMaxCancellation));
    Piece pc;
    pc.laplace = true;
    pc.scales.assign(ls->scales.begin(), ls->scales.end());
    pc.m = Ball(*m);
    pc.m_d = *m;
    pc.s = *std::max_element(pc.scales.begin(), pc.scales.end());
    pc.log_w = log_w;
    side.pieces.push_back(std::move(pc));
  } else if (const auto* s = std::get_if<sim::form::Shifted>(&form)) {
    if (!s->exact) throw Refused(fmt::format("{}: its shift is a rounded product", law.brief()));
    const auto by = exact_sum(s->by, shift);
    if (!by) throw Refused("nested shifts that do not add exactly");
    read_law(*s->base, log_w, *by, side, prec);
  } else if (const auto* mx = std::get_if<sim::form::Mixture>(&form)) {
    const auto exact = mx->binomial ? binomial_weights(*mx->binomial, mx->components.size(), prec) : std::vector<Ball>{};
    for (std::size_t i = 0; i < mx->components.size(); ++i) {
      const double w = mx->weights[i];
      if (w == 0) continue;
      Ball lw = exact.empty() ? with_ulp(w) : exact[i];
      if (!arb_is_positive(lw.get())) throw Refused("a mixture component that its binomial plan does not reach");
      arb_log(lw.get(), lw.get(), prec);
      arb_add(lw.get(), lw.get(), log_w.get(), prec);
      read_law(*mx->components[i], lw, shift, side, prec);
    }
  } else if (const auto* f = std::get_if<sim::form::Finite>(&form)) {
    if (!f->source)
      throw Refused(fmt::format("{}: its masses were computed in floating point (no exact source)", law.brief()));
    finite_atoms(*f->source, f->atoms, log_w, shift, side, prec);
  } else if (const auto* c = std::get_if<sim::form::Clamped>(&form)) {
    read_clamped(*c, log_w, shift, side, prec);
  } else {
    const auto* none = std::get_if<sim::form::None>(&form);
    throw Refused(fmt::format("{}: no exact form for this law ({}covered: gaussian, laplace, laplace_sum, "
                              "laplace_nfold, their shifts, mixtures and clamps, subsample(poisson), binomial_mix, "
                              "pmf, chain)", law.brief(), none && !none->why.empty() ? none->why + "; " : ""));
  }
  if (static_cast<long>(side.pieces.size()) > kMaxPieces)
    throw Refused(fmt::format("more than {} density pieces (every evaluation visits each)", kMaxPieces));
}

// ---- the pair --------------------------------------------------------------------------------------------------


Pair read_pair(const sim::Law& p, const sim::Law& q, slong prec) {
  Pair out;
  read_law(p, Ball(0), 0, out.p, prec);
  read_law(q, Ball(0), 0, out.q, prec);
  for (Side* s : {&out.p, &out.q})
    for (Piece& pc : s->pieces) finish(pc, prec);
  for (const Side* s : {&out.p, &out.q})
    for (const Piece& pc : s->pieces) {
      out.s_min = std::min(out.s_min, pc.s);
      out.s_max = std::max(out.s_max, pc.s);
      out.lo = std::min(out.lo, pc.m_d);
      out.hi = std::max(out.hi, pc.m_d);
      if (pc.laplace) out.breakpoints.push_back(pc.m_d);
      for (double e : {pc.lo, pc.hi})
        if (std::isfinite(e)) out.breakpoints.push_back(e);
    }
  for (double b : out.breakpoints) {
    out.lo = std::min(out.lo, b);
    out.hi = std::max(out.hi, b);
  }
  std::sort(out.breakpoints.begin(), out.breakpoints.end());
  out.breakpoints.erase(std::unique(out.breakpoints.begin(), out.breakpoints.end()), out.breakpoints.end());
  return out;
}

// Segments of [u, v] between breakpoints.
std::vector<std::pair<double, double>> segments(const Pair& pr, double u, double v) {
  std::vector<std::pair<double, double>> out;
  double a = u;
  for (double b : pr.breakpoints)
    if (b > a && b < v) {
      out.emplace_back(a, b);
      a = b;
    }
  out.emplace_back(a, v);
  return out;
}

}  // namespace privamp::verify::certified_detail
