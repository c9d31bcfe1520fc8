"""Helpers of the WASI tests (imported by conftest.py and the tests, under a name that cannot
collide with another folder's conftest): where the fixture programs come from, and Node."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import oracles

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FIXTURE_SOURCES = REPO / "tests" / "fixtures"


def fixture_names() -> list[str]:
    """One fixture per tests/fixtures/wasi/*.c, as tests/fixtures/CMakeLists.txt globs them."""
    return sorted(source.stem for source in (FIXTURE_SOURCES / "wasi").glob("*.c"))


def up_to_date(folder: Path) -> bool:
    """Every fixture exists in ``folder`` and is newer than its C source. (A change of the
    compile flags alone is not seen here; the build itself redoes those.)"""
    for name in fixture_names():
        wasm = folder / f"{name}.wasm"
        if not wasm.exists() or wasm.stat().st_mtime < (FIXTURE_SOURCES / "wasi" / f"{name}.c").stat().st_mtime:
            return False
    return True


def must_have(what: str) -> bool:
    """CI installs every tool, so there a missing one is a failure, never a skip."""
    return os.environ.get("CI") == "true" or os.environ.get(f"WAVESTACK_REQUIRE_{what}") == "1"


def unavailable(reason: str, what: str) -> None:
    if must_have(what):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def build_standalone(build_dir: Path) -> tuple[Path | None, str]:
    """Configures tests/fixtures on its own and builds it: (output folder or None, log)."""
    cmake = shutil.which("cmake")
    if cmake is None:
        return None, "cmake not found"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = subprocess.run(
        [cmake, "-S", str(FIXTURE_SOURCES), "-B", str(build_dir), *generator], capture_output=True, text=True
    )
    output = configure.stdout + configure.stderr
    if configure.returncode != 0 or "WASI fixtures skipped" in output:
        return None, output
    build = subprocess.run([cmake, "--build", str(build_dir)], capture_output=True, text=True)
    if build.returncode != 0:
        return None, build.stdout + build.stderr
    return build_dir / "fixtures" / "wasi", ""


def node_or_skip() -> None:
    """Skips (or, with WAVESTACK_REQUIRE_NODE=1, fails) when Node is missing or too old."""
    node = oracles.node_executable()
    if node is None:
        reason = "node not found: the node:wasi oracle needs Node >= 20 (or set WAVESTACK_NODE)"
    else:
        version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
        major = int(version.lstrip("v").split(".")[0]) if version.startswith("v") else 0
        if major >= 20:
            return
        reason = f"node {version or '(unknown version)'} is too old: node:wasi with version 'preview1' needs >= 20"
    if os.environ.get("WAVESTACK_REQUIRE_NODE") == "1":
        pytest.fail(reason + " (WAVESTACK_REQUIRE_NODE=1)", pytrace=False)
    pytest.skip(reason)
