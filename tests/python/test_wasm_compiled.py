"""Compiled mode (execution="compiled", the default "auto") on the cpu device and on Vulkan
(lavapipe in CI) against the interpreter and against wasmtime: results, traps and their reasons, the exact record at
which fuel runs out (every fuel value across block boundaries), memory and globals after
traps, WASI clocks, cancellation and reset; blocks longer than the quantum and traps inside
them at several quanta; large functions over several units, recursion
across units up to the exact call-depth limit, exported imports, a br_table of thousands of
targets, compile_limit=1; and that no interpreter is involved (the generated sources and the
program image). The spec suites in compiled mode are in test_wasm_spec.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest
import wasmtime

import wasmgpu
from device_support import spawn_keywords
from wasm_builder import large_function
from wasmgpu import _native

WORKLOAD = """
(module
  (memory (export "memory") 1)
  (global $g (export "g") (mut i64) (i64.const 7))
  (table 4 funcref)
  (elem (i32.const 0) $double $fib)
  (type $unary (func (param i32) (result i32)))
  (func $double (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
  (func $fib (export "fib") (param i32) (result i32)
    (if (result i32) (i32.lt_u (local.get 0) (i32.const 2)) (then (local.get 0))
      (else (i32.add (call $fib (i32.sub (local.get 0) (i32.const 1)))
                     (call $fib (i32.sub (local.get 0) (i32.const 2)))))))
  (func (export "mix") (param $n i32) (result i32) (local $i i32) (local $acc i32)
    (local.set $acc (i32.const 17))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store8 (local.get $i) (local.get $acc))
      (local.set $acc (i32.add (i32.xor (local.get $acc) (i32.shl (local.get $acc) (i32.const 5)))
                               (call_indirect (type $unary) (local.get $i) (i32.and (local.get $i) (i32.const 1)))))
      (global.set $g (i64.add (global.get $g) (i64.extend_i32_u (local.get $acc))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_table $next $next $done (i32.rem_u (local.get $i) (i32.const 3)))
      ))
    (local.get $acc))
  (func (export "f64") (param $x f64) (result f64) (local $k i32)
    (loop $l
      (local.set $x (f64.add (f64.sqrt (f64.mul (local.get $x) (local.get $x))) (f64.div (local.get $x) (f64.const 3))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $k) (i32.const 5))))
    (local.get $x))
  (func (export "store_then_trap") (param i32) (result i32)
    (i32.store (i32.const 100) (i32.const 0x01020304))
    (global.set $g (i64.const 99))
    (i32.div_u (i32.const 1) (local.get 0)))
  (func (export "bulk") (param i32) (result i32)
    (memory.fill (i32.const 200) (i32.const 0xAB) (local.get 0))
    (memory.copy (i32.const 1000) (i32.const 198) (i32.const 40))
    (i32.load (i32.const 1002))))
"""

# (function, arguments) per call of the fuel sweep.
SWEEP_CALLS = [("fib", [6]), ("mix", [9]), ("f64", [2.5]), ("bulk", [33]), ("store_then_trap", [0])]


def wasm(text: str) -> bytes:
    return wasmtime.wat2wasm(text)


def outcome(instances, name: str, args, fuel=None):
    """(results or trap reason, instructions executed, memory prefix, global g) of one call."""
    try:
        value = ("returned", instances.call(name, [args] if len(args) != 1 else [args[0]], fuel=fuel))
    except wasmgpu.Trap as trap:
        value = ("trapped", trap.traps[0])
    memory = instances.read_memory(0, 2048)
    return value, instances.last_call.instructions, memory, instances._global_raw("g")


@pytest.fixture(scope="module", params=["cpu", "vulkan"])
def both(request):
    """The workload spawned once per mode (one instance): the interpreter on the cpu device as
    the reference, compiled mode on the device under test."""
    binary = wasm(WORKLOAD)
    pair = {"interpreter": wasmgpu.Module(binary, execution="interpreter").spawn(1, device="cpu"),
            "compiled": wasmgpu.Module(binary, execution="compiled").spawn(1, **spawn_keywords(request.param))}
    yield pair
    for instances in pair.values():
        instances.close()


@pytest.mark.parametrize("name, args", SWEEP_CALLS, ids=[call[0] for call in SWEEP_CALLS])
def test_fuel_runs_out_at_the_same_record_for_every_fuel_value(both, name, args):
    interpreter, compiled = both["interpreter"], both["compiled"]
    interpreter.reset()
    full = outcome(interpreter, name, args)
    total = full[1]
    assert total > 5
    for fuel in range(1, total + 2):  # every record boundary, blocks' first and last records included (fuel >= 1)
        interpreter.reset()
        compiled.reset()
        expected = outcome(interpreter, name, args, fuel)
        got = outcome(compiled, name, args, fuel)
        assert got == expected, f"fuel {fuel}"
        assert compiled.last_call.executed_as == "compiled" and compiled.last_call.interpreted_instructions == 0
        exhausted = fuel < total and expected[0] == ("trapped", "fuel exhausted")
        assert exhausted == (fuel < total)
        if exhausted:
            assert got[1] == fuel  # exactly `fuel` records ran, with all their effects


def test_results_and_traps_equal_wasmtime(target):
    binary = wasm(WORKLOAD)
    store = wasmtime.Store()
    reference = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), []).exports(store)
    with wasmgpu.Module(binary, execution="compiled").spawn(4, **target) as instances:
        assert instances.call("fib", [0, 1, 10, 20]) == [reference["fib"](store, n) for n in (0, 1, 10, 20)]
        assert instances.call("mix", [0, 5, 50, 300]) == [reference["mix"](store, n) for n in (0, 5, 50, 300)]
        assert instances.call("f64", [1.0, -2.0, 1e300, 0.0]) == [reference["f64"](store, x) for x in (1.0, -2.0, 1e300, 0.0)]
        with pytest.raises(wasmgpu.Trap) as trapped:
            instances.call("store_then_trap", [0, 1, 0, 2])
        assert trapped.value.traps == {0: "integer divide by zero", 2: "integer divide by zero"}
        assert trapped.value.results == [None, 1, None, 0]
        # The trapping instances' earlier effects stay, as in every engine.
        assert instances.read_memory(100, 4, instance=0) == bytes([4, 3, 2, 1])
        assert instances._global_raw("g") == [99] * 4


# A loop whose body is one long block (about 200 records of arithmetic, loads and stores), and
# the same body reaching a store out of bounds part way through: with a quantum smaller than
# the block, each dispatch's first block runs anyway and the next one yields, so blocks that do
# not fit the credit go through the run's shared short-credit site, and traps through its
# shared trap site, which must leave the same records, memory and trap as the interpreter.
def long_block_module() -> bytes:
    steps = "\n".join(
        f"(local.set $acc (i32.xor (i32.mul (local.get $acc) (i32.const {2 * k + 3})) (i32.load (i32.const {4 * k}))))"
        f"(i32.store (i32.add (local.get $base) (i32.const {4 * k})) (local.get $acc))"
        for k in range(16))
    return wasm(f"""
(module
  (memory (export "memory") 1)
  (global $g (export "g") (mut i64) (i64.const 0))
  (func (export "long") (param $n i32) (param $base i32) (result i32) (local $i i32) (local $acc i32)
    (local.set $acc (i32.const 1))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      {steps}
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $acc)))
""")


@pytest.mark.parametrize("quantum", [1, 7, 64, 4096])
def test_blocks_longer_than_the_quantum_and_traps_inside_them_match_the_interpreter(target, quantum):
    binary = long_block_module()
    # (iterations, base of the stores): the last base puts the 9th store of the first
    # iteration's block past the memory's end.
    calls = [(0, 64), (3, 64), (40, 128), (5, 65536 - 32)]
    with wasmgpu.Module(binary, execution="interpreter").spawn(1, device="cpu", quantum=quantum) as reference, \
            wasmgpu.Module(binary, execution="compiled").spawn(1, quantum=quantum, **target) as compiled:
        for n, base in calls:
            expected = outcome(reference, "long", [n, base])
            got = outcome(compiled, "long", [n, base])
            assert got == expected, (n, base)
            assert compiled.last_call.executed_as == "compiled" and compiled.last_call.interpreted_instructions == 0
        assert expected[0] == ("trapped", "out of bounds memory access")


# Recursion whose frames start with declared locals that are read before they are written
# (zero on every level, whatever earlier, deeper calls left in those stack slots), and returns
# of several results: from variables into the frame's parameters and locals, into no locals
# (the results reach past them, where the frame header lies), and from the value stack of an
# earlier block.
FRAMES = """
(module
  (func $down (export "down") (param $n i32) (result i32) (local $a i32) (local $b i64) (local $c f64)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.add (local.get $a) (i32.wrap_i64 (local.get $b))))
      (else
        (local.set $a (i32.add (local.get $a) (i32.const 5)))
        (local.set $b (i64.add (local.get $b) (i64.const 7)))
        (local.set $c (f64.add (local.get $c) (f64.const 1.5)))
        (i32.add (call $down (i32.sub (local.get $n) (i32.const 1)))
                 (i32.add (i32.mul (local.get $n) (local.get $a))
                          (i32.add (i32.wrap_i64 (local.get $b)) (i32.trunc_f64_s (local.get $c))))))))
  (func $pair (param $x i32) (param $y i32) (result i32 i32)
    (i32.sub (local.get $y) (i32.const 1)) (i32.add (local.get $x) (i32.const 1)))
  (func $triple (result i32 i32 i32) (i32.const 4) (i32.const 5) (i32.const 6))
  (func $late (param $x i32) (result i32 i32)
    (i32.mul (local.get $x) (i32.const 3))
    (block (result i32) (br_if 0 (i32.const 9) (local.get $x)) (drop) (i32.const 11)))
  (func (export "returns") (param $x i32) (result i32)
    (local $s i32)
    (call $pair (local.get $x) (i32.const 100))
    (i32.mul) (local.set $s)
    (call $triple) (i32.add) (i32.add) (local.get $s) (i32.add)
    (call $late (local.get $x)) (i32.sub) (i32.add)))
"""


def test_recursive_frames_start_with_zero_locals_and_returns_place_their_results(target):
    binary = wasm(FRAMES)
    store = wasmtime.Store()
    reference = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), []).exports(store)
    with wasmgpu.Module(binary, execution="compiled").spawn(3, **target) as instances:
        for depths in ([12, 3, 0], [2, 9, 1], [0, 0, 30]):  # deeper calls first leave stale slots
            assert instances.call("down", depths) == [reference["down"](store, n) for n in depths]
        assert instances.call("returns", [0, 7, -4]) == [reference["returns"](store, x) for x in (0, 7, -4)]


# Locals of a reference type start as null (the differential fuzzer's seed 129128780467 found
# them zero, which is not null), on every level of a recursion whose deeper frames reuse slots
# where a shallower call left a non-null reference.
REF_LOCALS = """
(module
  (func $f)
  (elem declare func $f)
  (func $nulls (export "nulls") (param $n i32) (result i32)
    (local $e externref) (local $x i32) (local $g funcref)
    (local.set $x (i32.add (ref.is_null (local.get $e)) (i32.mul (ref.is_null (local.get $g)) (i32.const 2))))
    (local.set $g (ref.func $f))
    (if (result i32) (i32.eqz (local.get $n))
      (then (local.get $x))
      (else (i32.add (i32.mul (local.get $x) (i32.const 10)) (call $nulls (i32.sub (local.get $n) (i32.const 1))))))))
"""


# ("compiled" with the C++ tiers' code on the cpu device too: the host's call and the calls
# of its frames build them there, where the default plan's baseline builds its own.)
@pytest.mark.parametrize("execution, tiers", [("interpreter", None), ("compiled", None), ("compiled", "fast")])
def test_reference_locals_start_null_as_in_wasmtime(target, execution, tiers, monkeypatch):
    if tiers is not None:
        monkeypatch.setenv("WAVESTACK_WASM_CPU_TIERS", tiers)
    binary = wasm(REF_LOCALS)
    store = wasmtime.Store()
    reference = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), []).exports(store)
    depths = [0, 1, 4]
    with wasmgpu.Module(binary, execution=execution).spawn(3, **target) as instances:
        assert instances.call("nulls", depths) == [reference["nulls"](store, n) for n in depths]


# Calls whose callee has many declared locals, on the cpu device through the C++ tiers' code
# (the default plan's baseline has its own calls): a call site clears them itself
# (frame_call_defined_now), or leaves them to the chunks of the general path where they exceed
# a dispatch's allowance (the budget is 64 records a quantum at quantum 1). Either way every
# level of the recursion reads its last local as zero before writing it, though a deeper call
# before left its value in those slots, and counts the records the interpreter counts.
def wide_frames(locals_count: int) -> str:
    declared = " ".join(["i64"] * locals_count)
    last = locals_count  # the parameter is local 0

    def function(name: str, callee: str, scale: int) -> str:
        return f"""
  (func ${name} (export "{name}") (param $n i32) (result i64) (local {declared})
    (local.set 1 (i64.add (local.get {last}) (i64.extend_i32_u (local.get $n))))
    (local.set {last} (i64.extend_i32_u (local.get $n)))
    (if (result i64) (i32.eqz (local.get $n))
      (then (local.get 1))
      (else (i64.add (i64.mul (local.get 1) (i64.const {scale}))
                     (i64.add (local.get {last}) (call ${callee} (i32.sub (local.get $n) (i32.const 1))))))))"""

    # Two functions calling each other: each frame's locals are read from its slots when its
    # function's code starts (a run entered from another run), not stated by a recursion.
    return "(module" + function("wide", "other", 3) + function("other", "wide", 5) + ")"


@pytest.mark.parametrize("quantum", [1, 4096])
def test_callees_with_many_locals_start_them_at_zero_at_every_quantum(target, quantum, monkeypatch):
    monkeypatch.setenv("WAVESTACK_WASM_CPU_TIERS", "fast")
    binary = wasm(wide_frames(200))
    store = wasmtime.Store()
    reference = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), []).exports(store)
    spawns = {execution: wasmgpu.Module(binary, execution=execution).spawn(3, quantum=quantum, stack_size=4096,
                                                                           **target)
              for execution in ("interpreter", "compiled")}
    try:
        for depths in ([6, 7, 6], [3, 5, 0]):  # deeper calls first leave stale slots
            results = {execution: instances.call("wide", depths) for execution, instances in spawns.items()}
            assert results["compiled"] == results["interpreter"] == [reference["wide"](store, n) for n in depths]
            assert spawns["compiled"].last_call.instructions == spawns["interpreter"].last_call.instructions
            assert spawns["compiled"].last_call.interpreted_instructions == 0
    finally:
        for instances in spawns.values():
            instances.close()


def test_an_outcome_read_again_is_the_same(target):
    """The cpu device hands the outcomes it noted during a call's dispatches over on the first
    read; a second read (from the instances' states) must give the same, in both modes."""
    binary = wasm(WORKLOAD)
    for execution in ("interpreter", "compiled"):
        with wasmgpu.Module(binary, execution=execution).spawn(4, **target) as instances:
            with pytest.raises(wasmgpu.Trap) as trapped:
                instances.call("store_then_trap", [0, 1, 0, 2])
            again = instances._native.outcome(1)
            assert again.results_list("i") == trapped.value.results == [None, 1, None, 0]
            assert [instance for instance, _, _ in again.traps()] == [0, 2]
            assert again.executed == instances.last_call.instructions


def test_cancellation_and_reset_behave_as_in_the_interpreter(both):
    for instances in both.values():
        instances.reset()
        answers = iter([False, True])  # run one dispatch, then cancel
        with pytest.raises(InterruptedError, match="after 1 dispatches"):
            instances.call("fib", [18], cancel=lambda: next(answers))
        instances.reset()
    assert both["compiled"].call("fib", [18]) == both["interpreter"].call("fib", [18]) == [2584]


def test_wasi_clocks_read_the_same_in_both_modes(target):
    binary = wasm("""
    (module
      (import "wasi_snapshot_preview1" "clock_time_get" (func $now (param i32 i64 i32) (result i32)))
      (memory (export "memory") 1)
      (func (export "elapsed") (param $n i32) (result i64) (local $t0 i64)
        (drop (call $now (i32.const 1) (i64.const 1) (i32.const 0)))
        (local.set $t0 (i64.load (i32.const 0)))
        (block $d (loop $l (br_if $d (i32.eqz (local.get $n)))
          (local.set $n (i32.sub (local.get $n) (i32.const 1))) (br $l)))
        (drop (call $now (i32.const 1) (i64.const 1) (i32.const 0)))
        (i64.sub (i64.load (i32.const 0)) (local.get $t0))))""")
    readings = {}
    for mode, where in (("interpreter", {"device": "cpu"}), ("compiled", target)):
        with wasmgpu.Module(binary, execution=mode).spawn(3, **where) as instances:
            readings[mode] = [instances.call("elapsed", [0, 10, 1000]), instances.call("elapsed", [5, 5, 5])]
    assert readings["compiled"] == readings["interpreter"]
    assert readings["compiled"][0][0] < readings["compiled"][0][1] < readings["compiled"][0][2]


def test_a_function_larger_than_a_unit_spans_several_units(target):
    binary = wasm(large_function(400))  # about 2,400 lowered instructions
    module = wasmgpu.Module(binary, execution="compiled")
    assert module.compiled["functions"] == 1 and module.compiled["units"] >= 9 and module.compiled["complete"]
    store = wasmtime.Store()
    reference = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), []).exports(store)["big"]
    with module.spawn(3, **target) as instances:
        assert instances.call("big", [1, 2, 3]) == [reference(store, k) for k in (1, 2, 3)]
        # Every unit was needed: built by the call, or ahead of need beside it (cpu device). A
        # Vulkan device may find some built already: a pipeline of the same source that a similar
        # module's unit made earlier in this process (large functions share units' text).
        stats = instances.last_call
        built = stats.units_compiled + stats.units_built_ahead
        if target.get("device") == "cpu":
            assert built == module.compiled["units"]
        else:
            assert built <= module.compiled["units"]
        assert stats.units_compiled >= 1


def test_every_function_of_a_unit_of_many_small_functions_runs(target):
    # 100 one-block functions, most in one unit: lavapipe once selected the wrong function
    # for the unit's low block ids (compiled_unit_step, unit_codegen.cpp).
    text = "(module " + " ".join(f'(func (export "f{i}") (result i32) i32.const {i * 7 + 1})' for i in range(100)) + ")"
    module = wasmgpu.Module(wasm(text), execution="compiled")
    assert module.compiled["units"] >= 2
    with module.spawn(2, **target) as instances:
        for i in (0, 1, 2, 5, 30, 60, 98, 99):
            assert instances.call(f"f{i}") == [i * 7 + 1] * 2, i
            assert instances.last_call.instructions == 2 * 2


def test_compile_limit_1_gives_one_instruction_per_unit(target):
    binary = wasm(WORKLOAD)
    module = wasmgpu.Module(binary, execution="compiled", compile_limit=1)
    assert module.compiled["units"] == module.compiled["instructions"]
    with module.spawn(2, **target) as instances:
        assert instances.call("fib", [10, 15]) == [55, 610]
        assert instances.call("mix", [0, 40]) == wasmgpu.Module(binary, execution="interpreter").spawn(
            2, device="cpu").call("mix", [0, 40])


@pytest.mark.parametrize("name, args", [("mix", [9]), ("fib", [6])])
def test_fuel_runs_out_in_the_unit_a_baseline_run_went_on_into(name, args, monkeypatch):
    # Baseline units go on into the units control reaches next without returning to the host
    # (baseline_linked_run): fuel that runs out inside a block of a unit the run went on into
    # is finished by that unit's prefix. Units of at most 3 instructions: every call, branch and
    # return crosses units.
    if _native.cpu_tier_plan()[0] != "baseline":
        pytest.skip("the baseline tier does not run on this processor")
    monkeypatch.setenv("WAVESTACK_WASM_CPU_TIERS", "baseline")
    binary = wasm(WORKLOAD)
    module = wasmgpu.Module(binary, execution="compiled", compile_limit=3)
    assert module.compiled["units"] >= 20
    with wasmgpu.Module(binary, execution="interpreter").spawn(1, device="cpu") as interpreter, \
            module.spawn(1, device="cpu") as compiled:
        total = outcome(interpreter, name, args)[1]
        for fuel in range(1, total + 2):
            interpreter.reset()
            compiled.reset()
            assert outcome(compiled, name, args, fuel) == outcome(interpreter, name, args, fuel), f"fuel {fuel}"


# Operands pushed by local.get, local.tee and constants that the baseline leaves in place until
# an instruction consumes them (block_compiler.cpp's pending operands), and results stored
# straight into the local a local.set or local.tee takes them to: a local read below a write of
# the same local must keep the value it had, whatever sits between.
PENDING_OPERANDS = """
(module
  (memory 1)
  (func (export "old_then_new") (param $a i32) (param $b i32) (result i32)
    (local.get $a) (local.get $b) (local.set $a) (local.get $a) (i32.sub))
  (func (export "tee_below") (param $a i32) (result i32)
    (local.get $a) (i32.const 5) (local.tee $a) (i32.add) (local.get $a) (i32.mul))
  (func (export "deep") (param $a i64) (param $b i64) (result i64)
    (local.get $a) (local.get $b) (i64.const 0x123456789) (local.get $a) (i64.const -7)
    (local.set $a) (local.set $b) (i64.add) (i64.mul) (local.get $a) (i64.xor) (local.get $b) (i64.sub))
  (func (export "result_to_a_local_read_below") (param $a i32) (result i32)
    (local.get $a) (local.get $a) (i32.const 1) (i32.add) (local.set $a) (local.get $a) (i32.sub))
  (func (export "result_teed_above_its_old_value") (param $a i32) (result i32)
    (local.get $a) (local.get $a) (i32.const 3) (i32.mul) (local.tee $a) (i32.add) (local.get $a) (i32.xor))
  (func (export "through_memory") (param $p i32) (result i64)
    (i32.const 64) (i64.const -2) (local.get $p) (i64.extend_i32_s) (i64.mul) (i64.store)
    (i32.const 64) (i64.load) (f64.const -1.5) (f64.convert_i32_s (local.get $p)) (f64.mul)
    (i64.trunc_f64_s) (i64.add)))
"""


@pytest.mark.parametrize("tiers", ["baseline", ""])
def test_operands_left_in_place_read_the_values_they_had(tiers, monkeypatch):
    if tiers == "baseline" and _native.cpu_tier_plan()[0] != "baseline":
        pytest.skip("the baseline tier does not run on this processor")
    monkeypatch.setenv("WAVESTACK_WASM_CPU_TIERS", tiers)
    binary = wasm(PENDING_OPERANDS)
    store = wasmtime.Store()
    exports = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), []).exports(store)
    calls = [("old_then_new", [(7, 3), (-5, 11)]), ("tee_below", [(2,), (-9,)]),
             ("deep", [(3, 4), (-(2**40), 17)]), ("through_memory", [(6,), (-1000,)]),
             ("result_to_a_local_read_below", [(41,), (-2,)]), ("result_teed_above_its_old_value", [(5,), (-77,)])]
    with wasmgpu.Module(binary, execution="compiled").spawn(2, device="cpu") as instances:
        for name, rows in calls:
            expected = [exports[name](store, *row) for row in rows]
            got = instances.call(name, [list(row) for row in rows] if len(rows[0]) > 1 else [row[0] for row in rows])
            assert got == expected, name


def test_compile_functions_groups_first_and_still_compiles_everything():
    binary = wasm(WORKLOAD)
    plain = wasmgpu.Module(binary, execution="compiled", compile_limit=8)
    prioritised = wasmgpu.Module(binary, execution="compiled", compile_limit=8, compile_functions=[4, 1])
    assert prioritised.compiled["functions"] == plain.compiled["functions"] == 6
    assert prioritised.compiled["instructions"] == plain.compiled["instructions"]
    with prioritised.spawn(1, device="cpu") as instances:
        assert instances.call("fib", [12]) == [144]


RECURSE = """
(module (func $down (export "down") (param i32) (result i32)
  (if (result i32) (local.get 0)
    (then (i32.add (i32.const 1) (call $down (i32.sub (local.get 0) (i32.const 1)))))
    (else (i32.const 0)))))
"""


@pytest.mark.parametrize("compile_limit", [256, 3])
def test_recursion_across_units_reaches_the_call_depth_limit_exactly(compile_limit, target):
    module = wasmgpu.Module(wasm(RECURSE), execution="compiled", compile_limit=compile_limit)
    if compile_limit == 3:
        assert module.compiled["units"] > 1
    with module.spawn(2, call_depth=50, stack_size=4096, **target) as instances:
        assert instances.call("down", [49, 10]) == [49, 10]  # 50 frames: the limit
        with pytest.raises(wasmgpu.Trap) as trapped:
            instances.call("down", [50, 10])
        assert trapped.value.traps == {0: "call stack exhausted"}
    with wasmgpu.Module(wasm(RECURSE), execution="interpreter").spawn(1, device="cpu", call_depth=50,
                                                                      stack_size=4096) as interpreter:
        with pytest.raises(wasmgpu.Trap):
            interpreter.call("down", [50])
        executed = interpreter.last_call.instructions
    with module.spawn(1, call_depth=50, stack_size=4096, **target) as compiled:
        with pytest.raises(wasmgpu.Trap):
            compiled.call("down", [50])
        assert compiled.last_call.instructions == executed


def test_exported_imports_run_in_compiled_mode(target):
    binary = wasm("""
    (module
      (import "wasi_snapshot_preview1" "sched_yield" (func $yield (result i32)))
      (import "wasi_snapshot_preview1" "args_sizes_get" (func $sizes (param i32 i32) (result i32)))
      (memory (export "memory") 1)
      (export "yield" (func $yield))
      (export "sizes" (func $sizes)))""")
    module = wasmgpu.Module(binary, execution="compiled")
    assert module.compiled["functions"] == 0
    with module.spawn(2, wasi=wasmgpu.Wasi(args=["prog", "x"]), **target) as instances:
        assert instances.call("yield") == [0, 0]
        assert instances.call("sizes", [(0, 4), (8, 12)]) == [0, 0]
        assert instances.read_memory(0, 4) == (2).to_bytes(4, "little")
        assert instances.read_memory(12, 4, instance=1) == (7).to_bytes(4, "little")  # "prog\0x\0"


def wide_br_table(targets: int) -> str:
    labels = " ".join(str(k) for k in range(targets))
    ends = " ".join(f"end i32.const {k} return" for k in range(targets))
    return (f'(module (func (export "pick") (param i32) (result i32) {"block " * targets}'
            f'local.get 0 br_table {labels} {targets - 1} {ends} i32.const -1))')


def test_a_br_table_with_3000_targets_is_jump_table_data(target):
    module = wasmgpu.Module(wasm(wide_br_table(3000)), execution="compiled")
    assert module.compiled["jump_table_entries"] == 3001
    with module.spawn(6, **target) as instances:
        assert instances.call("pick", [0, 1, 1500, 2999, 3000, 2**31]) == [0, 1, 1500, 2999, 2999, 2999]
        image = instances._native.program_image()
        code_begin, functions_begin = image[0], image[1]  # H_CODE, H_FUNCS
        assert functions_begin - code_begin == 4 * 3001
        assert all(image[code_begin + 4 * k] == _native.OP_BR_TABLE_ENTRY for k in range(3001))


def test_no_interpreter_is_involved(target):
    binary = wasm(WORKLOAD)
    module = wasmgpu.Module(binary, execution="compiled")
    for device in ("cpu", "gpu"):
        for unit in range(module.compiled["units"]):
            source = _native.compiled_unit_source(module._native, unit, device)
            for name in ("interp_run", "interp_step", "wasm_numeric(", "wasm_numeric_arity", "fetch(", "load_extend("):
                assert name not in source, (device, name)
            assert "compiled_run" in source and "compiled_unit_step" in source
    with module.spawn(1, **target) as instances:
        image = instances._native.program_image()
        # The code section holds only the jump table's entries (one br_table of three).
        code_words = image[1] - image[0]
        assert code_words == 4 * module.compiled["jump_table_entries"] == 4 * 3
        instances.call("fib", [12])
        stats = instances.last_call
        assert stats.interpreted_instructions == 0 and stats.compiled_instructions == stats.instructions > 0
    with wasmgpu.Module(binary, execution="interpreter").spawn(1, device="cpu") as interpreter:
        assert len(interpreter._native.program_image()) > len(image)  # it carries every record


def test_second_spawn_compiles_nothing_and_last_call_separates_the_phases(tmp_path, monkeypatch):
    monkeypatch.setenv("WAVESTACK_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("WAVESTACK_WASM_CPU_TIERS", "fast,optimized")  # a first tier that the disk cache keeps
    binary = wasm(large_function(60))
    module = wasmgpu.Module(binary, execution="compiled")
    with module.spawn(1, device="cpu") as instances:
        instances.call("big", [3])
        first = instances.last_call
        assert first.units_compiled + first.units_built_ahead == module.compiled["units"]
        assert first.units_from_cache == 0
        assert first.codegen_seconds > 0 and first.compile_seconds > 0
        assert first.execute_seconds <= first.dispatch_seconds
        instances.call("big", [4])
        assert instances.last_call.units_compiled == 0 and instances.last_call.compile_seconds == 0
    # A new module of the same binary finds its units' code in the disk cache (what the call
    # needs first is loaded by the call, the rest may be loaded ahead of need).
    with wasmgpu.Module(binary, execution="compiled").spawn(1, device="cpu") as again:
        again.call("big", [3])
        stats = again.last_call
        assert stats.units_from_cache == stats.units_compiled >= 1
        assert stats.units_compiled + stats.units_built_ahead == module.compiled["units"]
        assert stats.codegen_seconds == 0  # nothing generated: the cache is keyed by the module


def test_without_a_host_compiler_the_host_tier_says_so(tmp_path):
    script = textwrap.dedent(f"""
        import wasmgpu
        module = wasmgpu.Module({wasm(RECURSE)!r}, execution="compiled")
        instances = module.spawn(1, device="cpu")
        try:
            instances.call("down", [3])
        except RuntimeError as error:
            print("ERROR:", error)
    """)
    # No compiler on PATH; only the build tools an editable install runs on import (an
    # up-to-date build, which compiles nothing).
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("cmake", "ninja"):
        if shutil.which(tool):
            (tools / tool).symlink_to(shutil.which(tool))
    env = dict(os.environ, PATH=str(tools), WAVESTACK_CXX=str(tmp_path / "missing-c++"),
               WAVESTACK_CACHE_DIR=str(tmp_path / "cache"), WAVESTACK_WASM_CPU_TIERS="host")
    env.pop("CXX", None)
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert "ERROR: compiled mode on the cpu device needs a C++ compiler" in result.stdout, result.stderr


def test_auto_runs_compiled_code_on_every_device(target):
    binary = wasm(RECURSE)
    with wasmgpu.Module(binary).spawn(1, **target) as instances:  # execution="auto"
        assert instances.call("down", [5]) == [5]
        assert instances.last_call.executed_as == "compiled"
        assert instances.last_call.interpreted_instructions == 0 and instances.last_call.compiled_instructions > 0


@pytest.mark.parametrize("ahead", ["on", "off", None])
def test_vulkan_builds_each_unit_once_for_the_call_or_ahead_of_need(ahead, monkeypatch):
    # A function over ten units, each reached only from the one before: with building ahead on,
    # a unit's successor is queued when the call builds it, and the call takes it from the pool,
    # waits for it, or builds it itself; never twice. Unset, it is on for hardware devices and
    # off for software ones (lavapipe compiles at the first dispatch: nothing to gain). Constants
    # no other test uses, so that no pipeline of this process has the same text.
    if ahead is None:
        monkeypatch.delenv("WAVESTACK_WASM_BUILD_AHEAD", raising=False)
    else:
        monkeypatch.setenv("WAVESTACK_WASM_BUILD_AHEAD", ahead)
    target = spawn_keywords("vulkan")
    binary = wasm(large_function(400, multiplier={"on": 11, "off": 13, None: 17}[ahead]))
    module = wasmgpu.Module(binary, execution="compiled")
    store = wasmtime.Store()
    reference = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), []).exports(store)["big"]
    with wasmgpu.Module(wasm(RECURSE), execution="compiled").spawn(1, **target) as other:
        other.call("down", [2])  # builds the device's shared shaders (the host's call, the outcome)
    with module.spawn(2, **target) as instances:
        assert instances.call("big", [5, 9]) == [reference(store, k) for k in (5, 9)]
        stats = instances.last_call
        assert stats.units_compiled + stats.units_built_ahead == module.compiled["units"] >= 9
        assert stats.units_compiled >= 1  # the first, at least
        if ahead == "off" or (ahead is None and _native.select_device(True)["is_software"]):
            assert stats.units_built_ahead == 0
        instances.call("big", [7, 8])
        assert instances.last_call.units_compiled == instances.last_call.units_built_ahead == 0


def test_vulkan_spawn_refuses_a_bad_build_ahead_setting(monkeypatch):
    # Read at the spawn, so a bad value fails before any instance is made or unit built.
    monkeypatch.setenv("WAVESTACK_WASM_BUILD_AHEAD", "sometimes")
    module = wasmgpu.Module(wasm(large_function(60)), execution="compiled")
    with pytest.raises(ValueError, match="WAVESTACK_WASM_BUILD_AHEAD.*'sometimes'"):
        module.spawn(2, **spawn_keywords("vulkan"))
    monkeypatch.setenv("WAVESTACK_WASM_BUILD_AHEAD", "off")
    with module.spawn(2, **spawn_keywords("vulkan")) as instances:
        assert len(instances) == 2


def test_vulkan_builds_unit_pipelines_once_per_process():
    target = spawn_keywords("vulkan")
    binary = wasm(large_function(60))
    module = wasmgpu.Module(binary, execution="compiled")
    with module.spawn(2, **target) as instances:
        results = instances.call("big", [3, 4])
        first = instances.last_call
        # (Units built ahead of need count there; a unit another test's module built earlier in
        # this process, of the same text, is not built again.)
        assert 0 < first.units_compiled + first.units_built_ahead <= module.compiled["units"]
        assert first.compile_seconds > 0
        instances.call("big", [5, 6])
        assert instances.last_call.units_compiled == instances.last_call.units_built_ahead == 0
        assert instances.last_call.compile_seconds == 0
    # Another spawn, even of a new module of the same binary, finds the device's pipelines.
    with wasmgpu.Module(binary, execution="compiled").spawn(1, **target) as again:
        assert again.call("big", [3]) == results[:1]
        assert again.last_call.units_compiled == 0
