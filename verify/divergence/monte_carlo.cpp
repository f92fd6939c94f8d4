#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <gsl/gsl_cdf.h>

#include "verify/divergence/engine_entry.hpp"
#include "numerics/constants.hpp"
#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/log_space.hpp"
#include "sim/random/rng.hpp"
#include "verify/divergence/density_engines.hpp"
#include "verify/divergence/engines.hpp"

namespace privamp::verify {

namespace {

constexpr std::size_t kPollBlock = 2048;  // points between interrupt polls within a chunk
constexpr long kChunk = 1 << 16;  // samples per random stream: results do not depend on how chunks are scheduled
constexpr long kPilotSamples = 200'000;  // at most, before the main run (hockey-stick: a plain pilot and five shifts)
// Simulated steps in one call (samples × a process law's steps per run): a few minutes at most.
constexpr double kMaxSimulationWork = 2e9;
// The time one pass over the samples may take, projected from its first chunk: the cost model above counts draws,
// and a law whose density is an integral (convolve: 34 s per 10^6 samples) ran 10^8 samples for an hour, silent.
constexpr double kMaxPassSeconds = 300;

// Running mean and variance (Welford), merged chunk by chunk in a fixed order.
struct Moments {
  double n = 0, mean = 0, m2 = 0;
  void add(double x) {
    n += 1;
    const double d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
  }
  void merge(const Moments& o) {
    if (o.n == 0) return;
    const double total = n + o.n, d = o.mean - mean;
    mean += d * o.n / total;
    m2 += o.m2 + d * d * n * o.n / total;
    n = total;
  }
  double variance() const { return n > 1 ? m2 / (n - 1) : 0; }
};

// Privacy loss L(x) = log dμ/dν(x) for a batch of points drawn from μ (atoms of μ by exact masses).
void privacy_loss(const sim::Law& p, const sim::Law& q, std::span<const double> x, std::span<double> out,
                  std::vector<double>& tmp) {
  tmp.resize(x.size());
  p.log_density(x, out);
  q.log_density(x, tmp);
  const bool atoms = !p.atoms().empty();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (atoms) {
      const double la = p.log_atom_mass(x[i]);
      if (la > -kInf) {
        const double lb = q.log_atom_mass(x[i]);
        out[i] = lb == -kInf ? kInf : la - lb;
        continue;
      }
    }
    out[i] = tmp[i] == -kInf ? kInf : out[i] - tmp[i];
  }
}

// Draws `samples` points of μ shifted by `shift` (none: 0) in chunks of independent streams, and hands each one's
// statistic g(L) and the log of its importance weight log p(y)/p(y − s) (0 unshifted) to `sink`, in a fixed order.
template <class G, class Sink>
void visit(const sim::Law& p, const sim::Law& q, long samples, std::uint64_t seed, double shift, G g, Sink sink) {
  std::vector<double> x(kChunk), l(kChunk), tmp(kChunk), base(kChunk), lp_shift(kChunk), lpy(kChunk);
  const auto began = std::chrono::steady_clock::now();
  for (long start = 0, chunk = 0; start < samples; start += kChunk, ++chunk) {
    throw_if_interrupted();
    if (chunk == 1) {  // the first chunk measured: the whole pass projected from it, refused if it would take minutes
      const double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      const double projected = first * static_cast<double>(samples) / static_cast<double>(kChunk);
      if (projected > kMaxPassSeconds)
        invalid_input("monte_carlo: {} samples would take about {:.0f} s ({:.3g} s per 10^6 samples, measured on the first "
                      "{}; the limit is {:.0f} s a pass); at most about {:.2g} samples fit: lower the samples",
                      samples, projected, 1e6 * first / static_cast<double>(kChunk), kChunk, kMaxPassSeconds,
                      kMaxPassSeconds / first * static_cast<double>(kChunk));
    }
    const std::size_t n = static_cast<std::size_t>(std::min(kChunk, samples - start));
    sim::Rng rng(seed, static_cast<std::uint64_t>(chunk));
    p.sample(rng, std::span<double>(x.data(), n));  // (the whole chunk from its stream: draws never depend on blocks)
    // The densities, pointwise, in blocks between interrupt polls: a convolution's density is a quadrature per point,
    // and a whole chunk of them took 2 s, which Ctrl-C had to wait for.
    for (std::size_t b = 0; b < n; b += kPollBlock) {
      if (b > 0) throw_if_interrupted();
      const std::size_t m = std::min(kPollBlock, n - b);
      std::span<double> xs(x.data() + b, m), ls(l.data() + b, m);
      if (shift != 0) {
        for (double& v : xs) v += shift;
        for (std::size_t i = 0; i < m; ++i) base[b + i] = xs[i] - shift;
        p.log_density(std::span<const double>(base.data() + b, m), std::span<double>(lp_shift.data() + b, m));
        p.log_density(std::span<const double>(xs.data(), m), std::span<double>(lpy.data() + b, m));
      }
      privacy_loss(p, q, xs, ls, tmp);  // (tmp: scratch)
    }
    for (std::size_t i = 0; i < n; ++i) sink(g(l[i]), shift == 0 ? 0.0 : lpy[i] - lp_shift[i]);
  }
}

// The moments of g(L) (plain) or w·g(L) (shifted).
template <class G>
Moments run(const sim::Law& p, const sim::Law& q, long samples, std::uint64_t seed, double shift, G g) {
  Moments m;
  visit(p, q, samples, seed, shift, g, [&m](double gv, double log_w) { m.add(gv == 0 ? 0.0 : gv * std::exp(log_w)); });
  return m;
}

double normal_quantile(double level) { return gsl_cdf_ugaussian_Pinv(0.5 + level / 2); }

// Empirical Bernstein bound (Maurer & Pontil 2009) for i.i.d. values in [0, 1], two-sided at `level`.
double bernstein_half_width(const Moments& m, double level) {
  const double log_term = std::log(4 / (1 - level));
  return std::sqrt(2 * m.variance() * log_term / m.n) + 7 * log_term / (3 * (m.n - 1));
}

// The shift that moves μ's centre onto the start of {L > ε}, or 0 if none is found near the bulk: dyadic steps out
// of the bulk find a point beyond the crossing, and bisection between it and the last point before places the
// crossing itself (a shift past it would put the proposal's mass beyond most of the region's).
double find_shift(const sim::Law& p, const sim::Law& q, double eps) {
  std::vector<double> tmp(1), out(1);
  const auto loss = [&](double x) {
    privacy_loss(p, q, std::span<const double>(&x, 1), out, tmp);
    return out[0];
  };
  const double loc = p.location(), s = p.scale();
  for (int k = -3; k < 40; ++k)
    for (double dir : {1.0, -1.0}) {
      const double x = loc + dir * s * std::ldexp(1.0, k);
      if (!(loss(x) > eps)) continue;
      double inside = x, outside = k == -3 ? loc : loc + dir * s * std::ldexp(1.0, k - 1);
      if (loss(outside) > eps) return x - loc;  // no crossing between: the dyadic point itself
      for (int i = 0; i < 80 && std::fabs(inside - outside) > 1e-12 * (std::fabs(inside) + s); ++i) {
        const double mid = 0.5 * (inside + outside);
        (loss(mid) > eps ? inside : outside) = mid;
      }
      return inside - loc;
    }
  return 0;
}

// Importance sampling shifted by `shift` towards the region {L > eps}: the weighted values' empirical-Bernstein
// interval, the values bounded by the weight at the loss's crossing (or the largest seen).
template <class G>
Estimate importance_sampled(const sim::Law& p, const sim::Law& q, double eps, double shift, G g, const MonteCarloOptions& options) {
  const long n = options.samples;
  // The weighted values w·g are heavy-tailed in general, where a CLT interval is confidently wrong. They are
  // bounded by the weight's largest value over the region: at its start for a log-concave μ and a monotone
  // loss (Gaussian and Laplace pairs). The empirical-Bernstein interval of the values scaled by that bound
  // (or by the largest value seen, where a sample exceeds it: then said) is valid at the level.
  const double start = p.location() + find_shift(p, q, eps);
  std::vector<double> lp(2);
  const double at[2] = {start, start - shift};
  p.log_density(std::span<const double>(at, 2), std::span<double>(lp.data(), 2));
  const double log_bound = lp[0] - lp[1];
  std::vector<double> logs;  // log(w·g) per sample (−inf outside the region)
  logs.reserve(static_cast<std::size_t>(n));
  visit(p, q, n, options.seed, shift, g, [&logs](double gv, double log_w) { logs.push_back(gv > 0 ? std::log(gv) + log_w : -kInf); });
  double log_seen = -kInf;
  for (double v : logs) log_seen = std::max(log_seen, v);
  const double log_range = std::max(log_bound, log_seen);
  Moments m;
  for (double v : logs) {
    const double scaled = std::exp(v - log_range);
    if (scaled > 1 + 1e-12) throw NumericalError("internal: monte carlo: a weighted value exceeds its bound (the interval would not hold)");
    m.add(scaled);
  }
  const double range = std::exp(log_range);
  return Estimate::from_value(
      m.mean * range, bernstein_half_width(m, options.level) * range, ErrorKind::statistical,
      fmt::format("monte carlo, importance sampling at the loss's crossing (shift {:.4g}; empirical-Bernstein interval with the "
                  "weighted values bounded by {:.4g}{})", shift, range,
                  log_seen > log_bound ? ", the largest value seen: the weight's value at the crossing was exceeded"
                                       : ", the weight at the crossing"));
}

// HS_eps (TV at eps = 0) as E_mu[(1 - e^{eps - L})_+]: plainly, or by importance sampling where the pilot run finds
// it rare.
Estimate mc_hockey_stick(const sim::Law& p, const sim::Law& q, double eps, const MonteCarloOptions& options) {
  const long n = options.samples;
  Estimate e;
  auto g = [eps](double l) { return l > eps ? -std::expm1(eps - l) : 0.0; };
  const Moments plain_pilot = run(p, q, std::min(n, 100'000L), options.seed ^ 0x5eedULL, 0.0, g);
  const bool rare = options.importance && plain_pilot.mean < 1e-3;
  double shift = 0;
  if (rare) {
    // Pilot runs pick the offset (from the crossing, in units of μ's scale) with the smallest relative variance.
    const double base = find_shift(p, q, eps);
    double best_cv = kInf;
    for (double off : {0.0, 0.25, 0.5, 1.0, 2.0}) {
      const double s = base + off * p.scale();
      const Moments m = run(p, q, 20'000, options.seed ^ 0x9170ULL, s, g);
      const double cv = m.mean > 0 ? m.variance() / (m.mean * m.mean) : kInf;
      if (cv < best_cv) {
        best_cv = cv;
        shift = s;
      }
    }
  }
  if (shift == 0) {
    const Moments m = run(p, q, n, options.seed, shift, g);
    e = Estimate::from_value(m.mean, bernstein_half_width(m, options.level), ErrorKind::statistical,
                             "monte carlo (empirical Bernstein interval)");
  } else {
    e = importance_sampled(p, q, eps, shift, g, options);
  }
  return e;
}

// R_alpha with honest ends (see the comment inside).
Estimate mc_renyi(const sim::Law& p, const sim::Law& q, double alpha, const MonteCarloOptions& options) {
  const long n = options.samples;
  Estimate e;
  // E_μ[e^{(α−1)L}] is heavy-tailed whenever the loss is unbounded: a CLT interval on its sample mean is then
  // confidently wrong (the mean is carried by samples the run almost never sees). Honest ends instead:
  //   lower: E[Y] ≥ E[min(Y, c)] with c fixed by an independent pilot run; min(Y, c)/c ∈ [0, 1] has a valid
  //          empirical-Bernstein lower confidence bound;
  //   upper: only where the loss is bounded, L ≤ R_∞ (found by the deterministic supremum search): then
  //          Y/e^{(α−1)R_∞} ∈ [0, 1] has a valid upper bound; otherwise +inf ("unknown").
  const double t = alpha - 1;
  double c_log = -kInf;
  run(p, q, std::min(n, 20'000L), options.seed ^ 0xc1ec7ULL, 0.0, [&](double l) {
    c_log = std::max(c_log, t * l);
    return 0.0;
  });
  if (c_log == kInf) return Estimate::infinite("monte carlo");
  // One pass of samples (simulated runs can be costly); the statistics below reuse the losses.
  std::vector<double> losses;
  losses.reserve(static_cast<std::size_t>(n));
  run(p, q, n, options.seed, 0.0, [&](double l) {
    losses.push_back(l);
    return 0.0;
  });
  // The passes over the losses (10^8 of them take about a second) look for Ctrl-C as the sampling does.
  double k_max = -kInf;
  for (std::size_t i = 0; i < losses.size(); ++i) {
    if (i % (1u << 20) == 0) throw_if_interrupted();
    k_max = std::max(k_max, t * losses[i]);
  }
  if (k_max == kInf) return Estimate::infinite("monte carlo");
  auto moments = [&](auto g) {
    Moments m;
    for (std::size_t i = 0; i < losses.size(); ++i) {
      if (i % (1u << 20) == 0) throw_if_interrupted();
      m.add(g(losses[i]));
    }
    return m;
  };
  const Moments plain = moments([&](double l) { return std::exp(t * l - k_max); });
  const Moments clipped = moments([&](double l) { return std::exp(std::min(t * l - c_log, 0.0)); });
  const double value = (k_max + std::log(plain.mean)) / t;
  const double lo_mean = clipped.mean - bernstein_half_width(clipped, options.level);
  const double lo = lo_mean > 0 ? std::max(0.0, (c_log + std::log(lo_mean)) / t) : 0.0;
  double hi = kInf;
  std::string how = "upper end unknown: the privacy loss is unbounded";
  DivergenceOptions sup_options;
  sup_options.engine = Engine::quadrature;
  // The supremum of the very loss the samples are evaluated with (for a discretised law, its base resolution).
  const Estimate sup = compute_divergence(p.unwrapped(), q.unwrapped(), Quantity::renyi_inf(), sup_options);
  if (std::isfinite(sup.upper)) {
    const double b = t * sup.upper;
    const Moments bounded = moments([&](double l) { return std::exp(std::min(t * l - b, 0.0)); });
    hi = (b + std::log(std::min(1.0, bounded.mean + bernstein_half_width(bounded, options.level)))) / t;
    how = fmt::format("upper end from the bounded loss, R_inf <= {:.6g}", sup.upper);
  }
  e = Estimate::from_value(value, 0, ErrorKind::statistical,
                           fmt::format("monte carlo (empirical-Bernstein ends on the clipped and bounded E[e^(a-1)L]; {})", how));
  e.set_lower(std::min(lo, e.value));
  e.set_upper(std::max(hi, e.value));
  e.add_widening(ErrorPart::sampling, 0);
  return e;
}

}  // namespace

Estimate monte_carlo_divergence(const sim::Law& p, const sim::Law& q, const Quantity& quantity,
                                const MonteCarloOptions& options) {
  if (options.samples < 100) throw_invalid("monte_carlo", "samples", static_cast<double>(options.samples), "samples >= 100");
  if (!(options.level >= 0.5 && options.level <= 1 - 1e-12))
    throw_invalid("monte_carlo", "level", options.level, "0.5 <= level <= 1 - 1e-12");
  if (p.dimension() != 1 || q.dimension() != 1) invalid_input("monte_carlo: needs one-dimensional laws");
  // Simulated processes cost their steps per sample: the whole run (pilot runs included) is bounded before it starts.
  const double cost = std::max(p.computation().sample_cost, q.computation().sample_cost),
               work = (static_cast<double>(options.samples) + kPilotSamples) * cost;
  if (work > kMaxSimulationWork)
    invalid_input("monte_carlo: {} samples (and up to {} for pilot runs) x {:.4g} simulated steps each = "
                  "{:.3g} steps exceeds the work limit {:.0e}; lower the samples", options.samples,
                  kPilotSamples, cost, work, kMaxSimulationWork);
  Estimate e;
  switch (quantity.kind) {
    case Quantity::Kind::hockey_stick: e = mc_hockey_stick(p, q, quantity.parameter, options); break;
    case Quantity::Kind::tv: e = mc_hockey_stick(p, q, 0.0, options); break;
    case Quantity::Kind::kl: {
      const Moments m = run(p, q, options.samples, options.seed, 0.0, [](double l) { return l; });
      if (!std::isfinite(m.mean)) return Estimate::infinite("monte carlo");
      e = Estimate::from_value(m.mean, normal_quantile(options.level) * std::sqrt(m.variance() / m.n), ErrorKind::statistical,
                               "monte carlo (CLT interval)");
      break;
    }
    case Quantity::Kind::renyi: e = mc_renyi(p, q, quantity.parameter, options); break;
    case Quantity::Kind::renyi_inf:
      invalid_input("monte_carlo: renyi_inf is a supremum and cannot be estimated from samples");
  }
  if (std::isinf(e.lower)) return e;  // infinite for certain (a sample's loss is): no level, no interval
  e.level = options.level;
  e.work = options.samples;
  return e;
}

// The engine's entry (engine_entry.hpp): asked for by name or as a case's cross_check.
extern const EngineEntry kMonteCarloEngine{
    Engine::monte_carlo, "mc", "any pair of laws on the line that samples: the privacy loss of samples of mu", true,
    needs_one_dimension,
    [](const ValueCall& c) -> std::optional<Estimate> { return monte_carlo_divergence(c.p, c.q, c.quantity, c.options.monte_carlo); },
    "", false};

}  // namespace privamp::verify
