#!/usr/bin/env bash
# explore_reproducible.sh PRIVAMP CASEFILE CASE OUT [MPIEXEC]: the same exploration with one thread, two threads and
# (given an MPI launcher) two processes must write identical CSV, Markdown and point files (all but summary.md,
# which lists timings).
set -euo pipefail
privamp=$1 file=$2 case_name=$3 out=$4 mpiexec=${5:-}
rm -rf "$out"
args=(explore "$file" --case "$case_name" --budget 40 --seed 3 --goal loosest)
"$privamp" "${args[@]}" -j 1 --out "$out/one" > /dev/null
"$privamp" "${args[@]}" -j 2 --out "$out/two" > /dev/null
runs=(two)
if [ -n "$mpiexec" ]; then
  "$mpiexec" --oversubscribe --allow-run-as-root -n 2 "$privamp" "${args[@]}" -j 1 --out "$out/mpi" > /dev/null
  runs+=(mpi)
fi
n=0
for f in "$out"/one/*.csv "$out"/one/*.md "$out"/one/*.toml; do
  name=$(basename "$f")
  [ "$name" = summary.md ] && continue  # it lists the time each search took
  for r in "${runs[@]}"; do
    cmp "$f" "$out/$r/$name" || { echo "differs: $r/$name"; exit 1; }
  done
  n=$((n + 1))
done
[ "$n" -ge 4 ] || { echo "expected the CSV, Markdown and point files, found $n"; exit 1; }
echo "identical: ${#runs[@]} other run(s), $n files each"
