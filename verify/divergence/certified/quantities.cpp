// The certified engine: HS_eps and TV, R_alpha, KL and R_inf of a pair read in exact terms.
#include "verify/divergence/certified/internal.hpp"

#include <algorithm>
#include <optional>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <vector>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/laplace.hpp"
#include "sim/laws/mixture.hpp"
#include "sim/laws/projected.hpp"
#include "sim/laws/shifted.hpp"

namespace privamp::verify::certified_detail {

Ball atoms_hs(const Pair& pr, const Ball& exp_eps, slong prec) {
  Ball out;
  for (const auto& [x, mp] : pr.p.atoms) {
    Ball d = mp;
    if (auto it = pr.q.atoms.find(x); it != pr.q.atoms.end()) {
      Ball t;
      arb_mul(t.get(), it->second.get(), exp_eps.get(), prec);
      arb_sub(d.get(), d.get(), t.get(), prec);
    }
    arb_nonnegative_part(d.get(), d.get());  // [d]_+ as a ball
    arb_add(out.get(), out.get(), d.get(), prec);
  }
  return out;
}

// HS_ε on the densities over [u, v] (sign subdivision) and the mass it could not decide.
struct Subdivision {
  std::vector<std::pair<double, double>> positive;
  std::vector<std::pair<double, double>> constant;  // L − ε constant, its sign undecided
  Ball undecided;  // upper bound of ∫[p − e^ε q]_+ over undecided intervals
  long evaluations = 0;
};

void sign_subdivide(const Pair& pr, const Segment& sp, const Segment& sq, double u, double v, const Ball& eps,
                    const Ball& exp_eps, slong prec, const Deadline& deadline, Subdivision& out) {
  std::vector<std::pair<double, double>> stack{{u, v}};
  while (!stack.empty()) {
    auto [a, b] = stack.back();
    stack.pop_back();
    if (++out.evaluations > kMaxEvaluations)
      throw Refused(fmt::format("the sign of the privacy loss could not be certified within {} subdivisions", kMaxEvaluations));
    if (out.evaluations % 64 == 0) {
      deadline.spend(63);
      deadline.check();
    }
    bool constant = false;
    const Ball l = loss_on(sp, sq, a, b, eps, prec, &constant);
    if (constant && !arb_is_positive(l.get()) && !arb_is_nonpositive(l.get())) {
      // L ≡ ε within rounding on the whole interval: p − e^ε q = (e^{L−ε} − 1) e^ε q has one sign there, so
      // ∫[p − e^ε q]_+ = [∫(p − e^ε q)]_+.
      out.constant.emplace_back(a, b);
      continue;
    }
    if (arb_is_positive(l.get())) {
      if (!out.positive.empty() && out.positive.back().second == a) out.positive.back().second = b;
      else out.positive.emplace_back(a, b);
      continue;
    }
    if (arb_is_nonpositive(l.get())) continue;
    const double c = a + (b - a) / 2;
    const double floor_width = std::max({std::fabs(a), std::fabs(b), pr.s_min}) * std::ldexp(1.0, -static_cast<int>(prec / 2));
    // Undecidable at this precision even at the midpoint (the inputs' own rounding, e.g. a weight's last place,
    // exceeds |L − ε| there): halving cannot help, bound the interval instead.
    bool point_undecided = false;
    if (b - a < 1e-3 * std::max(std::fabs(c), pr.s_min)) {
      const Ball lc = loss_at(sp, sq, Ball(c), eps, prec);
      point_undecided = !arb_is_positive(lc.get()) && !arb_is_nonpositive(lc.get());
    }
    if (point_undecided || b - a <= floor_width || c <= a || c >= b) {
      // Undecided (a crossing inside): ∫[p − e^ε q]_+ ≤ (b − a)·sup [p − e^ε q]_+, second order in b − a.
      Complex z, d;
      Ball x = interval_ball(a, b, prec);
      acb_set_arb(z.get(), x.get());
      Job job{Integrand::hs, &sp, &sq, Ball(), Ball(), exp_eps, Ball(), &deadline};
      integrand(d.get(), z.get(), &job, 0, prec);
      Ball add;
      arb_nonnegative_part(add.get(), acb_realref(d.get()));
      mul_d(add.get(), add.get(), b - a, prec);
      Ball zero;
      arb_union(add.get(), add.get(), zero.get(), prec);
      arb_add(out.undecided.get(), out.undecided.get(), add.get(), prec);
      continue;
    }
    stack.emplace_back(c, b);  // left half first: runs come out in order
    stack.emplace_back(a, c);
  }
}

// ∫_a^b (p − e^ε q) in closed form (the pieces' CDFs): no quadrature is needed for the hockey-stick.
Ball mass_difference(const Segment& sp, const Segment& sq, double a, double b, const Ball& exp_eps, slong prec) {
  Ball mp, mq;
  for (const Active& x : sp) {
    Ball m = piece_mass(*x.piece, a, b, prec);
    arb_add(mp.get(), mp.get(), m.get(), prec);
  }
  for (const Active& x : sq) {
    Ball m = piece_mass(*x.piece, a, b, prec);
    arb_add(mq.get(), mq.get(), m.get(), prec);
  }
  arb_mul(mq.get(), mq.get(), exp_eps.get(), prec);
  arb_sub(mp.get(), mp.get(), mq.get(), prec);
  arb_nonnegative_part(mp.get(), mp.get());  // the integrand has one sign (≥ 0) wherever this is called
  return mp;
}

Ball hs_region(const Pair& pr, double u, double v, const Ball& eps, const Ball& exp_eps, slong prec, const Deadline& deadline,
               long& evaluations) {
  Ball total;
  for (const auto& [a, b] : segments(pr, u, v)) {
    const Segment sp = active_on(pr.p, a, b), sq = active_on(pr.q, a, b);
    if (sp.empty()) continue;
    if (sq.empty()) {  // q vanishes: all of p counts
      Ball r = mass_difference(sp, sq, a, b, exp_eps, prec);
      arb_add(total.get(), total.get(), r.get(), prec);
      continue;
    }
    Subdivision sub;
    sign_subdivide(pr, sp, sq, a, b, eps, exp_eps, prec, deadline, sub);
    evaluations += sub.evaluations;
    for (const auto* runs : {&sub.positive, &sub.constant})
      for (const auto& [x, y] : *runs) {
        Ball r = mass_difference(sp, sq, x, y, exp_eps, prec);
        arb_add(total.get(), total.get(), r.get(), prec);
      }
    arb_add(total.get(), total.get(), sub.undecided.get(), prec);
  }
  return total;
}

// The tail is negligible against the interior's value (relative goal) or against the interior's own uncertainty
// (then a wider window cannot narrow the result).
bool negligible(const Ball& tail, const Ball& interior, long goal) {
  if (arb_is_zero(tail.get())) return true;
  Ball t;
  arb_mul_2exp_si(t.get(), interior.get(), -goal);
  if (arb_is_positive(interior.get()) && arb_le(tail.get(), t.get())) return true;
  mag_t tail_upper, radius;
  mag_init(tail_upper);
  mag_init(radius);
  arb_get_mag(tail_upper, tail.get());
  mag_mul_2exp_si(radius, arb_radref(interior.get()), -8);
  const bool below_noise = !mag_is_zero(radius) && mag_cmp(tail_upper, radius) <= 0;
  mag_clear(tail_upper);
  mag_clear(radius);
  return below_noise;
}

// The window [A, B] grows by doublings until both tails are negligible against the interior.
template <class Region, class TailFn>
Ball windowed(const Pair& pr, double A, double B, long goal, slong prec, const Deadline& deadline, Region region, TailFn tail,
              bool& infinite) {
  Ball interior = region(A, B);
  Pair mirror;
  mirror.p = mirrored(pr.p);
  mirror.q = mirrored(pr.q);
  for (int k = 0;; ++k) {
    deadline.check();
    const auto right = tail(pr, B), left = tail(mirror, -A);
    if (!right || !left) {  // a tail that certifies +inf
      infinite = true;
      return interior;
    }
    const bool right_ok = negligible(*right, interior, goal), left_ok = negligible(*left, interior, goal);
    if ((right_ok && left_ok) || k == kMaxExpansions) {
      Ball t;
      arb_add(t.get(), right->get(), left->get(), prec);
      Ball zero;
      arb_union(t.get(), t.get(), zero.get(), prec);  // [0, tails]
      arb_add(interior.get(), interior.get(), t.get(), prec);
      return interior;
    }
    const double width = B - A;
    if (!right_ok) {
      Ball add = region(B, B + width);
      arb_add(interior.get(), interior.get(), add.get(), prec);
      B += width;
    }
    if (!left_ok) {
      Ball add = region(A - width, A);
      arb_add(interior.get(), interior.get(), add.get(), prec);
      A -= width;
    }
  }
}

// Initial window: every centre and breakpoint, ten of the widest scales beyond.
std::pair<double, double> window(const Pair& pr, std::initializer_list<double> extra = {}) {
  double lo = pr.lo, hi = pr.hi;
  for (double x : extra)
    if (std::isfinite(x)) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  return {lo - 10 * pr.s_max, hi + 10 * pr.s_max};
}

Certified hockey_stick(const Pair& pr, double eps_d, long goal, slong prec, const Deadline& deadline) {
  Certified out;
  Ball eps(eps_d), exp_eps;
  arb_exp(exp_eps.get(), eps.get(), prec);
  Ball total = atoms_hs(pr, exp_eps, prec);
  if (pr.p.pieces.empty()) {
    out.value = total;
    return out;
  }
  long evaluations = 0;
  auto [A, B] = window(pr);
  bool infinite = false;
  auto region = [&](double u, double v) { return hs_region(pr, u, v, eps, exp_eps, prec, deadline, evaluations); };
  auto tail = [&](const Pair& side, double from) -> std::optional<Ball> {
    // Zero if L − ε is certified negative on the whole tail; else p's mass there.
    const LossSup s = loss_sup_tail(side.p, side.q, from, prec);
    if (s.p_vanishes) return Ball();
    if (s.sup) {
      Ball l;
      arb_sub(l.get(), s.sup->get(), eps.get(), prec);
      if (arb_is_negative(l.get())) return Ball();
    }
    return mass_tail(side.p, from, prec);
  };
  Ball dens = windowed(pr, A, B, goal, prec, deadline, region, tail, infinite);
  arb_add(total.get(), total.get(), dens.get(), prec);
  out.value = total;
  out.detail = fmt::format("{} sign tests", evaluations);
  return out;
}

// C: the log-integrand's largest value over centres, tilted modes and a grid (scales the tolerance only).
double renyi_scale(const sim::Law& p, const sim::Law& q, const Pair& pr, double alpha) {
  std::vector<double> xs;
  for (const Piece& a : pr.p.pieces) xs.push_back(a.m_d);
  for (const Piece& b : pr.q.pieces) xs.push_back(b.m_d);
  const std::size_t np = std::min<std::size_t>(pr.p.pieces.size(), 200), nq = std::min<std::size_t>(pr.q.pieces.size(), 200);
  for (std::size_t i = 0; i < np; ++i)
    for (std::size_t j = 0; j < nq; ++j) xs.push_back(pr.q.pieces[j].m_d + alpha * (pr.p.pieces[i].m_d - pr.q.pieces[j].m_d));
  double C = -kInf;
  for (double x : xs) {
    const double g = alpha * p.log_density(x) + (1 - alpha) * q.log_density(x);
    if (std::isfinite(g)) C = std::max(C, g);
  }
  return std::isfinite(C) ? C : 0.0;
}

// The atoms' part of the Rényi sum, Σ m_p^α m_q^{1−α} (beta = 1 − α); none where an atom of μ has no mass under ν
// (the divergence is +∞).
std::optional<Ball> renyi_atoms(const Pair& pr, const Ball& alpha, const Ball& beta, slong prec) {
  Ball atoms;
  for (const auto& [x, mp] : pr.p.atoms) {
    if (arb_is_zero(mp.get())) continue;
    const auto it = pr.q.atoms.find(x);
    if (it == pr.q.atoms.end() || arb_is_zero(it->second.get())) return std::nullopt;
    Ball t, u;
    arb_log(t.get(), mp.get(), prec);
    arb_mul(t.get(), t.get(), alpha.get(), prec);
    arb_log(u.get(), it->second.get(), prec);
    arb_mul(u.get(), u.get(), beta.get(), prec);
    arb_add(t.get(), t.get(), u.get(), prec);
    arb_exp(t.get(), t.get(), prec);
    arb_add(atoms.get(), atoms.get(), t.get(), prec);
  }
  return atoms;
}

// The window the Rényi integrand's densities are integrated over (windowed): the laws' range and every tilted mode
// m + α(c − m) of a piece of μ at c against one of ν at m, each widened by ten of the widest scale.
std::pair<double, double> renyi_window(const Pair& pr, double alpha_d) {
  std::vector<double> tilted;
  for (const Piece& a : pr.p.pieces)
    for (const Piece& b : pr.q.pieces) {
      tilted.push_back(b.m_d + alpha_d * (a.m_d - b.m_d));
      if (tilted.size() > 4096) break;
    }
  double A = pr.lo - 10 * pr.s_max, B = pr.hi + 10 * pr.s_max;
  for (double t : tilted)
    if (std::isfinite(t)) {
      A = std::min(A, t - 10 * pr.s_max);
      B = std::max(B, t + 10 * pr.s_max);
    }
  return {A, B};
}

Certified renyi(const sim::Law& lp, const sim::Law& lq, const Pair& pr, double alpha_d, long goal, slong prec,
                const Deadline& deadline) {
  Certified out;
  Ball alpha(alpha_d), beta;
  arb_sub_si(beta.get(), alpha.get(), 1, prec);
  arb_neg(beta.get(), beta.get());
  const std::optional<Ball> atom_sum = renyi_atoms(pr, alpha, beta, prec);
  if (!atom_sum) {
    out.infinite = true;  // an atom of μ that ν does not charge
    return out;
  }
  const Ball& atoms = *atom_sum;
  Ball log_s;
  if (pr.p.pieces.empty()) {
    arb_log(log_s.get(), atoms.get(), prec);
  } else {
    const double C = renyi_scale(lp, lq, pr, alpha_d);
    Ball shift(C);
    const auto [A, B] = renyi_window(pr, alpha_d);
    bool p_without_q = false;
    auto region = [&](double u, double v) {
      Ball total;
      for (const auto& [a, b] : segments(pr, u, v)) {
        const Segment sp = active_on(pr.p, a, b), sq = active_on(pr.q, a, b);
        if (sp.empty()) continue;
        if (sq.empty()) {
          p_without_q = true;
          continue;
        }
        Job job{Integrand::renyi, &sp, &sq, alpha, beta, Ball(), shift, &deadline};
        Ball scale(pr.s_min / (1 + alpha_d));
        Ball r = integrate(job, a, b, goal, scale, prec);
        arb_add(total.get(), total.get(), r.get(), prec);
      }
      return total;
    };
    auto tail = [&](const Pair& side, double from) -> std::optional<Ball> {
      const Tail t = renyi_tail(side.p, side.q, alpha, from, prec);
      if (t.kind == Tail::Kind::infinite_divergence) return std::nullopt;
      if (t.kind == Tail::Kind::unbounded)
        throw Refused("the Renyi integrand's tail could not be bounded (the divergence may be infinite)");
      Ball v = t.value, e;
      arb_neg(e.get(), shift.get());
      arb_exp(e.get(), e.get(), prec);
      arb_mul(v.get(), v.get(), e.get(), prec);
      return v;
    };
    bool infinite = false;
    Ball dens = windowed(pr, A, B, goal, prec, deadline, region, tail, infinite);
    if (infinite || p_without_q) {
      out.infinite = true;
      return out;
    }
    // S = e^C (dens + atoms e^{−C})
    Ball e;
    arb_neg(e.get(), shift.get());
    arb_exp(e.get(), e.get(), prec);
    arb_mul(e.get(), e.get(), atoms.get(), prec);
    arb_add(dens.get(), dens.get(), e.get(), prec);
    arb_log(log_s.get(), dens.get(), prec);
    arb_add(log_s.get(), log_s.get(), shift.get(), prec);
  }
  Ball am1;
  arb_sub_si(am1.get(), alpha.get(), 1, prec);
  arb_div(out.value.get(), log_s.get(), am1.get(), prec);
  return out;
}

// log(m_p/m_q) at an atom x of μ with mass m_p; false when ν has no mass there (the divergence is +∞).
bool atom_log_ratio(Ball& out, const Pair& pr, double x, const Ball& mp, slong prec) {
  const auto it = pr.q.atoms.find(x);
  if (it == pr.q.atoms.end() || arb_is_zero(it->second.get())) return false;
  arb_div(out.get(), mp.get(), it->second.get(), prec);
  arb_log(out.get(), out.get(), prec);
  return true;
}

Certified kl(const Pair& pr, long goal, slong prec, const Deadline& deadline) {
  Certified out;
  Ball atoms;  // Σ m_p log(m_p/m_q) − m_p + m_q over the union of atoms (each term ≥ 0)
  for (const auto& [x, mp] : pr.p.atoms) {
    const auto it = pr.q.atoms.find(x);
    if (arb_is_zero(mp.get())) {
      if (it != pr.q.atoms.end()) arb_add(atoms.get(), atoms.get(), it->second.get(), prec);
      continue;
    }
    Ball t;
    if (!atom_log_ratio(t, pr, x, mp, prec)) {
      out.infinite = true;
      return out;
    }
    arb_mul(t.get(), t.get(), mp.get(), prec);
    arb_sub(t.get(), t.get(), mp.get(), prec);
    arb_add(t.get(), t.get(), it->second.get(), prec);
    arb_add(atoms.get(), atoms.get(), t.get(), prec);
  }
  for (const auto& [x, mq] : pr.q.atoms)
    if (!pr.p.atoms.count(x)) arb_add(atoms.get(), atoms.get(), mq.get(), prec);
  if (pr.p.pieces.empty() && pr.q.pieces.empty()) {
    out.value = atoms;
    return out;
  }
  auto [A, B] = window(pr);
  bool p_without_q = false;
  auto region = [&](double u, double v) {
    Ball total;
    for (const auto& [a, b] : segments(pr, u, v)) {
      const Segment sp = active_on(pr.p, a, b), sq = active_on(pr.q, a, b);
      if (sq.empty()) {
        if (!sp.empty()) p_without_q = true;
        continue;
      }
      Job job{Integrand::kl, &sp, &sq, Ball(), Ball(), Ball(), Ball(), &deadline};
      Ball scale(pr.s_min);
      Ball r = integrate(job, a, b, goal, scale, prec);
      arb_add(total.get(), total.get(), r.get(), prec);
    }
    return total;
  };
  auto tail = [&](const Pair& side, double from) -> std::optional<Ball> {
    // p log(p/q) − p + q ≤ p^{1+s} q^{−s}/s + q (log y ≤ y^s/s): a Rényi tail at order 1 + s.
    for (int k = 0; k <= 16; ++k) {
      const double s = std::ldexp(1.0, -k);
      const Tail t = renyi_tail(side.p, side.q, Ball(1 + s), from, prec);
      if (t.kind == Tail::Kind::infinite_divergence && !tail_piece(side.q)) return std::nullopt;
      if (t.kind != Tail::Kind::bounded) continue;
      Ball v;
      div_d(v.get(), t.value.get(), s, prec);
      Ball m = mass_tail(side.q, from, prec);
      arb_add(v.get(), v.get(), m.get(), prec);
      return v;
    }
    throw Refused("the KL integrand's tail could not be bounded");
  };
  bool infinite = false;
  Ball dens = windowed(pr, A, B, goal, prec, deadline, region, tail, infinite);
  if (infinite || p_without_q) {
    out.infinite = true;
    return out;
  }
  arb_add(out.value.get(), dens.get(), atoms.get(), prec);
  return out;
}

namespace {

// The supremum of the privacy loss (R_∞) by branch and bound over boxes of the density pieces: the best point value
// found is a lower end, the largest upper bound of a box still open (or of a tail) an upper end.
class LossSupremum {
 public:
  LossSupremum(const Pair& pr, slong prec, const Deadline& deadline) : pr_(pr), prec_(prec), deadline_(deadline), queue_(by_upper_end) {
    held_.reserve(4096);
  }

  Certified run() {
    for (const auto& [x, mp] : pr_.p.atoms) {
      if (arb_is_zero(mp.get())) continue;
      Ball t;
      if (!atom_log_ratio(t, pr_, x, mp, prec_)) return infinite();
      note_lower(t);
      note_upper(t);
    }
    if (!pr_.p.pieces.empty()) {
      auto [A, B] = window(pr_);
      add_region(A, B);
      if (infinite_ || !extend_tails(A, B)) return infinite();
      const long evaluations = branch_and_bound();
      while (!queue_.empty()) {
        note_upper(queue_.top().ub);
        queue_.pop();
      }
      out_.detail = fmt::format("{} boxes", evaluations);
    }
    return result();
  }

 private:
  struct Box {
    double a, b;
    Ball ub;
    const Segment* p;
    const Segment* q;
  };
  // Ordered by upper end (a ball's radius is kept to 30 bits: the midpoint alone would misorder boxes).
  static bool by_upper_end(const Box& x, const Box& y) {
    arf_t u, v;
    arf_init(u);
    arf_init(v);
    arb_get_ubound_arf(u, x.ub.get(), 64);
    arb_get_ubound_arf(v, y.ub.get(), 64);
    const bool less = arf_cmp(u, v) < 0;
    arf_clear(u);
    arf_clear(v);
    return less;
  }

  Certified infinite() {
    out_.infinite = true;
    return out_;
  }
  void note_upper(const Ball& u) {
    if (!have_upper_) upper_ = u;
    else arb_max(upper_.get(), upper_.get(), u.get(), prec_);
    have_upper_ = true;
  }
  void note_lower(const Ball& l) {
    if (!have_lower_) best_lower_ = l;
    else arb_max(best_lower_.get(), best_lower_.get(), l.get(), prec_);
    have_lower_ = true;
  }

  // The boxes of [u, v], each with its upper bound, and the loss at their ends as lower bounds.
  void add_region(double u, double v) {
    for (const auto& [a, b] : segments(pr_, u, v)) {
      Segment sp = active_on(pr_.p, a, b), sq = active_on(pr_.q, a, b);
      if (sp.empty()) continue;
      if (sq.empty()) {
        infinite_ = true;
        return;
      }
      if (held_.size() == held_.capacity()) throw Refused("too many segments for the supremum search");
      held_.emplace_back(std::move(sp), std::move(sq));
      const auto& h = held_.back();
      queue_.push({a, b, loss_on(h.first, h.second, a, b, zero_, prec_), &h.first, &h.second});
      for (double x : {a, b}) note_lower(loss_at(h.first, h.second, Ball(x), zero_, prec_));
    }
  }

  // Tails beyond the window [A, B]: extend it until their bound falls below the best value found (or give up at the
  // cap, the tails' bounds then counted as upper ends). False when the loss is unbounded.
  bool extend_tails(double A, double B) {
    Pair mirror;
    mirror.p = mirrored(pr_.p);
    mirror.q = mirrored(pr_.q);
    for (int k = 0; k <= kMaxExpansions && !infinite_; ++k) {
      const LossSup r = loss_sup_tail(pr_.p, pr_.q, B, prec_), l = loss_sup_tail(mirror.p, mirror.q, -A, prec_);
      if (r.q_vanishes || l.q_vanishes || r.infinite || l.infinite) return false;
      auto small = [&](const LossSup& s) { return s.p_vanishes || (s.sup && have_lower_ && arb_le(s.sup->get(), best_lower_.get())); };
      if ((small(r) && small(l)) || k == kMaxExpansions) {
        for (const LossSup* s : {&r, &l}) {
          if (s->p_vanishes) continue;
          if (!s->sup) {
            if (pr_.p.pieces.size() == 1 && pr_.q.pieces.size() == 1) return false;  // one piece each: the bound is the loss itself
            throw Refused("the privacy loss could not be bounded above on the tails");
          }
          note_upper(*s->sup);
        }
        break;
      }
      const double width = B - A;
      if (!small(r)) {
        add_region(B, B + width);
        B += width;
      }
      if (!small(l)) {
        add_region(A - width, A);
        A -= width;
      }
    }
    return !infinite_;
  }

  // Split the box with the largest upper bound until it is within 2^-50 of the best value; the subdivisions made.
  long branch_and_bound() {
    long evaluations = 0;
    while (!queue_.empty()) {
      Box top = queue_.top();
      Ball ub, gap, tol;
      arb_get_ubound_arf(arb_midref(ub.get()), top.ub.get(), prec_);
      arb_sub(gap.get(), ub.get(), best_lower_.get(), prec_);
      arb_abs(tol.get(), best_lower_.get());
      arb_add_si(tol.get(), tol.get(), 1, prec_);
      arb_mul_2exp_si(tol.get(), tol.get(), -50);
      const double c = top.a + (top.b - top.a) / 2;
      if (arb_le(gap.get(), tol.get()) || c <= top.a || c >= top.b) break;
      queue_.pop();
      if (++evaluations > kMaxEvaluations)
        throw Refused(fmt::format("the supremum of the privacy loss was not located within {} subdivisions", kMaxEvaluations));
      if (evaluations % 64 == 0) {
        deadline_.spend(63);
        deadline_.check();
      }
      note_lower(loss_at(*top.p, *top.q, Ball(c), zero_, prec_));
      queue_.push({top.a, c, loss_on(*top.p, *top.q, top.a, c, zero_, prec_), top.p, top.q});
      queue_.push({c, top.b, loss_on(*top.p, *top.q, c, top.b, zero_, prec_), top.p, top.q});
    }
    return evaluations;
  }

  // [best lower, max upper]: every point value is ≥ the lower end; the supremum is ≤ every box's upper end.
  Certified result() {
    if (!have_lower_ || !have_upper_) throw Refused("no mass of mu to compare");
    Ball lo, hi;
    arb_get_lbound_arf(arb_midref(lo.get()), best_lower_.get(), prec_);
    arb_get_ubound_arf(arb_midref(hi.get()), upper_.get(), prec_);
    arf_t a, b;
    arf_init(a);
    arf_init(b);
    arf_set(a, arb_midref(lo.get()));
    arf_set(b, arb_midref(hi.get()));
    if (arf_cmp(a, b) > 0) arf_set(b, a);
    arb_set_interval_arf(out_.value.get(), a, b, prec_);
    arf_clear(a);
    arf_clear(b);
    return out_;
  }

  const Pair& pr_;
  slong prec_;
  const Deadline& deadline_;
  Certified out_;
  Ball best_lower_{-kInf}, upper_, zero_;
  bool have_lower_ = false, have_upper_ = false, infinite_ = false;
  std::vector<std::pair<Segment, Segment>> held_;  // the boxes' pieces (reserved: the boxes point into it)
  std::priority_queue<Box, std::vector<Box>, bool (*)(const Box&, const Box&)> queue_;
};

}  // namespace

Certified renyi_inf(const Pair& pr, slong prec, const Deadline& deadline) { return LossSupremum(pr, prec, deadline).run(); }

}  // namespace privamp::verify::certified_detail
