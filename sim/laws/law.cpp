#include "sim/laws/law.hpp"

#include <algorithm>
#include <stdexcept>

#include "numerics/errors.hpp"

namespace privamp::sim {

std::string Law::brief() const { return abbreviate(expression()); }

void Law::log_density(std::span<const double> x, std::span<double> out) const {
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = log_density(x[i]);
}

std::vector<double> Law::anchors() const {
  std::vector<double> a = breakpoints();
  a.push_back(location());
  for (const Atom& at : atoms()) a.push_back(at.x);
  return a;
}

double Law::log_tail_mass(double, bool) const {
  invalid_input("{}", brief() + ": no closed-form CDF for this law");
}

double Law::log_atom_mass(double x) const {
  const auto a = atoms();
  const auto it = std::lower_bound(a.begin(), a.end(), x, [](const Atom& at, double v) { return at.x < v; });
  if (it != a.end() && it->x == x) return it->log_mass;
  return -std::numeric_limits<double>::infinity();
}

void refuse_lumped(const Law& law, const std::string& what) {
  if (law.lumped())
    invalid_input("{}", what + ": " + law.brief() +
                          " lumps improbable outcomes into one (its divergences are widened for them only against its "
                          "own partner); it cannot be combined further: compare it directly (a shift of it is allowed)");
}

const Law& Law::unwrapped() const {
  const auto* d = dynamic_cast<const LawDecorator*>(this);
  return d ? d->undecorated() : *this;
}

void LazyLaw::check_declared() const {
  const Computation c = law_->computation();
  const bool same = law_->dimension() == dimension_ && c.log_density_error == computation_.log_density_error &&
                    c.density_cost == computation_.density_cost && c.sample_cost == computation_.sample_cost &&
                    c.lumped.has_value() == computation_.lumped.has_value() &&
                    (!c.lumped || (c.lumped->x == computation_.lumped->x &&
                                   c.lumped->max_log_ratio == computation_.lumped->max_log_ratio)) &&
                    c.discretisation == nullptr && computation_.discretisation == nullptr;
  if (!same) throw std::logic_error("a lazily built law differs from what it declared: " + law_->expression());
}

void ProcessLaw::sample_into(Rng& rng, std::span<double> out) const {
  if (simulate_) simulate_(rng, out);
  else LawDecorator::sample_into(rng, out);
}

std::optional<ProcessPair> ProcessLaw::process_pair_with(const Law& other) const {
  const auto* o = dynamic_cast<const ProcessLaw*>(&other.unwrapped());
  if (!o || !(o->identity_ == identity_)) return std::nullopt;
  ProcessPair pair;
  if (joint_) pair.joint = [joint = joint_, mine = varying_, theirs = o->varying_] { return joint(mine, theirs); };
  if (chain_) pair.chains = [chain = chain_, mine = varying_, theirs = o->varying_] { return chain(mine, theirs); };
  return pair;
}

std::optional<std::pair<LawPtr, LawPtr>> Law::joint_with(const Law& other) const {
  const auto pair = process_pair_with(other);
  if (!pair || !pair->joint) return std::nullopt;
  return pair->joint();
}

std::optional<std::pair<ChainForm, ChainForm>> Law::chain_forms_with(const Law& other) const {
  const auto pair = process_pair_with(other);
  if (!pair || !pair->chains) return std::nullopt;
  return pair->chains();
}

std::optional<Enclosure> Law::log_density_range(double a, double b) const {
  const LogDensityRanges* r = computation().ranges;
  return r ? r->range(a, b) : std::nullopt;
}

}  // namespace privamp::sim
