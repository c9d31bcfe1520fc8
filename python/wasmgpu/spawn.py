"""``Module.spawn``: checks every resource control, picks the device, creates the instances.

The controls and their defaults are the original wasmgpu package's:

- ``memory_pages``: linear memory reserved per instance (``memory.grow`` returns -1 beyond
  it). Default ``min(declared maximum or 65535, max(initial, 16))``; below the declared
  minimum or above the declared maximum is a ``ValueError``.
- ``table_elements``: entries reserved per table. Default ``min(maximum, max(minimum, 256))``
  per table; below a table's minimum is a ``ValueError``.
- ``stack_size``: the value stack per instance in 64-bit slots (parameters, locals, operands
  and two per frame). Checked against one frame of the module's largest function
  (``ResourceLimitError``); a call that does not fit traps with "call stack exhausted".
- ``call_depth``: nested frames per call; one more traps with "call stack exhausted".
- ``fuel``: the default budget of each call in executed instructions (a call's ``fuel=``
  overrides it; None is unlimited); it also bounds the start function during ``spawn``.
- ``quantum``: instructions per instance per dispatch (the device may lower it).
- ``batch_size``: instances per device batch (0 is a ``ValueError``, more than the device
  holds a ``ResourceLimitError``).
- ``max_resident_bytes``: what the spawn commits, configuration buffers included (None is
  unlimited, ours); exceeding it raises ``ResourceLimitError`` before anything is allocated.
  Reserved memory pages count once written on the cpu device; on Vulkan, instances whose
  reservations do not fit share a pool of 4 KiB frames sized from what the budget leaves
  (paged memory, decision 0014).
- ``wasi``: a ``wasmgpu.Wasi`` configuration; a module that imports WASI and gets none runs
  with ``Wasi()``.
- ``first_instance`` (ours): the index instance 0 has in a larger logical set (default 0).
  WASI's ``random_get`` keys each instance's stream by ``first_instance + i``, so the block of a
  ``wasmgpu.mpi`` spawn on one rank draws what the same instances of one whole spawn draw.

Ours: ``device`` (None or "gpu": the best hardware Vulkan GPU; "cpu": the interpreter on a
thread pool; a Vulkan device's name, or its index as an int) and ``allow_software`` (lavapipe and other software
adapters; also WAVESTACK_ALLOW_SOFTWARE_GPU=1). There is no fallback between devices.
"""

from __future__ import annotations

import os
import platform
from typing import Any, Dict, Optional

from wasmgpu import _native
from wasmgpu.errors import GPUUnavailableError, InstantiationTrapped, Trap

WASI_MODULE = "wasi_snapshot_preview1"
_U32 = 2**32 - 1
_U64 = 2**64 - 1

# wgpu's names of the adapter types, which the original package reports.
_ADAPTER_TYPES = {"discrete": "DiscreteGPU", "integrated": "IntegratedGPU", "virtual": "VirtualGPU", "cpu": "CPU"}


def check_int(name: str, value, low: int, high: int, allow_none: bool = False) -> Optional[int]:
    """An int argument within [low, high]: TypeError for another type, ValueError outside."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        expected = "an int or None" if allow_none else "an int"
        raise TypeError(f"{name}: expected {expected}, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name}: must be between {low} and {high}, got {value}")
    return value


def _cpu_adapter_info() -> Dict[str, Any]:
    name = platform.processor() or platform.machine() or "cpu"
    return {"device": "cpu", "name": name, "description": name, "threads": os.cpu_count(), "is_software": False,
            "vendor": "host", "adapter_type": "CPU", "backend_type": "native"}


def _vulkan_adapter_info(device: Dict[str, Any]) -> Dict[str, Any]:
    info = dict(device)
    info["device"] = info.get("name", "")
    info["adapter_type"] = "CPU" if info.get("is_software") else _ADAPTER_TYPES.get(info.get("type"), "Unknown")
    info["backend_type"] = "Vulkan"
    return info


def resolve_device(device, allow_software):
    """'cpu', or the Vulkan device's description (list_devices())."""
    if device is not None and (isinstance(device, bool) or not isinstance(device, (str, int))):
        raise TypeError(f"device: expected None, 'cpu', 'gpu', a device name or a Vulkan device index, "
                        f"got {type(device).__name__}")
    if not isinstance(allow_software, bool):
        raise TypeError(f"allow_software: expected a bool, got {type(allow_software).__name__}")
    if device == "cpu":
        return "cpu"
    hint = ("software adapters such as lavapipe need allow_software=True or WAVESTACK_ALLOW_SOFTWARE_GPU=1; "
            "device='cpu' runs on the CPU")
    if isinstance(device, int):
        # By index, as wave_gpu's devices: two GPUs of one model share a name (wasmgpu.mpi gives each
        # rank of a machine its own GPU this way).
        allowed = allow_software or os.environ.get("WAVESTACK_ALLOW_SOFTWARE_GPU") == "1"
        found = [d for d in _native.list_devices() if d["index"] == device]
        if not found:
            indices = ", ".join(str(d["index"]) for d in _native.list_devices()) or "none"
            raise GPUUnavailableError(f"device: no Vulkan device has index {device} (indices: {indices})")
        if found[0]["is_software"] and not allowed:
            raise GPUUnavailableError(f"device: {device} ({found[0]['name']}) is a software adapter ({hint})")
        return found[0]
    if device is None or device == "gpu":
        gpu = _native.select_device(allow_software)
        if gpu is None:
            raise GPUUnavailableError(f"device: no usable Vulkan GPU found ({hint})")
        return gpu
    allowed = allow_software or os.environ.get("WAVESTACK_ALLOW_SOFTWARE_GPU") == "1"
    matches = [d for d in _native.list_devices() if device.lower() in d["name"].lower()]
    usable = [d for d in matches if allowed or not d["is_software"]]
    if not usable:
        names = ", ".join(d["name"] for d in _native.list_devices()) or "none"
        why = "is a software adapter" if matches else "matches no Vulkan device"
        raise GPUUnavailableError(f"device: {device!r} {why} (devices: {names}; {hint})")
    return usable[0]


def _check_wasi(module, wasi):
    """The WASI configuration to build every instance's environment from (None: no WASI). A
    module that imports WASI and gets no ``wasi=`` runs with ``Wasi()``."""
    from wasmgpu.wasi import Wasi

    if wasi is not None and not isinstance(wasi, Wasi):
        raise TypeError(f"wasi: expected a wasmgpu.Wasi or None, got {type(wasi).__name__}")
    if wasi is None and any(entry.module == WASI_MODULE for entry in module.imports):
        wasi = Wasi()
    return wasi


def spawn(module, count, *, memory_pages, table_elements, stack_size, call_depth, fuel, quantum, batch_size,
          max_resident_bytes, wasi, device, allow_software, first_instance=0):
    from wasmgpu.instances import Instances

    count = check_int("count", count, 0, _U32)
    memory_pages = check_int("memory_pages", memory_pages, 0, 65535, allow_none=True)
    table_elements = check_int("table_elements", table_elements, 0, _U32, allow_none=True)
    # stack_size is positive, as the original's; a stack too small for the module's frames is a
    # ResourceLimitError (instance_image.cpp) naming the size to set.
    stack_size = check_int("stack_size", stack_size, 1, 2**28)
    call_depth = check_int("call_depth", call_depth, 1, _U32)
    fuel = check_int("fuel", fuel, 1, _U64, allow_none=True)  # positive (the original's); None: no limit (ours)
    quantum = check_int("quantum", quantum, 1, _U32)
    batch_size = check_int("batch_size", batch_size, 1, _U32, allow_none=True)
    max_resident_bytes = check_int("max_resident_bytes", max_resident_bytes, 1, _U64, allow_none=True)
    first_instance = check_int("first_instance", first_instance, 0, _U32 - count)
    budget = _U64 if max_resident_bytes is None else max_resident_bytes
    wasi = _check_wasi(module, wasi)
    files = wasi.merged_files(module.files) if wasi is not None else {}
    device = resolve_device(device, allow_software)
    compiled = module.execution != "interpreter"  # "auto" and "compiled" run compiled code on every device
    if compiled and device == "cpu":
        _native.cpu_tier_plan()  # a bad WAVESTACK_WASM_CPU_TIERS is a ValueError naming it, before any work
    options = {"compiled": compiled, "memory_pages": memory_pages, "table_elements": table_elements, "stack_size": stack_size,
               "call_depth": call_depth, "fuel": fuel, "quantum": quantum, "batch_size": batch_size,
               "max_resident_bytes": budget, "first_instance": first_instance}
    try:
        if device == "cpu":
            native = _native.spawn_cpu(module._native, count, options, wasi, files)
        else:
            native = _native.spawn_vulkan(module._native, count, options, wasi, files, device["index"])
    except InstantiationTrapped as trapped:
        reason = str(trapped)
        hint = {"fuel exhausted": f" (spawn's fuel={fuel} bounds the start function: pass a larger fuel= or None)",
                "call stack exhausted": f" (stack_size={stack_size} slots or call_depth={call_depth} nested calls ran "
                                        "out: pass larger ones to spawn())"}.get(reason, "")
        raise Trap(f"instantiation trapped: {reason}{hint}", {i: reason for i in range(count)},
                   [None] * count) from None
    limits = {"stack_size": stack_size, "call_depth": call_depth}
    if device == "cpu":
        return Instances(module, native, count, "cpu", _cpu_adapter_info(), fuel, quantum, wasi, compiled, **limits)
    return Instances(module, native, count, device["name"], _vulkan_adapter_info(device), fuel, quantum, wasi,
                     compiled, **limits)


__all__ = ["spawn", "resolve_device", "check_int"]
