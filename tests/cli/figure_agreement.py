#!/usr/bin/env python3
"""figure_agreement.py PRIVAMP SOURCE_DIR: the PDF/PNG (gnuplot) and the pgfplots file of every shipped figure are
one picture. Drawn reduced, each figure is checked for:

- ranges: both axes' ranges given to both renderers, the same numbers (gnuplot's xrange, pgfplots' xmin/xmax);
- ticks: log axes ticked and labelled alike (the same explicit ticks: powers of ten labelled 10^k, or over a short
  span 1, 2, 5 labelled as numbers, or the powers of 2 where every x is one; minor ticks in both or neither); every
  tick inside the range and none missing at either end (a power of ten in range one step beyond the last tick);
- marks: every series' mark half-width in pgfplots (`mark size`) equals gnuplot's `ps` times the points a unit of
  `ps` draws, a constant that is first measured on the installed gnuplot (a mark drawn at ps 10, rasterised);
- legend: the same entries, filled column by column in the same rows and columns — read in gnuplot's PDF itself
  (the words of its bottom lines, by pdftotext), not only in the script;
- verdict marks: drawn and named where the point is within the y range, or its bar ends inside the range (the mark
  then at that end, inside the range, in both renderings); the caption counts the values drawn that are only
  bounded above (intervals reaching 0; the CSV keeps a lower end of 0 as 0);
- upper limits: on a log y axis an interval reaching 0 is drawn as an open down-triangle at its upper end (just
  inside the bottom frame where that end is below the axis), no bar and no value (the line breaks), in both
  renderings and both legends;
- title: once — over the plot in both renderings (and not in NAME_caption.txt), or in the caption alone; one figure
  is drawn both ways;
- escapes: a title and a legend entry holding gnuplot's backslash escapes (\\_ \\{ \\^ ... and a backslash before other
  characters) read the same in gnuplot's PDF and in the pgfplots file typeset by pdflatex (both by pdftotext), and in
  the provenance file's plain text.
"""
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile

failures = []


def fail(message):
    failures.append(message)
    print(f"FAIL: {message}")


def run(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def gnuplot_points_per_ps(work):
    """Half-width in points of a gnuplot cairo mark per unit of ps: a filled square at ps 10, rasterised at 720 dpi."""
    (work / "mark.gp").write_text(
        "set terminal pdfcairo size 3in,3in\nset output 'mark.pdf'\nunset border\nunset tics\nunset key\n"
        "set xrange [0:1]\nset yrange [0:1]\nplot '-' with points pt 5 ps 10 lc rgb 'black'\n0.5 0.5\ne\n")
    run("gnuplot", "mark.gp", cwd=work)
    run("pdftoppm", "-r", "720", "-gray", "-singlefile", "mark.pdf", "mark", cwd=work)
    data = (work / "mark.pgm").read_bytes()
    magic, size, _, pixels = data.split(b"\n", 3)
    w, h = map(int, size.split())
    rows = [i for i in range(h) if min(pixels[i * w:(i + 1) * w]) < 128]
    return (rows[-1] - rows[0] + 1) / 10 / 2 / 10  # 10 pixels per point; half the side; per unit of ps


def gnuplot_marks(gp):
    """Per drawn series (error bars left out, a verdict's marks over several series counted once), the mark
    half-width in ps units, or None for no marks."""
    style_ps = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^set style line (\d+) .* ps ([\d.]+)", gp, re.M)}
    plot = gp[gp.index("\nplot ") + 6:]
    clauses = [c.strip() for c in re.split(r",\s*\\\n", plot)]
    out, verdicts = [], set()
    for c in clauses:
        verdict = re.search(r"strcol\(6\) eq '(\w+)'", c)
        if "with yerrorbars" in c or (verdict and verdict.group(1) in verdicts):
            continue  # error bars are drawn without marks; a verdict's marks are one series in pgfplots
        if verdict:
            verdicts.add(verdict.group(1))
        explicit = re.search(r" ps ([\d.]+)", c)
        if re.search(r"with lines\b", c):
            out.append(None)
        elif explicit:
            out.append(float(explicit.group(1)))
        else:
            out.append(style_ps[int(re.search(r" ls (\d+)", c).group(1))])
    return out


def pgf_marks(tex):
    out = []
    for options in re.findall(r"\\addplot\[(.*?)\]\s*(?:table|coordinates)", tex, re.S):
        size = re.search(r"mark size=([\d.]+)pt", options)
        out.append(None if "no marks" in options else float(size.group(1)) if size else "unsized")
    return out


def gnuplot_widths(gp):
    """The line width of each data series (a clause reading a block of NAME.csv by index: not its error bars, limit
    marks or verdict marks), from its line style or its own lw."""
    style_lw = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^set style line (\d+) .*?lw ([\d.]+)", gp, re.M)}
    plot = gp[gp.index("\nplot ") + 6:]
    out = []
    for c in (c.strip() for c in re.split(r",\s*\\\n", plot)):
        if not re.search(r" index \d+ using ", c) or re.search(r"yerrorbars|strcol\(6\)|limity", c):
            continue
        own = re.search(r" lw ([\d.]+)", c)
        out.append(float(own.group(1)) if own else style_lw[int(re.search(r" ls (\d+)", c).group(1))])
    return out


def pgf_widths(tex):
    """The line width of each data series (an addplot of a table) in gnuplot's units (pgfplots' pt are half of them)."""
    return [2 * float(re.search(r"line width=([\d.]+)pt", o).group(1)) for o in re.findall(r"\\addplot\[(.*?)\]\s*table", tex, re.S)]


def legend_in_pdf(pdf, rows):
    """The entries per row of the bottom `rows` lines of gnuplot's PDF (where a key below the plot is): words
    grouped into lines by their bottom edge (3 pt), then into entries by gaps over 10 pt."""
    html = run("pdftotext", "-bbox", str(pdf), "-").stdout
    words = [(float(a), float(b), float(c)) for a, b, c in
             re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="([\d.]+)"', html)]
    lines = []
    for x0, x1, y in sorted(words, key=lambda w: w[2]):
        if lines and y - lines[-1][0] < 3:
            lines[-1][1].append((x0, x1))
        else:
            lines.append((y, [(x0, x1)]))
    counts = []
    for _, ws in lines[-rows:]:
        ws.sort()
        counts.append(1 + sum(1 for a, b in zip(ws, ws[1:]) if b[0] - a[1] > 10))
    return counts


def check_figure(work, name, per_ps):
    gp = (work / f"{name}.gp").read_text()
    tex = (work / f"{name}.tex").read_text()
    # ranges, the same numbers in both
    ranges = {}
    for axis in "xy":
        r = re.search(rf"^set {axis}range \[(.*):(.*)\]$", gp, re.M)
        if not r or f"{axis}min={r.group(1)}, {axis}max={r.group(2)}" not in tex:
            fail(f"{name}: the {axis} range is not given to both renderers alike")
            continue
        ranges[axis] = (float(r.group(1)), float(r.group(2)))
    xs = sorted({float(line.split(",")[1]) for line in (work / f"{name}.csv").read_text().splitlines() if line and not line.startswith("#")})
    # ticks
    for axis in "xy":
        tics = re.search(rf"^set {axis}tics \((.*)\)$", gp, re.M)
        if f"set logscale {axis}" not in gp:
            # a linear axis: the same ticks, labels and no common factor in both (each renderer picked its own)
            tex_tics = re.search(rf"{axis}tick=\{{([^}}]*)\}}, {axis}ticklabels=\{{([^}}]*)\}}, scaled {axis} ticks=false", tex)
            if not tics or not tex_tics or tics.group(1).replace(" ", "") != tex_tics.group(1) or tex_tics.group(1) != tex_tics.group(2):
                fail(f"{name}: the linear {axis} axis's ticks differ: gnuplot {tics and tics.group(1)}, pgfplots {tex_tics and tex_tics.groups()}")
            elif axis in ranges:
                at = [float(t) for t in tics.group(1).split(",")]
                lo, hi = ranges[axis]
                if not (2 <= len(at) <= 8 and all(lo - 1e-9 * abs(hi - lo) <= t <= hi + 1e-9 * abs(hi - lo) for t in at)):
                    fail(f"{name}: {axis} ticks {at} for the range [{lo}, {hi}]")
            continue
        if tics and axis in ranges:
            at = [float(t) for t in tics.group(1).split(",")]
            lo, hi = ranges[axis]
            if not all(lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9) for t in at):
                fail(f"{name}: {axis} ticks {at} outside the range [{lo}, {hi}]")
            powers_of_two = axis == "x" and len(xs) >= 3 and all(v > 0 and math.log2(v) == round(math.log2(v)) for v in xs)
            if powers_of_two and not all(math.log2(t) == round(math.log2(t)) for t in at):
                fail(f"{name}: every x is a power of 2, the ticks {at} are not")
            decades = all(t > 0 and abs(math.log10(t) - round(math.log10(t))) < 1e-12 for t in at)  # (labelled 10^k or as numbers)
            if decades and len(at) >= 3:
                e = [round(math.log10(t)) for t in at]
                step = e[1] - e[0]
                if 10 ** (e[0] - step) >= lo or 10 ** (e[-1] + step) <= hi:
                    fail(f"{name}: {axis} ticks 10^{e} leave a power of ten of their step untagged in [{lo:.3g}, {hi:.3g}]")
        if tics and f"{axis}tick={{{tics.group(1).replace(' ', '')}}}" not in tex:
            fail(f"{name}: {axis} ticks ({tics.group(1)}) not in the pgfplots file")
        if not tics and f"{axis}tick=" in tex:
            fail(f"{name}: pgfplots has {axis} ticks gnuplot lacks")
        numbers = f"set format {axis} '%g'" in gp  # 1, 2, 5 labelled as numbers in both; else 10^k in both
        if numbers != (f"{axis}ticklabels=" in tex) or (not numbers and f"set format {axis} '10^{{%L}}'" not in gp):
            fail(f"{name}: the {axis} axis's tick labels differ (gnuplot {'numbers' if numbers else 'powers of ten'})")
        if (f"unset m{axis}tics" in gp) != (f"{axis}minorticks=false" in tex):
            fail(f"{name}: minor {axis} ticks in one rendering only")
    # marks
    g, p = gnuplot_marks(gp), pgf_marks(tex)
    if len(g) != len(p):
        fail(f"{name}: {len(g)} series drawn by gnuplot, {len(p)} by pgfplots")
    for k, (a, b) in enumerate(zip(g, p)):
        if (a is None) != (b is None) or (a is not None and (b == "unsized" or abs(a * per_ps - b) > 0.02 * b)):
            fail(f"{name}: series {k}: gnuplot's mark {a} ps ({a and a * per_ps:.3g} pt), pgfplots' {b} pt")
    # line widths (a colour light in grey drawn wider in both)
    gw, pw = gnuplot_widths(gp), pgf_widths(tex)
    if len(gw) != len(pw) or any(abs(a - b) > 1e-9 * b for a, b in zip(gw, pw)):
        fail(f"{name}: the data series' line widths differ: gnuplot {gw}, pgfplots {pw}")
    # legend
    entries = len(re.findall(r"\\addlegendentry\{", tex))
    titled = len(re.findall(r" title '[^']+'", gp))
    if entries != titled:
        fail(f"{name}: {titled} legend entries in gnuplot's key, {entries} in pgfplots'")
    if entries:
        # pgfplots fills a transposed legend column by column, as gnuplot does, and its `legend columns` are then rows;
        # a legend of one row is written untransposed, with as many columns as entries (where order cannot differ)
        given = int(re.search(r"legend columns=(\d+)", tex).group(1))
        if "transpose legend" in tex:
            rows = given
        elif given >= entries:
            rows = 1
        else:
            fail(f"{name}: pgfplots fills its legend of {entries} entries row by row in {given} columns, gnuplot column by column")
            rows = math.ceil(entries / given)
        columns = math.ceil(entries / rows)
        key = re.findall(r"^set key (.*)$", gp, re.M)[-1]
        if f"maxcols {columns}" not in key:
            fail(f"{name}: pgfplots' legend has {columns} columns, gnuplot's key is '{key}'")
        if "below" in key:
            want = [sum(1 for j in range(columns) if j * rows + i < entries) for i in range(rows)]
            got = legend_in_pdf(work / f"{name}.pdf", rows)
            if got != want:
                fail(f"{name}: gnuplot's PDF shows the {entries} entries in rows of {got}, pgfplots in rows of {want}")
    # Verdict marks where the point is in view, or at the end of its bar inside the range (never at the axis' edge,
    # where it would sit on other series' points), in both renderings and the legends; values only bounded above (an
    # interval reaching 0) said in the caption.
    rows = [line.split(",") for line in (work / f"{name}.csv").read_text().splitlines() if line and not line.startswith("#")]
    lo, hi = ranges.get("y", (-math.inf, math.inf))

    def marked(r):
        y, low, up = float(r[2]), float(r[3]), float(r[4])
        return lo <= y <= hi or (y < lo and lo < up < hi) or (y > hi and lo < low < hi)

    if "marky(y, l, u)" not in gp:
        fail(f"{name}: gnuplot places no verdict mark by marky")
    for verdict in ("violated", "inconclusive"):
        shown = sum(1 for r in rows if r[5] == verdict and marked(r))
        if (shown > 0) != (f"title '{verdict}'" in gp) or (shown > 0) != (f"\\addlegendentry{{{verdict}}}" in tex):
            fail(f"{name}: {shown} {verdict} points marked, but the legends say otherwise")
    for options, coordinates in re.findall(r"\\addplot\[(only marks, mark=[xo], [^\]]*)\] coordinates \{([^}]*)\};", tex):
        ys = [float(c.split(",")[1]) for c in re.findall(r"\(([^)]*)\)", coordinates)]
        if not all(lo <= y <= hi for y in ys):
            fail(f"{name}: a verdict mark of pgfplots lies outside the y range [{lo}, {hi}]: {ys}")
    # Error bars drawn by both renderers or by neither, as the caption says (visible: a bar a hundredth of the axis).
    bars_gp, bars_tex = "with yerrorbars" in gp, "error bars/.cd" in tex
    says = "Error bars show" in (work / f"{name}_caption.txt").read_text()
    if not (bars_gp == bars_tex == says):
        fail(f"{name}: error bars drawn by gnuplot {bars_gp}, by pgfplots {bars_tex}; the caption says they show: {says}")
    for r in rows:  # a lower end of 0 stays 0 in the CSV (the renderers draw it from the axis' edge), never a made-up one
        if 0 < float(r[3]) < 1e-290 * float(r[2]):
            fail(f"{name}: a lower end {r[3]} under a value {r[2]}: an interval reaching 0 written as if it did not")
    # (counted over the values drawn: in view, or with a bar reaching into the y range)
    open_ended = sum(1 for r in rows if not float(r[3]) > 0 and float(r[4]) > 0 and float(r[4]) > lo and float(r[3]) < hi)
    caption = (work / f"{name}_caption.txt").read_text()
    said = re.search(r"(\d+) of the intervals drawn (reaches|reach) down to 0", caption)
    if (int(said.group(1)) if said else 0) != open_ended:
        fail(f"{name}: {open_ended} values have intervals reaching 0; the caption says {said.group(0) if said else 'none'}")
    # Upper limits (log y axes): an interval reaching 0 draws no bar (gnuplot's anchor bary is 1/0 there; pgfplots'
    # error columns nan) but an open down-triangle at its upper end, in both renderings, once in both legends.
    if "set logscale y" in gp:
        ylo, yhi = ranges.get("y", (0, math.inf))
        xlo, xhi = ranges.get("x", (-math.inf, math.inf))
        seen = [r for r in rows if xlo <= float(r[1]) <= xhi]  # (a point off the x range is not drawn)
        want = sum(1 for r in seen if not float(r[3]) > 0 and 0 <= float(r[4]) <= yhi)
        marks = re.findall(r"\\addplot\[only marks, mark=triangle, [^\]]*rotate=180[^\]]*\] coordinates \{([^}]*)\};", tex)
        got = sum(len(re.findall(r"\(([^)]*)\)", m)) for m in marks)
        clauses = len(re.findall(r"using 2:\(limity\(\$4, \$5\)\) with points ls \d+ pt 10 ", gp))
        if got != want or clauses != len(marks):
            fail(f"{name}: {want} values only bounded above in view; pgfplots marks {got} ({len(marks)} series), gnuplot {clauses} series")
        if "with yerrorbars" in gp and "using 2:(bary($3, $4, $5))" not in gp:
            fail(f"{name}: gnuplot anchors its bars without bary: an interval reaching 0 would be drawn from the axis' bottom")
        for line in re.findall(r"^  (\S+ \S+ \S+ \S+) \\\\$", tex, re.M):
            x, y, ep, em = line.split()
            if (ep == "nan") != (em == "nan"):
                fail(f"{name}: pgfplots bar {line} half drawn")
        # ... and no value there: the estimate inside [0, u] is not drawn as if it were certified (valy, nan); a bound
        # of 0 likewise (a table's zeros are marked on the bottom frame as an exact 0 is).
        exact = {int(m.group(1)) for m in re.finditer(r"^# series (\d+): (?:exact|bound) of", (work / f"{name}.csv").read_text(), re.M)}
        unvalued = sum(1 for r in rows if int(r[0]) in exact and not float(r[3]) > 0)
        # ... and one whose interval ends below the axis is marked 3 % of the axis' height above its bottom, where
        # gnuplot's limity puts it too (a line drawn along the frame hid under it)
        floor = sum(1 for r in seen if not float(r[3]) > 0 and 0 <= float(r[4]) < ylo)
        inside = ylo * (yhi / ylo) ** 0.03 if ylo > 0 and math.isfinite(yhi) else math.nan
        at_floor = sum(1 for m in marks for c in re.findall(r"\(([^)]*)\)", m) if math.isclose(float(c.split(",")[1]), inside, rel_tol=1e-6))
        if at_floor != floor or (floor and not re.search(r"limity\(l, u\) = .* \? u : \S+\n", gp)):
            fail(f"{name}: {floor} values below the axis; pgfplots marks {at_floor} just inside its bottom frame")
        nan_values = len(re.findall(r"^  \S+ nan \S+ \S+ \\\\$", tex, re.M))
        if nan_values != unvalued or (unvalued and "using 2:(valy($3, $4, $5)) with" not in gp):
            fail(f"{name}: {unvalued} values only bounded above; pgfplots leaves {nan_values} undrawn, gnuplot valy: {'valy' in gp}")
        # one legend entry naming where the marks sit: at their upper ends ("bounded above only") and/or at the bottom
        # frame for intervals under the axis ("under the axis"), in both legends, and none with no mark drawn
        gp_title = re.search(r"using 2:\(limity\(\$4, \$5\)\) with points ls \d+ pt 10 ps \S+ title '([^']*)'", gp)
        tex_entry = re.search(r"rotate=180[^\]]*\] coordinates \{[^}]*\};\n\\addlegendentry\{(.*)\}\n", tex)
        for where, text in (("gnuplot", gp_title), ("pgfplots", tex_entry)):
            label = text.group(1) if text else ""
            if bool(label) != (want > 0) or ("bounded above only" in label) != (want > floor) or ("under the axis" in label) != (floor > 0):
                fail(f"{name}: {want} upper limits, {floor} of them under the axis; {where}'s legend entry reads {label!r}")
    return entries


ESCAPES = r"""
[[case]]
name = "escapes"
bounds = ["MY.esc"]
mu = "gaussian({d}, 1)"
nu = "gaussian(0, 1)"
quantity = "tv"
[case.grid]
d = [0.5, 1]
[[bound]]
id = "MY.esc"
quantity = "tv"
formula = "d"
[[figure]]
name = "escapes"
x = "d"
title = 'A\b \_c \{d\} \n x\\y \^e \@f \&g \~h 50\% end\'
xlabel = "q' c a--b ``d ,, !` ≤ ≥"
style = {outputs = ["pdf", "pgfplots"], show_title = true}
[[figure.series]]
case = "escapes"
id = "MY.esc"
title = 'series\ \\ \_1'
"""


def check_escapes(privamp, work):
    """gnuplot's escapes drawn alike by gnuplot (PDF) and by pdflatex from the pgfplots file (the LaTeX once showed
    '\\_c' as a backslash and a subscript, '\\{d\\}' as '\\d\\')."""
    (work / "escapes.toml").write_text(ESCAPES)
    run(privamp, "figures", str(work / "escapes.toml"), "--out", str(work / "esc"))
    esc = work / "esc"
    (esc / "paper.tex").write_text("\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{pgfplots}\\pgfplotsset{compat=1.18}"
                                   "\\begin{document}\\input{escapes.tex}\\end{document}\n")
    run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex", cwd=esc)
    # (pdflatex sets an apostrophe and a backquote as typographic quotes, ’ and ‘: the same characters read back; -raw
    # reads in content order, so that tick labels placed beside a label do not split it)
    words = lambda pdf: [line.strip().replace("\u2019", "'").replace("\u2018", "`")
                         for line in run("pdftotext", "-raw", str(pdf), "-").stdout.splitlines() if line.strip()]
    gnuplot_text, latex_text = words(esc / "escapes.pdf"), words(esc / "paper.pdf")
    expected_label = "q' c a--b ``d ,, !` ≤ ≥"  # (no ligature: a dash, curly quotes, „ or ¡)
    expected_title, expected_entry = "A\\b _c {d} \\n x\\y ^e @f &g ~h 50\\% end\\", "series\\ \\ _1"
    for what, text in (("gnuplot's PDF", gnuplot_text), ("the typeset pgfplots file", latex_text)):
        if expected_title not in text or expected_entry not in text or expected_label not in text:
            fail(f"escapes: {what} reads {text!r}; gnuplot's escapes draw {expected_title!r}, {expected_entry!r} and {expected_label!r}")
    # Two apostrophes in a row, which gnuplot's strings cannot hold, are refused at load (gnuplot failed after the run).
    (work / "apostrophes.toml").write_text(ESCAPES.replace("xlabel = \"q' c", "xlabel = \"q'' c"))
    bad = subprocess.run([privamp, "figures", str(work / "apostrophes.toml"), "--out", str(work / "apostrophes")], capture_output=True, text=True)
    if bad.returncode != 2 or "key 'xlabel': holds two apostrophes in a row" not in bad.stderr or (work / "apostrophes").exists():
        fail(f"escapes: a label with two apostrophes in a row: exit {bad.returncode}, {bad.stderr.strip()!r}")
    provenance = (esc / "escapes_provenance.txt").read_text()
    if f"figure escapes: {expected_title}" not in provenance or f"- {expected_entry}:" not in provenance:
        fail(f"escapes: the provenance's plain text differs: {provenance[:300]!r}")


def main():
    privamp, source = sys.argv[1], pathlib.Path(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        per_ps = gnuplot_points_per_ps(work)
        declared = float(re.search(r"kGnuplotMarkPt = ([\d.]+);", (source / "plots" / "figure_model.hpp").read_text()).group(1))
        if abs(per_ps - declared) > 0.03 * declared:
            fail(f"gnuplot draws a mark {per_ps:.3g} pt from centre to edge per unit of ps; plots/figure_model.hpp says {declared}")
        figs = work / "figs"
        run(privamp, "figures", str(source / "plots"), "--reduced", "--out", str(figs))
        names = sorted(p.stem for p in figs.glob("*.tex"))
        if len(names) < 15:
            fail(f"only {len(names)} pgfplots files drawn")
        legends = sum(check_figure(figs, n, per_ps) > 0 for n in names)
        # The title in one place: the shipped style puts it in the caption; drawn with show_title = true, it is over
        # the plot in both renderings and not in the caption.
        for n in names:
            gp, tex = (figs / f"{n}.gp").read_text(), (figs / f"{n}.tex").read_text()
            if "unset title" not in gp or "title={" in tex:
                fail(f"{n}: the shipped style (show_title = false) draws a title over the plot")
        shown = (source / "plots" / "figures.toml").read_text().replace("show_title = false", "show_title = true", 1)
        (work / "titled.toml").write_text(shown)
        run(privamp, "figures", str(work / "titled.toml"), "--only", "iteration", "--reduced", "--out", str(work / "titled"))
        tex = (work / "titled" / "iteration.tex").read_text()
        title = re.search(r"title=\{(.*?)\}, title style", tex)
        if not title or "set title '" not in (work / "titled" / "iteration.gp").read_text():
            fail("show_title = true: the title is not over the plot in both renderings")
        else:
            caption = (figs / "iteration_caption.txt").read_text().splitlines()[0]
            if caption != title.group(1) + ".":
                fail(f"show_title = false: the caption does not open with the title: {caption!r}")
            if title.group(1) in (work / "titled" / "iteration_caption.txt").read_text():
                fail("show_title = true: the caption repeats the title drawn over the plot")
        check_escapes(privamp, work)
        # --size: every figure at one column's size without a TOML edit, in both renderings; a wrong word refused
        run(privamp, "figures", str(source / "plots"), "--only", "iteration", "--reduced", "--size", "single", "--out", str(work / "single"))
        gp, tex = (work / "single" / "iteration.gp").read_text(), (work / "single" / "iteration.tex").read_text()
        if "size 3.5in," not in gp or "\\setlength\\privampfigurewidth{\\columnwidth}" not in tex:
            fail("--size single: the figure is not drawn one column wide in both renderings")
        bad = subprocess.run([privamp, "figures", "--size", "triple", "--out", str(work / "bad")], capture_output=True, text=True)
        if bad.returncode != 2 or "--size: 'triple'" not in bad.stderr or (work / "bad").exists():
            fail(f"--size triple: exit {bad.returncode}, {bad.stderr.strip()!r}")
    if failures:
        sys.exit(1)
    print(f"{len(names)} figures: ticks, marks (gnuplot {per_ps:.3g} pt per ps), {legends} legends and the title alike in "
          "gnuplot's PDF and the pgfplots file; escapes read alike")


if __name__ == "__main__":
    main()
