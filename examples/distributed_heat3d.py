"""Distributed 3-D heat equation: cudecomp X-pencils with halos, a wave_gpu kernel per rank.

The global grid (periodic in x, y and z) is split into X-pencils over MPI.COMM_WORLD by cudecomp;
each rank keeps its pencil in one NumPy array with a one-cell halo. Every step
  1. fills the halos from the neighbouring ranks (update_halos_x along x, y and z; the corners
     follow because each update spans whole faces), then
  2. advances the pencil's interior with an explicit 7-point stencil, a @wave_gpu.kernel that
     reads the padded array and writes the interior of the next one in place (`info.interior`).
After the steps rank 0 gathers the pencils and compares them with one NumPy process computing the
whole grid with the same scheme. The operations are the same, in the same order, so the result is
bit-identical (f64 and f32 alike) for any number of ranks; the script exits non-zero otherwise.

    mpirun -np 4 python -m mpi4py examples/distributed_heat3d.py [--gdims 24 20 16] [--steps 10]
                                                                  [--dtype f64|f32]

It prints the time per step of every rank (halo exchange and kernel separately).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from mpi4py import MPI

import cudecomp
import wave_gpu
from wave_gpu import thread_id

HALO = (1, 1, 1)
PERIODIC = (True, True, True)
ALPHA = 0.125  # diffusion number: the explicit 3-D scheme is stable up to 1/6


@wave_gpu.kernel
def heat_step(u, out, alpha):
    """out[k, j, i] (an interior cell) from u, the same pencil with a one-cell halo, where that
    cell is u[k + 1, j + 1, i + 1]. The neighbours are summed x-, x+, y-, y+, z-, z+, the
    order of the NumPy reference, so that both round identically. Unannotated, the kernel is
    compiled once per argument types: f64 arrays with a numpy.float64 alpha, or f32 with float32."""
    i = thread_id(0)
    j = thread_id(1)
    k = thread_id(2)
    centre = u[k + 1, j + 1, i + 1]
    neighbours = (u[k + 1, j + 1, i] + u[k + 1, j + 1, i + 2] + u[k + 1, j, i + 1] + u[k + 1, j + 2, i + 1]
                  + u[k, j + 1, i + 1] + u[k + 2, j + 1, i + 1])
    out[k, j, i] = centre + alpha * (neighbours - 6.0 * centre)


DTYPES = {"f64": np.float64, "f32": np.float32}


def rank_device(comm: MPI.Comm) -> str:
    """This rank's device: its own GPU (GPU index = rank on this machine, modulo the GPUs), else the
    emulator. (When wave_gpu's native CPU device exists, "cpu" is the better fallback here.)"""
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)  # the ranks on this machine (collective: first)
    local_rank = node.rank
    node.Free()
    if os.environ.get("WAVE_GPU_DEVICE"):
        return os.environ["WAVE_GPU_DEVICE"]  # the user's choice, as for any wave_gpu program
    allow_software = os.environ.get("WAVESTACK_ALLOW_SOFTWARE_GPU") == "1"
    gpus = [d for d in wave_gpu.devices() if d.index is not None and (allow_software or not d.software)]
    return str(gpus[local_rank % len(gpus)].index) if gpus else "emulator"


def device_label(device: str) -> str:
    """A device's name for the report ("0" is the Vulkan device with index 0)."""
    named = [d.name for d in wave_gpu.devices() if d.index is not None and str(d.index) == device]
    return f"{named[0]} (device {device})" if named else device


def initial_temperature(gdims, dtype) -> np.ndarray:
    """The whole grid at t = 0, shape (gz, gy, gx): a smooth field plus seeded noise (every rank
    computes the same array; each keeps its own part)."""
    gx, gy, gz = gdims
    z, y, x = np.meshgrid(np.arange(gz), np.arange(gy), np.arange(gx), indexing="ij")
    smooth = np.sin(2 * np.pi * x / gx) * np.cos(2 * np.pi * y / gy) + 0.5 * np.sin(2 * np.pi * z / gz)
    noise = np.random.default_rng(2024).random((gz, gy, gx))
    return (smooth + 0.1 * noise).astype(dtype)


def numpy_heat(u: np.ndarray, steps: int) -> np.ndarray:
    """The reference: the whole periodic grid in one process, same operations in the same order."""
    alpha = u.dtype.type(ALPHA)
    six = u.dtype.type(6.0)
    for _ in range(steps):
        neighbours = (np.roll(u, 1, axis=2) + np.roll(u, -1, axis=2) + np.roll(u, 1, axis=1)
                      + np.roll(u, -1, axis=1) + np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0))
        u = u + alpha * (neighbours - six * u)
    return u


def make_grid(handle, comm, gdims):
    config = cudecomp.GridDescConfig()
    config.gdims = gdims
    config.pdims = tuple(MPI.Compute_dims(comm.size, 2))  # Prows x Pcols split y and z of the X-pencils
    return handle.create_grid(config)


def exchange_halos(grid, u) -> None:
    for dim in range(3):
        grid.update_halos_x(u, dim, HALO, halo_periods=PERIODIC)


def run(comm, gdims, steps, dtype_name, device):
    """Advances this rank's pencil; returns (its PencilInfo, its final interior, per-step timings)."""
    dtype = DTYPES[dtype_name]
    handle = cudecomp.Handle(comm)
    grid = make_grid(handle, comm, gdims)
    info = grid.get_pencil_info(0, HALO)  # X-pencil with halos
    u = np.zeros(info.array_shape, dtype=dtype)
    info.interior(u)[...] = info.from_global(initial_temperature(gdims, dtype))
    u_next = np.zeros_like(u)
    launch = tuple(reversed(info.interior_shape))  # threads (x, y, z) over the interior
    alpha = dtype(ALPHA)
    exchange_halos(grid, u)  # also the first call's set-up: kernel compilation, workspace
    heat_step(u, info.interior(u_next), alpha, dim=launch, device=device)
    halo_seconds = kernel_seconds = 0.0
    info.interior(u)[...] = info.from_global(initial_temperature(gdims, dtype))
    comm.Barrier()
    for _ in range(steps):
        start = time.perf_counter()
        exchange_halos(grid, u)
        exchanged = time.perf_counter()
        heat_step(u, info.interior(u_next), alpha, dim=launch, device=device)
        kernel_seconds += time.perf_counter() - exchanged
        halo_seconds += exchanged - start
        u, u_next = u_next, u
    result = info.interior(u).copy()
    grid.destroy()
    handle.finalize()
    return info, result, (halo_seconds / steps, kernel_seconds / steps)


def gather_whole(comm, gdims, info, interior, dtype):
    """Rank 0 assembles the whole grid from every rank's interior (None elsewhere)."""
    parts = comm.gather((info, interior), root=0)
    if comm.rank != 0:
        return None
    whole = np.full(tuple(reversed(gdims)), np.nan, dtype=dtype)
    for part_info, part in parts:
        part_info.from_global(whole)[...] = part
    return whole


def positive(text: str) -> int:
    """argparse type: an int >= 1 (argparse names the option in its error)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gdims", type=positive, nargs=3, default=(24, 20, 16), metavar=("GX", "GY", "GZ"))
    parser.add_argument("--steps", type=positive, default=10)
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="f64")
    args = parser.parse_args(argv)
    comm = MPI.COMM_WORLD
    device = rank_device(comm)  # the one line that says where this rank's kernels run
    gdims = tuple(args.gdims)
    info, interior, (halo_s, kernel_s) = run(comm, gdims, args.steps, args.dtype, device)
    timings = comm.gather((comm.rank, device_label(device), interior.shape, halo_s, kernel_s), root=0)
    whole = gather_whole(comm, gdims, info, interior, DTYPES[args.dtype])
    ok = True
    if comm.rank == 0:
        expected = numpy_heat(initial_temperature(gdims, DTYPES[args.dtype]), args.steps)
        ok = bool(np.array_equal(whole, expected))
        print(f"heat3d: gdims {gdims}, {args.steps} steps, {args.dtype}, {comm.size} rank(s), "
              f"pdims {tuple(int(p) for p in MPI.Compute_dims(comm.size, 2))}")
        for rank, where, shape, halo_s, kernel_s in timings:
            print(f"  rank {rank} on {where}: interior {shape} (z, y, x), per step {1e3 * (halo_s + kernel_s):.2f} ms "
                  f"(halos {1e3 * halo_s:.2f} ms, kernel {1e3 * kernel_s:.2f} ms)")
        mismatched = int(np.count_nonzero(whole != expected))
        print(f"heat3d: {'bit-identical to' if ok else f'{mismatched} elements differ from'} the NumPy "
              f"reference (whole grid in one process); max |difference| {np.max(np.abs(whole - expected)):.3e}")
    ok = comm.bcast(ok, root=0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
