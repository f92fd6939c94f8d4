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
figures = ["iterated_laplace", "subsampling_replacement", "diffusions", "ou_vs_gaussian", "sgd_steps", "formula_maps",
           "mixing_kernel", "mixing_kernel_dirichlet", "subsampling", "iteration", "repeated_noise"]
subprocess.run([privamp, "figures", str(source / "plots"), "--only", ",".join(figures), "--out", str(work), "-j", "2"],
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
    claim("diffusions", "at t = 1.76 the double well's triangle (0.146) lies under the Brownian square (0.142)",
          rounds(near(t6["double well"][0], 1.756), "0.146") and rounds(near(t6["Brownian"][0], 1.756), "0.142"))
    claim("diffusions", "For Brownian motion and OU the bound is the exact value",
          all(abs(t6[n][1][t] - v) <= 1e-12 * v for n in ("OU", "Brownian") for t, v in t6[n][0].items()))
    e, b = t6["double well"]
    r = {t: b[t] / e[t] for t in e}
    claim("diffusions", "2.48 to 2.71 times it (2.48 at t = 0.5, 2.71 at t = 0.94, 2.54 at t = 5)",
          rounds(near(r, 0.5), "2.48") and rounds(near(r, 0.937), "2.71") and rounds(near(r, 5), "2.54")
          and rounds(min(r.values()), "2.48") and rounds(max(r.values()), "2.71") and max(r, key=r.get) == near({t: t for t in r}, 0.937))

# OU against the Gaussian mechanism: Theorem 8 (a)'s hypothesis kappa <= 4.
kappas = {k: series("ou_vs_gaussian", f"{{/Symbol k}} = {k}", "x_t") for k in ("0.5", "2", "4")}
k8 = series("ou_vs_gaussian", "{/Symbol k} = 8 (hypothesis fails)", "x_t")
if all(kappas.values()) and k8:
    top = max((v, k, t) for k, s in kappas.items() for t, v in s.items())
    claim("ou_vs_gaussian", "at most 0.997, $\\kappa $ = 4 at t = 0.01", rounds(top[0], "0.997") and top[1] == "4" and abs(top[2] - 0.01) < 1e-9)
    above = [t for t, v in k8.items() if v > 1]
    peak = max(k8, key=k8.get)
    claim("ou_vs_gaussian", "exceeds 1 up to t = 0.075 (1.21 at t = 0.032)",
          f"{max(above):.3f}" == "0.075" and all(v > 1 for t, v in k8.items() if t <= max(above)) and rounds(k8[peak], "1.21")
          and f"{peak:.3f}" == "0.032")
    claim("ou_vs_gaussian", "(0.804, 0.804 and 0.816: their marks overlap)",
          rounds(near(kappas["2"], 0.1), "0.804") and rounds(near(kappas["4"], 0.1), "0.804") and rounds(near(k8, 0.1), "0.816"))

# Noisy projected SGD over T steps: Theorem 5 against the composition and the exact value.
exact, t5, comp = ({}, {}, {}) if "sgd_steps" not in figures else (
    series("sgd_steps", "last iterate, exact (with projection)", "x_n"), series("sgd_steps", "last iterate, Theorem 5", "x_n"),
    series("sgd_steps", "every iterate released (composition)", "x_n"))
if exact and t5 and comp:
    with open(work / "sgd_steps_tidy.csv", newline="") as f:
        upper = {float(r["x_n"]): float(r["upper"]) for r in csv.DictReader(f) if r["series"] == "last iterate, exact (with projection)"}
    claim("sgd_steps", "its bound is 8 at T = 2, twice the composition's 4, and 1.33 at T = 4",
          t5[2] == 8 and comp[2] == 4 and rounds(t5[4], "1.33") and all(t5[n] < comp[n] for n in t5 if n >= 4))
    claim("sgd_steps", "The exact value is below the composition's 4 at every T (0.665 at T = 2)",
          all(upper[n] < comp[n] for n in exact) and rounds(exact[2], "0.665"))
    claim("sgd_steps", "by a factor of 12 at T = 2 and by at least 2.8",
          rounds(t5[2] / exact[2], "12") and f"{t5[16] / upper[16]:.2g}" == "2.8e+06")

# Theorem 4 for formula maps: the order of the three ratios.
maps = {name: series("formula_maps", name, "x_r") for name in ("0.9 atan(x)", "0.9 x, constant beyond |x| = 1.2", "0.5 x for x < 0, 0.9 x for x > 0")
        if "formula_maps" in figures}
if maps and all(maps.values()):
    a, c, k = maps["0.9 atan(x)"], maps["0.9 x, constant beyond |x| = 1.2"], maps["0.5 x for x < 0, 0.9 x for x > 0"]
    claim("formula_maps", "From r = 4 on the bound is tightest", all(k[r] < c[r] < a[r] for r in k if r >= 4) and not (k[3] < c[3]))
    claim("formula_maps", "26.5, 192 and 1890 at r = 10", rounds(k[10], "26.5") and rounds(c[10], "192") and f"{a[10]:.3g}" == "1.89e+03")
    claim("formula_maps", "(at r = 2 the arctangent's circle, 2.10, lies under the kinked map's triangle, 2.02)",
          rounds(a[2], "2.10") and rounds(k[2], "2.02") and max(max(m[r] for r in m if r <= 3) for m in maps.values()) < 4.2)
    claim("formula_maps", "(at r = 1 the kinked map is the loosest, 1.66, against 1.17 and 1.004)",
          rounds(k[1], "1.66") and rounds(a[1], "1.17") and rounds(c[1], "1.004") and k[1] > a[1] > c[1])

# Theorem 1's points against the exact profiles of the two kernels.
for figure, doeblin, exact_at, factor, zero_from, points in (
        ("mixing_kernel", "0.149", "0.0129", "11.5", "0.775", ("0.0065", "0.0082")),
        ("mixing_kernel_dirichlet", "0.150", "0.040", "3.7", "0.925", ("0.0056", "0.0093"))):
    profile = series(figure, "exact, worst case", "order")
    t13 = series(figure, "Theorem 1 (3), Doeblin", "order")
    t11 = series(figure, "Theorem 1 (1), Dobrushin", "order")
    t14 = series(figure, "Theorem 1 (4), ultra-mixing", "order")
    if profile and t13 and t11 and t14:
        (e3, d3), = t13.items()
        below = max(x for x in profile if x <= e3)
        above = min(x for x in profile if x > e3)
        # the exact profile is non-increasing in eps': its value at e3 lies between its neighbours'
        lo, hi = profile[above], profile[below]
        claim(figure, f"{doeblin} at", rounds(d3, doeblin))
        claim(figure, f"about {factor} times the exact {exact_at}",
              lo <= float(exact_at) * 1.05 and hi >= float(exact_at) * 0.95 and d3 / hi <= float(factor) * 1.03 and d3 / max(lo, 1e-300) >= float(factor) * 0.97)
        claim(figure, f"(from $\\varepsilon' $ = {zero_from})", abs(min(x for x, v in profile.items() if v == 0) - float(zero_from)) < 1e-9
              and all(v == 0 for x, v in profile.items() if x >= float(zero_from)))
        (e1, d1), = t11.items()
        (e4, d4), = t14.items()
        claim(figure, f"give {points[0]} at", rounds(d1, points[0]) and rounds(d4, points[1]) and e1 >= float(zero_from) and e4 >= float(zero_from))

# The Poisson subsampled Gaussian: the table's row is the exact profile.
row = series("subsampling", "table (Poisson row)", "x_eps_prime")
value = series("subsampling", "exact", "x_eps_prime")
if row and value:
    claim("subsampling", "against the table's row, which is the exact profile", max(abs(row[e] - value[e]) / value[e] for e in value) <= 1e-13)
    claim("subsampling", "(relative difference below $10^{-13}$)", max(abs(row[e] - value[e]) / value[e] for e in value) <= 1e-13)

# Repeated noise addition: the Laplace ratios at n = 2 and 200, and the three series meeting at n = 1.
laplace2 = series("repeated_noise", "Laplace, {/Symbol a} = 2", "x_n")
laplace8 = series("repeated_noise", "Laplace, {/Symbol a} = 8", "x_n")
gaussian = series("repeated_noise", "Gaussian, {/Symbol a} = 2 (tight: ratio 1)", "x_n")
if laplace2 and laplace8 and gaussian:
    claim("repeated_noise", "(1.47 at n = 2, 1.997 at n = 200 for $\\alpha $ = 2; 1.44 and 1.997 for $\\alpha $ = 8)",
          rounds(laplace2[2], "1.47") and rounds(laplace2[200], "1.997") and rounds(laplace8[2], "1.44") and rounds(laplace8[200], "1.997"))
    claim("repeated_noise", "all three start at ratio 1 and their marks coincide",
          all(abs(s[1] - 1) < 1e-9 for s in (laplace2, laplace8, gaussian)))
    claim("repeated_noise", "for Gaussian noise it is tight (ratio 1)", all(abs(v - 1) < 1e-9 for v in gaussian.values()))

# Noisy linear iteration: where the three ratios' marks coincide.
ratios = {L: series("iteration", f"L = {L}", "x_r") for L in ("0.5", "0.9", "1")}
if all(ratios.values()):
    claim("iteration", "At r = 1 the three ratios are 1 and their marks coincide", all(abs(v[1] - 1) < 1e-9 for v in ratios.values()))
    claim("iteration", "up to r = 6 the L = 0.9 ratio is within 7 \\% of 1 (1.006 to 1.066)",
          all(1 <= v < 1.07 for r, v in ratios["0.9"].items() if r <= 6) and rounds(ratios["0.9"][2], "1.006")
          and rounds(ratios["0.9"][6], "1.066") and all(abs(v - 1) < 1e-9 for v in ratios["1"].values()))
    claim("iteration", "L = 0.5's is drawn up to r = 8 (21.3)", rounds(ratios["0.5"][8], "21.3") and max(ratios["0.5"]) == 8)

for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"caption numbers: {', '.join(figures)} quote the values computed for them")
