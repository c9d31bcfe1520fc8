#!/usr/bin/env python3
"""Machine instructions per instance, ours against wasm3, counted with valgrind's callgrind.

bench/wasmgpu.py times the engines side by side, but on a shared machine its medians move with
the load more than with the code (docs/PERFORMANCE.md). This script measures what the load
cannot change: the x86 (or other host) instructions one instance of a call costs. For every
workload of bench/wasmgpu.py and each engine (ours in compiled mode on the cpu device with one
thread, and wasm3 with one Python call per instance, as that benchmark calls them) it runs a
child process under callgrind twice, with one warm-up call and then with the warm-up plus
`--calls` more, and divides the difference of the two totals by the instances those calls ran.
Everything the call costs is in it (Python, bindings, the engine); process start, module
build and compilation are in both runs and cancel out. Results are checked against the native
C build before counting.

    python bench/wasmgpu_instructions.py [--instances 1000] [--calls 2] [--workloads worker,fib]

Instructions are not time (a Python interpreter's instructions and generated code's differ
in cost), so the ratio says how much work each engine does, not how fast it runs; the timed
benchmark stays the measure of speed. Needs valgrind (apt-get install -y valgrind).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent / "wasmgpu.py"
ENGINES = ("ours-compiled-cpu", "wasm3")


def load_engines_bench():
    # Under another name: as "wasmgpu" it would shadow the package.
    spec = importlib.util.spec_from_file_location("wasmgpu_engines_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def child(engine: str, workload_name: str, count: int, calls: int, folder: str) -> None:
    """One measured process: build, set up, check one call, then `calls` more calls."""
    bench = load_engines_bench()
    options = bench.parse_arguments(["--threads", "1"])
    workload = next(w for w in bench.WORKLOADS if w.name == workload_name)
    built = bench.build_workload(workload, bench.workload_param(workload, options), Path(folder))
    if engine == "wasm3":
        session = bench.Wasm3Engine().start(built, count)
    else:
        session = bench.OursEngine("compiled", "cpu", options).start(built, count)
    expected = bench.reference_results(built, count)
    bench.check_results(engine, built, count, bench.comparable(session.call(), workload.result), expected, "first")
    for _ in range(calls):
        session.call()
    session.close()


def counted_instructions(engine: str, workload: str, count: int, calls: int, folder: Path) -> int:
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder / 'callgrind.out'}", sys.executable,
               __file__, "--child", engine, workload, str(count), str(calls), str(folder)]
    # One thread everywhere: the cpu device's pool, and NumPy's BLAS (it starts idle threads).
    environment = dict(os.environ, WAVESTACK_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    finished = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    if finished.returncode != 0:
        raise RuntimeError(f"{engine} {workload}: the child failed:\n{finished.stderr[-3000:]}")
    match = re.search(r"I\s+refs:\s+([\d,]+)", finished.stderr)
    if match is None:
        raise RuntimeError(f"{engine} {workload}: no instruction count in callgrind's output")
    return int(match.group(1).replace(",", ""))


def per_instance(engine: str, workload: str, count: int, calls: int) -> float:
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        base = counted_instructions(engine, workload, count, 0, folder)
        more = counted_instructions(engine, workload, count, calls, folder)
    return (more - base) / (calls * count)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        engine, workload, count, calls, folder = argv[1:6]
        child(engine, workload, int(count), int(calls), folder)
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=2, help="measured calls after the warm-up call")
    parser.add_argument("--workloads", default="worker,int_loop,f64_loop,sieve,fib")
    options = parser.parse_args(argv)
    if options.instances < 1 or options.calls < 1:
        parser.error("--instances and --calls: at least 1")
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (apt-get install -y valgrind)")
    print(f"x86 instructions per instance ({options.instances} instances, {options.calls} measured calls, "
          "callgrind); ratio = wasm3's / ours", flush=True)
    print(f"{'workload':<10} {'ours-compiled-cpu':>18} {'wasm3':>12} {'ratio':>7}", flush=True)
    for workload in options.workloads.split(","):
        ours, wasm3 = (per_instance(engine, workload, options.instances, options.calls) for engine in ENGINES)
        print(f"{workload:<10} {ours:>18,.0f} {wasm3:>12,.0f} {wasm3 / ours:>6.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
