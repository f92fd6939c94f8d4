// MIX — amplification from uniform mixing (Balle et al. 2019, §3, Theorem 1). Kernel cases supply the kernel's
// best mixing constants as derived parameters: gamma_tv (Dobrushin), gamma_hs_tilde ((γ,ε̃)-Dobrushin with
// ε̃ = log(1 + (e^ε − 1)/δ)), gamma_doeblin, gamma_ultra. The exact value is the worst case over all
// (ε,δ)-DP mechanisms (GT.canonical) at the ε' the entry names.
#include <cmath>

#include "sim/kernels/finite_kernel.hpp"
#include "verify/bounds/catalogue.hpp"

namespace privamp::verify {

namespace {
double amplified_eps(double gamma, double eps) { return std::log1p(gamma * std::expm1(eps)); }
}  // namespace

void add_mixing_bounds(std::vector<BoundEntry>& out) {
  const std::string source = "Balle, Barthe, Gaboardi, Geumlek 2019, Theorem 1";
  auto none = [](const Params&) -> std::optional<std::string> { return std::nullopt; };
  auto at_eps = [](const Params& p) { return p.at("eps"); };
  out.push_back({"T1.1", "mixing", source + " (1)", "M (eps,delta)-DP, K gamma-Dobrushin => K o M is (eps, gamma delta)-DP",
                 "hockey_stick(eps)", Direction::upper, none,
                 [](const Params& p) { return BoundValue{p.at("gamma_tv") * p.at("delta"), ""}; }, at_eps, {}});
  out.push_back({"T1.2", "mixing", source + " (2)",
                 "K (gamma, eps~)-Dobrushin, eps~ = log(1 + (e^eps - 1)/delta) => K o M is (eps, gamma delta)-DP",
                 "hockey_stick(eps)", Direction::upper, none,
                 [](const Params& p) { return BoundValue{p.at("gamma_hs_tilde") * p.at("delta"), ""}; }, at_eps, {}});
  out.push_back({"T1.3", "mixing", source + " (3)",
                 "K gamma-Doeblin => (eps', gamma(1 - e^(eps'-eps)(1-delta)))-DP, eps' = log(1 + gamma(e^eps - 1))",
                 "hockey_stick(eps')", Direction::upper, none,
                 [](const Params& p) {
                   const double g = p.at("gamma_doeblin"), e = p.at("eps");
                   const double ep = amplified_eps(g, e);
                   return BoundValue{g * (1 - std::exp(ep - e) * (1 - p.at("delta"))), ""};
                 },
                 [](const Params& p) { return amplified_eps(p.at("gamma_doeblin"), p.at("eps")); }, {}});
  out.push_back({"T1.4", "mixing", source + " (4)",
                 "K gamma-ultra-mixing => (eps', gamma delta e^(eps'-eps))-DP, eps' = log(1 + gamma(e^eps - 1))",
                 "hockey_stick(eps')", Direction::upper, none,
                 [](const Params& p) {
                   const double g = p.at("gamma_ultra"), e = p.at("eps");
                   return BoundValue{g * p.at("delta") * std::exp(amplified_eps(g, e) - e), ""};
                 },
                 [](const Params& p) { return amplified_eps(p.at("gamma_ultra"), p.at("eps")); }, {}});
}

std::vector<Theorem1Point> theorem1_points(const sim::FiniteKernel& kernel, double eps, double delta) {
  const auto m = sim::mixing_coefficients(kernel);
  Params p;
  p.numbers = {{"eps", eps},
               {"delta", delta},
               {"gamma_tv", m.dobrushin},
               {"gamma_doeblin", m.doeblin},
               {"gamma_ultra", m.ultra_mixing},
               {"gamma_hs_tilde", sim::dobrushin_tilde(kernel, eps, delta)}};
  std::vector<Theorem1Point> out;
  for (const char* id : {"T1.1", "T1.2", "T1.3", "T1.4"}) {
    const BoundEntry& e = find_bound(id);
    out.push_back({id, e.statement, e.order ? e.order(p) : eps, e.bound(p).value});
  }
  return out;
}

}  // namespace privamp::verify
