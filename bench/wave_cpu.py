#!/usr/bin/env python3
"""wave_gpu's native cpu device beside Warp's CPU backend and Numba's @njit (serial), in one
run: vector add (1M f32), Mandelbrot (32 iterations, 1M pixels) and N-body (2048 bodies, f32,
sqrt and division). Warm: the best of --repeat calls after one warm-up call. Cold: the first
call in a fresh process with empty compile caches (ours: a new WAVESTACK_CACHE_DIR; Warp: a new
kernel cache folder; Numba: no cache), the library already imported. Ours runs on one thread
(threads=1) and on all cores; Warp's CPU launches and @njit run on one thread.

    python bench/wave_cpu.py [--repeat 7] [--no-cold]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from warp_kernels import define_warp_kernels
from wave_kernels import mandelbrot, nbody, vector_add

VECTOR_N = 1_000_000
MANDEL_N = 1_000_000
MAX_ITERATIONS = 32
BODIES = 2048
EPS2 = 0.01
KERNELS = ("vector add 1M", "Mandelbrot 1M", "N-body 2048")


# ---- ours ---------------------------------------------------------------------------------

def ours():
    def runners(threads):
        return {
            "vector add 1M": lambda d: vector_add(d["a"], d["b"], d["out"], device="cpu", threads=threads),
            "Mandelbrot 1M": lambda d: mandelbrot(d["image"], d["width"], d["height"], MAX_ITERATIONS, device="cpu",
                                                  threads=threads),
            "N-body 2048": lambda d: nbody(*d["bodies"], d["acc"][0], d["acc"][1], d["acc"][2], BODIES,
                                           np.float32(EPS2), device="cpu", threads=threads),
        }

    return runners


# ---- Warp CPU -----------------------------------------------------------------------------

def warp_runners():
    import warp as wp

    wp.config.quiet = True
    if os.environ.get("WARP_CACHE_PATH"):  # a cold run: an empty kernel cache
        wp.config.kernel_cache_dir = os.environ["WARP_CACHE_PATH"]
    wp.init()

    add, mandel, nbody = define_warp_kernels(wp)

    def wrap(values, dtype=wp.float32):
        return [wp.array(v, dtype=dtype, device="cpu", copy=False) for v in values]

    def run_add(d):
        wa, wb, wo = wrap((d["a"], d["b"], d["out"]))
        wp.launch(add, dim=d["out"].size, inputs=[wa, wb, wo], device="cpu")
        wp.synchronize()

    def run_mandel(d):
        (wo,) = wrap((d["image"],), wp.int32)
        wp.launch(mandel, dim=d["image"].size, inputs=[wo, d["width"], d["height"], MAX_ITERATIONS], device="cpu")
        wp.synchronize()

    def run_nbody(d):
        arrays = wrap(list(d["bodies"]) + list(d["acc"]))
        wp.launch(nbody, dim=BODIES, inputs=arrays + [BODIES, EPS2], device="cpu")
        wp.synchronize()

    return {"vector add 1M": run_add, "Mandelbrot 1M": run_mandel, "N-body 2048": run_nbody}


# ---- Numba @njit, serial --------------------------------------------------------------------

def numba_runners():
    from numba import njit

    @njit(cache=False)
    def add(a, b, out):
        for i in range(out.size):
            out[i] = a[i] + b[i]

    @njit(cache=False)
    def mandel(out, width, height, max_iterations):
        for i in range(out.size):
            cx = np.float32(-2.0) + np.float32(3.0) * np.float32(i % width) / np.float32(width)
            cy = np.float32(-1.5) + np.float32(3.0) * np.float32(i // width) / np.float32(height)
            x = np.float32(0.0)
            y = np.float32(0.0)
            k = 0
            while k < max_iterations:
                if x * x + y * y > np.float32(4.0):
                    break
                t = x * x - y * y + cx
                y = np.float32(2.0) * x * y + cy
                x = t
                k += 1
            out[i] = k

    @njit(cache=False)
    def nbody(px, py, pz, mass, ax, ay, az, n, eps2):
        for i in range(n):
            xi = px[i]
            yi = py[i]
            zi = pz[i]
            sx = np.float32(0.0)
            sy = np.float32(0.0)
            sz = np.float32(0.0)
            for j in range(n):
                dx = px[j] - xi
                dy = py[j] - yi
                dz = pz[j] - zi
                r2 = dx * dx + dy * dy + dz * dz + eps2
                inv = np.float32(1.0) / np.sqrt(r2)
                s = mass[j] * inv * inv * inv
                sx += dx * s
                sy += dy * s
                sz += dz * s
            ax[i] = sx
            ay[i] = sy
            az[i] = sz

    return {
        "vector add 1M": lambda d: add(d["a"], d["b"], d["out"]),
        "Mandelbrot 1M": lambda d: mandel(d["image"], d["width"], d["height"], MAX_ITERATIONS),
        "N-body 2048": lambda d: nbody(*d["bodies"], *d["acc"], BODIES, np.float32(EPS2)),
    }


# ---- measurement --------------------------------------------------------------------------

def make_data():
    rng = np.random.default_rng(0)
    width = int(math.sqrt(MANDEL_N))
    return {
        "a": rng.standard_normal(VECTOR_N, dtype=np.float32),
        "b": rng.standard_normal(VECTOR_N, dtype=np.float32),
        "out": np.zeros(VECTOR_N, np.float32),
        "image": np.zeros(width * (MANDEL_N // width), np.int32),
        "width": width,
        "height": MANDEL_N // width,
        "bodies": tuple(rng.standard_normal(BODIES, dtype=np.float32) for _ in range(3)) +
                  (rng.uniform(0.5, 1.0, BODIES).astype(np.float32),),
        "acc": tuple(np.zeros(BODIES, np.float32) for _ in range(3)),
    }


def best_time(function, repeat: int) -> float:
    function()  # warm-up: compilation, caches, page faults
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def implementations():
    found = {"ours 1 thread": lambda: ours()(1), "ours all cores": lambda: ours()(None)}
    try:
        import warp  # noqa: F401
        found["Warp CPU"] = warp_runners
    except ImportError:
        pass
    try:
        import numba as _numba  # noqa: F401
        found["Numba @njit"] = numba_runners
    except ImportError:
        pass
    return found


def cold_child(implementation: str, kernel: str) -> None:
    """Prints the first call's seconds (a fresh process, empty caches)."""
    runners = implementations()[implementation]()
    data = make_data()
    start = time.perf_counter()
    runners[kernel](data)
    print(json.dumps(time.perf_counter() - start))


def cold_time(implementation: str, kernel: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, WAVESTACK_CACHE_DIR=folder, WARP_CACHE_PATH=folder, NUMBA_CACHE_DIR=folder)
        code = (f"import sys; sys.path.append({os.path.dirname(os.path.abspath(__file__))!r}); "
                f"import wave_cpu; wave_cpu.cold_child({implementation!r}, {kernel!r})")
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        return float(result.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-cold", action="store_true", help="skip the cold (first call) measurements")
    args = parser.parse_args()
    found = implementations()
    print(f"machine: {os.cpu_count()} cores; implementations: {', '.join(found)}")
    data = make_data()
    warm = {}
    results = {}
    for name, make in found.items():
        runners = make()
        for kernel in KERNELS:
            warm[(name, kernel)] = best_time(lambda: runners[kernel](data), args.repeat)
            results[(name, kernel)] = [np.copy(v) for v in (data["out"], data["image"], *data["acc"])]
    reference = results[("ours 1 thread", "Mandelbrot 1M")][1]
    for (name, kernel), arrays in results.items():
        if kernel == "Mandelbrot 1M" and not np.array_equal(arrays[1], reference):
            print(f"note: {name}'s Mandelbrot differs from ours at {np.count_nonzero(arrays[1] != reference)} pixels")
    cold = {}
    if not args.no_cold:
        for name in found:
            if name == "ours all cores":
                continue
            for kernel in KERNELS:
                cold[(name, kernel)] = cold_time(name, kernel)
    print(f"\n{'kernel':<16} {'implementation':<16} {'warm ms':>9} {'warm / ours-1t':>15} {'cold ms':>9} "
          f"{'cold / ours':>12}")
    for kernel in KERNELS:
        base = warm[("ours 1 thread", kernel)]
        cold_base = cold.get(("ours 1 thread", kernel))
        for name in found:
            seconds = warm[(name, kernel)]
            first = cold.get((name, kernel))
            cold_text = f"{first * 1e3:>9.1f} {first / cold_base:>12.2f}" if first and cold_base else f"{'':>9} {'':>12}"
            print(f"{kernel:<16} {name:<16} {seconds * 1e3:>9.3f} {seconds / base:>15.2f} {cold_text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
