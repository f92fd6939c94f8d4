#!/usr/bin/env python3
"""High-precision references for Renyi divergences and KL between the laws of two-step projected
Gaussian chains (run: python3 tests/reference/chain_references.py [--jobs N] [--cases A,B]; needs mpmath).

The chain.  On [lo, hi]:  X_0 = x0,  X_t = clip(psi_t(X_{t-1}) + s*Z_t, lo, hi),  Z_t iid N(0, 1).
The law of X_T is an atom at lo, an atom at hi and a density on (lo, hi).  For T = 2, with m = psi_1(x0):
    X_1:  density f1(x) = phi_s(x - m) on (lo, hi),  atoms A_lo = Phi((lo - m)/s),  A_hi = 1 - Phi((hi - m)/s)
    X_2:  density f2(y) = A_lo phi_s(y - psi_2(lo)) + A_hi phi_s(y - psi_2(hi)) + int_lo^hi f1(x) phi_s(y - psi_2(x)) dx
          atom at lo:  A_lo Phi((lo - psi_2(lo))/s) + A_hi Phi((lo - psi_2(hi))/s) + int f1(x) Phi((lo - psi_2(x))/s) dx
          atom at hi:  the same with 1 - Phi((hi - .)/s)
(phi_s is the N(0, s^2) density, Phi the standard normal cdf, evaluated through erfc to avoid cancellation).
For two chains mu, nu on the same [lo, hi] and s, in the direction mu || nu:
    R_a(mu||nu) = log( sum_atoms mu(a)^a nu(a)^(1-a) + int_lo^hi f_mu^a f_nu^(1-a) dy ) / (a - 1)   (a = 2, 8)
    KL(mu||nu)  = sum_atoms mu(a) log(mu(a)/nu(a)) + int_lo^hi f_mu log(f_mu/f_nu) dy.

How.  mpmath quadrature (mp.quad) for the outer integral over y and for the inner integral over x that
defines f2(y); f2 is memoised, so the outer integrands (mass, R_2, R_8, KL) share their nodes.  mp.quad
stops on an absolute error, so every integrand is first divided by its largest value at the split points
(rquad), which turns the tolerance into a relative one (f_nu is small where R_8's integrand is large).
The inner interval is split at lo, hi, the peak m of f1 and m +- k s, at x* = psi_2^{-1}(y) (the peak of
phi_s(y - psi_2(x))) and x* +- k s/psi_2'(x*), and at the kinks of psi_2 (0 for softsign); the atom
integrals are split in the same way around psi_2^{-1}(lo) and psi_2^{-1}(hi).  The outer interval is cut
into n equal pieces and further split at psi_2(lo), psi_2(hi), psi_2(m) +- 2s of both chains (the peaks of
f2).  f2 is analytic in y on (lo, hi), and every inner integrand is analytic on each inner piece.
Each case is computed twice, independently (see CONFIGS):
    run 0: dps 40, 60 outer pieces, inner offsets k = 3, 6,      inner rule tanh-sinh
    run 1: dps 50, 47 outer pieces, inner offsets k = 2, 4.5, 8, inner rule Gauss-Legendre
(outer rule Gauss-Legendre in both).  The reported values are run 1's, to 25 significant digits;
digits_agreeing is the smallest number of agreeing significant digits of the two runs over R_2, R_8, KL
(capped at 40).  For the linear maps (cases C, D) a third run uses the closed form of f2 (Gaussian product,
erf) with the tanh-sinh outer rule, and its agreement with run 1 is reported too.  Self-checks, stored
under "checks": total mass (atoms + int f2) minus 1 for each chain, the largest outer quadrature error
estimate (relative), the atoms, and for C, D the quadrature f2 against the closed form at sample points.
Writes chain_references.json next to this script.
"""
import argparse
import json
import os
import sys
import time
from multiprocessing import Pool

from mpmath import mp, mpf

# ----------------------------------------------------------------------------------------------- cases
# Each map is given as (psi(x), psi^{-1}(y) or None outside the range, kinks of psi); constants are built
# from strings inside the functions so that they carry the working precision.

def tanh_map(c):
    def psi(x): return mpf(c) * mp.tanh(x)
    def inv(y):
        r = y / mpf(c)
        return mp.atanh(r) if abs(r) < 1 else None
    return psi, inv, []

def sin_map():
    # only used on [-1, 1], where sin is increasing
    def psi(x): return mp.sin(x)
    def inv(y): return mp.asin(y) if abs(y) <= 1 else None
    return psi, inv, []

def affine_map(a, b):
    def psi(x): return mpf(a) * x + mpf(b)
    def inv(y): return (y - mpf(b)) / mpf(a)
    return psi, inv, []

def softsign_map():
    def psi(x): return x / (1 + abs(x))
    def inv(y): return y / (1 - abs(y)) if abs(y) < 1 else None
    return psi, inv, [mpf(0)]

# SGD with quadratic loss (lambda = 1), step eta = 0.5:  psi_t(x) = x - eta*(x - z_t) = 0.5 x + 0.5 z_t.
def sgd_map(z): return affine_map('0.5', str(mpf('0.5') * mpf(z)))

CASES = [
    dict(name='A', lo='-3', hi='3', s='0.5', map='0.9*tanh(x)', x0_mu='0.5', x0_nu='-0.5',
         maps_mu=lambda: [tanh_map('0.9')] * 2, maps_nu=lambda: [tanh_map('0.9')] * 2),
    dict(name='B', lo='-1', hi='1', s='0.3', map='sin(x)', x0_mu='0.3', x0_nu='-0.3',
         maps_mu=lambda: [sin_map()] * 2, maps_nu=lambda: [sin_map()] * 2),
    dict(name='C', lo='-1', hi='1', s='0.5',
         map='noisy SGD, quadratic loss lambda=1, eta=0.5, sigma=1: x - 0.5*(x - z_t) = 0.5*x + 0.5*z_t',
         x0_mu='0', x0_nu='0', z_mu=['1', '0'], z_nu=['-1', '0'],
         maps_mu=lambda: [sgd_map('1'), sgd_map('0')], maps_nu=lambda: [sgd_map('-1'), sgd_map('0')],
         linear=dict(a='0.5', b='0')),
    dict(name='D', lo='-1', hi='1', s='0.2', map='3*x (expansive)', x0_mu='0.1', x0_nu='-0.1',
         maps_mu=lambda: [affine_map('3', '0')] * 2, maps_nu=lambda: [affine_map('3', '0')] * 2,
         linear=dict(a='3', b='0')),
    dict(name='E', lo='-2', hi='2', s='0.4', map='x/(1+|x|) (softsign)', x0_mu='0.7', x0_nu='-0.2',
         maps_mu=lambda: [softsign_map()] * 2, maps_nu=lambda: [softsign_map()] * 2),
]

# Two independent runs per case: different precision, outer and inner splittings and inner quadrature rule.
# The outer rule is Gauss-Legendre in both (on short pieces of an analytic integrand it needs ~6x fewer
# nodes than tanh-sinh, and every outer node costs an inner quadrature); the tanh-sinh outer rule is used
# by the closed-form check of the linear cases.
CONFIGS = [dict(dps=40, outer=60, inner_k=(3, 6), outer_method='gauss-legendre', inner_method='tanh-sinh'),
           dict(dps=50, outer=47, inner_k=(2, 4.5, 8), outer_method='gauss-legendre',
                inner_method='gauss-legendre')]
CLOSED_FORM_CONFIG = dict(dps=40, outer=60, inner_k=(3,), outer_method='tanh-sinh', inner_method='tanh-sinh')

# ------------------------------------------------------------------------------------------ the chain

def rquad(f, pts, method):
    """mp.quad with a relative tolerance: mp.quad stops on an absolute error of about 10^-dps, so the
    integrand is first divided by its largest value at the split points (which include its peaks)."""
    scale = max(abs(f(p)) for p in pts)
    if scale == 0:
        return mpf(0), mpf(0)
    v, e = mp.quad(lambda x: f(x) / scale, pts, error=True, method=method)
    return v * scale, e * scale


def Phi(z): return mp.erfc(-z / mp.sqrt(2)) / 2          # P(Z <= z)
def Phi_up(z): return mp.erfc(z / mp.sqrt(2)) / 2        # P(Z > z)


class TwoStepChain:
    def __init__(self, x0, maps, lo, hi, s, inner_k=(), inner_method='tanh-sinh', linear=None):
        (psi1, _, _), (psi2, inv2, kinks2) = maps
        self.lo, self.hi, self.s = lo, hi, s
        self.psi2, self.inv2, self.kinks2 = psi2, inv2, kinks2
        self.inner_k, self.inner_method, self.linear = inner_k, inner_method, linear
        self.m = psi1(x0)
        self.c = 1 / (s * mp.sqrt(2 * mp.pi))
        self.A_lo = Phi((lo - self.m) / s)
        self.A_hi = Phi_up((hi - self.m) / s)
        self.cache = {}

    def phi_s(self, u): return self.c * mp.exp(-(u / self.s) ** 2 / 2)

    def f1(self, x): return self.phi_s(x - self.m)

    def dpsi2(self, x):
        h = mpf(10) ** (-12)
        return (self.psi2(x + h) - self.psi2(x - h)) / (2 * h)

    def inner_points(self, targets):
        """Split points in x: lo, hi, peak of f1, psi_2^{-1}(target) for each target, kinks."""
        lo, hi, s = self.lo, self.hi, self.s
        pts = [lo, hi, self.m] + list(self.kinks2)
        for k in self.inner_k:
            pts += [self.m - k * s, self.m + k * s]
        for t in targets:
            xs = self.inv2(t)
            if xs is None or not (lo < xs < hi):
                continue
            d = abs(self.dpsi2(xs))
            w = s / d if d > s / (hi - lo) else hi - lo
            pts.append(xs)
            for k in self.inner_k:
                pts += [xs - k * w, xs + k * w]
        return sorted(set(p for p in pts if lo <= p <= hi))

    def f2(self, y):
        v = self.cache.get(y)
        if v is None:
            psi2, lo, hi = self.psi2, self.lo, self.hi
            m, s2, c2 = self.m, 2 * self.s ** 2, self.c ** 2
            if self.linear is None:
                cont = rquad(lambda x: c2 * mp.exp(-((x - m) ** 2 + (y - psi2(x)) ** 2) / s2),
                             self.inner_points([y]), self.inner_method)[0]
            else:
                cont = self.cont_linear_closed_form(y, *self.linear)
            v = self.A_lo * self.phi_s(y - psi2(lo)) + self.A_hi * self.phi_s(y - psi2(hi)) + cont
            self.cache[y] = v
        return v

    def atoms2(self):
        psi2, lo, hi, s = self.psi2, self.lo, self.hi, self.s
        pts = self.inner_points([lo, hi])
        a_lo = (self.A_lo * Phi((lo - psi2(lo)) / s) + self.A_hi * Phi((lo - psi2(hi)) / s)
                + rquad(lambda x: self.f1(x) * Phi((lo - psi2(x)) / s), pts, self.inner_method)[0])
        a_hi = (self.A_lo * Phi_up((hi - psi2(lo)) / s) + self.A_hi * Phi_up((hi - psi2(hi)) / s)
                + rquad(lambda x: self.f1(x) * Phi_up((hi - psi2(x)) / s), pts, self.inner_method)[0])
        return a_lo, a_hi

    def cont_linear_closed_form(self, y, a, b):
        """int_lo^hi f1(x) phi_s(y - a x - b) dx in closed form (Gaussian product, erf)."""
        s, lo, hi, m = self.s, self.lo, self.hi, self.m
        u = y - b
        tau = s / mp.sqrt(1 + a * a)
        cc = (m + a * u) / (1 + a * a)
        return (mp.exp(-(u - a * m) ** 2 / (2 * s * s * (1 + a * a))) / (2 * mp.pi * s * s)
                * tau * mp.sqrt(2 * mp.pi) * (Phi((hi - cc) / tau) - Phi((lo - cc) / tau)))


def digits(a, b, cap):
    """Number of agreeing significant digits of a and b (at most cap)."""
    if a == b:
        return cap
    return min(cap, int(mp.floor(-mp.log10(abs(a - b) / abs(b)))))


def compute(name, cfg, closed_form=False):
    """R_2, R_8, KL (mu||nu) for one case under one configuration.  closed_form: use the closed-form
    f2 of a linear psi_2 (only the atoms then need an inner quadrature)."""
    case = next(c for c in CASES if c['name'] == name)
    mp.dps = cfg['dps']
    t0 = time.time()
    lo, hi, s = mpf(case['lo']), mpf(case['hi']), mpf(case['s'])
    linear = (mpf(case['linear']['a']), mpf(case['linear']['b'])) if closed_form else None
    mu, nu = (TwoStepChain(mpf(case['x0_' + t]), case['maps_' + t](), lo, hi, s, cfg['inner_k'],
                           cfg['inner_method'], linear) for t in ('mu', 'nu'))

    # outer split points: n equal pieces, plus the peaks psi_2(lo), psi_2(hi), psi_2(m) of both f2's +- 2s
    n = cfg['outer']
    pts = [lo + (hi - lo) * i / n for i in range(n + 1)]
    for ch in (mu, nu):
        for c in (ch.psi2(lo), ch.psi2(hi), ch.psi2(ch.m)):
            for k in (0, -2, 2):
                pts.append(c + k * s)
    pts = sorted(set(p for p in pts if lo <= p <= hi))

    (mlo, mhi), (nlo, nhi) = mu.atoms2(), nu.atoms2()
    out = dict(name=name, dps=cfg['dps'], outer_pieces=len(pts) - 1, closed_form=closed_form)
    errs = []

    def Q(f):
        v, e = rquad(f, pts, cfg['outer_method'])
        errs.append(e / abs(v))
        return v

    for ch, a_lo, a_hi, tag in ((mu, mlo, mhi, 'mu'), (nu, nlo, nhi, 'nu')):
        out['mass_error_' + tag] = mp.nstr(a_lo + a_hi + Q(ch.f2) - 1, 3)
    for alpha in (2, 8):
        al = mpf(alpha)
        I = (mlo ** al * nlo ** (1 - al) + mhi ** al * nhi ** (1 - al)
             + Q(lambda y: mu.f2(y) ** al * nu.f2(y) ** (1 - al)))
        out['renyi%d' % alpha] = mp.log(I) / (al - 1)
    out['kl'] = (mlo * mp.log(mlo / nlo) + mhi * mp.log(mhi / nhi)
                 + Q(lambda y: mu.f2(y) * mp.log(mu.f2(y) / nu.f2(y))))
    out['atoms_mu'] = [mp.nstr(mlo, 20), mp.nstr(mhi, 20)]
    out['atoms_nu'] = [mp.nstr(nlo, 20), mp.nstr(nhi, 20)]
    out['max_outer_rel_error_estimate'] = mp.nstr(max(errs), 3)

    if 'linear' in case and not closed_form:   # quadrature f2 against the closed form at a few points
        a, b = mpf(case['linear']['a']), mpf(case['linear']['b'])
        worst = mpf(0)
        for ch in (mu, nu):
            for i in range(1, 12):
                y = lo + (hi - lo) * mpf(i) / 12 + mpf('0.0123')
                exact = (ch.A_lo * ch.phi_s(y - ch.psi2(lo)) + ch.A_hi * ch.phi_s(y - ch.psi2(hi))
                         + ch.cont_linear_closed_form(y, a, b))
                worst = max(worst, abs(ch.f2(y) - exact) / exact)
        out['f2_closed_form_rel_error'] = mp.nstr(worst, 3)

    out['f2_evaluations'] = len(mu.cache) + len(nu.cache)
    out['seconds'] = round(time.time() - t0, 1)
    for k in ('renyi2', 'renyi8', 'kl'):
        out[k] = mp.nstr(out[k], cfg['dps'])      # full-precision strings, to compare runs
    return out


def run(job):
    name, key = job
    r = compute(name, CLOSED_FORM_CONFIG if key == 'closed' else CONFIGS[key], key == 'closed')
    r['run'] = key
    print('case %s run %s (dps %d): %.1f s, R2 %s, R8 %s, KL %s' % (
        name, key, r['dps'], r['seconds'], r['renyi2'][:32], r['renyi8'][:32], r['kl'][:32]), flush=True)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--jobs', type=int, default=1, help='parallel processes')
    ap.add_argument('--cases', default=','.join(c['name'] for c in CASES))
    ap.add_argument('--out', default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   'chain_references.json'))
    args = ap.parse_args()
    names = args.cases.split(',')
    jobs = [(n, i) for i in range(len(CONFIGS)) for n in names]
    jobs += [(n, 'closed') for n in names if 'linear' in next(c for c in CASES if c['name'] == n)]
    t0 = time.time()
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            results = pool.map(run, jobs, chunksize=1)
    else:
        results = [run(j) for j in jobs]
    res = {(r['name'], r['run']): r for r in results}

    mp.dps = 60
    cap = min(c['dps'] for c in CONFIGS)
    qs = ('renyi2', 'renyi8', 'kl')
    cases = []
    for n in names:
        case = next(c for c in CASES if c['name'] == n)
        r1, r2 = res[(n, 0)], res[(n, 1)]
        agree = {k: digits(mpf(r1[k]), mpf(r2[k]), cap) for k in qs}
        entry = dict(name=n, lo=float(case['lo']), hi=float(case['hi']), s=float(case['s']), steps=2,
                     map=case['map'], x0_mu=float(case['x0_mu']), x0_nu=float(case['x0_nu']))
        if 'z_mu' in case:
            entry.update(z_mu=[float(z) for z in case['z_mu']], z_nu=[float(z) for z in case['z_nu']])
        for k in qs:
            entry[k] = mp.nstr(mpf(r2[k]), 25)
        entry['digits_agreeing'] = min(agree.values())
        entry['digits_agreeing_each'] = agree
        if (n, 'closed') in res:
            rc = res[(n, 'closed')]
            entry['digits_agreeing_closed_form_f2'] = {k: digits(mpf(rc[k]), mpf(r2[k]), cap) for k in qs}
        entry['checks'] = {k: r2[k] for k in r2
                           if k.startswith(('mass_error', 'f2_closed_form', 'max_outer', 'atoms'))}
        cases.append(entry)
        print('%s  R2 %s  R8 %s  KL %s  digits %s %s' % (n, entry['renyi2'], entry['renyi8'], entry['kl'], agree,
                                                      entry.get('digits_agreeing_closed_form_f2', '')))
    # Merge into an existing file: cases not recomputed are kept, and fields of a recomputed case that this
    # script does not produce (added by hand, e.g. the law specifications of a test) are carried over.
    old = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            old = {c['name']: c for c in json.load(f).get('cases', [])}
    for entry in cases:
        for k, v in old.get(entry['name'], {}).items():
            entry.setdefault(k, v)
    merged = {c['name']: c for c in cases}
    order = [c['name'] for c in CASES] + sorted(n for n in old if n not in {c['name'] for c in CASES})
    cases = [merged.get(n, old.get(n)) for n in order if n in merged or n in old]
    with open(args.out, 'w') as f:
        json.dump({'description': 'Renyi (alpha = 2, 8) and KL divergences mu||nu between the laws of X_2 of '
                                  'two projected Gaussian chains; see chain_references.py',
                   'cases': cases}, f, indent=1)
        f.write('\n')
    print('total %.1f s' % (time.time() - t0), file=sys.stderr)


if __name__ == '__main__':
    main()
