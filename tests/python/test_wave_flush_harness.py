"""The differential harness's rule for devices that may flush f32 subnormals (Vulkan allows it
unless the shader asks DenormPreserve, which NVIDIA's driver does not offer): a device result
may match the emulator's, or the emulator's from flushed operands, flushed; nothing else.
Checked here without a device, since lavapipe keeps subnormals and never takes that path."""

import numpy as np
import pytest
from wave_support import compare, either_result, flush_f32_subnormals, may_flush_f32_subnormals

import wave_gpu
from wave_gpu import f32, thread_id

TINY = np.finfo(np.float32).smallest_subnormal
FLUSHING = {"name": "a flushing device", "features": {"float64": True, "float32_denorm_preserve": False}}
KEEPING = {"name": "a keeping device", "features": {"float64": True, "float32_denorm_preserve": True}}


@wave_gpu.kernel
def negate(x: f32[:], out: f32[:]):
    i = thread_id()
    out[i] = -x[i]


def test_flushing_replaces_subnormals_by_zeros_of_their_sign():
    x = np.array([TINY, -TINY, 3 * TINY, np.finfo(np.float32).smallest_normal, 1.5, -0.0, np.nan], np.float32)
    flushed = flush_f32_subnormals(x)
    np.testing.assert_array_equal(flushed.view(np.uint32),
                                  np.array([0.0, -0.0, 0.0, x[3], 1.5, -0.0, np.nan], np.float32).view(np.uint32))
    wide = x.astype(np.float64)
    assert flush_f32_subnormals(wide) is wide  # f64 is never flushed


def test_only_devices_without_denorm_preserve_may_flush():
    assert may_flush_f32_subnormals(FLUSHING) and not may_flush_f32_subnormals(KEEPING)


def test_a_result_may_match_either_reference_but_nothing_else():
    kept = np.array([-TINY, 2.0, -TINY], np.float32)
    flushed = np.array([-0.0, 2.0, -0.0], np.float32)
    got = np.array([-TINY, 2.0, -0.0], np.float32)
    np.testing.assert_array_equal(either_result(got, kept, flushed).view(np.uint32), got.view(np.uint32))
    wrong = np.array([-TINY, 2.0, 0.0], np.float32)  # +0: neither -TINY nor the flushed -0
    expected = either_result(wrong, kept, flushed)
    assert (expected.view(np.uint32) != wrong.view(np.uint32)).tolist() == [False, False, True]


def test_the_harness_accepts_a_flushed_result_only_from_a_device_that_may_flush():
    x = np.array([TINY, 1.0], np.float32)
    negate(x, np.zeros(2, np.float32), device="emulator")  # compiles, so the harness can read its IR
    emulator = [x, np.array([-TINY, -1.0], np.float32)]
    flushed_reference = [flush_f32_subnormals(x), np.array([-0.0, -1.0], np.float32)]
    device_result = [x, np.array([-0.0, -1.0], np.float32)]
    compare(negate, device_result, emulator, FLUSHING, flushed_reference)  # accepted
    with pytest.raises(pytest.fail.Exception, match="differs from the emulator at 1 elements"):
        compare(negate, device_result, emulator, KEEPING)  # no flushed reference: must match exactly
    positive_zero = [x, np.array([0.0, -1.0], np.float32)]  # the sign is wrong either way
    with pytest.raises(pytest.fail.Exception, match="differs from the emulator at 1 elements"):
        compare(negate, positive_zero, emulator, FLUSHING, flushed_reference)
