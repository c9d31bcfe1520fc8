"""GridDescConfig and GridDescAutotuneOptions: the C structs of cudecomp.h, kept in NumPy
structured storage whose layout comes from the native module (offsetof), so the bytes handed to
the C++ core are exactly the C struct. Array fields are writable NumPy views into that storage;
whole-field assignment takes tuples, lists or arrays and is checked before anything changes."""

from __future__ import annotations

import numpy as np

from cudecomp import _native
from cudecomp._native import AutotuneGridMode, DataType, HaloCommBackend, RankOrder, TransposeCommBackend


def _structured_dtype(layout) -> np.dtype:
    itemsize, fields = layout
    return np.dtype({
        "names": [name for name, _, _, _ in fields],
        "formats": [(code, tuple(shape)) if shape else code for _, _, code, shape in fields],
        "offsets": [offset for _, offset, _, _ in fields],
        "itemsize": itemsize,
    })


_INT32 = np.iinfo(np.int32)


def _checked_array(owner: str, name: str, value, shape: tuple, kind: str) -> np.ndarray:
    """Converts a whole-field value; raises TypeError/ValueError naming the field."""
    field = f"{owner}.{name}"
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{field}: expected a sequence or array of shape {shape}, got {type(value).__name__}")
    array = np.asarray(value)
    if array.shape != shape:
        raise ValueError(f"{field}: expected shape {shape}, got {array.shape}")
    if kind == "b":
        if array.dtype.kind == "b":
            return array
        if array.dtype.kind in "iu" and np.all((array == 0) | (array == 1)):
            return array.astype(bool)
        raise TypeError(f"{field}: expected booleans, got dtype {array.dtype}")
    if kind == "i":
        if array.dtype.kind not in "iu":
            raise TypeError(f"{field}: expected integers, got dtype {array.dtype}")
        if array.size and (array.min() < _INT32.min or array.max() > _INT32.max):
            raise ValueError(f"{field}: values must fit in int32")
        return array
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{field}: expected real numbers, got dtype {array.dtype}")
    return array


class _Field:
    """Descriptor of one struct field: arrays are views, scalars are Python values or enums."""

    def __init__(self, name: str, shape: tuple, kind: str, enum=None):
        self.name, self.shape, self.kind, self.enum = name, shape, kind, enum

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        stored = instance._storage[self.name][0]
        if self.shape:
            return stored  # a writable view into the struct storage
        if self.enum is not None:
            return self.enum(int(stored))
        if self.kind == "b":
            return bool(stored)
        if self.kind == "i":
            return int(stored)
        return float(stored)

    def __set__(self, instance, value):
        owner = type(instance).__name__
        field = f"{owner}.{self.name}"
        if self.shape:
            instance._storage[self.name][0][...] = _checked_array(owner, self.name, value, self.shape, self.kind)
            return
        if self.enum is not None:
            if not isinstance(value, self.enum):
                raise TypeError(f"{field}: expected a cudecomp.{self.enum.__name__} member, got {value!r}")
            instance._storage[self.name] = int(value.value)
        elif self.kind == "b":
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{field}: expected a bool, got {type(value).__name__}")
            instance._storage[self.name] = bool(value)
        elif self.kind == "i":
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{field}: expected an int, got {type(value).__name__}")
            if not _INT32.min <= int(value) <= _INT32.max:
                raise ValueError(f"{field}: value must fit in int32")
            instance._storage[self.name] = int(value)
        else:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise TypeError(f"{field}: expected a float, got {type(value).__name__}")
            instance._storage[self.name] = float(value)


class _Struct:
    """Base of the two struct classes: storage, copy, equality and a readable repr."""

    __slots__ = ("_storage",)
    _dtype: np.dtype
    _defaults: bytes

    def __init__(self):
        self._storage = np.frombuffer(bytearray(self._defaults), dtype=self._dtype).copy()

    @classmethod
    def _from_bytes(cls, data: bytes):
        instance = cls.__new__(cls)
        instance._storage = np.frombuffer(bytearray(data), dtype=cls._dtype).copy()
        return instance

    def _bytes_view(self) -> np.ndarray:
        return self._storage.view(np.uint8)

    def copy(self):
        """An independent copy."""
        return type(self)._from_bytes(self._storage.tobytes())

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(np.array_equal(self._storage[n], other._storage[n]) for n in self._dtype.names)

    __hash__ = None

    def __repr__(self):
        parts = []
        for name in self._dtype.names:
            value = getattr(self, name)
            parts.append(f"{name}={value.tolist() if isinstance(value, np.ndarray) else value!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


def _install_fields(cls, layout, kinds: dict, enums: dict):
    for name, _, code, shape in layout[1]:
        kind = "b" if code == "?" else ("f" if code.endswith("f8") else "i")
        setattr(cls, name, _Field(name, tuple(shape), kind, enums.get(name)))


class GridDescConfig(_Struct):
    """Configuration of a grid descriptor (cudecompGridDescConfig_t), initialized to defaults.

    Fields: gdims, gdims_dist, pdims, rank_order, transpose_comm_backend,
    transpose_axis_contiguous, transpose_mem_order, halo_comm_backend. Assigning a value of the
    wrong type or shape to a field raises ``TypeError`` or ``ValueError`` naming the field.
    """

    __slots__ = ()
    _dtype = _structured_dtype(_native.config_layout())
    _defaults = _native.default_config_bytes()


class GridDescAutotuneOptions(_Struct):
    """Autotuning options (cudecompGridDescAutotuneOptions_t), initialized to defaults.

    Fields as upstream's: grid_mode, dtype, allow_uneven_decompositions, disable_nccl_backends,
    disable_nvshmem_backends, disable_mpi_backends, skip_threshold, autotune_transpose_backend,
    autotune_halo_backend, halo_extents, halo_periods, halo_padding, halo_axis,
    transpose_use_inplace_buffers, transpose_op_weights, transpose_input_halo_extents,
    transpose_output_halo_extents, transpose_input_padding, transpose_output_padding,
    n_warmup_trials and n_trials. Assigning a
    value of the wrong type or shape raises ``TypeError`` or ``ValueError`` naming the field.
    """

    __slots__ = ()
    _dtype = _structured_dtype(_native.options_layout())
    _defaults = _native.default_options_bytes()


_install_fields(GridDescConfig, _native.config_layout(), {}, {
    "rank_order": RankOrder,
    "transpose_comm_backend": TransposeCommBackend,
    "halo_comm_backend": HaloCommBackend,
})
_install_fields(GridDescAutotuneOptions, _native.options_layout(), {}, {
    "grid_mode": AutotuneGridMode,
    "dtype": DataType,
})
