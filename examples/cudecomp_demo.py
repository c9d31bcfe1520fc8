"""cudecomp demo: autotune a process grid on 4 ranks, run the X->Y->Z->Y->X transpose cycle and
a periodic halo update, and check every element against a function of its global index.

    mpirun -np 4 python -m mpi4py examples/cudecomp_demo.py
"""

from __future__ import annotations

import sys

import numpy as np
from mpi4py import MPI

import cudecomp

GDIMS = (64, 48, 40)


def global_value(info, halo_wrap=False):
    """value(x, y, z) = x + 1000 y + 1e6 z on the pencil's elements (halos wrapped periodically)."""
    coords = []
    for position in range(3):
        dim = info.order[position]
        index = np.arange(info.shape[position]) - info.halo_extents[dim] + info.lo[position]
        if halo_wrap:
            index = np.mod(index, GDIMS[dim])
        shape = [1, 1, 1]
        shape[2 - position] = info.shape[position]
        coords.append((dim, index.reshape(shape)))
    by_dim = dict(coords)
    return (by_dim[0] + 1000.0 * by_dim[1] + 1e6 * by_dim[2]) * np.ones(info.array_shape)


def main() -> int:
    comm = MPI.COMM_WORLD
    handle = cudecomp.Handle(comm)
    config = cudecomp.GridDescConfig()
    config.gdims = GDIMS
    config.pdims = (0, 0)  # autotune the process grid ...
    options = cudecomp.GridDescAutotuneOptions()
    options.autotune_transpose_backend = True  # ... and the transpose backend
    options.autotune_halo_backend = True
    options.halo_extents = (1, 1, 1)
    options.halo_periods = (True, True, True)
    grid = handle.create_grid(config, options)
    chosen = grid.config
    if comm.rank == 0:
        print(f"autotuned grid: {chosen.pdims[0]} x {chosen.pdims[1]}, transpose backend "
              f"{chosen.transpose_comm_backend.name}, halo backend {chosen.halo_comm_backend.name}")

    infos = [grid.get_pencil_info(axis) for axis in range(3)]
    data = global_value(infos[0])
    for method, axis in (("transpose_x_to_y", 1), ("transpose_y_to_z", 2), ("transpose_z_to_y", 1),
                         ("transpose_y_to_x", 0)):
        data = getattr(grid, method)(data)
        if not np.array_equal(data, global_value(infos[axis])):
            raise SystemExit(f"rank {comm.rank}: {method} gave wrong values")

    halo = (1, 1, 1)
    info = grid.get_pencil_info(0, halo)
    padded = np.zeros(info.array_shape)
    info.interior(padded)[...] = data  # the pencil without its halo, a view of padded
    for dim in range(3):
        grid.update_halos_x(padded, dim, halo, halo_periods=(True, True, True))
    if not np.array_equal(padded, global_value(info, halo_wrap=True)):
        raise SystemExit(f"rank {comm.rank}: halo update gave wrong values")

    checked = comm.allreduce(data.size + padded.size)
    if comm.rank == 0:
        print(f"transpose cycle and periodic halo update correct on {comm.size} ranks "
              f"({checked} elements checked against their global index)")
    grid.destroy()
    handle.finalize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
