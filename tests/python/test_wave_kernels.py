"""The kernel language on the emulator, each kernel checked against NumPy on random inputs
for several workgroup shapes, sizes that are not a multiple of the workgroup included."""

import math
import re

import numpy as np
import pytest
from wave_support import DEVICES, make_rng, select_device

import wave_gpu
from wave_gpu import (atomic_add, atomic_cas, atomic_exchange, atomic_max, atomic_min, atomic_or, atomic_sub,
                      barrier, f32, f64, i32, lane_id, local_id, shared, thread_id, u32, wave_all, wave_any,
                      wave_ballot, wave_broadcast, wave_max, wave_min, wave_prefix_sum, wave_shuffle, wave_sum,
                      workgroup_id, workgroup_size)


@pytest.fixture(autouse=True, params=DEVICES)
def on_device(request, monkeypatch):
    """Every test runs on the emulator and on Vulkan, where each call is checked against the emulator."""
    yield from select_device(request, monkeypatch)


@pytest.fixture
def rng(request):
    return make_rng(request)


def launch_1d(n, workgroup):
    return dict(grid=(max(1, math.ceil(n / workgroup)), 1, 1), workgroup=(workgroup, 1, 1))


SHAPES = [(1, 1), (31, 32), (1000, 64), (4099, 256), (777, 100)]


@wave_gpu.kernel
def guarded_add(a: f32[:], b: f32[:], out: f32[:]):
    i = thread_id()
    if i < len(out):
        out[i] = a[i] + b[i]


@pytest.mark.parametrize("n,workgroup", SHAPES)
def test_vector_add(rng, n, workgroup):
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    guarded_add(a, b, out, **launch_1d(n, workgroup))
    np.testing.assert_array_equal(out, a + b)


@wave_gpu.kernel
def saxpy(alpha: f32, x: f32[:], y: f32[:]):
    i = thread_id()
    if i >= len(y):
        return
    y[i] = alpha * x[i] + y[i]


@pytest.mark.parametrize("n,workgroup", SHAPES)
def test_saxpy_with_a_scalar(rng, n, workgroup):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    alpha = float(rng.standard_normal())
    expected = np.float32(alpha) * x + y
    saxpy(alpha, x, y, **launch_1d(n, workgroup))
    np.testing.assert_array_equal(y, expected)


@wave_gpu.kernel
def elementwise_math(x, out):
    i = thread_id()
    if i < len(x):
        v = x[i]
        out[7 * i + 0] = math.sqrt(v)
        out[7 * i + 1] = wave_gpu.sin(v) + math.cos(v)
        out[7 * i + 2] = math.exp(v * 0.1) - math.log(v) + math.log2(v)
        out[7 * i + 3] = v ** 1.5 + math.tan(v * 0.1)
        out[7 * i + 4] = abs(-v) + min(v, 2.0) - max(v, 3.0)
        out[7 * i + 5] = math.floor(v * 3.0) + wave_gpu.ceil(v) + wave_gpu.exp2(v * 0.5)
        out[7 * i + 6] = wave_gpu.fma(v, v, 1.0) + (v // 0.7) + (v % 0.7) + v / 3.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,workgroup", [(333, 64), (64, 64)])
def test_elementwise_math(rng, dtype, n, workgroup):
    x = rng.uniform(0.1, 5.0, n).astype(dtype)
    out = np.zeros(7 * n, dtype)
    elementwise_math(x, out, **launch_1d(n, workgroup))
    c = lambda value: dtype(value)  # noqa: E731
    expected = np.stack([
        np.sqrt(x), np.sin(x) + np.cos(x), np.exp(x * c(0.1)) - np.log(x) + np.log2(x),
        x ** c(1.5) + np.tan(x * c(0.1)), np.abs(-x) + np.minimum(x, c(2.0)) - np.maximum(x, c(3.0)),
        np.floor(x * c(3.0)) + np.ceil(x) + np.exp2(x * c(0.5)),
        (x * x + c(1.0)) + np.floor_divide(x, c(0.7)) + np.mod(x, c(0.7)) + x / c(3.0),
    ], axis=1).reshape(-1)
    tolerance = 2e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(out, expected, rtol=tolerance, atol=tolerance)


@wave_gpu.kernel
def integer_ops(a, b, out):
    i = thread_id()
    if i < len(a):
        x = a[i]
        y = b[i]
        out[9 * i + 0] = x + y
        out[9 * i + 1] = x - y
        out[9 * i + 2] = x * y
        out[9 * i + 3] = x // y
        out[9 * i + 4] = x % y
        out[9 * i + 5] = (x & y) | (x ^ 12345)
        out[9 * i + 6] = (x << 3) + (y >> 2)
        out[9 * i + 7] = ~x
        out[9 * i + 8] = -x + abs(y)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_integer_ops_wrap_and_floor_division(rng, dtype):
    n = 1000
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b[b == 0] = 7
    a[:4] = [info.min, info.max, 7, 0]
    b[:4] = [dtype(3) if info.min == 0 else dtype(-3), 2, dtype(-2) if info.min else 5, 5]
    out = np.zeros(9 * n, dtype)
    integer_ops(a, b, out, **launch_1d(n, 128))
    with np.errstate(over="ignore"):
        expected = np.stack([
            a + b, a - b, a * b, np.floor_divide(a, b), np.mod(a, b), (a & b) | (a ^ dtype(12345)),
            (a << dtype(3)) + (b >> dtype(2)), ~a, -a + (np.abs(b) if dtype == np.int32 else b),
        ], axis=1).reshape(-1).astype(dtype)
    np.testing.assert_array_equal(out, expected)


@wave_gpu.kernel
def block_sum(x: f32[:], sums: f32[:]):
    tile = shared(256, f32)
    local = local_id()
    i = thread_id()
    tile[local] = x[i] if i < len(x) else 0.0
    barrier()
    stride = workgroup_size() // 2
    while stride > 0:
        if local < stride:
            tile[local] += tile[local + stride]
        barrier()
        stride //= 2
    if local == 0:
        sums[workgroup_id()] = tile[0]


@pytest.mark.parametrize("n,workgroup", [(1000, 256), (4099, 128), (64, 64), (5, 8)])
def test_workgroup_reduction_with_shared_memory(rng, n, workgroup):
    x = rng.integers(-100, 100, n).astype(np.float32)  # integers: the sum is exact in any order
    groups = math.ceil(n / workgroup)
    sums = np.zeros(groups, np.float32)
    block_sum(x, sums, grid=(groups, 1, 1), workgroup=(workgroup, 1, 1))
    padded = np.zeros(groups * workgroup, np.float32)
    padded[:n] = x
    np.testing.assert_array_equal(sums, padded.reshape(groups, workgroup).sum(axis=1))


@wave_gpu.kernel
def block_scan(x: i32[:], out: i32[:]):
    # Hillis-Steele inclusive scan of each workgroup's slice, double-buffered in shared memory.
    tile = shared(512, "i32")
    local = local_id()
    size = workgroup_size()
    i = thread_id()
    tile[local] = x[i] if i < len(x) else 0
    barrier()
    source = 0
    offset = 1
    while offset < size:
        target = size - source
        value = tile[source + local]
        if local >= offset:
            value += tile[source + local - offset]
        tile[target + local] = value
        barrier()
        source = target
        offset *= 2
    if i < len(x):
        out[i] = tile[source + local]


@pytest.mark.parametrize("n,workgroup", [(1000, 256), (300, 64), (17, 32)])
def test_prefix_sum(rng, n, workgroup):
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    block_scan(x, out, **launch_1d(n, workgroup))
    groups = math.ceil(n / workgroup)
    expected = np.concatenate([np.cumsum(x[g * workgroup:(g + 1) * workgroup]) for g in range(groups)])
    np.testing.assert_array_equal(out, expected.astype(np.int32))


@wave_gpu.kernel
def histogram(values: u32[:], bins: u32[:]):
    i = thread_id()
    if i < len(values):
        atomic_add(bins, values[i] % len(bins), 1)


@pytest.mark.parametrize("threads", [None, 1])
def test_histogram_with_atomics(rng, threads):
    values = rng.integers(0, 2**32 - 1, 100_003, dtype=np.uint32)
    bins = np.zeros(37, np.uint32)
    histogram(values, bins, threads=threads)
    np.testing.assert_array_equal(bins, np.bincount(values % 37, minlength=37))


TILE = 8


@wave_gpu.kernel
def tiled_matmul(a: f32[:], b: f32[:], c: f32[:], n: i32, m: i32, k: i32):
    # c[n x m] = a[n x k] @ b[k x m], row-major, TILE x TILE workgroups.
    tile_a = shared(TILE * TILE, f32)
    tile_b = shared(TILE * TILE, f32)
    row = thread_id(1)
    col = thread_id(0)
    ly = local_id(1)
    lx = local_id(0)
    acc = 0.0
    for t in range(0, (k + TILE - 1) // TILE):
        ka = t * TILE + lx
        kb = t * TILE + ly
        tile_a[ly * TILE + lx] = a[row * k + ka] if row < n and ka < k else 0.0
        tile_b[ly * TILE + lx] = b[kb * m + col] if kb < k and col < m else 0.0
        barrier()
        for j in range(TILE):
            acc += tile_a[ly * TILE + j] * tile_b[j * TILE + lx]
        barrier()
    if row < n and col < m:
        c[row * m + col] = acc


@pytest.mark.parametrize("n,m,k", [(8, 8, 8), (13, 21, 17), (33, 5, 40)])
def test_tiled_matmul_with_shared_memory(rng, n, m, k):
    a = rng.integers(-8, 8, (n, k)).astype(np.float32)  # small integers: exact in f32
    b = rng.integers(-8, 8, (k, m)).astype(np.float32)
    c = np.zeros((n, m), np.float32)
    grid = (math.ceil(m / TILE), math.ceil(n / TILE), 1)
    # f32[:] parameters take 1-D arrays (a 2-D one is a rank error): pass flat views.
    tiled_matmul(a.reshape(-1), b.reshape(-1), c.reshape(-1), n, m, k, grid=grid, workgroup=(TILE, TILE, 1))
    np.testing.assert_array_equal(c, a @ b)


@wave_gpu.kernel
def mandelbrot(out: i32[:], width: i32, height: i32, max_iterations: i32):
    i = thread_id()
    if i >= len(out):
        return
    cx = -2.0 + 3.0 * f32(i % width) / f32(width)
    cy = -1.5 + 3.0 * f32(i // width) / f32(height)
    x = 0.0
    y = 0.0
    k = 0
    while True:
        if k >= max_iterations:
            break
        if x * x + y * y > 4.0:
            break
        t = x * x - y * y + cx
        y = 2.0 * x * y + cy
        x = t
        k += 1
    out[i] = k


def mandelbrot_reference(width, height, max_iterations):
    index = np.arange(width * height)
    cx = np.float32(-2.0) + np.float32(3.0) * (index % width).astype(np.float32) / np.float32(width)
    cy = np.float32(-1.5) + np.float32(3.0) * (index // width).astype(np.float32) / np.float32(height)
    x = np.zeros_like(cx)
    y = np.zeros_like(cy)
    k = np.zeros(index.shape, np.int32)
    alive = np.ones(index.shape, bool)
    for _ in range(max_iterations):
        alive &= ~(x * x + y * y > np.float32(4.0))
        t = x * x - y * y + cx
        y = np.where(alive, np.float32(2.0) * x * y + cy, y)
        x = np.where(alive, t, x)
        k += alive
    return k


@pytest.mark.parametrize("workgroup", [64, 100])
def test_mandelbrot_with_while_and_break(workgroup):
    width, height, iterations = 61, 37, 60
    out = np.zeros(width * height, np.int32)
    mandelbrot(out, width, height, iterations, **launch_1d(out.size, workgroup))
    np.testing.assert_array_equal(out, mandelbrot_reference(width, height, iterations))


@wave_gpu.kernel
def classify(x: f32[:], out: i32[:]):
    i = thread_id()
    if i < len(x):
        v = x[i]
        if v < -1.0:
            out[i] = -2
        elif v < 0.0:
            out[i] = -1
        elif v == 0.0:
            out[i] = 0
        elif v < 1.0 and not v > 0.5:
            out[i] = 1
        else:
            out[i] = 2 if v < 2.0 else 3


def test_elif_chains(rng):
    x = rng.uniform(-3, 3, 999).astype(np.float32)
    x[:3] = [0.0, 0.5, -1.0]
    out = np.zeros(999, np.int32)
    classify(x, out, **launch_1d(999, 64))
    expected = np.select([x < -1, x < 0, x == 0, (x < 1) & ~(x > 0.5), x < 2], [-2, -1, 0, 1, 2], 3)
    np.testing.assert_array_equal(out, expected)


@wave_gpu.kernel
def nested_continue(n: i32[:], out: i32[:]):
    i = thread_id()
    if i < len(n):
        total = 0
        for a in range(n[i]):
            if a % 3 == 0:
                continue
            b = 0
            while b < a:
                b += 1
                if b % 2 == 0:
                    continue
                if b > 7:
                    break
                total += a * b
        for c in range(10, 0, -3):
            total += c
        out[i] = total


def test_continue_and_break_in_nested_loops(rng):
    n = rng.integers(0, 20, 500).astype(np.int32)
    out = np.zeros(500, np.int32)
    nested_continue(n, out, **launch_1d(500, 32))

    def reference(count):
        total = 0
        for a in range(count):
            if a % 3 == 0:
                continue
            b = 0
            while b < a:
                b += 1
                if b % 2 == 0:
                    continue
                if b > 7:
                    break
                total += a * b
        return total + sum(range(10, 0, -3))

    np.testing.assert_array_equal(out, [reference(int(c)) for c in n])


@wave_gpu.kernel
def wave_ops(x: i32[:], out: i32[:]):
    i = thread_id()
    lane = lane_id()
    v = x[i]
    out[9 * i + 0] = wave_sum(v)
    out[9 * i + 1] = wave_prefix_sum(v)
    out[9 * i + 2] = wave_min(v)
    out[9 * i + 3] = wave_max(v)
    out[9 * i + 4] = wave_broadcast(v, 0)
    out[9 * i + 5] = wave_shuffle(v, lane ^ 1)
    out[9 * i + 6] = i32(wave_ballot(v > 0) & 0x7FFFFFFF)
    out[9 * i + 7] = 1 if wave_any(v > 900) else 0
    out[9 * i + 8] = 1 if wave_all(v > -1000) else 0


# None: the device's own wave width (the subgroup size on a GPU, where no other width runs)
@pytest.mark.parametrize("workgroup,wave_width", [(64, 32), (16, 32), (64, 16), (64, 64), (64, None), (16, None)])
def test_wave_operations(rng, workgroup, wave_width):
    wave_width = wave_width or wave_gpu.device().wave_width
    groups = 3
    n = groups * workgroup
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    out = np.zeros(9 * n, np.int32)
    wave_ops(x, out, grid=(groups, 1, 1), workgroup=(workgroup, 1, 1), wave_width=wave_width)
    expected = np.zeros((n, 9), np.int64)
    width = min(wave_width, workgroup)
    for start in range(0, n, width):
        w = x[start:start + width].astype(np.int64)
        lanes = np.arange(len(w))
        expected[start:start + width, 0] = w.sum()
        expected[start:start + width, 1] = np.cumsum(w) - w
        expected[start:start + width, 2] = w.min()
        expected[start:start + width, 3] = w.max()
        expected[start:start + width, 4] = w[0]
        expected[start:start + width, 5] = w[lanes ^ 1]
        expected[start:start + width, 6] = sum(1 << int(j) for j in lanes[w > 0]) & 0x7FFFFFFF
        expected[start:start + width, 7] = int((w > 900).any())
        expected[start:start + width, 8] = int((w > -1000).all())
    np.testing.assert_array_equal(out.reshape(n, 9), expected.astype(np.int32))


@wave_gpu.kernel
def all_atomics(values: i32[:], counters: i32[:], slots: i32[:]):
    i = thread_id()
    if i < len(values):
        v = values[i]
        atomic_add(counters, 0, v)
        atomic_sub(counters, 1, v)
        atomic_min(counters, 2, v)
        atomic_max(counters, 3, v)
        atomic_or(counters, 4, 1 << (i % 31))
        atomic_exchange(counters, 5, 7)
        atomic_cas(counters, 6, 0, i + 1)  # exactly one thread wins
        slot = atomic_add(counters, 7, 1)  # unique slots
        slots[slot] = i


def test_atomics_return_old_values_and_are_atomic(rng):
    n = 5000
    values = rng.integers(-10**6, 10**6, n).astype(np.int32)
    counters = np.zeros(8, np.int32)
    counters[2] = np.iinfo(np.int32).max
    counters[3] = np.iinfo(np.int32).min
    slots = np.full(n, -1, np.int32)
    all_atomics(values, counters, slots, **launch_1d(n, 128))
    assert counters[0] == values.astype(np.int64).sum() and counters[1] == -values.astype(np.int64).sum()
    assert counters[2] == values.min() and counters[3] == values.max()
    assert counters[4] == np.int32(2**31 - 1) and counters[5] == 7
    assert 1 <= counters[6] <= n and counters[7] == n
    np.testing.assert_array_equal(np.sort(slots), np.arange(n))


@wave_gpu.kernel
def shared_atomics(values: u32[:], out: u32[:]):
    counts = shared(4, u32)
    i = thread_id()
    if i < len(values):
        atomic_add(counts, values[i] % 4, 1)
    barrier()
    if local_id() < 4:
        atomic_add(out, local_id(), counts[local_id()])


def test_atomics_on_shared_arrays(rng):
    values = rng.integers(0, 1000, 1000).astype(np.uint32)
    out = np.zeros(4, np.uint32)
    shared_atomics(values, out, grid=(8, 1, 1), workgroup=(128, 1, 1))
    np.testing.assert_array_equal(out, np.bincount(values % 4, minlength=4))


@wave_gpu.kernel
def float_kernel(x: f32[:], y: f32[:]):
    i = thread_id()
    if i < len(x):
        acc = 0.0
        for j in range(i % 17):
            acc = acc * 0.5 + math.sin(x[i] + f32(j))
        y[i] = acc


def test_deterministic_mode_matches_parallel_mode(rng):
    x = rng.standard_normal(20_000).astype(np.float32)
    parallel = np.zeros_like(x)
    serial = np.zeros_like(x)
    float_kernel(x, parallel, **launch_1d(x.size, 64))
    float_kernel(x, serial, threads=1, **launch_1d(x.size, 64))
    np.testing.assert_array_equal(parallel, serial)
    values = rng.integers(0, 2**32 - 1, 50_000, dtype=np.uint32)
    bins_parallel = np.zeros(11, np.uint32)
    bins_serial = np.zeros(11, np.uint32)
    histogram(values, bins_parallel)
    histogram(values, bins_serial, threads=1)
    np.testing.assert_array_equal(bins_parallel, bins_serial)


@wave_gpu.kernel
def grid_3d(out: i32[:]):
    x = thread_id(0)
    y = thread_id(1)
    z = thread_id(2)
    nx = workgroup_size(0) * wave_gpu.num_workgroups(0)
    ny = workgroup_size(1) * wave_gpu.num_workgroups(1)
    out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z + 1000000 * workgroup_id(2)


def test_three_dimensional_launch():
    grid, workgroup = (2, 3, 2), (4, 2, 3)
    nx, ny, nz = (g * w for g, w in zip(grid, workgroup))
    out = np.zeros(nx * ny * nz, np.int32)
    grid_3d(out, grid=grid, workgroup=workgroup)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    expected = x + 100 * y + 10000 * z + 1000000 * (z // workgroup[2])
    np.testing.assert_array_equal(out, expected.reshape(-1))


@wave_gpu.kernel
def half_scale(x: wave_gpu.f16[:], y: wave_gpu.f16[:], factor: f32):
    i = thread_id()
    if i < len(x):
        y[i] = x[i] * factor


def test_f16_is_stored_as_half(rng):
    x = wave_gpu.array(rng.uniform(-100, 100, 300).tolist(), dtype="f16")
    y = wave_gpu.zeros(300, dtype="f16")
    half_scale(x, y, 0.37)
    xs = np.asarray(x)
    assert xs.dtype == np.float16
    expected = (xs.astype(np.float32) * np.float32(0.37)).astype(np.float16)
    np.testing.assert_array_equal(np.asarray(y), expected)


@wave_gpu.kernel
def casts_and_conditionals(x: f32[:], out: f64[:], flags: u32[:]):
    i = thread_id()
    if i < len(x):
        v = x[i]
        n = int(v)
        u = u32(n)
        out[i] = float(n) + f64(v) * 2.0
        flags[i] = u + (1 if v > 0 and n != 0 else 0) + (10 if v < -1 or v > 1 else 0)
        tmp, other = n, v
        tmp, other = i32(other), f32(tmp)


def test_casts_and_boolean_operators(rng):
    x = rng.uniform(-5, 5, 200).astype(np.float32)
    out = np.zeros(200, np.float64)
    flags = np.zeros(200, np.uint32)
    casts_and_conditionals(x, out, flags)
    n = np.trunc(x).astype(np.int32)
    np.testing.assert_array_equal(out, n.astype(np.float32).astype(np.float64) + x.astype(np.float64) * 2.0)
    expected = n.astype(np.uint32) + ((x > 0) & (n != 0)) + 10 * ((x < -1) | (x > 1))
    np.testing.assert_array_equal(flags, expected.astype(np.uint32))


@wave_gpu.kernel
def guarded_by_short_circuit(x: i32[:], out: i32[:], limit: i32):
    i = thread_id()
    # x[i] is only read where i < limit: `and` evaluates its right side only where needed.
    if i < limit and x[i] > 0:
        out[i] = 1
    out[i] += 10 if i >= limit or x[i] < 0 else 0


def test_and_or_short_circuit():
    x = np.array([5, -3, 2, 0], np.int32)
    out = np.zeros(8, np.int32)
    guarded_by_short_circuit(x, out, 4, grid=(1, 1, 1), workgroup=(8, 1, 1))
    np.testing.assert_array_equal(out, [1, 10, 1, 0, 10, 10, 10, 10])


def test_names_resolve_through_closures_and_globals():
    scale = 3
    offset = 0.5

    @wave_gpu.kernel
    def affine(x: f32[:], out: f32[:]):
        i = thread_id()
        if i < len(x):
            out[i] = x[i] * scale + offset + TILE

    x = np.arange(10, dtype=np.float32)
    out = np.zeros(10, np.float32)
    affine(x, out)
    np.testing.assert_array_equal(out, x * 3 + 0.5 + TILE)


@wave_gpu.kernel
def float_atomics(x: f32[:], total: f32[:], extremes: f64[:]):
    i = thread_id()
    if i < len(x):
        atomic_add(total, 0, x[i])
        atomic_sub(total, 1, x[i])
        atomic_min(extremes, 0, f64(x[i]))
        atomic_max(extremes, 1, f64(x[i]))


def test_float_atomics(rng):
    x = rng.integers(-1000, 1000, 10_000).astype(np.float32)  # integers: exact sums in any order
    total = np.zeros(2, np.float32)
    extremes = np.array([np.inf, -np.inf])
    float_atomics(x, total, extremes, **launch_1d(x.size, 256))
    assert total[0] == x.sum() and total[1] == -x.sum()
    assert extremes.tolist() == [x.min(), x.max()]


@wave_gpu.kernel
def row_sums(x: f32[:], out: f32[:], width: i32):
    row = thread_id()
    if row < len(out):
        total = 0  # widened to f32 by the float additions below, as in Python and Numba
        for j in range(width):
            total += x[row * width + j]
        out[row] = total


def test_literal_initialised_variables_take_the_wider_type(rng):
    x = rng.standard_normal((50, 7)).astype(np.float32)
    out = np.zeros(50, np.float32)
    row_sums(x.reshape(-1), out, 7)
    expected = np.zeros(50, np.float32)
    for j in range(7):
        expected += x[:, j]
    np.testing.assert_array_equal(out, expected)
    assert re.search(r"%\d+:f32 = const 0  ; line", row_sums.ir), row_sums.ir
