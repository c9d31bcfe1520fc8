"""Random numbers in kernels: Philox 4x32-10, a counter-based generator (Salmon et al., SC'11).

    state = wave_gpu.rand_init(seed, offset)   # usually offset = thread_id()
    x = wave_gpu.randf(state)                  # uniform f32 in [0, 1)
    k = wave_gpu.randi(state)                  # uniform u32
    z = wave_gpu.randn(state)                  # standard normal f32 (Box-Muller)

The state is the Philox key, (seed mod 2^64) as two words (low first), and a four-word
counter (call index low, call index high, offset low, offset high) with offset mod 2^64.
Every call computes one Philox block of the counter and then advances the call index by one:
randi returns word 0 of the block, randf (word 0 >> 8) * 2^-24, randn
sqrt(-2 ln u1) * cos(2 pi u2) with u1 = ((word 0 >> 8) + 1) * 2^-24 and u2 = (word 1 >> 8) * 2^-24.

The generator is expanded into plain 32-bit integer WAVE instructions (the 32x32 -> 64-bit
products are built from 16-bit halves), so randi and randf give identical bits on every
device, with no 64-bit integer support needed; randn computes its logarithm and cosine from
exactly rounded f32 operations (see _normal), so it is identical too wherever f32 sqrt is
correctly rounded (the emulator, and GPUs with float64).
"""

from __future__ import annotations

from wave_gpu import _typerules as T

# Philox 4x32 constants: the round multipliers and the Weyl key increments.
PHILOX_M0 = 0xD2511F53
PHILOX_M1 = 0xCD9E8D57
PHILOX_W0 = 0x9E3779B9
PHILOX_W1 = 0xBB67AE85
PHILOX_ROUNDS = 10


def _outside(name: str):
    raise RuntimeError(f"wave_gpu.{name}() can only be called inside a @wave_gpu.kernel function")


def rand_init(seed, offset=0):
    """A Philox 4x32-10 state for `seed` and stream `offset` (usually the thread id).

    Args:
        seed: an integer, taken mod 2**64.
        offset: the stream, usually ``thread_id()``; taken mod 2**64.

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("rand_init")


def randf(state):
    """A uniform f32 in [0, 1); advances `state`.

    Args:
        state: a state from ``rand_init``.

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("randf")


def randi(state):
    """A uniform u32; advances `state`.

    Args:
        state: a state from ``rand_init``.

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("randi")


def randn(state):
    """A standard normal f32 (Box-Muller); advances `state`.

    Args:
        state: a state from ``rand_init``.

    Raises:
        RuntimeError: called outside a kernel.
    """
    _outside("randn")


INTRINSICS = (rand_init, randf, randi, randn)


class RandState:
    """A generator state in a kernel: six u32 registers (key 0-1, counter 0-3)."""

    __slots__ = ("key", "counter", "temporary")

    def __init__(self, key: list, counter: list, temporary: bool):
        self.key = key
        self.counter = counter
        self.temporary = temporary  # fresh registers that a name may adopt

    @property
    def registers(self) -> list:
        return self.key + self.counter


def assign(compiler, name: str, target, state: RandState) -> None:
    """`name = state`: a state is a value, so the name gets (or keeps) registers of its own."""
    existing = compiler.names.get(name)
    if existing is None:
        if state.temporary:
            state.temporary = False  # adopted: a second target needs its own copy
            compiler.names[name] = RandState(state.key, state.counter, False)
            return
        existing = RandState([compiler.new_reg("u32") for _ in range(2)], [compiler.new_reg("u32") for _ in range(4)],
                             False)
        compiler.names[name] = existing
    elif not isinstance(existing, RandState):
        raise compiler.error(f"'{name}' holds a {getattr(existing, 'type', 'array')} value; it cannot also hold a "
                             "random state", target)
    for dst, src in zip(existing.registers, state.registers):
        if dst != src:
            compiler.builder.emit("mov", dst, [src], compiler.line)


def call(compiler, function, node, label: str):
    """Compiles a call of rand_init, randf, randi or randn."""
    if function is rand_init:
        if len(node.args) not in (1, 2):
            raise compiler.error(f"{label}() takes a seed and an optional offset", node)
        words = []
        for argument in list(node.args) + ([] if len(node.args) == 2 else [None]):
            words += _words64(compiler, argument, label, node)
        zero = compiler.as_type(_constant(0), "u32")
        key = [_fresh_copy(compiler, words[0]), _fresh_copy(compiler, words[1])]
        counter = [_fresh_copy(compiler, zero), _fresh_copy(compiler, zero), _fresh_copy(compiler, words[2]),
                   _fresh_copy(compiler, words[3])]
        return RandState(key, counter, True)
    compiler.arity(node, label, 1)
    state = compiler.expr(node.args[0], allow_memory=True)
    if not isinstance(state, RandState):
        raise compiler.error(f"{label}() takes a state made by wave_gpu.rand_init(seed, offset)", node)
    block = _philox(compiler, state)
    _advance(compiler, state)
    if function is randi:
        return _copy_out(compiler, block[0], "u32")
    if function is randf:
        return _unit_float(compiler, block[0], 0)
    return _normal(compiler, block[0], block[1])


def _constant(value):
    from wave_gpu._values import constant

    return constant(value)


def _u32(compiler, value: int) -> int:
    return compiler.as_type(_constant(value), "u32")


def _fresh_copy(compiler, reg: int) -> int:
    copy = compiler.new_reg("u32")
    compiler.builder.emit("mov", copy, [reg], compiler.line)
    return copy


def _words64(compiler, argument, label: str, node) -> list:
    """The value mod 2^64 as two u32 registers (low, high); None gives (0, 0)."""
    if argument is None:
        zero = _u32(compiler, 0)
        return [zero, zero]
    value = compiler.expr(argument)
    if value.const is not None and value.weak:
        if isinstance(value.const, float) or isinstance(value.const, bool):
            raise compiler.error(f"{label}() takes integers", node)
        bits = int(value.const) % 2**64
        return [_u32(compiler, bits & 0xFFFFFFFF), _u32(compiler, bits >> 32)]
    if value.type not in T.INTEGERS and value.type != "bool":
        raise compiler.error(f"{label}() takes integers, got {value.type}", node)
    type_ = "i32" if value.type == "bool" else value.type
    reg = compiler.as_type(value, type_)
    low = compiler.emit("cvt", "u32", [reg]).reg
    if type_ == "u32":
        high = _u32(compiler, 0)
    elif type_ == "i32":  # sign extension: -1 is 2^64 - 1, as for an i64 seed
        high = compiler.emit("cvt", "u32", [compiler.emit("shr", "i32", [reg, compiler.as_type(
            _constant(31), "i32")]).reg]).reg
    else:
        high = compiler.emit("cvt", "u32", [compiler.emit("shr", type_, [reg, compiler.as_type(
            _constant(32), type_)]).reg]).reg
    return [low, high]


class _Scratch:
    """u32 registers reused by every Philox expansion of a kernel (each is straight-line code)."""

    def __init__(self, compiler):
        self.regs = [compiler.new_reg("u32") for _ in range(16)]


def _scratch(compiler) -> list:
    scratch = getattr(compiler, "_philox_scratch", None)
    if scratch is None:
        scratch = _Scratch(compiler)
        compiler._philox_scratch = scratch
    return scratch.regs


def _philox(compiler, state: RandState) -> list:
    """The four words of Philox4x32-10(counter, key), in scratch registers."""
    b = compiler.builder
    line = compiler.line
    regs = _scratch(compiler)
    x = regs[0:4]
    k = regs[4:6]
    t = regs[6:16]
    for dst, src in zip(x, state.counter):
        b.emit("mov", dst, [src], line)
    for dst, src in zip(k, state.key):
        b.emit("mov", dst, [src], line)
    low16 = _u32(compiler, 0xFFFF)
    sixteen = _u32(compiler, 16)

    def op(name, dst, a, c):
        b.emit(name, dst, [a, c], line)

    def mulhilo(a: int, multiplier: int, hi: int, lo: int) -> None:
        # hi:lo = a * multiplier from 16-bit halves (every partial product fits in 32 bits).
        m_low, m_high = _u32(compiler, multiplier & 0xFFFF), _u32(compiler, multiplier >> 16)
        a_low, a_high, ll, lh, hl, mid = t[4:10]
        op("bitand", a_low, a, low16)
        op("shr", a_high, a, sixteen)
        op("mul", ll, a_low, m_low)
        op("mul", lh, a_low, m_high)
        op("mul", hl, a_high, m_low)
        op("mul", hi, a_high, m_high)
        op("shr", mid, ll, sixteen)  # mid = (ll >> 16) + (lh & 0xFFFF) + (hl & 0xFFFF)
        op("bitand", ll, lh, low16)
        op("add", mid, mid, ll)
        op("bitand", ll, hl, low16)
        op("add", mid, mid, ll)
        op("shr", lh, lh, sixteen)  # hi = a_high * m_high + (lh >> 16) + (hl >> 16) + (mid >> 16)
        op("add", hi, hi, lh)
        op("shr", hl, hl, sixteen)
        op("add", hi, hi, hl)
        op("shr", mid, mid, sixteen)
        op("add", hi, hi, mid)
        op("mul", lo, a, _u32(compiler, multiplier))

    hi0, lo0, hi1, lo1 = t[0:4]
    weyl0, weyl1 = _u32(compiler, PHILOX_W0), _u32(compiler, PHILOX_W1)
    for round_ in range(PHILOX_ROUNDS):
        if round_ > 0:
            op("add", k[0], k[0], weyl0)
            op("add", k[1], k[1], weyl1)
        mulhilo(x[0], PHILOX_M0, hi0, lo0)
        mulhilo(x[2], PHILOX_M1, hi1, lo1)
        # (hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0)
        op("bitxor", x[0], hi1, x[1])
        op("bitxor", x[0], x[0], k[0])
        op("bitxor", x[2], hi0, x[3])
        op("bitxor", x[2], x[2], k[1])
        b.emit("mov", x[1], [lo1], line)
        b.emit("mov", x[3], [lo0], line)
    return x


def _advance(compiler, state: RandState) -> None:
    """The call index (counter words 0 and 1) plus one, with the carry."""
    b, line = compiler.builder, compiler.line
    zero, one = _u32(compiler, 0), _u32(compiler, 1)
    b.emit("add", state.counter[0], [state.counter[0], one], line)
    wrapped = compiler.emit("eq", "bool", [state.counter[0], zero])
    carry = compiler.emit("select", "u32", [wrapped.reg, one, zero])
    b.emit("add", state.counter[1], [state.counter[1], carry.reg], line)


def _copy_out(compiler, reg: int, type_: str):
    return compiler.emit("mov", type_, [reg])


def _unit_float(compiler, word: int, bias: int):
    """((word >> 8) + bias) * 2^-24 as f32: exact, so every device gives the same bits."""
    top = compiler.emit("shr", "u32", [word, _u32(compiler, 8)])
    if bias:
        top = compiler.emit("add", "u32", [top.reg, _u32(compiler, bias)])
    as_float = compiler.emit("cvt", "f32", [top.reg])
    return compiler.emit("mul", "f32", [as_float.reg, compiler.as_type(_constant(2.0**-24), "f32")])


# ---- randn: Box-Muller from exactly rounded f32 operations -----------------------------------
#
# sqrt(-2 ln u1) * cos(2 pi u2) with u1 = m * 2^-24 (m = (word0 >> 8) + 1 in 1 .. 2^24) and
# u2 = j * 2^-24 (j = word1 >> 8). The logarithm and the cosine are computed here from f32
# add, sub and mul (bit-identical on every device, unlike the devices' log and cos):
#   ln u1 = ln f + (e - 24) ln 2, with m = f * 2^e, f in [sqrt(1/2), sqrt(2)), and ln f the
#   Taylor series of ln(1 + t), t = f - 1, |t| < 0.415, to t^18 (truncation below 2e-8);
#   cos(2 pi u2) = +-cos x or +-sin x of x = (j mod 2^22) * 2^-22 * pi/2 in [0, pi/2) by the
#   quadrant j >> 22, each a Taylor polynomial (truncation below 6e-8).
# sqrt is the IR's, correctly rounded on the emulator and on devices with float64.

LOG_TERMS = 18
LN2_HIGH = 0.693145751953125  # ln 2 = LN2_HIGH + LN2_LOW; LN2_HIGH has 16 significant bits
LN2_LOW = 1.4286068203094173e-06
HALF_PI = 1.5707963267948966
SIN_TERMS = 6  # x - x^3/3! + ... - x^11/11!
COS_TERMS = 7  # 1 - x^2/2! + ... + x^12/12!


def _f32(compiler, value: float) -> int:
    return compiler.as_type(_constant(value), "f32")


def _normal(compiler, word0: int, word1: int):
    emit = compiler.emit

    def f(op, *args):
        return emit(op, "f32", list(args)).reg

    def u(op, *args):
        return emit(op, "u32", list(args)).reg

    def pick(condition, a, b, type_="f32"):
        return emit("select", type_, [condition, a, b]).reg

    # m = f * 2^e: e by binary search over the integer, 2^-e as a product of exact powers of two.
    m = u("add", u("shr", word0, _u32(compiler, 8)), _u32(compiler, 1))
    rest, exponent, scale = m, _f32(compiler, 0.0), _f32(compiler, 1.0)
    for step in (16, 8, 4, 2, 1):
        big = emit("ge", "bool", [rest, _u32(compiler, 1 << step)]).reg
        rest = pick(big, u("shr", rest, _u32(compiler, step)), rest, "u32")
        exponent = f("add", exponent, pick(big, _f32(compiler, float(step)), _f32(compiler, 0.0)))
        scale = f("mul", scale, pick(big, _f32(compiler, 2.0 ** -step), _f32(compiler, 1.0)))
    fraction = f("mul", emit("cvt", "f32", [m]).reg, scale)  # in [1, 2)
    high = emit("gt", "bool", [fraction, _f32(compiler, 1.4142135)]).reg
    fraction = pick(high, f("mul", fraction, _f32(compiler, 0.5)), fraction)
    exponent = f("add", exponent, pick(high, _f32(compiler, 1.0), _f32(compiler, 0.0)))
    t = f("sub", fraction, _f32(compiler, 1.0))
    series = _f32(compiler, (-1.0) ** (LOG_TERMS + 1) / LOG_TERMS)
    for n in range(LOG_TERMS - 1, 0, -1):
        series = f("add", f("mul", series, t), _f32(compiler, (-1.0) ** (n + 1) / n))
    log_fraction = f("mul", series, t)
    power = f("sub", exponent, _f32(compiler, 24.0))
    log_u1 = f("add", f("mul", power, _f32(compiler, LN2_HIGH)),
               f("add", f("mul", power, _f32(compiler, LN2_LOW)), log_fraction))
    radius = f("sqrt", f("mul", log_u1, _f32(compiler, -2.0)))

    j = u("shr", word1, _u32(compiler, 8))
    quadrant = u("shr", j, _u32(compiler, 22))
    within = emit("cvt", "f32", [u("bitand", j, _u32(compiler, (1 << 22) - 1))]).reg
    x = f("mul", f("mul", within, _f32(compiler, 2.0 ** -22)), _f32(compiler, HALF_PI))
    x2 = f("mul", x, x)
    sine = _f32(compiler, _taylor(SIN_TERMS - 1, odd=True))
    for k in range(SIN_TERMS - 2, -1, -1):
        sine = f("add", f("mul", sine, x2), _f32(compiler, _taylor(k, odd=True)))
    sine = f("mul", sine, x)
    cosine = _f32(compiler, _taylor(COS_TERMS - 1, odd=False))
    for k in range(COS_TERMS - 2, -1, -1):
        cosine = f("add", f("mul", cosine, x2), _f32(compiler, _taylor(k, odd=False)))
    odd_quadrant = emit("eq", "bool", [u("bitand", quadrant, _u32(compiler, 1)), _u32(compiler, 1)]).reg
    negative = emit("eq", "bool", [u("bitand", u("add", quadrant, _u32(compiler, 1)), _u32(compiler, 2)),
                                   _u32(compiler, 2)]).reg  # quadrants 1 and 2
    magnitude = pick(odd_quadrant, sine, cosine)
    signed = pick(negative, f("neg", magnitude), magnitude)
    return emit("mul", "f32", [radius, signed])


def _taylor(k: int, odd: bool) -> float:
    """The k-th coefficient of sin (odd) or cos in powers of x^2: (-1)^k / (2k + 1)! or / (2k)!."""
    import math

    return (-1.0) ** k / math.factorial(2 * k + 1 if odd else 2 * k)
