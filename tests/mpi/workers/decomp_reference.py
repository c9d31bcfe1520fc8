"""Independent reference for the cudecomp MPI workers: every element of a pencil is a function
of its global index, computed here from PencilInfo alone (never from the library's packing)."""

from __future__ import annotations

import numpy as np

import cudecomp

SENTINEL = -7.0
NUMPY = {
    cudecomp.DataType.FLOAT: np.float32,
    cudecomp.DataType.DOUBLE: np.float64,
    cudecomp.DataType.FLOAT_COMPLEX: np.complex64,
    cudecomp.DataType.DOUBLE_COMPLEX: np.complex128,
}


def value_of(gdims, gx, gy, gz, dtype):
    """Distinct per global index and exact in float32 for the grids the tests use."""
    linear = gx + gdims[0] * (gy + gdims[1] * gz.astype(np.int64))
    if np.issubdtype(np.dtype(NUMPY[dtype]), np.complexfloating):
        return (linear + 1j * (gdims[0] * gdims[1] * gdims[2] - linear)).astype(NUMPY[dtype])
    return linear.astype(NUMPY[dtype])


def global_coordinates(info):
    """Global (x, y, z) of every array element (halos give out-of-range or wrapped-to-be values),
    and whether each element is owned (not halo, not padding), as arrays of info.array_shape."""
    coords = [None, None, None]
    owned = np.ones(info.array_shape, dtype=bool)
    padding_mask = np.zeros(info.array_shape, dtype=bool)
    for position in range(3):
        dim = info.order[position]
        extent = info.shape[position]
        halo = info.halo_extents[dim]
        count = info.hi[position] - info.lo[position] + 1
        local = np.arange(extent)
        global_index = info.lo[position] + local - halo
        shape = [1, 1, 1]
        shape[2 - position] = extent
        coords[dim] = global_index.reshape(shape)
        inside = ((local >= halo) & (local < halo + count)).reshape(shape)
        owned &= inside
        padding_mask |= (local >= 2 * halo + count).reshape(shape)
    return [np.broadcast_to(c, info.array_shape) for c in coords], owned, padding_mask


def filled_pencil(info, gdims, dtype):
    """A pencil array whose owned elements hold value_of(global index); the rest SENTINEL."""
    (gx, gy, gz), owned, _ = global_coordinates(info)
    array = np.full(info.array_shape, SENTINEL, dtype=NUMPY[dtype])
    values = value_of(gdims, np.where(owned, gx, 0), np.where(owned, gy, 0), np.where(owned, gz, 0), dtype)
    array[owned] = values[owned]
    return array


def check_owned(array, info, gdims, dtype, what):
    (gx, gy, gz), owned, _ = global_coordinates(info)
    expected = value_of(gdims, np.where(owned, gx, 0), np.where(owned, gy, 0), np.where(owned, gz, 0), dtype)
    bad = owned & (array != expected)
    if bad.any():
        index = tuple(int(i[0]) for i in np.nonzero(bad))
        raise AssertionError(f"{what}: {int(bad.sum())} wrong owned elements, first at array index {index}: "
                             f"got {array[index]}, expected {expected[index]}")


def expected_after_halo_updates(info, gdims, dtype, periods, updated_dims):
    """What every element must hold after halo updates along `updated_dims` of a filled pencil."""
    (gx, gy, gz), owned, padding_mask = global_coordinates(info)
    coords = [np.array(gx), np.array(gy), np.array(gz)]
    filled = ~padding_mask
    for dim in range(3):
        outside = (coords[dim] < info_lo(info, dim)) | (coords[dim] > info_hi(info, dim))
        in_domain = (coords[dim] >= 0) & (coords[dim] < gdims[dim])
        valid = in_domain | bool(periods[dim])
        filled &= ~outside | (valid & (dim in updated_dims))
        coords[dim] = np.mod(coords[dim], gdims[dim])
    expected = np.full(info.array_shape, SENTINEL, dtype=NUMPY[dtype])
    values = value_of(gdims, coords[0], coords[1], coords[2], dtype)
    expected[filled] = values[filled]
    return expected


def info_lo(info, dim):
    return info.lo[info.order.index(dim)]


def info_hi(info, dim):
    return info.hi[info.order.index(dim)]


def expect(error_type, text, call):
    """Runs call() and checks that it raises error_type with a message starting with text."""
    try:
        call()
    except error_type as error:
        assert str(error).startswith(text), (text, str(error))
        return
    raise AssertionError(f"expected {error_type.__name__}: {text}")


def assert_equal(array, expected, what):
    bad = array != expected
    if bad.any():
        index = tuple(int(i[0]) for i in np.nonzero(bad))
        raise AssertionError(f"{what}: {int(bad.sum())} wrong elements, first at array index {index}: "
                             f"got {array[index]}, expected {expected[index]}")


# Which process-grid dimension (0: rows, 1: columns) splits each global dim of each pencil,
# as cuDecomp documents it: X [X, Y/Pr, Z/Pc], Y [X/Pr, Y, Z/Pc], Z [X/Pr, Y/Pc, Z].
SPLIT = {0: {1: 0, 2: 1}, 1: {0: 0, 2: 1}, 2: {0: 0, 1: 1}}
CONTIGUOUS_ORDER = {0: (0, 1, 2), 1: (1, 2, 0), 2: (2, 0, 1)}


def expected_range(total, dist, parts, index):
    """Remainders to the lowest ranks; what gdims has beyond gdims_dist goes to the last one."""
    base, remainder = divmod(dist, parts)
    start = index * base + min(index, remainder)
    count = base + (1 if index < remainder else 0) + (total - dist if index == parts - 1 else 0)
    return start, count


def check_pencil_geometry(info, axis, coords, gdims, gdims_dist, pdims, order, halo, padding, what):
    halo = halo or (0, 0, 0)
    padding = padding or (0, 0, 0)
    gdims_dist = gdims_dist or gdims
    if tuple(info.order) != tuple(order):
        raise AssertionError(f"{what}: order {info.order}, expected {order}")
    size = 1
    for position, dim in enumerate(order):
        if dim == axis:
            start, count = 0, gdims[dim]
        else:
            g = SPLIT[axis][dim]
            start, count = expected_range(gdims[dim], gdims_dist[dim], pdims[g], coords[g])
        shape = count + 2 * halo[dim] + padding[dim]
        got = (info.lo[position], info.hi[position], info.shape[position])
        if got != (start, start + count - 1, shape):
            raise AssertionError(f"{what}: axis {axis} dim {dim}: lo/hi/shape {got}, "
                                 f"expected {(start, start + count - 1, shape)}")
        size *= shape
    if info.size != size or tuple(info.halo_extents) != tuple(halo) or tuple(info.padding) != tuple(padding):
        raise AssertionError(f"{what}: size/halo/padding {info.size, info.halo_extents, info.padding}")
