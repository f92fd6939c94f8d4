#!/usr/bin/env python3
"""The source tree's structural rules, checked on every test run.

1. Layers: numerics/ < sim/ < verify/ < plots/ < cli/ (and the Python binding above verify/): no file includes a
   header of a layer above its own. Inside sim/ and verify/ the folders are layers too (SUBLAYERS below; a subfolder
   belongs to its folder). sim/: random numbers, the syntax (parameters, the parser's tree), the compiled formulas,
   the laws, finite kernels, processes, and at the top the language that checks names against the law catalogue,
   evaluates, and builds every law and process by name. verify/: the engines, the input language (formulas, the TOML
   reader and its keys), the bounds, the cases, the runner, the reports, explore, the API.
2. No source file over 800 lines.
3. The divergence engines (verify/divergence/) read a law's exact form (sim/laws/exact_form.hpp), never its class:
   no dynamic_cast there.
4. The Law interface (sim/laws/law.hpp) has at most 16 virtual members, its destructor included: what a law must
   answer stays small enough to implement in one unit.
5. The fields of results are named in verify/runner/fields.hpp alone: the files that write rows, golden rows,
   estimates, explore's searches, the API's results, figures' tables and Python's results (WRITERS below) spell none of its names that a result alone
   would use (those with an underscore, such as exact_lower or cross_check) as a string, except in a message naming
   an input.
6. Test names hold no ';' or '\\' (catch_discover_tests escapes ',', '[' and ']' only: a ';' splits CTest's list
   of arguments, so such a test ran nothing and passed).
Prints every breach with its file and line; exit 1 if any.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
layers = ["numerics", "sim", "verify", "plots", "cli"]
SUBLAYERS = {
    "sim": ["random", "syntax", "formulas", "laws", "kernels", "processes", "language"],
    "verify": ["divergence", "input", "bounds", "cases", "runner", "report", "explore", "api"],
}
include = re.compile(r'#include "([a-z_]+)/([a-z_]+)/')
breaches = []
for folder in layers + ["python", "include"]:
    for path in sorted((root / folder).rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".h"):
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        name = path.relative_to(root)
        if len(lines) > 800:
            breaches.append(f"{name}: {len(lines)} lines (at most 800)")
        for number, line in enumerate(lines, 1):
            m = include.match(line.strip())
            if m and folder in layers and m.group(1) in layers and layers.index(m.group(1)) > layers.index(folder):
                breaches.append(f"{name}:{number}: {folder}/ includes {m.group(1)}/, a layer above it")
            sub = SUBLAYERS.get(folder)
            if m and sub and m.group(1) == folder and len(name.parts) > 2:
                mine, theirs = name.parts[1], m.group(2)
                if mine not in sub or theirs not in sub:
                    breaches.append(f"{name}:{number}: {folder}/{mine if mine not in sub else theirs}/ is in no layer of {folder}/ (tests/structure.py)")
                elif sub.index(theirs) > sub.index(mine):
                    breaches.append(f"{name}:{number}: {folder}/{mine}/ includes {folder}/{theirs}/, a layer above it")
            if str(name).startswith("verify/divergence/") and "dynamic_cast" in line and not line.strip().startswith("//"):
                breaches.append(f"{name}:{number}: dynamic_cast in an engine (read law.exact_form())")
law_hpp = root / "sim" / "laws" / "law.hpp"
if law_hpp.exists():
    text = law_hpp.read_text(encoding="utf-8")
    body = re.search(r"^class Law \{(.*?)^\};", text, re.S | re.M)
    count = len(re.findall(r"\bvirtual\b", body.group(1))) if body else 0
    if not body or count > 16:
        breaches.append(f"sim/laws/law.hpp: class Law has {count} virtual members (at most 16)")
FIELDS = root / "verify" / "runner" / "fields.hpp"
WRITERS = ["verify/runner", "verify/report", "verify/explore", "verify/api", "python/module.cpp", "cli", "plots"]
if not FIELDS.exists():
    breaches.append("verify/runner/fields.hpp: missing (the one file naming the fields of results)")
else:
    named = {n for n in re.findall(r'(?:\bf\(|RowField\{)"([a-z_]+)"', FIELDS.read_text(encoding="utf-8")) if "_" in n.strip("_")}
    if len(named) < 20:
        breaches.append(f"verify/runner/fields.hpp: only {len(named)} field names found (the pattern of tests/structure.py no longer reads it)")
    for writer in WRITERS:
        base = root / writer
        for path in sorted([base] if base.is_file() else base.rglob("*.[ch]pp")):
            if path == FIELDS:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if line.strip().startswith("//") or re.search(r"throw_invalid\(|InvalidArgument\(", line):
                    continue  # an input's name in a message about it
                for literal in re.findall(r'"([a-z_]+)"', line):
                    if literal in named:
                        breaches.append(f"{path.relative_to(root)}:{number}: the field name \"{literal}\" spelled outside verify/runner/fields.hpp")
# Rule 6: a name that catch_discover_tests cannot hand back to Catch2 runs no test and passes.
test_case = re.compile(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"')
for path in sorted((root / "tests").rglob("*.cpp")):
    text = path.read_text(encoding="utf-8")
    for m in test_case.finditer(text):
        bad = sorted(set(m.group(1)) & set(';\\'))
        if bad:
            number = text.count("\n", 0, m.start()) + 1
            breaches.append(f"{path.relative_to(root)}:{number}: test name holds {' '.join(repr(c) for c in bad)} (a CTest/Catch2 filter character)")
for b in breaches:
    print(b)
print(f"structure: {len(breaches)} breach(es)")
sys.exit(1 if breaches else 0)
