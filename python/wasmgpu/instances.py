"""``Instances``: N instances of one module, created by ``Module.spawn``.

Inputs are validated and packed into 64-bit slots here, before anything runs; the native
layer starts the call on every instance and advances it in dispatches of at most
``quantum`` instructions per instance, and this loop checks ``cancel`` between dispatches.
Results are decoded from the slots: integers signed, floats as Python floats, references as
None (null) or ``Reference``.
"""

from __future__ import annotations

import math
import struct
import time
from array import array
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from wasmgpu.errors import Trap, trap_reason

# Interpreter status words (src/wasm/device/interpreter_layout.glsl).
STATUS_RETURNED = 2
STATUS_TRAPPED = 3
STATUS_FUEL_EXHAUSTED = 4
NULL_REF = 0xFFFFFFFF

# Instructions per instance per dispatch: bounds the time of one dispatch (a GPU watchdog,
# cancel= responsiveness) without making dispatch overhead visible.
DEFAULT_QUANTUM = 1 << 16

_U64 = (1 << 64) - 1


class Reference(NamedTuple):
    """A non-null reference result: ``type`` is "funcref" (value: function index) or "externref"."""
    type: str
    value: int


@dataclass
class CallStats:
    """What the last call did and where the time went (seconds per phase)."""
    function: str = ""
    execution: str = "auto"         # the mode the module asked for
    executed_as: str = "interpreter"  # what ran: "auto" runs the interpreter until compiled mode lands
    device: str = "cpu"
    preparation_seconds: float = 0.0  # input validation and packing
    upload_seconds: float = 0.0       # writing arguments into the instances' stacks, starting the call
    dispatch_seconds: float = 0.0     # running the interpreter, all dispatches
    readback_seconds: float = 0.0     # reading statuses and results
    decoding_seconds: float = 0.0     # turning slots into Python values
    dispatches: int = 0
    instructions: int = 0             # records executed, all instances
    interpreted_instructions: int = 0
    compiled_instructions: int = 0
    cancelled: bool = False
    traps: int = 0

    @property
    def total_seconds(self) -> float:
        return (self.preparation_seconds + self.upload_seconds + self.dispatch_seconds + self.readback_seconds +
                self.decoding_seconds)


def _f32_bits(value: float) -> int:
    try:
        return struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:  # rounds to infinity in binary32
        return 0xFF800000 if value < 0 else 0x7F800000


def _pack_value(value: Any, kind: str, where: str) -> int:
    if kind in ("i32", "i64"):
        bits = 32 if kind == "i32" else 64
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{where}: expected an int for {kind}, got {type(value).__name__}")
        if not -(1 << (bits - 1)) <= value < (1 << bits):
            raise ValueError(f"{where}: {value} does not fit in {kind} (signed or unsigned)")
        return value & ((1 << bits) - 1)
    if kind in ("f32", "f64"):
        if not isinstance(value, float):
            raise TypeError(f"{where}: expected a float for {kind}, got {type(value).__name__}")
        if kind == "f32":
            return _f32_bits(value)
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if value is not None:
        raise TypeError(f"{where}: only None (a null reference) can be passed for {kind}, got {type(value).__name__}")
    return NULL_REF


def _decode_value(bits: int, kind: str) -> Any:
    if kind == "i32":
        bits &= 0xFFFFFFFF
        return bits - (1 << 32) if bits >> 31 else bits
    if kind == "i64":
        return bits - (1 << 64) if bits >> 63 else bits
    if kind == "f32":
        return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    if kind == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    bits &= 0xFFFFFFFF
    return None if bits == NULL_REF else Reference(kind, bits)


class Instances:
    """Independent instances of one module. Use as a context manager (or call ``close()``)."""

    def __init__(self, module, native, count: int, device: str, adapter_info: Dict[str, Any]) -> None:
        self._module = module
        self._native = native
        self._count = count
        self._device = device
        self._adapter_info = adapter_info
        self._functions: Dict[str, Tuple[int, List[str], List[str]]] = {}
        for name, kind, index in module._native.exports:
            if kind == "function":
                params, results = module._native.function_type(index)
                self._functions[name] = (index, list(params), list(results))
        self.quantum = DEFAULT_QUANTUM
        self.last_call: Optional[CallStats] = None
        self.exit_codes: List[Optional[int]] = [None] * count  # proc_exit codes (WASI, a later issue)

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
    def resident_bytes(self) -> int:
        """Bytes held for the instances: state (globals, tables, stacks), memories, program image."""
        return self._live().resident_bytes

    @property
    def adapter_info(self) -> Dict[str, Any]:
        return dict(self._adapter_info)

    @property
    def device(self) -> str:
        return self._device

    # -- calls ----------------------------------------------------------------------------
    def _function(self, name) -> Tuple[int, List[str], List[str]]:
        if not isinstance(name, str):
            raise TypeError(f"name: expected a string, got {type(name).__name__}")
        if name not in self._functions:
            raise ValueError(f"name: the module exports no function {name!r}")
        return self._functions[name]

    def _pack_inputs(self, inputs, params: List[str]) -> bytes:
        n = self._count
        if inputs is None:
            if params:
                raise TypeError(f"inputs: the function takes {len(params)} arguments; pass one row per instance")
            return b""
        if isinstance(inputs, (str, bytes)) or not isinstance(inputs, Sequence):
            raise TypeError(f"inputs: expected a sequence with one row per instance, got {type(inputs).__name__}")
        if len(inputs) != n:
            raise ValueError(f"inputs: expected one row per instance ({n}), got {len(inputs)}")
        packed = array("Q")
        for i, row in enumerate(inputs):
            if len(params) == 1 and not isinstance(row, (tuple, list)):
                row = (row,)
            if not isinstance(row, (tuple, list)):
                raise TypeError(f"inputs[{i}]: expected a tuple of {len(params)} values, got {type(row).__name__}")
            if len(row) != len(params):
                raise ValueError(f"inputs[{i}]: expected {len(params)} values, got {len(row)}")
            for k, (value, kind) in enumerate(zip(row, params)):
                packed.append(_pack_value(value, kind, f"inputs[{i}][{k}]"))
        return packed.tobytes()

    def _run(self, name, index: int, packed: bytes, result_count: int, fuel, cancel, stats: CallStats):
        native = self._live()
        t = time.perf_counter()
        native.begin_call(index, packed, fuel)
        stats.upload_seconds = time.perf_counter() - t
        t = time.perf_counter()
        try:
            while True:
                running = native.step(self.quantum)
                stats.dispatches += 1
                if running == 0:
                    break
                if cancel is not None and cancel():
                    stats.cancelled = True
                    raise InterruptedError(f"call {name!r} cancelled after {stats.dispatches} dispatches; "
                                           "effects so far persist")
        finally:
            stats.dispatch_seconds = time.perf_counter() - t
            self.last_call = stats
        t = time.perf_counter()
        status, traps, results, executed, indices = native.outcome(result_count)
        stats.instructions = stats.interpreted_instructions = executed
        stats.readback_seconds = time.perf_counter() - t
        indices = array("I", indices)
        reasons = {i: trap_reason(code, indices[i]) for i, code in enumerate(array("I", traps)) if code}
        return array("I", status), reasons, array("Q", results)

    @staticmethod
    def _check_fuel(fuel) -> Optional[int]:
        if fuel is None:
            return None
        if isinstance(fuel, bool) or not isinstance(fuel, int):
            raise TypeError(f"fuel: expected an int (instructions per instance) or None, got {type(fuel).__name__}")
        if not 0 <= fuel <= _U64:
            raise ValueError(f"fuel: must be between 0 and 2**64 - 1, got {fuel}")
        return fuel

    def call(self, name: str, inputs: Optional[Sequence] = None, cancel: Optional[Callable[[], bool]] = None,
             fuel: Optional[int] = None) -> list:
        """Calls the exported function ``name`` on every instance; returns results in
        instance order (a scalar, a tuple for several results, None for none). Raises
        ``Trap`` if any instance trapped (or ran out of ``fuel``, reason "fuel exhausted"),
        ``InterruptedError`` when ``cancel()`` returns true between dispatches."""
        start = time.perf_counter()
        self._live()
        index, params, result_types = self._function(name)
        if cancel is not None and not callable(cancel):
            raise TypeError(f"cancel: expected a callable or None, got {type(cancel).__name__}")
        fuel = self._check_fuel(fuel)
        packed = self._pack_inputs(inputs, params)
        stats = CallStats(function=name, execution=self._module.execution, device=self._device)
        stats.preparation_seconds = time.perf_counter() - start
        status, traps, slots = self._run(name, index, packed, len(result_types), fuel, cancel, stats)
        t = time.perf_counter()
        results: List[Any] = []
        trapped: Dict[int, str] = {}
        width = len(result_types)
        for i in range(self._count):
            if status[i] != STATUS_RETURNED:
                trapped[i] = traps[i]
                results.append(None)
                continue
            values = [_decode_value(slots[i * width + k], kind) for k, kind in enumerate(result_types)]
            results.append(None if width == 0 else values[0] if width == 1 else tuple(values))
        stats.decoding_seconds = time.perf_counter() - t
        stats.traps = len(trapped)
        if trapped:
            first = next(iter(trapped))
            raise Trap(f"{len(trapped)} of {self._count} instances trapped in {name!r}; instance {first}: "
                       f"{trapped[first]}", trapped, results)
        return results

    def _call_raw(self, name: str, rows: Sequence[Sequence[int]], fuel: Optional[int] = None):
        """For the spec runner and tests: arguments and results as raw 64-bit slot bit patterns
        (references: the u32 value, 0xFFFFFFFF for null). Returns (status, trap reason or None,
        results tuple) per instance."""
        index, params, result_types = self._function(name)
        packed = array("Q")
        for row in rows:
            if len(row) != len(params):
                raise ValueError(f"rows: expected {len(params)} values per row")
            packed.extend(v & _U64 for v in row)
        if len(rows) != self._count:
            raise ValueError(f"rows: expected {self._count} rows")
        stats = CallStats(function=name, execution=self._module.execution, device=self._device)
        status, traps, slots = self._run(name, index, packed.tobytes(), len(result_types), fuel, None, stats)
        width = len(result_types)
        out = []
        for i in range(self._count):
            if status[i] == STATUS_RETURNED:
                out.append((True, None, tuple(slots[i * width:(i + 1) * width])))
            else:
                out.append((False, traps[i], ()))
        return out

    def _global_raw(self, name: str) -> List[int]:
        """For the spec runner and tests: an exported global's 64-bit slot in every instance."""
        native = self._live()
        for export_name, kind, index in self._module._native.exports:
            if export_name == name and kind == "global":
                return [native.global_value(i, index) for i in range(self._count)]
        raise ValueError(f"name: the module exports no global {name!r}")

    # -- memory ---------------------------------------------------------------------------
    def _check_instance(self, instance) -> int:
        if isinstance(instance, bool) or not isinstance(instance, int):
            raise TypeError(f"instance: expected an int, got {type(instance).__name__}")
        if not 0 <= instance < self._count:
            raise IndexError(f"instance: {instance} is out of range (0..{self._count - 1})")
        return instance

    def _check_range(self, address, length, instance: int, what: str) -> None:
        if isinstance(address, bool) or not isinstance(address, int):
            raise TypeError(f"address: expected an int, got {type(address).__name__}")
        if address < 0:
            raise ValueError(f"address: must be non-negative, got {address}")
        size = self._live().memory_size(instance)
        if address + length > size:
            raise ValueError(f"{what}: bytes {address}..{address + length} are beyond instance {instance}'s memory "
                             f"({size} bytes)")

    def read_memory(self, address: int, length: int, instance: int = 0) -> bytes:
        """Copies ``length`` bytes of instance ``instance``'s linear memory (runs no guest code)."""
        instance = self._check_instance(instance)
        if isinstance(length, bool) or not isinstance(length, int):
            raise TypeError(f"length: expected an int, got {type(length).__name__}")
        if length < 0:
            raise ValueError(f"length: must be non-negative, got {length}")
        self._check_range(address, length, instance, "length")
        return self._live().read_memory(instance, address, length)

    def write_memory(self, address: int, data: bytes, instance: int = 0) -> None:
        """Writes ``data`` into instance ``instance``'s linear memory (runs no guest code)."""
        instance = self._check_instance(instance)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data: expected bytes, got {type(data).__name__}")
        data = bytes(data)
        self._check_range(address, len(data), instance, "data")
        self._live().write_memory(instance, address, data)

    def reset(self) -> None:
        """Restores every instance's memory, globals and tables to the module's initial state
        (same allocation) and reruns the start function."""
        self._live().reset()

    def __repr__(self) -> str:
        state = "closed" if self._native is None else f"{self.resident_bytes} bytes"
        return f"<wasmgpu.Instances: {self._count} on {self._device}, {state}>"


__all__ = ["Instances", "CallStats", "Reference", "DEFAULT_QUANTUM"]
