// Implementation of log_integrate (see log_integrate.hpp); included only by the instantiation files.
#pragma once

#include <algorithm>
#include <cmath>
#include <queue>
#include <string>
#include <utility>

#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/tools/minima.hpp>

#include "numerics/errors.hpp"
#include "numerics/log_integrate.hpp"

namespace privamp::detail {

template <class Real>
struct LogPoint {
  Real x, v;  // an abscissa and the log-integrand there
};

template <class Real>
struct GkSegment {
  Real a, b, integral, error;
  bool operator<(const GkSegment& o) const { return error < o.error; }
};

// The 21-point Gauss–Kronrod rule on [a, b], its error estimated by the embedded 10-point Gauss rule.
template <class Real, class F>
GkSegment<Real> gauss_kronrod_21(F&& f, const Real& a, const Real& b) {
  using GK = boost::math::quadrature::gauss_kronrod<Real, 21>;
  using G = boost::math::quadrature::gauss<Real, 10>;
  const auto& xk = GK::abscissa();
  const auto& wk = GK::weights();
  const auto& wg = G::weights();
  const Real c = (a + b) / 2, r = (b - a) / 2;
  const Real f0 = f(c);
  Real k = f0 * wk[0], g = 0;
  for (std::size_t i = 1; i < xk.size(); ++i) {
    const Real fs = f(c - r * xk[i]) + f(c + r * xk[i]);
    k += wk[i] * fs;
    if (i % 2 == 1) g += wg[i / 2] * fs;  // the 10 Gauss nodes are the odd Kronrod abscissae
  }
  using std::abs;
  return {a, b, k * r, abs(k - g) * r};
}

// The mass beyond an infinite end, relative to e^{max}, from the last finite points of the march (innermost first,
// as distances u = |x − centre| from the integrand's maximum): the power law e^{h_end}·(u/u_end)^{−k} with k read
// off the last two points, ∫_{u_end}^∞ = e^{h_end − max}·u_end/(k − 1). It is an upper bound wherever the local
// exponent −u·h'(u) does not decrease beyond the end — true of every log-concave tail (Gaussian, Laplace) and of
// power laws — and that is checked on the last three points. +inf when the points do not qualify (fewer than two,
// h not decreasing, k ≤ 1, k decreasing): the tail is then not bounded.
template <class Real>
Real power_tail(const std::vector<LogPoint<Real>>& last, const Real& centre, const Real& max) {
  using std::abs;
  using std::exp;
  using std::log;
  const Real inf = std::numeric_limits<Real>::infinity();
  const std::size_t n = last.size();
  if (n < 2) return inf;
  auto exponent = [&](const LogPoint<Real>& in, const LogPoint<Real>& out) {
    const Real ui = abs(in.x - centre), uo = abs(out.x - centre);
    if (!(ui > 0) || !(uo > ui)) return Real(0);
    return Real((in.v - out.v) / log(uo / ui));
  };
  // k within 1e-6 of 1 is a tail like 1/x (divergent) to the precision k is read off with: not bounded.
  const Real k = exponent(last[n - 2], last[n - 1]);
  if (!(k > 1 + Real(1e-6))) return inf;
  if (n >= 3) {
    const Real k_before = exponent(last[n - 3], last[n - 2]);
    if (k_before > k * (1 + Real(1e-8)) + Real(1e-12)) return inf;
  }
  return exp(last[n - 1].v - max) * abs(last[n - 1].x - centre) / (k - 1);
}

// A mode narrower than a scan's spacing, tens of scales from every anchor, is seen by no anchor's ladder and no
// march (e^{−x²/2 + 30e^{−(x−20)²}} against N(0, 1): R_7 tilts the bump at 20 into the largest part of the
// integrand). A uniform probe at a quarter scale over [first − 64 scales, last + 64 scales] ∩ [lo, hi] (at most 4096
// points) returns its discrete local maxima that rise more than 1 above the known points around them (`known`
// sorted by x); where there is no such mode it returns nothing, and the scan stays as it was. Used by the
// integrator and by the density engine's privacy-loss scan.
template <class Real, class F>
std::vector<LogPoint<Real>> probe_peaks(const Real& first, const Real& last, const Real& scale, const Real& lo,
                                        const Real& hi, F f, const std::vector<LogPoint<Real>>& known) {
  using std::max;
  using std::min;
  using std::isfinite;
  std::vector<LogPoint<Real>> found;
  const Real a = max(Real(first - 64 * scale), lo), b = min(Real(last + 64 * scale), hi);
  if (!(b > a)) return found;
  const long n = std::min<long>(4096, static_cast<long>(static_cast<double>((b - a) / (scale / 4))) + 1);
  if (n < 3) return found;
  std::vector<LogPoint<Real>> grid;
  for (long i = 1; i < n; ++i) {
    const Real x = a + (b - a) * Real(i) / Real(n);
    grid.push_back({x, f(x)});
  }
  for (std::size_t i = 1; i + 1 < grid.size(); ++i) {
    const Real v = grid[i].v;
    if (!(isfinite(v) && v >= grid[i - 1].v && v > grid[i + 1].v)) continue;
    const auto right = std::lower_bound(known.begin(), known.end(), grid[i].x,
                                        [](const LogPoint<Real>& p, const Real& x) { return p.x < x; });
    Real around = -std::numeric_limits<Real>::infinity();
    if (right != known.end()) around = right->v;
    if (right != known.begin()) around = max(around, std::prev(right)->v);
    if (v > around + 1) found.push_back(grid[i]);
  }
  return found;
}

// What the integrator knows of h: the points evaluated (sorted on request), the largest value and where, and what
// the marches found in the infinite ends.
template <class Real>
class LogSamples {
 protected:
  using Point = LogPoint<Real>;
  LogSamples(const std::function<Real(Real)>& h, const LogIntegrateOptions<Real>& opt) : h_(h), opt_(opt) {}

  static Real neg_inf() { return -std::numeric_limits<Real>::infinity(); }

  Real eval(const Real& x) {
    using std::isnan;
    ++evals_;
    Real v = h_(x);
    if (isnan(v)) throw NumericalError("log_integrate: the log-integrand is NaN at x = " + to_string(x));
    if (v == std::numeric_limits<Real>::infinity())
      throw NumericalError("log_integrate: the log-integrand is +inf at x = " + to_string(x));
    return v;
  }

  static std::string to_string(const Real& x) { return format_number(static_cast<double>(x)); }

  // The value of a scanned point (it was evaluated already); −inf if x is not one.
  Real value_at(const Real& x) const {
    for (const Point& p : points_)
      if (p.x == x) return p.v;
    return neg_inf();
  }

  void add_point(const Real& x) { add_evaluated(x, eval(x)); }

  void add_evaluated(const Real& x, const Real& v) {
    using std::isnan;
    if (isnan(v)) throw NumericalError("log_integrate: the log-integrand is NaN at x = " + to_string(x));
    points_.push_back({x, v});
    if (v > max_) {
      max_ = v;
      argmax_ = x;
    }
  }

  void sort_points() {
    std::sort(points_.begin(), points_.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    points_.erase(std::unique(points_.begin(), points_.end(), [](const Point& a, const Point& b) { return a.x == b.x; }),
                  points_.end());
  }

  // The bound on both infinite ends' tails (relative to e^{max}); +inf for a tail that could not be bounded (a
  // rising end never gets here: run() returns +inf before integrating).
  Real tails() const {
    using std::isfinite;
    Real t = 0;
    for (int end : {0, 1}) {
      if (end == 0 ? isfinite(opt_.lo) : isfinite(opt_.hi)) continue;
      const std::vector<Point>& last = tail_points_[end];
      // The march ended where the integrand is 0 right after its first finite point: nothing out there. After
      // several, the 0 may be a density that left the double range (|x|^1.5 overflows at 1e205; log(1 + x²) at
      // 1e154), not the integrand's decay: the tail is bounded from the finite points before it, as any other.
      if (vanished_[end] && last.size() < 2) continue;
      t += power_tail(last, argmax_, max_);
    }
    return t;
  }

  // Steps outward with doubling steps, at least to the reach, until h is below the march's largest value − margin,
  // decreasing, and the tail beyond negligible (power_tail). h = +inf, or x leaving the double range before that,
  // leaves the tail unbounded. The last finite points are kept for the tail bound.
  void march(Real x, Real direction) {
    using std::isfinite;
    const int end = direction > 0 ? 1 : 0;
    const Real reach = direction > 0 ? opt_.reach_hi : opt_.reach_lo;
    std::vector<Point>& last = tail_points_[end];
    Real prev = eval(x);
    Real top = prev;
    if (prev > neg_inf()) last.push_back({x, prev});
    Real step = opt_.scale;
    using std::exp;
    const Real negligible = exp(-opt_.margin) * opt_.scale;
    bool settled = false;  // the stopping rule held once: only the reach goes on
    using std::abs;
    const Real edge = std::numeric_limits<Real>::max() / 8;  // widths and midpoints of pieces stay finite
    for (int k = 0; k < 1100; ++k) {
      const Real next = x + direction * step;
      if (!isfinite(next) || abs(next) > edge) {
        // The end of the double range: an integrand still rising here is infinite as far as doubles can tell.
        if (last.size() >= 2 && last.back().v >= last[last.size() - 2].v) rising_[end] = true;
        break;
      }
      ++evals_;
      Real v;
      if (!settled) {
        v = h_(next);
      } else {
        // Only the reach keeps the march going: an integrand that cannot be evaluated this far out (a law
        // computed numerically refuses beyond the accuracy it declares) ends it where it stands.
        try {
          v = h_(next);
        } catch (const NumericalError&) {
          break;
        }
      }
      if (v == std::numeric_limits<Real>::infinity()) {
        rising_[end] = true;  // the integrand exceeds the double range out here
        return;
      }
      add_evaluated(next, v);
      if (v > neg_inf()) {
        last.push_back({next, v});
        if (last.size() > 3) last.erase(last.begin());
      }
      if (v > top) top = v;
      vanished_[end] = v == neg_inf();
      if (v == neg_inf() && prev == neg_inf() && k > 8) break;
      const bool past = direction > 0 ? next >= reach : next <= reach;
      settled = settled || (v < top - opt_.margin && v <= prev && power_tail(last, argmax_, max_) <= negligible);
      if (past && settled) break;
      prev = v;
      x = next;
      step *= 2;
    }
    // Still rising where the integrand turned −inf: a density that left the double range (|x|^1.6 at 1e192), not the
    // integrand's decay (0.5x² − 2|x|^0.5 reaches 9e307 there).
    if (vanished_[end] && last.size() >= 2 && last.back().v >= last[last.size() - 2].v) rising_[end] = true;
  }

  const std::function<Real(Real)>& h_;
  const LogIntegrateOptions<Real>& opt_;
  std::vector<Point> points_;
  Real max_ = neg_inf(), argmax_ = 0;
  long evals_ = 0;
  std::vector<Point> tail_points_[2];  // the last finite points of the march into each infinite end (lo, hi)
  bool rising_[2] = {false, false};    // the integrand still rose at the end of the double range (or was +inf)
  bool vanished_[2] = {false, false};  // the march ended on h = −inf
};

template <class Real>
class LogIntegrator : LogSamples<Real> {
  using Base = LogSamples<Real>;
  using Base::add_evaluated, Base::add_point, Base::eval, Base::march, Base::neg_inf, Base::sort_points, Base::tails, Base::value_at;
  using Base::argmax_, Base::evals_, Base::h_, Base::max_, Base::opt_, Base::points_, Base::rising_, Base::tail_points_,
      Base::vanished_;

 public:
  LogIntegrator(const std::function<Real(Real)>& h, const LogIntegrateOptions<Real>& opt) : Base(h, opt) {}

  LogIntegral<Real> run(std::vector<Real> anchors) {
    using std::isfinite;
    if (!(opt_.lo < opt_.hi)) invalid_input("log_integrate: empty domain (lo >= hi)");
    if (!(opt_.scale > 0) || !isfinite(opt_.scale)) invalid_input("log_integrate: scale must be > 0");
    scan(std::move(anchors));
    open_vanishing_gaps();
    // Still rising at the end of the double range: as far as doubles can tell the integral is infinite, and
    // nothing bounds it (its upper end +inf, rel_error +inf).
    if (rising_[0] || rising_[1]) return {std::numeric_limits<Real>::infinity(), std::numeric_limits<Real>::infinity(), Real(1), evals_, true};
    if (max_ == neg_inf()) return {neg_inf(), Real(0), Real(0), evals_, true};
    refine_maxima();
    estimate_noise();
    integrate_pieces();
    LogIntegral<Real> r;
    using std::log;
    r.log_value = total_ > 0 ? max_ + log(total_) : neg_inf();
    r.rel_error = total_ > 0 ? error_ / total_ : Real(0);
    r.rel_error_below = total_ > 0 ? error_below_ / total_ : Real(0);
    r.evaluations = evals_;
    r.converged = converged_;
    return r;
  }

 private:
  using Point = LogPoint<Real>;
  using Segment = GkSegment<Real>;

  // Anchors, a geometric and uniform fill of wide finite gaps, and a march into infinite ends.
  void scan(std::vector<Real> anchors) {
    using std::isfinite;
    std::vector<Real> xs;
    for (const Real& a : anchors)
      if (isfinite(a) && a > opt_.lo && a < opt_.hi) xs.push_back(a);
    const bool lo_finite = isfinite(opt_.lo), hi_finite = isfinite(opt_.hi);
    if (xs.empty()) {
      if (lo_finite && hi_finite) xs.push_back((opt_.lo + opt_.hi) / 2);
      else if (lo_finite) xs.push_back(opt_.lo + opt_.scale);
      else if (hi_finite) xs.push_back(opt_.hi - opt_.scale);
      else xs.push_back(Real(0));
    }
    if (lo_finite) xs.push_back(opt_.lo);
    if (hi_finite) xs.push_back(opt_.hi);
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    std::vector<Real> filled;
    for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
      filled.push_back(xs[i]);
      const Real a = xs[i], b = xs[i + 1], width = b - a;
      if (width <= 2 * opt_.scale) continue;
      for (Real d = opt_.scale; 2 * d < width; d *= 2) {
        filled.push_back(a + d);
        filled.push_back(b - d);
      }
      const int n = static_cast<int>(std::min<double>(64.0, static_cast<double>(width / opt_.scale)));
      for (int k = 1; k < n; ++k) filled.push_back(a + width * Real(k) / Real(n));
    }
    filled.push_back(xs.back());
    // A finite domain is seen at 16 evenly spaced points at least, however its width compares with the scale: a
    // support 0.5 wide at scale 0.5 was sampled at its ends and anchors only, and a hump of the KL integrand between a
    // zero of its generator (the loss crossing 0) and the support's end, never sampled, was pruned as negligible.
    // (A domain 32 scales wide or more is already sampled at most 2 scales apart, at most a sixteenth of it, above:
    // the points added there anyway cut every quadrature into more pieces, and a convolution's inner integrals made
    // the generalised Gaussian case 5x slower.)
    if (lo_finite && hi_finite && opt_.hi - opt_.lo < 32 * opt_.scale)
      for (int k = 1; k < 16; ++k) filled.push_back(opt_.lo + (opt_.hi - opt_.lo) * Real(k) / Real(16));
    for (const Real& x : filled) add_point(x);
    probe(xs.front(), xs.back());
    if (!hi_finite) march(xs.back(), Real(1));
    if (!lo_finite) march(xs.front(), Real(-1));
    sort_points();
  }

  // Between two scanned points where the integrand is 0 (log −inf) it need not be 0: a generator vanishes where the
  // loss crosses 0 and a density at its support's end, with mass between (the Rényi excess of two clamped Laplaces
  // vanished at 0.75 and at the end 1, and the piece between, taken as 0, lost 1 % of R_1.5). Each such gap is probed
  // at 15 evenly spaced points, which join the scan where the integrand is positive there: a positive stretch
  // narrower than a sixteenth of the gap is not seen.
  void open_vanishing_gaps() {
    std::vector<std::pair<Real, Real>> gaps;
    for (std::size_t i = 0; i + 1 < points_.size(); ++i)
      if (points_[i].v == neg_inf() && points_[i + 1].v == neg_inf() && points_[i].x < points_[i + 1].x)
        gaps.emplace_back(points_[i].x, points_[i + 1].x);
    bool added = false;
    for (const auto& [a, b] : gaps)
      for (int k = 1; k < 16; ++k) {
        const Real x = a + (b - a) * Real(k) / Real(16), v = eval(x);
        if (v > neg_inf()) add_evaluated(x, v), added = true;
      }
    if (added) sort_points();
  }

  // A mode no anchor or march sees (probe_peaks): those within the margin of the largest value join the scan.
  void probe(const Real& first, const Real& last) {
    sort_points();
    const auto found = probe_peaks(first, last, opt_.scale, opt_.lo, opt_.hi, [this](const Real& x) { return eval(x); }, points_);
    for (const Point& p : found)
      if (p.v >= max_ - opt_.margin) add_evaluated(p.x, p.v);
  }

  // Every discrete local maximum (the 64 highest) is refined by Brent's method and surrounded by a ladder of points
  // at its curvature width, so that no piece is much wider than the peak it contains. A sampled point below
  // max − margin may be the flank of a narrow mode far out that rises above the rest (a march 2^k scales out
  // meets a mode of width 1 at 1000 at e^{−164} of its top): it is refined too.
  void refine_maxima() {
    struct Peak {
      Real a, b;
      bool interior;  // refine by Brent in [a, b]; otherwise the peak is at an end point of the scan
      Real x;
      Real v;  // the sampled value
    };
    std::vector<Peak> peaks;
    const std::size_t n = points_.size();
    for (std::size_t i = 0; i < n && n >= 2; ++i) {
      const Real v = points_[i].v;
      if (v == neg_inf()) continue;
      const bool up_left = i == 0 || v >= points_[i - 1].v, up_right = i + 1 == n || v >= points_[i + 1].v;
      if (!up_left || !up_right) continue;
      if (i > 0 && i + 1 < n) peaks.push_back({points_[i - 1].x, points_[i + 1].x, true, points_[i].x, v});
      else if (i == 0) peaks.push_back({points_[0].x, points_[1].x, false, points_[0].x, v});
      else peaks.push_back({points_[n - 2].x, points_[n - 1].x, false, points_[n - 1].x, v});
    }
    std::stable_sort(peaks.begin(), peaks.end(), [](const Peak& a, const Peak& b) { return a.v > b.v; });
    if (peaks.size() > 64) peaks.resize(64);
    for (const auto& [a, b, interior, x0, v0_sampled] : peaks) {
      Real xm = x0;
      if (interior) {
        boost::uintmax_t iters = 200;
        const int bits = std::numeric_limits<Real>::digits / 2;
        auto neg_h = [&](const Real& x) {
          Real v = eval(x);
          return v == neg_inf() ? std::numeric_limits<Real>::max() : Real(-v);
        };
        xm = boost::math::tools::brent_find_minima(neg_h, a, b, bits, iters).first;
      }
      add_point(xm);
      Real hm = points_.back().v;
      // Brent's parabolic steps can leave a peak narrower than the bracket for a lower point beside it: the best
      // point of the scan is kept (a component 10^-4 scales wide at an anchor is otherwise never laddered).
      if (const Real v0 = value_at(x0); v0 > hm) {
        xm = x0;
        hm = v0;
      }
      if (hm == neg_inf()) continue;
      // A ladder on each side at that side's width: find d with a drop of order one, then w = d/√(2·drop)
      // (exact for a Gaussian peak). Sides differ at kinks (a Laplace loss peaks at its kink, steep on one side).
      using std::isfinite;
      using std::sqrt;
      const Real min_d = (b - a) * Real(1e-12);
      for (const int side : {-1, 1}) {
        // The room reaches past the scan's neighbour, at least to the domain's end or 64 scales: a point beside the peak (a
        // tilted mode 10^-5 from a component 10^-4 wide) left no room for the ladder on that side, and the peak's
        // flank was one Gauss–Kronrod piece thousands of widths long (R_1.01 = 1.11 for 2.00).
        using std::max;
        using std::min;
        const Real bracket = side > 0 ? Real(b - xm) : Real(xm - a), to_end = side > 0 ? Real(opt_.hi - xm) : Real(xm - opt_.lo);
        const Real room = max(bracket, min(to_end, Real(64 * opt_.scale)));
        if (!(room > 0)) continue;
        Real d = room / 2, drop = 0;
        for (int k = 0; k < 200; ++k) {
          drop = hm - eval(xm + Real(side) * d);
          if (drop > 8 && d > min_d) d /= 2;
          else if (drop < Real(0.5) && 2 * d < room) d *= 2;
          else break;
        }
        Real w = drop > 0 && isfinite(drop) ? d / sqrt(2 * drop) : d;
        if (!(w > min_d)) w = min_d;
        for (Real r = w; r < room; r *= 3) add_point(xm + Real(side) * r);
      }
    }
    sort_points();
  }

  // Relative rounding noise of the integral: the absolute error of h weighted by the integrand, largest over the
  // scan (the integral's relative error is a weighted mean of the pointwise ones; points where h is small but its
  // error large, next to a zero of the integrand, carry little weight).
  void estimate_noise() {
    using std::abs;
    using std::exp;
    const Real eps = std::numeric_limits<Real>::epsilon();
    noise_ = 0;
    for (std::size_t i = 0; i < points_.size(); ++i) {
      const Point& p = points_[i];
      if (p.v < max_ - 40) continue;
      Real e = opt_.h_error ? opt_.h_error(p.x) : Real(8 * eps * (abs(p.v) + 1));
      // The abscissae are rounded too: h moves by |h'|·eps·|x| (narrow peaks far from the origin).
      if (i > 0 && i + 1 < points_.size()) {
        const Real slope = (points_[i + 1].v - points_[i - 1].v) / (points_[i + 1].x - points_[i - 1].x);
        using std::isfinite;
        if (isfinite(slope)) e += 2 * abs(slope) * eps * abs(p.x);
      }
      e *= exp(p.v - max_);
      if (e > noise_) noise_ = e;
    }
  }

  Segment gauss_kronrod(const Real& a, const Real& b) {
    return gauss_kronrod_21([this](const Real& x) { return f(x); }, a, b);
  }

  Real f(const Real& x) {
    using std::exp;
    const Real v = eval(x);
    if (v - max_ > overflow_guard_) {
      rescale_needed_ = true;
      if (v > seen_max_) seen_max_ = v;
      return 0;
    }
    return exp(v - max_);
  }

  void integrate_pieces() {
    using std::abs;
    using std::exp;
    for (int attempt = 0; attempt < 4; ++attempt) {
      rescale_needed_ = false;
      seen_max_ = max_;
      std::priority_queue<Segment> queue;
      Real pruned = 0;
      for (std::size_t i = 0; i + 1 < points_.size(); ++i) {
        const Point &p = points_[i], &q = points_[i + 1];
        const Real cut = max_ - opt_.margin;
        // No refined maximum inside (by the scan assumption h is monotone here): bounded by the larger end times
        // the width; pruned when that is negligible (a wide piece of a power-law tail is integrated instead).
        const Real bound = (q.x - p.x) * exp(std::max(p.v, q.v) - max_);
        if (p.v < cut && q.v < cut && bound <= exp(-opt_.margin) * opt_.scale) {
          pruned += bound;
          continue;
        }
        queue.push(gauss_kronrod(p.x, q.x));
      }
      Real total = 0, error = 0;
      auto sum_up = [&]() {
        total = 0;
        error = 0;
        auto copy = queue;
        while (!copy.empty()) {
          total += copy.top().integral;
          error += copy.top().error;
          copy.pop();
        }
      };
      sum_up();
      int count = static_cast<int>(queue.size());
      const Real tol = std::max(opt_.rel_tol, Real(4 * noise_));
      while (!queue.empty() && error > tol * total && count < opt_.max_intervals) {
        const Segment worst = queue.top();
        queue.pop();
        const Real mid = (worst.a + worst.b) / 2;
        if (!(mid > worst.a && mid < worst.b)) {  // cannot split further at this precision
          queue.push(worst);
          break;
        }
        const Segment left = gauss_kronrod(worst.a, mid), right = gauss_kronrod(mid, worst.b);
        total += left.integral + right.integral - worst.integral;
        error += left.error + right.error - worst.error;
        queue.push(left);
        queue.push(right);
        ++count;
        if (count % 64 == 0) sum_up();  // resum to keep the running totals free of drift
      }
      if (rescale_needed_) {
        max_ = seen_max_;
        continue;
      }
      sum_up();
      converged_ = error <= tol * total;
      const Real eps = std::numeric_limits<Real>::epsilon();
      total_ = total;
      using std::expm1;
      error_below_ = error + (50 * eps + expm1(noise_)) * total;
      error_ = error_below_ + pruned + tails();
      return;
    }
    throw NumericalError("log_integrate: could not locate the maximum of the integrand (rescaling failed)");
  }

  Real seen_max_ = neg_inf();
  Real total_ = 0, error_ = 0, error_below_ = 0, noise_ = 0;
  const Real overflow_guard_ = Real(std::numeric_limits<double>::max_exponent10) * 2;  // e^{600}: still far from overflow
  bool rescale_needed_ = false, converged_ = false;
};

}  // namespace privamp::detail

namespace privamp {

template <class Real>
LogIntegral<Real> log_integrate(const std::function<Real(Real)>& h, std::vector<Real> anchors,
                                const LogIntegrateOptions<Real>& options) {
  return detail::LogIntegrator<Real>(h, options).run(std::move(anchors));
}

}  // namespace privamp
