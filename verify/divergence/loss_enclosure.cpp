#include "verify/divergence/loss_enclosure.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <vector>

#include "numerics/constants.hpp"
#include "numerics/interrupt.hpp"

namespace privamp::verify {

namespace {

struct Piece {
  double bound, a, b;
  bool operator<(const Piece& o) const { return bound < o.bound; }
};

// sup of log p − log q over [a, b] from the two enclosures: −inf where p has no mass, +inf where an enclosure is
// missing or unbounded (the piece must be split).
double piece_bound(const sim::LogDensityRanges& p, const sim::LogDensityRanges& q, double a, double b) {
  const auto ep = p.range(a, b);
  if (ep && ep->hi == -kInf) return -kInf;
  const auto eq = q.range(a, b);
  if (!ep || !eq || !std::isfinite(ep->hi) || !std::isfinite(eq->lo)) return kInf;
  return ep->hi - eq->lo;
}

}  // namespace

std::optional<LossBound> bound_loss(const sim::Law& p, const sim::Law& q, double a, double b, double tolerance,
                                    long budget) {
  const sim::LogDensityRanges *pr = p.computation().ranges, *qr = q.computation().ranges;
  const double middle = 0.5 * a + 0.5 * b;
  if (!(a < b) || !pr || !qr || !pr->range(middle, middle) || !qr->range(middle, middle)) return std::nullopt;
  LossBound r;
  r.best = -kInf;
  auto evaluate = [&](double x) {
    ++r.evaluations;
    const double lp = p.log_density(x);
    if (lp > -kInf) r.best = std::max(r.best, lp - q.log_density(x));
  };
  std::priority_queue<Piece> queue;
  constexpr int kStart = 64;
  for (int k = 0; k < kStart; ++k) {
    const double x = a + (b - a) * k / kStart, y = k == kStart - 1 ? b : a + (b - a) * (k + 1) / kStart;
    queue.push({piece_bound(*pr, *qr, x, y), x, y});
  }
  double leftover = -kInf;  // bounds of pieces too narrow to split
  for (long split = 0; !queue.empty() && queue.top().bound > r.best + tolerance && split < budget;) {
    const Piece top = queue.top();
    queue.pop();
    if ((split & 255) == 0) throw_if_interrupted();
    const double m = 0.5 * top.a + 0.5 * top.b;
    evaluate(m);
    if (!(m > top.a && m < top.b) || top.b - top.a <= 1e-13 * std::max(1.0, std::fabs(m))) {
      leftover = std::max(leftover, top.bound);
      continue;
    }
    ++split;
    for (const auto& [x, y] : {std::pair{top.a, m}, std::pair{m, top.b}})
      if (const double bound = piece_bound(*pr, *qr, x, y); bound > r.best + tolerance) queue.push({bound, x, y});
  }
  const double rest = queue.empty() ? -kInf : queue.top().bound;
  r.complete = rest <= r.best + tolerance && leftover <= r.best + tolerance;
  r.bound = std::max({r.best + tolerance, rest, leftover});
  return r;
}

}  // namespace privamp::verify
