"""wasmgpu as a drop-in for the original package (0.0.2): names, signatures, defaults, resource
controls, exception classes and argument conversion, on the cpu device and on the selected
Vulkan device. Written against the original's documented behaviour (the seed and the
API-parity issue), not against our earlier API."""

import inspect
import re

import numpy as np
import pytest

import wasmgpu
from wasmgpu import errors

wasmtime = pytest.importorskip("wasmtime", reason="wasmtime.wat2wasm assembles the test modules")


def wat(text: str) -> bytes:
    return wasmtime.wat2wasm(text)


WORKER = wat("""
(module
  (global $counter (mut i32) (i32.const 0))
  (func (export "one_argument") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
  (func (export "two_arguments") (param i32 i32) (result i32) (i32.sub (local.get 0) (local.get 1)))
  (func (export "no_arguments") (result i32)
    (global.set $counter (i32.add (global.get $counter) (i32.const 1))) (global.get $counter))
  (func (export "mixed") (param i64 f32 f64) (result f64 i64 f32) (local.get 2) (local.get 0) (local.get 1))
  (func (export "forever") (loop $l (br $l)))
  (func $depth (export "depth") (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $depth (i32.sub (local.get 0) (i32.const 1)))))))
  (func (export "spin") (param i32) (loop $l (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
    (br_if $l (local.get 0))))
  (table (export "tab") 1 funcref)
  (global (export "g") i32 (i32.const 5)))
""")

WITH_MEMORY = wat("""
(module
  (memory (export "memory") 1)
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
  (func (export "size") (result i32) (memory.size))
  (func (export "poke") (param i32 i32) (i32.store (local.get 0) (local.get 1))))
""")


def memory_module(limits: str) -> bytes:
    return wat(f"""(module (memory {limits})
      (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))""")


def table_module(limits: str) -> bytes:
    return wat(f"""(module (table {limits} funcref)
      (func (export "grow") (param i32) (result i32) (table.grow (ref.null func) (local.get 0)))
      (func (export "size") (result i32) (table.size)))""")


@pytest.fixture
def worker():
    return wasmgpu.Module(WORKER)


# -- names and signatures ------------------------------------------------------------------

def parameters(function):
    return {name: (p.kind, p.default) for name, p in inspect.signature(function).parameters.items()}


def test_module_signature_is_the_originals():
    found = parameters(wasmgpu.Module.__init__)
    keyword = inspect.Parameter.KEYWORD_ONLY
    assert found["source"][0] == inspect.Parameter.POSITIONAL_OR_KEYWORD
    for name, default in [("files", None), ("execution", "auto"), ("compile_functions", None),
                          ("compile_limit", 256)]:
        assert found[name] == (keyword, default), name
    assert found["host_modules"] == (keyword, None)  # ours
    with pytest.raises(TypeError):
        wasmgpu.Module(WORKER, "auto")  # keyword-only, as the original
    assert wasmgpu.Module(WORKER).compile_limit == 256
    for bad in (3, None, ["worker.wasm"], object()):
        with pytest.raises(TypeError, match="source"):
            wasmgpu.Module(bad)


def test_spawn_and_call_signatures_are_the_originals():
    keyword = inspect.Parameter.KEYWORD_ONLY
    spawn = parameters(wasmgpu.Module.spawn)
    assert spawn["count"][0] == inspect.Parameter.POSITIONAL_OR_KEYWORD
    expected = {"memory_pages": None, "table_elements": None, "stack_size": 256, "call_depth": 64, "fuel": 10_000_000,
                "quantum": 4096, "batch_size": None, "max_resident_bytes": 512 * 1024 * 1024, "wasi": None,
                "device": None, "allow_software": False}
    for name, default in expected.items():
        assert spawn[name] == (keyword, default), name
    call = parameters(wasmgpu.Instances.call)
    assert list(call)[:3] == ["self", "name", "inputs"] and call["inputs"][1] is None
    assert call["fuel"] == (keyword, None) and call["cancel"] == (keyword, None)
    assert call["results"] == (keyword, "list")  # ours


def test_exports_are_a_mapping_of_name_to_kind(worker):
    assert worker.exports == {"one_argument": "function", "two_arguments": "function", "no_arguments": "function",
                              "mixed": "function", "forever": "function", "depth": "function", "spin": "function",
                              "tab": "table", "g": "global"}
    assert wasmgpu.Module(WITH_MEMORY).exports["memory"] == "memory"
    assert [e.name for e in worker.export_list] == list(worker.exports)  # ours, in order


def test_exception_classes_and_bases():
    assert issubclass(wasmgpu.ValidationError, wasmgpu.WasmGPUError)
    assert issubclass(wasmgpu.ValidationError, ValueError)
    for ours in (wasmgpu.MalformedModule, wasmgpu.InvalidModule):
        assert issubclass(ours, wasmgpu.ValidationError)
    assert issubclass(wasmgpu.UnsupportedFeatureError, wasmgpu.WasmGPUError)
    assert issubclass(wasmgpu.UnsupportedFeatureError, NotImplementedError)
    assert wasmgpu.UnsupportedFeature is wasmgpu.UnsupportedFeatureError
    for both, verdict in [(errors.UnsupportedAndMalformed, wasmgpu.MalformedModule),
                          (errors.UnsupportedAndInvalid, wasmgpu.InvalidModule)]:
        assert issubclass(both, wasmgpu.UnsupportedFeatureError) and issubclass(both, verdict)
        assert issubclass(both, ValueError) and issubclass(both, NotImplementedError)
    for name in ("ResourceLimitError", "GPUUnavailableError", "Trap", "LinkError"):
        assert issubclass(getattr(wasmgpu, name), wasmgpu.WasmGPUError), name
    with pytest.raises(wasmgpu.ValidationError):
        wasmgpu.Module(b"\x00asm\x02\x00\x00\x00")  # wrong version: malformed
    with pytest.raises(wasmgpu.ValidationError):
        wasmgpu.Module(wat("(module (func (result i32)))"))  # invalid: no result


def test_trap_carries_traps_and_results(worker, target):
    with worker.spawn(3, **target) as instances:
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("forever", fuel=100)
        assert isinstance(raised.value, wasmgpu.WasmGPUError)
        assert raised.value.traps == {0: "fuel exhausted", 1: "fuel exhausted", 2: "fuel exhausted"}
        assert raised.value.results == [None, None, None]


def test_instances_attributes(worker, target):
    with worker.spawn(3, **target) as instances:
        assert instances.module is worker and instances.count == 3 == len(instances)
        assert instances.exit_codes == [None, None, None]
        assert instances.stdout == [b"", b"", b""] and instances.stderr == [b"", b"", b""]
        with pytest.raises(FileNotFoundError):
            instances.read_file("result.txt", instance=0)
        with pytest.raises(IndexError):
            instances.read_file("result.txt", instance=3)
        assert instances.adapter_info["adapter_type"] in ("CPU", "DiscreteGPU", "IntegratedGPU", "VirtualGPU",
                                                          "Unknown")
        if target.get("device") == "cpu":
            assert instances.adapter_info["adapter_type"] == "CPU"
        elif instances.adapter_info["is_software"]:
            assert instances.adapter_info["adapter_type"] == "CPU"  # lavapipe is a CPU adapter


def test_zero_instances_are_an_empty_set(worker, target):
    with worker.spawn(0, **target) as instances:
        assert instances.count == 0
        assert instances.call("no_arguments") == []
        assert instances.call("one_argument", []) == []
        assert list(instances.call("one_argument", np.zeros(0, np.int32), results="numpy")) == []
        assert instances.stdout == [] and instances.exit_codes == []
        with pytest.raises(IndexError):
            instances.read_memory(0, 1, instance=0)


# -- reservations ----------------------------------------------------------------------------

@pytest.mark.parametrize("limits, reserved", [("1", 16), ("2 5", 5), ("20", 20), ("0", 16), ("3 3", 3)])
def test_default_memory_reservation(limits, reserved, target):
    # min(declared maximum or 65535, max(initial, 16)) pages.
    minimum = int(limits.split()[0])
    with wasmgpu.Module(memory_module(limits)).spawn(1, **target) as instances:
        if reserved > minimum:
            assert instances.call("grow", [reserved - minimum]) == [minimum]
        assert instances.call("grow", [1]) == [-1]
        assert instances.call("grow", [0]) == [reserved]


def test_memory_pages_outside_the_declared_limits_is_a_value_error(target):
    module = wasmgpu.Module(memory_module("2 5"))
    with pytest.raises(ValueError, match="memory_pages: the module's memory needs at least 2 pages, got 1"):
        module.spawn(1, memory_pages=1, **target)
    with pytest.raises(ValueError, match="memory_pages: .* at most 5 pages, got 6"):
        module.spawn(1, memory_pages=6, **target)
    with module.spawn(1, memory_pages=3, **target) as instances:
        assert instances.call("grow", [1]) == [2] and instances.call("grow", [1]) == [-1]


def test_malloc_style_growth_works_under_the_defaults(target):
    # A C allocator grows memory page by page as its heap fills (here: 15 grows of one page
    # from a one-page memory, as wasi-libc's malloc does for about 1 MiB of allocations).
    with wasmgpu.Module(WITH_MEMORY).spawn(2, **target) as instances:
        for page in range(1, 16):
            assert instances.call("grow", [1, 1]) == [page, page]
            instances.call("poke", [(page * 65536, page), (page * 65536 + 4, -page)])
        assert instances.call("size") == [16, 16]
        assert instances.read_memory(15 * 65536, 4, instance=0) == (15).to_bytes(4, "little")


@pytest.mark.parametrize("limits, reserved", [("1", 256), ("1 10", 10), ("300", 300), ("0", 256)])
def test_default_table_reservation(limits, reserved, target):
    with wasmgpu.Module(table_module(limits)).spawn(1, **target) as instances:
        minimum = int(limits.split()[0])
        if reserved > minimum:
            assert instances.call("grow", [reserved - minimum]) == [minimum]
        assert instances.call("grow", [1]) == [-1]
        assert instances.call("size") == [reserved]


def test_table_elements_below_a_minimum_is_a_value_error(target):
    module = wasmgpu.Module(table_module("8"))
    with pytest.raises(ValueError, match="table_elements: table 0 needs at least 8 elements, got 7"):
        module.spawn(1, table_elements=7, **target)
    with module.spawn(1, table_elements=1000, **target) as instances:
        assert instances.call("grow", [992]) == [8] and instances.call("grow", [1]) == [-1]


# -- fuel, call depth, stack, quantum, batches, budget ------------------------------------------

def test_default_fuel_stops_a_runaway_call(worker, target):
    fuel = 10_000_000 if target.get("device") == "cpu" else 200_000  # lavapipe: a smaller budget
    with worker.spawn(2, **target, **({} if target.get("device") == "cpu" else {"fuel": fuel})) as instances:
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("forever")
        assert raised.value.traps == {0: "fuel exhausted", 1: "fuel exhausted"}
        assert instances.last_call.instructions == 2 * fuel
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("forever", fuel=1000)  # a call's fuel overrides the default
        assert instances.last_call.instructions == 2 * 1000
        # The message says which argument to change; the reasons stay the spec's words.
        assert re.search(r"fuel exhausted \(the call's fuel=1000 instructions .* fuel=None for no limit\)",
                         str(raised.value))
        assert raised.value.traps == {0: "fuel exhausted", 1: "fuel exhausted"}


def test_call_stack_exhaustion_names_stack_size_and_call_depth(worker, target):
    with worker.spawn(1, call_depth=10, **target) as instances:
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("depth", [10])
        assert raised.value.traps == {0: "call stack exhausted"}
        assert "stack_size=256 slots or call_depth=10 nested calls ran out" in str(raised.value)
        assert (instances.stack_size, instances.call_depth) == (256, 10)


def test_fuel_none_is_unlimited_and_cancel_still_works(worker, target):
    with worker.spawn(1, fuel=None, quantum=1000, **target) as instances:
        seen = []

        def cancel():
            seen.append(instances.last_call.instructions)
            return len(seen) > 3

        with pytest.raises(InterruptedError):
            instances.call("forever", cancel=cancel)
        # last_call is updated as dispatches complete: the callback saw the progress (the
        # first dispatch also runs the host's entry step, which is not an instruction).
        assert seen == [0, 999, 1999, 2999]


def test_fuel_bounds_the_start_function_during_spawn(target):
    module = wasmgpu.Module(wat("(module (func $s (loop $l (br $l))) (start $s) (func (export \"f\")))"))
    with pytest.raises(wasmgpu.Trap, match="fuel exhausted") as raised:
        module.spawn(2, fuel=5000, **target)
    assert raised.value.traps == {0: "fuel exhausted", 1: "fuel exhausted"}


def test_call_depth_bounds_nested_calls_exactly(worker, target):
    with worker.spawn(1, call_depth=10, **target) as instances:
        assert instances.call("depth", [9]) == [9]  # 10 frames
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("depth", [10])  # 11 frames
        assert raised.value.traps == {0: "call stack exhausted"}
    with worker.spawn(1, stack_size=4096, **target) as instances:  # the default depth: 64 frames
        assert instances.call("depth", [63]) == [63]
        with pytest.raises(wasmgpu.Trap, match="call stack exhausted"):
            instances.call("depth", [64])


def test_stack_size_must_hold_the_largest_frame(target):
    locals_ = " ".join(["i32"] * 300)
    module = wasmgpu.Module(wat(f"(module (func (export \"f\") (param i32) (local {locals_})))"))
    with pytest.raises(wasmgpu.ResourceLimitError, match=r"stack_size: 256 slots cannot hold .* \(303 slots"):
        module.spawn(1, **target)
    with module.spawn(1, stack_size=303, **target) as instances:
        assert instances.call("f", [1]) == [None]


def test_quantum_bounds_the_instructions_per_dispatch(worker, target):
    with worker.spawn(1, quantum=100, **target) as instances:
        instances.call("spin", [1000])  # 6 instructions per iteration, a return
        stats = instances.last_call
        assert stats.instructions == 6 * 1000 + 1
        if stats.executed_as == "interpreter":
            assert stats.dispatches == -(-stats.instructions // 100)
        else:
            # Compiled code yields at block boundaries: whole blocks (at most 6 records in
            # this loop) while they fit the quantum, so a dispatch runs 95..100 records.
            assert -(-stats.instructions // 100) <= stats.dispatches <= -(-stats.instructions // 95)


def test_batch_size(worker, target):
    with pytest.raises(ValueError, match="batch_size: must be between 1"):
        worker.spawn(4, batch_size=0, **target)
    with worker.spawn(10, batch_size=3, **target) as instances:
        assert instances.call("one_argument", list(range(10))) == [3 * i for i in range(10)]
        assert instances.call("no_arguments") == [1] * 10


def test_the_resident_estimate_is_what_the_budget_is_checked_against(target):
    module = wasmgpu.Module(WITH_MEMORY)
    with pytest.raises(wasmgpu.ResourceLimitError, match="max_resident_bytes: 100 instances need") as raised:
        module.spawn(100, max_resident_bytes=1000, **target)
    needed = int(re.search(r"instances need (\d+) bytes", str(raised.value)).group(1))
    with module.spawn(100, max_resident_bytes=needed, **target) as instances:
        if target.get("device") == "cpu":
            assert instances.resident_bytes == needed
        else:
            # Paged memory (decision 0014): the budget holds what the spawn commits, and the pool
            # of frames it leaves nothing for gets its floor of 16 frames (one wasm page) each.
            assert instances.resident_bytes == needed + 100 * 16 * 4096
    with pytest.raises(wasmgpu.ResourceLimitError):
        module.spawn(100, max_resident_bytes=needed - 1, **target)
    # Neither device counts every reserved page: the cpu device counts what a spawn commits (the
    # memory, without data, is untouched address space until the program writes it); a Vulkan
    # spawn whose reservations do not fit pages its memories over a pool of frames.
    assert needed < 100 * 16 * 65536  # the default 16 pages of memory each
    with module.spawn(1000, **target) as instances:  # 1000 x 1 MiB of reservations: over 512 MiB
        if target.get("device") == "cpu":
            assert instances.resident_bytes < 1000 * 16 * 65536 // 100
        else:  # the pool takes what the budget leaves
            assert 1000 * 16 * 4096 < instances.resident_bytes <= 512 * 1024 * 1024


def test_small_instances_fit_100003_within_the_default_budget(target):
    module = wasmgpu.Module(wat("""(module (global $g (mut i64) (i64.const 0))
      (func (export "step") (param i32) (result i32)
        (global.set $g (i64.add (global.get $g) (i64.extend_i32_u (local.get 0))))
        (i32.mul (local.get 0) (i32.const 3))))"""))
    n = 100_003
    with module.spawn(n, **target) as instances:
        assert instances.resident_bytes < 2 * 2**30 and instances.resident_bytes <= 512 * 2**20
        values = np.arange(n, dtype=np.int32)
        assert np.array_equal(instances.call("step", values, results="numpy"), values * 3)


# -- argument conversion -----------------------------------------------------------------------

def test_python_ints_are_accepted_for_floats(worker, target):
    with worker.spawn(2, **target) as instances:
        assert instances.call("mixed", [(1, 2, 3), (-4, 5, 2**53)]) == [(3.0, 1, 2.0), (float(2**53), -4, 5.0)]
        assert instances.call("mixed", [(2**64 - 1, 0.5, -0.0), (-2**63, float("inf"), float("nan"))])[0] == (
            -0.0, -1, 0.5)


@pytest.mark.parametrize("row, error, match", [
    ((1, 1e39, 0.0), OverflowError, r"inputs\[0\]\[1\]: .* too large for f32"),
    ((1, 2**200, 0.0), OverflowError, r"inputs\[0\]\[1\]"),
    ((2**64, 0.0, 0.0), OverflowError, r"inputs\[0\]\[0\]: 18446744073709551616 does not fit in i64"),
    ((-2**63 - 1, 0.0, 0.0), OverflowError, r"inputs\[0\]\[0\]"),
    ((1, 0.0), TypeError, r"inputs\[0\]: expected 3 values, got 2"),
    ((1, 0.0, 0.0, 0.0), TypeError, r"inputs\[0\]: expected 3 values, got 4"),
    ((1.5, 0.0, 0.0), TypeError, r"inputs\[0\]\[0\]: expected an int for i64, got float"),
    ((True, 0.0, 0.0), TypeError, r"inputs\[0\]\[0\]"),
    (("1", 0.0, 0.0), TypeError, r"inputs\[0\]\[0\]"),
])
def test_bad_arguments_raise_before_anything_runs(worker, target, row, error, match):
    with worker.spawn(2, **target) as instances:
        with pytest.raises(error, match=match):
            instances.call("mixed", [row, (0, 0.0, 0.0)])
        assert instances.call("no_arguments") == [1, 1]  # no earlier call ran


def test_i32_accepts_signed_and_unsigned_patterns_only(worker, target):
    with worker.spawn(3, **target) as instances:
        assert instances.call("one_argument", [2**32 - 1, -2**31, 2**31]) == [-3, -2**31, -2**31]
        for bad in (2**32, -2**31 - 1):
            with pytest.raises(OverflowError, match=r"inputs\[1\]: .* does not fit in i32"):
                instances.call("one_argument", [0, bad, 0])
        with pytest.raises(ValueError, match="one row per instance"):
            instances.call("one_argument", [1, 2])


def test_unknown_and_non_function_exports_are_key_errors(worker, target):
    with worker.spawn(1, **target) as instances:
        with pytest.raises(KeyError, match="exports no function 'nope'"):
            instances.call("nope")
        for name, kind in [("tab", "table"), ("g", "global")]:
            with pytest.raises(KeyError, match=f"'{name}' is a {kind}, not a function"):
                instances.call(name)


def test_empty_memory_accesses(target):
    # Zero bytes at the end of memory are in range; the cpu device once passed the empty
    # buffer's null pointer to memcpy (UB that scripts/check_sanitizers.sh reports).
    with wasmgpu.Module(WITH_MEMORY).spawn(1, **target) as instances:
        assert instances.read_memory(65536, 0) == b""
        instances.write_memory(65536, b"")
        assert instances.read_memory(0, 0) == b""


def test_memory_access_errors(target):
    with wasmgpu.Module(WITH_MEMORY).spawn(2, **target) as instances:
        with pytest.raises(IndexError, match="beyond instance 0's memory"):
            instances.read_memory(65535, 2)
        with pytest.raises(IndexError, match="beyond instance 1's memory"):
            instances.write_memory(65536, b"x", instance=1)
        with pytest.raises(ValueError, match="address: must be non-negative"):
            instances.read_memory(-1, 1)
        with pytest.raises(ValueError, match="length: must be non-negative"):
            instances.read_memory(0, -1)
        with pytest.raises(ValueError, match="address"):
            instances.write_memory(-4, b"x")
        with pytest.raises(IndexError, match="instance: 2 is out of range"):
            instances.read_memory(0, 1, instance=2)
        with pytest.raises(ValueError, match="instance: must be non-negative"):
            instances.write_memory(0, b"x", instance=-1)
        assert instances.read_memory(65535, 1, instance=1) == b"\x00"


def test_cancel_before_the_first_dispatch_runs_nothing(worker, target):
    with worker.spawn(2, **target) as instances:
        with pytest.raises(InterruptedError, match="before its first dispatch"):
            instances.call("no_arguments", cancel=lambda: True)
        assert instances.last_call.cancelled and instances.last_call.dispatches == 0
        assert instances.call("no_arguments") == [1, 1]  # the cancelled call left no effect


def test_last_call_is_a_fresh_record_per_call(worker, target):
    with worker.spawn(1, **target) as instances:
        instances.call("spin", [10])
        first = instances.last_call
        instances.call("one_argument", [1])
        assert instances.last_call is not first and instances.last_call.function == "one_argument"
        assert first.function == "spin"


# -- NumPy inputs and results ----------------------------------------------------------------------

def test_numpy_inputs_and_results_match_the_list_form(worker, target):
    n = 257
    rng = np.random.default_rng(7)
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64)
    b = rng.integers(0, 2**32, n, dtype=np.uint64)
    with worker.spawn(n, **target) as instances:
        expected = instances.call("two_arguments", [(int(x), int(y)) for x, y in zip(a, b)])
        for inputs in (np.stack([a, b.astype(np.int64)], axis=1), (a, b), (a.astype(np.int32), b.astype(np.uint32))):
            assert instances.call("two_arguments", inputs) == expected
            got = instances.call("two_arguments", inputs, results="numpy")
            assert got.dtype == np.int32 and got.tolist() == expected
        wide = np.zeros((n, 4), np.int64)
        wide[:, 0], wide[:, 2] = a, b.astype(np.int64)
        assert instances.call("two_arguments", (wide[:, 0], wide[:, 2])) == expected  # strided views
        assert instances.call("one_argument", a[::1].astype(np.int32)) == [int(np.int32(x * 3)) for x in a]


def test_numpy_mixed_types_and_several_results(worker, target):
    n = 5
    i = np.array([1, -2, 3, 2**40, -1], np.int64)
    f = np.array([0.5, -1.25, 3.0, 1e30, -0.0], np.float32)
    d = np.array([1e300, -2.5, 0.1, 7.0, float("inf")], np.float64)
    with worker.spawn(n, **target) as instances:
        d_out, i_out, f_out = instances.call("mixed", (i, f, d), results="numpy")
        assert d_out.dtype == np.float64 and i_out.dtype == np.int64 and f_out.dtype == np.float32
        assert np.array_equal(d_out, d) and np.array_equal(i_out, i) and np.array_equal(f_out, f)
        rows = instances.call("mixed", list(zip(i.tolist(), f.tolist(), d.tolist())))
        assert rows == [(float(x), int(y), float(z)) for x, y, z in zip(d_out, i_out, f_out)]
        # float64 into f32 rounds to binary32, ints into floats convert
        got = instances.call("mixed", (i, f.astype(np.float64), np.arange(n)), results="numpy")
        assert np.array_equal(got[2], f) and np.array_equal(got[0], np.arange(n, dtype=np.float64))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                                   np.uint64, np.intc, np.longlong])
def test_every_integer_dtype_converts_by_value(worker, target, dtype):
    info = np.iinfo(dtype)
    values = np.array([info.min, 0, 1, min(info.max, 2**32 - 1)], dtype=dtype)
    with worker.spawn(4, **target) as instances:
        expected = [(int(v) * 3) & 0xFFFFFFFF for v in values]  # i32.mul on the bit pattern
        expected = [v - 2**32 if v >= 2**31 else v for v in expected]
        if info.min < -2**31:
            with pytest.raises(OverflowError, match=r"inputs\[0\]"):
                instances.call("one_argument", values)
        else:
            assert instances.call("one_argument", values) == expected


@pytest.mark.parametrize("inputs, error, match", [
    (np.zeros(3, np.float64), TypeError, r"inputs\[0\]: a float array was given for an i32 parameter"),
    (np.array([0, 2**32, 0], np.int64), OverflowError, r"inputs\[1\]: 4294967296 does not fit in i32"),
    (np.zeros(2, np.int32), ValueError, "one row per instance"),
    (np.zeros((3, 2), np.int32), TypeError, "one column per argument"),
    (np.zeros(3, np.bool_), TypeError, "arrays of integers or floats"),
])
def test_bad_numpy_inputs(worker, target, inputs, error, match):
    with worker.spawn(3, **target) as instances:
        with pytest.raises(error, match=match):
            instances.call("one_argument", inputs)
    with worker.spawn(3, **target) as instances:
        with pytest.raises(TypeError, match="a 1-D array gives one value per instance"):
            instances.call("two_arguments", np.zeros(3, np.int32))


def test_results_argument_is_checked(worker, target):
    with worker.spawn(1, **target) as instances:
        with pytest.raises(ValueError, match="results: must be one of 'list', 'numpy'"):
            instances.call("no_arguments", results="tuple")


def test_trapped_instances_read_zero_in_numpy_results(worker, target):
    with worker.spawn(3, call_depth=5, **target) as instances:
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("depth", np.array([1, 10, 2], np.int32), results="numpy")
        assert raised.value.traps == {1: "call stack exhausted"}
        assert raised.value.results.tolist() == [1, 0, 2]


# -- WASI imports are checked at load ---------------------------------------------------------------

# The 46 functions of wasi_snapshot_preview1 (the WASI preview-1 witx, lowered to core types).
WASI_PREVIEW1 = {
    "args_get": "ii", "args_sizes_get": "ii", "environ_get": "ii", "environ_sizes_get": "ii",
    "clock_res_get": "ii", "clock_time_get": "iIi", "fd_advise": "iIIi", "fd_allocate": "iII", "fd_close": "i",
    "fd_datasync": "i", "fd_fdstat_get": "ii", "fd_fdstat_set_flags": "ii", "fd_fdstat_set_rights": "iII",
    "fd_filestat_get": "ii", "fd_filestat_set_size": "iI", "fd_filestat_set_times": "iIIi", "fd_pread": "iiiIi",
    "fd_prestat_get": "ii", "fd_prestat_dir_name": "iii", "fd_pwrite": "iiiIi", "fd_read": "iiii",
    "fd_readdir": "iiiIi", "fd_renumber": "ii", "fd_seek": "iIii", "fd_sync": "i", "fd_tell": "ii",
    "fd_write": "iiii", "path_create_directory": "iii", "path_filestat_get": "iiiii",
    "path_filestat_set_times": "iiiiIIi", "path_link": "iiiiiii", "path_open": "iiiiiIIii",
    "path_readlink": "iiiiii", "path_remove_directory": "iii", "path_rename": "iiiiii", "path_symlink": "iiiii",
    "path_unlink_file": "iii", "poll_oneoff": "iiii", "proc_exit": "i", "proc_raise": "i", "sched_yield": "",
    "random_get": "ii", "sock_accept": "iii", "sock_recv": "iiiiii", "sock_send": "iiiii", "sock_shutdown": "ii",
}


def wasi_import(name: str, params: str, results: str) -> str:
    types = {"i": "i32", "I": "i64"}
    param_text = " ".join(types[c] for c in params)
    result_text = " ".join(types[c] for c in results)
    return (f'(import "wasi_snapshot_preview1" "{name}" (func (param {param_text}) (result {result_text})))'
            .replace("(param )", "").replace("(result )", ""))


def test_every_preview1_import_with_its_signature_loads():
    assert len(WASI_PREVIEW1) == 46
    imports = "\n".join(wasi_import(name, params, "" if name == "proc_exit" else "i")
                        for name, params in WASI_PREVIEW1.items())
    module = wasmgpu.Module(wat(f"(module {imports})"))
    assert [entry.name for entry in module.imports] == list(WASI_PREVIEW1)


@pytest.mark.parametrize("import_text, match", [
    (wasi_import("fd_write", "iii", "i"), r'"wasi_snapshot_preview1"."fd_write" has the signature \(i32, i32, i32\)'),
    (wasi_import("proc_exit", "i", "i"), r'"proc_exit" has the signature'),
    (wasi_import("clock_time_get", "iii", "i"), r'"clock_time_get" has the signature .* defines \(i32, i64, i32\)'),
    (wasi_import("random_get", "", ""), r'incompatible import type: .*"random_get" has the signature \(\) -> \(\)'),
])
def test_wasi_imports_with_a_wrong_signature_are_invalid_at_load(import_text, match):
    # The original package raises ValidationError ("incorrect WASI signature"): the module is
    # broken, not using a feature we lack. Ours is its InvalidModule subclass.
    with pytest.raises(wasmgpu.ValidationError, match=match) as raised:
        wasmgpu.Module(wat(f"(module {import_text})"))
    assert isinstance(raised.value, wasmgpu.InvalidModule)
    assert raised.value.reason.startswith("incompatible import type")  # the spec linker's wording
    assert not isinstance(raised.value, wasmgpu.UnsupportedFeatureError)


@pytest.mark.parametrize("import_text, match", [
    (wasi_import("fd_open", "i", "i"), r'"fd_open" is not a WASI preview 1 function'),
    ('(import "wasi_snapshot_preview1" "memory" (memory 1))', r'"memory" is a memory'),
])
def test_unknown_wasi_imports_are_unsupported_at_load(import_text, match):
    # As the original: a name outside preview 1 is UnsupportedFeatureError.
    with pytest.raises(wasmgpu.UnsupportedFeatureError, match=match) as raised:
        wasmgpu.Module(wat(f"(module {import_text})"))
    assert raised.value.feature in ("WASI", "imported memories")


# -- the original's exception classes, on every device ----------------------------------------------

def test_a_stack_too_small_for_any_frame_is_a_resource_limit(target):
    # The original: stack_size is positive, and one too small for a function's frame is
    # ResourceLimitError (its test_api: stack_size=1).
    module = wasmgpu.Module(wat("(module (func (local i32 i32)))"))
    with pytest.raises(wasmgpu.ResourceLimitError, match=r"stack_size: 1 slots .*set stack_size="):
        module.spawn(1, stack_size=1, **target)
    with pytest.raises(ValueError, match="stack_size"):
        module.spawn(1, stack_size=0, **target)


@pytest.mark.parametrize("options", [{"max_resident_bytes": 0}, {"fuel": 0}])
def test_zero_budgets_are_value_errors(worker, target, options):
    # The original requires a positive max_resident_bytes and fuel (ValueError), before any work.
    with pytest.raises(ValueError, match=next(iter(options))) as raised:
        worker.spawn(1, **options, **target)
    assert not isinstance(raised.value, wasmgpu.ResourceLimitError)


def test_wasi_quotas_beyond_an_instance_are_resource_limits(target):
    # The original: Wasi(max_files=2**30) is a valid configuration, and spawning with it raises
    # ResourceLimitError before anything is allocated (its test_validation).
    module = wasmgpu.Module(wat("(module)"), files={"x": b"x"})
    wasi = wasmgpu.Wasi(max_files=2**30)
    with pytest.raises(wasmgpu.ResourceLimitError, match="max_files"):
        module.spawn(1, wasi=wasi, **target)
    with pytest.raises(wasmgpu.ResourceLimitError, match="max_fds"):
        module.spawn(1, wasi=wasmgpu.Wasi(max_fds=2**30), **target)
    with pytest.raises(wasmgpu.ResourceLimitError, match="storage_size: 4 bytes cannot hold stdin and the files"):
        module.spawn(1, wasi=wasmgpu.Wasi(files={"a": b"long file"}, storage_size=4), **target)
    with pytest.raises(ValueError, match="max_files"):  # too few for the files: a bad argument, as the original
        module.spawn(1, wasi=wasmgpu.Wasi(files={"a/b/c": b"x"}, max_files=5), **target)


def test_reservations_beyond_the_device_are_resource_limits_on_every_device(target):
    # The original refuses 10,000 pages per instance before allocating; 100,003 of them exceed
    # what every device can reserve (the cpu device: 2^45 bytes of address space per spawn).
    module = wasmgpu.Module(memory_module("0 10000"))
    with pytest.raises(wasmgpu.ResourceLimitError, match="memory_pages"):
        module.spawn(100_003, memory_pages=10_000, max_resident_bytes=None, **target)
    # One such instance fits every device (ours; the original refuses it): the cpu device's
    # reservation is address space committed as it is written, and a GPU that cannot hold the
    # 655 MB in one buffer pages the memory (decision 0014).
    with module.spawn(1, memory_pages=10_000, max_resident_bytes=2**32 - 1, **target) as instances:
        assert instances.call("grow", [10_000]) == [0]
        last = 10_000 * 65536 - 4
        instances.write_memory(last, b"last")
        assert instances.read_memory(last, 4) == b"last" and instances.read_memory(last - 4, 4) == bytes(4)
        if target.get("device") == "cpu":
            assert instances.resident_bytes < 1 << 20


def test_a_clock_that_does_not_advance_is_refused():
    with pytest.raises(ValueError, match="clock_resolution_ns"):
        wasmgpu.Wasi(clock_resolution_ns=0)


def test_batch_size_beyond_the_device_is_a_resource_limit_on_every_device(worker, target):
    # The original (and our Vulkan path) refuse a batch no dispatch can hold; the cpu device
    # has the same limit (65,535 workgroups of 64 instances).
    with pytest.raises(wasmgpu.ResourceLimitError, match="batch_size: .* holds at most"):
        worker.spawn(4, batch_size=2**32 - 1, **target)
    with worker.spawn(4, batch_size=40_000, **target) as instances:  # within both devices' limits
        assert instances.call("one_argument", [1, 2, 3, 4]) == [3, 6, 9, 12]
    if target.get("device") == "cpu":
        with pytest.raises(wasmgpu.ResourceLimitError, match="batch_size: .* holds at most 4194240"):
            worker.spawn(4, batch_size=65_535 * 64 + 1, **target)


# -- module.compiled: the original's object -----------------------------------------------------------

LOOP = wat("""(module (memory 1 2) (global $g (mut i32) (i32.const 0))
  (func (export "run") (param $n i32) (result i32)
    block $done loop $next
      local.get $n i32.eqz br_if $done
      global.get $g i32.const 1 i32.add global.set $g
      i32.const 0 global.get $g i32.store
      local.get $n i32.const 1 i32.sub local.set $n br $next
    end end global.get $g))""")


def test_compiled_is_an_object_with_the_originals_attributes():
    # The original's test_codegen: .instructions, .functions (a tuple of function indices),
    # .complete, .regions (several for a large function at a small compile_limit),
    # .total_instructions; None in interpreter mode.
    compiled = wasmgpu.Module(LOOP, execution="compiled").compiled
    assert isinstance(compiled, wasmgpu.CompiledModule)
    assert compiled.instructions > 0 and compiled.complete is True
    assert wasmgpu.Module(LOOP, execution="compiled", compile_functions=[0, 0]).compiled.functions == (0,)
    assert wasmgpu.Module(LOOP, execution="interpreter").compiled is None
    assert wasmgpu.Module(LOOP).compiled.functions == (0,)  # "auto" compiles too

    operations = "i32.const 3 i32.add " * 400
    large = wasmgpu.Module(wat(f'(module (func (export "run") (param i32) (result i32) local.get 0 {operations}))'),
                           compile_limit=64)
    assert large.compiled.complete
    assert large.compiled.instructions > 256 == wasmgpu.Module(LOOP).compile_limit
    assert large.compiled.total_instructions == large.compiled.instructions  # nothing left uncompiled
    assert len(large.compiled.regions) > 1
    assert all(unit.instructions <= 64 and unit.functions == (0,) for unit in large.compiled.regions)
    assert sum(unit.instructions for unit in large.compiled.regions) == large.compiled.instructions
    assert sum(unit.blocks for unit in large.compiled.regions) == large.compiled.blocks
    assert "void main()" in large.compiled.source  # the first unit's compute shader (GLSL; the original's is WGSL)
    assert "compiled_unit_step" in large.compiled.source_for(1, device="cpu")  # ours: a unit's C++


def test_compiled_keeps_our_summary_reachable():
    # Ours: the earlier dict's keys, as items and attributes; functions as a count in the mapping.
    module = wasmgpu.Module(wat("""(module (import "wasi_snapshot_preview1" "sched_yield" (func (result i32)))
      (func (export "a") (result i32) (call 0)) (func (export "b")))"""), execution="compiled")
    compiled = module.compiled
    assert set(compiled) == {"units", "functions", "blocks", "instructions", "jump_table_entries", "complete"}
    assert compiled["functions"] == 2 and compiled.functions == (1, 2)  # imports are host functions
    assert compiled["units"] == compiled.units == len(compiled.regions)
    assert compiled.as_dict()["instructions"] == compiled.instructions
    assert compiled.wasi is True and wasmgpu.Module(LOOP).compiled.wasi is False
    with pytest.raises(IndexError, match="unit"):
        compiled.source_for(compiled.units)


# -- the seed's examples, as written ----------------------------------------------------------------

def test_the_seeds_examples_run_as_written(tmp_path, monkeypatch, vulkan_device):
    # As written: the default device (lavapipe in CI, through WAVESTACK_ALLOW_SOFTWARE_GPU=1).
    monkeypatch.chdir(tmp_path)
    (tmp_path / "worker.wasm").write_bytes(wat("""(module
      (func (export "process") (param i32) (result i32) (i32.add (local.get 0) (i32.const 1))))"""))
    (tmp_path / "calls.wasm").write_bytes(wat("""(module
      (func (export "one_argument") (param i32) (result i32) (local.get 0))
      (func (export "two_arguments") (param i32 i32) (result i32 i32) (local.get 1) (local.get 0))
      (func (export "no_arguments"))
      (memory (export "memory") 1))"""))
    inputs = list(range(100_000))
    module = wasmgpu.Module("worker.wasm")
    with module.spawn(100_000) as instances:
        results = instances.call("process", inputs)
    assert results == [i + 1 for i in inputs]
    module = wasmgpu.Module("calls.wasm")
    with module.spawn(3) as instances:
        a = instances.call("one_argument", [10, 20, 30])
        b = instances.call("two_arguments", [(1, 2), (3, 4), (5, 6)])
        c = instances.call("no_arguments")
        instances.write_memory(1024, b"payload", instance=0)
        content = instances.read_memory(1024, 7, instance=0)
    assert (a, b, c, content) == ([10, 20, 30], [(2, 1), (4, 3), (6, 5)], [None, None, None], b"payload")
