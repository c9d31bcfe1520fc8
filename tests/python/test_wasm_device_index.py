"""Module.spawn(device=INDEX): a Vulkan device by its index, as wave_gpu names devices (two GPUs of
one model share a name; wasmgpu.mpi gives each rank of a machine its own GPU this way)."""

import pytest

import wasmgpu
from wasmgpu import _native

wasmtime = pytest.importorskip("wasmtime", reason="wasmtime.wat2wasm assembles the test module")

ADD = wasmtime.wat2wasm('(module (func (export "add") (param i32 i32) (result i32) '
                        '(i32.add (local.get 0) (local.get 1))))')


def test_a_bool_or_another_type_is_a_type_error_naming_device():
    module = wasmgpu.Module(ADD)
    for device in (True, 1.5, ["cpu"]):
        with pytest.raises(TypeError, match="^device: expected None, 'cpu', 'gpu', a device name or a Vulkan"):
            module.spawn(1, device=device)


def test_an_index_no_device_has_is_refused_with_the_indices():
    module = wasmgpu.Module(ADD)
    indices = [d["index"] for d in _native.list_devices()]
    missing = max(indices, default=-1) + 7
    with pytest.raises(wasmgpu.GPUUnavailableError, match=f"^device: no Vulkan device has index {missing}"):
        module.spawn(1, device=missing)


def test_an_index_runs_on_that_device_and_software_needs_permission(monkeypatch):
    devices = _native.list_devices()
    if not devices:
        pytest.skip("no Vulkan device (not even lavapipe) on this machine")
    monkeypatch.delenv("WAVESTACK_ALLOW_SOFTWARE_GPU", raising=False)
    device = devices[-1]
    module = wasmgpu.Module(ADD, execution="interpreter")
    if device["is_software"]:
        with pytest.raises(wasmgpu.GPUUnavailableError, match="is a software adapter"):
            module.spawn(2, device=device["index"])
    with module.spawn(2, device=device["index"], allow_software=True) as instances:
        assert instances.device == device["name"]
        assert instances.call("add", [(1, 2), (40, 2)]) == [3, 42]
