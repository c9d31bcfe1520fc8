"""Device helpers shared by the Python tests (a module of its own: two conftest.py files
exist under tests/, so `from conftest import ...` would depend on collection order)."""

import os


def gpu_required() -> bool:
    """CI sets WAVESTACK_REQUIRE_GPU=1 so that a missing Vulkan device fails instead of skipping."""
    return os.environ.get("WAVESTACK_REQUIRE_GPU") == "1"
