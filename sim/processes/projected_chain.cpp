#include "sim/processes/projected_chain.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <thread>
#include <utility>

#include <Eigen/Core>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/parallel.hpp"
#include "numerics/special.hpp"
#include "sim/formulas/certify.hpp"
#include "sim/formulas/formula.hpp"
#include "sim/laws/spec.hpp"
#include "sim/processes/joint_grid.hpp"

namespace privamp::sim {

IntervalLaw IntervalLaw::point(double x0, double lo, double hi, int intervals) {
  if (!(lo < hi)) invalid_input("interval law: need lo < hi");
  if (intervals < 2 || intervals > 200000) throw_invalid("interval law", "intervals", intervals, "2 <= intervals <= 200000");
  if (!(x0 >= lo && x0 <= hi)) throw_invalid("interval law", "x0", x0, fmt::format("{} <= x0 <= {}", lo, hi));
  return {lo, hi, std::vector<double>(static_cast<std::size_t>(intervals) + 1, 0.0), {{x0, 1.0}}};
}

double IntervalLaw::total_mass() const {
  double m = 0;
  for (std::size_t k = 0; k < density.size(); ++k) m += density[k] * (k == 0 || k + 1 == density.size() ? 0.5 : 1.0);
  m *= h();
  for (const auto& [x, w] : atoms) m += w;
  return m;
}

GridLaw IntervalLaw::to_grid_law() const {
  std::vector<double> at, mass;
  for (const auto& [x, w] : atoms) {
    at.push_back(x);
    mass.push_back(w);
  }
  return GridLaw(lo, h(), density, at, mass);
}

namespace {
double normal_cdf(double z) { return std::exp(log_normal_cdf(z)); }
double normal_sf(double z) { return std::exp(log_normal_cdf(-z)); }
}  // namespace

IntervalLaw propagate(const IntervalLaw& in, double a, double b, double s) {
  check_finite("propagate", "a", a);
  check_finite("propagate", "b", b);
  check_positive_finite("propagate", "s", s);
  const std::size_t nodes = in.density.size();
  const double h = in.h();
  IntervalLaw out{in.lo, in.hi, std::vector<double>(nodes, 0.0), {}};
  const double inv = 1 / (s * std::sqrt(2 * std::numbers::pi));
  // Sources: the atoms and the trapezoid-weighted density nodes, each a mass at a point.
  std::vector<std::pair<double, double>> sources = in.atoms;
  for (std::size_t k = 0; k < nodes; ++k) {
    const double w = in.density[k] * h * (k == 0 || k + 1 == nodes ? 0.5 : 1.0);
    if (w > 0) sources.emplace_back(in.lo + static_cast<double>(k) * h, w);
  }
  double mass_lo = 0, mass_hi = 0;
  for (const auto& [x, w] : sources) {
    const double m = a * x + b;
    for (std::size_t j = 0; j < nodes; ++j) {
      const double z = (in.lo + static_cast<double>(j) * h - m) / s;
      out.density[j] += w * inv * std::exp(-0.5 * z * z);
    }
    mass_lo += w * normal_cdf((in.lo - m) / s);
    mass_hi += w * normal_sf((in.hi - m) / s);
  }
  out.atoms = {{in.lo, mass_lo}, {in.hi, mass_hi}};
  // The trapezoid rule leaves an O(h²) mass defect; renormalise so that the law is a probability law (the defect
  // belongs to the discretisation error that halving h estimates).
  const double total = out.total_mass();
  for (double& d : out.density) d /= total;
  for (auto& [x, w] : out.atoms) w /= total;
  return out;
}

Propagator::Propagator(double lo, double hi, int intervals, double a, double b, double s)
    : Propagator(lo, hi, intervals, [a, b](double x) { return a * x + b; }, s) {}

Propagator::Propagator(double lo, double hi, int intervals, Map psi, double s, Use use)
    : lo_(lo), hi_(hi), s_(s), psi_(std::move(psi)) {
  check_positive_finite("propagate", "s", s);
  if (!(lo < hi)) invalid_input("propagate: need lo < hi");
  const int nodes = intervals + 1;
  const double h = (hi - lo) / intervals;
  means_.resize(nodes);
  to_lo_.resize(nodes);
  to_hi_.resize(nodes);
  for (int k = 0; k < nodes; ++k) {
    const double w = h * (k == 0 || k + 1 == nodes ? 0.5 : 1.0), m = psi_(lo + k * h);
    if (!std::isfinite(m)) invalid_input("propagate: the map is not finite at x = {}", lo + k * h);
    means_[k] = m;
    to_lo_[k] = w * normal_cdf((lo - m) / s);
    to_hi_[k] = w * normal_sf((hi - m) / s);
  }
  if (use == Use::once) return;  // raw() computes each column when it needs it
  // Stored in panels of kPanelRows rows: panel b holds K(b·R + r, k) at (k·R + r), so a block of rows reads its
  // kernel entries in one contiguous sweep. Rows past the last node are 0.
  const auto blocks = static_cast<std::size_t>((nodes + kPanelRows - 1) / kPanelRows);
  kernel_.assign(blocks * static_cast<std::size_t>(nodes) * kPanelRows, 0.0);
  band_.resize(static_cast<std::size_t>(nodes));
  std::vector<double> values(static_cast<std::size_t>(nodes));
  for (int k = 0; k < nodes; ++k) {
    band_[static_cast<std::size_t>(k)] = column(k, values.data());
    for (int j = 0; j < nodes; ++j)
      kernel_[(static_cast<std::size_t>(j / kPanelRows) * nodes + k) * kPanelRows + j % kPanelRows] = values[static_cast<std::size_t>(j)];
  }
}

std::pair<int, int> Propagator::column(int k, double* out) const {
  // A column is a Gaussian sampled at equally spaced nodes: e^{−z_j²/2} with z_j = z_{j−1} + Δ, Δ = h/s, satisfies
  // e_j = e_{j−1}·g_{j−1}, g_j = g_{j−1}·e^{−Δ²}, two products per entry instead of an exponential. The recurrence
  // runs outwards from the node nearest the column's centre (where the values are largest) and restarts from exact
  // exponentials every 32 nodes, so its relative error stays within ~100 ulps; far entries underflow to 0 as exp does.
  const int nodes = static_cast<int>(means_.size());
  const double h = (hi_ - lo_) / (nodes - 1), s = s_, delta = h / s, shrink = std::exp(-delta * delta);
  const double w = h * (k == 0 || k + 1 == nodes ? 0.5 : 1.0), m = means_[k];
  const double scale = w / (s * std::sqrt(2 * std::numbers::pi));
  auto z_at = [&](int j) { return (lo_ + j * h - m) / s; };
  const int centre = static_cast<int>(std::clamp(std::round((m - lo_) / h), 0.0, static_cast<double>(nodes - 1)));
  int first = 0, last = nodes - 1;  // the rows where the column is not 0 (a narrow noise leaves most of it at 0)
  for (int direction : {1, -1}) {
    double e = 0, g = 0;
    for (int j = centre, count = 0; j >= 0 && j < nodes; j += direction, ++count) {
      if (count % 32 == 0 || e == 0) {  // restart exactly (also once the values underflow: they stay 0)
        const double z = z_at(j);
        e = std::exp(-0.5 * z * z);
        g = std::exp(-direction * z * delta - 0.5 * delta * delta);
      } else {
        e *= g;
        g *= shrink;
      }
      out[j] = scale * e;
      if (e == 0 && direction * z_at(j) > 0) {  // beyond: all zero
        for (int r = j; r >= 0 && r < nodes; r += direction) out[r] = 0;
        break;
      }
    }
  }
  while (first < nodes && out[first] == 0) ++first;
  while (last >= first && out[last] == 0) --last;
  return {first, last};
}

IntervalLaw Propagator::operator()(const IntervalLaw& in) const {
  IntervalLaw out = raw(in);
  // The trapezoid rule leaves an O(h²) mass defect; renormalise (the defect is discretisation error).
  const double total = out.total_mass();
  for (double& v : out.density) v /= total;
  for (auto& [x, w] : out.atoms) w /= total;
  return out;
}

namespace {

// o(j, c) += a[c]·k[j] for j in [first, first + length) and each of the m columns of o (column-major, n rows): a
// step whose kernel is computed column by column as it goes. Compiled twice on x86-64 (AVX2 and the baseline),
// chosen when the program starts; AVX2 without FMA does the same roundings as the baseline, so results do not
// depend on the processor.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define PRIVAMP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PRIVAMP_CLONES
#endif
PRIVAMP_CLONES
void band_update(double* __restrict o, Eigen::Index n, Eigen::Index m, const double* __restrict k,
                 const double* __restrict a, Eigen::Index first, Eigen::Index length) {
  for (Eigen::Index c = 0; c < m; ++c) {
    double* __restrict column = o + c * n + first;
    const double* __restrict kernel = k + first;
    const double weight = a[c];
    for (Eigen::Index j = 0; j < length; ++j) column[j] += weight * kernel[j];
  }
}

// Products of at least this many kernel entries × laws are split between two cores when one is free (a thread
// costs tens of microseconds; this much work ~1 ms).
constexpr Eigen::Index kSplitWork = 1 << 20;

// The same product with the kernel stored in panels (Propagator::kPanelRows rows each): o(j, c) = Σ_k K(j, k)·d(k, c)
// over the columns `active` (those where some d(k, ·) ≠ 0), k ascending — the order, and so the roundings, of
// band_update. The M sums of a panel's rows stay in registers while its kernel entries stream past once, instead
// of every column of o being read and written once per k.
template <int M>
PRIVAMP_CLONES void panel_product(double* __restrict o, Eigen::Index n, const double* __restrict kernel,
                                  const double* __restrict d, const int* __restrict active, Eigen::Index count,
                                  const std::pair<int, int>* __restrict band, Eigen::Index from, Eigen::Index to) {
  constexpr Eigen::Index R = Propagator::kPanelRows;
  for (Eigen::Index j0 = from; j0 < to; j0 += R) {
    const double* __restrict panel = kernel + j0 * n;  // (j0 / R)·n·R
    double sum[M][R] = {};
    for (Eigen::Index i = 0; i < count; ++i) {
      const Eigen::Index k = active[i];
      if (band[k].second < j0 || band[k].first >= j0 + R) continue;  // column k is 0 on these rows
      const double* __restrict entries = panel + k * R;
      for (int c = 0; c < M; ++c) {
        const double weight = d[c * n + k];
        for (Eigen::Index r = 0; r < R; ++r) sum[c][r] += weight * entries[r];
      }
    }
    const Eigen::Index rows = std::min(R, n - j0);
    for (int c = 0; c < M; ++c)
      for (Eigen::Index r = 0; r < rows; ++r) o[c * n + j0 + r] = sum[c][r];
  }
}

// o += K d for the kernel stored in panels (Propagator::kPanelRows rows each; non-zero within `band`), up to four laws (columns of d) per
// pass over the kernel (their sums fill the registers); only the columns' non-zero bands are visited.
void banded_product(const std::vector<double>& kernel, const std::vector<std::pair<int, int>>& band, const Eigen::MatrixXd& d,
                    Eigen::MatrixXd& o) {
  const Eigen::Index n = d.rows(), m = d.cols();
  for (Eigen::Index c0 = 0; c0 < m; c0 += 4) {
    const Eigen::Index width = std::min<Eigen::Index>(4, m - c0);
    std::vector<int> active;
    for (Eigen::Index k = 0; k < n; ++k)
      if (!(d.block(k, c0, 1, width).array() == 0).all() && band[static_cast<std::size_t>(k)].first <= band[static_cast<std::size_t>(k)].second)
        active.push_back(static_cast<int>(k));
    const auto count = static_cast<Eigen::Index>(active.size());
    double* out = o.data() + c0 * n;
    const double* in = d.data() + c0 * n;
    auto rows = [&](Eigen::Index from, Eigen::Index to) {
      switch (width) {
        case 1: panel_product<1>(out, n, kernel.data(), in, active.data(), count, band.data(), from, to); break;
        case 2: panel_product<2>(out, n, kernel.data(), in, active.data(), count, band.data(), from, to); break;
        case 3: panel_product<3>(out, n, kernel.data(), in, active.data(), count, band.data(), from, to); break;
        default: panel_product<4>(out, n, kernel.data(), in, active.data(), count, band.data(), from, to); break;
      }
    };
    // A large step splits its panels with a free core (the rows are independent: the same numbers either way).
    const HelperClaim helper(n * count * width >= kSplitWork ? 1 : 0);
    if (helper.granted() > 0) {
      const Eigen::Index middle = (n / 2 / Propagator::kPanelRows) * Propagator::kPanelRows;
      std::thread other([&] { rows(middle, n); });
      rows(0, middle);
      other.join();
    } else {
      rows(0, n);
    }
  }
}

}  // namespace

IntervalLaw Propagator::raw(const IntervalLaw& in) const {
  const IntervalLaw* one[] = {&in};
  return std::move(raw(one).front());
}

std::vector<IntervalLaw> Propagator::raw(std::span<const IntervalLaw* const> in) const {
  throw_if_interrupted();  // every step of every grid process passes here: Ctrl-C stops it between steps
  const auto n = static_cast<Eigen::Index>(means_.size()), m = static_cast<Eigen::Index>(in.size());
  Eigen::MatrixXd d(n, m);
  for (Eigen::Index c = 0; c < m; ++c) {
    const auto& law = *in[static_cast<std::size_t>(c)];
    if (static_cast<Eigen::Index>(law.density.size()) != n)
      invalid_input("propagate: the law's grid does not match the propagator's");
    d.col(c) = Eigen::Map<const Eigen::VectorXd>(law.density.data(), n);
  }
  // Each kernel entry is read from memory once for up to four laws (a step is limited by reading the kernel, so
  // four laws cost little more than one); only the columns' non-zero bands are visited.
  Eigen::MatrixXd o = Eigen::MatrixXd::Zero(n, m);
  if (kernel_.size() == 0) {  // used once: each column computed as it goes
    std::vector<double> scratch(static_cast<std::size_t>(n));
    for (Eigen::Index k = 0; k < n; ++k) {
      if ((d.row(k).array() == 0).all()) continue;
      const auto [first, last] = column(static_cast<int>(k), scratch.data());
      if (last < first) continue;
      const Eigen::RowVectorXd weights = d.row(k);
      band_update(o.data(), n, m, scratch.data(), weights.data(), first, last - first + 1);
    }
  } else {
    banded_product(kernel_, band_, d, o);
  }
  Eigen::RowVectorXd mass_lo(m), mass_hi(m);
  for (Eigen::Index c = 0; c < m; ++c) mass_lo[c] = to_lo_.dot(d.col(c)), mass_hi[c] = to_hi_.dot(d.col(c));
  // Atoms go through the Gaussian exactly; laws on one grid share their atoms' locations (the ends), so each
  // location's column of densities is computed once.
  const double h = (hi_ - lo_) / static_cast<double>(n - 1), inv = 1 / (s_ * std::sqrt(2 * std::numbers::pi));
  struct AtomImage {
    double x;
    Eigen::VectorXd density;
    double to_lo, to_hi;
  };
  std::vector<AtomImage> images;
  auto image = [&](double x) -> const AtomImage& {
    for (const auto& a : images)
      if (a.x == x) return a;
    const double mean = psi_(x);
    AtomImage a{x, Eigen::VectorXd(n), normal_cdf((lo_ - mean) / s_), normal_sf((hi_ - mean) / s_)};
    for (Eigen::Index j = 0; j < n; ++j) {
      const double z = (lo_ + static_cast<double>(j) * h - mean) / s_;
      a.density[j] = inv * std::exp(-0.5 * z * z);
    }
    return images.emplace_back(std::move(a));
  };
  std::vector<IntervalLaw> out;
  out.reserve(in.size());
  for (Eigen::Index c = 0; c < m; ++c) {
    IntervalLaw law{lo_, hi_, std::vector<double>(static_cast<std::size_t>(n)), {}};
    Eigen::Map<Eigen::VectorXd> density(law.density.data(), n);
    density = o.col(c);
    for (const auto& [x, w] : in[static_cast<std::size_t>(c)]->atoms) {
      const AtomImage& a = image(x);
      density += w * a.density;
      mass_lo[c] += w * a.to_lo;
      mass_hi[c] += w * a.to_hi;
    }
    law.atoms = {{lo_, mass_lo[c]}, {hi_, mass_hi[c]}};
    out.push_back(std::move(law));
  }
  return out;
}

namespace {

// a·x + b·y on the nodes and on the atoms (at the same locations; y's atoms are added by location).
IntervalLaw combine(double a, const IntervalLaw& x, double b, const IntervalLaw& y) {
  IntervalLaw out = x;
  for (std::size_t k = 0; k < out.density.size(); ++k) out.density[k] = a * x.density[k] + b * y.density[k];
  for (auto& [at, w] : out.atoms) w *= a;
  for (const auto& [at, w] : y.atoms) {
    auto it = std::find_if(out.atoms.begin(), out.atoms.end(), [&](const auto& e) { return e.first == at; });
    if (it == out.atoms.end()) out.atoms.emplace_back(at, b * w);
    else it->second += b * w;
  }
  return out;
}

}  // namespace

void check_noise_resolved(const char* law, const char* name, double s, double lo, double hi, int intervals) {
  if (intervals < 2 || intervals > 200000) throw_invalid(law, "intervals", intervals, "2 <= intervals <= 200000");
  const double h = (hi - lo) / intervals;
  if (!(s >= h / 2))
    throw_invalid(law, name, s, fmt::format(">= half the grid spacing, {} (raise cells, or the noise)", format_number(h / 2)));
}

IntervalLawPair IntervalLawPair::points(double x_p, double x_q, double lo, double hi, int intervals) {
  IntervalLawPair pair{IntervalLaw::point(x_p, lo, hi, intervals), IntervalLaw::point(x_q, lo, hi, intervals)};
  // d = δ_{x_q} − δ_{x_p}
  pair.d.atoms = x_q == x_p ? std::vector<std::pair<double, double>>{{x_p, 0.0}}
                            : std::vector<std::pair<double, double>>{{x_q, 1.0}, {x_p, -1.0}};
  return pair;
}

namespace {

// The pair after a step from its unnormalised images P = K_p p and D = K_q(p + d) − K_p p: both laws normalised,
//   p' = P/s_P,  q' = (P + D)/(s_P + s_D)  ⇒  d' = q' − p' = (D − p'·s_D)/(s_P + s_D),
// with s_D the (small) mass of D computed from D itself, never as a difference of two masses.
IntervalLawPair normalised_pair(const IntervalLaw& P, const IntervalLaw& D) {
  const double s_p = P.total_mass(), s_d = D.total_mass();
  IntervalLawPair out{combine(1 / s_p, P, 0, P), {}};
  out.d = combine(1 / (s_p + s_d), D, -s_d / (s_p + s_d), out.p);
  // d has zero mass exactly; rounding gives it some, which the contracting steps would keep forever (the mass
  // direction does not contract): remove it.
  out.d = combine(1, out.d, -out.d.total_mass(), out.p);
  return out;
}

}  // namespace

std::array<IntervalLawPair, 2> differing_pairs(const IntervalLaw& p, const Propagator& step_p, const Propagator& step_q) {
  // The difference before the step is 0, so D = K_q p − K_p p: one application of each step.
  const IntervalLaw P = step_p.raw(p), Q = step_q.raw(p);
  return {normalised_pair(P, combine(1, Q, -1, P)), normalised_pair(Q, combine(1, P, -1, Q))};
}

void propagate_pairs(std::span<IntervalLawPair> pairs, const Propagator& step) {
  std::vector<const IntervalLaw*> in;
  for (const auto& pair : pairs) in.insert(in.end(), {&pair.p, &pair.d});
  const auto images = step.raw(in);
  for (std::size_t c = 0; c < pairs.size(); ++c) pairs[c] = normalised_pair(images[2 * c], images[2 * c + 1]);
}

bool GeometricSettling::settled_after(double change) {
  ++step_;
  if (change >= 1e-8) {
    above_at_ = step_, above_ = change, below_at_ = -1;
  } else if (change < 1e-11 && above_at_ > 0 && below_at_ < 0) {
    below_at_ = step_;
    rate_ = std::pow(change / above_, 1.0 / (below_at_ - above_at_));
  }
  return below_at_ > 0 && rate_ < 1 && change * rate_ / (1 - rate_) < kSettled;
}

double relative_change(const IntervalLaw& a, const IntervalLaw& b) {
  double change = 0;
  auto add = [&](double x, double y) {
    if (x != y) change = std::max(change, std::fabs(x - y) / std::max(std::fabs(x), std::fabs(y)));
  };
  for (std::size_t k = 0; k < a.density.size(); ++k) add(a.density[k], b.density[k]);
  for (std::size_t k = 0; k < a.atoms.size() && k < b.atoms.size(); ++k) add(a.atoms[k].second, b.atoms[k].second);
  return change;
}

namespace {

constexpr double kExtrapolationTolerance = 1e-13;

// The decay per step over a window of kWindow steps: the least-squares ratio of d_t to d_{t−W}, its W-th root (W
// odd keeps the sign of an alternating decay). The rounding of one step's ratio (~1e-15) shrinks by W.
constexpr int kWindow = 31;
template <class F>
void each_entry(const IntervalLaw& p, const IntervalLaw& a, const IntervalLaw& b, F&& f) {
  for (std::size_t k = 0; k < p.density.size(); ++k) f(p.density[k], a.density[k], b.density[k]);
  for (std::size_t k = 0; k < p.atoms.size(); ++k) f(p.atoms[k].second, a.atoms[k].second, b.atoms[k].second);
}
double window_rate(const IntervalLaw& p, const IntervalLaw& from, const IntervalLaw& to) {
  double dot = 0, norm = 0;
  each_entry(p, from, to, [&](double, double o, double n) { dot += o * n, norm += o * o; });
  if (!(norm > 0) || dot == 0) return 0;
  const double r = dot / norm;
  return std::copysign(std::pow(std::fabs(r), 1.0 / kWindow), r);
}
// How well d_new = λ·d_old holds: the largest |d_new − λ d_old|/p relative to the largest |d_new|/p (errors of the
// loss log(1 + d/p) relative to its largest value), over the entries where p > 0.
double loss_residual(const IntervalLaw& p, const IntervalLaw& d_old, const IntervalLaw& d_new, double lambda) {
  double largest = 0, residual = 0;
  each_entry(p, d_old, d_new, [&](double w, double o, double n) {
    if (!(w > 1e-300)) return;
    largest = std::max(largest, std::fabs(n) / w);
    residual = std::max(residual, std::fabs(n - lambda * o) / w);
  });
  return largest > 0 ? residual / largest : 1;
}

}  // namespace

void propagate_pairs(std::span<IntervalLawPair> pairs, const Propagator& step, int steps) {
  GeometricSettling settling;
  int j = 0;
  for (; j < steps; ++j) {  // all laws, until every p has settled
    std::vector<IntervalLaw> before;
    for (const auto& pair : pairs) before.push_back(pair.p);
    propagate_pairs(pairs, step);
    double change = 0;
    for (std::size_t c = 0; c < pairs.size(); ++c) change = std::max(change, relative_change(before[c], pairs[c].p));
    if (settling.settled_after(j > 0 ? change : 1.0)) {
      ++j;
      break;
    }
  }
  if (j >= steps) return;
  // The p's are fixed (to kSettled) and so is the step on the differences: d ↦ (K d − p·s_D)/(s_P + s_D), minus
  // its mass, with P = K p computed once.
  std::vector<const IntervalLaw*> ps, ds;
  for (const auto& pair : pairs) ps.push_back(&pair.p), ds.push_back(&pair.d);
  const std::vector<IntervalLaw> images = step.raw(ps);
  std::vector<IntervalLaw> window_start;  // each d at the start of the current window
  for (const auto& pair : pairs) window_start.push_back(pair.d);
  std::vector<double> previous_rate(pairs.size(), 0.0);
  for (int in_window = 1; j < steps; ++j, ++in_window) {
    const std::vector<IntervalLaw> moved = step.raw(ds);
    std::vector<IntervalLaw> last;
    for (std::size_t c = 0; c < pairs.size(); ++c) last.push_back(std::exchange(pairs[c].d, normalised_pair(images[c], moved[c]).d));
    const int remaining = steps - j - 1;
    if (in_window < kWindow || remaining == 0) continue;
    in_window = 0;
    double error = 0;
    std::vector<double> rate(pairs.size());
    for (std::size_t c = 0; c < pairs.size(); ++c) {
      rate[c] = window_rate(pairs[c].p, window_start[c], pairs[c].d);
      const double drift = previous_rate[c] != 0 ? std::fabs(rate[c] - previous_rate[c]) : 1.0;
      error = std::max(error, rate[c] == 0 ? 1.0
                                           : loss_residual(pairs[c].p, last[c], pairs[c].d, rate[c]) +
                                                 remaining * drift / std::fabs(rate[c]));
      window_start[c] = pairs[c].d;
    }
    previous_rate = rate;
    if (error < kExtrapolationTolerance) {
      for (std::size_t c = 0; c < pairs.size(); ++c) {
        pairs[c].d = combine(std::pow(rate[c], remaining), pairs[c].d, 0, pairs[c].d);
        pairs[c].extrapolation_error = error;
      }
      return;
    }
  }
}

Propagator::Map lipschitz_map(const std::string& name, double lipschitz) {
  check_finite("lipschitz_map", "L", lipschitz);
  const double l = lipschitz;
  if (name == "linear") return [l](double x) { return l * x; };
  if (name == "tanh") return [l](double x) { return l * std::tanh(x); };
  if (name == "sin") return [l](double x) { return l * std::sin(x); };
  if (name == "softsign") return [l](double x) { return l * x / (1 + std::fabs(x)); };
  invalid_input("map = '{}': allowed linear, tanh, sin, softsign", name);
}

Propagator::Map ChainMap::psi() const {
  if (formula) return [f = formula](double x) { return (*f)(x); };
  return lipschitz_map(name, lipschitz);
}

Dual<Dual<Enclosure>> map_argument(const Enclosure& x) {
  return {Dual<Enclosure>(x, Enclosure(1.0)), Dual<Enclosure>(Enclosure(1.0), Enclosure(0.0))};
}

MapEnclosure map_enclosure(const Dual<Dual<Enclosure>>& value) { return {value.v.v, value.v.d, value.d.d}; }

namespace {
template <class T>
T named_map(const std::string& name, double l, const T& x) {
  if (name == "linear") return T(l) * x;
  if (name == "tanh") return T(l) * tanh(x);
  if (name == "sin") return T(l) * sin(x);
  if (name == "softsign") return T(l) * x / (T(1.0) + abs(x));
  invalid_input("map = '{}': allowed linear, tanh, sin, softsign", name);
}
}  // namespace

ChainStep ChainMap::step(double s) const {
  using D2 = Dual<Dual<Enclosure>>;
  ChainStep st;
  st.s = s;
  st.id = identity();
  if (formula)
    st.map = [f = formula](const Enclosure& x) {
      const D2 arg = map_argument(x);
      return map_enclosure(f->evaluate<D2>(std::span<const D2>(&arg, 1)));
    };
  else
    st.map = [name = name, l = lipschitz](const Enclosure& x) { return map_enclosure(named_map(name, l, map_argument(x))); };
  return st;
}

std::string ChainMap::identity() const { return formula ? formula->text() : fmt::format("{} {:.17g}", name, lipschitz); }

void ChainMap::check(double lo, double hi) const {
  if (!formula) return;
  const Enclosure box[1] = {{lo, hi}};
  extremum(*formula, 0, 0, box, true);  // InvalidArgument where ψ is not finite
  if (!declared) return;
  const Extremum slope = sup_abs(*formula, 0, 1, box);
  if (lipschitz >= slope.value.hi) return;
  throw_invalid("projected_chain", "L", lipschitz,
                fmt::format(">= sup |psi'| of '{}' over [{}, {}], certified in {}: {}", formula->text(), format_number(lo),
                            format_number(hi), describe(slope, *formula),
                            !slope.unbounded_near.empty() ? std::string("the map is not Lipschitz as written (it jumps there)")
                            : lipschitz < slope.value.lo ? fmt::format("the map is not {}-Lipschitz", format_number(lipschitz))
                                                         : "L is inside the enclosure and cannot be certified"));
}

void check_projected_chain(double x0, int r, double s, double lo, double hi, int intervals) {
  if (r < 1 || r > 100000) throw_invalid("projected_chain", "r", r, "1 <= r <= 100000");
  IntervalLaw::point(x0, lo, hi, intervals);
  check_noise_resolved("projected_chain", "sigma", s, lo, hi, intervals);
}

IntervalLaw projected_chain_law(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi,
                                int intervals) {
  check_projected_chain(x0, r, s, lo, hi, intervals);
  IntervalLaw law = IntervalLaw::point(x0, lo, hi, intervals);
  const Propagator step(lo, hi, intervals, psi, s);
  for (int j = 0; j < r; ++j) law = step(law);
  return law;
}

std::array<IntervalLawPair, 2> projected_chain_pairs(const Propagator::Map& psi, double x0, double x0_q, int r, double s,
                                                    double lo, double hi, int intervals) {
  check_projected_chain(x0, r, s, lo, hi, intervals);
  check_projected_chain(x0_q, r, s, lo, hi, intervals);
  std::array<IntervalLawPair, 2> pairs{IntervalLawPair::points(x0, x0_q, lo, hi, intervals),
                                       IntervalLawPair::points(x0_q, x0, lo, hi, intervals)};
  propagate_pairs(pairs, Propagator(lo, hi, intervals, psi, s), r);
  return pairs;
}

double simulate_projected_chain(const Propagator::Map& psi, double x0, int r, double s, double lo, double hi, Rng& rng) {
  double x = x0;
  for (int j = 0; j < r; ++j) x = std::clamp(psi(x) + s * rng.normal(), lo, hi);
  return x;
}

// ---- The law of the expression language (sim/laws/spec.hpp).

LawSpec projected_chain_law_spec() {
  using K = ParamKind;
  LawSpec spec{"projected_chain", "X_r of X_i = clamp(psi(X_(i-1)) + N(0, sigma^2), lo, hi) from x0, psi an L-Lipschitz map",
    {{"x0", K::number, std::nullopt, "starting point in [lo, hi]"},
    ParamSpec{"r", K::integer, "1", "number of steps, >= 1"}.within(Range::between(1, 100000)),
    {"map", K::formula, "linear", "psi: linear L x | tanh L tanh(x) | sin L sin(x) | softsign L x/(1+|x|) | a formula "
      "in x, e.g. \"0.9*atan(x)\" (its Lipschitz constant: lipschitz(map, lo, hi) in a case file)",
      {"linear", "tanh", "sin", "softsign"}, {"x"}},
    {"L", K::number, "... (1)", "Lipschitz constant of the named maps (default 1); with a formula map, optional: "
      "checked against the certified sup |psi'| over [lo, hi] (refused unless it is at least the enclosure's upper end)"},
    ParamSpec{"sigma", K::number, "1", "noise standard deviation per step, > 0"}.within(Range::positive()),
    {"lo", K::number, "-3", "lower end of the projection interval"},
    {"hi", K::number, "3", "upper end"},
    ParamSpec{"cells", K::integer, "400", "grid cells of the propagated density, 16 <= cells <= 1600 (also computed at 2x and 4x for the error bar)"}.within(Range::between(kMinCells, kMaxGridCells))},
    "projected_chain(x0=1, r=3, map=tanh, L=0.9)",
    [](const Args& a) {
      const int cells = a.cells("cells", kMinCells, kMaxGridCells, 4 * kMaxGridCells, 2, "grid propagation");
      const ChainMap map{a.word("map"), a.has("L") ? a.number("L") : 1.0, a.formula("map"), a.has("L")};
      return projected_chain_process_law(map, a.number("x0"), static_cast<int>(a.integer("r")),
                                        a.number("sigma"), a.number("lo"), a.number("hi"), cells);
    }};
  spec.ties = {{"hi", Tie::Relation::above, "lo"}, {"x0", Tie::Relation::at_least, "lo"}, {"x0", Tie::Relation::at_most, "hi"}};
  spec.check = [](const Args& a) { check_propagation_work("projected_chain", "r", a.integer("r"), a.integer("cells")); };
  return spec;
}
PRIVAMP_LAW(70, projected_chain_law_spec);

}  // namespace privamp::sim
