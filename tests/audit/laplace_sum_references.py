#!/usr/bin/env python3
"""References for the certified engine's Laplace sums (tests/verify/certified_test.cpp), computed without their
closed forms (partial fractions, the n-fold polynomial): the density of Laplace(0, b1) + Laplace(0, b2) at x >= 0 is
the convolution integral int lap(y, b1) lap(x - y, b2) dy taken over y < 0, 0 < y < x and y > x, where each product
is one exponential integrated by hand; each divergence is then an mpmath quadrature at 30 digits, split at the
centres and checked against a second splitting. Prints C++ table rows: mu, nu, quantity, order, value.
(The audit table, tests/audit/references.csv, holds further rows from the partial-fraction and n-fold closed forms.)"""
from mpmath import mp, mpf, exp, log, quad, inf, findroot

mp.dps = 30


def lap(x, b):
    return exp(-abs(x) / b) / (2 * b)


def conv(b1, b2):
    r = 1 / b1 + 1 / b2
    k = 1 / b2 - 1 / b1

    def f(x):
        x = abs(mpf(x))  # the sum is symmetric
        below = exp(-x / b2) / r                       # y < 0
        middle = exp(-x / b2) * (x if k == 0 else (exp(k * x) - 1) / k)  # 0 < y < x
        above = exp(-x / b1) / r                       # y > x
        return (below + middle + above) / (4 * b1 * b2)
    return f


def outer(g, centres, width, kinks=()):
    a = quad(g, [-inf] + sorted({c + k * width for c in centres for k in range(-8, 9)} | set(kinks)) + [inf])
    b = quad(g, [-inf] + sorted({c + k * width * 0.77 for c in centres for k in range(-9, 10)} | set(kinks)) + [inf])
    return a, abs(a - b) / abs(a)


def crossings(h, lo, hi, n=4000):
    """The zeros of h on [lo, hi]: sign changes on a grid, refined by bisection (the hockey-stick's kinks)."""
    xs = [lo + (hi - lo) * mpf(k) / n for k in range(n + 1)]
    out = []
    for a, b in zip(xs, xs[1:]):
        if h(a) * h(b) < 0:
            out.append(findroot(h, (a, b), solver="bisect"))
    return out


def rows():
    # Every parameter as the double privamp parses it (mpf of a Python float), not the decimal written.
    for d, b1, b2, alphas, eps in [(0.7, 0.4, 1.3, [2.7], 0.35), (-1.9, 0.8, 0.8, [5.5], 1.1)]:
        d, b1, b2, alphas, eps = mpf(d), mpf(b1), mpf(b2), [mpf(a) for a in alphas], mpf(eps)
        f = conv(b1, b2)
        p = lambda x, d=d, f=f: f(x - d)
        centres, w = [mpf(0), mpf(d)], max(b1, b2)
        mu = f"laplace_sum({float(d)}, [{float(b1)}, {float(b2)}])"
        nu = f"laplace_sum(0, [{float(b1)}, {float(b2)}])"
        for a in alphas:
            v, rel = outer(lambda x: p(x) ** a * f(x) ** (1 - a), centres, w)
            yield mu, nu, "renyi", a, log(v) / (a - 1), rel
        v, rel = outer(lambda x: p(x) * log(p(x) / f(x)), centres, w)
        yield mu, nu, "kl", "", v, rel
        cut = crossings(lambda x: log(p(x)) - log(f(x)) - eps, -30 * w + min(centres), 30 * w + max(centres))
        v, rel = outer(lambda x: max(mpf(0), p(x) - exp(eps) * f(x)), centres, w, cut)
        yield mu, nu, "hockey_stick", eps, v, rel


if __name__ == "__main__":
    for mu, nu, q, o, v, rel in rows():
        print(f'{{"{mu}", "{nu}", "{q}", {float(o) if o != "" else 0}, {mp.nstr(v, 22)}}},  // rel. agreement {mp.nstr(rel, 2)}')
