#include "sim/laws/gaussian.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/special.hpp"
#include "sim/laws/spec.hpp"
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

// −z²/2 + log_norm over [a, b], z = (x − mean)/σ: largest at the point nearest the mean, smallest at the farthest;
// widened by the rounding of each end's evaluation (a few ulps of each term).
std::optional<Enclosure> Gaussian::range(double a, double b) const {
  const double near = mean_ < a ? a - mean_ : mean_ > b ? mean_ - b : 0;
  const double far = std::max(std::fabs(a - mean_), std::fabs(b - mean_));
  const double zn = near / sigma_, zf = far / sigma_, eps = std::numeric_limits<double>::epsilon();
  const double hi = -0.5 * zn * zn + log_norm_, lo = -0.5 * zf * zf + log_norm_;
  return Enclosure{lo - 8 * eps * (0.5 * zf * zf + std::fabs(log_norm_)), hi + 8 * eps * (0.5 * zn * zn + std::fabs(log_norm_))};
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
  if (mean_.empty()) invalid_input("gaussian_nd: parameter 'loc' must have at least one coordinate");
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
  invalid_input("{}", g.brief() +
                        ": a d-dimensional Gaussian supports only closed-form divergences against another isotropic "
                        "Gaussian of the same dimension and sigma");
}
}  // namespace

double GaussianND::log_density(double) const { only_closed_form(*this); }
Shape GaussianND::shape() const { only_closed_form(*this); }
void GaussianND::sample_into(Rng&, std::span<double>) const { only_closed_form(*this); }

// ---- The laws of the expression language (sim/laws/spec.hpp).

LawSpec gaussian_law_spec() {
  using K = ParamKind;
  return {"gaussian", "normal law N(loc, sigma^2) on R",
    {{"loc", K::number, "0", "mean"}, ParamSpec{"sigma", K::number, "1", "standard deviation, > 0"}.within(Range::scale())},
    "gaussian(loc=1, sigma=2)",
    [](const Args& a) {
      auto g = std::make_shared<Gaussian>(a.number("loc"), a.number("sigma"));
      g->set_parameters_exact();
      return g;
    }};
}
PRIVAMP_LAW(10, gaussian_law_spec);

LawSpec gaussian_nd_law_spec() {
  using K = ParamKind;
  return {"gaussian_nd", "isotropic normal law N(loc, sigma^2 I) on R^d (closed-form divergences only)",
    {{"loc", K::numbers, std::nullopt, "mean vector"}, ParamSpec{"sigma", K::number, "1", "standard deviation, > 0"}.within(Range::scale())},
    "gaussian_nd(loc=[1, 0, 2], sigma=1)",
    [](const Args& a) {
      auto g = std::make_shared<GaussianND>(a.numbers("loc"), a.number("sigma"));
      g->set_parameters_exact();
      return g;
    },
    /*variadic=*/false, [](const Args& a) { return static_cast<long>(a.numbers("loc").size()); }};
}
PRIVAMP_LAW(20, gaussian_nd_law_spec);

}  // namespace privamp::sim
