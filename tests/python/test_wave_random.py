"""wave_gpu.rand_init / randi / randf / randn: Philox 4x32-10 against a reference written
here (checked with the published known-answer vectors), identical bits on the emulator and on
Vulkan (the differential harness), uniformity and normal moments."""

import math

import numpy as np
import pytest
from wave_support import DEVICES, make_rng, select_device

import wave_gpu
from wave_gpu import f32, i32, i64, thread_id, u32


@pytest.fixture(autouse=True, params=DEVICES)
def device(request, monkeypatch):
    yield from select_device(request, monkeypatch)


@pytest.fixture
def rng(request):
    return make_rng(request)


# ---- the reference: Philox 4x32-10 (Salmon, Moraes, Dror, Shaw; SC'11) in pure Python ----

MASK = 0xFFFFFFFF


def philox4x32_10(counter, key):
    c = list(counter)
    k0, k1 = key
    for round_ in range(10):
        if round_:
            k0 = (k0 + 0x9E3779B9) & MASK
            k1 = (k1 + 0xBB67AE85) & MASK
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        hi0, lo0 = p0 >> 32, p0 & MASK
        hi1, lo1 = p1 >> 32, p1 & MASK
        c = [hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0]
    return c


def reference_block(seed: int, offset: int, call: int):
    seed %= 2**64
    offset %= 2**64
    return philox4x32_10([call & MASK, call >> 32, offset & MASK, offset >> 32], [seed & MASK, seed >> 32])


def unit(word: int, bias: int = 0) -> np.float32:
    return np.float32(((word >> 8) + bias) * 2.0**-24)


def reference_normal(block) -> float:
    """Box-Muller in f64 with the C library's log and cos: the value randn approximates."""
    u1, u2 = unit(block[0], 1), unit(block[1])
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2)


def reference_normal_bits(block) -> np.float32:
    """randn's documented f32 evaluation step by step (NumPy float32 operations round like
    the device's): ln u1 from m = f * 2^e and the Taylor series of ln(1 + t) to t^18, the
    cosine by quadrant from Taylor polynomials of sin (to x^11) and cos (to x^12)."""
    F = np.float32
    m = (block[0] >> 8) + 1
    rest, scale, exponent = m, F(1.0), F(0.0)
    for step in (16, 8, 4, 2, 1):
        if rest >= 1 << step:
            rest >>= step
            exponent = F(exponent + F(step))
            scale = F(scale * F(2.0 ** -step))
        else:
            scale = F(scale * F(1.0))
    fraction = F(F(m) * scale)
    if fraction > F(1.4142135):
        fraction = F(fraction * F(0.5))
        exponent = F(exponent + F(1.0))
    t = F(fraction - F(1.0))
    series = F((-1.0) ** 19 / 18)
    for n in range(17, 0, -1):
        series = F(F(series * t) + F((-1.0) ** (n + 1) / n))
    log_fraction = F(series * t)
    power = F(exponent - F(24.0))
    log_u1 = F(F(power * F(0.693145751953125)) + F(F(power * F(1.4286068203094173e-06)) + log_fraction))
    radius = F(np.sqrt(F(log_u1 * F(-2.0))))
    j = block[1] >> 8
    quadrant = j >> 22
    x = F(F(F(j & ((1 << 22) - 1)) * F(2.0 ** -22)) * F(math.pi / 2))
    x2 = F(x * x)
    sine = F((-1.0) ** 5 / math.factorial(11))
    for k in range(4, -1, -1):
        sine = F(F(sine * x2) + F((-1.0) ** k / math.factorial(2 * k + 1)))
    sine = F(sine * x)
    cosine = F((-1.0) ** 6 / math.factorial(12))
    for k in range(5, -1, -1):
        cosine = F(F(cosine * x2) + F((-1.0) ** k / math.factorial(2 * k)))
    magnitude = sine if quadrant & 1 else cosine
    return F(radius * (-magnitude if quadrant in (1, 2) else magnitude))


def test_the_reference_matches_the_published_known_answers():
    # Random123's kat_vectors for philox4x32 with 10 rounds.
    assert philox4x32_10([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert philox4x32_10([MASK] * 4, [MASK, MASK]) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]
    assert philox4x32_10([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0]) == \
        [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]


# ---- kernels ---------------------------------------------------------------------------------

CALLS = 3


@wave_gpu.kernel
def draw_ints(out: u32[:], seed: i32):
    i = thread_id()
    state = wave_gpu.rand_init(seed, i)
    for k in range(3):
        out[3 * i + k] = wave_gpu.randi(state)


@wave_gpu.kernel
def draw_ints_wide(out: u32[:], seed: i64, offset: i64):
    i = thread_id()
    state = wave_gpu.rand_init(seed, offset + i)
    out[2 * i] = wave_gpu.randi(state)
    out[2 * i + 1] = wave_gpu.randi(state)


@wave_gpu.kernel
def draw_floats(out: f32[:], seed: i32):
    i = thread_id()
    state = wave_gpu.rand_init(seed, i)
    out[i] = wave_gpu.randf(state)


@wave_gpu.kernel
def draw_normals(out: f32[:], seed: i32):
    i = thread_id()
    state = wave_gpu.rand_init(seed, i)
    out[i] = wave_gpu.randn(state)


@wave_gpu.kernel
def draw_in_branches(out: u32[:], seed: u32):
    i = thread_id()
    state = wave_gpu.rand_init(seed, i)
    if i % 2 == 0:
        out[i] = wave_gpu.randi(state)  # call 0
    else:
        wave_gpu.randi(state)
        copy = state
        out[i] = wave_gpu.randi(copy)  # call 1 (a copy continues where the state was)


def test_randi_is_philox_of_seed_offset_and_call_index(rng):
    n = 100
    seed = int(rng.integers(-2**31, 2**31))
    out = np.zeros(n * CALLS, np.uint32)
    draw_ints(out, seed, dim=n)
    expected = [reference_block(seed, i, k)[0] for i in range(n) for k in range(CALLS)]
    np.testing.assert_array_equal(out, np.array(expected, np.uint32))


def test_64_bit_seeds_and_offsets_use_both_words(rng):
    n = 40
    seed = int(rng.integers(-2**63, 2**63))
    offset = int(rng.integers(2**32, 2**40))
    out = np.zeros(2 * n, np.uint32)
    draw_ints_wide(out, seed, offset, dim=n)
    expected = [reference_block(seed, offset + i, k)[0] for i in range(n) for k in range(2)]
    np.testing.assert_array_equal(out, np.array(expected, np.uint32))
    # An i32 seed is sign-extended: -1 as i32 and as i64 start the same stream.
    narrow, wide = np.zeros(3, np.uint32), np.zeros(2, np.uint32)
    draw_ints(narrow, -1, dim=1)
    draw_ints_wide(wide, -1, 0, dim=1)
    assert narrow[:2].tolist() == wide.tolist() == [reference_block(-1, 0, k)[0] for k in range(2)]


def test_randf_has_the_reference_bits_and_lies_in_0_1(rng):
    n = 256
    seed = int(rng.integers(0, 2**31))
    out = np.zeros(n, np.float32)
    draw_floats(out, seed)
    expected = np.array([unit(reference_block(seed, i, 0)[0]) for i in range(n)], np.float32)
    np.testing.assert_array_equal(out.view(np.uint32), expected.view(np.uint32))
    assert out.min() >= 0.0 and out.max() < 1.0


def test_randn_matches_box_muller_of_the_reference(rng):
    n = 256
    seed = int(rng.integers(0, 2**31))
    out = np.zeros(n, np.float32)
    draw_normals(out, seed)
    blocks = [reference_block(seed, i, 0) for i in range(n)]
    bits = np.array([reference_normal_bits(block) for block in blocks], np.float32)
    np.testing.assert_array_equal(out.view(np.uint32), bits.view(np.uint32))
    # and that evaluation is Box-Muller to f32 accuracy
    np.testing.assert_allclose(out, [reference_normal(block) for block in blocks], rtol=2e-6, atol=2e-6)


def test_state_advances_through_branches_and_copies(rng):
    n = 64
    seed = int(rng.integers(0, 2**32))
    out = np.zeros(n, np.uint32)
    draw_in_branches(out, seed)
    expected = [reference_block(seed, i, i % 2)[0] for i in range(n)]
    np.testing.assert_array_equal(out, np.array(expected, np.uint32))


def _chi_square_bound(df: int, z: float = 5.0) -> float:
    # Wilson-Hilferty: the chi-square quantile at a normal z (5 sigma: a false alarm in ~3.5 million runs).
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_randf_is_uniform(rng):
    n, bins = 1 << 16, 64
    out = np.zeros(n, np.float32)
    draw_floats(out, int(rng.integers(0, 2**31)))
    counts = np.bincount((out * bins).astype(np.int64), minlength=bins)
    expected = n / bins
    statistic = float(((counts - expected) ** 2 / expected).sum())
    assert statistic < _chi_square_bound(bins - 1), counts


def test_randn_has_standard_normal_moments(rng):
    n = 1 << 16
    out = np.zeros(n, np.float32)
    draw_normals(out, int(rng.integers(0, 2**31)))
    z = out.astype(np.float64)
    assert np.isfinite(z).all()
    # 6 standard errors: mean sd 1/sqrt(n), variance sd sqrt(2/n), skewness sqrt(6/n), kurtosis sqrt(24/n)
    assert abs(z.mean()) < 6 / math.sqrt(n)
    assert abs(z.var() - 1) < 6 * math.sqrt(2 / n)
    centred = z - z.mean()
    skew = (centred ** 3).mean() / z.std() ** 3
    kurtosis = (centred ** 4).mean() / z.var() ** 2 - 3
    assert abs(skew) < 6 * math.sqrt(6 / n)
    assert abs(kurtosis) < 6 * math.sqrt(24 / n)


def test_misuse_is_a_compile_error():
    @wave_gpu.kernel
    def not_a_state(out: f32[:]):
        out[0] = wave_gpu.randf(3)

    @wave_gpu.kernel
    def arithmetic_on_a_state(out: u32[:]):
        state = wave_gpu.rand_init(1, 2)
        out[0] = state + 1

    @wave_gpu.kernel
    def float_seed(out: u32[:]):
        state = wave_gpu.rand_init(1.5, 2)
        out[0] = wave_gpu.randi(state)

    with pytest.raises(wave_gpu.CompileError, match="rand_init"):
        not_a_state(np.zeros(1, np.float32))
    with pytest.raises(wave_gpu.CompileError, match="random state"):
        arithmetic_on_a_state(np.zeros(1, np.uint32))
    with pytest.raises(wave_gpu.CompileError, match="integers"):
        float_seed(np.zeros(1, np.uint32))


def test_outside_kernels_the_functions_explain_themselves():
    with pytest.raises(RuntimeError, match="inside a @wave_gpu.kernel"):
        wave_gpu.rand_init(1, 2)
