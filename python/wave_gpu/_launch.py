"""The launch shape of a kernel call: grid, workgroup and the thread limit.

- `grid=` and `workgroup=` both given: every thread of the grid runs, as in CUDA.
- Otherwise the launch covers `n` threads: `dim=n` (an int, or a tuple of up to three ints,
  as Warp's `launch(dim=...)`), else the length of the first buffer argument. The grid is
  rounded up to whole workgroups and the padding threads past `n` are not launched: they do
  nothing, take no part in barriers, and wave operations see only the launched lanes. So a
  kernel needs no `if i < n` guard."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

DEFAULT_WORKGROUP = 256
MAX_THREADS_PER_DIMENSION = 2**31  # thread_id() is an i32: ids 0 .. 2^31 - 1
_NO_LIMIT = 2**32 - 1
# Default workgroup shapes of a multi-dimensional dim= (at most 256 threads).
_DEFAULT_SHAPES = {1: (DEFAULT_WORKGROUP, 1, 1), 2: (16, 16, 1), 3: (8, 8, 4)}


def dims(value, argument: str) -> tuple:
    """A launch shape as three positive ints (an int or a 1-3 tuple is accepted)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),)
    if not isinstance(value, (tuple, list)) or not 1 <= len(value) <= 3:
        raise TypeError(f"{argument}: expected a tuple of one to three ints, got {value!r}")
    result = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
            raise TypeError(f"{argument}: expected ints, got {value!r}")
        if item < 1:
            raise ValueError(f"{argument}: every dimension must be at least 1, got {value!r}")
        if item > _NO_LIMIT:
            raise ValueError(f"{argument}: {item} does not fit in 32 bits")
        result.append(int(item))
    return tuple(result + [1] * (3 - len(result)))


def _dim(value) -> tuple:
    """dim= as a tuple of one to three non-negative ints."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),)
    if not isinstance(value, (tuple, list)) or not 1 <= len(value) <= 3 or \
            any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in value):
        raise TypeError(f"dim: expected an int or a tuple of one to three ints, got {value!r}")
    if any(v < 0 for v in value):
        raise ValueError(f"dim: must not be negative, got {value!r}")
    return tuple(int(v) for v in value)


def _check_ids(name: str, grid: tuple, workgroup: tuple, argument: str) -> None:
    for axis in range(3):
        threads = grid[axis] * workgroup[axis]
        if threads > MAX_THREADS_PER_DIMENSION:
            raise ValueError(f"{argument}: {name}() would run {threads} threads along dimension {axis}; thread_id() "
                             f"is a 32-bit int, so at most {MAX_THREADS_PER_DIMENSION} (2^31) are allowed")


def launch_shape(name: str, grid, workgroup, dim, first_length: Optional[int]):
    """(grid, workgroup, limit) of a call, or (None, None, None) when there is nothing to run.
    `limit` is None when every thread runs, else three ints (threads at or past it do nothing)."""
    if workgroup is not None:
        workgroup = dims(workgroup, "workgroup")
    if grid is not None:
        grid = dims(grid, "grid")
    if dim is not None:
        if grid is not None:
            raise TypeError(f"{name}(): pass dim= (the threads to run) or grid= (the workgroups), not both")
        extent = _dim(dim)
    elif grid is not None and workgroup is not None:
        _check_ids(name, grid, workgroup, "grid")
        return grid, workgroup, None
    elif first_length is None:
        raise TypeError(f"{name}(): pass dim= or grid= and workgroup= (the launch is inferred from the first "
                        "buffer argument, and this call has none)")
    else:
        extent = (first_length,)
    if grid is not None:  # grid= with an inferred workgroup: every thread of the grid runs
        if first_length == 0:
            return None, None, None
        workgroup = (min(DEFAULT_WORKGROUP, max(first_length, 1)), 1, 1)
        _check_ids(name, grid, workgroup, "grid")
        return grid, workgroup, None
    argument = "dim" if dim is not None else "the length of the first buffer"
    for axis, count in enumerate(extent):
        if count > MAX_THREADS_PER_DIMENSION:
            raise ValueError(f"{argument}: {count} threads along dimension {axis}; thread_id() is a 32-bit int, so "
                             f"at most {MAX_THREADS_PER_DIMENSION} (2^31) are allowed")
    if 0 in extent:
        return None, None, None
    full = extent + (1,) * (3 - len(extent))
    if workgroup is None:
        workgroup = tuple(min(size, count) for size, count in zip(_DEFAULT_SHAPES[len(extent)], full))
    grid = tuple(math.ceil(count / size) for count, size in zip(full, workgroup))
    limit = list(full)
    if len(extent) == 1:
        limit[1] = limit[2] = _NO_LIMIT  # a 1-D count leaves y and z of a custom workgroup alone
    return grid, workgroup, limit


def check_timeout(timeout) -> Optional[float]:
    """timeout= as a positive float (seconds) or None."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer, np.floating)):
        raise TypeError(f"timeout: expected a number of seconds or None, got {type(timeout).__name__}")
    if not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(f"timeout: must be a positive number of seconds, got {timeout!r}")
    return float(timeout)
