"""What ``python -m wasmgpu run`` gives a program when no option says otherwise: enough to run
what ``wasmtime run`` runs, with no tuning.

- WASI storage: the files and stdin it embeds, plus room to write (64 MiB on the cpu device,
  whose file storage is committed only as it is written; 1 MiB on a GPU, where it is held).
- Inodes: the files and the directories they imply, the 4 reserved ones, plus room for new ones.
- The value stack: 2^20 slots (8 MiB) on the cpu device, committed only as deep as calls go;
  2^16 slots on a GPU. Nested calls: 2^16 frames. A module whose single frame does not fit
  still gets an error naming --stack-size.
- Memory: the module's declared maximum (65,535 pages without one), since pages are committed
  only when written (on a GPU whose spawn cannot hold the reservations, by paged memory:
  decision 0014); on the cpu device at most what keeps all instances within the address space
  the device reserves, on a GPU at most what keeps the instances' page tables within 256 MiB.
- Fuel: none (``wasmtime run`` has no limit unless ``--fuel`` is given).

The API's defaults stay the original package's: these are the command's.
"""

from __future__ import annotations

from typing import Dict, Mapping, Optional

CPU_STORAGE_ROOM = 64 << 20
GPU_STORAGE_ROOM = 1 << 20
MAX_STORAGE = 1 << 30  # what one instance's file system holds (wasi_config.cpp)
CPU_SPARE_FILES = 4096
GPU_SPARE_FILES = 64
RESERVED_INODES = 4
MAX_FILES = 1 << 20
CPU_STACK_SLOTS = 1 << 20
GPU_STACK_SLOTS = 1 << 16
CALL_DEPTH = 1 << 16
MAX_PAGES = 65535
# Half the address space the cpu device reserves per spawn (cpu_instances.hpp): the rest is
# the instances' states.
CPU_MEMORY_ADDRESS_SPACE = 1 << 44
# A GPU's paged memory holds a page table entry (4 bytes) per 4 KiB page reserved: 64 bytes a
# wasm page, in each instance's state. What the command lets all instances' tables take:
GPU_PAGE_TABLES = 256 << 20


def implied_directories(paths) -> int:
    directories = set()
    for path in paths:
        parts = path.split("/")[:-1]
        for k in range(1, len(parts) + 1):
            directories.add("/".join(parts[:k]))
    return len(directories)


def storage_size(files: Mapping[str, bytes], stdin: bytes, on_cpu: bool) -> int:
    content = len(stdin) + sum(len(data) for data in files.values())
    return min(MAX_STORAGE, content + (CPU_STORAGE_ROOM if on_cpu else GPU_STORAGE_ROOM))


def max_files(files: Mapping[str, bytes], on_cpu: bool) -> int:
    needed = RESERVED_INODES + len(files) + implied_directories(files)
    return min(MAX_FILES, needed + (CPU_SPARE_FILES if on_cpu else GPU_SPARE_FILES))


def memory_pages(limits: Optional[tuple], instances: int, on_cpu: bool) -> Optional[int]:
    """None: spawn's default (a module without memory)."""
    if limits is None:
        return None
    initial, maximum = limits
    declared = MAX_PAGES if maximum is None else min(maximum, MAX_PAGES)
    fitting = CPU_MEMORY_ADDRESS_SPACE // (instances * 65536) if on_cpu else GPU_PAGE_TABLES // (instances * 64)
    return max(initial, min(declared, fitting))


def spawn_defaults(module, files: Mapping[str, bytes], stdin: bytes, instances: int, on_cpu: bool) -> Dict:
    """The spawn() and Wasi() keywords of a run, before the command's options override them."""
    return {
        "storage_size": storage_size(files, stdin, on_cpu),
        "max_files": max_files(files, on_cpu),
        "stack_size": CPU_STACK_SLOTS if on_cpu else GPU_STACK_SLOTS,
        "call_depth": CALL_DEPTH,
        "memory_pages": memory_pages(module._native.memory_limits, instances, on_cpu),
        "fuel": None,
    }


__all__ = ["spawn_defaults"]
