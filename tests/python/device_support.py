"""Device helpers shared by the Python tests (a module of its own: two conftest.py files
exist under tests/, so `from conftest import ...` would depend on collection order)."""

import os

import pytest


def gpu_required() -> bool:
    """CI sets WAVESTACK_REQUIRE_GPU=1 so that a missing Vulkan device fails instead of skipping."""
    return os.environ.get("WAVESTACK_REQUIRE_GPU") == "1"


def spawn_keywords(device: str) -> dict:
    """wasmgpu spawn() keywords of `device` ("cpu" or "vulkan": the default Vulkan selection,
    software adapters as the environment allows; skip, or fail under WAVESTACK_REQUIRE_GPU=1,
    without one)."""
    if device == "cpu":
        return {"device": "cpu"}
    import wasmgpu

    if wasmgpu._native.select_device(False) is None:
        reason = "no usable Vulkan device (software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)"
        if gpu_required():
            pytest.fail(reason + " (WAVESTACK_REQUIRE_GPU=1)")
        pytest.skip(reason)
    return {}
