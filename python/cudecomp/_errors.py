"""The exception of the cudecomp package: a failed operation, with cuDecomp's result code."""

from __future__ import annotations


class CudecompError(RuntimeError):
    """A cuDecomp operation failed. ``code`` is the :class:`cudecomp.Result` it returned."""

    def __init__(self, message: str, code=None):
        super().__init__(message)
        self.code = code

    def __reduce__(self):
        return (type(self), (str(self), self.code))
