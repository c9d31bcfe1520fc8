"""cuDecomp 0.7 parity through the Python API: the NVSHMEM_SM enum value, disable_mpi_backends,
the autotuner's P_ROW/P_COL ranges and '^' exclusion lists, the '+cpu' version label, overflow
errors from get_pencil_info, and transposes of grids with empty pencils checked element by
element against their global indices."""

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


def expect_error(code, prefix, action):
    try:
        action()
    except cudecomp.CudecompError as error:
        assert error.code == code, (error.code, str(error))
        assert str(error).startswith(prefix), str(error)
    else:
        raise AssertionError(f"no error for {prefix}")


def tuned(gdims, **fields):
    config = cudecomp.GridDescConfig()
    config.gdims = gdims
    options = cudecomp.GridDescAutotuneOptions()
    options.n_warmup_trials = 0
    options.n_trials = 1
    for name, value in fields.items():
        setattr(options, name, value)
    grid = handle.create_grid(config, options)
    return grid, (tuple(int(p) for p in config.pdims), config.transpose_comm_backend)


assert cudecomp.TransposeCommBackend.NVSHMEM_SM.value == 8
assert cudecomp.transpose_comm_backend_to_string(cudecomp.TransposeCommBackend.NCCL_PL) == "NCCL (pipelined)"
assert cudecomp.halo_comm_backend_to_string(cudecomp.HaloCommBackend.NVSHMEM_BLOCKING) == "NVSHMEM (blocking)"
assert cudecomp.__version__.endswith("+cpu"), cudecomp.__version__
options = cudecomp.GridDescAutotuneOptions()
assert options.disable_mpi_backends is False or options.disable_mpi_backends == np.False_

# NVSHMEM_SM is known but not available in this build.
config = cudecomp.GridDescConfig()
config.gdims = (4, 4, 4)
config.pdims = ALL_GRIDS[0]
config.transpose_comm_backend = cudecomp.TransposeCommBackend.NVSHMEM_SM
expect_error(cudecomp.Result.NOT_SUPPORTED, "config.transpose_comm_backend", lambda: handle.create_grid(config, None))

# Every backend of the host build is an MPI backend: disabling them leaves nothing to tune.
expect_error(cudecomp.Result.NOT_SUPPORTED, "options.disable_mpi_backends",
             lambda: tuned((8, 8, 8), autotune_transpose_backend=True, disable_mpi_backends=True))

# '^' excludes the listed backends.
os.environ["CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS"] = "^MPI_P2P,MPI_P2P_PL"
grid, (_, backend) = tuned((8, 6, 4), autotune_transpose_backend=True)
assert backend == cudecomp.TransposeCommBackend.MPI_A2A, backend
grid.destroy()
os.environ["CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS"] = "^MPI_P2P,MPI_P2P_PL,MPI_A2A"
expect_error(cudecomp.Result.INVALID_USAGE, "CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS",
             lambda: tuned((8, 6, 4), autotune_transpose_backend=True))
del os.environ["CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS"]

# P_ROW_RANGE / P_COL_RANGE bound the candidate grids.
want = ALL_GRIDS[-1]  # rows = size, cols = 1
os.environ["CUDECOMP_AUTOTUNE_P_ROW_RANGE"] = f"{want[0]}:{want[0]}"
grid, (pdims, _) = tuned((8, 6, 4))
assert pdims == want, pdims
grid.destroy()
os.environ["CUDECOMP_AUTOTUNE_P_ROW_RANGE"] = ":1"
os.environ["CUDECOMP_AUTOTUNE_P_COL_RANGE"] = f"{size},"
grid, (pdims, _) = tuned((8, 6, 4))
assert pdims == (1, size), pdims
grid.destroy()
os.environ["CUDECOMP_AUTOTUNE_P_ROW_RANGE"] = f"{size + 1}:"
expect_error(cudecomp.Result.INVALID_USAGE, "CUDECOMP_AUTOTUNE_P_ROW_RANGE", lambda: tuned((8, 6, 4)))
os.environ["CUDECOMP_AUTOTUNE_P_ROW_RANGE"] = "two"
expect_error(cudecomp.Result.INVALID_USAGE, "CUDECOMP_AUTOTUNE_P_ROW_RANGE", lambda: tuned((8, 6, 4)))
del os.environ["CUDECOMP_AUTOTUNE_P_ROW_RANGE"], os.environ["CUDECOMP_AUTOTUNE_P_COL_RANGE"]

# Overflow: gdims near INT32_MAX and huge halos or padding are errors, never negative numbers.
config = cudecomp.GridDescConfig()
config.gdims = (2**31 - 2, 2**31 - 2, 2**31 - 2)
config.pdims = ALL_GRIDS[0]
grid = handle.create_grid(config, None)
expect_error(cudecomp.Result.INVALID_USAGE, "gdims", lambda: grid.get_pencil_info(0))
grid.destroy()
config.gdims = (4, 4, 4)
grid = handle.create_grid(config, None)
expect_error(cudecomp.Result.INVALID_USAGE, "halo_extents", lambda: grid.get_pencil_info(0, (2**30, 0, 0)))
expect_error(cudecomp.Result.INVALID_USAGE, "halo_extents", lambda: grid.get_pencil_info(1, None, (0, 2**31 - 3, 0)))
grid.destroy()

# Grids with empty pencils (2 x 2 x 2 over up to 4 ranks in a row or column): every owned
# element right after each transpose, for every backend, in and out of place.
for pdims in ({(1, size), (size, 1)}):
    for backend in (cudecomp.TransposeCommBackend.MPI_P2P, cudecomp.TransposeCommBackend.MPI_P2P_PL,
                    cudecomp.TransposeCommBackend.MPI_A2A):
        config = cudecomp.GridDescConfig()
        config.gdims = (2, 2, 2)
        config.pdims = pdims
        config.transpose_comm_backend = backend
        grid = handle.create_grid(config, None)
        infos = [grid.get_pencil_info(axis) for axis in range(3)]
        data = filled_pencil(infos[0], (2, 2, 2), DOUBLE)
        for method, axis in (("transpose_x_to_y", 1), ("transpose_y_to_z", 2), ("transpose_z_to_y", 1),
                             ("transpose_y_to_x", 0)):
            data = getattr(grid, method)(data)
            check_owned(data, infos[axis], (2, 2, 2), DOUBLE, f"{pdims} {backend} {method}")
        grid.destroy()

handle.finalize()
if comm.rank == 0:
    print(f"parity OK on {size} ranks")
