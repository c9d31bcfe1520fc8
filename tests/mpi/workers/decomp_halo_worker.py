"""Halo updates on every process grid of this communicator size: each pencil axis, each dim,
periodic and non-periodic boundaries, both backends, all element types, memory layouts and
padding. Every element (owned, halo and padding) is compared with what a function of its global
index says it must hold.

Usage: decomp_halo_worker.py sweep|col-major
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
from mpi4py import MPI

import cudecomp
from decomp_reference import NUMPY, assert_equal, expected_after_halo_updates, filled_pencil

comm = MPI.COMM_WORLD
handle = cudecomp.Handle(comm)
BACKENDS = [cudecomp.HaloCommBackend.MPI, cudecomp.HaloCommBackend.MPI_BLOCKING]
UPDATE = {0: "update_halos_x", 1: "update_halos_y", 2: "update_halos_z"}
checked = 0


def process_grids(n):
    return [(rows, n // rows) for rows in range(1, n + 1) if n % rows == 0]


def make_grid(gdims, pdims, backend, contiguous, rank_order=None):
    config = cudecomp.GridDescConfig()
    config.gdims = gdims
    config.pdims = pdims
    config.halo_comm_backend = backend
    config.transpose_axis_contiguous = contiguous
    if rank_order is not None:
        config.rank_order = rank_order
    return handle.create_grid(config)


def run(grid, gdims, axis, dtype, halo, periods, padding, dims, explicit_work, what):
    global checked
    info = grid.get_pencil_info(axis, halo, padding)
    data = filled_pencil(info, gdims, dtype)
    work = None
    if explicit_work:
        work = np.empty(grid.get_halo_workspace_size(axis, halo), dtype=NUMPY[dtype])
    for dim in dims:
        result = getattr(grid, UPDATE[axis])(data, dim, halo, halo_periods=periods, padding=padding, work=work)
        if result is not data:
            raise AssertionError(f"{what}: update_halos did not return its data array")
    expected = expected_after_halo_updates(info, gdims, dtype, periods, set(dims))
    assert_equal(data, expected, f"{what} axis={axis} dims={dims} periods={periods} halo={halo} dtype={dtype.name}")
    checked += 1


def sweep():
    gdims = (13, 12, 14)  # at least 2 per rank on 6 ranks, uneven
    dtypes = list(NUMPY)
    for pdims in process_grids(comm.size):
        for backend, contiguous in itertools.product(BACKENDS, [(False, False, False), (True, True, True)]):
            grid = make_grid(gdims, pdims, backend, contiguous)
            for axis in range(3):
                for number, periods in enumerate(itertools.product((False, True), repeat=3)):
                    dtype = dtypes[number % 4]
                    halo = (1, 2, 1) if number % 2 else (2, 1, 2)
                    padding = (0, 1, 2) if number % 3 == 0 else None
                    what = f"pdims={pdims} {backend.name} contiguous={contiguous[0]}"
                    run(grid, gdims, axis, dtype, halo, periods, padding, (0, 1, 2), number % 2 == 0, what)
                    run(grid, gdims, axis, dtype, halo, periods, padding, (2, 0, 1), False, what)
                    for dim in range(3):
                        run(grid, gdims, axis, dtype, halo, periods, padding, (dim,), False, what)
                # Halo only along some dims, including none along the updated dim (a no-op).
                run(grid, gdims, axis, cudecomp.DataType.DOUBLE, (0, 1, 0), (True, True, False), None, (0, 1, 2),
                    False, "partial halos")
            grid.destroy()


def col_major():
    gdims = (8, 7, 9)
    for pdims in process_grids(comm.size):
        grid = make_grid(gdims, pdims, cudecomp.HaloCommBackend.MPI, (False, False, False),
                         rank_order=cudecomp.RankOrder.COL_MAJOR)
        for axis in range(3):
            run(grid, gdims, axis, cudecomp.DataType.FLOAT, (1, 1, 1), (True, False, True), None, (0, 1, 2), False,
                f"col-major pdims={pdims}")
        grid.destroy()


def random_cases():
    """Random grids, axes, halos, periods, paddings, layouts and backends (same seed on every rank)."""
    rng = np.random.default_rng(7)
    grids = process_grids(comm.size)
    for case in range(40):
        gdims = tuple(int(v) for v in rng.integers(2 * comm.size, 2 * comm.size + 7, size=3))
        pdims = grids[int(rng.integers(len(grids)))]
        backend = BACKENDS[int(rng.integers(2))]
        contiguous = tuple(bool(v) for v in rng.integers(0, 2, size=3))
        grid = make_grid(gdims, pdims, backend, contiguous)
        axis = int(rng.integers(3))
        halo = tuple(int(v) for v in rng.integers(0, 3, size=3))
        periods = tuple(bool(v) for v in rng.integers(0, 2, size=3))
        padding = tuple(int(v) for v in rng.integers(0, 2, size=3))
        dims = tuple(int(v) for v in rng.permutation(3)[: int(rng.integers(1, 4))])
        dtype = list(NUMPY)[int(rng.integers(4))]
        run(grid, gdims, axis, dtype, halo, periods, padding, dims, bool(rng.integers(2)),
            f"random case {case}: gdims={gdims} pdims={pdims} {backend.name} contiguous={contiguous}")
        grid.destroy()


SUITES = {"random": random_cases, "sweep": sweep, "col-major": col_major}
for name in sys.argv[1:]:
    SUITES[name]()
total = comm.allreduce(checked)
handle.finalize()
if comm.rank == 0:
    print(f"halos OK on {comm.size} ranks: {total} checked updates ({' '.join(sys.argv[1:])})")
