#!/usr/bin/env bash
# Every law a unit registers (PRIVAMP_LAW(rank, NAME_law_spec) in sim/laws/ or sim/processes/) reaches the program
# (`privamp laws` lists it), in the order of the ranks, and no rank is used twice: a unit that nothing else calls
# must not be left out of the link (the library is linked whole: verify/CMakeLists.txt).
set -euo pipefail
exe=$1 source=$2
registered=$(grep -ho 'PRIVAMP_LAW([0-9]*, [a-z_0-9]*_law_spec)' "$source"/sim/laws/*.cpp "$source"/sim/processes/*.cpp |
             sed -E 's/PRIVAMP_LAW\(([0-9]+), ([a-z_0-9]+)_law_spec\)/\1 \2/' | sort -n)
[ -n "$registered" ] || { echo "no PRIVAMP_LAW registration found under $source/sim"; exit 1; }
ranks=$(echo "$registered" | cut -d' ' -f1 | uniq -d)
[ -z "$ranks" ] || { echo "ranks registered twice: $ranks"; exit 1; }
expected=$(echo "$registered" | cut -d' ' -f2)
listed=$("$exe" laws | sed -n -E 's/^([a-z_0-9]+)  —  .*/\1/p')
if [ "$expected" != "$listed" ]; then
  echo "registered (by rank) and listed by 'privamp laws' differ:"
  diff <(echo "$expected") <(echo "$listed") || true
  exit 1
fi
echo "$(echo "$expected" | wc -l) registered laws, all listed in rank order"
