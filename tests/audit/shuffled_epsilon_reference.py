#!/usr/bin/env python3
"""Independent references for SHUF.cor's exact value: eps(delta) of shuffled binary randomized response.

The count of ones among n reports when the first user holds 1 (resp. 0) and the other n - 1 hold 0 is
Bern(p) + Bin(n - 1, q) (resp. Bern(q) + Bin(n - 1, q)), q = 1/(1 + e^eps0), p = 1 - q. eps(delta) is the smallest
eps at which both hockey-stick divergences between the two count laws are <= delta. Here everything is exact binomial
sums in mpmath at 50 digits and a bisection to 1e-30: no code shared with privamp (which uses Loader's binomial pmf
in log space). Prints one line per point: n, eps0, delta, eps."""
import mpmath as mp

mp.mp.dps = 50


def counts(n, eps0, first):
    q = 1 / (1 + mp.e ** mp.mpf(eps0))
    p = 1 - q
    others = [mp.binomial(n - 1, k) * q ** k * (1 - q) ** (n - 1 - k) for k in range(n)]
    at = lambda k: others[k] if 0 <= k < n else mp.mpf(0)
    one = p if first else q
    return [one * at(k - 1) + (1 - one) * at(k) for k in range(n + 1)]


def hockey(a, b, eps):
    w = mp.e ** eps
    return mp.fsum(max(mp.mpf(0), x - w * y) for x, y in zip(a, b))


def epsilon(n, eps0, delta):
    a, b = counts(n, eps0, 1), counts(n, eps0, 0)
    profile = lambda e: max(hockey(a, b, e), hockey(b, a, e))
    delta = mp.mpf(delta)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while profile(hi) > delta:
        lo, hi = hi, 2 * hi
    while hi - lo > mp.mpf(10) ** -30:
        mid = (lo + hi) / 2
        if profile(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


if __name__ == "__main__":
    for n, eps0, delta in [(1000, 1, "1e-6"), (1000, 2, "1e-10"), (3000, 0.7, "1e-8")]:
        print(n, eps0, delta, mp.nstr(epsilon(n, eps0, delta), 25))
