#include "numerics/constants.hpp"
#include "verify/divergence/certified.hpp"

#include <acb.h>
#include <acb_calc.h>
#include <arb.h>
#include <arb_hypgeom.h>
#include <arb_mat.h>
#include <arb_poly.h>

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

namespace privamp::verify {

namespace {

constexpr long kMaxPieces = 256;            // density pieces of one law: every evaluation visits each
constexpr long kMaxChainStates = 64;        // μK^t in balls costs states³·log t products at up to 65,536 bits
constexpr long kMaxEvaluations = 400'000;   // sign / supremum subdivision steps per value
constexpr int kMaxExpansions = 48;          // window doublings while a tail is not yet negligible
constexpr long kGoodBits = 45;              // relative accuracy at which the precision stops doubling
constexpr double kMaxSumOrder = 256;        // Rényi orders of Laplace sums (their work grows with the order)
constexpr long kGoalBits = 72;              // relative accuracy asked of each integral (the output prints 12 digits)

// RAII wrappers of Arb's real and complex balls.
class Ball {
 public:
  Ball() { arb_init(x_); }
  explicit Ball(double d) {
    arb_init(x_);
    arb_set_d(x_, d);
  }
  Ball(const Ball& o) {
    arb_init(x_);
    arb_set(x_, o.x_);
  }
  Ball(Ball&& o) noexcept {
    arb_init(x_);
    arb_swap(x_, o.x_);
  }
  Ball& operator=(const Ball& o) {
    arb_set(x_, o.x_);
    return *this;
  }
  Ball& operator=(Ball&& o) noexcept {
    arb_swap(x_, o.x_);
    return *this;
  }
  ~Ball() { arb_clear(x_); }
  arb_ptr get() { return x_; }
  arb_srcptr get() const { return x_; }

 private:
  arb_t x_;
};

class Complex {
 public:
  Complex() { acb_init(z_); }
  Complex(const Complex&) = delete;
  Complex& operator=(const Complex&) = delete;
  ~Complex() { acb_clear(z_); }
  acb_ptr get() { return z_; }
  acb_srcptr get() const { return z_; }

 private:
  acb_t z_;
};

// An end of a ball as a double, rounded outwards.
double end_d(const Ball& b, bool upper) {
  arf_t t;
  arf_init(t);
  if (upper) arb_get_ubound_arf(t, b.get(), 64);
  else arb_get_lbound_arf(t, b.get(), 64);
  const double d = arf_get_d(t, upper ? ARF_RND_CEIL : ARF_RND_FLOOR);
  arf_clear(t);
  return d;
}
double lower_d(const Ball& b) { return end_d(b, false); }
double upper_d(const Ball& b) { return end_d(b, true); }
// x·d or x/d for a double d (exact as a ball).
void mul_d(arb_ptr r, arb_srcptr x, double d, slong prec, bool divide = false) {
  arb_t t;
  arb_init(t);
  arb_set_d(t, d);
  if (divide) arb_div(r, x, t, prec);
  else arb_mul(r, x, t, prec);
  arb_clear(t);
}
void div_d(arb_ptr r, arb_srcptr x, double d, slong prec) { mul_d(r, x, d, prec, true); }
double mid_d(const Ball& b) { return arf_get_d(arb_midref(b.get()), ARF_RND_NEAR); }

// A double with a radius of one unit in the last place: a stored number that was rounded once.
Ball with_ulp(double d) {
  Ball b(d);
  if (d != 0) {
    mag_t r;
    mag_init(r);
    mag_set_d(r, std::fabs(std::nextafter(d, kInf) - d));
    arb_add_error_mag(b.get(), r);
    mag_clear(r);
  }
  return b;
}

// ---- the laws in exact terms ----------------------------------------------------------------------------------

// w·f(x) on [lo, hi] (the density restricted, not renormalised), f a Gaussian N(m, s²) or a Laplace(m, s), or
// a sum of independent Laplace(0, b_j) shifted to m: f = e^{−t} G(t)/s with t = |x − m|/s, s the largest scale,
//   equal scales (n of them):  G(t) = P(t) = Σ_k c_k t^k, c_k = (2n−2−k)! 2^k / ((n−1)! 2^{2n−1} k! (n−1−k)!);
//   distinct scales:           G(t) = Σ_j a_j e^{−κ_j t}, a_j = C_j s/(2 b_j), κ_j = s/b_j − 1,
//                              C_j = Π_{k≠j} b_j²/(b_j² − b_k²) (partial fractions; signed).
// All exact rationals in balls. The sum's density is log-concave (a convolution of log-concave densities), so
// log G is concave on t ≥ 0, and G increases there ((log f)' ≥ −1/s: the heaviest term's log-derivative bounds it).
struct Piece {
  bool laplace = false;
  std::vector<double> scales;  // a Laplace sum's scales (laplace is then set too); empty otherwise
  Ball m;          // centre (a ball: a shifted centre need not be a double)
  double m_d = 0;  // centre rounded, for breakpoints
  double s = 1;
  double lo = -kInf, hi = kInf;
  Ball log_w;
  // Set by finish(): s² (exact), and log_w minus the log of the normaliser (s√(2π) or 2s; s for a Laplace sum).
  Ball s2, log_c;
  // Set by finish() for a Laplace sum: P, P' and E (∫_t^∞ e^{−u}P(u) du = e^{−t} E(t)); or the a_j, κ_j.
  std::vector<Ball> poly, dpoly, tail, amp, kappa;
  std::uint64_t id = 0;  // a Laplace sum's G, set by finish(): distinct for every G computed (a cache key)
  bool sum() const { return !scales.empty(); }
};

void laplace_sum_polynomials(Piece& pc, slong prec) {
  if (std::any_of(pc.scales.begin(), pc.scales.end(), [&](double b) { return b != pc.scales.front(); })) {
    // Distinct scales: a_j and κ_j (s = the largest scale).
    const std::size_t n = pc.scales.size();
    pc.amp.assign(n, Ball());
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

// G(t), G'(t) and E(t) (∫_t^∞ e^{−u} G(u) du = e^{−t} E(t)) of a Laplace sum.
void g_value(arb_ptr out, const Piece& pc, const Ball& t, slong prec) {
  if (!pc.poly.empty()) return horner(out, pc.poly, t, prec);
  arb_zero(out);
  Ball e;
  for (std::size_t j = 0; j < pc.amp.size(); ++j) {
    arb_mul(e.get(), pc.kappa[j].get(), t.get(), prec);
    arb_neg(e.get(), e.get());
    arb_exp(e.get(), e.get(), prec);
    arb_addmul(out, pc.amp[j].get(), e.get(), prec);
  }
}
void g_value(acb_ptr out, const Piece& pc, const acb_t t, slong prec) {
  if (!pc.poly.empty()) return horner(out, pc.poly, t, prec);
  acb_zero(out);
  acb_t e;
  acb_init(e);
  for (std::size_t j = 0; j < pc.amp.size(); ++j) {
    acb_mul_arb(e, t, pc.kappa[j].get(), prec);
    acb_neg(e, e);
    acb_exp(e, e, prec);
    acb_mul_arb(e, e, pc.amp[j].get(), prec);
    acb_add(out, out, e, prec);
  }
  acb_clear(e);
}
void g_derivative(arb_ptr out, const Piece& pc, const Ball& t, slong prec) {
  if (!pc.poly.empty()) return horner(out, pc.dpoly, t, prec);
  arb_zero(out);
  Ball e;
  for (std::size_t j = 0; j < pc.amp.size(); ++j) {
    arb_mul(e.get(), pc.kappa[j].get(), t.get(), prec);
    arb_neg(e.get(), e.get());
    arb_exp(e.get(), e.get(), prec);
    arb_mul(e.get(), e.get(), pc.kappa[j].get(), prec);
    arb_submul(out, pc.amp[j].get(), e.get(), prec);
  }
}
void g_tail(arb_ptr out, const Piece& pc, const Ball& t, slong prec) {
  if (!pc.poly.empty()) return horner(out, pc.tail, t, prec);
  arb_zero(out);
  Ball e, d;
  for (std::size_t j = 0; j < pc.amp.size(); ++j) {
    arb_mul(e.get(), pc.kappa[j].get(), t.get(), prec);
    arb_neg(e.get(), e.get());
    arb_exp(e.get(), e.get(), prec);
    arb_add_si(d.get(), pc.kappa[j].get(), 1, prec);
    arb_div(e.get(), e.get(), d.get(), prec);
    arb_addmul(out, pc.amp[j].get(), e.get(), prec);
  }
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

struct Side {
  std::vector<Piece> pieces;
  std::map<double, Ball> atoms;  // location → mass
};

class Refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The time budget of the current value (CertifiedOptions::seconds), checked inside every loop of the engine.
thread_local std::chrono::steady_clock::time_point t_deadline = std::chrono::steady_clock::time_point::max();
void check_deadline() {
  throw_if_interrupted();
  if (std::chrono::steady_clock::now() > t_deadline) throw Refused("the time budget ran out (CertifiedOptions::seconds)");
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
void finite_atoms(const sim::FiniteLaw& f, const Ball& log_w, double shift, Side& side, slong prec) {
  const auto* src = f.exact_source();
  if (!src) throw Refused(fmt::format("{}: its masses were computed in floating point (no exact source)", f.expression()));
  const auto atoms = f.atoms();
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
std::vector<Ball> binomial_weights(const sim::Mixture::BinomialWeights& b, std::size_t components, slong prec) {
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

// Reads a law into pieces and atoms; Refused names what is not covered.
void read_law(const sim::Law& law, const Ball& log_w, double shift, Side& side, slong prec) {
  if (law.discretisation())
    throw Refused(fmt::format("{} is computed by {}: its error is an estimate, not an enclosure", law.expression(),
                              law.discretisation()->what));
  if (law.dimension() != 1) throw Refused("only one-dimensional laws");
  if (const auto* d = dynamic_cast<const sim::LawDecorator*>(&law)) return read_law(d->base(), log_w, shift, side, prec);
  if (const auto* g = dynamic_cast<const sim::Gaussian*>(&law)) {
    if (!g->parameters_exact())
      throw Refused(fmt::format("{}: its mean and sigma were computed from a process's parameters in floating point "
                                "(the closed forms cover it)", law.expression()));
    Piece pc;
    arb_add(pc.m.get(), Ball(g->location()).get(), Ball(shift).get(), prec);
    pc.m_d = mid_d(pc.m);
    pc.s = g->sigma();
    pc.log_w = log_w;
    side.pieces.push_back(std::move(pc));
  } else if (const auto* l = dynamic_cast<const sim::Laplace*>(&law)) {
    if (!l->parameters_exact())
      throw Refused(fmt::format("{}: its parameters were computed in floating point", law.expression()));
    const auto m = exact_sum(l->location(), shift);
    if (!m) throw Refused("a shifted Laplace centre is not a double (its kink would be uncertain)");
    Piece pc;
    pc.laplace = true;
    pc.m = Ball(*m);
    pc.m_d = *m;
    pc.s = l->scale();
    pc.log_w = log_w;
    side.pieces.push_back(std::move(pc));
  } else if (const auto* ls = dynamic_cast<const sim::LaplaceSum*>(&law)) {
    const auto m = exact_sum(ls->location(), shift);
    if (!m) throw Refused("a shifted Laplace sum's centre is not a double (its kink would be uncertain)");
    Piece pc;
    pc.laplace = true;
    pc.scales = ls->scales();
    pc.m = Ball(*m);
    pc.m_d = *m;
    pc.s = *std::max_element(pc.scales.begin(), pc.scales.end());
    pc.log_w = log_w;
    side.pieces.push_back(std::move(pc));
  } else if (const auto* s = dynamic_cast<const sim::Shifted*>(&law)) {
    if (!s->by_exact()) throw Refused(fmt::format("{}: its shift is a rounded product", law.expression()));
    const auto by = exact_sum(s->by(), shift);
    if (!by) throw Refused("nested shifts that do not add exactly");
    read_law(s->base(), log_w, *by, side, prec);
  } else if (const auto* mx = dynamic_cast<const sim::Mixture*>(&law)) {
    const auto exact = mx->binomial_weights() ? binomial_weights(*mx->binomial_weights(), mx->components().size(), prec)
                                              : std::vector<Ball>{};
    for (std::size_t i = 0; i < mx->components().size(); ++i) {
      const double w = mx->weights()[i];
      if (w == 0) continue;
      Ball lw = exact.empty() ? with_ulp(w) : exact[i];
      if (!arb_is_positive(lw.get())) throw Refused("a mixture component that its binomial plan does not reach");
      arb_log(lw.get(), lw.get(), prec);
      arb_add(lw.get(), lw.get(), log_w.get(), prec);
      read_law(*mx->components()[i], lw, shift, side, prec);
    }
  } else if (const auto* f = dynamic_cast<const sim::FiniteLaw*>(&law)) {
    finite_atoms(*f, log_w, shift, side, prec);
  } else if (const auto* c = dynamic_cast<const sim::Clamped*>(&law)) {
    const auto lo = exact_sum(c->lo(), shift), hi = exact_sum(c->hi(), shift);
    if (!lo || !hi) throw Refused("a shifted clamp's ends are not doubles");
    Side base;
    read_law(c->base(), log_w, shift, base, prec);
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
  } else {
    throw Refused(fmt::format("{}: no exact form for this law (covered: gaussian, laplace, laplace_sum, "
                              "laplace_nfold, their shifts, mixtures and clamps, subsample(poisson), binomial_mix, "
                              "pmf, chain)", law.expression()));
  }
  if (static_cast<long>(side.pieces.size()) > kMaxPieces)
    throw Refused(fmt::format("more than {} density pieces (every evaluation visits each)", kMaxPieces));
}

// ---- evaluation on a segment between breakpoints --------------------------------------------------------------

struct Active {
  const Piece* piece;
  int sign;  // Laplace: +1 right of the centre, −1 left
};
using Segment = std::vector<Active>;

Segment active_on(const Side& side, double u, double v) {
  Segment out;
  for (const Piece& pc : side.pieces)
    if (pc.lo <= u && v <= pc.hi) out.push_back({&pc, pc.laplace ? (u >= pc.m_d ? 1 : -1) : 0});
  return out;
}

// log(w f(z)) of one active piece (an analytic function of z on the segment's branch: entire for a Gaussian or a
// Laplace; for a Laplace sum, log P(τ) is analytic where P does not vanish, which `analytic` asks Arb to check).
void log_piece(acb_t out, const Active& a, const acb_t z, slong prec, int analytic = 0) {
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
void log_relative(acb_t out, const Active& a, const Active& r, const acb_t z, slong prec, int analytic = 0) {
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
  if (A.laplace && R.laplace && A.s == R.s && a.sign == r.sign && !A.sum() && !R.sum()) {  // ±(m_a − m_r)/s: constant
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
void log_reference(acb_t out, const Active& r, const acb_t z, slong prec, int analytic = 0) {
  log_piece(out, r, z, prec, analytic);
  acb_sub_arb(out, out, r.piece->log_w.get(), prec);
}

// P̃ = Σ w_i f_i/f_r over the segment's pieces, and its log.
void relative_sum(acb_t out, const Segment& seg, const Active& r, const acb_t z, slong prec, int analytic = 0) {
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

enum class Integrand { renyi, kl, hs };

struct Job {
  Integrand kind;
  const Segment* p;
  const Segment* q;
  Ball alpha, beta;  // renyi: α and 1 − α
  Ball exp_eps;      // hs: e^ε
  Ball shift;        // renyi: the integrand is divided by e^C
  Active ref() const { return q->empty() ? p->front() : q->front(); }
};

int integrand(acb_ptr out, const acb_t z, void* param, slong order, slong prec) {
  const Job& j = *static_cast<const Job*>(param);
  const int analytic = order != 0;
  const Active r = j.ref();
  acb_t a, b, base;
  acb_init(a);
  acb_init(b);
  acb_init(base);
  log_reference(base, r, z, prec, analytic);
  switch (j.kind) {
    case Integrand::renyi:  // log f_r + α log P̃ + (1 − α) log Q̃ − C
      relative_log(a, *j.p, r, z, analytic, prec);
      relative_log(b, *j.q, r, z, analytic, prec);
      acb_mul_arb(a, a, j.alpha.get(), prec);
      acb_mul_arb(b, b, j.beta.get(), prec);
      acb_add(out, a, b, prec);
      acb_add(out, out, base, prec);
      acb_sub_arb(out, out, j.shift.get(), prec);
      acb_exp(out, out, prec);
      break;
    case Integrand::kl:  // f_r·[P̃ log(P̃/Q̃) − P̃ + Q̃] = f_r Q̃ φ(P̃/Q̃ − 1); where p vanishes, q
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
  check_deadline();
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
  if (A.laplace && R.laplace && A.s == R.s && a.sign == r.sign && !A.sum() && !R.sum()) return d;  // exactly 0
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
             bool* constant = nullptr) {
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

// ---- tails: each density is dominated by exp(quadratic)s ------------------------------------------------------

struct Quad {
  Ball a, b, c;  // a x² + b x + c
};

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

// An upper bound a x² + b x + c of α·log f_i + β·log f_j on the right tail [B, ∞) (B ≥ both centres), weights
// excluded; exact for Gaussians and Laplaces (exact cancellations kept exact). A Laplace sum's log G(τ) is bounded
// on τ ≥ T = (B − m)/s by its tangent at T from above and by log G(T) from below (log_g_and_slope), taking the
// side its coefficient's sign needs; at T ≤ 0 the bound is +∞ (the caller's window grows).
Quad combine(const Piece& i, const Piece& j, const Ball& alpha, const Ball& beta, double B, slong prec) {
  if (i.sum() && j.sum() && i.scales == j.scales && arb_is_nonnegative(alpha.get()) &&
      arb_is_nonpositive(beta.get()))
    return combine_sums(i, j, alpha, beta, B, prec);
  bool unbounded = false;
  auto coefficients = [&](const Piece& pc, const Ball& coefficient) {
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
  };
  const Quad qi = coefficients(i, alpha), qj = coefficients(j, beta);
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

Ball weight_sum(const Side& p, double B, slong prec) {
  Ball w;
  for (const Piece& pc : p.pieces)
    if (pc.hi > B) {
      Ball t;
      arb_exp(t.get(), pc.log_w.get(), prec);
      arb_add(w.get(), w.get(), t.get(), prec);
    }
  return w;
}

struct Tail {
  enum class Kind { bounded, infinite_divergence, unbounded } kind = Kind::bounded;
  Ball value;
};

// ∫_B^∞ p^α q^{1−α} ≤ W^α w_j^{1−α} Σ_i ∫ f_i^α f_j^{1−α}  (p ≤ W max_i f_i, q ≥ w_j f_j). α > 1.
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
    arb_add(out.value.get(), out.value.get(), v->get(), prec);
  }
  Ball w = weight_sum(p, B, prec), t;
  arb_log(w.get(), w.get(), prec);
  arb_mul(w.get(), w.get(), alpha.get(), prec);
  arb_mul(t.get(), j->log_w.get(), beta.get(), prec);
  arb_add(w.get(), w.get(), t.get(), prec);
  arb_exp(w.get(), w.get(), prec);
  arb_mul(out.value.get(), out.value.get(), w.get(), prec);
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

// sup over [B, ∞) of log p − log q (an upper bound), nullopt if unbounded, −inf encoded by `none` when p vanishes.
struct LossSup {
  bool p_vanishes = false;
  bool q_vanishes = false;
  bool infinite = false;   // L → +∞ along the tail (certified)
  std::optional<Ball> sup;  // an upper bound of L on the tail
};

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

// ---- the pair --------------------------------------------------------------------------------------------------

struct Pair {
  Side p, q;
  double s_min = kInf, s_max = 0;
  std::vector<double> breakpoints;  // kinks, support ends, sorted
  double lo = kInf, hi = -kInf;     // span of centres and breakpoints
};

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

struct Certified {
  Ball value;
  bool infinite = false;
  std::string detail;
};

Ball atoms_hs(const Pair& pr, const Ball& exp_eps, slong prec) {
  Ball out;
  for (const auto& [x, mp] : pr.p.atoms) {
    Ball d = mp;
    if (auto it = pr.q.atoms.find(x); it != pr.q.atoms.end()) {
      Ball t;
      arb_mul(t.get(), it->second.get(), exp_eps.get(), prec);
      arb_sub(d.get(), d.get(), t.get(), prec);
    }
    arb_nonnegative_part(d.get(), d.get());  // [d]_+ as a ball
    arb_add(out.get(), out.get(), d.get(), prec);
  }
  return out;
}

// HS_ε on the densities over [u, v] (sign subdivision) and the mass it could not decide.
struct Subdivision {
  std::vector<std::pair<double, double>> positive;
  std::vector<std::pair<double, double>> constant;  // L − ε constant, its sign undecided
  Ball undecided;  // upper bound of ∫[p − e^ε q]_+ over undecided intervals
  long evaluations = 0;
};

void sign_subdivide(const Pair& pr, const Segment& sp, const Segment& sq, double u, double v, const Ball& eps,
                    const Ball& exp_eps, slong prec, Subdivision& out) {
  std::vector<std::pair<double, double>> stack{{u, v}};
  while (!stack.empty()) {
    auto [a, b] = stack.back();
    stack.pop_back();
    if (++out.evaluations > kMaxEvaluations)
      throw Refused(fmt::format("the sign of the privacy loss could not be certified within {} subdivisions", kMaxEvaluations));
    if (out.evaluations % 1024 == 0) check_deadline();
    bool constant = false;
    const Ball l = loss_on(sp, sq, a, b, eps, prec, &constant);
    if (constant && !arb_is_positive(l.get()) && !arb_is_nonpositive(l.get())) {
      // L ≡ ε within rounding on the whole interval: p − e^ε q = (e^{L−ε} − 1) e^ε q has one sign there, so
      // ∫[p − e^ε q]_+ = [∫(p − e^ε q)]_+.
      out.constant.emplace_back(a, b);
      continue;
    }
    if (arb_is_positive(l.get())) {
      if (!out.positive.empty() && out.positive.back().second == a) out.positive.back().second = b;
      else out.positive.emplace_back(a, b);
      continue;
    }
    if (arb_is_nonpositive(l.get())) continue;
    const double c = a + (b - a) / 2;
    const double floor_width = std::max({std::fabs(a), std::fabs(b), pr.s_min}) * std::ldexp(1.0, -static_cast<int>(prec / 2));
    // Undecidable at this precision even at the midpoint (the inputs' own rounding, e.g. a weight's last place,
    // exceeds |L − ε| there): halving cannot help, bound the interval instead.
    bool point_undecided = false;
    if (b - a < 1e-3 * std::max(std::fabs(c), pr.s_min)) {
      const Ball lc = loss_at(sp, sq, Ball(c), eps, prec);
      point_undecided = !arb_is_positive(lc.get()) && !arb_is_nonpositive(lc.get());
    }
    if (point_undecided || b - a <= floor_width || c <= a || c >= b) {
      // Undecided (a crossing inside): ∫[p − e^ε q]_+ ≤ (b − a)·sup [p − e^ε q]_+, second order in b − a.
      Complex z, d;
      Ball x = interval_ball(a, b, prec);
      acb_set_arb(z.get(), x.get());
      Job job{Integrand::hs, &sp, &sq, Ball(), Ball(), exp_eps, Ball()};
      integrand(d.get(), z.get(), &job, 0, prec);
      Ball add;
      arb_nonnegative_part(add.get(), acb_realref(d.get()));
      mul_d(add.get(), add.get(), b - a, prec);
      Ball zero;
      arb_union(add.get(), add.get(), zero.get(), prec);
      arb_add(out.undecided.get(), out.undecided.get(), add.get(), prec);
      continue;
    }
    stack.emplace_back(c, b);  // left half first: runs come out in order
    stack.emplace_back(a, c);
  }
}

// ∫_a^b (p − e^ε q) in closed form (the pieces' CDFs): no quadrature is needed for the hockey-stick.
Ball mass_difference(const Segment& sp, const Segment& sq, double a, double b, const Ball& exp_eps, slong prec) {
  Ball mp, mq;
  for (const Active& x : sp) {
    Ball m = piece_mass(*x.piece, a, b, prec);
    arb_add(mp.get(), mp.get(), m.get(), prec);
  }
  for (const Active& x : sq) {
    Ball m = piece_mass(*x.piece, a, b, prec);
    arb_add(mq.get(), mq.get(), m.get(), prec);
  }
  arb_mul(mq.get(), mq.get(), exp_eps.get(), prec);
  arb_sub(mp.get(), mp.get(), mq.get(), prec);
  arb_nonnegative_part(mp.get(), mp.get());  // the integrand has one sign (≥ 0) wherever this is called
  return mp;
}

Ball hs_region(const Pair& pr, double u, double v, const Ball& eps, const Ball& exp_eps, slong prec, long& evaluations) {
  Ball total;
  for (const auto& [a, b] : segments(pr, u, v)) {
    const Segment sp = active_on(pr.p, a, b), sq = active_on(pr.q, a, b);
    if (sp.empty()) continue;
    if (sq.empty()) {  // q vanishes: all of p counts
      Ball r = mass_difference(sp, sq, a, b, exp_eps, prec);
      arb_add(total.get(), total.get(), r.get(), prec);
      continue;
    }
    Subdivision sub;
    sign_subdivide(pr, sp, sq, a, b, eps, exp_eps, prec, sub);
    evaluations += sub.evaluations;
    for (const auto* runs : {&sub.positive, &sub.constant})
      for (const auto& [x, y] : *runs) {
        Ball r = mass_difference(sp, sq, x, y, exp_eps, prec);
        arb_add(total.get(), total.get(), r.get(), prec);
      }
    arb_add(total.get(), total.get(), sub.undecided.get(), prec);
  }
  return total;
}

// The tail is negligible against the interior's value (relative goal) or against the interior's own uncertainty
// (then a wider window cannot narrow the result).
bool negligible(const Ball& tail, const Ball& interior, long goal) {
  if (arb_is_zero(tail.get())) return true;
  Ball t;
  arb_mul_2exp_si(t.get(), interior.get(), -goal);
  if (arb_is_positive(interior.get()) && arb_le(tail.get(), t.get())) return true;
  mag_t tail_upper, radius;
  mag_init(tail_upper);
  mag_init(radius);
  arb_get_mag(tail_upper, tail.get());
  mag_mul_2exp_si(radius, arb_radref(interior.get()), -8);
  const bool below_noise = !mag_is_zero(radius) && mag_cmp(tail_upper, radius) <= 0;
  mag_clear(tail_upper);
  mag_clear(radius);
  return below_noise;
}

// The window [A, B] grows by doublings until both tails are negligible against the interior.
template <class Region, class TailFn>
Ball windowed(const Pair& pr, double A, double B, long goal, slong prec, Region region, TailFn tail, bool& infinite) {
  Ball interior = region(A, B);
  Pair mirror;
  mirror.p = mirrored(pr.p);
  mirror.q = mirrored(pr.q);
  for (int k = 0;; ++k) {
    check_deadline();
    const auto right = tail(pr, B), left = tail(mirror, -A);
    if (!right || !left) {  // a tail that certifies +inf
      infinite = true;
      return interior;
    }
    const bool right_ok = negligible(*right, interior, goal), left_ok = negligible(*left, interior, goal);
    if ((right_ok && left_ok) || k == kMaxExpansions) {
      Ball t;
      arb_add(t.get(), right->get(), left->get(), prec);
      Ball zero;
      arb_union(t.get(), t.get(), zero.get(), prec);  // [0, tails]
      arb_add(interior.get(), interior.get(), t.get(), prec);
      return interior;
    }
    const double width = B - A;
    if (!right_ok) {
      Ball add = region(B, B + width);
      arb_add(interior.get(), interior.get(), add.get(), prec);
      B += width;
    }
    if (!left_ok) {
      Ball add = region(A - width, A);
      arb_add(interior.get(), interior.get(), add.get(), prec);
      A -= width;
    }
  }
}

// Initial window: every centre and breakpoint, ten of the widest scales beyond.
std::pair<double, double> window(const Pair& pr, std::initializer_list<double> extra = {}) {
  double lo = pr.lo, hi = pr.hi;
  for (double x : extra)
    if (std::isfinite(x)) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  return {lo - 10 * pr.s_max, hi + 10 * pr.s_max};
}

Certified hockey_stick(const Pair& pr, double eps_d, long goal, slong prec) {
  Certified out;
  Ball eps(eps_d), exp_eps;
  arb_exp(exp_eps.get(), eps.get(), prec);
  Ball total = atoms_hs(pr, exp_eps, prec);
  if (pr.p.pieces.empty()) {
    out.value = total;
    return out;
  }
  long evaluations = 0;
  auto [A, B] = window(pr);
  bool infinite = false;
  auto region = [&](double u, double v) { return hs_region(pr, u, v, eps, exp_eps, prec, evaluations); };
  auto tail = [&](const Pair& side, double from) -> std::optional<Ball> {
    // Zero if L − ε is certified negative on the whole tail; else p's mass there.
    const LossSup s = loss_sup_tail(side.p, side.q, from, prec);
    if (s.p_vanishes) return Ball();
    if (s.sup) {
      Ball l;
      arb_sub(l.get(), s.sup->get(), eps.get(), prec);
      if (arb_is_negative(l.get())) return Ball();
    }
    return mass_tail(side.p, from, prec);
  };
  Ball dens = windowed(pr, A, B, goal, prec, region, tail, infinite);
  arb_add(total.get(), total.get(), dens.get(), prec);
  out.value = total;
  out.detail = fmt::format("{} sign tests", evaluations);
  return out;
}

// C: the log-integrand's largest value over centres, tilted modes and a grid (scales the tolerance only).
double renyi_scale(const sim::Law& p, const sim::Law& q, const Pair& pr, double alpha) {
  std::vector<double> xs;
  for (const Piece& a : pr.p.pieces) xs.push_back(a.m_d);
  for (const Piece& b : pr.q.pieces) xs.push_back(b.m_d);
  const std::size_t np = std::min<std::size_t>(pr.p.pieces.size(), 200), nq = std::min<std::size_t>(pr.q.pieces.size(), 200);
  for (std::size_t i = 0; i < np; ++i)
    for (std::size_t j = 0; j < nq; ++j) xs.push_back(pr.q.pieces[j].m_d + alpha * (pr.p.pieces[i].m_d - pr.q.pieces[j].m_d));
  double C = -kInf;
  for (double x : xs) {
    const double g = alpha * p.log_density(x) + (1 - alpha) * q.log_density(x);
    if (std::isfinite(g)) C = std::max(C, g);
  }
  return std::isfinite(C) ? C : 0.0;
}

Certified renyi(const sim::Law& lp, const sim::Law& lq, const Pair& pr, double alpha_d, long goal, slong prec) {
  Certified out;
  Ball alpha(alpha_d), beta;
  arb_sub_si(beta.get(), alpha.get(), 1, prec);
  arb_neg(beta.get(), beta.get());
  // Atoms: Σ m_p^α m_q^{1−α}.
  Ball atoms;
  for (const auto& [x, mp] : pr.p.atoms) {
    if (arb_is_zero(mp.get())) continue;
    const auto it = pr.q.atoms.find(x);
    if (it == pr.q.atoms.end() || arb_is_zero(it->second.get())) {
      out.infinite = true;  // an atom of μ that ν does not charge
      return out;
    }
    Ball t, u;
    arb_log(t.get(), mp.get(), prec);
    arb_mul(t.get(), t.get(), alpha.get(), prec);
    arb_log(u.get(), it->second.get(), prec);
    arb_mul(u.get(), u.get(), beta.get(), prec);
    arb_add(t.get(), t.get(), u.get(), prec);
    arb_exp(t.get(), t.get(), prec);
    arb_add(atoms.get(), atoms.get(), t.get(), prec);
  }
  Ball log_s;
  if (pr.p.pieces.empty()) {
    arb_log(log_s.get(), atoms.get(), prec);
  } else {
    const double C = renyi_scale(lp, lq, pr, alpha_d);
    Ball shift(C);
    std::vector<double> tilted;
    for (const Piece& a : pr.p.pieces)
      for (const Piece& b : pr.q.pieces) {
        tilted.push_back(b.m_d + alpha_d * (a.m_d - b.m_d));
        if (tilted.size() > 4096) break;
      }
    double A = pr.lo - 10 * pr.s_max, B = pr.hi + 10 * pr.s_max;
    for (double t : tilted)
      if (std::isfinite(t)) {
        A = std::min(A, t - 10 * pr.s_max);
        B = std::max(B, t + 10 * pr.s_max);
      }
    bool p_without_q = false;
    auto region = [&](double u, double v) {
      Ball total;
      for (const auto& [a, b] : segments(pr, u, v)) {
        const Segment sp = active_on(pr.p, a, b), sq = active_on(pr.q, a, b);
        if (sp.empty()) continue;
        if (sq.empty()) {
          p_without_q = true;
          continue;
        }
        Job job{Integrand::renyi, &sp, &sq, alpha, beta, Ball(), shift};
        Ball scale(pr.s_min / (1 + alpha_d));
        Ball r = integrate(job, a, b, goal, scale, prec);
        arb_add(total.get(), total.get(), r.get(), prec);
      }
      return total;
    };
    auto tail = [&](const Pair& side, double from) -> std::optional<Ball> {
      const Tail t = renyi_tail(side.p, side.q, alpha, from, prec);
      if (t.kind == Tail::Kind::infinite_divergence) return std::nullopt;
      if (t.kind == Tail::Kind::unbounded)
        throw Refused("the Renyi integrand's tail could not be bounded (the divergence may be infinite)");
      Ball v = t.value, e;
      arb_neg(e.get(), shift.get());
      arb_exp(e.get(), e.get(), prec);
      arb_mul(v.get(), v.get(), e.get(), prec);
      return v;
    };
    bool infinite = false;
    Ball dens = windowed(pr, A, B, goal, prec, region, tail, infinite);
    if (infinite || p_without_q) {
      out.infinite = true;
      return out;
    }
    // S = e^C (dens + atoms e^{−C})
    Ball e;
    arb_neg(e.get(), shift.get());
    arb_exp(e.get(), e.get(), prec);
    arb_mul(e.get(), e.get(), atoms.get(), prec);
    arb_add(dens.get(), dens.get(), e.get(), prec);
    arb_log(log_s.get(), dens.get(), prec);
    arb_add(log_s.get(), log_s.get(), shift.get(), prec);
  }
  Ball am1;
  arb_sub_si(am1.get(), alpha.get(), 1, prec);
  arb_div(out.value.get(), log_s.get(), am1.get(), prec);
  return out;
}

// log(m_p/m_q) at an atom x of μ with mass m_p; false when ν has no mass there (the divergence is +∞).
bool atom_log_ratio(Ball& out, const Pair& pr, double x, const Ball& mp, slong prec) {
  const auto it = pr.q.atoms.find(x);
  if (it == pr.q.atoms.end() || arb_is_zero(it->second.get())) return false;
  arb_div(out.get(), mp.get(), it->second.get(), prec);
  arb_log(out.get(), out.get(), prec);
  return true;
}

Certified kl(const Pair& pr, long goal, slong prec) {
  Certified out;
  Ball atoms;  // Σ m_p log(m_p/m_q) − m_p + m_q over the union of atoms (each term ≥ 0)
  for (const auto& [x, mp] : pr.p.atoms) {
    const auto it = pr.q.atoms.find(x);
    if (arb_is_zero(mp.get())) {
      if (it != pr.q.atoms.end()) arb_add(atoms.get(), atoms.get(), it->second.get(), prec);
      continue;
    }
    Ball t;
    if (!atom_log_ratio(t, pr, x, mp, prec)) {
      out.infinite = true;
      return out;
    }
    arb_mul(t.get(), t.get(), mp.get(), prec);
    arb_sub(t.get(), t.get(), mp.get(), prec);
    arb_add(t.get(), t.get(), it->second.get(), prec);
    arb_add(atoms.get(), atoms.get(), t.get(), prec);
  }
  for (const auto& [x, mq] : pr.q.atoms)
    if (!pr.p.atoms.count(x)) arb_add(atoms.get(), atoms.get(), mq.get(), prec);
  if (pr.p.pieces.empty() && pr.q.pieces.empty()) {
    out.value = atoms;
    return out;
  }
  auto [A, B] = window(pr);
  bool p_without_q = false;
  auto region = [&](double u, double v) {
    Ball total;
    for (const auto& [a, b] : segments(pr, u, v)) {
      const Segment sp = active_on(pr.p, a, b), sq = active_on(pr.q, a, b);
      if (sq.empty()) {
        if (!sp.empty()) p_without_q = true;
        continue;
      }
      Job job{Integrand::kl, &sp, &sq, Ball(), Ball(), Ball(), Ball()};
      Ball scale(pr.s_min);
      Ball r = integrate(job, a, b, goal, scale, prec);
      arb_add(total.get(), total.get(), r.get(), prec);
    }
    return total;
  };
  auto tail = [&](const Pair& side, double from) -> std::optional<Ball> {
    // p log(p/q) − p + q ≤ p^{1+s} q^{−s}/s + q (log y ≤ y^s/s): a Rényi tail at order 1 + s.
    for (int k = 0; k <= 16; ++k) {
      const double s = std::ldexp(1.0, -k);
      const Tail t = renyi_tail(side.p, side.q, Ball(1 + s), from, prec);
      if (t.kind == Tail::Kind::infinite_divergence && !tail_piece(side.q)) return std::nullopt;
      if (t.kind != Tail::Kind::bounded) continue;
      Ball v;
      div_d(v.get(), t.value.get(), s, prec);
      Ball m = mass_tail(side.q, from, prec);
      arb_add(v.get(), v.get(), m.get(), prec);
      return v;
    }
    throw Refused("the KL integrand's tail could not be bounded");
  };
  bool infinite = false;
  Ball dens = windowed(pr, A, B, goal, prec, region, tail, infinite);
  if (infinite || p_without_q) {
    out.infinite = true;
    return out;
  }
  arb_add(out.value.get(), dens.get(), atoms.get(), prec);
  return out;
}

Certified renyi_inf(const Pair& pr, slong prec) {
  Certified out;
  Ball best_lower(-kInf);
  bool have_lower = false;
  Ball upper;  // max of the upper bounds of what is left
  bool have_upper = false;
  auto note_upper = [&](const Ball& u) {
    if (!have_upper) upper = u;
    else arb_max(upper.get(), upper.get(), u.get(), prec);
    have_upper = true;
  };
  auto note_lower = [&](const Ball& l) {
    if (!have_lower) best_lower = l;
    else arb_max(best_lower.get(), best_lower.get(), l.get(), prec);
    have_lower = true;
  };
  for (const auto& [x, mp] : pr.p.atoms) {
    if (arb_is_zero(mp.get())) continue;
    Ball t;
    if (!atom_log_ratio(t, pr, x, mp, prec)) {
      out.infinite = true;
      return out;
    }
    note_lower(t);
    note_upper(t);
  }
  if (!pr.p.pieces.empty()) {
    auto [A, B] = window(pr);
    // Tails beyond the window: extend until their bound falls below the best value found (or give up at the cap).
    Pair mirror;
  mirror.p = mirrored(pr.p);
  mirror.q = mirrored(pr.q);
    long evaluations = 0;
    struct Box {
      double a, b;
      Ball ub;
      const Segment* p;
      const Segment* q;
    };
    std::vector<std::pair<Segment, Segment>> held;
    held.reserve(4096);
    // Ordered by upper end (a ball's radius is kept to 30 bits: the midpoint alone would misorder boxes).
    auto cmp = [](const Box& x, const Box& y) {
      arf_t u, v;
      arf_init(u);
      arf_init(v);
      arb_get_ubound_arf(u, x.ub.get(), 64);
      arb_get_ubound_arf(v, y.ub.get(), 64);
      const bool less = arf_cmp(u, v) < 0;
      arf_clear(u);
      arf_clear(v);
      return less;
    };
    std::priority_queue<Box, std::vector<Box>, decltype(cmp)> queue(cmp);
    Ball zero;
    auto add_region = [&](double u, double v) {
      for (const auto& [a, b] : segments(pr, u, v)) {
        Segment sp = active_on(pr.p, a, b), sq = active_on(pr.q, a, b);
        if (sp.empty()) continue;
        if (sq.empty()) {
          out.infinite = true;
          return;
        }
        if (held.size() == held.capacity()) throw Refused("too many segments for the supremum search");
        held.emplace_back(std::move(sp), std::move(sq));
        const auto& h = held.back();
        queue.push({a, b, loss_on(h.first, h.second, a, b, zero, prec), &h.first, &h.second});
        for (double x : {a, b}) note_lower(loss_at(h.first, h.second, Ball(x), zero, prec));
      }
    };
    add_region(A, B);
    for (int k = 0; k <= kMaxExpansions && !out.infinite; ++k) {
      const LossSup r = loss_sup_tail(pr.p, pr.q, B, prec), l = loss_sup_tail(mirror.p, mirror.q, -A, prec);
      if (r.q_vanishes || l.q_vanishes || r.infinite || l.infinite) {
        out.infinite = true;
        return out;
      }
      auto small = [&](const LossSup& s) {
        return s.p_vanishes || (s.sup && have_lower && arb_le(s.sup->get(), best_lower.get()));
      };
      if ((small(r) && small(l)) || k == kMaxExpansions) {
        for (const LossSup* s : {&r, &l}) {
          if (s->p_vanishes) continue;
          if (!s->sup) {
            if (pr.p.pieces.size() == 1 && pr.q.pieces.size() == 1) {
              out.infinite = true;  // one piece each: the bound is the loss itself, unbounded
              return out;
            }
            throw Refused("the privacy loss could not be bounded above on the tails");
          }
          note_upper(*s->sup);
        }
        break;
      }
      const double width = B - A;
      if (!small(r)) {
        add_region(B, B + width);
        B += width;
      }
      if (!small(l)) {
        add_region(A - width, A);
        A -= width;
      }
    }
    if (out.infinite) return out;
    // Branch and bound: split the box with the largest upper bound until it is within 2^-50 of the best value.
    while (!queue.empty()) {
      Box top = queue.top();
      Ball ub;
      arb_get_ubound_arf(arb_midref(ub.get()), top.ub.get(), prec);
      Ball gap;
      arb_sub(gap.get(), ub.get(), best_lower.get(), prec);
      Ball tol;
      arb_abs(tol.get(), best_lower.get());
      arb_add_si(tol.get(), tol.get(), 1, prec);
      arb_mul_2exp_si(tol.get(), tol.get(), -50);
      const double c = top.a + (top.b - top.a) / 2;
      if (arb_le(gap.get(), tol.get()) || c <= top.a || c >= top.b) break;
      queue.pop();
      if (++evaluations > kMaxEvaluations)
        throw Refused(fmt::format("the supremum of the privacy loss was not located within {} subdivisions", kMaxEvaluations));
      if (evaluations % 1024 == 0) check_deadline();
      note_lower(loss_at(*top.p, *top.q, Ball(c), zero, prec));
      queue.push({top.a, c, loss_on(*top.p, *top.q, top.a, c, zero, prec), top.p, top.q});
      queue.push({c, top.b, loss_on(*top.p, *top.q, c, top.b, zero, prec), top.p, top.q});
    }
    while (!queue.empty()) {
      note_upper(queue.top().ub);
      queue.pop();
    }
    out.detail = fmt::format("{} boxes", evaluations);
  }
  if (!have_lower || !have_upper) throw Refused("no mass of mu to compare");
  // [best lower, max upper]: every point value is ≥ the lower end; the supremum is ≤ every box's upper end.
  Ball lo, hi;
  arb_get_lbound_arf(arb_midref(lo.get()), best_lower.get(), prec);
  arb_get_ubound_arf(arb_midref(hi.get()), upper.get(), prec);
  arf_t a, b;
  arf_init(a);
  arf_init(b);
  arf_set(a, arb_midref(lo.get()));
  arf_set(b, arb_midref(hi.get()));
  if (arf_cmp(a, b) > 0) arf_set(b, a);
  arb_set_interval_arf(out.value.get(), a, b, prec);
  arf_clear(a);
  arf_clear(b);
  return out;
}

Certified compute(const sim::Law& p, const sim::Law& q, const Quantity& quantity, slong prec) {
  const Pair pr = read_pair(p, q, prec);
  // Inputs known only to their last place (a stored mixture weight) make the integrand itself a ball of that
  // relative width: asking the quadrature for more digits than that only spends its evaluation budget.
  bool inexact = false;
  for (const Side* s : {&pr.p, &pr.q})
    for (const Piece& pc : s->pieces) inexact = inexact || mag_cmp_2exp_si(arb_radref(pc.log_w.get()), -prec / 2) > 0;
  // p^α amplifies a weight's relative uncertainty (2^-53) α-fold.
  const double amplification = quantity.kind == Quantity::Kind::renyi ? std::max(1.0, quantity.parameter) : 1.0;
  const long goal = inexact ? std::min<long>(prec - 24, 49 - static_cast<long>(std::ceil(std::log2(amplification))))
                            : std::min<long>(prec - 24, kGoalBits);
  // A Laplace sum's polynomial factor grows off the real line, and P^α with it: the integrator's work grows with α
  // (n = 2: 0.4 s at α = 256, 10 s at 512). Refused above 256, before any work.
  if (quantity.kind == Quantity::Kind::renyi && quantity.parameter > kMaxSumOrder)
    for (const Side* side : {&pr.p, &pr.q})
      for (const Piece& pc : side->pieces)
        if (pc.sum())
          throw Refused(fmt::format("Renyi order {} above {} for a Laplace sum (the work grows with the order)",
                                    format_number(quantity.parameter), kMaxSumOrder));
  switch (quantity.kind) {
    case Quantity::Kind::hockey_stick: return hockey_stick(pr, quantity.parameter, goal, prec);
    case Quantity::Kind::tv: return hockey_stick(pr, 0, goal, prec);
    case Quantity::Kind::renyi: return renyi(p, q, pr, quantity.parameter, goal, prec);
    case Quantity::Kind::kl: return kl(pr, goal, prec);
    case Quantity::Kind::renyi_inf:
      for (const Side* side : {&pr.p, &pr.q})
        for (const Piece& pc : side->pieces)
          if (pc.sum())
            throw Refused("R_inf of a Laplace sum is not covered (its supremum is approached at infinity, where the "
                          "tail bounds of log P are one-sided)");
      return renyi_inf(pr, prec);
  }
  throw Refused("unknown quantity");
}

bool is_finite_chain(const sim::Law& law) {
  const sim::Law* l = &law;
  while (const auto* d = dynamic_cast<const sim::LawDecorator*>(l)) l = &d->base();
  const auto* f = dynamic_cast<const sim::FiniteLaw*>(l);
  return f && f->exact_source() && f->exact_source()->K.size() > 0;
}

// Arb keeps per-thread caches (constants, exp tables): released when a thread that used them ends.
void release_caches_at_thread_exit() {
  thread_local struct FlintCaches {
    ~FlintCaches() { flint_cleanup(); }
  } caches;
  (void)caches;
}

}  // namespace

bool certified_reads_chain(const sim::Law& p, const sim::Law& q) { return is_finite_chain(p) || is_finite_chain(q); }

std::optional<std::string> certified_refusal(const sim::Law& p, const sim::Law& q) {
  release_caches_at_thread_exit();
  try {
    read_pair(p, q, 64);
  } catch (const Refused& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

Estimate certified_divergence(const sim::Law& p, const sim::Law& q, const Quantity& quantity,
                              const CertifiedOptions& options) {
  release_caches_at_thread_exit();
  const auto start = std::chrono::steady_clock::now();
  t_deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(std::max(0.0, options.seconds)));
  struct Reset {
    ~Reset() { t_deadline = std::chrono::steady_clock::time_point::max(); }
  } reset;
  const long cap = is_finite_chain(p) || is_finite_chain(q) ? std::min(16 * options.max_precision, 65536L) : options.max_precision;
  std::optional<Certified> best;
  std::optional<Ball> previous;
  slong used = 0;
  for (slong prec = 128;; prec *= 2) {
    Certified r;
    try {
      r = compute(p, q, quantity, prec);
    } catch (const Refused& e) {
      if (best) break;  // a higher precision ran out of budget: the enclosure already found stands
      throw NumericalError(fmt::format("certified engine: {} ({} between {} and {})", e.what(), quantity.label(),
                                       p.expression(), q.expression()));
    }
    used = prec;
    if (r.infinite) {
      Estimate inf = Estimate::infinite("certified (Arb): +inf (an atom or a region that nu does not charge, or a tail "
                                        "that is not integrable)");
      inf.error_kind = ErrorKind::certified;
      return inf;
    }
    best = std::move(r);
    if (!arb_is_finite(best->value.get())) {
    } else if (arb_rel_accuracy_bits(best->value.get()) >= kGoodBits || arb_is_zero(best->value.get())) {
      break;
    } else if (arb_is_nonnegative(best->value.get()) && upper_d(best->value) == 0 &&
               quantity.kind != Quantity::Kind::renyi_inf) {
      break;  // [0, below the double range]: nothing more to resolve in the output
    }
    // The radius did not halve with twice the precision: what remains comes from the inputs (a weight's last
    // place) or from the tails, and more bits will not narrow it.
    if (previous && arb_is_finite(best->value.get())) {
      mag_t half;
      mag_init(half);
      mag_mul_2exp_si(half, arb_radref(previous->get()), -1);
      const bool stalled = mag_cmp(arb_radref(best->value.get()), half) > 0;
      mag_clear(half);
      if (stalled) break;
    }
    previous = best->value;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (2 * prec > cap || seconds * 3 > options.seconds) break;
  }
  Ball v = best->value;
  if (!arb_is_finite(v.get()))
    throw NumericalError(fmt::format("certified engine: no finite enclosure of {} at {} bits ({} vs {})", quantity.label(),
                                     used, p.expression(), q.expression()));
  // Divergences are ≥ 0 and hockey-stick/TV ≤ 1: intersect.
  const bool bounded = quantity.kind == Quantity::Kind::hockey_stick || quantity.kind == Quantity::Kind::tv;
  Estimate e;
  e.error_kind = ErrorKind::certified;
  e.lower = std::max(0.0, lower_d(v));
  e.upper = upper_d(v);
  if (bounded) e.upper = std::min(1.0, e.upper);
  if (e.upper < e.lower) e.upper = e.lower;
  e.value = std::clamp(mid_d(v), e.lower, e.upper);
  // Logs of the ends, from the balls themselves: exact far below the double range.
  auto log_of = [&](bool upper_end) {
    Ball end;
    if (upper_end) arb_get_ubound_arf(arb_midref(end.get()), v.get(), used);
    else arb_get_lbound_arf(arb_midref(end.get()), v.get(), used);
    if (arf_sgn(arb_midref(end.get())) <= 0) return -kInf;
    Ball l;
    arb_log(l.get(), end.get(), used);
    return upper_end ? upper_d(l) : lower_d(l);
  };
  e.log_lower = log_of(false);
  e.log_upper = bounded ? std::min(0.0, log_of(true)) : log_of(true);
  e.log_value = e.value > 0 ? std::log(e.value) : (e.log_lower + (e.log_upper - e.log_lower) / 2);
  if (e.value == 0 && !std::isfinite(e.log_lower)) e.log_value = -kInf;  // an exact zero, or a value below every double
  const double rel = e.upper > 0 ? (e.upper - e.lower) / e.upper : 0;
  if (rel > 0.5 && e.upper > 1e-30)
    throw NumericalError(fmt::format("certified engine: the enclosure [{:.6g}, {:.6g}] of {} is too wide at {} bits "
                                     "within the budget ({} vs {})", e.lower, e.upper, quantity.label(), used,
                                     p.expression(), q.expression()));
  e.method = fmt::format("certified (Arb ball arithmetic, {} bits{}{})", used, best->detail.empty() ? "" : ", ",
                         best->detail);
  e.work = used;
  return e;
}

}  // namespace privamp::verify
