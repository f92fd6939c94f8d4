#include "sim/laws/shifted.hpp"

#include <cmath>

#include <fmt/format.h>

#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "sim/laws/spec.hpp"

namespace privamp::sim {

Shifted::Shifted(LawPtr base, double by) : base_(std::move(base)), by_(by) {
  check_finite("shift", "by", by);
  if (base_->dimension() != 1) invalid_input("shift: the law must be one-dimensional");
  // Where the shifted law lies, doubles must still resolve it: its density is evaluated at x − by, and atoms must stay
  // apart. A shift that moves it to where doubles are coarser than a millionth of its scale (1e17: 16 apart) would
  // make two laws that differ by 1 equal, silently.
  const Shape shape = base_->shape();
  if (shape.continuous_mass > 0) {
    const double far = std::fabs(shape.location + by_) + 10 * shape.scale;
    const double spacing = std::nextafter(far, kInf) - far;
    if (!(spacing <= 1e-6 * shape.scale))
      invalid_input("shift: by = {} moves {} to where doubles are {:.3g} apart, more than a millionth of its scale ({}): its "
                    "density cannot be resolved there (a common shift of both laws does not change a divergence: leave it out)",
                    format_number(by_), base_->brief(), spacing, format_number(shape.scale));
  }
  for (const Atom& a : base_->atoms()) {
    if (!atoms_.empty() && a.x + by_ <= atoms_.back().x)
      invalid_input("shift: by = {} merges the atoms of {} at {} and {} (doubles there are too coarse to keep them apart)",
                    format_number(by_), base_->brief(), format_number(atoms_.back().x - by_), format_number(a.x));
    atoms_.push_back({a.x + by_, a.log_mass});
  }
}

std::string Shifted::expression() const {
  return fmt::format("shift({}, by={})", base_->expression(), format_number(by_));
}

void Shifted::log_density(std::span<const double> x, std::span<double> out) const {
  std::vector<double> moved(x.begin(), x.end());
  for (double& v : moved) v -= by_;
  base_->log_density(moved, out);
}

std::vector<double> Shifted::breakpoints() const {
  auto b = base_->breakpoints();
  for (double& v : b) v += by_;
  return b;
}

std::vector<double> Shifted::anchors() const {
  auto a = base_->anchors();
  for (double& v : a) v += by_;
  return a;
}

// A shift by c changes log p(x) = −q x² − l|x| by the cross term 2qc·x: on the right tail l decreases by 2qc,
// on the left it increases by 2qc.
Shape Shifted::shape() const {
  Shape s = base_->shape();  // once: nested shifts would otherwise cost 2^depth
  s.support = {s.support.lo + by_, s.support.hi + by_};
  s.location += by_;
  if (!s.left.bounded()) s.left.lin += 2 * s.left.quad * by_;
  if (!s.right.bounded()) s.right.lin -= 2 * s.right.quad * by_;
  return s;
}

Moments Shifted::moments() const {
  Moments m = base_->moments();
  if (m.mean) *m.mean += by_;
  return m;
}

void Shifted::sample_into(Rng& rng, std::span<double> out) const {
  base_->sample_into(rng, out);
  for (double& v : out) v += by_;
}

Computation Shifted::computation() const {
  Computation c = base_->computation();
  if (c.lumped) c.lumped->x += by_;
  c.discretisation = nullptr;
  return c;
}

// ---- The law of the expression language (sim/laws/spec.hpp).

LawSpec shift_law_spec() {
  using K = ParamKind;
  return {"shift", "the law translated by a constant: X + by",
    {{"law", K::law, std::nullopt, "any one-dimensional law"}, {"by", K::number, std::nullopt, "the translation"}},
    "shift(laplace(0, 1), by=2)",
    [](const Args& a) { return std::make_shared<Shifted>(a.law("law"), a.number("by")); }};
}
PRIVAMP_LAW(210, shift_law_spec);

}  // namespace privamp::sim
