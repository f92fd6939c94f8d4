#!/usr/bin/env bash
# expect.sh STATUS PATTERN COMMAND...: runs COMMAND and passes if it exits with STATUS and its combined output
# matches the extended regular expression PATTERN (empty pattern: any output).
status=$1 pattern=$2
shift 2
output=$("$@" 2>&1)
code=$?
if [ "$code" -ne "$status" ]; then
  printf 'expected exit status %s, got %s; output:\n%s\n' "$status" "$code" "$output"
  exit 1
fi
if [ -n "$pattern" ] && ! printf '%s' "$output" | tr '\n' ' ' | grep -Eq -- "$pattern"; then
  printf 'output does not match /%s/:\n%s\n' "$pattern" "$output"
  exit 1
fi
exit 0
