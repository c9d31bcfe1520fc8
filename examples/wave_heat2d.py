"""wave_gpu example: 2-D heat diffusion with an explicit five-point stencil.

The kernel works on shaped 2-D arrays (`wave_gpu.f32[:, :]`, indexed `u[i, j]`) and calls a
`@wave_gpu.func` device function for the Laplacian; a 2-D launch gives one thread per cell.
The plate starts cold with a hot square and its edges held at fixed temperatures; after the
steps the result is checked against the same scheme in NumPy (the script exits non-zero on a
mismatch). Runs on the device wave_gpu selects (the emulator unless a GPU is available)."""

import sys
import time

import numpy as np

import wave_gpu
from wave_gpu import thread_id

ROWS, COLS = 48, 64
STEPS = 40
ALPHA = 0.2  # diffusion number; the explicit scheme is stable up to 0.25
TILE = 16


@wave_gpu.func
def laplacian(u: wave_gpu.f32[:, :], i, j):
    """The five-point Laplacian of u at interior cell (i, j)."""
    return u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@wave_gpu.func
def on_edge(i, j, rows, cols):
    return i == 0 or j == 0 or i == rows - 1 or j == cols - 1


@wave_gpu.kernel
def heat_step(u: wave_gpu.f32[:, :], out: wave_gpu.f32[:, :], alpha: float):
    j = thread_id(0)
    i = thread_id(1)
    rows, cols = u.shape
    if i < rows and j < cols:
        if on_edge(i, j, rows, cols):
            out[i, j] = u[i, j]  # the edges keep their temperature
        else:
            out[i, j] = u[i, j] + alpha * laplacian(u, i, j)


def initial_plate() -> np.ndarray:
    plate = np.zeros((ROWS, COLS), dtype=np.float32)
    plate[0, :] = 1.0  # a hot top edge
    plate[ROWS // 3:ROWS // 2, COLS // 4:COLS // 3] = 2.0  # and a hot square inside
    return plate


def numpy_steps(plate: np.ndarray, steps: int) -> np.ndarray:
    u = plate.copy()
    alpha = np.float32(ALPHA)
    for _ in range(steps):
        out = u.copy()
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - np.float32(4.0) * u[1:-1, 1:-1]
        out[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * lap
        u = out
    return u


def main() -> int:
    device = wave_gpu.device()
    print(f"device: {device.name} ({device.vendor})")
    plate = initial_plate()
    u = wave_gpu.array(plate)  # nested data gives a shaped WaveArray
    scratch = wave_gpu.zeros((ROWS, COLS))
    grid = ((COLS + TILE - 1) // TILE, (ROWS + TILE - 1) // TILE)
    start = time.perf_counter()
    for _ in range(STEPS):
        heat_step(u, scratch, ALPHA, grid=grid, workgroup=(TILE, TILE))
        u, scratch = scratch, u
    elapsed = time.perf_counter() - start
    result = np.asarray(u)
    expected = numpy_steps(plate, STEPS)
    error = float(np.max(np.abs(result - expected)))
    print(f"{STEPS} steps of a {ROWS}x{COLS} plate in {elapsed * 1000:.1f} ms; shape {u.shape}, "
          f"mean temperature {result.mean():.5f}, max |wave_gpu - NumPy| = {error:.2e}")
    if result.shape != expected.shape or not np.allclose(result, expected, rtol=1e-5, atol=1e-6):
        print("heat2d: MISMATCH against the NumPy reference", file=sys.stderr)
        return 1
    print("heat2d: matches the NumPy reference")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
