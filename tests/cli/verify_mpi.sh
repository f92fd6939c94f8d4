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
# MPI is a module loaded only under a launcher: the program itself does not link OpenMPI, and without the module a
# launched run refuses (every rank would otherwise do the whole job) instead of running N copies.
if ldd "$privamp" | grep -q 'libmpi'; then echo "the program links OpenMPI: $(ldd "$privamp" | grep libmpi)"; exit 1; fi
alone="$out/alone"
mkdir -p "$alone"
cp "$privamp" "$alone/privamp"
status=0
OMPI_COMM_WORLD_SIZE=2 "$alone/privamp" --version > "$alone/out" 2> "$alone/err" || status=$?
[ "$status" = 2 ] || { echo "launched without its MPI layer: exit $status (expected 2)"; exit 1; }
grep -q "started by an MPI launcher, but its MPI layer could not be loaded: $alone/libprivamp_mpi.so" "$alone/err" ||
  { echo "launched without its MPI layer: unexpected message: $(cat "$alone/err")"; exit 1; }
echo "the program loads MPI only under a launcher, and refuses without its MPI layer"
