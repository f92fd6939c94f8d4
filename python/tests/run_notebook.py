#!/usr/bin/env python3
"""run_notebook.py NOTEBOOK WORK_DIR PRIVAMP: executes the shipped notebook headless (nbclient, a kernel of this
interpreter, so run it with the Python that has privamp installed) in WORK_DIR, fails on any cell's error,
and checks what its tagged cells show against the command line `PRIVAMP` (another front end, and the certified
engine where the notebook used the default one):

- epsilon / certified: the notebook's eps intervals meet the command line's certified interval; the certified cell
  says "certified";
- calibrate: the safe noise multiplier's run is within the target by the command line's certified upper end, and a
  noise multiplier 0.1 % below the bracket's lower end is certainly not (its certified lower end is above the target);
- profile: 16 rows whose delta decreases in eps, each inside [lower, upper]; plot: a PNG image;
- schedule: three eps, larger for smaller delta;
- probe (a cell appended here): the kernel is this interpreter, with its privamp;
- shipped / violations: no violation or error on the shipped theorem; the violations the text describes (the
  central-limit guess at alpha = 2, each with exact_lower above the bound).
The executed notebook is written to WORK_DIR/executed.ipynb for inspection."""
import ast
import base64
import json
import os
import pathlib
import re
import subprocess
import sys

import nbclient
import nbformat


def fail(message):
    print(f"run_notebook: {message}", file=sys.stderr)
    sys.exit(1)


def tagged(nb, tag):
    cells = [c for c in nb.cells if tag in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        fail(f"expected one cell tagged {tag!r}, found {len(cells)}")
    return cells[0]


def result(cell, mime="text/plain"):
    for out in cell.outputs:
        if out.output_type == "execute_result" and mime in out.data:
            return out.data[mime]
    fail(f"cell {cell.metadata['tags']} shows no {mime} result")


def stream(cell):
    return "".join(out.text for out in cell.outputs if out.output_type == "stream" and out.name == "stdout")


def table_rows(text, columns):
    """The rows of a DataFrame's plain-text display: {index: {column: text}} for the named columns."""
    lines = text.strip().splitlines()
    header = lines[0].split()
    if header != columns:
        fail(f"table columns {header}, expected {columns}")
    rows = {}
    for line in lines[1:]:
        cells = line.split()
        if len(cells) == len(columns) + 1 and cells[0].isdigit():
            rows[int(cells[0])] = dict(zip(columns, cells[1:]))
    return rows


def account(privamp, sigma, q, steps, delta):
    """The command line's certified eps(delta) interval of the DP-SGD run."""
    out = subprocess.run([privamp, "account", "--noise-multiplier", repr(sigma), "--sample-rate", repr(q),
                          "--steps", str(steps), "--delta", repr(delta), "--engine", "certified", "--json"],
                         check=True, capture_output=True, text=True).stdout
    e = json.loads(out)["epsilon"][0]
    if e["error_kind"] != "certified":
        fail(f"the command line's eps is {e['error_kind']}, not certified")
    return e["lower"], e["upper"]


def main():
    if len(sys.argv) != 4:
        fail("usage: run_notebook.py NOTEBOOK WORK_DIR PRIVAMP")
    notebook, work, privamp = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
    work.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(notebook, as_version=4)
    if any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
        fail(f"{notebook} is shipped with outputs; it should be stored clean")
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # ipykernel's debugger warning on frozen modules
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    # A probe cell, appended here (not shipped): the kernel runs this interpreter and imports its privamp.
    probe = nbformat.v4.new_code_cell("import sys, privamp\n(sys.prefix, privamp.__file__)")
    probe.metadata["tags"] = ["probe"]
    nb.cells.append(probe)
    # The kernel is this interpreter: a kernel spec of its own, first on JUPYTER_PATH (Debian's "python3" spec runs
    # /usr/bin/python3, which would import another privamp than the venv's).
    spec = work / "jupyter" / "kernels" / "privamp-notebook-test"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                                                  "display_name": "privamp test", "language": "python"}))
    os.environ["JUPYTER_PATH"] = str(work / "jupyter")
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="privamp-notebook-test",
                                     resources={"metadata": {"path": str(work)}})
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    nbformat.write(nb, work / "executed.ipynb")

    prefix, module = ast.literal_eval(result(tagged(nb, "probe")))
    if prefix != sys.prefix or not module.startswith(prefix):
        fail(f"the kernel ran {prefix} with privamp from {module}, not this interpreter's ({sys.prefix})")

    q, sigma, steps, delta = 256 / 60000, 1.1, 10_000, 1e-5
    lo, hi = account(privamp, sigma, q, steps, delta)
    for tag, kinds in (("epsilon", {"exact", "certified", "a-posteriori"}), ("certified", {"certified"})):
        lower, value, upper, kind = ast.literal_eval(result(tagged(nb, tag)))
        if kind not in kinds or not lower <= value <= upper:
            fail(f"{tag}: ({lower}, {value}, {upper}, {kind!r}) is not an interval of the kinds {sorted(kinds)}")
        if upper < lo or lower > hi:
            fail(f"{tag}: [{lower}, {upper}] misses the command line's certified [{lo}, {hi}]")

    c_lower, c_value, c_upper, c_eps = ast.literal_eval(result(tagged(nb, "calibrate")))
    if not (c_lower <= c_value <= c_upper and c_upper - c_lower <= 1e-5 * c_upper and c_eps <= 2.0):
        fail(f"calibrate: bracket [{c_lower}, {c_upper}], value {c_value}, eps upper {c_eps}")
    if account(privamp, c_value, q, steps, delta)[1] > 2.0:
        fail(f"calibrate: the run at noise multiplier {c_value} is not certainly (2, 1e-5)-DP")
    if account(privamp, c_lower * (1 - 1e-3), q, steps, delta)[0] <= 2.0:
        fail(f"calibrate: a noise multiplier 0.1 % below {c_lower} is still within the target: the bracket is not tight")

    rows = table_rows(result(tagged(nb, "profile")), ["eps", "delta", "lower", "upper", "error_kind"])
    if sorted(rows) != list(range(16)):
        fail(f"profile: rows {sorted(rows)}, expected 16")
    deltas = [float(rows[i]["delta"]) for i in range(16)]
    if any(b >= a for a, b in zip(deltas, deltas[1:])) or any(
            not float(r["lower"]) <= float(r["delta"]) <= float(r["upper"]) for r in rows.values()):
        fail(f"profile: delta is not decreasing within its intervals: {rows}")
    png = base64.b64decode(next((o.data["image/png"] for o in tagged(nb, "plot").outputs
                                 if "image/png" in o.get("data", {})), ""))
    if not png.startswith(b"\x89PNG\r\n\x1a\n") or len(png) < 5000:
        fail(f"plot: no PNG image drawn ({len(png)} bytes)")

    rows = table_rows(result(tagged(nb, "schedule")), ["quantity", "value", "lower", "upper", "error_kind"])
    eps = [float(rows[i]["value"]) for i in sorted(rows)]
    if len(eps) != 3 or not eps[0] < eps[1] < eps[2]:
        fail(f"schedule: eps at delta 1e-5, 1e-6, 1e-7 should increase: {eps}")

    violated, errors, counts = ast.literal_eval(result(tagged(nb, "shipped")))
    if violated or errors or not sum(counts.values()) or set(counts) - {"holds", "tight"}:
        fail(f"shipped: violated {violated}, errors {errors}, verdicts {counts}")

    cell = tagged(nb, "violations")
    if stream(cell).strip() != "violated 4, errors 0":
        fail(f"violations: printed {stream(cell)!r}")
    rows = table_rows(result(cell), ["id", "alpha", "n", "exact_lower", "bound"])
    if len(rows) != 4 or any(r["id"] != "MY.gaussian-limit" or float(r["alpha"]) != 2
                             or not float(r["exact_lower"]) > float(r["bound"]) for r in rows.values()):
        fail(f"violations: {rows}")
    print(f"notebook {notebook.name}: {len(nb.cells) - 1} cells run, outputs checked against the command line")


if __name__ == "__main__":
    main()
