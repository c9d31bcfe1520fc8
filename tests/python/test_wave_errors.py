"""Every error of wave_gpu, triggered and checked by its message."""

import os

import numpy as np
import pytest

import wave_gpu
from wave_gpu import barrier, local_id, thread_id

THIS_FILE = os.path.abspath(__file__)


@pytest.fixture(autouse=True)
def emulator():
    wave_gpu.set_device("emulator")
    yield
    wave_gpu.set_device(None)


def compile_error(kernel, *args, **launch):
    with pytest.raises(wave_gpu.CompileError) as error:
        kernel(*args, **launch)
    return error.value


def test_unsupported_syntax_names_file_line_and_source():
    @wave_gpu.kernel
    def uses_a_list(out: wave_gpu.f32[:]):
        values = [1.0, 2.0]
        out[0] = values[0]

    error = compile_error(uses_a_list, wave_gpu.zeros(4))
    assert error.filename == THIS_FILE
    assert "unsupported expression in a kernel: List" in str(error)
    assert f"{THIS_FILE}:{error.lineno}:" in str(error)
    assert "values = [1.0, 2.0]" in str(error)
    with open(THIS_FILE) as source:
        assert "values = [1.0, 2.0]" in source.read().splitlines()[error.lineno - 1]


def test_unsupported_statement():
    @wave_gpu.kernel
    def uses_with(out: wave_gpu.f32[:]):
        with open("x"):
            out[0] = 1.0

    assert "unsupported statement in a kernel: With" in str(compile_error(uses_with, wave_gpu.zeros(1)))


def test_unknown_name():
    @wave_gpu.kernel
    def unknown(out: wave_gpu.f32[:]):
        out[thread_id()] = not_defined_anywhere + 1.0  # noqa: F821

    error = compile_error(unknown, wave_gpu.zeros(1))
    assert "unknown name 'not_defined_anywhere'" in str(error)
    assert "out[thread_id()] = not_defined_anywhere + 1.0" in error.source_line


def test_type_errors():
    @wave_gpu.kernel
    def changes_type(out: wave_gpu.f32[:]):
        acc = thread_id()
        acc = out[0] * 2.0
        out[0] = acc

    message = str(compile_error(changes_type, wave_gpu.zeros(1)))
    assert "variable 'acc' has type i32; assigning a f32 value" in message and "acc = 0.0" in message

    @wave_gpu.kernel
    def narrows(out: wave_gpu.f32[:]):
        n = 0.5
        n = thread_id()
        out[0] = n

    assert narrows(wave_gpu.zeros(1)) is None  # int -> float variable: converts silently

    @wave_gpu.kernel
    def float_to_int(out: wave_gpu.i32[:]):
        n = 0
        n = out[0] * 1.5
        n = thread_id()
        out[0] = n

    assert float_to_int(wave_gpu.zeros(1, "i32")) is None  # widened to f32 as a whole, then stored

    @wave_gpu.kernel
    def float_index(out: wave_gpu.f32[:]):
        out[1.5] = 0.0

    assert "array indices must be integers, got f32" in str(compile_error(float_index, wave_gpu.zeros(1)))

    @wave_gpu.kernel
    def float_bits(out: wave_gpu.f32[:]):
        out[0] = out[0] & 3

    assert "bitwise operators need integers" in str(compile_error(float_bits, wave_gpu.zeros(1)))

    @wave_gpu.kernel
    def returns_value(out: wave_gpu.f32[:]):
        return out[0]

    assert "kernels cannot return a value" in str(compile_error(returns_value, wave_gpu.zeros(1)))

    @wave_gpu.kernel
    def bad_loop(out: wave_gpu.f32[:]):
        for x in out:
            out[0] = x

    assert "kernels loop only over range" in str(compile_error(bad_loop, wave_gpu.zeros(1)))


def test_kernel_error_out_of_bounds_names_line_workgroup_and_lane():
    @wave_gpu.kernel
    def unguarded(a: wave_gpu.f32[:], out: wave_gpu.f32[:]):
        i = thread_id()
        out[i] = a[i] * 2.0

    with pytest.raises(wave_gpu.KernelError) as error:
        unguarded(wave_gpu.ones(100), wave_gpu.zeros(100), grid=(2, 1, 1), workgroup=(64, 1, 1), threads=1)
    message = str(error.value)
    assert "kernel 'unguarded'" in message
    assert "index 100 is out of bounds of buffer 'a' (length 100)" in message
    assert "workgroup (1, 0, 0)" in message and "lane 4" in message and "local thread 36" in message
    assert "out[i] = a[i] * 2.0" in message


def test_kernel_error_negative_index_in_shared_memory():
    @wave_gpu.kernel
    def negative(out: wave_gpu.f32[:]):
        tile = wave_gpu.shared(8, wave_gpu.f32)
        out[0] = tile[local_id() - 1]

    with pytest.raises(wave_gpu.KernelError, match=r"index -1 is out of bounds of shared array 'tile' \(length 8\)"):
        negative(wave_gpu.zeros(8), grid=(1, 1, 1), workgroup=(8, 1, 1))


def test_barrier_in_divergent_control_flow():
    @wave_gpu.kernel
    def divergent(out: wave_gpu.f32[:]):
        if local_id() < 16:
            barrier()
        out[thread_id()] = 1.0

    with pytest.raises(wave_gpu.KernelError) as error:
        divergent(wave_gpu.zeros(32), grid=(1, 1, 1), workgroup=(32, 1, 1))
    message = str(error.value)
    assert "barrier in divergent control flow" in message and "lanes 16," in message
    assert "workgroup (0, 0, 0)" in message and "barrier()" in message


def test_barrier_after_an_early_return_is_divergent():
    @wave_gpu.kernel
    def early_return(out: wave_gpu.f32[:]):
        if thread_id() >= len(out):
            return
        barrier()
        out[thread_id()] = 1.0

    with pytest.raises(wave_gpu.KernelError, match="returned earlier"):
        early_return(wave_gpu.zeros(20), grid=(1, 1, 1), workgroup=(32, 1, 1))


def test_deadlock_when_a_wave_skips_the_barrier():
    @wave_gpu.kernel
    def deadlock(out: wave_gpu.f32[:]):
        if local_id() < 32:
            barrier()
        out[thread_id()] = 1.0

    with pytest.raises(wave_gpu.KernelError) as error:
        deadlock(wave_gpu.zeros(64), grid=(1, 1, 1), workgroup=(64, 1, 1))
    assert "deadlock: wave 0 waits at this barrier but wave 1 finished without reaching it" in str(error.value)


def test_deadlock_at_different_barriers():
    @wave_gpu.kernel
    def two_barriers(out: wave_gpu.f32[:]):
        if local_id() < 32:
            barrier()
        else:
            barrier()

    with pytest.raises(wave_gpu.KernelError, match="waves wait at different barriers"):
        two_barriers(wave_gpu.zeros(64), grid=(1, 1, 1), workgroup=(64, 1, 1))


def test_integer_division_by_zero():
    @wave_gpu.kernel
    def divide(a: wave_gpu.i32[:], b: wave_gpu.i32[:]):
        i = thread_id()
        a[i] = a[i] // b[i]

    with pytest.raises(wave_gpu.KernelError, match="integer division by zero.*lane 2"):
        divide(wave_gpu.ones(4, "i32"), wave_gpu.array([1, 1, 0, 1], "i32"))


def test_wrong_argument_count_and_types_raise_type_error_before_running():
    @wave_gpu.kernel
    def add(a: wave_gpu.f32[:], out: wave_gpu.f32[:], scale: wave_gpu.f32):
        out[thread_id()] = a[thread_id()] * scale

    a, out = wave_gpu.ones(4), wave_gpu.zeros(4)
    with pytest.raises(TypeError, match=r"add\(\) takes 3 arguments \(a, out, scale\), got 2"):
        add(a, out)
    with pytest.raises(TypeError, match="argument 'a' of add\\(\\): expected a f32 buffer, got an array of i32"):
        add(wave_gpu.ones(4, "i32"), out, 1.0)
    with pytest.raises(TypeError, match="argument 'out'.*not a list"):
        add(a, [0.0] * 4, 1.0)
    with pytest.raises(TypeError, match="argument 'scale'.*expected a f32 scalar, got an array"):
        add(a, out, np.ones(4, np.float32))
    with pytest.raises(TypeError, match="argument 'a'.*C-contiguous"):
        add(np.ones(8, np.float32)[::2], out, 1.0)
    with pytest.raises(TypeError, match="argument 'scale'.*got str"):
        add(a, out, "2")
    with pytest.raises(TypeError, match="grid"):
        add(a, out, 1.0, grid="big")
    with pytest.raises(ValueError, match="workgroup"):
        add(a, out, 1.0, workgroup=(0, 1, 1))
    with pytest.raises(ValueError, match="workgroup: has 2048 threads"):
        add(a, out, 1.0, grid=(1, 1, 1), workgroup=(2048, 1, 1))
    assert out.to_list() == [0.0] * 4


def test_compile_errors_in_parameters():
    def make():
        @wave_gpu.kernel
        def bad(a: str):
            pass

        return bad

    with pytest.raises(wave_gpu.CompileError, match="parameter 'a': unsupported annotation"):
        make()(1)


def test_more_compile_errors_name_the_problem():
    @wave_gpu.kernel
    def array_update(out: wave_gpu.f32[:]):
        out += 1.0

    assert "'out' is an array" in str(compile_error(array_update, wave_gpu.zeros(1)))

    def helper(x):
        return x

    @wave_gpu.kernel
    def calls_python(out: wave_gpu.f32[:]):
        out[0] = helper(1.0)

    assert "'helper' cannot be called in a kernel" in str(compile_error(calls_python, wave_gpu.zeros(1)))

    @wave_gpu.kernel
    def bad_dimension(out: wave_gpu.i32[:]):
        out[0] = thread_id(3)

    assert "must be the constant 0, 1 or 2" in str(compile_error(bad_dimension, wave_gpu.zeros(1, "i32")))

    @wave_gpu.kernel
    def float_atomic_or(out: wave_gpu.f32[:]):
        wave_gpu.atomic_or(out, 0, 1.0)

    assert "needs an integer array" in str(compile_error(float_atomic_or, wave_gpu.zeros(1)))

    @wave_gpu.kernel
    def shared_not_constant(out: wave_gpu.f32[:], n: wave_gpu.i32):
        tile = wave_gpu.shared(n, wave_gpu.f32)
        out[0] = tile[0]

    assert "positive integer constant" in str(compile_error(shared_not_constant, wave_gpu.zeros(1), 4))


def test_kernels_without_source_are_rejected_clearly():
    namespace = {"wave_gpu": wave_gpu}
    exec("def made_up(out):\n    out[0] = 1.0\n", namespace)
    with pytest.raises(wave_gpu.CompileError, match="source of kernel 'made_up' is not available"):
        wave_gpu.kernel(namespace["made_up"])
