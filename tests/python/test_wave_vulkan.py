"""wave_gpu on a Vulkan device, beyond the differential suites: fault reports, errors for
missing features and limits, the disk caches across processes, resident WaveArrays, the
compile command, and f64 functions against NumPy."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from wave_support import make_rng

import wave_gpu
from wave_gpu import _native, f32, f64, i32, thread_id


@pytest.fixture(autouse=True)
def on_vulkan(vulkan_device):
    wave_gpu.set_device(vulkan_device["index"])
    yield vulkan_device
    wave_gpu.set_device(None)


@pytest.fixture
def rng(request):
    return make_rng(request)


@wave_gpu.kernel
def copy_shifted(x: f32[:], out: f32[:], shift: i32):
    i = thread_id()
    out[i] = x[i + shift]


def test_an_out_of_bounds_load_is_a_kernel_error_with_the_source_line():
    x = np.arange(64, dtype=np.float32)
    out = np.full(64, -1.0, np.float32)
    with pytest.raises(wave_gpu.KernelError) as error:
        copy_shifted(x, out, 3)
    message = str(error.value)
    assert "index 64 is out of bounds of buffer 'x' (length 64)" in message
    line = copy_shifted.__wrapped__.__code__.co_firstlineno + 3
    assert f", line {line}:" in message and "out[i] = x[i + shift]" in message
    assert (out == -1.0).all()  # nothing is downloaded from a faulted call
    copy_shifted(x, out, 0)  # the next call runs normally
    np.testing.assert_array_equal(out, x)


@wave_gpu.kernel
def divide(a: i32[:], b: i32[:], out: i32[:]):
    i = thread_id()
    out[i] = a[i] // b[i]


def test_integer_division_by_zero_is_reported():
    a = np.arange(32, dtype=np.int32)
    b = np.ones(32, np.int32)
    b[17] = 0
    with pytest.raises(wave_gpu.KernelError, match="integer division by zero"):
        divide(a, b, np.zeros(32, np.int32))


@wave_gpu.kernel
def scale64(x: f64[:], out: f64[:]):
    i = thread_id()
    out[i] = x[i] * 2.0


def test_a_device_without_float64_gets_an_error_naming_the_feature():
    scale64(np.ones(4), np.zeros(4))  # compiles the kernel for its IR
    module = _native.Module.parse(scale64.ir)
    with pytest.raises(_native.DeviceError, match=r"uses f64.*float64 \(shaderFloat64\)"):
        _native.emit_glsl(module, disable=["float64"])
    assert "double" in _native.emit_glsl(module)


def test_the_shader_asks_for_the_f32_float_controls_the_device_reports(on_vulkan):
    # Without DenormPreserve / SignedZeroInfNanPreserve a driver may flush f32 subnormals and
    # drop NaN in min/max (NVIDIA does); test_wave_semantics checks the results themselves.
    features = on_vulkan["features"]
    source = copy_shifted.glsl(device=on_vulkan["index"])
    for name, mode in (("float32_denorm_preserve", "4459, 32"), ("float32_inf_nan_preserve", "4461, 32")):
        assert isinstance(features[name], bool)
        assert (f"], {mode});" in source) == features[name], (name, features[name])
    # the emulator's target (every feature): both modes
    assert source.count("spirv_execution_mode") <= copy_shifted.glsl().count("spirv_execution_mode") == 2


def test_a_workgroup_larger_than_the_device_limit_is_rejected_before_running(on_vulkan):
    limit = on_vulkan["limits"]["max_workgroup_invocations"]
    out = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match=r"workgroup.*exceeds the limit|workgroup: has"):
        copy_shifted(np.ones(4, np.float32), out, 0, grid=(1, 1, 1), workgroup=(limit * 2, 1, 1))
    x_limit = on_vulkan["limits"]["max_workgroup_size"][0]
    with pytest.raises(ValueError, match="workgroup"):
        copy_shifted(np.ones(4, np.float32), out, 0, grid=(1, 1, 1), workgroup=(x_limit + 1, 1, 1))
    assert (out == 0).all()


CACHE_PROBE = textwrap.dedent("""
    import json, sys
    import numpy as np
    import wave_gpu

    @wave_gpu.kernel
    def probe(x: wave_gpu.f32[:], out: wave_gpu.f32[:]):
        i = wave_gpu.thread_id()
        out[i] = x[i] * 3.0 + 1.0

    out = np.zeros(16, np.float32)
    probe(np.arange(16, dtype=np.float32), out, device=int(sys.argv[1]))
    assert out.tolist() == [3.0 * i + 1.0 for i in range(16)]
    print(json.dumps(probe.last_timings))
""")


def test_a_second_process_reuses_the_spirv_from_disk(tmp_path, on_vulkan):
    import json

    script = tmp_path / "probe.py"
    script.write_text(CACHE_PROBE)
    environment = dict(os.environ, WAVESTACK_CACHE_DIR=str(tmp_path / "cache"))
    runs = []
    for _ in range(2):
        result = subprocess.run([sys.executable, str(script), str(on_vulkan["index"])], env=environment,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
    assert runs[0]["spirv_from_cache"] is False
    assert runs[1]["spirv_from_cache"] is True
    assert any(path.name.startswith("pipeline") for path in (tmp_path / "cache").iterdir())


@wave_gpu.kernel
def accumulate(x: f32[:], total: f32[:]):
    i = thread_id()
    if i < len(x):
        total[i] = total[i] + x[i]


def test_an_unchanged_wave_array_is_not_uploaded_again():
    n = 1000
    x = wave_gpu.array(np.arange(n, dtype=np.float32))
    total = wave_gpu.zeros(n)
    accumulate(x, total)
    assert accumulate.last_timings["bytes_uploaded"] == 2 * 4 * n
    accumulate(x, total)
    assert accumulate.last_timings["bytes_uploaded"] == 0  # both stayed on the device
    assert accumulate.last_timings["bytes_downloaded"] >= 4 * n  # the written one comes back
    assert total[5] == 10.0
    x[5] = 100.0  # a host change is uploaded by the next call
    accumulate(x, total)
    assert accumulate.last_timings["bytes_uploaded"] == 4 * n
    assert total[5] == 110.0 and total[6] == 18.0
    np.asarray(total)[7] = 0.0  # so is a change through a NumPy view
    accumulate(x, total)
    assert total[7] == 7.0
    plain = np.zeros(n, np.float32)  # NumPy arrays are uploaded every call
    accumulate(x, plain)
    accumulate(x, plain)
    assert accumulate.last_timings["bytes_uploaded"] == 4 * n and plain[3] == 6.0


def run_cli(*arguments):
    return subprocess.run([sys.executable, "-m", "wave_gpu", "compile", *arguments], capture_output=True,
                          timeout=120)


def test_the_compile_command_emits_glsl_and_spirv(tmp_path):
    source = tmp_path / "kernels.py"
    source.write_text(textwrap.dedent("""
        import wave_gpu

        @wave_gpu.kernel
        def vector_add(a: wave_gpu.f32[:], b: wave_gpu.f32[:], out: wave_gpu.f32[:]):
            tid = wave_gpu.thread_id()
            out[tid] = a[tid] + b[tid]
    """))
    glsl = run_cli(f"{source}:vector_add", "--emit", "glsl")
    assert glsl.returncode == 0, glsl.stderr
    text = glsl.stdout.decode()
    assert text.startswith("#version 450") and "precise float" in text and "void main()" in text
    spirv = run_cli(f"{source}:vector_add", "--emit", "spirv", "-o", str(tmp_path / "k.spv"))
    assert spirv.returncode == 0, spirv.stderr
    words = np.fromfile(tmp_path / "k.spv", dtype=np.uint32)
    assert words[0] == 0x07230203 and words.size > 50


@wave_gpu.kernel
def f64_functions(x: f64[:], out: f64[:]):
    i = thread_id()
    if i < len(x):
        v = x[i]
        out[8 * i + 0] = wave_gpu.sin(v)
        out[8 * i + 1] = wave_gpu.cos(v)
        out[8 * i + 2] = wave_gpu.tan(v)
        out[8 * i + 3] = wave_gpu.exp(v * 0.01)
        out[8 * i + 4] = wave_gpu.exp2(v * 0.01)
        out[8 * i + 5] = wave_gpu.log(abs(v) + 1e-300)
        out[8 * i + 6] = wave_gpu.log2(abs(v) + 1e-300)
        out[8 * i + 7] = abs(v) ** 0.37


def test_f64_functions_match_numpy_to_a_few_ulps(rng):
    x = np.concatenate([rng.uniform(-1000, 1000, 2000), rng.uniform(-4, 4, 2000), 10.0 ** rng.uniform(-300, 300, 500),
                        [0.0, 1.0, -1.0, np.pi, 1e-310]])
    x = x[np.abs(x) < 2**20]  # the reduction of sin/cos/tan is exact below 2^20
    out = np.zeros(8 * x.size)
    f64_functions(x, out)
    a = np.abs(x) + 1e-300
    with np.errstate(over="ignore"):
        expected = np.stack([np.sin(x), np.cos(x), np.tan(x), np.exp(x * 0.01), np.exp2(x * 0.01), np.log(a),
                             np.log2(a), a ** 0.37], axis=1).reshape(-1)
    # sin, cos, tan: absolute 1e-15 near zeros of the functions; the others relative
    np.testing.assert_allclose(out, expected, rtol=2e-15, atol=1e-15)


@wave_gpu.kernel
def count_elements(x, out: i32[:]):
    i = thread_id()
    if i == 0:
        out[0] = len(x)


def test_pooled_buffers_take_the_element_count_of_each_call():
    # The same 4000 bytes as 1000 f32 and as 500 f64: the kernel must see each length.
    out = np.zeros(1, np.int32)
    for x in (np.zeros(1000, np.float32), np.zeros(500, np.float64), np.zeros(1000, np.int32), np.zeros(500)):
        count_elements(x, out, grid=(1, 1, 1), workgroup=(1, 1, 1))
        assert out[0] == x.size


@wave_gpu.kernel(bounds_checks=False)
def unchecked_saxpy(alpha: f32, x: f32[:], y: f32[:]):
    i = thread_id()
    if i < len(y):
        y[i] = alpha * x[i] + y[i]


def test_bounds_checks_can_be_dropped_from_the_gpu_code(rng):
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    expected = np.float32(2.5) * x + y
    unchecked_saxpy(2.5, x, y)
    np.testing.assert_array_equal(y, expected)
    glsl = unchecked_saxpy.glsl()
    assert "wave_fault(1u" not in glsl and "b0.d[uint(" in glsl
    assert "wave_fault(1u" in copy_shifted.glsl()  # the default keeps them
    with pytest.raises(TypeError, match="bounds_checks"):
        wave_gpu.kernel(bounds_checks="no")
