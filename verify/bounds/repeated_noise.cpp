// RNA — privacy amplification by repeated noise addition (blog post, after Feldman et al. 2018).
#include <cmath>

#include <fmt/format.h>

#include "numerics/errors.hpp"
#include "verify/bounds/catalogue.hpp"
#include "verify/divergence/closed_form.hpp"

namespace privamp::verify {

void add_repeated_noise_bounds(std::vector<BoundEntry>& out) {
  out.push_back({"RNA.thm", "repeated_noise", "Privacy amplification by repeated noise addition (blog), main theorem",
                 "R_alpha(P^{*n} + 1 || P^{*n}) <= n R_alpha(P + 1/n || P); tight for Gaussian P, open for Laplace",
                 "renyi(alpha)", Direction::upper,
                 [](const Params&) -> std::optional<std::string> { return std::nullopt; },
                 [](const Params& p) {
                   const double n = p.at("n"), a = p.at("alpha"), s = p.at("scale");
                   const std::string& noise = p.word("noise");
                   if (noise == "laplace") return BoundValue{n * laplace_renyi(1 / n, s, a).value, ""};
                   if (noise == "gaussian") return BoundValue{n * gaussian_renyi(1 / n, s, a).value, ""};
                   throw InvalidArgument(fmt::format("noise = '{}': allowed laplace, gaussian", noise));
                 }, {}, {}});
}

}  // namespace privamp::verify
