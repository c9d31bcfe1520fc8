"""The Python API's contract on real ranks: handles, configs, every argument rule (each checked
before any communication: only rank 0 makes the bad call while the others wait at a barrier),
error codes, neighbour ranks, workspaces, destroy/finalize."""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

import cudecomp
from decomp_reference import NUMPY, SENTINEL, check_owned, filled_pencil

comm = MPI.COMM_WORLD
rank, size = comm.rank, comm.size
DOUBLE = cudecomp.DataType.DOUBLE


def expect(error_type, argument, call, code=None):
    """call() must raise error_type whose message starts with `argument:`."""
    try:
        call()
    except error_type as error:
        if argument is not None and not str(error).startswith(f"{argument}:"):
            raise AssertionError(f"expected the message to name {argument!r}, got {error!r}") from error
        if code is not None and error.code != code:
            raise AssertionError(f"expected code {code}, got {error.code} ({error})") from error
        return error
    raise AssertionError(f"expected {error_type.__name__} naming {argument!r}")


def only_rank_zero(check):
    """A bad call on one rank must fail locally, so the other ranks never wait on it."""
    if rank == 0:
        check()
    comm.Barrier()


# -- enums and structs, no communication --------------------------------------------------------
assert [d.value for d in (cudecomp.DataType.FLOAT, cudecomp.DataType.DOUBLE, cudecomp.DataType.FLOAT_COMPLEX,
                          cudecomp.DataType.DOUBLE_COMPLEX)] == [-1, -2, -3, -4]
assert cudecomp.TransposeCommBackend.MPI_A2A.value == 3 and cudecomp.TransposeCommBackend.NVSHMEM_PL.value == 7
assert cudecomp.HaloCommBackend.MPI_BLOCKING.value == 2 and cudecomp.AutotuneGridMode.HALO.value == 1
assert cudecomp.Result.NOT_SUPPORTED.value == 2
assert cudecomp.transpose_comm_backend_to_string(cudecomp.TransposeCommBackend.MPI_P2P_PL) == "MPI_P2P (pipelined)"
assert cudecomp.halo_comm_backend_to_string(cudecomp.HaloCommBackend.MPI_BLOCKING) == "MPI (blocking)"
assert [cudecomp.get_data_type_size(d) for d in cudecomp.DataType] == [4, 8, 8, 16]
expect(TypeError, "dtype", lambda: cudecomp.get_data_type_size(np.float64))

config = cudecomp.GridDescConfig()
assert list(config.gdims) == [0, 0, 0] and list(config.pdims) == [0, 0]
assert config.transpose_comm_backend == cudecomp.TransposeCommBackend.MPI_P2P
assert config.halo_comm_backend == cudecomp.HaloCommBackend.MPI
assert config.rank_order == cudecomp.RankOrder.DEFAULT
assert (config.transpose_mem_order == -1).all() and not config.transpose_axis_contiguous.any()
options = cudecomp.GridDescAutotuneOptions()
assert (options.n_warmup_trials, options.n_trials, options.dtype) == (3, 5, DOUBLE)
assert options.allow_uneven_decompositions and not options.autotune_transpose_backend
assert list(options.transpose_op_weights) == [1.0] * 4 and options.skip_threshold == 0.0
view = config.gdims
view[1] = 7  # element writes go through the view
config.gdims = [4, 5, 6]
assert view.tolist() == [4, 5, 6]
config.transpose_mem_order[1] = (1, 2, 0)
config.gdims = np.array([3, 4, 5], dtype=np.int64)
copy = config.copy()
copy.gdims[0] = 99
assert config.gdims[0] == 3 and copy != config and config.copy() == config
orphan = cudecomp.GridDescConfig().pdims
orphan[0] = 2  # the view keeps its storage alive
expect(ValueError, "GridDescConfig.gdims", lambda: setattr(config, "gdims", (1, 2)))
expect(TypeError, "GridDescConfig.gdims", lambda: setattr(config, "gdims", (1.5, 2, 3)))
expect(TypeError, "GridDescConfig.gdims", lambda: setattr(config, "gdims", "abc"))
expect(TypeError, "GridDescConfig.transpose_comm_backend", lambda: setattr(config, "transpose_comm_backend", 1))
expect(TypeError, "GridDescConfig.transpose_axis_contiguous",
       lambda: setattr(config, "transpose_axis_contiguous", (0.5, 1, 0)))
expect(TypeError, "GridDescAutotuneOptions.n_trials", lambda: setattr(options, "n_trials", 2.0))
expect(TypeError, "GridDescAutotuneOptions.dtype", lambda: setattr(options, "dtype", "float64"))
assert config.gdims.tolist() == [3, 4, 5]  # failed assignments changed nothing

# -- handle --------------------------------------------------------------------------------------
expect(TypeError, "mpi_comm", lambda: cudecomp.Handle(0))
expect(ValueError, "mpi_comm", lambda: cudecomp.Handle(MPI.COMM_NULL))
handle = cudecomp.Handle(comm)
assert (handle.rank, handle.size) == (rank, size)
expect(TypeError, None, lambda: cudecomp.GridDesc())


def base_config(gdims=(9, 10, 11), pdims=None):
    c = cudecomp.GridDescConfig()
    c.gdims = gdims
    c.pdims = pdims or (1, size)
    return c


# -- grid creation errors: local checks, nothing written back -------------------------------------
def creation_errors():
    bad = base_config(pdims=(size + 1, 1))
    expect(cudecomp.CudecompError, "config.pdims", lambda: handle.create_grid(bad), cudecomp.Result.INVALID_USAGE)
    assert tuple(bad.pdims) == (size + 1, 1)
    zero = base_config(gdims=(0, 4, 4))
    expect(cudecomp.CudecompError, "config.gdims", lambda: handle.create_grid(zero), cudecomp.Result.INVALID_USAGE)
    # The NumPy package runs the MPI backends only, in every build of the library (the CUDA build's
    # C API would accept NCCL and refuse host buffers at the first transpose): NCCL and NVSHMEM
    # are refused when the grid is created, before any communication.
    for backend in (cudecomp.TransposeCommBackend.NCCL, cudecomp.TransposeCommBackend.NCCL_PL,
                    cudecomp.TransposeCommBackend.NVSHMEM, cudecomp.TransposeCommBackend.NVSHMEM_PL,
                    cudecomp.TransposeCommBackend.NVSHMEM_SM):
        device_only = base_config()
        device_only.transpose_comm_backend = backend
        error = expect(cudecomp.CudecompError, "config.transpose_comm_backend",
                       lambda: handle.create_grid(device_only), cudecomp.Result.NOT_SUPPORTED)
        assert f"{backend.name} needs CUDA device arrays" in str(error), error
    for backend in (cudecomp.HaloCommBackend.NCCL, cudecomp.HaloCommBackend.NVSHMEM,
                    cudecomp.HaloCommBackend.NVSHMEM_BLOCKING):
        device_only = base_config()
        device_only.halo_comm_backend = backend
        error = expect(cudecomp.CudecompError, "config.halo_comm_backend", lambda: handle.create_grid(device_only),
                       cudecomp.Result.NOT_SUPPORTED)
        assert "NumPy (CPU) package" in str(error), error
    tune = base_config(pdims=(0, 0))
    expect(cudecomp.CudecompError, "config.pdims", lambda: handle.create_grid(tune), cudecomp.Result.INVALID_USAGE)
    order = base_config()
    order.transpose_mem_order[0] = (0, 0, 1)
    expect(cudecomp.CudecompError, "config.transpose_mem_order", lambda: handle.create_grid(order))
    dist = base_config()
    dist.gdims_dist = (10, 10, 10)
    expect(cudecomp.CudecompError, "config.gdims_dist", lambda: handle.create_grid(dist))
    trials = cudecomp.GridDescAutotuneOptions()
    trials.n_trials = 0
    expect(cudecomp.CudecompError, "options.n_trials", lambda: handle.create_grid(base_config(), trials))
    expect(TypeError, "config", lambda: handle.create_grid({"gdims": (1, 1, 1)}))
    expect(TypeError, "options", lambda: handle.create_grid(base_config(), {}))


only_rank_zero(creation_errors)


def tuned_backends_leave_nccl_out():
    """A backend the options tune is not checked (upstream's rule), and NCCL is no candidate of
    the NumPy package; the caller's options are left as they were."""
    config = base_config()
    config.transpose_comm_backend = cudecomp.TransposeCommBackend.NCCL
    config.halo_comm_backend = cudecomp.HaloCommBackend.NCCL
    options = cudecomp.GridDescAutotuneOptions()
    options.autotune_transpose_backend = options.autotune_halo_backend = True
    options.n_warmup_trials, options.n_trials = 0, 1
    tuned = handle.create_grid(config, options)
    mpi_transposes = (cudecomp.TransposeCommBackend.MPI_P2P, cudecomp.TransposeCommBackend.MPI_P2P_PL,
                      cudecomp.TransposeCommBackend.MPI_A2A)
    assert tuned.config.transpose_comm_backend in mpi_transposes, tuned.config
    assert tuned.config.halo_comm_backend in (cudecomp.HaloCommBackend.MPI, cudecomp.HaloCommBackend.MPI_BLOCKING)
    assert not options.disable_nccl_backends
    tuned.destroy()


tuned_backends_leave_nccl_out()

# -- a grid, its queries and the argument rules of its operations ------------------------------------
pdims = (2, size // 2) if size % 2 == 0 else (1, size)
gdims = (9, 10, 11)
grid = handle.create_grid(base_config(gdims, pdims))
row, col = grid.coords
assert (row, col) == (rank // pdims[1], rank % pdims[1])
assert tuple(grid.config.pdims) == pdims and grid.autotune_report == ""
# Neighbours against the documented process grid: X-pencil Y by rows, Z by columns, and so on.
SPLIT = {0: {1: 0, 2: 1}, 1: {0: 0, 2: 1}, 2: {0: 0, 1: 1}}
for axis in range(3):
    for dim in range(3):
        for displacement in (-2, -1, 0, 1, 2):
            for periodic in (False, True):
                got = grid.get_shifted_rank(axis, dim, displacement, periodic)
                if dim == axis:
                    expected = rank if (periodic or displacement == 0) else -1
                else:
                    g = SPLIT[axis][dim]
                    coords = [row, col]
                    index = coords[g] + displacement
                    if periodic:
                        index %= pdims[g]
                    if 0 <= index < pdims[g]:
                        coords[g] = index
                        expected = coords[0] * pdims[1] + coords[1]
                    else:
                        expected = -1
                assert got == expected, (axis, dim, displacement, periodic, got, expected)

x_info = grid.get_pencil_info(0)
y_info = grid.get_pencil_info(1)
x = filled_pencil(x_info, gdims, DOUBLE)
assert grid.get_transpose_workspace_size() > 0
assert grid.get_halo_workspace_size(0, (1, 1, 1)) > 0 and grid.get_halo_workspace_size(0, (0, 0, 0)) == 0


def operation_errors():
    out = np.full(y_info.array_shape, SENTINEL)
    attempts = [
        (TypeError, "input", lambda: grid.transpose_x_to_y(x.tolist())),
        (ValueError, "input", lambda: grid.transpose_x_to_y(x[:, :, :-1])),
        (ValueError, "input", lambda: grid.transpose_x_to_y(x.reshape(-1))),
        (ValueError, "input", lambda: grid.transpose_x_to_y(np.asfortranarray(x) if x.shape[0] > 1 else x[::1, ::2])),
        (TypeError, "input", lambda: grid.transpose_x_to_y(x.astype(np.int64))),
        (ValueError, "input", lambda: grid.transpose_x_to_y(x.astype(">f8"))),
        (TypeError, "dtype", lambda: grid.transpose_x_to_y(x, dtype=np.float64)),
        (TypeError, "dtype", lambda: grid.transpose_x_to_y(x, dtype="float64")),
        (TypeError, "input", lambda: grid.transpose_x_to_y(x, dtype=cudecomp.DataType.FLOAT)),
        (ValueError, "out", lambda: grid.transpose_x_to_y(x, out=np.empty((1, 1, 1)))),
        (TypeError, "out", lambda: grid.transpose_x_to_y(x, out=out.astype(np.float32))),
        (ValueError, "out", lambda: grid.transpose_x_to_y(x, out=np.broadcast_to(out, out.shape))),
        (ValueError, "work", lambda: grid.transpose_x_to_y(x, out=out, work=np.empty(1))),
        (TypeError, "work", lambda: grid.transpose_x_to_y(x, work=np.empty(10 ** 6, np.float32))),
        (ValueError, "input_halo_extents", lambda: grid.transpose_x_to_y(x, input_halo_extents=(1, -1, 0))),
        (ValueError, "output_padding", lambda: grid.transpose_x_to_y(x, output_padding=(1, 1))),
        (TypeError, "stream", lambda: grid.transpose_x_to_y(x, stream="default")),
        (ValueError, "axis", lambda: grid.get_pencil_info(3)),
        (TypeError, "axis", lambda: grid.get_pencil_info(0.0)),
        (ValueError, "dim", lambda: grid.get_shifted_rank(0, 5, 1, True)),
        (ValueError, "dim", lambda: grid.update_halos_x(x, 3, (0, 0, 0))),
        (ValueError, "halo_periods", lambda: grid.update_halos_x(x, 0, (0, 0, 0), halo_periods=(True,))),
        (ValueError, "data", lambda: grid.update_halos_x(x, 0, (1, 1, 1))),
        # read-only data
        (ValueError, "data", lambda: grid.update_halos_x(np.frombuffer(x.tobytes()).reshape(x.shape), 0, (0, 0, 0))),
    ]
    for error_type, argument, call in attempts:
        expect(error_type, argument, call)
    # An output that overlaps the input without starting at the same address.
    buffer = np.zeros(x.size + y_info.size + 8)
    src = buffer[: x.size].reshape(x.shape)
    src[...] = x
    shifted = buffer[1: 1 + y_info.size].reshape(y_info.array_shape)
    expect(ValueError, "out", lambda: grid.transpose_x_to_y(src, out=shifted))
    # Halos larger than a neighbour's pencil: a CudecompError, raised before communication.
    big = (0, 50, 50)
    info = grid.get_pencil_info(0, big)
    if pdims[0] > 1:
        expect(cudecomp.CudecompError, "halo_extents",
               lambda: grid.update_halos_x(np.zeros(info.array_shape), 1, big), cudecomp.Result.INVALID_USAGE)
    assert (out == SENTINEL).all(), "a failed call changed its output"


only_rank_zero(operation_errors)

# Read-only inputs are fine out of place; dtype given explicitly or inferred; explicit work.
x.flags.writeable = False
work = np.empty(grid.get_transpose_workspace_size())
y = grid.transpose_x_to_y(x, work=work, dtype=DOUBLE, stream=0)
check_owned(y, y_info, gdims, DOUBLE, "explicit work")
x.flags.writeable = True
# In place with out=input works when the buffer is large enough for the output pencil.
largest = max(x_info.size, y_info.size)
buffer = np.full(largest, SENTINEL)
everyone_fits = comm.allreduce(x_info.size >= y_info.size, op=MPI.LAND)
if everyone_fits:  # a collective call, so every rank must take part
    view = buffer[: x_info.size].reshape(x_info.array_shape)
    view[...] = x
    result = grid.transpose_x_to_y(view, out=view)
    assert np.shares_memory(result, buffer) and result.shape == y_info.array_shape
    check_owned(result, y_info, gdims, DOUBLE, "out=input")
comm.Barrier()
if rank == 0 and x_info.size < y_info.size:
    small = x.copy()
    expect(ValueError, "out", lambda: grid.transpose_x_to_y(small, out=small))
comm.Barrier()

# Destroy and finalize: later use fails clearly instead of crashing.
grid.destroy()
expect(ValueError, "grid", lambda: grid.transpose_x_to_y(x))
expect(cudecomp.CudecompError, None, lambda: grid.get_pencil_info(0))
grid2 = handle.create_grid(base_config(gdims, pdims))
handle.finalize()
expect(cudecomp.CudecompError, None, lambda: grid2.get_transpose_workspace_size())
if rank == 0:
    print(f"API OK on {size} ranks")
