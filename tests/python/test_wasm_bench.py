"""bench/wasmgpu.py: a tiny run of every workload, and its result check and module reader."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "wasmgpu.py"
WORKLOADS = ("worker", "int_loop", "f64_loop", "sieve", "fib", "nbody")


def load_bench():
    # Under another name: as "wasmgpu" it would shadow the package.
    spec = importlib.util.spec_from_file_location("wasmgpu_engines_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def require_toolchain():
    missing = [tool for tool in ("clang", "wasm-ld", "cc") if shutil.which(tool) is None]
    if missing:
        reason = f"bench/wasmgpu.py builds its workloads with clang, wasm-ld and cc; missing {', '.join(missing)}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


def test_every_workload_runs_on_our_interpreter_and_matches_native_c(tmp_path):
    require_toolchain()
    report_path = tmp_path / "report.json"
    result = subprocess.run([sys.executable, str(BENCH), "--instances", "1,7", "--repeat", "1", "--skip", "*gpu",
                             "--int-rounds", "5", "--f64-steps", "5", "--sieve-limit", "300", "--fib-base", "3", "--nbody-steps", "3",
                             "--output", str(report_path)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(report_path.read_text())
    rows = {(row["workload"], row["instances"], row["engine"]): row for row in report["rows"]}
    for workload in WORKLOADS:
        for count in (1, 7):
            for engine in ("native", "ours-interpreter-cpu", "ours-compiled-cpu"):
                assert rows[workload, count, engine]["status"] == "ok", rows[workload, count, engine]
    assert report["cpu_device_threads"] == 1
    assert report["workloads"]["sieve"]["memory_pages"] == 1
    assert report["workloads"]["nbody"]["memory_pages"] == 1
    assert report["workloads"]["worker"]["memory_pages"] == 0
    assert "vs native" in result.stdout


def test_a_single_differing_bit_fails_the_check():
    bench = load_bench()
    built = bench.BuiltWorkload(bench.WORKLOADS[2], 5, b"", 0, None, 0.0)  # f64_loop
    expected = bench.comparable([1.0, 2.0, 3.0], "f64")
    bench.check_results("engine", built, 3, expected.copy(), expected, "first call")
    nudged = bench.comparable([1.0, np.nextafter(2.0, 3.0), 3.0], "f64")
    with pytest.raises(bench.ResultMismatch, match="instance 1"):
        bench.check_results("engine", built, 3, nudged, expected, "first call")


def test_signed_and_unsigned_i32_results_compare_equal():
    bench = load_bench()
    assert np.array_equal(bench.comparable([-1, 5], "i32"), bench.comparable([0xFFFFFFFF, 5], "i32"))


def test_declared_memory_pages_reads_the_memory_section():
    bench = load_bench()
    header = b"\0asm\1\0\0\0"
    memory_of_3_pages = bytes([5, 3, 1, 0, 3])  # section 5, size 3: one memory, no maximum, minimum 3
    assert bench.declared_memory_pages(header + memory_of_3_pages) == 3
    assert bench.declared_memory_pages(header) == 0


def test_the_instruction_count_bench_runs_and_checks_what_it_counts(tmp_path):
    """bench/wasmgpu_instructions.py's measured process (valgrind runs it in the bench): it
    builds the workload, checks our first call against native C and makes the counted calls."""
    require_toolchain()
    script = ROOT / "bench" / "wasmgpu_instructions.py"
    for workload in ("worker", "fib"):
        result = subprocess.run([sys.executable, str(script), "--child", "ours-compiled-cpu", workload, "7", "2",
                                 str(tmp_path)], capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
    refused = subprocess.run([sys.executable, str(script), "--instances", "0"], capture_output=True, text=True,
                             timeout=60)
    assert refused.returncode == 2 and "--instances" in refused.stderr
