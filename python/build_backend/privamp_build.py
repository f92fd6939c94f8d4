"""A PEP 517 build backend for `pip install .` that needs nothing beyond the standard library, so that it works
offline in any environment (Debian 12 has no scikit-build-core, and a fresh venv has no `wheel`).

build_wheel configures and builds the extension with the project's CMake (Release, no tests or benchmarks, the
interpreter running pip) and the privamp command, then writes the wheel itself: the package (python/privamp), the
compiled module, the command (privamp/bin/privamp, started by the `privamp` entry point), the catalogue
(privamp/data: the case files with their golden results, the figures, docs/examples) and the .dist-info files (METADATA, WHEEL,
entry_points.txt, RECORD with sha256 hashes). The CMake build directory is
build-pip/ in the source tree, or $PRIVAMP_BUILD_DIR when set (an existing build tree that holds the module and the
command is used as it is, not rebuilt).
"""

import base64
import hashlib
import os
import pathlib
import re
import stat
import subprocess
import sys
import sysconfig
import zipfile

NAME = "privamp"
SOURCE = pathlib.Path(__file__).resolve().parents[2]


def _version():
    text = (SOURCE / "CMakeLists.txt").read_text(encoding="utf-8")
    return re.search(r"project\(privamp VERSION ([0-9.]+)", text).group(1)


def _tag():
    interpreter = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{interpreter}-{interpreter}-{platform}"


def _jobs(config_settings):
    """Parallel compile jobs: `--config-settings=jobs=N` (pip), else $CMAKE_BUILD_PARALLEL_LEVEL, else the cores, at
    most one per 2 GiB of memory (each compiler process of the heavier files takes about 1.5 GiB)."""
    given = (config_settings or {}).get("jobs") or os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL")
    if given is not None:
        if not str(given).isdigit() or int(given) < 1:
            raise ValueError(f"jobs = {given!r}: a whole number of parallel compile jobs, at least 1")
        return str(int(given))
    jobs = os.cpu_count() or 2
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        jobs = max(1, min(jobs, memory // (2 << 30)))
    except (ValueError, OSError, AttributeError):
        pass
    return str(jobs)


def _build_extension(config_settings=None):
    build = pathlib.Path(os.environ.get("PRIVAMP_BUILD_DIR", SOURCE / "build-pip")).resolve()
    if not (build / "CMakeCache.txt").exists():
        subprocess.run(["cmake", "-S", str(SOURCE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DPRIVAMP_BUILD_TESTS=OFF", "-DPRIVAMP_BUILD_BENCH=OFF", "-DPRIVAMP_BUILD_PYTHON=ON",
                        f"-DPython3_EXECUTABLE={sys.executable}"], check=True, stdout=sys.stderr)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    module = build / "python" / "privamp" / f"_privamp{suffix}"
    # A build tree given as PRIVAMP_BUILD_DIR is used as it is when it holds both products: building it again could
    # relink the privamp command while other programs run it (the test suite does, beside this install).
    given = "PRIVAMP_BUILD_DIR" in os.environ and module.exists() and (build / "privamp").exists()
    if not given:
        jobs = _jobs(config_settings)
        subprocess.run(["cmake", "--build", str(build), "--target", "_privamp", "privamp", "-j", jobs], check=True,
                       stdout=sys.stderr)
    if not module.exists():
        found = sorted((build / "python" / "privamp").glob("_privamp*.so"))
        raise RuntimeError(f"the build made no {module.name} for this interpreter (found: {[f.name for f in found]}); "
                           "set PRIVAMP_BUILD_DIR to a build tree configured for it, or remove it")
    return module, build / "privamp"


def _catalogue():
    """The shipped catalogue as (path in the wheel, bytes): the case files with their golden results, the figures."""
    out = {}
    for path in sorted((SOURCE / "cases").rglob("*")):
        if path.is_file() and path.suffix in (".toml", ".json"):
            out[f"{NAME}/data/cases/{path.relative_to(SOURCE / 'cases').as_posix()}"] = path.read_bytes()
    out[f"{NAME}/data/plots/figures.toml"] = (SOURCE / "plots" / "figures.toml").read_bytes()
    # The README's running example (privamp verify docs/examples/my_bounds.toml, from any folder once installed).
    for path in sorted((SOURCE / "docs" / "examples").rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            out[f"{NAME}/data/docs/examples/{path.relative_to(SOURCE / 'docs' / 'examples').as_posix()}"] = path.read_bytes()
    return out


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = pathlib.Path(metadata_directory) / f"{NAME}-{_version()}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    for name, text in _metadata().items():
        (info / name).write_text(text, encoding="utf-8")
    return info.name


def _metadata():
    return {
        "METADATA": (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\n"
                     "Summary: Exact Renyi and hockey-stick divergences with error bars, and checks of "
                     "privacy-amplification theorems\nRequires-Python: >=3.9\n"
                     # NumPy is optional (arrays for kernels and profiles); offline, a venv made with
                     # --system-site-packages uses Debian's python3-numpy.
                     "Provides-Extra: numpy\nRequires-Dist: numpy; extra == \"numpy\"\n"),
        "WHEEL": f"Wheel-Version: 1.0\nGenerator: privamp_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n",
        "entry_points.txt": "[console_scripts]\nprivamp = privamp.__main__:main\n",
    }


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    module, command = _build_extension(config_settings)
    version = _version()
    info = f"{NAME}-{version}.dist-info"
    files = {
        f"{NAME}/__init__.py": (SOURCE / "python" / "privamp" / "__init__.py").read_bytes(),
        f"{NAME}/__main__.py": (SOURCE / "python" / "privamp" / "__main__.py").read_bytes(),
        f"{NAME}/{module.name}": module.read_bytes(),
        f"{NAME}/bin/privamp": command.read_bytes(),  # the command line, run by the `privamp` entry point
    }
    mpi_layer = command.parent / "libprivamp_mpi.so"  # built beside the command when MPI was found (cli/processes.cpp)
    if mpi_layer.exists():
        files[f"{NAME}/bin/{mpi_layer.name}"] = mpi_layer.read_bytes()
    files.update(_catalogue())
    for name, text in _metadata().items():
        files[f"{info}/{name}"] = text.encode()
    record = [_record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    wheel = f"{NAME}-{version}-{_tag()}.whl"
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            # A regular file's type and mode bits: pip makes the command executable only when both are there.
            entry.external_attr = (stat.S_IFREG | (0o755 if path.endswith("/bin/privamp") else 0o644)) << 16
            z.writestr(entry, data)
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return wheel
