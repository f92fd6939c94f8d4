// The lower lattice of one release by the hull of its hockey-stick curve (pld.cpp gives the lattices' argument; this
// file its second-order lower end).
//
// Write a release's hockey-stick curve as a function of x = e^ε: h(x) = ∫ (dμ − x dν)_+, convex and non-increasing.
// A measure m on the grid ℓ_k = kΔ (its ν-part m e^{−ℓ}) has the curve φ(x) = Σ_k m_k (1 − x e^{−ℓ_k})_+: convex,
// piecewise linear with kinks at the grid points x_k = e^{ℓ_k}, and m_k = x_k·(the jump of φ's slope at x_k). If
// φ ≤ h at every x, the composition of φ's measure with the other releases has a curve below the true composition's
// (the curve of a product is E_{μ1}[h2(x e^{−L1})], monotone in each factor's curve): a lower end, like L↓ ≤ L, but
// with an error of second order in Δ.
//   The bound. A cell C with μ-mass P, ν-mass Q and loss in [ℓ_{j0}, ℓ_{j1}] has h_C = P − xQ for x ≤ x_{j0}, 0 for
//   x ≥ x_{j1}, convex between. So at a grid point h(x_k) ≥ Σ_{j0 ≥ k}(P − x_k Q) + Σ_{j0 < k < j1} (P − x_k Q)_+, and on
//   the segment [x_k, x_{k+1}] h is above its chord less G_k = (x_{k+1} − x_k)/4 · Σ_{C overlapping the segment} Q
//   (a convex function whose slope varies by at most s on an interval of length w is at most s·w/4 below its chord;
//   only the cells overlapping the segment bend h there, each by at most its Q). With v_k the first bound less
//   max(G_{k−1}, G_k), any φ with φ(x_k) ≤ v_k at every grid point is below h everywhere (φ is linear on each
//   segment, and so is the chord). G_k is of order Δ² where the loss has a density.
//   The measure. φ is the lower convex hull of the points (0, ΣP) and (x_k, v_k), the last of them (x_n, 0) past the
//   last cell (v_k may be negative near the end of the support, where the gap exceeds h). The hull is chosen in
//   doubles, then checked in balls at the exact abscissas: φ(x_k) ≤ v_k at every grid point, so φ ≤ h, and so is
//   φ⁺ = max(φ, 0) (h ≥ 0): convex and non-increasing. Its measure: at each vertex where φ > 0, x_k times the jump of
//   the slope; where φ crosses 0 at x* (between grid points), x* times minus the slope there, put at the grid point
//   below ℓ* = log x* (mass moved to a lower loss only lowers the curve). Masses are computed in balls and their
//   lower ends kept (less mass only lowers the curve). If the check fails, no lower lattice is returned and the caller
//   keeps the first-order one.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "numerics/constants.hpp"
#include "verify/divergence/certified/internal.hpp"

namespace privamp::verify::certified_detail {

namespace {

constexpr slong kHullPrec = 64;
constexpr long kHullPoints = 1L << 21;  // grid points of one release's hull
constexpr long kHullSpan = 1L << 24;    // cell-segment overlaps visited, in all

// The lower ends v_k of h at the grid points kmin … kmax (as doubles, rounded down), less the chord's gap.
struct GridBounds {
  long kmin = 0;
  std::vector<double> v;   // v[i] at ℓ = (kmin + i)Δ (negative where nothing is known); the last is 0 (past every cell)
  std::vector<double> hull_v;  // v less 1e-12 of the curve's scale there: the hull's points, so that the check below
                               // passes whatever the doubles' rounding of the hull's choice
  std::vector<Ball> x;     // e^{ℓ} as balls
  double total = 0;        // a lower bound of Σ P (the curve at x = 0)
};

// max over x* in [e^lo, e^hi] ∩ [a, b] of min(x* − a, b − x*) (0 if they do not meet), rounded up; a ≤ x_i, b ≥ x_{i+1}.
double kink_reach(double a, double b, double lo, double hi) {
  const double from = std::max(a, std::exp(lo) * (1 - 4 * kU)), to = std::min(b, std::exp(hi) * (1 + 4 * kU));
  if (!(from <= to)) return 0;
  const double mid = 0.5 * (a + b);
  const double best = mid < from ? from : (mid > to ? to : mid);
  return std::min(best - a, b - best) * (1 + 4 * kU);
}

// The hull's points v_k from h(x_k) from below (h), the segments' gaps G and spans s·w (see grid_bounds).
void set_points(GridBounds& g, const std::vector<double>& h, const std::vector<double>& scale, const std::vector<double>& gap,
                const std::vector<double>& seg_span) {
  const long n = static_cast<long>(h.size());
  // Each segment's deficit is taken at both ends (G, G), or all at its left end (s·w, 0): a convex function whose
  // slope varies by s is at most s·(x − x_k)(x_{k+1} − x)/w below its chord, so a line whose ends are α and β below
  // h's is below h where λα + (1 − λ)β ≥ s·w·λ(1 − λ) for every λ ∈ [0, 1] (λ the weight of x_k), which (s·w, 0)
  // satisfies. It is taken where (G, G) would put the right end below 0: where the curve reaches 0 (its largest loss)
  // a negative value makes φ cross 0 before the grid point, and the mass there drops a whole step. A point whose left
  // segment leaves it no deficit may be raised to 0 (h ≥ 0; on its right segment a line from a value ≤ 0 stays below
  // max(0, v_{k+1}) ≤ h, h being non-increasing).
  std::vector<double> left(static_cast<std::size_t>(n), 0.0), right(static_cast<std::size_t>(n), 0.0);
  for (long i = 0; i + 1 < n; ++i) {
    const bool asymmetric = h[i + 1] - gap[i] < 0;
    left[i] = asymmetric ? seg_span[i] : gap[i];
    right[i] = asymmetric ? 0 : gap[i];
  }
  g.v.assign(static_cast<std::size_t>(n), 0.0);
  g.hull_v.assign(static_cast<std::size_t>(n), 0.0);
  for (long i = 0; i < n; ++i) {
    const double before = i > 0 ? right[i - 1] : 0.0, after = i + 1 < n ? left[i] : 0.0;
    double v = h[i] - std::max(before, after) * (1 + 2 * kU);
    if (before == 0 && v < 0) v = 0;
    g.v[i] = v;
    g.hull_v[i] = v == 0 ? 0 : v - 1e-12 * (std::fabs(v) + scale[i]);
  }
}

std::optional<GridBounds> grid_bounds(const std::vector<LossCell>& cells, double step) {
  GridBounds g;
  long kmax = cells.front().j1;
  g.kmin = cells.front().j0;
  long span = 0;
  for (const LossCell& c : cells) {
    g.kmin = std::min(g.kmin, c.j0);
    kmax = std::max(kmax, c.j1);
    span += c.j1 - c.j0;
  }
  const long n = kmax - g.kmin + 2;  // the grid points and one past the last
  if (n > kHullPoints || span > kHullSpan) return std::nullopt;
  std::vector<Ball> sp(static_cast<std::size_t>(n)), sq(static_cast<std::size_t>(n));
  std::vector<double> hinge(static_cast<std::size_t>(n), 0.0), overlap(static_cast<std::size_t>(n), 0.0);
  std::vector<double> point_gap(static_cast<std::size_t>(n), 0.0), slope_range(static_cast<std::size_t>(n), 0.0);
  std::vector<long> terms(static_cast<std::size_t>(n), 0);
  g.x.resize(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) {
    arb_set_d(g.x[i].get(), static_cast<double>(g.kmin + i) * step);
    arb_exp(g.x[i].get(), g.x[i].get(), kHullPrec);
  }
  Ball all;
  for (const LossCell& c : cells) {
    const auto i0 = static_cast<std::size_t>(c.j0 - g.kmin), i1 = static_cast<std::size_t>(c.j1 - g.kmin);
    arb_add(sp[i0].get(), sp[i0].get(), c.p.get(), kHullPrec);
    arb_add(sq[i0].get(), sq[i0].get(), c.q.get(), kHullPrec);
    arb_add(all.get(), all.get(), c.p.get(), kHullPrec);
    const double q_up = upper_d(c.q), p_down = lower_d(c.p);
    for (std::size_t i = i0; i < i1; ++i) {
      slope_range[i] += q_up;  // rounded up below, by the number of terms
      ++terms[i];
      if (c.point) {
        // One kink, at x* in [e^lo, e^hi]: on this segment the curve is at most Q·min(x* − x_i, x_{i+1} − x*) below
        // its chord (0 where x* is not in the segment).
        point_gap[i] += q_up * kink_reach(lower_d(g.x[i]), upper_d(g.x[i + 1]), c.lo, c.hi) * (1 + 8 * kU);
      } else {
        overlap[i] += q_up;
      }
      if (i > i0) {  // inside the cell's loss range: (P − x Q)_+ ≥ P⁻ − x⁺Q⁺
        const double h = p_down - upper_d(g.x[i]) * q_up;
        if (h > 0) hinge[i] += h * (1 - 4 * kU);
      }
    }
  }
  g.total = std::max(0.0, lower_d(all));
  // Suffix sums of P and Q by j0: h(x_k) ≥ SP_k − x_k SQ_k + the hinges.
  // Per segment: G, the most the curve can be below its chord (the continuous cells' s·w/4, the atoms' kinks), and
  // s·w, with s the range of the curve's slope on it (every overlapping cell's Q).
  std::vector<double> gap(static_cast<std::size_t>(n), 0.0), seg_span(static_cast<std::size_t>(n), 0.0);
  for (long i = 0; i + 1 < n; ++i) {
    Ball w;  // x_{k+1} − x_k
    arb_sub(w.get(), g.x[i + 1].get(), g.x[i].get(), kHullPrec);
    const double rounding = 1 + 2 * kU * static_cast<double>(terms[i] + 2);
    gap[i] = overlap[i] * rounding * upper_d(w) / 4 * (1 + 4 * kU);
    gap[i] = (gap[i] + point_gap[i]) * (1 + 2 * kU);
    seg_span[i] = slope_range[i] * rounding * upper_d(w) * (1 + 4 * kU);
  }
  // h(x_k) from below, and the scale of its terms (for the hull's margin).
  std::vector<double> h(static_cast<std::size_t>(n), 0.0), scale(static_cast<std::size_t>(n), 0.0);
  Ball suffix_p, suffix_q, t;
  for (long i = n - 2; i >= 0; --i) {
    arb_add(suffix_p.get(), suffix_p.get(), sp[i].get(), kHullPrec);
    arb_add(suffix_q.get(), suffix_q.get(), sq[i].get(), kHullPrec);
    arb_mul(t.get(), g.x[i].get(), suffix_q.get(), kHullPrec);
    arb_sub(t.get(), suffix_p.get(), t.get(), kHullPrec);
    const double bound = lower_d(t) + hinge[i];  // a sum of two lower bounds, rounded: shrink it outwards
    h[i] = bound - 4 * kU * std::fabs(bound);
    scale[i] = upper_d(suffix_p);
  }
  set_points(g, h, scale, gap, seg_span);
  return g;
}

// The lower convex hull of (0, total), (x_i, v_i): the indices of its vertices among the grid points (the point at 0
// is always the first vertex and is not listed).
std::vector<long> lower_hull(const GridBounds& g) {
  std::vector<long> out;
  std::vector<double> xs(g.v.size());
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = arf_get_d(arb_midref(g.x[i].get()), ARF_RND_NEAR);
  const auto x_of = [&](long i) { return i < 0 ? 0.0 : xs[static_cast<std::size_t>(i)]; };
  const auto y_of = [&](long i) { return i < 0 ? g.total : g.hull_v[static_cast<std::size_t>(i)]; };
  std::vector<long> stack{-1};
  for (long i = 0; i < static_cast<long>(g.v.size()); ++i) {
    while (stack.size() >= 2) {
      const long a = stack[stack.size() - 2], b = stack.back();
      // b is above the segment from a to i: drop it (cross product, in the doubles; the result is checked in balls)
      const double cross = (x_of(b) - x_of(a)) * (y_of(i) - y_of(a)) - (y_of(b) - y_of(a)) * (x_of(i) - x_of(a));
      if (cross <= 0) stack.pop_back();
      else break;
    }
    stack.push_back(i);
  }
  out.assign(stack.begin() + 1, stack.end());
  return out;
}

}  // namespace

std::optional<std::map<long, Ball>> dominated_masses(const std::vector<LossCell>& cells, double step) {
  if (cells.empty()) return std::map<long, Ball>{};
  const std::optional<GridBounds> bounds = grid_bounds(cells, step);
  if (!bounds) return std::nullopt;
  const GridBounds& g = *bounds;
  const std::vector<long> vertices = lower_hull(g);
  // The hull's segments in balls (the first from the point at x = 0): their slopes, and the check at every grid point.
  const auto x_at = [&](long i) -> const Ball& { return g.x[static_cast<std::size_t>(i)]; };
  std::vector<Ball> slope(vertices.size());
  Ball y0, y1, d, phi;
  for (std::size_t a = 0; a < vertices.size(); ++a) {
    const long i = vertices[a], prev = a == 0 ? -1 : vertices[a - 1];
    arb_set_d(y0.get(), prev < 0 ? g.total : g.hull_v[static_cast<std::size_t>(prev)]);
    arb_set_d(y1.get(), g.hull_v[static_cast<std::size_t>(i)]);
    arb_sub(slope[a].get(), y1.get(), y0.get(), kHullPrec);
    if (prev < 0) arb_set(d.get(), x_at(i).get());
    else arb_sub(d.get(), x_at(i).get(), x_at(prev).get(), kHullPrec);
    arb_div(slope[a].get(), slope[a].get(), d.get(), kHullPrec);
    for (long k = prev + 1; k < i; ++k) {  // φ(x_k) = y1 + slope·(x_k − x_i) ≤ v_k
      arb_sub(d.get(), x_at(k).get(), x_at(i).get(), kHullPrec);
      arb_mul(phi.get(), slope[a].get(), d.get(), kHullPrec);
      arb_add(phi.get(), phi.get(), y1.get(), kHullPrec);
      if (upper_d(phi) > g.v[static_cast<std::size_t>(k)]) return std::nullopt;
    }
  }
  // The masses of φ⁺: at each vertex where φ > 0, x_k (slope after − slope before); then where φ crosses 0.
  std::map<long, Ball> masses;
  const auto keep = [&](long k, const Ball& m) {
    const double lower = lower_d(m);
    if (!(lower > 0)) return;
    Ball mass;
    arb_set_d(mass.get(), lower);
    auto [it, fresh] = masses.try_emplace(k, mass);
    if (!fresh) arb_add(it->second.get(), it->second.get(), mass.get(), kHullPrec);
  };
  // Walk the vertices while φ > 0 (the point at x = 0 first, where φ = ΣP > 0): each has the mass x_i·(slope after −
  // slope before); the first vertex where φ ≤ 0 ends the walk, φ⁺'s last kink being on the segment that leads to it.
  Ball m, x_star;
  double y_prev = g.total;
  for (std::size_t a = 0; a < vertices.size(); ++a) {
    const long i = vertices[a];
    const double y = g.hull_v[static_cast<std::size_t>(i)];
    if (y > 0) {
      if (a + 1 < vertices.size()) arb_sub(m.get(), slope[a + 1].get(), slope[a].get(), kHullPrec);
      else arb_neg(m.get(), slope[a].get());
      arb_mul(m.get(), m.get(), x_at(i).get(), kHullPrec);
      keep(g.kmin + i, m);
      y_prev = y;
      continue;
    }
    if (y == 0) {  // φ reaches 0 at this grid point: its slope jumps to 0 there
      arb_mul(m.get(), slope[a].get(), x_at(i).get(), kHullPrec);
      arb_neg(m.get(), m.get());
      keep(g.kmin + i, m);
      break;
    }
    // φ crosses 0 inside the segment, at x* = x_prev − y_prev/slope (slope < 0): its mass −slope·x*, at the grid
    // point at or below ℓ* = log x* (not below the segment's start, a grid point at most x*; from x = 0, no limit).
    const long prev = a == 0 ? std::numeric_limits<long>::min() : g.kmin + vertices[a - 1];
    arb_set_d(x_star.get(), y_prev);
    arb_div(x_star.get(), x_star.get(), slope[a].get(), kHullPrec);
    if (a == 0) arb_neg(x_star.get(), x_star.get());
    else arb_sub(x_star.get(), x_at(vertices[a - 1]).get(), x_star.get(), kHullPrec);
    arb_mul(m.get(), slope[a].get(), x_star.get(), kHullPrec);
    arb_neg(m.get(), m.get());
    const double x_low = lower_d(x_star);
    if (x_low > 0) {
      const double l_star = std::log(x_low) - 4 * kU * (std::fabs(std::log(x_low)) + 1);
      keep(std::max(static_cast<long>(std::floor(l_star / step)), prev), m);
    }
    break;
  }
  return masses;
}

}  // namespace privamp::verify::certified_detail
