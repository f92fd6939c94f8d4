// One step of a projected Gaussian chain on the certified engine's cell measures, and the lattice tables it reads
// (certified/chains.cpp gives the argument; chain_parts.hpp the types).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "numerics/interrupt.hpp"
#include "verify/divergence/certified/chain_parts.hpp"
#include "verify/divergence/certified/internal.hpp"

namespace privamp::verify::chain_detail {

using certified_detail::Refused;

namespace {
DBall to_dball(const certified_detail::Ball& b) {
  const double lo = certified_detail::lower_d(b), hi = certified_detail::upper_d(b);
  return from(Enclosure(lo, hi));
}

}  // namespace

namespace {

using certified_detail::Ball;

// The Gaussian N(0, s²) in balls at the tables' precision: Φ(at/s), its upper tail and its density.
class GaussianBalls {
 public:
  static constexpr slong kPrec = 96;
  explicit GaussianBalls(double s) {
    arb_set_d(sb_.get(), s);
    arb_sqr(s2_.get(), sb_.get(), kPrec);
    arb_const_pi(norm_.get(), kPrec);
    arb_mul_2exp_si(norm_.get(), norm_.get(), 1);
    arb_sqrt(norm_.get(), norm_.get(), kPrec);
    arb_mul(norm_.get(), norm_.get(), sb_.get(), kPrec);  // s √(2π)
    arb_sqrt_ui(rt2_.get(), 2, kPrec);
  }
  const Ball& s2() const { return s2_; }
  void cdf(arb_ptr out, const Ball& at) const { tail(out, at, true); }           // Φ(at/s) = erfc(−at/(s√2))/2
  void upper_tail(arb_ptr out, const Ball& at) const { tail(out, at, false); }   // 1 − Φ(at/s) = erfc(at/(s√2))/2
  void density(arb_ptr out, const Ball& at) const {
    Ball x;
    arb_sqr(x.get(), at.get(), kPrec);
    arb_div(x.get(), x.get(), s2_.get(), kPrec);
    arb_mul_2exp_si(x.get(), x.get(), -1);
    arb_neg(x.get(), x.get());
    arb_exp(out, x.get(), kPrec);
    arb_div(out, out, norm_.get(), kPrec);
  }

 private:
  void tail(arb_ptr out, const Ball& at, bool lower) const {
    Ball x;
    arb_div(x.get(), at.get(), sb_.get(), kPrec);
    arb_div(x.get(), x.get(), rt2_.get(), kPrec);
    if (lower) arb_neg(x.get(), x.get());
    arb_hypgeom_erfc(out, x.get(), kPrec);
    arb_mul_2exp_si(out, out, -1);
  }
  Ball sb_, s2_, norm_, rt2_;
};

// |φ'|, |φ''|, |φ'''| over the lattice cell w (a ball holding it): (−u/s²) φ, (u² − s²)/s⁴ φ, (3us² − u³)/s⁶ φ,
// stored rounded up at index i.
void derivative_bounds(const GaussianBalls& normal, const Ball& w, std::size_t i, std::vector<double>& d1,
                       std::vector<double>& d2, std::vector<double>& d3) {
  const slong prec = GaussianBalls::kPrec;
  const Ball& s2 = normal.s2();
  Ball phi, a, tmp;
  normal.density(phi.get(), w);
  auto store = [&](std::vector<double>& table, const Ball& value) {
    arf_t bound;
    arf_init(bound);
    arb_get_abs_ubound_arf(bound, value.get(), 64);
    table[i] = arf_get_d(bound, ARF_RND_CEIL);
    arf_clear(bound);
  };
  arb_div(a.get(), w.get(), s2.get(), prec);
  arb_mul(a.get(), a.get(), phi.get(), prec);
  store(d1, a);
  arb_sqr(a.get(), w.get(), prec);
  arb_sub(a.get(), a.get(), s2.get(), prec);
  arb_div(a.get(), a.get(), s2.get(), prec);
  arb_div(a.get(), a.get(), s2.get(), prec);
  arb_mul(a.get(), a.get(), phi.get(), prec);
  store(d2, a);
  arb_sqr(a.get(), w.get(), prec);
  arb_mul_ui(tmp.get(), s2.get(), 3, prec);
  arb_sub(a.get(), tmp.get(), a.get(), prec);
  arb_mul(a.get(), a.get(), w.get(), prec);
  arb_div(a.get(), a.get(), s2.get(), prec);
  arb_div(a.get(), a.get(), s2.get(), prec);
  arb_div(a.get(), a.get(), s2.get(), prec);
  arb_mul(a.get(), a.get(), phi.get(), prec);
  store(d3, a);
}

}  // namespace

Tables make_tables(double s, double lo, double hi, long cells, long first, long last) {
  const slong prec = GaussianBalls::kPrec;
  Tables t;
  t.first = first;
  const auto size = static_cast<std::size_t>(last - first + 1);
  t.mass.resize(size);
  t.moment.resize(size);
  t.density.resize(size);
  t.cdf.resize(size);
  std::vector<double> d1(size), d2(size), d3(size);
  const GaussianBalls normal(s);
  Ball hp, h, u, v, a, b, w;
  // h' = (hi − lo)/(cells·kLattice), h = (hi − lo)/cells: exact reals, enclosed.
  arb_set_d(hp.get(), hi);
  arb_set_d(a.get(), lo);
  arb_sub(hp.get(), hp.get(), a.get(), prec);
  arb_set(h.get(), hp.get());
  arb_div_si(h.get(), h.get(), cells, prec);
  arb_div_si(hp.get(), hp.get(), cells * kLattice, prec);
  Ball cu, cv, du, dv, mass, tmp;
  for (long n = first; n <= last; ++n) {
    const std::size_t i = t.at(n);
    arb_mul_si(u.get(), hp.get(), n, prec);
    arb_add(v.get(), u.get(), h.get(), prec);
    // The cell's mass without cancellation: lower tails on the left of 0, upper tails on the right.
    if (n >= 0) {
      normal.upper_tail(cu.get(), u);
      normal.upper_tail(cv.get(), v);
      arb_sub(mass.get(), cu.get(), cv.get(), prec);
    } else {
      normal.cdf(cu.get(), u);
      normal.cdf(cv.get(), v);
      arb_sub(mass.get(), cv.get(), cu.get(), prec);
    }
    t.mass[i] = to_dball(mass);
    normal.cdf(tmp.get(), u);
    t.cdf[i] = to_dball(tmp);
    normal.density(du.get(), u);
    normal.density(dv.get(), v);
    t.density[i] = to_dball(du);
    // moment = −(u + h/2)·mass + s²(φ(u) − φ(u + h))
    arb_mul_2exp_si(a.get(), h.get(), -1);
    arb_add(a.get(), a.get(), u.get(), prec);
    arb_mul(a.get(), a.get(), mass.get(), prec);
    arb_sub(b.get(), du.get(), dv.get(), prec);
    arb_mul(b.get(), b.get(), normal.s2().get(), prec);
    arb_sub(w.get(), b.get(), a.get(), prec);
    t.moment[i] = to_dball(w);
    if (n < last) {
      arb_add(b.get(), u.get(), hp.get(), prec);
      arb_union(w.get(), u.get(), b.get(), prec);
      derivative_bounds(normal, w, i, d1, d2, d3);
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

Source locate(const Grid& g, const sim::MapEnclosure& at_centre, const sim::MapEnclosure& over, bool point) {
  Source s;
  const Enclosure t = (at_centre.value - Enclosure(g.lo)) / g.hp;
  const Enclosure range = (over.value - Enclosure(g.lo)) / g.hp;
  if (!t.finite() || !range.finite() || std::fabs(range.lo) > 1e15 || std::fabs(range.hi) > 1e15)
    throw Refused("the map is not finite (or too large) over a cell");
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
  if (!std::isfinite(lin)) throw Refused("the map's slope is not bounded over a cell");
  s.linear = lin;
  return s;
}

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

namespace {

// A source of the step (a cell or an atom of `in`) with what every target reads of it.
struct Prepared {
  DBall n0, n1;
  double v;
  double lo_mass, hi_mass;  // first-order: the mass's ends
  int branches;
  const Source* src[2];
  double e2[2];  // ∫ (ψ − z_ℓ)² d|ν| per branch
};

std::vector<Prepared> prepare_sources(const Grid& g, const StepGeometry& geo, const Measure& in, const StepGeometry* other) {
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
  for (std::size_t j = 0; j < static_cast<std::size_t>(g.cells); ++j) prepare(j, false, in.mass[j], in.moment[j], in.variation[j]);
  for (std::size_t a = 0; a < in.atoms.size(); ++a) prepare(a, true, in.atoms[a], {}, in.atoms[a].mag());
  return sources;
}

// What every target cell of one step shares.
struct StepContext {
  const Grid& g;
  const Tables& t;
  const std::vector<Prepared>& sources;
  bool positive;
  double h_up, h3, safety;
  DBall half_h;
};

// The target cell k: its mass, moment, variation and the sups of the kernel's slope and curvature over it.
void step_cell(const StepContext& c, long k, Measure& out) {
  const Tables& t = c.t;
  Sum mass, moment;
  double slope = 0, curv = 0, first_lo = 0, first_hi = 0;
  for (const Prepared& p : c.sources) {
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
      const DBall dg = Fast::sub(da, db), dg1 = Fast::sub(t.mass[at], Fast::mul(c.half_h, Fast::add(da, db)));
      DBall c0 = Fast::add(t.mass[at], Fast::mul(dg, s.offset)), c1 = Fast::mul(dg, s.slope);
      DBall d0 = Fast::add(t.moment[at], Fast::mul(dg1, s.offset)), d1 = Fast::mul(dg1, s.slope);
      if (b == 0) {
        mass0 = c0, mass1 = c1, mom0 = d0, mom1 = d1;
      } else {
        mass0 = Fast::sub(mass0, c0), mass1 = Fast::sub(mass1, c1), mom0 = Fast::sub(mom0, d0), mom1 = Fast::sub(mom1, d1);
      }
      mass_spread += Fast::mag(dg) * s.linear * p.v + 0.5 * c.h_up * w_curv * p.e2[b];
      mom_spread += Fast::mag(dg1) * s.linear * p.v + c.h3 / 24 * t.third(w1, w2) * p.e2[b];
      slope += w * p.v;
      curv += w_curv * p.v;
      if (c.positive) {
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
  if (c.positive) m = intersect(m, std::max(0.0, first_lo / c.safety), up(first_hi * c.safety) + kTiny);
  out.mass[i] = m;
  out.slope_sup[i] = up(slope * c.safety) + kTiny;
  out.curv_sup[i] = up(curv * c.safety) + kTiny;
  const double var = c.positive ? m.hi() : up(m.mag() + up(up(c.h_up * c.h_up) * out.slope_sup[i]));
  out.variation[i] = var;
  const double limit = up(0.5 * c.h_up * var);
  out.moment[i] = intersect(moment.ball(), -limit, limit);
}

// An end's atom: side 0 (lo) collects Φ((lo − z)/s), side 1 (hi) collects Φ((z − hi)/s) (g'' = ±φ'(lo − z) or
// φ'(z − hi)).
DBall step_end(const StepContext& c, int side) {
  const Tables& t = c.t;
  const long nm = c.g.cells * kLattice;
  Sum mass;
  double first_lo = 0, first_hi = 0;
  for (const Prepared& p : c.sources) {
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
      if (c.positive) {
        first_lo += t.cdf_lo[t.at(n1)] * p.lo_mass;
        first_hi += t.cdf_hi[t.at(n2)] * p.hi_mass;
      }
    }
    mass.add(c0, p.n0);
    mass.add(c1, p.n1);
    mass.spread(spread);
  }
  DBall m = mass.ball();
  if (c.positive) m = intersect(m, std::max(0.0, first_lo / c.safety), up(first_hi * c.safety) + kTiny);
  return m;
}

}  // namespace

// One step applied to `in`: the image on the cells and the two end atoms. With `other` (a second step of the same
// noise), the image under this step minus the image under `other` — the difference kernel, computed jointly so that
// the uncertainty of `in` enters through the kernels' difference, not through each kernel. `positive`: `in` is a
// (sub-)probability and there is no `other` (its masses are then also sandwiched to first order).
Measure step_measure(const Grid& g, const StepGeometry& geo, const Tables& t, const Measure& in, bool positive,
                     const StepGeometry* other) {
  const long N = g.cells;
  const std::vector<Prepared> sources = prepare_sources(g, geo, in, other);
  const double h_up = g.h_up;
  const StepContext context{g, t, sources, positive && !other, h_up, up(up(h_up * h_up) * h_up) * (1 + 4 * kUnit),
                            1 + 4 * static_cast<double>(2 * sources.size() + 4) * kUnit, from(g.h * Enclosure(0.5))};
  Measure out;
  out.mass.resize(static_cast<std::size_t>(N));
  out.moment.resize(static_cast<std::size_t>(N));
  out.variation.resize(static_cast<std::size_t>(N));
  out.slope_sup.resize(static_cast<std::size_t>(N));
  out.curv_sup.resize(static_cast<std::size_t>(N));
  for (long k = 0; k < N; ++k) {
    if (k % 64 == 0) throw_if_interrupted();
    step_cell(context, k, out);
  }
  for (int side = 0; side < 2; ++side) {
    out.atoms_x.push_back(side == 0 ? g.lo : g.hi);
    out.atoms.push_back(step_end(context, side));
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

}  // namespace privamp::verify::chain_detail
