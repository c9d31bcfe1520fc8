"""Math functions of the kernel language beyond sqrt ... log2: `tanh sinh cosh asin acos atan
atan2 hypot erf erfc log10 log1p expm1 fmod copysign fabs trunc isnan isinf isfinite`, callable
as `math.X` or `wave_gpu.X` (the same objects, so the frontend recognises either).

`math.floor`, `math.ceil` and `math.trunc` return integers (i32) as in Python, so they can
index arrays; `wave_gpu.floor`, `wave_gpu.ceil` and `wave_gpu.trunc` return floats of the
operand's type, as in GLSL. On the host the wave_gpu versions return Python floats."""

from __future__ import annotations

import math as _math

import numpy as np

from wave_gpu import _typerules as T

# On the host (and to the frontend, by identity) the wave_gpu names are Python's own.
tanh = _math.tanh
sinh = _math.sinh
cosh = _math.cosh
asin = _math.asin
acos = _math.acos
atan = _math.atan
atan2 = _math.atan2
hypot = _math.hypot
erf = _math.erf
erfc = _math.erfc
log10 = _math.log10
log1p = _math.log1p
expm1 = _math.expm1
fmod = _math.fmod
copysign = _math.copysign
fabs = _math.fabs
isnan = _math.isnan
isinf = _math.isinf
isfinite = _math.isfinite


def floor(x) -> float:
    """The largest integral value not above x, as a float (GLSL's floor; math.floor gives an int)."""
    return float(np.floor(x))


def ceil(x) -> float:
    """The smallest integral value not below x, as a float (GLSL's ceil; math.ceil gives an int)."""
    return float(np.ceil(x))


def trunc(x) -> float:
    """x rounded toward zero, as a float (GLSL's trunc; math.trunc gives an int)."""
    return float(np.trunc(x))


NAMES = ["tanh", "sinh", "cosh", "asin", "acos", "atan", "atan2", "hypot", "erf", "erfc", "log10", "log1p", "expm1",
         "fmod", "copysign", "fabs", "trunc", "isnan", "isinf", "isfinite"]

# Function object -> IR opcode.
_FLOAT_UNARY = {tanh: "tanh", sinh: "sinh", cosh: "cosh", asin: "asin", acos: "acos", atan: "atan", erf: "erf",
                erfc: "erfc", log10: "log10", log1p: "log1p", expm1: "expm1", fabs: "abs", floor: "floor",
                ceil: "ceil", trunc: "trunc"}
_FLOAT_BINARY = {atan2: "atan2", hypot: "hypot", fmod: "fmod", copysign: "copysign"}
_CLASSIFY = {isnan: "isnan", isinf: "isinf", isfinite: "isfinite"}
_TO_INTEGER = {_math.floor: "floor", _math.ceil: "ceil", _math.trunc: "trunc"}

PURE = set(_FLOAT_UNARY) | set(_FLOAT_BINARY) | set(_CLASSIFY) | set(_TO_INTEGER)
"""Calls that can neither fault nor have an effect (fmod(x, 0) is NaN, as in NumPy)."""


def call(compiler, function, node, label: str):
    """The value of a call of one of these functions in a kernel, or None for other functions."""
    from wave_gpu._values import constant

    if function in _FLOAT_UNARY:
        compiler.arity(node, label, 1)
        return compiler.float_op(_FLOAT_UNARY[function], [compiler.expr(node.args[0])])
    if function in _FLOAT_BINARY:
        compiler.arity(node, label, 2)
        return compiler.float_op(_FLOAT_BINARY[function], [compiler.expr(argument) for argument in node.args])
    if function in _CLASSIFY:
        compiler.arity(node, label, 1)
        value = compiler.expr(node.args[0])
        if value.const is not None:
            return constant(bool(function(value.const)))
        if not T.is_float(value.type):
            return constant(function is isfinite)  # integers are finite, as in Python
        return compiler.emit(_CLASSIFY[function], "bool", [value.reg])
    if function in _TO_INTEGER:
        compiler.arity(node, label, 1)
        value = compiler.expr(node.args[0])
        if value.const is not None and value.weak:
            return constant(function(value.const))  # inf and NaN raise, as in Python
        if T.is_int(value.type):
            return value
        if value.type == "bool":
            return compiler.emit("cvt", "i32", [value.reg])
        rounded = compiler.emit(_TO_INTEGER[function], value.type, [value.reg])
        return compiler.emit("cvt", "i32", [rounded.reg])
    return None
