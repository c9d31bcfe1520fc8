"""Handle, GridDesc and PencilInfo: the Python API of the seed over cudecomp._native."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cudecomp import _cuda_ops, _native
from cudecomp._arrays import (NUMPY_OF_DTYPE, check_array, check_dtype_argument, check_stream, check_work,
                              data_type_of)
from cudecomp._host_backends import host_grid_options
from cudecomp._native import DataType
from cudecomp._structs import GridDescAutotuneOptions, GridDescConfig

_AXES = {0: "X", 1: "Y", 2: "Z"}
_OPS = {"x_to_y": (0, 0, 1), "y_to_z": (1, 1, 2), "z_to_y": (2, 2, 1), "y_to_x": (3, 1, 0)}


@dataclass(frozen=True)
class PencilInfo:
    """Geometry of a pencil buffer (cudecompPencilInfo_t).

    ``shape``, ``lo``, ``hi`` (inclusive) and ``order`` are in local order, fastest axis first;
    ``halo_extents`` and ``padding`` in global order. ``array_shape`` is the shape a C-contiguous
    NumPy array for this pencil must have (``shape`` reversed).
    """

    shape: tuple
    lo: tuple
    hi: tuple
    order: tuple
    halo_extents: tuple
    padding: tuple
    size: int

    @property
    def array_shape(self) -> tuple:
        """The shape of a C-contiguous NumPy array holding this pencil: ``shape`` reversed."""
        return tuple(reversed(self.shape))

    @property
    def interior_slices(self) -> tuple:
        """Slices of an ``array_shape`` array (slowest axis first) that select the elements this
        rank owns: the pencil without its halos and padding."""
        slices = []
        for position in (2, 1, 0):  # array axes are local positions reversed
            start = self.halo_extents[self.order[position]]
            slices.append(slice(start, start + self.hi[position] - self.lo[position] + 1))
        return tuple(slices)

    @property
    def interior_shape(self) -> tuple:
        """The shape of :meth:`interior`'s view (``array_shape`` less halos and padding)."""
        return tuple(s.stop - s.start for s in self.interior_slices)

    def interior(self, array):
        """The pencil without its halos and padding, as a view of ``array``.

        Writing the view writes the pencil, so a kernel can fill the interior in place and
        ``update_halos_*`` then fills the halos of the same array.

        Args:
            array: this pencil's buffer, shaped ``array_shape`` (NumPy, or any array with
                ``shape`` and slicing).

        Returns:
            ``array[interior_slices]``, of shape ``interior_shape``.

        Raises:
            TypeError: ``array`` has no ``shape``.
            ValueError: its shape is not ``array_shape``.
        """
        shape = getattr(array, "shape", None)
        if shape is None:
            raise TypeError(f"array: expected an array of shape {self.array_shape}, got {type(array).__name__}")
        if tuple(shape) != self.array_shape:
            raise ValueError(f"array: expected this pencil's array_shape {self.array_shape}, got {tuple(shape)}")
        return array[self.interior_slices]

    def from_global(self, whole):
        """This rank's part of a whole-grid array, in the pencil's axis order.

        ``info.interior(pencil)[...] = info.from_global(whole)`` scatters a global array into a
        pencil and ``info.from_global(whole)[...] = info.interior(pencil)`` gathers it back (the
        pencil's memory order, ``transpose_axis_contiguous`` included, is taken care of).

        Args:
            whole: the whole grid, shape ``(gz, gy, gx)`` (``gdims`` reversed: x fastest).

        Returns:
            A view of ``whole`` with :meth:`interior`'s shape and axis order.

        Raises:
            TypeError: ``whole`` is not a 3-D array.
            ValueError: ``whole`` is smaller than the grid along a dimension this pencil spans.
        """
        shape = getattr(whole, "shape", None)
        if shape is None or len(shape) != 3:
            raise TypeError(f"whole: expected a 3-D array of shape (gz, gy, gx), got "
                            f"{type(whole).__name__ if shape is None else f'shape {tuple(shape)}'}")
        boxes = [slice(0, 0)] * 3
        for position in range(3):
            dim = self.order[position]
            if self.hi[position] >= shape[2 - dim]:
                raise ValueError(f"whole: dimension {dim} (array axis {2 - dim}) has {shape[2 - dim]} elements; "
                                 f"this pencil owns up to index {self.hi[position]}: pass the whole grid, "
                                 "shape (gdims[2], gdims[1], gdims[0])")
            boxes[2 - dim] = slice(self.lo[position], self.hi[position] + 1)
        # Local array axis a holds local position 2 - a, which is global dim order[2 - a], which is
        # the whole array's axis 2 - order[2 - a].
        return whole[tuple(boxes)].transpose([2 - self.order[2 - axis] for axis in range(3)])


def _triple(name: str, value, default=0, kind=int) -> tuple:
    if value is None:
        return (default,) * 3
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(f"{name}: expected a sequence of 3 values, got {type(value).__name__}")
    items = list(np.asarray(value).tolist()) if isinstance(value, np.ndarray) else list(value)
    if len(items) != 3:
        raise ValueError(f"{name}: expected 3 values, got {len(items)}")
    out = []
    for item in items:
        if kind is bool:
            if not isinstance(item, (bool, np.bool_)) and item not in (0, 1):
                raise TypeError(f"{name}: expected booleans, got {item!r}")
            out.append(bool(item))
        else:
            if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer)):
                raise TypeError(f"{name}: expected integers, got {item!r}")
            if item < 0:
                raise ValueError(f"{name}: values must be >= 0, got {item}")
            out.append(int(item))
    return tuple(out)


def _check_axis(name: str, value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
    if value not in (0, 1, 2):
        raise ValueError(f"{name}: must be 0 (X), 1 (Y) or 2 (Z), got {value}")
    return int(value)


class Handle:
    """Collectively initializes cudecomp over an mpi4py communicator (cudecompInit).

    Args:
        mpi_comm: an ``mpi4py.MPI.Comm``; every rank of it must create the handle.

    Raises:
        TypeError: ``mpi_comm`` is not an mpi4py communicator.
        ValueError: ``mpi_comm`` is ``MPI.COMM_NULL``, or MPI is not initialized or already
            finalized.
        CudecompError: the library's initialization failed (its ``code`` says why).
    """

    def __init__(self, mpi_comm):
        from mpi4py import MPI  # imported here so that importing cudecomp starts no MPI work

        if not isinstance(mpi_comm, MPI.Comm):
            raise TypeError(f"mpi_comm: expected an mpi4py.MPI.Comm, got {type(mpi_comm).__name__}")
        if mpi_comm == MPI.COMM_NULL:
            raise ValueError("mpi_comm: MPI.COMM_NULL is not a communicator")
        if not MPI.Is_initialized() or MPI.Is_finalized():
            raise ValueError("mpi_comm: MPI is not initialized (or already finalized)")
        self._comm = mpi_comm
        self._native = _native.Handle(MPI._handleof(mpi_comm))

    @property
    def rank(self) -> int:
        """This process's rank in the handle's communicator."""
        return self._native.rank

    @property
    def size(self) -> int:
        """The number of ranks in the handle's communicator."""
        return self._native.size

    def create_grid(self, config: GridDescConfig, options: GridDescAutotuneOptions | None = None) -> "GridDesc":
        """Creates a grid descriptor (collective). Autotuning results are written back into ``config``.

        Args:
            config: the grid's configuration; ``pdims`` (0, 0) or backends chosen by ``options``
                are autotuned, and the chosen values are written back into it.
            options: autotuning options, or None for no autotuning (``pdims`` must then be set).

        Returns:
            The new :class:`GridDesc`.

        Raises:
            TypeError: ``config`` or ``options`` has the wrong type.
            CudecompError: the library refused the configuration (``code`` is
                ``Result.INVALID_USAGE`` for bad values, ``Result.NOT_SUPPORTED`` for a backend
                this build cannot run, such as NCCL in the NumPy package).
        """
        if not isinstance(config, GridDescConfig):
            raise TypeError(f"config: expected a cudecomp.GridDescConfig, got {type(config).__name__}")
        if options is not None and not isinstance(options, GridDescAutotuneOptions):
            raise TypeError(f"options: expected a cudecomp.GridDescAutotuneOptions or None, "
                            f"got {type(options).__name__}")
        if not _native.has_cuda:
            # NumPy arrays: NCCL and NVSHMEM are refused here, before any communication.
            options = host_grid_options(config, options)
        native = self._native.create_grid(config._bytes_view(), None if options is None else options._bytes_view())
        return GridDesc._create(self, native)

    def finalize(self) -> None:
        """Releases the handle (collective); grids created from it are destroyed first.

        Raises:
            CudecompError: the library failed to release it.
        """
        self._native.finalize()


class GridDesc:
    """A grid descriptor, from :meth:`Handle.create_grid`; call :meth:`destroy` when done."""

    def __init__(self, *args, **kwargs):
        raise TypeError("GridDesc is not constructible; use Handle.create_grid(config, options)")

    @classmethod
    def _create(cls, handle: Handle, native) -> "GridDesc":
        grid = object.__new__(cls)
        grid._handle = handle
        grid._native = native
        grid._work = None  # managed workspace, a uint8 buffer reused across calls
        return grid

    # -- queries -----------------------------------------------------------------------------

    @property
    def config(self) -> GridDescConfig:
        """The configuration the grid was created with, autotuning results included (a copy)."""
        return GridDescConfig._from_bytes(self._native.config_bytes())

    @property
    def autotune_report(self) -> str:
        """The autotuner's log lines ('' when the grid was not autotuned)."""
        return self._native.autotune_report

    @property
    def coords(self) -> tuple:
        """This rank's (row, column) on the process grid."""
        return tuple(self._native.coords)

    def get_pencil_info(self, axis: int, halo_extents=None, padding=None) -> PencilInfo:
        """This rank's pencil along ``axis`` (cudecompGetPencilInfo).

        Args:
            axis: 0 (X), 1 (Y) or 2 (Z).
            halo_extents: halo width per global dimension (three ints >= 0), or None for none.
            padding: padding per global dimension (three ints >= 0), or None for none.

        Returns:
            The pencil's :class:`PencilInfo`.

        Raises:
            TypeError: an argument has the wrong type.
            ValueError: ``axis`` is not 0, 1 or 2, or a triple has the wrong length or a negative value.
            CudecompError: the library refused the query (a pencil too large to describe).
        """
        axis = _check_axis("axis", axis)
        info = self._native.pencil_info(axis, _triple("halo_extents", halo_extents), _triple("padding", padding))
        return PencilInfo(**info)

    def get_transpose_workspace_size(self) -> int:
        """Elements a transpose's ``work`` array must hold (cudecompGetTransposeWorkspaceSize)."""
        return self._native.transpose_workspace_size()

    def get_halo_workspace_size(self, axis: int, halo_extents) -> int:
        """Elements a halo update's ``work`` array must hold (cudecompGetHaloWorkspaceSize).

        Args:
            axis: the pencil, 0 (X), 1 (Y) or 2 (Z).
            halo_extents: halo width per global dimension (three ints >= 0); required.

        Raises:
            TypeError: ``halo_extents`` is None or an argument has the wrong type.
            ValueError: ``axis`` is not 0, 1 or 2, or ``halo_extents`` is not three values >= 0.
        """
        axis = _check_axis("axis", axis)
        if halo_extents is None:
            raise TypeError("halo_extents: required")
        return self._native.halo_workspace_size(axis, _triple("halo_extents", halo_extents))

    def get_shifted_rank(self, axis: int, dim: int, displacement: int, periodic: bool) -> int:
        """The rank that holds the neighbouring pencil (cudecompGetShiftedRank).

        Args:
            axis: the pencil, 0 (X), 1 (Y) or 2 (Z).
            dim: the global dimension to move along, 0, 1 or 2.
            displacement: how many pencils to move (negative: backwards).
            periodic: whether the grid wraps around along ``dim``.

        Returns:
            The neighbour's rank, or -1 where a non-periodic grid has none.

        Raises:
            TypeError: an argument has the wrong type.
            ValueError: ``axis`` or ``dim`` is not 0, 1 or 2.
        """
        axis = _check_axis("axis", axis)
        dim = _check_axis("dim", dim)
        if isinstance(displacement, (bool, np.bool_)) or not isinstance(displacement, (int, np.integer)):
            raise TypeError(f"displacement: expected an int, got {type(displacement).__name__}")
        if not isinstance(periodic, (bool, np.bool_)):
            raise TypeError(f"periodic: expected a bool, got {type(periodic).__name__}")
        return self._native.shifted_rank(axis, dim, int(displacement), bool(periodic))

    def destroy(self) -> None:
        """Releases the grid's communicators and workspace (collective).

        Raises:
            CudecompError: the library failed to release them.
        """
        self._work = None
        self._native.destroy()

    # -- workspace -------------------------------------------------------------------------

    def _managed_work(self, dtype: DataType, elements: int) -> np.ndarray:
        itemsize = np.dtype(NUMPY_OF_DTYPE[dtype]).itemsize
        nbytes = max(elements, 1) * itemsize
        if self._work is None or self._work.nbytes < nbytes:
            self._work = np.empty(nbytes, dtype=np.uint8)
        return self._work[:nbytes].view(NUMPY_OF_DTYPE[dtype])

    # -- transposes --------------------------------------------------------------------------

    def _transpose(self, op_name, input, out, work, dtype, input_halo_extents, output_halo_extents,
                   input_padding, output_padding, stream):
        if not self._native.alive:
            raise ValueError("grid: the grid descriptor was destroyed")
        op, in_axis, out_axis = _OPS[op_name]
        dtype = check_dtype_argument(dtype)
        check_stream(stream)
        ih = _triple("input_halo_extents", input_halo_extents)
        oh = _triple("output_halo_extents", output_halo_extents)
        ip = _triple("input_padding", input_padding)
        opad = _triple("output_padding", output_padding)
        if _native.has_cuda:
            return _cuda_ops.transpose(self, op, self.get_pencil_info(in_axis, ih, ip),
                                       self.get_pencil_info(out_axis, oh, opad), input, out, work, dtype,
                                       (ih, oh, ip, opad), stream)
        inferred = data_type_of("input", input)
        if dtype is None:
            dtype = inferred
        in_info = self.get_pencil_info(in_axis, ih, ip)
        out_info = self.get_pencil_info(out_axis, oh, opad)
        same_start = (isinstance(out, np.ndarray) and isinstance(input, np.ndarray) and out is not input
                      and out.ctypes.data == input.ctypes.data)
        in_place = out is input or same_start
        check_array("input", input, in_info.array_shape, dtype, writable=in_place)
        if out is input:
            if input.size < out_info.size:
                raise ValueError(f"out: in place needs {out_info.size} elements for the output pencil, the input "
                                 f"array holds {input.size}; pass out as a view of the same buffer with the "
                                 f"output pencil's array_shape {out_info.array_shape}")
            result = input.reshape(-1)[:out_info.size].reshape(out_info.array_shape)
        elif out is None:
            result = np.empty(out_info.array_shape, dtype=NUMPY_OF_DTYPE[dtype])
        else:
            # A view of the input's buffer that starts at the same address is in place, as in the C API
            # where input == output; any other overlap is an error.
            check_array("out", out, out_info.array_shape, dtype, writable=True)
            if not same_start and np.shares_memory(out, input):
                raise ValueError("out: overlaps input; pass out=input (or a view starting at the same address) "
                                 "for an in-place transpose")
            result = out
        needs_work = self._native.transpose_needs_work(op, in_place, ih, oh, ip, opad)
        elements = self.get_transpose_workspace_size()
        if work is None:
            work_array = self._managed_work(dtype, elements) if needs_work else None
        else:
            check_work("work", work, dtype, elements)
            if np.shares_memory(work, input) or np.shares_memory(work, result):
                raise ValueError("work: overlaps input or out")
            work_array = work
        # In place, result is a view of the input's buffer with the output shape, at the same address.
        self._native.transpose(op, input, result, work_array, dtype, ih, oh, ip, opad)
        return result

    def transpose_x_to_y(self, input, out=None, work=None, dtype=None, input_halo_extents=None,
                         output_halo_extents=None, input_padding=None, output_padding=None, stream=None):
        """X-pencils to Y-pencils (collective); returns the output array (``out``, a new
        array, or a view of ``input`` in place).

        Args:
            input: the X pencil array (shaped like ``get_pencil_info(0, input_halo_extents,
                input_padding).array_shape``; float32, float64, complex64 or complex128).
            out: the output array, None for a new one, or ``input`` itself (in place).
            work: a workspace of at least ``get_transpose_workspace_size()`` elements, or None for
                one kept with the grid.
            dtype: a :class:`DataType`, or None for the input's.
            input_halo_extents: halo widths of the input pencil (three ints), or None.
            output_halo_extents: halo widths of the output pencil, or None.
            input_padding: padding of the input pencil, or None.
            output_padding: padding of the output pencil, or None.
            stream: accepted as cuDecomp documents it; host operations are synchronous.

        Returns:
            The Y pencil array.

        Raises:
            TypeError: an array has the wrong type or dtype (no conversion is done).
            ValueError: an array has the wrong shape, is not C-contiguous or writable, overlaps
                another, or the grid was destroyed.
            CudecompError: the operation failed (``Result.NOT_SUPPORTED`` on a grid that leaves
                some rank's pencil empty in C; see the guide).
        """
        return self._transpose("x_to_y", input, out, work, dtype, input_halo_extents, output_halo_extents,
                               input_padding, output_padding, stream)

    def transpose_y_to_z(self, input, out=None, work=None, dtype=None, input_halo_extents=None,
                         output_halo_extents=None, input_padding=None, output_padding=None, stream=None):
        """Y-pencils to Z-pencils (collective); returns the output array (``out``, a new
        array, or a view of ``input`` in place).

        Args:
            input: the Y pencil array (shaped like ``get_pencil_info(1, input_halo_extents,
                input_padding).array_shape``; float32, float64, complex64 or complex128).
            out: the output array, None for a new one, or ``input`` itself (in place).
            work: a workspace of at least ``get_transpose_workspace_size()`` elements, or None for
                one kept with the grid.
            dtype: a :class:`DataType`, or None for the input's.
            input_halo_extents: halo widths of the input pencil (three ints), or None.
            output_halo_extents: halo widths of the output pencil, or None.
            input_padding: padding of the input pencil, or None.
            output_padding: padding of the output pencil, or None.
            stream: accepted as cuDecomp documents it; host operations are synchronous.

        Returns:
            The Z pencil array.

        Raises:
            TypeError: an array has the wrong type or dtype (no conversion is done).
            ValueError: an array has the wrong shape, is not C-contiguous or writable, overlaps
                another, or the grid was destroyed.
            CudecompError: the operation failed (``Result.NOT_SUPPORTED`` on a grid that leaves
                some rank's pencil empty in C; see the guide).
        """
        return self._transpose("y_to_z", input, out, work, dtype, input_halo_extents, output_halo_extents,
                               input_padding, output_padding, stream)

    def transpose_z_to_y(self, input, out=None, work=None, dtype=None, input_halo_extents=None,
                         output_halo_extents=None, input_padding=None, output_padding=None, stream=None):
        """Z-pencils to Y-pencils (collective); returns the output array (``out``, a new
        array, or a view of ``input`` in place).

        Args:
            input: the Z pencil array (shaped like ``get_pencil_info(2, input_halo_extents,
                input_padding).array_shape``; float32, float64, complex64 or complex128).
            out: the output array, None for a new one, or ``input`` itself (in place).
            work: a workspace of at least ``get_transpose_workspace_size()`` elements, or None for
                one kept with the grid.
            dtype: a :class:`DataType`, or None for the input's.
            input_halo_extents: halo widths of the input pencil (three ints), or None.
            output_halo_extents: halo widths of the output pencil, or None.
            input_padding: padding of the input pencil, or None.
            output_padding: padding of the output pencil, or None.
            stream: accepted as cuDecomp documents it; host operations are synchronous.

        Returns:
            The Y pencil array.

        Raises:
            TypeError: an array has the wrong type or dtype (no conversion is done).
            ValueError: an array has the wrong shape, is not C-contiguous or writable, overlaps
                another, or the grid was destroyed.
            CudecompError: the operation failed (``Result.NOT_SUPPORTED`` on a grid that leaves
                some rank's pencil empty in C; see the guide).
        """
        return self._transpose("z_to_y", input, out, work, dtype, input_halo_extents, output_halo_extents,
                               input_padding, output_padding, stream)

    def transpose_y_to_x(self, input, out=None, work=None, dtype=None, input_halo_extents=None,
                         output_halo_extents=None, input_padding=None, output_padding=None, stream=None):
        """Y-pencils to X-pencils (collective); returns the output array (``out``, a new
        array, or a view of ``input`` in place).

        Args:
            input: the Y pencil array (shaped like ``get_pencil_info(1, input_halo_extents,
                input_padding).array_shape``; float32, float64, complex64 or complex128).
            out: the output array, None for a new one, or ``input`` itself (in place).
            work: a workspace of at least ``get_transpose_workspace_size()`` elements, or None for
                one kept with the grid.
            dtype: a :class:`DataType`, or None for the input's.
            input_halo_extents: halo widths of the input pencil (three ints), or None.
            output_halo_extents: halo widths of the output pencil, or None.
            input_padding: padding of the input pencil, or None.
            output_padding: padding of the output pencil, or None.
            stream: accepted as cuDecomp documents it; host operations are synchronous.

        Returns:
            The X pencil array.

        Raises:
            TypeError: an array has the wrong type or dtype (no conversion is done).
            ValueError: an array has the wrong shape, is not C-contiguous or writable, overlaps
                another, or the grid was destroyed.
            CudecompError: the operation failed (``Result.NOT_SUPPORTED`` on a grid that leaves
                some rank's pencil empty in C; see the guide).
        """
        return self._transpose("y_to_x", input, out, work, dtype, input_halo_extents, output_halo_extents,
                               input_padding, output_padding, stream)

    # -- halos -------------------------------------------------------------------------------

    def _update_halos(self, axis, data, dim, halo_extents, halo_periods, padding, work, dtype, stream):
        if not self._native.alive:
            raise ValueError("grid: the grid descriptor was destroyed")
        dtype = check_dtype_argument(dtype)
        check_stream(stream)
        dim = _check_axis("dim", dim)
        if halo_extents is None:
            raise TypeError("halo_extents: required")
        halo = _triple("halo_extents", halo_extents)
        periods = _triple("halo_periods", halo_periods, default=False, kind=bool)
        pad = _triple("padding", padding)
        if _native.has_cuda:
            return _cuda_ops.update_halos(self, axis, self.get_pencil_info(axis, halo, pad), data, dim, halo, periods,
                                          pad, work, dtype, stream)
        inferred = data_type_of("data", data)
        if dtype is None:
            dtype = inferred
        info = self.get_pencil_info(axis, halo, pad)
        check_array("data", data, info.array_shape, dtype, writable=True)
        elements = self.get_halo_workspace_size(axis, halo)
        if work is None:
            work_array = self._managed_work(dtype, elements)
        else:
            check_work("work", work, dtype, elements)
            if np.shares_memory(work, data):
                raise ValueError("work: overlaps data")
            work_array = work
        self._native.update_halos(axis, data, work_array, dtype, halo, periods, dim, pad)
        return data

    def update_halos_x(self, data, dim, halo_extents, halo_periods=None, padding=None, work=None, dtype=None,
                       stream=None):
        """Updates the halos of X-pencil ``data`` along global dimension ``dim``, in place (collective).

        Args:
            data: the X pencil array with its halos (shaped like ``get_pencil_info(0,
                halo_extents, padding).array_shape``); updated in place.
            dim: the global dimension whose halos are exchanged, 0, 1 or 2.
            halo_extents: halo width per global dimension (three ints >= 0); required.
            halo_periods: whether each global dimension wraps around (three bools), or None for none.
            padding: padding per global dimension, or None.
            work: a workspace of at least ``get_halo_workspace_size(0, halo_extents)`` elements, or
                None for one kept with the grid.
            dtype: a :class:`DataType`, or None for the data's.
            stream: accepted as cuDecomp documents it; host operations are synchronous.

        Returns:
            ``data``.

        Raises:
            TypeError: ``halo_extents`` is missing, or an argument has the wrong type or dtype.
            ValueError: ``dim`` is not 0, 1 or 2, ``data`` has the wrong shape or is not
                writable, ``work`` overlaps it, or the grid was destroyed.
            CudecompError: the operation failed.
        """
        return self._update_halos(0, data, dim, halo_extents, halo_periods, padding, work, dtype, stream)

    def update_halos_y(self, data, dim, halo_extents, halo_periods=None, padding=None, work=None, dtype=None,
                       stream=None):
        """Updates the halos of Y-pencil ``data`` along global dimension ``dim``, in place (collective).

        Args:
            data: the Y pencil array with its halos (shaped like ``get_pencil_info(1,
                halo_extents, padding).array_shape``); updated in place.
            dim: the global dimension whose halos are exchanged, 0, 1 or 2.
            halo_extents: halo width per global dimension (three ints >= 0); required.
            halo_periods: whether each global dimension wraps around (three bools), or None for none.
            padding: padding per global dimension, or None.
            work: a workspace of at least ``get_halo_workspace_size(1, halo_extents)`` elements, or
                None for one kept with the grid.
            dtype: a :class:`DataType`, or None for the data's.
            stream: accepted as cuDecomp documents it; host operations are synchronous.

        Returns:
            ``data``.

        Raises:
            TypeError: ``halo_extents`` is missing, or an argument has the wrong type or dtype.
            ValueError: ``dim`` is not 0, 1 or 2, ``data`` has the wrong shape or is not
                writable, ``work`` overlaps it, or the grid was destroyed.
            CudecompError: the operation failed.
        """
        return self._update_halos(1, data, dim, halo_extents, halo_periods, padding, work, dtype, stream)

    def update_halos_z(self, data, dim, halo_extents, halo_periods=None, padding=None, work=None, dtype=None,
                       stream=None):
        """Updates the halos of Z-pencil ``data`` along global dimension ``dim``, in place (collective).

        Args:
            data: the Z pencil array with its halos (shaped like ``get_pencil_info(2,
                halo_extents, padding).array_shape``); updated in place.
            dim: the global dimension whose halos are exchanged, 0, 1 or 2.
            halo_extents: halo width per global dimension (three ints >= 0); required.
            halo_periods: whether each global dimension wraps around (three bools), or None for none.
            padding: padding per global dimension, or None.
            work: a workspace of at least ``get_halo_workspace_size(2, halo_extents)`` elements, or
                None for one kept with the grid.
            dtype: a :class:`DataType`, or None for the data's.
            stream: accepted as cuDecomp documents it; host operations are synchronous.

        Returns:
            ``data``.

        Raises:
            TypeError: ``halo_extents`` is missing, or an argument has the wrong type or dtype.
            ValueError: ``dim`` is not 0, 1 or 2, ``data`` has the wrong shape or is not
                writable, ``work`` overlaps it, or the grid was destroyed.
            CudecompError: the operation failed.
        """
        return self._update_halos(2, data, dim, halo_extents, halo_periods, padding, work, dtype, stream)


def get_data_type_size(dtype: DataType) -> int:
    """Bytes per element of a cudecomp.DataType (cudecompGetDataTypeSize).

    Args:
        dtype: a :class:`DataType` member.

    Raises:
        TypeError: ``dtype`` is None or not a :class:`DataType`.
    """
    check_dtype_argument(dtype)
    if dtype is None:
        raise TypeError("dtype: required")
    return _native.data_type_size(dtype)


def prod(values) -> int:
    return math.prod(values)
