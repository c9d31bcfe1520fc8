"""kernel.ir and its round trip, the compile CLI, the in-memory and disk caches."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import wave_gpu
from wave_gpu import _native

KERNEL_FILE = textwrap.dedent('''
    import wave_gpu
    from wave_gpu import thread_id

    SCALE = {scale}

    @wave_gpu.kernel
    def scale(a: wave_gpu.f32[:], out: wave_gpu.f32[:]):
        i = thread_id()
        if i < len(a):
            out[i] = a[i] * SCALE

    if __name__ == "__main__":
        import numpy as np
        wave_gpu.set_device("emulator")
        a = np.arange(5, dtype=np.float32)
        out = np.zeros(5, np.float32)
        scale(a, out)
        print(out.tolist())
''')


@pytest.fixture(autouse=True)
def emulator():
    wave_gpu.set_device("emulator")
    yield
    wave_gpu.set_device(None)


def test_ir_text_round_trips_through_the_parser():
    import test_wave_kernels

    kernels = [k for k in vars(test_wave_kernels).values() if isinstance(k, wave_gpu.Kernel)]
    checked = 0
    for kernel in kernels:
        try:
            text = kernel.ir
        except TypeError:  # parameters without annotations: no signature before a call
            continue
        assert _native.Module.parse(text).text == text
        assert text.startswith(f"kernel {kernel.__name__}\n")
        checked += 1
    assert checked >= 15


def test_parsed_ir_runs_like_the_compiled_kernel():
    from test_wave_kernels import mandelbrot, mandelbrot_reference

    program = _native.Program(_native.Module.parse(mandelbrot.ir))
    out = np.zeros(20 * 10, np.int32)
    program.launch([out, 20, 10, 30], [4, 1, 1], [50, 1, 1])
    np.testing.assert_array_equal(out, mandelbrot_reference(20, 10, 30))


def test_compile_cli_prints_the_ir(tmp_path):
    source = tmp_path / "kernels.py"
    source.write_text(KERNEL_FILE.format(scale=2.5))
    result = subprocess.run([sys.executable, "-m", "wave_gpu", "compile", f"{source}:scale", "--emit", "ir"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("kernel scale\n")
    assert "const 2.5" in result.stdout and "load a[" in result.stdout
    missing = subprocess.run([sys.executable, "-m", "wave_gpu", "compile", f"{source}:nothing"],
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode == 1 and "no @wave_gpu.kernel named 'nothing'" in missing.stderr


def test_kernels_compile_once_per_signature():
    calls = []

    @wave_gpu.kernel
    def fill(out, value):
        out[wave_gpu.thread_id()] = value

    original = wave_gpu._kernel.KernelCompiler.compile

    def counting(self):
        calls.append(self.params)
        return original(self)

    wave_gpu._kernel.KernelCompiler.compile = counting
    try:
        out32 = np.zeros(4, np.float32)
        fill(out32, 1.5)
        fill(out32, 2.5)
        out64 = np.zeros(4, np.float64)
        fill(out64, 3.5)
        fill(np.zeros(4, np.int32), 7)
    finally:
        wave_gpu._kernel.KernelCompiler.compile = original
    assert out32.tolist() == [2.5] * 4 and out64.tolist() == [3.5] * 4
    assert len(calls) <= 3  # the disk cache may already hold some of them
    assert len(fill._programs) == 3


def run_file(path, cache_dir):
    env = {**os.environ, "WAVESTACK_CACHE_DIR": str(cache_dir)}
    code = ("import sys, runpy; import wave_gpu._kernel as k; "
            "calls = []; original = k.KernelCompiler.compile\n"
            "def counting(self):\n    calls.append(1); return original(self)\n"
            "k.KernelCompiler.compile = counting\n"
            f"runpy.run_path({str(path)!r}, run_name='__main__'); print('compiled', len(calls))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_disk_cache_reuses_the_ir_and_keys_on_source_and_globals(tmp_path):
    source = tmp_path / "kernels.py"
    source.write_text(KERNEL_FILE.format(scale=2.0))
    first = run_file(source, tmp_path / "cache")
    second = run_file(source, tmp_path / "cache")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.splitlines() == ["[0.0, 2.0, 4.0, 6.0, 8.0]", "compiled 1"]
    assert second.stdout.splitlines() == ["[0.0, 2.0, 4.0, 6.0, 8.0]", "compiled 0"]
    assert any((tmp_path / "cache").rglob("*")), "the cache directory holds an entry"
    source.write_text(KERNEL_FILE.format(scale=3.0))  # a changed global constant is a new entry
    third = run_file(source, tmp_path / "cache")
    assert third.stdout.splitlines() == ["[0.0, 3.0, 6.0, 9.0, 12.0]", "compiled 1"], third.stderr


def test_numpy_arrays_are_updated_in_place_and_wave_arrays_are_numpy_views():
    @wave_gpu.kernel
    def double(x):
        i = wave_gpu.thread_id()
        if i < len(x):
            x[i] = x[i] * 2

    for dtype in (np.float32, np.float64, np.int32, np.uint32, np.int64, np.uint64, np.float16):
        x = np.arange(10, dtype=dtype)
        double(x)
        np.testing.assert_array_equal(x, np.arange(10, dtype=dtype) * 2)
    w = wave_gpu.array([1.0, 2.0, 3.0])
    view = np.asarray(w)
    double(w)
    assert view.tolist() == [2.0, 4.0, 6.0] and np.shares_memory(view, np.asarray(w))
    with pytest.raises(TypeError, match="arrays of int8 are not supported"):
        double(np.zeros(4, np.int8))


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_demo_runs_vector_add_and_a_shared_memory_kernel():
    result = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "wave_gpu_demo.py")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "vector_add: [6.0, 8.0, 10.0, 12.0]" in result.stdout
    assert "block_sum" in result.stdout and ": OK" in result.stdout


def test_benchmark_runs_and_checks_its_results():
    result = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "wave_emulator.py"), "--sizes", "4096",
                             "--repeat", "1"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "MISMATCH" not in result.stdout
    for row in ("vector add", "Mandelbrot", "emulator", "NumPy", "C++ loop"):
        assert row in result.stdout
