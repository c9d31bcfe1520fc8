"""The GPU build's transposes and halo updates: CUDA arrays in, raw device addresses and a stream
handle to the native layer. Every argument is checked (naming it) before the native call; the
native layer runs the operation where the input lives. Used by GridDesc when
``cudecomp._native.has_cuda`` is set."""

from __future__ import annotations

from cudecomp._cuda_arrays import (CudaArray, allocate_output, check_cuda_array, parse_cuda_array, resolve_dtype,
                                   stream_handle)
from cudecomp._native import DataType


def _span(array: CudaArray) -> tuple[int, int]:
    """[start, end) byte range of a C-contiguous array."""
    return array.ptr, array.ptr + array.size * array.itemsize


def _overlap(a: CudaArray, b: CudaArray) -> bool:
    (a0, a1), (b0, b1) = _span(a), _span(b)
    return a0 < b1 and b0 < a1


def _work_pointer(work, dtype: DataType, elements: int, *others: CudaArray) -> int:
    """The address of a caller's workspace (0: the grid's managed one), checked first."""
    if work is None:
        return 0
    array = parse_cuda_array("work", work)
    resolve_dtype(array, dtype)
    if not array.c_contiguous:
        raise ValueError("work: array must be C-contiguous")
    if array.readonly:
        raise ValueError("work: array must be writable")
    if array.size < elements:
        raise ValueError(f"work: holds {array.size} elements, the operation needs {elements}")
    if any(_overlap(array, other) for other in others):
        raise ValueError("work: overlaps input or out")
    return array.ptr


def transpose(grid, op: int, in_info, out_info, input, out, work, dtype, halos_and_paddings, stream):
    """One transpose on CUDA arrays; returns the output (``out``, a new CuPy array, or ``input``
    itself in place, whose buffer then holds the output pencil)."""
    source = parse_cuda_array("input", input)
    dtype = resolve_dtype(source, dtype)
    handle = stream_handle(stream, input)
    in_place = out is input
    if out is not None and not in_place:
        in_place = parse_cuda_array("out", out).ptr == source.ptr  # a view starting at the same address
    check_cuda_array(source, in_info.array_shape, dtype, writable=in_place)
    if in_place:
        if out is input and source.size < out_info.size:
            raise ValueError(f"out: in place needs {out_info.size} elements for the output pencil, the input "
                             f"array holds {source.size}; pass out as an array over the same buffer with the "
                             f"output pencil's array_shape {tuple(out_info.array_shape)}")
        if out is not input:  # an array over the same buffer, shaped like the output pencil
            check_cuda_array(parse_cuda_array("out", out), out_info.array_shape, dtype, writable=True)
        result, target = out, source
    else:
        if out is None:
            result = allocate_output(input, tuple(out_info.array_shape), dtype, handle)
        else:
            result = out
        target = parse_cuda_array("out", result)
        check_cuda_array(target, out_info.array_shape, dtype, writable=True)
        if _overlap(target, source):
            raise ValueError("out: overlaps input; pass out=input (or an array starting at the same address) "
                             "for an in-place transpose")
    work_ptr = _work_pointer(work, dtype, grid.get_transpose_workspace_size(), source, target)
    ih, oh, ip, opad = halos_and_paddings
    grid._native.transpose_ptr(op, source.ptr, target.ptr, work_ptr, dtype, ih, oh, ip, opad, handle)
    return result


def update_halos(grid, axis: int, info, data, dim, halo, periods, pad, work, dtype, stream):
    """One halo update of a CUDA array, in place; returns ``data``."""
    array = parse_cuda_array("data", data)
    dtype = resolve_dtype(array, dtype)
    handle = stream_handle(stream, data)
    check_cuda_array(array, info.array_shape, dtype, writable=True)
    work_ptr = _work_pointer(work, dtype, grid.get_halo_workspace_size(axis, halo), array)
    grid._native.update_halos_ptr(axis, array.ptr, work_ptr, dtype, halo, periods, dim, pad, handle)
    return data
