"""A PEP 517 build backend for `pip install .` that needs nothing beyond the standard library, so that it works
offline in any environment (Debian 12 has no scikit-build-core, and a fresh venv has no `wheel`).

build_wheel configures and builds the extension with the project's CMake (Release, no tests or benchmarks, the
interpreter running pip), then writes the wheel itself: the package (python/privamp/__init__.py), the compiled
module, and the .dist-info files (METADATA, WHEEL, RECORD with sha256 hashes). The CMake build directory is
build-pip/ in the source tree, or $PRIVAMP_BUILD_DIR when set (an existing build tree is reused as it is).
"""

import base64
import hashlib
import os
import pathlib
import re
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


def _build_extension():
    build = pathlib.Path(os.environ.get("PRIVAMP_BUILD_DIR", SOURCE / "build-pip")).resolve()
    if not (build / "CMakeCache.txt").exists():
        subprocess.run(["cmake", "-S", str(SOURCE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DPRIVAMP_BUILD_TESTS=OFF", "-DPRIVAMP_BUILD_BENCH=OFF", "-DPRIVAMP_BUILD_PYTHON=ON",
                        f"-DPython3_EXECUTABLE={sys.executable}"], check=True, stdout=sys.stderr)
    jobs = str(os.cpu_count() or 2)
    subprocess.run(["cmake", "--build", str(build), "--target", "_privamp", "-j", jobs], check=True, stdout=sys.stderr)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    module = build / "python" / "privamp" / f"_privamp{suffix}"
    if not module.exists():
        found = sorted((build / "python" / "privamp").glob("_privamp*.so"))
        raise RuntimeError(f"the build made no {module.name} for this interpreter (found: {[f.name for f in found]}); "
                           "set PRIVAMP_BUILD_DIR to a build tree configured for it, or remove it")
    return module


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
                     "privacy-amplification theorems\nRequires-Python: >=3.9\n"),
        "WHEEL": f"Wheel-Version: 1.0\nGenerator: privamp_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n",
    }


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    module = _build_extension()
    version = _version()
    info = f"{NAME}-{version}.dist-info"
    files = {
        f"{NAME}/__init__.py": (SOURCE / "python" / "privamp" / "__init__.py").read_bytes(),
        f"{NAME}/{module.name}": module.read_bytes(),
    }
    for name, text in _metadata().items():
        files[f"{info}/{name}"] = text.encode()
    record = [_record_line(path, data) for path, data in files.items()] + [f"{info}/RECORD,,"]
    wheel = f"{NAME}-{version}-{_tag()}.whl"
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return wheel
