"""Math functions, math constants, Python-float scalars and NumPy dtypes in wave_gpu, on the
emulator and on Vulkan (where every call is also checked against the emulator). Results are
compared with NumPy (Python's math for erf and erfc, which NumPy lacks) at the tolerances the
README documents, special values (zeros, subnormals, infinities, NaN, edges of the domains)
included."""

import math

import numpy as np
import pytest
from wave_support import DEVICES, expected_on_this_device, flush_f32_subnormals, make_rng, select_device

import wave_gpu
from wave_gpu import _native, f32, i32, shared, thread_id


@pytest.fixture(autouse=True, params=DEVICES)
def on_device(request, monkeypatch):
    yield from select_device(request, monkeypatch)


@pytest.fixture
def rng(request):
    return make_rng(request)


# The README's tolerances: relative, plus an absolute one that only matters for subnormal
# results (where every implementation loses relative precision).
RTOL = {np.float32: 2e-6, np.float64: 2e-15}
ATOL = {np.float32: 1e-37, np.float64: 1e-300}
UNARY = ["tanh", "sinh", "cosh", "asin", "acos", "atan", "erf", "erfc", "log10", "log1p", "expm1", "fabs", "trunc"]
_ERF = np.vectorize(math.erf, otypes=[np.float64])
_ERFC = np.vectorize(math.erfc, otypes=[np.float64])
NUMPY_UNARY = {"tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos,
               "atan": np.arctan, "erf": _ERF, "erfc": _ERFC, "log10": np.log10, "log1p": np.log1p,
               "expm1": np.expm1, "fabs": np.fabs, "trunc": np.trunc}


def special_values(dtype) -> np.ndarray:
    info = np.finfo(dtype)
    values = [0.0, -0.0, info.smallest_subnormal, -info.smallest_subnormal, info.smallest_normal, 1e-30, -1e-30,
              1e-9, -1e-9, 1e-5, 0.3, -0.3, 0.5, -0.5, 0.9999, -0.9999, 1.0, -1.0, 1.5, 2.0, 3.7, -3.7, 5.5, 9.0,
              10.0, 20.0, 27.0, 88.0, -88.0, 700.0, 1e10, -1e10, float(info.max), -float(info.max), math.inf,
              -math.inf, math.nan]
    return np.array(values, dtype=dtype)


def inputs(rng, dtype) -> np.ndarray:
    """Special values, then random ones at every scale: near zero (log1p/expm1 edges), in
    [-1, 1] (asin/acos), the Taylor intervals of erf/erfc, and large magnitudes."""
    magnitudes = 10.0 ** rng.uniform(-12, 3, 200)
    signs = rng.choice([-1.0, 1.0], 200)
    return np.concatenate([special_values(dtype), (magnitudes * signs).astype(dtype),
                           rng.uniform(-1, 1, 100).astype(dtype), rng.uniform(-6, 6, 100).astype(dtype)])


def reference(name: str, x: np.ndarray) -> np.ndarray:
    """NumPy's result in f64 rounded to the input's type (a correctly rounded reference for f32)."""
    with np.errstate(all="ignore"):
        return NUMPY_UNARY[name](x.astype(np.float64)).astype(x.dtype)


def assert_close(got: np.ndarray, expected: np.ndarray, dtype, what: str, flushed=None) -> None:
    """`got` against `expected` at the README's tolerances; with `flushed` (the reference from
    flushed operands, on a device that may flush f32 subnormals) an element may match either."""
    if flushed is not None:
        expected = expected_on_this_device(got, expected, flushed, RTOL[dtype], ATOL[dtype])
    np.testing.assert_allclose(got, expected, rtol=RTOL[dtype], atol=ATOL[dtype], equal_nan=True, err_msg=what)
    zeros = (expected == 0) & (got == 0)
    assert (np.signbit(got[zeros]) == np.signbit(expected[zeros])).all(), f"{what}: the sign of a zero differs"


@wave_gpu.kernel
def unary_math(x, out):
    i = thread_id()
    n = len(x)
    if i < n:
        v = x[i]
        out[i] = math.tanh(v)
        out[n + i] = wave_gpu.sinh(v)
        out[2 * n + i] = math.cosh(v)
        out[3 * n + i] = math.asin(v)
        out[4 * n + i] = wave_gpu.acos(v)
        out[5 * n + i] = math.atan(v)
        out[6 * n + i] = math.erf(v)
        out[7 * n + i] = wave_gpu.erfc(v)
        out[8 * n + i] = math.log10(v)
        out[9 * n + i] = math.log1p(v)
        out[10 * n + i] = wave_gpu.expm1(v)
        out[11 * n + i] = math.fabs(v)
        out[12 * n + i] = wave_gpu.trunc(v)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_functions_against_numpy(rng, dtype):
    x = inputs(rng, dtype)
    out = np.zeros(len(UNARY) * x.size, dtype)
    unary_math(x, out)
    for k, name in enumerate(UNARY):
        got = out[k * x.size:(k + 1) * x.size]
        assert_close(got, reference(name, x), dtype, f"{name} ({np.dtype(dtype).name})",
                     reference(name, flush_f32_subnormals(x)))


@wave_gpu.kernel
def binary_math(y, x, out):
    i = thread_id()
    n = len(x)
    if i < n:
        out[i] = math.atan2(y[i], x[i])
        out[n + i] = wave_gpu.hypot(y[i], x[i])
        out[2 * n + i] = math.fmod(y[i], x[i])
        out[3 * n + i] = math.copysign(y[i], x[i])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary_functions_against_numpy(rng, dtype):
    specials = special_values(dtype)
    grid_y, grid_x = np.meshgrid(specials, specials)
    random_y = (rng.standard_normal(300) * 10.0 ** rng.uniform(-5, 5, 300)).astype(dtype)
    random_x = (rng.standard_normal(300) * 10.0 ** rng.uniform(-5, 5, 300)).astype(dtype)
    y = np.concatenate([grid_y.ravel(), random_y])
    x = np.concatenate([grid_x.ravel(), random_x])
    out = np.zeros(4 * x.size, dtype)
    binary_math(y, x, out)
    n = x.size
    with np.errstate(all="ignore"):
        y64, x64 = y.astype(np.float64), x.astype(np.float64)
        flushed_y, flushed_x = flush_f32_subnormals(y), flush_f32_subnormals(x)
        flushed_y64, flushed_x64 = flushed_y.astype(np.float64), flushed_x.astype(np.float64)
        assert_close(out[:n], np.arctan2(y64, x64).astype(dtype), dtype, "atan2",
                     np.arctan2(flushed_y64, flushed_x64).astype(dtype))
        assert_close(out[n:2 * n], np.hypot(y64, x64).astype(dtype), dtype, "hypot",
                     np.hypot(flushed_y64, flushed_x64).astype(dtype))
        # (a flushing device gives fmod(0, subnormal) = NaN)
        fmod = expected_on_this_device(out[2 * n:3 * n], np.fmod(y, x), np.fmod(flushed_y, flushed_x))
        copysign = expected_on_this_device(out[3 * n:], np.copysign(y, x), np.copysign(flushed_y, flushed_x))
    # fmod and copysign are exact: bit for bit
    np.testing.assert_array_equal(out[2 * n:3 * n].view(f"u{x.itemsize}")[~np.isnan(fmod)],
                                  fmod.view(f"u{x.itemsize}")[~np.isnan(fmod)], err_msg="fmod")
    assert np.isnan(out[2 * n:3 * n][np.isnan(fmod)]).all(), "fmod: NaN where NumPy gives NaN"
    np.testing.assert_array_equal(out[3 * n:], copysign, err_msg="copysign")
    assert (np.signbit(out[3 * n:]) == np.signbit(copysign)).all(), "copysign: signs"


@wave_gpu.kernel
def classify(x, out):
    i = thread_id()
    n = len(x)
    if i < n:
        out[i] = int(math.isnan(x[i]))
        out[n + i] = 1 if wave_gpu.isinf(x[i]) else 0
        out[2 * n + i] = int(math.isfinite(x[i]))
        if not math.isnan(x[i]) and x[i] == x[i] and math.isfinite(x[i] * 0.5):
            out[3 * n + i] = 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_classification_of_special_values(dtype):
    bits = np.array([0x7FC00001, 0xFFC00000, 0x7F800001, 0x7FBFFFFF], np.uint32) if dtype == np.float32 else \
        np.array([0x7FF8000000000001, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF7FFFFFFFFFFFF], np.uint64)
    x = np.concatenate([special_values(dtype), bits.view(dtype)])  # quiet and signalling NaNs, both signs
    out = np.zeros(4 * x.size, np.int32)
    classify(x, out)
    n = x.size
    np.testing.assert_array_equal(out[:n], np.isnan(x), err_msg="isnan")
    np.testing.assert_array_equal(out[n:2 * n], np.isinf(x), err_msg="isinf")
    np.testing.assert_array_equal(out[2 * n:3 * n], np.isfinite(x), err_msg="isfinite")
    np.testing.assert_array_equal(out[3 * n:], np.isfinite(x), err_msg="isnan and isfinite combined with x == x")
    assert _native.Module.parse(classify.ir).text == classify.ir  # the new opcodes survive the disk cache


@wave_gpu.kernel
def rounding(x, table, as_int, as_float, picked):
    i = thread_id()
    n = len(x)
    if i < n:
        v = x[i]
        as_int[i] = math.floor(v)
        as_int[n + i] = math.ceil(v)
        as_int[2 * n + i] = math.trunc(v)
        as_float[i] = wave_gpu.floor(v)
        as_float[n + i] = wave_gpu.ceil(v)
        as_float[2 * n + i] = wave_gpu.trunc(v)
        j = math.floor(math.fabs(v))  # an integer: usable as an index
        picked[i] = table[j % len(table)] + math.floor(i)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_floor_ceil_trunc_integers_and_floats(rng, dtype):
    x = np.concatenate([np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 1e6 + 0.5, -7.999], dtype),
                        rng.uniform(-1000, 1000, 200).astype(dtype)])
    table = rng.integers(-100, 100, 17).astype(np.int32)
    as_int = np.zeros(3 * x.size, np.int32)
    as_float = np.zeros(3 * x.size, dtype)
    picked = np.zeros(x.size, np.int32)
    rounding(x, table, as_int, as_float, picked)
    n = x.size
    for k, function in enumerate([np.floor, np.ceil, np.trunc]):
        np.testing.assert_array_equal(as_int[k * n:(k + 1) * n], function(x).astype(np.int32))
        np.testing.assert_array_equal(as_float[k * n:(k + 1) * n], function(x))
        assert (np.signbit(as_float[k * n:(k + 1) * n]) == np.signbit(function(x))).all()
    np.testing.assert_array_equal(picked, table[np.floor(np.abs(x)).astype(np.int64) % table.size] + np.arange(n))
    assert ":i32 = cvt" in rounding.ir  # math.floor, math.ceil and math.trunc give integers


def test_host_versions():
    assert wave_gpu.floor(2.5) == 2.0 and isinstance(wave_gpu.floor(2.5), float)
    assert wave_gpu.ceil(-2.5) == -2.0 and isinstance(wave_gpu.ceil(-2.5), float)
    assert wave_gpu.trunc(-2.7) == -2.0 and wave_gpu.floor(math.inf) == math.inf
    assert wave_gpu.tanh is math.tanh and wave_gpu.isnan is math.isnan and wave_gpu.fmod is math.fmod


@wave_gpu.kernel
def constants(out32: f32[:], out64: wave_gpu.f64[:], flags: i32[:]):
    out32[0] = math.pi
    out32[1] = math.e
    out32[2] = math.inf
    out32[3] = -math.inf
    out32[4] = math.nan
    out64[0] = math.pi
    out64[1] = math.e
    out64[2] = math.inf
    out64[3] = -math.inf
    out64[4] = math.nan
    flags[0] = int(math.isnan(math.nan))
    flags[1] = int(math.isinf(-math.inf))
    flags[2] = math.floor(math.pi)


def test_constants_and_their_ir_round_trip():
    out32 = np.zeros(5, np.float32)
    out64 = np.zeros(5, np.float64)
    flags = np.zeros(3, np.int32)
    constants(out32, out64, flags, grid=(1, 1, 1), workgroup=(1, 1, 1))
    expected = [math.pi, math.e, math.inf, -math.inf, math.nan]
    np.testing.assert_array_equal(out32, np.array(expected, np.float32))
    np.testing.assert_array_equal(out64, np.array(expected, np.float64))
    assert flags.tolist() == [1, 1, 3]
    assert _native.Module.parse(constants.ir).text == constants.ir  # the on-disk cache re-reads this text


def test_python_float_scalar_keeps_f64_precision(rng):
    @wave_gpu.kernel  # defined here: .ir is the latest compilation of this kernel object
    def scale(x, s, out):
        i = thread_id()
        if i < len(x):
            out[i] = x[i] * s + s

    s = 0.1  # not representable in f32
    x64 = rng.standard_normal(300)
    out64 = np.zeros_like(x64)
    scale(x64, s, out64)
    np.testing.assert_array_equal(out64, x64 * s + s)
    assert "scalar s: f64" in scale.ir
    x32 = rng.standard_normal(300).astype(np.float32)
    out32 = np.zeros_like(x32)
    scale(x32, s, out32)
    s32 = np.float32(s)
    np.testing.assert_array_equal(out32, x32 * s32 + s32)  # f32 arithmetic, as with a literal
    assert "scalar s: f32" in scale.ir and "f64" not in scale.ir  # no float64 needed


def test_python_float_scalar_is_weak_beside_f64(rng):
    @wave_gpu.kernel
    def scale_both(x32, x64, s, out32, out64):
        i = thread_id()
        if i < len(x32):
            out32[i] = x32[i] * s
            out64[i] = x64[i] * s

    s = 1.0 / 3.0
    x32 = rng.standard_normal(100).astype(np.float32)
    x64 = rng.standard_normal(100)
    out32, out64 = np.zeros_like(x32), np.zeros_like(x64)
    scale_both(x32, x64, s, out32, out64)
    np.testing.assert_array_equal(out32, x32 * np.float32(s))
    np.testing.assert_array_equal(out64, x64 * s)


def test_python_float_scalar_is_f64_where_only_a_cast_makes_f64(rng):
    @wave_gpu.kernel
    def widened(x, s, out):
        i = thread_id()
        if i < len(x):
            out[i] = wave_gpu.f32(wave_gpu.f64(x[i]) * s)

    s = 0.7
    x = rng.standard_normal(100).astype(np.float32)
    out = np.zeros_like(x)
    widened(x, s, out)
    np.testing.assert_array_equal(out, (x.astype(np.float64) * s).astype(np.float32))
    assert "scalar s: f64" in widened.ir


@wave_gpu.kernel
def shared_copy(x, out):
    tile = shared(64, np.float64)
    i = thread_id()
    tile[i] = x[i] * 0.1
    out[i] = tile[i]


def test_numpy_dtypes_everywhere():
    for dtype, name in [(np.float32, "f32"), (np.dtype("float64"), "f64"), (np.int32, "i32"), (np.uint32, "u32"),
                        (np.float16, "f16"), (np.dtype(np.uint32), "u32"), (wave_gpu.f64, "f64"), ("i32", "i32")]:
        assert wave_gpu.array([1, 2, 3], dtype=dtype).dtype == name
        assert wave_gpu.zeros(3, dtype).dtype == name
        assert wave_gpu.ones(3, dtype=dtype).numpy().dtype == np.dtype(wave_gpu._types.NUMPY_DTYPES[name])
    x = np.arange(64, dtype=np.float64)
    out = np.zeros(64)
    shared_copy(x, out, grid=(1, 1, 1), workgroup=(64, 1, 1))
    np.testing.assert_array_equal(out, x * 0.1)


@pytest.mark.parametrize("bad", [np.complex64, np.dtype(bool), np.int8, np.int64, float, "f4", "float32", object()])
def test_unsupported_dtypes_name_the_argument(bad):
    with pytest.raises(ValueError, match="^dtype: unsupported dtype"):
        wave_gpu.zeros(3, bad)
    with pytest.raises(ValueError, match="^dtype:"):
        wave_gpu.array([1.0], dtype=bad)


@wave_gpu.kernel
def bad_hypot(x: f32[:]):
    x[0] = math.hypot(x[0], x[1], x[2])


@wave_gpu.kernel
def bad_floor(x: i32[:]):
    x[0] = math.floor(math.inf)


@wave_gpu.kernel
def bad_shared(x: f32[:]):
    tile = shared(4, np.complex64)
    x[0] = tile[0]


@pytest.mark.parametrize("kernel,message", [(bad_hypot, r"takes 2 arguments"), (bad_floor, r"infinity"),
                                            (bad_shared, r"unknown shared array dtype")])
def test_misuse_is_a_compile_error(kernel, message):
    with pytest.raises(wave_gpu.CompileError, match=message) as error:
        kernel(np.zeros(4, np.float32 if kernel is not bad_floor else np.int32), grid=(1, 1, 1), workgroup=(1, 1, 1))
    assert error.value.lineno > 0 and error.value.filename.endswith("test_wave_math.py")
