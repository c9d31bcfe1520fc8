"""A minimal WebAssembly binary builder for tests: enough to build tiny modules from bytes
(types, imports, functions, a memory, tables, globals, exports, data, start), so tests do
not depend on a text-format assembler."""

from __future__ import annotations

import struct
from typing import List, Optional, Sequence, Tuple

I32, I64, F32, F64, FUNCREF, EXTERNREF = 0x7F, 0x7E, 0x7D, 0x7C, 0x70, 0x6F


def uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def sleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        done = (value == 0 and not byte & 0x40) or (value == -1 and byte & 0x40)
        out.append(byte | (0 if done else 0x80))
        if done:
            return bytes(out)


def name(text: str) -> bytes:
    data = text.encode()
    return uleb(len(data)) + data


def vec(items: Sequence[bytes]) -> bytes:
    return uleb(len(items)) + b"".join(items)


def i32_const(v: int) -> bytes:
    v &= 0xFFFFFFFF
    return b"\x41" + sleb(v - (1 << 32) if v >> 31 else v)


def i64_const(v: int) -> bytes:
    v &= (1 << 64) - 1
    return b"\x42" + sleb(v - (1 << 64) if v >> 63 else v)


def f32_const_bits(bits: int) -> bytes:
    return b"\x43" + struct.pack("<I", bits)


def f64_const_bits(bits: int) -> bytes:
    return b"\x44" + struct.pack("<Q", bits)


class ModuleBuilder:
    def __init__(self) -> None:
        self.types: List[Tuple[Tuple[int, ...], Tuple[int, ...]]] = []
        self.imports: List[bytes] = []
        self.imported_functions = 0
        self.functions: List[Tuple[int, bytes, bytes]] = []  # (type index, locals, body)
        self.memory: Optional[Tuple[int, Optional[int]]] = None
        self.tables: List[bytes] = []
        self.globals: List[bytes] = []
        self.exports: List[bytes] = []
        self.data: List[bytes] = []
        self.elements: List[bytes] = []
        self.start: Optional[int] = None

    def type(self, params: Sequence[int], results: Sequence[int]) -> int:
        key = (tuple(params), tuple(results))
        if key not in self.types:
            self.types.append(key)
        return self.types.index(key)

    def import_function(self, module: str, field: str, params=(), results=()) -> int:
        self.imports.append(name(module) + name(field) + b"\x00" + uleb(self.type(params, results)))
        self.imported_functions += 1
        return self.imported_functions - 1

    def function(self, params: Sequence[int], results: Sequence[int], body: bytes, locals: Sequence[int] = (),
                 export: Optional[str] = None) -> int:
        local_bytes = vec([uleb(1) + bytes([t]) for t in locals])
        self.functions.append((self.type(params, results), local_bytes, body))
        index = self.imported_functions + len(self.functions) - 1
        if export:
            self.exports.append(name(export) + b"\x00" + uleb(index))
        return index

    def set_memory(self, minimum: int, maximum: Optional[int] = None, export: Optional[str] = None) -> None:
        self.memory = (minimum, maximum)
        if export:
            self.exports.append(name(export) + b"\x02" + uleb(0))

    def table(self, minimum: int, maximum: Optional[int] = None, element: int = FUNCREF) -> int:
        limits = b"\x00" + uleb(minimum) if maximum is None else b"\x01" + uleb(minimum) + uleb(maximum)
        self.tables.append(bytes([element]) + limits)
        return len(self.tables) - 1

    def global_(self, value_type: int, init: bytes, mutable: bool = True) -> int:
        self.globals.append(bytes([value_type, 1 if mutable else 0]) + init + b"\x0b")
        return len(self.globals) - 1

    def active_data(self, offset: int, data: bytes) -> None:
        self.data.append(b"\x00" + i32_const(offset) + b"\x0b" + uleb(len(data)) + data)

    def active_elements(self, offset: int, functions: Sequence[int]) -> None:
        self.elements.append(b"\x00" + i32_const(offset) + b"\x0b" + vec([uleb(f) for f in functions]))

    def build(self) -> bytes:
        def section(section_id: int, content: bytes) -> bytes:
            return bytes([section_id]) + uleb(len(content)) + content

        out = b"\x00asm\x01\x00\x00\x00"
        out += section(1, vec([b"\x60" + vec([bytes([p]) for p in ps]) + vec([bytes([r]) for r in rs])
                               for ps, rs in self.types]))
        if self.imports:
            out += section(2, vec(self.imports))
        out += section(3, vec([uleb(t) for t, _, _ in self.functions]))
        if self.tables:
            out += section(4, vec(self.tables))
        if self.memory is not None:
            minimum, maximum = self.memory
            limits = b"\x00" + uleb(minimum) if maximum is None else b"\x01" + uleb(minimum) + uleb(maximum)
            out += section(5, vec([limits]))
        if self.globals:
            out += section(6, vec(self.globals))
        if self.exports:
            out += section(7, vec(self.exports))
        if self.start is not None:
            out += section(8, uleb(self.start))
        if self.elements:
            out += section(9, vec(self.elements))
        bodies = []
        for _, local_bytes, body in self.functions:
            code = local_bytes + body + b"\x0b"
            bodies.append(uleb(len(code)) + code)
        out += section(10, vec(bodies))
        if self.data:
            out += section(11, vec(self.data))
        return out


def large_function(terms: int, multiplier: int = 3) -> str:
    """A module in the text format with one exported function, `big`, of about 6 * terms lowered
    instructions (several compiled units): a chain of multiply-adds over a local. `multiplier`
    varies the constants, so that modules of different multipliers share no unit's text."""
    body = " ".join(f"(local.set 1 (i32.add (i32.mul (local.get 1) (i32.const {k % 7 + multiplier})) (i32.const {k})))"
                    for k in range(terms))
    return (f'(module (func (export "big") (param i32) (result i32) (local i32) (local.set 1 (local.get 0)) {body} '
            f'(local.get 1)))')
