"""Paged linear memory on Vulkan (decision 0014): a spawn whose instances' reserved pages do not
fit its budget gets each memory as a page table over a shared pool of 4 KiB frames, a frame given
when the instance first writes a page. Everything a memory does (loads and stores across frame
boundaries, initial data, memory.grow, bulk operations, the host's reads and writes, reset) is
compared with Wasmtime, in both execution modes, with paging forced by
WAVESTACK_WASM_VULKAN_MEMORY=paged and chosen by the spawn itself; a pool that runs out traps the
instances that found it full and nothing else."""

from __future__ import annotations

import pytest
import wasmtime

import wasmgpu
from device_support import spawn_keywords

# Data across the first frame boundary (4096) and in the second page; functions over addresses
# that straddle frames.
WAT = r"""
(module
  (memory (export "memory") 2 100)
  (data (i32.const 4090) "\01\02\03\04\05\06\07\08\09\0a\0b\0c")
  (data (i32.const 70000) "paged memory")
  (func (export "store64") (param $a i32) (param $v i64) (i64.store (local.get $a) (local.get $v)))
  (func (export "load64") (param $a i32) (result i64) (i64.load (local.get $a)))
  (func (export "store16") (param $a i32) (param $v i32) (i32.store16 (local.get $a) (local.get $v)))
  (func (export "grow") (param $n i32) (result i32) (memory.grow (local.get $n)))
  (func (export "fill") (param $d i32) (param $v i32) (param $n i32)
    (memory.fill (local.get $d) (local.get $v) (local.get $n)))
  (func (export "copy") (param $d i32) (param $s i32) (param $n i32)
    (memory.copy (local.get $d) (local.get $s) (local.get $n)))
  ;; sum over k of (k + 1) * the 8 bytes at 8k, for k below n / 8
  (func (export "checksum") (param $n i32) (result i64) (local $a i32) (local $sum i64)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $a) (local.get $n)))
        (local.set $sum (i64.add (local.get $sum)
          (i64.mul (i64.load (local.get $a)) (i64.extend_i32_u (i32.add (i32.shr_u (local.get $a) (i32.const 3)) (i32.const 1))))))
        (local.set $a (i32.add (local.get $a) (i32.const 8)))
        (br $next)))
    (local.get $sum))
  ;; writes one byte in the middle of each of the first `frames` 4 KiB blocks
  (func (export "touch") (param $frames i32) (result i32) (local $k i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $k) (local.get $frames)))
        (i32.store8 (i32.add (i32.const 2048) (i32.shl (local.get $k) (i32.const 12))) (i32.const 1))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $next)))
    (local.get $k)))
"""
INSTANCES = 6
MASK = (1 << 64) - 1


def scenario(call, read, write, reset):
    """What each engine runs: call(name, rows) -> results, read(address, length, instance),
    write(address, data, instance), reset(); returns everything observed."""
    seen = []
    n = range(INSTANCES)
    call("store64", [(4092 + i, 0x1122334455667788 + i) for i in n])  # across the first frame boundary
    seen.append(call("load64", [4088 + i for i in n]))
    seen.append(call("load64", [70000] * INSTANCES))  # initial data of the second page, unwritten
    seen.append(call("grow", [1] * INSTANCES))
    call("store64", [(2 * 65536 + 4094 + i, -1 - i) for i in n])  # a grown page, across frames
    seen.append(call("load64", [2 * 65536 + 4090 + i for i in n]))
    call("fill", [(8190 + i, 0x5A + i, 9000) for i in n])
    call("copy", [(8100, 8000, 5000)] * INSTANCES)  # overlapping, across frames
    seen.append(call("checksum", [3 * 65536] * INSTANCES))
    seen.append([read(4080, 40, i) for i in n])
    for i in n:
        write(12280 + i, bytes(range(i, i + 20)), i)
    seen.append(call("checksum", [3 * 65536] * INSTANCES))
    reset()  # initial data back, every written page zero again, two pages
    seen.append(call("checksum", [2 * 65536] * INSTANCES))
    seen.append(call("load64", [4088] * INSTANCES))
    seen.append(call("grow", [0] * INSTANCES))
    return seen


def wasmtime_observes(binary: bytes):
    engine = wasmtime.Engine()
    stores = []

    def fresh():
        stores.clear()
        for _ in range(INSTANCES):
            store = wasmtime.Store(engine)
            stores.append((store, wasmtime.Instance(store, wasmtime.Module(engine, binary), []).exports(store)))

    def call(name, rows):
        results = []
        for (store, exports), row in zip(stores, rows):
            row = row if isinstance(row, tuple) else (row,)
            value = exports[name](store, *row)
            results.append(value & MASK if isinstance(value, int) and name in ("load64", "checksum") else value)
        return results

    def read(address, length, instance):
        store, exports = stores[instance]
        return bytes(exports["memory"].read(store, address, address + length))

    def write(address, data, instance):
        store, exports = stores[instance]
        exports["memory"].write(store, data, address)

    fresh()
    return scenario(call, read, write, fresh)


def wasmgpu_observes(binary: bytes, execution: str, **spawn):
    module = wasmgpu.Module(binary, execution=execution)
    with module.spawn(INSTANCES, **spawn) as instances:
        def call(name, rows):
            results = instances.call(name, rows)
            return [v & MASK if isinstance(v, int) and name in ("load64", "checksum") else v for v in results]

        seen = scenario(call, lambda a, n, i: bytes(instances.read_memory(a, n, i)),
                        lambda a, d, i: instances.write_memory(a, d, i), instances.reset)
        return seen, instances.resident_bytes


@pytest.fixture(scope="module")
def binary():
    return wasmtime.wat2wasm(WAT)


@pytest.fixture(scope="module")
def expected(binary):
    return wasmtime_observes(binary)


@pytest.mark.parametrize("execution", ["interpreter", "compiled"])
def test_a_forced_paged_memory_behaves_as_wasmtimes(binary, expected, execution, monkeypatch):
    keywords = spawn_keywords("vulkan")
    monkeypatch.setenv("WAVESTACK_WASM_VULKAN_MEMORY", "paged")
    seen, resident = wasmgpu_observes(binary, execution, **keywords)
    assert seen == expected
    # Paged: far less than the six dense reservations of 100 pages each.
    assert resident < INSTANCES * 100 * 65536


def test_a_spawn_over_its_budget_pages_its_memory_by_itself(binary, expected):
    keywords = spawn_keywords("vulkan")
    # Dense, six reservations of 64 pages need 24 MiB; the budget holds the states and tables.
    budget = 4 << 20
    seen, resident = wasmgpu_observes(binary, "interpreter", memory_pages=64, max_resident_bytes=budget, **keywords)
    assert seen == expected
    # The pool takes what the budget leaves, at least one wasm page per instance.
    assert resident <= budget + INSTANCES * 65536 + (1 << 20)


def test_a_full_pool_traps_the_instances_that_found_it_full_and_reset_gives_its_frames_back(binary):
    keywords = spawn_keywords("vulkan")
    count = 64
    # 64 pages reserved each (1,024 frames) but a budget that leaves the pool its floor: 16 frames
    # per instance, 1,024 frames for the group, fewer than 64 instances writing 30 frames each.
    module = wasmgpu.Module(binary, execution="interpreter")
    with module.spawn(count, memory_pages=64, max_resident_bytes=2 << 20, **keywords) as instances:
        with pytest.raises(wasmgpu.Trap, match="device memory exhausted.*max_resident_bytes") as raised:
            instances.call("touch", [30] * count)
        trapped = raised.value.traps
        assert trapped and set(trapped.values()) == {"device memory exhausted"}
        returned = [i for i in range(count) if i not in trapped]
        assert all(raised.value.results[i] == 30 for i in returned)
        assert 1 <= len(returned) <= 16 * count // 30
        # A host write that needs more frames than are left changes nothing and says why.
        victim = next(iter(trapped))
        before = bytes(instances.read_memory(0, 2 * 65536, victim))
        with pytest.raises(wasmgpu.ResourceLimitError, match="device memory exhausted"):
            instances.write_memory(0, bytes(2 * 65536), victim)
        assert bytes(instances.read_memory(0, 2 * 65536, victim)) == before
        instances.reset()
        assert instances.call("touch", [10] * count) == [10] * count
        sums = [v & MASK for v in instances.call("checksum", [2 * 65536] * count)]
        assert sums == [after_touching(binary, 10)] * count


def after_touching(binary: bytes, frames: int) -> int:
    """Wasmtime's checksum of the first two pages after touch(frames)."""
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    exports = wasmtime.Instance(store, wasmtime.Module(engine, binary), []).exports(store)
    exports["touch"](store, frames)
    return exports["checksum"](store, 2 * 65536) & MASK


def test_the_paging_setting_is_checked(binary, monkeypatch):
    keywords = spawn_keywords("vulkan")
    monkeypatch.setenv("WAVESTACK_WASM_VULKAN_MEMORY", "sometimes")
    with pytest.raises(ValueError, match="WAVESTACK_WASM_VULKAN_MEMORY"):
        wasmgpu.Module(binary, execution="interpreter").spawn(2, **keywords)


def test_the_command_lets_a_gpus_paged_memory_grow_to_the_declared_maximum():
    # `python -m wasmgpu run` reserves the declared maximum on a GPU too (65,535 pages without
    # one), as far as all instances' page tables (64 bytes a page) fit 256 MiB; the spawn pages it.
    from wasmgpu.run_sizing import spawn_defaults

    unbounded = wasmgpu.Module(wasmtime.wat2wasm('(module (memory (export "memory") 2))'))
    bounded = wasmgpu.Module(wasmtime.wat2wasm('(module (memory (export "memory") 2 300))'))
    assert spawn_defaults(unbounded, {}, b"", 1, on_cpu=False)["memory_pages"] == 65535
    assert spawn_defaults(unbounded, {}, b"", 10_000, on_cpu=False)["memory_pages"] == (256 << 20) // (10_000 * 64)
    assert spawn_defaults(bounded, {}, b"", 1, on_cpu=False)["memory_pages"] == 300
    assert spawn_defaults(bounded, {}, b"", 10**6, on_cpu=False)["memory_pages"] == 4
    assert spawn_defaults(bounded, {}, b"", 10**8, on_cpu=False)["memory_pages"] == 2  # never below the initial
    keywords = spawn_keywords("vulkan")
    with unbounded.spawn(1, memory_pages=65535, max_resident_bytes=None, **keywords) as instances:
        assert instances.resident_bytes < 1 << 30  # far below the 4 GiB reserved
