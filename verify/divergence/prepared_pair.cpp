#include "verify/divergence/prepared_pair.hpp"

#include <algorithm>
#include <cmath>

#include "numerics/errors.hpp"
#include "numerics/log_space.hpp"

namespace privamp::verify {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = std::numeric_limits<double>::epsilon();

// True if μ's tail on one side decays slower than ν's (the likelihood ratio is unbounded there).
bool heavier(const sim::TailShape& a, const sim::TailShape& b) {
  if (a.quad != b.quad) return a.quad < b.quad;
  return a.lin < b.lin;
}
}  // namespace

PreparedPair::PreparedPair(const sim::Law& p_, const sim::Law& q_, double rel_tol) : p(p_), q(q_) {
  if (p.dimension() != 1 || q.dimension() != 1)
    throw InvalidArgument("this engine needs one-dimensional laws; d-dimensional Gaussians have closed forms only");
  // Atoms on the union of locations (both lists are sorted).
  const auto pa = p.atoms(), qa = q.atoms();
  std::size_t i = 0, j = 0;
  while (i < pa.size() || j < qa.size()) {
    if (j == qa.size() || (i < pa.size() && pa[i].x < qa[j].x)) {
      atom_log_p.push_back(pa[i++].log_mass);
      atom_log_q.push_back(-kInf);
    } else if (i == pa.size() || qa[j].x < pa[i].x) {
      atom_log_p.push_back(-kInf);
      atom_log_q.push_back(qa[j++].log_mass);
    } else {
      atom_log_p.push_back(pa[i++].log_mass);
      atom_log_q.push_back(qa[j++].log_mass);
    }
  }
  for (std::size_t k = 0; k < atom_log_p.size(); ++k)
    if (atom_log_p[k] > -kInf && atom_log_q[k] == -kInf) not_absolutely_continuous = true;

  p_has_density = p.continuous_mass() > 0;
  if (p_has_density) {
    const bool q_has_density = q.continuous_mass() > 0;
    const sim::Interval sp = p.support(), sq = q.support();
    if (!q_has_density || sp.lo < sq.lo || sp.hi > sq.hi) not_absolutely_continuous = true;
    density.log_p = [&law = p](double x) { return law.log_density(x); };
    density.log_q = [&law = q](double x) { return law.log_density(x); };
    for (double a : p.anchors()) density.anchors.push_back(a);
    for (double a : q.anchors()) density.anchors.push_back(a);
    density.scale = q_has_density ? std::min(p.scale(), q.scale()) : p.scale();
    density.lo = sp.lo;
    density.hi = sp.hi;
    density.rel_tol = rel_tol;
  }
}

const LossScan<double>& PreparedPair::loss_scan() {
  if (!scan) scan = scan_loss(density);
  return *scan;
}

bool PreparedPair::renyi_tail_diverges(double alpha) const {
  if (!p_has_density) return false;
  auto side = [&](const sim::TailShape& tp, const sim::TailShape& tq) {
    if (tp.bounded()) return false;
    if (tq.bounded()) return true;
    const double quad = alpha * tp.quad + (1 - alpha) * tq.quad;
    if (std::fabs(quad) > 1e-14 * (alpha * tp.quad + (alpha - 1) * tq.quad)) return quad < 0;
    return alpha * tp.lin + (1 - alpha) * tq.lin < 0;
  };
  return side(p.left_tail(), q.left_tail()) || side(p.right_tail(), q.right_tail());
}

void Part::add_pos(double log_v, double rel) {
  if (log_v == -kInf) return;
  const double total = log_add(log_pos, log_v);
  pos_rel = (log_pos == -kInf ? 0 : pos_rel * std::exp(log_pos - total)) + rel * std::exp(log_v - total);
  log_pos = total;
}

void Part::add_neg(double log_v, double rel) {
  if (log_v == -kInf) return;
  const double total = log_add(log_neg, log_v);
  neg_rel = (log_neg == -kInf ? 0 : neg_rel * std::exp(log_neg - total)) + rel * std::exp(log_v - total);
  log_neg = total;
}

void Part::add(const Part& other) {
  add_pos(other.log_pos, other.pos_rel);
  add_neg(other.log_neg, other.neg_rel);
  infinite = infinite || other.infinite;
  work += other.work;
}

bool use_expm1_route(double alpha) { return alpha - 1 < 0.1; }

Part atom_part(const PreparedPair& pair, const Quantity& quantity) {
  Part part;
  const std::size_t n = pair.atom_log_p.size();
  part.work = static_cast<long>(n);
  if (n == 0) return part;
  const double alpha = quantity.parameter;
  const bool divergence_like = quantity.kind == Quantity::Kind::renyi || quantity.kind == Quantity::Kind::kl;
  LogSumAccumulator<double> pos, neg;
  double max_abs = 0;  // largest |log term|: each carries that much absolute rounding in its exponent
  for (std::size_t k = 0; k < n; ++k) {
    const double lp = pair.atom_log_p[k], lq = pair.atom_log_q[k];
    if (lp == -kInf) continue;
    if (lq == -kInf) {
      if (divergence_like) {
        part.infinite = true;
        return part;
      }
      pos.add(lp);  // HS: the atom of μ is entirely outside ν's atoms
      continue;
    }
    const double l = lp - lq;
    double term = -kInf;
    bool negative = false;
    switch (quantity.kind) {
      case Quantity::Kind::renyi:
        if (use_expm1_route(alpha)) {
          const double t = (alpha - 1) * l;
          negative = t < 0;
          term = t > 0 ? lp + std::log(std::expm1(t)) : t < 0 ? lp + log1mexp(t) : -kInf;
        } else {
          term = alpha * lp + (1 - alpha) * lq;
        }
        break;
      case Quantity::Kind::kl:
        negative = l < 0;
        term = l != 0 ? lp + std::log(std::fabs(l)) : -kInf;
        break;
      case Quantity::Kind::hockey_stick:
      case Quantity::Kind::tv: {
        const double eps = quantity.kind == Quantity::Kind::tv ? 0.0 : quantity.parameter;
        term = l > eps ? lp + log1mexp(eps - l) : -kInf;
        break;
      }
      case Quantity::Kind::renyi_inf: break;
    }
    if (std::isfinite(term)) max_abs = std::max(max_abs, std::fabs(term) + std::fabs(lp) + std::fabs(lq));
    (negative ? neg : pos).add(term);
  }
  const double rel = 4 * kEps * (max_abs + static_cast<double>(n));
  part.add_pos(pos.value(), rel);
  part.add_neg(neg.value(), rel);
  return part;
}

Estimate finish(const Part& part, const Quantity& quantity, ErrorKind kind, const std::string& method) {
  Estimate e;
  switch (quantity.kind) {
    case Quantity::Kind::renyi: {
      if (part.infinite) return Estimate::infinite(method);
      const double t = quantity.parameter - 1;
      if (use_expm1_route(quantity.parameter)) {
        const double pos = std::exp(part.log_pos), neg = std::exp(part.log_neg);
        const double j = pos - neg, j_err = pos * part.pos_rel + neg * part.neg_rel;
        const double denom = std::max(1 + j - j_err, 1e-300);
        e = Estimate::from_value(std::log1p(j) / t, j_err / denom / t + 4 * kEps * std::fabs(std::log1p(j) / t), kind, method);
      } else {
        const double rel = std::min(part.pos_rel, 0.5);
        e = Estimate::from_value(part.log_pos / t, -std::log1p(-rel) / t + 4 * kEps * std::fabs(part.log_pos) / t, kind, method);
      }
      break;
    }
    case Quantity::Kind::kl: {
      if (part.infinite) return Estimate::infinite(method);
      const double pos = std::exp(part.log_pos), neg = std::exp(part.log_neg);
      e = Estimate::from_value(pos - neg, pos * part.pos_rel + neg * part.neg_rel + 4 * kEps * pos, kind, method);
      break;
    }
    case Quantity::Kind::hockey_stick:
    case Quantity::Kind::tv:
      if (part.log_pos == -kInf) e = Estimate::from_value(0, 0, kind, method);
      else e = Estimate::from_log(part.log_pos, part.pos_rel, kind, method);
      break;
    case Quantity::Kind::renyi_inf: throw NumericalError("internal: renyi_inf is not finished from parts");
  }
  e.work = part.work;
  return e;
}

Estimate renyi_inf(PreparedPair& pair, const std::string& method) {
  if (pair.not_absolutely_continuous) return Estimate::infinite(method);
  double best = -kInf, err = 0;
  for (std::size_t k = 0; k < pair.atom_log_p.size(); ++k) {
    const double lp = pair.atom_log_p[k];
    if (lp == -kInf) continue;
    const double l = lp - pair.atom_log_q[k];
    best = std::max(best, l);
    err = std::max(err, 4 * kEps * (std::fabs(lp) + std::fabs(pair.atom_log_q[k])));
  }
  ErrorKind kind = ErrorKind::exact;
  long work = static_cast<long>(pair.atom_log_p.size());
  if (pair.p_has_density) {
    if (heavier(pair.p.left_tail(), pair.q.left_tail()) || heavier(pair.p.right_tail(), pair.q.right_tail()))
      return Estimate::infinite(method);
    const auto sup = sup_loss(pair.density, pair.loss_scan());
    if (sup.value == kInf) return Estimate::infinite(method);
    if (sup.value > best) best = sup.value;
    err = std::max(err, sup.error + 1e-10 * std::max(1.0, std::fabs(sup.value)));  // Brent: √eps in x, eps in L
    kind = ErrorKind::quadrature;
    work += sup.evaluations + pair.loss_scan().evaluations;
  }
  Estimate e = Estimate::from_value(std::max(best, 0.0), err, kind, method);
  e.work = work;
  return e;
}

}  // namespace privamp::verify
