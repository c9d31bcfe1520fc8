"""The array rules of the CPU build: NumPy arrays, C-contiguous, 3-D, shaped like the pencil,
native byte order, one of the four element types; outputs writable. Every check names the
argument and runs before any communication."""

from __future__ import annotations

import numpy as np

from cudecomp import _native
from cudecomp._cuda_arrays import NUMPY_REJECTED
from cudecomp._native import DataType

DTYPE_OF_NUMPY = {
    np.dtype(np.float32): DataType.FLOAT,
    np.dtype(np.float64): DataType.DOUBLE,
    np.dtype(np.complex64): DataType.FLOAT_COMPLEX,
    np.dtype(np.complex128): DataType.DOUBLE_COMPLEX,
}
NUMPY_OF_DTYPE = {value: key for key, value in DTYPE_OF_NUMPY.items()}


def check_dtype_argument(dtype) -> DataType | None:
    if dtype is None or isinstance(dtype, DataType):
        return dtype
    raise TypeError(f"dtype: expected a cudecomp.DataType member or None, got {dtype!r} "
                    "(NumPy dtypes, scalar types and strings are not accepted)")


def check_stream(stream) -> None:
    """Streams are accepted as cuDecomp documents them and ignored: host operations are synchronous."""
    if stream is None or isinstance(stream, (int, np.integer)) and not isinstance(stream, bool):
        return
    if hasattr(stream, "__cuda_stream__") or isinstance(getattr(stream, "ptr", None), int):
        return
    raise TypeError(f"stream: expected None, an int handle or a CUDA stream object, got {type(stream).__name__}")


def data_type_of(name: str, array) -> DataType:
    # Read at call time: the build decides which arrays are accepted (tests switch it).
    if _native.has_cuda and isinstance(array, np.ndarray):
        raise TypeError(f"{name}: {NUMPY_REJECTED}; pass an array exposing __cuda_array_interface__ (e.g. CuPy)")
    if not isinstance(array, np.ndarray):
        if hasattr(array, "__cuda_array_interface__"):
            raise TypeError(f"{name}: this is the CPU-only build of cudecomp; pass NumPy host arrays, "
                            "not CUDA arrays")
        raise TypeError(f"{name}: expected a numpy.ndarray, got {type(array).__name__}")
    if array.dtype.byteorder == ">" or (array.dtype.byteorder == "=" and not array.dtype.isnative):
        raise ValueError(f"{name}: big-endian data is not supported")
    dtype = DTYPE_OF_NUMPY.get(array.dtype.newbyteorder("="))
    if dtype is None or not array.dtype.isnative:
        raise TypeError(f"{name}: unsupported dtype {array.dtype}; use float32, float64, complex64 or complex128")
    return dtype


def check_array(name: str, array, shape: tuple, dtype: DataType, writable: bool) -> None:
    have = data_type_of(name, array)
    if have != dtype:
        raise TypeError(f"{name}: dtype {array.dtype} does not match the operation's {dtype.name} "
                        "(no conversion is done)")
    if array.ndim != 3:
        raise ValueError(f"{name}: expected a 3-D array of shape {shape}, got {array.ndim}-D")
    if not array.flags.c_contiguous:
        raise ValueError(f"{name}: array must be C-contiguous")
    if not array.flags.aligned:
        raise ValueError(f"{name}: array must be aligned")
    if tuple(array.shape) != tuple(shape):
        raise ValueError(f"{name}: shape {tuple(array.shape)} does not match the pencil's array_shape {tuple(shape)}")
    if writable and not array.flags.writeable:
        raise ValueError(f"{name}: array must be writable")


def check_work(name: str, work, dtype: DataType, elements: int) -> None:
    have = data_type_of(name, work)
    if have != dtype:
        raise TypeError(f"{name}: dtype {work.dtype} does not match the operation's {dtype.name}")
    if not work.flags.c_contiguous:
        raise ValueError(f"{name}: array must be C-contiguous")
    if not work.flags.writeable:
        raise ValueError(f"{name}: array must be writable")
    if work.size < elements:
        raise ValueError(f"{name}: holds {work.size} elements, the operation needs {elements}")
