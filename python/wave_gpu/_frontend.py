"""The kernel frontend: Python `ast` of a kernel -> WAVE IR through the C++ builder.

Names resolve like Python: locals, then parameters, then the function's globals, then
builtins, so `wave_gpu.thread_id()`, `thread_id()` and `math.sqrt` are recognised by the
object they name. Every error is a CompileError with the file, line and source line."""

from __future__ import annotations

import ast
import builtins
import math
import operator

import numpy as np

from wave_gpu import _intrinsics as I
from wave_gpu import _math as M
from wave_gpu import _native
from wave_gpu import _printing, _random
from wave_gpu import _typerules as T
from wave_gpu._errors import CompileError
from wave_gpu._types import BUFFER_DTYPES, DType, dtype_name
# Kernel-language extensions live in their own modules and build on the compiler's values
# (_values): device functions (_func), N-D and per-thread arrays and constant tuples (_language).
from wave_gpu._func import Func, FuncInliner
from wave_gpu._language import LanguageMixin, local
from wave_gpu._values import Memory, Retype, Value, constant, type_of_annotation  # noqa: F401 (re-exported)


_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "bitand", ast.BitOr: "bitor", ast.BitXor: "bitxor",
           ast.LShift: "shl", ast.RShift: "shr"}
_FOLD = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
         "mod": operator.mod, "bitand": operator.and_, "bitor": operator.or_, "bitxor": operator.xor}
_COMPARE = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
_PY_COMPARE = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
               "ge": operator.ge}

_GEOMETRY = {I.thread_id: "thread_id", I.local_id: "local_id", I.workgroup_id: "workgroup_id",
             I.workgroup_size: "workgroup_size", I.num_workgroups: "num_workgroups"}
_ATOMICS = {I.atomic_add: "atomic_add", I.atomic_sub: "atomic_sub", I.atomic_min: "atomic_min",
            I.atomic_max: "atomic_max", I.atomic_and: "atomic_and", I.atomic_or: "atomic_or",
            I.atomic_xor: "atomic_xor", I.atomic_exchange: "atomic_exchange"}
_WAVE_REDUCE = {I.wave_sum: "wave_sum", I.wave_min: "wave_min", I.wave_max: "wave_max",
                I.wave_prefix_sum: "wave_prefix_sum"}
_WAVE_VOTE = {I.wave_any: "wave_any", I.wave_all: "wave_all", I.wave_ballot: "wave_ballot"}
_WAVE_READ = {I.wave_broadcast: "wave_broadcast", I.wave_shuffle: "wave_shuffle"}
_MATH = {math.sqrt: "sqrt", math.sin: "sin", math.cos: "cos", math.tan: "tan", math.exp: "exp",
         I.exp2: "exp2", math.log: "log", math.log2: "log2", math.floor: "floor", math.ceil: "ceil"}
if hasattr(math, "exp2"):
    _MATH[math.exp2] = "exp2"
_PURE_CALLS = set(_GEOMETRY) | set(_MATH) | {I.lane_id, I.wave_width, builtins.abs, builtins.min, builtins.max,
                                             builtins.int, builtins.float, builtins.bool, builtins.len, I.fma}
_PURE_CALLS |= M.PURE  # tanh ... isfinite, math.floor/ceil/trunc (_math.py)

_UNSUPPORTED_BINARY = {ast.MatMult: "@"}




class KernelCompiler(FuncInliner, LanguageMixin):
    def __init__(self, tree: ast.FunctionDef, name: str, filename: str, first_line: int, source_lines: list[str],
                 globals_: dict, params: list[tuple[str, str, str]], type_hints: dict | None = None):
        self.tree = tree
        self.name = name
        self.filename = filename
        self.first_line = first_line
        self.source_lines = source_lines
        self.globals = globals_
        self.params = params
        self.builder = _native.Builder(name)
        self.names: dict[str, object] = {}
        self.loop_depth = 0
        self.line = first_line
        self.shared_names: set[str] = set()
        self.constants: dict = {}
        self.type_hints = dict(type_hints or {})
        self.literal_initialised: set[str] = set()
        self.init_funcs()

    # ---- errors and lines -------------------------------------------------------------

    def error(self, message: str, node=None) -> CompileError:
        line = self.absolute(node) if node is not None else self.line
        index = line - self.first_line
        source = self.source_lines[index] if 0 <= index < len(self.source_lines) else ""
        return CompileError(message, self.filename, line, source)

    def absolute(self, node) -> int:
        return self.first_line + getattr(node, "lineno", 1) - 1

    # ---- driver -------------------------------------------------------------------------

    def compile(self):
        for name, kind, type_ in self.params:
            if kind == "buffer":
                self.builder.add_buffer(name, type_)
                self.names[name] = Memory(name, type_, "buffer")
            elif kind.startswith("array"):  # 2-D and 3-D arrays (_language)
                self.declare_array(name, kind, type_)
            else:
                reg = self.builder.add_scalar(name, type_)
                # an unannotated Python float is weak like a literal (_scalars.py)
                self.names[name] = Value(reg, type_, var=True, weak=kind == "python_float")
        self.block(self.tree.body)
        try:
            return self.builder.finish()
        except _native.IrError as error:
            raise self.error(f"internal error: the generated IR is invalid: {error}") from None

    def block(self, statements) -> None:
        for statement in statements:
            self.line = self.absolute(statement)
            try:
                self.statement(statement)
            except CompileError:
                raise
            except (_native.IrError, ValueError, TypeError, OverflowError) as error:
                raise self.error(str(error), statement) from None

    # ---- registers ----------------------------------------------------------------------

    def new_reg(self, type_: str) -> int:
        return self.builder.reg(type_)

    def emit(self, op: str, type_: str, args: list[int], mem: str = "", dim: int = 0, into: Value = None) -> Value:
        if into is not None and into.type == type_:  # x += y: write the variable's register directly
            self.builder.emit(op, into.reg, args, self.line, mem, dim)
            return into
        dst = self.new_reg(type_)
        self.builder.emit(op, dst, args, self.line, mem, dim)
        return Value(dst, type_)

    def as_type(self, value: Value, type_: str) -> int:
        """A register holding value converted to type_."""
        if value.const is not None:
            converted = self.constant_as(value.const, type_)
            key = (type_, repr(converted))
            reg = self.constants.get(key)
            if reg is None:  # one register per distinct constant, set once at kernel entry
                reg = self.new_reg(type_)
                self.builder.const_at_entry(reg, converted, self.line)
                self.constants[key] = reg
            return reg
        if value.type == type_:
            return value.reg
        exact = self.reselect(value, type_)  # a float tuple read used as f64 (_language)
        if exact is not None:
            return exact
        return self.emit("cvt", type_, [value.reg]).reg

    def constant_as(self, const, type_: str):
        if type_ == "bool":
            return bool(const)
        if T.is_float(type_):
            return float(const)
        if isinstance(const, float):
            if const != int(const):
                raise self.error(f"the constant {const!r} is not an integer, as type {type_} needs")
            const = int(const)
        low, high = T.RANGES[type_]
        if not low <= int(const) <= high:
            raise self.error(f"the constant {const} does not fit in {type_}")
        return int(const)

    def truth(self, value: Value) -> Value:
        if value.const is not None:
            return constant(bool(value.const))
        if value.type == "bool":
            return value
        zero = self.as_type(constant(0), value.type)
        return self.emit("ne", "bool", [value.reg, zero])

    # ---- statements ---------------------------------------------------------------------

    def statement(self, node) -> None:
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"unsupported statement in a kernel: {type(node).__name__}", node)
        method(node)

    def stmt_Pass(self, node) -> None:
        pass

    def stmt_Expr(self, node) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        self.expr(node.value, allow_none=True)

    def stmt_Assign(self, node) -> None:
        if isinstance(node.value, ast.Call) and self.static(node.value.func) is I.shared:
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                raise self.error("assign a shared array to one plain name: tile = wave_gpu.shared(n, dtype)", node)
            self.declare_shared(node.targets[0].id, node.value)
            return
        if isinstance(node.value, ast.Call) and self.static(node.value.func) is local:
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                raise self.error("assign a local array to one plain name: acc = wave_gpu.local(n, dtype)", node)
            self.declare_local(node.targets[0].id, node.value)
            return
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple):
            target = node.targets[0]
            if not isinstance(node.value, ast.Tuple):  # a, b = f(x) or m, n = a.shape
                values = self.unpack_values(node.value, len(target.elts), node)
            elif len(node.value.elts) != len(target.elts):
                raise self.error("tuple assignment needs a tuple of as many values on the right", node)
            else:
                values = [self.copy(self.expr(element)) for element in node.value.elts]
            for element, value in zip(target.elts, values):
                self.assign(element, value)
            return
        value = self.expr(node.value, allow_memory=True)
        if len(node.targets) > 1 and isinstance(value, Value):
            value = self.copy(value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.error("annotated assignment needs a plain name", node)
        annotation = self.static(node.annotation)
        kind = type_of_annotation(annotation, self.globals) if annotation is not None else None
        if kind is None or kind[0] != "scalar":
            raise self.error("annotate a variable with a scalar type such as wave_gpu.f32", node)
        name = node.target.id
        if name in self.names:
            raise self.error(f"variable '{name}' already exists; annotate it where it is first assigned", node)
        reg = self.new_reg(kind[1])
        self.names[name] = Value(reg, kind[1], var=True)
        self.assign(node.target, self.expr(node.value) if node.value is not None else constant(0))

    def stmt_AugAssign(self, node) -> None:
        op = self.binary_op(node.op)
        if isinstance(node.target, ast.Name):
            current = self.load_name(node.target)
            if isinstance(current, Memory):
                raise self.error(f"'{node.target.id}' is an array; update its elements instead", node)
            into = current if current.var and current.const is None and node.target.id in self.names else None
            result = self.binary(op, current, self.expr(node.value), node, into=into)
            if result is not into:
                self.assign(node.target, result)
        elif isinstance(node.target, ast.Subscript):
            if self.special_augassign(node, op):
                return
            memory, index = self.subscript(node.target)
            current = self.emit("load", self.register_type(memory.element), [index], memory.name)
            result = self.binary(op, current, self.expr(node.value), node)
            self.store(memory, index, result)
        else:
            raise self.error("augmented assignment needs a name or an array element", node)

    def stmt_If(self, node) -> None:
        condition = self.truth(self.expr(node.test))
        if condition.const is not None:  # compile-time condition: keep one branch only
            self.block(node.body if condition.const else node.orelse)
            return
        self.builder.begin_if(condition.reg, self.absolute(node))
        self.block(node.body)
        if node.orelse:
            self.builder.begin_else()
            self.block(node.orelse)
        self.builder.end_if()

    def stmt_While(self, node) -> None:
        if node.orelse:
            raise self.error("while ... else is not supported in kernels", node)
        line = self.absolute(node)
        self.builder.begin_loop(line)
        condition = self.truth(self.expr(node.test))
        if condition.const is None:
            self.exit_unless(condition, line)
        elif not condition.const:
            self.builder.emit_break(line)
        self.loop_body(node.body)
        self.builder.end_loop()
        self.after_loop(node)

    def exit_unless(self, condition: Value, line: int) -> None:
        negated = self.emit("not", "bool", [condition.reg])
        self.builder.begin_if(negated.reg, line)
        self.builder.emit_break(line)
        self.builder.end_if()

    def loop_body(self, body) -> None:
        self.loop_depth += 1
        try:
            self.block(body)
        finally:
            self.loop_depth -= 1

    def stmt_For(self, node) -> None:
        if node.orelse:
            raise self.error("for ... else is not supported in kernels", node)
        if not isinstance(node.target, ast.Name):
            raise self.error("the loop variable must be a plain name", node)
        call = node.iter
        if not (isinstance(call, ast.Call) and self.static(call.func) is builtins.range) or call.keywords:
            raise self.error("kernels loop only over range(start, stop, step)", node)
        if not 1 <= len(call.args) <= 3:
            raise self.error("range() takes one to three arguments", node)
        bounds = [self.expr(argument) for argument in call.args]
        start, stop, step = (constant(0), bounds[0], constant(1)) if len(bounds) == 1 else (
            bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else constant(1))
        type_ = "i32"
        for bound in (start, stop, step):
            if bound.type not in ("bool",) + T.INTEGERS:
                raise self.error(f"range() needs integers, got {bound.type}", node)
            if not bound.weak:
                type_ = bound.type if type_ == "i32" else T.promote(type_, bound.type)
        if step.const is not None and step.const == 0:
            raise self.error("range() step must not be zero", node)
        line = self.absolute(node)
        # range() is evaluated once: the counter, the bound and the step live in hidden registers.
        counter = self.new_reg(type_)
        self.move(counter, type_, start)
        stop_reg = self.new_reg(type_)
        self.move(stop_reg, type_, stop)
        step_value = step if step.const is not None else Value(self.new_reg(type_), type_)
        if step.const is None:
            self.move(step_value.reg, type_, step)
        step_reg = self.as_type(step_value, type_)
        self.builder.begin_loop(line)
        if step.const is not None:
            condition = self.emit("lt" if step.const > 0 else "gt", "bool", [counter, stop_reg])
        else:
            zero = self.as_type(constant(0), type_)
            up = self.emit("and", "bool", [self.emit("gt", "bool", [step_reg, zero]).reg,
                                                 self.emit("lt", "bool", [counter, stop_reg]).reg])
            down = self.emit("and", "bool", [self.emit("lt", "bool", [step_reg, zero]).reg,
                                                   self.emit("gt", "bool", [counter, stop_reg]).reg])
            condition = self.emit("or", "bool", [up.reg, down.reg])
        self.exit_unless(condition, line)
        self.assign(node.target, Value(counter, type_, var=True))
        self.loop_body(node.body)
        self.builder.begin_continuing()
        self.line = line
        self.builder.emit("add", counter, [counter, step_reg], line)
        self.builder.end_loop()
        self.after_loop(node)

    def stmt_Break(self, node) -> None:
        if self.loop_depth == 0:
            raise self.error("'break' outside a loop", node)
        self.builder.emit_break(self.absolute(node))

    def stmt_Continue(self, node) -> None:
        if self.loop_depth == 0:
            raise self.error("'continue' outside a loop", node)
        self.builder.emit_continue(self.absolute(node))

    def stmt_Return(self, node) -> None:
        if self.func_return is not None:  # inside an inlined device function
            self.func_return_stmt(node)
            return
        if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            raise self.error("kernels cannot return a value; write results into a buffer", node)
        self.builder.emit_return(self.absolute(node))

    # ---- assignment ---------------------------------------------------------------------

    def move(self, dst: int, type_: str, value: Value) -> None:
        if value.const is not None:
            self.builder.const(dst, self.constant_as(value.const, type_), self.line)
        else:
            exact = self.reselect(value, type_) if value.type != type_ else None
            if exact is not None:
                self.builder.emit("mov", dst, [exact], self.line)
                return
            self.builder.emit("mov" if value.type == type_ else "cvt", dst, [value.reg], self.line)

    def copy(self, value: Value) -> Value:
        """A value that later assignments to its variable cannot change."""
        if not isinstance(value, Value) or value.const is not None or not value.var:
            return value
        reg = self.new_reg(value.type)
        self.builder.emit("mov", reg, [value.reg], self.line)
        return Value(reg, value.type)

    def assign(self, target, value) -> None:
        if isinstance(target, ast.Subscript):
            if self.special_subscript_store(target, value):
                return
            if isinstance(value, Memory):
                raise self.error("an array cannot be stored into an array element", target)
            memory, index = self.subscript(target)
            self.store(memory, index, value)
            return
        if not isinstance(target, ast.Name):
            raise self.error("assignment needs a name or an array element", target)
        name = target.id
        existing = self.names.get(name)
        if isinstance(value, _random.RandState):
            _random.assign(self, name, target, value)
            return
        if isinstance(existing, _random.RandState):
            raise self.error(f"'{name}' holds a random state; it cannot be assigned a number", target)
        if isinstance(value, Memory):
            if existing is not None and not isinstance(existing, Memory):
                raise self.error(f"'{name}' holds a number; it cannot also name an array", target)
            self.names[name] = value
            return
        if isinstance(existing, Memory):
            raise self.error(f"'{name}' names an array; it cannot be assigned a number", target)
        if existing is None:
            hinted = self.type_hints.get(self.hint_key(name))
            if hinted is not None:  # widened by an earlier compilation attempt
                existing = Value(self.new_reg(hinted), hinted, var=True)
                self.names[name] = existing
            elif value.const is None and not value.var:
                self.names[name] = Value(value.reg, value.type, var=True)  # adopt the temporary
                return
            else:
                type_ = value.type
                existing = Value(self.new_reg(type_), type_, var=True)
                self.names[name] = existing
                if value.weak:
                    self.literal_initialised.add(name)
        if not T.implicit_ok(value.type, existing.type, value.weak):
            if name in self.literal_initialised and T.implicit_ok(existing.type, value.type, False):
                # `acc = 0` then `acc += x[i]` with x float: like Python (and Numba), the
                # variable takes the wider type; the kernel is compiled again with that hint.
                raise Retype(self.hint_key(name), value.type)
            hint = " (use int(...) to truncate)" if T.is_int(existing.type) else ""
            raise self.error(f"variable '{name}' has type {existing.type}; assigning a {value.type} value would "
                             f"change it{hint}. Give it its type where it is first assigned, e.g. {name} = 0.0 "
                             f"or {name} = wave_gpu.{value.type}(...)", target)
        self.move(existing.reg, existing.type, value)

    def store(self, memory: Memory, index: int, value: Value) -> None:
        register_type = self.register_type(memory.element)  # bools store as 0 or 1
        self.builder.emit("store", None, [index, self.as_type(value, register_type)], self.line, memory.name)

    @staticmethod
    def register_type(element: str) -> str:
        return "f32" if element == "f16" else element

    def declare_shared(self, name: str, call: ast.Call) -> None:
        if name in self.names:
            raise self.error(f"'{name}' already exists; a shared array needs a new name", call)
        if len(call.args) != 2 or call.keywords:
            raise self.error("shared(n, dtype) takes a size and a dtype", call)
        size = self.expr(call.args[0])
        if size.const is None or isinstance(size.const, bool) or not isinstance(size.const, int) or size.const <= 0:
            raise self.error("the size of a shared array must be a positive integer constant", call)
        dtype = self.static(call.args[1])
        if dtype is None and isinstance(call.args[1], ast.Constant):
            dtype = call.args[1].value
        try:  # a wave_gpu type, its name or a NumPy dtype
            element = dtype_name(dtype, "shared dtype", BUFFER_DTYPES)
        except ValueError:
            raise self.error(f"unknown shared array dtype {dtype!r}; use a wave_gpu type such as wave_gpu.f32 "
                             "or a NumPy dtype such as numpy.float32", call) from None
        unique = name
        while unique in self.shared_names or unique in [p[0] for p in self.params]:
            unique += "_"
        self.shared_names.add(unique)
        self.builder.add_shared(unique, element, size.const)
        self.names[name] = Memory(unique, element, "shared")

    # ---- expressions --------------------------------------------------------------------

    def expr(self, node, allow_memory=False, allow_none=False):
        saved = self.line
        self.line = self.absolute(node) if hasattr(node, "lineno") else self.line
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"unsupported expression in a kernel: {type(node).__name__}", node)
        result = method(node)
        self.line = saved
        if result is None and not allow_none:
            raise self.error("this call has no value", node)
        if isinstance(result, Memory) and not allow_memory:
            raise self.error(f"'{result.name}' is an array; index it to get a value", node)
        if isinstance(result, _random.RandState) and not allow_memory:
            raise self.error(f"'{ast.unparse(node)}' is a random state: pass it to randf, randi or randn", node)
        return result

    def expr_Constant(self, node):
        if isinstance(node.value, (bool, int, float)):
            return constant(node.value)
        raise self.error(f"unsupported constant {node.value!r} in a kernel", node)

    def expr_Name(self, node):
        return self.load_name(node)

    def load_name(self, node):
        if node.id in self.names:
            return self.names[node.id]
        found = self.static(node)
        if found is None:
            raise self.error(f"unknown name '{node.id}'", node)
        return self.static_value(found, node)

    def static_value(self, found, node):
        if isinstance(found, (bool, int, float, np.integer, np.floating, np.bool_)):
            return constant(found)
        raise self.error(f"'{ast.unparse(node)}' is a {type(found).__name__}, not a number a kernel can use", node)

    def expr_Attribute(self, node):
        found = self.static(node)
        if found is None:
            raise self.error(f"unknown name '{ast.unparse(node)}'", node)
        return self.static_value(found, node)

    def static(self, node):
        """The Python object a name or attribute chain refers to outside the kernel, or None."""
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return None
            if node.id in self.globals:
                return self.globals[node.id]
            return getattr(builtins, node.id, None)
        if isinstance(node, ast.Attribute):
            base = self.static(node.value)
            if base is None:
                return None
            return getattr(base, node.attr, None)
        return None

    def subscript(self, node) -> tuple[Memory, int]:
        memory = self.expr(node.value, allow_memory=True)
        if not isinstance(memory, Memory):
            raise self.error(f"'{ast.unparse(node.value)}' is not an array", node)
        if isinstance(node.slice, (ast.Slice, ast.Tuple)):
            raise self.error(f"'{ast.unparse(node.value)}' has one dimension: index it with one integer", node)
        index = self.expr(node.slice)
        if index.type not in T.INTEGERS:
            raise self.error(f"array indices must be integers, got {index.type}", node)
        return memory, self.as_type(index, "i32" if index.weak else index.type)

    def expr_Subscript(self, node):
        special = self.special_subscript_load(node)
        if special is not None:
            return special
        memory, index = self.subscript(node)
        return self.emit("load", self.register_type(memory.element), [index], memory.name)

    def binary_op(self, op) -> str:
        if type(op) in _UNSUPPORTED_BINARY:
            raise self.error(f"operator {_UNSUPPORTED_BINARY[type(op)]} is not supported in kernels")
        return _BINARY[type(op)]

    def expr_BinOp(self, node):
        return self.binary(self.binary_op(node.op), self.expr(node.left), self.expr(node.right), node)

    def binary(self, op: str, a: Value, b: Value, node, into: Value = None) -> Value:
        if a.const is not None and b.const is not None and op in _FOLD and not (op in ("floordiv", "mod") and
                                                                                 b.const == 0):
            folded = _FOLD[op](a.const, b.const)
            if a.weak and b.weak:
                return constant(folded)
        if op in ("shl", "shr"):
            type_ = a.type if not a.weak else T.unify(a.type, a.weak, a.const, b.type, b.weak, b.const)
            if not T.is_int(type_):
                raise self.error(f"shifts need integers, got {a.type} and {b.type}", node)
            return self.emit(op, type_, [self.as_type(a, type_), self.as_type(b, type_)], into=into)
        type_ = T.unify(a.type, a.weak, a.const, b.type, b.weak, b.const)
        if op == "div":
            if not T.is_float(type_):
                type_ = "f32"
        elif op in ("bitand", "bitor", "bitxor"):
            if T.is_float(type_):
                raise self.error(f"bitwise operators need integers, got {a.type} and {b.type}", node)
        elif type_ == "bool":
            type_ = "i32"  # arithmetic on bools, as in Python
        if op == "pow" and T.is_int(type_) and b.const is not None and b.const < 0:
            raise self.error("an integer raised to a negative power is not an integer; use a float base", node)
        return self.emit(op, type_, [self.as_type(a, type_), self.as_type(b, type_)], into=into)

    def expr_UnaryOp(self, node):
        operand = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            truth = self.truth(operand)
            if truth.const is not None:
                return constant(not truth.const)
            return self.emit("not", "bool", [truth.reg])
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.USub):
            if operand.const is not None and operand.weak:
                return constant(-operand.const)
            type_ = "i32" if operand.type == "bool" else operand.type
            return self.emit("neg", type_, [self.as_type(operand, type_)])
        if not T.is_int(operand.type) and not (operand.weak and isinstance(operand.const, int)):
            raise self.error(f"~ needs an integer, got {operand.type}", node)
        return self.emit("bitnot", operand.type, [self.as_type(operand, operand.type)])

    def expr_Compare(self, node):
        result = None
        left = self.expr(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            if type(op) not in _COMPARE:
                raise self.error(f"comparison '{type(op).__name__}' is not supported in kernels", node)
            right = self.expr(right_node)
            name = _COMPARE[type(op)]
            if left.const is not None and right.const is not None:
                part = constant(bool(_PY_COMPARE[name](left.const, right.const)))
            else:
                type_ = T.unify(left.type, left.weak, left.const, right.type, right.weak, right.const)
                if type_ == "bool" and name not in ("eq", "ne"):
                    type_ = "i32"
                part = self.emit(name, "bool", [self.as_type(left, type_), self.as_type(right, type_)])
            result = part if result is None else self.logic("and", result, part)
            left = right
        return result

    def logic(self, op: str, a: Value, b: Value) -> Value:
        if a.const is not None and b.const is not None:
            return constant(bool(a.const and b.const) if op == "and" else bool(a.const or b.const))
        return self.emit(op, "bool", [self.as_type(a, "bool"), self.as_type(b, "bool")])

    def expr_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        if all(self.pure(value) for value in node.values[1:]):
            result = self.truth(self.expr(node.values[0]))
            for value in node.values[1:]:
                result = self.logic(op, result, self.truth(self.expr(value)))
            return result
        # Short-circuit: later operands run only where they decide the result (they may index
        # arrays that the earlier operands guard).
        first = self.truth(self.expr(node.values[0]))
        result = self.new_reg("bool")
        self.move(result, "bool", first)
        opened = 0
        for value in node.values[1:]:
            guard = Value(result, "bool") if op == "and" else self.emit("not", "bool", [result])
            self.builder.begin_if(guard.reg, self.line)
            opened += 1
            self.move(result, "bool", self.truth(self.expr(value)))
        for _ in range(opened):
            self.builder.end_if()
        return Value(result, "bool")

    def expr_IfExp(self, node):
        condition = self.truth(self.expr(node.test))
        if condition.const is not None:
            return self.expr(node.body if condition.const else node.orelse)
        if self.pure(node.body) and self.pure(node.orelse):
            a, b = self.expr(node.body), self.expr(node.orelse)
            type_ = T.unify(a.type, a.weak, a.const, b.type, b.weak, b.const)
            return self.emit("select", type_, [condition.reg, self.as_type(a, type_), self.as_type(b, type_)])
        # Only the chosen value is evaluated; the result has the type of the first value.
        self.builder.begin_if(condition.reg, self.line)
        a = self.expr(node.body)
        type_ = a.type
        result = self.new_reg(type_)
        self.move(result, type_, a)
        self.builder.begin_else()
        b = self.expr(node.orelse)
        if not T.implicit_ok(b.type, type_, b.weak):
            raise self.error(f"the values of this conditional expression have types {type_} and {b.type}", node)
        self.move(result, type_, b)
        self.builder.end_if()
        return Value(result, type_)

    def pure(self, node) -> bool:
        """Whether evaluating node can neither fault nor have an effect (so it may run in every lane)."""
        if isinstance(node, (ast.Constant, ast.Name, ast.Attribute)):
            return True
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, (ast.FloorDiv, ast.Mod, ast.Pow)):
                return False
            return self.pure(node.left) and self.pure(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.pure(node.operand)
        if isinstance(node, ast.Compare):
            return self.pure(node.left) and all(self.pure(c) for c in node.comparators)
        if isinstance(node, ast.BoolOp):
            return all(self.pure(v) for v in node.values)
        if isinstance(node, ast.IfExp):
            return self.pure(node.test) and self.pure(node.body) and self.pure(node.orelse)
        if isinstance(node, ast.Call):
            return self.static(node.func) in _PURE_CALLS and all(self.pure(a) for a in node.args)
        return False

    # ---- calls ----------------------------------------------------------------------------

    def expr_Call(self, node):
        function = self.static(node.func)
        if function is None:
            raise self.error(f"unknown function '{ast.unparse(node.func)}'", node)
        if isinstance(function, Func):  # a device function: inlined (_func)
            return self.call_func_node(node)
        if function is builtins.print:  # debugging output (_printing.py)
            return _printing.call(self, node)
        if node.keywords:
            raise self.error(f"{ast.unparse(node.func)}() takes no keyword arguments in kernels", node)
        label = ast.unparse(node.func)
        try:
            hash(function)
        except TypeError:
            raise self.error(f"'{label}' cannot be called in a kernel", node) from None
        if function in _GEOMETRY:
            return self.call_geometry(_GEOMETRY[function], node, label)
        if function is I.lane_id or function is I.wave_width:
            self.arity(node, label, 0)
            return self.emit("lane_id" if function is I.lane_id else "wave_width", "i32", [])
        if function is I.barrier:
            self.arity(node, label, 0)
            self.builder.emit_barrier(self.line)
            return None
        if function is I.shared:
            raise self.error("shared() must be assigned to a name: tile = wave_gpu.shared(n, dtype)", node)
        if function in _ATOMICS or function is I.atomic_cas:
            return self.call_atomic(function, node, label)
        if function in _WAVE_REDUCE or function in _WAVE_VOTE or function in _WAVE_READ:
            return self.call_wave(function, node, label)
        if function in M.PURE:  # tanh ... isfinite, math.floor/ceil/trunc (_math.py)
            return M.call(self, function, node, label)
        if function in _MATH:
            self.arity(node, label, 1)
            return self.float_op(_MATH[function], [self.expr(node.args[0])])
        if function is I.fma:
            self.arity(node, label, 3)
            values = [self.expr(a) for a in node.args]
            type_ = self.common(values)
            type_ = type_ if T.is_float(type_) else "f32"
            return self.emit("fma", type_, [self.as_type(v, type_) for v in values])
        if function is builtins.abs:
            self.arity(node, label, 1)
            value = self.expr(node.args[0])
            if value.const is not None and value.weak:
                return constant(abs(value.const))
            type_ = "i32" if value.type == "bool" else value.type
            return self.emit("abs", type_, [self.as_type(value, type_)])
        if function is builtins.min or function is builtins.max:
            if len(node.args) < 2:
                raise self.error(f"{label}() in kernels takes two or more numbers", node)
            values = [self.expr(a) for a in node.args]
            result = values[0]
            for value in values[1:]:
                type_ = T.unify(result.type, result.weak, result.const, value.type, value.weak, value.const)
                result = self.emit("min" if function is builtins.min else "max", type_,
                                   [self.as_type(result, type_), self.as_type(value, type_)])
            return result
        if function is builtins.pow:
            self.arity(node, label, 2)
            return self.binary("pow", self.expr(node.args[0]), self.expr(node.args[1]), node)
        if function is builtins.len:
            self.arity(node, label, 1)
            special = self.special_len(node.args[0])
            if special is not None:
                return special
            memory = self.expr(node.args[0], allow_memory=True)
            if not isinstance(memory, Memory):
                raise self.error("len() takes an array in kernels", node)
            return self.emit("length", "i32", [], memory.name)
        if function in (builtins.int, builtins.float, builtins.bool) or isinstance(function, DType):
            self.arity(node, label, 1)
            if isinstance(function, DType):
                target = "f32" if function.name == "f16" else function.name
            else:
                target = {builtins.int: "i32", builtins.float: "f32", builtins.bool: "bool"}[function]
            value = self.expr(node.args[0])
            if target == "bool":
                return self.truth(value)
            if value.const is not None:
                const = value.const
                if T.is_int(target):
                    const = int(const)
                    low, high = T.RANGES[target]
                    const = (const - low) % (high - low + 1) + low  # wraps, like the conversion
                reg = self.new_reg(target)
                self.builder.const(reg, self.constant_as(const, target), self.line)
                return Value(reg, target)
            return Value(self.as_type(value, target), target)
        if function in _random.INTRINSICS:  # rand_init, randf, randi, randn (_random.py)
            return _random.call(self, function, node, label)
        if function is builtins.range:
            raise self.error("range() can only be used in a for loop", node)
        raise self.error(self.cannot_call(function, label), node)

    def arity(self, node, label: str, count: int) -> None:
        if len(node.args) != count:
            raise self.error(f"{label}() takes {count} argument{'s' if count != 1 else ''}, got {len(node.args)}",
                             node)

    def common(self, values: list[Value]) -> str:
        result = values[0]
        type_ = result.type
        weak = result.weak
        for value in values[1:]:
            type_ = T.unify(type_, weak, None, value.type, value.weak, value.const)
            weak = weak and value.weak
        return type_

    def float_op(self, op: str, values: list[Value]) -> Value:
        type_ = self.common(values)
        if not T.is_float(type_):
            type_ = "f32"
        return self.emit(op, type_, [self.as_type(v, type_) for v in values])

    def call_geometry(self, op: str, node, label: str) -> Value:
        if len(node.args) > 1:
            raise self.error(f"{label}() takes at most one argument (the dimension 0, 1 or 2)", node)
        dim = 0
        if node.args:
            value = self.expr(node.args[0])
            if value.const not in (0, 1, 2) or isinstance(value.const, bool):
                raise self.error(f"the dimension of {label}() must be the constant 0, 1 or 2", node)
            dim = value.const
        return self.emit(op, "i32", [], dim=dim)

    def call_atomic(self, function, node, label: str) -> Value:
        name = "atomic_cas" if function is I.atomic_cas else _ATOMICS[function]
        count = 4 if name == "atomic_cas" else 3
        self.arity(node, label, count)
        memory = self.expr(node.args[0], allow_memory=True)
        if not isinstance(memory, Memory):
            raise self.error(f"the first argument of {label}() must be a buffer or a shared array", node)
        self.check_atomic_target(memory, node)
        if memory.element == "f16":
            raise self.error("f16 arrays have no atomics", node)
        if name in ("atomic_and", "atomic_or", "atomic_xor", "atomic_cas") and not T.is_int(memory.element):
            raise self.error(f"{label}() needs an integer array, '{memory.name}' holds {memory.element}", node)
        index = self.expr(node.args[1])
        if index.type not in T.INTEGERS:
            raise self.error(f"array indices must be integers, got {index.type}", node)
        index_reg = self.as_type(index, "i32" if index.weak else index.type)
        operands = [index_reg]
        for argument in node.args[2:]:
            value = self.expr(argument)
            if not T.implicit_ok(value.type, memory.element, value.weak):
                raise self.error(f"{label}() on a {memory.element} array needs {memory.element} values, "
                                 f"got {value.type}", node)
            operands.append(self.as_type(value, memory.element))
        return self.emit(name, memory.element, operands, memory.name)

    def call_wave(self, function, node, label: str) -> Value:
        if function in _WAVE_READ:
            self.arity(node, label, 2)
            value, lane = self.expr(node.args[0]), self.expr(node.args[1])
            if lane.type not in T.INTEGERS:
                raise self.error(f"the lane of {label}() must be an integer", node)
            type_ = "i32" if value.weak and T.is_int(value.type) else value.type
            return self.emit(_WAVE_READ[function], type_,
                             [self.as_type(value, type_), self.as_type(lane, "i32" if lane.weak else lane.type)])
        self.arity(node, label, 1)
        value = self.expr(node.args[0])
        if function in _WAVE_VOTE:
            truth = self.truth(value)
            result_type = "u64" if function is I.wave_ballot else "bool"
            return self.emit(_WAVE_VOTE[function], result_type, [self.as_type(truth, "bool")])
        type_ = "i32" if value.type == "bool" else value.type
        return self.emit(_WAVE_REDUCE[function], type_, [self.as_type(value, type_)])
