"""Transpose benchmark: cudecomp against FFTW-MPI and mpi4py-fft, side by side in one run.

    mpirun -np N python bench/decomp_transpose.py [--sizes 128 256] [--iterations 10]

Each library moves the same global array of doubles through four global transposes:
- cudecomp: the X->Y->Z->Y->X pencil cycle, on the process grid and backend its autotuner picks
  (every candidate of this rank count), out of place;
- FFTW-MPI: fftw_mpi_plan_many_transpose on the slab-distributed array (Z x Y matrix of X-long
  elements), forward and back twice, FFTW_MEASURE plans, out of place;
- mpi4py-fft: Pencil.transfer through the pencils aligned with axes 2, 1, 0, 1, 2 on the
  process grid MPI_Dims_create gives.
The libraries take turns cycle by cycle; a cycle's time is the slowest rank's; the median is reported as
GB/s = 4 x array bytes / cycle time. Peers that are not installed are skipped with a message.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import statistics
import sys

import numpy as np
from mpi4py import MPI

import cudecomp
from cudecomp._bench import TransposeCycle

comm = MPI.COMM_WORLD


def slowest(seconds: float) -> float:
    return comm.allreduce(seconds, op=MPI.MAX)


def timed_rounds(cycles: dict, iterations: int, warmup: int) -> dict:
    """Median cycle seconds per library. Libraries take turns, one cycle each per round, so a
    load that comes and goes on a shared machine hits all of them alike."""
    times = {name: [] for name in cycles}
    for iteration in range(warmup + iterations):
        for name, cycle in cycles.items():
            comm.Barrier()
            start = MPI.Wtime()
            cycle()
            elapsed = slowest(MPI.Wtime() - start)
            if iteration >= warmup:
                times[name].append(elapsed)
    return {name: statistics.median(values) for name, values in times.items()}


class FftwMpi:
    """The few FFTW-MPI entry points the benchmark needs, through ctypes."""

    FFTW_MEASURE = 0

    def __init__(self):
        name = ctypes.util.find_library("fftw3_mpi") or "libfftw3_mpi.so.3"
        self.lib = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        self.lib.fftw_mpi_init()
        comm_type = ctypes.c_void_p  # Open MPI's MPI_Comm is a pointer
        self.comm = comm_type(MPI._handleof(comm))
        size_t = ctypes.c_ssize_t
        self.lib.fftw_mpi_local_size_many_transposed.restype = size_t
        self.lib.fftw_mpi_local_size_many_transposed.argtypes = [
            ctypes.c_int, ctypes.POINTER(size_t), size_t, size_t, size_t, comm_type,
            ctypes.POINTER(size_t), ctypes.POINTER(size_t), ctypes.POINTER(size_t), ctypes.POINTER(size_t)]
        self.lib.fftw_mpi_plan_many_transpose.restype = ctypes.c_void_p
        self.lib.fftw_mpi_plan_many_transpose.argtypes = [size_t, size_t, size_t, size_t, size_t, ctypes.c_void_p,
                                                          ctypes.c_void_p, comm_type, ctypes.c_uint]
        self.lib.fftw_execute.argtypes = [ctypes.c_void_p]
        self.lib.fftw_destroy_plan.argtypes = [ctypes.c_void_p]

    def make_cycle(self, gdims):
        nx, ny, nz = gdims
        size_t = ctypes.c_ssize_t
        n = (size_t * 2)(nz, ny)
        local = [size_t() for _ in range(4)]
        count = self.lib.fftw_mpi_local_size_many_transposed(2, n, nx, 0, 0, self.comm, *[ctypes.byref(v) for v in local])
        a = np.zeros(max(count, 1))
        b = np.zeros(max(count, 1))
        forward = self.lib.fftw_mpi_plan_many_transpose(nz, ny, nx, 0, 0, a.ctypes.data, b.ctypes.data, self.comm,
                                                        self.FFTW_MEASURE)
        backward = self.lib.fftw_mpi_plan_many_transpose(ny, nz, nx, 0, 0, b.ctypes.data, a.ctypes.data, self.comm,
                                                         self.FFTW_MEASURE)
        if not forward or not backward:
            raise RuntimeError("FFTW-MPI could not plan the transposes")

        def cycle():
            for _ in range(2):
                self.lib.fftw_execute(forward)
                self.lib.fftw_execute(backward)

        def cleanup(buffers=(a, b)):  # the default keeps the plans' buffers alive until cleanup
            self.lib.fftw_destroy_plan(forward)
            self.lib.fftw_destroy_plan(backward)

        return cycle, cleanup


def mpi4py_fft_make_cycle(gdims):
    from mpi4py_fft.pencil import Pencil, Subcomm

    dims = MPI.Compute_dims(comm.size, 2)
    subcomm = Subcomm(comm, [dims[0], dims[1], 1])
    p2 = Pencil(subcomm, list(gdims), axis=2)
    p1 = p2.pencil(1)
    p0 = p1.pencil(0)
    t21 = p2.transfer(p1, np.float64)
    t10 = p1.transfer(p0, np.float64)
    a2 = np.zeros(p2.subshape)
    a1 = np.zeros(p1.subshape)
    a0 = np.zeros(p0.subshape)

    def cycle():
        t21.forward(a2, a1)
        t10.forward(a1, a0)
        t10.backward(a0, a1)
        t21.backward(a1, a2)

    def cleanup():
        for transfer in (t21, t10):
            transfer.destroy()

    return cycle, cleanup


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[128, 256])
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()

    peers = {}
    try:
        peers["FFTW-MPI"] = FftwMpi().make_cycle
    except OSError as error:
        if comm.rank == 0:
            print(f"skipping FFTW-MPI: {error} (install libfftw3-mpi-dev)")
    try:
        import mpi4py_fft  # noqa: F401

        peers["mpi4py-fft"] = mpi4py_fft_make_cycle
    except ImportError as error:
        if comm.rank == 0:
            print(f"skipping mpi4py-fft: {error} (pip install mpi4py-fft)")

    rows = []
    handle = cudecomp.Handle(comm)
    for n in args.sizes:
        gdims = (n, n, n)
        nbytes = 4 * n ** 3 * 8
        ours = TransposeCycle(handle, gdims, (0, 0), dtype=cudecomp.DataType.DOUBLE, autotune_backend=True)
        cycles, cleanups = {"cudecomp": ours}, [ours.destroy]
        for name, make in peers.items():
            cycle, cleanup = make(gdims)
            cycles[name] = cycle
            cleanups.append(cleanup)
        seconds = timed_rounds(cycles, args.iterations, args.warmup)
        row = {"size": n, "setup": f"{ours.pdims[0]}x{ours.pdims[1]} {ours.backend}"}
        row.update({name: nbytes / value / 1e9 for name, value in seconds.items()})
        rows.append(row)
        for cleanup in cleanups:
            cleanup()
    handle.finalize()

    if comm.rank == 0:
        names = ["cudecomp", *peers]
        print(f"\nX->Y->Z->Y->X transpose cycle, doubles, {comm.size} ranks, GB/s (4 x array bytes / median cycle)")
        print("| size | " + " | ".join(names) + " | cudecomp grid, backend | " +
              " | ".join(f"cudecomp / {p}" for p in peers) + " |")
        for row in rows:
            ratios = " | ".join(f"{row['cudecomp'] / row[p]:.2f}" for p in peers)
            print(f"| {row['size']}^3 | " + " | ".join(f"{row[name]:.2f}" for name in names) +
                  f" | {row['setup']} | {ratios} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
