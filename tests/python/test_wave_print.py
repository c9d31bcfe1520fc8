"""print(...) in kernels: numbers and string literals, printed after the launch in thread
order on the emulator and on Vulkan, with a note when the bounded buffer overflows."""

import numpy as np
import pytest
from wave_support import DEVICES, select_device

import wave_gpu
from wave_gpu import _printing, f32, f64, i32, i64, thread_id, u32


@pytest.fixture(autouse=True, params=DEVICES)
def device(request, monkeypatch):
    yield from select_device(request, monkeypatch)


def here():
    # Explicit, so the differential harness does not run (and print) each call twice.
    return wave_gpu.device()


@wave_gpu.kernel
def show(x: f32[:], k: i32[:]):
    i = thread_id()
    print("thread", i, "x", x[i], "k", k[i], "positive", x[i] > 0.0)


@wave_gpu.kernel
def show_twice(k: i32[:]):
    i = thread_id()
    print(i, k[i], sep=":", end=";")
    if i % 3 == 0:
        print("again", i * 10)


@wave_gpu.kernel
def show_wide(a: i64[:], b: f64[:], c: u32[:]):
    i = thread_id()
    print(a[i], b[i], c[i], -7, 2.5)


def test_prints_numbers_and_literals_in_thread_order(capsys):
    n = 70  # more than one wave and, on lavapipe, several workgroup rounds
    x = (np.arange(n, dtype=np.float32) - 10) / 4
    k = np.arange(n, dtype=np.int32) * -3
    show(x, k, device=here())
    expected = "".join(f"thread {i} x {np.float32(x[i])} k {k[i]} positive {bool(x[i] > 0)}\n" for i in range(n))
    assert capsys.readouterr().out == expected


def test_each_threads_prints_keep_their_order_with_sep_and_end(capsys):
    n = 10
    k = np.arange(n, dtype=np.int32) + 100
    show_twice(k, device=here())
    expected = "".join(f"{i}:{k[i]};" + (f"again {i * 10}\n" if i % 3 == 0 else "") for i in range(n))
    assert capsys.readouterr().out == expected


def test_64_bit_values_print_exactly(capsys):
    a = np.array([-2**62 - 5, 2**40 + 1], np.int64)
    b = np.array([0.1, -12345.678901], np.float64)
    c = np.array([2**32 - 1, 7], np.uint32)
    show_wide(a, b, c, device=here())
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for i, line in enumerate(lines):
        words = line.split()
        assert int(words[0]) == a[i]
        assert float(words[1]) == pytest.approx(b[i], rel=1e-13)  # f64 prints to about 48 bits
        assert int(words[2]) == c[i]
        assert words[3:] == ["-7", "2.5"]


def test_an_overflowing_buffer_prints_what_fits_and_says_so(capsys, monkeypatch):
    monkeypatch.setattr(_printing, "PRINT_BUFFER_WORDS", 1 + 8 * 5)  # a counter and five records of 8 words
    n = 40
    x = np.ones(n, np.float32)
    show(x, np.zeros(n, np.int32), device=here())
    out = capsys.readouterr().out
    body, note = out.rsplit("[wave_gpu:", 1)
    assert "print buffer (41 words) overflowed; 280 words of output were dropped" in note
    lines = body.splitlines()
    assert len(lines) == 5 and all(line.startswith("thread ") for line in lines)
    threads = [int(line.split()[1]) for line in lines]
    assert threads == sorted(threads)


def test_kernels_that_do_not_print_print_nothing(capsys):
    @wave_gpu.kernel
    def quiet(x: f32[:]):
        i = thread_id()
        x[i] = 1.0

    quiet(np.zeros(8, np.float32), device=here())
    assert capsys.readouterr().out == ""


def test_print_misuse_is_a_compile_error():
    @wave_gpu.kernel
    def prints_an_array(x: f32[:]):
        print(x)

    @wave_gpu.kernel
    def prints_to_a_file(x: f32[:]):
        print(x[0], file=None)

    with pytest.raises(wave_gpu.CompileError, match="array"):
        prints_an_array(np.zeros(1, np.float32))
    with pytest.raises(wave_gpu.CompileError, match="sep= and end="):
        prints_to_a_file(np.zeros(1, np.float32))
