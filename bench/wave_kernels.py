"""Kernels shared by the wave_gpu benchmarks (emulator, native cpu device and Vulkan), so each
measures the same code."""

import wave_gpu
from wave_gpu import thread_id


@wave_gpu.kernel
def vector_add(a: wave_gpu.f32[:], b: wave_gpu.f32[:], out: wave_gpu.f32[:]):
    i = thread_id()
    if i < len(out):
        out[i] = a[i] + b[i]


@wave_gpu.kernel
def mandelbrot(out: wave_gpu.i32[:], width: wave_gpu.i32, height: wave_gpu.i32, max_iterations: wave_gpu.i32):
    i = thread_id()
    if i < len(out):
        cx = -2.0 + 3.0 * wave_gpu.f32(i % width) / wave_gpu.f32(width)
        cy = -1.5 + 3.0 * wave_gpu.f32(i // width) / wave_gpu.f32(height)
        x = 0.0
        y = 0.0
        k = 0
        while k < max_iterations:
            if x * x + y * y > 4.0:
                break
            t = x * x - y * y + cx
            y = 2.0 * x * y + cy
            x = t
            k += 1
        out[i] = k


@wave_gpu.kernel
def nbody(px: wave_gpu.f32[:], py: wave_gpu.f32[:], pz: wave_gpu.f32[:], mass: wave_gpu.f32[:],
          ax: wave_gpu.f32[:], ay: wave_gpu.f32[:], az: wave_gpu.f32[:], n: wave_gpu.i32, eps2: wave_gpu.f32):
    i = thread_id()
    if i < n:
        xi = px[i]
        yi = py[i]
        zi = pz[i]
        sx = 0.0
        sy = 0.0
        sz = 0.0
        for j in range(n):
            dx = px[j] - xi
            dy = py[j] - yi
            dz = pz[j] - zi
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv = 1.0 / wave_gpu.sqrt(r2)
            s = mass[j] * inv * inv * inv
            sx += dx * s
            sy += dy * s
            sz += dz * s
        ax[i] = sx
        ay[i] = sy
        az[i] = sz
