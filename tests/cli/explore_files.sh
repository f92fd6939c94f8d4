#!/usr/bin/env bash
# explore_files.sh PRIVAMP WORK_DIR: an exploration of a case that checks a user's [[bound]] writes point files that
# verify alone (the bound is inlined), and two runs into one directory keep both summaries.
set -euo pipefail
privamp=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
cat > "$work/mine.toml" <<'TOML'
[[bound]]
id = "MY.half"
statement = "R_alpha(N(delta, 1) || N(0, 1)) <= alpha delta^2 / 2 (Gaussian, tight)"
quantity = "renyi"
requires = ["delta > 0"]
formula = "alpha * delta^2 / 2"

[[case]]
name = "Gaussian shift against my bound"
bounds = ["MY.half"]
mu = "gaussian({delta}, 1)"
nu = "gaussian(0, 1)"
quantity = "renyi"
order = "{alpha}"
[case.grid]
alpha = 2
delta = 1
[case.explore]
alpha = {min = 1.5, max = 50, scale = "log"}
delta = {min = 0.1, max = 3}
where = ["delta >= 0.5"]
TOML
"$privamp" explore "$work/mine.toml" --budget 20 --out "$work/out" > "$work/log1" 2>&1
"$privamp" explore "$work/mine.toml" --budget 20 --goal tightest --out "$work/out" > "$work/log2" 2>&1
[ -f "$work/out/summary.md" ] && [ -f "$work/out/summary-2.md" ] || { echo "the second run overwrote the first summary"; ls "$work/out"; exit 1; }
grep -q "tightest" "$work/out/summary-2.md" && grep -q "loosest" "$work/out/summary.md"
# The point file alone (another directory, no other file): the bound is declared inside it.
point=$(ls "$work"/out/*_point1.toml | head -1)
mkdir -p "$work/alone" && cp "$point" "$work/alone/point.toml"
(cd "$work/alone" && "$privamp" verify point.toml > log 2>&1) || { echo "the point file does not verify alone"; cat "$work/alone/log"; exit 1; }
grep -q "MY.half" "$work/alone/log"
grep -q '^\[\[bound\]\]' "$work/alone/point.toml"
# The region held: every re-evaluated point has delta >= 0.5; the names are short.
for f in "$work"/out/*_point*.toml; do
  awk -F' = ' '$1 == "delta" { exit !($2 >= 0.5) }' "$f" || { echo "a reported point is outside the region: $f"; exit 1; }
  [ "$(basename "$f" | wc -c)" -le 70 ] || { echo "a long file name: $f"; exit 1; }
done
# STEM.json is one tree with STEM.csv's records as its points (the same columns, the same numbers).
stem=$(basename "$point" _point1.toml)
python3 - "$work/out/$stem.json" "$work/out/$stem.csv" <<'PY'
import csv, json, math, sys
tree = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(line for line in open(sys.argv[2]) if not line.startswith("#")))
assert tree["budget"] == 20 and tree["axes"] == ["alpha", "delta"], tree["axes"]
assert 0 < len(tree["points"]) == len(rows) <= 20, (len(tree["points"]), len(rows))
for record, row in zip(tree["points"], rows):
    assert list(record) == list(row), (list(record), list(row))
    for k in ("exact", "bound", "slack", "alpha"):
        a, b = record[k], row[k]
        if isinstance(a, (int, float)):
            assert math.isclose(a, float(b), rel_tol=1e-12), (k, a, b)
assert tree["best"] and tree["best"][0]["id"] == "MY.half" and tree["best_index"][0] < len(rows)
PY
"$privamp" explore "$work/mine.toml" --budget 16 --frontier delta --bins 2 --out "$work/front" > "$work/log3" 2>&1
python3 - "$work"/front/*_frontier.json <<'PY'
import json, sys
tree = json.load(open(sys.argv[1]))
bins = tree["frontier"]["bins"]
assert tree["frontier"]["name"] == "delta" and len(bins) == 2, tree["frontier"]
assert all(b["refined"] > 0 or b["not_refined"] for b in bins), bins
PY
# The frontier figure draws the edges between bins (two neighbouring bins with equal best ratios once drew one unbroken
# segment), at the bins' own bounds; each map numbers its reported rings (as the report does), each number once.
python3 - "$work"/front/*_frontier.json "$work"/front/*_frontier.gp "$work"/out/*_map.gp <<'PY'
import json, re, sys
bins = json.load(open(sys.argv[1]))["frontier"]["bins"]
edges = [float(x) for x in re.findall(r"^set arrow from ([-0-9.e+]+), graph 0 to \1, graph 1 nohead", open(sys.argv[2]).read(), re.M)]
expected = [b["upper"] for b in bins[:-1]]
assert len(edges) == len(expected) and all(abs(a - b) <= 1e-12 * max(1, abs(b)) for a, b in zip(edges, expected)), (edges, expected)
for gp in sys.argv[3:]:
    tree = json.load(open(gp[: -len("_map.gp")] + ".json"))
    labels = re.findall(r"^set label '([0-9, ]+)' at ", open(gp).read(), re.M)
    numbers = [int(n) for label in labels for n in label.split(", ")]
    assert tree["best"] and sorted(numbers) == list(range(1, len(tree["best"]) + 1)), (gp, labels, len(tree["best"]))
PY
# A catalogue theorem's plots name it as its source does, with the ID in brackets (a title "T1.3" named nothing a
# reader of the paper knows); a degenerate optimum on a frontier is labelled beside its mark (a bin's best point a
# few thousandths away read as the same point); the ratio axis carries at least four ticks.
cases_dir=$(cd "$(dirname "$0")/../../cases" && pwd)
"$privamp" explore T1.3 --cases "$cases_dir" --goal tightest --frontier gamma_doeblin --budget 120 --seed 1 --out "$work/theorem" > "$work/log3c" 2>&1
python3 - "$work"/theorem/*random_Dirichlet*_frontier.gp "$work"/theorem/*random_Dirichlet*_frontier_points.csv <<'PY'
import re, sys
gp = open(sys.argv[1]).read()
assert "set title 'Theorem 1 (3) [T1.3], random Dirichlet kernels" in gp, re.findall(r"^set title.*", gp, re.M)
blocks = [[tuple(map(float, l.split(","))) for l in b.splitlines() if l and not l.startswith(("#", "nan"))]
          for b in open(sys.argv[2]).read().split("\n\n\n")]
best, degenerate, steps = blocks[1], blocks[2], [p for b in blocks[3:] for p in b]
y_lo, y_hi = map(float, re.search(r"^set yrange \[([-0-9.e+]+):([-0-9.e+]+)\]", gp, re.M).groups())
x_span = max(x for x, _ in steps) - min(x for x, _ in steps)
near = {d for d in degenerate if any(abs(b[0] - d[0]) <= 0.03 * x_span and abs(b[1] - d[1]) <= 0.03 * (y_hi - y_lo) for b in best)}
labels = {tuple(map(float, m)) for m in re.findall(r"^set label 'degenerate' at ([-0-9.e+]+), ([-0-9.e+]+) ", gp, re.M)}
assert near and labels == near, (labels, near, degenerate)
ticks = re.search(r"^set ytics \((.*)\)$", gp, re.M).group(1)
assert ticks.count("'") >= 8, ticks
# each bin's step stops short of its edges (equal neighbours drew one line); bin edges, not a vertical grid
text = open(sys.argv[2]).read().split("\n\n\n")
segments = [[tuple(map(float, l.split(","))) for l in seg.splitlines() if l] for seg in text[3].split("\n\n") if seg.strip()]
assert len(segments) >= 2 and all(a[1][0] < b[0][0] for a, b in zip(segments, segments[1:])), segments
assert "set grid noxtics" in gp
PY
# A map of a bound tight everywhere (the subsampling table on Poisson-subsampled Laplace: bound = exact to 1e-14, and
# both 0 where the noise hides the shift) has one colour and a bar that says so (rounding noise painted a scale from
# purple to yellow); its zeros are tight points without a ratio, keyed apart from infinitely loose ones; the ring
# labels sit on white; the convergence plot names the case.
"$privamp" explore "$cases_dir/subsampling.toml" --case "Poisson subsampled Laplace" --goal tightest --budget 40 --seed 1 --out "$work/flat" > "$work/log3d" 2>&1
python3 "$(dirname "$0")/explore_map_marks.py" "$work/flat"
python3 - "$work"/flat/*_map.gp "$work"/flat/*_map.csv "$work"/flat/*_convergence.gp "$work"/flat/*[0-9a-f].json <<'PY'
import json, re, sys
gp, csv, conv, tree = open(sys.argv[1]).read(), open(sys.argv[2]).read(), open(sys.argv[3]).read(), json.load(open(sys.argv[4]))
ratios = [p["ratio"] for p in tree["points"] if isinstance(p.get("ratio"), (int, float))]
assert ratios and max(ratios) / min(ratios) - 1 < 1e-9, (min(ratios), max(ratios))
assert re.search(r"^set cblabel 'bound/exact = 1 at every point \(within \de-\d+ relative\)'$", gp, re.M), gp
assert "unset cbtics" in gp
zeros = [p for p in tree["points"] if p.get("verdict") == "tight" and not isinstance(p.get("ratio"), (int, float))]
assert zeros and all(p.get("exact") == 0 and p.get("bound") == 0 for p in zeros), zeros[:3]
block = re.search(r"index (\d+) using 1:2 with points pt 13 ps 0.8 lc rgb '#21908d' title 'tight, no ratio \(exact = bound: 0 or below doubles\)'", gp)
assert zeros and block, (len(zeros), bool(block))
rows = [b for b in csv.split("\n\n\n")][int(block.group(1))]
assert len([l for l in rows.splitlines() if l and not l.startswith("#")]) == len(zeros)
assert "set style textbox opaque fillcolor rgb 'white'" in gp and re.search(r"^set label '1.*' at .* boxed$", gp, re.M)
assert re.search(r"^set title '.*\[SUB.table\], Poisson subsampled Laplace: convergence of the search'$", conv, re.M), re.findall("^set title.*", conv, re.M)
# the tight points without a ratio are drawn at 1 on the convergence plot, counted in its key, not in its best so far
assert re.search(r"using 1:\(\$6 == 1 \? 0 : 1/0\) with points pt 13 .* title '%d tight, no ratio \(exact = bound: 0 or below doubles\), drawn at 1, not in the best so far'" % len(zeros), conv), conv[-900:]
PY
# A bound ID with gnuplot's enhanced-text markup: every plot title shows it literally (escaped), the convergence
# plot's as the map's and the frontier's. IDs are ASCII words, so '_' is the one markup character they can hold;
# ^ and { } are refused at load.
sed -e 's/MY\.half/MY.a_b^c{d}/g' "$work/mine.toml" > "$work/braces.toml"
if "$privamp" explore "$work/braces.toml" --budget 12 --out "$work/braces" > "$work/log3b" 2>&1 || ! grep -q "is not an ID" "$work/log3b"; then
  echo "an ID with ^ and braces was not refused:"; cat "$work/log3b"; exit 1
fi
sed -e 's/MY\.half/MY.a_b_c/g' "$work/mine.toml" > "$work/markup.toml"
"$privamp" explore "$work/markup.toml" --budget 12 --out "$work/markup" > "$work/log4" 2>&1
"$privamp" explore "$work/markup.toml" --budget 12 --frontier delta --bins 2 --out "$work/markup" > "$work/log5" 2>&1
titles=$(grep -h "^set title" "$work"/markup/*.gp)
[ "$(printf '%s\n' "$titles" | wc -l)" -ge 3 ] || { echo "expected the map, frontier and convergence titles: $titles"; exit 1; }
if printf '%s\n' "$titles" | grep -v 'MY\.a\\_b\\_c' | grep -q .; then
  echo "a plot title shows the bound ID's markup unescaped:"; printf '%s\n' "$titles"; exit 1
fi
echo "explore files: self-contained point files, two summaries kept, the region held, JSON and CSV agree, titles escaped and naming the theorem"
