"""Random structured control flow (if/elif/else, for, while, break, continue, early return)
run on the emulator and, as the independent reference, as plain Python per thread: a
kernel body is ordinary Python, so the same generated source computes the expected values.
The second generator adds @wave_gpu.func device functions (defaults, keywords, tuple returns,
early returns, nested calls, a 2-D array by reference) and kernels over 2-D and 3-D arrays
(a[i, j], a.shape[k], len(a)); a device function called from Python runs as plain Python, so
the reference is again the same source. On Vulkan every call is also compared with the
emulator (wave_support.differential). Seeds are printed; a failure names the case's
WAVE_FUZZ_SEED, which reruns that one kernel."""

import importlib.util
import os
import random
import textwrap
import time
from dataclasses import dataclass

import numpy as np
import pytest
from wave_support import DEVICES, make_rng, select_device

import wave_gpu

VARIABLES = ("a", "b", "c")
# Generated kernels per test (and per device); each case prints nothing unless it fails.
CASES = int(os.environ.get("WAVE_FUZZ_CASES", "25"))


@pytest.fixture(autouse=True, params=DEVICES)
def on_device(request, monkeypatch):
    """The emulator, and Vulkan with each generated kernel also checked against the emulator."""
    yield from select_device(request, monkeypatch)


class Generator:
    """Statements over `variables` (assigned), reading `reads` (array reads, parameters) and
    `indices` (thread coordinates); `functions` are the device functions a body may call and
    `early_return` the lines that leave the body early."""

    def __init__(self, rng: random.Random, variables=VARIABLES, reads=("x[i]",), indices=("i",),
                 loop_bounds=("x[i] % 6", "i % 5"), early_return=("out[i] = -1", "return"), functions=(),
                 max_depth=3, max_count=4, array=None):
        self.rng = rng
        # Only functions whose array parameter this body can pass (its own 2-D array, `array`).
        functions = [f for f in functions if array is not None or "arr" not in f.required]
        self.array = array
        self.variables, self.reads, self.indices = variables, reads, indices
        self.loop_bounds, self.early_return, self.functions = loop_bounds, early_return, functions
        # Loop nesting and trip counts stay small: a call inlines its function's loops inside the
        # caller's, and lavapipe ends a wave's loops after 65,535 iterations in total.
        self.max_depth, self.max_count = max_depth, max_count
        self.loop_counter = 0

    def value(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(self.variables)
        if r < 0.45:
            return self.rng.choice(self.reads)
        if r < 0.55:
            return self.rng.choice(self.indices)
        single = [f for f in self.functions if not f.pair]
        if single and r < 0.65:
            return self.call(self.rng.choice(single))
        return str(self.rng.randint(-9, 9))

    def call(self, function) -> str:
        """A call with the required arguments positional and each default either left out,
        passed positionally (only while every earlier one was passed positionally) or by keyword."""
        arguments = [self.array if name == "arr" else self.simple() for name in function.required]
        positional = True
        for name in function.optional:
            choice = self.rng.random()
            if choice < 0.35:
                positional = False  # left out: its default
            elif choice < 0.7 and positional:
                arguments.append(self.simple())
            else:
                arguments.append(f"{name}={self.simple()}")
                positional = False
        return f"{function.name}({', '.join(arguments)})"

    def nested_call(self) -> list:
        """A call of the latest function this body can call (which may call the ones before
        it), so every module nests calls at least once."""
        if not self.functions:
            return []
        function = self.functions[-1]
        first, second = self.variables[:2]
        if function.pair:
            return [f"{first}, {second} = {self.call(function)}"]
        return [f"{first} = ({self.call(function)} + {first}) % 1009"]

    def simple(self) -> str:
        """An argument: a variable, a read or a literal (no call, so calls do not nest unboundedly)."""
        return self.rng.choice([self.rng.choice(self.variables), self.rng.choice(self.reads),
                                str(self.rng.randint(-9, 9))])

    def expression(self) -> str:
        op = self.rng.choice(["+", "-", "*", "//", "%", "&", "^", "|"])
        right = self.value()
        if op in ("//", "%"):
            right = f"({right} % 7 + 8)"  # a positive divisor
        return f"({self.value()} {op} {right}) % 1009"

    def condition(self) -> str:
        comparison = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
        text = f"{self.value()} % 5 {comparison} {self.rng.randint(-2, 4)}"
        if self.rng.random() < 0.3:
            text += f" {self.rng.choice(['and', 'or'])} {self.value()} % 3 == 1"
        return text

    def block(self, depth: int, in_loop: bool) -> list:
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            lines += self.statement(depth, in_loop)
        return lines

    def statement(self, depth: int, in_loop: bool) -> list:
        r = self.rng.random()
        pairs = [f for f in self.functions if f.pair]
        if pairs and r < 0.12:
            first, second = self.rng.sample(self.variables, 2)
            return [f"{first}, {second} = {self.call(self.rng.choice(pairs))}"]
        if depth >= self.max_depth or r < 0.4:
            return [f"{self.rng.choice(self.variables)} = {self.expression()}"]
        if r < 0.6:
            lines = [f"if {self.condition()}:"] + ["    " + s for s in self.block(depth + 1, in_loop)]
            if self.rng.random() < 0.5:
                lines += [f"elif {self.condition()}:"] + ["    " + s for s in self.block(depth + 1, in_loop)]
            if self.rng.random() < 0.5:
                lines += ["else:"] + ["    " + s for s in self.block(depth + 1, in_loop)]
            return lines
        if r < 0.75:
            self.loop_counter += 1
            name = f"j{self.loop_counter}"
            bound = self.rng.choice([*self.loop_bounds, str(self.rng.randint(0, self.max_count))])
            return [f"for {name} in range({bound}):"] + ["    " + s for s in self.block(depth + 1, True)]
        if r < 0.87:
            self.loop_counter += 1
            name = f"w{self.loop_counter}"
            limit = f"{self.rng.randint(1, self.max_count + 1)} + {self.rng.choice(self.indices)} % 3"
            return ([f"{name} = 0", f"while {name} < {limit}:", f"    {name} += 1"]
                    + ["    " + s for s in self.block(depth + 1, True)])
        if in_loop and self.rng.random() < 0.8:
            return [f"if {self.condition()}:", f"    {self.rng.choice(['break', 'continue'])}"]
        return [f"if {self.condition()}:"] + ["    " + line for line in self.early_return]


def generate(seed: int) -> str:
    generator = Generator(random.Random(seed))
    body = ["i = wave_gpu.thread_id()", "if i >= len(x):", "    return", "a = x[i] % 13", "b = i % 7", "c = 1"]
    body += generator.block(0, False)
    body += ["out[i] = (a * 31 + b * 7 + c) % 100003"]
    return "def fuzzed(x: wave_gpu.i32[:], out: wave_gpu.i32[:]):\n" + textwrap.indent("\n".join(body), "    ")


# ---- device functions (defaults, keywords, tuple returns, nested calls) over 2-D/3-D arrays ----

@dataclass
class Function:
    name: str
    pair: bool  # returns two values (`return a, b`), unpacked by the caller
    required: tuple  # "arr" is the 2-D array x, passed by reference
    optional: tuple  # parameters with numeric defaults


FUNCTION_VARIABLES = ("t", "u", "v")


def device_function(rng: random.Random, name: str, callable_before: list) -> tuple:
    """(source, Function): a @wave_gpu.func that may read the 2-D array it is given, call the
    functions defined before it and return early, always one value or always two."""
    pair = rng.random() < 0.4
    takes_array = rng.random() < 0.5
    required = (("arr",) if takes_array else ()) + ("p",)
    defaults = {"q": rng.randint(-5, 9), "r": rng.randint(-5, 9)}
    optional = tuple(list(defaults)[:rng.randint(0, 2)])
    scalars = ["p", *optional]
    reads = list(scalars)
    if takes_array:
        reads += ["arr[p % arr.shape[0], t % arr.shape[1]]", "arr.shape[1]", "len(arr)"]

    def results() -> str:
        # An expression is reduced mod 1009, so no i32 arithmetic of a caller overflows.
        count = 2 if pair else 1
        return ", ".join(generator.expression() for _ in range(count))

    generator = Generator(rng, FUNCTION_VARIABLES, tuple(reads), ("p",), ("p % 4",), (), callable_before,
                          max_depth=2, max_count=3, array="arr" if takes_array else None)
    generator.early_return = ("return " + results(),)
    parameters = list(required) + [f"{o}={defaults[o]}" for o in optional]
    body = [f"t = {scalars[-1]} % 13", "u = p % 7", "v = 1"] + generator.nested_call()
    body += generator.block(0, False) + ["return " + results()]
    source = f"@wave_gpu.func\ndef {name}({', '.join(parameters)}):\n" + textwrap.indent("\n".join(body), "    ")
    return source, Function(name, pair, required, optional)


def generate_shaped(seed: int) -> str:
    """A module of device functions and a kernel over x (2-D), y (3-D) and out (2-D, x's shape),
    one thread per element of out."""
    rng = random.Random(seed)
    sources, functions = [], []
    for number in range(rng.randint(1, 3)):
        source, function = device_function(rng, f"f{number}", list(functions))
        sources.append(source)
        functions.append(function)
    reads = ("x[i, j]", "y[i % y.shape[0], j % y.shape[1], (i + j) % y.shape[2]]", "x.shape[1]", "len(y)")
    generator = Generator(rng, VARIABLES, reads, ("i", "j"), ("x[i, j] % 6", "j % 5"),
                          ("out[i, j] = -1", "return"), functions, array="x")
    body = ["i = wave_gpu.thread_id(0)", "j = wave_gpu.thread_id(1)", "rows, cols = out.shape",
            "if i >= rows or j >= cols:", "    return", "a = x[i, j] % 13", "b = (i * cols + j) % 7", "c = 1"]
    body += generator.nested_call() + generator.block(0, False)
    body += ["out[i, j] = (a * 31 + b * 7 + c) % 100003"]
    kernel = ("@wave_gpu.kernel\ndef fuzzed(x: wave_gpu.i32[:, :], y: wave_gpu.i32[:, :, :], "
              "out: wave_gpu.i32[:, :]):\n" + textwrap.indent("\n".join(body), "    "))
    return "\n\n\n".join(sources + [kernel]) + "\n"


class HostWaveGpu:
    """Stands in for wave_gpu when the generated module runs as plain Python: decorators leave
    the functions alone and thread_id answers the thread being computed."""

    i32 = wave_gpu.i32

    def __init__(self):
        self.ids = (0, 0)

    @staticmethod
    def func(function):
        return function

    kernel = func

    def thread_id(self, dim: int = 0) -> int:
        return self.ids[dim]


def shaped_reference(source: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """out computed by the same source as Python, thread by thread (each writes only out[i, j])."""
    host = HostWaveGpu()
    namespace = {"wave_gpu": host}
    exec(source, namespace)
    out = np.zeros(x.shape, np.int64)
    x, y = x.astype(np.int64), y.astype(np.int64)  # Python's integers: the i32 values never overflow
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            host.ids = (i, j)
            namespace["fuzzed"](x, y, out)
    return out


# The emulator compiles a kernel in milliseconds, lavapipe in about 1.5 s (measured: 25 kernels
# in 0.3 s and 36 s; 10 in 106 s on the loaded shared machine), so the Vulkan run takes fewer;
# WAVE_FUZZ_CASES sets both.
SHAPED_CASES = {"emulator": 100, "cpu": 100, "vulkan": 10}


def _shaped_seeds(rng, on_device):
    """WAVE_FUZZ_SEED's one case; else WAVE_FUZZ_SECONDS of cases (a long run); else
    WAVE_FUZZ_CASES (default SHAPED_CASES) cases."""
    if os.environ.get("WAVE_FUZZ_SEED"):
        yield int(os.environ["WAVE_FUZZ_SEED"])
        return
    seconds = float(os.environ.get("WAVE_FUZZ_SECONDS", "0"))
    count = int(os.environ.get("WAVE_FUZZ_CASES", SHAPED_CASES[on_device]))
    start = time.monotonic()
    case = 0
    while (time.monotonic() - start < seconds) if seconds > 0 else case < count:
        case += 1
        yield int(rng.integers(0, 2**31))


def test_random_device_functions_on_shaped_arrays_match_python(request, tmp_path, on_device, run_log):
    """Seeds are in the run log; WAVE_FUZZ_SEED=N reruns the one case of seed N."""
    rng = make_rng(request)
    start = time.monotonic()
    seeds = []
    for case, seed in enumerate(_shaped_seeds(rng, on_device)):
        seeds.append(seed)
        shape_rng = np.random.default_rng(seed)
        rows, cols = (int(n) for n in shape_rng.integers(1, 13, 2))
        x = shape_rng.integers(-50, 50, (rows, cols)).astype(np.int32)
        y = shape_rng.integers(-50, 50, tuple(int(n) for n in shape_rng.integers(1, 5, 3))).astype(np.int32)
        source = generate_shaped(seed)
        path = tmp_path / f"shaped_{case}.py"
        path.write_text("import wave_gpu\n\n\n" + source)
        spec = importlib.util.spec_from_file_location(f"shaped_{case}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out = np.zeros((rows, cols), np.int32)
        try:
            module.fuzzed(x, y, out, dim=(rows, cols))
        except Exception as error:
            pytest.fail(f"case {case} (WAVE_FUZZ_SEED={seed}) raised {error!r}:\n{source}")
        expected = shaped_reference(source, x, y)
        if not np.array_equal(out, expected):
            where = np.argwhere(out != expected)[:10].tolist()
            pytest.fail(f"case {case} (WAVE_FUZZ_SEED={seed}) differs at (i, j) {where}:\n{source}")
    run_log(f"{len(seeds)} kernels with device functions over 2-D/3-D arrays on {on_device}: "
            f"{time.monotonic() - start:.1f} s, seeds {seeds[0]}..{seeds[-1]} (first, last), no differences")


class HostThread:
    """Stands in for wave_gpu inside the host reference run of one thread."""

    i32 = wave_gpu.i32

    def __init__(self, index: int):
        self.index = index

    def thread_id(self, dim: int = 0) -> int:
        return self.index


def test_random_control_flow_matches_python(request, tmp_path):
    rng = make_rng(request)
    x = rng.integers(-50, 50, 300).astype(np.int32)
    for case in range(CASES):
        seed = int(rng.integers(0, 2**31))
        source = generate(seed)
        path = tmp_path / f"fuzz_{case}.py"
        path.write_text("import wave_gpu\n\n\n@wave_gpu.kernel\n" + source + "\n")
        spec = importlib.util.spec_from_file_location(f"fuzz_{case}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out = np.zeros(x.size, np.int32)
        module.fuzzed(x, out, grid=(5, 1, 1), workgroup=(64, 1, 1))
        expected = np.zeros(x.size, np.int64)
        for i in range(x.size):
            namespace = {"wave_gpu": HostThread(i)}
            exec(source, namespace)  # the same function as plain Python
            result = np.zeros(x.size, np.int64)
            namespace["fuzzed"](x.astype(np.int64), result)
            expected[i] = result[i]
        if not np.array_equal(out, expected):
            pytest.fail(f"case {case} (seed {seed}) differs at threads "
                        f"{np.nonzero(out != expected)[0][:10].tolist()}:\n{source}")
