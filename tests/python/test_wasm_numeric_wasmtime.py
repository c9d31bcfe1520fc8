"""Every numeric instruction on the cpu device (and the selected Vulkan device) against wasmtime, on random and special
operands: one tiny module (built here from bytes) exports one function per instruction,
taking and returning integer bit patterns (floats are reinterpreted inside the module, so
no NaN payload is touched by Python). Each instance gets its own operands; every result
must equal wasmtime's bit for bit, except NaNs, which follow the spec's rule (canonical
when every NaN operand is canonical, otherwise arithmetic); traps must agree in reason.
"""

import random

import pytest

from wasm_builder import F32, F64, I32, I64, ModuleBuilder, uleb

wasmtime = pytest.importorskip("wasmtime", reason="the wasmtime package is the oracle (pip install wasmtime)")
import wasmgpu  # noqa: E402
from device_support import gpu_required  # noqa: E402

ROWS = 384
SEED = 20261130

# (opcode, operand types, result type) of every numeric instruction; 0x100 + n is 0xFC n.
def _signatures():
    sig = {}
    sig[0x45] = ([I32], I32)
    for op in range(0x46, 0x50):
        sig[op] = ([I32, I32], I32)
    sig[0x50] = ([I64], I32)
    for op in range(0x51, 0x5B):
        sig[op] = ([I64, I64], I32)
    for op in range(0x5B, 0x61):
        sig[op] = ([F32, F32], I32)
    for op in range(0x61, 0x67):
        sig[op] = ([F64, F64], I32)
    for op in range(0x67, 0x6A):
        sig[op] = ([I32], I32)
    for op in range(0x6A, 0x79):
        sig[op] = ([I32, I32], I32)
    for op in range(0x79, 0x7C):
        sig[op] = ([I64], I64)
    for op in range(0x7C, 0x8B):
        sig[op] = ([I64, I64], I64)
    for op in range(0x8B, 0x92):
        sig[op] = ([F32], F32)
    for op in range(0x92, 0x99):
        sig[op] = ([F32, F32], F32)
    for op in range(0x99, 0xA0):
        sig[op] = ([F64], F64)
    for op in range(0xA0, 0xA7):
        sig[op] = ([F64, F64], F64)
    conversions = [(I64, I32), (F32, I32), (F32, I32), (F64, I32), (F64, I32), (I32, I64), (I32, I64),
                   (F32, I64), (F32, I64), (F64, I64), (F64, I64), (I32, F32), (I32, F32), (I64, F32),
                   (I64, F32), (F64, F32), (I32, F64), (I32, F64), (I64, F64), (I64, F64), (F32, F64),
                   (F32, I32), (F64, I64), (I32, F32), (I64, F64), (I32, I32), (I32, I32), (I64, I64),
                   (I64, I64), (I64, I64)]
    for k, (source, target) in enumerate(conversions):
        sig[0xA7 + k] = ([source], target)
    for n, (source, target) in enumerate([(F32, I32), (F32, I32), (F64, I32), (F64, I32),
                                          (F32, I64), (F32, I64), (F64, I64), (F64, I64)]):
        sig[0x100 + n] = ([source], target)
    return sig


SIGNATURES = _signatures()
CARRIER = {I32: I32, I64: I64, F32: I32, F64: I64}  # the integer type carrying each type's bits


def build_module() -> bytes:
    builder = ModuleBuilder()
    for op, (params, result) in SIGNATURES.items():
        body = b""
        for k, kind in enumerate(params):
            body += b"\x20" + uleb(k)
            body += {F32: b"\xbe", F64: b"\xbf"}.get(kind, b"")
        body += bytes([op]) if op < 0x100 else b"\xfc" + uleb(op - 0x100)
        body += {F32: b"\xbc", F64: b"\xbd"}.get(result, b"")
        builder.function([CARRIER[p] for p in params], [CARRIER[result]], body, export=f"op_{op:x}")
    return builder.build()


F32_SPECIALS = [0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                0x7FA00000, 0x7F800001, 0xFFFFFFFF, 0x00000001, 0x807FFFFF, 0x7F7FFFFF, 0x4F000000, 0xCF000000,
                0x4F800000, 0x5F000000, 0xDF000000, 0x3F000000, 0x3FC00000, 0x40200000, 0xCF000001, 0x4EFFFFFF]
F64_SPECIALS = [0, 1 << 63, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
                0x7FF8000000000000, 0xFFF8000000000000, 0x7FF4000000000000, 0x7FF0000000000001, 1,
                0x800FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0x41E0000000000000, 0xC1E0000000000000,
                0x41DFFFFFFFC00000, 0x43E0000000000000, 0xC3E0000000000000, 0x3FE0000000000000,
                0x3FF8000000000000, 0x4004000000000000, 0x41F0000000000000, 0xC1E0000000200000]
INT_SPECIALS = [0, 1, 2, 31, 32, 33, 63, 64, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE,
                0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF]


def operand(rng: random.Random, kind: int) -> int:
    choice = rng.random()
    if kind == F32:
        if choice < 0.3:
            return rng.choice(F32_SPECIALS)
        if choice < 0.6:  # moderate magnitudes: conversions and rounding in range
            return (rng.getrandbits(1) << 31) | (rng.randint(100, 160) << 23) | rng.getrandbits(23)
        return rng.getrandbits(32)
    if kind == F64:
        if choice < 0.3:
            return rng.choice(F64_SPECIALS)
        if choice < 0.6:
            return (rng.getrandbits(1) << 63) | (rng.randint(1000, 1100) << 52) | rng.getrandbits(52)
        return rng.getrandbits(64)
    bits = 32 if kind == I32 else 64
    if choice < 0.3:
        return rng.choice(INT_SPECIALS) & ((1 << bits) - 1)
    if choice < 0.5:
        return rng.getrandbits(rng.randint(1, bits))
    return rng.getrandbits(bits)


def is_nan(bits: int, kind: int) -> bool:
    if kind == F32:
        return bits & 0x7FFFFFFF > 0x7F800000
    return bits & 0x7FFFFFFFFFFFFFFF > 0x7FF0000000000000


def is_canonical(bits: int, kind: int) -> bool:
    if kind == F32:
        return bits & 0x7FFFFFFF == 0x7FC00000
    return bits & 0x7FFFFFFFFFFFFFFF == 0x7FF8000000000000


def is_arithmetic(bits: int, kind: int) -> bool:
    if kind == F32:
        return bits & 0x7FC00000 == 0x7FC00000
    return bits & 0x7FF8000000000000 == 0x7FF8000000000000


# Pure bit operations keep NaN payloads: these must match wasmtime exactly.
BIT_EXACT = {0x8B, 0x8C, 0x98, 0x99, 0x9A, 0xA6, 0xBC, 0xBD, 0xBE, 0xBF}


@pytest.fixture(scope="module", params=["cpu", "vulkan"])
def engines(request):
    if request.param == "cpu":
        target = {"device": "cpu"}
    else:
        if wasmgpu._native.select_device(False) is None:
            reason = "no usable Vulkan device (software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)"
            if gpu_required():
                pytest.fail(reason + " (WAVESTACK_REQUIRE_GPU=1)")
            pytest.skip(reason)
        target = {}
    binary = build_module()
    store = wasmtime.Store()
    instance = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), [])
    with wasmgpu.Module(binary).spawn(ROWS, **target) as instances:
        yield store, instance, instances


def to_signed(bits: int, kind: int) -> int:
    width = 32 if CARRIER[kind] == I32 else 64
    return bits - (1 << width) if bits >> (width - 1) else bits


def wasmtime_call(store, instance, name, row, params):
    function = instance.exports(store)[name]
    try:
        value = function(store, *[to_signed(v, p) for v, p in zip(row, params)])
    except wasmtime.Trap as trap:
        return None, str(trap)
    return value, None


@pytest.mark.parametrize("op", sorted(SIGNATURES), ids=lambda op: f"0x{op:x}")
def test_numeric_instruction_matches_wasmtime(engines, op):
    store, reference, instances = engines
    params, result = SIGNATURES[op]
    rng = random.Random(SEED * 1000 + op)
    rows = [[operand(rng, p) for p in params] for _ in range(ROWS)]
    name = f"op_{op:x}"
    ours = instances._call_raw(name, rows)
    width_mask = (1 << (32 if CARRIER[result] == I32 else 64)) - 1
    for row, (ok, reason, values) in zip(rows, ours):
        expected, trap = wasmtime_call(store, reference, name, row, params)
        where = f"op 0x{op:x} operands {[hex(v) for v in row]}"
        if trap is not None:
            assert not ok, f"{where}: wasmtime trapped ({trap}), we returned {values}"
            assert reason in trap, f"{where}: we trapped with {reason!r}, wasmtime with {trap!r}"
            continue
        assert ok, f"{where}: we trapped ({reason}), wasmtime returned {expected}"
        got = values[0] & width_mask
        want = expected & width_mask
        if result in (F32, F64) and op not in BIT_EXACT and is_nan(want, result):
            assert is_nan(got, result), f"{where}: wasmtime gave NaN {want:#x}, we gave {got:#x}"
            if all(is_canonical(v, p) for v, p in zip(row, params) if p in (F32, F64) and is_nan(v, p)):
                assert is_canonical(got, result), f"{where}: {got:#x} is not a canonical NaN"
            else:
                assert is_arithmetic(got, result), f"{where}: {got:#x} is not an arithmetic NaN"
            continue
        assert got == want, f"{where}: we gave {got:#x}, wasmtime {want:#x}"


def test_every_numeric_opcode_is_covered():
    assert len(SIGNATURES) == (0xC4 - 0x45 + 1) + 8
