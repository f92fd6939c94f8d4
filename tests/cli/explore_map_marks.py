#!/usr/bin/env python3
"""explore_map_marks.py DIR: the marks of every explore map in DIR are honest and readable.

- Points are not piled up: within a block (one kind of point) and a verdict, no two drawn marks lie within three
  quarters of a mark of each other (1 % of the drawn width, 2 % of the height), so a stack of open triangles cannot
  read as a filled one. The reported points' rings are exempt (each is a result of its own).
- Points without a finite ratio get one mark per verdict: each such block's key names the verdict its points have in
  the search's JSON, and holds as many points as the JSON has of that verdict (fewer only where marks coincide).
- The reported points' labels name each point once; a label names several only where their rings coincide (centres
  within a quarter of a ring: 0.75 % of the width, 1.5 % of the height) or are joined by a chain of coinciding rings,
  and such rings share one.
- The key's count of points hidden under others adds up: drawn marks and hidden points are at most the points.
- Every evaluation of a convergence plot is drawn or counted in its key's "not drawn"; those beyond its y range are
  drawn on its edge.
"""
import json
import math
import pathlib
import re
import sys

directory = pathlib.Path(sys.argv[1])
maps = sorted(directory.glob("*_map.gp"))
assert maps, f"no map in {directory}"
failures = []
# The key of each block of points without a finite ratio, and the verdict its points must have.
NO_RATIO = {"holds, infinitely loose": "holds", "inconclusive, no ratio": "inconclusive",
            "violated, no finite ratio": "violated", "tight, no ratio": "tight"}

for gp_path in maps:
    gp = gp_path.read_text()
    stem = gp_path.name[: -len("_map.gp")]
    blocks = (directory / f"{stem}_map.csv").read_text().split("\n\n\n")
    tree = json.loads((directory / f"{stem}.json").read_text())

    def axis(name):
        m = re.search(rf"^set {name}range \[([-0-9.e+]+):([-0-9.e+]+)\]$", gp, re.M)
        if not m:
            return None
        lo, hi = float(m.group(1)), float(m.group(2))
        log = re.search(rf"^set logscale {name}$", gp, re.M) is not None
        return (lambda v: math.log(v / lo) / math.log(hi / lo)) if log else (lambda v: (v - lo) / (hi - lo))

    ax, ay = axis("x"), axis("y")
    if ax is None or ay is None:
        continue  # a map of one axis, or of words
    reported = []
    styles = {int(i): style for i, style in re.findall(r"index (\d+) (using 1:2[^\n]*)", gp)}
    for index, text in enumerate(blocks):
        style = styles.get(index, "")
        rows = [l.split(",") for l in text.splitlines() if l and not l.startswith("#")]
        if "reported points" in style:
            reported = [(ax(float(r[0])), ay(float(r[1]))) for r in rows]
            continue
        drawn = {}
        for row in rows:
            u, v = ax(float(row[0])), ay(float(row[1]))
            for pu, pv in drawn.get(row[3], []):
                if ((u - pu) / 0.01) ** 2 + ((v - pv) / 0.02) ** 2 < 1 - 1e-9:
                    failures.append(f"{gp_path.name}: block {index}: two marks within 3/4 of a mark: {row[:2]}")
            drawn.setdefault(row[3], []).append((u, v))
        for key, verdict in NO_RATIO.items():
            if f"title '{key}" in style:
                expected = [p for p in tree["points"] if p.get("verdict") == verdict
                            and not isinstance(p.get("ratio"), (int, float)) and p.get("status") != "error"]
                if not rows or len(rows) > len(expected):
                    failures.append(f"{gp_path.name}: '{key}' block has {len(rows)} marks, the JSON {len(expected)} such points")
    # every point without a ratio and with numbers is in the block of its verdict (none left to a catch-all mark)
    for verdict in ("holds", "inconclusive", "violated"):
        some = [p for p in tree["points"] if p.get("verdict") == verdict and not isinstance(p.get("ratio"), (int, float))
                and p.get("status") not in ("error", "not-applicable") and p.get("outside", 0) == 0]
        key = next(k for k, v in NO_RATIO.items() if v == verdict)
        if some and f"title '{key}" not in gp and "outside --where" not in gp:
            failures.append(f"{gp_path.name}: {len(some)} {verdict} points without a ratio, and no '{key}' key")

    # the ring labels
    labels = [[int(n) for n in text.split(", ")] for text in re.findall(r"^set label '([0-9, ]+)' at ", gp, re.M)]
    named = sorted(n for label in labels for n in label)
    if named != list(range(1, len(reported) + 1)):
        failures.append(f"{gp_path.name}: the labels name {named}, the map has {len(reported)} reported points")
    else:
        def coincide(a, b):
            (u1, v1), (u2, v2) = reported[a - 1], reported[b - 1]
            return ((u1 - u2) / 0.0075) ** 2 + ((v1 - v2) / 0.015) ** 2 < 1
        group = {n: i for i, label in enumerate(labels) for n in label}
        # joined: a chain of coinciding rings links them (1 ~ 2 ~ 3 share one label even where 1 and 3 lie apart)
        component = {n: n for n in named}
        def root(n):
            while component[n] != n:
                n = component[n]
            return n
        for a in named:
            for b in named:
                if a < b and coincide(a, b):
                    component[root(b)] = root(a)
        for a in named:
            for b in named:
                if a < b and (root(a) == root(b)) != (group[a] == group[b]):
                    failures.append(f"{gp_path.name}: rings {a} and {b} {'are joined by coinciding rings' if root(a) == root(b) else 'are apart'}"
                                    f" but {'do not share' if root(a) == root(b) else 'share'} a label")
    # the hidden points
    hidden = re.search(r"title '([0-9]+) points? hidden under others", gp)
    drawn_marks = sum(len([l for l in text.splitlines() if l and not l.startswith("#")])
                      for index, text in enumerate(blocks) if "reported points" not in styles.get(index, ""))
    if hidden and drawn_marks + int(hidden.group(1)) > len(tree["points"]):
        failures.append(f"{gp_path.name}: {drawn_marks} marks and {hidden.group(1)} hidden, of {len(tree['points'])} points")

# Every evaluation of a convergence plot is drawn (a ratio, or tight at 1) or counted in its key's "not drawn", by
# its kind: the key once said "not drawn: 1" where 29 degenerate points were left out.
for gp_path in sorted(directory.glob("*_convergence.gp")):
    gp = gp_path.read_text()
    rows = [l.split(",") for l in (directory / gp_path.name.replace(".gp", ".csv")).read_text().splitlines() if l and not l.startswith("#")]
    drawn = sum(1 for r in rows if r[2] != "" or r[5] == "1")
    key = re.search(r"title 'not drawn: ([^']*)'", gp)
    counted = sum(int(part.split(" ", 1)[0]) for part in key.group(1).split("; ")) if key else 0
    if drawn + counted != len(rows):
        failures.append(f"{gp_path.name}: {drawn} evaluations drawn and {counted} counted as not drawn, of {len(rows)}")
    # An evaluation beyond the y range is drawn on the edge it lies beyond (a triangle), not only counted.
    yrange = re.search(r"set yrange \[([^:]+):([^\]]+)\]", gp)
    if yrange:
        lo, hi = float(yrange.group(1)), float(yrange.group(2))
        beyond = sum(1 for r in rows if r[2] != "" and not (lo <= float(r[2]) <= hi))
        edges = re.findall(r"\$3 > ([-0-9.e+]+) \? ([-0-9.e+]+) : \$3 < ([-0-9.e+]+) \? ([-0-9.e+]+) : 1/0", gp)
        if beyond and not edges:
            failures.append(f"{gp_path.name}: {beyond} evaluations beyond the y range [{lo}, {hi}] and no mark on its edge")
        # ... and the marks lie inside the range gnuplot is given (a range rounded to 6 digits lay inside the marks,
        # which gnuplot then dropped: 27 triangles announced, none drawn)
        for clause in edges:
            top, bottom = float(clause[1]), float(clause[3])
            if not (lo <= bottom <= hi and lo <= top <= hi):
                failures.append(f"{gp_path.name}: edge marks at {bottom} and {top} outside the y range [{lo}, {hi}]")

print(f"{len(maps)} maps checked")
if failures:
    print("\n".join(failures[:20]))
    sys.exit(1)
