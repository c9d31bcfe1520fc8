"""Type rules of the kernel language.

Literals are "weak": an int literal takes the integer type of the other operand, a float
literal the float type, as in Warp and Taichi; on their own they are i32 and f32. Mixed
strong types promote like C: bool < i32 < u32 < i64 < u64 < f32 < f64."""

from __future__ import annotations

ORDER = ["bool", "i32", "u32", "i64", "u64", "f32", "f64"]
INTEGERS = ("i32", "u32", "i64", "u64")
FLOATS = ("f32", "f64")
RANGES = {"i32": (-2**31, 2**31 - 1), "u32": (0, 2**32 - 1), "i64": (-2**63, 2**63 - 1), "u64": (0, 2**64 - 1)}


def is_int(t: str) -> bool:
    return t in INTEGERS


def is_float(t: str) -> bool:
    return t in FLOATS


def literal_type(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "i32" if RANGES["i32"][0] <= value <= RANGES["i32"][1] else "i64"
    return "f32"


def promote(a: str, b: str) -> str:
    return a if ORDER.index(a) >= ORDER.index(b) else b


def unify(a_type: str, a_weak: bool, a_value, b_type: str, b_weak: bool, b_value) -> str:
    """The common type of two operands."""
    if a_weak and b_weak:
        return promote(a_type, b_type)
    if a_weak:
        return _weak_with(a_type, b_type)
    if b_weak:
        return _weak_with(b_type, a_type)
    return promote(a_type, b_type)


def _weak_with(weak: str, strong: str) -> str:
    if is_float(weak) and not is_float(strong):
        return "f32"  # 0.5 * i is a float, as in Python
    if strong == "bool":
        return weak
    return strong


def implicit_ok(source: str, target: str, weak: bool) -> bool:
    """Whether assigning a value of `source` to a variable of `target` converts silently."""
    if source == target:
        return True
    if target == "bool":
        return False
    if weak:
        return not (is_float(source) and is_int(target))
    if is_float(target):
        return True  # int -> float and f32 -> f64 (or back, as Python floats have one type)
    return is_int(source) or source == "bool"  # int <-> int wraps; float -> int needs int()
