"""``Instances``: ``count`` instances of one module, created by ``Module.spawn``.

Arguments for every instance are converted to 64-bit slots in C++ (``_native``: Python rows,
NumPy arrays or a tuple of columns), with every error raised before anything runs. The
native layer starts the call on every instance and advances it in dispatches of at most
``quantum`` instructions per instance (the cpu device runs several in one step, for up to a
few milliseconds; a Vulkan device in the interpreter, without WASI, runs a sequence of them in
one submission, deciding on the device whether to go on); this loop checks ``cancel`` before
the first dispatch and between steps (one dispatch per step when given), and keeps
``last_call`` current. Results are decoded in C++ into a
list (the seed's form) or NumPy arrays (``results="numpy"``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from wasmgpu import _native
from wasmgpu.errors import Trap, trap_reason
from wasmgpu.guest_files import resolve_path

_U64 = (1 << 64) - 1
_MAX_QUANTA = 65536  # dispatches one native step may run (the device bounds it by time)
RESULT_FORMS = ("list", "numpy")

# One character per value type, as the native codec reads them (wasmgpu_values.hpp).
_KIND_CODES = {"i32": "i", "i64": "I", "f32": "f", "f64": "F", "funcref": "r", "externref": "e"}


class Reference(NamedTuple):
    """A non-null reference result: ``type`` is "funcref" (value: function index) or "externref"."""
    type: str
    value: int


@dataclass
class CallStats:
    """What the last call did and where the time went (seconds per phase). A fresh record
    replaces ``last_call`` when a call starts; dispatches update it as they complete, so a
    ``cancel`` callback can read the progress (a Vulkan device's dispatch sequences, run only
    without one, count ``instructions`` when the instances have finished)."""
    function: str = ""
    execution: str = "auto"           # the mode the module asked for
    executed_as: str = "interpreter"  # what ran: "compiled" or "interpreter"
    device: str = "cpu"
    preparation_seconds: float = 0.0  # argument checks and conversion
    upload_seconds: float = 0.0       # writing arguments into the instances' stacks, starting the call
    dispatch_seconds: float = 0.0     # running the instances, all dispatches (lazy compilation included)
    codegen_seconds: float = 0.0      # compiled mode: generating the source of units first reached
    compile_seconds: float = 0.0      # compiled mode: building their native code (or loading it from the cache)
    units_compiled: int = 0           # compiled mode: units built or loaded during the call
    units_from_cache: int = 0         # of those, found in the disk cache
    # The cpu device's builds beside the call, on background threads (their time is not in
    # compile_seconds: the call did not wait for them): units built ahead of need (the
    # successors of units the call reached), hot units rebuilt with the optimising tier.
    units_built_ahead: int = 0
    units_rebuilt_hot: int = 0
    background_seconds: float = 0.0
    readback_seconds: float = 0.0     # reading statuses and results
    decoding_seconds: float = 0.0     # turning slots into Python values
    dispatches: int = 0
    # Host-device traffic of the call, counted in C++ where it happens (a Vulkan device; the
    # cpu device runs on host memory and leaves all four at 0): queue submissions, host waits
    # for their fences, and bytes copied to and from device buffers (arguments up; outcomes,
    # results and the statuses that decide whether to continue down). Per instance:
    # ``bytes_uploaded_per_instance`` and ``bytes_downloaded_per_instance``.
    submits: int = 0
    fence_waits: int = 0
    bytes_uploaded: int = 0
    bytes_downloaded: int = 0
    count: int = 0                    # instances the call ran on
    instructions: int = 0             # instructions executed, all instances
    interpreted_instructions: int = 0
    compiled_instructions: int = 0
    lane_grouped_instances: int = 0   # the cpu device, compiled mode: instances run in lane groups, per dispatch
    cancelled: bool = False
    traps: int = 0

    @property
    def execute_seconds(self) -> float:
        """Running instructions: the dispatches without lazy code generation and compilation."""
        return max(0.0, self.dispatch_seconds - self.codegen_seconds - self.compile_seconds)

    @property
    def bytes_uploaded_per_instance(self) -> float:
        """``bytes_uploaded`` divided by the instances the call ran on (0.0 for none)."""
        return self.bytes_uploaded / self.count if self.count else 0.0

    @property
    def bytes_downloaded_per_instance(self) -> float:
        """``bytes_downloaded`` divided by the instances the call ran on (0.0 for none)."""
        return self.bytes_downloaded / self.count if self.count else 0.0

    @property
    def pipelines_compiled(self) -> int:
        """The original's name for the units whose native code the call built or loaded."""
        return self.units_compiled

    @property
    def total_seconds(self) -> float:
        """The call's time: preparation, upload, dispatches, readback and decoding."""
        return (self.preparation_seconds + self.upload_seconds + self.dispatch_seconds + self.readback_seconds +
                self.decoding_seconds)

    @property
    def host_seconds(self) -> float:
        """Time outside the dispatches: conversion, upload, readback and decoding."""
        return self.total_seconds - self.dispatch_seconds


class _Function(NamedTuple):
    index: int
    params: str   # kind codes
    results: str


def _check_index(name: str, value, count: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name}: must be non-negative, got {value}")
    if value >= count:
        raise IndexError(f"{name}: {value} is out of range (there are {count} instances)")
    return value


def _check_size(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name}: must be non-negative, got {value}")
    return value


class Instances:
    """Independent instances of one module. Use as a context manager (or call ``close()``)."""

    def __init__(self, module, native, count: int, device: str, adapter_info: Dict[str, Any],
                 fuel: Optional[int], quantum: int, wasi=None, compiled: bool = False, stack_size: int = 256,
                 call_depth: int = 64) -> None:
        self._module = module
        self._compiled = compiled  # whether these instances run compiled mode
        self._native = native
        self._count = count
        self._device = device
        self._adapter_info = adapter_info
        self._functions: Dict[str, _Function] = {}
        self._kinds: Dict[str, str] = {}
        for name, kind, index in module._native.exports:
            self._kinds[name] = kind
            if kind == "function":
                params, results = module._native.function_type(index)
                self._functions[name] = _Function(index, "".join(_KIND_CODES[t] for t in params),
                                                  "".join(_KIND_CODES[t] for t in results))
        self.fuel = fuel          # the default budget of a call (None: unlimited)
        self.quantum = quantum    # instructions per instance per dispatch
        # Dispatches one native step may run when a cancel callback is given: one, so that it is
        # consulted between dispatches as the original's is; wasmgpu.mpi, whose own callback only
        # needs to be consulted every few milliseconds, lets the cpu device run several.
        self._quanta_with_cancel = 1
        self.stack_size = stack_size  # value stack slots per instance
        self.call_depth = call_depth  # nested frames per call
        self.last_call: Optional[CallStats] = None
        self.wasi = wasi          # the wasmgpu.Wasi the instances were built from (None: no WASI)
        # proc_exit's code per instance after it exited (None while it has not).
        self.exit_codes: List[Optional[int]] = [None] * count

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        """Releases the instances' memory; later calls raise."""
        self._native = None

    def __enter__(self) -> "Instances":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __len__(self) -> int:
        return self._count

    def _live(self):
        if self._native is None:
            raise RuntimeError("these instances are closed")
        return self._native

    @property
    def module(self):
        """The :class:`Module` these instances were spawned from."""
        return self._module

    @property
    def count(self) -> int:
        """The number of instances."""
        return self._count

    @property
    def resident_bytes(self) -> int:
        """Bytes held for the instances (the estimate checked against max_resident_bytes
        before allocation): state, memory reservations and configuration buffers."""
        return self._live().resident_bytes

    @property
    def adapter_info(self) -> Dict[str, Any]:
        """The device's description (a copy): ``device``, ``vendor``, ``adapter_type``,
        ``backend_type`` and more, as the original package's."""
        return dict(self._adapter_info)

    @property
    def device(self) -> str:
        """Where the instances run: "cpu" or the Vulkan device's name."""
        return self._device

    # -- WASI streams and files ----------------------------------------------------------------
    @property
    def stdout(self) -> List[bytes]:
        """Captured standard output, one bytes object per instance (empty without WASI)."""
        native = self._live()
        return [native.wasi_stream(i, 1) for i in range(self._count)]

    @property
    def stderr(self) -> List[bytes]:
        """Captured standard error, one bytes object per instance (empty without WASI)."""
        native = self._live()
        return [native.wasi_stream(i, 2) for i in range(self._count)]

    def read_file(self, path: str, *, instance: int = 0) -> bytes:
        """A regular file's stored bytes in instance ``instance``'s file system (the stored
        path: symlinks are not followed). ``FileNotFoundError`` when there is none,
        ``IsADirectoryError`` for a directory."""
        if not isinstance(path, str):
            raise TypeError(f"path: expected a string, got {type(path).__name__}")
        instance = _check_index("instance", instance, self._count)
        native = self._live()
        if self.wasi is None:
            raise FileNotFoundError(f"path: {path!r}: instance {instance} has no file system (no WASI)")

        status, data = native.wasi_read_file(instance, resolve_path(path, "path"))
        if status == "directory":
            raise IsADirectoryError(f"path: {path!r} is a directory in instance {instance}")
        if status != "found":
            raise FileNotFoundError(f"path: {path!r}: no such regular file in instance {instance}")
        return data

    def write_file(self, path: str, data: bytes, *, instance: int = 0) -> None:
        """Adds the regular file ``path`` holding ``data`` to instance ``instance``'s file system
        (ours; the directories above it are created), so that each instance can be given its own
        input before a call. ``FileExistsError`` when something has that name, ``ResourceLimitError``
        when the instance's ``storage_size`` cannot hold it, ``ValueError`` for a bad path or when
        ``max_files`` has no inode left. Runs no guest code."""
        if not isinstance(path, str):
            raise TypeError(f"path: expected a string, got {type(path).__name__}")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data: expected bytes, got {type(data).__name__}")
        instance = _check_index("instance", instance, self._count)
        native = self._live()
        if self.wasi is None:
            raise ValueError(f"instance: instance {instance} has no file system (no WASI)")

        resolved = resolve_path(path, "path")
        status, _ = native.wasi_read_file(instance, resolved)
        if status != "not found":
            raise FileExistsError(f"path: {path!r} already exists in instance {instance}")
        native.wasi_write_file(instance, resolved, bytes(data))

    def files(self, *, instance: int = 0) -> Dict[str, bytes]:
        """Every regular file of instance ``instance``'s file system, {path: bytes} (ours)."""
        instance = _check_index("instance", instance, self._count)
        return dict(self._live().wasi_files(instance))

    # -- calls ----------------------------------------------------------------------------
    def _function(self, name) -> _Function:
        if not isinstance(name, str):
            raise TypeError(f"name: expected a string, got {type(name).__name__}")
        function = self._functions.get(name)
        if function is None:
            if name in self._kinds:
                raise KeyError(f"name: export {name!r} is a {self._kinds[name]}, not a function")
            raise KeyError(f"name: the module exports no function {name!r}")
        return function

    @staticmethod
    def _check_fuel(fuel) -> Optional[int]:
        if isinstance(fuel, bool) or not isinstance(fuel, int):
            raise TypeError(f"fuel: expected an int (instructions per instance) or None, got {type(fuel).__name__}")
        if not 1 <= fuel <= _U64:  # positive, as the original's
            raise ValueError(f"fuel: must be between 1 and 2**64 - 1, got {fuel}")
        return fuel

    def _run(self, name: str, function: _Function, packed, fuel: Optional[int], cancel, stats: CallStats):
        """Starts the call, dispatches until no instance runs, returns the native outcome."""
        native = self._live()
        if cancel is not None and cancel():
            stats.cancelled = True
            raise InterruptedError(f"call {name!r} cancelled before its first dispatch; nothing ran")
        stats.executed_as = "compiled" if self._compiled else "interpreter"
        before = _native.compile_counters(self._module._native) if self._compiled else None
        stats.count = self._count
        transfers = native.transfers()
        t = time.perf_counter()
        native.begin_call(function.index, packed, fuel)
        stats.upload_seconds = time.perf_counter() - t
        t = time.perf_counter()
        try:
            while True:
                # Without a cancel callback to consult between dispatches, the cpu device may
                # run several in one step (a few milliseconds' worth).
                running, executed, grouped, quanta = native.step(
                    self.quantum, self._quanta_with_cancel if cancel else _MAX_QUANTA)
                stats.lane_grouped_instances += grouped
                stats.dispatches += quanta
                if cancel is not None:
                    # The callback may read last_call: the counts so far. (Without one, no code
                    # of the caller's runs until the call returns: they are counted once, below,
                    # which took a third of a small call's own time.)
                    self._count_instructions(stats, executed, before)
                    self._count_transfers(stats, transfers)
                    stats.dispatch_seconds = time.perf_counter() - t
                if running == 0:
                    break
                if cancel is not None and cancel():
                    stats.cancelled = True
                    raise InterruptedError(f"call {name!r} cancelled after {stats.dispatches} dispatches; "
                                           "effects so far persist")
        finally:
            stats.dispatch_seconds = time.perf_counter() - t
            if self._compiled:
                _native.compile_progress_finish(self._module._native)
        t = time.perf_counter()
        outcome = native.outcome(len(function.results))
        self._count_instructions(stats, outcome.executed, before)
        self._count_transfers(stats, transfers)
        if self.wasi is not None:
            self.exit_codes = outcome.exit_codes()
        stats.readback_seconds = time.perf_counter() - t
        return outcome

    def _count_transfers(self, stats: CallStats, before: Tuple[int, int, int, int]) -> None:
        """The native running totals' growth since the call began: the call's transfers, and
        those of any other operation on these instances meanwhile (another thread's
        ``read_memory``, say)."""
        now = self._live().transfers()
        stats.submits = now[0] - before[0]
        stats.fence_waits = now[1] - before[1]
        stats.bytes_uploaded = now[2] - before[2]
        stats.bytes_downloaded = now[3] - before[3]

    def _count_instructions(self, stats: CallStats, executed: int, before) -> None:
        """Instructions so far, by the mode that ran them, and the compilation work since the
        call began (compiled mode compiles units lazily, during dispatches)."""
        stats.instructions = executed
        if not self._compiled:
            stats.interpreted_instructions = executed
            return
        stats.compiled_instructions = executed
        now = _native.compile_counters(self._module._native)
        stats.codegen_seconds = now["codegen_seconds"] - before["codegen_seconds"]
        stats.compile_seconds = now["compile_seconds"] - before["compile_seconds"]
        stats.units_compiled = now["units_compiled"] - before["units_compiled"]
        stats.units_from_cache = now["units_from_cache"] - before["units_from_cache"]
        stats.units_built_ahead = now["units_built_ahead"] - before["units_built_ahead"]
        stats.units_rebuilt_hot = now["units_rebuilt_hot"] - before["units_rebuilt_hot"]
        stats.background_seconds = now["background_seconds"] - before["background_seconds"]

    def call(self, name: str, inputs: Optional[Sequence] = None, *, fuel: Optional[int] = None,
             cancel: Optional[Callable[[], bool]] = None, results: str = "list"):
        """Calls the exported function ``name`` on every instance.

        ``inputs``: one row per instance (a scalar or a tuple), or NumPy arrays: one 1-D
        array for one parameter, a 2-D array (count x parameters) or a tuple of 1-D arrays
        for several. Returns the results in instance order: with ``results="list"`` a scalar,
        a tuple for several results, None for none; with ``results="numpy"`` (ours) one array
        per result (a tuple of arrays for several, None for none). Raises ``Trap`` if any
        instance trapped (or ran out of ``fuel``: "fuel exhausted"), ``InterruptedError`` when
        ``cancel()`` returns true before or between dispatches.

        Args:
            name: the exported function.
            inputs: the arguments, one row per instance, or NumPy arrays (see above); None for a
                function without parameters.
            fuel: this call's instruction budget per instance; None uses the spawn's.
            cancel: a callable checked before the first dispatch and between dispatches.
            results: "list" or "numpy".

        Returns:
            The results in instance order.

        Raises:
            KeyError: ``name`` is not an exported function.
            TypeError: ``inputs``, ``cancel`` or ``fuel`` has the wrong type, or a row does not
                match the function's parameters.
            ValueError: ``results`` is unknown, or an input is out of range for its type.
            Trap: some instances trapped; ``traps`` maps each to its reason and ``results`` holds
                every instance's results (None where it trapped).
            InterruptedError: ``cancel()`` returned true.
            RuntimeError: the instances are closed.
        """
        start = time.perf_counter()
        native = self._live()
        function = self._function(name)
        if cancel is not None and not callable(cancel):
            raise TypeError(f"cancel: expected a callable or None, got {type(cancel).__name__}")
        fuel = self.fuel if fuel is None else self._check_fuel(fuel)
        if results not in RESULT_FORMS:
            raise ValueError(f"results: must be one of {', '.join(map(repr, RESULT_FORMS))}, got {results!r}")
        stats = CallStats(function=name, execution=self._module.execution, device=self._device)
        self.last_call = stats
        packed = native.pack(inputs, function.params)
        stats.preparation_seconds = time.perf_counter() - start
        outcome = self._run(name, function, packed, fuel, cancel, stats)
        t = time.perf_counter()
        if results == "numpy":
            values = outcome.results_numpy(function.results)
        else:
            values = outcome.results_list(function.results)
        trapped = {i: trap_reason(code, index) for i, code, index in outcome.traps()}
        stats.decoding_seconds = time.perf_counter() - t
        stats.traps = len(trapped)
        if trapped:
            first = next(iter(trapped))
            raise Trap(f"{len(trapped)} of {self._count} instances trapped in {name!r}; instance {first}: "
                       f"{trapped[first]}{self._limit_hint(trapped[first], fuel)}", trapped, values)
        return values

    def _limit_hint(self, reason: str, fuel: Optional[int]) -> str:
        """The argument to change when a call stopped at a limit of ours, not the program's."""
        if reason == "fuel exhausted":
            return (f" (the call's fuel={fuel} instructions per instance ran out: pass a larger fuel= to call() "
                    "or spawn(), or fuel=None for no limit)")
        if reason == "call stack exhausted":
            return (f" (stack_size={self.stack_size} slots or call_depth={self.call_depth} nested calls ran out: "
                    "pass larger ones to spawn())")
        if reason == "device memory exhausted":
            return (" (the instances wrote more 4 KiB pages than the spawn's page pool on the device holds: "
                    "pass a larger max_resident_bytes (the pool takes what it leaves) or spawn fewer instances)")
        return ""

    def _call_raw(self, name: str, rows: Sequence[Sequence[int]], fuel: Optional[int] = None):
        """For the spec runner and tests: arguments and results as raw 64-bit slot bit patterns
        (references: the u32 value, 0xFFFFFFFF for null). Returns (status, trap reason or None,
        results tuple) per instance."""
        native = self._live()
        function = self._function(name)
        packed = native.pack([tuple(v & _U64 for v in row) for row in rows], "I" * len(function.params))
        stats = CallStats(function=name, execution=self._module.execution, device=self._device)
        self.last_call = stats
        outcome = self._run(name, function, packed, fuel, None, stats)
        return [(True, None, values) if returned else (False, trap_reason(code, index), ())
                for returned, code, index, values in outcome.raw_results(len(function.results))]

    def _global_raw(self, name: str) -> List[int]:
        """For the spec runner and tests: an exported global's 64-bit slot in every instance."""
        native = self._live()
        for export_name, kind, index in self._module._native.exports:
            if export_name == name and kind == "global":
                return [native.global_value(i, index) for i in range(self._count)]
        raise KeyError(f"name: the module exports no global {name!r}")

    # -- memory ---------------------------------------------------------------------------
    def _check_range(self, address: int, length: int, instance: int) -> None:
        size = self._live().memory_size(instance)
        if address + length > size:
            raise IndexError(f"address: bytes {address}..{address + length} are beyond instance {instance}'s memory "
                             f"({size} bytes)")

    def read_memory(self, address: int, length: int, instance: int = 0) -> bytes:
        """Copies ``length`` bytes of instance ``instance``'s linear memory (runs no guest code).

        Raises:
            IndexError: the bytes lie beyond the memory, or ``instance`` is out of range.
            TypeError: an argument is not an int.
            ValueError: ``address``, ``length`` or ``instance`` is negative.
            RuntimeError: the instances are closed.
        """
        instance = _check_index("instance", instance, self._count)
        address = _check_size("address", address)
        length = _check_size("length", length)
        self._check_range(address, length, instance)
        return self._live().read_memory(instance, address, length)

    def write_memory(self, address: int, data: bytes, instance: int = 0) -> None:
        """Writes ``data`` into instance ``instance``'s linear memory (runs no guest code).

        Raises:
            IndexError: the bytes lie beyond the memory, or ``instance`` is out of range.
            TypeError: ``data`` is not bytes, or an index is not an int.
            ValueError: ``address`` or ``instance`` is negative.
            RuntimeError: the instances are closed.
        """
        instance = _check_index("instance", instance, self._count)
        address = _check_size("address", address)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data: expected bytes, got {type(data).__name__}")
        data = bytes(data)
        self._check_range(address, len(data), instance)
        self._live().write_memory(instance, address, data)

    def reset(self) -> None:
        """Restores every instance's memory, globals and tables to the module's initial state
        (same allocation) and reruns the start function (within the spawn's fuel).

        Raises:
            Trap: the start function trapped.
            RuntimeError: the instances are closed.
        """
        from wasmgpu.errors import InstantiationTrapped

        native = self._live()
        self.exit_codes = [None] * self._count
        try:
            native.reset()
        except InstantiationTrapped as trapped:
            reason = str(trapped)
            raise Trap(f"the start function trapped during reset: {reason}", {i: reason for i in range(self._count)},
                       [None] * self._count) from None

    def __repr__(self) -> str:
        state = "closed" if self._native is None else f"{self.resident_bytes} bytes"
        return f"<wasmgpu.Instances: {self._count} on {self._device}, {state}>"


__all__ = ["Instances", "CallStats", "Reference", "RESULT_FORMS"]
