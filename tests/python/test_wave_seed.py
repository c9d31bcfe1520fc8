"""The examples of the wave_gpu seed, verbatim, and its API: arrays, types, device, intrinsics."""

import numpy as np
import pytest

from wave_support import DEVICES, select_device

import wave_gpu
from wave_gpu import thread_id


@pytest.fixture(autouse=True, params=DEVICES)
def on_device(request, monkeypatch):
    """Every test runs on the emulator and on Vulkan, where each call is checked against the emulator."""
    yield from select_device(request, monkeypatch)


@wave_gpu.kernel
def vector_add(a: wave_gpu.f32[:], b: wave_gpu.f32[:], out: wave_gpu.f32[:]):
    tid = thread_id()
    out[tid] = a[tid] + b[tid]


def test_seed_vector_add_on_the_emulator():
    a = wave_gpu.array([1.0, 2.0, 3.0, 4.0])
    b = wave_gpu.array([5.0, 6.0, 7.0, 8.0])
    out = wave_gpu.zeros(4)

    vector_add(a, b, out, grid=(1, 1, 1), workgroup=(4, 1, 1))
    assert out.to_list() == [6.0, 8.0, 10.0, 12.0]


def test_seed_vector_add_with_the_inferred_launch():
    a = wave_gpu.array([1.0, 2.0, 3.0, 4.0])
    b = wave_gpu.array([5.0, 6.0, 7.0, 8.0])
    out = wave_gpu.zeros(4)
    vector_add(a, b, out)
    assert out.to_list() == [6.0, 8.0, 10.0, 12.0]


def test_seed_array_examples():
    a = wave_gpu.array([1.0, 2.0, 3.0])
    b = wave_gpu.array([1, 2, 3, 4], dtype="u32")
    assert a.to_list() == [1.0, 2.0, 3.0]
    assert a.dtype == "f32" and b.dtype == "u32"
    assert b.to_list() == [1, 2, 3, 4]
    assert len(wave_gpu.zeros(128)) == 128
    assert wave_gpu.array([10.0, 20.0, 30.0])[1] == 20.0
    assert wave_gpu.zeros(1024).to_list() == [0.0] * 1024
    assert wave_gpu.zeros(256, dtype="i32").dtype == "i32"
    ones = wave_gpu.ones(512, dtype="f64")
    assert ones.dtype == "f64" and ones.to_list() == [1.0] * 512


def test_indexing_and_slicing_follow_python_lists():
    values = [10.0, 20.0, 30.0, 40.0, 50.0]
    a = wave_gpu.array(values)
    for index in range(-5, 5):
        assert a[index] == values[index]
    for s in (slice(1, 3), slice(None, None, -1), slice(-2, None), slice(0, 5, 2), slice(10, 20)):
        assert a[s] == values[s]
    with pytest.raises(IndexError):
        a[5]
    with pytest.raises(IndexError):
        a[-6]
    assert a.data == values


def test_storage_is_typed():
    u = wave_gpu.array([1, 2, 4294967295], dtype="u32")
    assert np.asarray(u).dtype == np.uint32 and u[2] == 4294967295
    h = wave_gpu.array([0.1, 65504.0], dtype="f16")
    assert np.asarray(h).dtype == np.float16
    assert h[0] == float(np.float16(0.1)) and h[1] == 65504.0
    f = wave_gpu.array([0.1])
    assert f[0] == float(np.float32(0.1))
    i = wave_gpu.array([-5, 7], dtype="i32")
    assert i.to_list() == [-5, 7] and np.asarray(i).dtype == np.int32
    with pytest.raises(ValueError, match="data"):
        wave_gpu.array([-1], dtype="u32")
    with pytest.raises(ValueError, match="data"):
        wave_gpu.array([1.5], dtype="i32")


def test_unknown_dtype_names_the_allowed_ones():
    for factory in (lambda: wave_gpu.array([1.0], dtype="f8"), lambda: wave_gpu.zeros(3, dtype="int"),
                    lambda: wave_gpu.ones(3, dtype="float32")):
        with pytest.raises(ValueError) as error:
            factory()
        message = str(error.value)
        assert message.startswith("dtype:")
        for allowed in ("f16", "f32", "f64", "i32", "u32"):
            assert repr(allowed) in message


def test_types_are_annotations_and_dtype_values():
    for name in ("f16", "f32", "f64", "i32", "u32"):
        dtype = getattr(wave_gpu, name)
        assert wave_gpu.zeros(2, dtype=dtype).dtype == name
        assert repr(dtype[:]) == f"wave_gpu.{name}[:]"


def test_numpy_views_without_copy():
    a = wave_gpu.array([1.0, 2.0, 3.0])
    view = np.asarray(a)
    view[0] = 42.0
    assert a[0] == 42.0
    assert np.shares_memory(np.asarray(a), view)


def test_unknown_device_names_are_rejected():
    with pytest.raises(ValueError, match="'emulator'"):
        wave_gpu.set_device("tpu")
    with pytest.raises(ValueError, match="device"):
        vector_add(wave_gpu.ones(4), wave_gpu.ones(4), wave_gpu.zeros(4), device="cuda")


@pytest.mark.parametrize("name", ["thread_id", "workgroup_id", "lane_id", "wave_width", "barrier", "local_id",
                                  "workgroup_size", "num_workgroups", "wave_sum", "atomic_add"])
def test_intrinsics_outside_a_kernel_raise(name):
    function = getattr(wave_gpu, name)
    arguments = {"wave_sum": (1,), "atomic_add": (None, 0, 1)}.get(name, ())
    with pytest.raises(RuntimeError, match="inside a @wave_gpu.kernel"):
        function(*arguments)


def test_intrinsics_inside_a_kernel():
    @wave_gpu.kernel
    def geometry(out: wave_gpu.i32[:]):
        t = wave_gpu.thread_id()
        out[4 * t] = wave_gpu.workgroup_id()
        out[4 * t + 1] = wave_gpu.lane_id()
        out[4 * t + 2] = wave_gpu.wave_width()
        out[4 * t + 3] = wave_gpu.local_id()

    out = np.zeros(4 * 96, np.int32)
    device = wave_gpu.device()
    width = 16 if device.vendor == "emulator" else device.wave_width  # a GPU has one wave width
    geometry(out, grid=(2, 1, 1), workgroup=(48, 1, 1), wave_width=width)
    t = np.arange(96)
    expected = np.stack([t // 48, (t % 48) % width, np.full(96, width), t % 48], axis=1).reshape(-1)
    np.testing.assert_array_equal(out, expected)


def test_item_and_slice_assignment_convert_to_the_dtype():
    a = wave_gpu.zeros(4, dtype="i32")
    a[1] = 7
    a[-1] = -3
    a[0:2] = [5, 6]
    assert a.to_list() == [5, 6, 0, -3]
    with pytest.raises(ValueError, match="data"):
        a[2] = 2.5
    with pytest.raises(ValueError, match="length"):
        a[0:2] = [1, 2, 3]
    with pytest.raises(TypeError, match="index"):
        a["x"]
    assert wave_gpu.f32(0.1) == float(np.float32(0.1)) and wave_gpu.u32(-1) == 4294967295
