#!/usr/bin/env python3
"""The WAVE emulator side by side with its peers, in one run: NumPy, a plain C++ loop (the
physical limit of this CPU), and, when installed, Numba's CUDA simulator and Warp's CPU
backend. Vector add and Mandelbrot at 1e5, 1e6 and 1e7 elements; prints throughputs and
the ratio of each peer's time to the emulator's.

    python bench/wave_emulator.py [--sizes 100000 1000000 10000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time

import numpy as np

import wave_gpu
from wave_gpu import _native
from warp_kernels import define_warp_kernels
from wave_kernels import mandelbrot, vector_add

MAX_ITERATIONS = 32
NUMBA_LIMIT = 100_000  # the CUDA simulator runs every thread in Python: larger sizes take minutes


def numpy_mandelbrot(out, width, height, max_iterations):
    index = np.arange(out.size)
    cx = np.float32(-2.0) + np.float32(3.0) * (index % width).astype(np.float32) / np.float32(width)
    cy = np.float32(-1.5) + np.float32(3.0) * (index // width).astype(np.float32) / np.float32(height)
    x = np.zeros_like(cx)
    y = np.zeros_like(cy)
    k = np.zeros(out.size, np.int32)
    alive = np.ones(out.size, bool)
    for _ in range(max_iterations):
        alive &= x * x + y * y <= np.float32(4.0)
        t = x * x - y * y + cx
        y = np.where(alive, np.float32(2.0) * x * y + cy, y)
        x = np.where(alive, t, x)
        k += alive
    out[:] = k


def best_time(function, repeat: int, warm_up: bool = True) -> float:
    if warm_up:
        function()  # compilation, caches, page faults
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def numba_peers():
    global cuda  # the simulator swaps the `cuda` global of its kernels for a fake module
    try:
        os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
        from numba import cuda
    except ImportError:
        return None

    @cuda.jit
    def add(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]

    @cuda.jit
    def mandel(out, width, height, max_iterations):
        i = cuda.grid(1)
        if i < out.size:
            cx = np.float32(-2.0) + np.float32(3.0) * np.float32(i % width) / np.float32(width)
            cy = np.float32(-1.5) + np.float32(3.0) * np.float32(i // width) / np.float32(height)
            x = np.float32(0.0)
            y = np.float32(0.0)
            k = 0
            while k < max_iterations:
                if x * x + y * y > 4.0:
                    break
                t = x * x - y * y + cx
                y = np.float32(2.0) * x * y + cy
                x = t
                k += 1
            out[i] = k

    def run_add(a, b, out):
        add[math.ceil(out.size / 256), 256](a, b, out)

    def run_mandel(out, width, height, iterations):
        mandel[math.ceil(out.size / 256), 256](out, width, height, iterations)

    return run_add, run_mandel


def warp_peers():
    try:
        import warp as wp
    except ImportError:
        return None
    wp.config.quiet = True
    wp.init()

    add, mandel, _ = define_warp_kernels(wp)

    def run_add(a, b, out):
        wa, wb, wo = (wp.array(v, dtype=wp.float32, device="cpu", copy=False) for v in (a, b, out))
        wp.launch(add, dim=out.size, inputs=[wa, wb, wo], device="cpu")
        wp.synchronize()

    def run_mandel(out, width, height, iterations):
        wo = wp.array(out, dtype=wp.int32, device="cpu", copy=False)
        wp.launch(mandel, dim=out.size, inputs=[wo, width, height, iterations], device="cpu")
        wp.synchronize()

    return run_add, run_mandel


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--numba-limit", type=int, default=NUMBA_LIMIT,
                        help="largest size run on Numba's CUDA simulator (default 100000; it takes ~1 min there)")
    args = parser.parse_args()
    wave_gpu.set_device("emulator")
    numba = numba_peers()
    warp = warp_peers()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"emulator threads: {os.environ.get('WAVESTACK_THREADS', 'all cores')}")
    print(f"peers: NumPy, C++ loop{', Numba CUDA simulator' if numba else ''}{', Warp CPU' if warp else ''}"
          f"{'' if numba else ' (numba not installed)'}{'' if warp else ' (warp-lang not installed)'}")
    rows = []
    rng = np.random.default_rng(0)
    for n in args.sizes:
        repeat = 1 if n >= 10_000_000 else args.repeat
        a = rng.standard_normal(n, dtype=np.float32)
        b = rng.standard_normal(n, dtype=np.float32)
        out = np.zeros(n, np.float32)
        times = {"emulator": best_time(lambda: vector_add(a, b, out), repeat)}
        assert np.array_equal(out, a + b)
        times["NumPy"] = best_time(lambda: np.add(a, b, out=out), repeat)
        times["C++ loop"] = best_time(lambda: _native.bench_reference_vector_add(a, b, out), repeat)
        if numba and n <= args.numba_limit:
            times["Numba CUDA sim"] = best_time(lambda: numba[0](a, b, out), 1, warm_up=False)
        if warp:
            times["Warp CPU"] = best_time(lambda: warp[0](a, b, out), repeat)
        rows.append(("vector add", n, times))

        width = int(math.sqrt(n))
        height = n // width
        image = np.zeros(width * height, np.int32)
        reference = np.zeros_like(image)
        times = {"emulator": best_time(lambda: mandelbrot(image, width, height, MAX_ITERATIONS), repeat)}
        times["NumPy"] = best_time(lambda: numpy_mandelbrot(reference, width, height, MAX_ITERATIONS), repeat)
        mismatches = int(np.count_nonzero(image != reference))
        times["C++ loop"] = best_time(
            lambda: _native.bench_reference_mandelbrot(reference, width, height, MAX_ITERATIONS), repeat)
        if numba and n <= args.numba_limit:
            times["Numba CUDA sim"] = best_time(lambda: numba[1](image.copy(), width, height, MAX_ITERATIONS), 1,
                                                 warm_up=False)
        if warp:
            times["Warp CPU"] = best_time(lambda: warp[1](image.copy(), width, height, MAX_ITERATIONS), repeat)
        rows.append((f"Mandelbrot ({MAX_ITERATIONS} it.){' MISMATCH %d' % mismatches if mismatches else ''}",
                     width * height, times))

    print(f"\n{'benchmark':<24} {'n':>10}  {'implementation':<16} {'time ms':>10} {'Melem/s':>10} "
          f"{'time / emulator':>16}")
    for name, n, times in rows:
        for implementation, seconds in times.items():
            print(f"{name:<24} {n:>10}  {implementation:<16} {seconds * 1e3:>10.2f} {n / seconds / 1e6:>10.1f} "
                  f"{seconds / times['emulator']:>16.3f}")
        emulator_vs_cpp = times["emulator"] / times["C++ loop"]
        print(f"{'':<24} {'':>10}  emulator is {emulator_vs_cpp:.1f}x the C++ loop's time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
