#!/usr/bin/env bash
# junit.sh PRIVAMP SOURCE_DIR WORK_DIR: `privamp verify --junit` on the example bounds (one of which is violated)
# writes a file that validates against tests/cli/junit.xsd and reports the violation as a failure.
set -euo pipefail
privamp=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
status=0
"$privamp" verify "$source/docs/examples/my_bounds.toml" --junit "$work/junit.xml" > "$work/log" 2>&1 || status=$?
[ "$status" -eq 1 ] || { echo "expected exit status 1 (a violation), got $status"; cat "$work/log"; exit 1; }
xmllint --noout --schema "$source/tests/cli/junit.xsd" "$work/junit.xml"
grep -q '<testcase classname="MY.gaussian-limit" name="n-fold Laplace noise against my bounds">' "$work/junit.xml"
grep -q '<failure type="violation" message="4 of 8 rows violate the bound">' "$work/junit.xml"
# A directory where the file should go is refused before anything runs.
status=0
"$privamp" verify "$source/docs/examples/my_bounds.toml" --junit "$work" > "$work/log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "a directory" "$work/log"
