// SUB, SHUF, BLANKET — the talk's further results (Balle, "Privacy Amplification" slides). Subsampled laws are
// the counting-query pairs (records in [0,1], sensitivity 1) written as mixtures in the case files; the base
// mechanism's own profile δ(ε) enters the bounds through its closed form.
#include <cmath>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "numerics/special.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/divergence/closed_form.hpp"

namespace privamp::verify {

namespace {

const std::string kSlides = "Balle, Privacy Amplification (talk slides)";

// δ_M(ε) of the base mechanism on a counting query between datasets differing in k records (group privacy).
double base_delta(const Params& p, double eps, double k = 1) {
  const std::string& base = p.word("base");
  if (base == "gaussian") return gaussian_hockey_stick(k, p.at("sigma"), eps).value;
  if (base == "laplace") return laplace_hockey_stick(k, p.at("scale"), eps).value;
  throw InvalidArgument(fmt::format("base = '{}': allowed gaussian, laplace", base));
}

// η of the subsampling table for the scheme in the parameters.
double eta(const Params& p) {
  const std::string& scheme = p.word("scheme");
  if (scheme == "poisson") return p.at("q");
  if (scheme == "wor") return p.at("m") / p.at("n");
  if (scheme == "wr") return -std::expm1(p.at("m") * std::log1p(-1 / p.at("n")));  // 1 − (1 − 1/n)^m
  throw InvalidArgument(fmt::format("scheme = '{}': allowed poisson, wor, wr", scheme));
}

// Given the amplified ε', the base ε with e^{ε'} = 1 + η(e^ε − 1).
BoundValue subsampled(const Params& p) {
  const double h = eta(p), eps_prime = p.at("eps_prime");
  const double eps = std::log1p(std::expm1(eps_prime) / h);
  if (p.word("scheme") == "wr") {
    // δ' = Σ_{k≥1} C(m,k)(1/n)^k(1−1/n)^{m−k} δ_k(ε): the record drawn k times, group privacy for k records.
    const long m = static_cast<long>(p.at("m"));
    double delta = 0;
    for (long k = 1; k <= m; ++k) delta += std::exp(log_binomial_pmf(k, m, 1 / p.at("n"))) * base_delta(p, eps, static_cast<double>(k));
    return {delta, fmt::format("eta = {:.6g}, base eps = {:.6g}", h, eps)};
  }
  return {h * base_delta(p, eps), fmt::format("eta = {:.6g}, base eps = {:.6g}", h, eps)};
}

}  // namespace

void add_subsampling_shuffling_bounds(std::vector<BoundEntry>& out) {
  auto none = [](const Params&) -> std::optional<std::string> { return std::nullopt; };
  out.push_back({"SUB.wor", "subsampling", kSlides + ", subsampling without replacement",
                 "WOR fraction gamma = m/n, substitute-one: M o S is (log(1+gamma(e^eps-1)), gamma delta)-DP",
                 "hockey_stick(eps_prime)", Direction::upper, none, subsampled, {}, {}});
  out.push_back({"SUB.table", "subsampling", kSlides + ", subsampling table",
                 "e^eps' = 1 + eta(e^eps - 1); Poisson: eta = q, delta' = q delta; WOR(n,m): eta = m/n, delta' = (m/n) delta; "
                 "WR(n,m): eta = 1-(1-1/n)^m, delta' = sum_k Bin(k; m, 1/n) delta_k",
                 "hockey_stick(eps_prime)", Direction::upper, none, subsampled, {}, {}});
  out.push_back({"BLANKET", "shuffling", kSlides + ", blanket decomposition",
                 "gamma = int min_x p_R(x)(y) dy: RR on [k]: k/(e^eps0+k-1); Laplace 1/eps0 on [0,1]: e^(-eps0/2); "
                 "Gaussian on [0,1]: 2 Phi(-1/(2 sigma)); checked as TV(R(0), R(1)) = 1 - gamma",
                 "tv", Direction::equal, none,
                 [](const Params& p) {
                   const std::string& r = p.word("randomizer");
                   double gamma = 0;
                   if (r == "rr") gamma = p.at("k") / (std::exp(p.at("eps0")) + p.at("k") - 1);
                   else if (r == "laplace") gamma = std::exp(-p.at("eps0") / 2);
                   else if (r == "gaussian") gamma = 2 * std::exp(log_normal_cdf(-1 / (2 * p.at("sigma"))));
                   else throw InvalidArgument(fmt::format("randomizer = '{}': allowed rr, laplace, gaussian", r));
                   return BoundValue{1 - gamma, fmt::format("gamma = {:.10g}", gamma)};
                 }, {}, {}});
  out.push_back({"SHUF.thm", "shuffling", kSlides + ", amplification by shuffling (as transcribed)",
                 "delta <= gamma(e^eps+1)^2(e^eps0-e^-eps0)^2/(4n(e^eps-1)) exp(-0.86 n min(gamma, "
                 "(e^eps-1)^2/(gamma(e^eps+1)^2(e^eps0-e^-eps0)^2)))",
                 "hockey_stick(eps)", Direction::upper,
                 [](const Params& p) -> std::optional<std::string> {
                   if (!(p.at("eps") > 0)) return "needs eps > 0";
                   return std::nullopt;
                 },
                 [](const Params& p) {
                   const double e0 = p.at("eps0"), e = p.at("eps"), n = p.at("n");
                   const double gamma = 2 / (std::exp(e0) + 1);  // blanket of binary randomized response
                   const double c = std::pow(std::exp(e) + 1, 2) * std::pow(2 * std::sinh(e0), 2);
                   const double lead = gamma * c / (4 * n * std::expm1(e));
                   const double rate = std::min(gamma, std::expm1(e) * std::expm1(e) / (gamma * c));
                   return BoundValue{lead * std::exp(-0.86 * n * rate), fmt::format("gamma = {:.6g}", gamma)};
                 }, {}, {}});
}

}  // namespace privamp::verify
