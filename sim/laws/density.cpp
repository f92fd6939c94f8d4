#include "sim/laws/density.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <fmt/format.h>

#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "numerics/log_integrate.hpp"
#include "numerics/log_space.hpp"
#include "sim/laws/spec.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

namespace {

constexpr double kDrop = 50;      // the window holds the points where f is within 50 of its maximum
constexpr int kSamplerStart = 1024;         // the sampler's first cells over the window
constexpr std::size_t kSamplerCells = 1 << 16;  // at most, after bisection

// The tail of log p beyond X on one side (right = +1, left = −1) from f(X) + f'(X)(x − X) + f''(X)(x − X)²/2.
TailShape tail_at(const Formula& f, double x, int side) {
  const double at[1] = {x};
  const double d1 = derivative(f, at, 0, 1), d2 = derivative(f, at, 0, 2);
  const double quad = std::max(0.0, -d2 / 2);
  const double linear = d1 + 2 * quad * x;  // the coefficient of x once the quadratic part is −quad·x²
  TailShape t{quad, side > 0 ? -linear : linear};
  t.estimated = true;
  // Further out (by |X| + 1 and three times that), the model must predict f itself: a sublinear tail flattens below
  // it, a tail between linear and quadratic or one with an oscillating part (−|x|^1.5, −x²/2 + 0.5 sin 50x, whose
  // curvature read at one point says nothing) leaves it. Where it does not hold, TailShape::unmodelled.
  const double fx = f(x);
  for (const double k : {1.0, 3.0}) {
    const double y = x + side * k * (std::fabs(x) + 1), dy = y - x;
    const double predicted = fx + d1 * dy - quad * dy * dy, actual = f(y);
    if (!(std::fabs(actual - predicted) <= 1e-6 * (std::fabs(actual) + std::fabs(fx)) + 1e-9)) t.unmodelled = true;
    const double at_y[1] = {y};
    const double quad_y = std::max(0.0, -derivative(f, at_y, 0, 2) / 2);
    if (!(std::fabs(quad_y - quad) <= 1e-6 * std::max(quad, quad_y) + 1e-12 * std::fabs(d1))) t.unmodelled = true;
  }
  return t;
}

// Where exp(f) may hold mass that a scan at fixed spacing misses (a component narrower than the spacing, or one far
// beyond where f first decays): branch and bound on the formula's interval enclosure over [from, to]. A piece whose
// enclosure bounds its mass, width·e^{sup f}, below `negligible` (a log) is dropped; one whose enclosure is within
// 1/2 of f at its midpoint holds no hidden peak and is done; the others are bisected. Returns the points where f
// peaks within pieces the scan's spacing could not resolve that `keep(x, f(x))` accepts (their midpoints at the
// finest level reached, highest first, with the width at which each was resolved), or InvalidArgument naming where
// mass could not be bounded within the budget.
template <class Keep>
std::vector<std::pair<double, double>> hidden_peaks(const Formula& f, double from, double to, double spacing, double negligible, int start,
                                                    Keep keep) {
  struct Piece {
    double a, b;
    int depth;
  };
  std::vector<Piece> pending;
  for (int k = 0; k < start; ++k)
    pending.push_back({from + (to - from) * k / start, k == start - 1 ? to : from + (to - from) * (k + 1) / start, 0});
  std::vector<std::tuple<double, double, double>> found;  // (f, x, the width of the piece that resolved it)
  long evaluations = 0;
  constexpr long kBudget = 400000;
  while (!pending.empty()) {
    const Piece p = pending.back();
    pending.pop_back();
    const Enclosure box[1] = {{p.a, p.b}};
    const Enclosure e = f.evaluate<Enclosure>(box);
    const double mid = 0.5 * p.a + 0.5 * p.b, at = f(mid);
    evaluations += 2;
    const double width = p.b - p.a;
    if (e.valid() && e.hi + std::log(width) < negligible) continue;  // at most a negligible mass here
    if (e.valid() && e.hi - at <= 0.5) {                              // f is known within 1/2 over the piece
      if (width < spacing && (p.depth > 0 || std::isinf(spacing))) found.emplace_back(at, mid, width);  // resolved only by refining: finer than the scan
      continue;
    }
    if (width <= 1e-12 * std::max(1.0, std::fabs(mid)) || evaluations > kBudget) {
      if (e.valid() && at > negligible - std::log(width) - 40) {  // a peak at the finest width: its point is known
        found.emplace_back(at, mid, width);
        continue;
      }
      invalid_input("density: the mass of exp(log_pdf '{}') in [{:.6g}, {:.6g}] cannot be bounded (its "
                    "enclosure there reaches {:.6g}, its value at the middle is {:.6g}): give loc and "
                    "scale where the mass is, or lo and hi",
                    f.text(), p.a, p.b, e.hi, at);
    }
    pending.push_back({p.a, mid, p.depth + 1});
    pending.push_back({mid, p.b, p.depth + 1});
  }
  std::sort(found.begin(), found.end(), std::greater<>());
  std::vector<std::pair<double, double>> peaks;  // (x, width)
  for (const auto& [value, x, width] : found) {
    if (peaks.size() >= 32) break;
    if (!keep(x, value)) continue;
    if (std::none_of(peaks.begin(), peaks.end(), [&](const auto& y) { return std::fabs(y.first - x) < spacing; }))
      peaks.emplace_back(x, width);
  }
  return peaks;
}

// Where the log-density is not smooth (a kink of abs/min/max/if, a cusp such as |x|^0.7 whose slope is unbounded):
// pieces of [from, to] whose derivative enclosure is unbounded or holds an undecided switch are bisected down to
// 1e-9 of the spacing; their midpoints are the kinks (at most 64). Quadratures and loss scans split there, so a
// region of the privacy loss next to a cusp is not stepped over.
std::vector<double> kinks_of(const Formula& f, double from, double to, double spacing) {
  std::vector<std::pair<double, double>> pending;
  const int start = 256;
  for (int k = 0; k < start; ++k) pending.emplace_back(from + (to - from) * k / start, k == start - 1 ? to : from + (to - from) * (k + 1) / start);
  std::vector<double> kinks;
  long evaluations = 0;
  while (!pending.empty() && evaluations < 100000 && kinks.size() < 64) {
    const auto [a, b] = pending.back();
    pending.pop_back();
    JoinNotes notes;
    const Dual<Enclosure> x[1] = {Dual<Enclosure>(Enclosure(a, b), Enclosure(1.0))};
    const Dual<Enclosure> r = f.evaluate<Dual<Enclosure>>(x, &notes);
    ++evaluations;
    if (notes.unproven == 0 && r.d.finite()) continue;  // smooth on [a, b]
    if (!r.v.valid() || r.v.hi == -kInf) continue;        // outside the support: no mass to split
    const double mid = 0.5 * a + 0.5 * b;
    if (b - a < 1e-9 * spacing) {
      if (kinks.empty() || std::fabs(kinks.back() - mid) > 1e-6 * spacing) kinks.push_back(mid);
      continue;
    }
    pending.emplace_back(mid, b);
    pending.emplace_back(a, mid);
  }
  return kinks;
}

}  // namespace

FormulaDensity::FormulaDensity(std::shared_ptr<const Formula> log_pdf, double lo, double hi, double loc, double scale)
    : f_(std::move(log_pdf)), lo_(lo), hi_(hi), loc_(loc), scale_(scale) {
  check_arguments();
  const std::vector<double> scan = find_mode();
  find_window(scan);
  find_hidden_peaks(scan);
  kinks_ = kinks_of(*f_, window_lo_, window_hi_, scale_ / 8);
  ladder_.insert(ladder_.end(), kinks_.begin(), kinks_.end());
  normalise();
}

void FormulaDensity::check_arguments() const {
  const char* law = "density";
  const double lo = lo_, hi = hi_, loc = loc_, scale = scale_;
  if (f_->variables().size() != 1) invalid_input("density: log_pdf is a formula in x");
  if (std::isnan(lo) || std::isnan(hi) || !(lo < hi)) throw_invalid(law, "hi", hi, fmt::format("hi > lo = {}", format_number(lo)));
  check_finite(law, "loc", loc);
  check_scale(law, "scale", scale);
  if (!(loc >= lo && loc <= hi)) throw_invalid(law, "loc", loc, fmt::format("lo = {} <= loc <= hi = {}", lo, hi));
  // A support the scan's steps cannot resolve (a search step that underflows never advances): refused before any work.
  if (!(hi - lo >= std::max(1e-300, 1e-12 * scale)))
    throw_invalid(law, "hi", hi, fmt::format("hi - lo >= max(1e-300, 1e-12 * scale) with lo = {}, scale = {} (give a scale near the "
                                             "support's width)", format_number(lo), format_number(scale)));
}

double FormulaDensity::checked(double x) const {
  const double v = (*f_)(x);
  if (std::isnan(v) || v == kInf)
    invalid_input("density: log_pdf '{}' is {} at x = {} (allowed: finite, or -inf where the density "
                  "vanishes)", f_->text(), v, format_number(x));
  return v;
}

// The mode: a scan of ±64 scales around loc (and the ends of a bounded support). Returns the scan's points.
std::vector<double> FormulaDensity::find_mode() {
  max_ = -kInf;
  std::vector<double> scan;
  for (int k = -512; k <= 512; ++k) scan.push_back(loc_ + scale_ * k / 8.0);
  for (double end : {lo_, hi_})
    if (std::isfinite(end)) scan.push_back(end);
  for (double x : scan) {
    if (x < lo_ || x > hi_) continue;
    const double v = checked(x);
    if (v > max_) max_ = v, mode_ = x;
  }
  if (max_ == -kInf)
    invalid_input("density: exp(log_pdf) vanishes at every point scanned within 64 scales of loc = {} "
                  "(give loc and scale where the mass is)", format_number(loc_));
  return scan;
}

// The window and the tails: march out of an unbounded side until f has fallen kDrop below its maximum.
void FormulaDensity::find_window(const std::vector<double>& scan) {
  for (int side : {-1, 1}) {
    const double end = side < 0 ? lo_ : hi_;
    if (std::isfinite(end)) {
      (side < 0 ? window_lo_ : window_hi_) = end;
      (side < 0 ? left_ : right_) = TailShape::none();
      continue;
    }
    double x = mode_;
    bool decayed = false;
    for (int k = 0; k < 64 && !decayed; ++k) {
      x = mode_ + side * scale_ * std::ldexp(1.0, k);
      decayed = checked(x) < max_ - kDrop;
    }
    if (!decayed)
      invalid_input("density: exp(log_pdf) is not normalisable: log_pdf '{}' does not decay towards "
                    "{}inf (it is {} at x = {:.6g}, its maximum {})", f_->text(), side < 0 ? "-" : "+",
                    checked(x), x, max_);
    const TailShape t = tail_at(*f_, x, side);
    if (!(t.quad > 0 || t.lin > 0))
      invalid_input("density: exp(log_pdf) is not normalisable: log_pdf '{}' does not keep decreasing "
                    "towards {}inf (slope {:.3g} at x = {:.6g})", f_->text(), side < 0 ? "-" : "+", t.lin, x);
    (side < 0 ? window_lo_ : window_hi_) = x;
    (side < 0 ? left_ : right_) = t;
  }
  for (double edge : {scan.front(), scan[1024]})  // the scan's ends inside the support: the maximum must not sit there
    if (mode_ == edge && edge > lo_ && edge < hi_)
      invalid_input("density: log_pdf '{}' is largest at x = {}, the end of the scan within 64 scales "
                    "of loc = {} (scale = {}): give loc and scale where the mass is", f_->text(),
                    format_number(edge), format_number(loc_), format_number(scale_));
}

// Mass the scan could miss: a certified search with the formula's enclosure, over the window and dyadic shells
// beyond it out to 2^40 scales (or the support's ends). Peaks found become anchors of every quadrature; one beyond
// the window extends it (and its tail is taken past that peak).
void FormulaDensity::find_hidden_peaks(const std::vector<double>& scan) {
  double scan_mass = 0;  // a Riemann sum over the scan: the scale of the total mass, for what is negligible
  for (double x : scan)
    if (x >= lo_ && x <= hi_) scan_mass += std::exp(checked(x) - max_) * scale_ / 8;
  const double negligible = max_ + std::log(scan_mass) + std::log(1e-16);
  const double reach = std::ldexp(scale_, 40);
  std::vector<std::pair<double, double>> ranges = {{window_lo_, window_hi_}};  // the window first, in 1024 pieces
  for (int side : {-1, 1}) {
    double inner = side < 0 ? window_lo_ : window_hi_;
    const double end = side < 0 ? std::max(lo_, loc_ - reach) : std::min(hi_, loc_ + reach);
    for (double width = std::max(scale_, window_hi_ - window_lo_); side * (end - inner) > 0; width *= 2) {
      const double outer = side < 0 ? std::max(end, inner - width) : std::min(end, inner + width);
      ranges.emplace_back(std::min(inner, outer), std::max(inner, outer));
      inner = outer;
    }
  }
  // A point is a hidden peak if it lies beyond the window with a value the window's mass would notice, or inside
  // it above both neighbouring points of the scan (which did not see it) by more than 1/2.
  const double spacing = scale_ / 8;
  auto keep = [&](double x, double value) {
    if (x < window_lo_ || x > window_hi_) return value >= max_ - kDrop;
    const double left = loc_ + spacing * std::floor((x - loc_) / spacing), right = left + spacing;
    const double seen = std::max(left >= lo_ && left <= hi_ ? checked(left) : -kInf, right >= lo_ && right <= hi_ ? checked(right) : -kInf);
    return value > seen + 0.5 && value >= max_ - kDrop;
  };
  // Beyond the window the scan never looked: every resolved point there is a candidate, whatever its piece's width
  // (a spike of width 0.1 at 300 scales was resolved at the scan's own spacing, taken as seen, and missed).
  for (std::size_t r = 0; r < ranges.size(); ++r)
    for (const auto& [x, width] : hidden_peaks(*f_, ranges[r].first, ranges[r].second, r == 0 ? spacing : kInf, negligible, r == 0 ? 1024 : 16, keep)) {
      peaks_.push_back(x);
      // A ladder around a narrow peak, from the width that resolved it out to the scan's spacing: the quadratures'
      // first pieces then see its shape.
      for (double w = width; w < scale_ / 8; w *= 8)
        for (int side : {-1, 1})
          if (const double y = x + side * w; y > lo_ && y < hi_) ladder_.push_back(y);
    }
  for (double x : peaks_) {
    const double v = checked(x);
    if (v > max_) max_ = v, mode_ = x;
    for (int side : {-1, 1}) {  // a peak beyond the window: the window reaches past it, the tail starts there
      if (side * (x - (side < 0 ? window_lo_ : window_hi_)) <= 0) continue;
      double y = x;
      for (int k = 0; k < 64 && checked(y) >= max_ - kDrop; ++k) y = x + side * scale_ * std::ldexp(1.0, k);
      (side < 0 ? window_lo_ : window_hi_) = y;
      (side < 0 ? left_ : right_) = tail_at(*f_, y, side);
    }
  }
}

// The normaliser by two routes that must agree: adaptive Gauss–Kronrod in log space over the whole support, and
// tanh-sinh on the finite parts, exp-sinh on the infinite ones, of e^{f − max} split at the mode and the peaks.
void FormulaDensity::normalise() {
  LogIntegrateOptions<double> o;
  o.lo = lo_;
  o.hi = hi_;
  o.scale = scale_;
  o.rel_tol = 1e-14;
  const std::function<double(double)> h = [this](double x) { return checked(x); };
  std::vector<double> split = {mode_, loc_};
  split.insert(split.end(), peaks_.begin(), peaks_.end());
  split.insert(split.end(), ladder_.begin(), ladder_.end());
  const LogIntegral<double> z1 = log_integrate<double>(h, split, o);
  if (!z1.converged || !std::isfinite(z1.log_value))
    throw NumericalError(fmt::format("density: the normaliser of exp('{}') did not converge (relative error {:.2g})",
                                     f_->text(), z1.rel_error));
  double z2_error = 0;
  const double z2 = second_normaliser(z2_error);
  const double log_z2 = max_ + std::log(z2);
  const double difference = std::fabs(z1.log_value - log_z2);
  if (!(difference <= std::max(1e-9, 100 * (z1.rel_error + z2_error / z2))))
    throw NumericalError(fmt::format("density: the two quadratures of the normaliser of exp('{}') disagree: log Z = {:.15g} "
                                     "(Gauss-Kronrod) against {:.15g} (tanh-sinh/exp-sinh); give loc, scale (and lo, hi) "
                                     "closer to the law's mass", f_->text(), z1.log_value, log_z2));
  log_z_ = z1.log_value;
  log_z_error_ = std::max(z1.rel_error, difference) + 8 * std::numeric_limits<double>::epsilon() * (std::fabs(log_z_) + 1);
}

// ∫ e^{f − max} by tanh-sinh between the mode, the peaks and the ladder, exp-sinh beyond the outermost point on an
// unbounded side; `error` receives the rules' error estimates.
double FormulaDensity::second_normaliser(double& error) const {
  double z2 = 0;
  auto g = [&](double x) { return std::exp(checked(x) - max_); };
  try {
    std::vector<double> points = {mode_};
    for (double x : peaks_)
      if (x > lo_ && x < hi_) points.push_back(x);
    points.insert(points.end(), ladder_.begin(), ladder_.end());
    std::sort(points.begin(), points.end());
    // Split points closer than 1e-10 of their size merged: tanh-sinh's abscissas on a piece of width 1e-12·|x| (a
    // ladder around a narrow peak far out) round onto its end (an assertion of Boost's, a NaN-free but wasted piece).
    points.erase(std::unique(points.begin(), points.end(),
                             [](double a, double b) { return b - a <= 1e-10 * std::max({1.0, std::fabs(a), std::fabs(b)}); }),
                 points.end());
    // Each finite piece [a, b] as u ↦ g(a + u) on [0, b − a]: Boost's tanh-sinh (1.74) places its left-end abscissas
    // at avg + diff·z where the left end is not near 0, which can round onto the end (its own assertion fails there).
    boost::math::quadrature::tanh_sinh<double> finite_rule;
    auto finite = [&](double a, double b, double& e) {
      double l1 = 0;
      return finite_rule.integrate([&](double u) { return g(a + u); }, 0.0, b - a, 1e-14, &e, &l1);
    };
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      double e = 0;
      z2 += finite(points[i], points[i + 1], e);
      error += e;
    }
    for (int side : {-1, 1}) {
      const double end = side < 0 ? lo_ : hi_, from = side < 0 ? points.front() : points.back();
      double e = 0, l1 = 0;
      if (std::isfinite(end)) {
        if (end == from) continue;
        z2 += finite(std::min(end, from), std::max(end, from), e);
      } else {
        boost::math::quadrature::exp_sinh<double> rule;
        z2 += rule.integrate([&](double t) { return g(from + side * t); }, 0.0, kInf, 1e-14, &e, &l1);
      }
      error += e;
    }
  } catch (const std::domain_error& e) {  // Boost's quadratures report an infinite or NaN integrand this way
    throw NumericalError(fmt::format("density: the second quadrature of the normaliser of exp('{}') failed: {}", f_->text(),
                                     e.what()));
  }
  return z2;
}

// The sampler's envelope (exact draws by rejection, sample_into): cells over the window and over dyadic shells beyond
// it out to the hidden-peak search's reach, each with sup f over it from the formula's interval enclosure. Cells
// where the enclosure leaves f free by more than the others on average are bisected, round by round, until the
// envelope's excess over e^f is at most a quarter of the mass (so at least 4 in 5 proposals are kept) or the cells
// number 2^16; cells whose envelope mass is below e^-46 of the total are dropped (their mass is not sampled). A cell
// the enclosure cannot bound (+inf, NaN) makes sampling a NumericalError naming it, never a guess.
void FormulaDensity::build_sampler() const {
  struct Piece {
    double a, b, lo, hi;  // f's enclosure on [a, b], less max_
    double excess() const { return std::isfinite(hi) ? (b - a) * (std::exp(hi) - std::exp(std::min(lo, hi))) : kInf; }
  };
  auto piece = [&](double a, double b) {
    const Enclosure box[1] = {{a, b}};
    const Enclosure e = f_->evaluate<Enclosure>(box);
    return e.valid() ? Piece{a, b, e.lo - max_, e.hi - max_} : Piece{a, b, -kInf, kInf};
  };
  std::vector<Piece> pieces;
  auto split = [&](double a, double b, int n) {
    for (int k = 0; k < n; ++k) pieces.push_back(piece(a + (b - a) * k / n, k == n - 1 ? b : a + (b - a) * (k + 1) / n));
  };
  split(window_lo_, window_hi_, kSamplerStart);
  const double reach = std::ldexp(scale_, 40);
  for (int side : {-1, 1}) {  // the shells find_hidden_peaks searched, as far as the support goes
    double inner = side < 0 ? window_lo_ : window_hi_;
    const double end = side < 0 ? std::max(lo_, loc_ - reach) : std::min(hi_, loc_ + reach);
    for (double width = std::max(scale_, window_hi_ - window_lo_); side * (end - inner) > 0; width *= 2) {
      const double outer = side < 0 ? std::max(end, inner - width) : std::min(end, inner + width);
      split(std::min(inner, outer), std::max(inner, outer), 16);
      inner = outer;
    }
  }
  const double mass = std::exp(log_z_ - max_);  // ∫ e^{f − max}
  for (int round = 0; round < 64; ++round) {
    double excess = 0;
    for (const Piece& p : pieces) excess += p.excess();
    if (excess <= 0.25 * mass || pieces.size() >= kSamplerCells) break;
    const double above = std::isfinite(excess) ? excess / static_cast<double>(pieces.size()) : 0;
    std::vector<Piece> next;
    for (const Piece& p : pieces) {
      const double mid = 0.5 * p.a + 0.5 * p.b;
      if (p.excess() > above && mid > p.a && mid < p.b && pieces.size() + next.size() < kSamplerCells) {
        next.push_back(piece(p.a, mid));
        next.push_back(piece(mid, p.b));
      } else {
        next.push_back(p);
      }
    }
    pieces.swap(next);
  }
  cells_.clear();
  cell_cdf_.assign(1, 0.0);
  for (const Piece& p : pieces) {
    if (p.hi + std::log(p.b - p.a) < std::log(mass) - 46) continue;  // below e^-46 of the mass
    if (!std::isfinite(p.hi))
      throw NumericalError(fmt::format("density: exp(log_pdf '{}') cannot be bounded on [{:.6g}, {:.6g}] by its interval "
                                       "enclosure, so it cannot be sampled exactly", f_->text(), p.a, p.b));
    cells_.push_back({p.a, p.b - p.a, p.hi});
    cell_cdf_.push_back(cell_cdf_.back() + (p.b - p.a) * std::exp(p.hi));
  }
  for (double& c : cell_cdf_) c /= cell_cdf_.back();
}

std::string FormulaDensity::expression() const {
  std::string out = fmt::format("density(log_pdf=\"{}\"", f_->text());
  if (std::isfinite(lo_)) out += fmt::format(", lo={}", format_number(lo_));
  if (std::isfinite(hi_)) out += fmt::format(", hi={}", format_number(hi_));
  return out + fmt::format(", loc={}, scale={})", format_number(loc_), format_number(scale_));
}

double FormulaDensity::log_density(double x) const {
  if (x < lo_ || x > hi_) return -kInf;
  const double v = (*f_)(x);
  if (std::isnan(v) || v == kInf)
    throw NumericalError(fmt::format("density: log_pdf '{}' is {} at x = {}", f_->text(), v, format_number(x)));
  return v - log_z_;
}

// The formula's interval enclosure over [a, b] ∩ support, less log Z (its error is log_density_error); −inf beyond
// the support, nullopt where the enclosure is not a valid interval.
std::optional<Enclosure> FormulaDensity::range(double a, double b) const {
  a = std::max(a, lo_);
  b = std::min(b, hi_);
  if (a > b) return Enclosure{-kInf, -kInf};
  const Enclosure box[1] = {{a, b}};
  const Enclosure e = f_->evaluate<Enclosure>(box);
  if (!e.valid() || e.hi == kInf) return std::nullopt;
  return Enclosure{std::nextafter(e.lo - log_z_, -kInf), std::nextafter(e.hi - log_z_, kInf)};
}

std::vector<double> FormulaDensity::breakpoints() const {
  std::vector<double> out = kinks_;
  for (double end : {lo_, hi_})
    if (std::isfinite(end)) out.push_back(end);
  return out;
}

std::vector<double> FormulaDensity::anchors() const {
  std::vector<double> out = {mode_, loc_};
  out.insert(out.end(), peaks_.begin(), peaks_.end());
  for (double b : breakpoints()) out.push_back(b);
  return out;
}

// Exact draws: a cell by its envelope mass, a point uniformly in it, kept with probability e^{f(x) − sup f on the cell}.
void FormulaDensity::sample_into(Rng& rng, std::span<double> out) const {
  std::call_once(sampler_built_, [this] { build_sampler(); });
  for (double& v : out) {
    for (long tries = 0;; ++tries) {
      if (tries == 100000)
        throw NumericalError(fmt::format("density: 100000 proposals for one sample of exp(log_pdf '{}') were all rejected "
                                         "(its interval enclosure is too loose to sample from)", f_->text()));
      const auto it = std::upper_bound(cell_cdf_.begin() + 1, cell_cdf_.end() - 1, rng.uniform());
      const Cell& cell = cells_[static_cast<std::size_t>(it - cell_cdf_.begin() - 1)];
      const double x = cell.a + cell.width * rng.uniform();
      if (std::log(rng.uniform()) <= checked(x) - max_ - cell.log_sup) {
        v = x;
        break;
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------------------------

namespace {

// The tail of X + Y on one side from the tails of X and Y (log p ~ −quad x² − lin|x|): Gaussian parts combine as
// variances add (quad = q1 q2/(q1 + q2), and their linear parts as the means do); an exponential tail (quad = 0)
// dominates a Gaussian one, the heavier of two exponential ones dominates; a bounded law only shifts the other.
TailShape combine(const TailShape& a, const TailShape& b, double shift_a, double shift_b) {
  if (a.bounded() && b.bounded()) return TailShape::none();
  if (a.bounded()) return {b.quad, b.lin - 2 * b.quad * shift_a};
  if (b.bounded()) return {a.quad, a.lin - 2 * a.quad * shift_b};
  if (a.quad == 0 && b.quad == 0) return {0, std::min(a.lin, b.lin)};
  if (a.quad == 0) return a;
  if (b.quad == 0) return b;
  const double q = a.quad * b.quad / (a.quad + b.quad);
  return {q, q * (a.lin / a.quad + b.lin / b.quad)};
}

double max_atom(const Law& l, int side) {
  const auto atoms = l.atoms();
  if (atoms.empty()) return 0;
  return side > 0 ? atoms.back().x : atoms.front().x;
}

}  // namespace

Convolution::Convolution(LawPtr a, LawPtr b) : a_(std::move(a)), b_(std::move(b)) {
  if (a_->dimension() != 1 || b_->dimension() != 1) invalid_input("convolve: one-dimensional laws only");
  refuse_lumped(*a_, "convolve");
  refuse_lumped(*b_, "convolve");
  const auto aa = a_->atoms(), ba = b_->atoms();
  if (aa.size() * ba.size() > kMaxAtoms)
    invalid_input("convolve: {} x {} pairs of atoms; at most {}", aa.size(), ba.size(), kMaxAtoms);
  std::vector<Atom> pairs;
  for (const Atom& x : aa)
    for (const Atom& y : ba) pairs.push_back({x.x + y.x, x.log_mass + y.log_mass});
  std::sort(pairs.begin(), pairs.end(), [](const Atom& u, const Atom& v) { return u.x < v.x; });
  for (const Atom& p : pairs) {
    if (!atoms_.empty() && atoms_.back().x == p.x) atoms_.back().log_mass = log_add(atoms_.back().log_mass, p.log_mass);
    else atoms_.push_back(p);
  }
  const Shape shape_a = a_->shape(), shape_b = b_->shape();
  const double ca = shape_a.continuous_mass, cb = shape_b.continuous_mass;
  a_density_ = ca > 0;
  b_density_ = cb > 0;
  continuous_mass_ = 1 - (1 - ca) * (1 - cb);
  // The inner integral splits at every breakpoint of either operand, a 21-point Gauss-Kronrod panel at least per
  // piece: a law on a grid of 400 cells costs 8,400 evaluations per point, not 400.
  const double pieces = ca > 0 && cb > 0 ? static_cast<double>(a_->breakpoints().size() + b_->breakpoints().size() + 1) : 0;
  cost_ = (ca > 0 && cb > 0 ? std::max(kInnerEvaluations, 21 * pieces) : 1.0) *
              (a_->computation().density_cost + b_->computation().density_cost) +
          static_cast<double>(aa.size() + ba.size());
  if (cost_ <= kMaxDensityCost && ca > 0 && cb > 0) {  // the declared error of the inner integrals
    double worst = 0;
    std::vector<double> bases = anchors();
    if (bases.size() > 64) {  // (a law on a grid has an anchor per cell: 64 of them, evenly spread, are probed)
      std::vector<double> spread;
      for (std::size_t k = 0; k < 64; ++k) spread.push_back(bases[k * (bases.size() - 1) / 63]);
      bases = std::move(spread);
    }
    for (double base : bases)
      for (double k : {0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0})
        for (int side : {-1, 1})
          if (const auto r = inner(base + side * k * scale())) worst = std::max(worst, r->second);
    inner_error_ = 10 * worst;
  }
  if (cost_ > kMaxDensityCost)
    invalid_input("convolve: each density evaluation of this law would take about {:.2g} evaluations of "
                  "its parts (an integral over {:.0f} pieces of its operands' densities, and nested "
                  "convolutions integrate inside integrals); the limit is {:.0e}: convolve at most two "
                  "laws with densities and few pieces (a law on a grid has one per cell), or use "
                  "laplace_nfold, laplace_sum or a Gaussian for sums of many",
                  cost_, std::max(pieces, 1.0), kMaxDensityCost);
  // Support of the continuous part: density ⊗ density, density ⊗ atoms, atoms ⊗ density.
  support_ = {kInf, -kInf};
  auto cover = [&](double l, double h) {
    support_.lo = std::min(support_.lo, l);
    support_.hi = std::max(support_.hi, h);
  };
  const Interval sa = shape_a.support, sb = shape_b.support;
  if (ca > 0 && cb > 0) cover(sa.lo + sb.lo, sa.hi + sb.hi);
  if (ca > 0 && !ba.empty()) cover(sa.lo + ba.front().x, sa.hi + ba.back().x);
  if (cb > 0 && !aa.empty()) cover(sb.lo + aa.front().x, sb.hi + aa.back().x);
  if (continuous_mass_ == 0) support_ = {};
  // Tails: a law without density counts as bounded by its extreme atoms.
  const TailShape la = ca > 0 ? shape_a.left : TailShape::none(), lb = cb > 0 ? shape_b.left : TailShape::none();
  const TailShape ra = ca > 0 ? shape_a.right : TailShape::none(), rb = cb > 0 ? shape_b.right : TailShape::none();
  left_ = combine(la, lb, max_atom(*a_, -1), max_atom(*b_, -1));
  right_ = combine(ra, rb, max_atom(*a_, 1), max_atom(*b_, 1));
}

std::string Convolution::expression() const { return fmt::format("convolve({}, {})", a_->expression(), b_->expression()); }

std::optional<std::pair<double, double>> Convolution::inner(double z) const {
  const Shape a = a_->shape(), b = b_->shape();
  LogIntegrateOptions<double> o;
  o.lo = std::max(a.support.lo, z - b.support.hi);
  o.hi = std::min(a.support.hi, z - b.support.lo);
  if (!(o.lo < o.hi)) return std::nullopt;
  o.scale = std::min(a.scale, b.scale);
  o.rel_tol = 1e-14;
  std::vector<double> anchors;
  for (double x : a_->anchors()) anchors.push_back(x);
  for (double y : b_->anchors()) anchors.push_back(z - y);
  for (double x : a_->breakpoints()) anchors.push_back(x);
  for (double y : b_->breakpoints()) anchors.push_back(z - y);
  std::erase_if(anchors, [&](double x) { return !(x >= o.lo && x <= o.hi); });
  if (anchors.empty()) anchors.push_back(std::isfinite(o.lo) ? (std::isfinite(o.hi) ? 0.5 * (o.lo + o.hi) : o.lo) : o.hi);
  const std::function<double(double)> h = [this, z](double x) { return a_->log_density(x) + b_->log_density(z - x); };
  const LogIntegral<double> r = log_integrate<double>(h, anchors, o);
  if (!r.converged)
    throw NumericalError(fmt::format("convolve: the integral for the density at {} did not converge (relative error {:.2g})",
                                     format_number(z), r.rel_error));
  return std::make_pair(r.log_value, r.rel_error);
}

double Convolution::log_density(double z) const {
  std::vector<double> terms;
  const bool da = a_density_, db = b_density_;
  if (da && db)
    if (const auto r = inner(z)) {
      const double allowed = inner_error_ + 64 * std::numeric_limits<double>::epsilon() * (std::fabs(r->first) + 1);
      if (r->second > allowed)
        throw NumericalError(fmt::format("convolve: the integral for the density at {} has a relative error {:.2g} above "
                                         "the {:.2g} declared for this law (probed around its mass)", format_number(z),
                                         r->second, inner_error_));
      terms.push_back(r->first);
    }
  if (da)
    for (const Atom& y : b_->atoms()) terms.push_back(y.log_mass + a_->log_density(z - y.x));
  if (db)
    for (const Atom& x : a_->atoms()) terms.push_back(x.log_mass + b_->log_density(z - x.x));
  if (terms.empty()) return -kInf;
  return log_sum_exp<double>(std::span<const double>(terms));
}

std::vector<double> Convolution::breakpoints() const {
  std::vector<double> out;
  for (const Atom& x : a_->atoms())
    for (double k : b_->breakpoints()) out.push_back(x.x + k);
  for (const Atom& y : b_->atoms())
    for (double k : a_->breakpoints()) out.push_back(y.x + k);
  for (double end : {support_.lo, support_.hi})
    if (std::isfinite(end)) out.push_back(end);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<double> Convolution::anchors() const {
  std::vector<double> out;
  const double la = a_->location(), lb = b_->location();
  out.push_back(la + lb);
  for (double x : a_->anchors()) out.push_back(x + lb);
  for (double y : b_->anchors()) out.push_back(la + y);
  for (double k : breakpoints()) out.push_back(k);
  return out;
}

Shape Convolution::shape() const {
  const Shape a = a_->shape(), b = b_->shape();
  return {.continuous_mass = continuous_mass_, .support = support_, .location = a.location + b.location,
          .scale = std::hypot(a.scale, b.scale), .left = left_, .right = right_};
}

Moments Convolution::moments() const {
  const Moments x = a_->moments(), y = b_->moments();
  Moments out;
  if (x.mean && y.mean) out.mean = *x.mean + *y.mean;
  if (x.variance && y.variance) out.variance = *x.variance + *y.variance;
  return out;
}

void Convolution::sample_into(Rng& rng, std::span<double> out) const {
  for (double& v : out) {
    const double x = a_->sample(rng);  // a's draw, then b's: one order, whatever the compiler
    v = x + b_->sample(rng);
  }
}

Computation Convolution::computation() const {
  const Computation a = a_->computation(), b = b_->computation();
  Computation c;
  c.log_density_error = inner_error_ + a.log_density_error + b.log_density_error;
  c.density_cost = cost_;
  c.sample_cost = a.sample_cost + b.sample_cost;
  return c;
}

// ---- The laws of the expression language (sim/laws/spec.hpp).

LawSpec density_law_spec() {
  using K = ParamKind;
  LawSpec spec{"density", "a continuous law from its log-density written as a formula: exp(log_pdf(x))/Z on [lo, hi]",
    {{"log_pdf", K::formula, std::nullopt, "the log-density up to a constant, a formula in x, e.g. \"-abs(x)^1.5\" "
      "(Z by two quadratures whose agreement is checked; its error is in every interval)", {}, {"x"}},
    {"lo", K::number, "... (unbounded)", "lower end of the support; absent: unbounded below (log_pdf must decay)"},
    {"hi", K::number, "... (unbounded)", "upper end of the support; absent: unbounded above"},
    {"loc", K::number, "... (0, or the middle of [lo, hi])", "where the mass is: the scan for the mode starts here"},
    ParamSpec{"scale", K::number, "1", "the law's width (step of the scan)"}.within(Range::scale())},
    "density(log_pdf=\"-abs(x)^1.5\")",
    [](const Args& a) {
      const double lo = a.has("lo") ? a.number("lo") : -std::numeric_limits<double>::infinity();
      const double hi = a.has("hi") ? a.number("hi") : std::numeric_limits<double>::infinity();
      double loc = 0;
      if (a.has("loc")) loc = a.number("loc");
      else if (!(loc >= lo && loc <= hi)) loc = std::isfinite(lo) && std::isfinite(hi) ? 0.5 * lo + 0.5 * hi :  // (lo + hi overflows near 1.8e308)
                                                                                std::isfinite(lo) ? lo : hi;
      const auto f = a.formula("log_pdf");
      if (!f) invalid_input("density: log_pdf must be a formula in x");
      return std::make_shared<FormulaDensity>(f, lo, hi, loc, a.number("scale"));
    }};
  spec.ties = {{"hi", Tie::Relation::above, "lo"}, {"loc", Tie::Relation::at_least, "lo"}, {"loc", Tie::Relation::at_most, "hi"}};
  return spec;
}
PRIVAMP_LAW(150, density_law_spec);

LawSpec convolve_law_spec() {
  using K = ParamKind;
  return {"convolve", "the law of X + Y for independent X ~ a and Y ~ b (any two one-dimensional laws)",
    {{"a", K::law, std::nullopt, "the law of X"}, {"b", K::law, std::nullopt, "the law of Y"}},
    "convolve(laplace(0, 1), gaussian(0, 0.5))",
    [](const Args& a) { return std::make_shared<Convolution>(a.law("a"), a.law("b")); }};
}
PRIVAMP_LAW(160, convolve_law_spec);

}  // namespace privamp::sim
