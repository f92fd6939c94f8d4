#!/usr/bin/env bash
# check_install.sh BUILD_DIR WORK_DIR CONSUMER_SOURCE [README]: installs the build into WORK_DIR/prefix, builds the consumer
# project against it with find_package(privamp) (no C++ standard set by the consumer), and runs it; then runs the
# installed privamp outside any source tree on its shipped cases.
set -euo pipefail
build=$1 work=$2 source=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work.install.log" 2>&1 || { cat "$work.install.log"; exit 1; }
test -f "$work/prefix/include/privamp/privamp.hpp"
test -f "$work/prefix/lib/cmake/privamp/privampConfig.cmake"
cmake -S "$source" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$work/consumer" -j 2 > /dev/null
"$work/consumer/consumer"
# The installed command finds its shipped cases and figures without a source tree, and says what it is.
"$work/prefix/bin/privamp" --version | grep -q "^privamp [0-9.]* (commit "
test -f "$work/prefix/share/privamp/cases/expected/couplings.json" || test -d "$work/prefix/share/privamp/cases/expected"
(cd "$work" && "$work/prefix/bin/privamp" verify --only T4.closed,E2 --check-golden --out "$work/verify" > "$work/verify.log" 2>&1) ||
  { cat "$work/verify.log"; exit 1; }
grep -q "golden check against" "$work/verify.log"
(cd "$work" && "$work/prefix/bin/privamp" figures --list > /dev/null)
# A case file named as in the README, from a folder without it: the installed copy, and a note saying so.
(cd "$work" && "$work/prefix/bin/privamp" verify docs/examples/my_bounds.toml --out "$work/example" > "$work/example.log" 2>&1) ||
  [ $? -eq 1 ] || { cat "$work/example.log"; exit 1; }  # (exit 1: the example's bound is violated on purpose)
grep -q "docs/examples/my_bounds.toml is not in this folder: reading the copy installed with privamp" "$work/example.log" ||
  { cat "$work/example.log"; exit 1; }
grep -q "MY.laplace-nfold" "$work/example.log" || { cat "$work/example.log"; exit 1; }
# The README's example project, exactly as printed there, builds and runs against the same install.
if [ $# -ge 4 ]; then
  mkdir -p "$work/readme"
  python3 - "$4" "$work/readme" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text[text.index("## C++ library"):]
section = section[:section.index("\n## ", 1)]
blocks = re.findall(r"```(cmake|cpp)\n(.*?)```", section, re.S)
assert [kind for kind, _ in blocks] == ["cmake", "cpp"], blocks
open(sys.argv[2] + "/CMakeLists.txt", "w").write(blocks[0][1])
open(sys.argv[2] + "/main.cpp", "w").write(blocks[1][1])
PY
  cmake -S "$work/readme" -B "$work/readme/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$work/readme/build" -j 2 > /dev/null
  "$work/readme/build/app" | grep -q "^R_2 = 1 in "
fi
