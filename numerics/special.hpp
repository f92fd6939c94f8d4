// Special functions in log-space that the closed forms and laws need, accurate in the far tails.
#pragma once

namespace privamp {

// log Φ(x), Φ the standard normal CDF; accurate relative to |log Φ| for all x (no underflow for x ≪ 0).
double log_normal_cdf(double x);

// log of the binomial pmf C(n,k) p^k (1−p)^{n−k}, by Loader's saddle-point method (relative accuracy ~1e-15
// even for n ~ 1e6 where lgamma differences lose digits). −inf when the mass is zero.
double log_binomial_pmf(long k, long n, double p);
// Same, with q = 1 − p supplied exactly (p close to 1 loses digits in 1 − p).
double log_binomial_pmf(long k, long n, double p, double q);

// log C(n, k) for 0 ≤ k ≤ n (exact to rounding through lgamma for small n, Stirling corrections for large).
double log_binomial_coefficient(long n, long k);

}  // namespace privamp
