#!/usr/bin/env bash
# check_install.sh BUILD_DIR WORK_DIR CONSUMER_SOURCE: installs the build into WORK_DIR/prefix, builds the consumer
# project against it with find_package(privamp), and runs it.
set -euo pipefail
build=$1 work=$2 source=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work.install.log" 2>&1 || { cat "$work.install.log"; exit 1; }
test -f "$work/prefix/include/privamp/privamp.hpp"
test -f "$work/prefix/lib/cmake/privamp/privampConfig.cmake"
cmake -S "$source" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$work/consumer" -j 2 > /dev/null
"$work/consumer/consumer"
