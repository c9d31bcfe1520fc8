"""Kernel-language extensions of the frontend: 2-D and 3-D array parameters, per-thread
arrays (`wave_gpu.local`) and module-level tuples of constants.

An N-D array parameter is one flat buffer plus hidden i32 scalars (shape, strides in
elements, offset); `a[i, j]` checks every index against its own dimension (the IR's
check_index, which names the dimension in the fault) and then loads at
offset + i * stride0 + j * stride1. A per-thread array is a row of registers: a constant
index selects the register at compile time, a variable index is checked and then selects
among the registers (GLSL has private arrays, but the emulator's registers are per lane, and
this keeps both devices on one code path)."""

from __future__ import annotations

import ast

import numpy as np

from wave_gpu import _typerules as T
from wave_gpu._values import Memory, Value, constant
from wave_gpu._shaped import hidden_names, ndim_of
from wave_gpu._types import DType

LOCAL_LIMIT = 64  # elements of one per-thread array (each is a register)
LOCAL_DTYPES = ("f32", "f64", "i32", "u32", "i64", "u64")


def local(n, dtype):
    """A per-thread array of n elements of dtype, zero-initialised (inside kernels only):
    `acc = wave_gpu.local(4, wave_gpu.f32)`. n must be a constant, at most 64.

    Args:
        n: the number of elements, a constant from 1 to 64.
        dtype: f32, f64, i32, u32, i64 or u64 (a wave_gpu type or its name).

    Raises:
        RuntimeError: called outside a kernel or device function.
        CompileError: (when the kernel compiles) ``n`` is not a constant in range or ``dtype``
            is not allowed.
    """
    raise RuntimeError("wave_gpu.local() can only be called inside a @wave_gpu.kernel or @wave_gpu.func function")


class ShapedMemory(Memory):
    """A 2-D or 3-D array parameter: its buffer and the registers of its hidden scalars."""

    __slots__ = ("ndim", "shapes", "strides", "offset")

    def __init__(self, name: str, element: str, ndim: int, shapes: list, strides: list, offset: int):
        super().__init__(name, element, "buffer")
        self.ndim = ndim
        self.shapes = shapes
        self.strides = strides
        self.offset = offset


class LocalArray(Memory):
    """A per-thread array: one register per element (of the element's register type)."""

    __slots__ = ("size", "regs")

    def __init__(self, name: str, element: str, size: int, regs: list):
        super().__init__(name, element, "local")
        self.size = size
        self.regs = regs


class TupleRead(Value):
    """An element of a tuple of constants read with a variable index. Like a literal it is
    weak; used as f64 its select is made again among f64 constants, so 0.1 stays exact."""

    __slots__ = ("values", "checked")

    def __init__(self, reg: int, type_: str, weak: bool, values: tuple, checked: int):
        super().__init__(reg, type_, weak=weak)
        self.values = values
        self.checked = checked


def _is_number(value) -> bool:
    return isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_))


class LanguageMixin:
    """Methods of KernelCompiler for N-D arrays, per-thread arrays and constant tuples."""

    # ---- N-D parameters ------------------------------------------------------------------

    def declare_array(self, name: str, kind: str, element: str) -> None:
        ndim = ndim_of(kind)
        hidden = hidden_names(name, ndim)
        taken = {param[0] for param in self.params}
        for extra in hidden:
            if extra in taken:
                raise self.error(f"parameter '{extra}' clashes with a hidden parameter of the array '{name}'; "
                                 "rename it")
        self.builder.add_buffer(name, element)
        regs = [self.builder.add_scalar(extra, "i32") for extra in hidden]
        self.names[name] = ShapedMemory(name, element, ndim, regs[:ndim], regs[ndim:2 * ndim], regs[-1])

    def checked_index(self, index: Value, size_reg: int, dim: int, node) -> int:
        """An i32 register holding `index` after check_index against `size_reg` (an i32 register)."""
        if index.type not in T.INTEGERS:
            raise self.error(f"array indices must be integers, got {index.type}", node)
        type_ = "i32" if index.weak else index.type
        size = size_reg if type_ == "i32" else self.emit("cvt", type_, [size_reg]).reg
        dim_reg = self.as_type(constant(dim), type_)
        checked = self.emit("check_index", type_, [self.as_type(index, type_), size, dim_reg]).reg
        return checked if type_ == "i32" else self.emit("cvt", "i32", [checked]).reg

    def index_nodes(self, memory: Memory, node, ndim: int) -> list:
        label = ast.unparse(node.value)
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(part, ast.Slice) for part in parts):
            raise self.error("slices are not supported in kernels; index every dimension with an integer", node)
        if len(parts) != ndim:
            example = f"{label}[{', '.join('ijk'[:ndim])}]" if ndim <= 3 else ""
            raise self.error(f"'{label}' has {ndim} dimension{'s' if ndim != 1 else ''}: index it with {ndim} "
                             f"integer{'s' if ndim != 1 else ''}, as {example}", node)
        return parts

    def shaped_index(self, memory: ShapedMemory, node) -> int:
        """The flat buffer index of `a[i, j(, k)]`, every index checked against its dimension."""
        values = [self.expr(part) for part in self.index_nodes(memory, node, memory.ndim)]
        flat = memory.offset
        for dim, value in enumerate(values):
            checked = self.checked_index(value, memory.shapes[dim], dim, node)
            term = self.emit("mul", "i32", [checked, memory.strides[dim]]).reg
            flat = self.emit("add", "i32", [flat, term]).reg
        return flat

    # ---- per-thread arrays -----------------------------------------------------------------

    def declare_local(self, name: str, call: ast.Call) -> None:
        if len(call.args) != 2 or call.keywords:
            raise self.error("local(n, dtype) takes a size and a dtype", call)
        size = self.expr(call.args[0])
        if size.const is None or isinstance(size.const, bool) or not isinstance(size.const, int) or size.const <= 0:
            raise self.error("the size of a local array must be a positive integer constant", call)
        if size.const > LOCAL_LIMIT:
            raise self.error(f"a local array holds at most {LOCAL_LIMIT} elements (they live in registers), "
                             f"got {size.const}; use wave_gpu.shared() or a buffer for more", call)
        dtype = self.static(call.args[1])
        if dtype is None and isinstance(call.args[1], ast.Constant):
            dtype = call.args[1].value
        element = dtype.name if isinstance(dtype, DType) else dtype
        if element == "f16":
            raise self.error("local arrays cannot hold f16 (a storage type); use wave_gpu.f32", call)
        if element not in LOCAL_DTYPES:
            raise self.error(f"unknown local array dtype {dtype!r}; use a wave_gpu type such as wave_gpu.f32", call)
        existing = self.names.get(name)
        if existing is not None and not isinstance(existing, LocalArray):
            raise self.error(f"'{name}' already exists; a local array needs a new name", call)
        regs = []
        for _ in range(size.const):  # zero-initialised: results never depend on stale registers
            reg = self.new_reg(element)
            self.builder.const(reg, 0.0 if T.is_float(element) else 0, self.line)
            regs.append(reg)
        self.names[name] = LocalArray(name, element, size.const, regs)

    def local_position(self, array: LocalArray, node):
        """(constant position, None) or (None, checked i32 register) of `array[index]`."""
        (part,) = self.index_nodes(array, node, 1)
        index = self.expr(part)
        if index.type not in T.INTEGERS:
            raise self.error(f"array indices must be integers, got {index.type}", node)
        if index.const is not None:
            if not 0 <= index.const < array.size:
                raise self.error(f"index {index.const} out of range for dimension 0 of size {array.size} "
                                 f"(local array '{array.name}')", node)
            return int(index.const), None
        return None, self.checked_index(index, self.as_type(constant(array.size), "i32"), 0, node)

    def select_among(self, regs: list, type_: str, checked: int) -> int:
        result = regs[0]
        for position in range(1, len(regs)):
            hit = self.emit("eq", "bool", [checked, self.as_type(constant(position), "i32")]).reg
            result = self.emit("select", type_, [hit, regs[position], result]).reg
        return result

    def local_load(self, array: LocalArray, node) -> Value:
        position, checked = self.local_position(array, node)
        if position is not None:
            return Value(array.regs[position], array.element, var=True)
        return Value(self.select_among(array.regs, array.element, checked), array.element)

    def local_store(self, array: LocalArray, position, checked, value: Value) -> None:
        if isinstance(value, Memory):
            raise self.error("an array cannot be stored into an array element")
        if position is not None:
            self.move(array.regs[position], array.element, value)
            return
        source = self.as_type(value, array.element)
        for index, reg in enumerate(array.regs):
            hit = self.emit("eq", "bool", [checked, self.as_type(constant(index), "i32")]).reg
            self.builder.emit("select", reg, [hit, source, reg], self.line)

    # ---- tuples of constants -----------------------------------------------------------------

    def tuple_item(self, values: tuple, node) -> Value:
        label = ast.unparse(node.value)
        if not values or not all(_is_number(v) for v in values):
            raise self.error(f"'{label}' is a tuple; kernels index tuples of numbers only", node)
        if isinstance(node.slice, (ast.Tuple, ast.Slice)):
            raise self.error(f"index the tuple '{label}' with one integer", node)
        index = self.expr(node.slice)
        if index.type not in T.INTEGERS:
            raise self.error(f"tuple indices must be integers, got {index.type}", node)
        if index.const is not None:
            if not -len(values) <= index.const < len(values):
                raise self.error(f"index {index.const} out of range for the tuple '{label}' of length "
                                 f"{len(values)}", node)
            return constant(values[index.const])
        items = [constant(v) for v in values]
        if all(item.type == "bool" for item in items):
            type_, weak = "bool", False
        elif any(T.is_float(item.type) for item in items):
            type_, weak = "f32", True  # like a float literal: the type follows the other operand
        else:
            type_ = "i64" if any(item.type == "i64" for item in items) else "i32"
            weak = True
        regs = [self.as_type(item, type_) for item in items]
        checked = self.checked_index(index, self.as_type(constant(len(values)), "i32"), 0, node)
        return TupleRead(self.select_among(regs, type_, checked), type_, weak, values, checked)

    def reselect(self, value, type_: str):
        """For KernelCompiler.as_type and move: a float tuple read converted to f64 selects among
        f64 constants (exact), instead of widening the f32 selection; None for other values."""
        if not isinstance(value, TupleRead) or type_ != "f64" or value.type != "f32":
            return None
        regs = [self.as_type(constant(v), "f64") for v in value.values]
        return self.select_among(regs, "f64", value.checked)

    # ---- hooks called by KernelCompiler ---------------------------------------------------

    def named_memory(self, node):
        if isinstance(node, ast.Name) and node.id in self.names:
            return self.names[node.id]
        return None

    def shape_values(self, target, node) -> list:
        """The dimensions of an array as Values (a.shape)."""
        if isinstance(target, ShapedMemory):
            return [Value(reg, "i32", var=True) for reg in target.shapes]
        if isinstance(target, LocalArray):
            return [constant(target.size)]
        if isinstance(target, Memory):
            return [self.emit("length", "i32", [], target.name)]
        raise self.error(f"'{ast.unparse(node)}' is not an array; only arrays have a shape", node)

    def special_subscript_load(self, node):
        """The value of a subscript that is not a plain 1-D access (a.shape[k], a[i, j], a local
        array, a tuple of constants), or None."""
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr == "shape" and self.named_memory(base.value) is not None:
            shape = self.shape_values(self.named_memory(base.value), base.value)
            dim = self.expr(node.slice)
            if dim.const is None or isinstance(dim.const, bool) or not isinstance(dim.const, int):
                raise self.error("the dimension in a.shape[k] must be an integer constant", node)
            if not -len(shape) <= dim.const < len(shape):
                raise self.error(f"'{ast.unparse(base.value)}' has {len(shape)} dimension"
                                 f"{'s' if len(shape) != 1 else ''}; {ast.unparse(node)} does not exist", node)
            return shape[dim.const]
        target = self.named_memory(base)
        if isinstance(target, ShapedMemory):
            flat = self.shaped_index(target, node)
            return self.emit("load", self.register_type(target.element), [flat], target.name)
        if isinstance(target, LocalArray):
            return self.local_load(target, node)
        if isinstance(target, Memory) and isinstance(node.slice, ast.Tuple):
            self.index_nodes(target, node, 1)  # raises: a 1-D array indexed with several integers
        if target is None and isinstance(base, (ast.Name, ast.Attribute)):
            found = self.static(base)
            if isinstance(found, tuple):
                return self.tuple_item(found, node)
        return None

    def special_subscript_store(self, node, value) -> bool:
        """Stores `value` when `node` is an N-D or local array element; False for plain arrays."""
        target = self.named_memory(node.value)
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            raise self.error("the shape of an array cannot be assigned", node)
        if target is None and isinstance(node.value, (ast.Name, ast.Attribute)) and \
                isinstance(self.static(node.value), tuple):
            raise self.error(f"'{ast.unparse(node.value)}' is a tuple of constants; it cannot be changed", node)
        if isinstance(target, ShapedMemory):
            if isinstance(value, Memory):
                raise self.error("an array cannot be stored into an array element", node)
            self.store(target, self.shaped_index(target, node), value)
            return True
        if isinstance(target, LocalArray):
            position, checked = self.local_position(target, node)
            self.local_store(target, position, checked, value)
            return True
        if isinstance(target, Memory) and isinstance(node.slice, ast.Tuple):
            self.index_nodes(target, node, 1)
        return False

    def special_augassign(self, node, op: str) -> bool:
        """`a[i, j] += v` and `local[i] += v` (the index evaluated once)."""
        target = self.named_memory(node.target.value)
        if isinstance(target, ShapedMemory):
            flat = self.shaped_index(target, node.target)
            current = self.emit("load", self.register_type(target.element), [flat], target.name)
            self.store(target, flat, self.binary(op, current, self.expr(node.value), node))
            return True
        if isinstance(target, LocalArray):
            position, checked = self.local_position(target, node.target)
            if position is not None:
                current = Value(target.regs[position], target.element, var=True)
            else:
                current = Value(self.select_among(target.regs, target.element, checked), target.element)
            self.local_store(target, position, checked, self.binary(op, current, self.expr(node.value), node))
            return True
        base = node.target.value
        if target is None and isinstance(base, (ast.Name, ast.Attribute)) and isinstance(self.static(base), tuple):
            raise self.error(f"'{ast.unparse(base)}' is a tuple of constants; it cannot be changed", node)
        return False

    def special_len(self, argument):
        """len() of an N-D array (its first dimension), a local array or a tuple; None otherwise."""
        target = self.named_memory(argument)
        if isinstance(target, (ShapedMemory, LocalArray)):
            return self.shape_values(target, argument)[0]
        if target is None and isinstance(argument, (ast.Name, ast.Attribute)):
            found = self.static(argument)
            if isinstance(found, tuple):
                return constant(len(found))
        return None

    def check_atomic_target(self, memory, node) -> None:
        if isinstance(memory, ShapedMemory):
            raise self.error("atomics work on 1-D buffers and shared arrays, not on multi-dimensional arrays", node)
        if isinstance(memory, LocalArray):
            raise self.error("atomics work on buffers and shared arrays; a local array belongs to one thread", node)

    def unpack_values(self, value_node, count: int, node):
        """The values of `a, b = <value_node>` when it is not a tuple display: a device function
        returning several values, or `m, n = a.shape`."""
        if isinstance(value_node, ast.Attribute) and value_node.attr == "shape" and \
                self.named_memory(value_node.value) is not None:
            values = self.shape_values(self.named_memory(value_node.value), value_node.value)
        elif isinstance(value_node, ast.Call) and self.is_func_call(value_node):
            values = self.call_func_node(value_node, want=count)
        else:
            raise self.error("tuple assignment needs a tuple of as many values on the right", node)
        if len(values) != count:
            raise self.error(f"{count} names on the left but {len(values)} values on the right", node)
        return [self.copy(value) for value in values]
