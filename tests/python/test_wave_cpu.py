"""The native cpu device (device="cpu"): selection, results bit for bit equal to the emulator's
on every scalar type and operation, the emulator's fault messages, bounds_checks=False,
threads=, timeouts, the disk cache across processes, and a clear error for what it does not
run yet. (The kernel, language, launch, math, seed and fuzz suites run on it too: wave_support.)"""

import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import wave_gpu
from wave_gpu import _device, f32, f64, i32, i64, thread_id, u32, u64
from wave_support import make_rng


@pytest.fixture
def rng(request):
    return make_rng(request)


@pytest.fixture(autouse=True)
def no_selection():
    wave_gpu.set_device(None)
    yield
    wave_gpu.set_device(None)


def _bits(array):
    return array.view(f"u{array.dtype.itemsize}") if array.dtype.kind == "f" else array


def assert_same_bits(got, expected):
    different = np.nonzero(_bits(got) != _bits(expected))[0]
    assert different.size == 0, f"{different.size} elements differ, first {different[:8].tolist()}: " \
                                f"{got[different[:8]].tolist()} != {expected[different[:8]].tolist()}"


@wave_gpu.kernel
def vector_add(a: f32[:], b: f32[:], out: f32[:]):
    i = thread_id()
    if i < len(out):
        out[i] = a[i] + b[i]


# ---- selection ----------------------------------------------------------------------------

def test_cpu_is_selected_by_device_set_device_and_the_environment(monkeypatch):
    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    vector_add(a, a, out, device="cpu")
    np.testing.assert_array_equal(out, 2 * a)
    assert vector_add.cpu_program().module.name == "vector_add"
    wave_gpu.set_device("cpu")
    assert wave_gpu.device() == _device.CPU
    assert _device.resolve() == "cpu"
    wave_gpu.set_device(_device.CPU)  # a DeviceInfo selects it too
    assert _device.resolve() == "cpu"
    wave_gpu.set_device(None)
    monkeypatch.setenv("WAVE_GPU_DEVICE", "cpu")
    assert _device.resolve() == "cpu" and wave_gpu.device().name == "WAVE native CPU"
    monkeypatch.setenv("WAVE_GPU_DEVICE", "CPU ")
    assert _device.resolve() == "cpu"


def test_the_automatic_choice_without_a_gpu_stays_the_emulator(monkeypatch):
    monkeypatch.delenv("WAVE_GPU_DEVICE", raising=False)
    monkeypatch.setattr(_device, "_detect_gpu", lambda: None)
    assert _device.resolve() == "emulator"
    assert wave_gpu.device() == _device.EMULATOR


def test_an_unknown_device_names_cpu_among_the_allowed_ones():
    with pytest.raises(ValueError, match="'cpu'"):
        wave_gpu.set_device("cpux")


# ---- results bit for bit ------------------------------------------------------------------

@wave_gpu.kernel
def integer_ops(a: i32[:], b: i32[:], out: i32[:]):
    i = thread_id()
    x = a[i]
    y = b[i]
    r = x + y * 3 - (x ^ y)
    r = r + (x << (y & 7)) + (x >> 3) + (x & 0xFF) - (y | 5)
    r = r + min(x, y) - max(x, y) + abs(x) + (-y) + (~x)
    if y != 0:
        r = r + x // y + x % y
    r = r + (x ** 3) + (1 if x < y else 2) + (3 if x >= y else 4)
    out[i] = r


@wave_gpu.kernel
def unsigned_ops(a: u32[:], b: u32[:], c: u64[:], d: i64[:], out: u64[:], wide: i64[:]):
    i = thread_id()
    x = a[i]
    y = b[i]
    r = x * y + (x >> (y & 31)) - (x << 5)
    if y != 0:
        r = r + x // y + x % y
    out[i] = u64(r) * c[i] + (c[i] >> u64(7))
    w = d[i]
    wide[i] = w * 3 + (w >> 2) - (w // 7) + (w % 5) + i64(i32(w))


@wave_gpu.kernel
def float_ops(a: f32[:], b: f32[:], out: f32[:], ints: i32[:]):
    i = thread_id()
    x = a[i]
    y = b[i]
    r = x * y + x / y - (x - y) * 0.5
    r = r + min(x, y) + max(x, y) + abs(x) + wave_gpu.floor(x) + wave_gpu.ceil(y) + x // y + x % y
    r = r + wave_gpu.sqrt(abs(x)) + wave_gpu.sin(x) + wave_gpu.cos(y) + wave_gpu.exp(x * 0.01) + wave_gpu.log(abs(y))
    r = r + wave_gpu.fma(x, y, 1.0) + x ** 2.5 + wave_gpu.tanh(x) + wave_gpu.atan2(x, y) + wave_gpu.fmod(x, y)
    out[i] = r
    ints[i] = i32(x * 1e6)


@wave_gpu.kernel
def double_ops(a: f64[:], b: f64[:], out: f64[:], narrow: f32[:]):
    i = thread_id()
    x = a[i]
    y = b[i]
    r = x * y + x / y - (x - y) * 0.5 + wave_gpu.sqrt(abs(x)) + wave_gpu.log2(abs(y)) + wave_gpu.exp2(x * 0.1)
    r = r + wave_gpu.hypot(x, y) + wave_gpu.erf(x) + wave_gpu.copysign(y, x) + wave_gpu.trunc(x)
    if wave_gpu.isnan(r) or wave_gpu.isinf(r):
        r = -1.0
    out[i] = r
    narrow[i] = f32(r)


def special_floats(rng, n, dtype):
    values = rng.standard_normal(n).astype(dtype) * dtype(100)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-45, 3e38, -3e38, 1.0, -1.0, 0.5],
                        dtype=dtype)
    values[:specials.size] = specials
    return values


def run_both(kernel, *args, **kwargs):
    """The kernel on the emulator and on the cpu device, with copies of the arguments."""
    emulated = [np.copy(v) if isinstance(v, np.ndarray) else v for v in args]
    native = [np.copy(v) if isinstance(v, np.ndarray) else v for v in args]
    with np.errstate(all="ignore"):
        kernel(*emulated, device="emulator", **kwargs)
        kernel(*native, device="cpu", **kwargs)
    for got, expected in zip(native, emulated):
        if isinstance(got, np.ndarray):
            assert_same_bits(got, expected)
    return native


@pytest.mark.parametrize("threads", [1, None])
def test_integer_arithmetic_wraps_and_floors_as_on_the_emulator(rng, threads):
    n = 5000
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a[:6] = [-2**31, 2**31 - 1, -1, 0, 7, -7]
    b[:6] = [-1, -1, 3, 5, 0, 2]
    run_both(integer_ops, a, b, np.zeros(n, np.int32), threads=threads)
    run_both(unsigned_ops, rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),
             rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),
             rng.integers(0, 2**63, n, dtype=np.uint64), rng.integers(-2**62, 2**62, n, dtype=np.int64),
             np.zeros(n, np.uint64), np.zeros(n, np.int64), threads=threads)


def test_f32_and_f64_operations_and_math_functions_match_the_emulator_bit_for_bit(rng):
    n = 4000
    run_both(float_ops, special_floats(rng, n, np.float32), special_floats(rng, n, np.float32)[::-1].copy(),
             np.zeros(n, np.float32), np.zeros(n, np.int32))
    run_both(double_ops, special_floats(rng, n, np.float64), special_floats(rng, n, np.float64)[::-1].copy(),
             np.zeros(n, np.float64), np.zeros(n, np.float32))


@wave_gpu.kernel
def halves(a: wave_gpu.f16[:], out: wave_gpu.f16[:], wide: f32[:]):
    i = thread_id()
    wide[i] = a[i] * 3.0
    out[i] = a[i] * 1.5 + 0.1


def test_f16_storage_converts_as_on_the_emulator(rng):
    a = (rng.standard_normal(3000) * 1000).astype(np.float16)
    a[:4] = [np.inf, -0.0, np.nan, 6e-8]
    run_both(halves, a, np.zeros(3000, np.float16), np.zeros(3000, np.float32))


@wave_gpu.kernel
def grid_2d(out: i32[:], width: i32):
    x = wave_gpu.thread_id(0)
    y = wave_gpu.thread_id(1)
    out[y * width + x] = x * 1000 + y + wave_gpu.local_id(0) * 7 + wave_gpu.workgroup_id(1) * 13 + \
        wave_gpu.lane_id() * 17 + wave_gpu.wave_width()


def test_launch_geometry_in_two_dimensions_matches_the_emulator():
    out = np.zeros(24 * 10, np.int32)
    run_both(grid_2d, out, 24, grid=(3, 5, 1), workgroup=(8, 2, 1))
    run_both(grid_2d, out, 24, grid=(3, 5, 1), workgroup=(8, 2, 1), wave_width=4)


@wave_gpu.kernel
def histogram(values: i32[:], bins: i32[:], total: f32[:], order: i32[:]):
    i = thread_id()
    wave_gpu.atomic_add(bins, values[i] % 16, 1)
    wave_gpu.atomic_max(bins, 16, values[i])
    wave_gpu.atomic_add(total, 0, 0.5)
    slot = wave_gpu.atomic_add(order, 0, 1)
    order[1 + slot] = i


def test_atomics_count_every_thread(rng):
    n = 10000
    values = rng.integers(0, 1000, n).astype(np.int32)
    bins = np.zeros(17, np.int32)
    total = np.zeros(1, np.float32)
    order = np.zeros(n + 1, np.int32)
    histogram(values, bins, total, order, device="cpu")
    np.testing.assert_array_equal(bins[:16], np.bincount(values % 16, minlength=16))
    assert bins[16] == values.max()
    assert total[0] == n * 0.5
    assert order[0] == n and sorted(order[1:]) == list(range(n))


# ---- faults -------------------------------------------------------------------------------

@wave_gpu.kernel
def unguarded_copy(a: f32[:], out: f32[:]):
    i = thread_id()
    out[i] = a[i + 3]


@wave_gpu.kernel(bounds_checks=False)
def unchecked_copy(a: f32[:], out: f32[:]):
    i = thread_id()
    out[i] = a[i]


@wave_gpu.kernel
def copy_to(out: f32[:], a: f32[:]):
    i = thread_id()
    out[i] = a[i]


@wave_gpu.kernel
def divide(a: i32[:], b: i32[:], out: i32[:]):
    i = thread_id()
    out[i] = a[i] // b[i]


@wave_gpu.kernel
def matrix_read(m: f32[:, :], out: f32[:], column: i32):
    i = thread_id()
    out[i] = m[i, column]


def error_on(kernel, device, *args, **kwargs):
    with pytest.raises(wave_gpu.KernelError) as raised:
        kernel(*args, device=device, **kwargs)
    return str(raised.value)


@pytest.mark.parametrize("threads", [1, None])
def test_faults_raise_the_emulators_kernel_error_word_for_word(threads):
    a = np.zeros(100, np.float32)
    out = np.zeros(100, np.float32)
    for kernel, args in ((unguarded_copy, (a, out)), (copy_to, (np.zeros(1100, np.float32), a)),
                         (copy_to, (np.zeros(1100, np.float32), a, {"workgroup": (64, 2, 1)})), (divide, (np.ones(64, np.int32), np.arange(64, dtype=np.int32),
                                                                np.zeros(64, np.int32))),
                         (matrix_read, (np.zeros((40, 3), np.float32), np.zeros(40, np.float32), 3))):
        options = args[-1] if isinstance(args[-1], dict) else {}
        args = args[:-1] if options else args
        expected = error_on(kernel, "emulator", *args, threads=1, **options)
        assert error_on(kernel, "cpu", *args, threads=threads, **options) == expected
    message = error_on(unguarded_copy, "cpu", a, out, threads=threads)
    assert "line" in message and "index 100 is out of bounds of buffer 'a' (length 100)" in message
    assert "workgroup (0, 0, 0), wave 3, lane 1, local thread 97" in message


def test_thread_indexed_accesses_proven_in_bounds_per_workgroup_give_the_same_results(rng):
    # Workgroups whose id range lies inside every buffer run without per-access checks; the
    # last, partial one and any shape but 1-D run checked: the results are the same.
    n = 1000
    a = rng.standard_normal(n, dtype=np.float32)
    cases = ((n, {}), (n, {"workgroup": (64, 1, 1)}), (999, {"dim": 999}),
             (n, {"grid": (125, 1, 1), "workgroup": (8, 4, 1)}))
    for launched, options in cases:
        out = np.zeros(n + 24, np.float32)
        if "grid" in options:
            copy_to(out, a, device="cpu", **options)
        else:
            copy_to(out, a, dim=options.get("dim", n), device="cpu", **{k: v for k, v in options.items() if k != "dim"})
        np.testing.assert_array_equal(out[:launched], a[:launched])
        assert (out[launched:] == 0).all()
    assert "wave_thread_proven" in copy_to.cpu_program().source


# ---- lane vectors: eight threads at once (cpp_lane_vectors.cpp) ----------------------------

@wave_gpu.kernel
def escape_time(re: f32[:], im: f32[:], limit: i32[:], out: i32[:], last: f64[:], wide: i64[:]):
    i = thread_id()
    if i >= len(out):
        return
    x = 0.0
    y = 0.0
    k = 0
    acc = i64(0)
    while k < limit[i]:
        if x * x + y * y > 4.0:
            break
        k += 1
        if k % 3 == 0:
            acc = acc + i64(k) * i64(i)
            continue
        t = x * x - y * y + re[i]
        y = 2.0 * x * y + im[i]
        x = t
        if x != x:
            return
    out[i] = k if k < limit[i] else -k
    last[i] = f64(x) * f64(y) + (1.5 if acc > i64(40) else -2.25)
    wide[i] = acc ^ (acc >> i64(3))


@wave_gpu.kernel
def uniform_sums(values: f64[:], scale: f64[:], out: f64[:], n: i32):
    i = thread_id()
    if i < len(out):
        s = 0.0
        for j in range(n):
            s += values[j] * scale[i] / (1.0 + f64(j))
        out[i] = s


@wave_gpu.kernel
def in_place_double(a: f32[:]):
    i = thread_id()
    if i < len(a):
        a[i] = a[i] * 2.0


@pytest.mark.parametrize("threads", [1, None])
def test_lane_vectors_run_divergent_loops_as_the_emulator_bit_for_bit(rng, threads):
    n = 2003  # groups of eight and a tail of three threads run one by one
    re = (rng.random(n, dtype=np.float32) * 3 - 2).astype(np.float32)
    im = (rng.random(n, dtype=np.float32) * 3 - 1.5).astype(np.float32)
    re[:4] = [np.nan, np.inf, 0.25, -0.0]
    limit = rng.integers(0, 60, n).astype(np.int32)
    run_both(escape_time, re, im, limit, np.zeros(n, np.int32), np.zeros(n, np.float64), np.zeros(n, np.int64),
             threads=threads)
    values = rng.standard_normal(300)
    run_both(uniform_sums, values, rng.standard_normal(n), np.zeros(n), 300, threads=threads)
    assert "wave_vector" in escape_time.cpu_program().source
    assert "wave_vector" in uniform_sums.cpu_program().source


def test_lane_vectors_fault_at_the_emulators_thread_and_line():
    # A division by zero in thread 13 (the middle of a group of eight) and an index past the end
    # that every thread reaches in a loop: the group reruns thread by thread and faults where
    # the emulator does, with its words.
    b = np.ones(100, np.int32)
    b[13] = 0
    for threads in (1, None):
        expected = error_on(divide, "emulator", np.arange(100, dtype=np.int32), b, np.zeros(100, np.int32), threads=1)
        assert error_on(divide, "cpu", np.arange(100, dtype=np.int32), b, np.zeros(100, np.int32),
                        threads=threads) == expected
        assert "thread 13" in expected or "local thread 13" in expected
        args = (np.ones(50), np.ones(64), np.zeros(64), 51)
        expected = error_on(uniform_sums, "emulator", *args, threads=1)
        assert error_on(uniform_sums, "cpu", *args, threads=threads) == expected
        assert "index 50 is out of bounds of buffer 'values' (length 50)" in expected


def test_kernels_that_read_what_they_write_run_one_thread_at_a_time():
    # A rerun after a fault must not see the first attempt's stores, so a buffer both loaded and
    # stored (and atomics, stores not indexed by thread_id(0)) keep the scalar code.
    a = np.arange(1000, dtype=np.float32)
    in_place_double(a, device="cpu")
    np.testing.assert_array_equal(a, np.arange(1000, dtype=np.float32) * 2)
    assert "wave_vector" not in in_place_double.cpu_program().source
    histogram(np.zeros(64, np.int32), np.zeros(17, np.int32), np.zeros(1, np.float32), np.zeros(65, np.int32),
              device="cpu")
    assert "wave_vector" not in histogram.cpu_program().source



def test_bounds_checks_false_drops_the_load_and_store_checks():
    a = np.arange(300, dtype=np.float32)
    out = np.zeros(300, np.float32)
    unchecked_copy(a, out, device="cpu")
    np.testing.assert_array_equal(out, a)
    assert "WAVE_OUT_OF_BOUNDS" not in unchecked_copy.cpu_program().source
    unguarded_copy(a, out, dim=297, device="cpu")
    np.testing.assert_array_equal(out[:297], a[3:])
    assert "WAVE_OUT_OF_BOUNDS" in unguarded_copy.cpu_program().source


# ---- threads, timeouts, cache --------------------------------------------------------------

@wave_gpu.kernel
def spin(out: i32[:], n: i32):
    i = thread_id()
    k = 0
    while k >= 0:  # never ends (n keeps it from being folded)
        k = (k + n) % 1000
    out[i] = k


@pytest.mark.parametrize("threads", [1, None])
def test_a_timeout_stops_a_kernel_that_never_ends(threads):
    out = np.zeros(64, np.int32)
    started = time.perf_counter()
    with pytest.raises(TimeoutError, match="timeout"):
        spin(out, 1, timeout=0.3, threads=threads, device="cpu")
    assert time.perf_counter() - started < 10


def test_threads_one_and_all_threads_give_the_same_results(rng):
    n = 300_000
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    one = np.zeros(n, np.float32)
    many = np.zeros(n, np.float32)
    vector_add(a, b, one, device="cpu", threads=1)
    vector_add(a, b, many, device="cpu")
    np.testing.assert_array_equal(one, a + b)
    np.testing.assert_array_equal(many, a + b)


def test_a_second_process_loads_the_compiled_kernel_from_the_disk_cache(tmp_path):
    script = tmp_path / "cached.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, wave_gpu
        from wave_gpu import f32, thread_id

        @wave_gpu.kernel
        def scale(a: f32[:], out: f32[:], factor: f32):
            i = thread_id()
            if i < len(out):
                out[i] = a[i] * factor

        out = np.zeros(10, np.float32)
        scale(np.arange(10, dtype=np.float32), out, 2.5, device="cpu")
        assert out[3] == 7.5, out
        print(scale.cpu_program().from_cache)
    """))
    env = dict(os.environ, WAVESTACK_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert [run.stdout.split()[-1] for run in runs] == ["False", "True"]
    assert any(path.parent.name == "wave-cpu" or "wave-cpu" in str(path) for path in (tmp_path / "cache").rglob("*")
               if path.is_file())


# ---- bad input and what is not supported yet ---------------------------------------------

def test_bad_arguments_raise_before_anything_runs_naming_the_argument():
    a = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match="argument 'b'"):
        vector_add(a, [1.0], a, device="cpu")
    with pytest.raises(TypeError, match="argument 'a'"):
        vector_add(np.zeros(8, np.int32), a, a, device="cpu")
    with pytest.raises(ValueError, match="threads"):
        vector_add(a, a, a, device="cpu", threads=0)
    with pytest.raises(ValueError, match="workgroup"):
        vector_add(a, a, a, device="cpu", grid=(1, 1, 1), workgroup=(2048, 1, 1))
    with pytest.raises(ValueError, match="timeout"):
        vector_add(a, a, a, device="cpu", timeout=-1)


@wave_gpu.kernel
def tile_sum(a: f32[:], out: f32[:]):
    tile = wave_gpu.shared(64, f32)
    i = thread_id()
    tile[wave_gpu.local_id()] = a[i]
    wave_gpu.barrier()
    out[i] = tile[63 - wave_gpu.local_id()]


@wave_gpu.kernel
def wave_total(a: f32[:], out: f32[:]):
    i = thread_id()
    out[i] = wave_gpu.wave_sum(a[i])


@wave_gpu.kernel
def divergent_waves(a: f32[:], out: f32[:], counts: i32[:]):
    i = thread_id()
    v = a[i]
    if v > 0.0:
        out[i] = wave_gpu.wave_sum(v) + wave_gpu.wave_min(v)
        counts[i] = wave_gpu.wave_prefix_sum(1)
    else:
        out[i] = wave_gpu.wave_max(v) - wave_gpu.wave_broadcast(v, wave_gpu.lane_id() ^ 0)
        counts[i] = i32(wave_gpu.wave_ballot(v < -1.0) & 0xFFFF) + (1 if wave_gpu.wave_all(v <= 0.0) else 0)
    k = 0
    while k < i % 5:
        if wave_gpu.wave_any(v > 1.5):
            break
        k += 1
    counts[i] += k * 100


@pytest.mark.parametrize("wave_width", [32, 8, 64])
@pytest.mark.parametrize("threads", [1, None])
def test_wave_operations_in_divergent_control_flow_match_the_emulator(rng, wave_width, threads):
    a = rng.standard_normal(1000, dtype=np.float32)
    run_both(divergent_waves, a, np.zeros(1000, np.float32), np.zeros(1000, np.int32), wave_width=wave_width,
             threads=threads)
    run_both(wave_total, a, np.zeros(1000, np.float32), wave_width=wave_width, threads=threads)


@wave_gpu.kernel
def read_other_lane(a: f32[:], out: f32[:]):
    i = thread_id()
    if i % 3 != 0:
        out[i] = wave_gpu.wave_shuffle(a[i], wave_gpu.lane_id() + 1)


def test_a_wave_read_of_an_inactive_lane_raises_the_emulators_error():
    a = np.ones(64, np.float32)
    expected = error_on(read_other_lane, "emulator", a, np.zeros(64, np.float32))
    assert error_on(read_other_lane, "cpu", a, np.zeros(64, np.float32)) == expected
    assert "which is not an active lane" in expected


# ---- shared arrays and barriers (workgroup mode) -----------------------------------------

@pytest.mark.parametrize("threads", [1, None])
def test_shared_arrays_and_barriers_match_the_emulator(rng, threads):
    a = rng.standard_normal(640, dtype=np.float32)
    run_both(tile_sum, a, np.zeros(640, np.float32), workgroup=(64, 1, 1), threads=threads)
    run_both(tile_sum, a, np.zeros(640, np.float32), dim=600, workgroup=(64, 1, 1), threads=threads)
    assert "wave_barrier_check" in tile_sum.cpu_program().source


@wave_gpu.kernel
def divergent(out: f32[:]):
    if wave_gpu.local_id() < 16:
        wave_gpu.barrier()
    out[thread_id()] = 1.0


@wave_gpu.kernel
def early_return(out: f32[:]):
    if thread_id() >= len(out):
        return
    wave_gpu.barrier()
    out[thread_id()] = 1.0


@wave_gpu.kernel
def skipping_wave(out: f32[:]):
    if wave_gpu.local_id() < 32:
        wave_gpu.barrier()
    out[thread_id()] = 1.0


@wave_gpu.kernel
def shared_negative(out: f32[:]):
    tile = wave_gpu.shared(8, f32)
    tile[wave_gpu.local_id() - 1] = 1.0
    wave_gpu.barrier()
    out[thread_id()] = tile[0]


@wave_gpu.kernel
def loop_barrier(out: f32[:], rounds: i32):
    k = 0
    while k < rounds:
        wave_gpu.barrier()
        if wave_gpu.local_id() == 5 and k == 2:
            break
        k += 1
    out[thread_id()] = f32(k)


@pytest.mark.parametrize("kernel,length,workgroup,extra", [
    (divergent, 32, 32, ()), (early_return, 20, 32, ()), (skipping_wave, 64, 64, ()), (shared_negative, 8, 8, ()),
    (loop_barrier, 64, 64, (4,))])
def test_barrier_faults_raise_the_emulators_kernel_error_word_for_word(kernel, length, workgroup, extra):
    launch = {"grid": (1, 1, 1), "workgroup": (workgroup, 1, 1)}
    expected = error_on(kernel, "emulator", np.zeros(length, np.float32), *extra, **launch)
    assert error_on(kernel, "cpu", np.zeros(length, np.float32), *extra, **launch) == expected


def test_without_the_in_process_compiler_the_cpu_device_says_why(tmp_path):
    script = tmp_path / "no_jit.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, wave_gpu
        from wave_gpu import f32, thread_id

        @wave_gpu.kernel
        def copy(a: f32[:], out: f32[:]):
            out[thread_id()] = a[thread_id()]

        try:
            copy(np.ones(4, np.float32), np.zeros(4, np.float32), device="cpu")
        except RuntimeError as error:
            print("raised:", error)
        copy(np.ones(4, np.float32), np.zeros(4, np.float32), device="emulator")  # the emulator still runs
    """))
    env = dict(os.environ, WAVESTACK_JIT_LIBRARY=str(tmp_path / "missing.so"),
               WAVESTACK_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "raised: device='cpu' compiles kernels with the in-process compiler, which is unavailable" in run.stdout
    assert "missing.so" in run.stdout
