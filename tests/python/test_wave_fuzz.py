"""Random structured control flow (if/elif/else, for, while, break, continue, early return)
run on the emulator and, as the independent reference, as plain Python per thread: a
kernel body is ordinary Python, so the same generated source computes the expected values."""

import importlib.util
import os
import random
import textwrap

import numpy as np
import pytest
from wave_support import DEVICES, make_rng, select_device

import wave_gpu

VARIABLES = ("a", "b", "c")


@pytest.fixture(autouse=True, params=DEVICES)
def on_device(request, monkeypatch):
    """The emulator, and Vulkan with each generated kernel also checked against the emulator."""
    yield from select_device(request, monkeypatch)


class Generator:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.loop_counter = 0

    def value(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(VARIABLES)
        if r < 0.45:
            return "x[i]"
        if r < 0.55:
            return "i"
        return str(self.rng.randint(-9, 9))

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
        if depth >= 3 or r < 0.4:
            return [f"{self.rng.choice(VARIABLES)} = {self.expression()}"]
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
            bound = self.rng.choice(["x[i] % 6", "i % 5", str(self.rng.randint(0, 4))])
            return [f"for {name} in range({bound}):"] + ["    " + s for s in self.block(depth + 1, True)]
        if r < 0.87:
            self.loop_counter += 1
            name = f"w{self.loop_counter}"
            return ([f"{name} = 0", f"while {name} < {self.rng.randint(1, 5)} + i % 3:", f"    {name} += 1"]
                    + ["    " + s for s in self.block(depth + 1, True)])
        if in_loop and self.rng.random() < 0.8:
            return [f"if {self.condition()}:", f"    {self.rng.choice(['break', 'continue'])}"]
        return [f"if {self.condition()}:", "    out[i] = -1", "    return"]


def generate(seed: int) -> str:
    generator = Generator(random.Random(seed))
    body = ["i = wave_gpu.thread_id()", "if i >= len(x):", "    return", "a = x[i] % 13", "b = i % 7", "c = 1"]
    body += generator.block(0, False)
    body += ["out[i] = (a * 31 + b * 7 + c) % 100003"]
    return "def fuzzed(x: wave_gpu.i32[:], out: wave_gpu.i32[:]):\n" + textwrap.indent("\n".join(body), "    ")


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
    for case in range(int(os.environ.get("WAVE_FUZZ_CASES", "25"))):
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
