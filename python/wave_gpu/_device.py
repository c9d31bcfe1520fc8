"""Device query and selection (DESIGN decisions 3 and 4).

A device is named by "emulator", "gpu" (the GPU the runtime selects), a Vulkan device index
(an int or a string of digits), or a device name: the exact name (any case), else the first
device, hardware first, whose name contains it or whose vendor it is ("nvidia"). The request comes from the call's device=, then
set_device(), then WAVE_GPU_DEVICE; without one, kernels run on the first hardware GPU and on
the emulator when there is none. Software adapters (lavapipe) are used only when
WAVESTACK_ALLOW_SOFTWARE_GPU=1 allows them. A requested device that cannot run a kernel
raises; nothing falls back silently."""

from __future__ import annotations

import functools
import os
import threading
from typing import NamedTuple, Optional, Union

from wave_gpu import _native

_selected: Optional[Union[str, int]] = None


class DeviceInfo(NamedTuple):
    """A device kernels can run on: ``vendor`` ("nvidia", "amd", ..., or "emulator"),
    ``name``, the Vulkan ``index`` (None for the emulator), whether it is a ``software``
    adapter, and its ``wave_width`` (lanes per wave)."""

    vendor: str  # "apple", "nvidia", "amd", "intel", ... or "emulator"
    name: str
    index: Optional[int] = None  # Vulkan device index; None for the emulator
    software: bool = False  # a CPU implementation of Vulkan such as lavapipe
    wave_width: int = 32  # lanes per wave: the subgroup size on a GPU


EMULATOR = DeviceInfo("emulator", "WAVE emulator")


def _info(device: dict) -> DeviceInfo:
    return DeviceInfo(device["vendor"].lower(), device["name"], device.get("index"), bool(device.get("is_software")),
                      int(device.get("subgroup_size") or 32))


@functools.lru_cache(maxsize=1)
def _detect_gpu() -> Optional[dict]:
    """The GPU the runtime would select (software adapters only when allowed), once per process."""
    return _native.select_device(False)


@functools.lru_cache(maxsize=1)
def _vulkan_devices() -> tuple:
    return tuple(_native.list_devices())


def devices() -> list:
    """Every Vulkan device (software adapters included, marked software=True), then the emulator.

    Returns:
        A list of :class:`DeviceInfo`; without a Vulkan loader or driver, the emulator alone.
    """
    return [_info(d) for d in _vulkan_devices()] + [EMULATOR]


def _allowed_names() -> str:
    names = ", ".join(repr(d["name"]) for d in _vulkan_devices())
    return "'emulator', 'gpu', a device index" + (f" or a device name ({names})" if names else "")


def _lookup(spec, argument: str):
    """"emulator", or the Vulkan device dict `spec` names; ValueError naming `argument` otherwise."""
    if isinstance(spec, DeviceInfo):
        return "emulator" if spec.index is None else _lookup(spec.index, argument)
    if isinstance(spec, bool) or not isinstance(spec, (str, int)):
        raise TypeError(f"{argument}: expected a device name or index, got {type(spec).__name__}")
    if isinstance(spec, str):
        spec = spec.strip()
        if spec.lower() == "emulator":
            return "emulator"
        if spec.lower() == "gpu":
            return "gpu"
        if spec.isdigit():
            spec = int(spec)
    listed = _vulkan_devices()
    if isinstance(spec, int):
        for device in listed:
            if device["index"] == spec:
                return device
        raise ValueError(f"{argument}: no Vulkan device has index {spec}; allowed: {_allowed_names()}")
    wanted = spec.lower()
    exact = [d for d in listed if d["name"].lower() == wanted]
    partial = exact or [d for d in listed if wanted in d["name"].lower() or d["vendor"].lower() == wanted]
    if not partial:
        raise ValueError(f"{argument}: unknown device {spec!r}; allowed: {_allowed_names()}")
    hardware = [d for d in partial if not d["is_software"]]
    return (hardware or partial)[0]


def set_device(name) -> None:
    """Selects where kernels run: "emulator", "gpu", a device index or name, or None for automatic.

    Args:
        name: "emulator", "gpu", a Vulkan index (``0``, ``"1"``), a name or vendor (``"nvidia"``),
            a :class:`DeviceInfo`, or None.

    Raises:
        TypeError: ``name`` is not a string, an int, a DeviceInfo or None.
        ValueError: no device has that index or name.
    """
    global _selected
    if name is not None:
        _lookup(name, "name")
        if isinstance(name, DeviceInfo):
            name = "emulator" if name.index is None else name.index
    _selected = name


def _requested(explicit=None):
    """The explicit request and where it came from: the call's device=, set_device(), WAVE_GPU_DEVICE."""
    if explicit is not None:
        return explicit, "device"
    if _selected is not None:
        return _selected, "name"
    environment = os.environ.get("WAVE_GPU_DEVICE")
    if environment:
        return environment, "WAVE_GPU_DEVICE"
    return None, None


def requested(explicit=None) -> Optional[str]:
    """"emulator", "gpu", a device name, or None when nothing was requested (validated)."""
    spec, argument = _requested(explicit)
    if spec is None:
        return None
    found = _lookup(spec, argument)
    return found if isinstance(found, str) else found["name"]


def _usable(device: dict) -> dict:
    if device["is_software"] and not _native.software_gpu_allowed_by_environment():
        raise RuntimeError(f"{device['name']} is a software adapter; set WAVESTACK_ALLOW_SOFTWARE_GPU=1 to use it")
    return device


def resolve(explicit=None):
    """Where a call runs: "emulator" or the Vulkan device dict; raises when a request cannot be met."""
    spec, argument = _requested(explicit)
    found = None if spec is None else _lookup(spec, argument)
    if found == "emulator":
        return "emulator"
    if found is None or found == "gpu":
        gpu = _detect_gpu()
        if gpu is None:
            if found == "gpu":
                raise RuntimeError("device='gpu' was requested but no usable GPU was found "
                                   "(software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)")
            return "emulator"
        return gpu
    return _usable(found)


def device() -> DeviceInfo:
    """The device kernels run on: the requested one, else the first hardware GPU, else the emulator.

    Raises:
        ValueError: the requested device (``set_device`` or ``WAVE_GPU_DEVICE``) does not exist.
        RuntimeError: "gpu" was requested and there is none, or the requested device is a
            software adapter without ``WAVESTACK_ALLOW_SOFTWARE_GPU=1``.
    """
    where = resolve()
    return EMULATOR if where == "emulator" else _info(where)


_open_lock = threading.Lock()
_open: dict = {}


def open_gpu(index: int):
    """The open native device of a Vulkan index, one per process (kernels and buffers share it).
    Opened under a lock: first calls from several threads must not open the device twice."""
    device = _open.get(index)
    if device is None:
        with _open_lock:
            device = _open.get(index)
            if device is None:
                device = _native.GpuDevice.open(index)
                _open[index] = device
    return device
