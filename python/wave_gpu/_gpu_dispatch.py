"""One kernel call on a Vulkan device: arrays are uploaded before and the ones the kernel
writes are downloaded after. A WaveArray keeps its device buffer between calls and is not
uploaded again while its host values are unchanged; NumPy arrays are uploaded every call
(their writes cannot be tracked), through buffers pooled by size."""

from __future__ import annotations

import collections

import numpy as np

from wave_gpu._array import WaveArray
from wave_gpu._shaped import Strided

# Per device index: free device buffers of NumPy arguments, by byte size.
_pools: dict = collections.defaultdict(lambda: collections.defaultdict(list))
_POOL_LIMIT = 4  # buffers kept per size


def _buffer_for(gpu, index: int, storage: np.ndarray):
    pool = _pools[index][storage.nbytes]
    if pool:
        buffer = pool.pop()
        buffer.length = storage.size  # the same bytes may hold another dtype's count
        return buffer
    return gpu.allocate(storage.nbytes, storage.size)


def run(gpu, index: int, program, arguments: list, grid, workgroup) -> dict:
    """Runs `program` with `arguments` (WaveArrays, NumPy arrays and scalars); returns the
    phase timings of the call."""
    gpu.reset_timings()
    written = program.written
    native, borrowed, downloads = [], [], []
    by_identity: dict = {}
    buffer_position = 0
    try:
        for value in arguments:
            if not isinstance(value, (WaveArray, np.ndarray, Strided)):
                native.append(value)
                continue
            writes = written[buffer_position]
            buffer_position += 1
            if id(value) in by_identity:  # the same array twice binds the same buffer
                native.append(by_identity[id(value)])
                continue
            if isinstance(value, WaveArray):
                storage = value._storage
                resident = value._resident
                if resident is None or resident[0] != index or resident[1].bytes < max(storage.nbytes, 4) or \
                        resident[1].length != storage.size:
                    resident = (index, gpu.allocate(storage.nbytes, storage.size))
                    value._resident = resident
                    value._host_changed = True
                if value._host_changed:
                    gpu.upload(resident[1], storage)
                    value._host_changed = False
                buffer = resident[1]
            else:
                storage = value.span if isinstance(value, Strided) else value
                buffer = _buffer_for(gpu, index, storage)
                borrowed.append((storage.nbytes, buffer))
                gpu.upload(buffer, storage)
            by_identity[id(value)] = buffer
            native.append(buffer)
            if writes:
                downloads.append((buffer, value if isinstance(value, Strided) else storage))
        program.launch(native, list(grid), list(workgroup))
        for buffer, storage in downloads:
            if isinstance(storage, Strided):
                storage.download(gpu, buffer)  # only the view's elements: others may share the span
            else:
                gpu.download(buffer, storage)
    except BaseException:
        # The device copies of WaveArrays may be half-written now: upload them next time.
        for value in arguments:
            if isinstance(value, WaveArray):
                value._host_changed = True
        raise
    finally:
        for nbytes, buffer in borrowed:
            pool = _pools[index][nbytes]
            if len(pool) < _POOL_LIMIT:
                pool.append(buffer)
    return gpu.timings()
