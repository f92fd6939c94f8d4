// GT.canonical: the exact worst case of HS_ε'(μK ‖ νK) over all (ε,δ)-DP pairs (μ, ν), for a finite kernel K.
//
// Every pair with HS_ε(μ‖ν) ≤ δ and HS_ε(ν‖μ) ≤ δ is a post-processing of the 4-point pair (Kairouz–Oh–
// Viswanath 2015)
//   P0 = (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0),   Q0 = (0, (1−δ)/(1+e^ε), (1−δ)e^ε/(1+e^ε), δ),
// and HS is jointly convex, so the worst case is the maximum over the |X|^4 maps g: {0..3} → X of
//   HS_ε'( Σ_i P0_i K(g(i)) ‖ Σ_i Q0_i K(g(i)) ).
// This is the exact amplified privacy profile of K against which the T1.* bounds are compared.
#pragma once

#include <array>
#include <vector>

#include <Eigen/Core>

#include "sim/kernels/finite_kernel.hpp"
#include "verify/divergence/estimate.hpp"

namespace privamp::verify {

struct CanonicalPair {
  Eigen::Vector4d p, q;
};
// The pair (P0, Q0) for (ε, δ); ε ≥ 0 finite, 0 ≤ δ ≤ 1.
CanonicalPair canonical_pair(double eps, double delta);

struct WorstCase {
  Estimate value;               // the exact worst-case HS_ε'(μK‖νK) (finite sum, rounding bar)
  std::array<int, 4> map{};     // a maximising g
  Eigen::VectorXd mu, nu;       // the maximising pair after K
  long maps = 0;                // maps enumerated
};

// One worst case per ε' (the enumeration is shared).
std::vector<WorstCase> worst_case_amplification(const sim::FiniteKernel& kernel, double eps, double delta,
                                                const std::vector<double>& eps_primes);

// The exact worst case of R_α(μK ‖ νK) over all (ε,δ)-DP pairs, one per α > 1: exp((α − 1)R_α) is jointly convex,
// so the maximum is again at a deterministic map of the canonical pair. Summed in logs; +inf where some map puts
// μK-mass where νK has none (with δ > 0 and a kernel with zeros).
std::vector<WorstCase> worst_case_renyi(const sim::FiniteKernel& kernel, double eps, double delta,
                                        const std::vector<double>& alphas);

// The largest kernels the map enumerations accept: |X|^4 maps, each costing |X| operations (hockey-stick: 64 states
// are 1.7·10^7 maps, about a second) or |X| logarithms (Rényi: 32 states, about a second). Benchmarked in bench/.
constexpr int kMaxWorstCaseStates = 64;
constexpr int kMaxWorstCaseRenyiStates = 32;

// The same worst case by a second, independent enumeration (the cross-check of the kernel cases): HS_ε'(a‖b) =
// max over output sets T of a(T) − e^{ε'} b(T), and for a fixed T the objective Σ_i c_i K(g(i), T) with
// c_i = P0_i − e^{ε'} Q0_i is maximised atom by atom (K(g(i), T) as large as possible where c_i > 0, as small as
// possible where c_i < 0). So the worst case is max_T Σ_i c_i·(c_i > 0 ? max_x K(x, T) : min_x K(x, T)): 2^|Y|
// output sets instead of |X|^4 maps. Kernels with at most 16 states (InvalidArgument beyond).
Estimate worst_case_by_output_sets(const sim::FiniteKernel& kernel, double eps, double delta, double eps_prime);

}  // namespace privamp::verify
