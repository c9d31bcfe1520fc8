"""Unannotated Python float arguments.

A Python float is a double. Passed unannotated, it is a "weak" scalar like a float literal
(`x[i] * s` with an f32 `x` computes in f32), and it keeps its full precision wherever the
kernel computes in f64: the kernel is compiled with the parameter as f32 and, when the
resulting IR uses f64 anywhere, compiled again with the parameter as a weak f64 (so a kernel
without f64 never needs a device with float64). With an f64 argument in the signature the
first compilation is skipped: the IR uses f64 then."""

from __future__ import annotations

import re

PYTHON_FLOAT = "float"
"""The signature type of an unannotated Python float argument."""

PARAM_KIND = "python_float"
"""The parameter kind the frontend receives for one: a weak scalar of the given float type."""

_F64_DECLARATION = re.compile(r"^(?:registers\b.*\bf64\b|(?:buffer|scalar|shared) \w+: f64\b)", re.MULTILINE)


def uses_f64(ir_text: str) -> bool:
    """Whether a kernel's IR has an f64 register, buffer, scalar or shared array."""
    return _F64_DECLARATION.search(ir_text) is not None


def compile_signature(signature: tuple, compile_):
    """compile_(params) for `signature`, Python floats as weak f32, or as weak f64 when the
    kernel uses f64 anyway."""
    if not any(kind == "scalar" and type_ == PYTHON_FLOAT for _, kind, type_ in signature):
        return compile_(signature)

    def with_floats_as(float_type: str) -> tuple:
        return tuple((name, PARAM_KIND, float_type) if kind == "scalar" and type_ == PYTHON_FLOAT else
                     (name, kind, type_) for name, kind, type_ in signature)

    if any(type_ == "f64" for _, _, type_ in signature):  # an f64 argument: the IR uses f64
        return compile_(with_floats_as("f64"))
    module = compile_(with_floats_as("f32"))
    if not uses_f64(module.text):
        return module
    return compile_(with_floats_as("f64"))  # f64 from casts or shared arrays only
