"""Functions that only have a meaning inside a kernel. The frontend recognises them by
identity (so `wave_gpu.thread_id()` and a bare imported `thread_id()` are the same); called
from ordinary Python they raise RuntimeError. Math functions also work on the host."""

from __future__ import annotations

import math as _math


def _outside(name: str):
    raise RuntimeError(f"wave_gpu.{name}() can only be called inside a @wave_gpu.kernel function")


def thread_id(dim: int = 0) -> int:
    """Global index of the invocation along `dim` (0, 1, 2): workgroup_id * workgroup_size + local_id.

    Args:
        dim: 0 (x), 1 (y) or 2 (z).

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("thread_id")


def local_id(dim: int = 0) -> int:
    """Index of the invocation inside its workgroup along `dim`.

    Args:
        dim: 0 (x), 1 (y) or 2 (z).

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("local_id")


def workgroup_id(dim: int = 0) -> int:
    """Index of the workgroup along `dim`.

    Args:
        dim: 0 (x), 1 (y) or 2 (z).

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("workgroup_id")


def workgroup_size(dim: int = 0) -> int:
    """Threads per workgroup along `dim`.

    Args:
        dim: 0 (x), 1 (y) or 2 (z).

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("workgroup_size")


def num_workgroups(dim: int = 0) -> int:
    """Workgroups in the launch along `dim`.

    Args:
        dim: 0 (x), 1 (y) or 2 (z).

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("num_workgroups")


def lane_id() -> int:
    """Lane of the invocation in its wave, 0 to wave_width() - 1.

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("lane_id")


def wave_width() -> int:
    """Lanes per wave (32 by default on the emulator).

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("wave_width")


def barrier() -> None:
    """Waits until every invocation of the workgroup arrives. Never in divergent control flow.

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("barrier")


def shared(n: int, dtype):
    """A workgroup-shared array of n elements of dtype (a wave_gpu type or its name).

    Args:
        n: the number of elements, a constant.
        dtype: a wave_gpu type (``wave_gpu.f32``), its name or a NumPy dtype.

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("shared")


def _atomic(name: str):
    def atomic(array, index, value):
        _outside(name)

    atomic.__name__ = name
    atomic.__doc__ = (f"{name}(array, index, value): atomically updates array[index]; returns the old value.\n\n"
                      "Args:\n    array: a buffer or shared array.\n    index: the element.\n"
                      "    value: the operand.\n\nRaises:\n    RuntimeError: called outside a kernel.\n")
    return atomic


atomic_add = _atomic("atomic_add")
atomic_sub = _atomic("atomic_sub")
atomic_min = _atomic("atomic_min")
atomic_max = _atomic("atomic_max")
atomic_and = _atomic("atomic_and")
atomic_or = _atomic("atomic_or")
atomic_xor = _atomic("atomic_xor")
atomic_exchange = _atomic("atomic_exchange")


def atomic_cas(array, index, expected, new):
    """Stores new at array[index] if it holds expected; returns the old value.

    Args:
        array: a buffer or shared array of i32, u32, i64, u64, f32 or f64.
        index: the element.
        expected: the value ``array[index]`` must hold for the store.
        new: the value stored.

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("atomic_cas")


def _wave(name: str, doc: str):
    def wave_op(*args):
        _outside(name)

    wave_op.__name__ = name
    wave_op.__doc__ = doc + "\n\nRaises:\n    RuntimeError: called outside a kernel.\n"
    return wave_op


wave_broadcast = _wave("wave_broadcast", "wave_broadcast(x, lane): x of `lane` in every active lane.")
wave_shuffle = _wave("wave_shuffle", "wave_shuffle(x, lane): x of each lane's own source `lane`.")
wave_sum = _wave("wave_sum", "wave_sum(x): sum of x over the active lanes.")
wave_min = _wave("wave_min", "wave_min(x): minimum of x over the active lanes.")
wave_max = _wave("wave_max", "wave_max(x): maximum of x over the active lanes.")
wave_prefix_sum = _wave("wave_prefix_sum", "wave_prefix_sum(x): exclusive prefix sum over the active lanes.")
wave_any = _wave("wave_any", "wave_any(p): whether p holds in any active lane.")
wave_all = _wave("wave_all", "wave_all(p): whether p holds in every active lane.")
wave_ballot = _wave("wave_ballot", "wave_ballot(p): u64 bit mask of the active lanes where p holds.")

# Math: usable in kernels and, for convenience, on the host.
sqrt = _math.sqrt
sin = _math.sin
cos = _math.cos
tan = _math.tan
exp = _math.exp
log = _math.log
log2 = _math.log2
from wave_gpu._math import ceil, floor  # noqa: E402 - floats, as in GLSL (math.floor gives an int)


def exp2(x):
    """2 ** x."""
    return 2.0 ** x


def fma(a, b, c):
    """a * b + c, rounded once in kernels."""
    return a * b + c


INTRINSIC_NAMES = [
    "thread_id", "local_id", "workgroup_id", "workgroup_size", "num_workgroups", "lane_id", "wave_width", "barrier",
    "shared", "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_exchange", "atomic_cas", "wave_broadcast", "wave_shuffle", "wave_sum", "wave_min", "wave_max",
    "wave_prefix_sum", "wave_any", "wave_all", "wave_ballot", "sqrt", "sin", "cos", "tan", "exp", "exp2", "log",
    "log2", "floor", "ceil", "fma",
]
