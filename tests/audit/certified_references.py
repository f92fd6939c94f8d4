#!/usr/bin/env python3
"""References of tests/verify/certified_test.cpp (run: python3 tests/audit/certified_references.py; mpmath).
The chain part of the first half printed log(log(.)) for R_2 (a slip); the second half recomputes the chains
exactly (TV, R_2 = log(1 + chi^2), KL) and is what the test uses."""
# Independent references: mpmath quadrature at 50 digits on the closed-form densities, split around the
# log-integrand's maximum (found by a dense scan + golden refinement); exact rationals for the chain.
from mpmath import mp, mpf, exp, log, sqrt, pi, quad, erfc, inf, findroot
from fractions import Fraction
mp.dps = 50
def gpdf(x, m, s): return exp(-(x-m)**2/(2*s*s))/(s*sqrt(2*pi))
def lpdf(x, m, b): return exp(-abs(x-m)/b)/(2*b)
def renyi(p, q, a, center, width, kinks=()):
    f = lambda x: p(x)**a * q(x)**(1-a)
    pts = sorted(set([center + k*width for k in range(-60, 61)] + list(kinks)))
    I = quad(f, [-inf] + pts + [inf])
    I2 = quad(f, [-inf] + sorted(set([center + k*width*0.7 for k in range(-80, 81)] + list(kinks))) + [inf])
    return log(I)/(a-1), abs(I-I2)/I
def argmax_log(p, q, a, lo, hi):
    g = lambda x: a*log(p(x)) + (1-a)*log(q(x))
    xs = [lo + (hi-lo)*k/4000 for k in range(4001)]
    return max(xs, key=g)
out = []
def mixg(qq, s):
    q = mpf(qq); s = mpf(s)
    return (lambda x: (1-q)*gpdf(x, 0, s) + q*gpdf(x, 1, s)), (lambda x: gpdf(x, 0, s)), s
for qq, s, alphas in [(0.002, 3, [37.3, 88.8, 150.25]), (0.02, 6, [211.7, 333.3]), (0.05, 8, [512]), (0.001, 2, [57.37])]:
    p, q, S = mixg(qq, s)
    for a in alphas:
        a = mpf(a)
        c = argmax_log(p, q, a, -20*S, a + 20*S)
        v, rel = renyi(p, q, a, c, S/4)
        out.append((f"mix_gauss q={qq} s={s}", f"renyi({float(a)})", v, rel))
# KL of mix(0.001, N(0,2), N(1,2)) vs N(0,2)
p, q, S = mixg(0.001, 2)
f = lambda x: p(x)*log(p(x)/q(x))
pts = [k*0.5 for k in range(-60, 61)]
v = quad(f, [-inf]+pts+[inf]); v2 = quad(f, [-inf]+[k*0.37 for k in range(-80,81)]+[inf])
out.append(("mix_gauss q=0.001 s=2", "kl", v, abs(v-v2)/v))
def mixl(qq, b):
    q = mpf(qq); b = mpf(b)
    return (lambda x: (1-q)*lpdf(x, 0, b) + q*lpdf(x, 1, b)), (lambda x: lpdf(x, 0, b)), b
for qq, b, alphas in [(0.01, 1, [2.5, 10.5, 40.7]), (0.2, 0.5, [3.3])]:
    p, q, B = mixl(qq, b)
    for a in alphas:
        a = mpf(a)
        # integrand piecewise exponential: split at 0 and 1, tails to infinity
        f = lambda x: p(x)**a * q(x)**(1-a)
        I = quad(f, [-inf, -10, 0, 0.5, 1, 10, inf]); I2 = quad(f, [-inf, -5, 0, 1, 5, 40, inf])
        out.append((f"mix_laplace q={qq} b={b}", f"renyi({float(a)})", log(I)/(a-1), abs(I-I2)/I))
p, q, B = mixl(0.2, 0.5)
f = lambda x: p(x)*log(p(x)/q(x))
v = quad(f, [-inf, -10, 0, 1, 10, inf]); v2 = quad(f, [-inf, -5, 0, 0.5, 1, 5, inf])
out.append(("mix_laplace q=0.2 b=0.5", "kl", v, abs(v-v2)/v))
# HS of mix(0.3, N(0,.5), N(2,.5)) vs N(0,.5): L(x) = log(0.7 + 0.3 exp((4x-4)/(2*.25))) increasing, region x > c
qq = mpf(0.3); s = mpf(0.5)
def hs(eps):
    eps = mpf(eps)
    # exp(L) = 0.7 + 0.3 e^{(2*2*x - 4)/(2 s^2)} = e^eps  ->  x = (s^2/2)*log((e^eps - 0.7)/0.3) + 1
    c = (s*s/2)*log((exp(eps) - (1-qq))/qq) + 1
    sf = lambda m: erfc((c-m)/(s*sqrt(2)))/2
    return (1-qq)*sf(0) + qq*sf(2) - exp(eps)*sf(0)
out.append(("mix3", "log hs(900)", log(hs(900)), 0))
out.append(("mix3", "hs(2)", hs(2), 0))
out.append(("mix3", "tv", hs(0), 0))
# (chains: exact rationals, normalised as privamp normalises them, at the end of this file)
# clamp
from mpmath import ncdf
m1 = mpf(0.3)
pa0, pa1 = ncdf(0 - m1), 1 - ncdf(1 - m1)
qa0, qa1 = ncdf(0), 1 - ncdf(1)
pd = lambda x: gpdf(x, m1, 1); qd = lambda x: gpdf(x, 0, 1)
r2 = log(pa0**2/qa0 + pa1**2/qa1 + quad(lambda x: pd(x)**2/qd(x), [0, 1]))
klv = pa0*log(pa0/qa0) + pa1*log(pa1/qa1) + quad(lambda x: pd(x)*log(pd(x)/qd(x)), [0, 1])
tv = (abs(pa0-qa0) + abs(pa1-qa1) + quad(lambda x: abs(pd(x)-qd(x)), [0, 0.15, 1]))/2
rinf = max(log(pa0/qa0), log(pa1/qa1), log(pd(1)/qd(1)), log(pd(0)/qd(0)))
out += [("clamp", "renyi(2)", r2, 0), ("clamp", "kl", klv, 0), ("clamp", "tv", tv, 0), ("clamp", "renyi_inf", rinf, 0)]
for name, qn, v, rel in out:
    print(f"{name:28s} {qn:16s} {mp.nstr(v, 25):>34s}  rel.diff of two splits {mp.nstr(rel, 3)}")

# ---- chains, exact rationals ----
from fractions import Fraction
from mpmath import mp, mpf, log
K = [[Fraction(0.9), Fraction(0.1), Fraction(0)], [Fraction(0), Fraction(0.9), Fraction(0.1)], [Fraction(0.1), Fraction(0), Fraction(0.9)]]
def vecmat(v, A): return [sum(v[k]*A[k][j] for k in range(3)) for j in range(3)]
def matmul(A, B): return [[sum(A[i][k]*B[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
def matpow(A, t):
    R = [[Fraction(int(i==j)) for j in range(3)] for i in range(3)]
    while t:
        if t & 1: R = matmul(R, A)
        A = matmul(A, A); t >>= 1
    return R
mp.dps = 3000
def L(fr): return log(mpf(fr.numerator)) - log(mpf(fr.denominator))
for t in (2500, 5000):
    Kt = matpow(K, t)
    P = vecmat([1,0,0], Kt); Q = vecmat([0,1,0], Kt)
    # privamp normalises the law (the rows of K as doubles sum to 1 + 2.8e-17): so does the reference
    sp, sq = sum(P), sum(Q)
    P = [x / sp for x in P]; Q = [x / sq for x in Q]
    tv = sum(abs(P[i]-Q[i]) for i in range(3)) / 2
    chi2 = sum((P[i]-Q[i])**2 / Q[i] for i in range(3))   # R_2 = log(1 + chi2)
    r2 = log(1 + mpf(chi2.numerator)/mpf(chi2.denominator))
    kl = sum(mpf(P[i].numerator)/mpf(P[i].denominator) * (L(P[i]) - L(Q[i])) for i in range(3))
    print(t, "log TV", mp.nstr(L(tv), 20), "log R2", mp.nstr(log(r2), 20), "log KL", mp.nstr(log(kl), 20))
