"""Helpers of the wave_gpu tests: a fresh seed per run (printed, overridable with
WAVE_TEST_SEED) and the emulator selected explicitly (CI has a software GPU detected)."""

import os
import secrets

import numpy as np


def make_rng(request) -> np.random.Generator:
    base = int(os.environ.get("WAVE_TEST_SEED", secrets.randbits(32)))
    seed = (base + sum(map(ord, request.node.name))) % 2**32
    print(f"{request.node.name}: seed {seed} (WAVE_TEST_SEED={base})")
    return np.random.default_rng(seed)


# ---- the differential harness: every kernel call on Vulkan is checked against the emulator ----

import re  # noqa: E402

import pytest  # noqa: E402

import wave_gpu  # noqa: E402

DEVICES = ["emulator", "cpu", "vulkan"]

# The native cpu device as the differential harness sees it: it runs any wave width, uses the
# emulator's C library for every math function (so every result is compared bit for bit) and
# keeps subnormals.
CPU_DEVICE = {"name": "the native cpu device", "subgroup_size": 32, "any_wave_width": True, "bit_exact": True,
              "features": {"float64": True, "float32_denorm_preserve": True}}

# Float operations whose results may differ from the emulator's C library (GLSL built-ins,
# division and square root are not required to be correctly rounded; f64 transcendentals
# are evaluated in f32). Kernels using them are compared within a tolerance; all others
# bit for bit. docs/ARCHITECTURE.md ("wave_gpu on Vulkan") states the same numbers.
TOLERANT_OPS = {"sin", "cos", "tan", "exp", "exp2", "log", "log2", "pow", "sqrt", "div", "floordiv", "mod"}
# The functions of python/wave_gpu/_math.py (fmod, copysign, trunc and the classification
# tests are exact on both sides and stay bit-exact).
TOLERANT_OPS |= {"tanh", "sinh", "cosh", "asin", "acos", "atan", "atan2", "hypot", "erf", "erfc", "log10", "log1p",
                 "expm1"}
# f32 division and square root go through f64 on devices with float64: correctly rounded there.
ROUNDED_THROUGH_F64 = {"sqrt", "div", "floordiv"}
RELATIVE_TOLERANCE = 1e-5
ABSOLUTE_TOLERANCE = 1e-5

_INSTRUCTION = re.compile(r"^\s*(?:%(\d+):(\w+) = )?(\w+)")


def classify(ir: str, float64: bool = False):
    """(tolerant, order_dependent) of a kernel's IR: whether it uses a float operation of
    TOLERANT_OPS (f32 division and sqrt count as exact on a device with `float64`), and
    whether its results depend on the order of atomics (an atomic's returned value is used,
    or a float atomic rounds in arrival order)."""
    tolerant = False
    atomic_results = set()
    order_dependent = False
    lines = ir.splitlines()
    for line in lines:
        match = _INSTRUCTION.match(line)
        if not match:
            continue
        register, type_, op = match.groups()
        if type_ in ("f32", "f64") and op in TOLERANT_OPS:
            if not (float64 and type_ == "f32" and op in ROUNDED_THROUGH_F64):
                tolerant = True
        if op.startswith("atomic_"):
            if type_ in ("f32", "f64") or op in ("atomic_exchange", "atomic_cas"):
                order_dependent = True
            atomic_results.add(register)
    for line in lines:
        uses = set(re.findall(r"%(\d+)(?!:)", line.split(";")[0].split("=", 1)[-1]))
        if uses & atomic_results:
            order_dependent = True
    return tolerant, order_dependent


def _copy_all(values) -> list:
    """Copies of the arguments; arguments that share memory (one array passed twice, a
    WaveArray and a view of it) share the copy's memory too, as the kernel saw them."""
    copies, by_memory = [], {}
    for value in values:
        if not isinstance(value, (wave_gpu.WaveArray, np.ndarray)):
            copies.append(value)
            continue
        host = _host(value)
        key = (host.__array_interface__["data"][0], host.nbytes, host.dtype.str)
        if key not in by_memory:
            by_memory[key] = host.copy()
        storage = by_memory[key]
        copies.append(wave_gpu.WaveArray(storage, value.dtype) if isinstance(value, wave_gpu.WaveArray) else storage)
    return copies


def _host(value) -> np.ndarray:
    return value._storage if isinstance(value, wave_gpu.WaveArray) else value


def may_flush_f32_subnormals(device: dict) -> bool:
    """Vulkan lets a device flush f32 subnormals to zero (operands and results) unless the shader
    asks for DenormPreserve, which wave_gpu does wherever the device supports it for 32-bit
    floats. NVIDIA's driver does not (and flushes); lavapipe does not either but keeps them."""
    return not device["features"]["float32_denorm_preserve"]


def flush_f32_subnormals(array: np.ndarray) -> np.ndarray:
    """`array` with every f32 subnormal replaced by a zero of its sign, as a flushing device
    reads and writes them; other arrays unchanged."""
    if array.dtype != np.float32:
        return array
    subnormal = (array != 0) & (np.abs(array) < np.finfo(np.float32).smallest_normal)
    return np.where(subnormal, np.copysign(np.float32(0), array), array).astype(np.float32)


def either_result(got: np.ndarray, kept: np.ndarray, flushed: np.ndarray, rtol=0.0, atol=0.0) -> np.ndarray:
    """Element-wise: `kept` where `got` matches it (within rtol/atol, zeros by sign), else
    `flushed` (the result computed from flushed operands, flushed): what to compare a possibly
    flushing device's f32 results with."""
    with np.errstate(invalid="ignore"):
        # Two NaNs match whatever their sign bits (a NaN's sign means nothing here, and devices
        # differ: lavapipe on an AVX-512 Xeon gave +NaN for log10 of a negative subnormal where
        # NumPy gives -NaN, and the element was then compared with the flushed operand's -inf).
        same_sign = (np.signbit(got) == np.signbit(kept)) | (np.isnan(got) & np.isnan(kept))
        close = np.isclose(got, kept, rtol=rtol, atol=atol, equal_nan=True) & same_sign
    return np.where((_bits(got) == _bits(kept)) | close, kept, flush_f32_subnormals(flushed))


def current_device_may_flush_f32() -> bool:
    """Whether the device kernels run on now is a Vulkan device that may flush f32 subnormals."""
    where = wave_gpu._device.resolve()
    return where not in ("emulator", "cpu") and may_flush_f32_subnormals(where)


def expected_on_this_device(got: np.ndarray, kept: np.ndarray, flushed: np.ndarray, rtol=0.0, atol=0.0) -> np.ndarray:
    """What a test compares the current device's `got` with: `kept` (the IEEE result), or on a
    device that may flush f32 subnormals either_result of it and `flushed` (the result from
    flushed operands)."""
    if got.dtype == np.float32 and current_device_may_flush_f32():
        return either_result(got, kept, flushed, rtol, atol)
    return kept


def _bits(array: np.ndarray) -> np.ndarray:
    return array.view(f"u{array.dtype.itemsize}") if array.dtype.kind == "f" else array


def compare(kernel, gpu_args, reference_args, device: dict, flushed_args=None) -> None:
    """The device's results against the emulator's (`reference_args`). With `flushed_args` (the
    emulator's results from f32 operands with subnormals flushed, for a device that may flush
    them), an f32 element may match either."""
    device_name = device["name"]
    tolerant, order_dependent = classify(kernel.ir, device["features"]["float64"])
    tolerant = tolerant and not device.get("bit_exact", False)
    if order_dependent:
        # The order atomics arrive in differs between devices (and between emulator runs);
        # the test's own NumPy assertions check these results.
        print(f"{kernel.__name__}: atomics make the results order-dependent; checked by the test's assertions")
        return
    for position, (gpu, reference) in enumerate(zip(gpu_args, reference_args)):
        if not isinstance(gpu, (wave_gpu.WaveArray, np.ndarray)):
            continue
        got, expected = _host(gpu), _host(reference)
        if flushed_args is not None and got.dtype == np.float32:
            tolerances = (RELATIVE_TOLERANCE, ABSOLUTE_TOLERANCE) if tolerant else (0.0, 0.0)
            expected = either_result(got, expected, _host(flushed_args[position]), *tolerances)
        where = f"{kernel.__name__} argument {position} on {device_name}"
        if tolerant and got.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                close = np.isclose(got, expected, rtol=RELATIVE_TOLERANCE, atol=ABSOLUTE_TOLERANCE, equal_nan=True)
            far = np.nonzero(~close)[0]
            if far.size:
                first = far[:8].tolist()
                pytest.fail(f"{where} differs from the emulator beyond rtol {RELATIVE_TOLERANCE}, atol "
                            f"{ABSOLUTE_TOLERANCE} at {far.size} elements, first {first}: "
                            f"{got[first].tolist()} != {expected[first].tolist()}")
        else:
            different = np.nonzero(_bits(got) != _bits(expected))[0]
            if different.size:
                first = different[:8].tolist()
                pytest.fail(f"{where} differs from the emulator at {different.size} elements, first {first}: "
                            f"{got[first].tolist()} != {expected[first].tolist()}")


def _line(error) -> str:
    match = re.search(r", line (\d+):", str(error))
    return match.group(1) if match else ""


def _is_f32_array(value) -> bool:
    return isinstance(value, (wave_gpu.WaveArray, np.ndarray)) and _host(value).dtype == np.float32


def differential(original, device: dict):
    """Kernel.__call__ that runs each call on the emulator (copies of the arguments, the
    device's wave width) and on `device`, and compares the results (see compare())."""
    def call(self, *args, **kwargs):
        if kwargs.get("device") is not None:
            return original(self, *args, **kwargs)
        wave_width = kwargs.get("wave_width")
        width = device["subgroup_size"]
        if device.get("any_wave_width") and wave_width is not None:
            width = wave_width
        if wave_width is not None and wave_width != width:
            pytest.skip(f"wave_width={wave_width} is an emulator setting; {device['name']} runs waves of {width}")
        # The arguments before the call, for a flushed reference: only where one may be needed.
        may_flush = may_flush_f32_subnormals(device) and any(_is_f32_array(value) for value in args)
        originals = _copy_all(args) if may_flush else None
        copies = _copy_all(args)
        reference_error = None
        try:
            original(self, *copies, **dict(kwargs, device="emulator", wave_width=width))
        except wave_gpu.KernelError as error:
            reference_error = error
        try:
            result = original(self, *args, **kwargs)
        except NotImplementedError as error:
            # A construct the native cpu device does not run yet: an expected failure, named.
            if device is CPU_DEVICE:
                pytest.xfail(f"not yet on the native cpu device: {error}")
            raise
        except wave_gpu.KernelError as error:
            assert reference_error is not None, f"{device['name']} raised but the emulator did not: {error}"
            assert _line(error) == _line(reference_error), f"{error}\nemulator: {reference_error}"
            raise
        assert reference_error is None, f"the emulator raised but {device['name']} did not: {reference_error}"
        try:
            compare(self, args, copies, device)
        except (AssertionError, pytest.fail.Exception):
            # A device that may flush f32 subnormals gets a second chance against the emulator
            # run on flushed operands.
            if not may_flush:
                raise
            flushed = _copy_all(originals)
            for value in flushed:
                if _is_f32_array(value):  # in place: arguments sharing memory keep sharing it
                    _host(value)[...] = flush_f32_subnormals(_host(value))
            original(self, *flushed, **dict(kwargs, device="emulator", wave_width=width))
            compare(self, args, copies, device, flushed)
        return result

    return call


def select_device(request, monkeypatch):
    """Body of an autouse fixture parametrised over DEVICES: the emulator, or the native cpu
    device or the Vulkan device with every kernel call checked against the emulator."""
    if request.param == "emulator":
        wave_gpu.set_device("emulator")
    elif request.param == "cpu":
        wave_gpu.set_device("cpu")
        monkeypatch.setattr(wave_gpu.Kernel, "__call__", differential(wave_gpu.Kernel.__call__, CPU_DEVICE))
    else:
        device = request.getfixturevalue("vulkan_device")
        wave_gpu.set_device(device["index"])
        monkeypatch.setattr(wave_gpu.Kernel, "__call__", differential(wave_gpu.Kernel.__call__, device))
    yield request.param
    wave_gpu.set_device(None)
