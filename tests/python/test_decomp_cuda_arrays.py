"""cudecomp's GPU-build array and stream rules (python/cudecomp/_cuda_arrays.py), checked on the
CPU with small fake objects that expose the CUDA array interface and the CUDA stream protocol.
No pointer is ever dereferenced, so no GPU is needed."""

import sys
import types

import numpy as np
import pytest

from cudecomp import DataType, _native
from cudecomp import _arrays, _cuda_arrays
from cudecomp._cuda_arrays import (allocate_output, check_cuda_array, parse_cuda_array, resolve_dtype,
                                   stream_handle)

NATIVE = "<" if sys.byteorder == "little" else ">"
FOREIGN = ">" if NATIVE == "<" else "<"


class FakeArray:
    """An object exposing only __cuda_array_interface__, like a minimal array provider."""

    def __init__(self, **interface):
        self.__cuda_array_interface__ = interface


def interface(version=3, shape=(2, 3, 4), typestr=NATIVE + "f8", ptr=0x7F0000001000, readonly=False, **extra):
    fields = {"version": version, "shape": shape, "typestr": typestr, "data": (ptr, readonly)}
    fields.update(extra)
    return fields


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_every_interface_version_parses(version):
    array = parse_cuda_array("input", FakeArray(**interface(version=version)))
    assert array.version == version
    assert array.shape == (2, 3, 4)
    assert array.ptr == 0x7F0000001000
    assert array.dtype == DataType.DOUBLE
    assert array.itemsize == 8
    assert array.c_contiguous and array.size == 24


@pytest.mark.parametrize("code, dtype, size", [("f4", DataType.FLOAT, 4), ("f8", DataType.DOUBLE, 8),
                                               ("c8", DataType.FLOAT_COMPLEX, 8),
                                               ("c16", DataType.DOUBLE_COMPLEX, 16)])
def test_typestr_maps_to_the_four_types_and_matches_numpy(code, dtype, size):
    array = parse_cuda_array("input", FakeArray(**interface(typestr=NATIVE + code)))
    assert array.dtype == dtype and array.itemsize == size
    # NumPy's own array interface gives the same type string for the corresponding dtype.
    numpy_name = _cuda_arrays.NUMPY_NAME_OF_DTYPE[dtype]
    assert np.zeros(1, numpy_name).__array_interface__["typestr"] == NATIVE + code


def test_interface_errors_name_the_argument():
    cases = [
        (object(), TypeError, "out: expected an array exposing __cuda_array_interface__"),
        (FakeArray(**interface(version=4)), ValueError, "version 4 is not supported"),
        (FakeArray(shape=(1, 1, 1), typestr="<f8", data=(16, False)), ValueError, "lacks the required key 'version'"),
        (FakeArray(**interface(typestr=FOREIGN + "f8")), ValueError, "big-endian data is not supported"),
        (FakeArray(**interface(typestr=NATIVE + "i4")), TypeError, "unsupported typestr"),
        (FakeArray(**interface(mask=object())), ValueError, "validity mask"),
        (FakeArray(**interface(ptr=0)), ValueError, "null data pointer"),
        (FakeArray(**interface(strides=(8, 8))), ValueError, "['strides'] has 2 entries"),
        (FakeArray(**interface(shape=[2, 3, 4])), TypeError, "['shape'] must be a tuple of ints"),
        (FakeArray(**interface(offset=-8)), ValueError, "['offset'] must be a non-negative int"),
        (np.zeros((2, 3, 4)), TypeError, "NumPy host arrays are not accepted by GPU builds"),
    ]
    for obj, error, text in cases:
        with pytest.raises(error, match="^out: ") as caught:
            parse_cuda_array("out", obj)
        assert text in str(caught.value)
    bad_data = FakeArray(**interface())
    bad_data.__cuda_array_interface__["data"] = (16, 0)  # readonly must be a bool
    with pytest.raises(TypeError, match=r"^out: __cuda_array_interface__\['data'\] must be"):
        parse_cuda_array("out", bad_data)


def test_strides_offset_and_empty_arrays():
    # Explicit C-contiguous strides, and strides on extent-1 axes, count as contiguous.
    assert parse_cuda_array("a", FakeArray(**interface(strides=(96, 32, 8)))).c_contiguous
    assert parse_cuda_array("a", FakeArray(**interface(shape=(1, 3, 4), strides=(999, 32, 8)))).c_contiguous
    assert not parse_cuda_array("a", FakeArray(**interface(strides=(8, 16, 48)))).c_contiguous
    assert parse_cuda_array("a", FakeArray(**interface(strides=None))).c_contiguous
    # A version 0/1 byte offset is added to the data pointer.
    assert parse_cuda_array("a", FakeArray(**interface(version=1, offset=64))).ptr == 0x7F0000001000 + 64
    # An empty array may have a null pointer.
    assert parse_cuda_array("a", FakeArray(**interface(shape=(0, 3, 4), ptr=0))).size == 0
    # Opaque storage: single-byte order marks are fine; the element type comes from dtype=.
    opaque = parse_cuda_array("a", FakeArray(**interface(typestr="|V16")))
    assert opaque.dtype is None and opaque.itemsize == 16


def test_dtype_resolution():
    double = parse_cuda_array("input", FakeArray(**interface()))
    assert resolve_dtype(double, None) == DataType.DOUBLE
    assert resolve_dtype(double, DataType.DOUBLE) == DataType.DOUBLE
    with pytest.raises(TypeError, match="^input: dtype float64 does not match the operation's FLOAT"):
        resolve_dtype(double, DataType.FLOAT)
    opaque = parse_cuda_array("input", FakeArray(**interface(typestr="|V8")))
    with pytest.raises(TypeError, match="^input: opaque storage .* requires an explicit dtype"):
        resolve_dtype(opaque, None)
    assert resolve_dtype(opaque, DataType.FLOAT_COMPLEX) == DataType.FLOAT_COMPLEX
    with pytest.raises(TypeError, match="element size 8 of opaque storage does not match DOUBLE_COMPLEX"):
        resolve_dtype(opaque, DataType.DOUBLE_COMPLEX)


def test_operand_checks():
    good = parse_cuda_array("out", FakeArray(**interface()))
    check_cuda_array(good, (2, 3, 4), DataType.DOUBLE, writable=True)
    failures = [
        (interface(), (2, 3, 5), "shape (2, 3, 4) does not match the pencil's array_shape (2, 3, 5)"),
        (interface(shape=(24,)), (24,), "expected a 3-D array"),
        (interface(strides=(8, 16, 48)), (2, 3, 4), "must be C-contiguous"),
        (interface(readonly=True), (2, 3, 4), "must be writable"),
        (interface(ptr=0x1004), (2, 3, 4), "is not aligned to 8 bytes"),
    ]
    for fields, shape, text in failures:
        with pytest.raises(ValueError, match="^out: ") as caught:
            check_cuda_array(parse_cuda_array("out", FakeArray(**fields)), shape, DataType.DOUBLE, writable=True)
        assert text in str(caught.value)
    # Read-only is fine for an input that is only read.
    check_cuda_array(parse_cuda_array("input", FakeArray(**interface(readonly=True))), (2, 3, 4),
                     DataType.DOUBLE, writable=False)


class ProtocolStream:
    def __init__(self, value):
        self.value = value

    def __cuda_stream__(self):
        return self.value


class PtrStream:
    def __init__(self, ptr):
        self.ptr = ptr


def test_stream_arguments():
    assert stream_handle(None) == 0
    assert stream_handle(None, FakeArray(**interface())) == 0  # not CuPy: the default stream
    assert stream_handle(0x1234) == 0x1234
    assert stream_handle(np.int64(77)) == 77
    assert stream_handle(ProtocolStream((0, 0xBEEF))) == 0xBEEF
    assert stream_handle(PtrStream(0x42)) == 0x42
    legacy = types.SimpleNamespace(__cuda_stream__=(0, 9))  # early cuda.core: a property
    assert stream_handle(legacy) == 9
    for bad, error, text in [(True, TypeError, "got bool"), (-1, ValueError, "non-negative"),
                             (ProtocolStream((0,)), TypeError, "must return (version: int, handle: int)"),
                             (ProtocolStream((1, 5)), ValueError, "version 1 is not supported"),
                             (PtrStream("0x1"), TypeError, "got PtrStream"), ("0", TypeError, "got str")]:
        with pytest.raises(error, match="^stream: ") as caught:
            stream_handle(bad)
        assert text in str(caught.value)


def fake_cupy(monkeypatch, current_stream=0x5150):
    """A stand-in CuPy module: the current stream, ExternalStream and empty record their use."""
    calls = []

    class ExternalStream:
        def __init__(self, ptr):
            self.ptr = ptr

        def __enter__(self):
            calls.append(("stream", self.ptr))

        def __exit__(self, *exc):
            calls.append(("exit", self.ptr))

    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(get_current_stream=lambda: PtrStream(current_stream),
                                      ExternalStream=ExternalStream)
    cupy.empty = lambda shape, dtype: calls.append(("empty", shape, dtype)) or ("allocated", shape, dtype)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    return calls


class CupyLikeArray(FakeArray):
    pass


CupyLikeArray.__module__ = "cupy._core.core"


def test_cupy_inputs_use_cupys_current_stream_and_pool(monkeypatch):
    calls = fake_cupy(monkeypatch)
    cupy_input = CupyLikeArray(**interface())
    assert stream_handle(None, cupy_input) == 0x5150
    assert stream_handle(7, cupy_input) == 7  # an explicit stream wins
    result = allocate_output(cupy_input, (4, 3, 2), DataType.FLOAT_COMPLEX, 0x99)
    assert result == ("allocated", (4, 3, 2), "complex64")
    assert calls == [("stream", 0x99), ("empty", (4, 3, 2), "complex64"), ("exit", 0x99)]


def test_output_allocation_needs_a_cupy_input_and_cupy(monkeypatch):
    with pytest.raises(TypeError, match="^out: omitted.*requires a CuPy input"):
        allocate_output(FakeArray(**interface()), (2, 3, 4), DataType.DOUBLE, 0)
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    with pytest.raises(RuntimeError, match="^out: omitted, and allocating the output needs CuPy"):
        allocate_output(CupyLikeArray(**interface()), (2, 3, 4), DataType.DOUBLE, 0)


def test_build_decides_which_arrays_are_accepted(monkeypatch):
    if not _native.has_cuda:
        # The host build: NumPy accepted, CUDA arrays refused (existing rule).
        assert _native.__version__.endswith("+cpu")
        assert _arrays.data_type_of("input", np.zeros((1, 1, 1))) == DataType.DOUBLE
        with pytest.raises(TypeError, match="^input: this is the CPU-only build"):
            _arrays.data_type_of("input", FakeArray(**interface()))
        monkeypatch.setattr(_native, "has_cuda", True)  # what the Python GPU build (below) does
    # A GPU build refuses NumPy arrays with the seed's sentence.
    with pytest.raises(TypeError, match="^input: NumPy host arrays are not accepted by GPU builds"):
        _arrays.data_type_of("input", np.zeros((1, 1, 1)))
