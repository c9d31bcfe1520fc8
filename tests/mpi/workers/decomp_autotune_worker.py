"""Autotuning on the CPU: process grid and backends chosen by timing real operations. Every rank
must get the same choice, the choice must be one of the allowed candidates, it must be written
back into the config and readable from the grid, and the tuned grid must transpose correctly."""

from __future__ import annotations

import os

import numpy as np
from mpi4py import MPI

import cudecomp
from decomp_reference import check_owned, filled_pencil

comm = MPI.COMM_WORLD
size = comm.size
handle = cudecomp.Handle(comm)
DOUBLE = cudecomp.DataType.DOUBLE
ALL_GRIDS = [(rows, size // rows) for rows in range(1, size + 1) if size % rows == 0]


def tuned(gdims, pdims=(0, 0), **fields):
    config = cudecomp.GridDescConfig()
    config.gdims = gdims
    config.pdims = pdims
    options = cudecomp.GridDescAutotuneOptions()
    options.n_warmup_trials = 1
    options.n_trials = 2
    for name, value in fields.items():
        setattr(options, name, value)
    grid = handle.create_grid(config, options)
    chosen = (tuple(int(p) for p in config.pdims), config.transpose_comm_backend, config.halo_comm_backend)
    from_grid = grid.config
    if (tuple(int(p) for p in from_grid.pdims), from_grid.transpose_comm_backend,
            from_grid.halo_comm_backend) != chosen:
        raise AssertionError("the grid's config differs from the config written back")
    everyone = comm.allgather(chosen)
    if any(choice != chosen for choice in everyone):
        raise AssertionError(f"ranks chose differently: {everyone}")
    if comm.rank == 0 and "SELECTED" not in grid.autotune_report:
        raise AssertionError(f"no selection in the report: {grid.autotune_report!r}")
    return grid, chosen


def transposes_work(grid, gdims):
    infos = [grid.get_pencil_info(axis) for axis in range(3)]
    data = filled_pencil(infos[0], gdims, DOUBLE)
    for method, axis in (("transpose_x_to_y", 1), ("transpose_y_to_z", 2), ("transpose_z_to_y", 1),
                         ("transpose_y_to_x", 0)):
        data = getattr(grid, method)(data)
        check_owned(data, infos[axis], gdims, DOUBLE, f"autotuned {method}")


gdims = (16, 12, 10)
# Process grid and transpose backend together (grid mode TRANSPOSE).
grid, (pdims, transpose_backend, _) = tuned(gdims, autotune_transpose_backend=True,
                                            transpose_use_inplace_buffers=(True, False, True, False),
                                            transpose_op_weights=(1.0, 0.5, 0.5, 1.0))
assert pdims in ALL_GRIDS, pdims
assert transpose_backend in (cudecomp.TransposeCommBackend.MPI_P2P, cudecomp.TransposeCommBackend.MPI_P2P_PL,
                             cudecomp.TransposeCommBackend.MPI_A2A)
transposes_work(grid, gdims)
grid.destroy()

# Halo mode with halo backend autotuning, then the transpose backend on the chosen grid.
grid, (pdims, transpose_backend, halo_backend) = tuned(
    gdims, grid_mode=cudecomp.AutotuneGridMode.HALO, autotune_halo_backend=True, autotune_transpose_backend=True,
    halo_extents=(1, 1, 1), halo_periods=(True, True, False), halo_axis=1, skip_threshold=0.5)
assert pdims in ALL_GRIDS and halo_backend in (cudecomp.HaloCommBackend.MPI, cudecomp.HaloCommBackend.MPI_BLOCKING)
transposes_work(grid, gdims)
grid.destroy()

# Fixed process grid, backends only.
grid, (pdims, _, _) = tuned(gdims, pdims=ALL_GRIDS[-1], autotune_transpose_backend=True)
assert pdims == ALL_GRIDS[-1]
grid.destroy()

# Only even decompositions: (8, 12, 6) on 4 ranks excludes 1x4 (6 % 4 != 0).
if size == 4:
    grid, (pdims, _, _) = tuned((8, 12, 6), allow_uneven_decompositions=False)
    assert pdims in ((2, 2), (4, 1)), pdims
    transposes_work(grid, (8, 12, 6))
    grid.destroy()

# The environment restricts the candidates (set identically on every rank).
os.environ["CUDECOMP_AUTOTUNE_PDIMS"] = f"{ALL_GRIDS[0][0]}x{ALL_GRIDS[0][1]}"
os.environ["CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS"] = "MPI_A2A"
grid, (pdims, transpose_backend, _) = tuned(gdims, autotune_transpose_backend=True)
assert pdims == ALL_GRIDS[0] and transpose_backend == cudecomp.TransposeCommBackend.MPI_A2A
transposes_work(grid, gdims)
grid.destroy()
os.environ["CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS"] = "NCCL_BOGUS"
try:
    tuned(gdims, autotune_transpose_backend=True)
except cudecomp.CudecompError as error:
    assert str(error).startswith("CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS:") and error.code == cudecomp.Result.INVALID_USAGE
else:
    raise AssertionError("an unknown backend name in the environment was accepted")
del os.environ["CUDECOMP_AUTOTUNE_PDIMS"], os.environ["CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS"]

handle.finalize()
if comm.rank == 0:
    print(f"autotuning OK on {size} ranks")
