#include "sim/laws/gaussian.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/special.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

Gaussian::Gaussian(double mean, double sigma) : mean_(mean), sigma_(sigma) {
  check_finite("gaussian", "loc", mean);
  check_scale("gaussian", "sigma", sigma);
  log_norm_ = -std::log(sigma) - 0.5 * std::log(2 * std::numbers::pi);
}

std::string Gaussian::expression() const {
  return fmt::format("gaussian(loc={}, sigma={})", format_number(mean_), format_number(sigma_));
}

double Gaussian::log_density(double x) const {
  const double z = (x - mean_) / sigma_;
  return -0.5 * z * z + log_norm_;
}

void Gaussian::log_density(std::span<const double> x, std::span<double> out) const {
  const double inv = 1.0 / sigma_;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double z = (x[i] - mean_) * inv;
    out[i] = -0.5 * z * z + log_norm_;
  }
}

double Gaussian::log_tail_mass(double x, bool upper) const {
  return log_normal_cdf(upper ? (mean_ - x) / sigma_ : (x - mean_) / sigma_);
}

void Gaussian::sample_into(Rng& rng, std::span<double> out) const {
  rng.normal(out);
  for (double& v : out) v = mean_ + sigma_ * v;
}

GaussianND::GaussianND(std::vector<double> mean, double sigma) : mean_(std::move(mean)), sigma_(sigma) {
  if (mean_.empty()) throw InvalidArgument("gaussian_nd: parameter 'loc' must have at least one coordinate");
  for (double m : mean_) check_finite("gaussian_nd", "loc", m);
  check_scale("gaussian_nd", "sigma", sigma);
}

std::string GaussianND::expression() const {
  std::vector<std::string> parts;
  for (double m : mean_) parts.push_back(format_number(m));
  return fmt::format("gaussian_nd(loc=[{}], sigma={})", fmt::join(parts, ", "), format_number(sigma_));
}

namespace {
[[noreturn]] void only_closed_form(const GaussianND& g) {
  throw InvalidArgument(g.expression() +
                        ": a d-dimensional Gaussian supports only closed-form divergences against another isotropic "
                        "Gaussian of the same dimension and sigma");
}
}  // namespace

double GaussianND::log_density(double) const { only_closed_form(*this); }
Shape GaussianND::shape() const { only_closed_form(*this); }
void GaussianND::sample_into(Rng&, std::span<double>) const { only_closed_form(*this); }

}  // namespace privamp::sim
