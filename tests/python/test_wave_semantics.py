"""The corners where GLSL and the emulator could part ways, checked against NumPy on the
emulator and, through the differential harness, bit for bit between the emulator and Vulkan:
integer wraparound and floor division at the extremes, shift counts at and beyond the width,
saturating float->integer conversions, unfused a*b+c, NaN in min/max, f16 rounding, and wave
reductions over the active lanes in lane order."""

import math

import numpy as np
import pytest
from wave_support import DEVICES, expected_on_this_device, flush_f32_subnormals, make_rng, select_device

import wave_gpu
from wave_gpu import _native, f16, f32, f64, i32, i64, thread_id, u32, u64


@pytest.fixture(autouse=True, params=DEVICES)
def on_device(request, monkeypatch):
    yield from select_device(request, monkeypatch)


@pytest.fixture
def rng(request):
    return make_rng(request)


@wave_gpu.kernel
def integer_corners(a, b, out):
    i = thread_id()
    if i < len(a):
        x = a[i]
        y = b[i]
        out[7 * i + 0] = x + y
        out[7 * i + 1] = x - y
        out[7 * i + 2] = x * y
        out[7 * i + 3] = x // y
        out[7 * i + 4] = x % y
        out[7 * i + 5] = x << y
        out[7 * i + 6] = x >> y


def corner_values(dtype, rng, n):
    info = np.iinfo(dtype)
    edges = [info.min, info.max, 0, 1, 2, info.max // 2 + 1]
    if info.min < 0:
        edges += [-1, -2, info.min + 1]
    values = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    values[:len(edges)] = edges
    return values


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_integer_wraparound_floor_division_and_shifts(rng, dtype):
    n = 300
    a = corner_values(dtype, rng, n)
    b = corner_values(dtype, rng, n)[::-1].copy()
    b[b == 0] = 1  # division by zero is a fault, tested elsewhere
    b[:40] = np.arange(-20, 20).astype(dtype) if np.iinfo(dtype).min < 0 else np.arange(40).astype(dtype) * 3
    b[b == 0] = 1
    out = np.zeros(7 * n, dtype)
    integer_corners(a, b, out)
    bits = np.dtype(dtype).itemsize * 8
    unsigned = np.dtype(f"u{bits // 8}")
    count = (b.astype(unsigned) & np.array(bits - 1, unsigned)).astype(dtype)
    with np.errstate(over="ignore"):
        expected = np.stack([
            a + b, a - b, a * b,
            np.array([python_floor_div(int(x), int(y), dtype) for x, y in zip(a, b)], dtype),
            np.array([python_mod(int(x), int(y), dtype) for x, y in zip(a, b)], dtype),
            (a.astype(unsigned) << count.astype(unsigned)).astype(dtype),
            a >> count,
        ], axis=1).reshape(-1)
    np.testing.assert_array_equal(out, expected)


def wrap(value: int, dtype) -> int:
    bits = np.dtype(dtype).itemsize * 8
    value &= (1 << bits) - 1
    if np.iinfo(dtype).min < 0 and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def python_floor_div(x: int, y: int, dtype) -> int:
    return wrap(x // y, dtype)  # MIN // -1 wraps to MIN, as the hardware does


def python_mod(x: int, y: int, dtype) -> int:
    return wrap(x % y, dtype)


@wave_gpu.kernel
def float_to_integers(x, o32: i32[:], ou32: u32[:], o64: i64[:], ou64: u64[:]):
    i = thread_id()
    if i < len(x):
        o32[i] = i32(x[i])
        ou32[i] = u32(x[i])
        o64[i] = i64(x[i])
        ou64[i] = u64(x[i])


def saturate(value: float, dtype) -> int:
    info = np.iinfo(dtype)
    if math.isnan(value):
        return 0
    if value <= float(info.min):
        return int(info.min)
    if value >= float(info.max):
        return int(info.max)
    return int(value)


@pytest.mark.parametrize("source", [np.float32, np.float64])
def test_float_to_integer_conversions_saturate_and_map_nan_to_zero(rng, source):
    special = [np.nan, np.inf, -np.inf, 1e20, -1e20, 3e9, -3e9, -0.5, 0.5, 2.7, -2.7, 2.0**31, -2.0**31, 2.0**32,
               2.0**31 - 128, 1e19, 2e19, -1e19, 2.0**63, 2.0**64, -0.0, 4294967295.0, 9.2e18]
    x = np.concatenate([np.array(special), rng.uniform(-5e9, 5e9, 200), rng.uniform(-3e19, 3e19, 200)]).astype(source)
    outs = [np.zeros(x.size, t) for t in (np.int32, np.uint32, np.int64, np.uint64)]
    float_to_integers(x, *outs)
    for out, dtype in zip(outs, (np.int32, np.uint32, np.int64, np.uint64)):
        expected = np.array([saturate(float(v), dtype) for v in x], dtype)
        np.testing.assert_array_equal(out, expected, err_msg=f"{np.dtype(source)} -> {np.dtype(dtype)}")


@wave_gpu.kernel
def integers_to_floats(a: i64[:], b: u64[:], fa: f32[:], fb: f64[:]):
    i = thread_id()
    if i < len(a):
        fa[i] = f32(a[i])
        fb[i] = f64(b[i])


def test_64_bit_integers_to_floats_round_to_nearest(rng):
    a = rng.integers(-2**63, 2**63 - 1, 500, dtype=np.int64, endpoint=True)
    b = rng.integers(0, 2**64 - 1, 500, dtype=np.uint64, endpoint=True)
    fa, fb = np.zeros(500, np.float32), np.zeros(500, np.float64)
    integers_to_floats(a, b, fa, fb)
    np.testing.assert_array_equal(fa, a.astype(np.float32))
    np.testing.assert_array_equal(fb, b.astype(np.float64))


@wave_gpu.kernel
def multiply_add(a: f32[:], b: f32[:], c: f32[:], out: f32[:]):
    i = thread_id()
    if i < len(out):
        out[i] = a[i] * b[i] + c[i]


def test_a_times_b_plus_c_is_rounded_twice_never_fused(rng):
    n = 4096
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    c = -(a * b) + rng.standard_normal(n).astype(np.float32) * np.float32(1e-4)  # cancellation shows fusion
    out = np.zeros(n, np.float32)
    multiply_add(a, b, c, out)
    unfused = a * b + c  # NumPy rounds the product to f32, then the sum
    fused = (a.astype(np.float64) * b + c).astype(np.float32)  # one rounding (to within a double rounding)
    assert np.count_nonzero(fused != unfused) > n // 10  # the test can tell the two apart
    np.testing.assert_array_equal(out, unfused)


@wave_gpu.kernel
def min_max_nan(a: f32[:], b: f32[:], out: f32[:]):
    i = thread_id()
    if i < len(a):
        out[2 * i] = min(a[i], b[i])
        out[2 * i + 1] = max(a[i], b[i])


def test_min_and_max_treat_nan_like_the_emulator(rng):
    values = np.array([np.nan, 1.0, -1.0, np.inf, -np.inf, 0.0, -0.0], np.float32)
    a = np.repeat(values, values.size)
    b = np.tile(values, values.size)
    out = np.zeros(2 * a.size, np.float32)
    min_max_nan(a, b, out)
    expected = np.stack([np.where(b < a, b, a), np.where(a < b, b, a)], axis=1).reshape(-1)
    np.testing.assert_array_equal(out.view(np.uint32), expected.view(np.uint32))


@wave_gpu.kernel
def negate(x32: f32[:], x64: f64[:], out32: f32[:], out64: f64[:]):
    i = thread_id()
    if i < len(x32):
        out32[i] = -x32[i]
        out64[i] = -x64[i]


def test_negation_flips_the_sign_bit_of_zero():
    # IEEE negation, as NumPy's: -(+0) is -0 (the emulator once computed 0 - x, which gives +0).
    values = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, 1e-45], np.float32)
    out32 = np.zeros(values.size, np.float32)
    out64 = np.zeros(values.size, np.float64)
    negate(values, values.astype(np.float64), out32, out64)
    # 1e-45 is subnormal: -0.0 on a device that flushes it
    expected32 = expected_on_this_device(out32, -values, -flush_f32_subnormals(values))
    np.testing.assert_array_equal(out32.view(np.uint32), expected32.view(np.uint32))
    np.testing.assert_array_equal(out64.view(np.uint64), (-values.astype(np.float64)).view(np.uint64))


@wave_gpu.kernel
def to_half(x: f32[:], h: f16[:], back: f32[:]):
    i = thread_id()
    if i < len(x):
        h[i] = x[i]
        back[i] = h[i]


def test_f16_storage_rounds_to_nearest_even(rng):
    every_half = np.arange(0, 1 << 16, dtype=np.uint16).view(np.float16)
    finite = every_half[np.isfinite(every_half)].astype(np.float32)
    midpoints = ((finite[:-1].astype(np.float64) + finite[1:]) / 2).astype(np.float32)
    x = np.concatenate([finite, midpoints, rng.uniform(-70000, 70000, 2000).astype(np.float32),
                        np.array([np.inf, -np.inf, 1e-9, -1e-9, 65520.0, 65519.0], np.float32)])
    h = np.zeros(x.size, np.float16)
    back = np.zeros(x.size, np.float32)
    to_half(x, h, back)
    with np.errstate(over="ignore"):  # values beyond 65520 become inf, as intended
        expected = x.astype(np.float16)
    np.testing.assert_array_equal(h.view(np.uint16), expected.view(np.uint16))
    np.testing.assert_array_equal(back, expected.astype(np.float32))


@wave_gpu.kernel
def divergent_wave_reductions(x, out):
    i = thread_id()
    if i < len(x):
        v = x[i]
        if v > 0 or i % 3 == 0:  # only some lanes of each wave take part
            out[4 * i + 0] = wave_gpu.wave_sum(v)
            out[4 * i + 1] = wave_gpu.wave_min(v)
            out[4 * i + 2] = wave_gpu.wave_max(v)
            out[4 * i + 3] = wave_gpu.wave_prefix_sum(v)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint32])
def test_wave_reductions_over_active_lanes_in_lane_order(rng, dtype):
    n, workgroup = 200, 64
    if np.dtype(dtype).kind == "f":
        x = (rng.standard_normal(n) * 1e3).astype(dtype)  # float sums depend on the order
    else:
        x = rng.integers(-2**40 if dtype == np.int64 else 0, 2**40 if dtype == np.int64 else 2**32 - 1, n,
                         dtype=dtype)
    out = np.zeros(4 * n, dtype)
    width = wave_gpu.device().wave_width
    divergent_wave_reductions(x, out, grid=(4, 1, 1), workgroup=(workgroup, 1, 1), wave_width=width)
    expected = np.zeros((n, 4), dtype)
    index = np.arange(n)
    active = (x > 0) | (index % 3 == 0)
    with np.errstate(over="ignore"):
        for start in range(0, n, width):  # workgroups are multiples of the width
            lanes = [i for i in range(start, min(start + width, n)) if active[i]]
            if not lanes:
                continue
            total, low, high, running = x[lanes[0]], x[lanes[0]], x[lanes[0]], dtype(0)
            for i in lanes[1:]:
                total = dtype(total + x[i])
                low = x[i] if x[i] < low else low
                high = x[i] if high < x[i] else high
            for i in lanes:
                expected[i] = [total, low, high, running]
                running = dtype(running + x[i])
    np.testing.assert_array_equal(out.reshape(n, 4), expected)


@wave_gpu.kernel
def quotient_and_root(a: f32[:], b: f32[:], out: f32[:]):
    i = thread_id()
    if i < len(a):
        out[2 * i] = a[i] / b[i]
        out[2 * i + 1] = wave_gpu.sqrt(abs(a[i]))


def test_f32_division_and_sqrt_are_correctly_rounded(rng):
    n = 5000
    a = (rng.standard_normal(n) * 10.0 ** rng.uniform(-15, 15, n)).astype(np.float32)  # no subnormal results
    b = (rng.standard_normal(n) * 10.0 ** rng.uniform(-15, 15, n)).astype(np.float32)
    out = np.zeros(2 * n, np.float32)
    quotient_and_root(a, b, out)
    expected = np.stack([a / b, np.sqrt(np.abs(a))], axis=1).reshape(-1)  # NumPy rounds correctly
    device = wave_gpu.device()
    if device.index is not None and not _native.list_devices()[device.index]["features"]["float64"]:
        # without f64 the GLSL built-ins are used: Vulkan allows 2.5 ulp for division
        np.testing.assert_allclose(out, expected, rtol=4e-7)
    else:
        np.testing.assert_array_equal(out, expected)


@wave_gpu.kernel
def scalars_of_every_type(flag: bool, small: u32, big: i64, huge: u64, fine: f64, coarse: f32, out64: i64[:],
                          outu: u64[:], outf: f64[:], empty: f32[:]):
    i = thread_id()
    if i == 0:
        out64[0] = big
        out64[1] = i64(small)
        out64[2] = len(empty)
        out64[3] = 1 if flag else 0
        outu[0] = huge
        outf[0] = fine
        outf[1] = f64(coarse)


def test_scalars_of_every_type_and_an_empty_buffer():
    out64, outu, outf = np.zeros(4, np.int64), np.zeros(1, np.uint64), np.zeros(2)
    scalars_of_every_type(True, np.uint32(4000000000), -2**40 - 3, np.uint64(2**64 - 5), 1.0 / 3.0,
                          np.float32(0.1), out64, outu, outf, np.zeros(0, np.float32), grid=(1, 1, 1),
                          workgroup=(1, 1, 1))
    assert out64.tolist() == [-2**40 - 3, 4000000000, 0, 1]
    assert outu.tolist() == [2**64 - 5]
    assert outf.tolist() == [1.0 / 3.0, float(np.float32(0.1))]
