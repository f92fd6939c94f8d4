"""privamp: exact Renyi and hockey-stick divergences with honest error bars, and checks of
privacy-amplification theorems.

The functions mirror the command line (``privamp divergence``, ``privamp kernel``, ``privamp verify``,
``privamp laws``) and return the same numbers: both call the same C++ engines, and every value comes with an
interval that contains the truth. Bad input raises ``ValueError`` with the command line's message; a computation
that cannot be finished raises ``RuntimeError``. The engines release the GIL while they run.
"""

import json as _json
import math as _math
from collections import namedtuple as _namedtuple

from . import _privamp

__all__ = ["divergence", "kernel", "verify", "laws", "Estimate", "Divergences"]

Estimate = _namedtuple(
    "Estimate",
    ["quantity", "value", "lower", "upper", "log_value", "log_lower", "log_upper", "error_kind", "level",
     "method", "work", "seconds", "error"],
    defaults=("",),
)
Estimate.__doc__ = """One computed quantity: value and an interval [lower, upper] that contains the truth (at
confidence `level` for Monte Carlo), natural logs of the three (finite where the value underflows a double),
the kind of error behind the interval, the method, the work done and the time taken. `error` is empty, or says
why this quantity has no value (NaN; the call's other quantities are still computed) or which ordering it
violates together with another value of the call."""


def _number(x):
    """JSON numbers of the engines: infinities are the strings "inf"/"-inf", undefined values null."""
    if x is None:
        return _math.nan
    if isinstance(x, str):
        return float(x)
    return x


def _numbers(values, name):
    """A scalar, an iterable (list, tuple, NumPy array, range) or None, as a list of floats."""
    if values is None:
        return []
    if isinstance(values, (int, float)):
        return [float(values)]
    try:
        return [float(v) for v in values]
    except TypeError:
        raise ValueError(f"{name}: expected a number or a list of numbers, got {values!r}") from None


class Divergences(list):
    """The estimates of one `divergence` call (a list of `Estimate`), with the normalised law expressions
    `p` and `q`, the `engine`, and `arrays()` for a column form."""

    def __init__(self, records, p, q, engine):
        super().__init__(records)
        self.p, self.q, self.engine = p, q, engine

    def arrays(self):
        """Columns: a dict of NumPy arrays (value, lower, upper, log_value, log_lower, log_upper, level, seconds)
        when NumPy is available, of lists otherwise; 'quantity', 'error_kind' and 'method' stay lists."""
        numeric = ["value", "lower", "upper", "log_value", "log_lower", "log_upper", "level", "seconds"]
        columns = {name: [getattr(r, name) for r in self] for name in Estimate._fields}
        try:
            import numpy as np
        except ImportError:
            return columns
        for name in numeric:
            columns[name] = np.asarray(columns[name], dtype=float)
        return columns


def divergence(mu, nu, renyi=None, hockey_stick=None, kl=False, tv=False, engine="auto", rel_tol=1e-13,
               samples=1_000_000, seed=1, level=0.99):
    """Divergences D(mu || nu) between two law expressions (see `laws()`), like ``privamp divergence``.

    renyi: orders alpha > 1 (float('inf') for R_inf); hockey_stick: epsilons >= 0 (scalars, lists or NumPy
    arrays); kl, tv: flags. engine: auto | closed | sum | quadrature | gsl | mc | certified. Returns `Divergences`, a list
    of `Estimate` in the order renyi, hockey_stick, kl, tv."""
    text = _privamp.divergence_json(str(mu), str(nu), _numbers(renyi, "renyi"),
                                    _numbers(hockey_stick, "hockey_stick"), bool(kl), bool(tv), str(engine),
                                    float(rel_tol), int(samples), int(seed), float(level))
    out = _json.loads(text)
    records = [
        Estimate(r["quantity"], _number(r["value"]), _number(r["lower"]), _number(r["upper"]),
                 _number(r["log_value"]), _number(r["log_lower"]), _number(r["log_upper"]), r["error_kind"],
                 r["level"], r["method"], r["work"], r["seconds"], r.get("error", ""))
        for r in out["results"]
    ]
    return Divergences(records, out["p"], out["q"], out["engine"])


def kernel(K, eps=None, dp=None, eps_prime=None, renyi=None):
    """Mixing coefficients of a finite Markov kernel K (rows: nested lists or a 2-D NumPy array, each row a
    probability vector) and, with dp=(eps, delta), its exact worst-case amplification of (eps, delta)-DP
    mechanisms at eps_prime (with the maximising map and Theorem 1's four bounds) and the worst-case Renyi
    divergence at the orders renyi, like ``privamp kernel --json``. Returns that JSON object as a dict."""
    try:
        rows = [[float(v) for v in row] for row in K]
    except TypeError:
        raise ValueError("K: expected a list of rows (a square matrix)") from None
    text = _privamp.kernel_json(_json.dumps(rows), _numbers(eps, "eps"), _numbers(dp, "dp"),
                                _numbers(eps_prime, "eps_prime"), _numbers(renyi, "renyi"))
    return _json.loads(text, parse_constant=float)


def verify(files, only=None, jobs=0):
    """Runs the theorem catalogue over case files or directories, like ``privamp verify``.

    Returns (rows, summary): rows is a list of dicts, one per point and theorem ID, as in results.json
    (``pandas.DataFrame(rows)`` makes a table of it); summary is the printed table per theorem."""
    if isinstance(files, str):
        files = [files]
    if isinstance(only, str):
        only = [s for s in only.split(",") if s]
    rows_text, summary, _violated, _errors = _privamp.verify_json([str(f) for f in files], list(only or []),
                                                                  int(jobs))
    return _json.loads(rows_text), summary


def laws():
    """The law catalogue: a list of dicts with name, summary, example and params (name, kind, default, doc)."""
    return _json.loads(_privamp.laws_json())
