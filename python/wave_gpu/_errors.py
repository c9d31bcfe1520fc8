"""The errors of wave_gpu."""

from __future__ import annotations

from wave_gpu import _native


class CompileError(RuntimeError):
    """A kernel that cannot be compiled: unsupported syntax, an unknown name or a type error.
    A RuntimeError too, as the original SDK raised for compile failures.

    The message names the file and line and shows the source line; `filename`, `lineno` and
    `source_line` hold them too."""

    def __init__(self, message: str, filename: str = "<unknown>", lineno: int = 0, source_line: str = ""):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.source_line = source_line
        text = f"{filename}:{lineno}: {message}"
        if source_line:
            text += f"\n    {source_line.strip()}"
        super().__init__(text)


# A fault while a kernel runs on the emulator (out-of-bounds access, a barrier in divergent
# control flow, a deadlock, integer division by zero). Raised by the native layer with the
# kernel line, the workgroup and the lane; the Python layer adds the file and source line.
KernelError = _native.KernelError
