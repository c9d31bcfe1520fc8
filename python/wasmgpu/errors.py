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


__all__ = ["ModuleError", "MalformedModule", "InvalidModule", "UnsupportedFeature", "UnsupportedAndMalformed",
           "UnsupportedAndInvalid"]
