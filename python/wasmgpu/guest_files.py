"""Files a module's instances see through WASI: guest paths and the ``files`` mappings of
``Module`` and ``Wasi``, checked the same way everywhere (every error names the argument).
Imports nothing of wasmgpu, so the module, the WASI configuration and the instances can all
use it."""

from __future__ import annotations

from typing import Mapping

# The longest path a guest file may have, after resolution (WASI hosts cap path lengths; this
# is the common file-system limit of a name).
MAX_PATH_BYTES = 255


def resolve_path(path: str, name: str) -> str:
    """A relative path with "." and ".." resolved and repeated "/" folded; it may not leave the
    root and must be at most 255 UTF-8 bytes after resolution."""
    if "\0" in path:
        raise ValueError(f"{name}: path {path!r} contains a NUL character")
    if not path or path.startswith("/"):
        raise ValueError(f"{name}: path {path!r} must be a non-empty relative path")
    parts = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise ValueError(f"{name}: path {path!r} leaves the root directory")
            parts.pop()
            continue
        parts.append(part)
    if not parts:
        raise ValueError(f"{name}: path {path!r} names the root directory, not a file")
    resolved = "/".join(parts)
    if len(resolved.encode("utf-8")) > MAX_PATH_BYTES:
        raise ValueError(f"{name}: path {resolved[:40]!r}... is longer than {MAX_PATH_BYTES} UTF-8 bytes")
    return resolved


def check_files(files, name: str = "files") -> dict:
    if files is None:
        return {}
    if not isinstance(files, Mapping):
        raise TypeError(f"{name}: expected a mapping of path to bytes, got {type(files).__name__}")
    checked = {}
    for path, content in files.items():
        if not isinstance(path, str):
            raise TypeError(f"{name}: paths must be strings, got {type(path).__name__}")
        resolved = resolve_path(path, name)
        if not isinstance(content, (bytes, bytearray, memoryview)):
            raise TypeError(f"{name}: the content of {path!r} must be bytes, got {type(content).__name__}")
        if resolved in checked:
            raise ValueError(f"{name}: {path!r} names the same file as another entry ({resolved!r})")
        checked[resolved] = bytes(content)
    # A path cannot be both a file and a directory of another file.
    for resolved in checked:
        parent = resolved.rsplit("/", 1)[0] if "/" in resolved else ""
        while parent:
            if parent in checked:
                raise ValueError(f"{name}: {parent!r} is a file and also a directory of {resolved!r}")
            parent = parent.rsplit("/", 1)[0] if "/" in parent else ""
    return checked
