#!/usr/bin/env python3
"""wasmgpu demo: one embedded WebAssembly module run as 10,000 independent instances.

The module (bytes below, built with tests/python/wasm_builder.py) exports
``collatz(n) -> steps`` (a data-dependent loop, so instances run different lengths) and
``hypot(x, y) -> sqrt(x*x + y*y)`` in f64 (the device's software f64, bit-exact). It runs
on the best hardware Vulkan GPU, or on the `cpu` device when there is none (software
adapters such as lavapipe only with WAVESTACK_ALLOW_SOFTWARE_GPU=1), checks every result
against Python and prints the phase timings of each call.
"""

from __future__ import annotations

import math
import sys

import wasmgpu
from wasmgpu import _native

MODULE = bytes.fromhex(
    "0061736d01000000010c0260017f017f60027c7c017c030302000107130207636f6c6c61747a0000056879706f7400010a47"
    "023601017f0240034020004101460d0120004101710440200041036c41016a210005200041017621000b200141016a21010c"
    "000b0b20010b0e0020002000a220012001a2a09f0b")

INSTANCES = 10_000


def collatz_steps(n: int) -> int:
    steps = 0
    while n != 1:
        n = 3 * n + 1 if n & 1 else n >> 1
        steps += 1
    return steps


def show(stats: wasmgpu.CallStats) -> None:
    print(f"  {stats.function}: {stats.instructions:,} instructions in {stats.dispatches} dispatches; "
          f"preparation {stats.preparation_seconds * 1e3:.1f} ms, upload {stats.upload_seconds * 1e3:.1f} ms, "
          f"dispatch {stats.dispatch_seconds * 1e3:.1f} ms, readback {stats.readback_seconds * 1e3:.1f} ms, "
          f"decoding {stats.decoding_seconds * 1e3:.1f} ms (execution={stats.execution!r} ran as {stats.executed_as})")


def main() -> int:
    module = wasmgpu.Module(MODULE)
    gpu = _native.select_device(False)
    if gpu is None:
        print("No hardware Vulkan GPU found: running on the cpu device (compiled mode: the module's units built "
              "as C++ by the host compiler on first use).")
        spawn_args = {"device": "cpu"}
    else:
        print(f"Running on {gpu['name']} ({gpu['type']}{', software' if gpu['is_software'] else ''}).")
        spawn_args = {}
    # No linear memory; 64 stack slots are plenty for these leaf functions.
    with module.spawn(INSTANCES, stack_size=64, **spawn_args) as instances:
        print(f"{INSTANCES:,} instances on {instances.device}, {instances.resident_bytes / 2**20:.1f} MiB resident")
        numbers = [i + 1 for i in range(INSTANCES)]
        steps = instances.call("collatz", numbers)
        show(instances.last_call)
        pairs = [(float(i), float(i) / 3.0) for i in range(INSTANCES)]
        lengths = instances.call("hypot", pairs)
        show(instances.last_call)
    ok_steps = steps == [collatz_steps(n) for n in numbers]
    ok_hypot = lengths == [math.sqrt(x * x + y * y) for x, y in pairs]
    longest = max(range(INSTANCES), key=steps.__getitem__)
    print(f"collatz: longest run {steps[longest]} steps (n = {numbers[longest]}); "
          f"{'all match Python' if ok_steps else 'MISMATCH'}")
    print(f"hypot:   {'all bit-identical with Python' if ok_hypot else 'MISMATCH'}")
    return 0 if ok_steps and ok_hypot else 1


if __name__ == "__main__":
    sys.exit(main())
