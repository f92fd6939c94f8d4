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
    throw InvalidArgument(fmt::format("subsample: scheme = '{}': allowed poisson, wor, wr", s.scheme));
  if (s.base != "gaussian" && s.base != "laplace" && s.base != "rr")
    throw InvalidArgument(fmt::format("subsample: base = '{}': allowed gaussian, laplace, rr", s.base));
  if (s.scheme != "poisson") {
    if (s.n < 1 || s.n > 1'000'000'000) throw_invalid(where, "n", static_cast<double>(s.n), "1 <= n <= 1e9");
    if (s.m < 1 || s.m > (s.scheme == "wor" ? s.n : 100'000))
      throw_invalid(where, "m", static_cast<double>(s.m), s.scheme == "wor" ? "1 <= m <= n" : "1 <= m <= 1e5");
  }
  if (s.base == "gaussian") check_scale(where, "sigma", s.sigma);
  if (s.base == "laplace") check_scale(where, "scale", s.scale);
  if (s.base == "rr") {
    check_nonnegative_finite(where, "eps0", s.eps0);
    if (s.scheme != "wor")
      throw InvalidArgument("subsample: base = rr needs scheme = wor");
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

}  // namespace privamp::sim
