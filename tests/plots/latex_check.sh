#!/usr/bin/env bash
# latex_check.sh PRIVAMP SOURCE_DIR WORK_DIR: the paper-ready check of the LaTeX outputs. Every shipped figure is
# generated as pgfplots (reduced grids) at size = "single" and typeset in a two-column paper, and at size = "double"
# in a one-column paper, each with its caption file \input in \caption; verify's summary.tex in a one-column paper
# and across the columns of a two-column one.
# The page is a typical paper's: a 7 in text block (two columns of 3.35 in). Fails on a LaTeX error, an overfull box wider than 1 pt, or a missing glyph, naming the file.
set -euo pipefail
privamp=$1 source=$2 work=$3
command -v pdflatex > /dev/null ||
  { echo "pdflatex was not found: scripts/install-deps.sh --tests installs texlive-latex-recommended and texlive-pictures"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
failures=0

# typeset NAME CLASS_OPTIONS BODY_FILE: compiles a document around BODY_FILE's text; reports what does not fit.
typeset() {
  local name=$1 options=$2 body=$3
  {
    printf '\\documentclass[%s]{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[textwidth=7in, columnsep=0.3in]{geometry}\n\\usepackage{booktabs}\n\\usepackage{tabularx}\n\\usepackage{pgfplots}\n' "$options"
    printf '\\pgfplotsset{compat=1.17}\n\\begin{document}\n'
    cat "$body"
    printf '\\end{document}\n'
  } > "$work/$name.tex"
  if ! (cd "$work" && pdflatex -interaction=nonstopmode -halt-on-error -no-shell-escape "$name.tex" > /dev/null 2>&1); then
    echo "$name: pdflatex failed:"; grep -A4 '^!' "$work/$name.log" | head -20
    failures=$((failures + 1)); return
  fi
  # Overfull boxes over 1 pt (LaTeX reports every one with its excess), and glyphs the font does not have.
  local wide
  wide=$(grep -o 'Overfull \\[hv]box ([0-9.]*pt too [a-z]*)' "$work/$name.log" | awk -F'[(p]' '$2 + 0 > 1' || true)
  if [ -n "$wide" ]; then echo "$name: $wide"; failures=$((failures + 1)); fi
  if grep -q 'Missing character' "$work/$name.log"; then
    echo "$name: $(grep 'Missing character' "$work/$name.log" | head -3)"; failures=$((failures + 1))
  fi
}

# The check itself must be able to fail: a box 20 pt too wide is reported.
printf '\\noindent\\rule{\\dimexpr\\linewidth+20pt\\relax}{1pt}\n' > "$work/body.tex"
typeset canary onecolumn "$work/body.tex" > "$work/canary.out"
grep -q "canary: Overfull" "$work/canary.out" || { echo "the overfull-box check missed a 20 pt overflow"; exit 1; }
failures=0

for size in single double; do
  # The shipped figure file at this size, pgfplots only (the look is data: no rebuild).
  sed -e '/^outputs = /d' -e "s/^size = \"double\"$/size = \"$size\"\noutputs = [\"pgfplots\"]/" "$source/plots/figures.toml" > "$work/figures_$size.toml"
  grep -q "^size = \"$size\"" "$work/figures_$size.toml"
  "$privamp" figures "$work/figures_$size.toml" --reduced --out "$work/$size" > "$work/figures_$size.log" 2>&1 ||
    { echo "privamp figures ($size) failed:"; tail -20 "$work/figures_$size.log"; exit 1; }
  count=0
  for tex in "$work/$size"/*.tex; do
    stem=$(basename "$tex" .tex)
    grep -q "^% size: $size " "$tex" || { echo "$stem.tex: no '% size: $size' line"; failures=$((failures + 1)); }
    # In a float, and in a paragraph of its own (\noindent\input: horizontal mode, where a stray space at a line's end
    # in the file widened the line by its width).
    printf '\\begin{figure*}[p]\n\\centering\n\\input{%s/%s.tex}\n\\caption{\\protect\\input{%s/%s_caption.txt}}\n\\end{figure*}\n\\clearpage\\noindent\\input{%s/%s.tex}\\par\n' \
      "$size" "$stem" "$size" "$stem" "$size" "$stem" > "$work/body.tex"
    [ "$size" = double ] || sed -i 's/figure\*/figure/' "$work/body.tex"
    typeset "${size}_$stem" "$([ "$size" = single ] && echo twocolumn || echo onecolumn)" "$work/body.tex"
    count=$((count + 1))
  done
  [ "$count" -ge 14 ] || { echo "only $count figures at size $size (expected the 14 shipped)"; exit 1; }
  echo "$count figures typeset at size $size"
done

# A hostile co-author's figure file: LaTeX that would read a file into the paper, write one, or (with -shell-escape,
# which papers using minted or svg turn on) run a command, in every text that reaches the caption and the pgfplots
# file. Typeset with -shell-escape, nothing of it may act: no file written, no command run, no line of the file read.
# (In the figure markup the file is named relative to the paper: '{/' would be a gnuplot font change, refused.)
mkdir -p "$work/hostile"
printf 'privamp-secret-line\n' > "$work/hostile/secret.txt"
cat > "$work/hostile/figure.toml" <<TOML
[[case]]
name = 'c\input{$work/hostile/secret.txt}\$x\$'
bounds = ["T4.closed"]
mu = "gaussian_chain(x0=1, r={r}, L=0.5)"
nu = "gaussian_chain(x0=0, r={r}, L=0.5)"
quantity = "renyi"
order = "{alpha}"
[case.grid]
alpha = 2
delta = 1
sigma = 1
L = 0.5
r = [1, 2, 3]

[[figure]]
name = "hostile"
x = "r"
title = '\input{hostile/secret.txt} \immediate\write18{touch $work/hostile/pwned-title}'
description = '\immediate\write18{touch $work/hostile/pwned} \immediate\openout5=$work/hostile/written.tex & # ^ _ ~ %'
xlabel = '\input{hostile/secret.txt}'
ylabel = 'R_{\write18{touch $work/hostile/pwned-label}}'
style = {size = "single", outputs = ["pgfplots"]}
[[figure.series]]
case = 'c\input{$work/hostile/secret.txt}\$x\$'
id = "T4.closed"
title = '\input{hostile/secret.txt}'
TOML
"$privamp" figures "$work/hostile/figure.toml" --out "$work/hostile/out" > "$work/hostile/figures.log" 2>&1 ||
  { echo "privamp figures (hostile) failed:"; tail -20 "$work/hostile/figures.log"; exit 1; }
printf '\\begin{figure}\n\\input{hostile/out/hostile.tex}\n\\caption{\\protect\\input{hostile/out/hostile_caption.txt}}\n\\end{figure}\n' > "$work/body.tex"
{
  printf '\\documentclass[twocolumn]{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{pgfplots}\n\\pgfplotsset{compat=1.17}\n'
  printf '\\begin{document}\n'; cat "$work/body.tex"; printf '\\end{document}\n'
} > "$work/hostile_paper.tex"
# The detection must work here: a paper that does read, write and run does show all three.
printf '\\documentclass{article}\n\\begin{document}\n\\input{hostile/secret.txt}\\immediate\\write18{touch hostile/canary}\n\\end{document}\n' > "$work/canary_paper.tex"
(cd "$work" && pdflatex -interaction=nonstopmode -shell-escape canary_paper.tex > /dev/null 2>&1) || true
[ -e "$work/hostile/canary" ] && pdftotext "$work/canary_paper.pdf" - | grep -q privamp-secret-line ||
  { echo "the injection check cannot see a file read or a command run with this TeX"; exit 1; }
(cd "$work" && pdflatex -interaction=nonstopmode -halt-on-error -shell-escape hostile_paper.tex > /dev/null 2>&1) ||
  { echo "hostile_paper: pdflatex failed:"; grep -A4 '^!' "$work/hostile_paper.log" | head -20; failures=$((failures + 1)); }
for f in pwned pwned-title pwned-label written.tex; do
  [ ! -e "$work/hostile/$f" ] || { echo "hostile_paper: the caption or figure wrote $f"; failures=$((failures + 1)); }
done
if pdftotext "$work/hostile_paper.pdf" - 2> /dev/null | grep -q privamp-secret-line; then
  echo "hostile_paper: secret.txt's text reached the PDF"; failures=$((failures + 1))
fi
echo "a hostile figure file typeset with -shell-escape: nothing read, written or run"

# verify's summary table: in a one-column paper's text, and across both columns of a two-column one (table*).
"$privamp" verify "$source/cases" --only E1,T1.1,SUB.table,DIV.hs.monotone,MIX.implications,DIV.tv.coupling --out "$work/verify" > "$work/verify.log" 2>&1 ||
  { echo "privamp verify failed:"; tail -20 "$work/verify.log"; exit 1; }
# summary.tex in one column of a two-column paper (a table, not table*) and in a one-column text; summary_wide.tex
# in a one-column text and across both columns (table*).
printf '\\begin{table}\n\\input{verify/summary.tex}\n\\end{table}\n' > "$work/body.tex"
typeset summary_onecolumn onecolumn "$work/body.tex"
typeset summary_twocolumn twocolumn "$work/body.tex"
printf '\\begin{table*}\n\\input{verify/summary_wide.tex}\n\\end{table*}\n' > "$work/body.tex"
typeset summary_wide_twocolumn twocolumn "$work/body.tex"
typeset summary_wide_onecolumn onecolumn "$work/body.tex"

[ "$failures" -eq 0 ] || { echo "$failures LaTeX outputs do not fit"; exit 1; }
echo "every figure and summary.tex typeset without an overfull box over 1 pt"
