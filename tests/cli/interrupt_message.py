#!/usr/bin/env python3
"""Ctrl-C and SIGTERM stop privamp at once and say so.

usage: interrupt_message.py PRIVAMP CASES_DIR WORKDIR

A long explore is started as a user's terminal starts it (SIGINT not ignored), signalled after its first progress
line, and must: die of that signal (so that a calling shell's loop stops too), within 5 s of it; print one line
naming the signal and the state of the outputs; leave the output folder's earlier files as they were. A run started
with SIGINT ignored (a script's background job, nohup) keeps ignoring it.
"""
import os
import shutil
import signal
import subprocess
import sys
import time

privamp, cases, work = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "out"))
earlier = os.path.join(work, "out", "summary.md")
with open(earlier, "w") as f:
    f.write("an earlier run's summary\n")
args = [privamp, "explore", "T1.3", "--cases", cases, "--case", "random Dirichlet kernels", "--budget", "2000000",
        "--seed", "1", "--jobs", "1", "--out", os.path.join(work, "out")]


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def run_and_signal(sig, ignore_sigint=False):
    preexec = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=preexec)
    time.sleep(2)  # well into the search (its first evaluations take milliseconds)
    if p.poll() is not None:
        fail(f"the search ended before the signal (status {p.returncode}): {p.stderr.read()[-400:]}")
    sent = time.monotonic()
    p.send_signal(sig)
    try:
        p.wait(timeout=5 if not ignore_sigint else 2)
    except subprocess.TimeoutExpired:
        if ignore_sigint:
            p.terminate()
            p.wait()
            return None, p.stderr.read()
        p.kill()
        fail(f"still running 5 s after {signal.Signals(sig).name}")
    return (p.returncode, time.monotonic() - sent), p.stderr.read()


for sig, word in ((signal.SIGINT, "interrupted (SIGINT)"), (signal.SIGTERM, "terminated (SIGTERM)")):
    result, err = run_and_signal(sig)
    status, seconds = result
    if status != -sig:
        fail(f"{sig.name}: the process did not die of the signal (status {status}); stderr: {err[-400:]}")
    if word not in err or "every output file is the old one or a complete new one" not in err:
        fail(f"{sig.name}: no line saying what happened; stderr ends: {err[-400:]!r}")
    with open(earlier) as f:
        if f.read() != "an earlier run's summary\n":
            fail(f"{sig.name}: the earlier summary.md was changed by the interrupted run")
    print(f"{sig.name}: died of it after {seconds:.2f} s, said so, earlier files kept")

result, err = run_and_signal(signal.SIGINT, ignore_sigint=True)
if result is not None:
    fail(f"a run with SIGINT ignored at start stopped on SIGINT (status {result[0]}): {err[-400:]}")
if "interrupted (SIGINT)" in err:
    fail("a run with SIGINT ignored at start reported an interrupt")
print("SIGINT ignored at start stays ignored")
