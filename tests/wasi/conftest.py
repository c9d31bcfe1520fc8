"""Shared fixtures of the WASI tests: the compiled C fixture programs and Node.

The fixture programs come from the CMake build (target ``wasi_fixtures``, output
``BUILD/fixtures/wasi/NAME.wasm``). The tests use, in order: ``$WAVESTACK_WASI_FIXTURES`` (a
folder of NAME.wasm); an up-to-date ``build/*/fixtures/wasi`` of this checkout (``build/py``
after ``make build``); else they configure tests/fixtures standalone into a temporary folder
and build it there, so ``pytest tests/wasi`` works on a fresh checkout too. Without a clang
able to target wasm32-wasi the fixture tests skip with the reason, except under CI (CI=true)
or WAVESTACK_REQUIRE_WASI_FIXTURES=1, where that is a failure.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import oracles  # noqa: E402
import wasi_support  # noqa: E402
from wasi_support import REPO, fixture_names, node_or_skip  # noqa: E402


def pytest_report_header(config):
    from importlib.metadata import version

    node = oracles.node_executable()
    return [f"WASI oracles: wasmtime {version('wasmtime')} (PyPI), node:wasi from {node or 'no node found'}",
            "WASI on wasmgpu: every fixture, the wasi-testsuite and graphviz.wasm run on the cpu device in "
            "compiled mode and in the interpreter (except the malloc_growth and float_printf fixtures: cpu "
            "only, 409 M and 17 M instructions); on the selected Vulkan device stdio and exit_code run in "
            "compiled mode, stdio, args_env, file_workout and embedded_input, the wasi-testsuite and "
            "graphviz.wasm in the interpreter"
            + (", and everything in both modes (WAVESTACK_WASI_VULKAN=all)" if os.environ.get(
                "WAVESTACK_WASI_VULKAN") == "all" else " (WAVESTACK_WASI_VULKAN=all: everything in both modes)")
            + "; the semantics tests run in the default mode of each device (compiled), 100,003 printing "
            "instances on cpu (10,000 on Vulkan)",
            "real programs from PyPI (yosys.wasm, CPython 3.11 with pyflakes) on the cpu device in "
            f"{os.environ.get('WAVESTACK_REAL_PROGRAMS_EXECUTION', 'interpreter')} mode "
            "(WAVESTACK_REAL_PROGRAMS_EXECUTION=auto: compiled), pyflakes on "
            f"{os.environ.get('WAVESTACK_CPYTHON_INSTANCES', '2')} instances (WAVESTACK_CPYTHON_INSTANCES)",
            "wasmgpu spec suites: all 90 on the cpu device in compiled mode and in the interpreter; on the "
            "selected Vulkan device 75 in compiled mode and 24 in the interpreter, every suite in at least one "
            "(WAVESTACK_SPEC_VULKAN=all: all 90 in both)"]


@pytest.fixture(scope="session")
def fixtures_dir(tmp_path_factory) -> Path:
    """The folder holding every fixture program, compiled from the current sources."""
    override = os.environ.get("WAVESTACK_WASI_FIXTURES")
    if override:
        folder = Path(override)
        missing = [name for name in fixture_names() if not (folder / f"{name}.wasm").exists()]
        if missing:
            pytest.fail(f"WAVESTACK_WASI_FIXTURES={folder} lacks {missing}", pytrace=False)
        return folder
    candidates = sorted((REPO / "build").glob("*/fixtures/wasi"))
    for folder in candidates:
        if wasi_support.up_to_date(folder):
            return folder
    folder, log = wasi_support.build_standalone(tmp_path_factory.mktemp("wasi-fixtures-build"))
    if folder is None:
        reason = "cannot build the WASI fixtures (clang --target=wasm32-wasi, wasi-libc, lld):\n" + log
        wasi_support.unavailable(reason, "WASI_FIXTURES")
    return folder


@pytest.fixture(scope="session")
def fixture(fixtures_dir):
    """fixture(NAME) -> the bytes of NAME.wasm."""

    def load(name: str) -> bytes:
        return (fixtures_dir / f"{name}.wasm").read_bytes()

    return load


@pytest.fixture(params=sorted(oracles.ENGINES))
def engine(request):
    """Each oracle's run function in turn ("node" skips or fails as node_or_skip says)."""
    if request.param == "node":
        node_or_skip()
    return oracles.ENGINES[request.param]
