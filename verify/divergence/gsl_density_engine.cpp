#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include <fmt/format.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#include "numerics/errors.hpp"
#include "numerics/log_space.hpp"
#include "verify/divergence/density_engines.hpp"
#include "verify/divergence/generators.hpp"

namespace privamp::verify {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Workspace {
  gsl_integration_workspace* w;
  explicit Workspace(std::size_t n) : w(gsl_integration_workspace_alloc(n)) {}
  ~Workspace() { gsl_integration_workspace_free(w); }
};

// ∫ over the support of exp(h − M) by QAG (Gauss–Kronrod 61, no extrapolation) on finite pieces and QAGIU/QAGIL on the infinite ends; returns the
// log of the integral and its relative error (GSL's abserr / result).
std::pair<double, double> gsl_log_integral(const PreparedPair& pair, const std::function<double(double)>& h,
                                           double rel_tol, long& evaluations, bool over_q = false) {
  const double lo = over_q ? pair.density.q_lo : pair.density.lo, hi = over_q ? pair.density.q_hi : pair.density.hi;
  gsl_set_error_handler_off();
  // Scale: the largest value of h at the anchors and on a coarse grid around them.
  std::vector<double> pts;
  for (double a : pair.density.anchors)
    if (a > lo && a < hi) pts.push_back(a);
  if (pts.empty()) pts.push_back(std::isfinite(lo) ? lo + pair.density.scale : 0.0);
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  double m = -kInf;
  for (double a : pts)
    for (int k = -64; k <= 64; ++k) {
      const double x = a + pair.density.scale * k / 4.0;
      if (x <= lo || x >= hi) continue;
      m = std::max(m, h(x));
      ++evaluations;
    }
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
  // and the computation fails if even that is not met.
  auto piece = [&](auto&& call, const char* what) {
    for (double tol = rel_tol;; tol *= 100) {
      double r = 0, e = 0;
      const int status = call(tol, r, e);
      if (status == GSL_SUCCESS) {
        total += r;
        err += e;
        return;
      }
      if (tol >= 1e-8)
        throw NumericalError(fmt::format("GSL {} could not reach relative accuracy 1e-8: {}", what, gsl_strerror(status)));
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
  if (total <= 0) return {-kInf, 0};
  return {m + std::log(total), err / total + 64 * std::numeric_limits<double>::epsilon()};
}

}  // namespace

Part density_part_gsl(PreparedPair& pair, const Quantity& quantity) {
  Part part;
  if (!pair.p_has_density) return part;
  const bool divergence_like = quantity.kind == Quantity::Kind::renyi || quantity.kind == Quantity::Kind::kl;
  if (divergence_like && (pair.not_absolutely_continuous ||
                          (quantity.kind == Quantity::Kind::renyi && pair.renyi_tail_diverges(quantity.parameter)))) {
    part.infinite = true;
    return part;
  }
  const auto& d = pair.density;
  const double rel_tol = std::max(d.rel_tol, 1e-12);
  long evals = 0;
  auto loss = [&](double x, double& lp) {
    lp = d.log_p(x);
    const double lq = d.log_q(x);
    if (lp == -kInf) return -kInf;
    return lq == -kInf ? kInf : lp - lq;
  };
  switch (quantity.kind) {
    case Quantity::Kind::renyi: {
      const double a = quantity.parameter;
      // The direct route only: near α = 1 its error bar (relative error / (α−1)) is honest but wide.
      const auto [lv, rel] = gsl_log_integral(pair, [&](double x) {
        double lp;
        const double l = loss(x, lp);
        return lp == -kInf ? -kInf : lp + (a - 1) * l;
      }, rel_tol, evals);
      part.add(lv, rel);
      break;
    }
    case Quantity::Kind::kl: {
      // Same generator as the atoms (q·g(p/q), generators.hpp), integrated over q's support by GSL.
      const auto [lv, rel] = gsl_log_integral(pair, [&](double x) {
        const double lq = d.log_q(x);
        return lq == -kInf ? -kInf : lq + log_kl_generator(d.log_p(x) - lq);
      }, rel_tol, evals, true);
      part.add(lv, rel);
      break;
    }
    case Quantity::Kind::hockey_stick:
    case Quantity::Kind::tv: {
      const double eps = quantity.kind == Quantity::Kind::tv ? 0.0 : quantity.parameter;
      const auto [lv, rel] = gsl_log_integral(pair, [&](double x) {
        double lp;
        const double l = loss(x, lp);
        return l > eps ? lp + log1mexp(eps - l) : -kInf;
      }, rel_tol, evals);
      part.add(lv, rel);
      break;
    }
    case Quantity::Kind::renyi_inf: break;
  }
  part.work = evals;
  return part;
}

}  // namespace privamp::verify
