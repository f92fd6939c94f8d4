#include "sim/laws/laplace.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "numerics/errors.hpp"
#include "numerics/log_space.hpp"
#include "sim/laws/spec.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

Laplace::Laplace(double mean, double scale) : mean_(mean), b_(scale) {
  check_finite("laplace", "loc", mean);
  check_scale("laplace", "scale", scale);
  log_norm_ = -std::log(2 * scale);
}

std::string Laplace::expression() const {
  return fmt::format("laplace(loc={}, scale={})", format_number(mean_), format_number(b_));
}

double Laplace::log_density(double x) const { return -std::fabs(x - mean_) / b_ + log_norm_; }

// −|x − mean|/b + log_norm over [a, b], widened by the rounding of each end's evaluation.
std::optional<Enclosure> Laplace::range(double a, double b) const {
  const double near = mean_ < a ? a - mean_ : mean_ > b ? mean_ - b : 0;
  const double far = std::max(std::fabs(a - mean_), std::fabs(b - mean_));
  const double zn = near / b_, zf = far / b_, eps = std::numeric_limits<double>::epsilon();
  return Enclosure{-zf + log_norm_ - 8 * eps * (zf + std::fabs(log_norm_)), -zn + log_norm_ + 8 * eps * (zn + std::fabs(log_norm_))};
}

void Laplace::log_density(std::span<const double> x, std::span<double> out) const {
  const double inv = 1.0 / b_;
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = -std::fabs(x[i] - mean_) * inv + log_norm_;
}

double Laplace::log_tail_mass(double x, bool upper) const {
  const double z = upper ? (mean_ - x) / b_ : (x - mean_) / b_;  // the lower tail of the mirrored law
  return z < 0 ? z - std::numbers::ln2 : std::log1p(-0.5 * std::exp(-z));
}

void Laplace::sample_into(Rng& rng, std::span<double> out) const {
  for (double& v : out) {
    const double u = rng.uniform() - 0.5;
    v = mean_ - b_ * std::copysign(std::log1p(-2 * std::fabs(u)), u);
  }
}

namespace {
// The partial fractions of distinct scales (s the largest): log|c_j|/(2b_j) and the signs of c_j; returns log K, the
// cancellation bound of the header (from the double coefficients: a factor 1 + 1e-12 off at most, enough to choose
// the arithmetic and to refuse what 50 digits cannot hold).
double partial_fractions(const std::vector<double>& scales, double s, std::vector<double>& log_coef, std::vector<int>& sign) {
  const std::size_t n = scales.size();
  double log_k = std::log(2 * s);
  LogSumAccumulator<double> total;
  for (std::size_t j = 0; j < n; ++j) {
    double log_c = 0;
    int sg = 1;
    const double bj2 = scales[j] * scales[j];
    for (std::size_t k = 0; k < n; ++k) {
      if (k == j) continue;
      const double diff = bj2 - scales[k] * scales[k];
      log_c += std::log(bj2) - std::log(std::fabs(diff));
      if (diff < 0) sg = -sg;
    }
    log_coef.push_back(log_c - std::log(2 * scales[j]));
    sign.push_back(sg);
    total.add(log_coef.back());
    if (scales[j] != s) log_k += std::log1p(scales[j] / s);
  }
  return log_k + total.value();
}

// The scales a sum of Laplaces can take (its constructor and its spec's check at load share this): equal scales are a
// finite sum of n terms per density value (n-fold convolution), two scales a factored closed form, more distinct ones
// partial fractions whose coefficients cancel more with every term. Beyond these sizes the quadrature takes minutes
// or the density loses its digits.
void check_laplace_scales(const std::vector<double>& scales) {
  if (scales.empty()) invalid_input("laplace_sum: parameter 'scales' must list at least one scale");
  for (double b : scales) check_scale("laplace_sum", "scales", b);
  const std::size_t n = scales.size();
  if (n > 1000) throw_invalid("laplace_sum", "number of scales", static_cast<double>(n), "at most 1000 (equal scales)");
  if (std::all_of(scales.begin(), scales.end(), [&](double b) { return b == scales[0]; }) || n == 2) return;
  if (n > 20) throw_invalid("laplace_sum", "number of distinct scales", static_cast<double>(n), "at most 20 (or all equal)");
  std::vector<double> sorted = scales;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < n; ++i)
    if (sorted[i] - sorted[i - 1] < 1e-2 * sorted[i - 1])
      invalid_input("laplace_sum: parameter 'scales' has scales {} and {} less than 1% apart (relative to the smaller); give "
                    "either all-equal, two, or well-separated scales",
                    format_number(sorted[i - 1]), format_number(sorted[i]));
  // Unreached under the 1% rule (twenty scales 1% apart cancel by about 1e26), which does not bound it by itself.
  std::vector<double> log_coef;
  std::vector<int> sign;
  const double log_k = partial_fractions(scales, sorted.back(), log_coef, sign);
  if (log_k > 33 * std::numbers::ln10)
    invalid_input("laplace_sum: the partial fractions of these scales cancel by a factor of about 1e{:.0f}, beyond the 50 "
                  "digits the density is computed with; give fewer or further-apart scales", log_k / std::numbers::ln10);
}
}  // namespace

double laplace_sum_cancellation(const std::vector<double>& scales) {
  check_laplace_scales(scales);
  if (scales.size() <= 2 || std::all_of(scales.begin(), scales.end(), [&](double b) { return b == scales[0]; })) return 1;
  std::vector<double> log_coef;
  std::vector<int> sign;
  return std::exp(partial_fractions(scales, *std::max_element(scales.begin(), scales.end()), log_coef, sign));
}

struct LaplaceSum::Terms50 {
  using Real = boost::multiprecision::cpp_bin_float_50;
  std::vector<Real> coef, rate;  // c_j/(2b_j) with its sign, and 1/b_j
};

LaplaceSum::LaplaceSum(double loc, std::vector<double> scales) : loc_(loc), scales_(std::move(scales)) {
  check_finite("laplace_sum", "loc", loc);
  check_laplace_scales(scales_);
  const std::size_t n = scales_.size();
  max_scale_ = *std::max_element(scales_.begin(), scales_.end());
  equal_ = std::all_of(scales_.begin(), scales_.end(), [&](double b) { return b == scales_[0]; });
  if (equal_) {
    const double b = scales_[0];
    const double nn = static_cast<double>(n);
    log_norm_ = -std::lgamma(nn) - nn * std::numbers::ln2 - std::log(b);
    for (std::size_t k = 0; k < n; ++k) {
      const double kk = static_cast<double>(k);
      log_coef_.push_back(std::lgamma(nn + kk) - std::lgamma(kk + 1) - std::lgamma(nn - kk) - kk * std::numbers::ln2);
    }
    return;
  }
  if (n == 2) return;  // a closed form without cancellation at any two scales (log_density)
  const double log_k = partial_fractions(scales_, max_scale_, log_coef_, sign_);
  if (log_k <= std::log(16.0)) return;
  using Real = Terms50::Real;
  auto terms = std::make_shared<Terms50>();
  for (std::size_t j = 0; j < n; ++j) {
    const Real bj(scales_[j]), bj2 = bj * bj;
    Real c = 1 / (2 * bj);
    for (std::size_t k = 0; k < n; ++k)
      if (k != j) c *= bj2 / (bj2 - Real(scales_[k]) * Real(scales_[k]));
    terms->coef.push_back(c);
    terms->rate.push_back(1 / bj);
  }
  terms50_ = std::move(terms);
}

std::string LaplaceSum::expression() const {
  std::vector<std::string> parts;
  for (double b : scales_) parts.push_back(format_number(b));
  return fmt::format("laplace_sum(loc={}, scales=[{}])", format_number(loc_), fmt::join(parts, ", "));
}

Moments LaplaceSum::moments() const {
  double v = 0;
  for (double b : scales_) v += 2 * b * b;
  return {loc_, v};
}

Shape LaplaceSum::shape() const {
  const TailShape tail{0, 1 / max_scale_};
  // √(Σ b²), the scales divided by the largest first: b = 1e-200 squared underflows (a scale of 0 once).
  double sum = 0;
  for (double b : scales_) sum += (b / max_scale_) * (b / max_scale_);
  return {.continuous_mass = 1, .support = {}, .location = loc_, .scale = max_scale_ * std::sqrt(sum), .left = tail, .right = tail,
          .fine_scale = *std::min_element(scales_.begin(), scales_.end())};
}

double LaplaceSum::log_density(double x) const {
  const double y = std::fabs(x - loc_);
  const std::size_t n = scales_.size();
  if (equal_) {
    const double b = scales_[0];
    const double log_r = std::log(y / b);
    LogSumAccumulator<double> acc;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t power = n - 1 - k;
      acc.add(log_coef_[k] + (power == 0 ? 0.0 : static_cast<double>(power) * log_r));
    }
    return -y / b + log_norm_ + acc.value();
  }
  if (n == 2) {
    // Two scales a < b: the partial fractions (b e^{−y/b} − a e^{−y/a}) / (2(b² − a²)) cancel as a → b. Factored,
    //   f(y) = e^{−y/b} (1 + (y/b) E(u)) / (2(a + b)),  u = −y(b − a)/(ab) ≤ 0,  E(u) = expm1(u)/u ∈ (0, 1],
    // every term is positive: accurate to a few ulps at any two scales, equal ones included (E(0) = 1).
    const double a = std::min(scales_[0], scales_[1]), b = max_scale_;
    const double u = -y * ((b - a) / a) / b;
    const double e = u == 0 ? 1.0 : std::expm1(u) / u;
    return -y / b - std::log(2 * (a + b)) + std::log1p((y / b) * e);
  }
  if (terms50_) {
    Terms50::Real sum = 0;
    const Terms50::Real yy(y);
    for (std::size_t j = 0; j < n; ++j) sum += terms50_->coef[j] * exp(-yy * terms50_->rate[j]);
    if (!(sum > 0)) return -std::numeric_limits<double>::infinity();  // not reached: K·1e-50 is far below 1
    return static_cast<double>(log(sum));
  }
  LogSumAccumulator<double> pos, neg;
  for (std::size_t j = 0; j < n; ++j) {
    const double term = log_coef_[j] - y / scales_[j];
    (sign_[j] > 0 ? pos : neg).add(term);
  }
  const double p = pos.value(), q = neg.value();
  if (!(p > q)) return -std::numeric_limits<double>::infinity();  // only by rounding far below any mass
  return log_sub(p, q);
}

void LaplaceSum::sample_into(Rng& rng, std::span<double> out) const {
  for (double& s : out) {
    s = loc_;
    for (double b : scales_) {
      const double u = rng.uniform() - 0.5;
      s -= b * std::copysign(std::log1p(-2 * std::fabs(u)), u);
    }
  }
}

// ---- The laws of the expression language (sim/laws/spec.hpp).

LawSpec laplace_law_spec() {
  using K = ParamKind;
  return {"laplace", "Laplace law with density exp(-|x-loc|/scale)/(2 scale)",
    {{"loc", K::number, "0", "centre"}, ParamSpec{"scale", K::number, "1", "scale b, > 0"}.within(Range::scale())},
    "laplace(loc=1, scale=0.5)",
    [](const Args& a) {
      auto l = std::make_shared<Laplace>(a.number("loc"), a.number("scale"));
      l->set_parameters_exact();
      return l;
    }};
}
PRIVAMP_LAW(120, laplace_law_spec);

LawSpec laplace_sum_law_spec() {
  using K = ParamKind;
  return {"laplace_sum", "loc + a sum of independent Laplace(0, b_j) (closed-form density)",
    {{"loc", K::number, "0", "shift"},
    ParamSpec{"scales", K::numbers, std::nullopt, "the scales b_j: all equal (at most 1000), any two, or three to 20 with each two at least 1% apart (relative to the smaller)"}.within(Range::scale())},
    "laplace_sum(loc=1, scales=[1, 2])",
    [](const Args& a) { return std::make_shared<LaplaceSum>(a.number("loc"), a.numbers("scales")); },
    false, {}, [](const Args& a) { check_laplace_scales(a.numbers("scales")); }};
}
PRIVAMP_LAW(130, laplace_sum_law_spec);

LawSpec laplace_nfold_law_spec() {
  using K = ParamKind;
  return {"laplace_nfold", "loc + the sum of n independent Laplace(0, scale) (n-fold convolution)",
    {ParamSpec{"n", K::integer, std::nullopt, "number of terms, 1 <= n <= 1000"}.within(Range::between(1, 1000)),
    {"loc", K::number, "0", "shift"},
    ParamSpec{"scale", K::number, "1", "scale of each term, > 0"}.within(Range::scale())},
    "laplace_nfold(n=10, loc=0.1, scale=1)",
    [](const Args& a) {
      const long n = a.integer("n");
      if (n < 1 || n > 1000) throw_invalid("laplace_nfold", "n", static_cast<double>(n), "1 <= n <= 1000");
      return std::make_shared<LaplaceSum>(a.number("loc"),
                                          std::vector<double>(static_cast<std::size_t>(n), a.number("scale")));
    }};
}
PRIVAMP_LAW(140, laplace_nfold_law_spec);

}  // namespace privamp::sim
