"""Operations for the performance report test (tests/mpi/test_decomp_perf_report.py): on a
size x 1 process grid (so X->Y transposes and X-pencil halos along Y communicate), `XY` out-of-place double X->Y transposes, `YZ` Y->Z transposes, `HALO`
X-pencil halo updates along dim 1 (split across the ranks, periodic), and one in-place float
X->Y transpose per `INPLACE`, then GridDesc.destroy() (the report) and Handle.finalize().

Usage: decomp_perf_report_worker.py XY YZ HALO INPLACE
"""

from __future__ import annotations

import sys

import numpy as np
from mpi4py import MPI

import cudecomp

xy, yz, halo_updates, in_place = (int(value) for value in sys.argv[1:5])
comm = MPI.COMM_WORLD
handle = cudecomp.Handle(comm)
config = cudecomp.GridDescConfig()
config.gdims = (8, 6, 4)
config.pdims = (comm.Get_size(), 1)
grid = handle.create_grid(config)

x_info = grid.get_pencil_info(0)
y_info = grid.get_pencil_info(1)
x = np.arange(x_info.size, dtype=np.float64).reshape(x_info.array_shape)
y = np.empty(y_info.array_shape, dtype=np.float64)
for _ in range(xy):
    grid.transpose_x_to_y(x, out=y)
z = np.empty(grid.get_pencil_info(2).array_shape, dtype=np.float64)
for _ in range(yz):
    grid.transpose_y_to_z(y, out=z)
halo = (0, 1, 0)
halo_info = grid.get_pencil_info(0, halo)
data = np.zeros(halo_info.array_shape, dtype=np.float64)
for _ in range(halo_updates):
    grid.update_halos_x(data, 1, halo, halo_periods=(False, True, False))
buffer = np.zeros(max(x_info.size, y_info.size), dtype=np.float32)
for _ in range(in_place):
    grid.transpose_x_to_y(buffer[:x_info.size].reshape(x_info.array_shape),
                          out=buffer[:y_info.size].reshape(y_info.array_shape))
grid.destroy()  # the report: printed by rank 0 (the C library's stdout, flushed)
handle.finalize()
