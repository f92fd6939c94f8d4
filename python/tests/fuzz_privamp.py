"""Hostile inputs through the Python module: every call either returns or raises ValueError / RuntimeError with a
message (never a crash of the interpreter, a MemoryError or another exception), and calls share no state: a bound
declared by one verify() is unknown to the next, and threads verifying files that declare the same ID differently
each get their own bound. Deterministic (seeded mutations), bounded (--iterations)."""
import os
import random
import sys
import tempfile
import threading

import privamp

CASE = """[[bound]]
id = "PY.b"
quantity = "renyi"
formula = "{formula}"

[[case]]
name = "gauss"
bounds = ["PY.b"]
mu = "gaussian({{delta}}, 1)"
nu = "gaussian(0, 1)"
quantity = "renyi"
order = "{{alpha}}"
[case.grid]
alpha = [2, 4, 8]
delta = 1
"""
USES = """[[case]]
name = "uses PY.b without declaring it"
bounds = ["PY.b"]
mu = "gaussian(1, 1)"
nu = "gaussian(0, 1)"
quantity = "renyi"
order = "2"
[case.grid]
delta = 1
"""

failures = []


def expect_refusal(what, call):
    try:
        call()
    except (ValueError, RuntimeError):
        return
    except Exception as e:  # noqa: BLE001 - anything else is a finding
        failures.append(f"{what}: {type(e).__name__}: {e}")
        return
    failures.append(f"{what}: accepted")


def main():
    iterations = int(sys.argv[sys.argv.index("--iterations") + 1]) if "--iterations" in sys.argv else 300
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        # Sizes, work and long expressions: refused with ValueError, never a crash or MemoryError.
        expect_refusal("long chain", lambda: privamp.divergence("gaussian(0" + "+0" * 10000 + ", 1)", "gaussian(1,1)", renyi=2))
        expect_refusal("huge samples", lambda: privamp.divergence("gaussian(1,1)", "gaussian(0,1)", kl=True, engine="mc",
                                                                  samples=10**12))
        expect_refusal("many orders", lambda: privamp.divergence("gaussian(1,1)", "gaussian(0,1)", renyi=list(range(2, 20002))))
        expect_refusal("kernel NaN", lambda: privamp.kernel([[float("nan"), 1], [1, 0]]))
        expect_refusal("dp eps 710", lambda: privamp.kernel([[0.9, 0.1], [0.2, 0.8]], dp=(710, 0.5)))

        # No state between calls: a bound declared by one call is unknown to the next.
        low = write("low.toml", CASE.format(formula="0"))
        high = write("high.toml", CASE.format(formula="1e300"))
        uses = write("uses.toml", USES)
        rows = privamp.verify(low).rows
        if not all(r["verdict"] == "violated" for r in rows):
            failures.append("a bound of 0 on R_alpha was not violated")
        expect_refusal("a bound declared by an earlier call", lambda: privamp.verify(uses))
        expect_refusal("the same ID in two files", lambda: privamp.verify([low, high]))

        # Threads verifying files that declare the same ID differently: each keeps its own bound.
        wrong = []

        def run(path, want):
            for _ in range(5):
                for r in privamp.verify(path).rows:
                    if r["verdict"] != want:
                        wrong.append((path, r["verdict"]))

        threads = [threading.Thread(target=run, args=(p, w)) for p, w in
                   [(low, "violated"), (high, "holds"), (low, "violated"), (high, "holds")]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if wrong:
            failures.append(f"{len(wrong)} rows took another file's bound: {wrong[:3]}")

        # Mutated law expressions and formulas.
        seeds = ["gaussian(1, 1)", "mix(q=0.01, gaussian(0, 1), gaussian(1, 1))", "laplace_sum(loc=1, scales=[1, 2])",
                 "binomial_mix(m=10, p=0.01, law=gaussian(0, 1))", "chain(K=[[0.9, 0.1], [0.2, 0.8]], mu=[1, 0], t=3)"]
        tokens = ["1e400", "nan", "-1", "0", "[[[[", ")", "1e17", "5e-324", "+0" * 300]
        for _ in range(iterations):
            s = rng.choice(seeds)
            at = rng.randrange(len(s) + 1)
            s = s[:at] + rng.choice(tokens) + s[at + rng.randrange(3):]
            try:
                for r in privamp.divergence(s, "gaussian(0.2, 1.5)", renyi=2, hockey_stick=0.5):
                    if not (r.lower <= r.value <= r.upper):
                        failures.append(f"interval out of order for {s!r}")
            except (ValueError, RuntimeError):
                pass
            except Exception as e:  # noqa: BLE001
                failures.append(f"{s!r}: {type(e).__name__}: {e}")
    for f in failures:
        print("FAIL:", f)
    print(f"python fuzz: {iterations} mutated inputs, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
