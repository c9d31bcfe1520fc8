"""Device query and selection: device(), devices(), set_device(), WAVE_GPU_DEVICE and
device=, software adapters only when allowed, and requests that cannot be met raising."""

import numpy as np
import pytest

import wave_gpu
from wave_gpu import _device, _native, thread_id


@wave_gpu.kernel
def vector_add(a: wave_gpu.f32[:], b: wave_gpu.f32[:], out: wave_gpu.f32[:]):
    tid = thread_id()
    out[tid] = a[tid] + b[tid]


@pytest.fixture(autouse=True)
def automatic(monkeypatch):
    wave_gpu.set_device(None)
    monkeypatch.delenv("WAVE_GPU_DEVICE", raising=False)
    _device._detect_gpu.cache_clear()
    yield
    wave_gpu.set_device(None)


def test_device_falls_back_to_the_emulator_when_asked_or_no_gpu(monkeypatch):
    wave_gpu.set_device("emulator")
    assert wave_gpu.device() == _device.EMULATOR
    assert (wave_gpu.device().vendor, wave_gpu.device().name) == ("emulator", "WAVE emulator")
    wave_gpu.set_device(None)
    monkeypatch.setattr(_device, "_detect_gpu", lambda: None)
    assert wave_gpu.device().vendor == "emulator"
    monkeypatch.setattr(_device, "_detect_gpu", lambda: {"vendor": "NVIDIA", "name": "Test GPU"})
    assert wave_gpu.device() == wave_gpu.DeviceInfo("nvidia", "Test GPU")


def test_no_gpu_runs_on_the_emulator_and_a_gpu_request_raises(monkeypatch):
    monkeypatch.setattr(_device, "_detect_gpu", lambda: None)
    a, b, out = wave_gpu.ones(4), wave_gpu.ones(4), wave_gpu.zeros(4)
    vector_add(a, b, out)
    assert out.to_list() == [2.0] * 4 and vector_add.last_timings is None
    with pytest.raises(RuntimeError, match="no usable GPU"):
        vector_add(a, b, out, device="gpu")
    monkeypatch.setenv("WAVE_GPU_DEVICE", "emulator")
    vector_add(a, out, out, device=None)
    assert out.to_list() == [3.0] * 4


def test_unknown_names_and_indices_are_rejected_before_any_work():
    a, b, out = wave_gpu.ones(4), wave_gpu.ones(4), wave_gpu.zeros(4)
    with pytest.raises(ValueError, match="'emulator'"):
        wave_gpu.set_device("tpu")
    with pytest.raises(ValueError, match="index 99"):
        wave_gpu.set_device(99)
    with pytest.raises(TypeError, match="name"):
        wave_gpu.set_device(1.5)
    with pytest.raises(ValueError, match="device"):
        vector_add(a, b, out, device="cuda")
    assert out.to_list() == [0.0] * 4


def test_devices_lists_every_vulkan_device_and_the_emulator():
    listed = wave_gpu.devices()
    assert listed[-1] == _device.EMULATOR
    native = _native.list_devices()
    assert [d.name for d in listed[:-1]] == [d["name"] for d in native]
    assert [d.software for d in listed[:-1]] == [d["is_software"] for d in native]
    assert [d.index for d in listed[:-1]] == [d["index"] for d in native]


def test_the_seed_vector_add_runs_on_the_detected_vulkan_device(vulkan_device):
    # No NotImplementedError: the detected GPU runs the seed's example.
    assert wave_gpu.device().name == vulkan_device["name"]
    assert wave_gpu.device().wave_width == vulkan_device["subgroup_size"]
    a = wave_gpu.array([1.0, 2.0, 3.0, 4.0])
    b = wave_gpu.array([5.0, 6.0, 7.0, 8.0])
    out = wave_gpu.zeros(4)
    vector_add(a, b, out, grid=(1, 1, 1), workgroup=(4, 1, 1))
    assert out.to_list() == [6.0, 8.0, 10.0, 12.0]
    assert vector_add.last_timings["dispatch_ms"] > 0


@pytest.mark.parametrize("how", ["index", "digits", "name", "vendor", "environment", "call"])
def test_a_device_is_picked_by_name_or_index(vulkan_device, monkeypatch, how):
    index = vulkan_device["index"]
    spec = {"index": index, "digits": str(index), "name": vulkan_device["name"],
            "vendor": vulkan_device["vendor"].upper(), "environment": str(index), "call": None}[how]
    out = wave_gpu.zeros(8)
    if how == "environment":
        monkeypatch.setenv("WAVE_GPU_DEVICE", spec)
    elif how != "call":
        wave_gpu.set_device(spec)
    assert wave_gpu.device().index == index
    vector_add(wave_gpu.ones(8), wave_gpu.ones(8), out, device=index if how == "call" else None)
    assert out.to_list() == [2.0] * 8 and vector_add.last_timings is not None


def test_a_software_adapter_needs_permission(vulkan_device, monkeypatch):
    if not vulkan_device["is_software"]:
        pytest.skip(f"{vulkan_device['name']} is a hardware GPU")
    monkeypatch.setattr(_native, "software_gpu_allowed_by_environment", lambda: False)
    monkeypatch.setattr(_device, "_detect_gpu", lambda: None)
    assert wave_gpu.device().vendor == "emulator"  # never chosen implicitly
    out = wave_gpu.zeros(4)
    with pytest.raises(RuntimeError, match="WAVESTACK_ALLOW_SOFTWARE_GPU"):
        vector_add(wave_gpu.ones(4), wave_gpu.ones(4), out, device=vulkan_device["index"])
    assert out.to_list() == [0.0] * 4


def test_wave_width_must_match_the_device(vulkan_device):
    width = vulkan_device["subgroup_size"]
    other = 64 if width != 64 else 32
    with pytest.raises(ValueError, match="wave_width"):
        vector_add(wave_gpu.ones(4), wave_gpu.ones(4), wave_gpu.zeros(4), device=vulkan_device["index"],
                   wave_width=other)
    out = np.zeros(4, np.float32)
    vector_add(np.ones(4, np.float32), np.ones(4, np.float32), out, device=vulkan_device["index"], wave_width=width)
    assert out.tolist() == [2.0] * 4
