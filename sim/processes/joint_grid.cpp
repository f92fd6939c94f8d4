#include "sim/processes/joint_grid.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/projected.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

namespace {

constexpr double kErrorSafety = 10;

struct JointGrid {
  double x0, dx;
  std::vector<double> p, d;                                // μ's nodes and ν − μ at the nodes
  std::vector<std::pair<double, double>> p_atoms, d_atoms;  // (location, mass), same locations
  double error = 0;

  // log(dν/dμ) from values p and d = ν − μ.
  static double loss(double p, double d) {
    if (p <= 0) return p + d > 0 ? kInf : std::numeric_limits<double>::quiet_NaN();
    if (p + d <= 0) return -kInf;
    return std::log1p(d / p);
  }
  double density_loss(double x) const {
    const double t = (x - x0) / dx;
    const double last = static_cast<double>(p.size() - 1);
    if (!(t >= 0 && t <= last)) return std::numeric_limits<double>::quiet_NaN();
    const std::size_t i = std::min(static_cast<std::size_t>(t), p.size() - 2);
    const double f = t - static_cast<double>(i);
    return loss((1 - f) * p[i] + f * p[i + 1], (1 - f) * d[i] + f * d[i + 1]);
  }
  double atom_loss(double x) const {  // atoms sorted by location
    const auto it = std::lower_bound(p_atoms.begin(), p_atoms.end(), x, [](const auto& a, double v) { return a.first < v; });
    if (it == p_atoms.end() || it->first != x) return std::numeric_limits<double>::quiet_NaN();
    const auto k = static_cast<std::size_t>(it - p_atoms.begin());
    return loss(it->second, d_atoms[k].second);
  }
  // The error bound of the loss from a second computation with the roles swapped (d_backward = μ − ν): the
  // largest disagreement relative to min(p, q), times a safety factor, plus the rounding of the last step's sums
  // and the propagation's own estimate of what it left out (`relative`, e.g. an extrapolation, times the safety
  // factor), both relative to the largest loss.
  void set_error(const std::vector<double>& d_backward_nodes, const std::vector<double>& d_backward_atoms, std::size_t terms,
                 double relative = 0) {
    double worst = 0, largest = 0;
    auto compare = [&](double p_f, double d_f, double d_b) {
      const double scale = std::min(p_f, p_f + d_f);
      if (!(scale > 1e-300)) return;
      worst = std::max(worst, std::fabs(d_f + d_b) / scale);
      largest = std::max(largest, std::fabs(loss(p_f, d_f)));
    };
    for (std::size_t k = 0; k < p.size(); ++k) compare(p[k], d[k], d_backward_nodes[k]);
    for (std::size_t k = 0; k < p_atoms.size(); ++k) compare(p_atoms[k].second, d_atoms[k].second, d_backward_atoms[k]);
    error = kErrorSafety * worst +
            (4 * std::sqrt(static_cast<double>(terms)) * std::numeric_limits<double>::epsilon() + kErrorSafety * relative) * largest;
  }
};

// One side of a joint pair: side 0 is μ (values p), side 1 is ν (values p + d).
class PairedLaw final : public LawDecorator {
 public:
  PairedLaw(LawPtr grid, std::shared_ptr<const JointGrid> joint, int side)
      : LawDecorator(std::move(grid)), joint_(std::move(joint)), side_(side) {}
  const Law& undecorated() const override { return *this; }
  std::optional<ProcessPair> process_pair_with(const Law&) const override { return std::nullopt; }
  std::optional<PairLoss> loss_against(const Law& other) const override {
    const auto* o = dynamic_cast<const PairedLaw*>(&other.unwrapped());
    if (!o || o->joint_ != joint_ || o->side_ == side_) return std::nullopt;
    const double sign = side_ == 0 ? -1.0 : 1.0;  // log(dμ/dν) = −log(dν/dμ)
    PairLoss loss;
    loss.density = [j = joint_, sign](double x) { return sign * j->density_loss(x); };
    loss.atom = [j = joint_, sign](double x) { return sign * j->atom_loss(x); };
    loss.error = joint_->error;
    return loss;
  }

 private:
  std::shared_ptr<const JointGrid> joint_;
  int side_;
};

LawPtr grid_law(const IntervalLaw& law) { return std::make_shared<const GridLaw>(law.to_grid_law()); }

// p + d, with the rounding below zero clipped.
IntervalLaw sum(const IntervalLawPair& pair) {
  IntervalLaw q = pair.p;
  for (std::size_t k = 0; k < q.density.size(); ++k) q.density[k] = std::max(0.0, q.density[k] + pair.d.density[k]);
  for (std::size_t k = 0; k < q.atoms.size(); ++k) q.atoms[k].second = std::max(0.0, q.atoms[k].second + pair.d.atoms[k].second);
  return q;
}

}  // namespace

std::pair<LawPtr, LawPtr> joint_grid_laws(const IntervalLawPair& forward, const IntervalLawPair& backward) {
  const std::size_t n = forward.p.density.size();
  if (backward.p.density.size() != n || forward.p.atoms.size() != forward.d.atoms.size() ||
      backward.p.atoms.size() != forward.p.atoms.size())
    invalid_input("joint grid laws: the two propagations are not on the same grid");
  auto joint = std::make_shared<JointGrid>();
  joint->x0 = forward.p.lo;
  joint->dx = forward.p.h();
  joint->p = forward.p.density;
  joint->d = forward.d.density;
  joint->p_atoms = forward.p.atoms;
  joint->d_atoms = forward.d.atoms;
  // The backward propagation's μ − ν against the forward one's ν − μ. (Rounding of p itself is shared by both
  // laws, q = p + d, and does not reach the loss.)
  std::vector<double> backward_atoms;
  for (const auto& [x, w] : backward.d.atoms) backward_atoms.push_back(w);
  joint->set_error(backward.d.density, backward_atoms, n, std::max(forward.extrapolation_error, backward.extrapolation_error));
  std::shared_ptr<const JointGrid> shared = joint;
  return {std::make_shared<const PairedLaw>(grid_law(forward.p), shared, 0),
          std::make_shared<const PairedLaw>(grid_law(sum(forward)), shared, 1)};
}

LawPtr noisy_sgd_process_law(const NoisySgd& sgd, int i, double zi, int cells) {
  const ProcessIdentity family{"noisy_sgd",
                               {static_cast<double>(sgd.n), static_cast<double>(i), sgd.eta, sgd.sigma, sgd.lambda,
                                sgd.radius, sgd.x0, static_cast<double>(cells), sgd.feature_bound},
                               {sgd.loss_identity()}};
  check_exact_law(sgd, i, zi, cells);
  return std::make_shared<ProcessLaw>(
      std::make_shared<const LazyLaw>([sgd, i, zi, cells] { return grid_law(noisy_sgd_law(sgd, i, zi, cells)); }), family, std::vector<double>{zi},
      [sgd, i, cells](const std::vector<double>& mine, const std::vector<double>& theirs) {
        const auto [forward, backward] = noisy_sgd_pairs(sgd, i, mine[0], theirs[0], cells);
        return joint_grid_laws(forward, backward);
      },
      [sgd, i, zi](Rng& rng, std::span<double> out) {  // simulated runs of Algorithm 1
        for (double& v : out) v = simulate_noisy_sgd_1d(sgd, i, zi, rng);
      },
      sgd.n, [sgd, i](const std::vector<double>& mine, const std::vector<double>& theirs) {
        return std::pair{noisy_sgd_chain(sgd, i, mine[0]), noisy_sgd_chain(sgd, i, theirs[0])};
      });
}

LawPtr projected_chain_process_law(const ChainMap& map, double x0, int r, double sigma, double lo, double hi, int cells) {
  map.check(lo, hi);
  check_projected_chain(x0, r, sigma, lo, hi, cells);
  const auto psi = map.psi();
  const ProcessIdentity family{"projected_chain", {static_cast<double>(r), sigma, lo, hi, static_cast<double>(cells)},
                               {map.identity()}};
  return std::make_shared<ProcessLaw>(
      std::make_shared<const LazyLaw>([=] { return grid_law(projected_chain_law(psi, x0, r, sigma, lo, hi, cells)); }), family, std::vector<double>{x0},
      [psi, r, sigma, lo, hi, cells](const std::vector<double>& mine, const std::vector<double>& theirs) {
        const auto [forward, backward] = projected_chain_pairs(psi, mine[0], theirs[0], r, sigma, lo, hi, cells);
        return joint_grid_laws(forward, backward);
      },
      [psi, x0, r, sigma, lo, hi](Rng& rng, std::span<double> out) {  // simulated paths
        for (double& v : out) v = simulate_projected_chain(psi, x0, r, sigma, lo, hi, rng);
      },
      r, [map, r, sigma, lo, hi](const std::vector<double>& mine, const std::vector<double>& theirs) {
        const ChainStep step = map.step(sigma);
        return std::pair{ChainForm{lo, hi, mine[0], std::vector<ChainStep>(static_cast<std::size_t>(r), step)},
                         ChainForm{lo, hi, theirs[0], std::vector<ChainStep>(static_cast<std::size_t>(r), step)}};
      });
}

std::pair<LawPtr, LawPtr> joint_finite_laws(const std::vector<double>& at, const Eigen::VectorXd& p,
                                            const Eigen::VectorXd& d, const Eigen::VectorXd& d_backward) {
  const auto n = static_cast<std::size_t>(p.size());
  if (at.size() != n || static_cast<std::size_t>(d.size()) != n || static_cast<std::size_t>(d_backward.size()) != n)
    invalid_input("joint finite laws: sizes differ");
  auto joint = std::make_shared<JointGrid>();
  Eigen::VectorXd q(p.size());
  for (std::size_t k = 0; k < n; ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    joint->p_atoms.emplace_back(at[k], p[i]);
    joint->d_atoms.emplace_back(at[k], d[i]);
    q[i] = std::max(0.0, p[i] + d[i]);
  }
  joint->set_error({}, std::vector<double>(d_backward.data(), d_backward.data() + d_backward.size()), n);
  std::shared_ptr<const JointGrid> shared = joint;
  return {std::make_shared<const PairedLaw>(std::make_shared<const FiniteLaw>(at, p), shared, 0),
          std::make_shared<const PairedLaw>(std::make_shared<const FiniteLaw>(at, q / q.sum()), shared, 1)};
}

}  // namespace privamp::sim
