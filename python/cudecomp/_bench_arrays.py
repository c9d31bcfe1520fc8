"""The benchmark's buffers on either side: NumPy host arrays or CuPy arrays on the current device.

Host buffers are what the NumPy build measures. The GPU build refuses NumPy arrays, so there
its host buffers are passed as HostMemory views (the CUDA array interface over NumPy memory):
the native layer runs an operation where its input lives, so they take the same host path, and
one GPU-build run can time both sides. CuPy is imported only for GPU buffers."""

from __future__ import annotations

import numpy as np

from cudecomp import _native

DEVICES = ("host", "gpu")


class HostMemory:
    """A NumPy array's memory through ``__cuda_array_interface__`` (version 3), for GPU builds."""

    def __init__(self, array: np.ndarray):
        self.array = array
        self.__cuda_array_interface__ = {"version": 3, "shape": array.shape, "typestr": array.dtype.str,
                                         "data": (array.ctypes.data, False), "strides": None}


def check_device(device: str) -> None:
    """Raises RuntimeError where this build cannot run ``device`` buffers (before any MPI work)."""
    if device not in DEVICES:
        raise ValueError(f"device: expected one of {DEVICES}, got {device!r}")
    if device == "gpu":
        if not _native.has_cuda:
            raise RuntimeError("--device gpu: this is the NumPy build of cudecomp (version ending in +cpu); "
                               "GPU arrays need the CUDA build with WAVESTACK_CUDECOMP_PYTHON_GPU on")
        try:
            import cupy  # noqa: F401, PLC0415 -- GPU buffers only
        except ImportError as error:
            raise RuntimeError("--device gpu: the GPU buffers are CuPy arrays, and CuPy is not installed") from error


def zeros(device: str, elements: int, numpy_dtype):
    """A flat zeroed buffer of ``elements`` on ``device``."""
    if device == "gpu":
        import cupy  # noqa: PLC0415

        return cupy.zeros(elements, dtype=numpy_dtype)
    return np.zeros(elements, dtype=numpy_dtype)


def operand(device: str, array):
    """What the API is given for a buffer (or a shaped view of one)."""
    if device == "host" and _native.has_cuda:
        return HostMemory(array)
    return array


def synchronize(device: str) -> None:
    """Waits for the device's work (NCCL operations return before they finish), so times are whole."""
    if device == "gpu":
        import cupy  # noqa: PLC0415

        cupy.cuda.Device().synchronize()
