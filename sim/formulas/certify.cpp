#include "sim/formulas/certify.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"

namespace privamp::sim {

namespace {

// g = the order-th derivative of f in variable `var`, enclosed over a box; `notes` counts the switches whose
// continuity this box could not decide.
Enclosure derivative_enclosure(const Formula& f, std::size_t var, int order, std::span<const Enclosure> box, JoinNotes* notes) {
  if (order == 0) return f.evaluate<Enclosure>(box);
  // A derivative is bounded only where the function and the lower derivatives are finite: NaN where one is not a
  // number (outside the domain), unbounded where one is unbounded (a jump in the box).
  const auto checked = [](const Enclosure& g, std::initializer_list<Enclosure> lower) {
    for (const Enclosure& e : lower)
      if (!e.valid()) return Enclosure::nan();
    for (const Enclosure& e : lower)
      if (!e.finite()) return Enclosure(-INFINITY, INFINITY);
    return g;
  };
  if (order == 1) {
    std::vector<Dual<Enclosure>> x;
    for (std::size_t i = 0; i < box.size(); ++i) x.emplace_back(box[i], Enclosure(i == var ? 1.0 : 0.0));
    const Dual<Enclosure> r = f.evaluate<Dual<Enclosure>>(x, notes);
    return checked(r.d, {r.v});
  }
  std::vector<Dual<Dual<Enclosure>>> x;
  for (std::size_t i = 0; i < box.size(); ++i) {
    const double s = i == var ? 1.0 : 0.0;
    x.emplace_back(Dual<Enclosure>(box[i], Enclosure(s)), Dual<Enclosure>(Enclosure(s), Enclosure(0.0)));
  }
  const Dual<Dual<Enclosure>> r = f.evaluate<Dual<Dual<Enclosure>>>(x, notes);
  return checked(r.d.d, {r.v.v, r.v.d});
}

std::string where(const Formula& f, std::span<const Enclosure> box) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < box.size(); ++i)
    parts.push_back(box[i].is_point() ? fmt::format("{} = {:.6g}", f.variables()[i], box[i].lo)
                                      : fmt::format("{} in [{:.6g}, {:.6g}]", f.variables()[i], box[i].lo, box[i].hi));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string what(const Formula& f, std::size_t var, int order) {
  if (order == 0) return fmt::format("'{}'", f.text());
  return fmt::format("the {} derivative in {} of '{}'", order == 1 ? "first" : "second", f.variables()[var], f.text());
}

struct Piece {
  double outer;  // upper end of (±) g over the piece
  std::vector<Enclosure> box;
  bool unproven = false;  // holds a switch whose continuity the piece's enclosures could not decide
  bool operator<(const Piece& o) const { return outer < o.outer; }
};

// Branch and bound for the extremum of g (the formula or one of its derivatives) over a box: pieces ordered by their
// outer bound, bisected along their widest variable; the midpoints' values are inner bounds.
class ExtremumSearch {
 public:
  ExtremumSearch(const Formula& f, std::size_t var, int order, std::span<const Enclosure> box, bool upper)
      : f_(f), var_(var), order_(order), box_(box), upper_(upper) {}

  Extremum run(const CertifyOptions& options) {
    // The budget in evaluations, scaled down for long formulas (about 4·10^6 operations: a second at most); the
    // enclosure stays rigorous, only wider.
    const long budget = std::min<long>(options.max_evaluations,
                                       std::max<long>(4096, static_cast<long>(4e6 / static_cast<double>(std::max<std::size_t>(f_.operations(), 1)))));
    for (auto& b : start()) {
      at_point(b);
      place(over(std::move(b)));
    }
    // Pieces holding an undecided switch are refined first, down to the floor, so that a jump of the function (or of
    // a lower derivative) shows as disjoint branches (and an unbounded g) rather than hiding in a hull; half the
    // budget at most goes to them (in one variable a switch costs about 80 evaluations; along a curve in two,
    // pieces multiply).
    while (!pending_.empty() && result_.evaluations < budget / 2) {
      const Piece p = std::move(pending_.back());
      pending_.pop_back();
      bisect(p);
    }
    result_.unresolved_switches = static_cast<long>(pending_.size());
    for (auto& p : pending_) pieces_.push(std::move(p));
    for (;;) {
      const Piece& top = pieces_.top();
      const double gap = top.outer - inner_;
      if (gap <= options.tolerance * std::max(1.0, std::fabs(inner_)) || result_.evaluations >= budget) break;
      if (widest_of(top).second < kFloor) break;  // as small as a piece gets: what remains unbounded is unbounded
      const Piece p = top;
      pieces_.pop();
      bisect(p);
    }
    return finish();
  }

 private:
  static constexpr double kFloor = 1e-12;  // as small as a piece gets, relative to the box

  // sign·g at the midpoint of a piece: its enclosure's lower end is reached by g there. A point where g is
  // unbounded (a jump at the point) gives no inner value; one where it is not a number is outside the formula's
  // domain.
  void at_point(const std::vector<Enclosure>& b) {
    std::vector<Enclosure> mid;
    for (const Enclosure& e : b) mid.emplace_back(e.mid());
    const Enclosure g = derivative_enclosure(f_, var_, order_, mid, nullptr);
    ++result_.evaluations;
    if (!g.valid() || (order_ == 0 && !g.finite()))
      invalid_input("{} is not finite at {}", what(f_, var_, order_), where(f_, mid));
    if (!g.finite()) return;
    const double v = upper_ ? g.lo : -g.hi;
    if (v > inner_) {
      inner_ = v;
      result_.at.clear();
      for (const Enclosure& e : mid) result_.at.push_back(e.lo);
    }
  }
  Piece over(std::vector<Enclosure> b) {
    JoinNotes notes;
    const Enclosure g = derivative_enclosure(f_, var_, order_, b, &notes);
    ++result_.evaluations;
    const double outer = !g.valid() ? INFINITY : upper_ ? g.hi : -g.lo;
    return Piece{outer, std::move(b), order_ > 0 && notes.unproven > 0};
  }
  // The variable a piece is bisected along (the widest relative to its range in the box), and how wide it is.
  std::pair<std::size_t, double> widest_of(const Piece& p) const {
    std::size_t split = 0;
    double widest = -1;
    for (std::size_t i = 0; i < box_.size(); ++i) {
      const double w = box_[i].is_point() ? 0 : p.box[i].width() / box_[i].width();
      if (w > widest) widest = w, split = i;
    }
    return {split, widest};
  }
  // 64 pieces along each variable with width (at most 4096 in all).
  std::vector<std::vector<Enclosure>> start() const {
    std::vector<std::vector<Enclosure>> pieces{std::vector<Enclosure>(box_.begin(), box_.end())};
    const int wide = static_cast<int>(std::count_if(box_.begin(), box_.end(), [](const Enclosure& e) { return !e.is_point(); }));
    const int per = wide <= 1 ? 64 : wide == 2 ? 16 : 4;
    for (std::size_t i = 0; i < box_.size(); ++i) {
      if (box_[i].is_point()) continue;
      std::vector<std::vector<Enclosure>> next;
      for (const auto& b : pieces)
        for (int k = 0; k < per; ++k) {
          auto c = b;
          const double w = box_[i].width();
          c[i] = {k == 0 ? box_[i].lo : box_[i].lo + w * k / per, k == per - 1 ? box_[i].hi : box_[i].lo + w * (k + 1) / per};
          next.push_back(std::move(c));
        }
      pieces = std::move(next);
    }
    return pieces;
  }
  void place(Piece p) {
    if (p.unproven && widest_of(p).second >= kFloor) pending_.push_back(std::move(p));
    else pieces_.push(std::move(p));
  }
  void bisect(const Piece& p) {
    const auto [split, widest] = widest_of(p);
    const double m = p.box[split].mid();
    auto left = p.box, right = p.box;
    left[split].hi = m;
    right[split].lo = m;
    at_point(left);
    at_point(right);
    place(over(std::move(left)));
    place(over(std::move(right)));
  }
  Extremum finish() {
    const Piece& top = pieces_.top();
    if (!std::isfinite(top.outer)) {
      // Unbounded near this piece: sound as a bound (sup g <= +inf), and the truth where the function is finite
      // there (a jump or a kink leaves its derivative unbounded). Where the function itself is not finite, it is
      // refused.
      const Enclosure value = f_.evaluate<Enclosure>(top.box);
      if (!value.finite())
        invalid_input("{} is not finite (or not bounded) near {}", what(f_, 0, 0), where(f_, top.box));
      result_.unbounded_near = where(f_, top.box);
    }
    const double outer = top.outer;
    result_.value = upper_ ? Enclosure(inner_, outer) : Enclosure(-outer, -inner_);
    return result_;
  }

  const Formula& f_;
  std::size_t var_;
  int order_;
  std::span<const Enclosure> box_;
  bool upper_;
  Extremum result_;
  double inner_ = -INFINITY;  // of sign·g: a value g reaches
  std::priority_queue<Piece> pieces_;
  std::vector<Piece> pending_;
};

}  // namespace

Extremum extremum(const Formula& f, std::size_t var, int order, std::span<const Enclosure> box, bool upper,
                  const CertifyOptions& options) {
  if (box.size() != f.variables().size())
    invalid_input("formula '{}': a box of {} ranges for {} variables", f.text(), box.size(), f.variables().size());
  for (const Enclosure& b : box)
    if (!b.finite() || !(b.lo <= b.hi)) invalid_input("formula '{}': a range must be finite and ordered", f.text());
  return ExtremumSearch(f, var, order, box, upper).run(options);
}


Extremum sup_abs(const Formula& f, std::size_t var, int order, std::span<const Enclosure> box, const CertifyOptions& options) {
  const Extremum hi = extremum(f, var, order, box, true, options), lo = extremum(f, var, order, box, false, options);
  Extremum r = hi.value.lo >= -lo.value.hi ? hi : lo;
  r.value = {std::max(hi.value.lo, -lo.value.hi), std::max(hi.value.hi, -lo.value.lo)};
  r.evaluations = hi.evaluations + lo.evaluations;
  return r;
}

std::string describe(const Extremum& e, const Formula& f) {
  std::vector<std::string> at;
  for (std::size_t i = 0; i < e.at.size() && i < f.variables().size(); ++i)
    at.push_back(fmt::format("{} = {:.6g}", f.variables()[i], e.at[i]));
  if (!e.unbounded_near.empty())
    return fmt::format("[{:.10g}, {:.10g}] (unbounded near {}: the function or a lower derivative jumps or kinks there)", e.value.lo,
                       e.value.hi, e.unbounded_near);
  return fmt::format("[{:.10g}, {:.10g}] (reached at {})", e.value.lo, e.value.hi, fmt::join(at, ", "));
}

LossConstants loss_constants(const Formula& loss, double lo, double hi, double zlo, double zhi, const CertifyOptions& options) {
  const Enclosure box[2] = {{lo, hi}, {zlo, zhi}};
  return {sup_abs(loss, 0, 1, box, options), sup_abs(loss, 0, 2, box, options), extremum(loss, 0, 2, box, false, options)};
}

}  // namespace privamp::sim
