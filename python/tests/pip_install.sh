#!/usr/bin/env bash
# pip_install.sh PYTHON SOURCE_DIR BUILD_DIR WORK_DIR PRIVAMP: `pip install .` into a fresh venv, offline (no
# index, no build isolation), with the build backend reusing BUILD_DIR; then `import privamp` from elsewhere gives
# the version the command line reports, and a divergence.
set -euo pipefail
python=$1 source=$2 build=$3 work=$4 privamp=$5
rm -rf "$work" && mkdir -p "$work"
"$python" -m venv "$work/venv"
PRIVAMP_BUILD_DIR="$build" "$work/venv/bin/pip" install --no-index --no-build-isolation "$source" > "$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; exit 1; }
cd "$work"
version=$("$work/venv/bin/python" -c "import privamp; print(privamp.__version__)")
"$privamp" --version | grep -q "^privamp $version "
"$work/venv/bin/python" - <<'PY'
import privamp
assert privamp.__file__.startswith(__import__("sys").prefix), privamp.__file__  # the venv's copy
r = privamp.divergence("gaussian(1, 1)", "gaussian(0, 1)", renyi=2)[0]
assert r.lower <= 1 <= r.upper, r
PY
"$work/venv/bin/pip" uninstall -y privamp > /dev/null
! "$work/venv/bin/python" -c "import privamp" 2> /dev/null
echo "pip install into a fresh venv: privamp $version"
