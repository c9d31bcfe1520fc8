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

    def spawn(self, *args, **kwargs):
        raise NotImplementedError("instances land with the interpreter")

    def __repr__(self) -> str:
        return f"<wasmgpu.Module: {len(self.exports)} exports, {len(self.imports)} imports>"


__all__ = ["Module", "Export", "Import", "EXECUTION_MODES", "KNOWN_HOST_MODULES"]
