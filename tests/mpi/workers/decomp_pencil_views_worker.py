"""PencilInfo.interior / interior_shape / from_global on real ranks: for every pencil axis, memory
layout, halo and padding, the views select exactly the elements decomp_reference calls owned, in
the pencil's axis order, and a global array scattered with them and gathered back on rank 0 is
the original."""

from __future__ import annotations

import itertools

import numpy as np
from mpi4py import MPI

import cudecomp
from decomp_reference import global_coordinates

comm = MPI.COMM_WORLD
handle = cudecomp.Handle(comm)
checked = 0


def check(grid, gdims, axis, halo, padding, what):
    global checked
    info = grid.get_pencil_info(axis, halo, padding)
    (gx, gy, gz), owned, _ = global_coordinates(info)
    # Global linear index of every element of the pencil array, from the reference alone.
    linear = (gx + gdims[0] * (gy + gdims[1] * gz.astype(np.int64))).astype(np.float64)
    pencil = np.full(info.array_shape, -1.0)
    pencil[owned] = linear[owned]
    interior = info.interior(pencil)
    if not np.shares_memory(interior, pencil):
        raise AssertionError(f"{what}: interior is not a view")
    if interior.shape != info.interior_shape or interior.size != int(owned.sum()):
        raise AssertionError(f"{what}: interior shape {interior.shape}, owned {int(owned.sum())}")
    if not np.array_equal(np.sort(interior, axis=None), np.sort(linear[owned])) or np.any(interior < 0):
        raise AssertionError(f"{what}: interior holds other elements than the owned ones")
    whole = np.arange(np.prod(gdims), dtype=np.float64).reshape(tuple(reversed(gdims)))
    if not np.array_equal(info.from_global(whole), interior):
        raise AssertionError(f"{what}: from_global differs from the pencil's own elements")
    # Scatter a fresh global array with the views; gather it back on rank 0.
    scattered = np.zeros(info.array_shape)
    info.interior(scattered)[...] = info.from_global(whole * 3.0)
    parts = comm.gather((info, info.interior(scattered).copy()), root=0)
    if comm.rank == 0:
        gathered = np.full(whole.shape, np.nan)
        for part_info, part in parts:
            part_info.from_global(gathered)[...] = part
        if not np.array_equal(gathered, whole * 3.0):
            raise AssertionError(f"{what}: gathered array differs from the global one")
    checked += 1


def bad_arguments(grid, gdims):
    info = grid.get_pencil_info(0, (1, 1, 1))
    for call, argument in ((lambda: info.interior(np.zeros((2, 2, 2))), "array"),
                           (lambda: info.interior([1, 2]), "array"),
                           (lambda: info.from_global(np.zeros((2, 2))), "whole"),
                           (lambda: info.from_global(np.zeros((1, 1, 1))), "whole")):
        try:
            call()
        except (TypeError, ValueError) as error:
            if not str(error).startswith(f"{argument}:"):
                raise AssertionError(f"error does not name {argument}: {error}") from None
        else:
            raise AssertionError(f"bad {argument} accepted")


def main():
    gdims = (9, 8, 7)
    for rows in [r for r in range(1, comm.size + 1) if comm.size % r == 0]:
        for contiguous in ((False, False, False), (True, True, True)):
            config = cudecomp.GridDescConfig()
            config.gdims = gdims
            config.pdims = (rows, comm.size // rows)
            config.transpose_axis_contiguous = contiguous
            grid = handle.create_grid(config)
            for axis, halo, padding in itertools.product(range(3), [(0, 0, 0), (1, 2, 1)], [None, (0, 1, 2)]):
                check(grid, gdims, axis, halo, padding,
                      f"pdims {config.pdims} contiguous {contiguous[0]} axis {axis} halo {halo} padding {padding}")
            bad_arguments(grid, gdims)
            grid.destroy()
    total = comm.allreduce(checked)
    handle.finalize()
    if comm.rank == 0:
        print(f"pencil views OK on {comm.size} ranks: {total} pencils checked")


main()
