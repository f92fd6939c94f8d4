#include "sim/processes/subsampling.hpp"

#include <cmath>
#include <memory>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "sim/laws/finite.hpp"
#include "sim/laws/gaussian.hpp"
#include "sim/laws/laplace.hpp"
#include "sim/laws/mixture.hpp"
#include "sim/laws/spec.hpp"
#include "sim/processes/shuffling.hpp"

namespace privamp::sim {

namespace {

// The probability that the distinguished record enters the subsample (poisson, wor).
double inclusion(const Subsampling& s) {
  if (s.scheme == "poisson") {
    check_probability("subsample", "q", s.q);
    return s.q;
  }
  return static_cast<double>(s.m) / static_cast<double>(s.n);
}

LawPtr counting_base(const Subsampling& s, double count) {
  // N(count, σ²) / Lap(count, b): the user's σ or b and an integer count, so exact.
  if (s.base == "gaussian") {
    auto g = std::make_shared<Gaussian>(count, s.sigma);
    g->set_parameters_exact();
    return g;
  }
  auto l = std::make_shared<Laplace>(count, s.scale);
  l->set_parameters_exact();
  return l;
}

}  // namespace

LawPtr subsampled_law(const Subsampling& s, int side) {
  const char* where = "subsample";
  if (side != 0 && side != 1) throw_invalid(where, "side", side, "0 or 1");
  if (s.scheme != "poisson" && s.scheme != "wor" && s.scheme != "wr")
    invalid_input("subsample: scheme = '{}': allowed poisson, wor, wr", s.scheme);
  if (s.base != "gaussian" && s.base != "laplace" && s.base != "rr")
    invalid_input("subsample: base = '{}': allowed gaussian, laplace, rr", s.base);
  if (s.scheme != "poisson") {
    if (s.n < 1 || s.n > 1'000'000'000) throw_invalid(where, "n", static_cast<double>(s.n), "1 <= n <= 1e9");
    if (s.m < 1 || s.m > (s.scheme == "wor" ? s.n : 100'000))
      throw_invalid(where, "m", static_cast<double>(s.m), s.scheme == "wor" ? "1 <= m <= n" : "1 <= m <= 1e5");
  }
  if (s.base == "gaussian") check_scale(where, "sigma", s.sigma);
  if (s.base == "laplace") check_scale(where, "scale", s.scale);
  if (s.base == "rr") {
    check_local_epsilon(where, "eps0", s.eps0);
    if (s.scheme != "wor")
      invalid_input("subsample: base = rr needs scheme = wor");
    // The number of 1s among the m sampled users' reports; the others hold 0. The distinguished user is sampled
    // with probability m/n; on side 0 it holds 0 like the others, so sampling it changes nothing.
    const auto without = std::make_shared<FiniteLaw>(shuffled_rr_counts(s.m, s.eps0, 0, 0));
    if (side == 0) return without;
    const double eta = inclusion(s);
    return std::make_shared<Mixture>(std::vector<double>{1 - eta, eta},
                                     std::vector<LawPtr>{without, std::make_shared<FiniteLaw>(shuffled_rr_counts(s.m, s.eps0, 0, 1))});
  }
  if (side == 0) return counting_base(s, 0);
  if (s.scheme != "wr") {
    const double eta = inclusion(s);
    return std::make_shared<Mixture>(std::vector<double>{1 - eta, eta},
                                     std::vector<LawPtr>{counting_base(s, 0), counting_base(s, 1)});
  }
  // The record is drawn K ~ Bin(m, 1/n) times and counted each time.
  return binomial_mixture(s.m, 1 / static_cast<double>(s.n), [&](long k) { return counting_base(s, static_cast<double>(k)); });
}

// ---- The law of the expression language (sim/laws/spec.hpp).

LawSpec subsample_law_spec() {
  using K = ParamKind;
  LawSpec spec{"subsample", "output law of a base mechanism on a counting query after subsampling, either side of the neighbours",
    {{"scheme", K::word, "poisson", "poisson (add/remove one) | wor (m of n, substitute) | wr (m draws of n, substitute)",
      {"poisson", "wor", "wr"}},
    {"base", K::word, "gaussian", "gaussian N(count, sigma^2) | laplace Lap(count, scale) | rr (wor only: the number of 1s among the m sampled reports)",
      {"gaussian", "laplace", "rr"}},
    ParamSpec{"side", K::integer, "1", "1: the dataset with the distinguished record (holding 1); 0: its neighbour"}.within(Range::between(0, 1)),
    ParamSpec{"q", K::number, "0.01", "poisson: sampling rate"}.within(Range::probability()),
    ParamSpec{"n", K::integer, "100", "wor, wr: dataset size"}.within(Range::between(1, 1e9)),
    ParamSpec{"m", K::integer, "10", "wor: sample size, at most n; wr: number of draws, at most 1e5"}.within(Range::between(1, 1e9)),
    ParamSpec{"sigma", K::number, "1", "gaussian base: noise standard deviation"}.within(Range::scale()),
    ParamSpec{"scale", K::number, "1", "laplace base: scale"}.within(Range::scale()),
    ParamSpec{"eps0", K::number, "1", "rr base: local privacy parameter, 0 to 700"}.within(Range::between(0, kMaxLocalEpsilon))},
    "subsample(scheme=wr, base=laplace, n=50, m=20)",
    [](const Args& a) {
      Subsampling s;
      s.scheme = a.word("scheme");
      s.base = a.word("base");
      s.q = a.number("q");
      s.n = a.integer("n");
      s.m = a.integer("m");
      s.sigma = a.number("sigma");
      s.scale = a.number("scale");
      s.eps0 = a.number("eps0");
      return subsampled_law(s, static_cast<int>(a.integer("side")));
    }};
  // The tie between m and n, at load for every grid point (it was an error row at run time).
  spec.check = [](const Args& a) {
    const std::string scheme = a.word("scheme");
    if (scheme == "poisson") return;
    const long n = a.integer("n"), m = a.integer("m");
    if (m > (scheme == "wor" ? n : 100'000))
      throw_invalid("subsample", "m", static_cast<double>(m), scheme == "wor" ? fmt::format("1 <= m <= n = {}", n) : "1 <= m <= 1e5");
  };
  return spec;
}
PRIVAMP_LAW(230, subsample_law_spec);

}  // namespace privamp::sim
