#!/usr/bin/env bash
# figure_ticks.sh PRIVAMP SOURCE_DIR: the PDF/PNG (gnuplot) and the pgfplots file of a figure label their log axes alike: the
# same explicit ticks where a short span gets them (1, 2, 5 ...), else powers of ten in both (10^3, not 1000 beside
# pgfplots' 10^3). Checked on the shipped figures with log axes, reduced.
set -u
privamp=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
"$privamp" figures "$source/plots" --only shuffling,shuffling_epsilon,subsampling --reduced --out "$work" > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }
for name in shuffling shuffling_epsilon subsampling; do
  gp="$work/$name.gp" tex="$work/$name.tex"
  for axis in x y; do
    grep -q "set logscale $axis" "$gp" || continue
    tics=$(sed -n "s/^set ${axis}tics (\(.*\))$/\1/p" "$gp" | tr -d ' ')
    if [ -n "$tics" ]; then
      grep -q "${axis}tick={$tics}" "$tex" || { echo "FAIL: $name: $axis ticks ($tics) not in the pgfplots file"; failures=$((failures + 1)); }
    else
      grep -q "set format $axis '10^{%L}'" "$gp" || { echo "FAIL: $name: the $axis axis is not labelled in powers of ten"; failures=$((failures + 1)); }
      ! grep -q "${axis}tick=" "$tex" || { echo "FAIL: $name: pgfplots has $axis ticks gnuplot lacks"; failures=$((failures + 1)); }
    fi
  done
done
[ "$failures" -eq 0 ] && echo "log axes labelled alike in gnuplot and pgfplots"
exit $((failures > 0))
