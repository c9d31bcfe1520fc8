"""The launch model of wave_gpu kernels on the emulator and on Vulkan (through the
differential harness): exactly n threads for an inferred launch, every thread for an explicit
grid, 32-bit limits, aliased arguments, several Python threads, device loop limits,
Ctrl-C and timeouts, and CompileError being a RuntimeError."""

import concurrent.futures
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from wave_support import DEVICES, make_rng, select_device

import wave_gpu
from wave_gpu import f32, i32, thread_id, u32


@pytest.fixture(autouse=True, params=DEVICES)
def device(request, monkeypatch):
    yield from select_device(request, monkeypatch)


@pytest.fixture
def rng(request):
    return make_rng(request)


@wave_gpu.kernel
def scale_unguarded(x: f32[:], out: f32[:], factor: f32):
    i = thread_id()
    out[i] = x[i] * factor  # no `if i < len(out)`: padding threads are not launched


@wave_gpu.kernel
def count_threads(counter: u32[:]):
    wave_gpu.atomic_add(counter, 0, u32(1))


@pytest.mark.parametrize("n", [1, 31, 100, 257, 1000])
def test_an_inferred_launch_runs_exactly_n_threads_without_a_guard(rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    scale_unguarded(x, out, 3.0)
    np.testing.assert_array_equal(out, x * np.float32(3.0))


@pytest.mark.parametrize("n", [1, 255, 257, 1000])
def test_dim_runs_exactly_dim_threads(n):
    counter = np.zeros(1, np.uint32)
    count_threads(counter, dim=n)
    assert counter[0] == n


@wave_gpu.kernel
def mark_2d(out: i32[:], width: i32):
    x = thread_id(0)
    y = thread_id(1)
    out[y * width + x] += 1


def test_a_two_dimensional_dim_runs_each_cell_once():
    width, height = 19, 23  # neither a multiple of the 16 x 16 default workgroup
    out = np.zeros(width * height, np.int32)
    mark_2d(out, width, dim=(width, height))
    np.testing.assert_array_equal(out, np.ones(width * height, np.int32))


def test_a_custom_workgroup_with_an_inferred_grid_still_runs_n_threads():
    counter = np.zeros(1, np.uint32)
    count_threads(counter, dim=100, workgroup=64)
    assert counter[0] == 100


def test_an_explicit_grid_runs_every_thread_as_in_cuda():
    counter = np.zeros(1, np.uint32)
    count_threads(counter, grid=(3, 1, 1), workgroup=(64, 1, 1))
    assert counter[0] == 3 * 64
    out = np.zeros(10, np.float32)
    with pytest.raises(wave_gpu.KernelError, match="out of bounds"):  # the padding threads run and fault
        scale_unguarded(np.ones(10, np.float32), out, 1.0, grid=(1, 1, 1), workgroup=(16, 1, 1))


@wave_gpu.kernel
def wave_sums(x: f32[:], out: f32[:]):
    i = thread_id()
    total = wave_gpu.wave_sum(x[i])
    out[i] = total


def test_wave_operations_see_only_the_launched_lanes():
    n = 45  # the second wave of 32 (or the last of a narrower device) is partly padding
    width = wave_gpu.device().wave_width
    x = np.arange(1, n + 1, dtype=np.float32)
    out = np.zeros(n, np.float32)
    wave_sums(x, out)
    expected = np.array([x[(i // width) * width:min(n, (i // width + 1) * width)].sum() for i in range(n)],
                        np.float32)
    np.testing.assert_array_equal(out, expected)


@wave_gpu.kernel
def from_last_lane(x: f32[:], out: f32[:]):
    i = thread_id()
    out[i] = wave_gpu.wave_broadcast(x[i], wave_gpu.wave_width() - 1)


def test_a_wave_read_of_a_padding_lane_is_a_read_of_an_inactive_lane():
    width = wave_gpu.device().wave_width
    x = np.arange(2 * width, dtype=np.float32)
    out = np.zeros(2 * width, np.float32)
    from_last_lane(x, out)  # whole waves: every lane exists
    np.testing.assert_array_equal(out, np.repeat(x[width - 1::width], width))
    with pytest.raises(wave_gpu.KernelError, match="not an active lane|inactive"):
        from_last_lane(x[:width + 1].copy(), np.zeros(width + 1, np.float32))


@wave_gpu.kernel
def block_reverse(x: f32[:], out: f32[:]):
    tile = wave_gpu.shared(64, f32)
    i = thread_id()
    local = wave_gpu.local_id()
    tile[local] = x[i]
    wave_gpu.barrier()
    out[i] = tile[local] + 1.0


def test_barriers_wait_only_for_the_launched_threads():
    n = 100  # the last workgroup of 64 has 36 launched threads
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    block_reverse(x, out, workgroup=64)
    np.testing.assert_array_equal(out, x + 1)


def test_launch_arguments_are_checked_before_anything_runs():
    counter = np.zeros(1, np.uint32)
    with pytest.raises(TypeError, match="dim= .*or grid="):
        count_threads(counter, dim=4, grid=1)
    with pytest.raises(ValueError, match="dim: must not be negative"):
        count_threads(counter, dim=-1)
    with pytest.raises(TypeError, match="dim: expected an int"):
        count_threads(counter, dim=2.5)
    with pytest.raises(ValueError, match="dim: .*32-bit"):
        count_threads(counter, dim=2**31 + 1)
    with pytest.raises(ValueError, match="grid: .*32-bit"):
        count_threads(counter, grid=(2**23 + 1, 1, 1), workgroup=(256, 1, 1))
    with pytest.raises(ValueError, match="timeout: must be a positive"):
        count_threads(counter, timeout=0)
    assert counter[0] == 0
    count_threads(counter, dim=0)  # nothing to run
    assert counter[0] == 0


def test_an_array_longer_than_an_int32_index_is_rejected_naming_it():
    base = np.zeros(1, np.float32)
    huge = np.lib.stride_tricks.as_strided(base, shape=(2**31,), strides=(0,), writeable=True)
    with pytest.raises(ValueError, match=r"argument 'x' of scale_unguarded\(\).*2\^31 - 1"):
        # device= explicitly: the differential harness would copy the 8 GiB the view pretends to have
        scale_unguarded(huge, np.zeros(4, np.float32), 1.0, dim=4, device=wave_gpu.device())


@wave_gpu.kernel
def copy_into(source: f32[:], target: f32[:]):
    i = thread_id()
    target[i] = source[i] + 1.0


def test_one_array_for_two_parameters_keeps_the_kernels_writes():
    x = np.arange(8, dtype=np.float32)
    copy_into(x, x)  # only the second parameter is written
    np.testing.assert_array_equal(x, np.arange(8, dtype=np.float32) + 1)
    w = wave_gpu.array(range(8))
    copy_into(w, w)
    np.testing.assert_array_equal(np.asarray(w), np.arange(8, dtype=np.float32) + 1)


def test_a_wave_array_and_a_numpy_view_of_it_are_one_buffer():
    w = wave_gpu.array(range(8))
    view = w._storage  # the same memory, another object
    copy_into(w, view)
    np.testing.assert_array_equal(w.to_list(), np.arange(8, dtype=np.float32) + 1)
    copy_into(view, w)  # the WaveArray's own device copy must not be stale afterwards
    np.testing.assert_array_equal(w.to_list(), np.arange(8, dtype=np.float32) + 2)
    copy_into(w, np.zeros(8, np.float32))
    np.testing.assert_array_equal(w.to_list(), np.arange(8, dtype=np.float32) + 2)


def test_kernels_can_be_called_from_several_threads_at_once(device, tmp_path):
    # A fresh process, so that the first calls (device opening, compilation) race too.
    script = textwrap.dedent(f"""
        import concurrent.futures, sys, numpy as np, wave_gpu
        from wave_gpu import f32, thread_id
        sys.setswitchinterval(1e-6)  # switch threads often, so that first calls really overlap
        wave_gpu.set_device({'"gpu"' if device == "vulkan" else repr(device)})

        @wave_gpu.kernel
        def add_one(x: f32[:], out: f32[:]):
            i = thread_id()
            out[i] = x[i] + 1.0

        def work(k):
            x = np.full(1000 + k, k, np.float32)
            out = np.zeros_like(x)
            add_one(x, out)
            return bool((out == k + 1).all())

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            results = list(pool.map(work, range(32)))
        print("ok" if all(results) else results)
    """)
    path = tmp_path / "threads.py"
    path.write_text(script)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_kernels_can_be_called_from_several_threads_in_this_process():
    def work(k):
        x = np.full(500 + k, k, np.float32)
        out = np.zeros_like(x)
        copy_into(x, out)
        return np.array_equal(out, x + 1)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(12)))


@wave_gpu.kernel
def count_up(out: i32[:], n: i32):
    i = thread_id()
    total = 0
    for k in range(n):
        total += 1
    out[i] = total


@wave_gpu.kernel
def nested_count(out: i32[:], n: i32):
    i = thread_id()
    total = 0
    for a in range(n):
        for b in range(n):
            total += 1
    out[i] = total


@wave_gpu.kernel
def divergent_count(out: i32[:], n: i32):
    i = thread_id()
    total = 0
    if i % 2 == 0:  # the two halves of a group of lanes run their loops one after the other
        for a in range(n):
            total += 1
    else:
        for b in range(n):
            total += 2
    out[i] = total


def _loop_limit() -> int:
    return 65535 if "llvmpipe" in wave_gpu.device().name else 0


@pytest.mark.parametrize("n", [1000, 65534])
def test_loops_under_the_device_limit_run_normally(n):
    out = np.zeros(4, np.int32)
    count_up(out, n)
    np.testing.assert_array_equal(out, n)


def test_a_loop_over_the_device_limit_raises_instead_of_ending_early():
    out = np.zeros(4, np.int32)
    here = wave_gpu.device()  # explicit: the emulator's results differ from lavapipe's on purpose
    if _loop_limit():
        with pytest.raises(wave_gpu.KernelError, match="65535 iterations"):
            count_up(out, 100_000, device=here)
        with pytest.raises(wave_gpu.KernelError, match="ends every loop"):
            nested_count(out, 300, device=here)  # 90,601 iterations in all, each loop well under the limit
        with pytest.raises(wave_gpu.KernelError, match="ends every loop"):
            divergent_count(out, 40_000, device=here)  # 40,001 per thread, 80,002 for a group of lanes
        divergent_count(out, 30_000, device=here)  # 60,002 for the group: under the limit
        np.testing.assert_array_equal(out, [30_000, 60_000] * 2)
    else:  # the emulator and hardware GPUs have no such limit
        count_up(out, 100_000, device=here)
        np.testing.assert_array_equal(out, 100_000)
        nested_count(out, 300, device=here)
        np.testing.assert_array_equal(out, 90_000)
        divergent_count(out, 40_000, device=here)
        np.testing.assert_array_equal(out, [40_000, 80_000] * 2)


@wave_gpu.kernel
def powers_in_a_loop(out: i32[:], n: i32, e: i32):
    i = thread_id()
    total = 0
    for k in range(n):
        total += (k % 3) ** e  # an integer power: a loop in generated helper code
    out[i] = total


def test_loops_of_helper_code_count_towards_the_device_limit():
    out = np.zeros(4, np.int32)
    here = wave_gpu.device()
    # 2**30 - 1 needs 30 passes of the power's loop: 12,000 kernel iterations make about
    # 384,000 in all, far over lavapipe's limit though the kernel's own loop is under it.
    expected = sum((k % 3) ** 30 for k in range(12_000)) % 2**32
    expected = expected - 2**32 if expected >= 2**31 else expected
    if _loop_limit():
        with pytest.raises(wave_gpu.KernelError, match="ends every loop"):
            powers_in_a_loop(out, 12_000, 30, device=here)
        powers_in_a_loop(out, 1_000, 30, device=here)  # about 32,000: under the limit
        small = sum((k % 3) ** 30 for k in range(1_000)) % 2**32
        np.testing.assert_array_equal(out, small - 2**32 if small >= 2**31 else small)
    else:
        powers_in_a_loop(out, 12_000, 30, device=here)
        np.testing.assert_array_equal(out, expected)


@wave_gpu.kernel
def spin(out: i32[:], n: i32):
    i = thread_id()
    k = 0
    while k >= 0:  # never ends (n keeps it from being folded)
        k = (k + n) % 1000
    out[i] = k


def test_a_timeout_bounds_a_kernel_that_never_ends(device):
    out = np.zeros(4, np.int32)
    here = wave_gpu.device()
    started = time.perf_counter()
    if device == "vulkan":
        # A dispatch cannot be interrupted from the host: each thread gets a loop budget of
        # timeout * 1e9 iterations (1000 here, before lavapipe's own limit of 65535).
        with pytest.raises(TimeoutError, match="budget"):
            spin(out, 1, timeout=1e-6, device=here)
    else:
        with pytest.raises(TimeoutError, match="timeout"):
            spin(out, 1, timeout=0.3, device=here)
    assert time.perf_counter() - started < 30
    count_up(out, 10, timeout=30)  # a timeout that is not reached changes nothing
    np.testing.assert_array_equal(out, 10)


@pytest.mark.parametrize("device", ["vulkan"], indirect=True)  # (the emulator is interrupted instead)
def test_a_dispatch_that_returns_after_its_timeout_raises_with_nothing_downloaded(device):
    if not wave_gpu.device().software:
        pytest.skip("needs a dispatch that surely takes longer than 1 ms: a software Vulkan device")
    out = np.full(1 << 16, -1, np.int32)
    with pytest.raises(TimeoutError, match="not downloaded"):
        count_up(out, 2000, timeout=1e-3, device=wave_gpu.device())  # 1.3e8 iterations, under the budget
    assert (out == -1).all()


# (The emulator and the native cpu device: a Vulkan dispatch cannot be interrupted from the
# host; timeout= bounds it.)
@pytest.mark.parametrize("device", ["emulator", "cpu"], indirect=True)
@pytest.mark.parametrize("timeout", [None, 600])  # inline, and on a helper thread watching the clock
def test_ctrl_c_interrupts_a_kernel_that_never_ends_on_the_emulator(device, tmp_path, timeout):
    script = textwrap.dedent(f"""
        import signal, sys, time, numpy as np, wave_gpu
        from wave_gpu import i32, thread_id
        # Python's Ctrl-C handler even when SIGINT came ignored (a background job of a
        # non-interactive shell starts so, and Python then installs no handler).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        wave_gpu.set_device("{device}")

        @wave_gpu.kernel
        def spin(out: i32[:], n: i32):
            i = thread_id()
            k = 0
            while k >= 0:
                k = (k + n) % 1000
            out[i] = k

        out = np.zeros(64, np.int32)
        spin.ir  # compiled now, so the signal arrives during the launch
        if "{device}" == "cpu":
            spin.cpu_program()  # native code too
        print("running", flush=True)
        try:
            spin(out, 1, timeout={timeout})
        except KeyboardInterrupt:
            print("interrupted", time.perf_counter(), flush=True)
    """)
    path = tmp_path / "spin.py"
    path.write_text(script)
    process = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "running"
        time.sleep(0.5)  # inside the launch by now
        sent = time.perf_counter()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 0, stderr
    words = stdout.split()
    assert words[0] == "interrupted", stdout + stderr
    assert float(words[1]) - sent < 1.0


def test_compile_errors_are_runtime_errors_too():
    @wave_gpu.kernel
    def broken(x: f32[:]):
        x[0] = undefined_name  # noqa: F821

    with pytest.raises(RuntimeError) as error:
        broken(np.zeros(1, np.float32))
    assert isinstance(error.value, wave_gpu.CompileError)
    assert issubclass(wave_gpu.CompileError, RuntimeError)


def test_the_emulator_kernel_error_is_unchanged_for_explicit_grids_after_a_launch_limit():
    # The limit of one call does not leak into the next (pipelines and lowered code are shared).
    out = np.zeros(70, np.float32)
    scale_unguarded(np.ones(70, np.float32), out, 2.0)
    assert (out == 2.0).all()
    with pytest.raises(wave_gpu.KernelError):
        scale_unguarded(np.ones(70, np.float32), out, 2.0, grid=(2, 1, 1), workgroup=(64, 1, 1))

