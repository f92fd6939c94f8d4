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
5. The fields of results are named in verify/records/fields.hpp alone: the files that write rows, golden rows,
   estimates, explore's searches, the API's results, figures' tables and Python's results (WRITERS below) spell none of its names that a result alone
   would use (those with an underscore, such as exact_lower or cross_check) as a string, except in a message naming
   an input.
6. Test names hold no ';' or '\\' (catch_discover_tests escapes ',', '[' and ']' only: a ';' splits CTest's list
   of arguments, so such a test ran nothing and passed).
7. An Estimate keeps its linear ends and their logs in step itself (verify/divergence/estimate.hpp): no library file
   but estimate.cpp assigns to an end (`.lower`, `.upper`; the logs are private) of anything but the few other
   records with ends of the same name (OTHER_ENDS below: calibration brackets, histogram bins, plotted points).
8. Functions fit on a screen: no library function over 80 lines (its lambdas counted in it), no class over 300.
   The functions and classes above those limits when the rule came in are listed in LONG with their lengths: none may
   grow, none may be added, and an entry is removed when its function is split (the list only shrinks).
9. Bad input is raised one way: no library file throws InvalidArgument itself; numerics/errors.hpp's invalid_input
   and throw_invalid format the message in one place (and make quoted input printable).
10. Laws are built from values, not from printed text: no file above sim/ parses a law or an expression from a
   formatted string (parse_law(fmt::format(...)): values round-trip through decimals and quoting); a template of the
   language with the values as parameters, or the law's class, instead.
11. An interval kind reaches users through error_kind_label alone ("none" where the value was not computed): no
   file of cli/, python/ or verify/records/ prints to_string of an estimate's error_kind (an error row read "exact").
Prints every breach with its file and line; exit 1 if any.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
layers = ["numerics", "sim", "verify", "plots", "cli"]
SUBLAYERS = {
    "sim": ["random", "syntax", "formulas", "laws", "kernels", "processes", "language"],
    "verify": ["divergence", "input", "bounds", "cases", "records", "runner", "report", "explore", "api"],
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
FIELDS = root / "verify" / "records" / "fields.hpp"
WRITERS = ["verify/runner", "verify/records", "verify/report", "verify/explore", "verify/api", "python/module.cpp", "cli", "plots"]
if not FIELDS.exists():
    breaches.append("verify/records/fields.hpp: missing (the one file naming the fields of results)")
else:
    named = {n for n in re.findall(r'(?:\bf\(|RowField\{)"([a-z_]+)"', FIELDS.read_text(encoding="utf-8")) if "_" in n.strip("_")}
    if len(named) < 20:
        breaches.append(f"verify/records/fields.hpp: only {len(named)} field names found (the pattern of tests/structure.py no longer reads it)")
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
                        breaches.append(f"{path.relative_to(root)}:{number}: the field name \"{literal}\" spelled outside verify/records/fields.hpp")
def code_lines(folders, skip=""):
    """(file name, line number, line) of every line of the C++ sources under `folders` that is not a comment."""
    for folder in folders:
        for path in sorted((root / folder).rglob("*.[ch]pp")):
            name = str(path.relative_to(root))
            if name == skip:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip().startswith("//"):
                    yield name, number, line


# Rule 7: an Estimate's ends move through its members only.
OTHER_ENDS = {  # file -> variables there that are not Estimates
    "verify/api/accountant.cpp": {"c"},  # api::Calibration's bracket
    "verify/explore/explore.cpp": {"bin"},  # a histogram bin
    "verify/explore/explore_report.cpp": {"b"},  # a histogram bin
    "plots/figures.cpp": {"p"},  # a plotted point's error bar
    "verify/divergence/density_engine_impl.hpp": {"total"},  # a Part (a sum of log-integrals), not an Estimate
}
end_write = re.compile(r"([A-Za-z_][\w\]\[]*)(?:\.|->)(lower|upper|log_lower|log_upper|log_value)\s*(?:[-+*/]?=)(?!=)")
for name, number, line in code_lines(layers + ["python"], skip="verify/divergence/estimate.cpp"):
    for m in end_write.finditer(line):
        if m.group(1) not in OTHER_ENDS.get(name, set()) and not (m.group(2) == "log_value" and name.startswith("numerics/")):
            breaches.append(f"{name}:{number}: writes {m.group(1)}.{m.group(2)} (an Estimate's ends move through its members: set_lower, hull, intersect, ...)")
# Rule 8: functions and classes within a screen; the list of those that were not only shrinks.
MAX_FUNCTION, MAX_CLASS = 80, 300
LONG = {  # (file, name): lines when the rule came in; empty: every function and class is within the limits
}
def strip(text):
    # comments and string/char literals replaced by spaces (newlines kept)
    out = []; i = 0; n = len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i); j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2); j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i-1].isalnum() or text[i-1] == '_')):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i)
            j = end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c == '"' or (c == "'" and not (i > 0 and text[i-1].isalnum())):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)

def measure(path):
    text = strip(path.read_text(encoding="utf-8"))
    functions, classes = [], []
    stack = []  # (kind, name, start_line)
    head_start = 0
    for i, c in enumerate(text):
        if c == "{":
            head = text[head_start:i]
            inside_function = any(k == "function" for k, _, _ in stack)
            kind, name = "other", ""
            if not inside_function:
                h = " ".join(head.split())
                ms = list(re.finditer(r"\b(class|struct|union)\s+(\w+)", h))
                m = ms[-1] if ms and "(" not in h[ms[-1].start():] else None
                if re.search(r"\bnamespace\b", h) and "(" not in h:
                    kind = "namespace"
                elif re.search(r"\benum\b", h):
                    kind = "other"
                elif m and "=" not in h:
                    kind, name = "class", m.group(2)
                elif "(" in h and not re.search(r"=\s*$", h) and not h.rstrip().endswith(("=", ",")) and not re.match(r"^\s*(return|if|for|while|switch)\b", h):
                    # the function's name: the identifier before the first top-level '('
                    depth = 0; first = None
                    for k, ch in enumerate(h):
                        if ch == "(":
                            if depth == 0 and first is None: first = k
                            depth += 1
                        elif ch == ")": depth -= 1
                    ids = re.findall(r"([~\w:]+(?:<[^<>]*>)?)\s*$", h[:first])
                    name = ids[0] if ids else "?"
                    kind = "function"
            start = text.count("\n", 0, head_start + len(head) - len(head.lstrip())) + 1
            stack.append((kind, name, start))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, name, start = stack.pop()
                end = text.count("\n", 0, i) + 1
                if kind == "function": functions.append((name, start, end - start + 1))
                elif kind == "class": classes.append((name, start, end - start + 1))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return functions, classes


seen_long = set()
for folder in layers + ["python"]:
    for path in sorted((root / folder).rglob("*.[ch]pp")):
        name = str(path.relative_to(root))
        functions, classes = measure(path)
        for what, items, limit in (("function", functions, MAX_FUNCTION), ("class", classes, MAX_CLASS)):
            for fname, start, length in items:
                if length <= limit:
                    continue
                allowed = LONG.get((name, fname))
                seen_long.add((name, fname))
                if allowed is None:
                    breaches.append(f"{name}:{start}: {what} {fname} has {length} lines (at most {limit}: split it by job)")
                elif length > allowed:
                    breaches.append(f"{name}:{start}: {what} {fname} grew to {length} lines (was {allowed}, at most {limit}: split it, do not grow it)")
for (name, fname) in sorted(set(LONG) - seen_long):
    breaches.append(f"tests/structure.py: LONG lists {name} {fname}, which is now within the limit: remove the entry")
# Rule 9: InvalidArgument is thrown by the error helpers only.
for name, number, line in code_lines(layers + ["python"], skip="numerics/errors.cpp"):
    if re.search(r"\bthrow\s+(privamp::)?InvalidArgument\b", line):
        breaches.append(f"{name}:{number}: throws InvalidArgument itself (use invalid_input or throw_invalid, numerics/errors.hpp)")
# Rule 10: no law from formatted text above sim/.
formatted_law = re.compile(r"(parse_law|Expression::parse(?:_cached)?)\(\s*(fmt::format|std::to_string|.*\+\s*\")")
for name, number, line in code_lines(["verify", "plots", "cli", "python"]):
    if formatted_law.search(line):
        breaches.append(f"{name}:{number}: a law parsed from formatted text (build it from values: a template with parameters, or its class)")
# Rule 11: interval kinds printed through error_kind_label.
for name, number, line in code_lines(["cli", "python", "verify/records"]):
    if re.search(r"to_string\([^()]*\.error_kind\)|to_string\(member\)", line):
        breaches.append(f"{name}:{number}: prints an interval kind with to_string (use error_kind_label: 'none' where not computed)")
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
