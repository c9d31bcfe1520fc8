"""The kernel compiler's values, below the compiler and its language extensions (_func,
_language, _math, _printing, _random), which all build on them: a register or constant
(Value), a buffer or shared array (Memory), the retyping signal (Retype), annotations read as
parameter kinds, and the base class by which the compiler recognises a kernel object without
importing the launch layer (_kernel)."""

from __future__ import annotations

import numpy as np

from wave_gpu import _typerules as T
from wave_gpu._types import DType


class KernelObject:
    """Base of wave_gpu.Kernel: a kernel called inside a kernel is refused by name (_func)."""

    __slots__ = ()


class Retype(Exception):
    """A variable first set from a literal needs a wider type: compile again with the hint."""

    def __init__(self, name: str, type_: str):
        super().__init__(name, type_)
        self.name = name
        self.type = type_


class Value:
    """A value in the kernel: a register, or a compile-time constant (`const` is not None)."""

    __slots__ = ("reg", "type", "const", "weak", "var")

    def __init__(self, reg, type_, const=None, weak=False, var=False):
        self.reg = reg
        self.type = type_
        self.const = const
        self.weak = weak
        self.var = var  # the register belongs to a named variable (copy before aliasing it)


class Memory:
    """A buffer parameter or a shared array."""

    __slots__ = ("name", "element", "kind")

    def __init__(self, name: str, element: str, kind: str):
        self.name = name
        self.element = element
        self.kind = kind


def constant(value) -> Value:
    if isinstance(value, np.generic):
        value = value.item()
    return Value(None, T.literal_type(value), const=value, weak=not isinstance(value, bool))


def type_of_annotation(annotation, globals_: dict):
    """("buffer", dtype) or ("scalar", type) for a parameter annotation object, None if absent."""
    from wave_gpu._types import ArrayType

    if annotation is None:
        return None
    if isinstance(annotation, str):
        annotation = eval(annotation, globals_)  # noqa: S307 - the kernel's own annotation
    if isinstance(annotation, ArrayType):  # "buffer" for f32[:], "array2"/"array3" for f32[:, :] and f32[:, :, :]
        return ("buffer" if annotation.ndim == 1 else f"array{annotation.ndim}", annotation.dtype.name)
    if isinstance(annotation, DType):
        if annotation.name == "f16":
            raise TypeError("f16 is a storage type: annotate scalars as f32")
        return ("scalar", annotation.name)
    if annotation is float:
        return ("scalar", "f32")
    if annotation is int:
        return ("scalar", "i32")
    if annotation is bool:
        return ("scalar", "bool")
    raise TypeError(f"unsupported annotation {annotation!r}; use wave_gpu.f32[:] for buffers or a scalar type")
