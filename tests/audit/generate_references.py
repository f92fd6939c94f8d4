#!/usr/bin/env python3
"""Independent high-precision reference table for privamp's divergences.

Writes tests/audit/references.csv (next to this script).  Uses only the Python standard library and mpmath.
Every row is defined by the two law expressions exactly as privamp's command line takes them; this script parses
those expressions itself (its own parser, below) and computes the quantity by an algorithm independent of privamp:

  * Gaussian / OU / Brownian / gaussian_chain pairs: closed forms (Phi via erfc) at 40 and 60 digits.
  * Laplace pairs of equal scale: closed forms.
  * finite laws (pmf, chain, shuffled_rr, subsample rr): exact sums (Fractions for chains and pmfs; exact
    generating polynomials for randomized response), evaluated at 150+ digits.
  * mixtures, clamp, laplace_sum / laplace_nfold, subsample, binomial_mix, Laplace of unequal scales: mpmath
    tanh-sinh quadrature split at kinks, at the modes of the integrand and at the crossings L = eps (found by
    bisection), cross-checked by Gauss-Legendre quadrature and, for HS, by closed-form CDFs.
  * noisy_sgd, projected_chain: Nystrom propagation with composite Gauss-Legendre panels (not privamp's
    trapezoid grid), exact normal-CDF atoms, convergence over three discretisations.
  * double_well: Legendre-Galerkin eigen-expansion of the Schroedinger form of the Fokker-Planck operator with
    the (natural) zero-flux boundary condition, convergence over basis sizes.
  * density(log_pdf="...") / convolve(a, b): the formula parsed by this script; closed forms where recognised
    (exp-power with Gamma normaliser and incomplete-gamma cdf, Laplace, truncated Gaussian via erfc,
    Laplace+Gaussian, Laplace+Laplace by partial fractions), each also recomputed from the formula with its
    normaliser by quadrature; a law + Gaussian as a Gaussian mixture over fixed rules for the law's density
    (Gauss-Legendre vs tanh-sinh panels, in u = sqrt|y - kink| at the kink), checked against adaptive nested
    quadrature, which serves any other pair.

Parameters written in the expressions are read as exact decimals; the effect of reading them as binary doubles
(what privamp does) is computed by a second pass and included in ref_abs_error where it is computable cheaply.

Run:  nice -n 19 python3 tests/audit/generate_references.py [--quick] [--only SUBSTRING [--update]]
      (--only: rows whose mu or family name contains SUBSTRING, printed; with --update also written into the table,
      all other rows kept as they are, e.g. --only convolve --update for the density()/convolve() rows)
"""

import argparse
import csv
import math
import os
import sys
import time
from fractions import Fraction

import mpmath as mp
from mpmath import mpf

mp.mp.dps = 40
INF = mp.inf
NINF = mp.ninf

T0 = time.time()


def log(msg):
    print(f"[{time.time() - T0:7.1f}s] {msg}", flush=True)


# ======================================================================================================
# Number semantics
# ======================================================================================================

NUMBER_MODE = "decimal"  # or "double": numbers read as IEEE doubles, as privamp reads them


def num(s):
    """A number token of a law expression as an mpf."""
    if NUMBER_MODE == "double":
        return mpf(float(s))
    return mpf(s)


def frac(s):
    if NUMBER_MODE == "double":
        return Fraction(float(s))
    return Fraction(s)


# ======================================================================================================
# Law classes (mpmath).  A law = atoms (list of (x, mass)) + an optional density part given by logpdf on an
# open support interval.  kinks: points where the density is not smooth.  hints: (centre, scale) pairs telling
# where mass sits (used only to place quadrature points).  dcdf: mass of the density part on (-inf, x] (optional).
# ======================================================================================================

LOG_SQRT_2PI = None


def log_sqrt_2pi():
    return mp.log(mp.sqrt(2 * mp.pi))


def ncdf(z):
    """Phi(z), accurate in both tails."""
    return mp.erfc(-z / mp.sqrt(2)) / 2


class Law:
    atoms = ()          # list of (x, mass) with mass > 0
    has_density = False
    support = (NINF, INF)
    kinks = ()
    hints = ()
    kind = "law"

    def logpdf(self, x):
        raise NotImplementedError

    def dcdf(self, x):
        return None

    def dsf(self, x):
        return None

    def logpdf_closure(self, x):
        return self.logpdf(x)

    def density_mass(self):
        return mpf(1) - sum((m for _, m in self.atoms), mpf(0))


class Gaussian(Law):
    kind = "gaussian"
    has_density = True

    def __init__(self, m, s):
        self.m, self.s = mpf(m), mpf(s)
        assert self.s > 0
        self.c = -mp.log(self.s) - log_sqrt_2pi()
        self.hints = [(self.m, self.s)]
        self.atoms = []

    def logpdf(self, x):
        z = (x - self.m) / self.s
        return self.c - z * z / 2

    def dcdf(self, x):
        if x == INF:
            return mpf(1)
        if x == NINF:
            return mpf(0)
        return ncdf((x - self.m) / self.s)

    def dsf(self, x):
        return ncdf((self.m - x) / self.s)


class Laplace(Law):
    kind = "laplace"
    has_density = True

    def __init__(self, m, b):
        self.m, self.b = mpf(m), mpf(b)
        assert self.b > 0
        self.c = -mp.log(2 * self.b)
        self.kinks = [self.m]
        self.hints = [(self.m, self.b)]
        self.atoms = []

    def logpdf(self, x):
        return self.c - abs(x - self.m) / self.b

    def dcdf(self, x):
        if x == INF:
            return mpf(1)
        if x == NINF:
            return mpf(0)
        z = (x - self.m) / self.b
        return mp.exp(z) / 2 if z < 0 else 1 - mp.exp(-z) / 2

    def dsf(self, x):
        if x == INF:
            return mpf(0)
        if x == NINF:
            return mpf(1)
        z = (x - self.m) / self.b
        return mp.exp(-z) / 2 if z > 0 else 1 - mp.exp(z) / 2


class LaplaceSum(Law):
    """loc + sum of independent Laplace(0, b_j).

    Equal scales (n-fold): variance-gamma density via the modified Bessel function K_{n-1/2} (mpmath.besselk),
    f(x) = |x|^{n-1/2} K_{n-1/2}(|x|/b) / (sqrt(pi) Gamma(n) 2^{n-1/2} b^{n+1/2}); at x = 0 the limit
    Gamma(n-1/2) / (2 sqrt(pi) Gamma(n) b).  Distinct scales: partial fractions of the characteristic function
    prod 1/(1+b_j^2 t^2) = sum_j c_j/(1+b_j^2 t^2), c_j = prod_{k!=j} b_j^2/(b_j^2-b_k^2), i.e. f = sum_j c_j Lap(b_j).
    Both are checked against characteristic-function inversion and direct convolution in the self-checks.
    """
    kind = "laplace_sum"
    has_density = True

    def __init__(self, loc, scales):
        self.loc = mpf(loc)
        self.scales = [mpf(b) for b in scales]
        self.atoms = []
        self.kinks = [self.loc]
        bmax = max(self.scales)
        sd = mp.sqrt(sum(2 * b * b for b in self.scales))
        self.hints = [(self.loc, min(bmax, sd)), (self.loc, sd)]
        self.equal = all(b == self.scales[0] for b in self.scales)
        n = len(self.scales)
        self.kinks = [self.loc]  # the density is smooth for n >= 2 only up to a finite order at loc
        if self.equal:
            b = self.scales[0]
            self.n = n
            self.nu = mpf(n) - mpf(1) / 2
            self.c = -(mp.log(mp.sqrt(mp.pi)) + mp.loggamma(n) + self.nu * mp.log(2) + (n + mpf(1) / 2) * mp.log(b))
            self.f0 = mp.exp(mp.loggamma(self.nu) - mp.loggamma(n)) / (2 * mp.sqrt(mp.pi) * b)
        else:
            self.coef = []
            for j, bj in enumerate(self.scales):
                c = mpf(1)
                for k, bk in enumerate(self.scales):
                    if k != j:
                        c *= bj * bj / (bj * bj - bk * bk)
                self.coef.append(c)

    def pdf0(self, y):
        y = abs(y)
        if self.equal:
            b = self.scales[0]
            if y == 0:
                return self.f0
            return mp.exp(self.c + self.nu * mp.log(y)) * mp.besselk(self.nu, y / b)
        return sum(c * mp.exp(-y / b) / (2 * b) for c, b in zip(self.coef, self.scales))

    def logpdf(self, x):
        v = self.pdf0(x - self.loc)
        return mp.log(v) if v > 0 else NINF


class Mixture(Law):
    kind = "mixture"

    def __init__(self, weights, laws):
        ws = [mpf(w) for w in weights]
        pairs = [(w, l) for w, l in zip(ws, laws) if w > 0]
        self.ws = [w for w, _ in pairs]
        self.laws = [l for _, l in pairs]
        self.has_density = any(l.has_density for l in self.laws)
        dens = [(w, l) for w, l in pairs if l.has_density]
        self.dens = dens
        atoms = {}
        for w, l in pairs:
            for x, m in l.atoms:
                atoms[x] = atoms.get(x, 0) + w * m
        self.atoms = sorted(atoms.items())
        if dens:
            self.support = (min(l.support[0] for _, l in dens), max(l.support[1] for _, l in dens))
        ks, hs = [], []
        for _, l in dens:
            ks.extend(l.kinks)
            hs.extend(l.hints)
        self.kinks = ks
        self.hints = hs

    def logpdf(self, x):
        t = mpf(0)
        for w, l in self.dens:
            v = l.logpdf(x)
            if v != NINF:
                t += w * mp.exp(v)
        return mp.log(t) if t > 0 else NINF

    def dcdf(self, x):
        t = mpf(0)
        for w, l in self.dens:
            v = l.dcdf(x)
            if v is None:
                return None
            t += w * v
        return t

    def dsf(self, x):
        t = mpf(0)
        for w, l in self.dens:
            v = l.dsf(x)
            if v is None:
                return None
            t += w * v
        return t


class Shift(Law):
    kind = "shift"

    def __init__(self, law, by):
        self.law, self.by = law, mpf(by)
        self.has_density = law.has_density
        self.atoms = [(x + self.by, m) for x, m in law.atoms]
        self.support = (law.support[0] + self.by, law.support[1] + self.by)
        self.kinks = [k + self.by for k in law.kinks]
        self.hints = [(c + self.by, s) for c, s in law.hints]

    def logpdf(self, x):
        return self.law.logpdf(x - self.by)

    def dcdf(self, x):
        return self.law.dcdf(x - self.by)

    def dsf(self, x):
        return self.law.dsf(x - self.by)


class Clamp(Law):
    kind = "clamp"

    def __init__(self, base, lo, hi):
        self.base, self.lo, self.hi = base, mpf(lo), mpf(hi)
        assert self.lo < self.hi
        d_lo = base.dcdf(self.lo) if base.has_density else mpf(0)
        d_hi = base.dsf(self.hi) if base.has_density else mpf(0)
        atoms = {self.lo: d_lo, self.hi: d_hi}
        for x, m in base.atoms:
            if x <= self.lo:
                atoms[self.lo] += m
            elif x >= self.hi:
                atoms[self.hi] += m
            else:
                atoms[x] = atoms.get(x, 0) + m
        self.atoms = sorted((x, m) for x, m in atoms.items() if m > 0)
        self.has_density = base.has_density
        self.support = (max(self.lo, base.support[0]), min(self.hi, base.support[1]))
        self.kinks = [k for k in base.kinks if self.lo < k < self.hi]
        self.hints = [(c, s) for c, s in base.hints] + [(self.lo, (self.hi - self.lo) / 4), (self.hi, (self.hi - self.lo) / 4)]

    def logpdf(self, x):
        if x <= self.lo or x >= self.hi:
            return NINF
        return self.base.logpdf(x)

    def logpdf_closure(self, x):
        return self.base.logpdf(x)

    def dcdf(self, x):
        a = self.base.dcdf(min(max(x, self.lo), self.hi))
        b = self.base.dcdf(self.lo)
        if a is None or b is None:
            return None
        return a - b

    def dsf(self, x):
        a = self.base.dsf(min(max(x, self.lo), self.hi))
        b = self.base.dsf(self.hi)
        if a is None or b is None:
            return None
        return a - b


class Finite(Law):
    """Atoms only.  exact: optional list of Fractions parallel to atoms (then masses are exact)."""
    kind = "finite"

    def __init__(self, xs, masses, exact=None):
        pairs = sorted(zip([mpf(x) for x in xs], masses, exact if exact is not None else [None] * len(xs)),
                       key=lambda t: t[0])
        self.atoms = [(x, mpf(m) if not isinstance(m, Fraction) else mp.mpf(m.numerator) / m.denominator)
                      for x, m, _ in pairs]
        self.exact = [e for _, _, e in pairs] if exact is not None else None
        self.has_density = False


# ======================================================================================================
# density(log_pdf="FORMULA", lo, hi) and convolve(a, b)
#
# A log_pdf formula is parsed by FormulaParser (below) into a tree of tuples and compiled into an mpmath closure.
# build() recognises the formulas with closed forms (what the audit rows use) and falls back on a normaliser by
# quadrature otherwise; the reference rows also recompute every recognised law from the formula itself
# (RECOGNISE = False), so each closed form is checked against the generic route:
#   -abs(x - c)^p        ExpPower: exp(-|x-c|^p) / (2 Gamma(1 + 1/p)), cdf via the regularised incomplete gamma
#   -abs(x - c)          Laplace(c, 1) (the Laplace closed forms)
#   -(x - c)^2/k, lo, hi TruncGauss: sd sqrt(k/2), normaliser and cdf via erfc
# convolve(a, b): Laplace + Gaussian has the closed form
#   (1/(2b)) e^{s^2/(2b^2)} [e^{-z/b} Phi(z/s - s/b) + e^{z/b} Phi(-z/s - s/b)]   (LaplaceGauss),
# Laplace + Laplace is LaplaceSum (partial fractions when the scales differ), Gaussian + Gaussian a Gaussian, a
# finite law convolved with anything a mixture of shifts; any other pair is NumConvolution: at each point, the
# convolution integral by quadrature split at the kinks and at the maximum of the integrand.
# ======================================================================================================

RECOGNISE = True         # recognise the closed forms above (False: the generic formula / convolution routes)
INNER_METHOD = "tanh-sinh"  # rule for the normalisers and convolution integrals ("gauss-legendre": second route)

FORMULA_FUNCS = {"abs": 1, "exp": 1, "log": 1, "sqrt": 1, "cosh": 1, "sinh": 1, "tanh": 1, "atan": 1, "sin": 1,
                 "cos": 1, "min": 2, "max": 2, "log1p": 1, "expm1": 1, "erf": 1, "erfc": 1}


class FormulaParser:
    """A log_pdf formula in x: numbers, x, + - * / ^, parentheses and FORMULA_FUNCS.  ^ is right-associative and
    binds tighter than unary minus (-x^2 = -(x^2), 2^-1 = 0.5).  Returns a tree of tuples:
    ("num", text), ("x",), ("neg", a), (op, a, b) for op in add sub mul div pow, ("call", name, [args])."""

    def __init__(self, s):
        self.s, self.p = s, 0

    def peek(self):
        while self.p < len(self.s) and self.s[self.p].isspace():
            self.p += 1
        return self.s[self.p] if self.p < len(self.s) else ""

    def parse(self):
        e = self.expr()
        assert self.peek() == "", f"formula {self.s!r}: unexpected {self.s[self.p:]!r}"
        return e

    def expr(self):
        a = self.term()
        while self.peek() in ("+", "-"):
            op = self.s[self.p]
            self.p += 1
            a = ("add" if op == "+" else "sub", a, self.term())
        return a

    def term(self):
        a = self.unary()
        while self.peek() in ("*", "/"):
            op = self.s[self.p]
            self.p += 1
            a = ("mul" if op == "*" else "div", a, self.unary())
        return a

    def unary(self):
        c = self.peek()
        if c == "-":
            self.p += 1
            return ("neg", self.unary())
        if c == "+":
            self.p += 1
            return self.unary()
        return self.power()

    def power(self):
        a = self.primary()
        if self.peek() == "^":
            self.p += 1
            return ("pow", a, self.unary())  # right-associative: the exponent is again a (signed) power
        return a

    def primary(self):
        c = self.peek()
        if c == "(":
            self.p += 1
            e = self.expr()
            assert self.peek() == ")", f"formula {self.s!r}: expected ')'"
            self.p += 1
            return e
        if c.isdigit() or c == ".":
            st = self.p
            while self.p < len(self.s) and (self.s[self.p].isdigit() or self.s[self.p] == "."):
                self.p += 1
            if self.p < len(self.s) and self.s[self.p] in "eE":
                q = self.p + 1
                if q < len(self.s) and self.s[q] in "+-":
                    q += 1
                if q < len(self.s) and self.s[q].isdigit():
                    self.p = q
                    while self.p < len(self.s) and self.s[self.p].isdigit():
                        self.p += 1
            tok = self.s[st:self.p]
            float(tok)
            return ("num", tok)
        if c.isalpha():
            st = self.p
            while self.p < len(self.s) and (self.s[self.p].isalnum() or self.s[self.p] == "_"):
                self.p += 1
            w = self.s[st:self.p]
            if w == "x":
                return ("x",)
            assert w in FORMULA_FUNCS, f"formula {self.s!r}: unknown name {w!r}"
            assert self.peek() == "(", f"formula {self.s!r}: {w} needs arguments"
            self.p += 1
            args = [self.expr()]
            while self.peek() == ",":
                self.p += 1
                args.append(self.expr())
            assert self.peek() == ")", f"formula {self.s!r}: expected ')'"
            self.p += 1
            assert len(args) == FORMULA_FUNCS[w], f"formula {self.s!r}: {w} takes {FORMULA_FUNCS[w]} arguments"
            return ("call", w, args)
        raise AssertionError(f"formula {self.s!r}: unexpected {self.s[self.p:]!r}")


def _fpow(b, e):
    if b < 0 and e != int(e):
        raise ArithmeticError("negative base to a non-integer power")
    if b == 0:
        if e > 0:
            return mpf(0)
        raise ArithmeticError("0 to a non-positive power")
    if e == int(e) and abs(e) < 2 ** 31:
        return b ** int(e)
    return b ** e


def _flog(v):
    if v <= 0:
        raise ArithmeticError("log of a non-positive number")
    return mp.log(v)


def _fsqrt(v):
    if v < 0:
        raise ArithmeticError("sqrt of a negative number")
    return mp.sqrt(v)


_FUNC1 = {"abs": abs, "exp": mp.exp, "log": _flog, "sqrt": _fsqrt, "cosh": mp.cosh, "sinh": mp.sinh, "tanh": mp.tanh,
          "atan": mp.atan, "sin": mp.sin, "cos": mp.cos, "log1p": mp.log1p, "expm1": mp.expm1, "erf": mp.erf,
          "erfc": mp.erfc}


def compile_formula(node, switches):
    """An mpmath closure x -> value.  Numbers are read with num() (decimal or double semantics).  switches collects
    closures whose sign changes are the formula's kinks (the argument of abs, a - b for min(a, b) and max(a, b))."""
    k = node[0]
    if k == "num":
        c = num(node[1])
        return lambda x: c
    if k == "x":
        return lambda x: x
    if k == "neg":
        f = compile_formula(node[1], switches)
        return lambda x: -f(x)
    if k in ("add", "sub", "mul", "div", "pow"):
        f, g = compile_formula(node[1], switches), compile_formula(node[2], switches)
        if k == "add":
            return lambda x: f(x) + g(x)
        if k == "sub":
            return lambda x: f(x) - g(x)
        if k == "mul":
            return lambda x: f(x) * g(x)
        if k == "div":
            return lambda x: f(x) / g(x)
        return lambda x: _fpow(f(x), g(x))
    assert k == "call", node
    name, args = node[1], [compile_formula(a, switches) for a in node[2]]
    if name in ("min", "max"):
        f, g = args
        switches.append(lambda x: f(x) - g(x))
        return (lambda x: min(f(x), g(x))) if name == "min" else (lambda x: max(f(x), g(x)))
    f, h = args[0], _FUNC1[name]
    if name == "abs":
        switches.append(f)
    return lambda x: h(f(x))


def _loc_of(node):
    """c for the trees of x, x - c, x + c (c a number), else None."""
    if node == ("x",):
        return mpf(0)
    if node[0] in ("sub", "add") and node[1] == ("x",) and node[2][0] == "num":
        return num(node[2][1]) if node[0] == "sub" else -num(node[2][1])
    return None


def recognise_formula(tree, lo, hi):
    """The closed-form law of a log_pdf tree, or None."""
    if not RECOGNISE:
        return None
    unbounded = lo is None and hi is None
    if tree[0] == "neg":
        t = tree[1]
        if unbounded and t[0] == "call" and t[1] == "abs" and _loc_of(t[2][0]) is not None:
            return Laplace(_loc_of(t[2][0]), 1)
        if unbounded and t[0] == "pow" and t[1][0] == "call" and t[1][1] == "abs" and _loc_of(t[1][2][0]) is not None \
                and t[2][0] == "num" and num(t[2][1]) > 0:
            p = num(t[2][1])
            c = _loc_of(t[1][2][0])
            return Laplace(c, 1) if p == 1 else ExpPower(c, p)
    # -(x - c)^2 / k  (tree ("div", ("neg", ("pow", x - c, 2)), k)) or -((x - c)^2 / k)
    sq = None
    if tree[0] == "div" and tree[1][0] == "neg" and tree[2][0] == "num":
        sq, kk = tree[1][1], num(tree[2][1])
    elif tree[0] == "neg" and tree[1][0] == "div" and tree[1][2][0] == "num":
        sq, kk = tree[1][1], num(tree[1][2][1])
    if sq is not None and sq[0] == "pow" and sq[2] == ("num", "2") and _loc_of(sq[1]) is not None and kk > 0:
        c, s = _loc_of(sq[1]), mp.sqrt(kk / 2)
        if unbounded:
            return Gaussian(c, s)
        return TruncGauss(c, s, lo if lo is not None else NINF, hi if hi is not None else INF)
    return None


def _mode_and_width(f, l, r, c0, sc):
    """The largest value of f among scan points from (c0, sc), refined by golden section, and the distance over
    which f falls by 1 (the smaller side)."""
    cand = scan_points(l, r, [(c0, sc)])
    vals = [f(x) for x in cand]
    i = max(range(len(vals)), key=lambda k: vals[k])
    xm, vm = cand[i], vals[i]
    if 0 < i < len(cand) - 1:
        x2, v2 = golden_max(f, cand[i - 1], cand[i + 1])
        if v2 > vm:
            xm, vm = x2, v2
    widths = []
    for side in (1, -1):
        d = sc * mpf(10) ** -3
        for _ in range(200):
            x = xm + side * d
            if not _inside(x, l, r) or f(x) < vm - 1:
                break
            d *= 2
        widths.append(d)
    return xm, vm, min(widths)


def clear_near(pts, sing, tol):
    """pts without the points closer than tol to (but not at) a point of sing: a maximum refined by golden section
    onto a kink lands a hair away from it, and the |y - e|^p singularity just outside an interval slows tanh-sinh
    down (it copes with one at an end)."""
    if not sing:
        return pts
    return [p for p in pts if p in sing or all(abs(p - e) >= tol for e in sing)]


def quad_sub(f, pts, method, sing):
    """mp.quad over the breakpoints pts; for Gauss-Legendre, an end of [pts[0], pts[-1]] listed in sing (a point
    where the integrand behaves like |y - e|^p, p a half-integer) is removed by y = e +- u^2, so that the rule
    sees an analytic integrand (tanh-sinh needs no help with end-point singularities)."""
    a, b = pts[0], pts[-1]
    if method != "gauss-legendre" or not any(e in sing for e in (a, b)):
        return mp.quad(f, pts, method=method, error=True)
    if a in sing and b in sing and len(pts) > 2:
        m = pts[len(pts) // 2]
        left = [p for p in pts if p <= m]
        right = [p for p in pts if p >= m]
        v1, e1 = quad_sub(f, left, method, {a})
        v2, e2 = quad_sub(f, right, method, {b})
        return v1 + v2, abs(e1) + abs(e2)
    if a in sing:
        us = [mp.sqrt(p - a) if p != INF else INF for p in pts]
        return mp.quad(lambda u: 2 * u * f(a + u * u), us, method=method, error=True)
    us = [mp.sqrt(b - p) if p != NINF else INF for p in pts][::-1]
    return mp.quad(lambda u: 2 * u * f(b - u * u), us, method=method, error=True)


def log_integral(logf, l, r, kinks, hints, method, sing=()):
    """log of the integral of exp(logf) over (l, r), split at the kinks and around every local maximum."""
    ks = sorted(k for k in kinks if l < k < r)
    edges = [l] + ks + [r]
    parts = []
    for a, b in zip(edges[:-1], edges[1:]):
        pts, top = place_points(logf, a, b, hints)
        if top == NINF:
            continue
        pts = clear_near(pts, set(sing), min(s for _, s in hints) * mpf(10) ** -6)
        v, e = quad_sub(lambda y: mp.exp(logf(y) - top), pts, method, set(sing))
        parts.append((v, e, top))
    top = max(t for _, _, t in parts)
    s = sum(v * mp.exp(t - top) for v, _, t in parts)
    e = sum(abs(err) * mp.exp(t - top) for _, err, t in parts)
    return top + mp.log(s), e / s


class FormulaDensity(Law):
    """exp(f(x)) / Z on (lo, hi); Z by quadrature split at the kinks of f (sign changes of the arguments of abs, min,
    max) and around the maxima."""
    kind = "density"
    has_density = True

    def __init__(self, text, lo=None, hi=None, loc=None, scale=None):
        self.text = text
        self.switches = []
        self.f = compile_formula(FormulaParser(text).parse(), self.switches)
        l = lo if lo is not None else NINF
        r = hi if hi is not None else INF
        assert l < r
        self.support = (l, r)
        self.atoms = []
        sc = scale if scale is not None else mpf(1)
        if loc is not None:
            c0 = loc
        elif l < 0 < r:
            c0 = mpf(0)
        else:
            c0 = (l + r) / 2 if (l != NINF and r != INF) else (l + sc if l != NINF else r - sc)
        cand = scan_points(l, r, [(c0, sc)])
        kinks = set()
        for g in self.switches:
            gv = [g(x) for x in cand]
            for i in range(len(cand)):
                if gv[i] == 0:
                    kinks.add(cand[i])
            for i in range(len(cand) - 1):
                a, b, ga, gb = cand[i], cand[i + 1], gv[i], gv[i + 1]
                if ga == 0 or gb == 0 or (ga > 0) == (gb > 0):
                    continue
                for _ in range(mp.mp.prec + 10):
                    m = (a + b) / 2
                    if m == a or m == b:
                        break
                    gm = g(m)
                    if gm == 0:
                        a = b = m
                        break
                    if (gm > 0) == (ga > 0):
                        a, ga = m, gm
                    else:
                        b = m
                kinks.add((a + b) / 2)
        self.kinks = sorted(kinks)
        self.root_kinks = list(self.kinks)
        xm, vm, w = _mode_and_width(self.f, l, r, c0, sc)
        self.hints = [(xm, w)]
        S = max(w, sc)
        for end, sign in ((r, 1), (l, -1)):
            if end in (INF, NINF):
                far = [self.f(xm + sign * S * mpf(10) ** k) for k in (6, 7)]
                assert far[1] < far[0] - 1 and far[0] < vm - 100, f"density {text!r}: not normalisable"
        self.logZ, self.logZ_err = log_integral(self.f, l, r, self.kinks, self.hints, INNER_METHOD, self.root_kinks)

    def logpdf(self, x):
        if not (self.support[0] < x < self.support[1]):
            return NINF
        return self.f(x) - self.logZ

    def logpdf_closure(self, x):
        return self.f(x) - self.logZ


class ExpPower(Law):
    """exp(-|x - c|^p) / (2 Gamma(1 + 1/p)); tails via the regularised upper incomplete gamma Q(1/p, t^p) / 2."""
    kind = "exp_power"
    has_density = True

    def __init__(self, c, p):
        self.c, self.p = mpf(c), mpf(p)
        self.logZ = mp.log(2) + mp.loggamma(1 + 1 / self.p)
        self.kinks = [self.c]
        self.root_kinks = [self.c]
        self.sd = mp.sqrt(mp.gamma(3 / self.p) / mp.gamma(1 / self.p))
        self.hints = [(self.c, self.sd)]
        self.atoms = []

    def logpdf(self, x):
        return -abs(x - self.c) ** self.p - self.logZ

    def _upper(self, t):
        return mp.gammainc(1 / self.p, t ** self.p, INF, regularized=True) / 2

    def dsf(self, x):
        if x == INF:
            return mpf(0)
        if x == NINF:
            return mpf(1)
        t = x - self.c
        return self._upper(t) if t >= 0 else 1 - self._upper(-t)

    def dcdf(self, x):
        if x == INF:
            return mpf(1)
        if x == NINF:
            return mpf(0)
        t = self.c - x
        return self._upper(t) if t >= 0 else 1 - self._upper(-t)


class TruncGauss(Law):
    """N(m, s^2) restricted to (lo, hi); normaliser and cdf via erfc (interval_mass_gauss)."""
    kind = "trunc_gauss"
    has_density = True

    def __init__(self, m, s, lo, hi):
        self.m, self.s, self.lo, self.hi = mpf(m), mpf(s), lo, hi
        assert lo < hi
        self.Z = interval_mass_gauss(self.m, self.s, lo, hi)
        self.c = -mp.log(self.s) - log_sqrt_2pi() - mp.log(self.Z)
        self.support = (lo, hi)
        self.kinks = []
        self.atoms = []
        self.hints = [(self.m, self.s)]
        if lo != NINF and hi != INF:
            self.hints += [(lo, (hi - lo) / 4), (hi, (hi - lo) / 4)]

    def logpdf(self, x):
        if not (self.lo < x < self.hi):
            return NINF
        return self.logpdf_closure(x)

    def logpdf_closure(self, x):
        z = (x - self.m) / self.s
        return self.c - z * z / 2

    def dcdf(self, x):
        return interval_mass_gauss(self.m, self.s, self.lo, min(max(x, self.lo), self.hi)) / self.Z

    def dsf(self, x):
        return interval_mass_gauss(self.m, self.s, min(max(x, self.lo), self.hi), self.hi) / self.Z


def closed_truncgauss(P, Q, quantity, order):
    """Divergences between N(m1, s^2) and N(m2, s^2) truncated to the same (lo, hi).
    Renyi: int p^a q^(1-a) = exp(a(a-1) d^2/(2 s^2)) M(a m1 + (1-a) m2) / (Z1^a Z2^(1-a)), M(m) the N(m, s^2) mass
    of (lo, hi); KL: log(Z2/Z1) + d (2 E_p X - m1 - m2)/(2 s^2), E_p X = m1 + s (phi(A) - phi(B)) / Z1; the log-ratio
    log(Z2/Z1) + d (2x - m1 - m2)/(2 s^2) is linear, so HS/TV are tail masses beyond one crossing point."""
    assert P.s == Q.s and (P.lo, P.hi) == (Q.lo, Q.hi)
    s, lo, hi, m1, m2 = P.s, P.lo, P.hi, P.m, Q.m
    d = m1 - m2
    Z1, Z2 = P.Z, Q.Z
    c0 = mp.log(Z2 / Z1)

    def L(x):
        return c0 + d * (2 * x - m1 - m2) / (2 * s * s)
    if quantity == "renyi":
        a = order
        mb = a * m1 + (1 - a) * m2
        S = mp.exp(a * (a - 1) * d * d / (2 * s * s)) * interval_mass_gauss(mb, s, lo, hi) / (Z1 ** a * Z2 ** (1 - a))
        return mp.log(S) / (a - 1)
    if quantity == "kl":
        phi = lambda z: mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi) if z not in (INF, NINF) else mpf(0)
        EX = m1 + s * (phi((lo - m1) / s) - phi((hi - m1) / s)) / Z1
        return c0 + d * (2 * EX - m1 - m2) / (2 * s * s)
    if quantity == "renyi_inf":
        return max(L(lo), L(hi)) if d != 0 else c0
    eps = mpf(0) if quantity == "tv" else order
    if d == 0:
        return max(mpf(0), 1 - mp.exp(eps)) if c0 == 0 else max(mpf(0), (1 - mp.exp(eps - c0)))
    c = (m1 + m2) / 2 + s * s * (eps - c0) / d   # L(c) = eps
    c = min(max(c, lo), hi)
    a_, b_ = (c, hi) if d > 0 else (lo, c)
    return max(mpf(0), interval_mass_gauss(m1, s, a_, b_) / Z1 - mp.exp(eps) * interval_mass_gauss(m2, s, a_, b_) / Z2)


class LaplaceGauss(Law):
    """Laplace(0, b) + N(0, s^2) shifted to loc:
    f(z) = (1/(2b)) e^{s^2/(2b^2)} [e^{-z/b} Phi(z/s - s/b) + e^{z/b} Phi(-z/s - s/b)],
    F(z) = Phi(z/s) - (1/2) e^{s^2/(2b^2)} [e^{-z/b} Phi(z/s - s/b) - e^{z/b} Phi(-z/s - s/b)] (Phi via erfc;
    symmetric about loc, so the survival function is F(-z))."""
    kind = "laplace_gauss"
    has_density = True

    def __init__(self, loc, b, s):
        self.loc, self.b, self.s = mpf(loc), mpf(b), mpf(s)
        self.k = self.s ** 2 / (2 * self.b ** 2)
        self.kinks = []
        self.atoms = []
        self.hints = [(self.loc, self.b), (self.loc, self.s)]

    def _terms(self, z):
        b, s = self.b, self.s
        return mp.exp(-z / b) * ncdf(z / s - s / b), mp.exp(z / b) * ncdf(-z / s - s / b)

    def logpdf(self, x):
        t1, t2 = self._terms(x - self.loc)
        return mp.log(t1 + t2) + self.k - mp.log(2 * self.b)

    def _F(self, z):
        t1, t2 = self._terms(z)
        return ncdf(z / self.s) - mp.exp(self.k) * (t1 - t2) / 2

    def dcdf(self, x):
        if x == INF:
            return mpf(1)
        if x == NINF:
            return mpf(0)
        z = x - self.loc
        return self._F(z) if z <= 0 else 1 - self._F(-z)

    def dsf(self, x):
        if x == INF:
            return mpf(0)
        if x == NINF:
            return mpf(1)
        z = x - self.loc
        return self._F(-z) if z >= 0 else 1 - self._F(z)


class LaplaceSumCDF(LaplaceSum):
    """LaplaceSum with distinct scales, plus its cdf from the partial fractions: F = sum_j c_j F_Laplace(b_j)."""

    def _sf0(self, t):  # mass of (loc + t, inf), t >= 0
        return sum(c * mp.exp(-t / b) for c, b in zip(self.coef, self.scales)) / 2

    def dsf(self, x):
        if x == INF:
            return mpf(0)
        if x == NINF:
            return mpf(1)
        t = x - self.loc
        return self._sf0(t) if t >= 0 else 1 - self._sf0(-t)

    def dcdf(self, x):
        if x == INF:
            return mpf(1)
        if x == NINF:
            return mpf(0)
        t = self.loc - x
        return self._sf0(t) if t >= 0 else 1 - self._sf0(-t)


def inner_points(h, a, b, cand, smin):
    """Breakpoints in [a, b] for the convolution integral of exp(h): every local maximum among the candidates
    within e^-115 of the largest (refined by golden section), and around each the points xm +- w 2^k, w the
    distance over which h falls by 1, until h has fallen by 115 (as place_points, with fewer candidates)."""
    vals = [h(x) for x in cand]
    fin = [v for v in vals if v != NINF]
    if not fin:
        return [a, b], NINF
    vmax = max(fin)
    n = len(cand)
    maxima = [i for i in range(n) if vals[i] != NINF and vals[i] >= vmax - LOG_NEGLIGIBLE
              and (i == 0 or vals[i] >= vals[i - 1]) and (i == n - 1 or vals[i] >= vals[i + 1])]
    maxima = sorted(maxima, key=lambda i: -vals[i])[:4]
    pts, best = {a, b}, vmax

    def safe(x):
        v = h(x)
        return v if v != NINF else mpf(-10) ** 30
    for i in maxima:
        lo_ = cand[i - 1] if i > 0 else (a if a != NINF else cand[i] - 10 * smin)
        hi_ = cand[i + 1] if i + 1 < n else (b if b != INF else cand[i] + 10 * smin)
        xm, vm = golden_max(safe, lo_, hi_, iters=50)
        if vals[i] > vm:
            xm, vm = cand[i], vals[i]
        best = max(best, vm)
        pts.add(xm)
        for side in (1, -1):
            d = smin * mpf(10) ** -3
            for _ in range(200):
                x = xm + side * d
                if not _inside(x, a, b) or h(x) < vm - 1:
                    break
                d *= 2
            for k in range(-3, 200):
                x = xm + side * d * mpf(2) ** k
                if not _inside(x, a, b):
                    break
                pts.add(x)
                if h(x) < vm - LOG_NEGLIGIBLE:
                    break
    return sorted(pts), best


class NumConvolution(Law):
    """X + Y for independent X ~ A, Y ~ B with densities: f(z) = int pA(y) pB(z - y) dy, at each z by quadrature
    (INNER_METHOD at the working precision) split at A's kinks, at z - (B's kinks) and around every local maximum
    of the integrand (candidates from both laws' hints), with 10 guard digits.  Values are memoised."""
    kind = "convolution"
    has_density = True

    def __init__(self, A, B):
        assert A.has_density and B.has_density and not A.atoms and not B.atoms
        self.A, self.B = A, B
        self.method = INNER_METHOD
        self.support = (A.support[0] + B.support[0], A.support[1] + B.support[1])
        self.kinks = sorted(set(ka + kb for ka in A.kinks for kb in B.kinks))
        self.root_kinks = list(self.kinks)
        self.atoms = []
        self.hints = [(ca + cb, mp.sqrt(sa * sa + sb * sb)) for ca, sa in A.hints for cb, sb in B.hints]
        self.memo = {}

    def logpdf(self, z):
        if not (self.support[0] < z < self.support[1]):
            return NINF
        if z in self.memo:
            return self.memo[z]
        A, B = self.A, self.B
        l = max(A.support[0], z - B.support[1])
        r = min(A.support[1], z - B.support[0])
        if not l < r:
            return NINF

        def h(y):
            la = A.logpdf(y)
            return la if la == NINF else la + B.logpdf(z - y)
        kinks = list(A.kinks) + [z - k for k in B.kinks]
        sing = set(getattr(A, "root_kinks", ())) | set(z - k for k in getattr(B, "root_kinks", ()))
        hints = list(A.hints) + [(z - c, s) for c, s in B.hints]
        ks = sorted(set(k for k in kinks if l < k < r))
        edges = [l] + ks + [r]
        with mp.workdps(mp.mp.dps + 10):  # guard digits: tanh-sinh loses a few where the maximum sits on a kink
            out = self._log_integral(h, edges, hints, sing)
        out = +out
        self.memo[z] = out
        return out

    def _log_integral(self, h, edges, hints, sing):
        parts = []
        for a, b in zip(edges[:-1], edges[1:]):
            cand = sorted(set(x for c, s in hints for j in range(-12, 13) for x in [c + s * j / 2] if a < x < b))
            if a != NINF:
                cand = [a + (cand[0] - a) / 8 if cand else a + (b - a) / 8] + cand
            if b != INF:
                cand = cand + [b - (b - cand[-1]) / 8]
            smin = min(s for _, s in hints)
            pts, top = inner_points(h, a, b, cand, smin)
            if top == NINF:
                continue
            pts = clear_near(pts, sing, smin * mpf(10) ** -6)
            v, _ = quad_sub(lambda y: mp.exp(h(y) - top), pts, self.method, sing)
            parts.append((v, top))
        if not parts:
            return NINF
        top = max(t for _, t in parts)
        s = sum(v * mp.exp(t - top) for v, t in parts)
        return top + mp.log(s) if s > 0 else NINF


def ts_rule_mp(level):
    """A fixed tanh-sinh rule on [-1, 1] with step h = 2^-level: x_j = tanh(pi/2 sinh(jh)),
    w_j = h (pi/2) cosh(jh) / cosh^2(pi/2 sinh(jh)), truncated where the weights fall below 10^-(dps+10)."""
    key = ("ts", level, mp.mp.dps)
    if key in _GL_CACHE:
        return _GL_CACHE[key]
    xs, ws = [], []
    with mp.workdps(mp.mp.dps + 10):
        h = mpf(2) ** -level
        tiny = mpf(10) ** -(mp.mp.dps + 10)
        j = 0
        while True:
            t = j * h
            s = mp.pi / 2 * mp.sinh(t)
            w = h * mp.pi / 2 * mp.cosh(t) / mp.cosh(s) ** 2
            if w < tiny:
                break
            x = mp.tanh(s)
            if j == 0:
                xs.append(x)
                ws.append(w)
            else:
                xs += [x, -x]
                ws += [w, w]
            j += 1
    out = (xs, ws)
    _GL_CACHE[key] = out
    return out


class GaussMixConvolution(Law):
    """A + N(m, s^2) for a law A with a density: a Gaussian mixture f(z) = sum_k c_k phi_s(z - m - y_k), where
    (y_k, c_k = w_k pA(y_k)) is a fixed composite rule for A's density on [c - Y, c + Y] (Y: where log pA has fallen
    by 300 below its maximum, so the truncation is below e^-140 relative wherever the divergences' integrands
    matter).  Two rules (INNER_METHOD):
      gauss-legendre: 30-point Gauss-Legendre in u = sqrt(|y - k|) on |y - k| <= 1 at each root-type kink k,
                      then 24-point panels of width 1/2 in y;
      tanh-sinh:      tanh-sinh panels (own fixed rule, step 2^-5) of width 1/2 in u = sqrt(|y - k|) on the whole
                      side of each kink (panels of width 1/4 in y away from kinks).
    (For exp(-|y|^1.5) + N(0.3, 1): 4632 and 8012 nodes; the two agree with the adaptive nested quadrature at 60
    digits to 4e-40 for |z| <= 30, see the self-checks.)
    The terms below e^-120 of the largest (judged in floating point) are skipped.  Values are memoised."""
    kind = "gaussmix"
    has_density = True

    def __init__(self, A, G):
        assert A.has_density and not A.atoms
        self.A, self.m, self.s = A, G.m, G.s
        self.method = INNER_METHOD
        self.atoms = []
        self.support = (NINF, INF)
        self.kinks = []
        self.hints = [(ca + G.m, mp.sqrt(sa * sa + G.s * G.s)) for ca, sa in A.hints]
        c0 = A.hints[0][0]
        top = max(A.logpdf(c) for c, _ in A.hints)
        ends = []
        for sign, end in ((-1, A.support[0]), (1, A.support[1])):
            d = max(s for _, s in A.hints)
            while _inside(c0 + sign * d, *A.support) and A.logpdf(c0 + sign * d) > top - 300:
                d *= mpf("1.25")
            ends.append(c0 + sign * d if _inside(c0 + sign * d, *A.support) else end)
        lo, hi = ends
        sing = sorted(k for k in getattr(A, "root_kinks", ()) if lo < k < hi)
        kinks = sorted(set(k for k in A.kinks if lo < k < hi))
        edges = [lo] + kinks + [hi]
        nodes = []   # (y, weight)
        for a, b in zip(edges[:-1], edges[1:]):
            nodes += self._piece(a, b, a in sing, b in sing)
        self.nodes = [(y, w * mp.exp(A.logpdf(y))) for y, w in nodes if w > 0]
        self.fnodes = [(float(y), float(mp.log(c))) for y, c in self.nodes]
        self.k = 1 / (2 * self.s ** 2)
        self.kf = float(self.k)
        self.lnorm = -mp.log(self.s) - log_sqrt_2pi()
        self.memo = {}

    def _panel(self, a, b, n_or_level):
        if self.method == "gauss-legendre":
            xs, ws = gl_rule_mp(n_or_level)
        else:
            xs, ws = ts_rule_mp(n_or_level)
        h, c = (b - a) / 2, (a + b) / 2
        return [(c + h * x, h * w) for x, w in zip(xs, ws)]

    def _piece(self, a, b, sing_a, sing_b):
        out = []
        if sing_a and sing_b:
            m = (a + b) / 2
            return self._piece(a, m, True, False) + self._piece(m, b, False, True)
        gl = self.method == "gauss-legendre"
        for e, sign, other, is_sing in ((a, 1, b, sing_a), (b, -1, a, sing_b)):
            if not is_sing:
                continue
            reach = min(mpf(1), abs(other - e)) if gl else abs(other - e)
            U = mp.sqrt(reach)
            npan = 2 if gl else int(mp.ceil(U / mpf("0.5")))
            for i in range(npan):
                for u, w in self._panel(U * i / npan, U * (i + 1) / npan, 30 if gl else 5):
                    out.append((e + sign * u * u, 2 * u * w))
            if sign == 1:
                a = e + reach
            else:
                b = e - reach
        if b - a > 0:
            width = mpf("0.5") if gl else mpf("0.25")
            npan = int(mp.ceil((b - a) / width))
            for i in range(npan):
                out += self._panel(a + (b - a) * i / npan, a + (b - a) * (i + 1) / npan, 24 if gl else 5)
        return out

    def logpdf(self, z):
        if z in self.memo:
            return self.memo[z]
        zf = float(z - self.m)
        kf = self.kf
        es = [lc - kf * (zf - y) ** 2 for y, lc in self.fnodes]
        M = max(es)
        zm = z - self.m
        k = self.k
        tot = mp.fsum(c * mp.exp(-k * (zm - y) ** 2) for (y, c), e in zip(self.nodes, es) if e >= M - 120)
        out = mp.log(tot) + self.lnorm
        self.memo[z] = out
        return out


def make_convolution(A, B):
    if RECOGNISE:
        for X, Y in ((A, B), (B, A)):
            if isinstance(X, Laplace) and isinstance(Y, Gaussian):
                return LaplaceGauss(X.m + Y.m, X.b, Y.s)
        if isinstance(A, Gaussian) and isinstance(B, Gaussian):
            return Gaussian(A.m + B.m, mp.sqrt(A.s ** 2 + B.s ** 2))
        if isinstance(A, Laplace) and isinstance(B, Laplace):
            if A.b == B.b:
                return LaplaceSum(A.m + B.m, [A.b, B.b])
            return LaplaceSumCDF(A.m + B.m, [A.b, B.b])
    for X, Y in ((A, B), (B, A)):
        if isinstance(X, Finite):
            return make_mixture([m for _, m in X.atoms], [Shift(Y, x) for x, _ in X.atoms])
    if RECOGNISE:
        for X, Y in ((A, B), (B, A)):
            if isinstance(Y, Gaussian) and X.has_density and not X.atoms:
                return GaussMixConvolution(X, Y)
    return NumConvolution(A, B)


def describe_law(P):
    """A few words on how a law of the convolve/density family is evaluated (for the notes)."""
    return {"laplace_gauss": "Laplace+Gaussian closed-form density and cdf (Phi via erfc)",
            "laplace_sum": "Laplace+Laplace density by partial fractions (cdf likewise)",
            "exp_power": "exp(-|x-c|^p)/(2 Gamma(1+1/p)) and its cdf via the incomplete gamma",
            "trunc_gauss": "truncated Gaussians (normalisers via erfc)",
            "laplace": "the densities are laplace(c, 1)",
            "density": "formula density with normaliser by quadrature",
            "convolution": "convolution density by an inner quadrature at each point (split at the kinks and the maximum)",
            "gaussmix": "law+Gaussian as the Gaussian mixture sum c_k phi(z - y_k) over a fixed quadrature rule (y_k, w_k) "
                        "for the law's density",
            }.get(P.kind, P.kind)


# ======================================================================================================
# Law expression parser (privamp's grammar: NAME(arg, ..., name=value); positional args fill the first
# parameter, in listed order, not yet given; lists [a, b]; bare words; numbers)
# ======================================================================================================

CATALOGUE = {
    "gaussian": [("loc", "0"), ("sigma", "1")],
    "ou": [("x0", None), ("t", None), ("theta", "1"), ("rho", "1")],
    "gaussian_chain": [("x0", None), ("r", "1"), ("L", "1"), ("sigma", "1"), ("sigma0", "0")],
    "noisy_sgd": [("n", None), ("i", None), ("zi", None), ("eta", None), ("sigma", "1"), ("lambda", "1"), ("R", "1"),
                  ("x0", "0"), ("cells", "400"), ("loss", "quadratic"), ("A", "1")],
    "projected_chain": [("x0", None), ("r", "1"), ("map", "linear"), ("L", "1"), ("sigma", "1"), ("lo", "-3"),
                        ("hi", "3"), ("cells", "400")],
    "double_well": [("x0", None), ("t", None), ("lo", "-4"), ("hi", "4"), ("cells", "400")],
    "brownian": [("x0", None), ("t", None)],
    "laplace": [("loc", "0"), ("scale", "1")],
    "laplace_sum": [("loc", "0"), ("scales", None)],
    "laplace_nfold": [("n", None), ("loc", "0"), ("scale", "1")],
    "mixture": [("weights", None), ("laws", None)],
    "mix": [("q", None), ("a", None), ("b", None)],
    "shift": [("law", None), ("by", None)],
    "binomial_mix": [("m", None), ("p", None), ("law", None), ("step", "1")],
    "subsample": [("scheme", "poisson"), ("base", "gaussian"), ("side", "1"), ("q", "0.01"), ("n", "100"), ("m", "10"),
                  ("sigma", "1"), ("scale", "1"), ("eps0", "1")],
    "pmf": [("p", None), ("at", None)],
    "shuffled_rr": [("n", None), ("eps0", None), ("ones", "0"), ("first", "0")],
    "chain": [("K", None), ("mu", None), ("t", "1")],
    "clamp": [("law", None), ("lo", None), ("hi", None)],
    "density": [("log_pdf", None), ("lo", None), ("hi", None), ("loc", None), ("scale", None)],
    "convolve": [("a", None), ("b", None)],
}


class Parser:
    def __init__(self, s):
        self.s, self.p = s, 0

    def skip(self):
        while self.p < len(self.s) and self.s[self.p].isspace():
            self.p += 1

    def eat(self, c):
        self.skip()
        if self.p < len(self.s) and self.s[self.p] == c:
            self.p += 1
            return True
        return False

    def name(self):
        self.skip()
        st = self.p
        while self.p < len(self.s) and (self.s[self.p].isalnum() or self.s[self.p] == "_"):
            self.p += 1
        return self.s[st:self.p]

    def value(self):
        self.skip()
        c = self.s[self.p]
        if c == "[":
            self.p += 1
            out = []
            if self.eat("]"):
                return ("list", out)
            while True:
                out.append(self.value())
                if not self.eat(","):
                    break
            assert self.eat("]"), self.s
            return ("list", out)
        if c in "\"'":  # a quoted text (a formula)
            close = self.s.index(c, self.p + 1)
            t = self.s[self.p + 1:close]
            self.p = close + 1
            return ("text", t)
        if c.isalpha():
            save = self.p
            w = self.name()
            self.skip()
            if self.p < len(self.s) and self.s[self.p] == "(":
                self.p = save
                return self.call()
            return ("word", w)
        st = self.p
        while self.p < len(self.s) and (self.s[self.p] in "0123456789.eE+-"):
            self.p += 1
        tok = self.s[st:self.p]
        float(tok)
        return ("num", tok)

    def call(self):
        lname = self.name()
        spec = CATALOGUE[lname]
        names = [n for n, _ in spec]
        assert self.eat("(")
        vals = {}
        pos = 0
        if not self.eat(")"):
            while True:
                self.skip()
                save = self.p
                key = self.name()
                if key and self.eat("="):
                    assert key in names, (lname, key)
                else:
                    self.p = save
                    while pos < len(names) and names[pos] in vals:
                        pos += 1
                    key = names[pos]
                    pos += 1
                assert key not in vals
                vals[key] = self.value()
                if not self.eat(","):
                    break
            assert self.eat(")"), self.s
        for n, d in spec:
            if n not in vals and d is not None:
                vals[n] = Parser(d).value()
        return ("law", lname, vals)

    def parse(self):
        v = self.value()
        self.skip()
        assert self.p == len(self.s), self.s
        assert v[0] == "law"
        return v


def v_num(v):
    assert v[0] == "num", v
    return num(v[1])


def v_int(v):
    x = float(v[1])
    assert x == int(x)
    return int(x)


def v_nums(v):
    if v[0] == "num":
        return [num(v[1])]
    return [v_num(e) for e in v[1]]


def v_word(v):
    assert v[0] == "word"
    return v[1]


# ---- builders ----

def gaussian_chain_params(x0, r, L, sigma, sigma0):
    mean, var = x0, sigma0 * sigma0
    for _ in range(r):
        mean *= L
        var = L * L * var + sigma * sigma
    return mean, mp.sqrt(var)


def ou_params(x0, t, theta, rho):
    if theta == 0:
        return x0, mp.sqrt(2 * rho * rho * t)
    return mp.exp(-theta * t) * x0, mp.sqrt(-rho * rho * mp.expm1(-2 * theta * t) / theta)


def rr_counts(n, eps0, ones, first):
    """Masses of the number of 1s among n randomized-response reports (exact generating polynomial).

    A user holding 1 contributes (e z + 1)/(1+e), one holding 0 contributes (z + e)/(1+e), e = exp(eps0).
    P(K = k) = [z^k] (e z + 1)^a (z + e)^c / (1+e)^n with a = ones + first, c = n - a.
    """
    e = mp.exp(eps0)
    a = ones + first
    c = n - a
    # coefficients of (e z + 1)^a: C(a, j) e^j ; of (z + e)^c: C(c, i) e^{c-i}
    A = [mp.binomial(a, j) * e ** j for j in range(a + 1)]
    Cc = [mp.binomial(c, i) * e ** (c - i) for i in range(c + 1)]
    out = [mpf(0)] * (n + 1)
    for j in range(a + 1):
        aj = A[j]
        for i in range(c + 1):
            out[i + j] += aj * Cc[i]
    norm = (1 + e) ** n
    return [v / norm for v in out]


def rr_counts_direct(n, eps0, ones, first):
    """Second route for the self-check: explicit sum over the binomial convolution with p, q."""
    p = 1 / (1 + mp.exp(-eps0))
    q = 1 - p
    zeros = n - 1 - ones
    b1 = [mp.binomial(ones, j) * p ** j * q ** (ones - j) for j in range(ones + 1)]
    b0 = [mp.binomial(zeros, j) * q ** j * p ** (zeros - j) for j in range(zeros + 1)]
    others = [mpf(0)] * n
    for j, u in enumerate(b1):
        for k, v in enumerate(b0):
            others[j + k] += u * v
    r1 = p if first else q
    out = [mpf(0)] * (n + 1)
    for k in range(n):
        out[k] += (1 - r1) * others[k]
        out[k + 1] += r1 * others[k]
    return out


def chain_law(K, mu, t):
    """mu K^t with exact Fractions; returns list of Fractions (normalised by the total, as privamp does)."""
    v = list(mu)
    n = len(v)
    for _ in range(t):
        v = [sum(v[i] * K[i][j] for i in range(n)) for j in range(n)]
    tot = sum(v)
    return [x / tot for x in v]


def build(node):
    _, lname, a = node
    if lname == "gaussian":
        return Gaussian(v_num(a["loc"]), v_num(a["sigma"]))
    if lname == "ou":
        m, s = ou_params(v_num(a["x0"]), v_num(a["t"]), v_num(a["theta"]), v_num(a["rho"]))
        return Gaussian(m, s)
    if lname == "brownian":
        return Gaussian(v_num(a["x0"]), mp.sqrt(2 * v_num(a["t"])))
    if lname == "gaussian_chain":
        m, s = gaussian_chain_params(v_num(a["x0"]), v_int(a["r"]), v_num(a["L"]), v_num(a["sigma"]), v_num(a["sigma0"]))
        return Gaussian(m, s)
    if lname == "laplace":
        return Laplace(v_num(a["loc"]), v_num(a["scale"]))
    if lname == "laplace_sum":
        sc = v_nums(a["scales"])
        if len(sc) == 1:
            return Laplace(v_num(a["loc"]), sc[0])
        return LaplaceSum(v_num(a["loc"]), sc)
    if lname == "laplace_nfold":
        n = v_int(a["n"])
        if n == 1:
            return Laplace(v_num(a["loc"]), v_num(a["scale"]))
        return LaplaceSum(v_num(a["loc"]), [v_num(a["scale"])] * n)
    if lname == "mixture":
        ws = v_nums(a["weights"])
        laws = [build(e) for e in a["laws"][1]]
        return make_mixture(ws, laws)
    if lname == "mix":
        q = v_num(a["q"])
        return make_mixture([1 - q, q], [build(a["a"]), build(a["b"])])
    if lname == "shift":
        base = build(a["law"])
        by = v_num(a["by"])
        if isinstance(base, Finite):
            return Finite([x + by for x, _ in base.atoms], [m for _, m in base.atoms], base.exact)
        return Shift(base, by)
    if lname == "binomial_mix":
        m, p = v_int(a["m"]), v_num(a["p"])
        base = build(a["law"])
        step = v_num(a["step"])
        ws, laws = [], []
        for k in range(m + 1):
            ws.append(mp.binomial(m, k) * p ** k * (1 - p) ** (m - k))
            laws.append(base if k == 0 else Shift(base, k * step))
        return make_mixture(ws, laws)
    if lname == "subsample":
        scheme, base = v_word(a["scheme"]), v_word(a["base"])
        side = v_int(a["side"])

        def counting(c):
            return Gaussian(c, v_num(a["sigma"])) if base == "gaussian" else Laplace(c, v_num(a["scale"]))
        if base == "rr":
            assert scheme == "wor"
            m, n = v_int(a["m"]), v_int(a["n"])
            eps0 = v_num(a["eps0"])
            without = Finite(range(m + 1), rr_counts(m, eps0, 0, 0))
            if side == 0:
                return without
            eta = mpf(m) / n
            return make_mixture([1 - eta, eta], [without, Finite(range(m + 1), rr_counts(m, eps0, 0, 1))])
        if side == 0:
            return counting(0)
        if scheme == "poisson":
            q = v_num(a["q"])
            return make_mixture([1 - q, q], [counting(0), counting(1)])
        m, n = v_int(a["m"]), v_int(a["n"])
        if scheme == "wor":
            eta = mpf(m) / n
            return make_mixture([1 - eta, eta], [counting(0), counting(1)])
        p = mpf(1) / n
        return make_mixture([mp.binomial(m, k) * p ** k * (1 - p) ** (m - k) for k in range(m + 1)],
                            [counting(k) for k in range(m + 1)])
    if lname == "pmf":
        ps = [frac(v[1]) for v in a["p"][1]]
        if "at" in a:
            at = v_nums(a["at"])
        else:
            at = [mpf(i) for i in range(len(ps))]
        tot = sum(ps)
        ex = [p / tot for p in ps]
        keep = [(x, e) for x, e in zip(at, ex) if e > 0]
        return Finite([x for x, _ in keep], [e for _, e in keep], [e for _, e in keep])
    if lname == "shuffled_rr":
        n = v_int(a["n"])
        masses = rr_counts(n, v_num(a["eps0"]), v_int(a["ones"]), v_int(a["first"]))
        return Finite(range(n + 1), masses)
    if lname == "chain":
        K = [[frac(e[1]) for e in row[1]] for row in a["K"][1]]
        mu = [frac(e[1]) for e in a["mu"][1]]
        law = chain_law(K, mu, v_int(a["t"]))
        keep = [(i, e) for i, e in enumerate(law) if e > 0]
        return Finite([i for i, _ in keep], [e for _, e in keep], [e for _, e in keep])
    if lname == "clamp":
        return Clamp(build(a["law"]), v_num(a["lo"]), v_num(a["hi"]))
    if lname == "density":
        lf = a["log_pdf"]
        assert lf[0] == "text", "density: log_pdf must be a quoted formula"
        lo = v_num(a["lo"]) if "lo" in a else None
        hi = v_num(a["hi"]) if "hi" in a else None
        law = recognise_formula(FormulaParser(lf[1]).parse(), lo, hi)
        if law is not None:
            return law
        return FormulaDensity(lf[1], lo, hi, v_num(a["loc"]) if "loc" in a else None,
                              v_num(a["scale"]) if "scale" in a else None)
    if lname == "convolve":
        return make_convolution(build(a["a"]), build(a["b"]))
    if lname in ("noisy_sgd", "projected_chain"):
        return NystromSpec(lname, a)
    if lname == "double_well":
        return DoubleWellSpec(a)
    raise ValueError(lname)


def make_mixture(ws, laws):
    if all(isinstance(l, Finite) for l in laws):
        atoms = {}
        for w, l in zip(ws, laws):
            for x, m in l.atoms:
                atoms[x] = atoms.get(x, 0) + w * m
        xs = sorted(atoms)
        return Finite(xs, [atoms[x] for x in xs])
    return Mixture(ws, laws)


def parse_law(text):
    return build(Parser(text).parse())


# ======================================================================================================
# Closed forms
# ======================================================================================================

def interval_mass_gauss(m, s, a, b):
    """N(m, s^2) mass of (a, b), accurate in both tails."""
    if a >= b:
        return mpf(0)
    if a >= m:
        return ncdf((m - a) / s) - (ncdf((m - b) / s) if b != INF else 0)
    if b <= m:
        return ncdf((b - m) / s) - (ncdf((a - m) / s) if a != NINF else 0)
    return 1 - (ncdf((a - m) / s) if a != NINF else 0) - (ncdf((m - b) / s) if b != INF else 0)


def gauss_regions(g1, g2, eps):
    """Intervals where log(p/q) > eps for p = g1, q = g2 Gaussians."""
    m1, s1, m2, s2 = g1.m, g1.s, g2.m, g2.s
    # L(x) = A x^2 + B x + C
    A = 1 / (2 * s2 ** 2) - 1 / (2 * s1 ** 2)
    B = m1 / s1 ** 2 - m2 / s2 ** 2
    C = mp.log(s2 / s1) - m1 ** 2 / (2 * s1 ** 2) + m2 ** 2 / (2 * s2 ** 2) - eps
    if A == 0:
        if B == 0:
            return [(NINF, INF)] if C > 0 else []
        x = -C / B
        return [(x, INF)] if B > 0 else [(NINF, x)]
    disc = B * B - 4 * A * C
    if disc <= 0:
        return [] if A < 0 else [(NINF, INF)]
    sq = mp.sqrt(disc)
    # stable roots
    qq = -(B + mp.sign(B) * sq) / 2 if B != 0 else sq / 2
    r1, r2 = (qq / A, C / qq) if qq != 0 else (-sq / (2 * A), sq / (2 * A))
    lo_, hi_ = min(r1, r2), max(r1, r2)
    if A < 0:
        return [(lo_, hi_)]
    return [(NINF, lo_), (hi_, INF)]


def closed_gauss(g1, g2, quantity, order):
    m1, s1, m2, s2 = g1.m, g1.s, g2.m, g2.s
    d = m1 - m2
    if quantity == "renyi":
        a = order
        if s1 == s2:
            return a * d * d / (2 * s1 * s1)
        sa2 = a * s2 ** 2 + (1 - a) * s1 ** 2
        if sa2 <= 0:
            return INF
        return mp.log(s2 / s1) + mp.log(s2 ** 2 / sa2) / (2 * (a - 1)) + a * d * d / (2 * sa2)
    if quantity == "kl":
        return mp.log(s2 / s1) + (s1 ** 2 + d * d) / (2 * s2 ** 2) - mpf(1) / 2
    if quantity == "renyi_inf":
        if s1 == s2:
            return mpf(0) if d == 0 else INF
        if s1 > s2:
            return INF
        return mp.log(s2 / s1) + d * d / (2 * (s2 ** 2 - s1 ** 2))
    eps = mpf(0) if quantity == "tv" else order
    tot = mpf(0)
    e = mp.exp(eps)
    for a_, b_ in gauss_regions(g1, g2, eps):
        tot += interval_mass_gauss(m1, s1, a_, b_) - e * interval_mass_gauss(m2, s2, a_, b_)
    return max(tot, mpf(0))


def closed_laplace(l1, l2, quantity, order):
    assert l1.b == l2.b
    dd = abs(l1.m - l2.m) / l1.b
    if quantity == "renyi":
        a = order
        if dd == 0:
            return mpf(0)
        return mp.log(a / (2 * a - 1) * mp.exp((a - 1) * dd) + (a - 1) / (2 * a - 1) * mp.exp(-a * dd)) / (a - 1)
    if quantity == "kl":
        return dd + mp.expm1(-dd)
    if quantity == "renyi_inf":
        return dd
    eps = mpf(0) if quantity == "tv" else order
    if eps >= dd:
        return mpf(0)
    return -mp.expm1((eps - dd) / 2)


def mironov_poisson_gauss(q, sigma, alpha):
    """R_alpha(mix(q, N(0,s), N(1,s)) || N(0,s)) for integer alpha (binomial expansion)."""
    tot = mpf(0)
    for k in range(alpha + 1):
        tot += mp.binomial(alpha, k) * (1 - q) ** (alpha - k) * q ** k * mp.exp((k * k - k) / (2 * sigma ** 2))
    return mp.log(tot) / (alpha - 1)


# ======================================================================================================
# Finite-law engine
# ======================================================================================================

def finite_quantity(P, Q, quantity, order):
    """P, Q Finite laws.  Works at the caller's precision (set high)."""
    pa = {x: m for x, m in P.atoms}
    qa = {x: m for x, m in Q.atoms}
    pe = dict(zip([x for x, _ in P.atoms], P.exact)) if P.exact else None
    qe = dict(zip([x for x, _ in Q.atoms], Q.exact)) if Q.exact else None
    exact = pe is not None and qe is not None
    xs = sorted(set(pa) | set(qa))
    p_only = any(x in pa and x not in qa for x in xs)
    if quantity in ("renyi", "kl", "renyi_inf") and p_only:
        return INF
    if quantity == "renyi":
        a = order
        if exact and a == int(a):
            a = int(a)
            # S - 1 = sum p^a q^(1-a) - 1 exactly
            S = sum((pe[x] ** a / qe[x] ** (a - 1) for x in pe), Fraction(0))
            sm1 = S - 1
            return mp.log1p(mpf(sm1.numerator) / sm1.denominator) / (a - 1)
        # S - 1 = sum_{p>0} q (r^a - 1) - sum_{p=0} q   (sum q = 1)
        s = mpf(0)
        for x in xs:
            q = qa[x]
            if x in pa:
                s += q * mp.expm1(a * mp.log(pa[x] / q))
            else:
                s -= q
        return mp.log1p(s) / (a - 1)
    if quantity == "kl":
        return sum((pa[x] * mp.log(pa[x] / qa[x]) for x in pa), mpf(0))
    if quantity == "renyi_inf":
        return max(mp.log(pa[x] / qa[x]) for x in pa)
    eps = mpf(0) if quantity == "tv" else order
    if exact and eps == 0:
        t = sum((max(pe.get(x, Fraction(0)) - qe.get(x, Fraction(0)), Fraction(0)) for x in xs), Fraction(0))
        return mpf(t.numerator) / t.denominator
    e = mp.exp(eps)
    tol = mpf(10) ** (-(mp.mp.dps - 20))
    tot = mpf(0)
    for x in xs:
        p = pa.get(x, mpf(0))
        t = p - e * qa.get(x, mpf(0))
        if t > tol * p:  # below this it is rounding of an exact tie p = e^eps q (e.g. eps = eps0 for RR)
            tot += t
    return tot


# ======================================================================================================
# Generic mpmath quadrature engine for laws with densities (plus atoms)
# ======================================================================================================

LOG_NEGLIGIBLE = 115  # e^-115 ~ 1e-50: relative contributions below this are dropped from point placement


def _inside(x, l, r):
    return l < x < r


def scan_points(l, r, hints):
    """Candidate points strictly inside (l, r): dense near the hint centres, geometric far out, and close to
    the finite ends."""
    pts = set()
    smin = min(s for _, s in hints)
    for c, s in hints:
        for j in range(-24, 25):
            pts.add(c + s * j / 3)
        d = 8 * s
        for _ in range(48):
            d *= mpf("1.3")
            pts.add(c + d)
            pts.add(c - d)
    for end, sign in ((l, 1), (r, -1)):
        if end in (NINF, INF):
            continue
        w = (r - l) if (l != NINF and r != INF) else smin
        for k in range(1, 41):
            pts.add(end + sign * w * mpf(2) ** (-k))
    if l != NINF and r != INF:
        for u in range(1, 32):
            pts.add(l + (r - l) * u / 32)
    return sorted(x for x in pts if _inside(x, l, r))


def golden_max(f, a, b, fa=None, iters=60):
    g = (mp.sqrt(5) - 1) / 2
    c = b - g * (b - a)
    d = a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iters):
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (c, fc) if fc >= fd else (d, fd)


def place_points(logf, l, r, hints, cand=None):
    """Quadrature breakpoints in [l, r] around every significant local maximum of logf."""
    if cand is None:
        cand = scan_points(l, r, hints)
    vals = [logf(x) for x in cand]
    finite = [v for v in vals if v != NINF]
    if not finite:
        return [l, r], NINF
    vmax = max(finite)
    n = len(cand)
    maxima = []
    for i in range(n):
        v = vals[i]
        if v == NINF or v < vmax - LOG_NEGLIGIBLE:
            continue
        left = vals[i - 1] if i > 0 else NINF
        right = vals[i + 1] if i + 1 < n else NINF
        if v >= left and v >= right:
            maxima.append(i)
    maxima.sort(key=lambda i: -vals[i])
    maxima = maxima[:10]
    smin = min(s for _, s in hints)
    pts = {l, r}
    best = vmax
    for i in maxima:
        a = cand[i - 1] if i > 0 else (l if l != NINF else cand[i] - 10 * smin)
        b = cand[i + 1] if i + 1 < n else (r if r != INF else cand[i] + 10 * smin)

        def safe(x):
            v = logf(x)
            return v if v != NINF else mpf(-10) ** 30
        xm, vm = golden_max(safe, a, b)
        if vals[i] > vm:
            xm, vm = cand[i], vals[i]
        best = max(best, vm)
        pts.add(xm)
        for side in (1, -1):
            d = smin * mpf(10) ** -4
            for _ in range(400):
                x = xm + side * d
                if not _inside(x, l, r):
                    break
                if logf(x) < vm - 1:
                    break
                d *= 2
            w = d
            for k in range(-3, 200):
                x = xm + side * w * mpf(2) ** k
                if not _inside(x, l, r):
                    break
                pts.add(x)
                if logf(x) < vm - LOG_NEGLIGIBLE:
                    break
    return sorted(pts), best


def quad_points(f, pts, method, sing=(), tol=None):
    if sing:  # root-type kinks of density()/convolve() laws: quad_sub substitutes y = e +- u^2 for Gauss-Legendre
        return quad_sub(f, clear_near(pts, sing, tol), method, sing)
    val, err = mp.quad(f, pts, method=method, error=True)
    return val, err


def pieces_of(P, Q, l, r):
    ks = sorted(set(k for k in list(P.kinks) + list(Q.kinks) if l < k < r))
    edges = [l] + ks + [r]
    return list(zip(edges[:-1], edges[1:]))


def find_crossings(g, cand):
    """Roots of g between consecutive candidates where the sign changes (bisection to full precision)."""
    vals = [g(x) for x in cand]
    roots = []
    for i in range(len(cand) - 1):
        a, b = cand[i], cand[i + 1]
        ga, gb = vals[i], vals[i + 1]
        if (ga > 0) == (gb > 0):
            continue
        for _ in range(mp.mp.prec + 10):
            m = (a + b) / 2
            if m == a or m == b:
                break
            gm = g(m)
            if (gm > 0) == (ga > 0):
                a, ga = m, gm
            else:
                b = m
        roots.append((a + b) / 2)
    return roots, vals


def density_supports_ok(P, Q):
    if not P.has_density:
        return True
    if not Q.has_density:
        return False
    return Q.support[0] <= P.support[0] and P.support[1] <= Q.support[1]


def dmass(law, a, b):
    """Mass of the density part of law on (a, b) from closed-form CDFs, or None."""
    c1, c2 = law.dcdf(a), law.dcdf(b)
    s1, s2 = law.dsf(a), law.dsf(b)
    if None in (c1, c2, s1, s2):
        return None
    return (s1 - s2) if s1 < c2 else (c2 - c1)


def generic_quantity(P, Q, quantity, order, method="tanh-sinh", want_cdf=False):
    """Returns (value, quad_error_estimate, cdf_value_or_None)."""
    pa = dict(P.atoms)
    qa = dict(Q.atoms)
    atom_p_only = [x for x in pa if x not in qa]
    cont_ok = density_supports_ok(P, Q)
    if quantity in ("renyi", "kl", "renyi_inf") and (atom_p_only or not cont_ok):
        return INF, mpf(0), None
    eps = mpf(0) if quantity == "tv" else (order if quantity == "hockey_stick" else None)
    hints = sorted(set(list(P.hints) + list(Q.hints)))
    l, r = P.support if P.has_density else (mpf(0), mpf(0))
    sing = set(getattr(P, "root_kinks", ())) | set(getattr(Q, "root_kinks", ()))
    near = min(s_ for _, s_ in hints) * mpf(10) ** -6

    if quantity == "renyi_inf":
        best = max((mp.log(pa[x] / qa[x]) for x in pa), default=NINF)
        if P.has_density:
            def L(x):
                return P.logpdf_closure(x) - Q.logpdf_closure(x)
            for a, b in pieces_of(P, Q, l, r):
                cand = scan_points(a, b, hints)
                if a != NINF:
                    cand = [a] + cand
                if b != INF:
                    cand = cand + [b]
                vals = [L(x) for x in cand]
                i = max(range(len(vals)), key=lambda k: vals[k])
                v = vals[i]
                if 0 < i < len(cand) - 1:
                    _, v2 = golden_max(L, cand[i - 1], cand[i + 1])
                    v = max(v, v2)
                best = max(best, v)
                # tails: the limit at an infinite end
                for end, sign in ((b, 1), (a, -1)):
                    if end not in (INF, NINF):
                        continue
                    c0 = cand[-1] if sign > 0 else cand[0]
                    S = max(s for _, s in hints)
                    seq = [L(c0 + sign * S * mpf(10) ** k) for k in range(1, 7)]
                    diffs = [seq[k + 1] - seq[k] for k in range(len(seq) - 1)]
                    if diffs[-1] > mpf(1):
                        return INF, mpf(0), None
                    # rounding of log p - log q far out is ~ 10^-dps * |log p|
                    tol = mpf(10) ** (-mp.mp.dps + 8) * (1 + abs(P.logpdf_closure(c0 + sign * S * mpf(10) ** 6)))
                    if abs(diffs[-1]) < tol:
                        best = max(best, seq[-1])
                    elif diffs[-1] > 0:
                        return None, None, None  # unresolved: polynomially converging tail, needs analysis
        return best, mpf(0), None

    # atom part
    if quantity == "renyi":
        atom_part = sum((pa[x] ** order * qa[x] ** (1 - order) for x in pa), mpf(0))
    elif quantity == "kl":
        atom_part = sum((pa[x] * mp.log(pa[x] / qa[x]) for x in pa), mpf(0))
    else:
        e = mp.exp(eps)
        atom_part = sum((max(pa[x] - e * qa.get(x, 0), mpf(0)) for x in pa), mpf(0))

    total, err = mpf(0), mpf(0)
    cdf_total = mpf(0) if want_cdf else None
    if P.has_density:
        for a, b in pieces_of(P, Q, l, r):
            if quantity == "renyi":
                def logf(x):
                    lp = P.logpdf(x)
                    if lp == NINF:
                        return NINF
                    lq = Q.logpdf(x)
                    if lq == NINF:
                        raise ArithmeticError("nu's density vanishes where mu's does not")
                    return order * lp + (1 - order) * lq
                S = max(s_ for _, s_ in hints)
                for end, sign in ((b, 1), (a, -1)):
                    if end in (INF, NINF):
                        far = [logf(sign * S * mpf(10) ** k) for k in (6, 7)]
                        if far[1] > far[0] - 1:
                            return INF, mpf(0), None  # the integrand does not decay: divergent
                pts, top = place_points(logf, a, b, hints)
                if top == NINF:
                    continue
                v, e_ = quad_points(lambda x: mp.exp(logf(x) - top), pts, method, sing, near)
                v, e_ = v * mp.exp(top), e_ * mp.exp(top)
            elif quantity == "kl":
                def logenv(x):
                    lp = P.logpdf(x)
                    if lp == NINF:
                        return NINF
                    return lp + mp.log(1 + abs(lp - Q.logpdf(x)))

                pts, top = place_points(logenv, a, b, hints)
                if top == NINF:
                    continue

                def f(x):
                    lp = P.logpdf(x)
                    if lp == NINF:
                        return mpf(0)
                    return mp.exp(lp - top) * (lp - Q.logpdf(x))
                v, e_ = quad_points(f, pts, method, sing, near)
                v, e_ = v * mp.exp(top), e_ * mp.exp(top)
            else:
                def g(x):
                    return P.logpdf(x) - Q.logpdf(x) - eps
                cand = scan_points(a, b, hints)
                roots, vals = find_crossings(g, cand)
                edges = [a] + roots + [b]
                v, e_ = mpf(0), mpf(0)
                for u, w in zip(edges[:-1], edges[1:]):
                    # sign of g on (u, w) from a candidate inside, or the midpoint
                    inside = [val for x, val in zip(cand, vals) if u < x < w]
                    if inside:
                        pos = inside[len(inside) // 2] > 0
                    else:
                        mid = (u + w) / 2 if (u != NINF and w != INF) else (w - 1 if u == NINF else u + 1)
                        pos = g(mid) > 0
                    if not pos:
                        continue

                    def logh(x):
                        gx = g(x)
                        if gx <= 0:
                            return NINF
                        return P.logpdf(x) + mp.log(-mp.expm1(-gx))

                    pts, top = place_points(logh, u, w, hints)
                    if top == NINF:
                        continue

                    def h(x):
                        gx = g(x)
                        if gx <= 0:
                            return mpf(0)
                        return mp.exp(P.logpdf(x) - top) * (-mp.expm1(-gx))
                    vi, ei = quad_points(h, pts, method, sing, near)
                    vi, ei = vi * mp.exp(top), ei * mp.exp(top)
                    v += vi
                    e_ += ei
                    if want_cdf:
                        mp_, mq_ = dmass(P, u, w), dmass(Q, u, w)
                        if mp_ is None or mq_ is None or cdf_total is None:
                            cdf_total = None
                        else:
                            cdf_total += mp_ - mp.exp(eps) * mq_
            total += v
            err += abs(e_)
    if quantity == "renyi":
        S = atom_part + total
        return mp.log(S) / (order - 1), err / S / (order - 1), None
    if quantity == "kl":
        return atom_part + total, err, None
    cdf_val = (atom_part + cdf_total) if cdf_total is not None else None
    return atom_part + total, err, cdf_val


# ======================================================================================================
# Gauss-Legendre rules
# ======================================================================================================

_GL_CACHE = {}


def gl_rule_mp(n):
    """Nodes and weights of the n-point Gauss-Legendre rule on [-1, 1] (Newton on P_n at the current dps)."""
    key = (n, mp.mp.dps)
    if key in _GL_CACHE:
        return _GL_CACHE[key]
    xs, ws = [], []
    with mp.workdps(mp.mp.dps + 10):
        for i in range(n):
            x = mp.cos(mp.pi * (i + mpf(3) / 4) / (n + mpf(1) / 2))
            for _ in range(100):
                p0, p1 = mpf(1), x
                for k in range(2, n + 1):
                    p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
                dp = n * (x * p1 - p0) / (x * x - 1)
                dx = p1 / dp
                x -= dx
                if abs(dx) < mpf(10) ** (-mp.mp.dps - 5):
                    break
            p0, p1 = mpf(1), x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1)
            xs.append(x)
            ws.append(2 / ((1 - x * x) * dp * dp))
    out = (xs[::-1], ws[::-1])
    _GL_CACHE[key] = out
    return out


_GLF = {}


def gl_rule_float(n):
    if n not in _GLF:
        with mp.workdps(30):
            xs, ws = gl_rule_mp(n)
            _GLF[n] = ([float(x) for x in xs], [float(w) for w in ws])
    return _GLF[n]


def composite_float(breaks, n):
    """Composite n-point Gauss-Legendre rule on the panels given by sorted breakpoints."""
    X, W = [], []
    gx, gw = gl_rule_float(n)
    for a, b in zip(breaks[:-1], breaks[1:]):
        h = (b - a) / 2
        c = (a + b) / 2
        for x, w in zip(gx, gw):
            X.append(c + h * x)
            W.append(h * w)
    return X, W


# ======================================================================================================
# Nystrom engine for noisy_sgd and projected_chain (double precision; independent of privamp's trapezoid grid)
#
# The law of X_j is (atoms at lo and hi) + (density on (lo, hi)).  One step X' = clamp(psi(X) + N(0, s^2)):
#   f'(y) = sum over sources c * phi_s(y - mu),  sources = {(w_k f(x_k), psi(x_k))} U {(m_lo, psi(lo)), (m_hi, psi(hi))}
#   m'_lo = sum c Phi((lo - mu)/s),  m'_hi = sum c Phi((mu - hi)/s)
# with (x_k, w_k) a composite Gauss-Legendre rule on (lo, hi) (panels of width <= a fraction of s / max|psi'|).
# f is analytic on [lo, hi] for j >= 1, so the rule converges spectrally.  The final law keeps its sources, so
# its density can be evaluated anywhere (Nystrom interpolation).
# ======================================================================================================

SQRT2 = math.sqrt(2.0)
LOG_SQRT_2PI_F = 0.5 * math.log(2 * math.pi)


def Phi_f(z):
    return 0.5 * math.erfc(-z / SQRT2)


class NystromSpec:
    def __init__(self, lname, a):
        self.lname = lname
        f = lambda k: float(a[k][1])
        if lname == "noisy_sgd":
            assert v_word(a["loss"]) == "quadratic"
            self.n, self.i = v_int(a["n"]), v_int(a["i"])
            zi, eta, sigma, lam, R, x0 = f("zi"), f("eta"), f("sigma"), f("lambda"), f("R"), f("x0")
            self.lo, self.hi, self.x0, self.s = -R, R, x0, eta * sigma
            a_ = 1 - eta * lam
            plain = (lambda x: a_ * x)
            diff = (lambda x, b=eta * lam * zi: a_ * x + b)
            self.maps = [diff if j == self.i else plain for j in range(1, self.n + 1)]
            self.map_ids = ["d" if j == self.i else "p" for j in range(1, self.n + 1)]
            self.slope = abs(a_)
            self.kinks = []
        else:
            x0, r, L, sigma, lo, hi = f("x0"), v_int(a["r"]), f("L"), f("sigma"), f("lo"), f("hi")
            m = v_word(a["map"])
            psi = {"linear": lambda x: L * x, "tanh": lambda x: L * math.tanh(x), "sin": lambda x: L * math.sin(x),
                   "softsign": lambda x: L * x / (1 + abs(x))}[m]
            self.lo, self.hi, self.x0, self.s = lo, hi, x0, sigma
            self.maps = [psi] * r
            self.map_ids = ["p"] * r
            self.slope = abs(L)
            self.kinks = [0.0] if (m == "softsign" and lo < 0 < hi) else []
        self.key = (lname, tuple(sorted((k, str(v)) for k, v in a.items())))

    def rule(self, width_factor, n):
        width = width_factor * self.s / max(1.0, self.slope)
        panels = max(4, int(math.ceil((self.hi - self.lo) / width)))
        br = [self.lo + (self.hi - self.lo) * k / panels for k in range(panels + 1)]
        for k in self.kinks:
            if all(abs(k - b) > 1e-12 for b in br):
                br.append(k)
        br.sort()
        return composite_float(br, n)

    def final(self, width_factor, n):
        X, W = self.rule(width_factor, n)
        s, lo, hi = self.s, self.lo, self.hi
        inv = 1 / (s * math.sqrt(2 * math.pi))
        kernels = {}

        def kernel(mid, psi):
            if mid not in kernels:
                mus = [psi(x) for x in X]
                K = [[inv * math.exp(-0.5 * ((y - m) / s) ** 2) for m in mus] for y in X]
                toL = [Phi_f((lo - m) / s) for m in mus]
                toH = [Phi_f((m - hi) / s) for m in mus]
                kernels[mid] = (K, toL, toH)
            return kernels[mid]

        def from_sources(src):
            f = [sum(c * inv * math.exp(-0.5 * ((y - m) / s) ** 2) for c, m in src) for y in X]
            mL = sum(c * Phi_f((lo - m) / s) for c, m in src)
            mH = sum(c * Phi_f((m - hi) / s) for c, m in src)
            return f, mL, mH

        steps = len(self.maps)
        # step 1 from the point x0
        src = [(1.0, self.maps[0](self.x0))]
        if steps == 1:
            return FinalLaw(src, s, lo, hi)
        f, mL, mH = from_sources(src)
        for j in range(1, steps - 1):
            psi, mid = self.maps[j], self.map_ids[j]
            K, toL, toH = kernel(mid, psi)
            g = [wk * fk for wk, fk in zip(W, f)]
            aL, aH = psi(lo), psi(hi)
            newf = []
            for y, row in zip(X, K):
                v = math.fsum(map(lambda u, v: u * v, row, g))
                v += mL * inv * math.exp(-0.5 * ((y - aL) / s) ** 2) + mH * inv * math.exp(-0.5 * ((y - aH) / s) ** 2)
                newf.append(v)
            nL = math.fsum(map(lambda u, v: u * v, toL, g)) + mL * Phi_f((lo - aL) / s) + mH * Phi_f((lo - aH) / s)
            nH = math.fsum(map(lambda u, v: u * v, toH, g)) + mL * Phi_f((aL - hi) / s) + mH * Phi_f((aH - hi) / s)
            f, mL, mH = newf, nL, nH
        psi = self.maps[steps - 1]
        src = [(wk * fk, psi(xk)) for xk, wk, fk in zip(X, W, f)] + [(mL, psi(lo)), (mH, psi(hi))]
        return FinalLaw(src, s, lo, hi)


class FinalLaw:
    """clamp to [lo, hi] of the Gaussian mixture sum c N(mu, s^2) (double precision)."""

    def __init__(self, src, s, lo, hi):
        src = [(c, m) for c, m in src if c > 0]
        self.logc = [math.log(c) for c, _ in src]
        self.mus = [m for _, m in src]
        self.s, self.lo, self.hi = s, lo, hi
        self.mL = math.fsum(c * Phi_f((lo - m) / s) for c, m in src)
        self.mH = math.fsum(c * Phi_f((m - hi) / s) for c, m in src)
        self.total = math.fsum(c for c, _ in src)
        self.k = 0.5 / (s * s)
        self.lnorm = -math.log(s) - LOG_SQRT_2PI_F

    def logpdf(self, y):
        k = self.k
        e = [lc - k * (y - m) * (y - m) for lc, m in zip(self.logc, self.mus)]
        M = max(e)
        return M + math.log(math.fsum(math.exp(v - M) for v in e)) + self.lnorm


def float_interval_quantity(P, Q, quantity, order, panels_breaks, nq):
    """Divergence between two FinalLaw-like objects on [lo, hi] (atoms at lo and hi + densities)."""
    lo, hi = P.lo, P.hi
    atomsP = [(lo, P.mL), (hi, P.mH)]
    atomsQ = [(lo, Q.mL), (hi, Q.mH)]
    X, W = composite_float(panels_breaks, nq)
    lp = [P.logpdf(x) for x in X]
    lq = [Q.logpdf(x) for x in X]
    if quantity == "renyi":
        a = order
        s = math.fsum(w * math.exp(a * u + (1 - a) * v) for w, u, v in zip(W, lp, lq))
        s += math.fsum(p ** a * q ** (1 - a) for (_, p), (_, q) in zip(atomsP, atomsQ) if p > 0)
        return math.log(s) / (a - 1)
    if quantity == "kl":
        s = math.fsum(w * math.exp(u) * (u - v) for w, u, v in zip(W, lp, lq))
        s += math.fsum(p * math.log(p / q) for (_, p), (_, q) in zip(atomsP, atomsQ) if p > 0)
        return s
    if quantity == "renyi_inf":
        L = lambda x: P.logpdf(x) - Q.logpdf(x)
        vals = [u - v for u, v in zip(lp, lq)]
        best = max(vals + [L(lo), L(hi)])
        i = max(range(len(vals)), key=lambda k: vals[k])
        if 0 < i < len(X) - 1:
            a, b = X[i - 1], X[i + 1]
            g = (math.sqrt(5) - 1) / 2
            for _ in range(80):
                c, d = b - g * (b - a), a + g * (b - a)
                if L(c) >= L(d):
                    b = d
                else:
                    a = c
            best = max(best, L((a + b) / 2))
        for (_, p), (_, q) in zip(atomsP, atomsQ):
            best = max(best, math.log(p / q))
        return best
    eps = 0.0 if quantity == "tv" else float(order)
    ee = math.exp(eps)
    g = lambda x: P.logpdf(x) - Q.logpdf(x) - eps
    vals = [u - v - eps for u, v in zip(lp, lq)]
    grid = [lo] + X + [hi]
    gv = [g(lo)] + vals + [g(hi)]
    roots = []
    for k in range(len(grid) - 1):
        if (gv[k] > 0) != (gv[k + 1] > 0):
            a, b, ga = grid[k], grid[k + 1], gv[k]
            for _ in range(200):
                m = 0.5 * (a + b)
                if m in (a, b):
                    break
                gm = g(m)
                if (gm > 0) == (ga > 0):
                    a, ga = m, gm
                else:
                    b = m
            roots.append(0.5 * (a + b))
    br = sorted(set(list(panels_breaks) + roots))
    X2, W2 = composite_float(br, nq)
    tot = []
    for x, w in zip(X2, W2):
        u, v = P.logpdf(x), Q.logpdf(x)
        if u - v > eps:
            tot.append(w * math.exp(u) * (-math.expm1(eps - (u - v))))
    s = math.fsum(tot)
    s += math.fsum(max(p - ee * q, 0.0) for (_, p), (_, q) in zip(atomsP, atomsQ))
    return s


def nystrom_quantity(specP, specQ, quantity, order, cache):
    """Value and error from three discretisation levels and two final quadrature rules."""
    assert (specP.lo, specP.hi, specP.s) == (specQ.lo, specQ.hi, specQ.s)
    levels = [(1.0, 12), (0.7, 16), (0.5, 20)]
    vals = []
    for lev in levels:
        laws = []
        for sp in (specP, specQ):
            k = (sp.key, lev)
            if k not in cache:
                cache[k] = sp.final(*lev)
            laws.append(cache[k])
        width = 0.5 * specP.s
        panels = max(8, int(math.ceil((specP.hi - specP.lo) / width)))
        br = [specP.lo + (specP.hi - specP.lo) * k / panels for k in range(panels + 1)]
        v = float_interval_quantity(laws[0], laws[1], quantity, order, br, 20)
        vals.append(v)
        if lev == levels[-1]:
            panels2 = int(panels * 1.5) + 1
            br2 = [specP.lo + (specP.hi - specP.lo) * k / panels2 for k in range(panels2 + 1)]
            v_alt = float_interval_quantity(laws[0], laws[1], quantity, order, br2, 14)
    v = vals[-1]
    err = max(3 * abs(vals[-1] - vals[-2]), 3 * abs(v - v_alt), 2e-11 * abs(v), 1e-15)
    return v, err, vals, v_alt


# ======================================================================================================
# Double-well diffusion on [lo, hi] with reflection: dX = -U'(X) dt + sqrt(2) dW, U = x^4/4 - x^2/2.
# p_t(x0, y) = exp((U(x0) - U(y))/2) sum_k exp(-lambda_k t) psi_k(x0) psi_k(y), where (lambda_k, psi_k) are the
# eigenpairs of H = -d^2/dx^2 + V, V = U'^2/4 - U''/2, with the Robin condition psi' + (U'/2) psi = 0 at both
# ends (zero probability flux).  The Robin condition is natural in the weak form
#   a(psi, chi) = int psi' chi' + V psi chi + (U'(hi)/2) psi chi |_hi - (U'(lo)/2) psi chi |_lo,
# so a Galerkin method on orthonormal Legendre polynomials needs no constraint; V is a polynomial so the
# Galerkin matrix is computed exactly by Gauss-Legendre quadrature.
# ======================================================================================================

def U_dw(x):
    return x ** 4 / 4 - x ** 2 / 2


def dU_dw(x):
    return x ** 3 - x


def V_dw(x):
    return dU_dw(x) ** 2 / 4 - (3 * x * x - 1) / 2


_DW_EIG = {}


def legendre_values(s, N):
    P = [mpf(1), s]
    D = [mpf(0), mpf(1)]
    for i in range(1, N - 1):
        P.append(((2 * i + 1) * s * P[i] - i * P[i - 1]) / (i + 1))
        D.append(D[i - 1] + (2 * i + 1) * P[i])
    return P[:N], D[:N]


def dw_eigen(lo, hi, N):
    key = (lo, hi, N, mp.mp.dps)
    if key in _DW_EIG:
        return _DW_EIG[key]
    half, mid = (hi - lo) / 2, (hi + lo) / 2
    M = N + 6
    gx, gw = gl_rule_mp(M)
    norms = [mp.sqrt((2 * i + 1) / (2 * half)) for i in range(N)]
    A = mp.zeros(N, N)
    for s, w in zip(gx, gw):
        x = mid + half * s
        P, D = legendre_values(s, N)
        Pn = [norms[i] * P[i] for i in range(N)]
        Dn = [norms[i] * D[i] / half for i in range(N)]
        v = V_dw(x)
        ww = w * half
        for i in range(N):
            a1, b1 = ww * Dn[i], ww * v * Pn[i]
            for j in range(i, N):
                A[i, j] += a1 * Dn[j] + b1 * Pn[j]
    k_hi, k_lo = dU_dw(hi) / 2, -dU_dw(lo) / 2
    for i in range(N):
        for j in range(i, N):
            A[i, j] += k_hi * norms[i] * norms[j] + k_lo * norms[i] * norms[j] * (-1) ** (i + j)
            A[j, i] = A[i, j]
    E, Qm = mp.eigsy(A)
    out = (E, Qm, norms, half, mid)
    _DW_EIG[key] = out
    return out


class DoubleWellSpec:
    def __init__(self, a):
        self.x0, self.t, self.lo, self.hi = v_num(a["x0"]), v_num(a["t"]), v_num(a["lo"]), v_num(a["hi"])

    def law(self, N):
        return DWLaw(self, N)


class DWLaw(Law):
    kind = "double_well"
    has_density = True

    def __init__(self, spec, N):
        E, Qm, norms, half, mid = dw_eigen(spec.lo, spec.hi, N)
        self.norms, self.half, self.mid, self.N = norms, half, mid, N
        self.atoms = []
        self.support = (spec.lo, spec.hi)
        self.kinks = []
        self.hints = [(mpf(0), mpf(1) / 2)]
        P, _ = legendre_values((spec.x0 - mid) / half, N)
        basis0 = [norms[i] * P[i] for i in range(N)]
        psi0 = [sum(Qm[j, k] * basis0[j] for j in range(N)) for k in range(N)]
        wk = [mp.exp(-E[k] * spec.t) * psi0[k] for k in range(N)]
        self.d = [sum(Qm[i, k] * wk[k] for k in range(N)) * norms[i] for i in range(N)]
        self.u0 = U_dw(spec.x0)
        self.E0 = E[0]

    def series(self, y):
        with mp.workdps(32):
            return +self._series(y)

    def _series(self, y):
        s = (y - self.mid) / self.half
        # Clenshaw for sum d_i P_i(s)
        b1 = b2 = mpf(0)
        for i in range(self.N - 1, -1, -1):
            b1, b2 = self.d[i] + (2 * i + 1) * s * b1 / (i + 1) - (i + 1) * b2 / (i + 2), b1
        return b1

    def logpdf(self, y):
        if not (self.support[0] < y < self.support[1]):
            return NINF
        v = self.series(y)
        if v <= 0:
            return NINF
        return mp.log(v) + (self.u0 - U_dw(y)) / 2

    def logpdf_closure(self, y):
        v = self.series(y)
        return mp.log(v) + (self.u0 - U_dw(y)) / 2 if v > 0 else NINF


# ======================================================================================================
# Self-checks (assertions): closed forms vs the generic engine, alternative density formulas, etc.
# ======================================================================================================

def rel(a, b):
    if a == b:
        return mpf(0)
    return abs(a - b) / max(abs(a), abs(b))


def check(name, a, b, tol):
    r = rel(mpf(a), mpf(b))
    ok = r <= tol
    log(f"  self-check {'OK ' if ok else 'FAIL'} {name}: {mp.nstr(a, 18)} vs {mp.nstr(b, 18)} (rel {mp.nstr(r, 3)}, tol {tol})")
    SELF_CHECKS.append((name, ok, float(r), tol))
    assert ok, name


SELF_CHECKS = []


def self_checks(quick=False):
    global NUMBER_MODE
    NUMBER_MODE = "decimal"
    log("self-checks")
    with mp.workdps(40):
        # 1. Gaussian closed forms vs generic quadrature
        for mu, nu, qs in [("gaussian(0, 1)", "gaussian(1, 1)",
                            [("renyi", "1.5"), ("renyi", "8"), ("kl", None), ("tv", None), ("hockey_stick", "5"),
                             ("hockey_stick", "30")]),
                           ("gaussian(0, 1)", "gaussian(0.5, 3)",
                            [("renyi", "2"), ("kl", None), ("tv", None), ("hockey_stick", "1"), ("renyi_inf", None)]),
                           ("gaussian(0.3, 2)", "gaussian(0, 1)",
                            [("renyi", "1.1"), ("kl", None), ("tv", None), ("hockey_stick", "0.5")])]:
            P, Q = parse_law(mu), parse_law(nu)
            for q, o in qs:
                o = mpf(o) if o else None
                check(f"gauss closed vs quad {mu}|{nu} {q} {o}", closed_gauss(P, Q, q, o),
                      generic_quantity(P, Q, q, o)[0], mpf(10) ** -28)
        # 2. Laplace closed forms vs generic quadrature
        P, Q = parse_law("laplace(0, 1)"), parse_law("laplace(1, 1)")
        for q, o in [("renyi", "2"), ("renyi", "64"), ("kl", None), ("tv", None), ("hockey_stick", "0.5"),
                     ("hockey_stick", "0.999"), ("renyi_inf", None)]:
            o = mpf(o) if o else None
            check(f"laplace closed vs quad {q} {o}", closed_laplace(P, Q, q, o), generic_quantity(P, Q, q, o)[0],
                  mpf(10) ** -28)
        # 3. Poisson-subsampled Gaussian: binomial expansion (Mironov et al.) vs quadrature
        for qq, sig, a in [("0.01", "1", 2), ("0.01", "1", 8), ("0.1", "0.5", 8), ("0.01", "1", 64)]:
            P = parse_law(f"mix(q={qq}, gaussian(0, {sig}), gaussian(1, {sig}))")
            Q = parse_law(f"gaussian(0, {sig})")
            check(f"poisson-gauss sum vs quad q={qq} s={sig} a={a}", mironov_poisson_gauss(mpf(qq), mpf(sig), a),
                  generic_quantity(P, Q, "renyi", mpf(a))[0], mpf(10) ** -26)
        # 4. wr subsampling, alpha = 2 and 3: E_nu[(p/q)^a] = sum over draws of prod w exp(sum_{i<j} k_i k_j)
        P = parse_law("subsample(scheme=wr, base=gaussian, n=50, m=20, sigma=1, side=1)")
        Q = parse_law("subsample(scheme=wr, base=gaussian, n=50, m=20, sigma=1, side=0)")
        w = [mp.binomial(20, k) * (mpf(1) / 50) ** k * (mpf(49) / 50) ** (20 - k) for k in range(21)]
        S2 = sum(w[k] * w[l] * mp.exp(k * l) for k in range(21) for l in range(21))
        check("wr alpha=2 multinomial vs quad", mp.log(S2), generic_quantity(P, Q, "renyi", mpf(2))[0], mpf(10) ** -26)
        if not quick:
            S3 = sum(w[k] * w[l] * w[m] * mp.exp(k * l + k * m + l * m)
                     for k in range(21) for l in range(21) for m in range(21))
            check("wr alpha=3 multinomial vs quad", mp.log(S3) / 2, generic_quantity(P, Q, "renyi", mpf(3))[0],
                  mpf(10) ** -26)
        # 5. laplace_sum densities: Bessel form vs the n = 2 closed form, vs characteristic-function inversion;
        #    partial fractions vs the two-scale closed form and vs a numerical convolution
        L2 = parse_law("laplace_nfold(n=2, loc=0, scale=1.5)")
        b = mpf("1.5")
        for x in ["0", "0.3", "2", "11"]:
            x = mpf(x)
            check(f"nfold n=2 Bessel vs closed x={x}", L2.pdf0(x), (b + abs(x)) * mp.exp(-abs(x) / b) / (4 * b * b),
                  mpf(10) ** -30)
        L5 = parse_law("laplace_nfold(n=5, loc=0, scale=0.7)")
        b = mpf("0.7")
        for x in ["0.3", "2.5"]:
            x = mpf(x)
            inv = mp.quadosc(lambda t: mp.cos(t * x) / (1 + b * b * t * t) ** 5, [0, mp.inf], omega=x) / mp.pi
            check(f"nfold n=5 Bessel vs Fourier inversion x={x}", L5.pdf0(x), inv, mpf(10) ** -25)
        inv0 = mp.quad(lambda t: 1 / (1 + b * b * t * t) ** 5, [0, 1, 10, mp.inf]) / mp.pi
        check("nfold n=5 Bessel vs Fourier inversion x=0", L5.pdf0(mpf(0)), inv0, mpf(10) ** -25)
        S12 = parse_law("laplace_sum(0, scales=[1, 2])")
        for x in ["0", "0.7", "5"]:
            x = mpf(x)
            b1, b2 = mpf(1), mpf(2)
            ref = (b1 * mp.exp(-abs(x) / b1) - b2 * mp.exp(-abs(x) / b2)) / (2 * (b1 * b1 - b2 * b2))
            check(f"laplace_sum [1,2] partial fractions vs closed x={x}", S12.pdf0(x), ref, mpf(10) ** -30)
        S3l = parse_law("laplace_sum(0, scales=[1, 1.5, 3])")
        S2l = parse_law("laplace_sum(0, scales=[1, 1.5])")
        for x in ["0.4", "3"]:
            x = mpf(x)
            conv = mp.quad(lambda y: S2l.pdf0(x - y) * mp.exp(-abs(y) / 3) / 6,
                           sorted({NINF, mpf(0), x, INF} | {x - 5, x + 5, mpf(-5), mpf(5)}))
            check(f"laplace_sum [1,1.5,3] partial fractions vs convolution x={x}", S3l.pdf0(x), conv, mpf(10) ** -25)
        # 6. HS for a mixture: closed-form CDFs vs quadrature (same crossings)
        P = parse_law("mix(q=0.01, gaussian(0, 1), gaussian(1, 1))")
        Q = parse_law("gaussian(0, 1)")
        for e in ["0.005", "2", "5"]:
            v, _, c = generic_quantity(P, Q, "hockey_stick", mpf(e), want_cdf=True)
            check(f"mix HS cdf vs quad eps={e}", c, v, mpf(10) ** -25)
        # 7. randomized response: generating polynomial vs binomial convolution
        a1 = rr_counts(40, mpf("0.7"), 13, 1)
        a2 = rr_counts_direct(40, mpf("0.7"), 13, 1)
        check("shuffled_rr generating polynomial vs convolution", sum(abs(x - y) for x, y in zip(a1, a2)) + 1, 1,
              mpf(10) ** -35)
        check("shuffled_rr total mass", sum(a1), 1, mpf(10) ** -35)
        # 8. clamp of a Gaussian: the atoms through the quadrature path vs closed-form CDF
        P = parse_law("clamp(gaussian(0.3, 1), lo=0, hi=1)")
        check("clamp total mass", sum(m for _, m in P.atoms) + mp.quad(lambda x: mp.exp(P.logpdf(x)), [0, 1]), 1,
              mpf(10) ** -35)
    # 9. chain: exact Fractions vs mpmath power iteration
    with mp.workdps(60):
        K = [[Fraction(9, 10), Fraction(1, 10), 0], [0, Fraction(9, 10), Fraction(1, 10)], [Fraction(1, 10), 0, Fraction(9, 10)]]
        ex = chain_law(K, [1, 0, 0], 50)
        Km = mp.matrix([[mpf(Fraction(x).numerator) / Fraction(x).denominator for x in row] for row in K])
        v = mp.matrix([[1, 0, 0]]) * Km ** 50
        check("chain Fraction vs mpmath matrix power", sum(abs(mpf(ex[i].numerator) / ex[i].denominator - v[0, i])
                                                            for i in range(3)) + 1, 1, mpf(10) ** -50)
    # 10. Nystrom engine: r = 1 equals clamp(gaussian); a linear chain on a wide interval equals gaussian_chain
    with mp.workdps(40):
        sp = [parse_law("projected_chain(x0=0.5, r=1)"), parse_law("projected_chain(x0=-0.5, r=1)")]
        v = nystrom_quantity(sp[0], sp[1], "renyi", 2.0, {})[0]
        ref = generic_quantity(parse_law("clamp(gaussian(0.5, 1), lo=-3, hi=3)"),
                               parse_law("clamp(gaussian(-0.5, 1), lo=-3, hi=3)"), "renyi", mpf(2))[0]
        check("nystrom r=1 vs clamp(gaussian) quad", v, ref, 1e-13)
        sp = [parse_law("projected_chain(x0=1, r=4, L=0.9, lo=-20, hi=20)"),
              parse_law("projected_chain(x0=-1, r=4, L=0.9, lo=-20, hi=20)")]
        fl = [s.final(1.0, 12) for s in sp]
        br = [-20 + 40 * k / 80 for k in range(81)]
        for q, o in (("renyi", 2.0), ("tv", None)):
            v = float_interval_quantity(fl[0], fl[1], q, o, br, 20)
            ref = closed_gauss(parse_law("gaussian_chain(x0=1, r=4, L=0.9)"), parse_law("gaussian_chain(x0=-1, r=4, L=0.9)"),
                               q, mpf(2) if o else None)
            check(f"nystrom linear chain on [-20, 20] vs gaussian_chain {q}", v, ref, 1e-12)
        sp = [parse_law("noisy_sgd(n=10, i=10, zi=1, eta=0.1)"), parse_law("noisy_sgd(n=10, i=10, zi=-1, eta=0.1)")]
        v = nystrom_quantity(sp[0], sp[1], "renyi", 2.0, {})[0]
        check("noisy_sgd R_2 vs earlier audit 0.865587292587", v, mpf("0.865587292587"), 1e-12)
    # 11. double well: earlier audit value, symmetry, mass, approach to the invariant law
    with mp.workdps(30):
        A = parse_law("double_well(x0=1, t=1)").law(80)
        B = parse_law("double_well(x0=-1, t=1)").law(80)
        with mp.workdps(20):
            v = generic_quantity(A, B, "renyi", mpf(2))[0]
            v2 = generic_quantity(B, A, "renyi", mpf(2))[0]
            mass = mp.quad(lambda y: mp.exp(A.logpdf(y)), [-4, -2, -1, 0, 1, 2, 4])
        check("double_well R_2(1|-1, t=1) vs earlier audit 0.94816398", v, mpf("0.94816398"), 1e-8)
        check("double_well symmetry R_2(1|-1) = R_2(-1|1)", v, v2, 1e-14)
        check("double_well total mass", mass, 1, 1e-14)
        C = parse_law("double_well(x0=1, t=100)").law(80)
        Z = mp.quad(lambda y: mp.exp(-U_dw(y)), [-4, -1, 0, 1, 4])
        for y in ["0", "1.3", "-2.5"]:
            y = mpf(y)
            check(f"double_well p_100(1, {y}) vs invariant e^-U/Z", mp.exp(C.logpdf(y)), mp.exp(-U_dw(y)) / Z, 1e-12)
    self_checks_density(quick)
    log(f"self-checks done: {len(SELF_CHECKS)} passed")


def self_checks_density(quick=False):
    """density() and convolve(): the formula parser, the closed forms recognised from formulas against the generic
    formula route, the convolution closed forms against the numerical convolution, cdfs against quadrature."""
    global NUMBER_MODE, RECOGNISE, INNER_METHOD
    NUMBER_MODE = "decimal"
    with mp.workdps(40):
        # 12. formula parser: precedence and associativity
        cases = [("-x^2", "3", "-9"), ("2^3^2", "0", "512"), ("-2^2", "0", "-4"), ("2^-1", "0", "0.5"),
                 ("8 - 2 - 1", "0", "5"), ("12/2/3", "0", "2"), ("-(x - 0.5)^2/2", "1.5", "-0.5"),
                 ("min(x, 1) + max(x, 2)*abs(-x)", "3", "10"), ("exp(log(x)) + sqrt(x*x) - cosh(0)", "2", "3")]
        worst = max(abs(compile_formula(FormulaParser(f).parse(), [])(mpf(x)) - mpf(want)) for f, x, want in cases)
        check("formula parser: precedence, associativity, functions", worst + 1, 1, mpf(10) ** -35)
        check("formula parser: 4 atan(1) = pi", compile_formula(FormulaParser("4*atan(1)").parse(), [])(0), mp.pi,
              mpf(10) ** -38)
        # 13. closed forms recognised from formulas vs the formula's normaliser by quadrature (both rules)
        for text, closed in [('density(log_pdf="-abs(x - 1)^1.5")', mp.log(2 * mp.gamma(1 + 1 / mpf("1.5")))),
                             ('density(log_pdf="-abs(x)")', mp.log(2)),
                             ('density(log_pdf="-(x - 0.5)^2/2", lo=-1, hi=2)',
                              mp.log(mp.sqrt(2 * mp.pi) * (ncdf(mpf("1.5")) - ncdf(mpf("-1.5")))))]:
            for meth in ("tanh-sinh", "gauss-legendre"):
                RECOGNISE, INNER_METHOD = False, meth
                try:
                    L = parse_law(text)
                finally:
                    RECOGNISE, INNER_METHOD = True, "tanh-sinh"
                check(f"{text}: normaliser by {meth} vs closed form", L.logZ, closed, mpf(10) ** -36)
        R = parse_law('density(log_pdf="-(x - 0.5)^2/2", lo=-1, hi=2)')
        check("truncated Gaussian recognised: log density at 0.7 vs formula",
              R.logpdf(mpf("0.7")), -mpf("0.2") ** 2 / 2 - mp.log(mp.sqrt(2 * mp.pi) * (ncdf(mpf("1.5")) - ncdf(mpf("-1.5")))),
              mpf(10) ** -36)
        # 14. exp-power cdf (incomplete gamma) vs quadrature of the density
        E = parse_law('density(log_pdf="-abs(x - 1)^1.5")')
        for x in ["0.5", "2.3", "-4"]:
            x = mpf(x)
            quad = mp.quad(lambda y: mp.exp(E.logpdf(y)), [x, 1, INF] if x < 1 else [x, INF])
            check(f"exp-power survival function vs quadrature x={x}", E.dsf(x), quad, mpf(10) ** -32)
        # 15. truncated Gaussians: closed forms vs generic quadrature
        P = parse_law('density(log_pdf="-(x - 0.5)^2/2", lo=-1, hi=2)')
        Q = parse_law('density(log_pdf="-x^2/2", lo=-1, hi=2)')
        for q, o in [("renyi", "2"), ("renyi", "3.5"), ("kl", None), ("tv", None), ("hockey_stick", "0.2"),
                     ("renyi_inf", None)]:
            o = mpf(o) if o else None
            check(f"truncated Gaussians closed vs quad {q} {o}", closed_truncgauss(P, Q, q, o),
                  generic_quantity(P, Q, q, o)[0], mpf(10) ** -30)
        # 16. Laplace + Gaussian and Laplace + Laplace closed forms vs the numerical convolution (both inner rules)
        for text in ["convolve(laplace(1, 1), gaussian(0, 0.5))", "convolve(laplace(0.5, 1), laplace(0, 2))"]:
            C = parse_law(text)
            for meth in ("tanh-sinh", "gauss-legendre"):
                RECOGNISE, INNER_METHOD = False, meth
                try:
                    N = parse_law(text)
                finally:
                    RECOGNISE, INNER_METHOD = True, "tanh-sinh"
                assert isinstance(N, NumConvolution)
                worst = max(abs(C.logpdf(mpf(z)) - N.logpdf(mpf(z))) for z in ["-7", "0", "0.5", "1", "3.5", "12"])
                check(f"{text}: closed-form log density vs numerical convolution ({meth})", worst + 1, 1,
                      mpf(10) ** -34)
            for x in ["-2", "0.8", "4"]:
                x = mpf(x)
                quad = mp.quad(lambda y: mp.exp(C.logpdf(y)), sorted({x, C.hints[0][0]}) + [INF] if x < C.hints[0][0]
                               else [x, INF])
                check(f"{text}: survival function vs quadrature x={x}", C.dsf(x), quad, mpf(10) ** -32)
            check(f"{text}: cdf + survival = 1", C.dcdf(mpf("0.3")) + C.dsf(mpf("0.3")), 1, mpf(10) ** -36)
        # 17. law + Gaussian as a Gaussian mixture over fixed rules (GaussMixConvolution, both rules) vs the Laplace +
        #     Gaussian closed form, and for exp-power + Gaussian vs the adaptive nested quadrature at 60 digits
        A, G = parse_law("laplace(1, 1)"), parse_law("gaussian(0, 0.5)")
        C = parse_law("convolve(laplace(1, 1), gaussian(0, 0.5))")
        for meth in ("tanh-sinh", "gauss-legendre"):
            INNER_METHOD = meth
            try:
                N = GaussMixConvolution(A, G)
            finally:
                INNER_METHOD = "tanh-sinh"
            worst = max(abs(C.logpdf(mpf(z)) - N.logpdf(mpf(z))) for z in ["-7", "0", "0.5", "1", "3.5", "12"])
            check(f"laplace(1, 1) + gaussian(0, 0.5): closed form vs Gaussian mixture ({meth})", worst + 1, 1,
                  mpf(10) ** -34)
        text = 'convolve(density(log_pdf="-abs(x)^1.5"), gaussian(0.3, 1))'
        zs = ["-30", "-10", "-3", "-0.7", "0", "0.3", "1", "2.2", "5", "15", "30"]
        with mp.workdps(60):
            RECOGNISE = False
            try:
                R = make_convolution(parse_law('density(log_pdf="-abs(x)^1.5")'), parse_law("gaussian(0.3, 1)"))
            finally:
                RECOGNISE = True
            assert isinstance(R, NumConvolution)
            ref = [R.logpdf(mpf(z)) for z in zs]
        for meth in ("tanh-sinh", "gauss-legendre"):
            INNER_METHOD = meth
            try:
                N = parse_law(text)
            finally:
                INNER_METHOD = "tanh-sinh"
            assert isinstance(N, GaussMixConvolution)
            worst = max(abs(N.logpdf(mpf(z)) - r) for z, r in zip(zs, ref))
            check(f"exp-power + gaussian: Gaussian mixture ({meth}) vs adaptive nested quadrature (60 digits)",
                  worst + 1, 1, mpf(10) ** -38)
    if not quick:
        with mp.workdps(20):  # a sanity check of the convolution itself (the rules are compared above)
            C = parse_law(text)
            edges = [NINF, -12, -6, -3, -1, 0.3, 1.6, 3.6, 6.6, 12.6, INF]
            moms = [mp.quad(lambda z: (z - mpf("0.3")) ** k * mp.exp(C.logpdf(z)), edges) for k in (0, 1, 2)]
            var = mp.gamma(3 / mpf("1.5")) / mp.gamma(1 / mpf("1.5")) + 1
            check("convolve(exp-power, gaussian): total mass", moms[0], 1, mpf(10) ** -16)
            check("convolve(exp-power, gaussian): mean = 0.3", moms[1] + 1, 1, mpf(10) ** -16)
            check("convolve(exp-power, gaussian): variance = Gamma(3/p)/Gamma(1/p) + 1", moms[2], var, mpf(10) ** -16)


# ======================================================================================================
# The table
# ======================================================================================================

def _rows():
    R = []

    def add(mu, nu, specs):
        for s in specs:
            if isinstance(s, tuple):
                R.append((mu, nu, s[0], s[1]))
            else:
                R.append((mu, nu, s, ""))

    def renyi(*a):
        return [("renyi", x) for x in a]

    def hs(*e):
        return [("hockey_stick", x) for x in e]

    # ---- Gaussian family (closed forms) ----
    add("gaussian(0, 1)", "gaussian(1, 1)", renyi("1.001", "1.5", "2", "8", "64", "1000") + ["kl", "renyi_inf", "tv"]
        + hs("0.1", "0.5", "1", "2", "5", "10", "20", "30", "60"))
    add("gaussian(0, 1)", "gaussian(1e-6, 1)", renyi("2", "64") + ["kl", "tv"] + hs("1e-6"))
    add("gaussian(0, 1)", "gaussian(0, 10)", renyi("1.5", "2", "8") + ["kl", "renyi_inf", "tv"] + hs("1", "2"))
    add("gaussian(0, 10)", "gaussian(0, 1)", renyi("1.001", "1.005", "2") + ["kl", "renyi_inf", "tv"] + hs("1", "3"))
    add("gaussian(0.5, 0.001)", "gaussian(0, 2)", renyi("2") + ["kl", "renyi_inf", "tv"] + hs("5"))
    add("ou(x0=1, t=0.5, theta=2, rho=1)", "ou(x0=-1, t=0.5, theta=2, rho=1)", renyi("2", "8") + ["kl", "tv"] + hs("1", "10"))
    add("brownian(x0=1, t=0.25)", "brownian(x0=0, t=0.25)", renyi("2") + ["tv"] + hs("2"))
    add("gaussian_chain(x0=1, r=5, L=0.9)", "gaussian_chain(x0=-1, r=5, L=0.9)", renyi("2", "64") + ["kl", "tv"] + hs("0.5"))
    add("gaussian_chain(x0=1, r=3, L=1.2, sigma=0.5, sigma0=0.3)", "gaussian_chain(x0=0, r=3, L=1.2, sigma=0.5, sigma0=0.3)",
        renyi("2") + ["tv"] + hs("1"))
    add("ou(x0=1, t=1, theta=1, rho=1)", "gaussian(0, 1)", renyi("2") + ["kl", "renyi_inf", "tv"])
    # ---- Laplace ----
    add("laplace(0, 1)", "laplace(1, 1)", renyi("1.001", "1.5", "2", "8", "64", "1000") + ["kl", "renyi_inf", "tv"]
        + hs("0.25", "0.5", "0.9", "0.999", "1", "1.5"))
    add("laplace(0, 1)", "laplace(1e-6, 1)", renyi("2") + ["kl", "tv", "renyi_inf"] + hs("5e-7"))
    add("laplace(0, 0.1)", "laplace(2, 0.1)", renyi("2", "64") + ["kl", "tv"] + hs("19.9"))
    add("laplace(0, 1)", "laplace(0, 3)", renyi("2", "8") + ["kl", "renyi_inf", "tv"] + hs("0.5"))
    add("laplace(0, 3)", "laplace(0, 1)", renyi("1.001", "2") + ["kl", "renyi_inf", "tv"] + hs("1"))
    # ---- sums of Laplace ----
    add("laplace_sum(0, scales=[1, 2])", "laplace_sum(1, scales=[1, 2])", renyi("2", "8") + ["kl", "renyi_inf", "tv"] + hs("0.3"))
    add("laplace_nfold(n=2, loc=0, scale=1)", "laplace_nfold(n=2, loc=1, scale=1)", renyi("2") + ["kl", "tv", "renyi_inf"] + hs("0.5"))
    add("laplace_nfold(n=10, loc=0.1, scale=1)", "laplace_nfold(n=10, loc=0, scale=1)", renyi("2", "64") + ["kl", "tv"] + hs("0.05"))
    add("laplace_sum(loc=0.5, scales=[1, 1.5, 3])", "laplace_sum(loc=0, scales=[1, 1.5, 3])", renyi("2") + ["tv"] + hs("0.1"))
    add("laplace_nfold(n=50, loc=1, scale=0.5)", "laplace_nfold(n=50, loc=0, scale=0.5)", renyi("2") + ["tv"])
    # ---- mixtures / subsampling ----
    m1 = "mix(q=0.01, gaussian(0, 1), gaussian(1, 1))"
    add(m1, "gaussian(0, 1)", renyi("1.5", "2", "8", "64") + ["kl", "renyi_inf", "tv"] + hs("0.001", "0.005", "0.5", "2", "5"))
    add("gaussian(0, 1)", m1, renyi("2", "8") + ["kl", "renyi_inf", "tv"] + hs("0.005"))
    add("subsample(scheme=poisson, base=gaussian, q=1e-6, sigma=1, side=1)",
        "subsample(scheme=poisson, base=gaussian, q=1e-6, sigma=1, side=0)", renyi("2", "8") + ["kl", "tv"] + hs("1e-7"))
    add("mix(q=1e-9, gaussian(0, 1), gaussian(1, 1))", "gaussian(0, 1)", renyi("2", "64") + ["kl", "tv"])
    add("subsample(scheme=poisson, base=gaussian, q=0.1, sigma=0.5, side=1)",
        "subsample(scheme=poisson, base=gaussian, q=0.1, sigma=0.5, side=0)", renyi("2", "8") + ["tv"] + hs("1", "3"))
    add("subsample(scheme=poisson, base=laplace, q=0.05, scale=1, side=1)",
        "subsample(scheme=poisson, base=laplace, q=0.05, scale=1, side=0)", renyi("2", "8") + ["kl", "renyi_inf", "tv"]
        + hs("0.01", "0.04"))
    add("subsample(scheme=wor, base=laplace, n=100, m=10, scale=0.5, side=1)",
        "subsample(scheme=wor, base=laplace, n=100, m=10, scale=0.5, side=0)", renyi("2") + ["renyi_inf", "tv"] + hs("0.45", "0.5"))
    add("subsample(scheme=wr, base=gaussian, n=50, m=20, sigma=1, side=1)",
        "subsample(scheme=wr, base=gaussian, n=50, m=20, sigma=1, side=0)", renyi("2", "3") + ["tv"] + hs("0.1"))
    add("mixture(weights=[0.5, 0.3, 0.2], laws=[gaussian(0, 1), laplace(3, 1), gaussian(-2, 0.5)])",
        "mixture(weights=[0.4, 0.4, 0.2], laws=[gaussian(0, 1), laplace(3, 1), gaussian(-2, 0.5)])",
        renyi("2", "8") + ["kl", "renyi_inf", "tv"] + hs("0.1"))
    add("binomial_mix(m=10, p=0.01, law=gaussian(0, 1))", "gaussian(0, 1)", renyi("2") + ["tv"] + hs("1"))
    add("shift(laplace(0, 1), by=2)", "mix(q=0.5, laplace(0, 1), laplace(2, 1))", renyi("2") + ["renyi_inf", "tv"])
    # ---- clamp ----
    add("clamp(gaussian(0.3, 1), lo=0, hi=1)", "clamp(gaussian(0.7, 1), lo=0, hi=1)", renyi("2", "8") + ["kl", "renyi_inf", "tv"] + hs("0.2"))
    add("clamp(laplace(0, 1), lo=-1, hi=1)", "clamp(laplace(0.5, 1), lo=-1, hi=1)", renyi("2") + ["kl", "renyi_inf", "tv"] + hs("0.3"))
    add("clamp(gaussian(0, 1), lo=-2, hi=2)", "gaussian(0, 1)", renyi("2") + ["kl", "tv"] + hs("1"))
    add("gaussian(0, 1)", "clamp(gaussian(0, 1), lo=-2, hi=2)", renyi("2") + ["tv"])
    add("clamp(mix(q=0.1, gaussian(0, 1), gaussian(1, 1)), lo=-1, hi=2)", "clamp(gaussian(0, 1), lo=-1, hi=2)",
        renyi("2") + ["renyi_inf", "tv"])
    # ---- finite laws ----
    add("pmf(p=[0.2, 0.5, 0.3])", "pmf(p=[0.3, 0.4, 0.3])", renyi("1.5", "2", "8") + ["kl", "renyi_inf", "tv"] + hs("0.1"))
    add("pmf(p=[0.5, 0.5])", "pmf(p=[1], at=[0])", renyi("2") + ["kl", "renyi_inf", "tv"] + hs("1"))
    add("pmf(p=[0.25, 0.25, 0.5], at=[-1, 0, 2.5])", "pmf(p=[0.5, 0.25, 0.25], at=[-1, 0, 2.5])", renyi("2") + ["kl", "tv", "renyi_inf"])
    K3 = "K=[[0.9, 0.1, 0], [0, 0.9, 0.1], [0.1, 0, 0.9]]"
    for t in (1, 10, 50, 150, 200, 300):
        add(f"chain({K3}, mu=[1, 0, 0], t={t})", f"chain({K3}, mu=[0, 1, 0], t={t})", ["tv"] + renyi("2"))
    add(f"chain({K3}, mu=[1, 0, 0], t=10)", f"chain({K3}, mu=[0, 1, 0], t=10)", ["kl", "renyi_inf"] + renyi("8") + hs("0.1"))
    K2 = "K=[[0.9, 0.1], [0.2, 0.8]]"
    add(f"chain({K2}, mu=[1, 0], t=3)", f"chain({K2}, mu=[0, 1], t=3)", renyi("2") + ["kl", "tv", "renyi_inf"])
    add(f"chain({K2}, mu=[1, 0], t=20)", f"chain({K2}, mu=[0, 1], t=20)", renyi("2") + ["tv"])
    KL3 = "K=[[0.5, 0.5, 0], [0.25, 0.5, 0.25], [0, 0.5, 0.5]]"
    add(f"chain({KL3}, mu=[1, 0, 0], t=1)", f"chain({KL3}, mu=[0, 0, 1], t=1)", renyi("2") + ["tv"])
    add(f"chain({KL3}, mu=[1, 0, 0], t=4)", f"chain({KL3}, mu=[0, 0, 1], t=4)", renyi("1.5", "2") + ["tv"] + hs("0.5"))
    add(f"chain({KL3}, mu=[1, 0, 0], t=25)", f"chain({KL3}, mu=[0, 0, 1], t=25)", renyi("2") + ["tv", "kl"])
    add("shuffled_rr(n=100, eps0=1, first=1)", "shuffled_rr(n=100, eps0=1, first=0)",
        renyi("2", "8", "64") + ["kl", "renyi_inf", "tv"] + hs("0.1", "0.5", "0.9", "1"))
    add("shuffled_rr(n=1000, eps0=0.5, ones=300, first=1)", "shuffled_rr(n=1000, eps0=0.5, ones=300, first=0)",
        renyi("2") + ["kl", "tv"] + hs("0.01"))
    add("shuffled_rr(n=10, eps0=3, first=1)", "shuffled_rr(n=10, eps0=3, first=0)", renyi("2") + ["tv"] + hs("2"))
    add("subsample(scheme=wor, base=rr, n=1000, m=50, eps0=2, side=1)", "subsample(scheme=wor, base=rr, n=1000, m=50, eps0=2, side=0)",
        renyi("2") + ["tv"] + hs("0.01"))
    # ---- discretised: noisy SGD, projected chains ----
    def sgd(extra, zi):
        return f"noisy_sgd({extra.replace('ZI', zi)})"
    for extra, z1, z2, specs in [
            ("n=10, i=10, zi=ZI, eta=0.1", "1", "-1", renyi("2", "8") + ["kl", "tv", "renyi_inf"] + hs("0.5", "1")),
            ("n=10, i=1, zi=ZI, eta=0.1", "1", "-1", renyi("2") + ["tv", "kl"]),
            ("n=20, i=5, zi=ZI, eta=0.2, sigma=0.5", "1", "-1", renyi("2", "8") + ["tv"] + hs("0.05")),
            ("n=5, i=3, zi=ZI, eta=0.5", "1", "0", renyi("2") + ["kl", "tv"] + hs("0.2")),
            ("n=30, i=30, zi=ZI, eta=0.1, sigma=2, R=2", "1", "-1", renyi("2") + ["tv"]),
            ("n=8, i=4, zi=ZI, eta=1.5, sigma=0.3", "0.5", "-0.5", renyi("2") + ["tv"]),
            ("n=6, i=6, zi=ZI, eta=0.1, lambda=0.5, x0=0.9", "1", "-1", renyi("2") + ["tv"])]:
        add(sgd(extra, z1), sgd(extra, z2), specs)
    for extra, specs in [("r=1", renyi("2") + ["tv"]),
                         ("r=3, map=tanh, L=0.9", renyi("2") + ["kl", "tv"] + hs("0.1")),
                         ("r=5, map=sin, L=1.5, sigma=0.5", renyi("2", "8") + ["tv"]),
                         ("r=4, map=softsign, L=2", renyi("2") + ["tv", "renyi_inf"]),
                         ("r=2, sigma=0.3, lo=-1, hi=1", renyi("2") + hs("0.5"))]:
        add(f"projected_chain(x0=0.5, {extra})", f"projected_chain(x0=-0.5, {extra})", specs)
    add("projected_chain(x0=1, r=10, L=0.8)", "projected_chain(x0=-1, r=10, L=0.8)", renyi("2") + ["tv", "kl"])
    # ---- double well ----
    for t in ("0.5", "1", "2"):
        add(f"double_well(x0=1, t={t})", f"double_well(x0=-1, t={t})", renyi("2") + ["tv", "kl"])
    add("double_well(x0=0.5, t=1)", "double_well(x0=-0.5, t=1)", renyi("2") + ["tv", "kl"])
    add("double_well(x0=1, t=0.5)", "double_well(x0=0.5, t=0.5)", renyi("2") + ["tv"])
    # ---- density(log_pdf=...) and convolve(a, b) ----
    add("convolve(laplace(1, 1), gaussian(0, 0.5))", "convolve(laplace(0, 1), gaussian(0, 0.5))",
        renyi("2", "3.5") + ["kl", "tv"] + hs("0.5"))
    add("convolve(laplace(0.5, 1), laplace(0, 2))", "convolve(laplace(0, 1), laplace(0, 2))", renyi("2") + ["kl", "tv"])
    add('density(log_pdf="-abs(x - 1)^1.5")', 'density(log_pdf="-abs(x)^1.5")', renyi("2") + ["kl", "tv"] + hs("0.3"))
    add('density(log_pdf="-abs(x - 1)")', 'density(log_pdf="-abs(x)")', renyi("2") + ["kl"])
    add('density(log_pdf="-(x - 0.5)^2/2", lo=-1, hi=2)', 'density(log_pdf="-x^2/2", lo=-1, hi=2)',
        renyi("2") + ["kl", "tv"])
    add('convolve(density(log_pdf="-abs(x)^1.5"), gaussian(0.3, 1))',
        'convolve(density(log_pdf="-abs(x)^1.5"), gaussian(0, 1))', renyi("2") + ["kl"])
    return R


ROWS = _rows()


def family(mu):
    head = mu.split("(")[0]
    if head in ("gaussian", "ou", "brownian", "gaussian_chain"):
        return "gaussian"
    if head in ("laplace",):
        return "laplace"
    if head in ("laplace_sum", "laplace_nfold"):
        return "laplace_sum"
    if head in ("mix", "mixture", "subsample", "binomial_mix", "shift"):
        if "base=rr" in mu:
            return "finite"
        return "mixture"
    if head in ("pmf",):
        return "pmf"
    if head in ("chain",):
        return "chain"
    if head in ("shuffled_rr",):
        return "shuffled_rr"
    if head in ("density", "convolve"):
        return "convolve_density"
    return head


def row_family(mu, nu):
    fm, fn = family(mu), family(nu)
    if "clamp" in (fm, fn):
        return "clamp"
    if "mixture" in (fm, fn):
        return "mixture"
    if fm == "finite" or fn == "finite":
        return "subsample_rr"
    return fm if fm == fn else f"{fm}/{fn}"


# ======================================================================================================
# Driver
# ======================================================================================================

_LAW_CACHE = {}


def parse_law_cached(text):
    """parse_law, cached for density()/convolve() laws (their normalisers and memoised convolution densities are
    costly) under the current number semantics, precision, inner rule and recognition."""
    if "density(" not in text and "convolve(" not in text:
        return parse_law(text)
    key = (text, NUMBER_MODE, mp.mp.dps, INNER_METHOD, RECOGNISE)
    if key not in _LAW_CACHE:
        _LAW_CACHE[key] = parse_law(text)
    return _LAW_CACHE[key]


def compute(mu, nu, quantity, order_s, mode, dps, method="tanh-sinh", want_cdf=False, recognise=True):
    """One evaluation.  Returns (value, quad_error, cdf_value, engine).  method is also the rule of the normalisers
    and convolution integrals of density()/convolve() laws; recognise=False evaluates those from the formula (no
    closed forms)."""
    global NUMBER_MODE, INNER_METHOD, RECOGNISE
    NUMBER_MODE = mode
    INNER_METHOD, RECOGNISE = method, recognise
    try:
        return _compute(mu, nu, quantity, order_s, dps, method, want_cdf)
    finally:
        INNER_METHOD, RECOGNISE = "tanh-sinh", True


def _compute(mu, nu, quantity, order_s, dps, method, want_cdf):
    with mp.workdps(dps):
        P, Q = parse_law_cached(mu), parse_law_cached(nu)
        order = num(order_s) if order_s else None
        if isinstance(P, TruncGauss) and isinstance(Q, TruncGauss) and P.s == Q.s and P.support == Q.support:
            return +closed_truncgauss(P, Q, quantity, order), mpf(0), None, "closed"
        if isinstance(P, Gaussian) and isinstance(Q, Gaussian):
            return +closed_gauss(P, Q, quantity, order), mpf(0), None, "closed"
        if isinstance(P, Laplace) and isinstance(Q, Laplace) and P.b == Q.b:
            return +closed_laplace(P, Q, quantity, order), mpf(0), None, "closed"
        if isinstance(P, Finite) and isinstance(Q, Finite):
            return +finite_quantity(P, Q, quantity, order), mpf(0), None, "finite"
        if quantity == "renyi_inf" and isinstance(P, LaplaceSum) and isinstance(Q, LaplaceSum) and \
                sorted(P.scales) == sorted(Q.scales):
            # shifts of a log-concave law: log(p/q) is monotone, its sup is the tail limit |shift| / max scale
            v = abs(P.loc - Q.loc) / max(P.scales)
            num_v = generic_quantity(P, Q, quantity, order)[0]
            assert num_v is None or num_v <= v * (1 + mpf(10) ** -20), (num_v, v)
            return v, mpf(0), None, "closed"
        v, e, c = generic_quantity(P, Q, quantity, order, method=method, want_cdf=want_cdf)
        if v is None:
            raise RuntimeError(f"unresolved renyi_inf for {mu} | {nu}")
        return v, e, c, "quadrature"


def fmt_ref(v, digits=25):
    if v == INF:
        return "inf"
    if v == 0:
        return "0"
    return mp.nstr(v, digits, min_fixed=-4, max_fixed=6)


def fmt_err(e):
    if e == 0:
        return "0"
    return mp.nstr(mpf(e), 3, min_fixed=1, max_fixed=0)


def reference_row_cd(mu, nu, quantity, order_s):
    """Rows of the density()/convolve() family: the closed-form or quadrature routes of reference_row, and for
    laws recognised from a formula also the generic route (the formula with its normaliser by quadrature)."""
    global NUMBER_MODE
    NUMBER_MODE = "decimal"
    with mp.workdps(40):
        P, Q = parse_law_cached(mu), parse_law_cached(nu)
    desc = describe_law(P) if P.kind == Q.kind else f"{describe_law(P)} vs {describe_law(Q)}"
    v1, e1, c1, engine = compute(mu, nu, quantity, order_s, "decimal", 40, want_cdf=True)
    if v1 == INF:
        return INF, mpf(0), "mu not absolutely continuous w.r.t. nu (or divergent integral)"
    if engine == "closed":
        v = compute(mu, nu, quantity, order_s, "decimal", 60)[0]
        vd = compute(mu, nu, quantity, order_s, "double", 60)[0]
        err = max(10 * abs(v - v1), abs(v - vd), mpf("1e-25") * abs(v))
        note = f"{desc}; closed form (40 vs 60 digits; double-rounded parameters"
    else:
        v = v1
        vg = compute(mu, nu, quantity, order_s, "decimal", 40, method="gauss-legendre")[0]
        vd = compute(mu, nu, quantity, order_s, "double", 30)[0]
        err = max(10 * abs(v - vg), abs(v - vd), 10 * abs(e1), mpf("1e-25") * abs(v))
        if P.kind == "gaussmix":
            note = (f"{desc}; quadrature (40 digits; tanh-sinh vs Gauss-Legendre, for the mixture's nodes in u = "
                    "sqrt|y - kink| and for the divergence")
        else:
            note = f"{desc}; quadrature (40 digits; tanh-sinh vs Gauss-Legendre"
        if c1 is not None and quantity in ("tv", "hockey_stick"):
            err = max(err, 10 * abs(v - c1))
            note += "; HS also from closed-form CDFs"
    if mu.startswith("density(") and nu.startswith("density(") and "density" not in (P.kind, Q.kind):
        vf, ef, _, _ = compute(mu, nu, quantity, order_s, "decimal", 40, recognise=False)
        err = max(err, 10 * abs(vf - v), 10 * abs(ef))
        note += "; also the formula with its normaliser by quadrature"
    note += ")"
    return v, err, note


def reference_row(mu, nu, quantity, order_s, nys_cache):
    fam = row_family(mu, nu)
    head = mu.split("(")[0]
    if fam == "convolve_density":
        return reference_row_cd(mu, nu, quantity, order_s)
    if head in ("noisy_sgd", "projected_chain"):
        global NUMBER_MODE
        NUMBER_MODE = "decimal"
        P, Q = parse_law(mu), parse_law(nu)
        v, err, levels, alt = nystrom_quantity(P, Q, quantity, float(order_s) if order_s else None, nys_cache)
        note = (f"Nystrom Gauss-Legendre propagation; levels {', '.join('%.15g' % x for x in levels)}; "
                f"alt final rule {alt:.15g}")
        return mpf(v), mpf(err), note
    if head == "double_well":
        vals = []
        for N in (80, 100):
            NUMBER_MODE = "decimal"
            with mp.workdps(30):
                P, Q = parse_law(mu).law(N), parse_law(nu).law(N)
            with mp.workdps(20):
                vals.append(generic_quantity(P, Q, quantity, mpf(order_s) if order_s else None)[0])
        v = vals[-1]
        err = max(3 * abs(vals[1] - vals[0]), mpf("1e-12") * abs(v))
        note = f"Legendre-Galerkin eigen-expansion, N=80: {mp.nstr(vals[0], 16)}, N=100: {mp.nstr(vals[1], 16)}"
        return v, err, note
    v1, e1, c1, engine = compute(mu, nu, quantity, order_s, "decimal", 40, want_cdf=True)
    if engine == "closed":
        v2 = compute(mu, nu, quantity, order_s, "decimal", 60)[0]
        vd = compute(mu, nu, quantity, order_s, "double", 60)[0]
        if v2 in (INF, 0) and v1 == v2 and vd == v2:
            return v2, mpf(0), "closed form; exact"
        err = max(10 * abs(v2 - v1), abs(v2 - vd), mpf("1e-25") * abs(v2))
        return v2, err, "closed form (40 vs 60 digits; double-rounded parameters)"
    if engine == "finite":
        v2 = compute(mu, nu, quantity, order_s, "decimal", 200)[0]
        v1 = compute(mu, nu, quantity, order_s, "decimal", 150)[0]
        vd = compute(mu, nu, quantity, order_s, "double", 150)[0]
        if v2 == INF and v1 == INF:
            return v2, mpf(0), "exact sum; mu has an atom where nu has no mass"
        if v2 == 0 and v1 == 0:
            return v2, mpf(0), "exact sum"
        err = max(10 * abs(v2 - v1), abs(v2 - vd), mpf("1e-25") * abs(v2))
        exact = "Fractions" if head in ("chain", "pmf") else "mpmath"
        return v2, err, f"exact finite sum ({exact}, 150/200 digits; double-rounded parameters)"
    # quadrature
    if v1 == INF:
        return INF, mpf(0), "mu not absolutely continuous w.r.t. nu (or divergent integral)"
    dps = 40
    if v1 != 0 and abs(v1) < mpf("1e-8"):
        dps = min(100, 40 + int(-mp.log10(abs(v1))) + 5)
        v1, e1, c1, _ = compute(mu, nu, quantity, order_s, "decimal", dps, want_cdf=True)
    vg = compute(mu, nu, quantity, order_s, "decimal", dps, method="gauss-legendre")[0]
    vd = compute(mu, nu, quantity, order_s, "double", dps - 10)[0]
    err = max(10 * abs(v1 - vg), abs(v1 - vd), 10 * abs(e1), mpf("1e-25") * abs(v1))
    note = f"quadrature ({dps} digits; tanh-sinh vs Gauss-Legendre"
    if c1 is not None and quantity in ("tv", "hockey_stick"):
        err = max(err, 10 * abs(v1 - c1))
        note += "; HS also from closed-form CDFs"
    if quantity == "renyi" and head == "mix" and nu.startswith("gaussian") and order_s.isdigit():
        # Poisson-subsampled Gaussian, integer order: binomial expansion as a further check
        NUMBER_MODE = "decimal"
        with mp.workdps(dps):
            P = parse_law(mu)
            if P.laws[0].m == 0 and P.laws[1].m == 1 and P.laws[0].s == P.laws[1].s:
                ms = mironov_poisson_gauss(P.ws[1], P.laws[0].s, int(order_s))
                err = max(err, 10 * abs(ms - v1))
                note += "; binomial expansion"
    note += ")"
    return v1, err, note


def update_table(path, rows, out):
    """Rewrites path with the recomputed rows and every other row of the existing file unchanged, byte for byte;
    every row of the table (ROWS) must be in the file or recomputed, and the file must hold no other row."""
    import io
    with open(path, newline="") as fh:
        lines = fh.read().split("\n")
    header, body = lines[0], [ln for ln in lines[1:] if ln]
    old = {}
    for ln in body:
        f = next(csv.reader([ln]))
        old[tuple(f[:4])] = ln
    new = {}
    for r in out:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(r)
        new[tuple(r[:4])] = buf.getvalue().rstrip("\n")
    keys = [(mu, nu, q, o) for mu, nu, q, o in ROWS]
    missing = [k for k in keys if k not in old and k not in new]
    extra = [k for k in old if k not in set(keys)]
    if missing or extra:
        raise SystemExit(f"--update: {len(missing)} table rows are not in {path} and {len(extra)} rows of it are not in "
                         f"the table (first: {(missing + extra)[0]}); regenerate the whole table")
    text = "\n".join([header] + [new.get(k, old.get(k)) for k in keys]) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as fh:
        fh.write(text)
    os.replace(tmp, path)
    log(f"updated {path}: {len(new)} rows recomputed, {len(keys) - len(new)} kept")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer self-checks")
    ap.add_argument("--only", default=None, help="only rows whose mu or family name (e.g. convolve_density) contains "
                    "this substring (output to stdout)")
    ap.add_argument("--update", action="store_true", help="with --only: write the selected rows, recomputed, into "
                    "--out and keep every other row of that file as it is (rows in table order)")
    ap.add_argument("--no-checks", action="store_true")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "references.csv"))
    args = ap.parse_args()
    if not args.no_checks:
        self_checks(args.quick)
    if args.update and args.only is None:
        ap.error("--update needs --only (without --only the whole table is written anyway)")
    rows = [r for r in ROWS if args.only is None or args.only in r[0] or args.only in row_family(r[0], r[1])]
    log(f"{len(rows)} rows")
    out = []
    nys_cache = {}
    timing = {}
    for k, (mu, nu, q, o) in enumerate(rows):
        t = time.time()
        v, err, note = reference_row(mu, nu, q, o, nys_cache)
        dt = time.time() - t
        fam = row_family(mu, nu)
        timing[fam] = timing.get(fam, 0) + dt
        digits = 17 if mu.split("(")[0] in ("noisy_sgd", "projected_chain", "double_well") else 25
        out.append((mu, nu, q, o, fmt_ref(v, digits), fmt_err(err), note))
        log(f"{k + 1:3d}/{len(rows)} {q:12s} {o:6s} {fmt_ref(v, digits):>32s} +- {fmt_err(err):9s} {dt:6.1f}s  {mu} | {nu}")
    if args.only is None:
        with open(args.out, "w", newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["mu", "nu", "quantity", "order", "reference", "ref_abs_error", "note"])
            w.writerows(out)
        log(f"wrote {args.out}")
    elif args.update:
        update_table(args.out, rows, out)
    log("time per family: " + ", ".join(f"{k} {v:.0f}s" for k, v in sorted(timing.items(), key=lambda x: -x[1])))
    counts = {}
    for mu, nu, q, *_ in rows:
        counts.setdefault(row_family(mu, nu), {}).setdefault(q, 0)
        counts[row_family(mu, nu)][q] += 1
    for f, c in sorted(counts.items()):
        log(f"rows {f}: {sum(c.values())} " + str(dict(sorted(c.items()))))
    log(f"self-checks passed: {sum(1 for c in SELF_CHECKS if c[1])}/{len(SELF_CHECKS)}")


if __name__ == "__main__":
    main()
