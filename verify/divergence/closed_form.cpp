#include "verify/divergence/engine_entry.hpp"
#include "numerics/constants.hpp"
#include "verify/divergence/closed_form.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/log_space.hpp"
#include "numerics/special.hpp"

namespace privamp::verify {

namespace {

Estimate zero(const char* method) { return Estimate::from_value(0, 0, ErrorKind::exact, method); }

// Δ/b when it overflows a double: its log, with the logs' rounding (eps of each magnitude) as relative error.
Estimate log_ratio(double delta, double b, const char* method) {
  const double ld = std::log(delta), lb = std::log(b);
  return Estimate::from_log(ld - lb, 4 * kEps * (std::fabs(ld) + std::fabs(lb) + 1), ErrorKind::exact, method);
}

void check_common(const char* where, double delta, double scale, const char* scale_name) {
  check_nonnegative_finite(where, "delta", delta);
  check_positive_finite(where, scale_name, scale);
}
}  // namespace

Estimate gaussian_renyi(double delta, double sigma, double alpha) {
  check_common("gaussian_renyi", delta, sigma, "sigma");
  check_greater("gaussian_renyi", "alpha", alpha, 1);
  if (delta == 0) return zero("closed form GT.gauss.renyi");
  // In logs: αΔ²/(2σ²) under- or overflows for extreme ratios Δ/σ (1e-300, 1e300) while its log does not.
  const double la = std::log(alpha), ld = std::log(delta), ls = std::log(sigma);
  const double lv = la + 2 * (ld - ls) - std::numbers::ln2;
  // Each log is accurate to eps of its magnitude; exp turns their absolute errors into relative ones.
  const double rel = 4 * kEps * (std::fabs(la) + 2 * std::fabs(ld) + 2 * std::fabs(ls) + 2 + std::fabs(lv));
  return Estimate::from_log(lv, rel, ErrorKind::exact, "closed form GT.gauss.renyi");
}

Estimate gaussian_kl(double delta, double sigma) {
  check_common("gaussian_kl", delta, sigma, "sigma");
  if (delta == 0) return zero("closed form GT.gauss.renyi (alpha -> 1)");
  const double ld = std::log(delta), ls = std::log(sigma);
  const double lv = 2 * (ld - ls) - std::numbers::ln2;
  const double rel = 4 * kEps * (2 * std::fabs(ld) + 2 * std::fabs(ls) + 2 + std::fabs(lv));
  return Estimate::from_log(lv, rel, ErrorKind::exact, "closed form GT.gauss.renyi (alpha -> 1)");
}

// HS_ε of N(Δ, σ²) against N(0, σ²) far in the tail: a = u − v < −100 with u = Δ/2σ, v = εσ/Δ, b = −u − v.
// There log Φ(a) and log Φ(b) agree in every printed digit and their difference (the whole answer) is lost in
// rounding. With the Mills-ratio series log Φ(z) = −z²/2 − log(−z) − ½ log 2π + log M(z), M(z) = 1 − z⁻² + 3z⁻⁴ −
// 15z⁻⁶ + R, |R| ≤ 105 z⁻⁸ (an alternating asymptotic series: the remainder is below the first omitted term), and
// b² − a² = 4uv = 2ε exactly, x = ε + log Φ(b) − log Φ(a) = −log1p(2u/(v − u)) + log M(b) − log M(a) has no
// cancellation; δ = Φ(a)(1 − eˣ) far below the double range, so it is returned in log space with an absolute error
// of its log. Beyond a = −10¹⁵⁰ (a² overflows) only an upper end is given: log δ ≤ log Φ(a) ≤ −a²/2 < −5·10²⁹⁹.
static Estimate gaussian_hockey_stick_far(double u, double v, const char* method) {
  const double a = u - v, b = -u - v;
  if (!(a > -1e150)) {
    Estimate e = Estimate::from_value(0, 0, ErrorKind::exact, method);
    e.set_log_upper(-5e299);  // linear: the smallest positive double (the truth is far below it, and above 0)
    return e;
  }
  const auto log_m = [](double z) {
    const double t = 1 / (z * z);
    return std::log1p(-t + 3 * t * t - 15 * t * t * t);
  };
  const double remainder = 105 / std::pow(a, 8);  // |R| for a and (|b| > |a|) for b, each at most this
  const double x = -std::log1p(2 * u / (v - u)) + log_m(b) - log_m(a);
  const double x_err = 2 * remainder / (1 - 1 / (a * a)) + 16 * kEps * (std::fabs(x) + 1 / (a * a));
  if (!(x < 0) || !(x + x_err < 0)) {  // 1 − eˣ not resolved from 0: an upper end only
    Estimate e = Estimate::from_value(0, 0, ErrorKind::exact, method);
    e.set_log_upper(-0.5 * a * a - std::log(-a) - 0.5 * std::log(2 * std::numbers::pi) +
                    std::log(-std::expm1(-std::fabs(x) - x_err)) + 8 * kEps * a * a);
    return e;
  }
  const double la = -0.5 * a * a - std::log(-a) - 0.5 * std::log(2 * std::numbers::pi) + log_m(a);
  const double la_err = 8 * kEps * (0.5 * a * a + std::fabs(std::log(-a)) + 1) + 2 * remainder;
  const double l1 = std::log(-std::expm1(x));
  // d/dx log(1 − eˣ) = −eˣ/(1 − eˣ): the error of x, amplified; evaluated at the end of x's interval nearest 0.
  const double near = x + x_err;
  const double l1_err = x_err * std::exp(near) / -std::expm1(near) + 8 * kEps * std::fabs(l1);
  return Estimate::from_log_interval(la + l1, la_err + l1_err, ErrorKind::exact, method);
}

Estimate gaussian_hockey_stick(double delta, double sigma, double eps) {
  check_common("gaussian_hockey_stick", delta, sigma, "sigma");
  check_nonnegative_finite("gaussian_hockey_stick", "eps", eps);
  const char* method = "closed form GT.gauss.hs";
  if (delta == 0) return zero(method);
  // Δ/σ beyond 1e150: the arguments' squares overflow; HS = Φ(a) − e^ε Φ(b) is then 1 to within e^{-1e299}.
  if (delta / sigma > 1e150) {
    Estimate e = Estimate::from_value(1, 0, ErrorKind::exact, method);
    e.set_lower(std::nextafter(1.0, 0.0));  // below 1 by less than e^{-1e299}: [1, 1] would exclude it
    return e;
  }
  // TV = 2Φ(Δ/2σ) − 1 = erf(Δ/(2√2 σ)): no cancellation for tiny Δ/σ (the general route's Φ(a) and Φ(b) agree to
  // every digit there).
  if (eps == 0 && delta / sigma < 1e-150) {
    // TV = erf(z) = (2z/√π)(1 − z²/3 + …) = Δ/(σ√(2π)) to a relative z² < 1e-300, in logs (Δ/σ itself may be
    // subnormal or 0 in a double: 5e-324 against 1 printed 0).
    const double lv = std::log(delta) - std::log(sigma) - 0.5 * std::log(2 * std::numbers::pi);
    return Estimate::from_log(lv, 8 * kEps * (std::fabs(lv) + 2), ErrorKind::exact, method);
  }
  // Only the ratio r = Δ/σ enters below (2σ overflows for σ near the largest double: Δ = σ = 1e308 gave TV = 0).
  const double r = delta / sigma;
  if (eps == 0) {
    const double z = r / (2 * std::numbers::sqrt2);
    const double v = std::erf(z);
    return Estimate::from_value(v, 8 * kEps * v, ErrorKind::exact, method);
  }
  const double u = r / 2, v = eps / r;
  const double a = u - v, b = -u - v;
  if (a < -100) return gaussian_hockey_stick_far(u, v, method);
  const double la = log_normal_cdf(a), lb = log_normal_cdf(b);
  if (r < 1e-4 && eps < 1 && eps / r < 30) {
    // Δ ≪ σ: log Φ(a) and log Φ(b) agree to every digit. δ = (Φ(a) − Φ(b)) − (e^ε − 1)Φ(b), with Φ(a) − Φ(b) =
    // ∫_b^a φ by the midpoint rule with its second-order term, D = rφ(m)(1 + r²(m² − 1)/24), m = (a + b)/2 = −εσ/Δ;
    // the remainder is at most r⁵·max|φ⁗|/1920 ≤ r⁵(M⁴ + 6M² + 3)·3φ(m)/1920 with M = |m| + r (|m|·r = ε < 1,
    // so φ varies by at most a factor e over [b, a]).
    const double m = -eps / r, big = std::fabs(m) + r;
    const double phi = std::exp(-0.5 * m * m) / std::sqrt(2 * std::numbers::pi);
    const double d = r * phi * (1 + r * r * (m * m - 1) / 24);
    const double d_err = std::pow(r, 5) * (std::pow(big, 4) + 6 * big * big + 3) * 3 * phi / 1920 + 8 * kEps * d * (1 + m * m);
    const double tail = std::expm1(eps) * std::exp(lb);
    return Estimate::from_value(d - tail, d_err + 8 * kEps * (d + tail) * (1 + std::fabs(lb)), ErrorKind::exact, method);
  }
  // δ = Φ(a)(1 − e^x), x = ε + log Φ(b) − log Φ(a) < 0. Rounding: each log Φ is relatively accurate, so x carries
  // an absolute error ~ eps·(ε + |log Φ(a)| + |log Φ(b)|) (plus the arguments' rounding, ~eps·(a² + b²)), which
  // 1 − e^x amplifies by e^x/(1 − e^x).
  const double x = eps + lb - la;
  const double x_err = 8 * kEps * (eps + std::fabs(la) + std::fabs(lb) + a * a + b * b + 1);
  // x rounded to ≥ 0: the true x is negative but within x_err of 0, so δ ≤ Φ(a)(1 − e^{−x_err}); never a silent 0.
  if (!(x < 0)) {
    Estimate e = Estimate::from_value(0, 0, ErrorKind::exact, method);
    e.set_log_upper(la + std::log(-std::expm1(-x_err)));
    return e;
  }
  const double amplification = std::exp(x) / -std::expm1(x);
  // log Φ(a) moves by φ(a)/Φ(a) per unit of a, which a's rounding (eps·|a|) scales: about eps·a² for a < 0, at most
  // eps for a ≥ 0 (|a|φ(a)/Φ(a) ≤ 0.5 there). Counting a² for a far above 0 (Δ/σ = 1e100) made the bound 1e184.
  const double rel = x_err * amplification + 8 * kEps * (1 + std::fabs(la) + (a < 0 ? a * a : 1.0));
  return Estimate::from_log(la + log1mexp(x), rel, ErrorKind::exact, method);
}

Estimate laplace_renyi(double delta, double b, double alpha) {
  check_common("laplace_renyi", delta, b, "scale");
  check_greater("laplace_renyi", "alpha", alpha, 1);
  // Beyond z = Δ/b ~ 1e300 the value z + O(1) overflows: its log, log Δ − log b, is exact to 1e-300.
  if (delta / b > 1e300) return log_ratio(delta, b, "closed form GT.lap.renyi");
  const double z = delta / b, t = alpha - 1;
  // log g_α(z) = logaddexp(log(α/(2α−1)) + zt, log(t/(2α−1)) − zα), with log α − log(2α−1) = log1p(t) − log1p(2t)
  // so that α → 1 keeps its digits.
  const double a = std::log1p(t) - std::log1p(2 * t) + z * t, bt = std::log(t) - std::log1p(2 * t) - z * alpha;
  const double lg = log_add(a, bt);
  const double v = lg / t;
  // Each input of a is relatively accurate (so a carries ~eps·(|log1p t| + |log1p 2t| + zt)), bt enters with
  // weight e^{bt − lg}; the error of lg is what remains after dividing by t.
  const double a_err = std::fabs(std::log1p(t)) + std::fabs(std::log1p(2 * t)) + z * t + std::fabs(a);
  const double err = 8 * kEps * (a_err + std::exp(bt - lg) * (std::fabs(bt) + 1) + std::fabs(lg)) / t;
  return Estimate::from_value(v, err, ErrorKind::exact, "closed form GT.lap.renyi");
}

Estimate laplace_kl(double delta, double b) {
  check_common("laplace_kl", delta, b, "scale");
  if (delta / b > 1e300) return log_ratio(delta, b, "closed form GT.lap.renyi (alpha -> 1)");
  const double z = delta / b;
  if (z < 1e-100) {
    // z²/2 (1 − z/3 + …) underflows below z ~ 1e-154 (Δ = 1e-320 printed an exact 0): in logs, from Δ and b.
    const double lv = 2 * (std::log(delta) - std::log(b)) - std::numbers::ln2;
    return Estimate::from_log(lv, 8 * kEps * (std::fabs(lv) + 2) + z, ErrorKind::exact, "closed form GT.lap.renyi (alpha -> 1)");
  }
  if (z < 1e-3) {
    // z − 1 + e^{−z} = z²/2 − z³/6 + z⁴/24 − …: the series keeps the relative digits the subtraction loses.
    const double v = z * z * (0.5 - z / 6 + z * z / 24 - z * z * z / 120);
    return Estimate::from_value(v, 8 * kEps * v + std::pow(z, 6) / 720, ErrorKind::exact, "closed form GT.lap.renyi (alpha -> 1)");
  }
  const double v = z + std::expm1(-z);
  return Estimate::from_value(v, 8 * kEps * (z + 1), ErrorKind::exact, "closed form GT.lap.renyi (alpha -> 1)");
}

Estimate laplace_hockey_stick(double delta, double b, double eps) {
  check_common("laplace_hockey_stick", delta, b, "scale");
  check_nonnegative_finite("laplace_hockey_stick", "eps", eps);
  const char* method = "closed form GT.lap.hs";
  const double z = delta / b;
  if (eps >= z) return zero(method);
  if (!std::isfinite(z)) return Estimate::from_value(1, 0, ErrorKind::exact, method);
  return Estimate::from_log(log1mexp((eps - z) / 2), 8 * kEps * (1 + z / std::fabs(eps - z)), ErrorKind::exact, method);
}

Estimate subsampled_gaussian_renyi(double q, double delta, double sigma, long alpha) {
  check_probability("subsampled_gaussian_renyi", "q", q);
  check_common("subsampled_gaussian_renyi", delta, sigma, "sigma");
  if (alpha < 2 || alpha > 1'000'000)
    throw_invalid("subsampled_gaussian_renyi", "alpha", static_cast<double>(alpha), "integer 2 <= alpha <= 1e6");
  const char* method = "closed form GT.sgm.renyi";
  if (q == 0 || delta == 0) return zero(method);
  // Since Σ_k C(α,k)(1−q)^{α−k}q^k = 1, the sum minus one is J = Σ_{k≥2} C(α,k)(1−q)^{α−k}q^k expm1((k²−k)c):
  // positive terms, so small divergences keep their relative digits; R = log1p(J)/(α−1).
  const double c = delta * delta / (2 * sigma * sigma);
  const double log_c = 2 * (std::log(delta) - std::log(sigma)) - std::numbers::ln2;  // c may underflow (Δ = 1e-320)
  LogSumAccumulator<double> sum, weighted;
  for (long k = 2; k <= alpha; ++k) {
    if (k % 65536 == 0) throw_if_interrupted();  // 10^6 terms take 0.1 s: a list of such orders stops on Ctrl-C
    const double kk = static_cast<double>(k), e = (kk * kk - kk) * c;
    const double log_q_part = q < 1 ? static_cast<double>(alpha - k) * std::log1p(-q) : (k == alpha ? 0 : -kInf);
    // log expm1(e) = log e + e/2 + … : below e = 1e-200 its log, from log c (e itself may be 0 in a double).
    const double log_em1 = e > 1 ? e + log1mexp(-e) : e > 1e-200 ? std::log(std::expm1(e)) : std::log(kk * kk - kk) + log_c;
    const double term = log_binomial_coefficient(alpha, k) + log_q_part + kk * std::log(q) + log_em1;
    if (term == -kInf) continue;
    sum.add(term);
    // Each exponent is accurate to a few eps of its largest part.
    weighted.add(term + std::log(std::fabs(term) + e + kk * std::fabs(std::log(q)) + 1));
  }
  const double log_j = sum.value(), t = static_cast<double>(alpha - 1);
  const double rel_j = 16 * kEps * (std::exp(weighted.value() - log_j) + static_cast<double>(alpha));
  // J below 1e-13 (q = 1e-170 makes it 1e-340, below the double range): log1p(J) = J(1 − J/2 + …) = J to a relative
  // J, so R is kept as its log, log J − log(α − 1), not rounded to 0.
  if (log_j < -30) return Estimate::from_log(log_j - std::log(t), rel_j + std::exp(log_j) + 4 * kEps, ErrorKind::exact, method);
  const double log1p_j = log_add(0.0, log_j);
  const double v = log1p_j / t;
  const double err = rel_j * std::exp(log_j - log1p_j) / t + 4 * kEps * v;  // d log1p(J) = J/(1+J) · dJ/J
  return Estimate::from_value(v, err, ErrorKind::exact, method);
}

namespace {

// An estimate times a positive factor known to a relative error `rel`.
Estimate scaled(Estimate e, double factor, double rel, const char* method) {
  if (!(factor > 0)) return zero(method);
  e.scale(factor, rel);
  e.method = method;
  return e;
}

// HS at a level known to ± r: HS is non-increasing in the level, so the hull of the values at both ends.
Estimate gaussian_hockey_stick_at(double delta, double sigma, double level, double r) {
  const Estimate lo = gaussian_hockey_stick(delta, sigma, level + r), hi = gaussian_hockey_stick(delta, sigma, std::max(0.0, level - r));
  Estimate e = gaussian_hockey_stick(delta, sigma, level);
  const double width_before = e.upper - e.lower;
  e.hull(Estimate::span(lo, hi));
  e.add_widening(ErrorPart::rounding, width_before);
  return e;
}

// (1−q)N(0, σ²) + qN(Δ, σ²) against N(0, σ²) (`add`), or the reverse. The loss is monotone in x, the region
// {L > ε} a half-line, and the hockey-stick that of the Gaussian pair at a moved level:
//   add:     HS_ε = q · HS_{ε'}(N(Δ)‖N(0)),                 ε' = ε + log1p((1−q)(1 − e^{−ε})/q)
//   remove:  HS_ε = (1 − e^ε(1−q)) · HS_η(N(Δ)‖N(0)),      η = log q − log(q + expm1(−ε)), 0 if q + expm1(−ε) ≤ 0.
std::optional<Estimate> subsampled_gaussian_hockey_stick(double q, double delta, double sigma, double eps, bool add) {
  const char* method = add ? "closed form: subsampled Gaussian, monotone loss (q x HS of the Gaussian pair at a moved level)"
                           : "closed form: subsampled Gaussian, monotone loss (reverse direction)";
  if (q == 0 || delta == 0) return zero(method);
  if (add) {
    // ε' = ε + log((1 − (1−q)e^{−ε})/q) = ε + log1p((1−q)(1 − e^{−ε})/q): a sum of non-negative terms, no
    // cancellation (1 − q is never formed against 1).
    // (for a subnormal q the quotient overflows: then in logs, log((1−q)(1 − e^{−ε})) − log q, the 1 it drops below
    // rounding; a weight of 5e-324 reached the Gaussian pair at ε' = inf)
    const double ratio = (1 - q) * -std::expm1(-eps) / q;
    const double level = eps + (std::isfinite(ratio) ? std::log1p(ratio) : std::log1p(-q) + std::log(-std::expm1(-eps)) - std::log(q));
    const double r = 16 * kEps * (eps + 0.5);  // each term's rounding (8u(2ε + 1), written not to overflow at ε near the largest double)
    return scaled(gaussian_hockey_stick_at(delta, sigma, std::max(0.0, level), r), q, 0, method);
  }
  const double gap = q + std::expm1(-eps);
  const double gap_error = 4 * kEps * (q + std::fabs(std::expm1(-eps)));
  if (gap <= -gap_error) return zero(method);
  if (gap < 1e3 * gap_error) return std::nullopt;  // e^-ε within rounding of 1 − q: the quadrature decides
  const double level = std::log(q) - std::log(gap);
  const double r = 8 * kEps * (std::fabs(std::log(q)) + std::fabs(std::log(gap)) + 1) + 2 * gap_error / gap;
  const double x = eps + std::log1p(-q), factor = -std::expm1(x);
  const double rel = 8 * kEps * (1 + std::fabs(x) / std::max(std::fabs(factor), 1e-300));
  return scaled(gaussian_hockey_stick_at(delta, sigma, std::max(0.0, level), r), factor, rel, method);
}

// The shift Δ = |m1 − m2| and σ of two Gaussians of one σ, scaled by one power of two (exact above the subnormals;
// divergences see only Δ/σ): where the difference overflows (1e308 against −1e308) both are halved; where Δ or σ is
// subnormal (5e-324: their quotients there keep few digits) both are raised into the normal range as far as the
// larger allows.
std::pair<double, double> shift_and_scale(double m1, double m2, double sigma) {
  double delta = std::fabs(m1 - m2);  // a difference of subnormals is exact
  if (std::isinf(delta)) return {std::fabs(m1 / 2 - m2 / 2), sigma / 2};
  if (delta > 0 && std::min(delta, sigma) < 0x1p-900) {
    const int k = std::min(-std::ilogb(std::min(delta, sigma)), 1000 - std::ilogb(std::max(delta, sigma)));
    if (k > 0) delta = std::ldexp(delta, k), sigma = std::ldexp(sigma, k);
  }
  return {delta, sigma};
}

struct SubsampledGaussian {
  double q, delta, sigma;
};

// Recognises (1−q)·N(a, σ²) + q·N(a+Δ, σ²) against N(a, σ²).
std::optional<SubsampledGaussian> subsampled_gaussian(const sim::ExactForm& p, const sim::form::Gaussian& q) {
  const auto* mix = std::get_if<sim::form::Mixture>(&p);
  if (!mix || mix->components.size() != 2) return std::nullopt;
  const sim::ExactForm c0 = mix->components[0]->exact_form(), c1 = mix->components[1]->exact_form();
  const auto* g0 = std::get_if<sim::form::Gaussian>(&c0);
  const auto* g1 = std::get_if<sim::form::Gaussian>(&c1);
  if (!g0 || !g1) return std::nullopt;
  if (g0->sigma != q.sigma || g1->sigma != q.sigma || g0->mean != q.mean) return std::nullopt;
  const auto [delta, sigma] = shift_and_scale(g1->mean, q.mean, q.sigma);
  return SubsampledGaussian{mix->weights[1], delta, sigma};
}

std::optional<Estimate> gaussian_pair(double delta, double sigma, const Quantity& quantity) {
  switch (quantity.kind) {
    case Quantity::Kind::renyi: return gaussian_renyi(delta, sigma, quantity.parameter);
    case Quantity::Kind::kl: return gaussian_kl(delta, sigma);
    case Quantity::Kind::renyi_inf:
      return delta > 0 ? Estimate::infinite("closed form GT.gauss.renyi (alpha -> inf)") : zero("closed form");
    case Quantity::Kind::hockey_stick: return gaussian_hockey_stick(delta, sigma, quantity.parameter);
    case Quantity::Kind::tv: return gaussian_hockey_stick(delta, sigma, 0);
  }
  return std::nullopt;
}

// N(μ1, σ1²) against N(μ2, σ2²) with σ1 ≠ σ2 (Gil, Alajaji, Hashemi 2013): with Δ = μ1 − μ2, r = σ1/σ2,
//   R_α = −log r − log(σ_α²/σ2²)/(2(α−1)) + αΔ²/(2σ_α²),  σ_α² = ασ2² − (α−1)σ1²  (+inf if σ_α² ≤ 0),
//   KL  = (u − log1p u)/2 + Δ²/(2σ2²),  u = r² − 1,
//   R_∞ = −log r + Δ²/(2(σ2² − σ1²)) if σ1 < σ2, +inf otherwise (μ has the heavier tails).
// Hockey-stick and TV go to quadrature. Error bars: a few eps of each term's magnitude, plus the cancellation in
// σ_α² (relative eps·(ασ2² + (α−1)σ1²)/σ_α²) carried into both terms that use it.
std::optional<Estimate> gaussian_unequal(const sim::form::Gaussian& p, const sim::form::Gaussian& q, const Quantity& quantity) {
  const double s1 = p.sigma, s2 = q.sigma, d = p.mean - q.mean;
  const double log_r = std::log(s1) - std::log(s2);
  const double z2 = (d / s2) * (d / s2);  // Δ²/σ2², without overflowing Δ² first
  switch (quantity.kind) {
    case Quantity::Kind::renyi: {
      const double a = quantity.parameter, r2 = std::exp(2 * log_r);
      const double sa = a - (a - 1) * r2;  // σ_α²/σ2²
      if (!(sa > 0)) return Estimate::infinite("closed form (Gaussians of unequal variance: sigma_alpha^2 <= 0)");
      const double sa_rel = 4 * kEps * (a + (a - 1) * r2) / sa;
      const double t1 = -log_r, t2 = -std::log(sa) / (2 * (a - 1)), t3 = a * z2 / (2 * sa);
      const double err = 8 * kEps * (std::fabs(t1) + std::fabs(t2) + std::fabs(t3)) + sa_rel / (2 * (a - 1)) + sa_rel * t3;
      return Estimate::from_value(t1 + t2 + t3, err, ErrorKind::exact, "closed form (Renyi of Gaussians of unequal variance)");
    }
    case Quantity::Kind::kl: {
      const double log_z2 = 2 * (std::log(std::fabs(d)) - std::log(s2));  // log(Δ²/σ2²), -inf for Δ = 0
      if (2 * log_r > 600 || log_z2 > 600) {
        // r² or Δ²/σ2² beyond 1e260 (σ1 = 1e308 against 1: KL ≈ 5e615): KL = (r² + Δ²/σ2² − 1 − 2 log r)/2 in logs,
        // log(r² + z²) + log1p(−(1 + 2 log r)/(r² + z²)) − log 2, the last correction below 1e-250.
        const double log_sum = log_add(2 * log_r, log_z2);
        const double log_v = log_sum + std::log1p(-(1 + 2 * log_r) * std::exp(-log_sum)) - std::log(2.0);
        return Estimate::from_log(log_v, 16 * kEps * (1 + std::fabs(log_sum)), ErrorKind::exact,
                                  "closed form (KL of Gaussians of unequal variance, in logs)");
      }
      const double u = std::expm1(2 * log_r);  // r² − 1; u − log1p(u) = r² − 1 − 2 log r
      const double g = std::fabs(u) < 1e-3 ? u * u * (0.5 - u / 3 + u * u / 4 - u * u * u / 5) : u - 2 * log_r;
      const double v = g / 2 + z2 / 2;
      return Estimate::from_value(v, 16 * kEps * (v + std::fabs(u) + std::fabs(log_r)), ErrorKind::exact,
                                  "closed form (KL of Gaussians of unequal variance)");
    }
    case Quantity::Kind::renyi_inf: {
      if (s1 > s2) return Estimate::infinite("closed form (mu has the heavier tails)");
      const double den = -std::expm1(2 * log_r);  // 1 − σ1²/σ2²
      const double v = -log_r + z2 / (2 * den);
      return Estimate::from_value(v, 16 * kEps * (std::fabs(log_r) + z2 / den * (1 + 1 / den)), ErrorKind::exact,
                                  "closed form (R_inf of Gaussians of unequal variance)");
    }
    case Quantity::Kind::hockey_stick:
    case Quantity::Kind::tv: return std::nullopt;
  }
  return std::nullopt;
}

// Gaussians whose parameters were computed in floating point (a process's law: OU, a Gaussian chain), not given as
// numbers: each mean carries its rounding, up to 4 ulps of its size, which matters where the means are far larger
// than their difference (OU laws from 10^10 + 1 and 10^10: the rounded means' difference was 1e-6 off, and KL 5e-7
// beside its exact bar; at t = 1e-20 two means rounded to one, and KL = 0 was printed exact). The value is kept; its
// interval is widened to the values at the ends of |Δ| ± the means' rounding `e` (every quantity grows with |Δ| at
// fixed σ's: Δ enters as Δ² in Rényi, KL and R_∞ and through the single crossing in the hockey-stick). `at(d)` is the
// quantity at |Δ| = d. (The σ's rounding, a few ulps relative, is not carried: laws of one process at one time have
// the same σ in truth as in doubles; two σ's that differ by less than an ulp in truth but round to one are not
// told apart.)
std::optional<Estimate> widened_for_rounding(std::optional<Estimate> value, double delta, double e, const Quantity& quantity,
                                             const std::function<std::optional<Estimate>(double)>& at) {
  if (!value || std::isnan(value->value) || !(e > 0)) return value;
  const std::optional<Estimate> lo = at(std::max(0.0, delta - e)), hi = at(delta + e);
  if (!lo || !hi) return value;
  Estimate out = *value;
  out.hull(*lo);
  out.hull(*hi);
  if (quantity.kind == Quantity::Kind::hockey_stick || quantity.kind == Quantity::Kind::tv) out.clip(0, 1);
  out.method += ", widened by the rounding of the laws' computed means";
  return out;
}

// Two Gaussians on the line: equal σ's by GT.gauss (shifted and scaled), unequal ones by gaussian_unequal; laws with
// computed parameters widened by their means' rounding.
std::optional<Estimate> gaussian_pairs(const sim::form::Gaussian& gp, const sim::form::Gaussian& gq, const Quantity& quantity) {
  const bool computed = !gp.exact || !gq.exact;
  const double e = 4 * kEps * (std::fabs(gp.mean) + std::fabs(gq.mean));
  if (gp.sigma == gq.sigma) {
    const auto pair_at = [&](double m1, double m2 = 0) {  // (the ends at |Δ| = d from 0, not from a large mean: d would round)
      const auto [delta, sigma] = shift_and_scale(m1, m2, gp.sigma);
      return gaussian_pair(delta, sigma, quantity);
    };
    std::optional<Estimate> v = pair_at(gp.mean, gq.mean);
    if (!computed) return v;
    return widened_for_rounding(std::move(v), std::fabs(gp.mean - gq.mean), e, quantity,
                                [&](double d) { return pair_at(d); });
  }
  std::optional<Estimate> v = gaussian_unequal(gp, gq, quantity);
  if (!computed) return v;
  return widened_for_rounding(std::move(v), std::fabs(gp.mean - gq.mean), e, quantity, [&](double d) {
    return gaussian_unequal(sim::form::Gaussian{d, gp.sigma, false}, sim::form::Gaussian{0, gq.sigma, false}, quantity);
  });
}

// Isotropic Gaussians in R^d of one σ: the pair on the line through their means.
std::optional<Estimate> gaussian_nd_pair(const sim::form::GaussianND& np, const sim::form::GaussianND& nq, const Quantity& quantity) {
  // ‖m_p − m_q‖ scaled by its largest part (squares of 1e200 overflow, of 1e-200 underflow); where a difference
  // itself overflows (1e308 against −1e308) the shift and σ are both halved (the divergences see only Δ/σ).
  double big = 0;
  for (std::size_t i = 0; i < np.mean.size(); ++i) big = std::max(big, std::fabs(np.mean[i] / 2 - nq.mean[i] / 2));
  const bool halve = big > 1e307;
  const double unit = halve ? big : 2 * big;
  double sum = 0;
  for (std::size_t i = 0; i < np.mean.size() && big > 0; ++i) {
    const double r = (halve ? np.mean[i] / 2 - nq.mean[i] / 2 : np.mean[i] - nq.mean[i]) / unit;
    sum += r * r;
  }
  const double scale = halve ? 0.5 : 1;
  std::optional<Estimate> v = gaussian_pair(unit * std::sqrt(sum), np.sigma * scale, quantity);
  if (np.exact && nq.exact) return v;
  double e = 0;  // (the difference vector's rounding, bounded by the sum of its coordinates')
  for (std::size_t i = 0; i < np.mean.size(); ++i) e += 4 * kEps * (std::fabs(np.mean[i]) + std::fabs(nq.mean[i])) * scale;
  return widened_for_rounding(std::move(v), unit * std::sqrt(sum), e, quantity,
                              [&](double d) { return gaussian_pair(d, np.sigma * scale, quantity); });
}

}  // namespace

std::optional<Estimate> closed_form(const sim::Law& p, const sim::Law& q, const Quantity& quantity) {
  const sim::ExactForm fp = p.exact_form(), fq = q.exact_form();
  const auto* gp = std::get_if<sim::form::Gaussian>(&fp);
  const auto* gq = std::get_if<sim::form::Gaussian>(&fq);
  if (gp && gq) return gaussian_pairs(*gp, *gq, quantity);

  const auto* np = std::get_if<sim::form::GaussianND>(&fp);
  const auto* nq = std::get_if<sim::form::GaussianND>(&fq);
  if (np && nq && np->sigma == nq->sigma && np->mean.size() == nq->mean.size()) return gaussian_nd_pair(*np, *nq, quantity);

  const auto* lp = std::get_if<sim::form::Laplace>(&fp);
  const auto* lq = std::get_if<sim::form::Laplace>(&fq);
  if (lp && lq && lp->scale == lq->scale) {
    const auto [delta, b] = shift_and_scale(lp->mean, lq->mean, lp->scale);  // (1e308 against −1e308: halved)
    switch (quantity.kind) {
      case Quantity::Kind::renyi: return laplace_renyi(delta, b, quantity.parameter);
      case Quantity::Kind::kl: return laplace_kl(delta, b);
      case Quantity::Kind::renyi_inf:
        if (!(delta / b <= 1e300)) return log_ratio(delta, b, "closed form GT.lap.renyi (alpha -> inf)");
        return Estimate::from_value(delta / b, 2 * kEps * delta / b, ErrorKind::exact, "closed form GT.lap.renyi (alpha -> inf)");
      case Quantity::Kind::hockey_stick: return laplace_hockey_stick(delta, b, quantity.parameter);
      case Quantity::Kind::tv: return laplace_hockey_stick(delta, b, 0);
    }
  }

  // R_∞ of a sum of Laplaces against its shift by Δ (the same scales): the sum's density is log-concave (a convolution
  // of log-concave densities), so the loss log p(x − Δ)/p(x) is monotone in x and its supremum is its limit in the
  // tail, where p(x) ~ C|x|^(k−1) e^{−|x|/b} for the largest scale b (k: how often it occurs): the limit is Δ/b.
  const auto* sp = std::get_if<sim::form::LaplaceSum>(&fp);
  const auto* sq = std::get_if<sim::form::LaplaceSum>(&fq);
  if (sp && sq && quantity.kind == Quantity::Kind::renyi_inf && std::ranges::equal(sp->scales, sq->scales) && !sp->scales.empty()) {
    const auto [delta, b] = shift_and_scale(sp->location, sq->location, std::ranges::max(sp->scales));
    if (!(delta / b <= 1e300)) return log_ratio(delta, b, "closed form (a log-concave sum: the monotone loss tends to delta/max b)");
    return Estimate::from_value(delta / b, 2 * kEps * delta / b, ErrorKind::exact,
                                "closed form (a log-concave sum of Laplaces: the monotone loss tends to delta/max b)");
  }

  // The Poisson-subsampled Gaussian's hockey-stick, both directions: its loss is monotone, so the hockey-stick is
  // that of the Gaussian pair at a moved level (one crossing, log-CDFs; no quadrature).
  if (quantity.kind == Quantity::Kind::hockey_stick || quantity.kind == Quantity::Kind::tv) {
    const double eps = quantity.kind == Quantity::Kind::tv ? 0.0 : quantity.parameter;
    if (gq)
      if (const auto sg = subsampled_gaussian(fp, *gq)) return subsampled_gaussian_hockey_stick(sg->q, sg->delta, sg->sigma, eps, true);
    if (gp)
      if (const auto sg = subsampled_gaussian(fq, *gp)) return subsampled_gaussian_hockey_stick(sg->q, sg->delta, sg->sigma, eps, false);
  }

  if (gq && quantity.kind == Quantity::Kind::renyi && quantity.parameter == std::floor(quantity.parameter) &&
      quantity.parameter <= 1e6) {
    if (const auto sg = subsampled_gaussian(fp, *gq))
      return subsampled_gaussian_renyi(sg->q, sg->delta, sg->sigma, static_cast<long>(quantity.parameter));
  }
  return std::nullopt;
}

// The engine's entry (engine_entry.hpp): first among the routes the default engine tries.
extern const EngineEntry kClosedFormEngine{
    Engine::closed_form, "closed", "the GT closed forms (closed_form.hpp) for the pairs they cover, any dimension", true,
    [](const sim::Law&, const sim::Law&) { return std::string(); },
    [](const ValueCall& c) { return closed_form(c.p, c.q, c.quantity); }, "no closed form for {} between {} and {}", true};

}  // namespace privamp::verify
