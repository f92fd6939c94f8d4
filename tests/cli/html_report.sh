#!/usr/bin/env bash
# html_report.sh PRIVAMP SOURCE_DIR WORK_DIR: `privamp verify --html` on the example bounds (one of which is
# violated) writes a page that a real browser (Debian's chromium, headless) loads offline with no console message,
# whose DOM holds the summary, a section and a plot per theorem and the violated rows, and which loads nothing.
# The same check first runs on a page with a script error, so that a browser that reports nothing fails the test.
set -euo pipefail
privamp=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "chromium is not installed (scripts/install-deps.sh --tests installs it)"; exit 1; }

# Loads FILE headless and offline: its DOM to FILE.dom, the browser's log (console messages) to FILE.log.
load() {
  timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --disable-extensions \
    --user-data-dir="$work/profile" --enable-logging=stderr --v=0 --dump-dom "file://$1" > "$1.dom" 2> "$1.log"
}

# The canary: a console error must be seen.
printf '<!DOCTYPE html><html><body><p>canary</p><script>console.error("canary error");</script></body></html>\n' > "$work/canary.html"
load "$work/canary.html"
grep -q 'CONSOLE.*canary error' "$work/canary.html.log" || { echo "the browser's log shows no console message of the canary page"; cat "$work/canary.html.log"; exit 1; }

status=0
"$privamp" verify "$source/docs/examples/my_bounds.toml" --html "$work/report" > "$work/log" 2>&1 || status=$?
[ "$status" -eq 1 ] || { echo "expected exit status 1 (a violation), got $status"; cat "$work/log"; exit 1; }
page="$work/report/index.html"
load "$page"
if grep -q 'CONSOLE' "$page.log"; then echo "console messages:"; grep 'CONSOLE' "$page.log"; exit 1; fi
dom="$page.dom"
grep -q '<h1>privamp verify report</h1>' "$dom" || { echo "the DOM has no report heading"; head -c 2000 "$dom"; exit 1; }
grep -q 'Summary per theorem' "$dom"
for id in MY.laplace-nfold MY.gaussian-limit; do grep -q "<h3>$id</h3>" "$dom" || { echo "no section for $id"; exit 1; }; done
[ "$(grep -o '<svg' "$dom" | wc -l)" -eq 2 ] || { echo "expected 2 plots"; exit 1; }
grep -q '<h2>Violations (4)</h2>' "$dom" || { echo "the violations are not listed"; exit 1; }
grep -q 'an n-fold reduction to one Laplace step' "$dom"  # the source of a declared bound
# Self-contained: nothing to run and nothing to load.
if grep -Eq '<script|src=|href=|@import|url\(' "$page"; then echo "the page loads or runs something"; exit 1; fi
echo "html report: loaded by $("$browser" --version 2>/dev/null | head -1) with no console message"
