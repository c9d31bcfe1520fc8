"""The array and stream rules of the GPU build: objects exposing ``__cuda_array_interface__``
(versions 0 to 3), CUDA stream arguments, and CuPy outputs. Nothing here dereferences a device
pointer or needs a GPU: the interface is read as plain Python data, so every rule is tested on
the CPU with small fake objects. Every check names the argument and runs before any work."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from cudecomp._native import DataType

# CUDA array interface typestr (NumPy array-interface codes) of the four element types.
_DTYPE_OF_CODE = {"f4": DataType.FLOAT, "f8": DataType.DOUBLE, "c8": DataType.FLOAT_COMPLEX,
                  "c16": DataType.DOUBLE_COMPLEX}
ITEMSIZE_OF_DTYPE = {DataType.FLOAT: 4, DataType.DOUBLE: 8, DataType.FLOAT_COMPLEX: 8, DataType.DOUBLE_COMPLEX: 16}
NUMPY_NAME_OF_DTYPE = {DataType.FLOAT: "float32", DataType.DOUBLE: "float64", DataType.FLOAT_COMPLEX: "complex64",
                       DataType.DOUBLE_COMPLEX: "complex128"}
_NATIVE_ORDER = "<" if sys.byteorder == "little" else ">"

NUMPY_REJECTED = "NumPy host arrays are not accepted by GPU builds"


@dataclass(frozen=True)
class CudaArray:
    """What an operation needs of a CUDA array: a device address and a layout."""

    name: str
    ptr: int  # device address of the first element (data pointer plus any offset)
    shape: tuple
    strides: tuple | None  # bytes, None meaning C-contiguous
    typestr: str
    itemsize: int
    readonly: bool
    dtype: DataType | None  # None for opaque storage ("|V8"): the operation's dtype decides
    version: int
    source: object

    @property
    def size(self) -> int:
        count = 1
        for extent in self.shape:
            count *= extent
        return count

    @property
    def c_contiguous(self) -> bool:
        if self.strides is None or self.size == 0:
            return True
        expected = self.itemsize
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            # An axis of extent 1 is never stepped along, so its stride does not matter.
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True


def _is_numpy(obj) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(obj, numpy.ndarray)


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_tuple(name: str, key: str, value, length: int | None = None) -> tuple:
    if not isinstance(value, tuple) or not all(_int(item) for item in value):
        raise TypeError(f"{name}: __cuda_array_interface__['{key}'] must be a tuple of ints, got {value!r}")
    if length is not None and len(value) != length:
        raise ValueError(f"{name}: __cuda_array_interface__['{key}'] has {len(value)} entries, shape has {length}")
    return value


def _parse_typestr(name: str, typestr) -> tuple[int, DataType | None]:
    if not isinstance(typestr, str) or len(typestr) < 3 or typestr[0] not in "<>|=":
        raise TypeError(f"{name}: __cuda_array_interface__['typestr'] must be a NumPy type string, got {typestr!r}")
    order, code = typestr[0], typestr[1:]
    kind, digits = code[0], code[1:]
    if not digits.isdigit() or int(digits) <= 0:
        raise TypeError(f"{name}: __cuda_array_interface__['typestr'] {typestr!r} has no element size")
    itemsize = int(digits)
    if kind == "V":  # opaque storage: bytes whose type the caller names with dtype=
        return itemsize, None
    if order not in ("|", "=", _NATIVE_ORDER) and itemsize > 1:
        raise ValueError(f"{name}: big-endian data is not supported (typestr {typestr!r})")
    dtype = _DTYPE_OF_CODE.get(code)
    if dtype is None:
        raise TypeError(f"{name}: unsupported typestr {typestr!r}; use float32, float64, complex64 or complex128")
    return itemsize, dtype


def parse_cuda_array(name: str, obj) -> CudaArray:
    """Reads ``obj.__cuda_array_interface__``; raises TypeError/ValueError naming ``name``."""
    if _is_numpy(obj):
        raise TypeError(f"{name}: {NUMPY_REJECTED}; pass an array exposing __cuda_array_interface__ (e.g. CuPy)")
    try:
        interface = obj.__cuda_array_interface__
    except AttributeError:
        raise TypeError(f"{name}: expected an array exposing __cuda_array_interface__, "
                        f"got {type(obj).__name__}") from None
    if not isinstance(interface, dict):
        raise TypeError(f"{name}: __cuda_array_interface__ must be a dict, got {type(interface).__name__}")
    for key in ("shape", "typestr", "data", "version"):
        if key not in interface:
            raise ValueError(f"{name}: __cuda_array_interface__ lacks the required key '{key}'")
    version = interface["version"]
    if not _int(version) or not 0 <= version <= 3:
        raise ValueError(f"{name}: __cuda_array_interface__ version {version!r} is not supported (0 to 3 are)")
    shape = _int_tuple(name, "shape", interface["shape"])
    if any(extent < 0 for extent in shape):
        raise ValueError(f"{name}: negative extent in shape {shape}")
    itemsize, dtype = _parse_typestr(name, interface["typestr"])
    data = interface["data"]
    if (not isinstance(data, tuple) or len(data) != 2 or not _int(data[0]) or not isinstance(data[1], bool)):
        raise TypeError(f"{name}: __cuda_array_interface__['data'] must be (pointer: int, readonly: bool), "
                        f"got {data!r}")
    ptr, readonly = data
    # Version 0 and 1 exporters may give a byte offset from the data pointer.
    offset = interface.get("offset", 0)
    if offset is None:
        offset = 0
    if not _int(offset) or offset < 0:
        raise ValueError(f"{name}: __cuda_array_interface__['offset'] must be a non-negative int, got {offset!r}")
    if interface.get("mask") is not None:
        raise ValueError(f"{name}: arrays with a validity mask are not supported (mask must be None)")
    strides = interface.get("strides")
    if strides is not None:
        strides = _int_tuple(name, "strides", strides, len(shape))
    array = CudaArray(name=name, ptr=ptr + offset, shape=shape, strides=strides,
                      typestr=interface["typestr"], itemsize=itemsize, readonly=readonly, dtype=dtype,
                      version=version, source=obj)
    if ptr == 0 and array.size > 0:
        raise ValueError(f"{name}: null data pointer for a non-empty array")
    return array


def resolve_dtype(array: CudaArray, dtype: DataType | None) -> DataType:
    """The operation's dtype: the array's, or the explicit one, which must agree (no conversion)."""
    if array.dtype is None:
        if dtype is None:
            raise TypeError(f"{array.name}: opaque storage (typestr {array.typestr!r}) requires an explicit dtype")
        if ITEMSIZE_OF_DTYPE[dtype] != array.itemsize:
            raise TypeError(f"{array.name}: element size {array.itemsize} of opaque storage does not match "
                            f"{dtype.name} ({ITEMSIZE_OF_DTYPE[dtype]} bytes)")
        return dtype
    if dtype is not None and dtype != array.dtype:
        raise TypeError(f"{array.name}: dtype {NUMPY_NAME_OF_DTYPE[array.dtype]} does not match the operation's "
                        f"{dtype.name} (no conversion is done)")
    return array.dtype


def check_cuda_array(array: CudaArray, shape: tuple, dtype: DataType, writable: bool) -> None:
    """The rules every operand follows: 3-D, C-contiguous, the pencil's shape, the operation's
    dtype, aligned to its element, writable when written."""
    resolve_dtype(array, dtype)
    if len(array.shape) != 3:
        raise ValueError(f"{array.name}: expected a 3-D array of shape {tuple(shape)}, got {len(array.shape)}-D")
    if not array.c_contiguous:
        raise ValueError(f"{array.name}: array must be C-contiguous")
    if array.ptr % array.itemsize != 0:
        raise ValueError(f"{array.name}: device pointer {array.ptr:#x} is not aligned to {array.itemsize} bytes")
    if tuple(array.shape) != tuple(shape):
        raise ValueError(f"{array.name}: shape {tuple(array.shape)} does not match the pencil's array_shape "
                         f"{tuple(shape)}")
    if writable and array.readonly:
        raise ValueError(f"{array.name}: array must be writable (the interface marks it read-only)")


def _is_cupy(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "cupy"


def stream_handle(stream, input_array=None) -> int:
    """The cudaStream_t value of a ``stream=`` argument. None means the current stream of the
    input's package: CuPy's current stream for CuPy inputs (CuPy imported only then), else 0."""
    if stream is None:
        if input_array is not None and _is_cupy(input_array):
            import cupy  # noqa: PLC0415 -- only CuPy inputs need CuPy
            return int(cupy.cuda.get_current_stream().ptr)
        return 0
    if isinstance(stream, bool):
        raise TypeError("stream: expected None, an int handle or a CUDA stream object, got bool")
    if _int(stream) or type(stream).__module__ == "numpy" and hasattr(stream, "__index__"):
        handle = int(stream)
        if handle < 0:
            raise ValueError(f"stream: handle must be non-negative, got {handle}")
        return handle
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        # The CUDA stream protocol: a method returning (version, handle); early cuda.core
        # releases exposed the tuple as a property, which is accepted too.
        value = protocol() if callable(protocol) else protocol
        if (not isinstance(value, tuple) or len(value) != 2 or not _int(value[0]) or not _int(value[1])):
            raise TypeError(f"stream: __cuda_stream__ must return (version: int, handle: int), got {value!r}")
        if value[0] != 0:
            raise ValueError(f"stream: __cuda_stream__ version {value[0]} is not supported (0 is)")
        return value[1]
    ptr = getattr(stream, "ptr", None)
    if _int(ptr):
        return ptr
    raise TypeError(f"stream: expected None, an int handle, an object with __cuda_stream__ or an int 'ptr', "
                    f"got {type(stream).__name__}")


def allocate_output(input_array, shape: tuple, dtype: DataType, stream: int):
    """A CuPy array for an omitted ``out``, from CuPy's memory pool on the operation's stream."""
    if not _is_cupy(input_array):
        raise TypeError("out: omitted, so the output would be a CuPy array, which requires a CuPy input; "
                        f"the input is {type(input_array).__name__}: pass out= (caller-allocated storage)")
    try:
        import cupy  # noqa: PLC0415 -- imported only when an output is allocated
    except ImportError as error:
        raise RuntimeError("out: omitted, and allocating the output needs CuPy, which is not installed") from error
    with cupy.cuda.ExternalStream(stream):
        return cupy.empty(shape, dtype=NUMPY_NAME_OF_DTYPE[dtype])
