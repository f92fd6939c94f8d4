#!/usr/bin/env bash
# A killed `privamp explore` leaves every output whole: the old file or the complete new one.
# usage: kill_explore.sh PRIVAMP CASE_FILE CASE_NAME WORKDIR SEED
#  1. A complete run writes the reference outputs (summary.md; per case and ID STEM.md, .csv, .json, the point
#     files, the map and convergence figures: data, scripts, PDF and PNG). Explore is reproducible from its seed, so
#     a complete run rewrites the same bytes.
#  2. Runs into the same folder killed by SIGKILL, SIGINT or SIGTERM after a random delay (seeded, printed) spread
#     over the run: afterwards every text file equals the reference; a PDF ends with its trailer and a PNG with its
#     IEND chunk (a PDF carries its creation date, so the figures are checked whole, not equal).
#  3. The next complete run leaves no temporary file behind, removes the point files of an earlier run that it did
#     not rewrite (a planted STEM_point9.toml written by explore) and keeps a user's file of that form.
set -u
privamp=$1 case_file=$2 case_name=$3 work=$4 seed=${5:-1}
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/kill_common.sh"
RANDOM=$seed
echo "seed $seed"
args=(explore "$case_file" --case "$case_name" --budget 60 --seed 3 --jobs 1 --out "$work/out")
run() { "$privamp" "${args[@]}"; }

start=$(date +%s.%N)
run > /dev/null 2>&1 || fail "the reference run failed"
duration=$(elapsed "$start")
echo "one run takes ${duration} s"
mkdir -p "$work/ref"
(cd "$work/out" && ls) > "$work/files"
[ "$(grep -c '' "$work/files")" -ge 10 ] || fail "the reference run wrote only: $(tr '\n' ' ' < "$work/files")"
grep -q '\.pdf$' "$work/files" && grep -q '\.png$' "$work/files" || fail "the reference run drew no figure"
while read -r f; do cp "$work/out/$f" "$work/ref/"; done < "$work/files"

# The checks catch what they are for: a truncated copy of each kind fails them.
sample_pdf=$(grep -m1 '\.pdf$' "$work/files") sample_png=$(grep -m1 '\.png$' "$work/files")
head -c 2000 "$work/ref/$sample_pdf" > "$work/cut.pdf" && head -c 2000 "$work/ref/$sample_png" > "$work/cut.png"
whole_pdf "$work/cut.pdf" && fail "the PDF check passes a truncated PDF"
whole_png "$work/cut.png" && fail "the PNG check passes a truncated PNG"

signals=(KILL INT TERM)
for trial in 1 2 3 4 5 6; do
  signal=${signals[$((trial % 3))]}
  delay=$(awk -v d="$duration" -v r="$((10 + RANDOM % 90))" 'BEGIN { printf "%.3f", d * r / 100 }')
  kill_after "$delay" "$signal" "$privamp" "${args[@]}"
  echo "trial $trial: SIG$signal after ${delay} s"
  while read -r f; do
    case "$f" in
      *.pdf) whole_pdf "$work/out/$f" || fail "trial $trial: $f is truncated"; continue ;;
      *.png) whole_png "$work/out/$f" || fail "trial $trial: $f is truncated"; continue ;;
    esac
    cmp -s "$work/out/$f" "$work/ref/$f" || fail "trial $trial: $f is neither the old file nor the complete new one"
  done < "$work/files"
done
point=$(grep -m1 '_point1\.toml$' "$work/files") && stem=${point%_point1.toml}
cp "$work/ref/$point" "$work/out/${stem}_point9.toml"
echo "# a user's notes" > "$work/out/${stem}_point8.toml"
run > "$work/after.log" 2>&1 || fail "a run after the kills failed: $(tail -3 "$work/after.log")"
if ls -a "$work/out" | grep -q privamp-tmp; then fail "temporary files remain after a complete run"; fi
[ -e "$work/out/${stem}_point9.toml" ] && fail "an earlier run's point file that this run did not rewrite remains"
[ -e "$work/out/${stem}_point8.toml" ] || fail "a user's file named like a point file was removed"
[ -e "$work/out/$point" ] || fail "the run removed its own point file"
echo "6 killed runs: every explore output whole; stale point files removed, a user's file kept"
