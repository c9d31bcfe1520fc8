#!/usr/bin/env python3
"""`make demo`: runs the demo of each part of wavestack in turn and stops at the first failure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent
sys.path.insert(0, str(EXAMPLES.parent / "tests" / "mpi"))

# (title, script, ranks): ranks > 0 runs the script under mpirun.
STEPS: list[tuple[str, str, int]] = [
    ("Devices and the Vulkan smoke dispatch", "runtime_demo.py", 0),
    ("wave_gpu: the seed's vector_add and a shared-memory reduction on the selected device and the emulator",
     "wave_gpu_demo.py", 0),
    ("wave_gpu: 2-D heat diffusion with a device function and shaped arrays, checked against NumPy",
     "wave_heat2d.py", 0),
    ("wasmgpu: one WebAssembly module across 10,000 instances", "wasmgpu_demo.py", 0),
    ("wasmgpu: graphviz.wasm (WASI) renders a different graph on each instance", "wasmgpu_graphviz.py", 0),
    ("cudecomp: autotuned 4-rank transpose cycle and halo update", "cudecomp_demo.py", 4),
]


def run_step(title: str, script: str, ranks: int) -> int:
    print(f"\n=== {title} ===", flush=True)
    path = EXAMPLES / script
    if ranks == 0:
        return subprocess.call([sys.executable, str(path)])
    from mpi_harness import mpi_environment, mpirun_command

    command = [*mpirun_command(ranks), sys.executable, "-m", "mpi4py", str(path)]
    return subprocess.call(command, env=mpi_environment(), stdin=subprocess.DEVNULL, timeout=600)


def main() -> int:
    for title, script, ranks in STEPS:
        status = run_step(title, script, ranks)
        if status != 0:
            print(f"demo step '{title}' failed with exit status {status}", file=sys.stderr)
            return status
    print("\ndemo: all steps completed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
