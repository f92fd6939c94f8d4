#!/usr/bin/env bash
# A mutation pass over the closed forms, exact sums, interval assembly, the arbiter and the verdict rules: each
# mutant of tests/mutation/mutants.tsv is applied to a scratch copy of the tree, the unit tests are built and the
# ones its line names are run, and the mutant is "killed" if any of them fails. Prints one line per mutant and the kill rate. Not part of CI (each
# mutant rebuilds a library: about a minute or two on 2 cores).
#   scripts/mutation-pass.sh [SCRATCH_DIR]     (default: a folder under the system's temporary directory)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${1:-$(mktemp -d)}"
mkdir -p "$scratch"
rm -rf "$scratch/src" && mkdir -p "$scratch/src"
tar -C "$root" --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | tar -C "$scratch/src" -xmf -  # -m: new mtimes, so a kept build folder rebuilds what changed
cmake -S "$scratch/src" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release -DPRIVAMP_BUILD_BENCH=OFF -DPRIVAMP_BUILD_PYTHON=OFF > /dev/null
cmake --build "$scratch/build" -j 2 --target privamp_tests privamp > /dev/null
killed=0 total=0
while IFS=$'\t' read -r file old new what spec; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  total=$((total + 1))
  cp "$scratch/src/$file" "$scratch/original"
  if ! python3 - "$scratch/src/$file" "$old" "$new" <<'PY'
import sys
path, old, new = sys.argv[1:4]
text = open(path, encoding="utf-8").read()
if text.count(old) != 1:
    sys.exit(f"mutant text found {text.count(old)} times in {path}")
open(path, "w", encoding="utf-8").write(text.replace(old, new))
PY
  then
    echo "STALE    $file: $what (its text is no longer in the file)"
    continue
  fi
  if ! cmake --build "$scratch/build" -j 2 --target privamp_tests privamp > /dev/null 2>&1; then
    verdict="killed (does not compile)"
    killed=$((killed + 1))
  elif "$scratch/build/tests/privamp_tests" "${spec:-~[slow]}" > "$scratch/last.log" 2>&1; then
    verdict="SURVIVED"
  else
    verdict="killed"
    killed=$((killed + 1))
  fi
  printf '%-9s %s: %s\n' "$verdict" "$file" "$what"
  cp "$scratch/original" "$scratch/src/$file"
done < "$root/tests/mutation/mutants.tsv"
cmake --build "$scratch/build" -j 2 --target privamp_tests privamp > /dev/null 2>&1 || true
echo "mutation pass: $killed of $total mutants killed"
