#!/usr/bin/env python3
"""bench/peers.py: privamp side by side with dp_accounting's PLD and prv_accountant in one process, on the workloads
the issues state their bars on, printing medians and ratios.

    python3 bench/peers.py --dp-accounting DIR --prv DIR [--runs N]

DIR is a source tree holding the package (dp_accounting: the folder with `dp_accounting/` inside, `python/dp_accounting`
of google/differential-privacy; prv_accountant: the folder with `prv_accountant/` inside), or omit the option when the
package is importable. Neither is a Debian package: this script is not part of the test suite. Their dependencies are
(`python3-numpy python3-scipy python3-attr python3-mpmath python3-absl`). Uses build/privamp and build/python.

Workloads:
  profile  2,000 eps log-spaced in [0.001, 2], the subsampled Gaussian (q = 0.01, sigma = 1), both directions:
           the command line (`privamp divergence ... --profile 0.001:2:x2000 --format csv`, its process start
           included), Python's `privacy_profile`, and dp_accounting's vectorised PLD
           (`from_gaussian_mechanism(1, sampling_prob=0.01).get_delta_for_epsilon(eps)`, its defaults).
  curve    1,000 eps log-spaced in [0.1, 5], T = 1,000 releases of the subsampled Gaussian (q = 0.004, sigma = 1),
           both directions: Python's `privacy_profile(..., compositions=1000)` against PRV at eps_error = 0.01,
           composed once and read at every eps the way `compute_delta` reads it (at eps - eps_error, eps and
           eps + eps_error, +- delta_error), with delta_error 1e-10 and 1e-26 (below the curve's smallest delta).
           Each of privamp's intervals is checked against PRV's bounds (an independent route: a discretised
           composition by FFT).
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

root = pathlib.Path(__file__).resolve().parent.parent
parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--dp-accounting", metavar="DIR", help="source tree holding the dp_accounting package")
parser.add_argument("--prv", metavar="DIR", help="source tree holding the prv_accountant package")
parser.add_argument("--runs", type=int, default=5, help="runs per measurement, the median printed (1 to 99)")
parser.add_argument("--only", choices=["profile", "curve"], help="run one workload only")
args = parser.parse_args()
if not 1 <= args.runs <= 99:
    sys.exit(f"bench/peers.py: --runs = {args.runs} must be a whole number in [1, 99]")
for name, folder in (("--dp-accounting", args.dp_accounting), ("--prv", args.prv)):
    if folder is not None:
        if not pathlib.Path(folder).is_dir():
            sys.exit(f"bench/peers.py: {name} = '{folder}' is not a folder")
        sys.path.insert(0, str(pathlib.Path(folder).resolve()))
sys.path.insert(0, str(root / "build" / "python"))

import numpy as np  # noqa: E402
import privamp  # noqa: E402

exe = str(root / "build" / "privamp")


def median(f):
    times = []
    for _ in range(args.runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def profile_workload():
    mu, nu = "mix(q=0.01, gaussian(0,1), gaussian(1,1))", "gaussian(0,1)"
    eps = np.geomspace(0.001, 2, 2000)
    cli = median(lambda: subprocess.run([exe, "divergence", mu, nu, "--profile", "0.001:2:x2000", "--format", "csv"],
                                        check=True, stdout=subprocess.DEVNULL))
    start = median(lambda: subprocess.run([exe, "--version"], check=True, stdout=subprocess.DEVNULL))
    py = median(lambda: privamp.privacy_profile(mu, nu, eps))
    print(f"profile: 2,000 eps both directions (median of {args.runs}): command line {cli * 1e3:.1f} ms "
          f"(process start {start * 1e3:.1f} ms), Python {py * 1e3:.1f} ms")
    try:
        from dp_accounting.pld import privacy_loss_distribution as pld
    except ImportError as e:
        print(f"  dp_accounting not importable ({e}): give --dp-accounting DIR")
        return
    pld_time = median(lambda: pld.from_gaussian_mechanism(1.0, sensitivity=1, sampling_prob=0.01).get_delta_for_epsilon(eps))
    ours = privamp.privacy_profile(mu, nu, eps)
    theirs = pld.from_gaussian_mechanism(1.0, sensitivity=1, sampling_prob=0.01).get_delta_for_epsilon(eps)
    # PLD's value is pessimistic (an upper bound up to its truncation): privamp's lower ends should not exceed it.
    above = sum(1 for p, d in zip(ours, theirs) if p.lower > d * (1 + 1e-9))
    print(f"  dp_accounting PLD {pld_time * 1e3:.1f} ms: PLD / command line = {pld_time / cli:.1f}x, "
          f"PLD / Python = {pld_time / py:.1f}x; privamp's lower end above PLD's pessimistic value at {above} of "
          f"{len(eps)} eps (largest relative gap between them "
          f"{max(abs(d - p.delta) / p.delta for p, d in zip(ours, theirs)):.1e})")


def curve_workload():
    mu, nu = "mix(q=0.004, gaussian(0,1), gaussian(1,1))", "gaussian(0,1)"
    eps = np.geomspace(0.1, 5, 1000)
    ours = None

    def run():
        nonlocal ours
        ours = privamp.privacy_profile(mu, nu, eps, compositions=1000)
    py = median(run)
    width = max((p.upper - p.lower) / p.delta for p in ours if p.delta > 0)
    print(f"curve: 1,000 eps, T = 1,000, both directions (median of {args.runs}): privamp {py:.2f} s, widest interval "
          f"{width:.1e} relative ({ours[0].error_kind})")
    try:
        from prv_accountant import PRVAccountant
        from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism
    except ImportError as e:
        print(f"  prv_accountant not importable ({e}): give --prv DIR")
        return
    eps_error = 0.01
    for delta_error in (1e-10, 1e-26):
        bounds = []

        def prv_curve():
            bounds.clear()
            prv = PoissonSubsampledGaussianMechanism(noise_multiplier=1.0, sampling_probability=0.004)
            acc = PRVAccountant(prvs=[prv], max_self_compositions=[1000], eps_error=eps_error, delta_error=delta_error)
            f = acc.compute_composition([1000])
            for e in eps:
                bounds.append((f.compute_delta_estimate(e + eps_error) - delta_error,
                               f.compute_delta_estimate(e - eps_error) + delta_error))
        prv_time = median(prv_curve)
        inside = sum(1 for p, (lo, hi) in zip(ours, bounds) if lo <= p.lower and p.upper <= hi)
        print(f"  PRV (eps_error {eps_error}, delta_error {delta_error:g}) {prv_time:.2f} s: PRV / privamp = "
              f"{prv_time / py:.2f}x; privamp's interval inside PRV's bounds at {inside} of {len(eps)} eps")


if args.only in (None, "profile"):
    profile_workload()
if args.only in (None, "curve"):
    curve_workload()
