#!/usr/bin/env bash
# bench/compare.sh COMMIT [RUNS] -- ARGS...: the same `privamp ARGS...` timed with this tree's build/privamp and with
# privamp as built at COMMIT (a worktree in build-compare/COMMIT, built once, Release, the privamp target only);
# prints the median wall time of RUNS runs (default 3) of each, alternating, and their ratio. Both run from the
# source tree's root, so that relative paths (cases/...) name the same files.
#   bench/compare.sh 03120a5 -- divergence "noisy_sgd(n=1000, i=1, zi=1, eta=0.1)" "noisy_sgd(n=1000, i=1, zi=-1, eta=0.1)" --renyi 2
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/compare.sh COMMIT [RUNS] -- ARGS..." >&2; exit 2; }
commit=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "bench/compare.sh: '$1' is not a commit" >&2; exit 2; }
shift
runs=3
if [ "$1" != "--" ]; then runs=$1; shift; fi
[[ "$runs" =~ ^[1-9][0-9]?$ ]] || { echo "bench/compare.sh: RUNS = '$runs' must be a whole number in [1, 99]" >&2; exit 2; }
[ "${1:-}" = "--" ] || { echo "usage: bench/compare.sh COMMIT [RUNS] -- ARGS..." >&2; exit 2; }
shift
current=build/privamp
[ -x "$current" ] || { echo "bench/compare.sh: build $current first (cmake --build build --target privamp)" >&2; exit 2; }
dir=build-compare/${commit:0:12}
if [ ! -x "$dir/build/privamp" ]; then
  echo "building privamp at ${commit:0:12} in $dir (once)" >&2
  [ -d "$dir/src" ] || git worktree add --detach "$dir/src" "$commit" > /dev/null
  cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release > "$dir/configure.log" 2>&1
  cmake --build "$dir/build" -j 2 --target privamp > "$dir/build.log" 2>&1 || { tail -20 "$dir/build.log"; exit 1; }
fi
time_one() {  # wall seconds of one run (its output discarded; a failing run is reported)
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1 || { echo "bench/compare.sh: '$*' failed" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
new=() old=()
for ((k = 0; k < runs; ++k)); do
  new+=("$(time_one "$current" "$@")")
  old+=("$(time_one "$dir/build/privamp" "$@")")
done
m_new=$(printf '%s\n' "${new[@]}" | median) m_old=$(printf '%s\n' "${old[@]}" | median)
echo "at ${commit:0:12}: median ${m_old} s of ${runs} (${old[*]})"
echo "this tree:     median ${m_new} s of ${runs} (${new[*]})"
echo "ratio: $(echo "scale=2; $m_old / $m_new" | bc)x faster"
