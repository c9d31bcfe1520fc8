"""The Warp kernels the wave_gpu benchmarks compare with (the same computations as
wave_kernels.py), defined once for bench/wave_emulator.py and bench/wave_cpu.py. Warp is an
optional peer: the caller imports it, configures and initialises it, then calls
define_warp_kernels(wp)."""


def define_warp_kernels(wp):
    """(add, mandel, nbody): vector add (f32), Mandelbrot (i32 iteration counts) and an N-body
    acceleration step (f32, 1 / sqrt(r2) per pair), as Warp kernels."""

    @wp.kernel
    def add(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
        i = wp.tid()
        out[i] = a[i] + b[i]

    @wp.kernel
    def mandel(out: wp.array(dtype=wp.int32), width: int, height: int, max_iterations: int):
        i = wp.tid()
        cx = -2.0 + 3.0 * float(i % width) / float(width)
        cy = -1.5 + 3.0 * float(i / width) / float(height)
        x = float(0.0)
        y = float(0.0)
        k = int(0)
        while k < max_iterations:
            if x * x + y * y > 4.0:
                break
            t = x * x - y * y + cx
            y = 2.0 * x * y + cy
            x = t
            k += 1
        out[i] = k

    @wp.kernel
    def nbody(px: wp.array(dtype=wp.float32), py: wp.array(dtype=wp.float32), pz: wp.array(dtype=wp.float32),
              mass: wp.array(dtype=wp.float32), ax: wp.array(dtype=wp.float32), ay: wp.array(dtype=wp.float32),
              az: wp.array(dtype=wp.float32), n: int, eps2: float):
        i = wp.tid()
        xi = px[i]
        yi = py[i]
        zi = pz[i]
        sx = float(0.0)
        sy = float(0.0)
        sz = float(0.0)
        for j in range(n):
            dx = px[j] - xi
            dy = py[j] - yi
            dz = pz[j] - zi
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv = 1.0 / wp.sqrt(r2)
            s = mass[j] * inv * inv * inv
            sx += dx * s
            sy += dy * s
            sz += dz * s
        ax[i] = sx
        ay[i] = sy
        az[i] = sz

    return add, mandel, nbody
