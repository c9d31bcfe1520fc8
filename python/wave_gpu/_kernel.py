"""@wave_gpu.kernel: captures the source, compiles on first call per argument signature, keeps
the WAVE IR in memory and on disk (keyed by source, argument types, referenced globals and
the project version), checks arguments, infers the launch and runs it on the emulator or on a
Vulkan device (compiled once per device; SPIR-V and pipeline caches persist on disk)."""

from __future__ import annotations

import ast
import collections
import functools
import hashlib
import inspect
import math
import os
import threading
import textwrap
import types
from typing import Optional

import numpy as np

from wave_gpu import _arguments, _device, _gpu_dispatch, _launch, _native, _printing, _scalars
from wave_gpu._array import WaveArray
from wave_gpu._errors import CompileError, KernelError
from wave_gpu._frontend import KernelCompiler
from wave_gpu._values import KernelObject, Retype, type_of_annotation
from wave_gpu import _func  # after _frontend, which it extends
from wave_gpu._types import BUFFER_DTYPES, DType, name_of_numpy

MAX_BUFFER_LENGTH = 2**31 - 1  # len() and indices are i32
_UNLIMITED = 2**32 - 1
# On a GPU a dispatch cannot be interrupted from the host: with a timeout, each invocation may
# run timeout * this many loop iterations before it stops. No device runs one invocation's
# loop iterations faster than this, so a kernel is never stopped before its timeout.
GPU_LOOP_ITERATIONS_PER_SECOND = 1e9


@functools.lru_cache(maxsize=1)
def _frontend_fingerprint() -> str:
    """A hash of the frontend's own sources: an edited compiler never reuses cached IR."""
    digest = hashlib.sha256()
    folder = os.path.dirname(os.path.abspath(__file__))
    for name in ("_frontend.py", "_typerules.py", "_kernel.py", "_intrinsics.py", "_types.py", "_func.py",
                 "_language.py", "_shaped.py", "_arguments.py", "_math.py", "_scalars.py", "_random.py", "_printing.py"):
        with open(os.path.join(folder, name), "rb") as source:
            digest.update(source.read())
    return digest.hexdigest()


def _scalar_type(value) -> Optional[str]:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, np.generic):
        name = name_of_numpy(value.dtype)
        return None if name is None else ("f32" if name == "f16" else name)
    if isinstance(value, int):
        return "i32" if -2**31 <= value < 2**31 else "i64"
    if isinstance(value, float):
        return _scalars.PYTHON_FLOAT  # f32 or f64 as the kernel needs (_scalars.py)
    return None


class Kernel(KernelObject):
    """A Python function compiled to WAVE IR. Call it with its arguments and, optionally,
    dim= (exactly that many threads; default: the first buffer's length) or grid= and
    workgroup= (every thread of the grid), device=, threads= (1: deterministic), wave_width=
    and timeout= (seconds; TimeoutError past it). See _launch.py.

    Calling a kernel:

    Args:
        *args: the kernel's arguments: WaveArrays or C-contiguous NumPy arrays for array
            parameters (updated in place), numbers for scalars.
        dim: the number of threads (an int, or up to three ints); default: the first array's length.
        grid: workgroups per dimension (with ``workgroup=``): every thread of the grid runs.
        workgroup: threads per workgroup (1 to 3 dimensions).
        device: where this call runs: "emulator", "gpu", a device index or name.
        threads: the emulator's worker threads (1 runs deterministically); ignored on a GPU.
        wave_width: lanes per wave on the emulator (default 32, up to 64); on a GPU it must equal
            the device's subgroup size.
        timeout: seconds a launch may run.

    Raises:
        CompileError: the kernel cannot be compiled (unsupported syntax, unknown name, type error).
        KernelError: a fault while it ran (out-of-bounds access, divergent barrier, deadlock,
            integer division by zero).
        TypeError: an argument does not fit its parameter (checked before anything runs).
        ValueError: a launch or array beyond 32-bit thread ids, or an unknown device.
        TimeoutError: the launch ran longer than ``timeout``.
        RuntimeError: the device cannot run the kernel (a missing feature, a limit exceeded).
    """

    def __init__(self, function: types.FunctionType, bounds_checks: bool = True):
        if not isinstance(function, types.FunctionType):
            raise TypeError(f"@wave_gpu.kernel decorates a function, not {type(function).__name__}")
        self.function = function
        self.bounds_checks = bounds_checks
        self.__name__ = function.__name__
        self.__doc__ = function.__doc__
        self.__wrapped__ = function
        self._filename = inspect.getsourcefile(function) or "<unknown>"
        try:
            lines, first_line = inspect.getsourcelines(function)
        except (OSError, TypeError):
            raise CompileError(f"the source of kernel '{function.__name__}' is not available; kernels must be "
                               "defined in a file", self._filename, function.__code__.co_firstlineno) from None
        self._first_line = first_line
        self._source_lines = [line.rstrip("\n") for line in lines]
        self._source = textwrap.dedent("".join(lines))
        tree = ast.parse(self._source)
        self._tree = next(node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
        if isinstance(self._tree, ast.AsyncFunctionDef):
            raise self._error("kernels cannot be async functions", self._tree)
        arguments = self._tree.args
        if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.defaults or \
                getattr(arguments, "posonlyargs", []):
            raise self._error("kernel parameters must be plain positional parameters without defaults", self._tree)
        self._params = [argument.arg for argument in arguments.args]
        self._annotations = None
        self._programs: dict = {}
        self._gpu_programs: dict = {}  # (signature, device index) -> GpuProgram
        self._cpu_programs: dict = {}  # signature -> CpuProgram (the native cpu device)
        self._last_signature = None
        self.last_timings: Optional[dict] = None  # phase timings of the latest GPU call
        self._lock = threading.Lock()
        self._prints = None  # whether the kernel calls print() (_printing.py); decided at the first call
        self._print_formats: dict = {}  # signature -> the formats of its print() calls

    def _error(self, message: str, node) -> CompileError:
        line = self._first_line + node.lineno - 1
        return CompileError(message, self._filename, line, self._source_lines[node.lineno - 1])

    def __repr__(self) -> str:
        return f"<wave_gpu.kernel {self.__name__}>"

    # ---- signatures ----------------------------------------------------------------------

    def _declared(self) -> list:
        """Per parameter: ("buffer", dtype), ("scalar", type) or None (inferred from the call)."""
        if self._annotations is None:
            declared = []
            for argument in self._tree.args.args:
                annotation = self.function.__annotations__.get(argument.arg)
                try:
                    declared.append(type_of_annotation(annotation, self.function.__globals__))
                except (TypeError, NameError, AttributeError, SyntaxError) as error:
                    raise self._error(f"parameter '{argument.arg}': {error}", argument) from None
            self._annotations = declared
        return self._annotations

    def _bind(self, args: tuple):
        """The signature and native arguments of a call; TypeError before anything runs."""
        if len(args) != len(self._params):
            raise TypeError(f"{self.__name__}() takes {len(self._params)} argument"
                            f"{'s' if len(self._params) != 1 else ''} ({', '.join(self._params)}), got {len(args)}")
        signature, native, first_length = [], [], None
        flat_cache: dict = {}  # N-D arrays: one flat buffer per array object
        for name, declared, value in zip(self._params, self._declared(), args):
            if isinstance(value, (WaveArray, np.ndarray)):
                storage = value._storage if isinstance(value, WaveArray) else value
                dtype = name_of_numpy(storage.dtype)
                if dtype is None or dtype not in BUFFER_DTYPES:
                    raise TypeError(f"argument '{name}' of {self.__name__}(): arrays of {storage.dtype} are not "
                                    f"supported; use one of {', '.join(BUFFER_DTYPES)}")
                if storage.size > MAX_BUFFER_LENGTH:
                    raise ValueError(f"argument '{name}' of {self.__name__}(): the array has {storage.size} elements; "
                                     f"kernels index with 32-bit ints, so at most {MAX_BUFFER_LENGTH} (2^31 - 1) "
                                     "are supported")
                if storage.dtype.byteorder == ">":
                    raise TypeError(f"argument '{name}' of {self.__name__}(): big-endian arrays are not supported")
                if storage.ndim != 1 or (declared is not None and declared[0].startswith("array")):
                    entry, values = _arguments.bind(self.__name__, name, declared, value, storage, dtype, flat_cache)
                    signature.append(entry)
                    native.extend(values)
                    if first_length is None:
                        first_length = storage.size
                    continue
                if not storage.flags.c_contiguous:
                    raise TypeError(f"argument '{name}' of {self.__name__}(): the array must be C-contiguous")
                if not storage.flags.writeable:
                    raise TypeError(f"argument '{name}' of {self.__name__}(): the array is read-only")
                if declared is not None and declared != ("buffer", dtype):
                    expected = f"a {declared[1]} buffer" if declared[0] == "buffer" else f"a {declared[1]} scalar"
                    raise TypeError(f"argument '{name}' of {self.__name__}(): expected {expected}, "
                                    f"got an array of {dtype}")
                signature.append((name, "buffer", dtype))
                native.append(value)
                if first_length is None:
                    first_length = storage.size
                continue
            if isinstance(value, (list, tuple)):
                raise TypeError(f"argument '{name}' of {self.__name__}(): pass wave_gpu.array(...) or a NumPy "
                                f"array, not a {type(value).__name__}")
            inferred = _scalar_type(value)
            if inferred is None:
                raise TypeError(f"argument '{name}' of {self.__name__}(): expected an array or a number, "
                                f"got {type(value).__name__}")
            if declared is not None:
                if declared[0] == "buffer":
                    raise TypeError(f"argument '{name}' of {self.__name__}(): expected a {declared[1]} buffer, "
                                    f"got {type(value).__name__}")
                type_ = declared[1]
                if type_ != "bool" and not type_.startswith("f") and inferred in ("f32", "f64", "float"):
                    raise TypeError(f"argument '{name}' of {self.__name__}(): expected an integer ({type_}), "
                                    f"got {value!r}")
            else:
                type_ = inferred
            python_value = value.item() if isinstance(value, np.generic) else value
            if type_ in ("i32", "u32", "i64", "u64"):
                from wave_gpu._typerules import RANGES

                low, high = RANGES[type_]
                if not low <= int(python_value) <= high:
                    raise TypeError(f"argument '{name}' of {self.__name__}(): {value!r} does not fit in {type_}")
            signature.append((name, "scalar", type_))
            native.append(python_value)
        return tuple(signature), native, first_length

    # ---- compilation ---------------------------------------------------------------------

    def _namespace(self):
        """What names in the kernel resolve to: closure variables, then the function's globals."""
        closure = {}
        if self.function.__closure__:
            for name, cell in zip(self.function.__code__.co_freevars, self.function.__closure__):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:  # an empty cell
                    pass
        return collections.ChainMap(closure, self.function.__globals__)

    def _globals_fingerprint(self) -> str:
        """The values of the globals the kernel names, so a changed constant is a new cache entry."""
        parts = []
        namespace = self._namespace()
        for name in sorted({node.id for node in ast.walk(self._tree) if isinstance(node, ast.Name)}):
            if name in namespace:
                value = namespace[name]
                special = _func.fingerprint(value)
                if special is not None:  # device functions (their source) and tuples of constants
                    parts.append(f"{name}={special}")
                elif isinstance(value, (bool, int, float, str, np.generic, DType)):
                    parts.append(f"{name}={value!r}")
                else:
                    parts.append(f"{name}:{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
                                 f"{getattr(value, '__name__', type(value).__name__)}")
        return ";".join(parts)

    def _program(self, signature: tuple):
        with self._lock:
            program = self._programs.get(signature)
            if program is not None:
                return program
            key = _native.cache_key([_frontend_fingerprint(), self._source, self._filename, str(self._first_line),
                                     repr(signature), self._globals_fingerprint()])
            module = None
            # Kernels that print are compiled every time: their print formats are not cached.
            text = None if self._uses_print() else _native.cache_load(key)
            if text is not None:
                try:
                    module = _native.Module.parse(text)
                except ValueError:
                    module = None  # a stale or damaged entry is a miss
            if module is None:
                module = self._compile(signature)
                _native.cache_store(key, module.text)
            program = _native.Program(module)
            self._programs[signature] = program
            self._last_signature = signature
            return program

    def _compile(self, signature: tuple):
        """Frontend compilation (unannotated Python floats: see _scalars.py)."""
        return _scalars.compile_signature(signature, self._compile_params)

    def _compile_params(self, signature: tuple):
        """Frontend compilation; variables first set from a literal are widened on demand."""
        hints: dict = {}
        while True:
            compiler = KernelCompiler(self._tree, self.__name__, self._filename, self._first_line,
                                      self._source_lines, self._namespace(), list(signature), hints)
            try:
                module = compiler.compile()
                self._print_formats[signature] = getattr(compiler, "print_formats", [])
                return module
            except Retype as retype:
                if retype.name in hints and hints[retype.name] == retype.type:
                    raise
                hints[retype.name] = retype.type

    @property
    def ir(self) -> str:
        """The WAVE IR text of the latest compilation (or of the annotated signature)."""
        if self._last_signature is None:
            declared = self._declared()
            if any(d is None for d in declared):
                missing = [p for p, d in zip(self._params, declared) if d is None]
                raise TypeError(f"{self.__name__}: annotate {', '.join(missing)} or call the kernel once "
                                "before reading .ir")
            signature = tuple((p, d[0], d[1]) for p, d in zip(self._params, declared))
            self._program(signature + (_printing.HIDDEN_PARAMS if self._uses_print() else ()))
        return self._programs[self._last_signature].module.text

    # ---- launch --------------------------------------------------------------------------

    def _uses_print(self) -> bool:
        if self._prints is None:
            self._prints = _printing.uses_print(self._tree, self._namespace())
        return self._prints

    def __call__(self, *args, grid=None, workgroup=None, dim=None, device=None, threads=None, wave_width=None,
                 timeout=None):
        signature, native, first_length = self._bind(args)
        printed = None
        if self._uses_print():  # hidden buffers collect the output (_printing.py)
            signature += _printing.HIDDEN_PARAMS
            printed = _printing.hidden_arguments()
            native = native + printed
        try:
            return self._call(signature, native, first_length, grid, workgroup, dim, device, threads, wave_width,
                              timeout)
        finally:
            if printed is not None and self._print_formats.get(signature):
                _printing.flush(self._print_formats[signature], *printed)

    def _call(self, signature, native, first_length, grid, workgroup, dim, device, threads, wave_width, timeout):
        timeout = _launch.check_timeout(timeout)
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads: expected a positive int or None, got {threads!r}")
        if wave_width is not None and (isinstance(wave_width, bool) or not isinstance(wave_width, int) or
                                       wave_width not in (1, 2, 4, 8, 16, 32, 64)):
            raise ValueError(f"wave_width: must be a power of two from 1 to 64, got {wave_width!r}")
        grid_dims, workgroup_dims, limit = _launch.launch_shape(self.__name__, grid, workgroup, dim, first_length)
        where = _device.resolve(device)
        if where not in ("emulator", "cpu") and wave_width is not None and wave_width != where["subgroup_size"]:
            raise ValueError(f"wave_width: {where['name']} runs waves of {where['subgroup_size']} lanes, "
                             f"not {wave_width} (wave_width= chooses the width on the emulator only)")
        program = self._program(signature)
        if grid_dims is None:
            return None  # an empty first buffer or dim=0: nothing to run
        if where == "cpu":
            return self._launch_cpu(signature, program, native, grid_dims, workgroup_dims, limit, wave_width,
                                    threads, timeout)
        if where != "emulator":
            return self._launch_gpu(where, signature, program, native, grid_dims, workgroup_dims, limit, timeout)
        storages = [_arguments.host_storage(v) for v in native]
        for value in native:
            if isinstance(value, WaveArray):
                value._host_changed = True  # the emulator writes the host copy
        try:
            program.launch(storages, list(grid_dims), list(workgroup_dims), wave_width or 32, threads == 1,
                           limit=limit, timeout=timeout or 0.0)
        except KernelError as error:
            raise self._with_source(error) from None
        return None

    def cpu_program(self, signature=None):
        """The native cpu device's compiled program of `signature` (default: the latest
        compilation's), compiled on first use: `.source` is its C++, `.from_cache` whether the
        object came from the disk cache."""
        signature = self._last_signature if signature is None else signature
        if signature is None:
            raise TypeError(f"{self.__name__}: call the kernel once before asking for its cpu program")
        program = self._program(signature)
        with self._lock:
            cpu_program = self._cpu_programs.get(signature)
            if cpu_program is None:
                cpu_program = _native.CpuProgram(program.module, self.bounds_checks)
                self._cpu_programs[signature] = cpu_program
        return cpu_program

    def _launch_cpu(self, signature, program, native, grid_dims, workgroup_dims, limit, wave_width, threads,
                    timeout):
        cpu_program = self.cpu_program(signature)
        storages = [_arguments.host_storage(v) for v in native]
        for value in native:
            if isinstance(value, WaveArray):
                value._host_changed = True  # the cpu device writes the host copy
        try:
            cpu_program.launch(storages, list(grid_dims), list(workgroup_dims), wave_width or 32, threads == 1,
                               limit=limit, timeout=timeout or 0.0)
        except KernelError as error:
            raise self._with_source(error) from None
        return None

    def _launch_gpu(self, device: dict, signature, program, native, grid_dims, workgroup_dims, limit=None,
                    timeout=None):
        index = device["index"]
        gpu = _device.open_gpu(index)
        with self._lock:
            gpu_program = self._gpu_programs.get((signature, index))
            if gpu_program is None:
                gpu_program = _native.GpuProgram(gpu, program.module, self.bounds_checks)
                self._gpu_programs[(signature, index)] = gpu_program
        try:
            budget = _UNLIMITED if timeout is None else \
                max(1, min(_UNLIMITED, math.ceil(timeout * GPU_LOOP_ITERATIONS_PER_SECOND)))
            self.last_timings = _gpu_dispatch.run(gpu, index, gpu_program, native, grid_dims, workgroup_dims,
                                                  limit, budget, timeout)
        except KernelError as error:
            raise self._with_source(error) from None
        return None

    def glsl(self, device=None) -> str:
        """The GLSL of the latest compilation (or of the annotated signature): for `device`
        (a name or index) when given, else for a device with every optional feature."""
        self.ir  # compiles when needed
        module = self._programs[self._last_signature].module
        if device is None:
            return _native.emit_glsl(module, bounds_checks=self.bounds_checks)
        where = _device.resolve(device)
        if where in ("emulator", "cpu"):
            raise ValueError(f"device: the {where} device runs no GLSL")
        return _native.GpuProgram(_device.open_gpu(where["index"]), module, self.bounds_checks).glsl

    def _with_source(self, error: Exception) -> Exception:
        message = str(error)
        line = getattr(error, "line", None)
        marker = ", line "
        if line is None and marker in message:
            try:
                line = int(message.split(marker, 1)[1].split(":", 1)[0])
            except ValueError:
                line = None
        index = (line or 0) - self._first_line
        if 0 <= index < len(self._source_lines):
            message += f"\n  File \"{self._filename}\", line {line}\n    {self._source_lines[index].strip()}"
        elif line:  # a line of a @wave_gpu.func the kernel calls
            found = _func.source_of_line(self._tree, self._namespace(), self._filename, line)
            if found is not None:
                message += f"\n  File \"{found[0]}\", line {line}\n    {found[1].strip()}"
        return KernelError(message)


def kernel(function=None, *, bounds_checks: bool = True):
    """Decorator: the function becomes a kernel, compiled on its first call.

    `@kernel(bounds_checks=False)` drops the index checks of loads and stores in the GPU and
    native cpu code (an out-of-bounds access is then undefined behaviour there, as in CUDA);
    the emulator always checks.

    Args:
        function: the Python function (parameters annotated ``wave_gpu.f32[:]`` and the like).
        bounds_checks: whether GPU and native cpu code check every index.

    Returns:
        A :class:`Kernel`.

    Raises:
        TypeError: ``function`` is not a function, or ``bounds_checks`` is not a bool.
        CompileError: the function's source is not available (it must be defined in a file).
    """
    if not isinstance(bounds_checks, bool):
        raise TypeError(f"bounds_checks: expected a bool, got {type(bounds_checks).__name__}")
    if function is None:
        return lambda decorated: Kernel(decorated, bounds_checks=bounds_checks)
    return Kernel(function, bounds_checks=bounds_checks)
