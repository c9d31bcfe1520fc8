"""Lane groups on the cpu device (compiler/lane_group_codegen.hpp): compiled mode runs a call's
loop with long-latency instructions for groups of instances at once. Every instance's
outcome must be exactly the one it has alone: results, traps and their reasons, the exact
record at which fuel runs out, memory and globals, whether the group's lanes stay together,
part, trap or run out of fuel at different records. The reference is the interpreter;
WAVESTACK_WASM_LANE_GROUPS=off (every instance alone) must agree too. last_call counts the
instances that began in a group, which shows the grouped path ran. Lane groups are code of the
optimising tiers (the fast tier builds units without them), so these modules build with the
`optimized` tier from the start.
"""

from __future__ import annotations

import os

import pytest
import wasmtime

import wasmgpu
from wasmgpu import _native

LANES = """
(module
  (memory (export "memory") 1)
  (global $g (export "g") (mut i64) (i64.const 0))
  (func $half (param f64) (result f64) (f64.div (local.get 0) (f64.const 2)))
  ;; A leapfrog orbit (an f64 divide and square root per step): `steps` steps, each storing
  ;; its position in memory.
  (func (export "orbit") (param $x i32) (param $steps i32) (result f64) (local $p f64) (local $v f64)
    (local.set $p (f64.add (f64.const 1) (f64.mul (f64.convert_i32_u (local.get $x)) (f64.const 0.001))))
    (block $done
      (loop $step
        (br_if $done (i32.eqz (local.get $steps)))
        (local.set $v (f64.add (local.get $v) (f64.mul (f64.const 0.01)
          (f64.div (f64.neg (local.get $p))
                   (f64.sqrt (f64.add (f64.const 1) (f64.mul (local.get $p) (local.get $p))))))))
        (local.set $p (f64.add (local.get $p) (f64.mul (local.get $v) (f64.const 0.01))))
        (f64.store (i32.shl (i32.and (local.get $steps) (i32.const 127)) (i32.const 3)) (local.get $p))
        (local.set $steps (i32.sub (local.get $steps) (i32.const 1)))
        (br $step)))
    (f64.add (local.get $p) (local.get $v)))
  ;; Integer division towards a zero divisor: instance x traps at step x when x < n.
  (func (export "divide") (param $x i32) (param $n i32) (result i32) (local $acc i32) (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $acc (i32.add (local.get $acc)
          (i32.div_s (i32.const 1000003) (i32.sub (local.get $x) (local.get $i)))))
        (i32.store (i32.shl (local.get $i) (i32.const 2)) (local.get $acc))
        (global.set $g (i64.add (global.get $g) (i64.extend_i32_s (local.get $acc))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $acc))
  ;; Stores walking out of bounds: instance x's address starts x * 16 KiB in.
  (func (export "reach") (param $x i32) (param $n i32) (result f64) (local $i i32) (local $s f64)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (f64.add (f64.div (local.get $s) (f64.const 1.5)) (f64.convert_i32_u (local.get $i))))
        (f64.store (i32.add (i32.mul (local.get $x) (i32.const 16384)) (i32.shl (local.get $i) (i32.const 11)))
                   (local.get $s))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $s))
  ;; Control that parts the lanes: a br_table on (x + i) % 3, and a call every fourth step.
  (func (export "part") (param $x i32) (param $n i32) (result f64) (local $i i32) (local $s f64)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (block $c (block $b (block $a
          (br_table $a $b $c (i32.rem_u (i32.add (local.get $x) (local.get $i)) (i32.const 3))))
          (local.set $s (f64.add (local.get $s) (f64.sqrt (f64.convert_i32_u (local.get $i)))))
          (br $c))
          (local.set $s (f64.div (local.get $s) (f64.const 3))))
        (if (i32.eqz (i32.and (local.get $i) (i32.const 3)))
          (then (local.set $s (call $half (local.get $s)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $s)))
"""

# Per function: each instance's arguments for `count` instances.
ARGUMENTS = {
    "orbit": lambda count: [[x, 20 + x % 5] for x in range(count)],  # lanes end at different steps
    "divide": lambda count: [[x, 6] for x in range(count)],  # instances 0..5 trap, each at its own step
    "reach": lambda count: [[x % 6, 10] for x in range(count)],  # x >= 4 store out of bounds
    "part": lambda count: [[x, 13] for x in range(count)],
}


@pytest.fixture(autouse=True)
def optimizing_tier(monkeypatch):
    """Modules created in a test build every unit with the in-process -O3 (lane groups included),
    unless the environment asks for an optimising first tier itself (the sanitizer stage: host)."""
    plan = os.environ.get("WAVESTACK_WASM_CPU_TIERS", "")
    if plan.split(",")[0] in ("", "fast"):
        monkeypatch.setenv("WAVESTACK_WASM_CPU_TIERS", "optimized")


@pytest.fixture(scope="module")
def binary():
    return wasmtime.wat2wasm(LANES)


def outcome(instances, name, inputs, fuel=None):
    """Every instance's (result or trap), the instructions run, memories and globals."""
    try:
        values = ("returned", instances.call(name, inputs, fuel=fuel))
    except wasmgpu.Trap as trap:
        values = ("trapped", trap.traps, trap.results)
    memories = [instances.read_memory(0, 2048, instance=i) for i in range(instances.count)]
    return values, instances.last_call.instructions, memories, instances._global_raw("g")


def spawn(binary, execution, count, quantum=4096):
    return wasmgpu.Module(binary, execution=execution).spawn(count, device="cpu", quantum=quantum)


# A quantum of 4096 ends every call in its first dispatch; 37 cuts the loops at many records,
# so groups form again at the next dispatch wherever their lanes are at one block.
@pytest.mark.parametrize("quantum", [4096, 37])
@pytest.mark.parametrize("count", [4, 7, 69])
@pytest.mark.parametrize("name", sorted(ARGUMENTS))
def test_every_instance_has_its_own_outcome_in_a_group(binary, name, count, quantum, monkeypatch):
    inputs = ARGUMENTS[name](count)
    with spawn(binary, "interpreter", count, quantum) as interpreter:
        expected = outcome(interpreter, name, inputs)
    for setting in ("on", "off"):
        monkeypatch.setenv("WAVESTACK_WASM_LANE_GROUPS", setting)
        with spawn(binary, "compiled", count, quantum) as compiled:
            got = outcome(compiled, name, inputs)
            grouped = compiled.last_call.lane_grouped_instances
            dispatches = compiled.last_call.dispatches
        assert got == expected, setting
        # Every group of four consecutive instances begins together (each leaves its group
        # where its control, fuel or trap differs from the others'); with the small quantum
        # groups form again in later dispatches.
        if setting == "off":
            assert grouped == 0
        elif quantum == 4096:
            assert grouped == count // 4 * 4 and dispatches == 1
        else:
            # (Lanes that trapped or parted stay apart: only the orbit's run together for long.)
            assert grouped >= count // 4 * 4 and dispatches > 2
            assert grouped > count // 4 * 4 or name != "orbit"


@pytest.mark.parametrize("quantum", [4096, 23])
@pytest.mark.parametrize("name", sorted(ARGUMENTS))
def test_fuel_runs_out_at_each_instances_own_record(binary, name, quantum):
    """One fuel value for all instances, whose calls differ in length: lanes of one group run out
    at different records, some inside a block (its prefix), some not at all."""
    count = 8
    inputs = ARGUMENTS[name](count)
    with spawn(binary, "interpreter", count, quantum) as interpreter, \
            spawn(binary, "compiled", count, quantum) as compiled:
        full = outcome(interpreter, name, inputs)[1] // count
        exhausted = 0
        for fuel in range(1, full + 40):  # fuel is positive
            interpreter.reset()
            compiled.reset()
            expected = outcome(interpreter, name, inputs, fuel)
            assert outcome(compiled, name, inputs, fuel) == expected, f"fuel {fuel}"
            if expected[0][0] == "trapped":
                exhausted += sum(reason == "fuel exhausted" for reason in expected[0][1].values())
        assert exhausted > 0


def test_only_loops_with_long_latency_instructions_are_grouped(binary):
    module = wasmgpu.Module(binary, execution="compiled")
    sources = [_native.compiled_unit_source(module._native, unit, "cpu") for unit in range(module.compiled["units"])]
    assert any("void lane_group" in source for source in sources)
    integer_loop = wasmtime.wat2wasm("""
    (module (func (export "mix") (param $n i32) (result i32) (local $acc i32)
      (loop $l
        (local.set $acc (i32.xor (i32.shl (local.get $acc) (i32.const 5)) (local.get $n)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br_if $l (local.get $n)))
      (local.get $acc)))""")
    module = wasmgpu.Module(integer_loop, execution="compiled")
    assert "void lane_group" not in _native.compiled_unit_source(module._native, 0, "cpu")
    assert "void lane_group" not in _native.compiled_unit_source(module._native, 0, "gpu")  # never in shaders
    with module.spawn(8, device="cpu") as instances:
        instances.call("mix", list(range(1, 9)))
        assert instances.last_call.lane_grouped_instances == 0


def test_a_bad_lane_group_setting_names_the_variable(binary, monkeypatch):
    monkeypatch.setenv("WAVESTACK_WASM_LANE_GROUPS", "sometimes")
    with spawn(binary, "compiled", 4) as instances:
        with pytest.raises(ValueError, match="WAVESTACK_WASM_LANE_GROUPS"):
            instances.call("orbit", ARGUMENTS["orbit"](4))
