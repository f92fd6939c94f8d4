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

// Bound on the mass (relative to e^{max}) beyond the outermost points of infinite ends, assuming a log-concave tail
// there: the secant slope underestimates |h'|, so e^{h(x_end)}/slope overestimates the tail.
template <class Real>
Real tail_bound(const std::vector<LogPoint<Real>>& points, const LogIntegrateOptions<Real>& opt, const Real& max) {
  using std::exp;
  using std::isfinite;
  Real t = 0;
  auto one = [&](const LogPoint<Real>& end, const LogPoint<Real>& inner) {
    const Real drop = inner.v - end.v;
    if (end.v == -std::numeric_limits<Real>::infinity()) return;
    const Real dist = end.x > inner.x ? end.x - inner.x : inner.x - end.x;
    if (drop > 0) t += exp(end.v - max) * dist / drop;
    else t += std::numeric_limits<Real>::infinity();  // not decreasing: the truncation cannot be bounded
  };
  if (points.size() >= 2) {
    if (!isfinite(opt.hi)) one(points[points.size() - 1], points[points.size() - 2]);
    if (!isfinite(opt.lo)) one(points[0], points[1]);
  }
  return t;
}

template <class Real>
class LogIntegrator {
 public:
  LogIntegrator(const std::function<Real(Real)>& h, const LogIntegrateOptions<Real>& opt) : h_(h), opt_(opt) {}

  LogIntegral<Real> run(std::vector<Real> anchors) {
    using std::isfinite;
    if (!(opt_.lo < opt_.hi)) invalid_input("log_integrate: empty domain (lo >= hi)");
    if (!(opt_.scale > 0) || !isfinite(opt_.scale)) invalid_input("log_integrate: scale must be > 0");
    scan(std::move(anchors));
    if (max_ == neg_inf()) return {neg_inf(), Real(0), evals_, true};
    refine_maxima();
    estimate_noise();
    integrate_pieces();
    LogIntegral<Real> r;
    using std::log;
    r.log_value = total_ > 0 ? max_ + log(total_) : neg_inf();
    r.rel_error = total_ > 0 ? error_ / total_ : Real(0);
    r.evaluations = evals_;
    r.converged = converged_;
    return r;
  }

 private:
  using Point = LogPoint<Real>;
  using Segment = GkSegment<Real>;

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

  void add_point(const Real& x) {
    Real v = eval(x);
    points_.push_back({x, v});
    if (v > max_) {
      max_ = v;
      argmax_ = x;
    }
  }

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
    for (const Real& x : filled) add_point(x);
    if (!hi_finite) march(xs.back(), Real(1));
    if (!lo_finite) march(xs.front(), Real(-1));
    sort_points();
  }

  // Steps outward with doubling steps until h is below max − margin and decreasing (or leaves the support).
  void march(Real x, Real direction) {
    using std::isfinite;
    Real prev = eval(x);
    Real step = opt_.scale;
    for (int k = 0; k < 1100; ++k) {
      const Real next = x + direction * step;
      if (!isfinite(next)) break;
      add_point(next);
      const Real v = points_.back().v;
      if (v == neg_inf() && prev == neg_inf() && k > 8) break;
      if (v < max_ - opt_.margin && v <= prev) break;
      prev = v;
      x = next;
      step *= 2;
    }
  }

  void sort_points() {
    std::sort(points_.begin(), points_.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    points_.erase(std::unique(points_.begin(), points_.end(), [](const Point& a, const Point& b) { return a.x == b.x; }),
                  points_.end());
  }

  // Every discrete local maximum above max − margin is refined by Brent's method and surrounded by a ladder of
  // points at its curvature width, so that no piece is much wider than the peak it contains.
  void refine_maxima() {
    struct Peak {
      Real a, b;
      bool interior;  // refine by Brent in [a, b]; otherwise the peak is at an end point of the scan
      Real x;
    };
    std::vector<Peak> peaks;
    const std::size_t n = points_.size();
    for (std::size_t i = 0; i < n && n >= 2; ++i) {
      const Real v = points_[i].v;
      if (v == neg_inf() || v < max_ - opt_.margin) continue;
      const bool up_left = i == 0 || v >= points_[i - 1].v, up_right = i + 1 == n || v >= points_[i + 1].v;
      if (!up_left || !up_right) continue;
      if (i > 0 && i + 1 < n) peaks.push_back({points_[i - 1].x, points_[i + 1].x, true, points_[i].x});
      else if (i == 0) peaks.push_back({points_[0].x, points_[1].x, false, points_[0].x});
      else peaks.push_back({points_[n - 2].x, points_[n - 1].x, false, points_[n - 1].x});
    }
    if (peaks.size() > 64) peaks.resize(64);
    for (const auto& [a, b, interior, x0] : peaks) {
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
        const Real room = side > 0 ? b - xm : xm - a;
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
        if (p.v < cut && q.v < cut) {
          // No refined maximum inside (by the scan assumption h is monotone here): bounded by the larger end.
          pruned += (q.x - p.x) * exp(std::max(p.v, q.v) - max_);
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
      error_ = error + pruned + tail_bound(points_, opt_, max_) + (50 * eps + expm1(noise_)) * total;
      return;
    }
    throw NumericalError("log_integrate: could not locate the maximum of the integrand (rescaling failed)");
  }

  const std::function<Real(Real)>& h_;
  const LogIntegrateOptions<Real>& opt_;
  std::vector<Point> points_;
  Real max_ = neg_inf(), argmax_ = 0, seen_max_ = neg_inf();
  Real total_ = 0, error_ = 0, noise_ = 0;
  const Real overflow_guard_ = Real(std::numeric_limits<double>::max_exponent10) * 2;  // e^{600}: still far from overflow
  bool rescale_needed_ = false, converged_ = false;
  long evals_ = 0;
};

}  // namespace privamp::detail

namespace privamp {

template <class Real>
LogIntegral<Real> log_integrate(const std::function<Real(Real)>& h, std::vector<Real> anchors,
                                const LogIntegrateOptions<Real>& options) {
  return detail::LogIntegrator<Real>(h, options).run(std::move(anchors));
}

}  // namespace privamp
