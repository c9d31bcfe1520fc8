#!/usr/bin/env python3
"""wave_gpu kernels on a Vulkan device against the device's limits and vendor library.

* vector add (f32): effective bandwidth (3 x 4 bytes per element over the kernel's time)
  against device-to-device copies: a wave_gpu copy kernel, and where PyTorch or CuPy sees a
  CUDA GPU, their copy (the vendor's limit); on a software adapter, NumPy's host copy (the
  device's memory is host memory).
* SGEMM (f32, row-major, M = N = K): a tiled @wave_gpu.kernel with shared memory and a
  register micro-tile, generated for --micro (accumulators per thread = micro^2), against
  the vendor BLAS: cuBLAS through PyTorch (TF32 off) or CuPy when a CUDA GPU is visible;
  otherwise the peer is reported as not available, with the reason.

Kernel times are the device's dispatch phase (submit to fence, the arrays already resident);
best of --repeat after a warm-up call. Results are checked in every run.

    python bench/wave_gpu_vulkan.py [--device NAME|INDEX] [--n 16777216] [--size 4096] [--micro 8] [--depth 8]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import textwrap
import time

import numpy as np

import wave_gpu
from wave_gpu import thread_id
from wave_kernels import vector_add

THREADS = 16  # a workgroup is THREADS x THREADS


@wave_gpu.kernel
def copy(a: wave_gpu.f32[:], out: wave_gpu.f32[:]):
    i = thread_id()
    if i < len(out):
        out[i] = a[i]


def sgemm_source(micro: int, depth: int, checked: bool) -> str:
    """A tiled SGEMM kernel: each THREADS x THREADS workgroup computes a block of
    (THREADS*micro)^2 outputs, staging depth-deep slices of A (transposed) and B in shared
    memory; each thread keeps micro x micro accumulators in registers. M, N, K must be
    multiples of the block (the benchmark's sizes are)."""
    block = THREADS * micro
    loads = block * depth // (THREADS * THREADS)
    depth_shift = depth.bit_length() - 1
    block_shift = block.bit_length() - 1
    lines = [
        "import wave_gpu",
        "from wave_gpu import barrier, fma, local_id, shared, workgroup_id, f32, i32",
        "",
        "",
        "@wave_gpu.kernel" if checked else "@wave_gpu.kernel(bounds_checks=False)",
        "def sgemm(a: f32[:], b: f32[:], c: f32[:], m: i32, n: i32, k: i32):",
        f"    tile_a = shared({depth * block}, f32)",
        f"    tile_b = shared({depth * block}, f32)",
        "    tx = local_id(0)",
        "    ty = local_id(1)",
        f"    lin = ty * {THREADS} + tx",
        f"    row0 = workgroup_id(1) * {block}",
        f"    col0 = workgroup_id(0) * {block}",
    ]
    lines += [f"    c{i}_{j} = 0.0" for i in range(micro) for j in range(micro)]
    lines += [
        f"    for kk in range(0, k, {depth}):",
        f"        for q in range({loads}):",
        f"            idx = lin + {THREADS * THREADS} * q",
        f"            ra = idx >> {depth_shift}",
        f"            ka = idx & {depth - 1}",
        f"            tile_a[ka * {block} + ra] = a[(row0 + ra) * k + kk + ka]",
        f"            kb = idx >> {block_shift}",
        f"            cb = idx & {block - 1}",
        f"            tile_b[kb * {block} + cb] = b[(kk + kb) * n + col0 + cb]",
        "        barrier()",
        f"        for j in range({depth}):",
    ]
    lines += [f"            a{i} = tile_a[j * {block} + ty * {micro} + {i}]" for i in range(micro)]
    lines += [f"            b{i} = tile_b[j * {block} + tx * {micro} + {i}]" for i in range(micro)]
    lines += [f"            c{i}_{j} = fma(a{i}, b{j}, c{i}_{j})" for i in range(micro) for j in range(micro)]
    lines += ["        barrier()"]
    lines += [f"    c[(row0 + ty * {micro} + {i}) * n + col0 + tx * {micro} + {j}] = c{i}_{j}"
              for i in range(micro) for j in range(micro)]
    return "\n".join(lines) + "\n"


def load_sgemm(micro: int, depth: int, checked: bool):
    folder = tempfile.mkdtemp(prefix="wave_gpu_bench_")
    name = f"sgemm_{micro}_{depth}_{'checked' if checked else 'unchecked'}"
    path = os.path.join(folder, f"{name}.py")
    with open(path, "w", encoding="utf-8") as file:
        file.write(sgemm_source(micro, depth, checked))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.sgemm


def best_dispatch_ms(kernel, arguments, repeat: int, **launch) -> float:
    kernel(*arguments, **launch)  # warm-up: compiles, uploads
    times = []
    for _ in range(repeat):
        kernel(*arguments, **launch)
        times.append(kernel.last_timings["dispatch_ms"])
    return min(times)


def cuda_peer():
    """(name, module) of a CUDA library that sees a GPU, or (reason it is missing, None)."""
    try:
        import torch

        if torch.cuda.is_available():
            torch.backends.cuda.matmul.allow_tf32 = False  # true FP32 SGEMM
            return "cuBLAS via PyTorch", torch
        reason = "PyTorch sees no CUDA GPU"
    except ImportError:
        reason = "PyTorch is not installed"
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return "cuBLAS via CuPy", cupy
    except Exception as error:  # noqa: BLE001 - any failure means no CuPy peer
        reason += f"; CuPy unavailable ({type(error).__name__})"
    return reason, None


def time_cuda(library, function, repeat: int) -> float:
    """Best time in ms of function() on the CUDA device, with events."""
    function()
    best = float("inf")
    for _ in range(repeat):
        if library.__name__ == "torch":
            start, end = library.cuda.Event(enable_timing=True), library.cuda.Event(enable_timing=True)
            start.record()
            function()
            end.record()
            end.synchronize()
            best = min(best, start.elapsed_time(end))
        else:
            start, end = library.cuda.Event(), library.cuda.Event()
            start.record()
            function()
            end.record()
            end.synchronize()
            best = min(best, library.cuda.get_elapsed_time(start, end))
    return best


def cuda_copy_ms(library, n: int, repeat: int) -> float:
    if library.__name__ == "torch":
        x = library.ones(n, dtype=library.float32, device="cuda")
        y = library.empty_like(x)
        return time_cuda(library, lambda: y.copy_(x), repeat)
    x = library.ones(n, dtype=library.float32)
    y = library.empty_like(x)
    return time_cuda(library, lambda: library.copyto(y, x), repeat)


def cuda_sgemm_ms(library, size: int, repeat: int) -> float:
    if library.__name__ == "torch":
        a = library.rand(size, size, device="cuda")
        b = library.rand(size, size, device="cuda")
        c = library.empty(size, size, device="cuda")
        return time_cuda(library, lambda: library.matmul(a, b, out=c), repeat)
    a = library.random.rand(size, size, dtype=library.float32)
    b = library.random.rand(size, size, dtype=library.float32)
    c = library.empty((size, size), dtype=library.float32)
    return time_cuda(library, lambda: library.matmul(a, b, out=c), repeat)


def table(rows):
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None, help="device name or index (default: wave_gpu.device())")
    parser.add_argument("--n", type=int, default=None, help="vector length (default 2^26 on hardware, 2^22 software)")
    parser.add_argument("--size", type=int, default=None, help="SGEMM M = N = K (default 4096 hardware, 256 software)")
    parser.add_argument("--micro", type=int, default=8, choices=[2, 4, 8], help="SGEMM register tile per thread")
    parser.add_argument("--depth", type=int, default=8, choices=[8, 16, 32], help="SGEMM k-slice in shared memory")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args(argv)
    if args.device is not None:
        wave_gpu.set_device(args.device)
    device = wave_gpu.device()
    if device.vendor == "emulator":
        print("no Vulkan device is selected (software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1); "
              "this benchmark measures GPUs", file=sys.stderr)
        return 1
    n = args.n or (1 << 22 if device.software else 1 << 26)
    block = THREADS * args.micro
    size = args.size or (256 if device.software else 4096)
    size = max(block, size // block * block)
    peer_name, peer = cuda_peer()
    print(f"device: #{device.index} {device.name} ({'software' if device.software else 'hardware'}), "
          f"wave width {device.wave_width}")
    rows = [["benchmark", "ours", "limit / peer", "ratio", "notes"]]

    # ---- vector add against device-to-device copies ----
    a = wave_gpu.array(np.random.default_rng(0).standard_normal(n).astype(np.float32))
    b = wave_gpu.array(np.random.default_rng(1).standard_normal(n).astype(np.float32))
    out = wave_gpu.zeros(n)
    add_ms = best_dispatch_ms(vector_add, (a, b, out), args.repeat)
    if not np.array_equal(out.numpy(), a.numpy() + b.numpy()):
        print("vector add: WRONG RESULT", file=sys.stderr)
        return 1
    add_gbs = 3 * 4 * n / add_ms / 1e6
    copy_ms = best_dispatch_ms(copy, (a, out), args.repeat)
    copy_gbs = 2 * 4 * n / copy_ms / 1e6
    limits = [f"wave_gpu copy kernel {copy_gbs:.1f} GB/s"]
    best_limit = copy_gbs
    if peer is not None:
        vendor_gbs = 2 * 4 * n / cuda_copy_ms(peer, n, args.repeat) / 1e6
        limits.append(f"{peer_name.split(' via ')[1]} D2D copy {vendor_gbs:.1f} GB/s")
        best_limit = max(best_limit, vendor_gbs)
    elif device.software:
        host = np.empty(n, np.float32)
        start = time.perf_counter()
        for _ in range(args.repeat):
            np.copyto(host, a.numpy())
        host_gbs = 2 * 4 * n / ((time.perf_counter() - start) / args.repeat * 1e3) / 1e6
        limits.append(f"NumPy host copy {host_gbs:.1f} GB/s (a software device's memory is host memory)")
        best_limit = max(best_limit, host_gbs)
    rows.append([f"vector add f32, n = {n}", f"{add_ms:.3f} ms, {add_gbs:.1f} GB/s", "; ".join(limits),
                 f"{add_gbs / copy_gbs:.2f} of the copy kernel, {add_gbs / best_limit:.2f} of the best copy",
                 "bytes = 3 x 4 n"])

    # ---- SGEMM against the vendor BLAS, with and without the bounds checks ----
    rng = np.random.default_rng(2)
    ma = wave_gpu.array(rng.standard_normal(size * size).astype(np.float32))
    mb = wave_gpu.array(rng.standard_normal(size * size).astype(np.float32))
    reference = ma.numpy().reshape(size, size).astype(np.float64) @ mb.numpy().reshape(size, size).astype(np.float64)
    peer_tflops = None
    if peer is not None:
        peer_tflops = 2 * size**3 / cuda_sgemm_ms(peer, size, args.repeat) / 1e9
    groups = size // block
    for checked in (True, False):
        sgemm = load_sgemm(args.micro, args.depth, checked)
        mc = wave_gpu.zeros(size * size)
        gemm_ms = best_dispatch_ms(sgemm, (ma, mb, mc, size, size, size), args.repeat, grid=(groups, groups, 1),
                                   workgroup=(THREADS, THREADS, 1))
        error = np.abs(mc.numpy().reshape(size, size) - reference).max() / np.abs(reference).max()
        if not error < 1e-4:
            print(f"SGEMM: WRONG RESULT (relative error {error:.2e})", file=sys.stderr)
            return 1
        tflops = 2 * size**3 / gemm_ms / 1e9
        rate = f"{tflops:.2f} TFLOP/s" if tflops >= 0.1 else f"{tflops * 1e3:.2f} GFLOP/s"
        label = (f"SGEMM f32 {size}^3 (tile {block}x{block}x{args.depth}, {args.micro}x{args.micro}/thread, "
                 f"{'bounds-checked' if checked else 'bounds_checks=False'})")
        if peer_tflops is not None:
            rows.append([label, f"{gemm_ms:.3f} ms, {rate}", f"{peer_name} {peer_tflops:.2f} TFLOP/s",
                         f"{tflops / peer_tflops:.3f} of the vendor BLAS", "upstream WAVE: 0.535 on M4 Pro"])
        else:
            rows.append([label, f"{gemm_ms:.3f} ms, {rate}", f"vendor BLAS not available: {peer_name}", "-",
                         f"max relative error {error:.1e}"])
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
