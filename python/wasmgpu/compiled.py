"""``Module.compiled``: what compiled mode made of a module (None for execution="interpreter").

An object with the original package's attributes (``complete``, ``functions``,
``instructions``, ``total_instructions``, ``blocks``, ``regions``, ``source``,
``source_for(unit)``, ``wasi``) and ours (``units``, ``jump_table_entries``). It is also a
read-only mapping of our earlier summary (``compiled["units"]``, ``compiled["functions"]`` as a
count, ...), so code written for either form keeps working.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Iterator, NamedTuple, Tuple

from wasmgpu import _native


class CompiledUnit(NamedTuple):
    """One unit of compiled code (the original's "region"): the functions with blocks in it
    (module-space indices), its basic blocks and its instructions."""
    functions: Tuple[int, ...]
    blocks: int
    instructions: int


class CompiledModule(Mapping):
    """The partition of a module into compiled units (built lazily, when a call first reaches
    one). Every defined function is compiled: ``complete`` is always true, a function too large
    for one unit is split across units, never dropped."""

    def __init__(self, native_module, imports_wasi: bool) -> None:
        self._native = native_module
        self._summary = dict(_native.compiled_summary(native_module))
        first_defined = native_module.imported_function_count
        #: The original's: the indices of the compiled functions (every defined function;
        #: imports are host functions and have no code).
        self.functions: Tuple[int, ...] = tuple(range(first_defined, native_module.function_count))
        self.complete: bool = bool(self._summary["complete"])
        #: Lowered instructions in the units: every defined function's (the original's name).
        self.instructions: int = int(self._summary["instructions"])
        #: The original's: every instruction of the module's code; all of it is compiled.
        self.total_instructions: int = self.instructions
        self.blocks: int = int(self._summary["blocks"])
        self.units: int = int(self._summary["units"])
        self.jump_table_entries: int = int(self._summary["jump_table_entries"])
        #: The original's: whether the module imports WASI (its calls leave compiled code).
        self.wasi: bool = imports_wasi
        self._regions = None

    @property
    def regions(self) -> Tuple[CompiledUnit, ...]:
        """One ``CompiledUnit`` per unit, in unit order (the original's name)."""
        if self._regions is None:
            self._regions = tuple(CompiledUnit(*unit) for unit in _native.compiled_units(self._native))
        return self._regions

    def source_for(self, unit: int, device: str = "gpu") -> str:
        """The generated source of a unit (generated now if no call reached it yet): the Vulkan
        compute shader's GLSL (``device="gpu"``, the original's WGSL counterpart) or the cpu
        device's C++ (``device="cpu"``)."""
        if isinstance(unit, bool) or not isinstance(unit, int):
            raise TypeError(f"unit: expected an int, got {type(unit).__name__}")
        if not 0 <= unit < self.units:
            raise IndexError(f"unit: {unit} is out of range (there are {self.units} units)")
        if device not in ("gpu", "cpu"):
            raise ValueError(f"device: must be 'gpu' or 'cpu', got {device!r}")
        return _native.compiled_unit_source(self._native, unit, device)

    @property
    def source(self) -> str:
        """The first unit's GPU source (the original's, kept for diagnostics of small modules);
        empty for a module without code."""
        return self.source_for(0) if self.units else ""

    def as_dict(self) -> dict:
        """Our summary: units, functions (their count), blocks, instructions, jump_table_entries,
        complete."""
        return dict(self._summary)

    # The mapping form: our earlier dict.
    def __getitem__(self, key: str):
        return self._summary[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._summary)

    def __len__(self) -> int:
        return len(self._summary)

    def __repr__(self) -> str:
        return (f"<wasmgpu.CompiledModule: {len(self.functions)} functions, {self.units} units, "
                f"{self.blocks} blocks, {self.instructions} instructions>")


__all__ = ["CompiledModule", "CompiledUnit"]
