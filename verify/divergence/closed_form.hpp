// Closed-form divergences (THEOREMS.md GT rows), each with its rounding error bar.
//   GT.gauss.renyi  R_α(N(u,σ²I)‖N(v,σ²I)) = αΔ²/(2σ²),  Δ = ‖u−v‖;  KL = Δ²/(2σ²); R_∞ = ∞ (Δ > 0)
//   GT.gauss.hs     HS_ε = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)     (Balle–Wang 2018), in log-space
//   GT.lap.renyi    R_α = log g_α(Δ/b)/(α−1), g_α(z) = α/(2α−1)e^{z(α−1)} + (α−1)/(2α−1)e^{−zα}; R_∞ = Δ/b;
//                   KL = z − 1 + e^{−z}
//   GT.lap.hs       HS_ε = 1 − e^{(ε−Δ/b)/2} for ε ≤ Δ/b, else 0
//   GT.sgm.renyi    μ = (1−q)N(0,σ²) + qN(Δ,σ²), ν = N(0,σ²), integer α (Mironov–Talwar–Zhang 2019):
//                   R_α(μ‖ν) = log Σ_k C(α,k)(1−q)^{α−k} q^k e^{(k²−k)Δ²/(2σ²)} / (α−1)
#pragma once

#include <optional>

#include "sim/laws/law.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

Estimate gaussian_renyi(double delta, double sigma, double alpha);
Estimate gaussian_kl(double delta, double sigma);
Estimate gaussian_hockey_stick(double delta, double sigma, double eps);
Estimate laplace_renyi(double delta, double b, double alpha);
Estimate laplace_kl(double delta, double b);
Estimate laplace_hockey_stick(double delta, double b, double eps);
Estimate subsampled_gaussian_renyi(double q, double delta, double sigma, long alpha);

// The closed form for (p, q, quantity) if the pair is one of the GT families, otherwise nullopt.
std::optional<Estimate> closed_form(const sim::Law& p, const sim::Law& q, const Quantity& quantity);

}  // namespace privamp::verify
