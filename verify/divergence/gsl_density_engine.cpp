#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_roots.h>

#include "verify/divergence/engine_entry.hpp"
#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "numerics/log_space.hpp"
#include "verify/divergence/density_engine_impl.hpp"
#include "verify/divergence/density_engines.hpp"
#include "verify/divergence/generators.hpp"

namespace privamp::verify {

namespace {


struct Workspace {
  gsl_integration_workspace* w;
  explicit Workspace(std::size_t n) : w(gsl_integration_workspace_alloc(n)) {}
  ~Workspace() { gsl_integration_workspace_free(w); }
};

// ∫ over the support of exp(h − M) by QAG (Gauss–Kronrod 61, no extrapolation) on finite pieces and QAGIU/QAGIL on the infinite ends; returns the
// log of the integral and its relative error (GSL's abserr / result).
std::pair<double, double> gsl_log_integral(const PreparedPair& pair, const std::function<double(double)>& h,
                                           double rel_tol, long& evaluations, bool over_q = false,
                                           const std::vector<double>& kinks = {}, double loosest = 1e-8, bool march = false) {
  const double lo = over_q ? pair.density.q_lo : pair.density.lo, hi = over_q ? pair.density.q_hi : pair.density.hi;
  gsl_set_error_handler_off();
  // Scale: the largest value of h at the anchors, the kinks, and on a coarse grid around them.
  std::vector<double> pts;
  for (double a : pair.density.anchors)
    if (a > lo && a < hi) pts.push_back(a);
  for (double a : kinks)
    if (a > lo && a < hi) pts.push_back(a);
  if (pts.empty()) pts.push_back(std::isfinite(lo) ? lo + pair.density.scale : 0.0);
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  // The integrand's mass may sit far beyond every anchor (a Rényi integrand at a large order, tilted towards where
  // the laws' tails differ): a geometric march into each side, 2^k scales out, adds the largest point it meets.
  // Both marches start from the anchors' extremes (read before either adds its points: the left march's peak at
  // the end of `pts` once started the right march at −1024, and a mirror peak at +1100 was never seen).
  const double first = pts.front(), last = pts.back();
  for (int side : {-1, 1}) {
    if (!march) break;
    const double from = side < 0 ? first : last, end = side < 0 ? lo : hi;
    double best = -kInf, at = from;
    for (int k = 0; k < 64; ++k) {
      const double x = from + side * pair.density.scale * std::ldexp(1.0, k);
      if (side * (x - end) >= 0) break;
      const double v = h(x);
      ++evaluations;
      if (v > best) best = v, at = x;
      else if (v < best - 100) break;  // fallen far below the best seen: the mass is behind
    }
    if (best > -kInf && at != from) {
      // Refine to the maximum between its neighbours on the march (golden section, 60 steps).
      double a = from + side * (side * (at - from) / 2), b = from + side * (side * (at - from) * 2);
      if (side * (b - end) >= 0) b = 0.5 * at + 0.5 * end;
      if (a > b) std::swap(a, b);
      for (int i = 0; i < 60; ++i) {
        const double m1 = a + 0.382 * (b - a), m2 = a + 0.618 * (b - a);
        evaluations += 2;
        if (h(m1) < h(m2)) a = m1;
        else b = m2;
      }
      pts.push_back(0.5 * (a + b));
      pts.push_back(at);
    }
  }
  // A pair with features narrower than the scale that are no peak (a sum of Laplaces of scales 10^-4 and 1: a dip of
  // relative depth 10^-4 at its centre, which moved TV by 8e-7 of itself) gets a ladder 2^-k scales from every anchor
  // (check_gsl_resolves decides, once per pair).
  if (pair.gsl_dense)
    for (const double a : std::vector<double>(pts))
      for (int k = 1; k <= 40; k += 2)
        for (int side : {-1, 1})
          if (const double x = a + side * std::ldexp(pair.density.scale, -k); x > lo && x < hi) pts.push_back(x);
  // A peak at an anchor narrower than the scale (a mixture component 10^-8 wide) lies between QAG's nodes: its
  // width is found by halving until the integrand has dropped by e^8, and a geometric ladder of breakpoints at
  // that width surrounds it.
  const std::size_t n_pts = pts.size();
  for (std::size_t i = 0; i < n_pts; ++i) {
    const double a = pts[i], ha = h(a);
    ++evaluations;
    if (ha == -kInf) continue;
    for (int side : {-1, 1}) {
      double d = pair.density.scale / 4;
      const double min_d = 1e-15 * std::max(std::fabs(a), pair.density.scale);
      for (int k = 0; k < 200 && d > min_d; ++k) {
        const double x = a + side * d;
        ++evaluations;
        if (x <= lo || x >= hi || ha - h(x) > 8) d /= 2;
        else break;
      }
      for (double r = d; r < pair.density.scale / 4; r *= 3)
        if (const double x = a + side * r; x > lo && x < hi) pts.push_back(x);
    }
  }
  // A piece much longer than the scale may hold its mass in a corner QAG's first nodes do not reach (laplace(0, 1)
  // against laplace(1000, 1) at α = 10^4: e^x on [−10^7, 0] beside the tilted mode; all 61 nodes saw 0 and the
  // integral lost a factor 2α): a geometric ladder, 2^k scales from each end, splits it.
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  for (std::size_t i = 0, n = pts.size(); i + 1 < n; ++i) {
    const double a = pts[i], b = pts[i + 1];
    for (double r = pair.density.scale; r < (b - a) / 4; r *= 2) {
      pts.push_back(a + r);
      pts.push_back(b - r);
    }
  }
  // Points a few ulps apart (a ladder point beside a kink) would make a piece QAG cannot subdivide: the later one goes.
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end(), [](double a, double b) {
              return b - a <= 64 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(a), std::fabs(b));
            }), pts.end());
  // Between the kinks (and a kink and a finite end) h may be positive on a region narrower than any scale.
  std::vector<double> mids;
  for (std::size_t i = 0; i + 1 < pts.size(); ++i) mids.push_back(pts[i] + (pts[i + 1] - pts[i]) / 2);
  if (!kinks.empty() && std::isfinite(lo)) mids.push_back(lo + (pts.front() - lo) / 2);
  if (!kinks.empty() && std::isfinite(hi)) mids.push_back(hi - (hi - pts.back()) / 2);
  double m_mid = -kInf;
  for (double x : mids)
    if (x > lo && x < hi) {
      m_mid = std::max(m_mid, h(x));
      ++evaluations;
    }
  double m = -kInf;
  for (double a : pts)
    for (int k = -64; k <= 64; ++k) {
      const double x = a + pair.density.scale * k / 4.0;
      if (x <= lo || x >= hi) continue;
      m = std::max(m, h(x));
      ++evaluations;
    }
  m = std::max(m, m_mid);
  if (m == -kInf) return {-kInf, 0};
  struct Ctx {
    const std::function<double(double)>* h;
    double m;
    long* evals;
  } ctx{&h, m, &evaluations};
  gsl_function f;
  f.function = [](double x, void* c) {
    auto* ctx = static_cast<Ctx*>(c);
    ++*ctx->evals;
    const double v = (*ctx->h)(x);
    return v == -kInf ? 0.0 : std::exp(v - ctx->m);
  };
  f.params = &ctx;
  Workspace ws(2000);
  double total = 0, err = 0;
  // GSL's error estimate is only trusted when it reports success: on a roundoff or extrapolation warning (which
  // happens at kinks of the hockey-stick integrand) the piece is retried with a looser tolerance, down to 1e-8,
  // and the computation fails if even that is not met — unless the piece is negligible against the whole integral
  // (a sliver between a kink and a neighbouring breakpoint), when its value plus its error bar is counted as error.
  double unresolved = 0;
  std::string failure;
  auto piece = [&](auto&& call, const char* what) {
    for (double tol = rel_tol;; tol *= 100) {
      double r = 0, e = 0;
      const int status = call(tol, r, e);
      if (status == GSL_SUCCESS) {
        total += r;
        err += e;
        return;
      }
      if (tol >= loosest) {
        unresolved += std::fabs(r) + e;
        if (failure.empty()) failure = fmt::format("GSL {} could not reach relative accuracy {:g}: {}", what, loosest, gsl_strerror(status));
        return;
      }
    }
  };
  if (std::isfinite(lo)) pts.insert(pts.begin(), lo);
  else
    piece([&](double tol, double& r, double& e) { return gsl_integration_qagil(&f, pts.front(), 0, tol, 2000, ws.w, &r, &e); },
          "qagil");
  if (std::isfinite(hi)) pts.push_back(hi);
  else
    piece([&](double tol, double& r, double& e) { return gsl_integration_qagiu(&f, pts.back(), 0, tol, 2000, ws.w, &r, &e); },
          "qagiu");
  for (std::size_t i = 0; i + 1 < pts.size(); ++i)
    piece([&](double tol, double& r, double& e) {
      return gsl_integration_qag(&f, pts[i], pts[i + 1], 0, tol, 2000, GSL_INTEG_GAUSS61, ws.w, &r, &e);
    }, "qag");
  if (unresolved > 0) {
    if (!(unresolved <= loosest * total)) throw NumericalError(failure);
    err += unresolved;
  }
  // Every node of every rule saw zero, although the integrand is positive at a point sampled above: its positive part
  // is narrower than the rules resolve. A zero here would be a silent wrong value.
  if (total <= 0)
    throw NumericalError(fmt::format("GSL: the integrand is positive at a sampled point (log value {:.6g}) but every quadrature "
                                     "node saw zero: a feature narrower than the rule; use the default or certified engine",
                                     m));
  return {m + std::log(total), err / total + 64 * std::numeric_limits<double>::epsilon()};
}

// Where L − ε changes sign: a uniform scan of ±200 scales around the anchors, each sign change refined by GSL's
// Brent solver. These are the kinks of [p − e^ε q]_+, handed to QAG as breakpoints (its error estimate is not to be
// trusted across a kink). Written independently of the Boost engine's crossing search.
std::vector<double> gsl_crossings(const PreparedPair& pair, double eps, long& evaluations) {
  const auto& d = pair.density;
  auto f = [&](double x) {
    ++evaluations;
    const double lp = d.log_p(x), lq = d.log_q(x);
    if (lp == -kInf) return -1.0;
    if (lq == -kInf) return 1.0;
    return lp - lq - eps;
  };
  double a_min = kInf, a_max = -kInf;
  for (double a : d.anchors) {
    a_min = std::min(a_min, a);
    a_max = std::max(a_max, a);
  }
  const double lo = std::max(d.lo, a_min - 200 * d.scale), hi = std::min(d.hi, a_max + 200 * d.scale);
  const int n = 4000;
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) xs.push_back(lo + (hi - lo) / n * (i + 0.5));
  // The laws' own features (component locations, atoms of a projection) are scan points too: a component narrower
  // than the scan's step is seen where it sits.
  for (double a : d.anchors)
    if (a > d.lo && a < d.hi) xs.push_back(a);
  // A geometric ladder into finite ends of the support: crossings within a hair of an end are found.
  for (int k = 12; k <= 52; ++k) {
    const double step = (hi - lo) / n * std::ldexp(1.0, -(k - 12));
    if (std::isfinite(d.lo) && lo == d.lo) xs.push_back(lo + step);
    if (std::isfinite(d.hi) && hi == d.hi) xs.push_back(hi - step);
  }
  std::sort(xs.begin(), xs.end());
  std::vector<double> out;
  double x0 = xs.front(), f0 = f(x0);
  for (std::size_t i = 1; i < xs.size(); ++i) {
    const double x1 = xs[i], f1 = f(x1);
    if ((f0 > 0) != (f1 > 0)) {
      struct Ctx {
        decltype(f)* g;
      } ctx{&f};
      gsl_function F;
      F.function = [](double x, void* c) { return (*static_cast<Ctx*>(c)->g)(x); };
      F.params = &ctx;
      gsl_root_fsolver* solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
      gsl_root_fsolver_set(solver, &F, x0, x1);
      double root = 0.5 * (x0 + x1);
      for (int it = 0; it < 200; ++it) {
        gsl_root_fsolver_iterate(solver);
        root = gsl_root_fsolver_root(solver);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(solver), gsl_root_fsolver_x_upper(solver), 0, 1e-15) == GSL_SUCCESS) break;
      }
      gsl_root_fsolver_free(solver);
      out.push_back(root);
    }
    x0 = x1;
    f0 = f1;
  }
  return out;
}

// The rounding of the integrand relative to the integral: ∫ e^h·err / ∫ e^h, with err(x) the absolute rounding of the
// log-integrand h at x (the relative error of e^h there), integrated by the same rule to 1e-6.
template <class Err>
double rounding_bar(const PreparedPair& pair, const std::function<double(double)>& h, double log_value, Err err, long& evaluations,
                    bool over_q, const std::vector<double>& kinks, bool march = false) {
  if (!std::isfinite(log_value)) return 0;
  // The abscissae are rounded too: h moves by |h'(x)|·ε·|x| (a peak 10^-8 wide at x = 1 moves by 10^-8 of itself),
  // with h' by a central difference 2^-30·|x| wide.
  auto abscissa = [&](double x) {
    const double dx = std::ldexp(std::max(std::fabs(x), pair.density.scale), -30), a = h(x - dx), b = h(x + dx);
    evaluations += 2;
    if (!std::isfinite(a) || !std::isfinite(b)) return 0.0;  // beside a kink or an end: the piece's own breakpoint
    return std::fabs(b - a) / (2 * dx) * 2 * std::numeric_limits<double>::epsilon() * std::fabs(x);
  };
  const auto [lr, rel] = gsl_log_integral(pair, [&](double x) {
    const double v = h(x);
    return v == -kInf ? v : v + std::log(static_cast<double>(err(x)) + abscissa(x));
  }, 1e-6, evaluations, over_q, kinks, 0.5, march);  // march as the integral did: its mass may sit far out  // an error bar: a few digits suffice (it jumps at the crossings)
  return lr == -kInf ? 0 : std::exp(lr - log_value) * (1 + rel);
}


// μ charges what ν does not, or a Rényi integral diverges in a tail (an a-posteriori conclusion when the tails
// were read off formulas): the part is +inf before any integral.
bool infinite_before_integrating(const PreparedPair& pair, const Quantity& quantity, Part& part) {
  if (quantity.kind != Quantity::Kind::renyi && quantity.kind != Quantity::Kind::kl) return false;
  bool estimated = false;
  if (pair.not_absolutely_continuous ||
      (quantity.kind == Quantity::Kind::renyi && pair.renyi_tail_diverges(quantity.parameter, &estimated))) {
    part.infinite = true;
    part.infinite_estimated = !pair.not_absolutely_continuous && estimated;
  }
  return part.infinite;
}

}  // namespace

// GSL's rules see what lies between its nodes only through its error estimate: a density narrower than the pair's
// scale (a 10^-6-wide sum of Laplaces against a unit one) was missed whole, KL = 1 ± 2e-9 for 12.67. Each density is
// integrated first on its own support, once per pair; a mass off its
// continuous mass by more than 1e-6 refuses the route instead of giving a value.
// Then the same mass with a ladder of breakpoints 2^-k scales from every anchor: where the two differ beyond their
// error bars, the pair has features the anchors alone miss and every integral of the pair takes the ladder.
void check_gsl_resolves(PreparedPair& pair, long& evals) {
  if (pair.gsl_resolves) return;  // once per pair
  const auto& d = pair.density;
  for (const bool of_q : {false, true}) {  // each density over its own support (the other's as well doubled the cost)
    const sim::Law& law = of_q ? pair.q : pair.p;
    if (!(law.continuous_mass() > 0)) continue;
    const std::function<double(double)> h = [&](double x) { return of_q ? d.log_q(x) : d.log_p(x); };
    const auto [lv, rel] = gsl_log_integral(pair, h, 1e-12, evals, of_q, {}, 1e-6, false);
    if (!(std::fabs(lv - std::log(law.continuous_mass())) <= 1e-6 + rel))
      throw NumericalError(fmt::format("GSL: the nodes of its rules integrate {}'s density to {:.9g} of {:.9g}: a feature narrower "
                                       "than the rules resolve; use the default or certified engine", of_q ? "nu" : "mu",
                                       std::exp(lv), law.continuous_mass()));
    // (laws with many anchors, grids and chains, have their breakpoints dense already: the ladder there cost more than
    // the rest of the catalogue's GSL routes)
    // A law that declares a feature far narrower than the pair's scale (sim::Shape::fine_scale) takes the ladder.
    if (d.fine_scale > 0) pair.gsl_dense = true;
    if (pair.gsl_dense || d.anchors.size() > 32) continue;
    pair.gsl_dense = true;
    const auto [lv_dense, rel_dense] = gsl_log_integral(pair, h, 1e-12, evals, of_q, {}, 1e-6, false);
    pair.gsl_dense = std::fabs(lv_dense - lv) > 4 * (rel + rel_dense) + 1e-13;
  }
  pair.gsl_resolves = true;
}

Part density_part_gsl(PreparedPair& pair, const Quantity& quantity) {
  Part part;
  if (!pair.p_has_density) return part;
  if (infinite_before_integrating(pair, quantity, part)) return part;
  const auto& d = pair.density;
  const double rel_tol = std::max(d.rel_tol, 1e-12);
  long evals = 0;
  check_gsl_resolves(pair, evals);
  auto loss = [&](double x, double& lp) {
    lp = d.log_p(x);
    const double lq = d.log_q(x);
    if (lp == -kInf) return -kInf;
    if (lq == -kInf) return kInf;
    return d.loss ? d.loss(x) : lp - lq;
  };
  switch (quantity.kind) {
    case Quantity::Kind::renyi: {
      const double a = quantity.parameter;
      // The direct route only: near α = 1 its error bar (relative error / (α−1)) is honest but wide.
      // Tilted modes m + α(c − m) (a component of μ at c against one of ν at m) are breakpoints: the integrand's
      // mass sits there at large α, far from the laws' own anchors.
      std::vector<double> tilted;
      if (d.p_anchors.size() * d.q_anchors.size() <= 4096)
        for (double c : d.p_anchors)
          for (double m : d.q_anchors)
            if (const double t = m + a * (c - m); std::isfinite(t) && t != c) tilted.push_back(t);
      const std::function<double(double)> h = [&](double x) {
        double lp;
        const double l = loss(x, lp);
        return lp == -kInf ? -kInf : lp + (a - 1) * l;
      };
      const auto [lv, rel] = gsl_log_integral(pair, h, rel_tol, evals, false, tilted, 1e-8, true);
      const double bar = rel + rounding_bar(pair, h, lv, [&](double x) { return detail::rounding(a, d.log_p(x), a - 1, d.log_q(x)); },
                                            evals, false, tilted, true);
      // (no upper end: PreparedPair::loss_outgrows_density, renyi_tail_marginal)
      part.add(lv, pair.loss_outgrows_density() || pair.renyi_tail_marginal(a) ? kInf : bar, bar);
      break;
    }
    case Quantity::Kind::kl: {
      // Same generator as the atoms (q·g(p/q), generators.hpp), integrated over q's support by GSL.
      const std::function<double(double)> h = [&](double x) {
        const double lq = d.log_q(x);
        if (lq == -kInf) return -kInf;
        double lp;
        const double l = loss(x, lp);
        // (the loss known to ±loss_delta: the generator pushed as the Boost engine pushes it)
        return lq + detail::pushed_generator(d, l, [](double v) { return log_kl_generator(v); });
      };
      const auto [lv, rel] = gsl_log_integral(pair, h, rel_tol, evals, true);
      // The generator's own rounding (a few ulps of log q and of the loss), and the abscissae's.
      part.add(lv, rel + rounding_bar(pair, h, lv, [&](double x) {
                 return 8 * std::numeric_limits<double>::epsilon() * (1 + std::fabs(d.log_q(x)) + std::fabs(d.log_p(x)));
               }, evals, true, {}));
      break;
    }
    case Quantity::Kind::hockey_stick:
    case Quantity::Kind::tv: {
      const double eps = quantity.kind == Quantity::Kind::tv ? 0.0 : quantity.parameter;
      const auto kinks = gsl_crossings(pair, eps, evals);
      const std::function<double(double)> h = [&](double x) {
        double lp;
        const double l = loss(x, lp);
        return l > eps ? lp + log1mexp(eps - l) : -kInf;
      };
      const auto [lv, rel] = gsl_log_integral(pair, h, rel_tol, evals, false, kinks);
      // The loss as log p − log q loses digits where the laws nearly coincide (a subsampled pair at small q): the
      // same rounding bar as the Boost engine's, integrated over the integrand.
      part.add(lv, rel + rounding_bar(pair, h, lv, detail::loss_rounding(d, [eps](double l) {
                                        return std::exp(eps - l) / -std::expm1(eps - l);
                                      }), evals, false, kinks));
      break;
    }
    case Quantity::Kind::renyi_inf: break;
  }
  part.work = evals;
  return part;
}

// The engine's entry (engine_entry.hpp): a second route, never tried by the default engine.
extern const EngineEntry kGslEngine{
    Engine::gsl, "gsl", "any pair of laws on the line: atoms by exact sums, densities by GSL's QAG/QAGI (a second route)",
    true, needs_one_dimension,
    [](const ValueCall& c) -> std::optional<Estimate> { return density_route(c.pair(), c.quantity, c.engine); }, "", false};

}  // namespace privamp::verify
