"""The kernel language Warp and Numba users expect: @wave_gpu.func device functions,
2-D and 3-D arrays (shaped WaveArrays and NumPy arrays, strided views in place) with
per-dimension bounds checks, per-thread arrays (wave_gpu.local) and module-level tuples of
constants. Every kernel runs on the emulator and, through the differential harness, on
Vulkan; results are checked against NumPy or the same function run as plain Python."""

import numpy as np
import pytest
from wave_support import DEVICES, make_rng, select_device

import wave_gpu
from wave_gpu import atomic_add, thread_id


@pytest.fixture(autouse=True, params=DEVICES)
def on_device(request, monkeypatch):
    yield from select_device(request, monkeypatch)


@pytest.fixture
def rng(request):
    return make_rng(request)


# ---- device functions -------------------------------------------------------------------------

@wave_gpu.func
def square(x):
    return x * x


@wave_gpu.func
def poly(x, a=2.0, b=1.0):
    return a * square(x) + b  # two levels deep from the kernel: poly -> square


@wave_gpu.func
def poly_sum(x, y):
    return poly(x) + poly(y, b=3.0) + poly(x, 0.5, b=-1.0)  # three levels: poly_sum -> poly -> square


@wave_gpu.kernel
def nested_calls(x: wave_gpu.f32[:], y: wave_gpu.f32[:], out: wave_gpu.f32[:]):
    i = thread_id()
    if i < len(x):
        out[i] = poly_sum(x[i], y[i])


def test_nested_calls_defaults_and_keywords(rng):
    x = rng.uniform(-2, 2, 100).astype(np.float32)
    y = rng.uniform(-2, 2, 100).astype(np.float32)
    out = np.zeros(100, np.float32)
    nested_calls(x, y, out)
    f = np.float32
    expected = (f(2) * x * x + f(1)) + (f(2) * y * y + f(3)) + (f(0.5) * x * x + f(-1))
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert poly_sum(1.0, 2.0) == (2 * 1 + 1) + (2 * 4 + 3) + (0.5 * 1 - 1)  # called from Python: plain Python


@wave_gpu.func
def nudge(x):
    return x + 1e-9 * x


@wave_gpu.kernel
def nudge_both(a32, out32, a64, out64):
    i = thread_id()
    if i < len(a32):
        out32[i] = nudge(a32[i])
        out64[i] = nudge(a64[i])


def test_one_func_specialised_per_argument_type(rng):
    a64 = rng.uniform(1, 2, 64)
    a32 = a64.astype(np.float32)
    out32, out64 = np.zeros_like(a32), np.zeros_like(a64)
    nudge_both(a32, out32, a64, out64)
    np.testing.assert_array_equal(out32, a32 + np.float32(1e-9) * a32)  # f32: the nudge is lost
    np.testing.assert_array_equal(out64, a64 + 1e-9 * a64)  # f64: kept
    assert not np.array_equal(out64, a64)
    ir = nudge_both.ir
    assert "f32 = mul" in ir and "f64 = mul" in ir


@wave_gpu.func
def divmod_safe(a, b):
    if b == 0:
        return 0, 0  # early return of two values
    return a // b, a % b


@wave_gpu.func
def positive_part(x):
    if x < 0:
        return 0  # a literal first: the result widens to the float of the other return
    return x


@wave_gpu.kernel
def tuple_returns(a: wave_gpu.i32[:], b: wave_gpu.i32[:], q: wave_gpu.i32[:], r: wave_gpu.i32[:],
                  x: wave_gpu.f32[:], pos: wave_gpu.f32[:]):
    i = thread_id()
    if i < len(a):
        q[i], r[i] = divmod_safe(a[i], b[i])
        quotient, remainder = divmod_safe(a[i], 3)
        q[i] += 1000 * quotient - 1000 * (a[i] // 3) + remainder - a[i] % 3  # zero when both calls agree
        pos[i] = positive_part(x[i])


def test_several_return_values_and_early_returns(rng):
    n = 120
    a = rng.integers(-50, 50, n).astype(np.int32)
    b = rng.integers(-4, 5, n).astype(np.int32)
    b[:10] = 0
    q, r = np.zeros(n, np.int32), np.zeros(n, np.int32)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    pos = np.zeros(n, np.float32)
    tuple_returns(a, b, q, r, x, pos)
    safe_b = np.where(b == 0, 1, b)
    np.testing.assert_array_equal(q, np.where(b == 0, 0, a // safe_b))
    np.testing.assert_array_equal(r, np.where(b == 0, 0, a % safe_b))
    np.testing.assert_array_equal(pos, np.maximum(x, 0))


@wave_gpu.func
def find_first(values: wave_gpu.i32[:], start, count, wanted):
    for k in range(count):
        while k < 0:  # a loop with no return: left normally
            k += 1
        if values[start + k] == wanted:
            return k  # a return from inside a loop
    return -1


@wave_gpu.func
def mark(out, i, value):
    if value < 0:
        out[i] = -1
        return  # a bare early return
    out[i] = value * 10


@wave_gpu.kernel
def search_rows(values: wave_gpu.i32[:], wanted: wave_gpu.i32[:], out: wave_gpu.i32[:]):
    i = thread_id()
    if i < len(out):
        mark(out, i, find_first(values, i * 8, 8, wanted[i]))


def test_return_from_a_loop_and_void_functions_writing_arrays(rng):
    rows = 50
    values = rng.integers(0, 6, rows * 8).astype(np.int32)
    wanted = rng.integers(0, 8, rows).astype(np.int32)
    out = np.zeros(rows, np.int32)
    search_rows(values, wanted, out)
    expected = []
    for row, target in zip(values.reshape(rows, 8), wanted):
        hits = np.nonzero(row == target)[0]
        expected.append(hits[0] * 10 if hits.size else -1)
    np.testing.assert_array_equal(out, expected)


@wave_gpu.func
def twice_plus_self(v):
    return v + v + v  # uses its parameter three times


@wave_gpu.func
def shadow(i, out):
    i = i * 100  # rebinding a parameter does not touch the caller's variable
    total = i + 1  # nor does a local that shares a caller's name
    out[0] = out[0]
    return total


@wave_gpu.kernel
def evaluation_once(counter: wave_gpu.i32[:], out: wave_gpu.i32[:], scoped: wave_gpu.i32[:]):
    i = thread_id()
    if i < len(out):
        out[i] = twice_plus_self(atomic_add(counter, 0, 1) * 0 + i)
        total = 7
        got = shadow(i, out)
        scoped[i] = i * 1000 + total * 10 + (got - i * 100 - 1)


def test_arguments_evaluated_once_and_local_scoping():
    n = 70
    counter = np.zeros(1, np.int32)
    out, scoped = np.zeros(n, np.int32), np.zeros(n, np.int32)
    evaluation_once(counter, out, scoped, grid=1, workgroup=128)
    assert counter[0] == n  # the argument's atomic ran once per thread, not three times
    np.testing.assert_array_equal(out, 3 * np.arange(n))
    np.testing.assert_array_equal(scoped, np.arange(n) * 1000 + 70)


@wave_gpu.func
def recurse(n):
    return 1 if n <= 0 else n * recurse(n - 1)


@wave_gpu.func
def ping(n):
    return pong(n - 1)


@wave_gpu.func
def pong(n):
    return ping(n) if n > 0 else 0


def plain_helper(x):
    return x + 1


@wave_gpu.kernel
def calls_recursive(out: wave_gpu.i32[:]):
    out[thread_id()] = recurse(3)


@wave_gpu.kernel
def calls_mutual(out: wave_gpu.i32[:]):
    out[thread_id()] = ping(3)


@wave_gpu.kernel
def calls_plain(out: wave_gpu.i32[:]):
    out[thread_id()] = plain_helper(3)


@pytest.mark.parametrize("kernel, message", [
    (calls_recursive, r"recursion is not supported in kernels: recurse -> recurse"),
    (calls_mutual, r"recursion is not supported in kernels: ping -> pong -> ping"),
    (calls_plain, r"'plain_helper' cannot be called in a kernel: it is a plain Python function; decorate it "
                  r"with @wave_gpu.func"),
])
def test_recursion_and_undecorated_functions_are_compile_errors(kernel, message):
    with pytest.raises(wave_gpu.CompileError, match=message) as error:
        kernel(np.zeros(4, np.int32))
    assert error.value.filename.endswith("test_wave_language.py") and error.value.lineno > 0


# ---- multi-dimensional arrays -------------------------------------------------------------------

@wave_gpu.kernel
def double_2d_3d(a2, out2, a3, out3):
    t = thread_id()
    rows, cols = a2.shape
    if t < rows * cols:
        i = t // cols
        j = t % cols
        out2[i, j] = a2[i, j] + a2[i, j]
    if t < len(a3) * a3.shape[1] * a3.shape[2]:
        plane = a3.shape[1] * a3.shape[2]
        i = t // plane
        j = (t % plane) // a3.shape[2]
        k = t % a3.shape[2]
        out3[i, j, k] = a3[i, j, k] + a3[i, j, k]


# (Apart from double_2d_3d: four N-D arrays, their lengths, a fifth buffer and the launch's
# words would exceed lavapipe's 128 bytes of push constants.)
@wave_gpu.kernel
def shapes_of(a2, a3, dims):
    if thread_id() == 0:
        dims[0] = len(a2)
        dims[1] = a2.shape[1]
        dims[2] = a3.shape[0]
        dims[3] = a3.shape[1]
        dims[4] = a3.shape[-1]


@pytest.mark.parametrize("dtype", ["f16", "f32", "f64", "i32", "u32", "i64", "u64"])
def test_2d_and_3d_arrays_of_every_dtype(rng, dtype):
    numpy_dtype = wave_gpu._types.NUMPY_DTYPES[dtype]
    a2 = rng.integers(0, 100, (5, 7)).astype(numpy_dtype)
    a3 = rng.integers(0, 100, (2, 3, 4)).astype(numpy_dtype)
    out2, out3 = np.zeros_like(a2), np.zeros_like(a3)
    dims = np.zeros(5, np.int32)
    double_2d_3d(a2, out2, a3, out3, grid=1, workgroup=64)
    shapes_of(a2, a3, dims, grid=1, workgroup=1)
    np.testing.assert_array_equal(out2, a2 + a2)
    np.testing.assert_array_equal(out3, a3 + a3)
    np.testing.assert_array_equal(dims, [5, 7, 2, 3, 4])

    element = getattr(wave_gpu, dtype)

    @wave_gpu.kernel
    def annotated(a: element[:, :], cube: element[:, :, :], out: element[:, :]):
        i = thread_id(1)
        j = thread_id(0)
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = a[i, j] + cube[1, 2, 3]

    out2 = np.zeros_like(a2)
    annotated(a2, a3, out2, grid=1, workgroup=(8, 8))
    np.testing.assert_array_equal(out2, a2 + a3[1, 2, 3])
    assert repr(element[:, :, :]) == f"wave_gpu.{dtype}[:, :, :]"


@wave_gpu.kernel
def add_one_2d(a: wave_gpu.f32[:, :]):
    i = thread_id(1)
    j = thread_id(0)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] += 1.0 + i * 0.0


@wave_gpu.kernel
def write_coordinates(a: wave_gpu.i32[:, :], b: wave_gpu.i32[:, :]):
    i = thread_id(1)
    j = thread_id(0)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = 100 * i + j
    if i < b.shape[0] and j < b.shape[1]:
        b[i, j] = -(100 * i + j)


@wave_gpu.kernel
def scale_3d(a: wave_gpu.f64[:, :, :], factor: float):
    t = thread_id()
    n0, n1, n2 = a.shape
    if t < n0 * n1 * n2:
        a[t // (n1 * n2), (t // n2) % n1, t % n2] *= factor


@pytest.mark.parametrize("view", ["rows_step", "transposed", "reversed", "columns_offset"])
def test_strided_views_are_updated_in_place(view):
    base = np.arange(8 * 10, dtype=np.float32).reshape(8, 10)
    original = base.copy()
    views = {"rows_step": lambda a: a[::2, 1:], "transposed": lambda a: a.T,
             "reversed": lambda a: a[::-1, ::-3], "columns_offset": lambda a: a[2:7, 3:9]}
    target = views[view](base)
    assert not target.flags.c_contiguous or view == "columns_offset"
    add_one_2d(target, grid=(4, 4), workgroup=(4, 4))
    expected = original.copy()
    views[view](expected)[...] += 1.0
    np.testing.assert_array_equal(base, expected)  # the view's elements changed, no others


def test_two_interleaved_views_of_one_array_both_written():
    base = np.zeros((6, 8), np.int32)
    write_coordinates(base[:, ::2], base[:, 1::2], grid=(1, 1), workgroup=(8, 8))
    i, j = np.indices((6, 4))
    np.testing.assert_array_equal(base[:, ::2], 100 * i + j)
    np.testing.assert_array_equal(base[:, 1::2], -(100 * i + j))


def test_3d_views_and_shaped_wave_arrays(rng):
    cube = rng.uniform(-1, 1, (4, 5, 6))
    expected = cube.copy()
    scale_3d(cube[1:, ::2, ::-1], 3.0, grid=1, workgroup=64)
    expected[1:, ::2, ::-1] *= 3.0
    np.testing.assert_array_equal(cube, expected)

    shaped = wave_gpu.ones((3, 5, 2), wave_gpu.f64)
    assert shaped.shape == (3, 5, 2) and len(shaped) == 3
    scale_3d(shaped, 2.5, grid=1, workgroup=32)
    scale_3d(shaped, 2.0, grid=1, workgroup=32)  # the device copy is reused between calls
    assert shaped.to_list() == np.full((3, 5, 2), 5.0).tolist()


def test_shaped_wave_array_construction_keeps_the_1d_api():
    grid = wave_gpu.zeros((3, 4))
    assert grid.shape == (3, 4) and grid.dtype == "f32" and len(grid) == 3
    assert grid.to_list() == [[0.0] * 4] * 3
    nested = wave_gpu.array([[1, 2, 3], [4, 5, 6]], wave_gpu.i32)
    assert nested.shape == (2, 3) and nested[1, 2] == 6 and nested[0] == [1, 2, 3]
    nested[1, 0] = 40
    assert np.asarray(nested).tolist() == [[1, 2, 3], [40, 5, 6]]
    assert wave_gpu.ones((2, 2), "u32").to_list() == [[1, 1], [1, 1]]
    flat = wave_gpu.zeros(5)
    assert flat.shape == (5,) and flat.to_list() == [0.0] * 5 and len(flat) == 5
    assert wave_gpu.array([1.5, 2.5]).to_list() == [1.5, 2.5] and wave_gpu.array([1.5, 2.5]).shape == (2,)
    with pytest.raises(ValueError, match="data: nested lists must be regular"):
        wave_gpu.array([[1, 2], [3]])
    with pytest.raises(ValueError, match="data: element 1 .* is not an integer"):
        wave_gpu.array([[1, 2.5]], "i32")
    with pytest.raises(ValueError, match="n: dimensions must not be negative"):
        wave_gpu.zeros((2, -1))
    with pytest.raises(TypeError, match="n: expected an int or a tuple of ints"):
        wave_gpu.ones((2, 1.5))


def test_wrong_rank_is_a_type_error_naming_the_parameter():
    with pytest.raises(TypeError, match=r"argument 'a' of add_one_2d\(\): expected a 2-D f32 array"):
        add_one_2d(np.zeros(6, np.float32), grid=1, workgroup=1)
    with pytest.raises(TypeError, match=r"argument 'out' of nested_calls\(\): expected a 1-D f32 array"):
        nested_calls(np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros((2, 2), np.float32))
    with pytest.raises(TypeError, match=r"argument 'a' of scale_3d\(\): expected a 3-D f64 array"):
        scale_3d(wave_gpu.zeros((2, 2), "f64"), 1.0, grid=1, workgroup=1)


@wave_gpu.kernel
def read_at(a: wave_gpu.f32[:, :], i: int, j: int, out: wave_gpu.f32[:]):
    if thread_id() == 0:
        out[0] = a[i, j]


@pytest.mark.parametrize("i, j, message", [
    (1, 7, "index 7 out of range for dimension 1 of size 4"),
    (3, 0, "index 3 out of range for dimension 0 of size 3"),
    (-1, 0, "index -1 out of range for dimension 0 of size 3"),
    (0, 4, "index 4 out of range for dimension 1 of size 4"),  # in the buffer, past the row
])
def test_bounds_checked_per_dimension(i, j, message):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.zeros(1, np.float32)
    with pytest.raises(wave_gpu.KernelError, match=message):
        read_at(a, i, j, out, grid=1, workgroup=1)
    read_at(a, 2, 3, out, grid=1, workgroup=1)
    assert out[0] == 11.0


# ---- per-thread arrays and tuples of constants --------------------------------------------------

@wave_gpu.func
def insertion_sort(values, count):
    for k in range(1, count):
        key = values[k]
        m = k - 1
        while m >= 0 and values[m] > key:
            values[m + 1] = values[m]
            m -= 1
        values[m + 1] = key


@wave_gpu.kernel
def sort_rows(data, out):
    i = thread_id()
    if i < len(data):
        row = wave_gpu.local(6, wave_gpu.f32)
        for k in range(6):
            row[k] = data[i, k]
        insertion_sort(row, 6)
        row[0] += 0.0  # constant index, augmented
        for k in range(6):
            out[i, k] = row[k]


@wave_gpu.kernel
def histogram_rows(data: wave_gpu.i32[:, :], out: wave_gpu.i32[:, :]):
    i = thread_id()
    if i < len(data):
        counts = wave_gpu.local(4, wave_gpu.i32)
        for k in range(data.shape[1]):
            counts[data[i, k]] += 1
        for k in range(4):
            out[i, k] = counts[k]


def test_local_arrays_dynamic_and_constant_indices(rng):
    data = rng.uniform(-10, 10, (40, 6)).astype(np.float32)
    out = np.zeros_like(data)
    sort_rows(data, out)
    np.testing.assert_array_equal(out, np.sort(data, axis=1))
    values = rng.integers(0, 4, (30, 9)).astype(np.int32)
    counts = np.zeros((30, 4), np.int32)
    histogram_rows(values, counts)
    np.testing.assert_array_equal(counts, [np.bincount(row, minlength=4) for row in values])


def test_local_array_bounds_are_checked():
    values = np.zeros((2, 3), np.int32)
    values[1, 2] = 4
    with pytest.raises(wave_gpu.KernelError, match="index 4 out of range for dimension 0 of size 4"):
        histogram_rows(values, np.zeros((2, 4), np.int32))


WEIGHTS = (0.25, 0.5, 0.25)
OFFSETS = (-1, 0, 1)


@wave_gpu.kernel
def smooth(x: wave_gpu.f32[:], out: wave_gpu.f32[:]):
    i = thread_id()
    if 0 < i < len(x) - 1:
        acc = 0.0
        for k in range(len(WEIGHTS)):
            acc += WEIGHTS[k] * x[i + OFFSETS[k]]
        out[i] = acc + WEIGHTS[1] * 0.0 + OFFSETS[-1] * 0


def test_module_level_tuples_indexed_by_loop_variables_and_constants(rng):
    x = rng.uniform(-1, 1, 90).astype(np.float32)
    out = np.zeros_like(x)
    smooth(x, out)
    f = np.float32
    expected = np.zeros_like(x)
    expected[1:-1] = ((f(0) + f(0.25) * x[:-2]) + f(0.5) * x[1:-1]) + f(0.25) * x[2:]
    np.testing.assert_array_equal(out, expected)


TENTHS = (0.1, 0.2, 0.7)


@wave_gpu.kernel
def weigh(x64: wave_gpu.f64[:, :], out64: wave_gpu.f64[:], x32: wave_gpu.f32[:, :], out32: wave_gpu.f32[:]):
    i = thread_id()
    if i < len(out64):
        acc64 = wave_gpu.f64(0.0)
        acc32 = 0.0
        for k in range(3):
            acc64 += TENTHS[k] * x64[i, k]
            acc32 += TENTHS[k] * x32[i, k]
        out64[i] = acc64
        out32[i] = acc32


def test_float_tuples_are_exact_in_f64_and_f32_code(rng):
    x64 = rng.uniform(-1, 1, (20, 3))
    x32 = x64.astype(np.float32)
    out64, out32 = np.zeros(20), np.zeros(20, np.float32)
    weigh(x64, out64, x32, out32)
    np.testing.assert_array_equal(out64, ((0.0 + 0.1 * x64[:, 0]) + 0.2 * x64[:, 1]) + 0.7 * x64[:, 2])
    f = np.float32
    np.testing.assert_array_equal(out32, ((f(0) + f(0.1) * x32[:, 0]) + f(0.2) * x32[:, 1]) + f(0.7) * x32[:, 2])


# ---- compile errors of the new syntax ---------------------------------------------------------

@wave_gpu.kernel
def one_index_on_2d(a: wave_gpu.f32[:, :]):
    a[thread_id()] = 1.0


@wave_gpu.kernel
def variable_local_size(n: int, out: wave_gpu.f32[:]):
    tmp = wave_gpu.local(n, wave_gpu.f32)
    out[0] = tmp[0]


@wave_gpu.kernel
def local_constant_out_of_range(out: wave_gpu.f32[:]):
    tmp = wave_gpu.local(3, wave_gpu.f32)
    out[0] = tmp[3]


@wave_gpu.kernel
def writes_a_tuple(out: wave_gpu.f32[:]):
    WEIGHTS[0] = 1.0


@wave_gpu.kernel
def unpacks_one_value(out: wave_gpu.f32[:]):
    a, b = square(2.0)


def test_misuse_is_a_compile_error_with_the_line():
    cases = [
        (lambda: one_index_on_2d(np.zeros((2, 2), np.float32), grid=1, workgroup=1),
         r"'a' has 2 dimensions: index it with 2 integers, as a\[i, j\]"),
        (lambda: variable_local_size(3, np.zeros(1, np.float32)),
         "the size of a local array must be a positive integer constant"),
        (lambda: local_constant_out_of_range(np.zeros(1, np.float32)),
         "index 3 out of range for dimension 0 of size 3"),
        (lambda: writes_a_tuple(np.zeros(1, np.float32)), "'WEIGHTS' is a tuple of constants"),
        (lambda: unpacks_one_value(np.zeros(1, np.float32)), r"square\(\) returns 1 value, not 2"),
    ]
    for call, message in cases:
        with pytest.raises(wave_gpu.CompileError, match=message) as error:
            call()
        assert error.value.lineno > 0 and error.value.source_line


def test_heat2d_example_matches_numpy(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / "wave_heat2d.py"
    spec = importlib.util.spec_from_file_location("wave_heat2d_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main() == 0
    assert "heat2d: matches the NumPy reference" in capsys.readouterr().out
