"""Exceptions raised when a WebAssembly module is refused at load.

Three distinct types, so callers can tell a binary that is not WebAssembly at all
(``MalformedModule``) from one that is ill-typed (``InvalidModule``) from a valid one that
uses something outside the supported profile (``UnsupportedFeature``). All carry the byte
offset where the problem was found and the reason, worded as the WebAssembly spec's tests
word it where the spec has a wording. This module has no native dependency: the
extension raises these classes.
"""

from __future__ import annotations


class ModuleError(ValueError):
    """Base of the load errors: ``offset`` (byte offset in the binary) and ``reason``.

    The native layer constructs every subclass with the same four arguments; ``feature``
    is empty except for UnsupportedFeature."""

    def __init__(self, message: str, offset: int, reason: str, feature: str = "") -> None:
        super().__init__(message)
        self.offset = offset
        self.reason = reason


class MalformedModule(ModuleError):
    """The bytes are not a WebAssembly 2.0 binary (the spec's ``assert_malformed``)."""


class InvalidModule(ModuleError):
    """The binary decodes but fails validation (the spec's ``assert_invalid``)."""


class UnsupportedFeature(ModuleError):
    """The module needs a feature outside the supported profile; ``feature`` names it
    ("SIMD", "threads", "memory64", "multiple memories", "module linking", ...)."""

    def __init__(self, message: str, offset: int, reason: str, feature: str = "") -> None:
        super().__init__(message, offset, reason, feature)
        self.feature = feature


class UnsupportedAndMalformed(UnsupportedFeature, MalformedModule):
    """An encoding that a later proposal defines and WebAssembly 2.0 calls malformed (a tag
    import or export, shared-memory limits). The spec's tests pin the 2.0 verdict, so the
    error is both; ``reason`` starts with the spec's wording and names the feature."""


class UnsupportedAndInvalid(UnsupportedFeature, InvalidModule):
    """A construct that a later proposal allows and WebAssembly 2.0 calls invalid (a second
    memory, from multi-memory). Both, as for UnsupportedAndMalformed."""


class LinkError(ValueError):
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
}


def trap_reason(code: int, index: int = 0) -> str:
    reason = TRAP_REASONS.get(code, f"trap {code}")
    if code in (7, 8):  # the spec's message names the element
        reason += f" {index}"
    return reason


class Trap(RuntimeError):
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


__all__ = ["ModuleError", "MalformedModule", "InvalidModule", "UnsupportedFeature", "UnsupportedAndMalformed",
           "UnsupportedAndInvalid", "LinkError", "Trap", "TRAP_REASONS"]
