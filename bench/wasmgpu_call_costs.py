"""What one wasmgpu call costs the host beside the guest's work: dispatches, queue submissions,
fence waits and bytes uploaded and downloaded (``Instances.last_call``), with the call's time.

Two small workloads, each checked against a Python reference:
- process(x): 22 instructions, i32 -> i32 (bench/wasmgpu_host.py's worker): one dispatch;
- collatz(x): the steps from x to 1, for x = 1..count: data-dependent lengths (the longest of
  10,000 runs 261 steps, about 3,400 instructions), so the call takes several dispatches
  while most instances have finished.

Run on lavapipe: ``WAVESTACK_ALLOW_SOFTWARE_GPU=1 python bench/wasmgpu_call_costs.py --device gpu``.
``--cancel`` passes a cancel callback (never true), which makes a Vulkan device read every
instance's outcome after each dispatch, as every call did before dispatch sequences;
``--quantum`` sets the instructions per instance per dispatch (short dispatches: small values);
``--execution compiled`` runs compiled mode (its steps read a device-written summary, not every
outcome, until the last).
"""

from __future__ import annotations

import argparse
from pathlib import Path
import statistics
import sys
import time

# This folder comes first on sys.path when the script runs, and bench/wasmgpu.py (the engines
# benchmark) would shadow the package.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    del sys.path[0]
import wasmgpu  # noqa: E402

PROCESS_WAT = """
(module
  (func (export "process") (param $x i32) (result i32) (local $t i32)
    local.get $x  i32.const 2654435761  i32.mul  local.set $t
    local.get $t  i32.const 15  i32.shr_u  local.get $t  i32.xor  local.set $t
    local.get $t  i32.const 3  i32.mul  i32.const 7  i32.add
    local.get $x  i32.const 1  i32.and  i32.add  local.get $x  i32.xor))
"""

COLLATZ_WAT = """
(module
  (func (export "collatz") (param $x i32) (result i32) (local $n i32)
    (block $done (loop $next
      (br_if $done (i32.eq (local.get $x) (i32.const 1)))
      (if (i32.and (local.get $x) (i32.const 1))
        (then (local.set $x (i32.add (i32.mul (local.get $x) (i32.const 3)) (i32.const 1))))
        (else (local.set $x (i32.shr_u (local.get $x) (i32.const 1)))))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $next)))
    local.get $n))
"""


def process_reference(x: int) -> int:
    t = (x * 2654435761) & 0xFFFFFFFF
    t ^= t >> 15
    r = (t * 3 + 7 + (x & 1)) & 0xFFFFFFFF
    r ^= x
    return r - (1 << 32) if r >= 1 << 31 else r


def collatz_reference(x: int) -> int:
    n = 0
    while x != 1:
        x = 3 * x + 1 if x & 1 else x >> 1
        n += 1
    return n


WORKLOADS = {
    "process": (PROCESS_WAT, lambda count: list(range(count)), process_reference),
    "collatz": (COLLATZ_WAT, lambda count: [i + 1 for i in range(count)], collatz_reference),
}


def measure(name: str, count: int, repeat: int, where: dict, quantum: int, cancel, execution: str) -> dict:
    import wasmtime

    wat, inputs_of, reference = WORKLOADS[name]
    inputs = inputs_of(count)
    expected = [reference(x) for x in inputs]
    with wasmgpu.Module(wasmtime.wat2wasm(wat), execution=execution).spawn(count, memory_pages=0, quantum=quantum,
                                                                           **where) as inst:
        times = []
        for _ in range(repeat + 1):  # the first is a warm-up
            start = time.perf_counter()
            results = inst.call(name, inputs, cancel=cancel)
            times.append(time.perf_counter() - start)
            assert results == expected, f"{name}: results differ from the reference"
        stats = inst.last_call
        return {"device": inst.device, "seconds": statistics.median(times[1:]), "stats": stats}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default="gpu", choices=("cpu", "gpu"))
    parser.add_argument("--quantum", type=int, default=4096)
    parser.add_argument("--cancel", action="store_true", help="one dispatch per step, every outcome read after each")
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=list(WORKLOADS))
    parser.add_argument("--execution", default="interpreter", choices=("interpreter", "compiled"))
    args = parser.parse_args()
    cancel = (lambda: False) if args.cancel else None
    where = {"device": "cpu"} if args.device == "cpu" else {"allow_software": True}
    print(f"{'workload':10} {'count':>7} {'dispatches':>10} {'submits':>8} {'fence waits':>11} {'bytes up':>10} "
          f"{'bytes down':>11} {'down/inst':>9} {'call ms':>8}  device")
    for name in args.workloads:
        for count in args.counts:
            row = measure(name, count, args.repeat, where, args.quantum, cancel, args.execution)
            s = row["stats"]
            print(f"{name:10} {count:7} {s.dispatches:10} {s.submits:8} {s.fence_waits:11} {s.bytes_uploaded:10} "
                  f"{s.bytes_downloaded:11} {s.bytes_downloaded_per_instance:9.0f} {row['seconds'] * 1e3:8.2f}  "
                  f"{row['device']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
