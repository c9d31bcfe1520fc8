"""@wave_gpu.func: device functions, callable from kernels and from other device functions.

The frontend inlines every call (GLSL has no recursion, and inlining specialises the body to
the argument types of each call site, as Warp's @wp.func and Numba's device functions do).
Semantics follow Python: arguments are evaluated once, in the caller; the function sees its
own parameters and locals and its own module's globals, never the caller's locals; arrays
are passed by reference. A function whose returns all end their paths compiles straight;
one with an early return runs inside a one-trip loop that the return breaks (a return inside
a loop of the function also sets a flag, checked after each such loop)."""

from __future__ import annotations

import ast
import collections
import functools
import hashlib
import inspect
import linecache
import textwrap
import types

import numpy as np

from wave_gpu._errors import CompileError
from wave_gpu._values import KernelObject, Memory, Retype, Value, constant, type_of_annotation
from wave_gpu import _typerules as T


class Func:
    """A device function. Called from ordinary Python it runs as plain Python.

    Made by :func:`func`; kernels and other device functions inline each call.
    """

    def __init__(self, function: types.FunctionType):
        if not isinstance(function, types.FunctionType):
            raise TypeError(f"@wave_gpu.func decorates a function, not {type(function).__name__}")
        functools.update_wrapper(self, function)
        self.function = function
        self.filename = inspect.getsourcefile(function) or "<unknown>"
        try:
            lines, first_line = inspect.getsourcelines(function)
        except (OSError, TypeError):
            raise CompileError(f"the source of device function '{function.__name__}' is not available; device "
                               "functions must be defined in a file", self.filename,
                               function.__code__.co_firstlineno) from None
        self.first_line = first_line
        self.source_lines = [line.rstrip("\n") for line in lines]
        self.source = textwrap.dedent("".join(lines))
        tree = ast.parse(self.source)
        self.tree = next(node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
        arguments = self.tree.args
        if isinstance(self.tree, ast.AsyncFunctionDef) or arguments.vararg or arguments.kwarg or \
                arguments.kwonlyargs or getattr(arguments, "posonlyargs", []):
            raise CompileError("device functions take plain parameters (defaults allowed; no *args, **kwargs or "
                               "keyword-only parameters)", self.filename, first_line, self.source_lines[0])
        self.params = [argument.arg for argument in arguments.args]
        defaults = function.__defaults__ or ()
        self.defaults = dict(zip(self.params[len(self.params) - len(defaults):], defaults))
        self.assigned = {node.id for node in ast.walk(self.tree)
                         if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))}
        self.assigned |= {node.target.id for node in ast.walk(self.tree)
                          if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)}

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<wave_gpu.func {self.__name__}>"

    def namespace(self):
        """The names the function's body resolves, for the compiler: its closure variables, then
        its globals."""
        closure = {}
        if self.function.__closure__:
            for name, cell in zip(self.function.__code__.co_freevars, self.function.__closure__):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:
                    pass
        return collections.ChainMap(closure, self.function.__globals__)


def func(function=None):
    """Decorator: the function becomes a device function, callable from kernels and from
    other device functions (inlined, typed by the arguments of each call).

    Args:
        function: a function with plain parameters (defaults allowed; no ``*args``,
            ``**kwargs`` or keyword-only parameters).

    Returns:
        A :class:`Func`.

    Raises:
        TypeError: ``function`` is not a function.
        CompileError: its source is not available or its parameters are not plain. Recursion
            and calls of undecorated functions are reported when a kernel that calls it compiles.
    """
    if function is None:
        return func
    return Func(function)


# ---- caching and error lines ----------------------------------------------------------------

def _referenced(tree, namespace) -> list:
    return [(name, namespace[name]) for name in sorted({node.id for node in ast.walk(tree)
                                                       if isinstance(node, ast.Name)}) if name in namespace]


def fingerprint(value, seen=None):
    """A cache-key text for a device function (its source and what it references) or a
    tuple of constants; None for other values."""
    if isinstance(value, tuple) and all(isinstance(v, (bool, int, float, np.generic)) for v in value):
        return repr(tuple(v.item() if isinstance(v, np.generic) else v for v in value))
    if not isinstance(value, Func):
        return None
    seen = set() if seen is None else seen
    if id(value) in seen:
        return f"func {value.__qualname__} (again)"
    seen.add(id(value))
    parts = [value.source, value.filename, str(value.first_line)]
    for name, referenced in _referenced(value.tree, value.namespace()):
        special = fingerprint(referenced, seen)
        if special is not None:
            parts.append(f"{name}={special}")
        elif isinstance(referenced, (bool, int, float, str, np.generic)):
            parts.append(f"{name}={referenced!r}")
    return "func " + hashlib.sha256("\n".join(parts).encode()).hexdigest()


def source_of_line(tree, namespace, filename: str, line: int):
    """(file, source line) of `line` in a device function reachable from a kernel, preferring
    functions in the kernel's own file; None when no reachable function covers it."""
    found, stack, seen = [], [(tree, namespace)], set()
    while stack:
        node, names = stack.pop()
        for _, value in _referenced(node, names):
            if isinstance(value, Func) and id(value) not in seen:
                seen.add(id(value))
                stack.append((value.tree, value.namespace()))
                if value.first_line <= line < value.first_line + len(value.source_lines):
                    found.append(value)
    found.sort(key=lambda f: f.filename != filename)
    if not found:
        return None
    return found[0].filename, found[0].source_lines[line - found[0].first_line] or linecache.getline(
        found[0].filename, line)


# ---- return analysis -----------------------------------------------------------------------

def _returns(statements) -> list:
    found = []
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Return):
                found.append(node)
    return found


def _tail_returns(statements) -> list:
    """The returns that end their path: the last statement of the body, or of both branches of
    an if that is itself last, recursively. Any other return is an early return."""
    if not statements:
        return []
    last = statements[-1]
    if isinstance(last, ast.Return):
        return [last]
    if isinstance(last, ast.If):
        return _tail_returns(last.body) + _tail_returns(last.orelse)
    return []


def _always_returns(statements) -> bool:
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return any(isinstance(s, ast.Return) for s in statements)  # code after a return is dead


def _has_value(node: ast.Return) -> bool:
    return node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None)


def _in_loops(statements) -> set:
    """ids of returns nested in a for or while loop."""
    inside = set()
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, (ast.For, ast.While)):
                inside |= {id(r) for r in _returns(node.body + node.orelse)}
    return inside


class _ReturnTarget:
    """Where the returns of one inlined call put their values."""

    def __init__(self, func: Func, scope: str, early: bool, flag):
        self.func = func
        self.scope = scope
        self.early = early      # the body runs inside a one-trip loop that returns break
        self.flag = flag        # bool register set by returns inside loops (or None)
        self.values = None      # Values of a single tail return (no registers needed)
        self.regs = None        # result registers, typed by the first return compiled
        self.types = None
        self.literal = None     # per value: typed from a literal (may widen, as variables do)
        self.count = None


class FuncInliner:
    """Methods of KernelCompiler that inline device functions."""

    def init_funcs(self) -> None:
        self.func_stack: list = []
        self.scope_id = None
        self.func_return = None
        self.inline_count = 0

    def hint_key(self, name: str) -> str:
        """The key of a variable in the retyping hints: variables of each inlined call are their own."""
        return name if self.scope_id is None else f"{self.scope_id}:{name}"

    def is_func_call(self, node: ast.Call) -> bool:
        return isinstance(self.static(node.func), Func)

    def cannot_call(self, function, label: str) -> str:
        """The message for a call of something a kernel cannot call."""
        if isinstance(function, KernelObject):
            return (f"'{label}' cannot be called in a kernel: it is a kernel, and kernels cannot call kernels; "
                    "make the shared code a @wave_gpu.func device function")
        if isinstance(function, types.FunctionType):
            return (f"'{label}' cannot be called in a kernel: it is a plain Python function; decorate it with "
                    "@wave_gpu.func to call it from kernels")
        return f"'{label}' cannot be called in a kernel"

    # ---- calls -----------------------------------------------------------------------------

    def call_func_node(self, node: ast.Call, want=None):
        """Inlines a call. want=None: the call's value (None for no value); want=n: a list of n values."""
        function = self.static(node.func)
        if function in self.func_stack:
            chain = self.func_stack[self.func_stack.index(function):] + [function]
            raise self.error("recursion is not supported in kernels: " + " -> ".join(f.__name__ for f in chain) +
                             " (device functions are inlined; rewrite it as a loop)", node)
        arguments = self.func_arguments(function, node)
        values = self.inline(function, arguments, node)
        label = ast.unparse(node.func)
        if want is not None:
            if len(values) != want:
                raise self.error(f"{label}() returns {len(values) or 'no'} value{'s' if len(values) != 1 else ''}, "
                                 f"not {want}", node)
            return values
        if len(values) > 1:
            raise self.error(f"{label}() returns {len(values)} values; unpack them: "
                             f"{', '.join('abcdefgh'[:len(values)])} = {label}(...)", node)
        return values[0] if values else None

    def func_arguments(self, function: Func, node: ast.Call) -> dict:
        """The argument of every parameter, evaluated once in the caller, in source order."""
        label = ast.unparse(node.func)
        bound: dict = {}
        if any(isinstance(argument, ast.Starred) for argument in node.args) or \
                any(keyword.arg is None for keyword in node.keywords):
            raise self.error(f"{label}(): *args and **kwargs are not supported in kernels", node)
        if len(node.args) > len(function.params):
            raise self.error(f"{label}() takes {len(function.params)} argument"
                             f"{'s' if len(function.params) != 1 else ''}, got {len(node.args)}", node)
        for param, argument in zip(function.params, node.args):
            bound[param] = self.expr(argument, allow_memory=True)
        for keyword in node.keywords:
            if keyword.arg not in function.params:
                raise self.error(f"{label}() has no parameter '{keyword.arg}'", node)
            if keyword.arg in bound:
                raise self.error(f"{label}() got two values for parameter '{keyword.arg}'", node)
            bound[keyword.arg] = self.expr(keyword.value, allow_memory=True)
        for param in function.params:
            if param in bound:
                continue
            if param not in function.defaults:
                raise self.error(f"{label}() is missing the argument '{param}'", node)
            default = function.defaults[param]
            if not isinstance(default, (bool, int, float, np.integer, np.floating, np.bool_)):
                raise self.error(f"{label}(): the default of '{param}' is a {type(default).__name__}; defaults must "
                                 "be numbers", node)
            bound[param] = constant(default)
        return bound

    def inline(self, function: Func, arguments: dict, node) -> list:
        annotations = function.function.__annotations__
        returns = _returns(function.tree.body)
        with_value = [r for r in returns if _has_value(r)]
        tails = {id(r) for r in _tail_returns(function.tree.body)}
        in_loops = _in_loops(function.tree.body)
        self.inline_count += 1
        scope = f"{function.__qualname__}#{self.inline_count}"
        saved = (self.names, self.globals, self.filename, self.first_line, self.source_lines, self.loop_depth,
                 self.literal_initialised, self.scope_id, self.func_return, self.line)
        self.func_stack.append(function)
        self.names, self.globals = {}, function.namespace()
        self.filename, self.first_line, self.source_lines = function.filename, function.first_line, \
            function.source_lines
        self.loop_depth, self.literal_initialised, self.scope_id = 0, set(), scope
        try:
            if with_value and len(with_value) != len(returns):
                bare = next(r for r in returns if not _has_value(r))
                raise self.error(f"{function.__name__}() returns a value on some paths and nothing here", bare)
            if with_value and not _always_returns(function.tree.body):
                raise self.error(f"{function.__name__}() returns a value on some paths only; end every path "
                                 "with a return", function.tree.body[-1])
            self.bind_parameters(function, arguments, annotations)
            early = any(id(r) not in tails for r in returns)
            flag = None
            if in_loops:
                flag = self.new_reg("bool")
                self.builder.const(flag, False, self.line)
            target = _ReturnTarget(function, scope, early, flag)
            self.func_return = target
            single_tail = len(returns) == 1 and not early and returns[0] is function.tree.body[-1]
            target.single = single_tail
            if early:
                line = self.absolute(function.tree)
                self.builder.begin_loop(line)
                self.block(function.tree.body)
                self.builder.emit_break(line)
                self.builder.end_loop()
            else:
                self.block(function.tree.body)
            if target.values is not None:
                return target.values
            if target.regs is None:
                return []
            return [Value(reg, type_) for reg, type_ in zip(target.regs, target.types)]
        finally:
            self.func_stack.pop()
            (self.names, self.globals, self.filename, self.first_line, self.source_lines, self.loop_depth,
             self.literal_initialised, self.scope_id, self.func_return, self.line) = saved

    def bind_parameters(self, function: Func, arguments: dict, annotations: dict) -> None:
        for param in function.params:
            value = arguments[param]
            annotation = annotations.get(param)
            where = f"argument '{param}' of {function.__name__}()"
            if annotation is not None:
                try:
                    declared = type_of_annotation(annotation, function.function.__globals__)
                except (TypeError, NameError, AttributeError, SyntaxError) as error:
                    raise self.error(f"parameter '{param}': {error}", function.tree) from None
                value = self.conform(value, declared, where)
            if isinstance(value, Memory) or param not in function.assigned:
                self.names[param] = value  # arrays by reference; unassigned numbers alias the argument
            else:
                self.assign(ast.Name(id=param, ctx=ast.Store(), lineno=function.tree.lineno), value)

    def conform(self, value, declared, where: str):
        """The argument converted to an annotated parameter type."""
        kind, type_ = declared
        if kind == "scalar":
            if isinstance(value, Memory):
                raise self.error(f"{where}: expected a {type_} number, got the array '{value.name}'")
            if not T.implicit_ok(value.type, type_, value.weak):
                raise self.error(f"{where}: expected {type_}, got {value.type} (convert it explicitly, e.g. "
                                 f"wave_gpu.{type_}(x))")
            if value.type == type_ and value.const is None:
                return value
            return Value(self.as_type(value, type_), type_)
        ndim = 1 if kind == "buffer" else int(kind[len("array"):])
        if not isinstance(value, Memory):
            raise self.error(f"{where}: expected a {type_} array, got a {value.type} number")
        actual = getattr(value, "ndim", 1)
        if value.element != type_ or actual != ndim:
            raise self.error(f"{where}: expected a {ndim}-D {type_} array, got a {actual}-D {value.element} array")
        return value

    # ---- returns -----------------------------------------------------------------------------

    def func_return_stmt(self, node: ast.Return) -> None:
        target = self.func_return
        values = []
        if _has_value(node):
            parts = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            values = [self.expr(part) for part in parts]
        if target.single:
            target.values = values
            return
        if target.count is None:
            target.count = len(values)
            target.types, target.literal, target.regs = [], [], []
            for position, value in enumerate(values):
                type_ = self.type_hints.get(f"{target.scope}:return{position}", value.type)
                target.types.append(type_)
                target.literal.append(value.weak)
                target.regs.append(self.new_reg(type_))
        elif len(values) != target.count:
            raise self.error(f"{target.func.__name__}() returns {target.count} value(s) elsewhere and "
                             f"{len(values)} here", node)
        for position, value in enumerate(values):
            type_ = target.types[position]
            if not T.implicit_ok(value.type, type_, value.weak):
                if target.literal[position] and T.implicit_ok(type_, value.type, False):
                    raise Retype(f"{target.scope}:return{position}", value.type)
                raise self.error(f"{target.func.__name__}() returns {type_} elsewhere and {value.type} here; "
                                 "convert one of them explicitly", node)
            self.move(target.regs[position], type_, value)
        if target.early and id(node) not in {id(r) for r in _tail_returns(target.func.tree.body)}:
            if self.loop_depth > 0:
                self.builder.const(target.flag, True, self.line)
            self.builder.emit_break(self.absolute(node))

    def after_loop(self, node) -> None:
        """After a loop of a device function: leave the enclosing loop too when a return inside it ran."""
        target = self.func_return
        if target is None or target.flag is None or not _returns(node.body):
            return
        self.builder.begin_if(target.flag, self.absolute(node))
        self.builder.emit_break(self.absolute(node))
        self.builder.end_if()
