"""One kernel call on a Vulkan device: arrays are uploaded before and the ones the kernel
writes are downloaded after. A WaveArray keeps its device buffer between calls and is not
uploaded again while its host values are unchanged; NumPy arrays are uploaded every call
(their writes cannot be tracked), through buffers pooled by size."""

from __future__ import annotations

import collections
import threading
import time

import numpy as np

from wave_gpu._array import WaveArray
from wave_gpu._shaped import Strided

# Per device index: free device buffers of NumPy arguments, by byte size.
_pools: dict = collections.defaultdict(lambda: collections.defaultdict(list))
_POOL_LIMIT = 4  # buffers kept per size


_pool_lock = threading.Lock()  # kernels may be called from several threads


def _buffer_for(gpu, index: int, storage: np.ndarray):
    with _pool_lock:
        pool = _pools[index][storage.nbytes]
        buffer = pool.pop() if pool else None
    if buffer is not None:
        buffer.length = storage.size  # the same bytes may hold another dtype's count
        return buffer
    return gpu.allocate(storage.nbytes, storage.size)


def _memory_key(storage: np.ndarray) -> tuple:
    """Arrays with equal keys are the same memory seen the same way (a WaveArray and
    numpy.asarray of it, or one array passed twice): they share one device buffer."""
    return storage.__array_interface__["data"][0], storage.nbytes, storage.dtype.str


def run(gpu, index: int, program, arguments: list, grid, workgroup, limit=None, loop_budget=0xFFFFFFFF,
        timeout=None) -> dict:
    """Runs `program` with `arguments` (WaveArrays, NumPy arrays and scalars); returns the
    phase timings of the call. `limit`: invocations at or past it do nothing; `loop_budget`
    bounds each invocation's loop iterations; a call longer than `timeout` seconds raises
    TimeoutError with nothing downloaded."""
    gpu.reset_timings()
    written = program.written
    native, borrowed, downloads = [], [], []
    by_memory: dict = {}
    downloaded: set = set()
    stale: list = []  # WaveArrays whose memory was bound through another argument's buffer
    buffer_position = 0
    try:
        for value in arguments:
            if not isinstance(value, (WaveArray, np.ndarray, Strided)):
                native.append(value)
                continue
            writes = written[buffer_position]
            buffer_position += 1
            storage = value._storage if isinstance(value, WaveArray) else value
            # A strided view has a buffer of its own (the span it covers, of which it downloads
            # only its elements): views are never merged.
            key = ("strided", id(value)) if isinstance(value, Strided) else _memory_key(storage)
            if key in by_memory:  # the same memory twice binds the same buffer
                buffer = by_memory[key]
                native.append(buffer)
                if writes and key not in downloaded:  # the kernel writes it through this parameter
                    downloaded.add(key)
                    downloads.append((buffer, storage))
                if isinstance(value, WaveArray) and (value._resident is None or value._resident[1] is not buffer):
                    stale.append(value)
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
            by_memory[key] = buffer
            native.append(buffer)
            if writes:
                downloaded.add(key)
                downloads.append((buffer, value if isinstance(value, Strided) else storage))
        started = time.perf_counter()
        program.launch(native, list(grid), list(workgroup), limit, loop_budget)
        elapsed = time.perf_counter() - started
        if timeout is not None and elapsed > timeout:
            raise TimeoutError(f"the kernel ran {elapsed:.3f} s, longer than its timeout of {timeout} s; "
                               "its results were not downloaded")
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
        for value in stale:
            value._host_changed = True  # its own device copy missed this call's writes
        with _pool_lock:
            for nbytes, buffer in borrowed:
                pool = _pools[index][nbytes]
                if len(pool) < _POOL_LIMIT:
                    pool.append(buffer)
    return gpu.timings()
