#!/usr/bin/env bash
# pip_install.sh PYTHON SOURCE_DIR BUILD_DIR WORK_DIR PRIVAMP: `pip install .` into a fresh venv, offline (no
# index, no build isolation), with the build backend reusing BUILD_DIR; then `import privamp` from elsewhere gives
# the version the command line reports, a divergence, the shipped catalogue (verify by theorem ID, a figure), the
# `privamp` command of the wheel, and the shipped notebook run headless end to end with its outputs checked. The
# venv sees Debian's packages (--system-site-packages: NumPy, pandas, matplotlib, Jupyter's nbclient and kernel),
# as a Debian user's would; privamp itself comes from the wheel alone (checked).
set -euo pipefail
python=$1 source=$2 build=$3 work=$4 privamp=$5
rm -rf "$work" && mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv"
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
# The package carries its catalogue and its command: the shipped cases by theorem ID and the paper figures from a
# folder that has neither, and the `privamp` entry point of the wheel.
"$work/venv/bin/python" - <<'PY'
import pathlib
import privamp
assert not pathlib.Path("cases").exists()
r = privamp.verify("SUB.table")
assert len(r.rows) > 0 and r.violated == 0 and r.errors == 0, (len(r.rows), r.violated, r.errors)
assert {row["id"] for row in r.rows} == {"SUB.table"}
assert (privamp.data_dir() / "cases" / "expected").is_dir()
f = privamp.figures(only="subsampling_rr", reduced=True, out="figs")
assert not f.violated and any(p.endswith("subsampling_rr.pdf") for p in f.files), f
PY
"$work/venv/bin/privamp" --version | grep -q "^privamp $version "
"$work/venv/bin/privamp" verify --only SUB.table --check-golden --out "$work/verify" | grep -q "golden check against"
# The README's running example and a case file by its path in the source tree, from a folder that has neither: the
# wheel's command reads the shipped copies (as Python does), saying so.
test -f "$("$work/venv/bin/python" -c "import privamp; print(privamp.data_dir())")/docs/examples/my_bounds.toml"
"$work/venv/bin/privamp" verify cases/composition.toml --only COMP.rdp --out "$work/composition" 2>&1 |
  grep -q "cases/composition.toml is not in this folder: reading the copy installed with privamp"
# The notebook shipped in docs/examples, run by a Jupyter kernel of the venv's Python.
"$work/venv/bin/python" "$source/python/tests/run_notebook.py" \
  "$("$work/venv/bin/python" -c "import privamp; print(privamp.data_dir())")/docs/examples/dpsgd_accounting.ipynb" \
  "$work/notebook" "$work/venv/bin/privamp"
"$work/venv/bin/pip" uninstall -y privamp > /dev/null
! "$work/venv/bin/python" -c "import privamp" 2> /dev/null
echo "pip install into a fresh venv: privamp $version"
