// Certified laws of projected Gaussian chains (sim/laws/chain_form.hpp) and their Rényi divergences and KL.
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
// moment; sup|g''| ≤ 2 sup|φ'| over the offsets the cell pair allows (|φ'| is unimodal in |u|). So each step's error
// is second order in h/s. Masses of ν are also sandwiched to first order (min and max of the kernel over the source
// cell) and the two enclosures intersected. The bound V of the difference's variation follows from
// |d|(C) ≤ |d(C)| + h² sup_C |δ'|, with |δ'| ≤ Σ_j V_j sup|φ'|.
//
// The divergence: with r = dμ/dν − 1 and a convex R with R(0) = R'(0) = 0,
//   e^{(α−1) R_α(μ‖ν)} = 1 + ∫ R(r) dν,   R(r) = (1 + r)^α − 1 − α r     (∫ r dν = d([lo, hi]) = 0 exactly),
//   KL(μ‖ν) = ∫ R(r) dν,                   R(r) = (1 + r) log(1 + r) − r.
// Below, Jensen on each cell (the perspective m R(d/m) is jointly convex): ∫_C R(r) dν ≥ ν(C) R(d(C)/ν(C)) — the
// divergence of the laws coarsened to the cells (data processing). Above, the range of r over the cell: ν's density f
// is log-Lipschitz (|(log f)'(y)| ≤ max_z |y − z|/s² over the last step's ψ-range, so f ∈ ν(C)/h · e^{±G h}) and δ
// varies by at most h sup|δ'|. Atoms are points (their r is d/ν exactly). Every double operation's rounding is
// carried (each sum keeps the sum of the magnitudes it rounded; products of balls add their radii).
//
// What is certified is the chain as privamp holds it: its parameters as doubles (the noise s as stored), ψ through
// interval arithmetic on the map (sim/formulas/enclosure.hpp: C library functions widened by 4 ulps, as for every
// certified hypothesis).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/projected.hpp"
#include "numerics/interrupt.hpp"
#include "verify/divergence/certified.hpp"
#include "verify/divergence/certified/internal.hpp"

namespace privamp::verify {

namespace {

using sim::Enclosure;
constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;
constexpr double kTiny = std::numeric_limits<double>::denorm_min();
constexpr long kLattice = 4;            // lattice points per cell: where ψ(c) is rounded to for the tables
constexpr double kCellsPerNoise = 40;   // the first resolution: h ≤ s/40 for the narrowest noise
constexpr long kMinCells = 64, kMaxCells = 4096;
constexpr double kMaxPairs = 6e7;       // cell pairs over all steps and resolutions (about half a second on one core)
constexpr int kMaxDoublings = 3;        // resolutions after the first
constexpr long kMaxTable = 4'000'000;   // lattice points tabulated
constexpr double kGoodWidth = 1e-2;     // relative width of the divergence at which the resolution stops doubling

double up(double x) { return std::nextafter(x, kInf); }
double down(double x) { return std::nextafter(x, -kInf); }

// A real in [mid − rad, mid + rad].
struct DBall {
  double mid = 0, rad = 0;
  double lo() const { return down(mid - rad); }
  double hi() const { return up(mid + rad); }
  double mag() const { return up(std::fabs(mid) + rad); }
};

DBall from(const Enclosure& e) {
  const double mid = 0.5 * e.lo + 0.5 * e.hi;
  return {mid, up(std::max(e.hi - mid, mid - e.lo))};
}
DBall operator*(const DBall& a, const DBall& b) {
  const double p = a.mid * b.mid;
  return {p, up(up(std::fabs(a.mid) * b.rad + a.rad * (std::fabs(b.mid) + b.rad)) + std::fabs(p) * kUnit + kTiny)};
}
DBall operator+(const DBall& a, const DBall& b) {
  const double s = a.mid + b.mid;
  return {s, up(up(a.rad + b.rad) + std::fabs(s) * kUnit)};
}
DBall operator-(const DBall& a, const DBall& b) { return a + DBall{-b.mid, b.rad}; }
DBall widened(DBall a, double r) { return {a.mid, up(a.rad + r)}; }
// a/b for b bounded away from 0.
DBall quotient(const DBall& a, const DBall& b) {
  const double lo = b.lo(), hi = b.hi();
  if (!(lo > 0)) return {0, kInf};
  const double q = a.mid / b.mid;
  const double r = (std::fabs(a.mid) * b.rad / lo + a.rad) / lo;
  return {q, up(up(r * (1 + 8 * kUnit)) + std::fabs(q) * 4 * kUnit + kTiny)};
}
DBall intersect(DBall a, double lo, double hi) {
  const double l = std::max(a.lo(), lo), h = std::min(a.hi(), hi);
  if (!(l <= h)) return a;  // both contain the truth: cannot be disjoint unless a bound is wrong; keep the ball
  const double mid = 0.5 * l + 0.5 * h;
  return {mid, up(std::max(h - mid, mid - l))};
}

// The same operations in the inner loops, without directed rounding: each adds u·|result| for the rounding of its
// midpoint, and the radii (themselves rounded to nearest, a relative error of a few u) are inflated by Sum::ball.
struct Fast {
  static DBall add(const DBall& a, const DBall& b) {
    const double s = a.mid + b.mid;
    return {s, a.rad + b.rad + kUnit * std::fabs(s)};
  }
  static DBall sub(const DBall& a, const DBall& b) {
    const double s = a.mid - b.mid;
    return {s, a.rad + b.rad + kUnit * std::fabs(s)};
  }
  static DBall mul(const DBall& a, const DBall& b) {
    const double p = a.mid * b.mid;
    return {p, std::fabs(a.mid) * b.rad + a.rad * (std::fabs(b.mid) + b.rad) + kUnit * std::fabs(p) + 2 * kTiny};
  }
  static double mag(const DBall& a) { return std::fabs(a.mid) + a.rad; }
};

// Σ a_i·b_i for balls, with the rounding of every product and addition carried: the radius gathers the balls'
// radii, and the magnitudes summed bound what rounding the midpoint sum lost (γ_n, doubled for safety).
struct Sum {
  double mid = 0, rad = 0, abs = 0;
  long n = 0;
  void add(const DBall& a, const DBall& b) {
    const double p = a.mid * b.mid;
    mid += p;
    abs += std::fabs(p);
    rad += std::fabs(a.mid) * b.rad + a.rad * (std::fabs(b.mid) + b.rad);
    ++n;
  }
  void add(const DBall& a) {
    mid += a.mid;
    abs += std::fabs(a.mid);
    rad += a.rad;
    ++n;
  }
  void spread(double r) { rad += r; }
  DBall ball() const {
    const double g = 2.0 * static_cast<double>(n + 32) * kUnit;
    return {mid, up(rad * (1 + g) + abs * g + static_cast<double>(4 * n + 4) * kTiny)};
  }
};

// Upper bounds of a function over the lattice cells [u_n, u_{n+1}], with the largest over any run of cells in O(1)
// (a sparse table of maxima over runs of 2^k cells).
class SupTable {
 public:
  void build(long first, std::vector<double> cells) {
    first_ = first;
    levels_.assign(1, std::move(cells));
    for (std::size_t span = 1; 2 * span <= levels_[0].size(); span *= 2) {
      const std::vector<double>& prev = levels_.back();
      std::vector<double> next(prev.size() - span);
      for (std::size_t i = 0; i < next.size(); ++i) next[i] = std::max(prev[i], prev[i + span]);
      levels_.push_back(std::move(next));
    }
  }
  // The sup over u ∈ [n1 h', n2 h'] (the cells n1 .. n2 − 1; the cell n1 when n1 = n2).
  double operator()(long n1, long n2) const {
    const auto a = static_cast<std::size_t>(n1 - first_);
    const auto count = static_cast<std::size_t>(std::max(1L, n2 - n1));
    const auto level = static_cast<std::size_t>(std::bit_width(count) - 1);
    return std::max(levels_[level][a], levels_[level][a + count - (std::size_t{1} << level)]);
  }

 private:
  long first_ = 0;
  std::vector<std::vector<double>> levels_;
};

// Lattice tables of one noise s on spacing h' = h/kLattice: u_n = n h'. Computed in Arb; ends rounded outwards.
struct Tables {
  long first = 0;                       // index of u_first
  std::vector<DBall> mass;              // KM(n) = Φ((u_n + h)/s) − Φ(u_n/s)
  std::vector<DBall> moment;            // ∫_{u_n}^{u_n+h} (u − u_n − h/2) φ_s(u) du
  std::vector<DBall> density;           // φ_s(u_n)
  std::vector<DBall> cdf;               // Φ(u_n/s)
  // sup |φ_s^(k)(u)| over u ∈ [n1 h', n2 h'], k = 1, 2, 3.
  SupTable slope, curvature, third;
  long mass_peak = 0;                   // KM peaks at u = −h/2: n = −kLattice/2
  std::size_t at(long n) const { return static_cast<std::size_t>(n - first); }
  std::vector<double> mass_lo, mass_hi, cdf_lo, cdf_hi;  // the ends of mass and cdf
  std::pair<double, double> mass_range(long n1, long n2) const {  // min and max of KM over [n1, n2]
    const std::size_t a = at(n1), b = at(n2);
    const double lo = std::min(mass_lo[a], mass_lo[b]);
    const double hi = n1 <= mass_peak && mass_peak <= n2 ? mass_hi[at(mass_peak)] : std::max(mass_hi[a], mass_hi[b]);
    return {lo, hi};
  }
};

DBall to_dball(const certified_detail::Ball& b) {
  const double lo = certified_detail::lower_d(b), hi = certified_detail::upper_d(b);
  return from(Enclosure(lo, hi));
}

Tables make_tables(double s, double lo, double hi, long cells, long first, long last) {
  using certified_detail::Ball;
  const slong prec = 96;
  Tables t;
  t.first = first;
  const auto size = static_cast<std::size_t>(last - first + 1);
  t.mass.resize(size);
  t.moment.resize(size);
  t.density.resize(size);
  t.cdf.resize(size);
  std::vector<double> d1(size), d2(size), d3(size);
  Ball hp, h, sb, s2, norm, rt2, u, v, a, b, w, x;
  // h' = (hi − lo)/(cells·kLattice), h = (hi − lo)/cells: exact reals, enclosed.
  arb_set_d(hp.get(), hi);
  arb_set_d(a.get(), lo);
  arb_sub(hp.get(), hp.get(), a.get(), prec);
  arb_set(h.get(), hp.get());
  arb_div_si(h.get(), h.get(), cells, prec);
  arb_div_si(hp.get(), hp.get(), cells * kLattice, prec);
  arb_set_d(sb.get(), s);
  arb_sqr(s2.get(), sb.get(), prec);
  arb_const_pi(norm.get(), prec);
  arb_mul_2exp_si(norm.get(), norm.get(), 1);
  arb_sqrt(norm.get(), norm.get(), prec);
  arb_mul(norm.get(), norm.get(), sb.get(), prec);  // s √(2π)
  arb_sqrt_ui(rt2.get(), 2, prec);
  auto Phi = [&](arb_ptr out, const Ball& at) {  // Φ(at/s) = erfc(−at/(s√2))/2
    arb_div(x.get(), at.get(), sb.get(), prec);
    arb_div(x.get(), x.get(), rt2.get(), prec);
    arb_neg(x.get(), x.get());
    arb_hypgeom_erfc(out, x.get(), prec);
    arb_mul_2exp_si(out, out, -1);
  };
  auto upper_tail = [&](arb_ptr out, const Ball& at) {  // 1 − Φ(at/s) = erfc(at/(s√2))/2
    arb_div(x.get(), at.get(), sb.get(), prec);
    arb_div(x.get(), x.get(), rt2.get(), prec);
    arb_hypgeom_erfc(out, x.get(), prec);
    arb_mul_2exp_si(out, out, -1);
  };
  auto density = [&](arb_ptr out, const Ball& at) {
    arb_sqr(x.get(), at.get(), prec);
    arb_div(x.get(), x.get(), s2.get(), prec);
    arb_mul_2exp_si(x.get(), x.get(), -1);
    arb_neg(x.get(), x.get());
    arb_exp(out, x.get(), prec);
    arb_div(out, out, norm.get(), prec);
  };
  Ball cu, cv, du, dv, mass, tmp;
  for (long n = first; n <= last; ++n) {
    const std::size_t i = t.at(n);
    arb_mul_si(u.get(), hp.get(), n, prec);
    arb_add(v.get(), u.get(), h.get(), prec);
    // The cell's mass without cancellation: lower tails on the left of 0, upper tails on the right.
    if (n >= 0) {
      upper_tail(cu.get(), u);
      upper_tail(cv.get(), v);
      arb_sub(mass.get(), cu.get(), cv.get(), prec);
    } else {
      Phi(cu.get(), u);
      Phi(cv.get(), v);
      arb_sub(mass.get(), cv.get(), cu.get(), prec);
    }
    t.mass[i] = to_dball(mass);
    Phi(tmp.get(), u);
    t.cdf[i] = to_dball(tmp);
    density(du.get(), u);
    density(dv.get(), v);
    t.density[i] = to_dball(du);
    // moment = −(u + h/2)·mass + s²(φ(u) − φ(u + h))
    arb_mul_2exp_si(a.get(), h.get(), -1);
    arb_add(a.get(), a.get(), u.get(), prec);
    arb_mul(a.get(), a.get(), mass.get(), prec);
    arb_sub(b.get(), du.get(), dv.get(), prec);
    arb_mul(b.get(), b.get(), s2.get(), prec);
    arb_sub(w.get(), b.get(), a.get(), prec);
    t.moment[i] = to_dball(w);
    // |φ'|, |φ''|, |φ'''| over the lattice cell [u, u + h'] (a ball holding it): (−u/s²) φ, (u² − s²)/s⁴ φ, (3us² − u³)/s⁶ φ.
    if (n < last) {
      arb_add(b.get(), u.get(), hp.get(), prec);
      arb_union(w.get(), u.get(), b.get(), prec);
      density(du.get(), w);
      auto store = [&](std::vector<double>& table, const Ball& value) {
        arf_t bound;
        arf_init(bound);
        arb_get_abs_ubound_arf(bound, value.get(), 64);
        table[i] = arf_get_d(bound, ARF_RND_CEIL);
        arf_clear(bound);
      };
      arb_div(a.get(), w.get(), s2.get(), prec);
      arb_mul(a.get(), a.get(), du.get(), prec);
      store(d1, a);
      arb_sqr(a.get(), w.get(), prec);
      arb_sub(a.get(), a.get(), s2.get(), prec);
      arb_div(a.get(), a.get(), s2.get(), prec);
      arb_div(a.get(), a.get(), s2.get(), prec);
      arb_mul(a.get(), a.get(), du.get(), prec);
      store(d2, a);
      arb_sqr(a.get(), w.get(), prec);
      arb_mul_ui(tmp.get(), s2.get(), 3, prec);
      arb_sub(a.get(), tmp.get(), a.get(), prec);
      arb_mul(a.get(), a.get(), w.get(), prec);
      arb_div(a.get(), a.get(), s2.get(), prec);
      arb_div(a.get(), a.get(), s2.get(), prec);
      arb_div(a.get(), a.get(), s2.get(), prec);
      arb_mul(a.get(), a.get(), du.get(), prec);
      store(d3, a);
    }
  }
  for (const DBall& b : t.mass) t.mass_lo.push_back(std::max(0.0, b.lo())), t.mass_hi.push_back(b.hi());
  for (const DBall& b : t.cdf) t.cdf_lo.push_back(std::max(0.0, b.lo())), t.cdf_hi.push_back(b.hi());
  t.slope.build(first, std::move(d1));
  t.curvature.build(first, std::move(d2));
  t.third.build(first, std::move(d3));
  t.mass_peak = -kLattice / 2;
  return t;
}

// Per source (a cell or an atom) under one step's map: where ψ sends it, on the lattice.
struct Source {
  long lattice = 0;      // i_ℓ: z_ℓ = lo + i_ℓ h'
  long first = 0, last = 0;  // the lattice hull of ψ over the source
  DBall offset;          // ψ(c) − z_ℓ
  DBall slope;           // ψ'(c)
  double linear = 0;     // E1's remainder per unit of variation
  double reach = 0;      // sup |ψ(x) − z_ℓ| over the source
};

struct Grid {
  double lo, hi;
  long cells;
  double h_up;  // an upper bound of h
  Enclosure h, hp;
  Enclosure cell(long j) const { return Enclosure(lo) + Enclosure(static_cast<double>(j), static_cast<double>(j + 1)) * h; }
  Enclosure centre(long j) const { return Enclosure(lo) + (Enclosure(static_cast<double>(j)) + Enclosure(0.5)) * h; }
};

Source locate(const Grid& g, const sim::MapEnclosure& at_centre, const sim::MapEnclosure& over, bool point) {
  Source s;
  const Enclosure t = (at_centre.value - Enclosure(g.lo)) / g.hp;
  const Enclosure range = (over.value - Enclosure(g.lo)) / g.hp;
  if (!t.finite() || !range.finite() || std::fabs(range.lo) > 1e15 || std::fabs(range.hi) > 1e15)
    throw certified_detail::Refused("the map is not finite (or too large) over a cell");
  s.lattice = std::lround(t.mid());
  s.first = static_cast<long>(std::floor(range.lo)) - 1;
  s.last = static_cast<long>(std::ceil(range.hi)) + 1;
  s.first = std::min(s.first, s.lattice);
  s.last = std::max(s.last, s.lattice);
  s.offset = from((t - Enclosure(static_cast<double>(s.lattice))) * g.hp);
  s.slope = from(at_centre.slope);
  const Enclosure reach = (over.value - Enclosure(g.lo)) - Enclosure(static_cast<double>(s.lattice)) * g.hp;
  s.reach = up(reach.mag());
  if (point) return s;
  const double half = up(g.h_up / 2);
  double lin = kInf;
  if (over.curvature.finite()) lin = up(0.5 * up(over.curvature.mag() * up(half * half)));
  if (over.slope.finite()) lin = std::min(lin, up(up(over.slope.hi - over.slope.lo) * half));
  if (!std::isfinite(lin)) throw certified_detail::Refused("the map's slope is not bounded over a cell");
  s.linear = lin;
  return s;
}

// A measure on the grid: per cell its mass, first moment about the centre and a bound on its variation; the end atoms
// (and, before the first step, the starting points) with mass and variation.
struct Measure {
  std::vector<DBall> mass, moment;
  std::vector<double> variation;
  std::vector<double> atoms_x;
  std::vector<DBall> atoms;
  std::vector<double> slope_sup;  // sup |density'| per cell (set by a step)
  std::vector<double> curv_sup;   // sup |density''| per cell (set by a step)
  bool zero() const {
    for (const DBall& a : atoms)
      if (a.mid != 0 || a.rad != 0) return false;
    for (double v : variation)
      if (v != 0) return false;
    return true;
  }
};

struct StepGeometry {
  std::vector<Source> cells;
  std::vector<Source> atoms;  // for the measure's atoms_x
  double z_lo = kInf, z_hi = -kInf;  // the hull of ψ over the domain
  long first = 0, last = 0;          // lattice indices the step's tables need
};

StepGeometry geometry(const Grid& g, const sim::ChainStep& step, const std::vector<double>& atoms_x) {
  StepGeometry geo;
  geo.cells.resize(static_cast<std::size_t>(g.cells));
  long lo_i = std::numeric_limits<long>::max(), hi_i = std::numeric_limits<long>::min();
  auto note = [&](const Source& s, const Enclosure& z) {
    lo_i = std::min(lo_i, s.first);
    hi_i = std::max(hi_i, s.last);
    geo.z_lo = std::min(geo.z_lo, z.lo);
    geo.z_hi = std::max(geo.z_hi, z.hi);
  };
  for (long j = 0; j < g.cells; ++j) {
    const sim::MapEnclosure over = step.map(g.cell(j)), centre = step.map(g.centre(j));
    geo.cells[static_cast<std::size_t>(j)] = locate(g, centre, over, false);
    note(geo.cells[static_cast<std::size_t>(j)], over.value);
  }
  for (double x : atoms_x) {
    const sim::MapEnclosure at = step.map(Enclosure(x));
    geo.atoms.push_back(locate(g, at, at, true));
    note(geo.atoms.back(), at.value);
  }
  const long nm = g.cells * kLattice;
  // Offsets a_k − z (cells), lo − z and z − hi (the ends), widened by a cell and the widest source.
  geo.first = std::min(-hi_i, lo_i - nm) - 2 * kLattice - 2;
  geo.last = std::max(nm - lo_i, hi_i - nm) + 2 * kLattice + 2;
  return geo;
}

// One step applied to `in`: the image on the cells and the two end atoms. With `other` (a second step of the same
// noise), the image under this step minus the image under `other` — the difference kernel, computed jointly so that
// the uncertainty of `in` enters through the kernels' difference, not through each kernel. `positive`: `in` is a
// (sub-)probability and there is no `other` (its masses are then also sandwiched to first order).
Measure step_measure(const Grid& g, const StepGeometry& geo, const Tables& t, const Measure& in, bool positive,
                     const StepGeometry* other = nullptr) {
  const long N = g.cells, nm = N * kLattice;
  struct Prepared {
    DBall n0, n1;
    double v;
    double lo_mass, hi_mass;  // first-order: the mass's ends
    int branches;
    const Source* src[2];
    double e2[2];  // ∫ (ψ − z_ℓ)² d|ν| per branch
  };
  positive = positive && !other;
  std::vector<Prepared> sources;
  auto prepare = [&](std::size_t index, bool atom, const DBall& n0, const DBall& n1, double v) {
    if (n0.mid == 0 && n0.rad == 0 && v == 0) return;
    Prepared p{n0, atom ? DBall{} : n1, v, std::max(0.0, n0.lo()), n0.hi(), other ? 2 : 1, {}, {}};
    for (int b = 0; b < p.branches; ++b) {
      const StepGeometry& geom = b == 0 ? geo : *other;
      p.src[b] = atom ? &geom.atoms[index] : &geom.cells[index];
      p.e2[b] = up(up(p.src[b]->reach * p.src[b]->reach) * v);
    }
    sources.push_back(p);
  };
  for (std::size_t j = 0; j < static_cast<std::size_t>(N); ++j) prepare(j, false, in.mass[j], in.moment[j], in.variation[j]);
  for (std::size_t a = 0; a < in.atoms.size(); ++a) prepare(a, true, in.atoms[a], {}, in.atoms[a].mag());

  Measure out;
  out.mass.resize(static_cast<std::size_t>(N));
  out.moment.resize(static_cast<std::size_t>(N));
  out.variation.resize(static_cast<std::size_t>(N));
  out.slope_sup.resize(static_cast<std::size_t>(N));
  out.curv_sup.resize(static_cast<std::size_t>(N));
  const double h_up = g.h_up;
  const DBall half_h = from(g.h * Enclosure(0.5));
  const double h3 = up(up(h_up * h_up) * h_up) * (1 + 4 * kUnit);
  const double safety = 1 + 4 * static_cast<double>(2 * sources.size() + 4) * kUnit;
  for (long k = 0; k < N; ++k) {
    if (k % 64 == 0) throw_if_interrupted();
    Sum mass, moment;
    double slope = 0, curv = 0, first_lo = 0, first_hi = 0;
    for (const Prepared& p : sources) {
      // Per branch: ∫ g(ψ(x)) dν = (g + g'·off) ν(C) + g'·ψ'(c) ∫(x − c) dν ± |g'| lin |ν|(C) ± ½ sup|g''| E2, with
      // y − z over the target cell and the source's ψ-range: g'' = ∫ φ'' over the cell's offsets (|g''| ≤ h sup|φ''|);
      // the moment's g1'' is the trapezoid rule's error for ∫ φ' (|g1''| ≤ h³/12 sup|φ'''|).
      DBall mass0, mass1, mom0, mom1;
      double mass_spread = 0, mom_spread = 0;
      for (int b = 0; b < p.branches; ++b) {
        const Source& s = *p.src[b];
        const long n = k * kLattice - s.lattice;
        const std::size_t at = t.at(n);
        const DBall& da = t.density[at];
        const DBall& db = t.density[at + kLattice];
        const long w1 = n - (s.last - s.lattice), w2 = n + kLattice + (s.lattice - s.first);
        const double w = t.slope(w1, w2), w_curv = t.curvature(w1, w2);
        const DBall dg = Fast::sub(da, db), dg1 = Fast::sub(t.mass[at], Fast::mul(half_h, Fast::add(da, db)));
        DBall c0 = Fast::add(t.mass[at], Fast::mul(dg, s.offset)), c1 = Fast::mul(dg, s.slope);
        DBall d0 = Fast::add(t.moment[at], Fast::mul(dg1, s.offset)), d1 = Fast::mul(dg1, s.slope);
        if (b == 0) {
          mass0 = c0, mass1 = c1, mom0 = d0, mom1 = d1;
        } else {
          mass0 = Fast::sub(mass0, c0), mass1 = Fast::sub(mass1, c1), mom0 = Fast::sub(mom0, d0), mom1 = Fast::sub(mom1, d1);
        }
        mass_spread += Fast::mag(dg) * s.linear * p.v + 0.5 * h_up * w_curv * p.e2[b];
        mom_spread += Fast::mag(dg1) * s.linear * p.v + h3 / 24 * t.third(w1, w2) * p.e2[b];
        slope += w * p.v;
        curv += w_curv * p.v;
        if (positive) {
          const auto [lo, hi] = t.mass_range(n - (s.last - s.lattice), n + (s.lattice - s.first));
          first_lo += lo * p.lo_mass;
          first_hi += hi * p.hi_mass;
        }
      }
      mass.add(mass0, p.n0);
      mass.add(mass1, p.n1);
      mass.spread(mass_spread);
      moment.add(mom0, p.n0);
      moment.add(mom1, p.n1);
      moment.spread(mom_spread);
    }
    const auto i = static_cast<std::size_t>(k);
    DBall m = mass.ball();
    if (positive) m = intersect(m, std::max(0.0, first_lo / safety), up(first_hi * safety) + kTiny);
    out.mass[i] = m;
    out.slope_sup[i] = up(slope * safety) + kTiny;
    out.curv_sup[i] = up(curv * safety) + kTiny;
    const double var = positive ? m.hi() : up(m.mag() + up(up(h_up * h_up) * out.slope_sup[i]));
    out.variation[i] = var;
    const double limit = up(0.5 * h_up * var);
    out.moment[i] = intersect(moment.ball(), -limit, limit);
  }
  // The ends: lo collects Φ((lo − z)/s), hi collects Φ((z − hi)/s) (g'' = ±φ'(lo − z) or φ'(z − hi)).
  for (int side = 0; side < 2; ++side) {
    Sum mass;
    double first_lo = 0, first_hi = 0;
    for (const Prepared& p : sources) {
      DBall c0, c1;
      double spread = 0;
      for (int b = 0; b < p.branches; ++b) {
        const Source& s = *p.src[b];
        const long n = side == 0 ? -s.lattice : s.lattice - nm;
        const long n1 = side == 0 ? -s.last : s.first - nm, n2 = side == 0 ? -s.first : s.last - nm;
        const DBall& d = t.density[t.at(n)];
        const DBall dg = side == 0 ? DBall{-d.mid, d.rad} : d;
        const DBall a0 = Fast::add(t.cdf[t.at(n)], Fast::mul(dg, s.offset)), a1 = Fast::mul(dg, s.slope);
        c0 = b == 0 ? a0 : Fast::sub(c0, a0);
        c1 = b == 0 ? a1 : Fast::sub(c1, a1);
        spread += dg.mag() * s.linear * p.v + 0.5 * t.slope(n1, n2) * p.e2[b];
        if (positive) {
          first_lo += t.cdf_lo[t.at(n1)] * p.lo_mass;
          first_hi += t.cdf_hi[t.at(n2)] * p.hi_mass;
        }
      }
      mass.add(c0, p.n0);
      mass.add(c1, p.n1);
      mass.spread(spread);
    }
    DBall m = mass.ball();
    if (positive) m = intersect(m, std::max(0.0, first_lo / safety), up(first_hi * safety) + kTiny);
    out.atoms_x.push_back(side == 0 ? g.lo : g.hi);
    out.atoms.push_back(m);
  }
  return out;
}

// a + b (the difference's image plus the difference kernel's image of ν).
Measure combine(const Measure& a, const Measure& b, double h_up) {
  Measure out = a;
  for (std::size_t i = 0; i < out.mass.size(); ++i) {
    out.mass[i] = a.mass[i] + b.mass[i];
    out.moment[i] = a.moment[i] + b.moment[i];
    out.slope_sup[i] = up(a.slope_sup[i] + b.slope_sup[i]);
    out.curv_sup[i] = up(a.curv_sup[i] + b.curv_sup[i]);
    out.variation[i] = up(out.mass[i].mag() + up(up(h_up * h_up) * out.slope_sup[i]));
    const double limit = up(0.5 * h_up * out.variation[i]);
    out.moment[i] = intersect(out.moment[i], -limit, limit);
  }
  for (std::size_t i = 0; i < out.atoms.size(); ++i) out.atoms[i] = a.atoms[i] + b.atoms[i];
  return out;
}

// The zero measure on the grid of `like` (its atoms at the same places).
Measure zero_like(const Measure& like) {
  Measure z = like;
  for (auto& x : z.mass) x = {};
  for (auto& x : z.moment) x = {};
  for (auto& x : z.variation) x = 0;
  for (auto& x : z.slope_sup) x = 0;
  for (auto& x : z.curv_sup) x = 0;
  for (auto& x : z.atoms) x = {};
  return z;
}

Measure point_measure(const Grid& g, std::vector<std::pair<double, double>> points) {
  Measure m;
  m.mass.assign(static_cast<std::size_t>(g.cells), {});
  m.moment.assign(static_cast<std::size_t>(g.cells), {});
  m.variation.assign(static_cast<std::size_t>(g.cells), 0.0);
  m.slope_sup.assign(static_cast<std::size_t>(g.cells), 0.0);
  m.curv_sup.assign(static_cast<std::size_t>(g.cells), 0.0);
  for (const auto& [x, w] : points) {
    m.atoms_x.push_back(x);
    m.atoms.push_back({w, 0});
  }
  return m;
}

// R(r) for the quantity, enclosed: the direct formula with its rounding, intersected with the mean-value form
// R(r) = c r² θ, θ between the ends of the second derivative's factor over [0, r].
struct Remainder {
  bool kl;
  double alpha;
  std::pair<double, double> operator()(double r) const {
    r = std::max(r, -1.0);
    if (r == -1) return {kl ? 1.0 : alpha - 1, up(kl ? 1.0 : alpha - 1)};  // μ vanishes: R(−1) = α − 1 (KL: 1)
    double direct, scale, lo_f, hi_f, c;
    if (kl) {
      const double l = std::log1p(r);
      direct = (1 + r) * l - r;
      scale = std::fabs((1 + r) * l) + std::fabs(r);
      c = 0.5;
      lo_f = std::min(1.0, 1 / (1 + r));
      hi_f = std::max(1.0, 1 / (1 + r));
    } else {
      const double p = r <= -1 ? 0 : std::exp(alpha * std::log1p(r));
      direct = p - 1 - alpha * r;
      scale = p + 1 + alpha * std::fabs(r);
      c = 0.5 * alpha * (alpha - 1);
      const double f = r <= -1 ? (alpha >= 2 ? 0 : kInf) : std::exp((alpha - 2) * std::log1p(r));
      lo_f = std::min(1.0, f);
      hi_f = std::max(1.0, f);
    }
    const double slack = (16 + 2 * (kl ? 1 : alpha) * std::fabs(std::log1p(r))) * kUnit * scale + kTiny;
    double lo = std::max(0.0, direct - slack), hi = direct + slack;
    const double r2 = r * r;
    if (std::isfinite(hi_f) && r > -1) {
      lo = std::max(lo, c * r2 * lo_f * (1 - 16 * kUnit));
      hi = std::min(hi, c * r2 * hi_f * (1 + 16 * kUnit) + kTiny);
    }
    return {lo, up(hi)};
  }
};

struct Bracket {
  double lo = 0, hi = 0;  // of ∫ R(r) dν
};

// ∫ R(r) dν over the cells and atoms, enclosed (see the file's comment).
Bracket remainder_integral(const Grid& g, const Measure& nu, const Measure& d, double s, double z_lo, double z_hi,
                           const Remainder& R) {
  Bracket out;
  double lo_sum = 0, hi_sum = 0;
  long terms = 0;
  // One cell or atom: below, Jensen (m R(d/m) decreases in m, grows with |d|); above, the mass times the largest R over
  // the range of r (a cell), or the largest m R(d/m) over the balls (an atom: at the least mass).
  auto term = [&](const DBall& m, const DBall& dm, double r_lo, double r_hi, bool point) {
    const double m_hi = m.hi(), m_lo = std::max(0.0, m.lo());
    const double near = dm.lo() > 0 ? dm.lo() : dm.hi() < 0 ? dm.hi() : 0.0;
    if (near != 0 && m_hi > 0) lo_sum += m_hi * R(near > 0 ? down(near / m_hi) : up(near / m_hi)).first * (1 - 4 * kUnit);
    double weight = m_hi;
    if (point) {
      if (!(m_lo > 0)) {
        hi_sum = kInf;
        return;
      }
      weight = m_lo;
      r_lo = down(dm.lo() / m_lo);
      r_hi = up(dm.hi() / m_lo);
    }
    hi_sum += weight * std::max(R(std::max(-1.0, r_lo)).second, R(std::max(-1.0, r_hi)).second) * (1 + 4 * kUnit);
    ++terms;
  };
  const double h = g.h_up, h_lo = down(g.h.lo);
  // Second order, where the cell's data allow: f and δ are their affine fits (mass and first moment) within
  // e ≤ 25/96 sup|''| h² (Taylor at the centre); F(f, δ) = f R(δ/f) decreases in f and grows with |δ|, so
  // F(f, δ) ≤ G(y) = max over δ' ∈ δ_aff(y) ± e_δ of F(f_aff(y) − e_f, δ'), a maximum of convex functions of y, and
  // ∫_C G ≤ h (G(left) + G(right))/2. Infinite where the fit minus its error is not positive.
  const DBall h_ball = from(g.h);
  const DBall h2_ball = h_ball * h_ball;
  auto affine_upper = [&](const DBall& m0, const DBall& m1, const DBall& d0, const DBall& d1, double kf, double kd) {
    const double h2 = up(h * h);
    const double ef = up(0.2605 * up(kf * h2)), ed = up(0.2605 * up(kd * h2));
    double total = 0;
    for (int side = -1; side <= 1; side += 2) {
      // value at c ± h/2 of the fit: n0/h ± 6 n1/h²
      const DBall six{6.0 * side, 0};
      const DBall fe = quotient(m0, h_ball) + quotient(six * m1, h2_ball);
      const DBall de = quotient(d0, h_ball) + quotient(six * d1, h2_ball);
      const double f_lo = down(fe.lo() - ef);
      if (!(f_lo > 0)) return kInf;
      const double r1 = down(down(de.lo() - ed) / f_lo), r2 = up(up(de.hi() + ed) / f_lo);
      total += f_lo * std::max(R(std::max(-1.0, r1)).second, R(std::max(-1.0, r2)).second);
    }
    return up(up(total * up(h / 2)) * (1 + 8 * kUnit));
  };
  for (long k = 0; k < g.cells; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const DBall& m = nu.mass[i];
    const DBall& dm = d.mass[i];
    if (dm.mid == 0 && dm.rad == 0 && d.slope_sup[i] == 0) continue;
    const double y_lo = g.lo + static_cast<double>(k) * g.h.lo, y_hi = g.lo + static_cast<double>(k + 1) * g.h.hi;
    const double G = up(up(std::max(std::fabs(y_hi - z_lo), std::fabs(y_lo - z_hi)) + 4 * h) / (s * s) * (1 + 8 * kUnit));
    const double spread = std::exp(up(G * h) * (1 + 4 * kUnit)) * (1 + 8 * kUnit);
    const double f_lo = std::max(0.0, m.lo()) / h / spread * (1 - 8 * kUnit);
    const double f_hi = m.hi() / h_lo * spread * (1 + 8 * kUnit);
    const double dd = up(d.slope_sup[i] * h);
    const double delta_lo = down(dm.lo() / (dm.lo() >= 0 ? h : h_lo) - dd), delta_hi = up(dm.hi() / (dm.hi() >= 0 ? h_lo : h) + dd);
    if (!(f_lo > 0)) {
      if (delta_lo < 0 || delta_hi > 0) hi_sum = kInf;
      continue;
    }
    const double r_lo = std::min(delta_lo / f_lo, delta_lo / f_hi) * (1 + 4 * kUnit) - kTiny;
    const double r_hi = std::max(delta_hi / f_lo, delta_hi / f_hi) * (1 + 4 * kUnit) + kTiny;
    const double before = hi_sum;
    term(m, dm, r_lo, r_hi, false);
    const double second = affine_upper(m, nu.moment[i], dm, d.moment[i], nu.curv_sup[i], d.curv_sup[i]);
    if (second < hi_sum - before) hi_sum = before + second;
  }
  for (std::size_t a = 0; a < nu.atoms.size(); ++a)
    if (d.atoms[a].mid != 0 || d.atoms[a].rad != 0) term(nu.atoms[a], d.atoms[a], 0, 0, true);
  const double g_err = 2.0 * static_cast<double>(terms + 4) * kUnit;
  out.lo = std::max(0.0, lo_sum * (1 - g_err));
  out.hi = up(hi_sum * (1 + g_err) + static_cast<double>(terms + 1) * kTiny);
  return out;
}

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
// of one process that share a prefix of steps (the law before the steps where the chains differ): a few recent ones.
class PropagationCache {
 public:
  static constexpr std::size_t kEntries = 24;
  template <class T>
  std::shared_ptr<const T> find(const std::string& key) {
    const std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return std::static_pointer_cast<const T>(entries_.front().second);
      }
    return nullptr;
  }
  void put(const std::string& key, std::shared_ptr<const void> value) {
    const std::lock_guard lock(mutex_);
    entries_.emplace_front(key, std::move(value));
    if (entries_.size() > kEntries) entries_.pop_back();
  }

 private:
  std::mutex mutex_;
  std::list<std::pair<std::string, std::shared_ptr<const void>>> entries_;
};

PropagationCache& propagation_cache() {
  static PropagationCache cache;
  return cache;
}

std::shared_ptr<const Propagated> propagate_chains(const sim::ChainForm& mu, const sim::ChainForm& nu, long cells) {
  const std::string key = chain_key(mu, mu.steps.size(), cells) + "\x1d" + chain_key(nu, nu.steps.size(), cells);
  if (auto hit = propagation_cache().find<Propagated>(key)) return hit;
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
      if (auto prefix = propagation_cache().find<Measure>(chain_key(nu, t, cells))) {
        m = *prefix;
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
    if (t + 1 == first && begin < first) propagation_cache().put(chain_key(nu, first, cells), std::make_shared<const Measure>(m));
  }
  out->m = std::move(m);
  out->d = std::move(d);
  propagation_cache().put(key, out);
  return out;
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
  // One step from a point is a clamped Gaussian: where ψ(start) is a double (a linear map at a representable
  // point), the engine for Gaussian pieces integrates it directly, with no cells.
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
  const bool kl = quantity.kind == Quantity::Kind::kl;
  if (!kl && quantity.kind != Quantity::Kind::renyi)
    throw NumericalError(fmt::format("certified engine: {} of projected chains is not covered (Renyi divergences and KL are)",
                                     quantity.label()));
  const Remainder R{kl, quantity.parameter};
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
    const Bracket bracket = remainder_integral(run->grid, run->m, run->d, run->s, run->z_lo, run->z_hi, R);
    const double a1 = kl ? 1 : quantity.parameter - 1;
    const double lo = bracket.lo / a1 >= 0 ? std::log1p(bracket.lo) / a1 * (1 - 4 * kUnit) : 0;
    const double hi = kl ? up(bracket.hi * (1 + 4 * kUnit)) : up(std::log1p(bracket.hi) / a1 * (1 + 4 * kUnit));
    const double lo_v = kl ? down(bracket.lo * (1 - 4 * kUnit)) : lo;
    if (std::isfinite(hi)) {
      Estimate e = Estimate::from_interval(std::max(0.0, lo_v), hi, ErrorKind::certified,
                                           fmt::format("certified chain propagation ({} cells, second-order cell moments with bounded "
                                                       "remainders; Jensen below, the cells' ratio range above)",
                                                       cells));
      best = e;
    }
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
