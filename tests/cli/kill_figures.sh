#!/usr/bin/env bash
# A killed `privamp figures` leaves every figure file whole: the old one or the complete new one.
# usage: kill_figures.sh PRIVAMP FIGURE_DIR WORKDIR SEED
#  1. A complete run writes the reference files of one figure (CSV, tidy CSV, caption, pgfplots, script, PDF, PNG).
#  2. Runs into the same folder killed by SIGKILL, SIGINT or SIGTERM after a random delay (seeded, printed) spread
#     over the run: afterwards the text files equal the reference (they are deterministic), the PDF ends with its
#     trailer and the PNG with its IEND chunk (they carry a creation date, so they are checked whole, not equal).
#  3. The next complete run leaves no temporary file behind.
set -u
privamp=$1 figures=$2 work=$3 seed=${4:-1}
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/kill_common.sh"
RANDOM=$seed
echo "seed $seed"
args=(figures "$figures" --only iteration --reduced --out "$work/out" --jobs 1)
run() { "$privamp" "${args[@]}"; }

start=$(date +%s.%N)
run > /dev/null 2>&1 || fail "the reference run failed"
duration=$(elapsed "$start")
echo "one run takes ${duration} s"
texts=(iteration.csv iteration_tidy.csv iteration_caption.txt iteration_provenance.txt iteration.tex iteration.gp)
mkdir -p "$work/ref" && for f in "${texts[@]}"; do cp "$work/out/$f" "$work/ref/" || fail "the reference run wrote no $f"; done


signals=(KILL INT TERM)
for trial in 1 2 3 4 5 6; do
  signal=${signals[$((trial % 3))]}
  delay=$(awk -v d="$duration" -v r="$((20 + RANDOM % 90))" 'BEGIN { printf "%.3f", d * r / 100 }')
  kill_after "$delay" "$signal" "$privamp" "${args[@]}"
  echo "trial $trial: SIG$signal after ${delay} s"
  for f in "${texts[@]}"; do
    cmp -s "$work/out/$f" "$work/ref/$f" || fail "trial $trial: $f is neither the old file nor the complete new one"
  done
  whole_pdf "$work/out/iteration.pdf" || fail "trial $trial: iteration.pdf is truncated"
  whole_png "$work/out/iteration.png" || fail "trial $trial: iteration.png is truncated"
done
run > "$work/after.log" 2>&1 || fail "a run after the kills failed: $(tail -3 "$work/after.log")"
if ls -a "$work/out" | grep -q privamp-tmp; then fail "temporary files remain after a complete run"; fi
echo "6 killed runs: every figure file whole"
