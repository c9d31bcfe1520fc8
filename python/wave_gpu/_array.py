"""WaveArray: typed host storage over a NumPy array (a u32 array holds u32 values, f16 is
stored as IEEE half). numpy.asarray(wave_array) returns a view, never a copy.

On a GPU a WaveArray keeps its device copy between calls. Every way the host could change
the values (item or slice assignment, numpy(), numpy.asarray()) marks the host copy as
changed, so the next call uploads it again; otherwise the device copy is reused."""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from wave_gpu import _shaped
from wave_gpu._types import ARRAY_DTYPES, NUMPY_DTYPES, DType, dtype_name


def _convert(data, name: str) -> np.ndarray:
    """The values of `data` as a 1-D array of dtype `name`; ValueError naming `data` otherwise."""
    if isinstance(data, (str, bytes)) or not isinstance(data, Iterable):
        raise TypeError(f"data: expected a sequence of numbers, got {type(data).__name__}")
    target = NUMPY_DTYPES[name]
    fast = _convert_vectorised(data, target, name)
    if fast is not None:
        return fast
    values = list(data)
    if target.kind == "f":
        try:
            return np.array([float(v) for v in values], dtype=np.float64).astype(target)
        except (TypeError, ValueError) as error:
            raise ValueError(f"data: every element must be convertible to float ({error})") from None
    info = np.iinfo(target)
    converted = []
    for index, value in enumerate(values):
        try:
            number = float(value) if not isinstance(value, (int, np.integer)) else int(value)
        except (TypeError, ValueError):
            raise ValueError(f"data: element {index} ({value!r}) is not a number") from None
        if isinstance(number, float):
            if not math.isfinite(number) or number != int(number):
                raise ValueError(f"data: element {index} ({value!r}) is not an integer, as dtype {name!r} needs")
            number = int(number)
        if not info.min <= number <= info.max:
            raise ValueError(f"data: element {index} ({value!r}) is out of range for dtype {name!r}")
        converted.append(number)
    return np.array(converted, dtype=target)


def _convert_vectorised(data, target: np.dtype, name: str):
    """The conversion done by NumPy in one pass, or None to take the per-element path
    (which names the offending element)."""
    try:
        source = np.asarray(data)
    except (TypeError, ValueError):
        return None
    if source.ndim != 1 or source.dtype.kind not in "biuf":
        return None
    if target.kind == "f":
        return source.astype(np.float64).astype(target) if source.dtype.kind != "f" else source.astype(target)
    if source.dtype.kind == "f":
        if not (np.isfinite(source).all() and (source == np.trunc(source)).all()):
            return None
    info = np.iinfo(target)
    if source.size and (source.min() < info.min or source.max() > info.max):
        return None
    return source.astype(target)


class WaveArray:
    """Host values used as kernel buffers. Kernels update them in place.

    Made by :func:`array`, :func:`zeros` and :func:`ones`; 1-D, 2-D or 3-D. ``numpy.asarray``
    of it is a view of its storage. On a GPU it keeps its device copy between calls and is
    uploaded again only after a change on the host.
    """

    __slots__ = ("_storage", "_dtype", "_resident", "_host_changed", "__weakref__")

    def __init__(self, storage: np.ndarray, dtype: str):
        self._storage = storage
        self._dtype = dtype
        self._resident = None  # (device index, GpuBuffer) of the device copy
        self._host_changed = True  # the host values differ (or may differ) from the device copy

    @property
    def dtype(self) -> str:
        """Element type string, such as "f32" or "u32"."""
        return self._dtype

    @property
    def shape(self) -> tuple:
        """The dimensions, as in NumPy: (n,) for the default 1-D array, (m, n) for a 2-D one."""
        return tuple(self._storage.shape)

    @property
    def ndim(self) -> int:
        """The number of dimensions: 1, 2 or 3."""
        return self._storage.ndim

    @property
    def data(self) -> list:
        """The stored values as a list (floats for float dtypes, ints for integer dtypes)."""
        return self._storage.tolist()

    def to_list(self) -> list:
        """A copy of the stored values."""
        return self._storage.tolist()

    def numpy(self) -> np.ndarray:
        """The typed storage itself (a view: writes change the array)."""
        self._host_changed = True
        return self._storage

    def __len__(self) -> int:
        return self._storage.shape[0]

    def __getitem__(self, index):
        if self._storage.ndim != 1 or isinstance(index, tuple):  # shaped arrays index as in NumPy
            return _shaped.get_item(self._storage, index)
        if isinstance(index, slice):
            return self._storage[index].tolist()
        return self._storage[self._position(index)].item()

    def __setitem__(self, index, value) -> None:
        self._host_changed = True
        if self._storage.ndim != 1 or isinstance(index, tuple):
            _shaped.set_item(self._storage, index, value, self._dtype, _convert)
            return
        if isinstance(index, slice):
            replacement = _convert(value, self._dtype)
            if len(range(*index.indices(len(self)))) != len(replacement):
                raise ValueError("value: a slice assignment must keep the array's length")
            self._storage[index] = replacement
        else:
            self._storage[self._position(index)] = _convert([value], self._dtype)[0]

    def _position(self, index) -> int:
        if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
            raise TypeError(f"index: WaveArray indices must be integers or slices, not {type(index).__name__}")
        if not -len(self) <= index < len(self):
            raise IndexError(f"index: {index} is out of range for a WaveArray of length {len(self)}")
        return int(index)

    def __iter__(self):
        return iter(self._storage.tolist())

    @property
    def __array_interface__(self) -> dict:
        # NumPy reads this to view the storage without copying.
        self._host_changed = True
        return self._storage.__array_interface__

    def __array__(self, dtype=None, copy=None):
        self._host_changed = True
        if dtype is None or np.dtype(dtype) == self._storage.dtype:
            return self._storage
        return self._storage.astype(dtype)

    def __repr__(self) -> str:
        return f"WaveArray({self._storage.tolist()!r}, dtype={self._dtype!r})"


def array(data, dtype="f32") -> WaveArray:
    """A WaveArray holding a copy of `data` converted to `dtype`; nested lists give a shaped array.

    Args:
        data: a sequence of numbers, nested lists (2-D or 3-D), or a NumPy array.
        dtype: "f16", "f32", "f64", "i32", "u32" (or ``wave_gpu.f32`` and friends, or a NumPy
            dtype or scalar type).

    Raises:
        ValueError: an unknown ``dtype``, ragged nested lists, an element that is not a number,
            or an integer out of the dtype's range.
    """
    name = dtype_name(dtype)
    if _shaped.is_nested(data):
        return WaveArray(_shaped.convert_nested(data, name, _convert), name)
    return WaveArray(_convert(data, name), name)


def _count(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n: expected an int, got {type(n).__name__}")
    if n < 0:
        raise ValueError(f"n: must not be negative, got {n}")
    return int(n)


def zeros(n, dtype="f32") -> WaveArray:
    """A WaveArray of n zeros; n may be a shape such as (m, n).

    Args:
        n: the number of elements, or a shape of two or three dimensions.
        dtype: as for :func:`array`.

    Raises:
        TypeError: ``n`` is not an int or a tuple of ints.
        ValueError: ``n`` is negative or ``dtype`` is unknown.
    """
    name = dtype_name(dtype)
    shape = _shaped.shape_argument(n) if isinstance(n, (tuple, list)) else _count(n)
    return WaveArray(np.zeros(shape, dtype=NUMPY_DTYPES[name]), name)


def ones(n, dtype="f32") -> WaveArray:
    """A WaveArray of n ones; n may be a shape such as (m, n).

    Args:
        n: the number of elements, or a shape of two or three dimensions.
        dtype: as for :func:`array`.

    Raises:
        TypeError: ``n`` is not an int or a tuple of ints.
        ValueError: ``n`` is negative or ``dtype`` is unknown.
    """
    name = dtype_name(dtype)
    shape = _shaped.shape_argument(n) if isinstance(n, (tuple, list)) else _count(n)
    return WaveArray(np.ones(shape, dtype=NUMPY_DTYPES[name]), name)


__all__ = ["WaveArray", "array", "zeros", "ones", "ARRAY_DTYPES", "DType"]
