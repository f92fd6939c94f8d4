#!/usr/bin/env bash
# latex_figures.sh PRIVAMP SOURCE_DIR WORK_DIR: the shipped figures as pgfplots (outputs = ["pgfplots"]) compiled
# into one LaTeX document with pdflatex — the check that the generated .tex typesets, kept out of CI because TeX is
# heavy (Debian: texlive-latex-base texlive-latex-recommended texlive-pictures). Prints the time and the page count.
set -euo pipefail
privamp=$1 source=$2 work=$3
command -v pdflatex > /dev/null || { echo "pdflatex is not installed (texlive-latex-base, texlive-pictures)"; exit 2; }
rm -rf "$work" && mkdir -p "$work"
# The shipped figure file with pgfplots added to its outputs (the look is data: no rebuild).
sed 's/^font_size = 9$/font_size = 9\noutputs = ["pdf", "pgfplots"]/' "$source/plots/figures.toml" > "$work/figures.toml"
grep -q '^outputs = \["pdf", "pgfplots"\]' "$work/figures.toml"
"$privamp" figures "$work/figures.toml" --reduced --out "$work/out" > "$work/figures.log" 2>&1 || true
{
  printf '\\documentclass{article}\n\\usepackage[margin=0.7in]{geometry}\n\\usepackage{pgfplots}\n\\pgfplotsset{compat=1.17}\n\\begin{document}\n'
  for tex in "$work"/out/*.tex; do
    printf '\\section*{%s}\n\\input{%s}\n\\clearpage\n' "$(basename "$tex" .tex | sed 's/_/\\_/g')" "$tex"
  done
  printf '\\end{document}\n'
} > "$work/figures_document.tex"
count=$(ls "$work"/out/*.tex | wc -l)
start=$(date +%s.%N)
(cd "$work" && pdflatex -interaction=nonstopmode -halt-on-error figures_document.tex > latex.log 2>&1) ||
  { echo "pdflatex failed:"; grep -A5 '^!' "$work/latex.log" | head -30; exit 1; }
end=$(date +%s.%N)
pages=$(grep -o 'Output written on .* (\([0-9]*\) page' "$work/latex.log" | grep -o '([0-9]*' | tr -d '(')
echo "latex figures: $count pgfplots figures typeset into $pages pages in $(echo "$end - $start" | bc) s"
