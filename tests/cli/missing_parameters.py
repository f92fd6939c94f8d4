#!/usr/bin/env python3
"""Replays the shipped cases with one grid parameter deleted at a time.

Every [[case]] of every file under CASES is written alone to a temporary file with one key of its [case.grid]
removed (and the same key of its [case.explore], which would otherwise be refused for naming no grid axis). A key
that something reads (a law template, the order, a derived parameter, a bound's formula, a built-in bound, exact
route or property, a kernel) must make the load fail: exit 2 with nothing written. Keys that nothing reads are
listed and must be declared in UNUSED below, so that a key whose reader forgot to declare it cannot hide there.

usage: missing_parameters.py PRIVAMP CASES_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

# Grid keys that no bound, law or formula of their case reads (they only label rows or figures).
UNUSED = set()


def cases_of(text):
    """The [[case]] blocks of a file, each as a list of lines, and the file's other blocks ([[bound]] tables)."""
    blocks, current = [], None
    for line in text.splitlines():
        if re.match(r"^\s*\[\[", line):
            current = [line]
            blocks.append(current)
        elif current is not None:
            current.append(line)
    cases = [b for b in blocks if b[0].strip() == "[[case]]"]
    others = [b for b in blocks if b[0].strip() == "[[bound]]"]
    return cases, others


def without_key(block, key):
    out, section = [], None
    for line in block:
        m = re.match(r"^\s*\[(case\.\w+)\]", line)
        if m:
            section = m.group(1)
        if section in ("case.grid", "case.explore") and re.match(r"^\s*%s\s*=" % re.escape(key), line):
            continue
        out.append(line)
    return out


def grid_keys(block):
    keys, section = [], None
    for line in block:
        m = re.match(r"^\s*\[(case\.\w+)\]", line)
        if m:
            section = m.group(1)
            continue
        m = re.match(r"^\s*(\w+)\s*=", line)
        if section == "case.grid" and m:
            keys.append(m.group(1))
    return keys


def main():
    privamp, cases_dir = sys.argv[1], sys.argv[2]
    failures, caught, unused = [], 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(cases_dir)):
            if not name.endswith(".toml"):
                continue
            cases, others = cases_of(open(os.path.join(cases_dir, name)).read())
            for block in cases:
                case_name = re.search(r'name\s*=\s*"([^"]*)"', "\n".join(block)).group(1)
                for key in grid_keys(block):
                    path = os.path.join(tmp, "case.toml")
                    out = os.path.join(tmp, "out")
                    with open(path, "w") as f:
                        for b in others:
                            f.write("\n".join(b) + "\n")
                        f.write("\n".join(without_key(block, key)) + "\n")
                    try:
                        r = subprocess.run([privamp, "verify", path, "--out", out, "-j", "1"], capture_output=True,
                                           text=True, timeout=20)
                        rc, err = r.returncode, r.stderr
                    except subprocess.TimeoutExpired:
                        rc, err = "timeout", ""
                    label = "%s | %s | %s" % (name, case_name, key)
                    wrote = os.path.isdir(out) and os.listdir(out)
                    if rc == 2 and not wrote:
                        caught += 1
                    elif (name, case_name, key) in UNUSED and rc == 0:
                        unused.append(label)
                    else:
                        failures.append("%s: exit %s%s %s" % (label, rc, " (files written)" if wrote else "",
                                                              err.strip().splitlines()[-1:] if err else ""))
                    subprocess.run(["rm", "-rf", out])
    print("%d deletions refused at load, %d unused keys, %d not refused" % (caught, len(unused), len(failures)))
    for f in failures:
        print("NOT REFUSED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
