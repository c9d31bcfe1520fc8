"""The bounds checks' fast paths in the generated code (docs/PERFORMANCE.md, "wave_gpu on Vulkan:
what the shaders spend"): accesses indexed by thread_id(0) run unchecked when the launch keeps
every thread id inside the buffers, and keep their checks (and the emulator's KernelError)
otherwise. Each kernel runs on the emulator, the native cpu device and Vulkan (through the
differential harness, which compares Vulkan with the emulator) and is checked against NumPy."""

import numpy as np
import pytest
from wave_support import DEVICES, make_rng, select_device

import wave_gpu
from wave_gpu import f32, i32, thread_id


@pytest.fixture(autouse=True, params=DEVICES)
def device(request, monkeypatch):
    yield from select_device(request, monkeypatch)


@pytest.fixture
def rng(request):
    return make_rng(request)


@wave_gpu.kernel
def add_unguarded(a: f32[:], b: f32[:], out: f32[:]):
    i = thread_id()
    out[i] = a[i] + b[i]


@wave_gpu.kernel
def add_guarded(a: f32[:], b: f32[:], out: f32[:]):
    i = thread_id()
    if i < len(out):
        out[i] = a[i] + b[i]


def line_of(kernel, offset: int) -> int:
    return kernel.__wrapped__.__code__.co_firstlineno + offset


# Sizes below, at and past a workgroup (256), and not multiples of it.
@pytest.mark.parametrize("n", [1, 7, 255, 256, 257, 1000])
def test_in_range_accesses_by_thread_id_give_numpy_results(rng, n):
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    add_unguarded(a, b, out)
    np.testing.assert_array_equal(out, a + b)
    out[:] = 0
    add_guarded(a, b, out)
    np.testing.assert_array_equal(out, a + b)


@pytest.mark.parametrize("n", [1, 257, 1000])
def test_longer_inputs_than_the_launch_are_still_in_range(rng, n):
    a = rng.standard_normal(n + 5).astype(np.float32)
    b = rng.standard_normal(n + 300).astype(np.float32)
    out = np.zeros(n, np.float32)
    add_unguarded(a, b, out, dim=n)  # the launch is inferred from the first array otherwise
    np.testing.assert_array_equal(out, a[:n] + b[:n])


@pytest.mark.parametrize("n", [1, 200, 257])
def test_a_short_input_is_the_same_kernel_error(rng, n):
    a = rng.standard_normal(n - 1).astype(np.float32)  # thread n - 1 reads past a
    b = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, -1.0, np.float32)
    with pytest.raises(wave_gpu.KernelError) as error:
        add_unguarded(a, b, out, dim=n)
    message = str(error.value)
    assert f"index {n - 1} is out of bounds of buffer 'a' (length {n - 1})" in message
    assert f", line {line_of(add_unguarded, 3)}:" in message


def test_a_short_output_is_the_same_kernel_error(rng):
    a = rng.standard_normal(300).astype(np.float32)
    out = np.zeros(299, np.float32)
    with pytest.raises(wave_gpu.KernelError, match=r"index 299 is out of bounds of buffer 'out' \(length 299\)"):
        add_unguarded(a, a, out, dim=300)


def test_an_explicit_grid_past_the_arrays_keeps_the_guarded_kernel_in_range(rng):
    # grid= runs every thread of the grid (3 x 256 > 600), so the checked copy runs; the guard
    # keeps out in range, and a and b are long enough for every guarded thread.
    a = rng.standard_normal(700).astype(np.float32)
    b = rng.standard_normal(650).astype(np.float32)
    out = np.zeros(600, np.float32)
    add_guarded(a, b, out, grid=(3, 1, 1), workgroup=(256, 1, 1))
    np.testing.assert_array_equal(out, a[:600] + b[:600])


def test_an_explicit_grid_past_an_input_is_a_kernel_error(rng):
    a = rng.standard_normal(500).astype(np.float32)
    b = rng.standard_normal(600).astype(np.float32)
    out = np.zeros(600, np.float32)
    with pytest.raises(wave_gpu.KernelError, match=r"is out of bounds of buffer 'a' \(length 500\)"):
        add_guarded(a, b, out, grid=(3, 1, 1), workgroup=(256, 1, 1))


@wave_gpu.kernel
def moved_index(a: f32[:], out: f32[:]):
    i = thread_id()
    if i == len(out) - 1:
        i = len(out)  # no longer only thread_id(0): its accesses keep their checks
    out[i] = a[i]


def test_a_thread_id_register_assigned_another_value_keeps_its_checks(rng):
    a = rng.standard_normal(100).astype(np.float32)
    out = np.zeros(64, np.float32)
    with pytest.raises(wave_gpu.KernelError, match=r"index 64 is out of bounds of buffer 'out' \(length 64\)"):
        moved_index(a, out)


@wave_gpu.kernel
def first_row_and_layer(a: f32[:], out: f32[:]):
    i = thread_id(0)
    if thread_id(1) == 1 and thread_id(2) == 2:
        out[i] = a[i] * 2.0


@wave_gpu.kernel
def count_cells(a: f32[:], out: f32[:]):
    i = thread_id(0)
    wave_gpu.atomic_add(out, i, a[i])


@pytest.mark.parametrize("shape", [(19, 3, 3), (257, 2, 3)])
def test_two_and_three_dimensional_launches(rng, shape):
    n = shape[0]
    a = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    first_row_and_layer(a, out, dim=shape)
    np.testing.assert_array_equal(out, a * 2.0)
    ones = np.ones(n, np.float32)
    cells = np.zeros(n, np.float32)
    count_cells(ones, cells, dim=shape[:2])
    np.testing.assert_array_equal(cells, np.full(n, shape[1], np.float32))


def test_a_two_dimensional_launch_past_an_input_is_a_kernel_error(rng):
    a = rng.standard_normal(18).astype(np.float32)
    out = np.zeros(19, np.float32)
    with pytest.raises(wave_gpu.KernelError, match=r"index 18 is out of bounds of buffer 'a' \(length 18\)"):
        first_row_and_layer(a, out, dim=(19, 3, 3))


@wave_gpu.kernel
def offsets(a: f32[:], out: f32[:], n: i32):
    i = thread_id()
    if i < n:
        out[i] = a[i] + a[i + 1]


@pytest.mark.parametrize("n", [7, 257])
def test_accesses_beside_thread_id_keep_their_checks(rng, n):
    a = rng.standard_normal(n + 1).astype(np.float32)
    out = np.zeros(n, np.float32)
    offsets(a, out, n)
    np.testing.assert_array_equal(out, a[:-1] + a[1:])
    with pytest.raises(wave_gpu.KernelError, match=rf"index {n} is out of bounds of buffer 'a' \(length {n}\)"):
        offsets(a[:n].copy(), out, n)


# Shared-memory loads read a clamped index and select the emulator's 0 past the end.
@wave_gpu.kernel
def reverse_in_workgroup(a: f32[:], out: f32[:], shift: i32):
    tile = wave_gpu.shared(64, f32)
    halves = wave_gpu.shared(64, wave_gpu.f16)
    lid = wave_gpu.local_id()
    i = thread_id()
    tile[lid] = a[i]
    halves[lid] = a[i]
    wave_gpu.barrier()
    j = wave_gpu.workgroup_size() - 1 - lid + shift
    out[i] = tile[j] + wave_gpu.f32(halves[j])


@pytest.mark.parametrize("group", [1, 5, 64])
def test_shared_loads_in_range_give_numpy_results(group):
    a = np.arange(3 * group, dtype=np.float32)
    out = np.zeros(3 * group, np.float32)
    reverse_in_workgroup(a, out, 0, workgroup=(group, 1, 1))
    expected = a.reshape(3, group)[:, ::-1].reshape(-1)
    np.testing.assert_array_equal(out, 2 * expected)


@pytest.mark.parametrize("shift", [64, -64])
def test_a_shared_load_past_either_end_is_the_same_kernel_error(shift):
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    message = r"is out of bounds of shared array 'tile' \(length 64\)"
    with pytest.raises(wave_gpu.KernelError, match=message):
        reverse_in_workgroup(a, out, shift, workgroup=(64, 1, 1))


# Shared-memory indices made of local ids, range() counters and constants are proven in range
# for the workgroup sizes their bound covers (the check folds away), and keep the check otherwise.
@wave_gpu.kernel
def tile_rows(a: f32[:], out: f32[:]):
    tile = wave_gpu.shared(64, f32)  # 4 rows of 16: enough for workgroups of up to 4 rows
    tx = wave_gpu.local_id(0)
    ty = wave_gpu.local_id(1)
    row = ty * 16
    for j in range(4):
        tile[row + tx * 4 + j] = a[thread_id(1) * 16 + tx * 4 + j]
    wave_gpu.barrier()
    total = 0.0
    for j in range(4):
        total += tile[row + tx * 4 + j]
    out[thread_id(1) * 4 + tx] = total


@pytest.mark.parametrize("rows", [1, 3, 4])
def test_tile_indices_in_range_give_numpy_results(rng, rows):
    a = rng.standard_normal(16 * rows).astype(np.float32)
    out = np.zeros(4 * rows, np.float32)
    tile_rows(a, out, grid=(1, 1, 1), workgroup=(4, rows, 1))
    np.testing.assert_allclose(out, a.reshape(-1, 4).sum(axis=1), rtol=1e-6)


def test_tile_indices_past_the_bound_keep_their_check(rng):
    a = rng.standard_normal(16 * 5).astype(np.float32)
    out = np.zeros(4 * 5, np.float32)
    with pytest.raises(wave_gpu.KernelError, match=r"is out of bounds of shared array 'tile' \(length 64\)"):
        tile_rows(a, out, grid=(1, 1, 1), workgroup=(4, 5, 1))  # row 4 writes tile[64..]


@wave_gpu.kernel
def counter_moved(out: f32[:], n: i32):
    tile = wave_gpu.shared(8, f32)
    if wave_gpu.local_id() == 0:
        for j in range(4):
            j = j + n  # no longer only the loop's counter
            tile[j] = 2.0
        for k in range(n):  # the stop is an argument: no bound
            tile[k] = 3.0
    wave_gpu.barrier()
    out[thread_id()] = tile[wave_gpu.local_id()]


@pytest.mark.parametrize("n, fails", [(4, False), (5, True)])
def test_loop_variables_assigned_in_the_body_keep_their_checks(n, fails):
    out = np.zeros(8, np.float32)
    if fails:
        with pytest.raises(wave_gpu.KernelError, match=r"index 8 is out of bounds of shared array 'tile' \(length 8\)"):
            counter_moved(out, n, grid=(1, 1, 1), workgroup=(8, 1, 1))
    else:
        counter_moved(out, n, grid=(1, 1, 1), workgroup=(8, 1, 1))
        np.testing.assert_array_equal(out, [3.0] * 4 + [2.0] * 4)
