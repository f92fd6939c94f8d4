# Shared by the kill tests (kill_outputs.sh, kill_figures.sh, kill_explore.sh): sourced, not run.
fail() { echo "FAIL: $*"; exit 1; }
# A PDF ends with its trailer, a PNG with its IEND chunk: a truncated file fails these.
whole_pdf() { tail -c 64 "$1" | grep -q '%%EOF'; }
whole_png() { [ "$(tail -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "49454e44ae426082" ]; }
# Seconds since START (a `date +%s.%N` value).
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
# kill_after DELAY SIGNAL COMMAND...: runs COMMAND in the background (a simple command, so that $! is the program
# itself and the signal reaches it), sends SIGNAL after DELAY seconds and waits for it to end.
kill_after() {
  local delay=$1 signal=$2
  shift 2
  "$@" > /dev/null 2>&1 &
  local pid=$!
  sleep "$delay"
  kill -s "$signal" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
