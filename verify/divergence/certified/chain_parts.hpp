// The parts of the certified engine for projected Gaussian chains (certified/chains.cpp gives the argument): balls in
// double with their rounding carried, the lattice tables of one noise (Arb), the grid, the measures kept per cell, and
// one step of the kernel on them (certified/chain_steps.cpp). One header for the two files and the tests of their parts.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "numerics/constants.hpp"
#include "sim/formulas/enclosure.hpp"
#include "sim/laws/chain_form.hpp"

namespace privamp::verify::chain_detail {


using sim::Enclosure;
constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;
constexpr double kTiny = std::numeric_limits<double>::denorm_min();
constexpr long kLattice = 4;            // lattice points per cell: where ψ(c) is rounded to for the tables
constexpr long kMaxTable = 4'000'000;   // lattice points tabulated

inline double up(double x) { return std::nextafter(x, kInf); }
inline double down(double x) { return std::nextafter(x, -kInf); }

// A real in [mid − rad, mid + rad].
struct DBall {
  double mid = 0, rad = 0;
  double lo() const { return down(mid - rad); }
  double hi() const { return up(mid + rad); }
  double mag() const { return up(std::fabs(mid) + rad); }
};

inline DBall from(const Enclosure& e) {
  const double mid = 0.5 * e.lo + 0.5 * e.hi;
  return {mid, up(std::max(e.hi - mid, mid - e.lo))};
}
inline DBall operator*(const DBall& a, const DBall& b) {
  const double p = a.mid * b.mid;
  return {p, up(up(std::fabs(a.mid) * b.rad + a.rad * (std::fabs(b.mid) + b.rad)) + std::fabs(p) * kUnit + kTiny)};
}
inline DBall operator+(const DBall& a, const DBall& b) {
  const double s = a.mid + b.mid;
  return {s, up(up(a.rad + b.rad) + std::fabs(s) * kUnit)};
}
// a/b for b bounded away from 0.
inline DBall quotient(const DBall& a, const DBall& b) {
  const double lo = b.lo();
  if (!(lo > 0)) return {0, kInf};
  const double q = a.mid / b.mid;
  const double r = (std::fabs(a.mid) * b.rad / lo + a.rad) / lo;
  return {q, up(up(r * (1 + 8 * kUnit)) + std::fabs(q) * 4 * kUnit + kTiny)};
}
inline DBall intersect(DBall a, double lo, double hi) {
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

Tables make_tables(double s, double lo, double hi, long cells, long first, long last);
Source locate(const Grid& g, const sim::MapEnclosure& at_centre, const sim::MapEnclosure& over, bool point);
StepGeometry geometry(const Grid& g, const sim::ChainStep& step, const std::vector<double>& atoms_x);
// One step applied to `in` (see chain_steps.cpp); with `other`, the difference of the two steps' images.
Measure step_measure(const Grid& g, const StepGeometry& geo, const Tables& t, const Measure& in, bool positive,
                     const StepGeometry* other = nullptr);
Measure combine(const Measure& a, const Measure& b, double h_up);  // a + b, as a difference
Measure zero_like(const Measure& like);
Measure point_measure(const Grid& g, std::vector<std::pair<double, double>> points);

// The integrand R of the quantity, convex with R(0) = 0, enclosed at a point r ≥ −1:
//   Rényi  (1 + r)^α − 1 − α r      (∫ R(r) dν = e^{(α−1) R_α} − 1, since ∫ r dν = 0)
//   KL     (1 + r) log(1 + r) − r
//   HS_ε   (r − (e^ε − 1))_+        (∫ R(r) dν = HS_ε(μ‖ν); TV at ε = 0)
// Rényi and KL: the direct formula with its rounding, intersected with the mean-value form R(r) = c r² θ, θ between
// the ends of R''/R''(0) over [0, r] (what keeps small r precise).
struct Integrand {
  enum class Kind { renyi, kl, hockey } kind;
  double alpha = 2;  // Rényi
  double level = 0;  // hockey: e^ε − 1
  std::pair<double, double> operator()(double r) const {
    r = std::max(r, -1.0);
    if (kind == Kind::hockey) {
      const double slack = 4 * kUnit * (std::fabs(r) + level) + kTiny;
      return {std::max(0.0, r - level - slack), up(std::max(0.0, r - level + slack))};
    }
    const bool kl = kind == Kind::kl;
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
      const double p = std::exp(alpha * std::log1p(r));
      direct = p - 1 - alpha * r;
      scale = p + 1 + alpha * std::fabs(r);
      c = 0.5 * alpha * (alpha - 1);
      const double f = std::exp((alpha - 2) * std::log1p(r));
      lo_f = std::min(1.0, f);
      hi_f = std::max(1.0, f);
    }
    const double slack = (16 + 2 * (kl ? 1 : alpha) * std::fabs(std::log1p(r))) * kUnit * scale + kTiny;
    double lo = std::max(0.0, direct - slack), hi = direct + slack;
    if (std::isfinite(hi_f)) {
      lo = std::max(lo, c * r * r * lo_f * (1 - 16 * kUnit));
      hi = std::min(hi, c * r * r * hi_f * (1 + 16 * kUnit) + kTiny);
    }
    return {lo, up(hi)};
  }
};

// What the final laws give: ∫ R(r) dν enclosed, and the supremum of r = dμ/dν − 1 enclosed (for R_∞).
struct Enclosed {
  double lo = 0, hi = 0;
  double sup_lo = -1, sup_hi = -1;
};

// ∫ R(r) dν over the grid (cells and atoms) from ν's data and the difference's, both ends rigorous (chains.cpp; a
// public function so that a test can give it cells whose densities it knows).
Enclosed enclose(const Grid& g, const Measure& nu, const Measure& d, double s, double z_lo, double z_hi, const Integrand& R);

}  // namespace privamp::verify::chain_detail
