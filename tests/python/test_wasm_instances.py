"""Instances on the cpu device and on the selected Vulkan device (lavapipe in CI): calls,
results, traps and their prior effects, fuel, cancellation, reset, memory access,
memory.grow, the call stack, bad input (nothing runs), linking, and 100,003 instances on
the cpu device (10,000 on Vulkan). Modules are built here from bytes (wasm_builder)."""

from pathlib import Path
from typing import List, Tuple

import pytest

import wasmgpu
from device_support import gpu_required, spawn_keywords
from wasm_builder import F32, F64, I32, I64, EXTERNREF, ModuleBuilder, i32_const, uleb

LOCAL_GET = lambda k: b"\x20" + uleb(k)  # noqa: E731
GLOBAL_GET = lambda k: b"\x23" + uleb(k)  # noqa: E731
GLOBAL_SET = lambda k: b"\x24" + uleb(k)  # noqa: E731
I32_STORE = b"\x36\x02\x00"
I32_LOAD = b"\x28\x02\x00"


def worker_module() -> bytes:
    """A counter global, a memory, and functions that store, divide, loop and recurse."""
    b = ModuleBuilder()
    b.set_memory(1, 4, export="memory")
    counter = b.global_(I32, i32_const(0))
    # store(addr, value) then divide 100 by the value: traps on 0 after the store.
    b.function([I32, I32], [I32], LOCAL_GET(0) + LOCAL_GET(1) + I32_STORE + i32_const(100) + LOCAL_GET(1) + b"\x6d",
               export="store_then_divide")
    # spin(n): counter += 1, n times (a loop of 10 records per iteration).
    loop = (b"\x02\x40\x03\x40" + LOCAL_GET(0) + b"\x45\x0d\x01" + GLOBAL_GET(counter) + i32_const(1) + b"\x6a" +
            GLOBAL_SET(counter) + LOCAL_GET(0) + i32_const(1) + b"\x6b\x21\x00\x0c\x00\x0b\x0b")
    b.function([I32], [], loop, export="spin")
    b.function([], [I32], GLOBAL_GET(counter), export="counter")
    b.function([], [], b"\x03\x40\x0c\x00\x0b", export="forever")
    recurse = b.function([], [], b"\x10" + uleb(4), export="recurse")  # calls itself
    assert recurse == 4
    b.function([I32], [I32], LOCAL_GET(0) + b"\x40\x00", export="grow")
    b.function([], [I32], b"\x3f\x00", export="size")
    b.function([I64, F32, F64], [F64, I64, F32], LOCAL_GET(2) + LOCAL_GET(0) + LOCAL_GET(1), export="rotate")
    b.function([], [], b"", export="nothing")
    b.function([EXTERNREF], [I32], LOCAL_GET(0) + b"\xd1", export="is_null")
    return b.build()


@pytest.fixture
def module():
    return wasmgpu.Module(worker_module())


def test_results_in_instance_order_with_every_type(module, target):
    with module.spawn(3, **target) as instances:
        assert instances.call("rotate", [(1, 1.5, 2.25), (-1, -0.0, float("inf")), (2**64 - 1, 3.0, 4.0)]) == [
            (2.25, 1, 1.5), (float("inf"), -1, -0.0), (4.0, -1, 3.0)]
        assert instances.call("nothing") == [None, None, None]
        assert instances.call("is_null", [None, None, None]) == [1, 1, 1]
        assert instances.call("store_then_divide", [(0, 4), (0, 2**32 - 5), (0, -5)]) == [25, -20, -20]


def test_trap_reports_each_instance_and_keeps_prior_effects(module, target):
    with module.spawn(4, **target) as instances:
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("store_then_divide", [(16, 5), (16, 0), (16, 10), (16, 0)])
        assert raised.value.traps == {1: "integer divide by zero", 3: "integer divide by zero"}
        assert raised.value.results == [20, None, 10, None]
        # The store before the trap persisted (calls are not transactions).
        assert [instances.read_memory(16, 4, instance=i) for i in range(4)] == [
            (5).to_bytes(4, "little"), bytes(4), (10).to_bytes(4, "little"), bytes(4)]
        assert instances.last_call.traps == 2
        # The instances stay usable.
        assert instances.call("store_then_divide", [(0, 1)] * 4) == [100] * 4


# spin(n) executes 12 records per iteration (local.get, i32.eqz, br_if, global.get,
# i32.const, i32.add, global.set, local.get, i32.const, i32.sub, local.set, br; the
# increment is the 7th) and 4 to leave (local.get, i32.eqz, br_if, return).
def spin_records(n: int) -> int:
    return 12 * n + 4


def test_spin_record_count_matches_the_lowered_code(module):
    code = module._native.lowered_code(1)
    assert len(code) == 13  # 12 loop records + the function's return


def test_fuel_stops_exactly_at_the_budget_with_prior_effects(module, target):
    with module.spawn(2, **target) as instances:
        instances.call("spin", [3, 3])
        assert instances.last_call.instructions == 2 * spin_records(3)
        instances.reset()
        assert instances.call("spin", [3, 3], fuel=spin_records(3)) == [None, None]  # exactly enough
        instances.reset()
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("spin", [3, 3], fuel=spin_records(3) - 1)
        assert raised.value.traps == {0: "fuel exhausted", 1: "fuel exhausted"}
        assert raised.value.results == [None, None]
        assert instances.last_call.instructions == 2 * (spin_records(3) - 1)
        assert instances.call("counter") == [3, 3]
        for fuel, counter in [(12 * 7 + 6, 7), (12 * 7 + 7, 8)]:
            instances.reset()
            with pytest.raises(wasmgpu.Trap, match="fuel exhausted"):
                instances.call("spin", [100, 100], fuel=fuel)  # stops inside iteration 8
            assert instances.call("counter") == [counter, counter]


def test_fuel_zero_is_refused_before_anything_runs(module, target):
    # The original package requires a positive fuel (ValueError), in spawn and in call.
    with pytest.raises(ValueError, match="fuel"):
        module.spawn(1, fuel=0, **target)
    with module.spawn(1, **target) as instances:
        with pytest.raises(ValueError, match="fuel"):
            instances.call("spin", [1], fuel=0)
        assert instances.call("counter") == [0]
        with pytest.raises(wasmgpu.Trap, match="fuel exhausted"):
            instances.call("spin", [1], fuel=1)  # one instruction runs, the second stops it


def test_dispatches_count_quanta_with_or_without_a_cancel_callback(module, target):
    # Without a callback the cpu device runs many dispatches in one native step; last_call
    # still counts each dispatch of `quantum` records, as with a callback (one per step).
    counts = []
    for cancel in (None, lambda: False):
        with module.spawn(2, quantum=1000, **target) as instances:
            instances.call("spin", [20_000, 20_000], cancel=cancel)
            assert instances.call("counter") == [20_000, 20_000]
            counts.append(instances.last_call.dispatches)
            instances.call("spin", [20_000, 20_000], cancel=cancel)
            counts.append(instances.last_call.dispatches)
    records = spin_records(20_000)
    assert counts[1] == counts[3] >= records // 1000
    if target.get("device") == "cpu":  # (a Vulkan device may cut a quantum into more dispatches)
        assert counts[1] <= records // 1000 + 5


def test_cancel_is_checked_between_dispatches(module, target):
    with module.spawn(2, **target) as instances:
        instances.quantum = 1000
        checks = []

        def cancel():
            checks.append(1)
            return len(checks) >= 3

        with pytest.raises(InterruptedError):
            instances.call("forever", cancel=cancel)
        # Consulted before the first dispatch, then after each: the third check follows dispatch 2.
        assert len(checks) == 3
        assert instances.last_call.cancelled and instances.last_call.dispatches == 2
        # Effects so far persist and the instances take the next call.
        instances.call("spin", [5, 5])
        assert instances.call("counter") == [5, 5]


def test_long_calls_are_cut_into_quanta(module, target):
    with module.spawn(1, **target) as instances:
        instances.quantum = 100
        instances.call("spin", [50])
        assert instances.last_call.dispatches == (instances.last_call.instructions + 99) // 100
        assert instances.call("counter") == [50]


def test_reset_restores_memory_globals_and_size(module, target):
    with module.spawn(2, **target, memory_pages=3) as instances:
        instances.write_memory(100, b"hello", instance=1)
        instances.call("spin", [4, 4])
        assert instances.call("grow", [1, 1]) == [1, 1]
        instances.write_memory(65536 + 8, b"x", instance=0)
        instances.reset()
        assert instances.read_memory(100, 5, instance=1) == bytes(5)
        assert instances.call("counter") == [0, 0]
        assert instances.call("size") == [1, 1]
        assert instances.call("grow", [1, 1]) == [1, 1]
        assert instances.read_memory(65536 + 8, 1, instance=0) == b"\x00"  # grown pages start zero


def test_memory_grow_is_capped_by_the_reservation_and_the_declared_maximum(module, target):
    with module.spawn(1, **target, memory_pages=2) as instances:
        assert instances.call("grow", [1]) == [1]
        assert instances.call("grow", [1]) == [-1]  # beyond memory_pages
        assert instances.call("size") == [2]
    with module.spawn(1, **target, memory_pages=4) as instances:
        assert instances.call("grow", [3]) == [1]
        assert instances.call("grow", [1]) == [-1]  # beyond the declared maximum of 4
        assert instances.read_memory(4 * 65536 - 4, 4) == bytes(4)
    with pytest.raises(ValueError, match="memory_pages: .* at most 4 pages"):
        module.spawn(1, **target, memory_pages=5)


def test_read_and_write_memory_check_their_arguments(module, target):
    with module.spawn(2, **target) as instances:
        instances.write_memory(65530, b"abcdef", instance=1)
        assert instances.read_memory(65530, 6, instance=1) == b"abcdef"
        assert instances.read_memory(65530, 6, instance=0) == bytes(6)
        with pytest.raises(IndexError, match="beyond instance 1's memory"):
            instances.write_memory(65531, b"abcdef", instance=1)
        with pytest.raises(IndexError, match="beyond instance 0's memory"):
            instances.read_memory(65535, 2)
        with pytest.raises(IndexError, match="instance"):
            instances.read_memory(0, 1, instance=2)
        with pytest.raises(TypeError, match="data"):
            instances.write_memory(0, "text")
        with pytest.raises(ValueError, match="address"):
            instances.read_memory(-1, 1)


def test_call_stack_exhaustion_traps(module, target):
    with module.spawn(2, **target, stack_size=64) as instances:
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("recurse")
        assert raised.value.traps == {0: "call stack exhausted", 1: "call stack exhausted"}


def test_bad_inputs_name_the_argument_and_run_nothing(module, target):
    with module.spawn(3, **target) as instances:
        instances.call("store_then_divide", [(0, 1)] * 3)
        before = instances.last_call
        bad = [
            (ValueError, "inputs: expected one row per instance", [(0, 1)] * 2),
            (TypeError, r"inputs\[2\]: expected 2 values", [(0, 1), (0, 1), (0,)]),
            (TypeError, r"inputs\[1\]\[1\]: expected an int", [(0, 1), (0, 1.0), (0, 1)]),
            (OverflowError, r"inputs\[0\]\[0\]: .* does not fit", [(2**32, 1), (0, 1), (0, 1)]),
            (OverflowError, r"inputs\[0\]\[1\]: .* does not fit", [(0, -2**31 - 1), (0, 1), (0, 1)]),
            (TypeError, "inputs: expected a sequence", 7),
        ]
        for error, match, inputs in bad:
            with pytest.raises(error, match=match):
                instances.call("store_then_divide", inputs)
        with pytest.raises(TypeError, match=r"inputs\[0\]\[2\]: expected a float"):
            instances.call("rotate", [(1, 1.0, "2")] * 3)
        with pytest.raises(TypeError, match=r"inputs\[0\]: only None"):
            instances.call("is_null", [1, None, None])
        with pytest.raises(KeyError, match="name: the module exports no function 'missing'"):
            instances.call("missing")
        with pytest.raises(TypeError, match="fuel"):
            instances.call("nothing", fuel=1.5)
        with pytest.raises(ValueError, match="fuel"):
            instances.call("nothing", fuel=-1)
        with pytest.raises(TypeError, match="cancel"):
            instances.call("nothing", cancel=5)
        assert instances.read_memory(0, 4, instance=0) == (1).to_bytes(4, "little")  # nothing ran
        assert instances.call("counter") == [0, 0, 0]
        assert before.function == "store_then_divide"


def test_spawn_checks_its_arguments_before_allocating(module):
    for kwargs, error, match in [
        ({"n": -1}, ValueError, "count: must be between"),
        ({"n": 2.0}, TypeError, "count: expected an int"),
        ({"n": 1, "memory_pages": -1}, ValueError, "memory_pages"),
        ({"n": 1, "stack_size": 0}, ValueError, "stack_size"),
        ({"n": 1, "device": "cpu", "stack_size": 1}, wasmgpu.ResourceLimitError, "stack_size: 1 slots cannot hold"),
        ({"n": 1, "device": "tpu"}, wasmgpu.GPUUnavailableError, "device: 'tpu' matches no Vulkan device"),
        ({"n": 1, "device": "cpu", "wasi": object()}, TypeError, "wasi: expected a wasmgpu.Wasi"),
        ({"n": 2**31, "device": "cpu", "memory_pages": 4, "max_resident_bytes": None}, wasmgpu.ResourceLimitError,
         "bytes of address space .* more than the cpu device reserves"),
        ({"n": 2**28, "device": "cpu", "memory_pages": 1, "max_resident_bytes": None}, wasmgpu.ResourceLimitError,
         "more than the cpu device's memory"),
    ]:
        n = kwargs.pop("n")
        with pytest.raises(error, match=match):
            module.spawn(n, **kwargs)


def test_closed_instances_refuse_calls(module, target):
    instances = module.spawn(1, **target)
    assert instances.resident_bytes > 0
    info = instances.adapter_info
    if target.get("device") == "cpu":
        assert instances.device == "cpu" and info["device"] == "cpu"
    else:
        assert instances.device == info["name"] == wasmgpu._native.select_device(False)["name"]
    instances.close()
    with pytest.raises(RuntimeError, match="closed"):
        instances.call("nothing")


def test_start_function_runs_at_spawn_and_reset(target):
    b = ModuleBuilder()
    counter = b.global_(I32, i32_const(40))
    start = b.function([], [], GLOBAL_GET(counter) + i32_const(2) + b"\x6a" + GLOBAL_SET(counter))
    b.function([], [I32], GLOBAL_GET(counter), export="get")
    b.start = start
    with wasmgpu.Module(b.build()).spawn(3, **target) as instances:
        assert instances.call("get") == [42, 42, 42]
        instances.reset()
        assert instances.call("get") == [42, 42, 42]


def test_trapping_start_function_fails_spawn(target):
    b = ModuleBuilder()
    b.start = b.function([], [], b"\x00")
    with pytest.raises(wasmgpu.Trap, match="unreachable"):
        wasmgpu.Module(b.build()).spawn(2, **target)


def test_sparse_data_segments_land_exactly_and_reset_restores_them(target):
    # Data in a few 4 KiB blocks of a 3-page memory (one segment straddling a block boundary,
    # one whose only bytes are zeros over a non-zero one): the cpu device writes only the
    # blocks that hold data into a fresh memory, so every other byte must still read zero.
    segments = [(4090, b"straddles a block"), (2 * 65536 + 100, b"last page"), (70000, b"\x01\x02"),
                (70001, b"\x00")]
    expected = bytearray(3 * 65536)
    for offset, data in segments:
        expected[offset:offset + len(data)] = data
    b = ModuleBuilder()
    b.set_memory(3, export="memory")
    for offset, data in segments:
        b.active_data(offset, data)
    b.function([I32, I32], [], LOCAL_GET(0) + LOCAL_GET(1) + I32_STORE, export="store")
    wasm = b.build()
    # Wasmtime, the reference engine (a test dependency), lays the segments out the same way.
    import wasmtime
    store = wasmtime.Store()
    reference = wasmtime.Instance(store, wasmtime.Module(store.engine, wasm), []).exports(store)["memory"]
    assert bytes(reference.read(store, 0, len(expected))) == bytes(expected)
    with wasmgpu.Module(wasm).spawn(3, **target, memory_pages=4) as instances:
        for instance in range(3):
            assert instances.read_memory(0, len(expected), instance=instance) == bytes(expected)
        instances.call("store", [(8, 1), (4094, 2), (3 * 65536 - 4, 3)])
        instances.reset()
        for instance in range(3):
            assert instances.read_memory(0, len(expected), instance=instance) == bytes(expected)


def test_out_of_bounds_data_segment_fails_spawn(target):
    b = ModuleBuilder()
    b.set_memory(1)
    b.active_data(65534, b"abc")
    b.function([], [], b"", export="f")
    with pytest.raises(wasmgpu.Trap, match="out of bounds memory access"):
        wasmgpu.Module(b.build()).spawn(1, **target)


def test_host_imports_link_by_name_and_type(target):
    b = ModuleBuilder()
    b.import_function("spectest", "print_i32", [I32], [])
    b.function([I32], [I32], LOCAL_GET(0) + b"\x10\x00" + LOCAL_GET(0), export="echo")
    module = wasmgpu.Module(b.build(), host_modules=["spectest"])
    with module.spawn(2, **target) as instances:
        assert instances.call("echo", [7, 8]) == [7, 8]
    for name, params, match in [("print_i33", [I32], "unknown import"), ("print_i32", [I64], "incompatible")]:
        b = ModuleBuilder()
        b.import_function("spectest", name, params, [])
        b.function([], [], b"", export="f")
        with pytest.raises(wasmgpu.LinkError, match=match):
            wasmgpu.Module(b.build(), host_modules=["spectest"]).spawn(1, **target)


def test_wasi_imports_spawn_with_a_default_environment(target):
    b = ModuleBuilder()
    b.import_function("wasi_snapshot_preview1", "proc_exit", [I32], [])
    b.function([], [], i32_const(4) + b"\x10\x00", export="_start")
    with wasmgpu.Module(b.build()).spawn(2, **target) as instances:
        assert isinstance(instances.wasi, wasmgpu.Wasi)  # Wasi() when none is given
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("_start")
        assert raised.value.traps == {0: "WASI proc_exit", 1: "WASI proc_exit"}
        assert instances.exit_codes == [4, 4]


@pytest.mark.parametrize("execution", ["auto", "interpreter"])
def test_last_call_reports_phases_and_counters(execution, target):
    with wasmgpu.Module(worker_module(), execution=execution).spawn(4, **target) as instances:
        instances.call("spin", [10, 20, 30, 40])
        stats = instances.last_call
        # "auto" is compiled mode on every device.
        expected_mode = "compiled" if execution == "auto" else "interpreter"
        assert stats.execution == execution and stats.executed_as == expected_mode
        assert stats.device == instances.device
        total = sum(spin_records(k) for k in (10, 20, 30, 40))
        assert stats.instructions == total
        if expected_mode == "compiled":
            assert stats.compiled_instructions == total and stats.interpreted_instructions == 0
        else:
            assert stats.interpreted_instructions == total and stats.compiled_instructions == 0
        assert stats.dispatches == 1
        for phase in ("preparation", "upload", "dispatch", "readback", "decoding"):
            assert getattr(stats, f"{phase}_seconds") >= 0.0


# The Vulkan io buffer's outcome words per instance (vulkan_instances.cpp): 11, then two per
# result of the module's longest result list (worker_module's rotate: 3). Arguments go up
# packed, one 8-byte slot per parameter and instance.
WORKER_IO_BYTES = 4 * (11 + 2 * 3)
SLOT_BYTES = 8


@pytest.mark.parametrize("with_cancel", [False, True])
def test_last_call_counts_transfers_where_they_happen(target, with_cancel):
    # batch_size=2: five instances in three groups (a dispatch each per round), the same bytes.
    with wasmgpu.Module(worker_module(), execution="interpreter").spawn(5, batch_size=2, quantum=100,
                                                                          **target) as instances:
        instances.call("spin", [10, 20, 30, 40, 50], cancel=(lambda: False) if with_cancel else None)
        stats = instances.last_call
        assert instances.call("counter") == [10, 20, 30, 40, 50]
        assert stats.count == 5 and stats.instructions == sum(spin_records(k) for k in (10, 20, 30, 40, 50))
        if target.get("device") == "cpu":  # host memory: nothing to submit, wait for or copy
            assert (stats.submits, stats.fence_waits, stats.bytes_uploaded, stats.bytes_downloaded) == (0, 0, 0, 0)
            return
        # Each group dispatches until its slowest instance has finished: spin(20), spin(40) and
        # spin(50) run 244, 484 and 604 records, 3, 5 and 7 dispatches of 100.
        dispatched = [(spin_records(a) + 99) // 100 for a in (20, 40, 50)]
        group_sizes = [2, 2, 1]
        per_dispatch_readback = sum(d * n for d, n in zip(dispatched, group_sizes)) * WORKER_IO_BYTES
        assert stats.dispatches == max(dispatched)
        # One upload: the arguments (spin has one parameter).
        assert stats.bytes_uploaded == 5 * SLOT_BYTES
        assert stats.bytes_uploaded_per_instance == SLOT_BYTES
        # One fence wait per submission; at least a submission per dispatch with a cancel
        # callback, per dispatch sequence without (plus the staging copies of a device whose
        # buffers the host cannot map; lavapipe's it can).
        assert stats.fence_waits == stats.submits
        if with_cancel:
            # Consulted between dispatches: every instance's io words read after each dispatch.
            assert stats.bytes_downloaded == per_dispatch_readback
            assert sum(dispatched) <= stats.submits <= 2 * sum(dispatched) + 3
        else:
            # Dispatch sequences: a 4-byte running count per dispatch of a sequence (up to 64),
            # every instance's io words once, when its group has finished.
            counters = stats.bytes_downloaded - 5 * WORKER_IO_BYTES
            assert counters % 4 == 0 and len(dispatched) <= counters // 4 <= 64 * stats.submits
            assert stats.bytes_downloaded < per_dispatch_readback
            assert len(dispatched) <= stats.submits <= 2 * sum(dispatched) + 3
        # A function without parameters uploads nothing; one dispatch per group.
        instances.call("counter", cancel=(lambda: False) if with_cancel else None)
        assert instances.last_call.bytes_uploaded == 0
        assert instances.last_call.bytes_downloaded == 5 * WORKER_IO_BYTES + (0 if with_cancel else 4 * 3)
        # Two parameters, each instance's own in every group.
        assert instances.call("store_then_divide", [(4 * i, i + 1) for i in range(5)]) == [100 // (i + 1)
                                                                                          for i in range(5)]
        assert instances.last_call.bytes_uploaded == 5 * 2 * SLOT_BYTES
        assert [instances.read_memory(4 * i, 4, instance=i) for i in range(5)] == [
            (i + 1).to_bytes(4, "little") for i in range(5)]


def spin_64_calls(target, execution: str):
    """last_call of spin(2000) on 64 instances with a quantum of 100 records (241 quanta), checked
    against the counters it leaves; a Vulkan device only (the cpu device reads nothing back)."""
    if target.get("device") == "cpu":
        pytest.skip("the cpu device runs on host memory: nothing is read back")
    with wasmgpu.Module(worker_module(), execution=execution).spawn(64, quantum=100, **target) as instances:
        instances.call("spin", [2000] * 64)
        stats = instances.last_call
        assert instances.call("counter") == [2000] * 64
        assert stats.instructions == 64 * spin_records(2000)
        return stats


def test_dispatch_sequences_read_outcomes_once_and_a_count_per_dispatch(target):
    # (compiled mode reads a summary after each step instead: the test after this one)
    stats = spin_64_calls(target, "interpreter")
    assert stats.dispatches == (spin_records(2000) + 99) // 100  # 241, each with instances to run
    # Every outcome once (64 instances, one group), plus a 4-byte count per dispatch of each
    # sequence: all of a sequence's dispatches run instances but in the last, which stops
    # early (at most 63 left over), where reading every outcome after each dispatch would
    # download 241 times as much.
    outcomes = 64 * WORKER_IO_BYTES
    assert outcomes + 4 * stats.dispatches <= stats.bytes_downloaded <= outcomes + 4 * (stats.dispatches + 63)
    # (how many share a submission depends on the dispatches' time: up to 10 ms a step; a
    # device the host cannot map adds one for the outcomes' staging copy)
    assert stats.fence_waits == stats.submits <= stats.dispatches + 1


def test_compiled_steps_read_a_summary_instead_of_every_outcome(target):
    # Compiled mode's host picks each step's units from the instances' next blocks: the last
    # dispatch of a step sums them up on the device (a count running, a count the host must look
    # at, a set of blocks: 64 words), so the host reads every outcome only when the group is done.
    stats = spin_64_calls(target, "compiled")
    steps = (spin_records(2000) + 99) // 100  # each runs one quantum of 100 records at most
    assert stats.dispatches >= steps
    outcomes, summary = 64 * WORKER_IO_BYTES, 4 * 64
    # A summary per step, every outcome once at the end; reading every outcome after every
    # step would be `steps` times the outcomes.
    assert outcomes + summary * steps <= stats.bytes_downloaded <= outcomes + summary * (stats.dispatches + 1)
    assert stats.bytes_downloaded < steps * outcomes / 10
    # All but one instance return at once: the summaries then hold that one instance's blocks.
    with wasmgpu.Module(worker_module(), execution="compiled").spawn(64, quantum=100, **target) as instances:
        instances.call("spin", [50] + [0] * 63)
        assert instances.call("counter") == [50] + [0] * 63


def test_100003_instances_on_the_cpu_device():
    b = ModuleBuilder()
    total = b.global_(I64, b"\x42\x00")
    b.function([I32], [I32, I64], LOCAL_GET(0) + i32_const(3) + b"\x6c" + GLOBAL_GET(total) + LOCAL_GET(0) +
               b"\xad\x7c" + GLOBAL_SET(total) + GLOBAL_GET(total), export="step")
    n = 100_003
    with wasmgpu.Module(b.build()).spawn(n, device="cpu", stack_size=16) as instances:
        # 24 control words, one global (2 words) and 16 stack slots (32 words): 232 bytes per
        # instance, each instance's state starting a 64-byte line: 256.
        assert 256 * n <= instances.resident_bytes < 256 * n + 4096
        results = instances.call("step", list(range(n)))
        assert results == [(3 * i, i) for i in range(n)]
        results = instances.call("step", list(range(n)))
        assert results[-1] == (3 * (n - 1), 2 * (n - 1))


def mappings() -> List[Tuple[int, List[str]]]:
    """This process's mappings: (size in kB, VmFlags)."""
    found, size = [], None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if line.startswith("Size:"):
            size = int(line.split()[1])
        elif line.startswith("VmFlags:"):
            found.append((size, line.split()[1:]))
    return found


@pytest.mark.skipif(not Path("/sys/kernel/mm/transparent_hugepage").exists(), reason="no transparent huge pages")
def test_cpu_device_states_go_on_huge_pages_only_where_every_slice_is_committed():
    # Small states are committed whole anyway: their mapping is advised onto huge pages (one TLB
    # entry per 2 MiB at 100,000 instances). A memory of 4 pages is not (an instance touches a
    # few lines of it: huge pages would commit all 256 KiB). (The memories' mapping is found by
    # its size at least: the kernel may merge it with a neighbouring mapping of the same kind,
    # which an advised mapping is not.)
    b = ModuleBuilder()
    b.set_memory(4)
    b.function([I32], [I32], LOCAL_GET(0) + i32_const(1) + b"\x6a", export="inc")
    n = 20_011
    states_kb, memories_kb = (256 * n + 4095) // 4096 * 4, 4 * 65536 * n // 1024
    with wasmgpu.Module(b.build()).spawn(n, device="cpu", stack_size=16, memory_pages=4,
                                         max_resident_bytes=None) as instances:
        assert instances.call("inc", [7] * n) == [8] * n
        found = mappings()
        assert [flags for size, flags in found if size == states_kb and "hg" in flags]
        assert [flags for size, flags in found if size >= memories_kb and "hg" not in flags]
        assert not [flags for size, flags in found if size >= memories_kb and "hg" in flags]


def test_10000_instances_on_vulkan():
    if wasmgpu._native.select_device(False) is None:
        reason = "no usable Vulkan device (software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)"
        if gpu_required():
            pytest.fail(reason + " (WAVESTACK_REQUIRE_GPU=1)")
        pytest.skip(reason)
    b = ModuleBuilder()
    b.set_memory(1)
    # collatz(n): steps to reach 1 (data-dependent lengths across instances), stored at 0.
    body = (b"\x02\x40\x03\x40" + LOCAL_GET(0) + i32_const(1) + b"\x46\x0d\x01" +
            LOCAL_GET(0) + i32_const(1) + b"\x71\x04\x40" + LOCAL_GET(0) + i32_const(3) + b"\x6c" + i32_const(1) +
            b"\x6a\x21\x00\x05" + LOCAL_GET(0) + i32_const(1) + b"\x76\x21\x00\x0b" +
            LOCAL_GET(1) + i32_const(1) + b"\x6a\x21\x01\x0c\x00\x0b\x0b" +
            i32_const(0) + LOCAL_GET(1) + I32_STORE + LOCAL_GET(1))
    b.function([I32], [I32], body, locals=[I32], export="collatz")
    n = 10_000

    def steps(x):
        count = 0
        while x != 1:
            x = 3 * x + 1 if x & 1 else x >> 1
            count += 1
        return count

    # quantum 1,000: the longest run (261 steps, about 3,400 instructions) needs several
    # dispatches on every device (a hardware device's budget alone would allow one).
    with wasmgpu.Module(b.build()).spawn(n, memory_pages=1, max_resident_bytes=2**30, quantum=1000) as instances:
        results = instances.call("collatz", [i + 1 for i in range(n)])
        assert results == [steps(i + 1) for i in range(n)]
        assert instances.read_memory(0, 4, instance=n - 1) == steps(n).to_bytes(4, "little")
        assert instances.last_call.dispatches > 1


def test_spawn_too_large_for_the_device_fails_before_allocating(module, target):
    with pytest.raises(wasmgpu.ResourceLimitError, match="more than"):
        module.spawn(2**31, memory_pages=4, max_resident_bytes=None, **target)


def test_a_state_beyond_the_buffer_range_names_what_makes_it_large(vulkan_device):
    """One instance's state must fit a storage buffer's range on Vulkan: a too-large value stack
    or WASI region is a ResourceLimitError naming stack_size or storage_size, before any work."""
    b = ModuleBuilder()
    b.import_function("wasi_snapshot_preview1", "proc_exit", [I32], [])
    b.function([], [], i32_const(0) + b"\x10\x00", export="_start")
    module = wasmgpu.Module(b.build())
    range_bytes = vulkan_device["limits"]["max_storage_buffer_range"]
    gpu = spawn_keywords("vulkan")
    with pytest.raises(wasmgpu.ResourceLimitError, match=r"^stack_size / storage_size: .*lower stack_size"):
        module.spawn(1, stack_size=range_bytes // 8 + 1, max_resident_bytes=None, **gpu)
    if range_bytes >= (1 << 30) - (1 << 20):
        pytest.skip(f"this device's range ({range_bytes} bytes) exceeds the largest storage_size")
    wasi = wasmgpu.Wasi(storage_size=range_bytes, files={"big.bin": bytes(1000)})
    with pytest.raises(wasmgpu.ResourceLimitError, match=r"^storage_size / stack_size: .*WASI region"):
        module.spawn(1, wasi=wasi, max_resident_bytes=None, **gpu)


def bulk_module() -> bytes:
    b = ModuleBuilder()
    b.set_memory(2)
    b.function([I32, I32, I32], [], LOCAL_GET(0) + LOCAL_GET(1) + LOCAL_GET(2) + b"\xfc\x0b\x00", export="fill")
    b.function([I32, I32, I32], [], LOCAL_GET(0) + LOCAL_GET(1) + LOCAL_GET(2) + b"\xfc\x0a\x00\x00", export="copy")
    b.table(0, 100000, element=EXTERNREF)
    b.function([I32], [I32], b"\xd0\x6f" + LOCAL_GET(0) + b"\xfc\x0f\x00", export="grow_table")
    b.function([], [I32], b"\xfc\x10\x00", export="table_size")
    # 5000 locals: `dirty` sets the last one, `clean` reads it (must be zero: locals start at 0).
    b.function([], [], i32_const(7) + b"\x21" + uleb(4999), locals=[I32] * 5000, export="dirty")
    b.function([], [I32], LOCAL_GET(4999), locals=[I32] * 5000, export="clean")
    return b.build()


def test_bulk_instructions_run_in_chunks_as_one_record(target):
    with wasmgpu.Module(bulk_module()).spawn(2, stack_size=16384, table_elements=60_000, **target) as instances:
        instances.quantum = 10  # tiny dispatches: every bulk instruction takes many chunks
        pattern = bytes(range(256)) * 512  # 128 KiB
        instances.write_memory(0, pattern, instance=0)
        instances.write_memory(0, pattern, instance=1)
        assert instances.call("fill", [(1000, 0xAB, 100_000), (0, 0, 0)]) == [None, None]
        assert instances.last_call.instructions == 2 * 5  # per instance: 3 local.get, memory.fill, return
        assert instances.last_call.dispatches > 3
        expected = bytearray(pattern)
        expected[1000:101_000] = b"\xab" * 100_000
        assert instances.read_memory(0, len(pattern), instance=0) == bytes(expected)
        # Overlapping copies in both directions, against Python's slice semantics.
        instances.call("copy", [(10, 0, 90_000), (0, 10, 90_000)])
        expected0 = bytearray(expected)
        expected0[10:90_010] = expected[0:90_000]
        expected1 = bytearray(pattern)
        expected1[0:90_000] = pattern[10:90_010]
        assert instances.read_memory(0, len(pattern), instance=0) == bytes(expected0)
        assert instances.read_memory(0, len(pattern), instance=1) == bytes(expected1)
        # A bulk instruction out of bounds changes nothing, whatever the chunking.
        with pytest.raises(wasmgpu.Trap, match="out of bounds memory access"):
            instances.call("fill", [(0, 0, 131_073), (0, 0, 131_073)])
        assert instances.read_memory(0, len(pattern), instance=1) == bytes(expected1)
        assert instances.call("grow_table", [50_000, 10]) == [0, 0]
        assert instances.call("table_size") == [50_000, 10]
        assert instances.call("grow_table", [10_001, 1]) == [-1, 10]  # beyond table_elements


def test_fuel_counts_a_chunked_instruction_once(target):
    with wasmgpu.Module(bulk_module()).spawn(1, stack_size=16384, **target) as instances:
        instances.quantum = 10
        assert instances.call("fill", [(0, 1, 100_000)], fuel=5) == [None]
        with pytest.raises(wasmgpu.Trap, match="fuel exhausted"):
            instances.call("fill", [(0, 2, 100_000)], fuel=3)  # stops before memory.fill
        assert instances.read_memory(0, 4) == b"\x01" * 4


def test_callee_locals_start_at_zero_when_cleared_in_chunks(target):
    with wasmgpu.Module(bulk_module()).spawn(2, stack_size=16384, **target) as instances:
        instances.quantum = 7
        instances.call("dirty")
        assert instances.call("clean") == [0, 0]
        assert instances.last_call.instructions == 2 * 2  # per instance: local.get, return


def test_instances_spread_over_several_buffer_groups(target):
    # 600 reserved pages (37.5 MiB) per instance: on a device with a 128 MiB storage buffer
    # range (lavapipe) at most 3 instances share a buffer, so 10 instances need 4 groups.
    b = ModuleBuilder()
    b.set_memory(1)
    b.function([I32, I32], [I32], LOCAL_GET(0) + LOCAL_GET(1) + I32_STORE + i32_const(100) + LOCAL_GET(1) + b"\x6d",
               export="store_then_divide")
    b.function([I32], [I32], LOCAL_GET(0) + b"\x40\x00", export="grow")
    module = wasmgpu.Module(b.build())
    with module.spawn(10, memory_pages=1, stack_size=64, **target) as instances:
        small = instances.resident_bytes
    with module.spawn(10, memory_pages=600, stack_size=64, **target) as instances:
        if target.get("device") == "cpu":  # reserved address space, committed as the program touches it
            assert instances.resident_bytes == small
        else:
            assert instances.resident_bytes >= small + 10 * 599 * 65536
        assert instances.call("store_then_divide", [(4 * i, i + 1) for i in range(10)]) == [
            100 // (i + 1) for i in range(10)]
        for i in (0, 3, 9):
            assert instances.read_memory(4 * i, 4, instance=i) == (i + 1).to_bytes(4, "little")
            assert instances.read_memory(4 * ((i + 1) % 10), 4, instance=i) == bytes(4)
        assert instances.call("grow", [2] * 10) == [1] * 10
        instances.write_memory(3 * 65536 - 1, b"z", instance=7)
        assert instances.read_memory(3 * 65536 - 1, 1, instance=7) == b"z"
        assert instances.read_memory(3 * 65536 - 1, 1, instance=6) == b"\x00"
