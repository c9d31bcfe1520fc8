"""The exceptions of wasmgpu: load errors, resource limits, missing GPUs, link errors and traps.

The classes of the original wasmgpu package (``WasmGPUError`` and below it
``ValidationError``, ``UnsupportedFeatureError``, ``ResourceLimitError``,
``GPUUnavailableError``, ``Trap``), with ours as subclasses: callers can tell a binary that
is not WebAssembly at all (``MalformedModule``) from one that is ill-typed
(``InvalidModule``), both ``ValidationError``s, from a valid one that uses something outside
the supported profile (``UnsupportedFeatureError``). All carry the byte
offset where the problem was found and the reason, worded as the WebAssembly spec's tests
word it where the spec has a wording. This module has no native dependency: the
extension raises these classes.
"""

from __future__ import annotations

from typing import Optional


class WasmGPUError(Exception):
    """Base of every error this package raises for a module, a spawn or a call."""


class ModuleError(WasmGPUError):
    """Base of the load errors: ``offset`` (byte offset in the binary, None when the error is
    not tied to one) and ``reason``.

    The native layer constructs every subclass with the same four arguments; ``feature``
    is empty except for UnsupportedFeatureError."""

    def __init__(self, message: str, offset: Optional[int] = None, reason: Optional[str] = None,
                 feature: str = "") -> None:
        super().__init__(message)
        self.offset = offset
        self.reason = message if reason is None else reason


class ValidationError(ModuleError, ValueError):
    """The bytes are not a valid WebAssembly 2.0 module (malformed or invalid); the original
    package's name for both."""


class MalformedModule(ValidationError):
    """The bytes are not a WebAssembly 2.0 binary (the spec's ``assert_malformed``)."""


class InvalidModule(ValidationError):
    """The binary decodes but fails validation (the spec's ``assert_invalid``)."""


class UnsupportedFeatureError(ModuleError, NotImplementedError):
    """The module needs a feature outside the supported profile; ``feature`` names it
    ("SIMD", "threads", "memory64", "multiple memories", "module linking", "WASI", ...)."""

    def __init__(self, message: str, offset: Optional[int] = None, reason: Optional[str] = None,
                 feature: str = "") -> None:
        super().__init__(message, offset, reason, feature)
        self.feature = feature


# Our earlier name, kept so that existing code keeps working.
UnsupportedFeature = UnsupportedFeatureError


class UnsupportedAndMalformed(UnsupportedFeatureError, MalformedModule):
    """An encoding that a later proposal defines and WebAssembly 2.0 calls malformed (a tag
    import or export, shared-memory limits). The spec's tests pin the 2.0 verdict, so the
    error is both; ``reason`` starts with the spec's wording and names the feature."""


class UnsupportedAndInvalid(UnsupportedFeatureError, InvalidModule):
    """A construct that a later proposal allows and WebAssembly 2.0 calls invalid (a second
    memory, from multi-memory). Both, as for UnsupportedAndMalformed."""


class ResourceLimitError(WasmGPUError):
    """A spawn would exceed a budget (``max_resident_bytes``, ``stack_size``) or a device limit
    (memory, buffer range, ``batch_size``). Raised before anything is allocated; the message
    names what did not fit."""


class GPUUnavailableError(WasmGPUError, RuntimeError):
    """No usable GPU for the requested device (software adapters such as lavapipe count only
    when allowed)."""


class LinkError(WasmGPUError, ValueError):
    """An import the host does not define, or defines with another type (the spec's
    ``assert_unlinkable``): ``reason`` starts with "unknown import" or "incompatible import type"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# Trap codes of the device interpreter (src/wasm/device/traps.glsl and interpreter_layout.glsl)
# and the spec's wording of each.
TRAP_REASONS = {
    1: "integer divide by zero",
    2: "integer overflow",
    3: "invalid conversion to integer",
    4: "unreachable",
    5: "out of bounds memory access",
    6: "out of bounds table access",
    7: "undefined element",
    8: "uninitialized element",
    9: "indirect call type mismatch",
    10: "call stack exhausted",
    11: "fuel exhausted",
    12: "device loop limit reached",
    13: "WASI proc_exit",
    14: "WASI proc_raise",
    15: "device memory exhausted",
}


def trap_reason(code: int, index: int = 0) -> str:
    reason = TRAP_REASONS.get(code, f"trap {code}")
    if code in (7, 8):  # the spec's message names the element
        reason += f" {index}"
    return reason


class Trap(WasmGPUError, RuntimeError):
    """Some instances trapped during a call (or during instantiation in ``spawn``).

    ``traps`` maps instance index to the reason (the spec's wording: "unreachable",
    "integer divide by zero", "out of bounds memory access", "fuel exhausted", ...);
    ``results`` holds every instance's result, None for the trapped ones. Effects before a
    trap persist: a call is not a transaction."""

    def __init__(self, message: str, traps: dict, results: list) -> None:
        super().__init__(message)
        self.traps = traps
        self.results = results


class InstantiationTrapped(RuntimeError):
    """Internal: raised by the native layer when an active segment or the start function
    traps; ``spawn`` turns it into ``Trap``."""

    def __init__(self, code: int) -> None:
        super().__init__(trap_reason(code))
        self.code = code


__all__ = ["WasmGPUError", "ModuleError", "ValidationError", "MalformedModule", "InvalidModule",
           "UnsupportedFeatureError", "UnsupportedFeature", "UnsupportedAndMalformed", "UnsupportedAndInvalid",
           "ResourceLimitError", "GPUUnavailableError", "LinkError", "Trap", "TRAP_REASONS"]
