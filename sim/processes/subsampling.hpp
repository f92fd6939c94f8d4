// Subsampling (SUB.*): a base mechanism on a counting query (records in {0, 1}, sensitivity 1) applied to a
// subsample, with the exact output law on either side of the neighbouring relation the slides state for the scheme.
// side = 1: the dataset with the distinguished record (holding 1); side = 0: its neighbour (the record removed for
// Poisson sampling, add/remove-one; the record holding 0 for the substitution schemes). The other records hold 0.
//   poisson(q):  side 1: (1 − q)·M(0) + q·M(1);          side 0: M(0)
//   wor(n, m):   side 1: (1 − m/n)·M(0) + (m/n)·M(1);    side 0: M(0)      (m of n records without replacement)
//   wr(n, m):    side 1: Σ_k Bin(k; m, 1/n)·M(k);        side 0: M(0)      (m draws with replacement)
// Base M(c): gaussian: N(c, σ²); laplace: Lap(c, b); rr (wor only): the number of 1s among the randomized-response
// reports of the m sampled records, an ε0-DP mechanism under substitution (the others hold 0; on side 1 the
// distinguished record holds 1 and is sampled with probability m/n). (Releasing the distinguished user's own report
// slot, ⊥ when not sampled, is not of this form: ⊥ reveals non-participation and ε is not amplified.)
#pragma once

#include <string>

#include "sim/laws/law.hpp"

namespace privamp::sim {

struct Subsampling {
  std::string scheme = "poisson";  // poisson | wor | wr
  std::string base = "gaussian";   // gaussian | laplace | rr
  double q = 0.01;                 // poisson rate
  long n = 100, m = 10;            // wor / wr: population and sample size
  double sigma = 1, scale = 1, eps0 = 1;
};

LawPtr subsampled_law(const Subsampling& s, int side);

}  // namespace privamp::sim
