// The certified hockey-stick of a composition by privacy-loss lattices (certified.hpp says which pairs it covers).
//
// The argument. For one release (μ, ν) the privacy loss L = log dμ/dν (+∞ where ν puts no mass: a μ-atom that is
// not a ν-atom, or μ-density where ν has none) gives, under μ,
//   HS_ε(μ‖ν) = E_μ[f(L)],   f(ℓ) = (1 − e^{ε−ℓ})_+ ∈ [0, 1], non-decreasing, f(+∞) = 1, f(−∞) = 0.
// As a function of x = e^ε this is the release's curve h(x) = ∫ (dμ − x dν)_+ (convex, non-increasing), and a measure
// m on the grid ℤΔ ∪ {±∞} (Δ a power of two; its ν-part m e^{−ℓ}) has the curve φ(x) = Σ m_ℓ (1 − x e^{−ℓ})_+. The
// curve of a composition is E_{μ1}[h2(x e^{−L1})] = E_{μ2}[h1(x e^{−L2})]: monotone in each factor's curve. So
// measures ↑ with φ ≥ h and ↓ with φ ≤ h for every release give, composed,  E f(ΣL↓) ≤ HS_ε(composition) ≤ E f(ΣL↑)
// — whatever the mechanism, and for every ε at once. (Moving mass to a higher loss, or adding mass, raises a curve.)
//   One release. The line is cut into cells at the laws' breakpoints, then split; on a cell C the μ-mass P and the
//   ν-mass Q are enclosed (erfc or exponential tails, piece_mass) and so is the loss L(C) ⊆ [a, b] (loss_on: a centred
//   form intersected with the natural extension), with grid points ℓ0 = ⌊a/Δ⌋Δ ≤ L ≤ ℓ1 = ⌈b/Δ⌉Δ. A cell is split
//   until b − a ≤ Δ/2, or until P·min(1, e^{−a})·min(1, b − a) — about its ν-mass times the loss's spread, what a
//   coarse cell can cost the bracket — is negligible. Atoms carry their exact loss log(m_μ/m_ν). μ-mass beyond the
//   window (its tails, enclosed) is +∞ in ↑ and −∞ in ↓.
//   ↑, the chord: the cell's curve is P − xQ up to x0 = e^{ℓ0}, 0 from x1 = e^{ℓ1}, convex between, so it lies below
//   the chord from (x0, P − x0 Q) to (x1, 0) — the curve of the two-point measure p1 = (P − x0 Q)/(1 − e^{ℓ0−ℓ1}) at ℓ1,
//   p0 = P − p1 at ℓ0, which keeps both P and Q. With the balls, p1 from P⁺ and Q⁻ rounded up and p0 ≥ P⁺ − p1 (both
//   ends of the chord then stay above). Its error is the chord's gap, of second order in Δ where the loss has a
//   density (all the mass at ℓ1, L↑ = ⌈b/Δ⌉Δ, the first-order rule, where the balls allow no split).
//   ↓, the hull (pld_lower.cpp): the release's curve bounded below at the grid points, less the chords' gaps, and the
//   measure of the lower convex hull of those points, checked in balls; of second order too. Where it cannot be
//   checked, and for losses beyond ±600, L↓ = ⌊a/Δ⌋Δ.
//   Compositions. The laws of ΣL↑ and ΣL↓ are products of polynomials Σ c_k z^k, powers by squaring, with the masses
//   in fixed point (96 fractional bits): ↑ rounds every mass up (more mass only raises E f, as f ≥ 0), ↓ rounds down,
//   and the products are exact integer products (FLINT's fmpz_poly_mul) rounded back the same way. The mass at +∞ of
//   a sum is a∞(b∞ + Σb) + (Σa)b∞ (what ↓ lacks is at −∞, and −∞ meeting +∞ is put at −∞: a lower bound). Between
//   products the lattice's tails are trimmed: mass below a level moves up to it (↑) or to −∞ (↓), mass above moves to
//   +∞ (↑) or down to it (↓) — each move keeps the inequalities, and changes E f by at most the mass moved.
//   Evaluation. E f(S) = M_∞ + Σ_{kΔ>ε} c_k (1 − e^{ε−kΔ}) = M_∞ + S_j − e^{ε−jΔ} R_j, j the first index above ε,
//   S_j = Σ_{k≥j} c_k and R_j = Σ_{k≥j} c_k e^{−(k−j)Δ}: suffix sums computed once in balls (R_j = c_j + e^{−Δ} R_{j+1})
//   and kept as outward-rounded logs of their ends, so that every ε of a curve costs a lookup and a few logs.
// The bracket's width: at most that of the first-order rules, per release L↑ − L ≤ Δ + (b − a) ≤ 1.5Δ and likewise
// L − L↓, so the two ends are HS at levels at most 3·T·Δ apart, plus the masses moved by trimming and the negligible
// cells; with the chord and the hull it is of order T·Δ² where the losses have densities (DP-SGD, 10 steps: ε(1e-5)
// bracketed to 3e-5 relative, 6.4e-3 with the first-order rules). Δ is chosen for an ε-width of kTargetWidth under the
// first-order bound and made coarser where the cells or the composed lattice would grow too large: the width is
// printed, whatever it is (a bracket wider than half of [0, 1] is refused). This is the rigorous counterpart of the
// pessimistic and optimistic privacy-loss distributions of Meiser and Mohammadi (2018), Koskela, Jälkö and Honkela
// (2020) and the "connect the dots" construction of Doroshenko, Ghazi, Kamath, Kumar and Manurangsi (2022): every mass
// enclosed in ball arithmetic, every rounding made in its proven direction.
#include <algorithm>
#include <optional>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <flint/fmpz.h>
#include <flint/fmpz_poly.h>
#include <fmt/format.h>

#include "numerics/cache.hpp"
#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/log_space.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/composition.hpp"
#include "verify/divergence/certified/internal.hpp"

namespace privamp::verify {

namespace certified_detail {
namespace {

constexpr slong kPrec = 64;        // masses and losses of one release
constexpr long kMaxLattice = 1L << 21;  // grid points of one lattice (the suffix sums of both directions: 64 MB)
constexpr double kTargetWidth = 1e-3;   // the bracket's width in ε aimed at (2.5·T·Δ)
constexpr int kFinestStep = -24, kCoarsestStep = 0;  // Δ between 2^-24 and 1
constexpr double kMaxCells = 1 << 16;  // cells of all releases' discretisations (about 15 µs each)
constexpr double kPilotStep = 1.0 / 64;
constexpr double kSlack = 1e-17;        // mass that trimming and negligible cells may move, in all
constexpr double kMaxLoss = 1e4;        // |loss| beyond which a release's mass is put at ±∞ (↑ at +∞, ↓ at −∞)
constexpr double kHullLoss = 600;       // |loss| within which the ↓ lattice is the hull's (e^{±600} stay doubles)

// Masses in fixed point: an integer M stands for M·2^-kFraction. A lattice ↑ rounds every mass up (more mass can
// only raise E f, f ≥ 0) and a lattice ↓ rounds down; products are exact integer polynomial products (FLINT), then
// rounded back to kFraction bits in the lattice's direction. So the lattices stay measures that bound the exact ones
// from their side, and nothing else is rounded.
constexpr slong kFraction = 96;

class Poly {
 public:
  Poly() { fmpz_poly_init(p_); }
  Poly(const Poly& o) {
    fmpz_poly_init(p_);
    fmpz_poly_set(p_, o.p_);
  }
  Poly& operator=(const Poly& o) {
    fmpz_poly_set(p_, o.p_);
    return *this;
  }
  Poly(Poly&& o) noexcept {
    fmpz_poly_init(p_);
    fmpz_poly_swap(p_, o.p_);
  }
  Poly& operator=(Poly&& o) noexcept {
    fmpz_poly_swap(p_, o.p_);
    return *this;
  }
  ~Poly() { fmpz_poly_clear(p_); }
  fmpz_poly_struct* get() { return p_; }
  const fmpz_poly_struct* get() const { return p_; }
  long length() const { return fmpz_poly_length(p_); }
  fmpz* at(long k) { return p_->coeffs + k; }
  const fmpz* at(long k) const { return p_->coeffs + k; }

 private:
  fmpz_poly_t p_;
};

class Integer {
 public:
  Integer() { fmpz_init(x_); }
  Integer(const Integer& o) {
    fmpz_init(x_);
    fmpz_set(x_, o.x_);
  }
  Integer& operator=(const Integer& o) {
    fmpz_set(x_, o.x_);
    return *this;
  }
  ~Integer() { fmpz_clear(x_); }
  fmpz* get() { return x_; }
  const fmpz* get() const { return x_; }

 private:
  fmpz_t x_;
};

// An end of a nonnegative ball in fixed point, rounded up (↑) or down (↓).
Integer fixed(const Ball& b, bool up) {
  arf_t e;
  arf_init(e);
  if (up) arb_get_ubound_arf(e, b.get(), 64);
  else arb_get_lbound_arf(e, b.get(), 64);
  Integer out;
  if (arf_sgn(e) > 0) {
    arf_mul_2exp_si(e, e, kFraction);
    arf_get_fmpz(out.get(), e, up ? ARF_RND_CEIL : ARF_RND_FLOOR);
  }
  arf_clear(e);
  return out;
}

// x·2^-kFraction rounded in the lattice's direction, in place.
void rescale(fmpz* x, bool up) {
  if (up) fmpz_cdiv_q_2exp(x, x, kFraction);
  else fmpz_fdiv_q_2exp(x, x, kFraction);
}

// A lattice law: mass c_k at the loss (first + k)Δ, `infinite` at +∞ (and, for ↓, whatever is missing at −∞).
struct Lattice {
  bool up = true;
  long first = 0;
  Poly c;
  Integer infinite;
  Integer moved;  // the mass trimming moved (what it may cost the bracket)
};

Integer total(const Lattice& l) {
  Integer s;
  for (long k = 0; k < l.c.length(); ++k) fmpz_add(s.get(), s.get(), l.c.at(k));
  return s;
}

// Trims the lattice's tails while their mass stays within `budget` (fixed point) each, as the header says.
void trim(Lattice& l, const Integer& budget) {
  const long n = l.c.length();
  long lo = 0, hi = n;
  Integer below, above;
  while (lo + 1 < n) {
    fmpz_add(below.get(), below.get(), l.c.at(lo));
    if (fmpz_cmp(below.get(), budget.get()) > 0) {
      fmpz_sub(below.get(), below.get(), l.c.at(lo));
      break;
    }
    ++lo;
  }
  while (hi - 1 > lo + 1) {
    fmpz_add(above.get(), above.get(), l.c.at(hi - 1));
    if (fmpz_cmp(above.get(), budget.get()) > 0) {
      fmpz_sub(above.get(), above.get(), l.c.at(hi - 1));
      break;
    }
    --hi;
  }
  if (hi < n) {
    if (l.up) fmpz_add(l.infinite.get(), l.infinite.get(), above.get());
    else fmpz_add(l.c.at(hi - 1), l.c.at(hi - 1), above.get());
    fmpz_poly_truncate(l.c.get(), hi);
    fmpz_add(l.moved.get(), l.moved.get(), above.get());
  }
  if (lo > 0) {
    if (l.up) fmpz_add(l.c.at(lo), l.c.at(lo), below.get());
    fmpz_poly_shift_right(l.c.get(), l.c.get(), lo);
    l.first += lo;
    fmpz_add(l.moved.get(), l.moved.get(), below.get());
  }
}

// The lattice law of the sum of two independent lattice variables (both rounded the same way).
Lattice product(const Lattice& a, const Lattice& b, const Deadline& deadline) {
  deadline.spend((a.c.length() + b.c.length()) / 8);  // about what a product costs, in the budget's units
  deadline.check();
  Lattice out;
  out.up = a.up;
  out.first = a.first + b.first;
  if (&a == &b) fmpz_poly_sqr(out.c.get(), a.c.get());
  else fmpz_poly_mul(out.c.get(), a.c.get(), b.c.get());
  for (long k = 0; k < out.c.length(); ++k) rescale(out.c.at(k), out.up);
  _fmpz_poly_normalise(out.c.get());
  // +∞ when either is +∞ and the other is not −∞: a∞(b∞ + Σb) + (Σa)·b∞.
  const Integer fa = total(a), fb = total(b);
  Integer t;
  fmpz_add(t.get(), b.infinite.get(), fb.get());
  fmpz_mul(out.infinite.get(), a.infinite.get(), t.get());
  fmpz_addmul(out.infinite.get(), fa.get(), b.infinite.get());
  rescale(out.infinite.get(), out.up);
  fmpz_add(out.moved.get(), a.moved.get(), b.moved.get());
  throw_if_interrupted();
  return out;
}

Lattice power(const Lattice& base_in, long count, const Integer& budget, const Deadline& deadline) {
  std::optional<Lattice> result;
  Lattice base = base_in;
  for (long t = count; t > 0; t >>= 1) {
    if (t & 1) {
      if (!result) result = base;
      else {
        result = product(*result, base, deadline);
        trim(*result, budget);
      }
    }
    if (t > 1) {
      base = product(base, base, deadline);
      trim(base, budget);
    }
    if (result && result->c.length() > kMaxLattice) throw Refused("lattice too long");
    if (base.c.length() > kMaxLattice) throw Refused("lattice too long");
  }
  return std::move(*result);
}

// One release's lattices ↑ and ↓ (the header's "One release").
struct ReleaseLattices {
  Lattice up, down;
  long cells = 0;
};

class Accumulator {
 public:
  explicit Accumulator(double step) : step_(step) {}
  // Mass m whose loss lies in the ball `loss` (not finite: anywhere).
  void add(const Ball& m, const Ball& loss) {
    if (arb_is_zero(m.get())) return;
    const bool finite = arb_is_finite(loss.get());
    const double hi = finite ? upper_d(loss) : kInf, lo = finite ? lower_d(loss) : -kInf;
    if (hi > kMaxLoss) arb_add(up_inf_.get(), up_inf_.get(), m.get(), kPrec);
    else put(up_, static_cast<long>(std::ceil(std::max(hi, -kMaxLoss) / step_)), m);
    if (lo >= -kMaxLoss) put(down_, static_cast<long>(std::floor(std::min(lo, kMaxLoss) / step_)), m);
  }
  // Mass m of μ and mq of ν on a cell (or an atom) whose loss lies in `loss`: ↓ as add(); ↑ by the chord (the
  // header): the μ-mass split between the grid points ℓ0 = ⌊a/Δ⌋Δ and ℓ1 = ⌈b/Δ⌉Δ around the loss so that the
  // ν-mass is kept too, p1 ≥ (P⁺ − e^{ℓ0}Q⁻)/(1 − e^{ℓ0−ℓ1}) at ℓ1 and p0 ≥ P⁺ − p1 at ℓ0 (P⁺ the upper end of m,
  // Q⁻ the lower end of mq). Where the balls allow no such split, everything goes to ℓ1, as add() does.
  // A `point` — an atom, or a cell where the loss is constant — has the curve (P − xQ)_+ exactly, which the chord
  // bounds from any ℓ0 below ℓ1 (the curve is at most (P⁺ − x0 Q⁻)_+ at x0 and convex on [0, x0]): ℓ0 = ℓ1 − Δ, so
  // that a loss whose ball holds a grid point (a Laplace pair's ±a/b with a dyadic a) is split over one step, not two.
  void add_cell(const Ball& m, const Ball& mq, const Ball& loss, bool point = false) {
    if (arb_is_zero(m.get())) return;
    const bool finite = arb_is_finite(loss.get()) && arb_is_finite(mq.get());
    const double hi = finite ? upper_d(loss) : kInf, lo = finite ? lower_d(loss) : -kInf;
    const long j0 = finite ? static_cast<long>(std::floor(lo / step_)) : 0;
    const long j1 = finite ? static_cast<long>(std::ceil(hi / step_)) : 0;
    if (!(hi <= kMaxLoss && lo >= -kMaxLoss) || j1 == j0) return add(m, loss);
    const long c0 = point ? j1 - 1 : j0;  // the chord's lower grid point
    if (std::max(hi, -lo) <= kHullLoss) {  // ↓ by the hull (pld_lower.cpp), or by this if it cannot be checked
      put(down_first_, j0, m);
      cells_.push_back(LossCell{j0, j1, m, mq, point, lo, hi});
    } else {
      put(down_, j0, m);
    }
    Ball p_up, q_down, e0, den, p1;
    {
      arf_t e;
      arf_init(e);
      arb_get_ubound_arf(e, m.get(), kPrec);
      arb_set_arf(p_up.get(), e);
      arb_get_lbound_arf(e, mq.get(), kPrec);
      if (arf_sgn(e) > 0) arb_set_arf(q_down.get(), e);
      arf_clear(e);
    }
    arb_set_d(e0.get(), static_cast<double>(c0) * step_);
    arb_exp(e0.get(), e0.get(), kPrec);
    arb_mul(e0.get(), e0.get(), q_down.get(), kPrec);
    arb_sub(p1.get(), p_up.get(), e0.get(), kPrec);  // P⁺ − e^{ℓ0}Q⁻
    if (point && arb_is_negative(p1.get())) arb_zero(p1.get());  // (P⁺ − x0 Q⁻)_+
    arb_set_d(den.get(), static_cast<double>(c0 - j1) * step_);
    arb_expm1(den.get(), den.get(), kPrec);
    arb_neg(den.get(), den.get());  // 1 − e^{ℓ0−ℓ1} > 0
    arb_div(p1.get(), p1.get(), den.get(), kPrec);
    arf_t u;
    arf_init(u);
    arb_get_ubound_arf(u, p1.get(), kPrec);
    const bool split = arb_is_finite(p1.get()) && arf_sgn(u) >= 0 && arf_cmp(u, arb_midref(p_up.get())) < 0;
    if (split) {
      arb_set_arf(p1.get(), u);
      Ball p0;
      arb_sub(p0.get(), p_up.get(), p1.get(), kPrec);  // its upper end: at least P⁺ − p1
      put(up_, j1, p1);
      put(up_, c0, p0);
    }
    arf_clear(u);
    if (!split) put(up_, j1, p_up);
  }
  void add_infinite(const Ball& m) {  // certainly +∞ (ν has no mass there)
    arb_add(up_inf_.get(), up_inf_.get(), m.get(), kPrec);
    arb_add(down_inf_.get(), down_inf_.get(), m.get(), kPrec);
  }
  void add_unknown(const Ball& m) { arb_add(up_inf_.get(), up_inf_.get(), m.get(), kPrec); }  // ↑ +∞, ↓ −∞
  // The lattice in fixed point; its sparse tails are trimmed within `budget` (fixed point) first, as `trim` does, so
  // that a far cell of negligible mass does not stretch the dense lattice.
  Lattice lattice(bool up, const Integer& budget) const {
    std::map<long, Ball> merged;  // ↓: the cells beyond the hull's reach and the hull's (or their first-order) masses
    if (!up) {
      merged = down_;
      const std::optional<std::map<long, Ball>> hull = dominated_masses(cells_, step_);
      for (const auto& [k, m] : hull ? *hull : down_first_) put(merged, k, m);
    }
    const std::map<long, Ball>& cells = up ? up_ : merged;
    Lattice out;
    out.up = up;
    out.infinite = fixed(up ? up_inf_ : down_inf_, up);
    std::vector<std::pair<long, Integer>> points;
    for (const auto& [k, m] : cells) points.emplace_back(k, fixed(m, up));
    std::size_t lo = 0, hi = points.size();
    Integer below, above;
    while (lo + 1 < hi) {
      fmpz_add(below.get(), below.get(), points[lo].second.get());
      if (fmpz_cmp(below.get(), budget.get()) > 0) {
        fmpz_sub(below.get(), below.get(), points[lo].second.get());
        break;
      }
      ++lo;
    }
    while (hi > lo + 1) {
      fmpz_add(above.get(), above.get(), points[hi - 1].second.get());
      if (fmpz_cmp(above.get(), budget.get()) > 0) {
        fmpz_sub(above.get(), above.get(), points[hi - 1].second.get());
        break;
      }
      --hi;
    }
    if (lo == hi) return out;
    if (up) {
      fmpz_add(points[lo].second.get(), points[lo].second.get(), below.get());
      fmpz_add(out.infinite.get(), out.infinite.get(), above.get());
    } else {
      fmpz_add(points[hi - 1].second.get(), points[hi - 1].second.get(), above.get());
    }
    fmpz_add(out.moved.get(), below.get(), above.get());
    out.first = points[lo].first;
    const long n = points[hi - 1].first - out.first + 1;
    if (n > kMaxLattice) throw Refused("lattice too long");
    fmpz_poly_fit_length(out.c.get(), n);
    for (std::size_t i = lo; i < hi; ++i) fmpz_set(out.c.at(points[i].first - out.first), points[i].second.get());
    _fmpz_poly_set_length(out.c.get(), n);
    _fmpz_poly_normalise(out.c.get());
    return out;
  }

 private:
  static void put(std::map<long, Ball>& cells, long k, const Ball& m) {
    auto [it, fresh] = cells.try_emplace(k, m);
    if (!fresh) arb_add(it->second.get(), it->second.get(), m.get(), kPrec);
  }
  double step_;
  std::map<long, Ball> up_, down_;
  std::vector<LossCell> cells_;       // the cells of the ↓ lattice by the hull
  std::map<long, Ball> down_first_;  // the same cells rounded down, where the hull cannot be checked
  Ball up_inf_, down_inf_;
};

// Bisects the cells of one segment where μ and ν both have density, as the header says.
void discretise_segment(const Segment& sp, const Segment& sq, double u, double v, double step, double negligible,
                        Accumulator& acc, long& cells, const Deadline& deadline) {
  const Ball zero;
  std::vector<std::pair<double, double>> stack{{u, v}};
  while (!stack.empty()) {
    const auto [a, b] = stack.back();
    stack.pop_back();
    deadline.spend(2);  // a cell costs about three units of the budget
    deadline.check();
    Ball m;
    for (const Active& pc : sp) {
      Ball t = piece_mass(*pc.piece, a, b, kPrec);
      arb_add(m.get(), m.get(), t.get(), kPrec);
    }
    if (arb_is_zero(m.get())) continue;
    bool constant = false;
    const Ball loss = loss_on(sp, sq, a, b, zero, kPrec, &constant);
    const double width = arb_is_finite(loss.get()) ? upper_d(loss) - lower_d(loss) : kInf;
    const double weight = upper_d(m) * std::min(1.0, std::exp(-lower_d(loss)));  // ≥ the cell's ν-mass, roughly
    // Split into as many parts as the loss's width asks (at most 64), so that few cells are visited twice.
    const double parts = std::clamp(std::ceil(2.2 * width / step), 2.0, 64.0);
    const double w = (b - a) / parts;
    const bool splittable = a + w > a && b - w < b;
    if (constant || width <= step / 2 || weight * std::min(1.0, width) <= negligible || !splittable) {
      Ball mq;
      for (const Active& pc : sq) {
        Ball t = piece_mass(*pc.piece, a, b, kPrec);
        arb_add(mq.get(), mq.get(), t.get(), kPrec);
      }
      acc.add_cell(m, mq, loss, constant);
      ++cells;
      continue;
    }
    for (int k = static_cast<int>(parts) - 1; k >= 0; --k)
      stack.emplace_back(k == 0 ? a : a + k * w, k + 1 == static_cast<int>(parts) ? b : a + (k + 1) * w);
  }
}

ReleaseLattices discretise(const sim::Law& mu, const sim::Law& nu, double step, double tail_budget, double negligible,
                           const Deadline& deadline) {
  const Pair pr = read_pair(mu, nu, kPrec);
  Accumulator acc(step);
  ReleaseLattices out;
  for (const auto& [x, mp] : pr.p.atoms) {
    const auto it = pr.q.atoms.find(x);
    ++out.cells;
    if (it == pr.q.atoms.end() || arb_is_zero(it->second.get())) {  // the loss is +∞ (certainly)
      acc.add_infinite(mp);
      continue;
    }
    Ball loss, t;
    arb_log(loss.get(), mp.get(), kPrec);
    arb_log(t.get(), it->second.get(), kPrec);
    arb_sub(loss.get(), loss.get(), t.get(), kPrec);
    acc.add_cell(mp, it->second, loss, true);  // an atom of ν whose mass is not certainly positive: a loss ball that is not finite (±∞)
  }
  if (!pr.p.pieces.empty()) {
    // The window: widened until μ's mass beyond it is within the tail budget on each side.
    double A = pr.lo - 10 * pr.s_max, B = pr.hi + 10 * pr.s_max;
    const Side mirror = mirrored(pr.p);
    Ball right = mass_tail(pr.p, B, kPrec), left = mass_tail(mirror, -A, kPrec);
    for (int k = 0; upper_d(right) > tail_budget || upper_d(left) > tail_budget; ++k) {
      if (k == kMaxExpansions) throw Refused("the laws' tails do not become negligible within the window");
      const double w = B - A;
      if (upper_d(right) > tail_budget) right = mass_tail(pr.p, B += w, kPrec);
      if (upper_d(left) > tail_budget) left = mass_tail(mirror, -(A -= w), kPrec);
    }
    acc.add_unknown(right);
    acc.add_unknown(left);
    for (const auto& [u, v] : segments(pr, A, B)) {
      const Segment sp = active_on(pr.p, u, v);
      if (sp.empty()) continue;
      const Segment sq = active_on(pr.q, u, v);
      if (sq.empty()) {
        Ball m;
        for (const Active& pc : sp) {
          Ball t = piece_mass(*pc.piece, u, v, kPrec);
          arb_add(m.get(), m.get(), t.get(), kPrec);
        }
        acc.add_infinite(m);
        continue;
      }
      discretise_segment(sp, sq, u, v, step, negligible, acc, out.cells, deadline);
    }
  }
  Integer budget;
  fmpz_set_d(budget.get(), std::floor(std::ldexp(tail_budget, kFraction)));
  out.up = acc.lattice(true, budget);
  out.down = acc.lattice(false, budget);
  return out;
}

// log of an end of a nonnegative ball, rounded outwards (−inf for an end at 0).
double log_end(arb_srcptr b, bool upper) {
  arf_t e, m;
  fmpz_t x;
  arf_init(e);
  arf_init(m);
  fmpz_init(x);
  if (upper) arb_get_ubound_arf(e, b, 64);
  else arb_get_lbound_arf(e, b, 64);
  double out = -kInf;
  if (arf_is_pos_inf(e)) out = kInf;
  else if (arf_sgn(e) > 0) {
    arf_frexp(m, x, e);  // e = m·2^x, m in [1/2, 1)
    const double md = arf_get_d(m, upper ? ARF_RND_CEIL : ARF_RND_FLOOR);
    const double xd = static_cast<double>(fmpz_get_si(x));
    out = std::log(md) + xd * std::numbers::ln2;
    const double margin = 4 * kU * (std::fabs(out) + std::fabs(xd) + 1);
    out += upper ? margin : -margin;
  }
  arf_clear(e);
  arf_clear(m);
  fmpz_clear(x);
  return out;
}

}  // namespace

// A composed lattice law read at every ε: the logs of the suffix sums' ends, as the header's "Evaluation" says.
struct LatticeCurve {
  bool up = true;
  double step = 0;
  long first = 0;
  std::vector<double> log_s, log_r;  // ↑: upper ends of S_j, lower ends of R_j; ↓: lower ends of S_j, upper of R_j
  double log_infinite = -kInf;       // ↑: its upper end; ↓: its lower end
  double moved = 0;

  LatticeCurve(const Lattice& l, double step_) : up(l.up), step(step_), first(l.first) {
    const long n = l.c.length();
    log_s.assign(n, -kInf);
    log_r.assign(n, -kInf);
    // In balls from the exact integers; the common factor 2^-kFraction is taken out of the logs.
    constexpr slong prec = 128;
    Ball s, r, c, decay(-step);
    arb_exp(decay.get(), decay.get(), prec);
    const double scale = static_cast<double>(kFraction) * std::numbers::ln2;
    const auto log_of = [&](const Ball& b, bool upper) {
      const double x = log_end(b.get(), upper);
      return x == -kInf ? x : x - scale + (upper ? 4 : -4) * kU * scale;
    };
    for (long k = n - 1; k >= 0; --k) {
      arb_set_fmpz(c.get(), l.c.at(k));
      arb_add(s.get(), s.get(), c.get(), prec);
      arb_mul(r.get(), r.get(), decay.get(), prec);
      arb_add(r.get(), r.get(), c.get(), prec);
      log_s[k] = log_of(s, up);
      log_r[k] = log_of(r, !up);
    }
    arb_set_fmpz(c.get(), l.infinite.get());
    log_infinite = log_of(c, up);
    arb_set_fmpz(c.get(), l.moved.get());
    arb_mul_2exp_si(c.get(), c.get(), -kFraction);
    moved = upper_d(c);
  }

  // log of the bound of E f(S) at ε: an upper bound (↑) or a lower bound (↓).
  double log_hockey_stick(double eps) const {
    const long n = static_cast<long>(log_s.size());
    // j: the first index above ε (compared in double first: ε/Δ may exceed any integer).
    const double above = std::floor(eps / step) + 1;
    const long j = above >= static_cast<double>(first + n) ? first + n : std::max(first, static_cast<long>(above));
    double finite = -kInf;
    if (j - first < n) {
      const double ls = log_s[j - first], lr = log_r[j - first];
      const double lx = eps - static_cast<double>(j) * step;  // in (−∞, 0): e^{ε − jΔ}
      if (lr == -kInf) finite = ls;
      else if (ls > -kInf) {
        const double d = lx + lr - ls;
        const double err = 8 * kU * (std::fabs(ls) + std::fabs(lr) + std::fabs(lx) + std::fabs(eps) + 1);
        // S − xR ≥ 0 always; where the ends say otherwise, the upper end is 0 and so is the lower one.
        const double dd = up ? d - err : d + err;
        if (dd < 0) {
          const double g = log1mexp(dd);
          const double amplify = 1 + std::exp(dd) / -std::expm1(dd);
          const double margin = 4 * kU * (std::fabs(ls) + std::fabs(g) + 1) + 4 * kU * amplify;
          finite = ls + g + (up ? margin : -margin);
        }
      }
    }
    double out = log_add(log_infinite, finite);
    if (out > -kInf && out < kInf) out += (up ? 4 : -4) * kU * (std::fabs(out) + 1);
    return up ? std::min(out, 0.0) : out;
  }
};

namespace {

// The cache of composed lattices: a curve (a profile of thousands of ε) and a root search ask the same composition
// many times; the last few are kept.
struct Lattices {
  std::shared_ptr<const LatticeCurve> up, down;
  double step = 0;
  long cells = 0;
};

// The composed lattices of the last two compositions (at most 2^21 points a direction, 16 bytes a point: 134 MB).
Cache<std::string, std::shared_ptr<const Lattices>>& cache() {
  static Cache<std::string, std::shared_ptr<const Lattices>> c(2);
  return c;
}

std::shared_ptr<const Lattices> build(const std::vector<ReleasePair>& pairs, const Deadline& deadline) {
  long releases = 0;
  for (const ReleasePair& r : pairs) releases += r.count;
  // Δ: the largest power of two with 2.5·T·Δ ≤ kTargetWidth (an aim: the width's bound is 3·T·Δ, most releases' cells
  // spread less than Δ/2); coarser where a lattice grows too long.
  int e = static_cast<int>(std::floor(std::log2(kTargetWidth / (2.5 * static_cast<double>(releases)))));
  // The cells one release needs grow like 1/Δ: a pilot at a coarse step predicts them, and Δ is made coarser where
  // they would exceed kMaxCells.
  // The composed lattice spans about T times a release's range for few releases, and about 24 standard deviations
  // of the composed loss for many: the pilot's moments predict it, and Δ keeps it within half of kMaxLattice.
  const double per = kSlack / (8 * static_cast<double>(releases) + 8);
  double pilot_cells = 0, sum_range = 0, max_range = 0, variance = 0;
  for (const ReleasePair& r : pairs) {
    const ReleaseLattices pilot = discretise(*r.mu, *r.nu, kPilotStep, per, kSlack * kPilotStep, deadline);
    pilot_cells += static_cast<double>(pilot.cells);
    const double range = kPilotStep * static_cast<double>(pilot.up.c.length() + 2);
    const double count = static_cast<double>(r.count);
    sum_range += count * range;
    max_range = std::max(max_range, range);
    double m0 = 0, m1 = 0, m2 = 0;
    for (long k = 0; k < pilot.up.c.length(); ++k) {
      const double w = std::ldexp(fmpz_get_d(pilot.up.c.at(k)), -kFraction), x = kPilotStep * static_cast<double>(pilot.up.first + k);
      m0 += w, m1 += w * x, m2 += w * x * x;
    }
    if (m0 > 0) variance += count * std::max(0.0, m2 / m0 - (m1 / m0) * (m1 / m0));
  }
  const double span = std::min(sum_range, 24 * std::sqrt(variance) + 2 * max_range);
  e = std::max(e, static_cast<int>(std::ceil(std::log2(kPilotStep * pilot_cells / kMaxCells))));
  e = std::max(e, static_cast<int>(std::ceil(std::log2(2 * span / static_cast<double>(kMaxLattice)))));
  e = std::clamp(e, kFinestStep, kCoarsestStep);
  for (;; e += 2) {
    const double step = std::ldexp(1.0, e);
    try {
      Integer budget;  // kSlack / (8·(64 + 2·pairs)) in fixed point, each trim's share
      fmpz_set_d(budget.get(), std::floor(std::ldexp(kSlack / (8 * (64 + 2 * static_cast<double>(pairs.size()))), kFraction)));
      auto out = std::make_shared<Lattices>();
      out->step = step;
      std::optional<Lattice> up, down;
      for (const ReleasePair& r : pairs) {
        ReleaseLattices one = discretise(*r.mu, *r.nu, step, per, kSlack * step, deadline);
        out->cells += one.cells;
        Lattice pu = power(one.up, r.count, budget, deadline), pd = power(one.down, r.count, budget, deadline);
        if (!up) {
          up = std::move(pu);
          down = std::move(pd);
        } else {
          up = product(*up, pu, deadline);
          trim(*up, budget);
          down = product(*down, pd, deadline);
          trim(*down, budget);
        }
      }
      out->up = std::make_shared<LatticeCurve>(*up, step);
      out->down = std::make_shared<LatticeCurve>(*down, step);
      return out;
    } catch (const Refused& r) {
      if (std::string(r.what()) != "lattice too long") throw;
      if (e + 2 > kCoarsestStep)
        throw Refused(fmt::format("the composed privacy loss spans more than {} grid points even at step {}", kMaxLattice,
                                  format_number(step)));
    }
  }
}

}  // namespace
}  // namespace certified_detail

Estimate certified_lattice_hockey_stick(const std::vector<ReleasePair>& pairs, double eps, const CertifiedOptions& options) {
  using namespace certified_detail;
  const auto refuse = [&](const std::string& why) {
    return NumericalError(fmt::format("certified engine (privacy-loss lattices): {} (composed hockey-stick at eps = {})", why,
                                      format_number(eps)));
  };
  std::shared_ptr<const Lattices> l;
  try {
    l = cache().get_or_build(composition_key(pairs), [&] {
      const Deadline deadline(options.seconds);
      return build(pairs, deadline);
    });
  } catch (const Refused& e) {
    throw refuse(e.what());
  }
  const double hi = l->up->log_hockey_stick(eps), lo = std::min(l->down->log_hockey_stick(eps), hi);
  // A bracket wider than half of [0, 1] says too little to be printed as an answer: the grid was too coarse for these
  // releases' losses (their spread below the step the lattice's length allows). A narrower one, even if wide against
  // its value (far tails), bounds it usefully, and a root search reads it.
  if (std::exp(hi) - std::exp(lo) > 0.5)
    throw refuse(fmt::format("the bracket [{:.3g}, {:.3g}] is too wide to answer: the grid's step 2^{} (as fine as {} points "
                             "of the composed lattice allow) is coarse against the releases' losses",
                             std::exp(lo), std::exp(hi), static_cast<int>(std::log2(l->step)), kMaxLattice));
  // The bracket's midpoint; where its lower end is 0, only the upper end is known (printed "< upper", as the contour
  // prints a value below what it resolves), never a midpoint that would look like an estimate.
  const double mid = lo == -kInf ? -kInf : log_add(hi, lo) - std::numbers::ln2;
  Estimate e = Estimate::from_log_bounds(mid, lo, hi, ErrorKind::certified,
                                         fmt::format("certified bracket by privacy-loss lattices (each release's loss law bounded "
                                                     "above by chords and below by a hull on the grid of step 2^{}, from {} cells "
                                                     "and atoms, composed exactly in fixed point rounded outwards; at most {:.1e} "
                                                     "of mass trimmed)",
                                                     static_cast<int>(std::log2(l->step)), l->cells,
                                                     std::max(l->up->moved, l->down->moved)));
  e.add_error(ErrorPart::discretisation, (e.upper - e.lower) / 2);
  e.work = l->cells;
  return e;
}

}  // namespace privamp::verify
