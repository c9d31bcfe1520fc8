"""``wasmgpu.Module``: a decoded and validated WebAssembly module.

Arguments are checked first (each error names the argument), then the binary is decoded
and validated in C++ (``wasmgpu._native.load_module``). Instances (``spawn``) arrive with
the device interpreter.
"""

from __future__ import annotations

import os
from typing import Iterable, List, Mapping, NamedTuple, Optional, Tuple, Union

from wasmgpu import _native

EXECUTION_MODES = ("auto", "compiled", "interpreter")

# Host modules whose imports the runtime can provide. WASI is the default; "spectest" is
# the host module of the WebAssembly spec tests (print functions, constant globals, a
# table and a memory), provided for conformance runs.
KNOWN_HOST_MODULES = ("wasi_snapshot_preview1", "spectest")
DEFAULT_HOST_MODULES = ("wasi_snapshot_preview1",)

MAX_PATH_BYTES = 255


class Export(NamedTuple):
    name: str
    kind: str  # "function", "table", "memory" or "global"


class Import(NamedTuple):
    module: str
    name: str
    kind: str


def _check_path_or_bytes(path_or_bytes) -> None:
    if not isinstance(path_or_bytes, (bytes, bytearray, memoryview, str, os.PathLike)):
        raise TypeError(f"path_or_bytes: expected a path or bytes, got {type(path_or_bytes).__name__}")


def _read_binary(path_or_bytes) -> bytes:
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return bytes(path_or_bytes)
    if isinstance(path_or_bytes, (str, os.PathLike)):
        path = os.fspath(path_or_bytes)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        try:
            with open(path, "rb") as stream:
                return stream.read()
        except FileNotFoundError:
            raise FileNotFoundError(f"path_or_bytes: no such file: {path!r}") from None
        except IsADirectoryError:
            raise IsADirectoryError(f"path_or_bytes: is a directory: {path!r}") from None
    raise TypeError(f"path_or_bytes: expected a path or bytes, got {type(path_or_bytes).__name__}")


def _check_execution(execution) -> str:
    if not isinstance(execution, str):
        raise TypeError(f"execution: expected a string, got {type(execution).__name__}")
    if execution not in EXECUTION_MODES:
        raise ValueError(f"execution: must be one of {', '.join(map(repr, EXECUTION_MODES))}, got {execution!r}")
    if execution == "compiled":
        raise NotImplementedError(
            "execution='compiled': compiled mode is not built yet; use execution='interpreter' "
            "(or 'auto', which uses the interpreter until compiled mode lands)")
    return execution


def _check_files(files) -> dict:
    if files is None:
        return {}
    if not isinstance(files, Mapping):
        raise TypeError(f"files: expected a mapping of path to bytes, got {type(files).__name__}")
    checked = {}
    for path, content in files.items():
        if not isinstance(path, str):
            raise TypeError(f"files: paths must be strings, got {type(path).__name__}")
        if not path or path.startswith("/"):
            raise ValueError(f"files: path {path!r} must be a non-empty relative path")
        parts = path.split("/")
        if any(part in ("", ".", "..") for part in parts):
            raise ValueError(f"files: path {path!r} must not contain empty, '.' or '..' components")
        if "\0" in path:
            raise ValueError(f"files: path {path!r} contains a NUL character")
        if len(path.encode("utf-8")) > MAX_PATH_BYTES:
            raise ValueError(f"files: path {path[:40]!r}... is longer than {MAX_PATH_BYTES} UTF-8 bytes")
        if not isinstance(content, (bytes, bytearray, memoryview)):
            raise TypeError(f"files: the content of {path!r} must be bytes, got {type(content).__name__}")
        checked[path] = bytes(content)
    return checked


def _check_compile_limit(compile_limit) -> Optional[int]:
    if compile_limit is None:
        return None
    if isinstance(compile_limit, bool) or not isinstance(compile_limit, int):
        raise TypeError(f"compile_limit: expected an int, got {type(compile_limit).__name__}")
    if not 1 <= compile_limit <= 256:
        raise ValueError(f"compile_limit: must be between 1 and 256, got {compile_limit}")
    return compile_limit


def _check_compile_functions(compile_functions) -> Optional[List[int]]:
    if compile_functions is None:
        return None
    if isinstance(compile_functions, (str, bytes)) or not isinstance(compile_functions, Iterable):
        raise TypeError(f"compile_functions: expected a list of function indices, "
                        f"got {type(compile_functions).__name__}")
    indices = []
    for index in compile_functions:
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"compile_functions: function indices must be ints, got {type(index).__name__}")
        if index < 0:
            raise ValueError(f"compile_functions: function index {index} is negative")
        indices.append(index)
    return indices


def _check_host_modules(host_modules) -> Tuple[str, ...]:
    if host_modules is None:
        return DEFAULT_HOST_MODULES
    if isinstance(host_modules, (str, bytes)) or not isinstance(host_modules, Iterable):
        raise TypeError(f"host_modules: expected a list of module names, got {type(host_modules).__name__}")
    names = tuple(host_modules)
    for name in names:
        if name not in KNOWN_HOST_MODULES:
            raise ValueError(f"host_modules: unknown host module {name!r}; known: {', '.join(KNOWN_HOST_MODULES)}")
    return names


class Module:
    """A WebAssembly module, decoded and validated.

    ``path_or_bytes`` is a path to a ``.wasm`` file or the binary itself. Loading raises
    ``MalformedModule``, ``InvalidModule`` or ``UnsupportedFeature`` (``wasmgpu.errors``)
    with the byte offset and the reason. ``host_modules`` (an extension of this project)
    names the host modules whose imports the runtime provides; imports from any other
    module would need module linking and are refused as unsupported.
    """

    def __init__(self, path_or_bytes: Union[str, os.PathLike, bytes], execution: str = "auto",
                 files: Optional[Mapping[str, bytes]] = None, compile_functions: Optional[Iterable[int]] = None,
                 compile_limit: Optional[int] = None, *, host_modules: Optional[Iterable[str]] = None) -> None:
        # Every argument is checked before any work (reading the file included).
        _check_path_or_bytes(path_or_bytes)
        self.execution = _check_execution(execution)
        self.files = _check_files(files)
        compile_functions = _check_compile_functions(compile_functions)
        self.compile_limit = _check_compile_limit(compile_limit)
        self.host_modules = _check_host_modules(host_modules)
        binary = _read_binary(path_or_bytes)
        self._native = _native.load_module(binary, list(self.host_modules))
        if compile_functions is not None:
            count = self._native.function_count
            for index in compile_functions:
                if index >= count:
                    raise ValueError(f"compile_functions: function index {index} is out of range "
                                     f"(the module has {count} functions)")
        self.compile_functions = compile_functions
        self.exports: List[Export] = [Export(name, kind) for name, kind, _ in self._native.exports]
        self.imports: List[Import] = [Import(*entry) for entry in self._native.imports]

    def spawn(self, n: int, wasi=None, memory_pages: Optional[int] = None, stack_size: Optional[int] = None,
              device: Optional[str] = None, allow_software: bool = False, *,
              table_entries: Optional[int] = None) -> "Instances":
        """Creates ``n`` independent instances (a context manager; ``close()`` releases them).

        ``memory_pages`` reserves linear memory per instance (default: the declared minimum;
        ``memory.grow`` returns -1 beyond the reservation or the declared maximum).
        ``stack_size`` is the value stack per instance in 64-bit slots (locals, operands and
        two slots per frame; default 4096); a call that does not fit traps with "call stack
        exhausted". ``table_entries`` (an extension) reserves entries per table for
        ``table.grow`` (default: each table's minimum). ``device="cpu"`` runs the interpreter
        natively on a thread pool; the default (None) is the best hardware Vulkan GPU, a
        software adapter (lavapipe) only with ``allow_software=True`` or
        WAVESTACK_ALLOW_SOFTWARE_GPU=1. There is no fallback between the two.
        """
        return _spawn(self, n, wasi, memory_pages, stack_size, device, allow_software, table_entries)

    def __repr__(self) -> str:
        return f"<wasmgpu.Module: {len(self.exports)} exports, {len(self.imports)} imports>"


def _check_count(name: str, value, low: int, high: int, default: Optional[int]) -> int:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name}: must be between {low} and {high}, got {value}")
    return value


def _cpu_adapter_info() -> dict:
    import platform

    return {"device": "cpu", "name": platform.processor() or platform.machine() or "cpu",
            "threads": os.cpu_count(), "is_software": False, "vendor": "host"}


def _resolve_device(device, allow_software):
    """'cpu', or the Vulkan device's description (list_devices())."""
    if device is not None and not isinstance(device, str):
        raise TypeError(f"device: expected None or 'cpu', got {type(device).__name__}")
    if not isinstance(allow_software, bool):
        raise TypeError(f"allow_software: expected a bool, got {type(allow_software).__name__}")
    if device == "cpu":
        return "cpu"
    if device is not None:
        raise ValueError(f"device: unknown device {device!r}; use None (the best Vulkan GPU) or 'cpu'")
    gpu = _native.select_device(allow_software)
    if gpu is None:
        raise RuntimeError("device: no Vulkan GPU found (software adapters such as lavapipe need "
                           "allow_software=True or WAVESTACK_ALLOW_SOFTWARE_GPU=1); pass device='cpu' to run "
                           "the interpreter on the CPU")
    return gpu


# Instructions per instance per dispatch on Vulkan: short dispatches keep GPU watchdogs quiet
# and every loop of an invocation bounded (the native layer caps it at 1024, see
# vulkan_instances.cpp).
VULKAN_QUANTUM = 1024


def _spawn(module: "Module", n, wasi, memory_pages, stack_size, device, allow_software, table_entries):
    from wasmgpu.errors import InstantiationTrapped, Trap
    from wasmgpu.instances import Instances

    n = _check_count("n", n, 1, 2**32 - 1, None)
    memory_pages = _check_count("memory_pages", memory_pages, 0, 65535, 0)
    stack_size = _check_count("stack_size", stack_size, 2, 2**28, 4096)
    table_entries = _check_count("table_entries", table_entries, 0, 2**28, 0)
    if wasi is not None:
        raise NotImplementedError("wasi: WASI lands in a later issue")
    device = _resolve_device(device, allow_software)
    if any(entry.module == "wasi_snapshot_preview1" for entry in module.imports):
        raise NotImplementedError("the module imports wasi_snapshot_preview1: WASI lands in a later issue")
    try:
        if device == "cpu":
            native = _native.spawn_cpu(module._native, n, memory_pages, table_entries, stack_size)
        else:
            native = _native.spawn_vulkan(module._native, n, memory_pages, table_entries, stack_size,
                                          device["index"])
    except InstantiationTrapped as trapped:
        reason = str(trapped)
        raise Trap(f"instantiation trapped: {reason}", {i: reason for i in range(n)}, [None] * n) from None
    if device == "cpu":
        return Instances(module, native, n, "cpu", _cpu_adapter_info())
    instances = Instances(module, native, n, device["name"], dict(device))
    instances.quantum = VULKAN_QUANTUM
    return instances


__all__ = ["Module", "Export", "Import", "EXECUTION_MODES", "KNOWN_HOST_MODULES"]
