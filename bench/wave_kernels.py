"""Kernels shared by the wave_gpu benchmarks (emulator and Vulkan), so both measure the same code."""

import wave_gpu
from wave_gpu import thread_id


@wave_gpu.kernel
def vector_add(a: wave_gpu.f32[:], b: wave_gpu.f32[:], out: wave_gpu.f32[:]):
    i = thread_id()
    if i < len(out):
        out[i] = a[i] + b[i]
