#include "numerics/constants.hpp"
#include "verify/divergence/contour.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include <boost/math/quadrature/gauss.hpp>
#include <fmt/format.h>

#include "numerics/cache.hpp"
#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "verify/divergence/work.hpp"
#include "numerics/log_space.hpp"
#include "verify/divergence/phasors.hpp"

namespace privamp::verify {

// (A named namespace, not an anonymous one: ContourIntegral::Engine, a member of a class with linkage, derives from
// ContourEngine.)
namespace contour_detail {

// ---------------------------------------------------------------------------------------------------------------
// Densities: the contour integral (the formula and its error bar: composition.hpp).

using Gauss = boost::math::quadrature::gauss<double, 20>;
// The phase t·L may move by up to kPanelPhase radians over a panel of 20 Gauss nodes for t ≤ t_max (the fine
// quadrature halves the panels): Gauss–Legendre's error on e^{iωx} over [−1, 1] (ω = 4) is 2^41 (20!)^4 ω^40 /
// (41 (40!)^3), about 4e-36, so the tilted density's own variation sets the panels' error, and the coarse against
// the fine quadrature measures it. (At 2 radians the line cost 2.4 times as much for the same values.)
inline constexpr double kPanelPhase = 8;

// The tilted law of one release's loss at abscissa c: nodes x_j with weights π_j ∝ w_j p(x_j) e^{c L(x_j)} (Σ π_j = 1)
// and their losses, so that M(c + it) = M(c)·Σ_j π_j e^{itL_j}.
struct Tilted {
  std::vector<double> loss, weight;
  double log_m = 0;      // log M(c)
  double mean = 0, variance = 0;  // of L under the tilted law
  double mean_abs = 0;  // E|L| under the tilted law (the phases' rounding, 2u·t·E|L|)
  // Σ_j π_j |δL_j|: the loss's rounding at the nodes (log p − log q loses the digits of |log p| + |log q| far in a
  // tail), under the tilted law that carries the integral (ContourEngine::hockey_stick: a shift of the loss's atoms).
  double loss_error = 0;
  // Runs of nodes over several panels that share one loss value (within 1e-12): atoms of the loss law, where the loss
  // is constant on an interval of positive mass (beyond the centres of two Laplace laws of one scale), or so nearly
  // constant that the line cannot tell (a subsampled Gaussian's far tail). Their total weight, and the largest one's
  // weight and loss (for messages).
  double atoms = 0, atom = 0, atom_loss = 0;
};

class ReleaseLoss {
 public:
  ReleaseLoss(const sim::Law& mu, const sim::Law& nu) : mu_(&mu), nu_(&nu) {
    auto refuse = [&](const std::string& why) {
      invalid_input("no engine for the composed hockey-stick of {} against {}: {}", mu.brief(),
                    nu.brief(), why);
    };
    if (mu.dimension() != 1) refuse("only one-dimensional laws (and Gaussians of equal sigma) are composed");
    if (!mu.atoms().empty() || !nu.atoms().empty() || mu.continuous_mass() < 1 || nu.continuous_mass() < 1)
      refuse("laws with both atoms and a density are not composed yet (pmfs and densities are)");
    if (mu.lumped() || nu.lumped() || mu.discretisation() || nu.discretisation() || mu.log_density_error() > 0 ||
        nu.log_density_error() > 0)
      refuse("laws computed numerically (lumped, discretised or numerically normalised) are not composed yet");
    if (auto joint = mu.joint_with(nu)) {
      joint_ = *joint;
      loss_ = joint_->first->loss_against(*joint_->second);
      mu_ = joint_->first.get();
      nu_ = joint_->second.get();
    }
    const sim::Interval sm = mu_->support(), sn = nu_->support();
    if (sm.lo < sn.lo || sm.hi > sn.hi)
      refuse("mu has mass where nu has none (the loss is +inf there): R_inf and the hockey-stick near 1 come from that "
             "mass; such pairs are not composed yet");
    support_ = sm;
    scale_ = std::max(mu_->scale(), nu_->scale());
    centre_ = 0.5 * (mu_->location() + nu_->location());
    for (const sim::Law* l : {mu_, nu_})
      for (double b : l->breakpoints())
        if (b > support_.lo && b < support_.hi) breaks_.push_back(b);
    std::sort(breaks_.begin(), breaks_.end());
    breaks_.erase(std::unique(breaks_.begin(), breaks_.end()), breaks_.end());
    c_max_ = tail_limit(mu_->left_tail(), nu_->left_tail());
    c_max_ = std::min(c_max_, tail_limit(mu_->right_tail(), nu_->right_tail()));
    // A node evaluates μ's density, then the loss (μ's and ν's again, or the pair's joint loss).
    loss_cost_ = mu_->computation().density_cost + nu_->computation().density_cost;
    node_cost_ = mu_->computation().density_cost + loss_cost_;
  }

  // M(s) is finite for real s in (−1, c_max).
  double c_max() const { return c_max_; }
  std::string mu_name() const { return mu_->brief(); }
  std::string nu_name() const { return nu_->brief(); }

  double loss(double x) const {
    if (loss_) return loss_->density(x);
    return mu_->log_density(x) - nu_->log_density(x);
  }
  double log_tilted(double x, double c) const {
    const double lp = mu_->log_density(x);
    if (lp == -kInf) return -kInf;
    return lp + c * loss(x);
  }

  // The panels of the tilted law at c: the range cut at the loss's breaks, panels of at most scale/2 split until the
  // phase t·L moves by at most kPanelPhase radians for t ≤ t_max, each halved `refine` times.
  std::vector<std::pair<double, double>> panels_at(double c, double t_max, int refine) const {
    const auto [lo, hi] = range(c);
    std::vector<double> cuts{lo};
    for (double b : breaks_)
      if (b > lo && b < hi) cuts.push_back(b);
    cuts.push_back(hi);
    std::vector<std::pair<double, double>> panels;
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const double a = cuts[i], b = cuts[i + 1];
      const int n = std::max(1, static_cast<int>(std::ceil((b - a) / (0.5 * scale_))));
      for (int k = 0; k < n; ++k) split(a + (b - a) * k / n, a + (b - a) * (k + 1) / n, t_max, panels, 0);
    }
    for (int r = 0; r < refine; ++r) {
      if (2 * panels.size() > kMaxPanels) refuse_panels();
      std::vector<std::pair<double, double>> finer;
      for (const auto& [a, b] : panels) {
        finer.push_back({a, 0.5 * (a + b)});
        finer.push_back({0.5 * (a + b), b});
      }
      panels = std::move(finer);
    }
    if (panels.size() > kMaxPanels) refuse_panels();
    return panels;
  }

  // The tilted law at c, with panels that keep the phase t·L within kPanelPhase radians for t ≤ t_max; `refine` halves every
  // panel that many times (the error estimate compares refine 0 and 1).
  Tilted tilted(double c, double t_max, int refine) const {
    const std::vector<std::pair<double, double>> panels = panels_at(c, t_max, refine);
    // The panels' search evaluated the loss about three times per panel (twice as many panels in its tree); the
    // nodes are charged before they are evaluated.
    charge(static_cast<double>(panels.size()) * (6 * loss_cost_ + Gauss::abscissa().size() * 2 * node_cost_));
    Tilted out;
    std::vector<double> lw, rounding;
    for (const auto& [a, b] : panels) {
      const double half = 0.5 * (b - a), mid = 0.5 * (a + b);
      const auto& x = Gauss::abscissa();
      const auto& w = Gauss::weights();
      for (std::size_t k = 0; k < x.size(); ++k)
        for (int sign : {-1, 1}) {
          if (k == 0 && sign < 0 && x.size() % 2 == 1) continue;  // the centre node once
          const double xx = mid + sign * half * x[k];
          const double lp = mu_->log_density(xx);
          if (lp == -kInf) continue;
          const double l = loss(xx);
          if (!std::isfinite(l)) continue;
          lw.push_back(std::log(w[k] * half) + lp + c * l);
          out.loss.push_back(l);
          rounding.push_back(4 * kU * (loss_ ? std::fabs(l) + 1 : std::fabs(lp) + std::fabs(lp - l)));
        }
    }
    out.log_m = log_sum_exp<double>(lw);
    out.weight.resize(lw.size());
    double mean = 0;
    for (std::size_t j = 0; j < lw.size(); ++j) {
      out.weight[j] = std::exp(lw[j] - out.log_m);
      mean += out.weight[j] * out.loss[j];
    }
    double var = 0;
    for (std::size_t j = 0; j < lw.size(); ++j) {
      var += out.weight[j] * (out.loss[j] - mean) * (out.loss[j] - mean);
      out.mean_abs += out.weight[j] * std::fabs(out.loss[j]);
      out.loss_error += out.weight[j] * rounding[j];
    }
    out.mean = mean;
    out.variance = var;
    find_atom(out);
    // Nodes below 1e-30 of the mass change no digit of M (at most 1e-30 per node against a target of 1e-13).
    std::size_t kept = 0;
    for (std::size_t j = 0; j < lw.size(); ++j)
      if (out.weight[j] >= 1e-30) {
        out.weight[kept] = out.weight[j];
        out.loss[kept++] = out.loss[j];
      }
    out.weight.resize(kept);
    out.loss.resize(kept);
    return out;
  }

  // The tilted law's atoms of the loss: runs of two panels' Gauss nodes or more at one loss value (a flat stretch of the
  // loss, as a clamp's end); their total weight in out.atoms, the largest one's weight and loss in out.atom, out.atom_loss.
  static void find_atom(Tilted& out) {
    std::vector<std::pair<double, double>> by_loss;
    for (std::size_t j = 0; j < out.loss.size(); ++j) by_loss.emplace_back(out.loss[j], out.weight[j]);
    std::sort(by_loss.begin(), by_loss.end());
    constexpr std::size_t kRun = 2 * 20;  // two panels of Gauss nodes
    for (std::size_t i = 0; i < by_loss.size();) {
      std::size_t j = i;
      double w = 0;
      while (j < by_loss.size() && by_loss[j].first - by_loss[i].first <= 1e-12 * std::max(1.0, std::fabs(by_loss[i].first)))
        w += by_loss[j++].second;
      if (j - i >= kRun) {
        out.atoms += w;
        if (w > out.atom) out.atom = w, out.atom_loss = by_loss[i].first;
      }
      i = j;
    }
  }

  // Density evaluations (in closed-form densities: a mixture of m laws costs m) are charged before they are made,
  // against kMaxDensityWork for one value (ValueWork): a composed binomial_mix of 2,000 components would otherwise run
  // for minutes within the line's own limit. A line reused from the cache is charged what it cost (whether a level
  // is refused does not depend on which levels were asked before it).
  void charge(double evaluations) const {
    if (!charge_density_work(evaluations))
      throw_if_work_spent(fmt::format("the tilted laws of {} against {}", mu_->brief(), nu_->brief()), node_cost_);
  }

 private:

  // The largest s with ∫ p^{1+s} q^{−s} finite on one tail, from log p ≈ −a x² − b|x| and log q ≈ −a' x² − b'|x|:
  // the exponent (1+s)(a, b) − s(a', b') must stay positive (lexicographically).
  static double tail_limit(const sim::TailShape& p, const sim::TailShape& q) {
    if (p.bounded()) return kInf;
    if (q.bounded()) return 0;  // μ reaches where ν does not: refused earlier
    const double margin = (p.estimated || q.estimated) ? 0.9 : 0.999;
    // x² coefficient a + s(a − a'), |x| coefficient b + s(b − b') of −log(p^{1+s} q^{−s}).
    if (q.quad > p.quad) return margin * p.quad / (q.quad - p.quad);
    if (p.quad > 0) return kInf;
    if (q.lin > p.lin) return p.lin > 0 ? margin * p.lin / (q.lin - p.lin) : 0;
    return p.lin > 0 ? kInf : 0;
  }

  // Where the tilted integrand holds its mass: within e^{−75} of its largest value, found on a grid of scale/4
  // steps around the laws and walked outwards from the largest point.
  std::pair<double, double> range(double c) const {
    const double step = 0.25 * scale_;
    double best = -kInf, at = centre_;
    auto clip = [&](double x) { return std::clamp(x, support_.lo, support_.hi); };
    charge(801 * node_cost_);
    for (int k = -400; k <= 400; ++k) {
      const double x = clip(centre_ + k * step);
      const double v = log_tilted(x, c);
      if (v > best) best = v, at = x;
    }
    // The tilted law may sit far out (its centre moves with c): follow the increase beyond the grid.
    for (int dir : {-1, 1}) {
      double x = at;
      for (int k = 0; k < 100'000; ++k) {
        if (k % 1024 == 0) charge(1024 * node_cost_);
        const double y = clip(x + dir * step * (1 << std::min(k / 64, 20)));
        if (y == x) break;
        const double v = log_tilted(y, c);
        if (!(v > best)) break;
        best = v, at = y, x = y;
      }
    }
    if (!std::isfinite(best))
      throw NumericalError(fmt::format("the tilted law of {} at c = {} has no finite mass point", mu_->brief(), c));
    double ends[2];
    for (int side = 0; side < 2; ++side) {
      const int dir = side == 0 ? -1 : 1;
      double x = at;
      long k = 0;
      for (; k < 400'000; ++k) {
        if (k % 1024 == 0) charge(1024 * node_cost_);
        const double y = clip(x + dir * step);
        if (y == x) break;
        x = y;
        if (log_tilted(x, c) < best - 75) break;
      }
      if (k == 400'000)
        throw NumericalError(fmt::format("the tilted law of {} at c = {} has tails too heavy to integrate", mu_->brief(), c));
      ends[side] = x;
    }
    return {ends[0], ends[1]};
  }

  // A panel whose loss moves by more than kPanelPhase/t_max (phase kPanelPhase at t_max) is halved (up to 30 times).
  void split(double a, double b, double t_max, std::vector<std::pair<double, double>>& out, int depth) const {
    if (t_max > 0 && depth < 30) {
      const double la = loss(a), lb = loss(b), lm = loss(0.5 * (a + b));
      const double change = std::max({std::fabs(lb - la), std::fabs(lm - la), std::fabs(lb - lm)});
      if (std::isfinite(change) && t_max * change > kPanelPhase) {
        split(a, 0.5 * (a + b), t_max, out, depth + 1);
        split(0.5 * (a + b), b, t_max, out, depth + 1);
        return;
      }
    }
    // Bounded as the panels are made, not after: a loss that varies a million-fold (σ against σ/1000) would otherwise
    // halve its panels 30 times over before the count is read (a billion panels, minutes of paging).
    if (out.size() >= kMaxPanels) refuse_panels();
    out.push_back({a, b});
  }
  [[noreturn]] void refuse_panels() const {
    throw NumericalError(fmt::format("the contour integral cannot resolve the tilted law of {}: it needs more than {} panels "
                                     "(its loss varies too fast where the tilted mass lies: a loss that varies a million-fold, "
                                     "or a level within rounding of the largest composed loss)", mu_->brief(), kMaxPanels));
  }
  static constexpr std::size_t kMaxPanels = 200'000;

  const sim::Law* mu_;
  const sim::Law* nu_;
  std::optional<std::pair<sim::LawPtr, sim::LawPtr>> joint_;
  std::optional<sim::PairLoss> loss_;
  sim::Interval support_;
  double scale_ = 1, centre_ = 0, c_max_ = kInf, loss_cost_ = 2, node_cost_ = 3;
  std::vector<double> breaks_;
};

// The hockey-stick from the line's integral J (j, with its error bar err_j) at abscissa c: HS = A·J (c > 0) or
// 1 + A·J (−1 < c < 0: the residue 1 at s = 0 crossed), A = Π M_i(c)^{T_i} e^{−cε} (log_a its log); `points` + 1
// points on the line, of `releases` distinct releases; `rel_hs`, a relative error of HS itself (the losses' rounding,
// the inner quadratures' scale).
Estimate from_contour(double eps, double c, double log_a, double j, double err_j, double rel_hs, long points, std::size_t releases) {
  const std::string method = fmt::format("contour integral of the composed loss's moment generating function (saddle "
                                         "point, trapezoid rule; a-posteriori error) at c = {:.6g}, {} points", c, points + 1);
  const long work = points * static_cast<long>(releases);
  if (c <= 0) {
    const double a = std::exp(log_a);
    Estimate e = Estimate::from_value(1 + a * j, a * err_j + 4 * kU + rel_hs * std::fabs(1 + a * j), ErrorKind::quadrature, method);
    e.clip(0, 1);
    e.work = work;
    return e;
  }
  const double rel = err_j / j + rel_hs;
  if (!std::isfinite(log_a))
    throw NumericalError(fmt::format("at eps = {:g} the Chernoff exponent c·eps = {:g}·{:g} leaves the range of a double: the "
                                     "hockey-stick is below e^(-1.8e308), which no interval here can hold", eps, c, eps));
  if (!(j > 0) || !(rel < 0.5)) {
    // The value is below what the line resolves (a level near the largest composed loss): only an upper end,
    // Chernoff's P(S > ε) ≤ Π M_i(c)^{T_i} e^{−cε} (HS ≤ P(S > ε)), with the quadrature's error of log M.
    Estimate e = Estimate::from_log_bounds(-kInf, -kInf, log_a + 1e-6 * (1 + std::fabs(log_a)), ErrorKind::quadrature, "");
    e.method = fmt::format("below what the contour resolves (its sum is {:.3g} +- {:.3g}): only the Chernoff bound "
                           "prod M_i(c)^T_i e^(-c eps) at c = {:.6g} as an upper end", j, err_j, c);
    return e;
  }
  Estimate e = Estimate::from_log(log_a + std::log(j), rel, ErrorKind::quadrature, method);
  e.work = work;
  return e;
}

// A loss law with atoms makes |Π R^T| quasi-periodic along the line: the composed loss's purely atomic part (every
// release on an atom: total tilted weight Π a_i^{T_i}, a_i release i's atoms' weight) never decays, and no reading of
// the line over a finite range bounds it (30 Laplace releases came out 7e-7 off inside a 1e-13 bar, 100 of them 1e-12
// off inside 1e-13). Its modulus is at most Π a_i^{T_i} at every t, so the rest of the line beyond t_max holds at most
// Π a_i^{T_i}/(π t_max) of it, which the tail's bar counts. The contour answers only where that part is negligible
// by far (1e-30 of J: the reading within the range cannot see it either), and refuses otherwise. A near-atom of small
// weight composed many times (a subsampled Gaussian's flat far tail, 2.3e-6 of the mass, over a million steps) is
// negligible; a Laplace pair's atoms (about 0.7 of the mass) over 100 releases are not.
double log_atomic_part(const std::vector<Tilted>& fine, const std::vector<double>& counts) {
  double log_part = 0;
  for (std::size_t i = 0; i < fine.size(); ++i) log_part += fine[i].atoms > 0 ? counts[i] * std::log(std::min(1.0, fine[i].atoms)) : -kInf;
  return log_part;
}

[[noreturn]] void refuse_atoms(const std::vector<ReleaseLoss>& releases, const std::vector<Tilted>& fine, double log_part) {
  std::size_t i = 0;
  for (std::size_t k = 1; k < fine.size(); ++k)
    if (fine[k].atom > fine[i].atom) i = k;
  throw NumericalError(fmt::format(
      "the composed loss of {} against {} has atoms (the loss is constant, {:.6g}, on a set of mass {:.3g}, as "
      "between Laplace laws of one scale; all releases on atoms at once: {} of the tilted mass): the contour "
      "integral's error cannot be bounded there (its integrand does not decay along the line), so it refuses rather "
      "than print an interval it cannot vouch for",
      releases[i].mu_name(), releases[i].nu_name(), fine[i].atom_loss, fine[i].atom, number_text(std::exp(log_part), log_part, 1, 3)));
}

// The releases of a composition and the contour's choice of line for each level: their cumulants, the saddle point.
class SaddleSearch {
 public:
  explicit SaddleSearch(const std::vector<ReleasePair>& pairs) {
    for (const ReleasePair& r : pairs) {
      releases_.emplace_back(*r.mu, *r.nu);
      counts_.push_back(static_cast<double>(r.count));
      c_max_ = std::min(c_max_, releases_.back().c_max());
    }
  }

  // The line of the level (see line_for): the certified engine integrates on it too, so that the levels of a curve
  // share its nodes (their moment integrals are remembered).
  double abscissa(double eps) const { return line_for(eps); }

 protected:
  // The releases' cumulants at abscissa c: K(c) = Σ T_i log M_i(c) and its first two derivatives Σ T_i E_c[L_i],
  // Σ T_i Var_c[L_i] (the tilted laws' mean and variance). Remembered by c (the saddle's search asks at points of a
  // fixed grid, and each line's abscissa is a grid point too), with what computing them charged, which a reuse charges
  // again: a value's work, and so its refusal, does not depend on the values computed before it.
  struct Cumulants {
    double k0 = 0, k1 = 0, k2 = 0;
    double work = 0;
  };
  Cumulants cumulants(double c) const {
    if (const auto known = cumulants_.find(c)) {
      releases_.front().charge(known->work);
      return *known;
    }
    const double work_before = density_work();
    Cumulants k;
    for (std::size_t i = 0; i < releases_.size(); ++i) {
      const Tilted t = releases_[i].tilted(c, 0, 0);
      k.k0 += counts_[i] * t.log_m;
      k.k1 += counts_[i] * t.mean;
      k.k2 += counts_[i] * t.variance;
    }
    k.work = density_work() - work_before;
    return cumulants_.get_or_build(c, [&] { return k; });
  }

  // The log of the integrand's modulus on the real axis, g(c) = K(c) − cε − log|c(1+c)|, with its first two
  // derivatives: g' = K'(c) − ε − 1/c − 1/(1+c), g'' = K''(c) + 1/c² + 1/(1+c)² > 0. g is convex on (−1, 0) and on
  // (0, c_max).
  struct Height {
    double g, slope, curvature;
  };
  Height height(double c, double eps) const {
    const Cumulants k = cumulants(c);
    return {k.k0 - c * eps - std::log(std::fabs(c * (1 + c))), k.k1 - eps - 1 / c - 1 / (1 + c),
            k.k2 + 1 / (c * c) + 1 / ((1 + c) * (1 + c))};
  }

  // The abscissa that minimises g on (0, c_max) and on (−1, 0), whichever is lower (the smaller integrand: the
  // better-conditioned line), with K''(c) there (`spread`). Any abscissa gives the same integral: the saddle only
  // makes the integrand narrow and smooth, so it is found on a fixed grid, of spacing 1/64 in u = log c on (0, ∞) and
  // u = log(−(1 + c)/c) on (−1, 0) (c increasing with u on both): bisection for the first grid point where g' ≥ 0
  // (g' increases with c), then g' interpolated linearly in u between it and its neighbour. The grid's cumulants are
  // remembered, so the levels of a curve share most of their searches, and the saddle is a function of ε alone.
  struct Saddle {
    double c, spread;
  };
  Saddle saddle(double eps) const {
    struct Found {
      double c, spread, g;
    };
    constexpr double spacing = 1.0 / 64;
    auto minimise = [&](double from, double to, bool right) {
      const auto c_at = [right](double u) { return right ? std::exp(u) : -1 / (1 + std::exp(u)); };
      const auto u_of = [right](double x) { return right ? std::log(x) : std::log(-(1 + x) / x); };
      long a = static_cast<long>(std::ceil(u_of(from) / spacing)), b = static_cast<long>(std::floor(u_of(to) / spacing));
      const auto at = [&](long k) { return height(c_at(static_cast<double>(k) * spacing), eps); };
      const auto spread = [](double c, const Height& h) { return h.curvature - 1 / (c * c) - 1 / ((1 + c) * (1 + c)); };
      // Adjacent grid points k − 1, k with g'(c_{k−1}) < 0 ≤ g'(c_k), found by Newton's method from the middle of the
      // range with each iterate moved to the nearest grid point, inside a bracket that bisection keeps (its ends a − 1
      // and b + 1 stand for the ends of the range, never evaluated: near 0 or c_max the tilted laws are extreme and
      // costly, and they are asked only where the saddle is near them).
      long lo = a - 1, hi = b + 1, k = a + (b - a) / 2;
      while (hi - lo > 1) {
        const Height h = at(k);
        (h.slope < 0 ? lo : hi) = k;
        const double next = c_at(static_cast<double>(k) * spacing) - h.slope / h.curvature;
        const bool inside = right ? next > 0 : next > -1 && next < 0;
        long step = inside ? std::lround(std::clamp(u_of(next) / spacing, -1e9, 1e9)) : lo;
        // A step that stays on k (Newton's step shorter than the grid's spacing, or g' far from linear) bisects instead.
        k = step > lo && step < hi && step != k ? step : lo + (hi - lo) / 2;
      }
      if (lo < a || hi > b) {
        const long end = lo < a ? a : b;
        const Height h = at(end);
        return Found{c_at(end * spacing), spread(c_at(end * spacing), h), h.g};
      }
      a = lo;
      b = hi;
      const Height left = at(a), right_h = at(b);
      const double w = -left.slope / (right_h.slope - left.slope);  // in [0, 1]
      const double c = c_at((static_cast<double>(a) + w) * spacing);
      const double k2 = (1 - w) * spread(c_at(a * spacing), left) + w * spread(c_at(b * spacing), right_h);
      return Found{c, k2, std::min(left.g, right_h.g)};
    };
    // A saddle closer to a pole of 1/(s(s+1)) than the integrand's width σ_t (a level near the composed loss's mean)
    // would make the trapezoid's step follow the pole: the line moves to a distance σ_t (at most 1/4) from it, which
    // raises the integrand by at most e^{1/2} — half a digit of the sum, none of the value.
    auto away_from_poles = [](const Found& f, bool right) {
      const double m = f.spread > 0 ? std::min(0.25, 1 / std::sqrt(f.spread)) : 0.25;
      return Saddle{right ? std::max(f.c, m) : std::clamp(f.c, -1 + m, -m), f.spread};
    };
    const double top = std::min(c_max_, 1e5);
    const Found left = minimise(-1 + 1e-9, -1e-9, false);
    if (!(top > 1e-5)) return away_from_poles(left, false);
    const Found right = minimise(1e-6, top, true);
    if (right.g <= left.g) {
      Saddle s = away_from_poles(right, true);
      s.c = std::min(s.c, top);
      return s;
    }
    return away_from_poles(left, false);
  }

  // The line for ε: the saddle point, moved to the nearest point of a fixed grid fine enough that the integrand
  // there is at most e^{1/8} larger than on the saddle's own line (g rises by ½ g''·Δc², and the grid's spacing is
  // at most 1/(2√g'') in c). Any line in the strip gives the same integral; a grid makes neighbouring levels share
  // one, whose values along it (the expensive part: T-fold products of the releases' characteristic functions)
  // are computed once and turned by e^{−itε} for each level. A function of ε alone: the answer for a level does not
  // depend on which other levels the call asks for.
  double line_for(double eps) const {
    const double c = saddle(eps).c;
    const double spread = cumulants(c).k2;  // at the line's abscissa (the saddle's, or where it moved from a pole)
    const double top = std::min(c_max_, 1e5);
    const double reach = 0.5 / std::sqrt(std::max(spread + 1 / (c * c) + 1 / ((1 + c) * (1 + c)), 1e-300));
    // The coordinate u = log(c) on (0, ∞), log(−c/(1 + c)) on (−1, 0); its grid of spacing 2^{−j}, the coarsest
    // (j ≥ 2) whose step in c is within `reach`.
    const bool right = c > 0;
    const auto to_u = [right](double x) { return right ? std::log(x) : std::log(-x / (1 + x)); };
    const auto from_u = [right](double u) { return right ? std::exp(u) : -1 / (1 + std::exp(-u)); };
    const double u = to_u(c);
    for (int j = 2; j <= 40; ++j) {
      const double spacing = std::ldexp(1.0, -j);
      const double snapped = from_u(std::round(u / spacing) * spacing);
      if (std::fabs(snapped - c) > reach) continue;
      // The grid point must keep the saddle's distance from the poles (and stay below c_max).
      const double pole = right ? std::min(c, 0.25) : std::min({-c, 1 + c, 0.25});
      const bool inside = right ? snapped >= std::min(pole, c) * 0.999 && snapped <= top : snapped > -1 && snapped < 0 &&
                                                                                             std::min(-snapped, 1 + snapped) >= 0.999 * pole;
      return inside ? snapped : c;
    }
    return c;
  }

  std::vector<ReleaseLoss> releases_;
  std::vector<double> counts_;
  double c_max_ = kInf;
  // The cumulants at the abscissae asked (a few hundred for a whole curve; each a few numbers).
  mutable Cache<double, Cumulants> cumulants_{4096};
};

// The contour integral of one composition, level by level, with the lines that neighbouring levels share.
class ContourEngine : public SaddleSearch {
 public:
  using SaddleSearch::SaddleSearch;

  Estimate hockey_stick(double eps, double loss_bound) const {
    const double c = line_for(eps);
    // The line's integrand, resolved up to t_max; t_max doubles while the integrand has not decayed there.
    double t_max = 0, step = 0.25;  // the trapezoid's step in units of the saddle's width σ_t
    for (int attempt = 0; attempt < 12; ++attempt) {
      if (t_max == 0) {
        const double sum_var = cumulants(c).k2;
        if (!(sum_var > 0)) unresolved();
        t_max = 24 / std::sqrt(sum_var);
      }
      const std::shared_ptr<const Line> held = line_at(c, t_max, step);
      const Line& line = *held;
      const double log_a = line.log_m - c * eps, h = line.h;
      const long points = line.points;
      const LineSums sums = sums_at(line, c, eps);
      const double sum_half = sums.half, sum_h = sums.h, sum_tail = sums.tail, sum_coarse = sums.coarse;
      const double abs_sum = line.abs_sum, last = line.last, strip = line.strip;
      const double j_half = sum_half * 0.5 * h / std::numbers::pi, j_h = sum_h * h / std::numbers::pi;
      // Beyond t_max: |kernel| ≤ 1/t², so the rest is at most sup|Π R^T|/(π t_max); the observed modulus over the
      // last half of the range stands for the sup (×10). (Over the last tenth, a loss law with atoms — Laplace
      // releases, whose |R(t)| oscillates like |cos(t Δ/b)| and never decays — was read between two of its peaks:
      // 30 releases came out 7e-7 off inside a 1e-13 bar.)
      // The composed loss's purely atomic part (log_atomic_part) is at most Π a_i^{T_i} everywhere beyond t_max: refused
      // where it is not negligible by far, counted where it is.
      const double atomic = std::exp(line.log_atomic) / (std::numbers::pi * t_max);
      if (atomic > 1e-30 * std::fabs(j_half)) refuse_atoms(releases_, line.fine_atoms, line.log_atomic);
      const double tail = std::max(10 * last / (std::numbers::pi * t_max), atomic);
      if (tail > 1e-13 * std::fabs(j_half) + 1e-300) {
        if (attempt == 11)
          throw NumericalError("the contour integral's integrand did not decay within 2^11 times its first range");
        t_max *= 2;
        continue;
      }
      // Aliasing (Poisson summation): the trapezoid of step h' = h/2 sums J's function G(y) = E_Q[k(S − y)] at
      // y = ε + 2πm/h' for every integer m, not at ε alone; k is the kernel whose transform is 1/(s(1 + s)) on the
      // line (c > 0: (1 − e^{−u})_+ e^{−cu}; −1 < c < 0: −min(1, e^{−u}) e^{−cu}), so |k(u)| ≤ e^{−γ|u|} with γ the
      // strip's half-width min(|c|, 1 + c). Where the composed loss is bounded, |S| ≤ S_max (Laplace releases: their
      // loss law's atoms make the integrand quasi-periodic, and h and h/2 alias alike, so comparing them does not
      // see it), each term m ≠ 0 is at most e^{−γ(2π|m|/h' − S_max − ε)}: their sum bounds the aliasing rigorously.
      double alias = 0;
      if (std::isfinite(loss_bound)) {
        const double period = 2 * std::numbers::pi / (0.5 * h), reach = loss_bound + eps;
        alias = period > reach ? 2 * std::exp(-strip * (period - reach)) / -std::expm1(-strip * period) : kInf;
        if (alias > 1e-13 * std::fabs(j_half) && attempt < 11 && 2 * points <= 400'000) {
          step /= 2;
          continue;
        }
      }
      const double trap = std::fabs(j_half - j_h);
      const double rounding = 32 * kU * abs_sum * 0.5 * h / std::numbers::pi * std::sqrt(static_cast<double>(points + 1));
      const double inner_err = (std::fabs(sum_half - sum_coarse) + line.floor) * 0.5 * h / std::numbers::pi;
      // A composed loss far from Gaussian (a few large per-release losses: Poisson-like tails) aliases at a step
      // that suits its width: halve the step while h and h/2 disagree beyond 1e-11 and beyond the noise of the terms
      // themselves (the inner quadrature's error raised to the power T, the rounding), which no step removes.
      if (trap > std::max(1e-11 * std::fabs(j_half), 4 * (rounding + inner_err)) && attempt < 11 && 2 * points <= 400'000) {
        step /= 2;
        continue;
      }
      // The losses' rounding moves every atom of each release's loss law by about its δL: the composed loss by at
      // most D = Σ T_i δL_i (its tilted mean: the nodes that carry the integral), and HS_ε = E_P[(1 − e^{ε−S})_+],
      // increasing in S, by at most D·|d HS/dε| = D·(P(S > ε) − HS) (first order). P(S > ε) comes from the same line
      // with the kernel 1/s (its trapezoid, a rougher one: the bar counts it twice, and at least 1 + c times HS, the
      // slope of an exponential tail at the saddle point). (Counted node by node, |s|·δL·T at each point of the line,
      // it dominated the bar of 1,000 releases: 1.9e-8 relative where it is about 1e-11.)
      // (the floor first: std::max keeps its first argument against a NaN ratio)
      const double slope = std::max(1 + std::fabs(c), c > 0 ? sum_tail / sum_half - 1 : 0.0);
      // The inner quadratures' M_i(c) (fine against coarse) scale the whole integrand alike: a relative error of A,
      // not one that the line's cancellation amplifies (counted node by node it was, like the loss's rounding).
      const double shift = 2 * line.loss_shift * slope + std::expm1(line.scale_error);  // relative to HS
      return from_contour(eps, c, log_a, j_half, trap + tail + rounding + inner_err + alias, shift, points, releases_.size());
    }
    throw NumericalError("the contour integral did not decay within 2^11 times its first range");
  }

 private:
  // One line's values, for every level that uses it: log Π R_i(t_k)^{T_i} (without e^{−itε}), the kernel
  // 1/((c+it)(1+c+it)), and what the error bar reads of the modulus alone.
  struct Line {
    double h = 0, strip = 0, log_m = 0;  // step, the strip's half-width, Σ T_i log M_i(c)
    long points = 0;
    std::vector<std::complex<double>> log_r, log_r_coarse, kernel;  // log_r by the fine inner quadratures
    double abs_sum = 0, last = 0;
    double floor = 0;  // Σ_k |f(t_k)|·(the phasors' rounding, relative): what the two inner quadratures share
    double loss_shift = 0;  // Σ T_i (the tilted mean of release i's loss rounding): how far the composed loss moves
    double scale_error = 0;  // Σ T_i |log M_i(c) by the fine − by the coarse inner quadrature|: a relative error of A
    double density_work = 0;  // what building it charged (charged again when it is reused)
    double log_atomic = -kInf;  // log Π a_i^{T_i}: the composed loss's purely atomic part (log_atomic_part)
    std::vector<Tilted> fine_atoms;  // the releases' tilted laws' atoms (for refuse_atoms; nodes not kept)
  };

  // f(t) = Re[Π R_i(t)^{T_i} e^{−itε} / ((c+it)(1+c+it))] on the grid t_k = k·h/2: the line's values (independent of
  // ε) turned by e^{−itε}. Its modulus, and so the bounds that read only the modulus, do not depend on ε. Summed over
  // the grid (half), over every second point (h), with the kernel 1/s (tail: P(S > ε)), and with the coarse inner
  // quadratures' values (coarse: the difference estimates their error in J, the weights' and the nodes' errors being
  // smooth in t, so that J's cancellation applies to them).
  struct LineSums {
    double half = 0, h = 0, tail = 0, coarse = 0;
  };
  static LineSums sums_at(const Line& line, double c, double eps) {
    LineSums out;
    for (long k = 0; k <= line.points; ++k) {
      if (k % 4096 == 0) throw_if_interrupted();
      const double t = k * 0.5 * line.h;
      const std::complex<double> turn{0, -t * eps};
      const std::complex<double> value = std::exp(line.log_r[k] + turn) * line.kernel[k];
      const double weight = k == 0 ? 0.5 : 1.0;
      out.half += weight * value.real();
      out.coarse += weight * (std::exp(line.log_r_coarse[k] + turn) * line.kernel[k]).real();
      out.tail += weight * (value * std::complex<double>(1 + c, t)).real();
      if (k % 2 == 0) out.h += weight * value.real();
    }
    return out;
  }

  std::shared_ptr<const Line> line_at(double c, double t_max, double step) const {
    const auto key = std::make_tuple(c, t_max, step);
    if (const auto known = lines_.find(key)) {
      releases_.front().charge((*known)->density_work);
      return *known;
    }
    const double work_before = density_work();
    std::vector<Tilted> coarse, fine;
    double log_m = 0, var = 0, loss_shift = 0, scale_error = 0;
    for (std::size_t i = 0; i < releases_.size(); ++i) {
      coarse.push_back(releases_[i].tilted(c, t_max, 0));
      fine.push_back(releases_[i].tilted(c, t_max, 1));
      log_m += counts_[i] * fine.back().log_m;
      var += counts_[i] * fine.back().variance;
      loss_shift += counts_[i] * fine.back().loss_error;
      scale_error += counts_[i] * std::fabs(fine.back().log_m - coarse.back().log_m);
    }
    auto line = std::make_shared<Line>();
    line->log_atomic = log_atomic_part(fine, counts_);
    for (const Tilted& t : fine) {
      Tilted atoms;
      atoms.atoms = t.atoms, atoms.atom = t.atom, atoms.atom_loss = t.atom_loss;
      line->fine_atoms.push_back(atoms);
    }
    line->log_m = log_m;
    line->loss_shift = loss_shift;
    line->scale_error = scale_error;
    const double sigma_t = 1 / std::sqrt(var);
    line->strip = std::min(std::fabs(c), 1 + c);
    const double h = line->h = std::min(step * sigma_t, step * line->strip / 2);
    const long points = line->points = static_cast<long>(std::ceil(t_max / (0.5 * h)));
    double nodes = 0;
    for (std::size_t i = 0; i < fine.size(); ++i) nodes += static_cast<double>(fine[i].loss.size() + coarse[i].loss.size());
    const double work = static_cast<double>(points + 1) * nodes;
    if (points > 400'000 || work > kMaxContourWork)
      throw NumericalError(fmt::format(
          "the contour integral would need {} points x {:.0f} quadrature nodes (at most {:.0e} evaluations): its "
          "integrand decays too slowly along the line. That happens with few releases of a loss law far from smooth "
          "(two to four releases of a subsampled Gaussian at q = 0.2, say: from about five the integrand decays fast "
          "enough) or where a release's loss law has atoms (the loss constant where the law has mass, as between "
          "Laplace laws)",
          points + 1, nodes, kMaxContourWork));
    std::vector<Phasors> fine_ratio, coarse_ratio;
    for (std::size_t i = 0; i < fine.size(); ++i) {
      fine_ratio.emplace_back(fine[i].loss, fine[i].weight, 0.5 * h);
      coarse_ratio.emplace_back(coarse[i].loss, coarse[i].weight, 0.5 * h);
    }
    for (auto* values : {&line->log_r, &line->log_r_coarse, &line->kernel}) values->resize(static_cast<std::size_t>(points + 1));
    for (long k = 0; k <= points; ++k) {
      if (k % 256 == 0) throw_if_interrupted();
      const double t = k * 0.5 * h;
      std::complex<double> log_r = 0, log_r_coarse = 0;
      double log_mod_err = 0;  // relative error of Π R^T from the phasors' rounding (Phasors), node by node
      for (std::size_t i = 0; i < releases_.size(); ++i) {
        const std::complex<double> rf = fine_ratio[i].next(), rc = coarse_ratio[i].next();
        log_r += counts_[i] * std::log(rf);
        log_r_coarse += counts_[i] * std::log(rc);
        log_mod_err += counts_[i] * (kPhasorError + 2 * kU * t * fine[i].mean_abs) / std::max(std::abs(rf), 1e-300);
      }
      line->log_r_coarse[static_cast<std::size_t>(k)] = log_r_coarse;
      const std::complex<double> s_k{c, t}, kernel = 1.0 / (s_k * (s_k + 1.0));
      const double modulus = std::exp(log_r.real()) * std::abs(kernel);
      const double weight = k == 0 ? 0.5 : 1.0;
      line->log_r[static_cast<std::size_t>(k)] = log_r;
      line->kernel[static_cast<std::size_t>(k)] = kernel;
      line->abs_sum += weight * modulus;
      line->floor += weight * modulus * std::expm1(std::min(log_mod_err, 700.0));
      if (k >= points / 2) line->last = std::max(line->last, std::exp(log_r.real()));
    }
    line->density_work = density_work() - work_before;
    const std::shared_ptr<const Line> built = line;
    return lines_.get_or_build(key, [&] { return built; }, line->log_r.size());
  }

  // The composed loss has no spread in double at the line: every release's loss rounds to 0 at every node. That
  // is not "equal laws" (a mixture of weight q = 1e-30 has losses of about 1e-30, and TV at least that of one
  // release): the route refuses, and the lattices or the caller's bracket take over. (A [0, 0] was printed.)
  [[noreturn]] static void unresolved() {
    throw NumericalError("the contour route cannot resolve the composition: its releases' losses round to 0 at every "
                         "quadrature node (laws that differ by less than a double resolves)");
  }

  // Lines computed for earlier levels of this pair (the program's one cache policy: at most kCachedPoints points over
  // all, about 100 MB, the oldest dropped first; a curve walks its levels in order).
  static constexpr std::size_t kCachedPoints = 2'500'000;
  mutable Cache<std::tuple<double, double, double>, std::shared_ptr<const Line>> lines_{1024, kCachedPoints};
};

}  // namespace contour_detail

class ContourIntegral::Engine : public contour_detail::ContourEngine {
 public:
  using contour_detail::ContourEngine::ContourEngine;
};

ContourIntegral::ContourIntegral(const std::vector<ReleasePair>& pairs) {
  const ValueWork scope;
  engine_ = std::make_unique<Engine>(pairs);
}
ContourIntegral::~ContourIntegral() = default;
ContourIntegral::ContourIntegral(ContourIntegral&&) noexcept = default;
Estimate ContourIntegral::hockey_stick(double eps, double loss_bound) const {
  const ValueWork scope;
  Estimate e = engine_->hockey_stick(eps, loss_bound);
  // A value or bar beyond the quantity's range ([0, 1]) says the line's integrand overflowed (a mixture of weight 1e-7
  // over 1,000 releases put the line at c = 33): the route refuses, and the lattices take over.
  if (!(e.upper <= 1 + 1e-9) || !(e.lower >= 0) || std::isnan(e.value))
    throw NumericalError(fmt::format("the contour integral left the range of a hockey-stick divergence ({} in [{}, {}]) on its "
                                     "line c = {:.6g}", e.value, e.lower, e.upper, engine_->abscissa(eps)));
  return e;
}
double ContourIntegral::abscissa(double eps) const {
  const ValueWork scope;
  return engine_->abscissa(eps);
}

}  // namespace privamp::verify

