"""Array arguments as a kernel's launch passes them: the flat host memory the emulator runs
on, and the signature entry and native values (buffer, shape, strides, offset) of an N-D
array. Above `_array` (WaveArray) and `_shaped` (shapes, strided views), which import
neither this nor each other's callers."""

from __future__ import annotations

import numpy as np

from wave_gpu._array import WaveArray
from wave_gpu._shaped import MAX_NDIM, Strided, is_array_kind, kind_of, ndim_of


def host_storage(value):
    """The flat host memory the emulator runs on for a buffer argument."""
    if isinstance(value, WaveArray):
        return value._storage.reshape(-1)
    if isinstance(value, Strided):
        return value.span
    return value


def bind(kernel: str, name: str, declared, value, storage: np.ndarray, dtype: str, flat_cache: dict):
    """The signature entry and native values (buffer, shape, strides, offset) of an array
    argument whose rank is not 1 or whose parameter is declared N-D; TypeError on a rank
    mismatch or an unusable layout."""
    ndim = storage.ndim
    where = f"argument '{name}' of {kernel}()"
    if declared is not None:
        expected = ndim_of(declared[0]) if is_array_kind(declared[0]) else None
        if expected is None:
            raise TypeError(f"{where}: expected a {declared[1]} scalar, got a {ndim}-D array of {dtype}")
        if expected != ndim:
            colons = ", ".join([":"] * expected)
            raise TypeError(f"{where}: expected a {expected}-D {declared[1]} array ({declared[1]}[{colons}]), "
                            f"got a {ndim}-D array of shape {tuple(storage.shape)}")
        if declared[1] != dtype:
            raise TypeError(f"{where}: expected a {declared[1]} array, got an array of {dtype}")
    if not 1 <= ndim <= MAX_NDIM:
        raise TypeError(f"{where}: kernels take arrays of 1 to {MAX_NDIM} dimensions, got {ndim}")
    if not storage.flags.writeable:
        raise TypeError(f"{where}: the array is read-only")
    itemsize = storage.dtype.itemsize
    if any(stride % itemsize for stride in storage.strides):
        raise TypeError(f"{where}: the array's strides {storage.strides} are not whole elements")
    if max(storage.shape, default=0) > 2**31 - 1 or storage.size > 2**31 - 1:
        raise TypeError(f"{where}: arrays of more than 2**31 - 1 elements are not supported")
    if storage.flags.c_contiguous:
        if isinstance(value, WaveArray):
            buffer = value
        else:
            buffer = flat_cache.get(id(value))
            if buffer is None:  # one flat view per array, so an array passed twice binds one buffer
                buffer = flat_cache[id(value)] = storage.reshape(-1)
        strides = [s // itemsize for s in storage.strides] if storage.size else [0] * ndim
        offset = 0
    else:
        buffer = flat_cache.get(id(value))
        if buffer is None:
            buffer = flat_cache[id(value)] = Strided(storage)
        strides, offset = buffer.strides, buffer.offset
    natives = [buffer] + [int(n) for n in storage.shape] + [int(s) for s in strides] + [int(offset)]
    return (name, kind_of(ndim), dtype), natives

