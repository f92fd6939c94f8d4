#!/usr/bin/env python3
"""caption_numbers.py PRIVAMP SOURCE_DIR WORK_DIR: the numbers a shipped figure's caption quotes are the figure's own.

Captions state findings in numbers ("a factor 11.6 at eps' = 1.5"). Each claim below is a sentence fragment the
caption must contain and the check of that fragment against the values privamp computes for the figure (its
NAME_tidy.csv), so that a caption cannot keep a number the engines no longer give.
"""
import csv
import pathlib
import subprocess
import sys

privamp, source, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
figures = ["iterated_laplace", "subsampling_replacement", "diffusions"]
subprocess.run([privamp, "figures", str(source / "plots"), "--only", ",".join(figures), "--out", str(work), "-j", "1"],
               check=True, stdout=subprocess.DEVNULL)
failures = []


def series(figure, name, x):
    """{x: value} of the series titled `name` (its x column `x`)."""
    out = {}
    with open(work / f"{figure}_tidy.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["series"] == name:
                out[float(row[x])] = float(row["value"])
    if not out:
        failures.append(f"{figure}: no series '{name}'")
    return out


def near(values, x):
    return values[min(values, key=lambda v: abs(v - x))]


def claim(figure, text, holds):
    caption = (work / f"{figure}_caption.txt").read_text()
    if text not in caption:
        failures.append(f"{figure}: the caption no longer says '{text}'")
    elif not holds:
        failures.append(f"{figure}: '{text}' does not hold for the computed values")


def rounds(value, quoted):
    """value rounds to the quoted decimal string."""
    digits = len(quoted.split(".")[1]) if "." in quoted else 0
    return f"{value:.{digits}f}" == quoted


# Iterated Laplace: every curve tends to R_inf = 1.
example2 = series("iterated_laplace", "Example 2 (optimal w)", "x_alpha")
alone = series("iterated_laplace", "no amplification (M alone)", "x_alpha")
exact = series("iterated_laplace", "exact R_{/Symbol a}(KM(D) || KM(D'))", "x_alpha")
if example2 and alone and exact:
    claim("iterated_laplace", "within 1.5 \\% of it from $\\alpha $ = 95 on",
          all(v >= 0.985 for a, v in example2.items() if a >= 95) and all(v >= 0.985 for a, v in alone.items() if a >= 95))
    claim("iterated_laplace", "(0.985 and 0.993 there, 0.9986 and 0.9993 at $\\alpha $ = 1000)",
          rounds(near(example2, 95.5), "0.985") and rounds(near(alone, 95.5), "0.993") and rounds(near(example2, 1000), "0.9986")
          and rounds(near(alone, 1000), "0.9993"))
    claim("iterated_laplace", "(0.838 at $\\alpha $ = 95, 0.943 at $\\alpha $ = 1000)",
          rounds(near(exact, 95.5), "0.838") and rounds(near(exact, 1000), "0.943"))

# The subsampled Gaussian with replacement: how loose the table's row is.
row = series("subsampling_replacement", "table (with replacement)", "x_eps_prime")
value = series("subsampling_replacement", "exact", "x_eps_prime")
if row and value:
    ratio = {e: row[e] / value[e] for e in value}
    claim("subsampling_replacement", "the row holds at every", all(r >= 1 for r in ratio.values()))
    claim("subsampling_replacement", "within 1 \\% of the exact $\\delta' $ up to $\\varepsilon' $ = 0.17",
          all(r <= 1.01 for e, r in ratio.items() if e <= 0.175) and any(r > 1.01 for e, r in ratio.items() if e <= 0.23))
    claim("subsampling_replacement", "a factor 2.1 at $\\varepsilon' $ = 0.73 and 11.6 at $\\varepsilon' $ = 1.5",
          rounds(near(ratio, 0.7345), "2.1") and rounds(near(ratio, 1.5), "11.6"))

# Diffusions: Theorem 6's Lambda(t) against the exact value.
t6 = {}
for name in ("OU", "Brownian", "double well"):
    t6[name] = (series("diffusions", f"{name}, exact", "x_t"), series("diffusions", f"{name}, {{/Symbol L}}(t)", "x_t"))
if all(e and b for e, b in t6.values()):
    claim("diffusions", "For Brownian motion and OU the bound is the exact value",
          all(abs(t6[n][1][t] - v) <= 1e-12 * v for n in ("OU", "Brownian") for t, v in t6[n][0].items()))
    e, b = t6["double well"]
    r = {t: b[t] / e[t] for t in e}
    claim("diffusions", "2.5 to 2.7 times it (2.48 at t = 0.5, 2.71 at t = 0.94, 2.54 at t = 5)",
          rounds(near(r, 0.5), "2.48") and rounds(near(r, 0.937), "2.71") and rounds(near(r, 5), "2.54")
          and 2.45 <= min(r.values()) and max(r.values()) < 2.75 and max(r, key=r.get) == near({t: t for t in r}, 0.937))

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"caption numbers: {', '.join(figures)} quote the values computed for them")
