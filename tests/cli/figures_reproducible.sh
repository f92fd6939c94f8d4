#!/usr/bin/env bash
# figures_reproducible.sh PRIVAMP PLOTS_DIR WORK: with SOURCE_DATE_EPOCH set, two runs of `privamp figures` give
# byte-identical files, the PDF included, and the PDF carries that date; without it the PDF has the current date; a
# SOURCE_DATE_EPOCH that is not a time is refused (exit 2, naming it) before anything is drawn.
set -u
privamp=$1 plots=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { printf 'FAIL: %s\n' "$1"; exit 1; }
for run in 1 2; do
  SOURCE_DATE_EPOCH=1700000000 "$privamp" figures "$plots" --reduced --only iteration --out "$work/run$run" -j 1 \
    > "$work/run$run.out" 2>&1 || fail "run $run: exit $? ($(cat "$work/run$run.out"))"
done
pdf=$(cd "$work/run1" && ls ./*.pdf | head -1)
[ -n "$pdf" ] || fail "no PDF drawn"
for f in "$work"/run1/*; do
  cmp -s "$f" "$work/run2/$(basename "$f")" || fail "$(basename "$f") differs between two runs with SOURCE_DATE_EPOCH"
done
grep -aq "/CreationDate (D:20231114221320Z)" "$work/run1/$pdf" || fail "the PDF does not carry SOURCE_DATE_EPOCH's date"
# Unset: the current date (this year's).
env -u SOURCE_DATE_EPOCH "$privamp" figures "$plots" --reduced --only iteration --out "$work/now" -j 1 > /dev/null 2>&1 \
  || fail "a run without SOURCE_DATE_EPOCH failed"
grep -aq "/CreationDate (D:$(date -u +%Y)" "$work/now/$pdf" || fail "without SOURCE_DATE_EPOCH the PDF's date is not today's"
for bad in abc -1 1e9 99999999999999 " 5"; do
  out=$(SOURCE_DATE_EPOCH="$bad" "$privamp" figures "$plots" --reduced --only iteration --out "$work/bad" -j 1 2>&1)
  code=$?
  [ "$code" -eq 2 ] || fail "SOURCE_DATE_EPOCH='$bad': exit $code, expected 2 ($out)"
  printf '%s' "$out" | grep -q "SOURCE_DATE_EPOCH: '$bad' is not a time" || fail "SOURCE_DATE_EPOCH='$bad': message: $out"
  [ ! -e "$work/bad" ] || [ -z "$(ls "$work/bad")" ] || fail "SOURCE_DATE_EPOCH='$bad': files written: $(ls "$work/bad")"
done
echo "reproducible PDFs with SOURCE_DATE_EPOCH; bad values refused"
