#!/usr/bin/env bash
# verify_mpi.sh PRIVAMP MPIEXEC CASEFILE OUT: `privamp verify` over two MPI processes writes the same results and
# report as one process (but for the run's metadata line: date, wall time and command line).
set -euo pipefail
privamp=$1 mpiexec=$2 file=$3 out=$4
rm -rf "$out"
"$privamp" verify "$file" --out "$out/one" > /dev/null
"$mpiexec" --oversubscribe --allow-run-as-root -n 2 "$privamp" verify "$file" --out "$out/mpi" > /dev/null
cmp "$out/one/results.csv" "$out/mpi/results.csv" || { echo "differs: results.csv"; exit 1; }
for f in report.md summary.tex; do
  cmp <(grep -v '^%\? \?privamp .*(commit ' "$out/one/$f") <(grep -v '^%\? \?privamp .*(commit ' "$out/mpi/$f") ||
    { echo "differs: $f"; exit 1; }
done
echo "identical results.csv, report.md and summary.tex over 2 processes"
