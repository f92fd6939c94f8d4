"""privamp: exact Renyi and hockey-stick divergences with honest error bars, and checks of
privacy-amplification theorems.

The functions mirror the command line (``privamp divergence``, ``privamp kernel``, ``privamp verify``,
``privamp explore``, ``privamp laws``) and return the same numbers: both call the same C++ engines, and every
value comes with an interval that contains the truth. Results cross from C++ as Python objects (floats,
infinities as ``float('inf')``), never as text. Bad input raises ``ValueError`` with the command line's message; a computation
that cannot be finished raises ``RuntimeError``. The engines release the GIL while they run.
"""

import math as _math
import numbers as _numbers_module
import os as _os
import pathlib as _pathlib
import re as _re
import shutil as _shutil
import subprocess as _subprocess
import time as _time
import warnings as _warnings
from collections import namedtuple as _namedtuple

from . import _privamp

__all__ = ["ArgumentTypeError", "divergence", "privacy_profile", "epsilon", "dpsgd", "calibrate", "Accountant", "GaussianEvent", "LaplaceEvent",
           "RandomizedResponseEvent", "PoissonSampledEvent", "SelfComposedEvent", "ComposedEvent", "LawEvent",
           "Calibration", "Estimates", "Table", "kernel", "verify", "explore", "figures", "laws", "data_dir",
           "Estimate", "Divergences", "ProfilePoint", "VerifyResult", "Search", "FiguresResult", "__version__"]

__version__ = _privamp.__version__

# The fields of an estimate are those of the C++ library's one list (value, lower, upper, their logs, error_kind,
# level, method, work, seconds, the two parts of a discretised estimate's error bar, the error budget and whether
# only the upper end is known), between the quantity and the error.
_ESTIMATE_FIELDS = _privamp.estimate_fields()
Estimate = _namedtuple("Estimate", ["quantity"] + [name for name, _, _ in _ESTIMATE_FIELDS] + ["error"], defaults=("",))
_ESTIMATE_ABSENT = {name: 0.0 for name, _, always in _ESTIMATE_FIELDS if not always}  # written for some estimates only


def _estimate(record):
    record = {name: value for name, value in record.items() if name != "delta"}  # eps(delta): in its quantity's label
    return Estimate(**{**_ESTIMATE_ABSENT, **record})
Estimate.__doc__ = """One computed quantity: value and an interval [lower, upper] that contains the truth (at
confidence `level` for Monte Carlo), natural logs of the three (finite where the value underflows a double;
value and its log NaN where only the upper end is known, as a certified interval from 0, `bounded_above_only` True),
the kind of error behind the interval, the method, the work done and the time taken, and for a discretised law
the two parts of its error bar (numerical_error, discretisation_error; 0 otherwise). `error` is empty, or says
why this quantity has no value (NaN; the call's other quantities are still computed) or which ordering it
violates together with another value of the call."""


_MAX_VALUES = 10000  # as a divergence call: at most 10,000 quantities


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (None, a string or bytes where a number goes, a set where an ordered list goes,
    a float where an integer goes). A TypeError, as Python's convention asks, and also a ValueError, which earlier
    versions raised: code catching either keeps working."""

_PACKAGE = _pathlib.Path(__file__).resolve().parent


def data_dir():
    """The catalogue shipped with the package: a folder with ``cases/`` (the case files and their golden results in
    ``cases/expected``) and ``plots/figures.toml`` (the paper figures). `verify`, `explore` and `figures` find it
    when a name they are given does not exist in the current folder."""
    return _PACKAGE / "data"


def _shipped(path):
    """A path as given when it exists; else the same relative path in the shipped catalogue when it is there."""
    given = _pathlib.Path(str(path))
    if given.exists() or given.is_absolute():
        return str(path)  # as written: rows name their file as the command line would
    shipped = data_dir() / given
    return str(shipped) if shipped.exists() else str(given)


_THEOREM_ID = _re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$")


def _command():
    """The privamp command of this installation (the package's bin/privamp), else the one on PATH."""
    packaged = _PACKAGE / "bin" / "privamp"
    if packaged.is_file() and _os.access(packaged, _os.X_OK):
        return str(packaged)
    found = _shutil.which("privamp")
    if found is None:
        raise RuntimeError("the privamp command is not part of this installation and not on PATH "
                           "(pip install . ships it; a CMake build has it at build/privamp)")
    return found


def _number(v, name, subnormal=False):
    """One value as a float: ValueError naming the parameter (never OverflowError) for what a double cannot hold, and
    for what is not a number (a bool, a string, bytes: typed strictly, as the command line's parser is). Subnormal
    values (0 < |x| < 2.2e-308) are refused as the command line's options refuse them, unless `subnormal` (a law's
    parameter, which law expressions accept)."""
    numeric_array = hasattr(v, "dtype") and getattr(v, "ndim", 1) == 0 and v.dtype.kind in "iuf"
    if not (isinstance(v, _numbers_module.Real) and not isinstance(v, bool) and type(v).__name__ != "bool_") \
            and not numeric_array:
        # None, bool, str, bytes, complex, arrays of strings or of more than one value: not read as a number
        raise ArgumentTypeError(f"{name}: expected a number, got {type(v).__name__} {_short(v)}")
    try:
        x = float(v)
    except OverflowError:
        text = repr(v) if len(repr(v)) <= 24 else f"{repr(v)[:12]}... ({len(repr(v))} digits)"
        raise ValueError(f"{name}: {text} is out of the range of doubles (allowed: |x| < 1.8e308)") from None
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{name}: expected a number, got {v!r}") from None
    if x != x:  # (as the command line says it: NaN is no value of any parameter)
        raise ValueError(f"{name}: nan is not a number")
    if x == 0 and v != 0:  # (Fraction(1, 10**400) and other exact values below the doubles round to 0)
        raise ValueError(f"{name}: {_short(v)} is out of the range of doubles (allowed: |x| <= 1.8e308, and 0 or |x| >= "
                         f"{'4.9e-324' if subnormal else '2.2e-308'})")
    if not subnormal and x != 0 and abs(x) < 2.2250738585072014e-308:
        raise ValueError(f"{name}: {x!r} is out of the range of doubles (allowed: |x| <= 1.8e308, and 0 or |x| >= 2.2e-308)")
    return x + 0.0  # (-0.0 is 0: eps=-0.0 came back as -0.0)


def _numbers(values, name):
    """A scalar, an ordered collection (list, tuple, range, NumPy array) or None, as a list of floats. Its length is
    checked before it is materialised (range(2, 10**9) is refused at once); values a double cannot hold are a
    ValueError naming the parameter. Sets, dicts and one-shot iterators (generators) are refused: their order, or
    their length, is not known before they are read."""
    if values is None:
        return []
    if (isinstance(values, _numbers_module.Real) and not isinstance(values, bool)) or getattr(values, "ndim", 1) == 0:
        return [_number(values, name)]
    ordered = isinstance(values, (list, tuple, range)) or (hasattr(values, "__array__") and hasattr(values, "__len__"))
    if not ordered:
        raise ArgumentTypeError(f"{name}: expected a number or an ordered list of numbers (list, tuple, range, NumPy "
                                f"array), got {type(values).__name__} {_short(values)}")
    try:
        n = len(values)
    except OverflowError:  # a range of 2^63 values or more, which len() cannot count
        n = abs(values.stop - values.start) // abs(values.step) if isinstance(values, range) else _MAX_VALUES + 1
    if n > _MAX_VALUES:
        raise ValueError(f"{name}: {n} values; at most {_MAX_VALUES} in one call")
    return [_number(v, name) for v in values]


def _required(value, name):
    """value, unless it is None (a number or a list is required here)."""
    if value is None:
        raise ArgumentTypeError(f"{name}: expected a number or a list of numbers, got None")
    return value


def _path(value, name, default=""):
    """An output path: None (the default), a str or an os.PathLike; anything else (3, True, b'c') is refused before
    any work (it was once made a folder named '3')."""
    if value is None:
        return default
    if isinstance(value, (str, _os.PathLike)) and not isinstance(value, bytes):
        text = _os.fspath(value)
        if isinstance(text, str):
            if not text:
                raise ValueError(f"{name}: an empty path (give a path, or leave the argument out)")
            if "\x00" in text:  # (the system ends a path at a NUL: 'out\x00/etc' made the folder 'out')
                raise ValueError(f"{name}: a path cannot hold a NUL character (at index {text.index(chr(0))})")
            return _unicode(text, name)
    raise ArgumentTypeError(f"{name}: expected a path (a str or os.PathLike), got {type(value).__name__} {_short(value)}")


def _optional_text(value, name):
    """None (as "") or a str."""
    return "" if value is None else _text(value, name)


def _short(value):
    """repr(value) in at most 60 characters, with bounded work: reprlib cuts long and deeply nested containers (a
    list nested 300,000 deep raised RecursionError while its plain repr was being built for this message)."""
    import reprlib
    shorter = reprlib.Repr()
    shorter.maxlevel, shorter.maxlist, shorter.maxtuple, shorter.maxdict, shorter.maxstring, shorter.maxother = 4, 6, 6, 4, 50, 50
    text = shorter.repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Table(list):
    """A list of records (named tuples or dicts) that is also a table: `arrays()` gives its columns (NumPy arrays for
    the numeric ones when NumPy is installed, lists otherwise) and `to_pandas()` a pandas DataFrame (when pandas is
    installed: Debian's python3-pandas, or pip). Every result list of the package is one."""

    def _names(self):
        names = []
        for record in self:
            for name in (record._fields if hasattr(record, "_fields") else record.keys()):
                if name not in names:
                    names.append(name)
        return names

    def columns(self):
        """The columns as lists, in the records' field order (a dict's missing key is None)."""
        get = (lambda r, n: getattr(r, n)) if self and hasattr(self[0], "_fields") else (lambda r, n: r.get(n))
        return {name: [get(r, name) for r in self] for name in self._names()}

    def arrays(self):
        """The columns: NumPy float arrays for the numeric ones (None as NaN) when NumPy is installed, lists otherwise."""
        columns = self.columns()
        try:
            import numpy as np
        except ImportError:
            return columns
        for name, values in columns.items():
            if values and all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in values) \
                    and any(v is not None for v in values):
                columns[name] = np.asarray([_math.nan if v is None else v for v in values], dtype=float)
        return columns

    def to_pandas(self):
        """A pandas DataFrame with one row per record and the columns of `arrays()`."""
        try:
            import pandas
        except ImportError:
            raise ImportError("to_pandas() needs pandas (Debian: apt install python3-pandas; or pip install pandas)") from None
        return pandas.DataFrame(self.arrays(), columns=self._names())

    def plot(self, x=None, y=None, ax=None, logy=None, label=None, **style):
        """Draws the table with matplotlib (Debian's python3-matplotlib) and returns the Axes: `y` against `x`, with
        the interval [lower, upper] as a band when the records have one (on a log axis, an interval reaching 0 as an
        open down-triangle at its upper end, and no value there: bounded above only). Defaults: a privacy profile draws delta
        against eps on a log axis; estimates of one call (hockey_stick(E), renyi(A), epsilon(D)) their value against
        the number in the quantity's label; other tables need x and y (column names). The legend names the interval
        kinds drawn (exact, certified, a-posteriori, ...), as every privamp output does."""
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("plot() needs matplotlib (Debian: apt install python3-matplotlib; or pip install matplotlib)") from None
        if not self:
            raise ValueError("plot(): an empty table has nothing to draw")
        columns = self.columns()
        names = list(columns)
        if x is None and y is None and "eps" in names and "delta" in names:
            x, y, logy = "eps", "delta", True if logy is None else logy
        elif x is None and y is None and "quantity" in names and "value" in names:
            labels = columns["quantity"]
            numbers = [_re.search(r"\(([^()]*)\)\s*$", str(q)) for q in labels]
            if not all(numbers):
                raise ValueError("plot(): these estimates have no number in their quantities; give x and y")
            kind = str(labels[0]).split("(")[0]
            others = sorted({str(q).split("(")[0] for q in labels} - {kind})
            if others:  # (a Renyi order and hockey-stick epsilons had been joined into one curve on an axis "alpha")
                raise ValueError(f"plot(): these estimates are of different quantities ({', '.join([kind] + others)}): "
                                 "plot one kind at a time, or give x and y")
            x = {"hockey_stick": "epsilon", "renyi": "alpha", "epsilon": "delta"}.get(kind, "parameter")
            columns = dict(columns, **{x: [float(m.group(1).split("=")[-1]) for m in numbers]})
            y = "value"
            logy = (str(labels[0]).startswith("hockey_stick") if logy is None else logy)
        if x is None or y is None:
            raise ValueError(f"plot(): give x and y, two of the columns {names}")
        for name in (x, y):
            if name not in columns:
                raise ValueError(f"plot(): no column {name!r} (columns: {names})")
        if ax is None:
            ax = plt.figure(figsize=(3.4, 2.4), layout="constrained").gca()  # one column of a two-column paper
        xs = [_math.nan if v is None else float(v) for v in columns[x]]
        ys = [_math.nan if v is None else float(v) for v in columns[y]]
        kinds = sorted({str(k) for k in columns.get("error_kind", []) if k})
        name = label or (y if not kinds else f"{y} ({', '.join(kinds)})")
        banded = y in ("value", "delta") and "lower" in columns and "upper" in columns
        lo = [_math.nan if v is None else float(v) for v in columns["lower"]] if banded else []
        hi = [_math.nan if v is None else float(v) for v in columns["upper"]] if banded else []
        # On a log axis an interval reaching 0 has no lower end: no band and no value there (the estimate inside
        # [0, upper] is not a certified value) but an upper limit, an open down-triangle at its upper end, as the
        # shipped figures draw it.
        # A value whose lower end is known only by its log (below the double range, where lower is 0 and upper a
        # subnormal or 0) cannot be placed on the axis: it is not drawn (nor called bounded above only, which it is
        # not), and the legend counts it.
        log_lower = columns.get("log_lower", [])
        below = {i for i, v in enumerate(log_lower) if banded and v is not None and _math.isfinite(v) and not lo[i] > 0}
        limits = [i for i, (l, h) in enumerate(zip(lo, hi)) if logy and not l > 0 and h > 0 and i not in below]
        line, = ax.plot(xs, [_math.nan if i in limits or i in below else v for i, v in enumerate(ys)], marker="o",
                        markersize=2.5, linewidth=1, label=name, **style)
        if banded:
            band_lo = [_math.nan if i in limits or i in below else v for i, v in enumerate(lo)]
            band_hi = [_math.nan if i in below else v for i, v in enumerate(hi)]
            ax.fill_between(xs, band_lo, band_hi, color=line.get_color(), alpha=0.25, linewidth=0, label="interval")
            if limits:
                ax.plot([xs[i] for i in limits], [hi[i] for i in limits], linestyle="none", marker="v", markersize=4,
                        markerfacecolor="none", color=line.get_color(), label="bounded above only")
        if below:
            ax.plot([], [], linestyle="none", label=f"{len(below)} below the double range, not drawn (see log_value)")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.grid(True, color="#dddddd", linewidth=0.5)
        ax.legend(fontsize="small")
        return ax


class Estimates(Table):
    """A list of `Estimate` as a table (epsilon at several deltas, an accountant's answers): `arrays()`,
    `to_pandas()`."""


class Divergences(Estimates):
    """The estimates of one `divergence` call (a list of `Estimate`), with the normalised law expressions
    `p` and `q`, the `engine`, and `arrays()` for a column form."""

    def __init__(self, records, p, q, engine):
        super().__init__(records)
        self.p, self.q, self.engine = p, q, engine


def _unicode(text, name):
    """A str that is Unicode text (a lone surrogate such as '\\ud800' cannot reach the C++ library as UTF-8: it
    raised pybind11's TypeError listing the internal arguments)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ArgumentTypeError(f"{name}: not Unicode text (a lone surrogate, {text[e.start]!r}, at index {e.start})") from None
    return text


def _law(text, name):
    """A law expression: a str (bytes, None or other objects are not read through str())."""
    if not isinstance(text, str):
        raise ArgumentTypeError(f"{name}: expected a law expression (a string such as 'gaussian(0, 1)'), got "
                                f"{type(text).__name__} {_short(text)}")
    return _unicode(text, name)


def _composed(mu, nu, compositions):
    """power(mu, T) and power(nu, T) for compositions=T (None: the laws as given)."""
    mu, nu = _law(mu, "mu"), _law(nu, "nu")
    if compositions is None:
        return mu, nu
    t = _integer(compositions, "compositions", 1, 10_000_000)
    return f"power({mu}, {t})", f"power({nu}, {t})"


def _progress(progress, what):
    """The progress hook of a long call: None or False (silent, the default), a callable progress(done, total), or
    True: a tqdm bar when tqdm is installed (Debian's python3-tqdm), else a line on stderr every few seconds."""
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    if progress is not True:
        raise ArgumentTypeError(f"progress: None, True or a callable progress(done, total), not {type(progress).__name__}")
    try:
        import tqdm
    except ImportError:
        import sys
        import time
        last = [time.monotonic()]

        def line(done, total):
            if done >= total or time.monotonic() - last[0] >= 5:
                last[0] = time.monotonic()
                print(f"privamp: {done}/{total} {what}", file=sys.stderr, flush=True)
        return line
    bar = tqdm.tqdm(desc=f"privamp {what}", unit="value")

    def update(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()
    update.close = bar.close  # closed by the caller however the call ends
    return update


def divergence(mu, nu, renyi=None, hockey_stick=None, kl=False, tv=False, engine="auto", rel_tol=1e-13,
               samples=1_000_000, seed=1, level=0.99, compositions=None, progress=None):
    """Divergences D(mu || nu) between two law expressions (see `laws()`), like ``privamp divergence``.

    renyi: orders alpha > 1 (float('inf') for R_inf); hockey_stick: epsilons >= 0 (scalars, lists or NumPy
    arrays); kl, tv: flags. engine: auto | closed | sum | quadrature | gsl | mc | certified. compositions=T compares
    T independent releases of each law (the same as the laws power(mu, T) and power(nu, T)). progress: None (silent),
    True (a tqdm bar when tqdm is installed, else a line on stderr every few seconds) or a callable
    progress(done, total), called as values are computed (at most about ten times a second, and at the end); an
    exception it raises stops the call and is raised by it. Returns `Divergences`, a list of `Estimate` in the order
    renyi, hockey_stick, kl, tv."""
    mu, nu = _composed(mu, nu, compositions)
    for name, values, allowed in (("renyi", renyi, "orders > 1"), ("hockey_stick", hockey_stick, "eps >= 0")):
        if values is not None and not _numbers(values, name):  # (an empty list is a mistake, not "none asked for")
            raise ValueError(f"divergence: {name} is an empty list (give one or more {allowed}, or leave it out)")
    arguments = (mu, nu, _numbers(renyi, "renyi"), _numbers(hockey_stick, "hockey_stick"), _flag(kl, "kl"),
                 _flag(tv, "tv"), _text(engine, "engine"), _number(rel_tol, "rel_tol"),
                 _integer(samples, "samples", 100, 10**8), _integer(seed, "seed", 0, 2**63 - 1), _number(level, "level"))
    hook = _progress(progress, "values")
    try:
        out = _privamp.divergence(*arguments, hook)
    finally:
        getattr(hook, "close", lambda: None)()  # a bar is closed however the call ends
    records = [_estimate(r) for r in out["results"]]
    return Divergences(records, out["p"], out["q"], out["engine"])


ProfilePoint = _namedtuple("ProfilePoint", _privamp.profile_fields())
ProfilePoint.__doc__ = """delta(eps) = max(H_eps(mu || nu), H_eps(nu || mu)) at one eps: the value, an interval that
contains it (the larger of the two directions' intervals, end by end), which direction gives the value
("mu||nu" or "nu||mu"), the kind of error behind the interval, and the natural logs of the value and the ends
(finite where delta is below the double range, where `delta` is NaN: log_delta = -1235 at eps = 50 for the
subsampled Gaussian; -inf only for an exact zero), and whether only the upper end is known (`bounded_above_only`:
then delta and log_delta are NaN)."""


def privacy_profile(mu, nu, eps, **options):
    """The privacy profile delta(eps) of the pair (mu, nu): the larger hockey-stick divergence of the two
    directions at each eps >= 0 (a scalar, list or NumPy array), as a list of `ProfilePoint`. `options` are
    those of `divergence` (engine, rel_tol, samples, seed, level, compositions: the profile of T releases,
    progress)."""
    options = dict(options)
    mu, nu = _composed(mu, nu, options.pop("compositions", None))
    unknown = set(options) - {"engine", "rel_tol", "samples", "seed", "level", "progress"}
    if unknown:
        raise ArgumentTypeError(f"privacy_profile: unknown option(s) {sorted(unknown)} "
                         "(allowed: engine, rel_tol, samples, seed, level, compositions, progress)")
    # One call: both directions in C++ (verify/api: api::privacy_profile, the larger by its log since both values
    # may underflow a double), returned as columns.
    levels = _numbers(_required(eps, "eps"), "eps")
    if len(levels) == 0:  # (the C++ message named renyi, hockey_stick, kl and tv, which this call has none of)
        raise ValueError("privacy_profile: eps is an empty list (give one or more eps >= 0)")
    arguments = (mu, nu, levels, _text(options.get("engine", "auto"), "engine"),
                 _number(options.get("rel_tol", 1e-13), "rel_tol"), _integer(options.get("samples", 1_000_000), "samples", 100, 10**8),
                 _integer(options.get("seed", 1), "seed", 0, 2**63 - 1), _number(options.get("level", 0.99), "level"))
    hook = _progress(options.get("progress"), "values (both directions)")
    try:
        c = _privamp.privacy_profile(*arguments, hook)
    finally:
        getattr(hook, "close", lambda: None)()
    return Table(map(ProfilePoint, *(c[name] for name in ProfilePoint._fields)))


def epsilon(mu, nu, delta, eps_max=1e3, rel_tol=1e-9, **options):
    """The smallest eps >= 0 with delta(eps) <= delta for the pair's exact privacy profile, with an interval:
    returns an `Estimate` whose [lower, upper] brackets the true eps (for a list or array of deltas, an `Estimates`
    list, one per delta). Bisection on the profile's intervals:
    delta(lower) is certainly above `delta` (its interval's lower end is) and delta(upper) certainly at most
    `delta` (its interval's upper end is), so the true eps lies between; the bracket narrows to rel_tol, or
    stops where the profile's own interval straddles `delta` (then the bracket is as wide as the profile's
    error makes it). ValueError for delta outside (0, 1) or when delta(eps_max) is not below `delta`."""
    options = dict(options)
    mu, nu = _composed(mu, nu, options.pop("compositions", None))
    unknown = set(options) - {"engine", "samples", "seed", "level"}
    if unknown:
        raise ArgumentTypeError(f"epsilon: unknown option(s) {sorted(unknown)} (allowed: engine, samples, seed, level, compositions)")
    if not isinstance(delta, _numbers_module.Real) or isinstance(delta, bool):
        deltas = _numbers(_required(delta, "delta"), "delta")
        if len(deltas) == 0:  # (an empty table without columns had come back)
            raise ValueError("epsilon: delta is an empty list (give one or more delta in (0, 1))")
        if len(deltas) > 1000:
            raise ValueError(f"delta: {len(deltas)} values; at most 1000 in one call")
        # Monte Carlo: the whole list's cost checked before the first search (each search is also checked alone).
        _privamp.check_epsilon_work(len(deltas), _text(options.get("engine", "auto"), "engine"),
                                    _integer(options.get("samples", 1_000_000), "samples", 100, 10**8))
        return Estimates(epsilon(mu, nu, d, eps_max, rel_tol, **options) for d in deltas)
    # One implementation, in C++ (verify/api: api::epsilon_for_delta), shared with the command line's --epsilon.
    d = _privamp.epsilon(mu, nu, _number(delta, "delta"), _number(eps_max, "eps_max"), _number(rel_tol, "rel_tol"),
                         _text(options.get("engine", "auto"), "engine"), _integer(options.get("samples", 1_000_000), "samples", 100, 10**8),
                         _integer(options.get("seed", 1), "seed", 0, 2**63 - 1), _number(options.get("level", 0.99), "level"))
    return _estimate(d)


# ---- the accountant: DP-SGD and sequences of mechanisms in the accountants' vocabulary ----
#
# An event is a mechanism on neighbouring datasets that differ by one record added or removed (sensitivity 1); its
# pair of laws (with the record, without it) is composed with the others', and the profile of the composition is
# the larger of its two directions (as PRV's and dp_accounting's PLD accountants take it). Events are privamp's own
# (below) or dp_accounting's DpEvent objects, read by class name and attributes when that package is installed.

def _event(name, fields, doc):
    """An event type: a named tuple whose fields are checked when it is made (as when it is composed: a wrong type
    or range is refused at once, not at the accountant's first answer)."""
    base = _namedtuple(name, fields)

    def __new__(cls, *args, **kwargs):
        self = base.__new__(cls, *args, **kwargs)
        _releases(self)
        return self
    return type(name, (base,), {"__slots__": (), "__new__": __new__, "__doc__": doc, "__module__": __name__})


GaussianEvent = _event("GaussianEvent", ["noise_multiplier"],
                       "The Gaussian mechanism: noise standard deviation noise_multiplier (over the sensitivity).")
LaplaceEvent = _event("LaplaceEvent", ["noise_multiplier"],
                      "The Laplace mechanism: noise scale b = noise_multiplier (over the sensitivity).")
RandomizedResponseEvent = _event("RandomizedResponseEvent", ["noise_parameter", "num_buckets"],
                                 """k-ary randomized response: with probability noise_parameter the answer is uniform on
num_buckets values, otherwise it is the true one (dp_accounting's RandomizedResponseDpEvent).""")
PoissonSampledEvent = _event("PoissonSampledEvent", ["sampling_probability", "event"],
                             "The event on a Poisson sample: each record kept with probability sampling_probability.")
SelfComposedEvent = _event("SelfComposedEvent", ["event", "count"], "The event repeated count times.")
ComposedEvent = _event("ComposedEvent", ["events"], "The events in sequence.")
LawEvent = _event("LawEvent", ["mu", "nu"], """A mechanism given by its pair of laws (privamp law expressions, see `laws()`): mu with the record,
nu without it.""")


def _law_number(x, name):
    return repr(_number(x, name, subnormal=True))


def _releases(event, depth=0):
    """The (mu, nu, count) releases of an event, privamp's or dp_accounting's (by class name and attributes)."""
    if depth > 64:
        raise ValueError("event: nested more than 64 deep")
    kind = type(event).__name__
    if kind in ("GaussianEvent", "GaussianDpEvent"):
        s = _number(event.noise_multiplier, f"{kind}.noise_multiplier")
        if not s > 0:
            raise ValueError(f"{kind}.noise_multiplier = {s!r}: must be > 0 (without noise no epsilon is finite)")
        return [(f"gaussian(1, {s!r})", f"gaussian(0, {s!r})", 1)]
    if kind in ("LaplaceEvent", "LaplaceDpEvent"):
        b = _number(event.noise_multiplier, f"{kind}.noise_multiplier")
        if not b > 0:
            raise ValueError(f"{kind}.noise_multiplier = {b!r}: must be > 0 (without noise no epsilon is finite)")
        return [(f"laplace(1, {b!r})", f"laplace(0, {b!r})", 1)]
    if kind in ("RandomizedResponseEvent", "RandomizedResponseDpEvent"):
        p = _number(event.noise_parameter, f"{kind}.noise_parameter")
        k = _integer(event.num_buckets, f"{kind}.num_buckets", 2, 10_000)
        if not 0 < p <= 1:
            raise ValueError(f"{kind}.noise_parameter = {p!r}: must be in (0, 1] (0: the true answer, no finite epsilon)")
        low, high = p / k, 1 - p + p / k
        mu = [high] + [low] * (k - 1)
        nu = [low, high] + [low] * (k - 2)
        return [(f"pmf(p=[{', '.join(map(repr, mu))}])", f"pmf(p=[{', '.join(map(repr, nu))}])", 1)]
    if kind in ("PoissonSampledEvent", "PoissonSampledDpEvent"):
        q = _number(event.sampling_probability, f"{kind}.sampling_probability")
        if not 0 <= q <= 1:
            raise ValueError(f"{kind}.sampling_probability = {q!r}: must be in [0, 1]")
        inner = _releases(event.event, depth + 1)
        if len(inner) != 1 or inner[0][2] != 1:
            raise ValueError(f"{kind}: the sampled event must be one mechanism released once (a Gaussian, Laplace, "
                             "randomized response or law event); sample each step instead")
        if q == 0:
            return []
        mu, nu, _ = inner[0]
        return [(mu if q == 1 else f"mix(q={q!r}, {nu}, {mu})", nu, 1)]
    if kind in ("SelfComposedEvent", "SelfComposedDpEvent"):
        n = _integer(event.count, f"{kind}.count", 0, 10_000_000)
        return [(mu, nu, c * n) for mu, nu, c in _releases(event.event, depth + 1)] if n else []
    if kind in ("ComposedEvent", "ComposedDpEvent"):
        # An ordered list of events: a generator would be used up by the first reading (its events then lost from
        # the composition), a set has no order, an event is not a list of events.
        if not isinstance(event.events, (list, tuple)) or type(event.events).__name__.endswith("Event"):
            raise ArgumentTypeError(f"{kind}.events: expected a list or tuple of events, got {type(event.events).__name__} "
                                    f"{_short(event.events)}")
        out = []
        for e in event.events:
            out += _releases(e, depth + 1)
        return out
    if kind == "NoOpDpEvent":
        return []
    if kind == "LawEvent":
        return [(_text(event.mu, "LawEvent.mu"), _text(event.nu, "LawEvent.nu"), 1)]
    if not kind.endswith("Event"):  # not an event at all (a number, a string): a wrong type
        raise ArgumentTypeError(f"event: expected an event (privamp's GaussianEvent, ..., or a dp_accounting DpEvent), "
                                f"got {kind} {_short(event)}")
    raise ValueError(f"event: {kind} is not supported (supported: Gaussian, Laplace, RandomizedResponse, PoissonSampled, "
                     "SelfComposed, Composed, NoOp and privamp's LawEvent; sampling without replacement is not yet)")


class Accountant:
    """Composes events and answers with the exact privacy profile of the composition: ``epsilon(delta)`` and
    ``delta(eps)`` take scalars, lists or NumPy arrays and return estimates whose intervals hold the true value, each
    saying its kind (exact, certified, a-posteriori). Events are privamp's (`GaussianEvent`, `PoissonSampledEvent`,
    ...) or dp_accounting's ``DpEvent`` objects. `engine` is the profile's ("auto" or "certified")."""

    def __init__(self, engine="auto"):
        self.engine = _text(engine, "engine")
        if self.engine not in ("auto", "certified"):  # checked here, not at the first question
            raise ValueError(f"engine = {self.engine!r}: an accountant's engine is 'auto' or 'certified'")
        self._counts = {}  # (mu, nu) -> releases, in the order first composed (composition commutes)

    def compose(self, event, count=1):
        """Adds `count` self-compositions of `event`; returns the accountant (calls chain)."""
        n = _integer(count, "count", 0, 10_000_000)
        for mu, nu, c in _releases(event):
            total = self._counts.get((mu, nu), 0) + c * n
            if total > 10_000_000:
                raise ValueError(f"count: {total} releases of one mechanism; at most 10,000,000")
            self._counts[(mu, nu)] = total
        self._counts = {k: v for k, v in self._counts.items() if v > 0}
        return self

    def laws(self):
        """The composed pair as law expressions (mu, nu): the input of `privacy_profile` and `epsilon`. With nothing
        composed (no events, counts of 0, sampling probabilities of 0, no-ops) the output does not depend on the
        record: one point mass for both, whose eps(delta) and delta(eps) are an exact 0 (as dp_accounting answers)."""
        if not self._counts:
            return ("pmf(p=[1])", "pmf(p=[1])")
        return tuple(_privamp.composed_pair([(mu, nu, n) for (mu, nu), n in self._counts.items()]))

    def epsilon(self, delta, eps_max=1e3, rel_tol=1e-9):
        """eps(delta) of the composition: an `Estimate` bracketing the true eps (an `Estimates` list for several deltas)."""
        mu, nu = self.laws()
        return epsilon(mu, nu, delta, eps_max=eps_max, rel_tol=rel_tol, engine=self.engine)

    def delta(self, eps):
        """delta(eps) of the composition at each eps (a scalar, list or array): a list of `ProfilePoint`."""
        mu, nu = self.laws()
        return privacy_profile(mu, nu, eps, engine=self.engine)


def dpsgd(noise_multiplier, sample_rate, steps, delta, engine="auto"):
    """eps(delta) of DP-SGD: `steps` steps of the Gaussian mechanism with noise multiplier sigma (noise standard
    deviation over the clipping norm) on Poisson samples of rate `sample_rate`, add/remove neighbours. An `Estimate`
    bracketing the true eps (an `Estimates` list for several deltas). The same as PRV's or dp_accounting's
    ``get_epsilon`` on a PoissonSampled Gaussian self-composed `steps` times, with an interval."""
    mu, nu = _privamp.dpsgd_step(_number(noise_multiplier, "noise_multiplier"), _number(sample_rate, "sample_rate"))
    t = _integer(steps, "steps", 1, 10_000_000)
    mu, nu = _privamp.composed_pair([(mu, nu, t)])
    return epsilon(mu, nu, delta, engine=_text(engine, "engine"))


Calibration = _namedtuple("Calibration", ["solved", "value", "lower", "upper", "noise_multiplier", "sample_rate", "steps",
                                          "epsilon", "probes", "seconds", "method"])
Calibration.__doc__ = """The answer of `calibrate`: which parameter was solved for, the value to use (safe: the run
with it is certainly within the target), the bracket [lower, upper] holding the exact threshold, the run's three
parameters, its eps(delta) as an `Estimate`, the profile evaluations of the search, the seconds, and how the search
ended."""


def calibrate(target_epsilon, delta, sample_rate=None, steps=None, noise_multiplier=None, rel_tol=1e-6, engine="auto"):
    """DP-SGD calibration: leave exactly one of noise_multiplier, steps and sample_rate as None; returns the
    `Calibration` that makes the run (target_epsilon, delta)-DP — the smallest noise multiplier, or the largest
    steps or sample rate. Opacus's ``get_noise_multiplier(target_epsilon, target_delta, sample_rate, steps)`` is
    ``calibrate(target_epsilon, delta, sample_rate, steps).value``, with a bracket."""
    d = _privamp.calibrate(_number(target_epsilon, "target_epsilon"), _number(delta, "delta"),
                           None if noise_multiplier is None else _number(noise_multiplier, "noise_multiplier"),
                           None if sample_rate is None else _number(sample_rate, "sample_rate"),
                           None if steps is None else _integer(steps, "steps", 1, 10_000_000),
                           _number(rel_tol, "rel_tol"), _text(engine, "engine"))
    d["epsilon"] = _estimate(d["epsilon"])
    return Calibration(**d)


def kernel(K, eps=None, dp=None, eps_prime=None, renyi=None):
    """Mixing coefficients of a finite Markov kernel K (a 2-D NumPy array, or nested lists; each row a probability
    vector) and, with dp=(eps, delta), its exact worst-case amplification of (eps, delta)-DP mechanisms at
    eps_prime (with the maximising map and Theorem 1's four bounds) and the worst-case Renyi divergence at the
    orders renyi. Returns a dict with the keys of ``privamp kernel --json`` (numbers as floats, infinities as
    float('inf'), a bound that does not apply as None)."""
    if hasattr(K, "__array__") and getattr(K, "dtype", None) is not None and K.dtype.kind in "iuf":
        import numpy as np
        K = np.ascontiguousarray(K, dtype=np.float64)
    elif isinstance(K, (list, tuple)) and all(isinstance(row, (list, tuple)) or getattr(row, "ndim", 0) == 1 for row in K):
        K = [[_number(v, "K") for v in row] for row in K]
    else:
        raise ArgumentTypeError(f"K: expected a square matrix of numbers (a list of rows or a 2-D NumPy array), got "
                                f"{type(K).__name__} {_short(K)}")
    return _privamp.kernel(K, _numbers(eps, "eps"), _numbers(dp, "dp"), _numbers(eps_prime, "eps_prime"),
                           _numbers(renyi, "renyi"))


VerifyResult = _namedtuple("VerifyResult", ["rows", "summary", "violated", "errors"])
VerifyResult.__doc__ = """What `verify` returns: `rows`, a list of dicts with the columns of results.csv (file, case, id,
parameters, quantity, order (alpha or eps as a number, None for kl, tv, renyi_inf), mu, nu, exact, exact_lower,
exact_upper, exact_log (the value's natural log: finite where it is below or above the double range), error_kind, method, cross_check, bound, direction (upper, lower or identity), bound_over_exact (None on not-applicable and error rows), verdict, reason, note, then one column per parameter: ``pandas.DataFrame(result.rows)`` is the
flat table); `summary`, the printed table per theorem; the counts of `violated` and `errors` rows."""


def _names(values, name, paths=True):
    """A comma-separated string or an iterable of strings, as a list; None is no list (the default: all). A value
    that names nothing ("", ",", []) is refused, as the command line refuses --only '': it would silently mean all.
    With paths, an os.PathLike names the file its os.fspath() gives (str() of one may name another file); IDs and
    figure names (paths=False) are strings only."""
    def one(v):
        if isinstance(v, str):
            return _unicode(v, name)
        text = _os.fspath(v)  # (a PathLike, where paths are read)
        if not isinstance(text, str):
            raise ArgumentTypeError(f"{name}: expected a path as text (a str or an os.PathLike giving one), got {type(text).__name__}")
        return _unicode(text, name)
    kinds = (str, _os.PathLike) if paths else (str,)
    if values is None:
        return []
    if isinstance(values, str):
        names = [s for s in _unicode(values, name).split(",") if s]
    elif isinstance(values, _os.PathLike) and paths:
        names = [one(values)]
    elif not isinstance(values, (list, tuple)) or not all(isinstance(v, kinds) for v in values):
        raise ArgumentTypeError(f"{name}: expected a name, a comma-separated string or a list of names, got {_short(values)}")
    else:
        names = [n for n in (one(v) for v in values) if n]
    if not names:
        raise ValueError(f"{name}: {values!r} names nothing (leave it out, or None, for all)")
    return names


def _integer(value, name, low, high):
    """An integer in [low, high] (an int or a NumPy integer; not a bool, a float or a string), or ValueError naming
    it, its value and the range."""
    if not isinstance(value, _numbers_module.Integral) or isinstance(value, bool):
        raise ArgumentTypeError(f"{name}: expected an integer with {low} <= {name} <= {high}, got {_short(value)}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} = {value!r} is out of range (allowed: an integer with {low} <= {name} <= {high})")
    return int(value)


def _flag(value, name):
    """A bool (or NumPy bool), or ValueError: 'no' or 0 is not read as a flag."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise ArgumentTypeError(f"{name}: expected True or False, got {_short(value)}")


def _text(value, name):
    """A str, or ValueError (bytes are not text)."""
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{name}: expected a string, got {_short(value)}")
    return _unicode(value, name)


def verify(files, only=None, jobs=0, out=None, junit=None, html=None):
    """Runs the theorem catalogue over case files or directories, like ``privamp verify``: `only` the theorem IDs
    given (a list, or "E2,T5"), with `jobs` workers (0: the cores). With `out`, writes results.csv, results.json,
    report.md, summary.tex and summary_wide.tex there (as ``--out``); with `junit`, the JUnit XML report (as ``--junit``); with
    `html`, the HTML report (as ``--html``). Returns a `VerifyResult` (rows, summary, violated, errors)."""
    files, only = _names(files, "files"), _names(only, "only", paths=False)
    command = f"privamp.verify({files!r}, only={only!r})"
    # Names that are neither files here nor in the shipped catalogue but read as theorem IDs select those theorems
    # over the shipped cases: privamp.verify("SUB.table") works from any folder.
    ids = [f for f in files if not _pathlib.Path(_shipped(f)).exists() and not f.endswith(".toml") and _THEOREM_ID.match(f)]
    files = [_shipped(f) for f in files if f not in ids]
    if ids:
        only = only + ids
        if not files:
            files = [_shipped("cases")]
    rows, summary, violated, errors, notes = _privamp.verify(files, only, _integer(jobs, "jobs", 0, 1024),
                                                             _path(out, "out"), _path(junit, "junit"), _path(html, "html"), command)
    for note in notes:  # a grid parameter that nothing reads (the command prints these before it runs)
        _warnings.warn(note, stacklevel=2)
    return VerifyResult(Table(rows), summary, violated, errors)


# The fields of a search are named once, by the library (what the command's STEM.json holds), plus the seconds.
Search = _namedtuple("Search", _privamp.search_fields())
Search.__doc__ = """One search of `explore` (one case and bound ID): `points`, every evaluation as a dict with the columns
of the command's STEM.csv (index, phase ("global" or "localK"), the searched axes, status, verdict, outside,
exact, exact_lower, exact_upper, bound, bound_lower, bound_upper, slack, ratio, objective, message), in the
order evaluated; `best`, the best
distinct points re-evaluated in full with the case's own engines, as rows with the columns of `verify`, and
`best_index`, their positions in `points`; `degenerate` (with `degenerate_index`), the best degenerate point
re-evaluated when it beats the best one (None otherwise); `where`, the region's conditions; `stopped`, None or
what was done when `max_seconds` ended the search (then the budget was not spent); `passed_over`, how many best
candidates were passed over because their full re-evaluation failed, with the first failure's message in
`passed_over_reason` (None when none was); `frontier` (with
``frontier=NAME``), a dict with the quantity's `name`, whether the bins are `log`, and `bins`: per bin `lower`,
`upper`, `candidates`, `refined` (evaluations of its own local search) or `not_refined` (why it had none), the
`best` point re-evaluated (a `verify` row, or None) with its `best_index`, and the bin's `degenerate` optimum with
its condition where it beats the best point; `ranges`, `influence` and `coverage` per searched axis (`axes`);
`budget`, `seed` and `ignore_hypotheses` as given; `slack` is log(bound/exact) for an upper bound (log(exact/bound) for a lower one) and
`ratio` its exponential."""


def explore(target, case=None, id=None, goal="loosest", budget=200, seed=1, starts=3, jobs=0,
            ignore_hypotheses=False, all=False, cases="cases", where=None, frontier=None, bins=8, max_seconds=0):
    """Searches a case's parameter space for where a bound is loosest, tightest or violated, like ``privamp
    explore``: `target` is a case file or a theorem ID (then its cases with a [case.explore] table in the
    directory `cases`); with `all=True`, every case with such a table in `target` (a file, a directory or a list
    of them; default: `cases`). goal: loosest | tightest | violation; budget: evaluations per case and ID; seed:
    of the Sobol rotation (results are reproducible from it); where: conditions a candidate must meet (a string or
    a list, as ``--where``); frontier, bins: the best ratio per bin of a parameter or derived quantity, as
    ``--frontier NAME --bins K``; max_seconds: as ``--max-seconds`` (0: no limit), each search stops there and its
    best points are re-evaluated. Returns a list of `Search`, one per case and ID."""
    targets = [] if target is None else _names([target] if isinstance(target, str) else target, "target")
    targets = [_shipped(t) for t in targets]  # a case file or folder here, else in the shipped catalogue
    runs = _privamp.explore(targets, _optional_text(case, "case"), _optional_text(id, "id"), _shipped(_path(cases, "cases")),
                            _flag(all, "all"), _text(goal, "goal"), _integer(budget, "budget", 2, 10**7),
                            _integer(seed, "seed", 0, 2**63 - 1), _integer(starts, "starts", 1, 64),
                            _integer(jobs, "jobs", 0, 1024),
                            _flag(ignore_hypotheses, "ignore_hypotheses"),
                            [where] if isinstance(where, str) else _names(where, "where", paths=False),
                            _optional_text(frontier, "frontier"), _integer(bins, "bins", 1, 100),
                            _seconds(max_seconds))
    return Table(Search(**{**r, "points": Table(r["points"])}) for r in runs)


def _seconds(v):
    """--max-seconds: 0 (no limit) to 10^7 seconds."""
    x = _number(v, "max_seconds")
    if not 0 <= x <= 1e7:
        raise ValueError(f"max_seconds: {v!r} is out of range (allowed: 0 (no limit) <= max_seconds <= 10^7)")
    return x


FiguresResult = _namedtuple("FiguresResult", ["files", "violated", "output"])
FiguresResult.__doc__ = """What `figures` returns: `files`, the paths written (PDF, PNG, pgfplots, CSV, caption and
script of every figure); `violated`, whether a drawn bound is violated (the command's exit status 1); `output`, what
the command printed."""


def figures(files=None, only=None, out="figures", reduced=False, jobs=0, size=None):
    """Draws figures like ``privamp figures``: the [[figure]] tables of `files` (default: the paper figures shipped
    with the package, ``data_dir()/plots``), `only` the figures named (a list or "a,b"), into the folder `out`;
    `reduced`: three points per x axis (a quick look); `size`: "single" (one column) or "double" (the page width)
    for every figure, over their styles (``--size``). Every figure is drawn from rows verified as by `verify`.
    Runs the package's privamp command (no shell). ValueError for bad input (the command's message),
    RuntimeError when a computation fails."""
    paths = [_shipped(f) for f in _names(files, "files")] or [str(data_dir() / "plots")]
    names = _names(only, "only", paths=False)
    argv = ["figures", "--out", _path(out, "out", "figures")]
    if _integer(jobs, "jobs", 0, 1024):
        argv += ["--jobs", str(int(jobs))]
    if names:
        argv += ["--only", ",".join(names)]
    if _flag(reduced, "reduced"):
        argv.append("--reduced")
    if size is not None:
        if not isinstance(size, str) or size not in ("single", "double"):
            raise (ValueError if isinstance(size, str) else ArgumentTypeError)(f"size: {size!r}; \"single\" or \"double\"")
        argv += ["--size", size]
    # The files after "--": a name that starts with "-" is a file, never an option ("--list", "--reduced").
    argv = [_command(), *argv, "--", *paths]  # the command looked for once the arguments are known to be good
    start = _time.time()
    run = _subprocess.run(argv, capture_output=True, text=True)
    if run.returncode == 2:
        raise ValueError(run.stderr.strip().removeprefix("privamp: error: "))
    if run.returncode not in (0, 1):
        raise RuntimeError(run.stderr.strip() or f"privamp figures exited with status {run.returncode}")
    folder = _pathlib.Path(out)
    # The files of the figures the command reports drawing ("NAME  DIR/NAME.{csv,gp,...}  N points"), written by
    # this run: another file in the folder is not listed, however recent (nor the run's lock, .privamp.lock).
    drawn = {m.group(1) for m in _re.finditer(r"^(\S+)\s+.*\.\{[a-z,]+\}\s+\d+ points$", run.stdout, _re.M)}
    suffixes = (".csv", ".gp", ".pdf", ".png", ".tex", ".log", "_caption.txt", "_provenance.txt", "_tidy.csv")
    written = sorted(str(p) for p in folder.glob("*")
                     if any(p.name == n + x for n in drawn for x in suffixes) and p.is_file() and p.stat().st_size > 0
                     and p.stat().st_mtime >= start - 1)
    return FiguresResult(written, run.returncode == 1, run.stdout + run.stderr)


def laws():
    """The law catalogue: a list of dicts with name, summary, example and params (name, kind, default, doc, and
    allowed: the declared range of a number, e.g. "0 < value < inf", or None)."""
    return _privamp.laws()
