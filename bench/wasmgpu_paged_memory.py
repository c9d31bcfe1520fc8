"""What paged memory (decision 0014) costs a Vulkan call beside dense memory, in one run: the
README's C worker (tests/fixtures/wasi/readme_worker_reactor.c: malloc, doubles, a two-page
memory) called once per instance, with each instance's reserved pages in a slice of its own
(dense: the budget raised to hold them) and with page tables over a pool of 4 KiB frames
(paged: forced by WAVESTACK_WASM_VULKAN_MEMORY=paged), then at the defaults at the README's
counts, where the spawn pages by itself. Reports seconds per call (warm: the second call of a
spawn, the first builds what it needs) and bytes per instance (`resident_bytes`), beside
Wasmtime running the same rows one after another; every result is checked against Wasmtime's.

Run on lavapipe: ``WAVESTACK_ALLOW_SOFTWARE_GPU=1 python bench/wasmgpu_paged_memory.py``
(``--worker`` names the built worker, default build/py/fixtures/wasi/readme_worker_reactor.wasm;
``--execution compiled`` for compiled mode, whose unit pipelines take lavapipe minutes to build
cold; ``--counts`` for the README-count runs).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
import sys
import time

if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    del sys.path[0]  # bench/wasmgpu.py would shadow the package
import wasmgpu  # noqa: E402
import wasmtime  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def wasmtime_run(binary: bytes, rows) -> tuple:
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    process = wasmtime.Instance(store, wasmtime.Module(engine, binary), []).exports(store)["process"]
    begin = time.perf_counter()
    results = [process(store, a, b) for a, b in rows]
    return results, time.perf_counter() - begin


def ours(module, rows, memory: str, **spawn) -> tuple:
    """(results, seconds of the second call, bytes per instance) with WAVESTACK_WASM_VULKAN_MEMORY=memory."""
    os.environ["WAVESTACK_WASM_VULKAN_MEMORY"] = memory
    try:
        with module.spawn(len(rows), allow_software=True, **spawn) as instances:
            instances.call("process", rows)
            begin = time.perf_counter()
            results = instances.call("process", rows)
            return results, time.perf_counter() - begin, instances.resident_bytes / len(rows)
    finally:
        del os.environ["WAVESTACK_WASM_VULKAN_MEMORY"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", type=Path, default=ROOT / "build/py/fixtures/wasi/readme_worker_reactor.wasm")
    parser.add_argument("--execution", choices=("interpreter", "compiled"), default="interpreter")
    parser.add_argument("--instances", type=int, default=2000, help="instances of the dense/paged comparison")
    parser.add_argument("--counts", type=int, nargs="*", default=[10_000, 100_000])
    args = parser.parse_args()
    if not args.worker.is_file():
        print(f"worker: no such file {args.worker} (build the fixtures: make test builds them)", file=sys.stderr)
        return 1
    binary = args.worker.read_bytes()
    module = wasmgpu.Module(binary, execution=args.execution)
    rows = [(k, 2 * k) for k in range(args.instances)]
    expected, peer = wasmtime_run(binary, rows)
    with module.spawn(1, allow_software=True) as probe:
        print(f"{args.worker.name}, {args.execution}, on {probe.adapter_info['name']}")
    runs = {memory: ours(module, rows, memory, max_resident_bytes=1 << 32) for memory in ("auto", "paged")}
    for memory, (results, seconds, per_instance) in runs.items():
        assert results == expected, memory
        name = "dense" if memory == "auto" else "paged"
        print(f"{args.instances} instances, {name}: {seconds:.3f} s per call, {per_instance / 1024:.1f} KiB per "
              f"instance; x Wasmtime's {peer:.4f} s: {seconds / peer:.1f}")
    print(f"paged / dense: {runs['paged'][1] / runs['auto'][1]:.2f}")
    for count in args.counts:
        rows = [(k, 2 * k) for k in range(count)]
        expected, peer = wasmtime_run(binary, rows)
        results, seconds, per_instance = ours(module, rows, "auto")
        assert results == expected, count
        print(f"{count} instances at the defaults (paged by the spawn): {seconds:.3f} s per call, "
              f"{per_instance / 1024:.1f} KiB per instance; x Wasmtime's {peer:.4f} s: {seconds / peer:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
