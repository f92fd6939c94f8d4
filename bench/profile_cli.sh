#!/usr/bin/env bash
# bench/profile_cli.sh [RUNS]: the privacy profile of 2,000 eps (log-spaced in [0.001, 2]) of the subsampled Gaussian
# (q = 0.01, sigma = 1), both directions, from the command line (`privamp divergence --profile ... --format csv`, one
# process, its start included) and from Python (`privamp.privacy_profile`, the module already imported), with
# `privamp --version` for the process start alone. Prints the medians of RUNS runs (default 11) of each and the
# command line's cost per value over Python's, its start left out. Uses build/privamp and build/python.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-11}
[[ "$runs" =~ ^[1-9][0-9]?$ ]] || { echo "bench/profile_cli.sh: RUNS = '$runs' must be a whole number in [1, 99]" >&2; exit 2; }
PYTHONPATH=build/python python3 - "$runs" <<'PY'
import statistics, subprocess, sys, time
import numpy as np
import privamp
runs = int(sys.argv[1])
mu, nu = "mix(q=0.01, gaussian(0,1), gaussian(1,1))", "gaussian(0,1)"
def median(f):
    times = []
    for _ in range(runs):
        t = time.perf_counter(); f(); times.append(time.perf_counter() - t)
    return statistics.median(times)
cli = median(lambda: subprocess.run(["build/privamp", "divergence", mu, nu, "--profile", "0.001:2:x2000", "--format", "csv"],
                                    check=True, stdout=subprocess.DEVNULL))
start = median(lambda: subprocess.run(["build/privamp", "--version"], check=True, stdout=subprocess.DEVNULL))
eps = np.geomspace(0.001, 2, 2000)
py = median(lambda: privamp.privacy_profile(mu, nu, eps))
print(f"2,000 eps, both directions (median of {runs}): command line {cli * 1e3:.1f} ms (process start {start * 1e3:.1f} ms), "
      f"Python {py * 1e3:.1f} ms; command line per value / Python per value = {(cli - start) / py:.2f}")
PY
