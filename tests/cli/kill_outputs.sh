#!/usr/bin/env bash
# Outputs survive a kill, a second run and a planted link.
# usage: kill_outputs.sh PRIVAMP CASE_FILE SLOW_CASE_FILE WORKDIR SEED (the slow one for two runs at once)
#  1. A complete run writes the reference outputs (results.csv, results.json, summary.tex; golden files).
#  2. Runs into the same folders killed by SIGKILL, SIGINT or SIGTERM after a random delay (seeded, printed): every
#     output is afterwards either the reference (the old file, or the same new one) — never truncated — and
#     --check-golden still reads the golden files.
#  3. Two runs into one folder at once: exactly one is refused (exit 2, naming the holder's pid).
#  4. Links planted where outputs go: refused before any work (exit 2 naming the path); the files they point to are
#     untouched.
set -u
privamp=$1 case_file=$2 slow_case=$3 work=$4 seed=${5:-1}
rm -rf "$work" && mkdir -p "$work/golden"
. "$(dirname "$0")/kill_common.sh"
RANDOM=$seed
echo "seed $seed"

"$privamp" verify "$case_file" --out "$work/out" --jobs 1 >/dev/null 2>&1 || fail "the reference run failed"
"$privamp" verify "$case_file" --update-golden --golden-dir "$work/golden" --jobs 1 >/dev/null 2>&1 || fail "the golden run failed"
mkdir -p "$work/ref" && cp "$work/out/results.csv" "$work/out/results.json" "$work/out/summary.tex" "$work/ref/"
cp -r "$work/golden" "$work/ref_golden"
start=$(date +%s.%N)
"$privamp" verify "$case_file" --out "$work/timing" --jobs 1 >/dev/null 2>&1
duration=$(elapsed "$start")
echo "one run takes ${duration} s"

signals=(KILL INT TERM)
for trial in 1 2 3 4 5 6 7 8 9; do
  signal=${signals[$((trial % 3))]}
  # A delay around the end of the run, where the files are written.
  delay=$(awk -v d="$duration" -v r="$((80 + RANDOM % 30))" 'BEGIN { printf "%.3f", d * r / 100 }')
  if [ $((trial % 2)) -eq 0 ]; then
    "$privamp" verify "$case_file" --out "$work/out" --jobs 1 >/dev/null 2>&1 &
  else
    "$privamp" verify "$case_file" --update-golden --golden-dir "$work/golden" --jobs 1 >/dev/null 2>&1 &
  fi
  pid=$!
  sleep "$delay"
  kill -s "$signal" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  echo "trial $trial: SIG$signal after ${delay} s"
  for f in results.csv results.json; do
    cmp -s "$work/out/$f" "$work/ref/$f" || fail "trial $trial: out/$f is neither the old file nor the complete new one"
  done
  # summary.tex starts with the run's date: the rest must be whole.
  cmp -s <(tail -n +2 "$work/out/summary.tex") <(tail -n +2 "$work/ref/summary.tex") || fail "trial $trial: out/summary.tex is truncated"
  for f in "$work"/ref_golden/*.json; do
    cmp -s "$f" "$work/golden/$(basename "$f")" || fail "trial $trial: golden $(basename "$f") changed or truncated"
  done
done
"$privamp" verify "$case_file" --check-golden --golden-dir "$work/golden" --jobs 1 >/dev/null 2>&1 || fail "--check-golden after the kills"
# The next run into the folder completes and removes what the killed ones left (temporary files of a kill mid-write).
"$privamp" verify "$case_file" --out "$work/out" --jobs 1 >/dev/null 2>&1 || fail "a run after the kills failed"
if ls -a "$work/out" | grep -q privamp-tmp; then fail "temporary files remain after a complete run"; fi

# Two runs into one folder: one of them is refused while the other holds the folder.
"$privamp" verify "$slow_case" --out "$work/shared" --jobs 1 >"$work/a.log" 2>&1 &
a=$!
sleep 0.5
"$privamp" verify "$slow_case" --out "$work/shared" --jobs 1 >"$work/b.log" 2>&1
b_status=$?
wait $a
a_status=$?
[ "$a_status" -ne 2 ] || fail "the first run was refused"
[ "$b_status" -eq 2 ] || fail "the second run into the same folder exited $b_status, not 2"
grep -q "another privamp run (pid $a)" "$work/b.log" || fail "the refusal does not name the holder: $(cat "$work/b.log")"
head -1 "$work/shared/results.csv" | grep -q '^file,case,id' || fail "the first run's results.csv is missing"

# Links planted in the output folder: refused before any work; nothing outside is written.
mkdir -p "$work/planted"
echo precious >"$work/outside.txt"
ln -s "$work/outside.txt" "$work/planted/results.csv"
ln -s "$work/created_outside.txt" "$work/planted/report.md"
out=$("$privamp" verify "$case_file" --out "$work/planted" --jobs 1 2>&1)
status=$?
[ "$status" -eq 2 ] || fail "a planted link: exit $status, not 2"
echo "$out" | grep -q "symbolic link" || fail "a planted link: the message does not say so: $out"
[ "$(cat "$work/outside.txt")" = precious ] || fail "the file behind the link was overwritten"
[ ! -e "$work/created_outside.txt" ] || fail "a file was created through a dangling link"
echo "kill, concurrency and link checks passed"
