"""Multi-dimensional arrays on the host side: shaped WaveArrays (`zeros((m, n))`,
`array(nested_lists)`), their shapes, indexing and strided views (the binding of arguments to
a kernel's launch is `_arguments`, above this and `_array`).

A kernel sees an N-D array as one flat buffer plus hidden i32 scalars: the shape, the strides
(in elements) and the offset of element [0, 0, ...] in the buffer. The buffer is the memory
the array spans, so a strided NumPy view (`a[::2, 1:]`, `a.T`) is passed in place: the
emulator writes the caller's memory directly, and a GPU call copies back only the elements
of the view (other arguments may share the span)."""

from __future__ import annotations

import numpy as np

MAX_NDIM = 3  # kernels index arrays of 1, 2 or 3 dimensions


def hidden_names(name: str, ndim: int) -> list[str]:
    """The hidden scalar parameters of an N-D array parameter, in launch order."""
    return ([f"{name}__shape{k}" for k in range(ndim)] + [f"{name}__stride{k}" for k in range(ndim)] +
            [f"{name}__offset"])


def kind_of(ndim: int) -> str:
    """The parameter kind of a signature: "buffer" for 1-D, "array2"/"array3" otherwise."""
    return "buffer" if ndim == 1 else f"array{ndim}"


def ndim_of(kind: str) -> int:
    return 1 if kind == "buffer" else int(kind[len("array"):])


def is_array_kind(kind: str) -> bool:
    return kind == "buffer" or kind.startswith("array")


# ---- WaveArray construction --------------------------------------------------------------

def shape_argument(n, argument: str = "n") -> tuple:
    """A shape from an int or a tuple of ints; TypeError/ValueError naming the argument."""
    parts = tuple(n) if isinstance(n, (tuple, list)) else (n,)
    if not parts:
        raise ValueError(f"{argument}: a shape needs at least one dimension")
    for part in parts:
        if isinstance(part, bool) or not isinstance(part, (int, np.integer)):
            raise TypeError(f"{argument}: expected an int or a tuple of ints, got {n!r}")
        if part < 0:
            raise ValueError(f"{argument}: dimensions must not be negative, got {n!r}")
    return tuple(int(part) for part in parts)


def is_nested(data) -> bool:
    """Whether `data` has more than one dimension (nested lists or an N-D array)."""
    if isinstance(data, np.ndarray):
        return data.ndim > 1
    if isinstance(data, (list, tuple)) and data:
        return isinstance(data[0], (list, tuple, np.ndarray))
    return False


def convert_nested(data, name: str, convert_flat) -> np.ndarray:
    """Nested lists (or an N-D array) as an N-D array of dtype `name`. `convert_flat` converts
    one flat sequence (it names the offending element); ragged data is a ValueError."""
    if isinstance(data, np.ndarray):
        return convert_flat(data.reshape(-1), name).reshape(data.shape)
    shape = _regular_shape(data)
    flat = []
    _flatten(data, flat)
    return convert_flat(flat, name).reshape(shape)


def _regular_shape(data, path: str = "data") -> tuple:
    if not isinstance(data, (list, tuple, np.ndarray)):
        return ()
    inner = [_regular_shape(item, f"{path}[{index}]") for index, item in enumerate(data)]
    if inner and any(shape != inner[0] for shape in inner):
        raise ValueError(f"data: nested lists must be regular (rows of one length); {path} has rows of shapes "
                         f"{sorted(set(inner))}")
    return (len(data),) + (inner[0] if inner else ())


def _flatten(data, out: list) -> None:
    for item in data:
        if isinstance(item, (list, tuple, np.ndarray)):
            _flatten(item, out)
        else:
            out.append(item)


def get_item(storage: np.ndarray, index):
    """WaveArray indexing beyond one integer: a[i, j] is a number, a[i] of a 2-D array a row list."""
    value = storage[index]
    return value.tolist() if isinstance(value, np.ndarray) else value.item()


def set_item(storage: np.ndarray, index, value, name: str, convert_flat) -> None:
    target = storage[index]
    if isinstance(target, np.ndarray):
        converted = convert_nested(value, name, convert_flat) if is_nested(value) else convert_flat(value, name)
        if converted.shape != target.shape:
            raise ValueError(f"value: expected values of shape {target.shape}, got {converted.shape}")
        storage[index] = converted
    else:
        storage[index] = convert_flat([value], name)[0]


# ---- kernel arguments ---------------------------------------------------------------------

class Strided:
    """A non-contiguous NumPy view passed to a kernel: `span` is the 1-D run of memory it
    covers (a view of the caller's memory), `offset` and `strides` locate its elements."""

    __slots__ = ("view", "span", "offset", "strides", "_flip")

    def __init__(self, view: np.ndarray):
        itemsize = view.dtype.itemsize
        self.view = view
        self._flip = tuple(slice(None, None, -1) if stride < 0 else slice(None) for stride in view.strides)
        forward = view[self._flip]  # every stride non-negative; starts at the lowest address
        length = 1 + sum((n - 1) * s // itemsize for n, s in zip(forward.shape, forward.strides)) if view.size else 0
        self.span = np.lib.stride_tricks.as_strided(forward, shape=(length,), strides=(itemsize,))
        self.strides = [s // itemsize for s in view.strides]
        self.offset = sum((n - 1) * -s for n, s in zip(view.shape, self.strides) if s < 0)

    def download(self, gpu, buffer) -> None:
        """Copies the view's elements (only those) from the device buffer to the caller's array."""
        staging = np.empty(self.span.shape, dtype=self.span.dtype)
        gpu.download(buffer, staging)
        forward = self.view[self._flip]
        self.view[...] = np.lib.stride_tricks.as_strided(staging, shape=forward.shape,
                                                          strides=forward.strides)[self._flip]
