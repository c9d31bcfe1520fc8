#!/usr/bin/env python3
"""What the Vulkan shaders wave_gpu generates spend per element and per FMA: a deterministic
count of SPIR-V instructions (not a timing).

Kernels: the vector add of bench/wave_kernels.py (1-D, f32) and the tiled SGEMM of
bench/wave_gpu_vulkan.py (--micro 8 --depth 8, its default), each emitted with the default
bounds checks and with bounds_checks=False. Method, per kernel:

1. The GLSL the backend emits for the Vulkan device in use (lavapipe under
   WAVESTACK_ALLOW_SOFTWARE_GPU=1; without a device, the feature-complete target of
   `Kernel.glsl()`, which lacks lavapipe's loop counting), compiled by the backend's glslang,
   for the benchmarks' launches: n threads over arrays of n elements (where the shader has a
   copy for launches whose thread ids lie inside the buffers, specialisation constant 3 picks
   it), SGEMM on 16 x 16 workgroups.
2. `spirv-opt` freezes the specialisation constants at the launch's values and runs -O, as a
   stand-in for the front end of a driver's compiler (glslang's own SPIR-V keeps every GLSL
   local in memory).
3. The hot path: the blocks of `main` an in-range invocation runs. A branch target from which
   the selection's merge is reached only through a block that faults (in glslang's SPIR-V:
   calls wave_fault or wave_index_fault, publishes to the status buffer, or returns early) is
   cold; everything else counts, both sides of ordinary branches included.
4. Each block counts once per execution of the loops around it: per element, vector add's
   whole invocation (one element per thread); per FMA, one iteration of SGEMM's k loop (the
   loop holding the FMAs) with its inner loops at their trip counts, divided by the FMAs of
   that iteration (depth x micro^2).

Figures: SPIR-V instructions (labels, merge declarations and phis excluded; access chains and
bitcasts included), conditional branches, selects, storage-buffer loads and stores,
shared-memory loads and stores, push-constant loads, integer operations (comparisons, min/max
and conversions included, bitcasts not) and those of them an access chain's index depends on
(the index arithmetic). "Spent on checks" is the checked figure minus the unchecked one.

    python bench/wave_gpu_shader_costs.py [--show-glsl vector_add|sgemm] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

import wave_gpu
from wave_gpu import _native

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wave_gpu_vulkan  # noqa: E402 - bench/ on the path first
from wave_kernels import vector_add  # noqa: E402

MICRO, DEPTH = 8, 8
VECTOR_WORKGROUP = (256, 1, 1)  # wave_gpu's default 1-D workgroup
SGEMM_WORKGROUP = (wave_gpu_vulkan.THREADS, wave_gpu_vulkan.THREADS, 1)

INTEGER_OPS = {
    "OpIAdd", "OpISub", "OpIMul", "OpSNegate", "OpUDiv", "OpSDiv", "OpUMod", "OpSRem", "OpSMod",
    "OpShiftLeftLogical", "OpShiftRightLogical", "OpShiftRightArithmetic", "OpBitwiseAnd", "OpBitwiseOr",
    "OpBitwiseXor", "OpNot", "OpSConvert", "OpUConvert", "OpIEqual", "OpINotEqual",
    "OpULessThan", "OpSLessThan", "OpULessThanEqual", "OpSLessThanEqual", "OpUGreaterThan", "OpSGreaterThan",
    "OpUGreaterThanEqual", "OpSGreaterThanEqual",
}
INTEGER_EXT = {"SMin", "UMin", "SMax", "UMax", "SClamp", "UClamp", "SAbs"}
# Declarations and SSA bookkeeping, not operations.
NOT_COUNTED = {"OpLabel", "OpSelectionMerge", "OpLoopMerge", "OpLine", "OpNoLine", "OpVariable", "OpPhi"}
FAULT_CALLS = ("wave_fault", "wave_index_fault")


class Instruction:
    __slots__ = ("result", "op", "operands")

    def __init__(self, result, op, operands):
        self.result, self.op, self.operands = result, op, operands


def disassemble(binary: bytes) -> list[Instruction]:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "shader.spv")
        with open(path, "wb") as file:
            file.write(binary)
        text = subprocess.run(["spirv-dis", "--raw-id", "--no-header", path], check=True, capture_output=True,
                              text=True).stdout
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(";"):
            continue
        result = None
        if line.startswith("%") and " = " in line:
            result, line = line.split(" = ", 1)
        words = re.findall(r'"(?:[^"\\]|\\.)*"|\S+', line)
        out.append(Instruction(result, words[0], words[1:]))
    return out


def optimise(binary: bytes, workgroup) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        source, target = os.path.join(folder, "in.spv"), os.path.join(folder, "out.spv")
        with open(source, "wb") as file:
            file.write(binary)
        # Specialisation constants 0-2: the workgroup; 3 (wave_x_inside, where the shader has
        # it): set, as the benchmarks' launches keep every thread id inside the buffers.
        values = " ".join([f"{i}:{size}" for i, size in enumerate(workgroup)] + ["3:true"])
        subprocess.run(["spirv-opt", f"--set-spec-const-default-value={values}", "--freeze-spec-const",
                        "--fold-spec-const-op-composite", "-O", "--target-env=vulkan1.1", source, "-o", target],
                       check=True, capture_output=True)
        with open(target, "rb") as file:
            return file.read()


class Shader:
    """The blocks of `main` with what the figures need: names, pointer storage classes, types."""

    def __init__(self, instructions: list[Instruction], fault_labels=frozenset()):
        self.fault_labels = fault_labels  # blocks that fault in glslang's SPIR-V, by label
        self.names = {}
        self.storage = {}  # pointer type / variable / access chain id -> storage class
        self.int_types = set()
        self.types = {}  # result id -> type id
        self.ext_glsl = None
        functions = defaultdict(list)
        current = None
        entry = None
        for ins in instructions:
            if ins.op == "OpName":
                self.names[ins.operands[0]] = ins.operands[1].strip('"')
            elif ins.op == "OpEntryPoint":
                entry = ins.operands[1]
            elif ins.op == "OpExtInstImport" and "GLSL" in ins.operands[0]:
                self.ext_glsl = ins.result
            elif ins.op == "OpTypeInt":
                self.int_types.add(ins.result)
            elif ins.op == "OpTypeVector" and ins.operands[0] in self.int_types:
                self.int_types.add(ins.result)
            elif ins.op == "OpTypePointer":
                self.storage[ins.result] = ins.operands[0]
            elif ins.op == "OpVariable":
                self.storage[ins.result] = ins.operands[1]
            elif ins.op == "OpFunction":
                current = ins.result
            elif ins.op == "OpFunctionEnd":
                current = None
            if ins.op in ("OpAccessChain", "OpInBoundsAccessChain"):
                self.storage[ins.result] = self.storage.get(ins.operands[1])
            if ins.result is not None and ins.operands and not ins.op.startswith("OpType"):
                self.types[ins.result] = ins.operands[0]
            if current is not None:
                functions[current].append(ins)
        self.blocks = {}  # label -> instructions
        self.order = []
        for ins in functions[entry]:
            if ins.op == "OpLabel":
                label = ins.result
                self.order.append(label)
                self.blocks[label] = []
            elif self.order:
                self.blocks[self.order[-1]].append(ins)
        self.index = {label: i for i, label in enumerate(self.order)}
        # Inlining wraps a function with early returns in a one-case switch; its merge is the return.
        self.return_merges = set()
        for label in self.order:
            block = self.blocks[label]
            if len(block) > 1 and block[-1].op == "OpSwitch" and len(block[-1].operands) == 2:
                self.return_merges.add(block[-2].operands[0])
        self.zeros = {ins.result for ins in instructions if ins.op == "OpConstantNull" or
                      (ins.op == "OpConstant" and ins.operands[1:] == ["0"])}
        self.definitions = {ins.result: ins for block in self.blocks.values() for ins in block if ins.result}

    def successors(self, label):
        last = self.blocks[label][-1]
        if last.op == "OpBranch":
            return [last.operands[0]]
        if last.op == "OpBranchConditional":
            return [last.operands[1], last.operands[2]]
        if last.op == "OpSwitch":
            return last.operands[1::2] + [last.operands[1]]
        return []

    def faults(self, ins) -> bool:
        """An instruction only the fault path runs: it notes a fault, publishes one, or returns
        early (after inlining, a return is a branch to the merge of main's one-case switch)."""
        if ins.op in ("OpReturn", "OpReturnValue"):
            return True
        if ins.op == "OpBranch" and ins.operands[0] in self.return_merges:
            return True
        if ins.op == "OpFunctionCall":
            return self.names.get(ins.operands[1], "").startswith(FAULT_CALLS)
        if ins.op == "OpStore":
            target = ins.operands[0]
            if self.names.get(target) == "wave_code" and ins.operands[1] not in self.zeros:
                return True
            base = self.definitions.get(target)
            if base is not None and base.op in ("OpAccessChain", "OpInBoundsAccessChain"):
                return self.names.get(base.operands[1]) == "wave_status"
        if ins.op.startswith("OpAtomic"):
            base = self.definitions.get(ins.operands[1])
            return base is not None and self.names.get(base.operands[1]) == "wave_status"
        return False

    def cold(self, header, target, merge) -> bool:
        """A branch target from which the merge cannot be reached without passing a block that
        faults (leaving the construct by a break or continue counts as reaching it)."""
        low, high = self.index[header], self.index[merge]
        seen, stack = set(), [target]
        while stack:
            label = stack.pop()
            if label in seen:
                continue
            seen.add(label)
            if label == merge:
                return False
            if label in self.fault_labels or any(self.faults(ins) for ins in self.blocks[label]):
                continue
            if not low < self.index[label] < high:
                return False
            stack.extend(self.successors(label))
        return True

    def hot_blocks(self) -> set:
        hot, stack = set(), [self.order[0]]
        while stack:
            label = stack.pop()
            if label in hot:
                continue
            hot.add(label)
            block = self.blocks[label]
            last = block[-1]
            merge = block[-2].operands[0] if len(block) > 1 and block[-2].op == "OpSelectionMerge" else None
            for target in self.successors(label):
                if merge is not None and target != merge and last.op == "OpBranchConditional" and \
                        self.cold(label, target, merge):
                    continue
                stack.append(target)
        return hot

    def faulting_blocks(self) -> set:
        """Labels of the blocks that fault or return early (not main's last block)."""
        return {label for label in self.order[:-1] if any(self.faults(ins) for ins in self.blocks[label])}

    def loops(self):
        """(header, merge) of every loop, outermost first."""
        found = []
        for label in self.order:
            for ins in self.blocks[label]:
                if ins.op == "OpLoopMerge":
                    found.append((label, ins.operands[0]))
        return found

    def in_loop(self, label, loop) -> bool:
        header, merge = loop
        return self.index[header] <= self.index[label] < self.index[merge]

    def is_fma(self, ins) -> bool:
        return ins.op == "OpExtInst" and ins.operands[1] == self.ext_glsl and ins.operands[2] == "Fma"

    def integer_result(self, ins) -> bool:
        if ins.op in INTEGER_OPS:
            return True
        return ins.op == "OpExtInst" and ins.operands[1] == self.ext_glsl and ins.operands[2] in INTEGER_EXT

    def index_arithmetic(self, hot) -> set:
        """Results of integer operations an access chain's index into a buffer or shared array uses."""
        found, passed, stack = set(), set(), []
        for label in hot:
            for ins in self.blocks[label]:
                if ins.op in ("OpAccessChain", "OpInBoundsAccessChain") and \
                        self.storage.get(ins.operands[1]) in ("StorageBuffer", "Workgroup"):
                    stack.extend(ins.operands[2:])
        while stack:
            value = stack.pop()
            ins = self.definitions.get(value)
            if ins is None or value in found or value in passed:
                continue
            if not (self.integer_result(ins) or ins.op in ("OpPhi", "OpBitcast", "OpCopyObject")):
                continue
            passed.add(value)
            if self.integer_result(ins):
                found.add(value)
            operands = ins.operands[1::2] if ins.op == "OpPhi" else ins.operands[1:]
            stack.extend(op for op in operands if op.startswith("%"))
        return found

    def figures(self, weights) -> dict:
        """Weighted counts over the hot blocks; `weights[label]` is executions per unit of work."""
        hot = self.hot_blocks()
        indexing = self.index_arithmetic(hot)
        totals = defaultdict(float)
        for label in hot:
            weight = weights.get(label, 0.0)
            if weight == 0.0:
                continue
            for ins in self.blocks[label]:
                if ins.op in NOT_COUNTED:
                    continue
                totals["instructions"] += weight
                pointer = ins.operands[1] if ins.op == "OpLoad" else ins.operands[0] if ins.op == "OpStore" else None
                if pointer is not None:
                    kind = self.storage.get(pointer)
                    key = {"StorageBuffer": "buffer", "Workgroup": "shared", "PushConstant": "push"}.get(kind)
                    if key is not None:
                        totals[f"{key} {'loads' if ins.op == 'OpLoad' else 'stores'}"] += weight
                if ins.op == "OpBranchConditional":
                    totals["branches"] += weight
                if ins.op == "OpSelect":
                    totals["selects"] += weight
                if self.integer_result(ins):
                    totals["integer ops"] += weight
                    if ins.result in indexing:
                        totals["index integer ops"] += weight
                if self.is_fma(ins):
                    totals["fma"] += weight
        return dict(totals)


def vector_weights(shader: Shader) -> dict:
    """Every hot block once (vector add has no loops on its hot path)."""
    return {label: 1.0 for label in shader.order}


def sgemm_weights(shader: Shader) -> dict:
    """One iteration of the k loop: its blocks once, the FMA loop's `DEPTH` times, the tile-load
    loop's `loads` times; divided by the FMAs of the iteration."""
    loads = (wave_gpu_vulkan.THREADS * MICRO) * DEPTH // (wave_gpu_vulkan.THREADS ** 2)
    loops = shader.loops()

    def holds_fma(loop):
        return any(shader.is_fma(ins) for label in shader.order if shader.in_loop(label, loop)
                   for ins in shader.blocks[label])

    outer = next(loop for loop in loops if holds_fma(loop))
    inner = [loop for loop in loops if loop != outer and shader.in_loop(loop[0], outer)]
    fmas = DEPTH * MICRO * MICRO
    weights = {}
    for label in shader.order:
        if not shader.in_loop(label, outer):
            continue
        weight = 1.0
        for loop in inner:
            if shader.in_loop(label, loop):
                weight *= DEPTH if holds_fma(loop) else loads
        weights[label] = weight / fmas
    return weights


def kernels():
    sgemm_checked = wave_gpu_vulkan.load_sgemm(MICRO, DEPTH, True)
    sgemm_unchecked = wave_gpu_vulkan.load_sgemm(MICRO, DEPTH, False)
    vector_unchecked = wave_gpu.kernel(vector_add.function, bounds_checks=False)
    return {
        "vector_add": (vector_add, vector_unchecked, VECTOR_WORKGROUP, vector_weights, "per element"),
        "sgemm": (sgemm_checked, sgemm_unchecked, SGEMM_WORKGROUP, sgemm_weights, "per FMA"),
    }


def glsl_of(kernel, bounds_checks: bool, device):
    """The kernel's GLSL for `device` (None: the feature-complete target) with or without checks."""
    if kernel.bounds_checks != bounds_checks:
        raise ValueError("kernel has the other bounds_checks setting")
    return kernel.glsl(device)


def without_float_controls(glsl: str) -> str:
    """The GLSL without its SPIR-V float-control modes: spirv-opt skips its memory passes on a
    module using SPV_KHR_float_controls, and the modes change no instruction."""
    return "".join(line for line in glsl.splitlines(keepends=True)
                   if not line.startswith(("spirv_execution_mode", "#extension GL_EXT_spirv_intrinsics")))


def measure(glsl: str, workgroup, weigh) -> dict:
    """The figures of the optimised SPIR-V. Its fault paths are found in glslang's SPIR-V, where
    they still call wave_fault and return: spirv-opt turns the notes into selects and keeps
    the labels of the blocks (no id compaction)."""
    raw = bytes(_native.compile_spirv(without_float_controls(glsl)))
    faulting = Shader(disassemble(raw)).faulting_blocks()
    shader = Shader(disassemble(optimise(raw, workgroup)), faulting)
    return shader.figures(weigh(shader))


def target_device():
    device = wave_gpu.device()
    if device.vendor == "emulator":
        return None, "the feature-complete GLSL target (no Vulkan device; lavapipe's loop counting absent)"
    return device.index, f"#{device.index} {device.name}"


COLUMNS = ["instructions", "branches", "selects", "buffer loads", "buffer stores", "shared loads", "shared stores", "push loads",
           "integer ops", "index integer ops"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show-glsl", choices=["vector_add", "sgemm"], help="print that kernel's checked GLSL")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    for tool in ("spirv-opt", "spirv-dis"):
        if shutil.which(tool) is None:
            print(f"{tool} is missing (Debian: apt-get install spirv-tools)", file=sys.stderr)
            return 1
    device, described = target_device()
    report = {"target": described}
    for name, (checked, unchecked, workgroup, weigh, unit) in kernels().items():
        if args.show_glsl == name:
            print(glsl_of(checked, True, device))
        with_checks = measure(glsl_of(checked, True, device), workgroup, weigh)
        without = measure(glsl_of(unchecked, False, device), workgroup, weigh)
        report[name] = {"unit": unit, "checked": with_checks, "unchecked": without}
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    print(f"target: {described}; SPIR-V after spirv-opt -O, hot path only")
    rows = [["kernel", "checks"] + COLUMNS]
    for name in ("vector_add", "sgemm"):
        entry = report[name]
        for setting in ("checked", "unchecked"):
            rows.append([f"{name} ({entry['unit']})", setting] +
                        [f"{entry[setting].get(column, 0.0):.3g}" for column in COLUMNS])
        rows.append([f"{name} ({entry['unit']})", "spent on checks"] +
                    [f"{entry['checked'].get(c, 0.0) - entry['unchecked'].get(c, 0.0):.3g}" for c in COLUMNS])
    print(wave_gpu_vulkan.table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
