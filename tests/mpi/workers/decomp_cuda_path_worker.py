"""The GPU build's Python path (CUDA array interface in, raw addresses and a stream to the native
layer) on real ranks without a GPU: _native.has_cuda is switched on as a GPU build sets it, and
the arrays are small objects exposing __cuda_array_interface__ over NumPy memory. The native core
runs an operation where its input lives, so these host addresses take the host path, and every
element is checked against a function of its global index. What only a GPU can check (kernels,
device transfers) is tests/cpp/test_decomp_cuda_device.cpp's job."""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

import cudecomp
from decomp_reference import NUMPY, assert_equal, check_owned, expect, expected_after_halo_updates, filled_pencil

cudecomp._native.has_cuda = True  # the Python layer of a GPU build
comm = MPI.COMM_WORLD
handle = cudecomp.Handle(comm)


class HostBacked:
    """A CUDA-array-interface (version 3) view of a NumPy array's memory."""

    def __init__(self, array, readonly=False):
        self.array = array
        self.__cuda_array_interface__ = {"version": 3, "shape": array.shape, "typestr": array.dtype.str,
                                         "data": (array.ctypes.data, readonly), "strides": None}


class Stream:
    def __init__(self, handle):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


size = comm.size
pdims = (2, size // 2) if size % 2 == 0 else (1, size)
gdims = (9, 7, 5)
checked = 0
for backend in (cudecomp.TransposeCommBackend.MPI_P2P, cudecomp.TransposeCommBackend.MPI_A2A):
    config = cudecomp.GridDescConfig()
    config.gdims = gdims
    config.pdims = pdims
    config.transpose_comm_backend = backend
    config.transpose_axis_contiguous = (False, True, False)
    grid = handle.create_grid(config)
    for dtype in (cudecomp.DataType.FLOAT, cudecomp.DataType.DOUBLE, cudecomp.DataType.FLOAT_COMPLEX,
                  cudecomp.DataType.DOUBLE_COMPLEX):
        halo, pad = (1, 0, 2), (0, 1, 0)
        x_info = grid.get_pencil_info(0, halo)
        y_info = grid.get_pencil_info(1, None, pad)
        z_info = grid.get_pencil_info(2)
        x = filled_pencil(x_info, gdims, dtype)
        y = np.zeros(y_info.array_shape, NUMPY[dtype])
        work = np.zeros(grid.get_transpose_workspace_size(), NUMPY[dtype])
        result = grid.transpose_x_to_y(HostBacked(x, readonly=True), out=HostBacked(y), work=HostBacked(work),
                                       input_halo_extents=halo, output_padding=pad, stream=Stream(0))
        assert result.array is y
        check_owned(y, y_info, gdims, dtype, f"x->y {backend.name} {dtype.name}")
        z = np.zeros(z_info.array_shape, NUMPY[dtype])
        grid.transpose_y_to_z(HostBacked(y), out=HostBacked(z), input_padding=pad, stream=0)  # managed work
        check_owned(z, z_info, gdims, dtype, f"y->z {backend.name} {dtype.name}")
        # In place: one buffer large enough for both pencils; out is an array over the same
        # buffer with the output pencil's shape (the input array may be the smaller one).
        plain_z, plain_y = grid.get_pencil_info(2), grid.get_pencil_info(1)
        buffer = np.zeros(max(plain_z.size, plain_y.size), NUMPY[dtype])
        buffer[:plain_z.size] = filled_pencil(plain_z, gdims, dtype).reshape(-1)
        output_view = buffer[:plain_y.size].reshape(plain_y.array_shape)
        result = grid.transpose_z_to_y(HostBacked(buffer[:plain_z.size].reshape(plain_z.array_shape)),
                                       out=HostBacked(output_view))
        assert result.array is output_view
        check_owned(output_view, plain_y, gdims, dtype, f"z->y in place {backend.name} {dtype.name}")
        # out=input needs input arrays that hold the output pencil on every rank (a collective call).
        if comm.allreduce(plain_z.size >= plain_y.size, op=MPI.LAND):
            buffer[:plain_z.size] = filled_pencil(plain_z, gdims, dtype).reshape(-1)
            same = HostBacked(buffer[:plain_z.size].reshape(plain_z.array_shape))
            assert grid.transpose_z_to_y(same, out=same) is same
            check_owned(output_view, plain_y, gdims, dtype, f"z->y out=input {backend.name} {dtype.name}")
        checked += 3
    # Halo updates (periodic, X then Y then Z) on the X pencil.
    halo = (1, 1, 1)
    info = grid.get_pencil_info(0, halo)
    data = filled_pencil(info, gdims, cudecomp.DataType.DOUBLE)
    for dim in range(3):
        grid.update_halos_x(HostBacked(data), dim, halo, halo_periods=(True, True, True))
    assert_equal(data, expected_after_halo_updates(info, gdims, cudecomp.DataType.DOUBLE, (True, True, True),
                                                   (0, 1, 2)), f"halos {backend.name}")
    # The rules of the GPU build, before any work.
    x = filled_pencil(grid.get_pencil_info(0), gdims, cudecomp.DataType.DOUBLE)
    expect(TypeError, "input: NumPy host arrays are not accepted by GPU builds", lambda: grid.transpose_x_to_y(x))
    expect(TypeError, "out: omitted, so the output would be a CuPy array",
           lambda: grid.transpose_x_to_y(HostBacked(x)))
    expect(ValueError, "out: array must be writable",
           lambda: grid.transpose_x_to_y(HostBacked(x), out=HostBacked(np.zeros(grid.get_pencil_info(1).array_shape), readonly=True)))
    expect(TypeError, "stream: expected None", lambda: grid.transpose_x_to_y(HostBacked(x), stream="0"))
    expect(ValueError, "input: shape", lambda: grid.transpose_y_to_z(HostBacked(x)))
    grid.destroy()
    checked += 1

handle.finalize()
comm.Barrier()
if comm.rank == 0:
    print(f"GPU-build Python path OK on {size} ranks ({checked} checks)")
