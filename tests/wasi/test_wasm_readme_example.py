"""The README's wasmgpu example, as written, with a user's C worker that has a linear memory
(tests/fixtures/wasi/readme_worker_reactor.c, built with a two-page and a one-page memory), at
the defaults: 10,000 and 100,000 instances on the cpu device and on Vulkan (lavapipe in CI),
each result compared with Wasmtime's. The spawn's budget counts what the instances really
occupy (the cpu device commits pages lazily; on Vulkan the memories are paged over a pool of
frames given on first write, decision 0014): the reservation rules themselves are tested here
too, against the process's resident memory as the kernel reports it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import wasmtime

import wasmgpu

README = Path(__file__).resolve().parents[2] / "README.md"
WORKERS = ["readme_worker_reactor", "readme_worker_one_page"]  # two pages of memory, one page


def readme_example() -> str:
    """The first Python block of the README's wasmgpu section."""
    text = README.read_text()
    section = text[text.index("## wasmgpu"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def wasmtime_results(binary: bytes, rows) -> list:
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    instance = wasmtime.Instance(store, wasmtime.Module(engine, binary), [])
    process = instance.exports(store)["process"]
    return [process(store, a, b) for a, b in rows]


def resident_set_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


@pytest.mark.parametrize("count", [10_000, 100_000])
@pytest.mark.parametrize("worker", WORKERS)
def test_the_readme_example_runs_as_written_on_the_cpu_device(fixtures_dir, tmp_path, monkeypatch, worker, count):
    binary = (fixtures_dir / f"{worker}.wasm").read_bytes()
    memory = wasmgpu.Module(binary)._native.memory_limits
    assert memory[0] == (2 if worker == "readme_worker_reactor" else 1)
    (tmp_path / "worker.wasm").write_bytes(binary)
    monkeypatch.chdir(tmp_path)
    example = readme_example()
    assert "module.spawn(10_000)" in example
    # The example as written, on the cpu device (the README's comment names device="cpu") and at
    # the instance count under test; every other argument is the default.
    example = example.replace("module.spawn(10_000)", 'module.spawn(10_000, device="cpu")')
    example = example.replace("10_000", f"{count:_}")
    scope: dict = {}
    exec(compile(example, "README.md", "exec"), scope)
    rows = [(i, 2 * i) for i in range(count)]
    assert scope["results"] == wasmtime_results(binary, rows)
    stats = scope["instances"].last_call
    print(f"README example, {worker} ({memory[0]} page(s)), {count} instances on the cpu device: "
          f"{stats.executed_as} mode, {stats.instructions} instructions")


@pytest.mark.parametrize("count", [10_000, 100_000])
@pytest.mark.parametrize("worker", WORKERS)
def test_the_readme_example_runs_as_written_on_vulkan(fixtures_dir, tmp_path, monkeypatch, worker, count):
    from device_support import spawn_keywords  # tests/python

    spawn_keywords("vulkan")  # skips, or fails under WAVESTACK_REQUIRE_GPU=1, without a device
    binary = (fixtures_dir / f"{worker}.wasm").read_bytes()
    (tmp_path / "worker.wasm").write_bytes(binary)
    monkeypatch.chdir(tmp_path)
    example = readme_example()
    # The example as written at the defaults, on the selected Vulkan device (software adapters
    # as the environment allows). On lavapipe its interpreter: compiled mode's unit pipelines
    # take lavapipe minutes to build cold (the same paged memory serves both modes; compiled
    # mode is tested with paging in tests/python/test_wasm_paged_memory.py).
    example = example.replace('wasmgpu.Module("worker.wasm")', 'wasmgpu.Module("worker.wasm", execution="interpreter")')
    example = example.replace("module.spawn(10_000)", "module.spawn(10_000, allow_software=True)")
    example = example.replace("10_000", f"{count:_}")
    # (and what the spawn occupies, read before the `with` block closes it)
    call = re.search(r"\n( +)results = .*\n", example)
    example = example[:call.end()] + f"{call.group(1)}occupied = instances.resident_bytes\n" + example[call.end():]
    scope: dict = {}
    exec(compile(example, "README.md", "exec"), scope)
    rows = [(i, 2 * i) for i in range(count)]
    assert scope["results"] == wasmtime_results(binary, rows)
    # Paged: less than a tenth of the 16 reserved pages each (10 GiB for 10,000 instances).
    assert scope["occupied"] < count * 16 * 65536 // 10
    print(f"README example, {worker}, {count} instances on Vulkan: {scope['instances'].last_call.executed_as} "
          f"mode, {scope['occupied'] / count:.0f} bytes per instance")


def test_an_instance_counts_what_it_occupies_and_grows_within_its_reservation(fixtures_dir):
    # The budget is checked against what the spawn commits (the templates' data, each state's
    # first pages), which the kernel's count of this process's resident memory confirms; the rest
    # of the 16 reserved pages is address space, committed when the program touches it.
    binary = (fixtures_dir / "readme_worker_reactor.wasm").read_bytes()
    module = wasmgpu.Module(binary)
    before = resident_set_bytes()
    with module.spawn(10_000, device="cpu") as instances:
        grown = resident_set_bytes() - before
        assert instances.resident_bytes <= 10_000 * 8192 < 10_000 * 16 * 65536 // 50
        assert grown <= instances.resident_bytes + (8 << 20)  # the estimate is not an undercount
        # malloc grows the memory up to the reservation, min(declared maximum, max(initial, 16))
        # pages: as many 64 KiB blocks as Wasmtime gives with its memory limited to 16 pages.
        grown_blocks, processed = wasmtime_after_growth(binary, 40, pages=16)
        assert 0 < grown_blocks < 40
        assert instances.call("grow_heap", [40] * 10_000) == [grown_blocks] * 10_000
        assert instances.call("process", [(7, 14)] * 10_000) == [processed] * 10_000
    with pytest.raises(wasmgpu.ResourceLimitError, match="max_resident_bytes: 10000 instances need"):
        module.spawn(10_000, device="cpu", max_resident_bytes=10_000 * 1024)


def wasmtime_after_growth(binary: bytes, blocks: int, pages: int) -> tuple:
    """grow_heap(blocks), then process(7, 14), on Wasmtime with the memory limited to `pages`, as
    our reservation limits it."""
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    store.set_limits(memory_size=pages * 65536)
    exports = wasmtime.Instance(store, wasmtime.Module(engine, binary), []).exports(store)
    return exports["grow_heap"](store, blocks), exports["process"](store, 7, 14)
