"""Shared fixtures of the Python tests."""

import pytest

from device_support import gpu_required, spawn_keywords


@pytest.fixture
def vulkan_device():
    """The device the runtime selects (software adapters as the environment allows), else skip or fail."""
    from wave_gpu import _native

    device = _native.select_device(False)
    if device is None:
        reason = "no usable Vulkan device: " + (_native.vulkan_status()["reason"] or "none reported")
        if gpu_required():
            pytest.fail(reason + " (WAVESTACK_REQUIRE_GPU=1)")
        pytest.skip(reason + "; software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1")
    return device


@pytest.fixture(params=["cpu", "vulkan"])
def target(request):
    """wasmgpu spawn() keywords of the device under test (spawn_keywords)."""
    return spawn_keywords(request.param)
