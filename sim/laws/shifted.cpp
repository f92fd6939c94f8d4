#include "sim/laws/shifted.hpp"

#include <fmt/format.h>

#include "numerics/errors.hpp"

namespace privamp::sim {

Shifted::Shifted(LawPtr base, double by) : base_(std::move(base)), by_(by) {
  check_finite("shift", "by", by);
  if (base_->dimension() != 1) throw InvalidArgument("shift: the law must be one-dimensional");
  for (const Atom& a : base_->atoms()) atoms_.push_back({a.x + by_, a.log_mass});
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
TailShape Shifted::left_tail() const {
  TailShape t = base_->left_tail();
  if (!t.bounded()) t.lin += 2 * t.quad * by_;
  return t;
}

TailShape Shifted::right_tail() const {
  TailShape t = base_->right_tail();
  if (!t.bounded()) t.lin -= 2 * t.quad * by_;
  return t;
}

std::optional<double> Shifted::mean() const {
  const auto m = base_->mean();
  if (!m) return std::nullopt;
  return *m + by_;
}

}  // namespace privamp::sim
