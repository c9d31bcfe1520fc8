"""cudecomp's Python API of the GPU build on CuPy arrays, on real ranks and a real GPU (launched by
test_decomp_cupy.py under mpirun; scripts/gpu-check.sh runs it with 1, 2 and 4 ranks). Every
transpose direction for every transpose backend, in place (out=input and an array over the same
buffer) and out of place (out= given and omitted), with and without halos and padding, the four
element types, streams (None, a CuPy stream, a raw handle); halo updates with MPI, MPI_BLOCKING
and NCCL on the three pencil axes along every dim, periodic and not. Every element is checked
against a function of its global index with the host tests' reference (tests/mpi/workers/
decomp_reference.py), which computes from PencilInfo alone. NumPy arrays are refused with the
seed's message.

NCCL refuses two ranks of one communicator on the same device, so its backends run where the
ranks have distinct GPUs (always with one rank) and are reported as not run otherwise."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import cupy as cp
import numpy as np
from mpi4py import MPI

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mpi" / "workers"))
import cudecomp  # noqa: E402
from decomp_reference import (NUMPY, SENTINEL, assert_equal, check_owned, expect,  # noqa: E402
                              expected_after_halo_updates, filled_pencil, global_coordinates)

comm = MPI.COMM_WORLD
# One device per rank of a node where there are enough, else shared; chosen before the handle,
# whose CUDA work runs on the current device.
local_rank = comm.Split_type(MPI.COMM_TYPE_SHARED).rank
device = cp.cuda.Device(local_rank % cp.cuda.runtime.getDeviceCount())
device.use()

if not cudecomp._native.has_cuda or cudecomp.__version__.endswith("+cpu"):
    raise SystemExit(f"cudecomp {cudecomp.__version__} is the NumPy build; this test needs the GPU build "
                     "(WAVESTACK_CUDA=ON, WAVESTACK_CUDECOMP_PYTHON_GPU not OFF)")
if not cudecomp._native.cuda_library:
    raise SystemExit("cudecomp's library has no CUDA backend")

places = comm.allgather((MPI.Get_processor_name(), device.pci_bus_id))
NCCL_RUNS = len(set(places)) == comm.size
handle = cudecomp.Handle(comm)
T = cudecomp.TransposeCommBackend
H = cudecomp.HaloCommBackend


def mpi_runs_on_device_arrays():
    """Whether the MPI backends run on CuPy arrays here. With one rank they always do (no remote
    peer); with more, MPI gets device pointers, which only a CUDA-aware MPI takes: over any
    other the library refuses, before any work, naming the backend. One Y->Z transpose over all
    ranks tells which; a refusal is checked to leave its input as it was."""
    if comm.size == 1:
        return True
    gdims = (9, 7, 5)
    config = cudecomp.GridDescConfig()
    config.gdims, config.pdims = gdims, (1, comm.size)
    config.transpose_comm_backend = cudecomp.TransposeCommBackend.MPI_P2P
    grid = handle.create_grid(config)
    data = cp.asarray(filled_pencil(grid.get_pencil_info(1), gdims, cudecomp.DataType.DOUBLE))
    before = data.copy()
    try:
        grid.transpose_y_to_z(data)
        return True
    except cudecomp.CudecompError as error:
        assert "backend MPI_P2P would hand device buffers to MPI, and this MPI is not CUDA-aware" in str(error), error
        assert error.code == cudecomp.Result.NOT_SUPPORTED, error.code
        assert bool((data == before).all()), "a refused transpose changed its input"
        return False
    finally:
        grid.destroy()


MPI_RUNS = mpi_runs_on_device_arrays()
TRANSPOSE_BACKENDS = (([T.MPI_P2P, T.MPI_P2P_PL, T.MPI_A2A] if MPI_RUNS else []) +
                      ([T.NCCL, T.NCCL_PL] if NCCL_RUNS else []))
HALO_BACKENDS = ([H.MPI, H.MPI_BLOCKING] if MPI_RUNS else []) + ([H.NCCL] if NCCL_RUNS else [])
DTYPES = list(NUMPY)
STEPS = [("transpose_x_to_y", 0, 1), ("transpose_y_to_z", 1, 2), ("transpose_z_to_y", 2, 1),
         ("transpose_y_to_x", 1, 0)]
# out= given, out omitted (a new CuPy array), in place through an array over the same buffer,
# in place with out=input.
MODES = ("out", "omitted", "view", "same")
STREAM = cp.cuda.Stream(non_blocking=True)
counts = {"transposes": 0, "halo updates": 0}


def process_grids(n):
    return [(rows, n // rows) for rows in range(1, n + 1) if n % rows == 0]


def stream_argument(number):
    """None (CuPy's current stream), the CuPy stream object, or its raw cudaStream_t."""
    return (None, STREAM, STREAM.ptr)[number % 3]


def finish(stream):
    """Waits for the operation (NCCL ones return before they finish) before reading its output."""
    (STREAM if stream is not None else cp.cuda.get_current_stream()).synchronize()


def make_grid(gdims, pdims, transpose_backend=T.MPI_P2P, halo_backend=H.MPI, contiguous=(False, False, False)):
    config = cudecomp.GridDescConfig()
    config.gdims = gdims
    config.pdims = pdims
    config.transpose_comm_backend = transpose_backend
    config.halo_comm_backend = halo_backend
    config.transpose_axis_contiguous = contiguous
    return handle.create_grid(config)


def untouched_outside_owned(array, info, what):
    _, owned, _ = global_coordinates(info)
    if np.any(array[~owned] != SENTINEL):
        raise AssertionError(f"{what}: a halo or padding element was written")


def transpose_step(grid, method, infos, src, dst, current, dtype, mode, halos, paddings, number, what):
    """One transpose of the host array ``current`` (pencil ``src``) on the device; returns the
    output pencil on the host after checking every owned element (and, out of place, that the
    input is unchanged and nothing outside the owned elements was written)."""
    stream = stream_argument(number)
    work = cp.empty(max(grid.get_transpose_workspace_size(), 1), NUMPY[dtype]) if number % 2 else None
    kwargs = dict(dtype=dtype if number % 4 >= 2 else None, work=work, stream=stream,
                  input_halo_extents=halos[src], output_halo_extents=halos[dst], input_padding=paddings[src],
                  output_padding=paddings[dst])
    shape_in, shape_out = infos[src].array_shape, infos[dst].array_shape
    if mode in ("view", "same"):
        buffer = cp.full(max(info.size for info in infos), SENTINEL, NUMPY[dtype])
        source = buffer[:infos[src].size].reshape(shape_in)
        source[...] = cp.asarray(current)
        view = buffer[:infos[dst].size].reshape(shape_out)
        cp.cuda.get_current_stream().synchronize()  # the fill, before an operation on another stream
        if mode == "view":
            result = getattr(grid, method)(source, out=view, **kwargs)
            assert result is view, f"{what}: did not return out"
        else:
            result = getattr(grid, method)(source, out=source, **kwargs)
            assert result is source, f"{what}: out=input did not return the input"
        output = view
    else:
        source = cp.asarray(current)
        out = cp.full(shape_out, SENTINEL, NUMPY[dtype]) if mode == "out" else None
        cp.cuda.get_current_stream().synchronize()
        result = getattr(grid, method)(source, out=out, **kwargs)
        if mode == "out":
            assert result is out, f"{what}: did not return out"
        else:
            assert isinstance(result, cp.ndarray) and result.shape == tuple(shape_out), f"{what}: output {result!r}"
        output = result
    finish(stream)
    host = cp.asnumpy(output)
    check_owned(host, infos[dst], gdims_of(grid), dtype, what)
    if mode in ("out", "omitted") and not np.array_equal(cp.asnumpy(source), current):
        raise AssertionError(f"{what}: out-of-place transpose modified its input")
    if mode == "out" and (halos[dst] is not None or paddings[dst] is not None):
        untouched_outside_owned(host, infos[dst], what)
    counts["transposes"] += 1
    return host


def gdims_of(grid):
    return tuple(int(v) for v in grid.config.gdims)


def cycle(grid, dtype, mode, halos=None, paddings=None, what=""):
    """X->Y->Z->Y->X; ``halos[axis]``/``paddings[axis]`` describe each pencil's buffer."""
    halos = halos or [None] * 3
    paddings = paddings or [None] * 3
    infos = [grid.get_pencil_info(axis, halos[axis], paddings[axis]) for axis in range(3)]
    current = filled_pencil(infos[0], gdims_of(grid), dtype)
    for number, (method, src, dst) in enumerate(STEPS):
        label = f"{what} {method} {mode} {dtype.name}"
        if mode == "same" and not comm.allreduce(infos[src].size >= infos[dst].size, op=MPI.LAND):
            # out=input needs an input array that holds the output pencil on every rank (the
            # call is collective); the same step then runs in place through a view.
            current = transpose_step(grid, method, infos, src, dst, current, dtype, "view", halos, paddings,
                                     counts["transposes"], label)
            continue
        current = transpose_step(grid, method, infos, src, dst, current, dtype, mode, halos, paddings,
                                 counts["transposes"], label)


def transposes():
    for pdims in process_grids(comm.size):
        for backend in TRANSPOSE_BACKENDS:
            for contiguous in ((False, False, False), (True, True, True)):
                grid = make_grid((13, 11, 7), pdims, transpose_backend=backend, contiguous=contiguous)
                for dtype, mode in itertools.product(DTYPES, MODES):
                    cycle(grid, dtype, mode, what=f"pdims={pdims} {backend.name} contiguous={contiguous[0]}")
                grid.destroy()
            # Halos and padding on every pencil, and each alone.
            grid = make_grid((11, 9, 10), pdims, transpose_backend=backend)
            halos = [(1, 2, 0), (2, 0, 1), (0, 1, 3)]
            paddings = [(2, 0, 1), (0, 3, 0), (1, 1, 2)]
            for dtype, mode in itertools.product((cudecomp.DataType.FLOAT, cudecomp.DataType.DOUBLE_COMPLEX), MODES):
                what = f"pdims={pdims} {backend.name}"
                cycle(grid, dtype, mode, halos, paddings, what=f"halos+padding {what}")
                cycle(grid, dtype, mode, halos, None, what=f"halos {what}")
                cycle(grid, dtype, mode, None, paddings, what=f"padding {what}")
            grid.destroy()


UPDATE = {0: "update_halos_x", 1: "update_halos_y", 2: "update_halos_z"}


def halo_updates():
    gdims = (13, 12, 14)  # at least 3 per rank on 4 ranks, uneven
    for pdims in process_grids(comm.size):
        for backend, contiguous in itertools.product(HALO_BACKENDS, [(False, False, False), (True, True, True)]):
            grid = make_grid(gdims, pdims, halo_backend=backend, contiguous=contiguous)
            for axis in range(3):
                for number, periods in enumerate(itertools.product((False, True), repeat=3)):
                    dtype = DTYPES[number % 4]
                    halo = (1, 2, 1) if number % 2 else (2, 1, 2)
                    padding = (0, 1, 2) if number % 3 == 0 else None
                    info = grid.get_pencil_info(axis, halo, padding)
                    for dims in ((0, 1, 2), (2,), (1,), (0,)):
                        data = cp.asarray(filled_pencil(info, gdims, dtype))
                        work = None
                        if number % 2 == 0:
                            work = cp.empty(grid.get_halo_workspace_size(axis, halo), NUMPY[dtype])
                        stream = stream_argument(number + len(dims))
                        cp.cuda.get_current_stream().synchronize()
                        for dim in dims:
                            result = getattr(grid, UPDATE[axis])(data, dim, halo, halo_periods=periods,
                                                                 padding=padding, work=work, stream=stream)
                            assert result is data, "update_halos did not return its data array"
                        finish(stream)
                        expected = expected_after_halo_updates(info, gdims, dtype, periods, set(dims))
                        assert_equal(cp.asnumpy(data), expected,
                                     f"pdims={pdims} {backend.name} contiguous={contiguous[0]} axis={axis} "
                                     f"dims={dims} periods={periods} halo={halo} padding={padding} {dtype.name}")
                        counts["halo updates"] += 1
            grid.destroy()


def refusals():
    """The GPU build's rules on real CuPy arrays, before any communication."""
    # Y pencils stored Y-first, so no X pencil array has a Y pencil's shape on any grid.
    grid = make_grid((9, 7, 5), process_grids(comm.size)[0], contiguous=(False, True, False))
    x_info, y_info = grid.get_pencil_info(0), grid.get_pencil_info(1)
    host = filled_pencil(x_info, (9, 7, 5), cudecomp.DataType.DOUBLE)
    rejected = "NumPy host arrays are not accepted by GPU builds"
    expect(TypeError, f"input: {rejected}", lambda: grid.transpose_x_to_y(host))
    expect(TypeError, f"out: {rejected}",
           lambda: grid.transpose_x_to_y(cp.asarray(host), out=np.zeros(y_info.array_shape)))
    expect(TypeError, f"data: {rejected}", lambda: grid.update_halos_x(host, 0, (0, 0, 0)))
    expect(ValueError, "input: shape", lambda: grid.transpose_y_to_z(cp.asarray(host)))
    expect(TypeError, "input: dtype float64 does not match",
           lambda: grid.transpose_x_to_y(cp.asarray(host), dtype=cudecomp.DataType.FLOAT))
    grid.destroy()


transposes()
halo_updates()
refusals()
handle.finalize()
if comm.rank == 0:
    nccl = "NCCL included" if NCCL_RUNS else (f"NCCL backends not run: {comm.size} ranks share "
                                             f"{len(set(places))} device(s), and NCCL refuses two ranks on one")
    if not MPI_RUNS:
        nccl += "; MPI backends refused as expected: this MPI is not CUDA-aware"
    print(f"CuPy arrays OK on {comm.size} ranks: {counts['transposes']} transposes and "
          f"{counts['halo updates']} halo updates checked on each rank ({nccl})")
