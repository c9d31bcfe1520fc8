"""print(...) in kernels, for debugging.

A kernel that prints gets two hidden buffer parameters: `__print_words` (u32) and
`__print_floats` (f32), of PRINT_BUFFER_WORDS elements each. Word 0 counts the slots
reserved so far. Each print reserves its record's slots with one atomic_add and, when the
record fits, writes it: the format id, the thread id (x, y, z) and one slot per value
(integers and bools in the words, f32 in the floats, 64-bit integers as two words, f64 as two
f32 that sum to it). After the launch the host formats the records in thread order (z, y, x,
then the order of each thread's prints) and prints them; records past the end of the buffer
are dropped with a note. The same code runs on the emulator and on GPUs, so both print the
same text. Printing is slow (an atomic per print, a buffer transfer per call)."""

from __future__ import annotations

import ast
import builtins
import sys

import numpy as np

from wave_gpu import _typerules as T

PRINT_BUFFER_WORDS = 1 << 16  # per hidden buffer; read at every call
WORDS = "__print_words"
FLOATS = "__print_floats"
HIDDEN_PARAMS = ((WORDS, "buffer", "u32"), (FLOATS, "buffer", "f32"))
_HEADER = 4  # format id, thread x, y, z


def uses_print(tree: ast.FunctionDef, namespace) -> bool:
    """Whether the kernel calls the builtin print (not a shadowing name)."""
    if namespace.get("print", builtins.print) is not builtins.print:
        return False
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
               for node in ast.walk(tree))


def hidden_arguments() -> list:
    """Fresh hidden buffers for one call."""
    return [np.zeros(PRINT_BUFFER_WORDS, dtype=np.uint32), np.zeros(PRINT_BUFFER_WORDS, dtype=np.float32)]


def _slots(type_: str) -> int:
    return 2 if type_ in ("i64", "u64", "f64") else 1


def call(compiler, node) -> None:
    """Compiles print(...): a format (literal pieces and typed values) and the record stores."""
    pieces = []  # ("text", str) or ("value", type)
    values = []
    sep, end = " ", "\n"
    for keyword in node.keywords:
        if keyword.arg not in ("sep", "end") or not (isinstance(keyword.value, ast.Constant) and
                                                     isinstance(keyword.value.value, str)):
            raise compiler.error("print() in kernels takes only sep= and end= with string literals", node)
        if keyword.arg == "sep":
            sep = keyword.value.value
        else:
            end = keyword.value.value
    for argument in node.args:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            pieces.append(("text", argument.value))
            continue
        if isinstance(argument, ast.Starred):
            raise compiler.error("print() in kernels takes numbers and string literals", node)
        value = compiler.expr(argument)
        type_ = value.type
        if value.const is not None and value.weak:
            type_ = "f32" if isinstance(value.const, float) else ("i64" if type_ == "i64" else "i32")
        if type_ not in T.INTEGERS + T.FLOATS + ("bool",):
            raise compiler.error("print() in kernels takes numbers and string literals", node)
        pieces.append(("value", type_))
        values.append((compiler.as_type(value, type_), type_))
    formats = compiler.__dict__.setdefault("print_formats", [])
    format_id = len(formats)
    formats.append((tuple(pieces), sep, end))
    _emit_record(compiler, format_id, values)


def _emit_record(compiler, format_id: int, values: list) -> None:
    from wave_gpu._values import constant

    b, line = compiler.builder, compiler.line

    def u32(value):
        return compiler.as_type(constant(value), "u32")

    def i32(value):
        return compiler.as_type(constant(value), "i32")

    size = _HEADER + sum(_slots(type_) for _, type_ in values)
    reserved = compiler.emit("atomic_add", "u32", [i32(0), u32(size)], WORDS)
    start = compiler.emit("add", "u32", [reserved.reg, u32(1)])
    stop = compiler.emit("add", "u32", [start.reg, u32(size)])
    capacity = compiler.emit("cvt", "u32", [compiler.emit("length", "i32", [], WORDS).reg])
    # start < stop also rejects a wrapped counter
    fits = compiler.emit("and", "bool", [compiler.emit("le", "bool", [stop.reg, capacity.reg]).reg,
                                         compiler.emit("lt", "bool", [start.reg, stop.reg]).reg])
    b.begin_if(fits.reg, line)
    slot = compiler.emit("cvt", "i32", [start.reg])

    def store(memory: str, offset: int, reg: int) -> None:
        index = compiler.emit("add", "i32", [slot.reg, i32(offset)])
        b.emit("store", None, [index.reg, reg], line, memory)

    store(WORDS, 0, u32(format_id))
    for axis in range(3):
        store(WORDS, 1 + axis, compiler.emit("cvt", "u32", [compiler.emit("thread_id", "i32", [], dim=axis).reg]).reg)
    offset = _HEADER
    for reg, type_ in values:
        if type_ == "f32":
            store(FLOATS, offset, reg)
        elif type_ == "f64":  # two f32 whose sum is the value to about 48 bits
            high = compiler.emit("cvt", "f32", [reg])
            rest = compiler.emit("sub", "f64", [reg, compiler.emit("cvt", "f64", [high.reg]).reg])
            store(FLOATS, offset, high.reg)
            store(FLOATS, offset + 1, compiler.emit("cvt", "f32", [rest.reg]).reg)
        elif type_ in ("i64", "u64"):
            store(WORDS, offset, compiler.emit("cvt", "u32", [reg]).reg)
            high = compiler.emit("shr", type_, [reg, compiler.as_type(constant(32), type_)])
            store(WORDS, offset + 1, compiler.emit("cvt", "u32", [high.reg]).reg)
        elif type_ == "bool":
            one, zero = u32(1), u32(0)
            store(WORDS, offset, compiler.emit("select", "u32", [reg, one, zero]).reg)
        else:
            store(WORDS, offset, compiler.emit("cvt", "u32", [reg]).reg)
        offset += _slots(type_)
    b.end_if()


def _text(type_: str, words: np.ndarray, floats: np.ndarray, at: int) -> str:
    if type_ == "f32":
        return str(np.float32(floats[at]))
    if type_ == "f64":
        return repr(float(np.float64(floats[at]) + np.float64(floats[at + 1])))
    if type_ == "bool":
        return str(bool(words[at]))
    if type_ in ("i64", "u64"):
        bits = int(words[at]) | (int(words[at + 1]) << 32)
        return str(bits - (1 << 64) if type_ == "i64" and bits >= 1 << 63 else bits)
    bits = int(words[at])
    return str(bits - (1 << 32) if type_ == "i32" and bits >= 1 << 31 else bits)


def flush(formats: list, words: np.ndarray, floats: np.ndarray, file=None) -> None:
    """Prints the records of one launch in thread order; notes dropped records."""
    file = sys.stdout if file is None else file
    reserved = int(words[0])
    capacity = len(words)
    records = []
    at = 1
    limit = min(reserved + 1, capacity)
    while at < limit:
        format_id = int(words[at])
        pieces, sep, end = formats[format_id]
        size = _HEADER + sum(_slots(kind[1]) for kind in pieces if kind[0] == "value")
        if at + size > capacity:
            break
        parts = []
        offset = at + _HEADER
        for kind, detail in pieces:
            if kind == "text":
                parts.append(detail)
            else:
                parts.append(_text(detail, words, floats, offset))
                offset += _slots(detail)
        records.append(((int(words[at + 3]), int(words[at + 2]), int(words[at + 1]), at), sep.join(parts) + end))
        at += size
    records.sort(key=lambda record: record[0])
    text = "".join(record[1] for record in records)
    if reserved + 1 > at:
        text += (f"[wave_gpu: the print buffer ({capacity} words) overflowed; {reserved + 1 - at} words of output "
                 "were dropped]\n")
    if text:
        file.write(text)
        file.flush()
