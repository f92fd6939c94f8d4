#include "sim/laws/mixture.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/log_space.hpp"
#include "numerics/special.hpp"
#include "sim/laws/shifted.hpp"
#include "sim/laws/spec.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

namespace {
// The heavier of two tails (the one that decays slower dominates a mixture).
TailShape heavier(const TailShape& a, const TailShape& b) {
  if (a.quad != b.quad) return a.quad < b.quad ? a : b;
  return a.lin <= b.lin ? a : b;
}
}  // namespace

Mixture::Mixture(std::vector<double> weights, std::vector<LawPtr> components)
    : weights_(std::move(weights)), components_(std::move(components)) {
  if (weights_.size() != components_.size())
    invalid_input("mixture: {} weights for {} laws; give one weight per law", weights_.size(),
                  components_.size());
  if (components_.empty()) invalid_input("mixture: parameter 'laws' must list at least one law");
  double total = 0;
  for (double w : weights_) {
    check_probability("mixture", "weights", w);
    total += w;
  }
  if (std::fabs(total - 1) > 1e-12 * static_cast<double>(weights_.size()))
    invalid_input("mixture: parameter 'weights' sums to {}, not 1", format_number(total));
  for (const LawPtr& c : components_) {
    if (c->dimension() != 1) invalid_input("mixture: components must be one-dimensional laws");
    refuse_lumped(*c, "mixture");
  }
  shape_ = {.continuous_mass = 0, .support = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()},
            .location = 0, .scale = 0, .left = TailShape::none(), .right = TailShape::none()};
  std::map<double, LogSumAccumulator<double>> merged;
  double acc = 0, atom_mass = 0;
  for (std::size_t i = 0; i < weights_.size(); ++i) {
    const double lw = std::log(weights_[i]);
    log_weights_.push_back(lw);
    acc += weights_[i];
    cumulative_.push_back(acc);
    if (weights_[i] == 0) continue;
    const Law& c = *components_[i];
    for (const Atom& a : c.atoms()) merged[a.x].add(lw + a.log_mass);
    const Shape cs = c.shape();
    shape_.continuous_mass += weights_[i] * cs.continuous_mass;
    atom_mass += weights_[i] * (1 - cs.continuous_mass);
    shape_.location += weights_[i] * cs.location;
    shape_.scale = std::max(shape_.scale, cs.scale);
    // (a component's own scale is a feature of the mixture: a bump 1e-4 wide beside a Laplace kink)
    if (const double fine = cs.fine_scale > 0 ? cs.fine_scale : cs.scale; cs.continuous_mass > 0 && fine > 0)
      shape_.fine_scale = shape_.fine_scale > 0 ? std::min(shape_.fine_scale, fine) : fine;
    if (cs.continuous_mass > 0) {
      shape_.left = heavier(shape_.left, cs.left);
      shape_.right = heavier(shape_.right, cs.right);
      shape_.support.lo = std::min(shape_.support.lo, cs.support.lo);
      shape_.support.hi = std::max(shape_.support.hi, cs.support.hi);
    }
  }
  for (auto& [x, s] : merged) atoms_.push_back({x, s.value()});
  // The weights sum to 1 only up to rounding: a mixture of densities has no atoms, and its continuous mass is 1
  // exactly (a sum such as 0.9999999999999998 would read as an atom of mass 2e-16 to the engines that ask).
  shape_.continuous_mass = atom_mass == 0 || atoms_.empty() ? 1 : std::min(shape_.continuous_mass, 1.0);
}

std::string Mixture::expression() const {
  std::vector<std::string> w, l;
  for (double v : weights_) w.push_back(format_number(v));
  for (const LawPtr& c : components_) l.push_back(c->expression());
  return fmt::format("mixture(weights=[{}], laws=[{}])", fmt::join(w, ", "), fmt::join(l, ", "));
}

double Mixture::log_density(double x) const {
  LogSumAccumulator<double> acc;
  for (std::size_t i = 0; i < components_.size(); ++i)
    if (weights_[i] > 0) acc.add(log_weights_[i] + components_[i]->log_density(x));
  return acc.value();
}

void Mixture::log_density(std::span<const double> x, std::span<double> out) const {
  std::vector<double> tmp(x.size());
  std::fill(out.begin(), out.end(), neg_inf<double>());
  for (std::size_t i = 0; i < components_.size(); ++i) {
    if (weights_[i] == 0) continue;
    components_[i]->log_density(x, tmp);
    for (std::size_t k = 0; k < x.size(); ++k) out[k] = log_add(out[k], log_weights_[i] + tmp[k]);
  }
}

std::vector<double> Mixture::breakpoints() const {
  std::vector<double> b;
  for (const LawPtr& c : components_) {
    auto cb = c->breakpoints();
    b.insert(b.end(), cb.begin(), cb.end());
  }
  return b;
}

std::vector<double> Mixture::anchors() const {
  std::vector<double> a;
  for (const LawPtr& c : components_) {
    auto ca = c->anchors();
    a.insert(a.end(), ca.begin(), ca.end());
  }
  return a;
}

double Mixture::log_tail_mass(double x, bool upper) const {
  LogSumAccumulator<double> acc;
  for (std::size_t i = 0; i < components_.size(); ++i)
    if (weights_[i] > 0) acc.add(log_weights_[i] + components_[i]->log_tail_mass(x, upper));
  return acc.value();
}

Moments Mixture::moments() const {
  double m = 0;
  for (std::size_t i = 0; i < components_.size(); ++i) {
    const auto cm = components_[i]->mean();
    if (!cm) return {};
    m += weights_[i] * *cm;
  }
  return {m, std::nullopt};
}

void Mixture::sample_into(Rng& rng, std::span<double> out) const {
  for (double& v : out) {
    const double u = rng.uniform() * cumulative_.back();
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(it - cumulative_.begin()), components_.size() - 1);
    v = components_[i]->sample(rng);
  }
}

Computation Mixture::computation() const {
  Computation out;
  out.density_cost = 0;
  out.sample_cost = 0;
  for (const LawPtr& l : components_) {
    const Computation c = l->computation();
    out.log_density_error = std::max(out.log_density_error, c.log_density_error);
    out.density_cost += c.density_cost;
    out.sample_cost = std::max(out.sample_cost, c.sample_cost);
  }
  return out;
}

std::shared_ptr<const Mixture> binomial_mixture(long m, double p, const std::function<LawPtr(long)>& component) {
  std::vector<double> weights;
  std::vector<LawPtr> laws;
  double total = 0;
  // Every density evaluation visits every component: their number bounds the work, checked before building any.
  long kept = 0;
  for (long k = 0; k <= m; ++k) kept += std::exp(log_binomial_pmf(k, m, p)) >= 1e-300;
  if (kept > kMaxBinomialComponents)
    invalid_input("binomial_mix(m={}, p={}): {} components of weight >= 1e-300; at most {} (each density "
                  "evaluation visits every component): use a smaller m or p",
                  m, format_number(p), kept, kMaxBinomialComponents);
  Mixture::BinomialWeights source{m, p, {}};
  for (long k = 0; k <= m; ++k) {
    const double w = std::exp(log_binomial_pmf(k, m, p));
    if (w < 1e-300) continue;
    weights.push_back(w);
    laws.push_back(component(k));
    source.moves.push_back({k, laws.size() - 1, 1.0});
    total += w;
  }
  for (double& w : weights) w /= total;
  auto mixture = std::make_shared<Mixture>(weights, laws);
  mixture->set_binomial_weights(std::move(source));
  return mixture;
}

// ---- The laws of the expression language (sim/laws/spec.hpp).

LawSpec mixture_law_spec() {
  using K = ParamKind;
  return {"mixture", "finite mixture sum_i weights[i] * laws[i]",
    {ParamSpec{"weights", K::numbers, std::nullopt, "non-negative, summing to 1"}.within(Range::probability()).summing_to_one(),
    {"laws", K::laws, std::nullopt, "the components (any one-dimensional laws)"}},
    "mixture(weights=[0.9, 0.1], laws=[gaussian(0, 1), laplace(3, 1)])",
    [](const Args& a) { return std::make_shared<Mixture>(a.numbers("weights"), a.laws("laws")); }};
}
PRIVAMP_LAW(190, mixture_law_spec);

LawSpec mix_law_spec() {
  using K = ParamKind;
  return {"mix", "two-component mixture (1-q)*a + q*b, e.g. Poisson subsampling with rate q",
    {ParamSpec{"q", K::number, std::nullopt, "weight of b, in [0, 1]"}.within(Range::probability()),
    {"a", K::law, std::nullopt, "law taken with probability 1-q"},
    {"b", K::law, std::nullopt, "law taken with probability q"}},
    "mix(q=0.01, gaussian(0, 1), gaussian(1, 1))",
    [](const Args& a) {
      const double q = a.number("q");
      check_probability("mix", "q", q);
      return std::make_shared<Mixture>(std::vector<double>{1 - q, q}, std::vector<LawPtr>{a.law("a"), a.law("b")});
    }};
}
PRIVAMP_LAW(200, mix_law_spec);

LawSpec binomial_mix_law_spec() {
  using K = ParamKind;
  return {"binomial_mix", "sum_k Bin(k; m, p) (law + k step): a record drawn k times by sampling with replacement",
    {ParamSpec{"m", K::integer, std::nullopt, "number of draws, 1 <= m <= 100000"}.within(Range::between(1, 100000)),
    ParamSpec{"p", K::number, std::nullopt, "probability of drawing the record at each draw, in [0, 1]"}.within(Range::probability()),
    {"law", K::law, std::nullopt, "the law when the record is not drawn"},
    {"step", K::number, "1", "the shift per draw"}},
    "binomial_mix(m=10, p=0.01, law=gaussian(0, 1))",
    [](const Args& a) {
      const long m = a.integer("m");
      const double p = a.number("p"), step = a.number("step");
      if (m < 1 || m > 100000) throw_invalid("binomial_mix", "m", static_cast<double>(m), "1 <= m <= 100000");
      check_probability("binomial_mix", "p", p);
      check_finite("binomial_mix", "step", step);
      const LawPtr base = a.law("law");
      return binomial_mixture(m, p, [&](long k) -> LawPtr {
        if (k == 0) return base;
        const double by = static_cast<double>(k) * step;
        auto shifted = std::make_shared<Shifted>(base, by);
        if (std::fma(static_cast<double>(k), step, -by) != 0) shifted->set_by_inexact();
        return shifted;
      });
    }};
}
PRIVAMP_LAW(220, binomial_mix_law_spec);

}  // namespace privamp::sim
