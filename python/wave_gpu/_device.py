"""Device query and selection. Kernels run on the emulator when it is asked for
(`kernel(..., device="emulator")`, `set_device("emulator")` or WAVE_GPU_DEVICE=emulator) or
when no GPU is found. A detected GPU without such a request raises NotImplementedError until
the Vulkan backend lands (the seed's documented behaviour); nothing falls back silently."""

from __future__ import annotations

import functools
import os
from typing import NamedTuple, Optional

from wave_gpu import _native

DEVICES = ("emulator", "gpu")
_selected: Optional[str] = None


class DeviceInfo(NamedTuple):
    vendor: str  # "apple", "nvidia", "amd", "intel", ... or "emulator"
    name: str


EMULATOR = DeviceInfo("emulator", "WAVE emulator")


@functools.lru_cache(maxsize=1)
def _detect_gpu() -> Optional[dict]:
    """The GPU the runtime would select (software adapters only when allowed), once per process."""
    return _native.select_device(False)


def _check(name, argument: str) -> str:
    if name not in DEVICES:
        raise ValueError(f"{argument}: unknown device {name!r}; allowed: {', '.join(repr(d) for d in DEVICES)}")
    return name


def set_device(name: Optional[str]) -> None:
    """Selects where kernels run: "emulator", "gpu", or None for automatic selection."""
    global _selected
    _selected = None if name is None else _check(name, "name")


def requested(explicit: Optional[str] = None) -> Optional[str]:
    """The explicitly requested device: the call's device=, then set_device(), then WAVE_GPU_DEVICE."""
    if explicit is not None:
        return _check(explicit, "device")
    if _selected is not None:
        return _selected
    environment = os.environ.get("WAVE_GPU_DEVICE")
    if environment:
        return _check(environment, "WAVE_GPU_DEVICE")
    return None


def device() -> DeviceInfo:
    """The device kernels run on: the detected GPU, or the emulator when none is found or it is selected."""
    if requested() == "emulator":
        return EMULATOR
    gpu = _detect_gpu()
    if gpu is None:
        return EMULATOR
    return DeviceInfo(gpu["vendor"].lower(), gpu["name"])


def dispatch_target(explicit: Optional[str]) -> str:
    """"emulator", or an exception saying why the kernel cannot run where it was asked to."""
    wanted = requested(explicit)
    if wanted == "emulator":
        return "emulator"
    gpu = _detect_gpu()
    if gpu is None:
        if wanted == "gpu":
            raise RuntimeError("device='gpu' was requested but no usable GPU was found "
                               "(software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)")
        return "emulator"
    raise NotImplementedError(
        f"GPU dispatch on {gpu['name']} is not implemented yet; run on the emulator with device='emulator', "
        "wave_gpu.set_device('emulator') or WAVE_GPU_DEVICE=emulator")
