"""``wasmgpu.Module``: a decoded and validated WebAssembly module.

Arguments are checked first (each error names the argument), then the binary is decoded
and validated in C++ (``wasmgpu._native.load_module``). ``Module.spawn`` creates instances
(``wasmgpu.spawn``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, Iterable, List, Mapping, NamedTuple, Optional, Tuple, Union

from wasmgpu import _native
from wasmgpu.guest_files import check_files

if TYPE_CHECKING:
    from wasmgpu.compiled import CompiledModule

EXECUTION_MODES = ("auto", "compiled", "interpreter")

# Host modules whose imports the runtime can provide. WASI is the default; "spectest" is
# the host module of the WebAssembly spec tests (print functions, constant globals, a
# table and a memory), provided for conformance runs.
KNOWN_HOST_MODULES = ("wasi_snapshot_preview1", "spectest")
DEFAULT_HOST_MODULES = ("wasi_snapshot_preview1",)

class Export(NamedTuple):
    """One export as ``Module.export_list`` gives it (ours; ``Module.exports`` is the original's mapping)."""
    name: str
    kind: str  # "function", "table", "memory" or "global"


class Import(NamedTuple):
    """One import of the module: the importing ``module`` name, the ``name`` and the ``kind``
    ("function", "memory", "table" or "global")."""

    module: str
    name: str
    kind: str


def _check_source(source) -> None:
    if not isinstance(source, (bytes, bytearray, memoryview, str, os.PathLike)):
        raise TypeError(f"source: expected a path or bytes, got {type(source).__name__}")


def _read_binary(source) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    path = os.fspath(source)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"source: no such file: {path!r}") from None
    except IsADirectoryError:
        raise IsADirectoryError(f"source: is a directory: {path!r}") from None


def _check_execution(execution) -> str:
    if not isinstance(execution, str):
        raise TypeError(f"execution: expected a string, got {type(execution).__name__}")
    if execution not in EXECUTION_MODES:
        raise ValueError(f"execution: must be one of {', '.join(map(repr, EXECUTION_MODES))}, got {execution!r}")
    return execution


def _check_compile_limit(compile_limit) -> int:
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


CPU_TIERS = ("fast", "optimized", "host")


PROGRESS_MODES = {"on": "on", "1": "on", "off": "off", "0": "off", "always": "always"}


def _check_progress(progress) -> str:
    """The module's progress mode: progress=True/False, else WAVESTACK_PROGRESS (read now)."""
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress: expected None, True or False, got {type(progress).__name__}")
    if progress is not None:
        return "on" if progress else "off"
    value = os.environ.get("WAVESTACK_PROGRESS", "") or "on"
    if value not in PROGRESS_MODES:
        raise ValueError(f"WAVESTACK_PROGRESS: must be 'on', 'off' (or '0') or 'always', got {value!r}")
    return PROGRESS_MODES[value]


def _check_precompile(precompile, execution: str) -> Optional[str]:
    if precompile is None:
        return None
    if not isinstance(precompile, str):
        raise TypeError(f"precompile: expected None or a device ('cpu', 'gpu' or a device name), "
                        f"got {type(precompile).__name__}")
    if execution == "interpreter":
        raise ValueError("precompile: the interpreter has no units to build (execution='interpreter')")
    return precompile


def _check_tier(tier) -> Optional[str]:
    if tier is None:
        return None
    if not isinstance(tier, str):
        raise TypeError(f"tier: expected None or one of {', '.join(CPU_TIERS)}, got {type(tier).__name__}")
    if tier not in CPU_TIERS:
        raise ValueError(f"tier: must be one of {', '.join(map(repr, CPU_TIERS))}, got {tier!r}")
    return tier


def _label(source) -> str:
    """How progress lines name the module: its file name, or "the module" for bytes."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "the module"
    return os.path.basename(os.fsdecode(os.fspath(source))) or "the module"


class Module:
    """A WebAssembly module, decoded and validated (in C++).

    ``source`` is a path to a ``.wasm`` file or the binary itself; anything else is a
    ``TypeError``. Loading raises ``ValidationError`` (``MalformedModule`` or
    ``InvalidModule``) or ``UnsupportedFeatureError`` with the byte offset and the reason.
    ``files`` are embedded into every instance's WASI file system. ``execution``, and
    ``compile_functions`` / ``compile_limit`` (1..256) for compiled mode, are the original
    package's. ``host_modules`` (ours) names the host modules whose imports the runtime
    provides; imports from any other module would need module linking and are refused.

    Compiled mode builds a unit's native code when a call first reaches it (ours:
    ``precompile="cpu"`` or another device builds every unit now instead, as
    ``Module.precompile`` does). A call that builds units for more than a second shows
    progress on stderr; ``progress=False`` silences it for this module, ``True`` keeps it
    whatever ``WAVESTACK_PROGRESS`` says (None, the default, follows the variable as it is when
    the module is created: "on", "off" or "0", "always").

    Args:
        source: a path (``str`` or ``os.PathLike``) of a ``.wasm`` file, or the binary as bytes.
        files: ``{guest path: bytes}`` embedded into every instance's WASI file system.
        execution: "auto" (compiled mode on every device), "compiled" or "interpreter".
        compile_functions: function indices grouped first into units (compiled mode).
        compile_limit: the most instructions of one unit, 1 to 256.
        host_modules: names of the host modules whose imports the runtime provides
            ("wasi_snapshot_preview1" is always known).
        progress: True or False to show or hide build progress, None to follow
            ``WAVESTACK_PROGRESS``.
        precompile: a device ("cpu", "gpu" or a name) to build every unit for now, or None.

    Raises:
        TypeError: ``source`` or another argument has the wrong type.
        ValueError: an argument is out of range (``execution``, ``compile_limit``, a
            ``compile_functions`` index, a ``files`` path).
        ValidationError: the binary is malformed (``MalformedModule``) or invalid
            (``InvalidModule``); ``offset`` and ``reason`` say where and why.
        UnsupportedFeatureError: the module needs a feature outside the supported profile.
        LinkError: an import that no host module provides, or with another type.
        OSError: ``source`` is a path that cannot be read.
    """

    def __init__(self, source: Union[str, os.PathLike, bytes], *, files: Optional[Mapping[str, bytes]] = None,
                 execution: str = "auto", compile_functions: Optional[Iterable[int]] = None,
                 compile_limit: int = 256, host_modules: Optional[Iterable[str]] = None,
                 progress: Optional[bool] = None, precompile: Optional[str] = None) -> None:
        # Every argument is checked before any work (reading the file included).
        _check_source(source)
        self.execution = _check_execution(execution)
        progress_mode = _check_progress(progress)
        precompile = _check_precompile(precompile, self.execution)
        self.files = check_files(files)
        compile_functions = _check_compile_functions(compile_functions)
        self.compile_limit = _check_compile_limit(compile_limit)
        self.host_modules = _check_host_modules(host_modules)
        binary = _read_binary(source)
        # (Compiled mode's cached partition is read while the binary is decoded.)
        partition_for = None if self.execution == "interpreter" else (self.compile_limit,
                                                                       list(compile_functions or []))
        self._native = _native.load_module(binary, list(self.host_modules), partition_for)
        if compile_functions is not None:
            count = self._native.function_count
            for index in compile_functions:
                if index >= count:
                    raise ValueError(f"compile_functions: function index {index} is out of range "
                                     f"(the module has {count} functions)")
        self.compile_functions = compile_functions
        # Compiled mode partitions every function into units now; each unit's code is
        # generated and built when a call first reaches it (and cached on disk).
        if self.execution != "interpreter":
            _native.compile_module(self._native, self.compile_limit, list(compile_functions or []), _label(source))
            _native.set_compile_progress(self._native, progress_mode)
        self.export_list: List[Export] = [Export(name, kind) for name, kind, _ in self._native.exports]
        self.exports: Dict[str, str] = {entry.name: entry.kind for entry in self.export_list}
        self.imports: List[Import] = [Import(*entry) for entry in self._native.imports]
        self._compiled = None  # module.compiled, made when first asked for
        if precompile is not None:
            self.precompile(precompile)

    def precompile(self, device: str = "cpu", *, tier: Optional[str] = None, allow_software: bool = False) -> None:
        """Builds every unit's native code for ``device`` now (ours), on every core, into the
        disk cache, so that no call waits for a build (as ``wasmtime compile`` does; ``python
        -m wasmgpu compile`` runs it from the shell). Units already built or cached are loaded.

        ``device``: "cpu" or a Vulkan device ("gpu", a name; ``allow_software`` as for
        ``spawn``). ``tier`` (cpu device): "fast", "optimized" or "host"; None builds at the
        best tier of this process's plan (``WAVESTACK_WASM_CPU_TIERS``, "optimized" by default),
        which a call would otherwise reach only for its hot units. A unit's prefixes (run only
        when fuel runs out inside one of its blocks) are still built on first need.

        Args:
            device: "cpu", "gpu" or a Vulkan device name.
            tier: the cpu device's tier ("fast", "optimized" or "host"), or None.
            allow_software: admit software Vulkan adapters such as lavapipe.

        Raises:
            ValueError: the module runs in the interpreter (no units), ``tier`` is unknown, or a
                tier is given for a Vulkan device.
            GPUUnavailableError: no usable Vulkan device matches ``device``.
        """
        from wasmgpu.spawn import resolve_device

        if self.execution == "interpreter":
            raise ValueError("precompile: the interpreter has no units to build (execution='interpreter')")
        tier = _check_tier(tier)
        resolved = resolve_device(device, allow_software)
        if resolved == "cpu":
            _native.precompile_cpu(self._native, tier)
            return
        if tier is not None:
            raise ValueError("tier: only the cpu device has tiers")
        _native.precompile_vulkan(self._native, resolved["index"])

    @property
    def compiled(self) -> Optional["CompiledModule"]:
        """Compiled mode's partition (None for execution="interpreter"): a
        ``wasmgpu.CompiledModule`` with the original's attributes (``complete``, ``functions``,
        ``instructions``, ``total_instructions``, ``blocks``, ``regions``, ``source``,
        ``source_for()``) and ours (``units``, ``jump_table_entries``); it is also a mapping of
        our summary (``compiled["units"]``, ...)."""
        if self.execution == "interpreter":
            return None
        if self._compiled is None:
            from wasmgpu.compiled import CompiledModule

            imports_wasi = any(entry.module == "wasi_snapshot_preview1" for entry in self.imports)
            self._compiled = CompiledModule(self._native, imports_wasi)
        return self._compiled

    def spawn(self, count: int, *, memory_pages: Optional[int] = None, table_elements: Optional[int] = None,
              stack_size: int = 256, call_depth: int = 64, fuel: Optional[int] = 10_000_000, quantum: int = 4096,
              batch_size: Optional[int] = None, max_resident_bytes: Optional[int] = 512 * 1024 * 1024, wasi=None,
              device: Optional[Union[str, int]] = None, allow_software: bool = False,
              first_instance: int = 0) -> "Instances":
        """Creates ``count`` independent instances (a context manager; ``close()`` releases them).

        The resource controls are the original package's; ``device`` and ``allow_software``
        are ours. Every limit is checked before anything is allocated.

        Args:
            count: the number of instances (0 gives an empty set).
            memory_pages: pages of linear memory reserved per instance; None gives
                ``min(declared maximum or 65535, max(initial, 16))``. ``memory.grow`` returns -1
                beyond it.
            table_elements: elements reserved per table; None gives ``min(maximum, max(minimum, 256))``.
            stack_size: value-stack slots (64-bit) per instance.
            call_depth: the deepest nesting of calls.
            fuel: each call's default instruction budget per instance (None: no limit); it also
                bounds the start function.
            quantum: instructions per instance per dispatch.
            batch_size: instances per dispatch, or None for the device's choice.
            max_resident_bytes: the most memory the spawn may commit (None: no limit); pages are
                committed as written (on Vulkan from a pool of frames, when the reservations do not fit).
            wasi: a :class:`Wasi` configuration; None gives ``Wasi()`` to a module that imports WASI.
            device: None or "gpu" (the best hardware Vulkan GPU), "cpu", or a Vulkan device name.
            allow_software: admit software Vulkan adapters such as lavapipe (as
                ``WAVESTACK_ALLOW_SOFTWARE_GPU=1`` does).

        Returns:
            The new :class:`Instances`.

        Raises:
            TypeError: an argument has the wrong type.
            ValueError: an argument is out of range, or the cpu device's tier plan
                (``WAVESTACK_WASM_CPU_TIERS``) is malformed.
            ResourceLimitError: the spawn exceeds ``max_resident_bytes``, a device limit, a WASI
                quota, or ``stack_size`` is too small for the module's largest frame.
            GPUUnavailableError: no usable Vulkan device for ``device``.
            Trap: an active segment or the start function trapped.
        """
        from wasmgpu.spawn import spawn

        return spawn(self, count, memory_pages=memory_pages, table_elements=table_elements, stack_size=stack_size,
                     call_depth=call_depth, fuel=fuel, quantum=quantum, batch_size=batch_size,
                     max_resident_bytes=max_resident_bytes, wasi=wasi, device=device, allow_software=allow_software,
                     first_instance=first_instance)

    def __repr__(self) -> str:
        return f"<wasmgpu.Module: {len(self.export_list)} exports, {len(self.imports)} imports>"


__all__ = ["Module", "Export", "Import", "EXECUTION_MODES", "KNOWN_HOST_MODULES"]
