#!/usr/bin/env python3
"""wasmgpu's host overhead per call, side by side with the `wasmtime` package's two baselines.

The workload is the shape of the original wasmgpu package's benchmark: an exported worker
function of about 23 instructions (22 as our interpreter counts them), called once per instance with one i32 argument and one i32
result. Measured in one run, each the median of --repeat timed calls after a warm-up:

- ours, on the cpu device, with a Python list of inputs and a list of results (the seed's
  form), and with NumPy arrays in and out (`results="numpy"`). Reported: the whole call and
  its host time (argument conversion, upload, readback and decoding: everything but the
  dispatches that run the instructions), per instance.
- wasmtime, one Python call per instance (baseline 1).
- wasmtime, one WebAssembly loop over all instances writing every output to memory, followed
  by reading the outputs into a Python list (baseline 2).

    python bench/wasmgpu_host.py [--instances 10000] [--repeat 7] [--device cpu|gpu]
"""

from __future__ import annotations

import argparse
import platform
from importlib import metadata
from pathlib import Path
import statistics
import sys
import time

import numpy as np

# This folder comes first on sys.path when the script runs, and bench/wasmgpu.py (the engines
# benchmark) would shadow the package.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    del sys.path[0]
import wasmgpu  # noqa: E402

# process(x): 22 counted instructions, a mix of arithmetic and
# bit operations as a small worker does; batch(n) applies it to 0..n-1 and stores each result.
WORKER_WAT = """
(module
  (memory (export "memory") PAGES)
  (func $process (export "process") (param $x i32) (result i32) (local $t i32)
    local.get $x  i32.const 2654435761  i32.mul  local.set $t
    local.get $t  i32.const 15  i32.shr_u  local.get $t  i32.xor  local.set $t
    local.get $t  i32.const 3  i32.mul  i32.const 7  i32.add
    local.get $x  i32.const 1  i32.and  i32.add  local.get $x  i32.xor)
  (func (export "batch") (param $n i32) (local $i i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store (i32.shl (local.get $i) (i32.const 2)) (call $process (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))))
"""


def median_seconds(function, repeat: int) -> float:
    function()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_ours(binary: bytes, n: int, repeat: int, device: str):
    module = wasmgpu.Module(binary)
    where = {"device": "cpu"} if device == "cpu" else {"allow_software": True}
    inputs = list(range(n))
    array = np.arange(n, dtype=np.int32)
    rows = {}
    with module.spawn(n, memory_pages=0, max_resident_bytes=None, **where) as instances:
        expected = instances.call("process", inputs)
        for form, call in [("list", lambda: instances.call("process", inputs)),
                           ("numpy", lambda: instances.call("process", array, results="numpy"))]:
            host = []

            def timed(call=call, host=host):
                result = call()
                host.append(instances.last_call.host_seconds)
                return result

            total = median_seconds(timed, repeat)
            rows[form] = (total, statistics.median(host[1:]))
        assert instances.call("process", array, results="numpy").tolist() == expected
        rows["device"] = instances.device
        rows["instructions"] = instances.last_call.instructions / n
    return expected, rows


def run_wasmtime(binary: bytes, n: int, repeat: int):
    import wasmtime

    store = wasmtime.Store()
    instance = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), [])
    exports = instance.exports(store)
    process, batch, memory = exports["process"], exports["batch"], exports["memory"]

    def per_call():
        return [process(store, i) for i in range(n)]

    def one_loop():
        batch(store, n)
        return np.frombuffer(memory.read(store, 0, 4 * n), dtype=np.int32).tolist()

    return per_call(), one_loop(), median_seconds(per_call, repeat), median_seconds(one_loop, repeat)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--device", default="cpu", choices=("cpu", "gpu"))
    args = parser.parse_args()
    import wasmtime

    n = args.instances
    # Ours needs no memory (process() touches none); wasmtime's loop stores every output.
    expected, ours = run_ours(wasmtime.wat2wasm(WORKER_WAT.replace("PAGES", "0")), n, args.repeat, args.device)
    pages = str(-(-4 * n // 65536))
    per_call_results, loop_results, per_call, one_loop = run_wasmtime(
        wasmtime.wat2wasm(WORKER_WAT.replace("PAGES", pages)), n, args.repeat)
    assert per_call_results == expected and loop_results == expected, "results differ from wasmtime's"

    us = 1e6 / n
    print(f"wasmgpu host overhead, {n} instances x {ours['instructions']:.0f} instructions, {platform.machine()}, "
          f"Python {platform.python_version()}, wasmtime {metadata.version('wasmtime')}")
    print(f"{'engine':44} {'call ms':>9} {'us/inst':>8} {'host us/inst':>13} {'vs wasmtime 1':>14} {'vs wasmtime 2':>14}")
    for form in ("list", "numpy"):
        total, host = ours[form]
        print(f"{'wasmgpu ' + ours['device'] + ' (' + form + ')':44} {total * 1e3:9.3f} {total * us:8.3f} "
              f"{host * us:13.3f} {per_call / total:13.1f}x {one_loop / total:13.2f}x")
    print(f"{'wasmtime, one Python call per instance (1)':44} {per_call * 1e3:9.3f} {per_call * us:8.3f}")
    print(f"{'wasmtime, one wasm loop + list of outputs (2)':44} {one_loop * 1e3:9.3f} {one_loop * us:8.3f}")
    print("ratios above 1 mean wasmgpu's call is faster than that baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
