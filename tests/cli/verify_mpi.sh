#!/usr/bin/env bash
# verify_mpi.sh PRIVAMP MPIEXEC CASEFILE OUT: `privamp verify` over two MPI processes writes the same results and
# report as one process.
set -euo pipefail
privamp=$1 mpiexec=$2 file=$3 out=$4
rm -rf "$out"
"$privamp" verify "$file" --out "$out/one" > /dev/null
"$mpiexec" --oversubscribe --allow-run-as-root -n 2 "$privamp" verify "$file" --out "$out/mpi" > /dev/null
for f in results.csv report.md; do
  cmp "$out/one/$f" "$out/mpi/$f" || { echo "differs: $f"; exit 1; }
done
echo "identical results.csv and report.md over 2 processes"
