"""Element types of wave_gpu: `wave_gpu.f32` is a dtype value, a scalar annotation, a cast inside
kernels (`wave_gpu.u32(x)`), and `wave_gpu.f32[:]` is a buffer annotation."""

from __future__ import annotations

import numpy as np

# The dtypes a WaveArray can hold (the seed's five).
ARRAY_DTYPES = ("f16", "f32", "f64", "i32", "u32")
# Element types kernels accept for NumPy buffers (64-bit integers too).
BUFFER_DTYPES = ARRAY_DTYPES + ("i64", "u64")

NUMPY_DTYPES = {
    "f16": np.dtype(np.float16), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
    "i32": np.dtype(np.int32), "u32": np.dtype(np.uint32), "i64": np.dtype(np.int64), "u64": np.dtype(np.uint64),
}
_FROM_NUMPY = {dtype: name for name, dtype in NUMPY_DTYPES.items()}


class DType:
    """One element type. Indexing with a slice gives the buffer annotation: `f32[:]`.

    ``f32[:, :]`` and ``f32[:, :, :]`` annotate 2-D and 3-D arrays; any other index is a
    ``TypeError``. Called, it converts a number as a kernel would (``wave_gpu.u32(-1)`` is
    4294967295).
    """

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __getitem__(self, item) -> "ArrayType":
        if isinstance(item, tuple) and 2 <= len(item) <= 3 and all(part == slice(None) for part in item):
            return ArrayType(self, len(item))  # f32[:, :] and f32[:, :, :]
        if item != slice(None):
            raise TypeError(f"buffer annotations are written {self.name}[:], {self.name}[:, :] or "
                            f"{self.name}[:, :, :]")
        return ArrayType(self)

    def __call__(self, value):
        """Outside kernels the same conversion as inside: floats round to the type, integers
        truncate toward zero and wrap to the type's width."""
        if self.name == "bool":
            return bool(value)
        dtype = NUMPY_DTYPES[self.name]
        if dtype.kind == "f":
            return dtype.type(float(value)).item()
        bits = dtype.itemsize * 8
        wrapped = int(value) % (1 << bits)
        return wrapped - (1 << bits) if dtype.kind == "i" and wrapped >= 1 << (bits - 1) else wrapped

    def __repr__(self) -> str:
        return f"wave_gpu.{self.name}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            return other == self.name
        return isinstance(other, DType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class ArrayType:
    """The annotation of a buffer parameter, `wave_gpu.f32[:]` (ndim 1), `f32[:, :]` or `f32[:, :, :]`."""

    __slots__ = ("dtype", "ndim")

    def __init__(self, dtype: DType, ndim: int = 1):
        self.dtype = dtype
        self.ndim = ndim

    def __repr__(self) -> str:
        return f"wave_gpu.{self.dtype.name}[{', '.join([':'] * self.ndim)}]"

    def __eq__(self, other) -> bool:
        return isinstance(other, ArrayType) and other.dtype == self.dtype and other.ndim == self.ndim

    def __hash__(self) -> int:
        return hash(("array", self.dtype.name, self.ndim))


f16 = DType("f16")
f32 = DType("f32")
f64 = DType("f64")
i32 = DType("i32")
u32 = DType("u32")
i64 = DType("i64")
u64 = DType("u64")
boolean = DType("bool")

BY_NAME = {t.name: t for t in (f16, f32, f64, i32, u32, i64, u64, boolean)}


def dtype_name(dtype, argument: str = "dtype", allowed=ARRAY_DTYPES) -> str:
    """The name of a dtype given as a DType, its name ("f32"), or a NumPy dtype or scalar type
    (`numpy.dtype("float64")`, `numpy.float32`); ValueError naming the allowed ones otherwise."""
    name = dtype.name if isinstance(dtype, DType) else dtype
    if not (isinstance(name, str) and name in BY_NAME):
        name = _numpy_dtype_name(dtype)
    if name is None or name not in allowed:
        numpy_names = ", ".join(NUMPY_DTYPES[a].name for a in allowed)
        raise ValueError(f"{argument}: unsupported dtype {dtype!r}; allowed: {', '.join(repr(a) for a in allowed)} "
                         f"(or wave_gpu.f32 and friends, or the NumPy dtypes {numpy_names})")
    return name


def _numpy_dtype_name(dtype):
    """The wave_gpu name of a NumPy dtype or scalar type; None for anything else (strings name
    wave_gpu types only, "f16" is not NumPy's "f16", and Python's float and int are not taken
    as NumPy's float64 and int64)."""
    if isinstance(dtype, np.dtype) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        return name_of_numpy(dtype)
    return None


def name_of_numpy(dtype: np.dtype):
    """The wave_gpu name of a NumPy dtype, or None when kernels cannot use it."""
    return _FROM_NUMPY.get(np.dtype(dtype).newbyteorder("=") if np.dtype(dtype).byteorder == ">" else np.dtype(dtype))
