#include "sim/processes/shuffling.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/interrupt.hpp"
#include "numerics/log_integrate.hpp"
#include "numerics/log_space.hpp"
#include "numerics/special.hpp"
#include "sim/laws/spec.hpp"
#include "sim/random/rng.hpp"

namespace privamp::sim {

FiniteLaw shuffled_rr_counts(long n, double eps0, long ones, int first) {
  const char* where = "shuffled_rr";
  // The law has n + 1 atoms, built from a few vectors of n doubles: 1e7 takes about 10 s and 1 GB.
  if (n < 1 || n > 10'000'000) throw_invalid(where, "n", static_cast<double>(n), "1 <= n <= 1e7 (the law has n + 1 atoms)");
  check_local_epsilon(where, "eps0", eps0);
  if (ones < 0 || ones > n - 1) throw_invalid(where, "ones", static_cast<double>(ones), "0 <= ones <= n-1");
  if (first != 0 && first != 1) throw_invalid(where, "first", first, "0 or 1");
  // p = e^{ε0}/(1+e^{ε0}) and q = 1/(1+e^{ε0}), both exact in log-space.
  const double log_p = -std::log1p(std::exp(-eps0)), log_q = -std::log1p(std::exp(eps0));
  const double p = std::exp(log_p), q = std::exp(log_q);
  const long zeros = n - 1 - ones;
  // Bin(ones, p) + Bin(zeros, q): convolve over the smaller of the two.
  const bool small_is_ones = ones <= zeros;
  const long small = small_is_ones ? ones : zeros, large = small_is_ones ? zeros : ones;
  // The convolution takes n·(small + 1) log-additions, about 3 ns each: ones near (n − 1)/2 at n = 10^7 would
  // take a day (3·10^5 took 75 s, silently). Bounded before it starts, and it stops on Ctrl-C.
  constexpr double kMaxTerms = 8e9;
  if (const double terms = static_cast<double>(n) * static_cast<double>(small + 1); terms > kMaxTerms)
    invalid_input("{}: n = {} with ones = {} needs {:.3g} terms to convolve its two binomials (n times min(ones, n-1-ones) + 1); "
                  "at most {:.2g}, about 25 s: take ones nearer 0 or n - 1, or a smaller n", where, n, ones, terms, kMaxTerms);
  const double ps = small_is_ones ? p : q, qs = small_is_ones ? q : p;  // success prob of the small binomial
  const double pl = small_is_ones ? q : p, ql = small_is_ones ? p : q;
  std::vector<double> log_small(static_cast<std::size_t>(small + 1)), log_large(static_cast<std::size_t>(large + 1));
  for (long j = 0; j <= small; ++j) log_small[static_cast<std::size_t>(j)] = log_binomial_pmf(j, small, ps, qs);
  for (long j = 0; j <= large; ++j) log_large[static_cast<std::size_t>(j)] = log_binomial_pmf(j, large, pl, ql);
  std::vector<double> others(static_cast<std::size_t>(n));  // support 0..n−1
  for (long k = 0; k < n; ++k) {
    if (k % 4096 == 0) throw_if_interrupted();
    LogSumAccumulator<double> acc;
    for (long j = std::max(0L, k - large); j <= std::min(small, k); ++j)
      acc.add(log_small[static_cast<std::size_t>(j)] + log_large[static_cast<std::size_t>(k - j)]);
    others[static_cast<std::size_t>(k)] = acc.value();
  }
  const double log_r1 = first ? log_p : log_q, log_r0 = first ? log_q : log_p;  // P(first reports 1), P(reports 0)
  std::vector<double> locations(static_cast<std::size_t>(n + 1)), log_mass(static_cast<std::size_t>(n + 1));
  for (long k = 0; k <= n; ++k) {
    const double stay = k < n ? log_r0 + others[static_cast<std::size_t>(k)] : neg_inf<double>();
    const double move = k > 0 ? log_r1 + others[static_cast<std::size_t>(k - 1)] : neg_inf<double>();
    locations[static_cast<std::size_t>(k)] = static_cast<double>(k);
    log_mass[static_cast<std::size_t>(k)] = log_add(stay, move);
  }
  return FiniteLaw::from_log_masses(
      std::move(locations), std::move(log_mass),
      fmt::format("shuffled_rr(n={}, eps0={}, ones={}, first={})", n, format_number(eps0), ones, first));
}

namespace {

// A run of terms that decrease away from a mode: summed until the remaining `count` terms, each at most the
// last one, cannot change the sum's relative value by more than 1e-17.
bool negligible(double log_term, double remaining, double log_sum) {
  return log_term == neg_inf<double>() || log_term + std::log(std::max(remaining, 1.0)) < log_sum - 39.2;
}

// The counts of shuffled k-ary randomized response: slices m (how many users land in {a, b}) around their mode,
// within each the counts h of a around theirs, every log-mass below −cut lumped into one "rare" atom.
class ShuffledCounts {
 public:
  ShuffledCounts(long n, int k, double eps0, int first, double cut) : n_(n), k_(k), first_(first), cut_(cut), nd_(static_cast<double>(n)) {
    // Z = e^{ε0} + k − 1; r = (e^{ε0} + 1)/Z lands in {a, b}; p, q the binary response given that it does.
    const double log_z = eps0 + std::log1p((k - 1) * std::exp(-eps0));
    r_ = std::exp(eps0 + std::log1p(std::exp(-eps0)) - log_z);
    s_ = k == 2 ? 0.0 : std::exp(std::log(k - 2.0) - log_z);
    log_p_ = -std::log1p(std::exp(-eps0));
    log_q_ = -std::log1p(std::exp(eps0));
    p_ = std::exp(log_p_);
    q_ = std::exp(log_q_);
  }

  // The atoms in increasing location: "rare" (−1), then the slices in increasing m, location m·(n + 1) + h.
  void atoms(std::vector<double>& locations, std::vector<double>& log_mass) {
    std::vector<Slice> below, above;  // slices m < m_mode (in decreasing m) and m ≥ m_mode (increasing)
    slices(below, above);
    std::size_t count = 1;
    for (const auto* side : {&below, &above})
      for (const Slice& sl : *side) count += sl.log_mass.size();
    locations.reserve(count);
    log_mass.reserve(count);
    if (lumped()) {
      locations.push_back(-1);
      log_mass.push_back(rare_[static_cast<std::size_t>(first_)].value());
    }
    auto emit = [&](const Slice& sl) {
      for (std::size_t i = 0; i < sl.log_mass.size(); ++i) {
        locations.push_back(static_cast<double>(sl.m) * (nd_ + 1) + static_cast<double>(sl.h_lo + static_cast<long>(i)));
        log_mass.push_back(sl.log_mass[i]);
      }
    };
    for (auto it = below.rbegin(); it != below.rend(); ++it) emit(*it);
    for (const Slice& sl : above) emit(sl);
  }
  bool lumped() const { return rare_value() > neg_inf<double>(); }

 private:
  struct Slice {
    long m, h_lo;
    std::vector<double> log_mass;  // for `first`, in increasing h from h_lo
  };

  double rare_value() const { return std::max(rare_[0].value(), rare_[1].value()); }
  void add_rare(double v0, double v1) {
    rare_[0].add(v0);
    rare_[1].add(v1);
  }

  // log P(h_a = h | m) under both neighbours (f = 0: first user holds b; f = 1: holds a).
  std::array<double, 2> inner(long m, long h) const {
    std::array<double, 2> out{neg_inf<double>(), neg_inf<double>()};
    if (m == 0) {
      if (h == 0) out = {0.0, 0.0};
      return out;
    }
    const double md = static_cast<double>(m);
    if (h == m) {  // only "the first user is among the m and says a" and "not among them" reach h = m
      const double log_in = std::log(md / nd_), log_out = m == n_ ? neg_inf<double>() : std::log1p(-md / nd_);
      const double one = log_binomial_pmf(h - 1, m - 1, q_, p_), others = log_q_ + one;
      for (int f = 0; f < 2; ++f)
        out[static_cast<std::size_t>(f)] = log_add(log_in + (f ? log_p_ : log_q_) + one, log_out + others);
      return out;
    }
    // Relative to B = Bin(h; m−1, q) (Loader's method, one evaluation per outcome): Bin(h−1; m−1, q) = B·ρ with
    // ρ = h/(m−h)·p/q exactly, and Bin(h; m, q) = q·Bin(h−1; m−1, q) + p·B = B·p·m/(m−h) (Pascal's rule).
    const double zero = log_binomial_pmf(h, m - 1, q_, p_);
    const double rho = static_cast<double>(h) / static_cast<double>(m - h) * std::exp(log_p_ - log_q_);
    const double in = md / nd_, others = (1 - in) * p_ * md / static_cast<double>(m - h);
    out[0] = zero + std::log(in * (q_ * rho + p_) + others);
    out[1] = zero + std::log(in * (p_ * rho + q_) + others);
    return out;
  }

  // One slice m: keep the run of h around the mode where either neighbour has log-mass ≥ −cut, lump the rest.
  Slice slice(long m, double log_w) {
    const long mode = std::clamp(std::lround(static_cast<double>(m) * q_), 0L, m);
    std::vector<double> down, up;
    for (const long dir : {1L, -1L}) {
      bool in_tail = false;
      for (long h = dir > 0 ? mode : mode - 1; h >= 0 && h <= m; h += dir) {
        const auto t = inner(m, h);
        const double v0 = log_w + t[0], v1 = log_w + t[1];
        if (!in_tail && (k_ == 2 || std::max(v0, v1) >= -cut_)) {
          (dir > 0 ? up : down).push_back(first_ ? v1 : v0);
          continue;
        }
        in_tail = true;
        add_rare(v0, v1);
        const double remaining = static_cast<double>(dir > 0 ? m - h : h);
        if (std::abs(h - mode) > 2 && negligible(std::max(v0, v1), remaining, rare_value())) break;
      }
    }
    Slice out{m, mode - static_cast<long>(down.size()), std::vector<double>(down.rbegin(), down.rend())};
    out.log_mass.insert(out.log_mass.end(), up.begin(), up.end());
    return out;
  }

  // The slices around m's mode, each side until the rest is negligible (a whole slice lumped at once).
  void slices(std::vector<Slice>& below, std::vector<Slice>& above) {
    const long m_mode = std::clamp(static_cast<long>(std::floor((nd_ + 1) * r_)), 0L, n_);
    for (const long dir : {1L, -1L}) {
      bool in_tail = false;
      for (long m = dir > 0 ? m_mode : m_mode - 1; m >= 0 && m <= n_; m += dir) {
        const double log_w = log_binomial_pmf(m, n_, r_, s_);
        if (!in_tail && log_w >= -cut_) {
          (dir > 0 ? above : below).push_back(slice(m, log_w));
          continue;
        }
        in_tail = true;
        add_rare(log_w, log_w);  // the whole slice (its conditional law sums to 1)
        const double remaining = static_cast<double>(dir > 0 ? n_ - m : m);
        if (std::abs(m - m_mode) > 2 && negligible(log_w, remaining, rare_value())) break;
      }
    }
  }

  long n_;
  int k_, first_;
  double cut_, nd_;
  double r_ = 0, s_ = 0, log_p_ = 0, log_q_ = 0, p_ = 0, q_ = 0;
  std::array<LogSumAccumulator<double>, 2> rare_;
};

}  // namespace

FiniteLaw shuffled_krr_counts(long n, int k, double eps0, int first, double cut) {
  const char* where = "shuffled_krr";
  if (k < 2 || k > 1'000'000) throw_invalid(where, "k", k, "2 <= k <= 1e6");
  const long n_max = k == 2 ? 10'000'000 : 100'000;
  if (n < 1 || n > n_max)
    throw_invalid(where, "n", static_cast<double>(n), k == 2 ? "1 <= n <= 1e7" : "1 <= n <= 1e5 (for k >= 3)");
  check_local_epsilon(where, "eps0", eps0);
  if (first != 0 && first != 1) throw_invalid(where, "first", first, "0 or 1");
  if (!(cut >= 20 && cut <= 700)) throw_invalid(where, "cut", cut, "20 <= cut <= 700");
  ShuffledCounts counts(n, k, eps0, first, cut);
  std::vector<double> locations, log_mass;
  counts.atoms(locations, log_mass);
  FiniteLaw law = FiniteLaw::from_log_masses(
      std::move(locations), std::move(log_mass),
      fmt::format("shuffled_krr(n={}, k={}, eps0={}, first={}, cut={})", n, k, format_number(eps0), first,
                  format_number(cut)));
  // Shuffling post-processes the first user's ε0-LDP report: every outcome's likelihood ratio is within e^{±ε0}.
  if (counts.lumped()) law.set_lumped({-1.0, eps0});
  return law;
}

BlanketGamma blanket_gamma(std::span<const LawPtr> outputs) {
  const char* where = "blanket";
  if (outputs.empty()) invalid_input("blanket: parameter 'laws' must list at least one output law");
  for (const auto& law : outputs)
    if (!law || law->dimension() != 1) invalid_input("blanket: the output laws must be one-dimensional laws");
  // Atoms: the minimum mass of each location (a location missing from one law has minimum 0).
  double atoms = 0;
  for (const Atom& a : outputs.front()->atoms()) {
    double m = a.log_mass;
    for (const auto& law : outputs.subspan(1)) m = std::min(m, law->log_atom_mass(a.x));
    atoms += std::exp(m);
  }
  bool all_continuous = true;
  Interval support{-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  std::vector<double> anchors;
  double scale = std::numeric_limits<double>::infinity();
  for (const auto& law : outputs) {
    const Shape s = law->shape();
    all_continuous = all_continuous && s.continuous_mass > 0;
    support.lo = std::max(support.lo, s.support.lo);
    support.hi = std::min(support.hi, s.support.hi);
    for (double x : law->anchors()) anchors.push_back(x);
    scale = std::min(scale, s.scale);
  }
  if (!all_continuous || !(support.lo < support.hi)) return {atoms, 0.0, 0};
  long evaluations = 0;
  auto which_min = [&](double y) {
    std::size_t best = 0;
    double v = outputs[0]->log_density(y);
    for (std::size_t i = 1; i < outputs.size(); ++i) {
      const double w = outputs[i]->log_density(y);
      if (w < v) v = w, best = i;
    }
    ++evaluations;
    return std::pair{v, best};
  };
  // min_x p is not smooth where the minimising output changes: locate those points (a scan between the anchors,
  // then bisection) and split the quadrature there.
  std::sort(anchors.begin(), anchors.end());
  const double lo = std::max(support.lo, anchors.front() - 8 * scale), hi = std::min(support.hi, anchors.back() + 8 * scale);
  const int scan = 256;
  for (int i = 0; i < scan; ++i) {
    double a = lo + (hi - lo) * i / scan, b = lo + (hi - lo) * (i + 1) / scan;
    const std::size_t ia = which_min(a).second;
    if (which_min(b).second == ia) continue;
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (a + b);
      (which_min(mid).second == ia ? a : b) = mid;
    }
    anchors.push_back(0.5 * (a + b));
  }
  LogIntegrateOptions<double> options;
  options.lo = support.lo;
  options.hi = support.hi;
  options.scale = scale;
  const auto integral = log_integrate<double>([&](double y) { return which_min(y).first; }, anchors, options);
  if (!integral.converged) throw NumericalError(fmt::format("{}: the quadrature of min_x p did not converge", where));
  const double density = std::exp(integral.log_value);
  return {atoms + density, integral.rel_error * density / (atoms + density), evaluations + integral.evaluations};
}

BlanketLaw::BlanketLaw(std::vector<LawPtr> outputs) : outputs_(std::move(outputs)) {
  for (const LawPtr& law : outputs_) refuse_lumped(*law, "blanket");
  gamma_ = blanket_gamma(outputs_);
  if (!(gamma_.gamma > 0)) invalid_input("blanket: the outputs have no common mass (gamma = 0)");
  const double log_gamma = std::log(gamma_.gamma);
  double atom_mass = 0;
  for (const Atom& a : outputs_.front()->atoms()) {
    double m = a.log_mass;
    for (const auto& law : outputs_) m = std::min(m, law->log_atom_mass(a.x));
    if (m > neg_inf<double>()) atoms_.push_back({a.x, m - log_gamma}), atom_mass += std::exp(m);
  }
  // The minimum decays like the fastest-decaying output on each side.
  constexpr double inf = std::numeric_limits<double>::infinity();
  shape_ = {.continuous_mass = std::max(0.0, 1 - atom_mass / gamma_.gamma), .support = {-inf, inf},
            .location = outputs_.front()->location(), .scale = inf, .left = {0, -inf}, .right = {0, -inf}};
  const auto lighter = [](TailShape& t, const TailShape& s) {
    if (s.quad > t.quad || (s.quad == t.quad && s.lin > t.lin)) t = s;
  };
  for (const auto& law : outputs_) {
    const Shape s = law->shape();
    shape_.support.lo = std::max(shape_.support.lo, s.support.lo);
    shape_.support.hi = std::min(shape_.support.hi, s.support.hi);
    shape_.scale = std::min(shape_.scale, s.scale);
    lighter(shape_.left, s.left);
    lighter(shape_.right, s.right);
  }
}

std::string BlanketLaw::expression() const {
  std::string laws;
  for (const auto& law : outputs_) laws += (laws.empty() ? "" : ", ") + law->expression();
  return fmt::format("blanket([{}])", laws);
}

double BlanketLaw::log_min(double x) const {
  double v = std::numeric_limits<double>::infinity();
  for (const auto& law : outputs_) v = std::min(v, law->log_density(x));
  return v;
}

double BlanketLaw::log_density(double x) const {
  if (shape_.continuous_mass == 0) return neg_inf<double>();
  return log_min(x) - std::log(gamma_.gamma);
}

std::vector<double> BlanketLaw::breakpoints() const {
  std::vector<double> out;
  for (const auto& law : outputs_)
    for (double x : law->breakpoints()) out.push_back(x);
  return out;
}

std::vector<double> BlanketLaw::anchors() const {
  std::vector<double> out;
  for (const auto& law : outputs_)
    for (double x : law->anchors()) out.push_back(x);
  return out;
}

Computation BlanketLaw::computation() const {
  Computation c;
  double outputs_error = 0;
  c.density_cost = 0;
  for (const auto& law : outputs_) {
    const Computation o = law->computation();
    outputs_error = std::max(outputs_error, o.log_density_error);
    c.density_cost += o.density_cost;
  }
  const double gamma_error = gamma_.rel_error < 1 ? -std::log1p(-gamma_.rel_error) : std::numeric_limits<double>::infinity();
  c.log_density_error = 2 * outputs_error + gamma_error;
  return c;
}

void BlanketLaw::sample_into(Rng& rng, std::span<double> out) const {
  for (double& v : out) v = draw(rng);
}

double BlanketLaw::draw(Rng& rng) const {
  // min_x p ≤ p_0: accept a draw y of the first output with probability min_x p(y) / p_0(y).
  const Law& first = *outputs_.front();
  for (long tries = 0; tries < 100'000'000; ++tries) {
    const double y = first.sample(rng);
    const double own = first.log_atom_mass(y);
    double log_accept = 0;
    if (own > neg_inf<double>()) {
      for (const auto& law : outputs_) log_accept = std::min(log_accept, law->log_atom_mass(y) - own);
    } else {
      log_accept = log_min(y) - first.log_density(y);
    }
    if (std::log(rng.uniform()) < log_accept) return y;
  }
  throw NumericalError("blanket: rejection sampling accepted nothing in 1e8 draws (gamma too small)");
}

// ---- The laws of the expression language (sim/laws/spec.hpp).

LawSpec shuffled_rr_law_spec() {
  using K = ParamKind;
  return {"shuffled_rr", "number of 1s among n shuffled binary randomized-response reports",
    {ParamSpec{"n", K::integer, std::nullopt, "number of users, 1 <= n <= 1e7"}.within(Range::between(1, 1e7)),
    ParamSpec{"eps0", K::number, std::nullopt, "local privacy parameter, 0 to 700"}.within(Range::between(0, kMaxLocalEpsilon)),
    ParamSpec{"ones", K::integer, "0", "how many of the other n-1 users hold bit 1"}.within(Range::at_least(0)),
    ParamSpec{"first", K::integer, "0", "the bit of the first user (the one that differs between neighbours)"}.within(Range::between(0, 1))},
    "shuffled_rr(n=1000, eps0=1, first=1)",
    [](const Args& a) {
      return std::make_shared<FiniteLaw>(shuffled_rr_counts(a.integer("n"), a.number("eps0"), a.integer("ones"),
                                                            static_cast<int>(a.integer("first"))));
    }};
}
PRIVAMP_LAW(250, shuffled_rr_law_spec);

LawSpec shuffled_krr_law_spec() {
  using K = ParamKind;
  return {"shuffled_krr", "sufficient statistic (m, h_a) of n shuffled k-ary randomized-response reports; others hold b",
    {ParamSpec{"n", K::integer, std::nullopt, "number of users, 1 <= n <= 1e5 (1e7 for k = 2)"}.within(Range::between(1, 1e7)),
    ParamSpec{"k", K::integer, std::nullopt, "number of values, >= 2"}.within(Range::between(2, 1e6)),
    ParamSpec{"eps0", K::number, std::nullopt, "local privacy parameter, 0 to 700"}.within(Range::between(0, kMaxLocalEpsilon)),
    ParamSpec{"first", K::integer, "0", "1: the first user holds a; 0: it holds b like the others"}.within(Range::between(0, 1)),
    ParamSpec{"cut", K::number, "80", "k >= 3: outcomes below e^-cut under both neighbours are lumped, 20 <= cut <= 700"}.within(Range::between(20, 700))},
    "shuffled_krr(n=1000, k=4, eps0=1, first=1)",
    [](const Args& a) {
      return std::make_shared<FiniteLaw>(shuffled_krr_counts(a.integer("n"), static_cast<int>(a.integer("k")),
                                                            a.number("eps0"), static_cast<int>(a.integer("first")),
                                                            a.number("cut")));
    }};
}
PRIVAMP_LAW(260, shuffled_krr_law_spec);

LawSpec blanket_law_spec() {
  using K = ParamKind;
  return {"blanket", "blanket law of a local randomizer: min over its outputs R(x) of the density, normalised by gamma",
    {{"laws", K::laws, std::nullopt, "the outputs R(x) over the inputs x (for a location family on [0, 1] with "
                                    "log-concave noise, x = 0 and 1 suffice)"}},
    "blanket([laplace(0, 1), laplace(1, 1)])",
    [](const Args& a) { return std::make_shared<BlanketLaw>(a.laws("laws")); }};
}
PRIVAMP_LAW(270, blanket_law_spec);

}  // namespace privamp::sim
