"""Transpose cycles X->Y->Z->Y->X on every process grid of this communicator size, for every
backend, element type and memory layout, in and out of place, with and without halos and
padding. Every element of every output is checked against a function of its global index.

Usage: decomp_transpose_worker.py sweep|halo-padding|large|gdims-dist|col-major
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
from mpi4py import MPI

import cudecomp
from decomp_reference import (CONTIGUOUS_ORDER, NUMPY, SENTINEL, check_owned, check_pencil_geometry, filled_pencil,
                              global_coordinates)

comm = MPI.COMM_WORLD
handle = cudecomp.Handle(comm)
BACKENDS = [cudecomp.TransposeCommBackend.MPI_P2P, cudecomp.TransposeCommBackend.MPI_P2P_PL,
            cudecomp.TransposeCommBackend.MPI_A2A]
DTYPES = list(NUMPY)
LAYOUTS = {
    "default": dict(contiguous=(False, False, False), mem_order=None),
    "contiguous": dict(contiguous=(True, True, True), mem_order=None),
    "mixed": dict(contiguous=(False, True, False), mem_order=None),
    "custom": dict(contiguous=(False, False, False), mem_order=((2, 0, 1), (0, 2, 1), (1, 0, 2))),
}
STEPS = [("transpose_x_to_y", 0, 1), ("transpose_y_to_z", 1, 2), ("transpose_z_to_y", 2, 1),
         ("transpose_y_to_x", 1, 0)]
checked = 0


def process_grids(n):
    return [(rows, n // rows) for rows in range(1, n + 1) if n % rows == 0]


def make_grid(gdims, pdims, backend, layout, gdims_dist=None, rank_order=None):
    config = cudecomp.GridDescConfig()
    config.gdims = gdims
    if gdims_dist is not None:
        config.gdims_dist = gdims_dist
    config.pdims = pdims
    config.transpose_comm_backend = backend
    config.transpose_axis_contiguous = LAYOUTS[layout]["contiguous"]
    if LAYOUTS[layout]["mem_order"] is not None:
        config.transpose_mem_order = LAYOUTS[layout]["mem_order"]
    if rank_order is not None:
        config.rank_order = rank_order
    return handle.create_grid(config)


def expected_order(config, axis):
    if config.transpose_mem_order[axis][0] >= 0:
        return tuple(int(v) for v in config.transpose_mem_order[axis])
    return CONTIGUOUS_ORDER[axis] if config.transpose_axis_contiguous[axis] else (0, 1, 2)


def check_geometry(grid, infos, gdims, halos, paddings, what):
    """The decomposition itself, from cuDecomp's documented rules, independently of the library."""
    config = grid.config
    pdims = tuple(int(p) for p in config.pdims)
    if config.rank_order == cudecomp.RankOrder.COL_MAJOR:
        coords = (comm.rank % pdims[0], comm.rank // pdims[0])
    else:
        coords = (comm.rank // pdims[1], comm.rank % pdims[1])
    dist = tuple(int(v) for v in config.gdims_dist) if config.gdims_dist[0] else None
    for axis in range(3):
        check_pencil_geometry(infos[axis], axis, coords, gdims, dist, pdims, expected_order(config, axis),
                              halos[axis], paddings[axis], what)
        owned = 1
        for position in range(3):
            owned *= infos[axis].hi[position] - infos[axis].lo[position] + 1
        if comm.allreduce(owned) != gdims[0] * gdims[1] * gdims[2]:
            raise AssertionError(f"{what}: the {axis} pencils do not tile the global grid")


def untouched_outside_owned(array, info, what):
    _, owned, _ = global_coordinates(info)
    if np.any(array[~owned] != SENTINEL):
        raise AssertionError(f"{what}: a halo or padding element was written")


def cycle(grid, gdims, dtype, in_place, halos=None, paddings=None, what=""):
    """Runs the four transposes; halos[axis]/paddings[axis] describe each pencil's buffer."""
    global checked
    halos = halos or [None] * 3
    paddings = paddings or [None] * 3
    infos = [grid.get_pencil_info(axis, halos[axis], paddings[axis]) for axis in range(3)]
    check_geometry(grid, infos, gdims, halos, paddings, what)
    largest = max(info.size for info in infos)
    buffers = [np.full(largest, SENTINEL, dtype=NUMPY[dtype]) for _ in range(2)]
    current = filled_pencil(infos[0], gdims, dtype)
    for number, (method, src, dst) in enumerate(STEPS):
        if in_place:
            buffer = buffers[0]
            source = buffer[:infos[src].size].reshape(infos[src].array_shape)
            source[...] = current
            if infos[dst].size > infos[src].size:
                buffer[infos[src].size:infos[dst].size] = SENTINEL
            out = buffer[:infos[dst].size].reshape(infos[dst].array_shape)
            if src == dst:
                raise AssertionError("unreachable")
        else:
            source = current
            out = np.full(infos[dst].array_shape, SENTINEL, dtype=NUMPY[dtype])
        keep = source.copy()
        result = getattr(grid, method)(source, out=out, dtype=dtype if number % 2 else None,
                                       input_halo_extents=halos[src], output_halo_extents=halos[dst],
                                       input_padding=paddings[src], output_padding=paddings[dst])
        if result is not out and not np.shares_memory(result, out):
            raise AssertionError(f"{what}: {method} did not return its output")
        label = f"{what} {method} in_place={in_place} dtype={dtype.name}"
        check_owned(result, infos[dst], gdims, dtype, label)
        if not in_place:
            if not np.array_equal(source, keep):
                raise AssertionError(f"{label}: out-of-place transpose modified its input")
            if halos[dst] is not None or paddings[dst] is not None:
                untouched_outside_owned(result, infos[dst], label)
        current = np.array(result)
        checked += 1


def sweep():
    n = comm.size
    for pdims in process_grids(n):
        for gdims in [(13, 11, 7), (12, 8, 10)]:
            for backend, layout in itertools.product(BACKENDS, LAYOUTS):
                grid = make_grid(gdims, pdims, backend, layout)
                for dtype in DTYPES:
                    for in_place in (False, True):
                        cycle(grid, gdims, dtype, in_place, what=f"pdims={pdims} gdims={gdims} {backend.name} {layout}")
                grid.destroy()
    # Pencils with no elements on some ranks: gdims smaller than the process grid.
    for pdims in process_grids(n):
        for backend in BACKENDS:
            grid = make_grid((2, 3, 1), pdims, backend, "contiguous")
            for in_place in (False, True):
                cycle(grid, (2, 3, 1), cudecomp.DataType.DOUBLE, in_place, what=f"empty pencils pdims={pdims}")
            grid.destroy()


def halo_padding():
    gdims = (11, 9, 10)
    halos = [(1, 2, 0), (2, 0, 1), (0, 1, 3)]
    paddings = [(2, 0, 1), (0, 3, 0), (1, 1, 2)]
    for pdims in process_grids(comm.size):
        for backend, layout in itertools.product(BACKENDS, ["default", "contiguous", "custom"]):
            grid = make_grid(gdims, pdims, backend, layout)
            for dtype in (cudecomp.DataType.FLOAT, cudecomp.DataType.DOUBLE_COMPLEX):
                for in_place in (False, True):
                    cycle(grid, gdims, dtype, in_place, halos, paddings, what=f"halos pdims={pdims} {layout}")
                    cycle(grid, gdims, dtype, in_place, halos, None, what=f"halos only pdims={pdims} {layout}")
                    cycle(grid, gdims, dtype, in_place, None, paddings, what=f"padding only pdims={pdims} {layout}")
            grid.destroy()


def large():
    gdims = (128, 124, 132)
    pdims = process_grids(comm.size)[len(process_grids(comm.size)) // 2]
    for backend in BACKENDS:
        grid = make_grid(gdims, pdims, backend, "default")
        cycle(grid, gdims, cudecomp.DataType.DOUBLE, False, what=f"large {backend.name}")
        grid.destroy()
    grid = make_grid(gdims, pdims, cudecomp.TransposeCommBackend.MPI_P2P, "contiguous")
    cycle(grid, gdims, cudecomp.DataType.FLOAT, True, what="large contiguous in place")
    grid.destroy()


def gdims_dist():
    # Distribute as if the grid were smaller; the remainder goes to the last rank of each split.
    gdims, dist = (17, 12, 9), (16, 8, 6)
    for pdims in process_grids(comm.size):
        for backend in BACKENDS:
            grid = make_grid(gdims, pdims, backend, "mixed", gdims_dist=dist)
            info = grid.get_pencil_info(0)
            for in_place in (False, True):
                cycle(grid, gdims, cudecomp.DataType.FLOAT_COMPLEX, in_place, what=f"gdims_dist pdims={pdims}")
            grid.destroy()
            del info


def col_major():
    for pdims in process_grids(comm.size):
        grid = make_grid((9, 10, 11), pdims, cudecomp.TransposeCommBackend.MPI_A2A, "default",
                         rank_order=cudecomp.RankOrder.COL_MAJOR)
        row, col = grid.coords
        if comm.rank != col * pdims[0] + row:
            raise AssertionError(f"column-major rank order: rank {comm.rank} sits at {(row, col)}")
        cycle(grid, (9, 10, 11), cudecomp.DataType.DOUBLE, False, what=f"col-major pdims={pdims}")
        grid.destroy()
        grid = make_grid((9, 10, 11), pdims, cudecomp.TransposeCommBackend.MPI_P2P, "default",
                         rank_order=cudecomp.RankOrder.ROW_MAJOR)
        if grid.coords != (comm.rank // pdims[1], comm.rank % pdims[1]):
            raise AssertionError(f"row-major rank order: rank {comm.rank} sits at {grid.coords}")
        grid.destroy()


def random_cases():
    """Random grids, layouts, halos, paddings, backends and dtypes; the seed is the same on every
    rank (each case is collective) and printed on failure."""
    rng = np.random.default_rng(20261130)
    grids = process_grids(comm.size)
    for case in range(60):
        gdims = tuple(int(v) for v in rng.integers(1, 14, size=3))
        pdims = grids[int(rng.integers(len(grids)))]
        backend = BACKENDS[int(rng.integers(3))]
        layout = list(LAYOUTS)[int(rng.integers(len(LAYOUTS)))]
        dtype = DTYPES[int(rng.integers(4))]
        in_place = bool(rng.integers(2))
        halos = [tuple(int(v) for v in rng.integers(0, 3, size=3)) for _ in range(3)]
        paddings = [tuple(int(v) for v in rng.integers(0, 3, size=3)) for _ in range(3)]
        dist = None
        if rng.integers(3) == 0:
            dist = tuple(int(rng.integers(1, g + 1)) for g in gdims)
        grid = make_grid(gdims, pdims, backend, layout, gdims_dist=dist)
        cycle(grid, gdims, dtype, in_place, halos, paddings,
              what=f"random case {case}: gdims={gdims} dist={dist} pdims={pdims} {backend.name} {layout}")
        grid.destroy()


SUITES = {"random": random_cases, "sweep": sweep, "halo-padding": halo_padding, "large": large, "gdims-dist": gdims_dist,
          "col-major": col_major}
for name in sys.argv[1:]:
    SUITES[name]()
total = comm.allreduce(checked)
handle.finalize()
if comm.rank == 0:
    print(f"transposes OK on {comm.size} ranks: {total} checked transposes ({' '.join(sys.argv[1:])})")
