"""Transpose benchmark of cudecomp, as cuDecomp's benchmark does it: the X->Y->Z->Y->X cycle on
one configuration, timed over many cycles after warm-up; a cycle's time is the slowest rank's.
Bandwidth counts each transpose as moving the whole global array once: 4 x bytes / cycle time.
``device`` says where the buffers live: "host" (NumPy memory) or "gpu" (CuPy arrays, GPU build)."""

from __future__ import annotations

import statistics

import numpy as np

import cudecomp
from cudecomp import _bench_arrays
from cudecomp._arrays import NUMPY_OF_DTYPE

STEPS = (("transpose_x_to_y", 0, 1), ("transpose_y_to_z", 1, 2), ("transpose_z_to_y", 2, 1),
         ("transpose_y_to_x", 1, 0))


class TransposeCycle:
    """A grid, its buffers and the four transposes of one cycle, ready to be timed."""

    def __init__(self, handle, gdims, pdims=(0, 0), backend=None, dtype=cudecomp.DataType.DOUBLE, in_place=False,
                 axis_contiguous=(False, False, False), autotune_backend=False, device="host"):
        _bench_arrays.check_device(device)
        self.device = device
        config = cudecomp.GridDescConfig()
        config.gdims = gdims
        config.pdims = pdims
        config.transpose_axis_contiguous = axis_contiguous
        if backend is not None:
            config.transpose_comm_backend = backend
        options = None
        if tuple(pdims) == (0, 0) or autotune_backend:
            options = cudecomp.GridDescAutotuneOptions()
            options.dtype = dtype
            options.autotune_transpose_backend = autotune_backend
            options.transpose_use_inplace_buffers = (in_place,) * 4
            # The autotuner measures on a GPU where it sees one, NCCL included; host buffers
            # cannot run NCCL, so it is left out for them.
            options.disable_nccl_backends = device == "host"
        self.grid = handle.create_grid(config, options)
        infos = [self.grid.get_pencil_info(axis) for axis in range(3)]
        numpy_dtype = NUMPY_OF_DTYPE[dtype]
        largest = max(info.size for info in infos)
        buffers = [_bench_arrays.zeros(device, largest, numpy_dtype) for _ in range(2)]
        self.work = _bench_arrays.operand(
            device, _bench_arrays.zeros(device, max(self.grid.get_transpose_workspace_size(), 1), numpy_dtype))
        self.steps = []
        for method, src, dst in STEPS:
            a, b = (buffers[0], buffers[0]) if in_place else (buffers[0], buffers[1])
            self.steps.append((getattr(self.grid, method),
                               _bench_arrays.operand(device, a[:infos[src].size].reshape(infos[src].array_shape)),
                               _bench_arrays.operand(device, b[:infos[dst].size].reshape(infos[dst].array_shape))))
            if not in_place:
                buffers.reverse()
        chosen = self.grid.config
        self.pdims = tuple(int(p) for p in chosen.pdims)
        self.backend = chosen.transpose_comm_backend.name
        self.bytes = gdims[0] * gdims[1] * gdims[2] * np.dtype(numpy_dtype).itemsize

    def __call__(self):
        for call, source, out in self.steps:
            call(source, out=out, work=self.work)
        _bench_arrays.synchronize(self.device)

    def destroy(self):
        self.grid.destroy()


def time_cycle(comm, gdims, pdims=(0, 0), backend=None, dtype=cudecomp.DataType.DOUBLE, iterations=10, warmup=3,
               in_place=False, axis_contiguous=(False, False, False), autotune_backend=False, handle=None,
               device="host"):
    """Returns a dict: device, pdims, backend, per-op median seconds, median/min cycle seconds, GB/s."""
    from mpi4py import MPI

    own_handle = handle is None
    handle = handle or cudecomp.Handle(comm)
    cycle = TransposeCycle(handle, gdims, pdims, backend, dtype, in_place, axis_contiguous, autotune_backend, device)
    op_times = [[] for _ in STEPS]
    cycles = []
    for iteration in range(warmup + iterations):
        times = []
        for call, source, out in cycle.steps:
            comm.Barrier()
            start = MPI.Wtime()
            call(source, out=out, work=cycle.work)
            _bench_arrays.synchronize(device)
            times.append(MPI.Wtime() - start)
        times = comm.allreduce(times, op=_elementwise_max)
        if iteration >= warmup:
            for index, value in enumerate(times):
                op_times[index].append(value)
            cycles.append(sum(times))
    median = statistics.median(cycles)
    result = {
        "device": device,
        "pdims": cycle.pdims,
        "backend": cycle.backend,
        "op_seconds": [statistics.median(t) for t in op_times],
        "cycle_seconds": median,
        "cycle_min_seconds": min(cycles),
        "gbps": 4 * cycle.bytes / median / 1e9,
    }
    cycle.destroy()
    if own_handle:
        handle.finalize()
    return result


def _elementwise_max(a, b, datatype=None):
    return [max(x, y) for x, y in zip(a, b)]
