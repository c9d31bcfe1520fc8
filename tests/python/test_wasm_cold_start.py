"""Compiled mode's builds on the cpu device (issue: a first run in seconds): the disk cache is
reused across processes and never trusts a damaged entry or another unit's; every tier plan
gives wasmtime's results, a hot unit is rebuilt in the background and swapped in without a
change in results; units are built ahead of need; progress is reported on stderr after a
second (or always, or never); ``python -m wasmgpu compile`` and ``Module(precompile=...)``
build every unit before the first call. Each process-level check runs a fresh Python process
over its own cache directory, since the module-keyed cache and the background pool are
process-wide.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import wasmtime

import wasmgpu
from device_support import spawn_keywords
from wasm_builder import large_function
from wasmgpu import _native


def wasm(text: str) -> bytes:
    return wasmtime.wat2wasm(text)


# A loop that a call enters once per quantum (so its unit becomes hot), with calls into a second
# function, f64 arithmetic and memory.
HOT = """
(module
  (memory 1)
  (func $step (param i32) (result i32) (i32.add (i32.mul (local.get 0) (i32.const 1103515245)) (i32.const 12345)))
  (func (export "spin") (param $n i32) (result i32) (local $i i32) (local $x i32) (local $f f64)
    (local.set $x (local.get $n))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (i32.const 3000)))
      (local.set $x (call $step (local.get $x)))
      (i32.store8 (i32.and (local.get $x) (i32.const 1023)) (local.get $x))
      (local.set $f (f64.add (local.get $f) (f64.div (f64.convert_i32_u (local.get $x)) (f64.const 7))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.add (local.get $x) (i32.add (i32.trunc_f64_u (f64.div (local.get $f) (f64.const 1e6)))
                                     (i32.load (i32.const 100))))))
"""


def reference(binary: bytes, name: str, args):
    store = wasmtime.Store()
    function = wasmtime.Instance(store, wasmtime.Module(store.engine, binary), []).exports(store)[name]
    return [function(store, a) for a in args]


def run_python(script: str, cache: Path, **env) -> subprocess.CompletedProcess:
    environment = dict(os.environ, WAVESTACK_CACHE_DIR=str(cache), **env)
    environment.pop("WAVESTACK_PROGRESS", None)
    environment.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=environment, capture_output=True,
                          text=True, timeout=600)


# One call of `big` in a fresh process: its results and last_call's build counters, as JSON.
CALL_BIG = """
    import json, sys
    import wasmgpu
    binary = bytes.fromhex(sys.argv[1] if len(sys.argv) > 1 else {binary!r})
    module = wasmgpu.Module(binary, execution="compiled")
    with module.spawn(3, device="cpu") as instances:
        results = instances.call("big", [1, 2, 3])
        s = instances.last_call
        print(json.dumps({{"results": results, "units": module.compiled["units"], "compiled": s.units_compiled,
                          "from_cache": s.units_from_cache, "ahead": s.units_built_ahead,
                          "codegen": s.codegen_seconds, "compile": s.compile_seconds}}))
"""


def call_big(binary: bytes, cache: Path, **env) -> dict:
    result = run_python(CALL_BIG.format(binary=binary.hex()), cache, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


# A plan whose first tier's units go to the disk cache (the baseline's are compiled again in
# every process, in microseconds): the cache's tests build with it.
CACHED = {"WAVESTACK_WASM_CPU_TIERS": "fast,optimized"}


def cache_entries(cache: Path) -> list:
    return sorted(path for path in cache.rglob("*") if path.is_file() and "cpu-jit" in path.parts)


def test_the_default_plan_compiles_every_unit_a_call_needs_with_the_baseline_and_caches_none(tmp_path):
    # Baseline units are compiled in every process (microseconds each), so the disk cache gets
    # no object and nothing is built ahead of need; results are Wasmtime's, cold and again.
    if _native.cpu_tier_plan()[0] != "baseline":
        pytest.skip("the default plan's first tier is not the baseline here")
    binary = wasm(large_function(300))
    expected = reference(binary, "big", [1, 2, 3])
    for _ in range(2):
        run = call_big(binary, tmp_path, WAVESTACK_WASM_CPU_TIERS="")
        assert run["results"] == expected
        assert run["compiled"] == run["units"] >= 6 and run["ahead"] == 0 and run["from_cache"] == 0
        assert cache_entries(tmp_path) == []


def test_the_cache_is_reused_by_another_process_without_generating_any_text(tmp_path):
    binary = wasm(large_function(300))
    expected = reference(binary, "big", [1, 2, 3])
    cold = call_big(binary, tmp_path, **CACHED)
    assert cold["results"] == expected
    assert cold["from_cache"] == 0 and cold["compiled"] >= 1
    assert cold["compiled"] + cold["ahead"] == cold["units"] >= 6
    assert len(cache_entries(tmp_path)) == cold["units"]
    warm = call_big(binary, tmp_path, **CACHED)
    assert warm["results"] == expected
    assert warm["from_cache"] == warm["compiled"] >= 1 and warm["compiled"] + warm["ahead"] == warm["units"]
    assert warm["codegen"] == 0.0  # keyed by the module, not by its texts


def perf_map_entries(pid: int) -> list:
    """(start, size, name) of every line of /tmp/perf-<pid>.map (perf's format), which is removed."""
    path = Path(f"/tmp/perf-{pid}.map")
    if not path.exists():
        return []
    text = path.read_text()
    path.unlink()
    return [(int(start, 16), int(size, 16), name) for start, size, name in
            (line.split(" ", 2) for line in text.splitlines())]


@pytest.mark.parametrize("wanted", ["1", None])
def test_perf_map_names_the_linked_units_for_linux_perf_only_when_asked(tmp_path, wanted):
    # WAVESTACK_PERF_MAP=1 lists every function the in-process compiler links, so that `perf
    # report` names compiled code: each unit's entry, and the rest of its code by its object.
    if _native.cpu_tier_plan()[0] == "host":
        pytest.skip("this build has no in-process compiler (the host's compiler builds units)")
    script = CALL_BIG.format(binary=wasm(large_function(300)).hex()) + "\n    import os; print(os.getpid())"
    # One tier and no builds ahead of need: every unit linked is one the call built.
    quiet = {"WAVESTACK_WASM_CPU_TIERS": "fast", "WAVESTACK_WASM_BUILD_AHEAD": "off"}
    result = run_python(script, tmp_path, **quiet, **({"WAVESTACK_PERF_MAP": wanted} if wanted else {}))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    entries = perf_map_entries(int(lines[-1]))
    if wanted is None:
        assert entries == []
        return
    units = json.loads(lines[-2])["compiled"]
    entry_points = [name for _, _, name in entries if name.endswith(":wasmgpu_unit_run")]
    assert len(entry_points) == units >= 6
    assert len({name.split(":")[0] for name in entry_points}) == units  # one object per unit
    assert any(name.startswith("preamble:") for _, _, name in entries)  # the shared runtime
    spans = sorted((start, start + size) for start, size, _ in entries)
    assert all(size > 0 for _, size, _ in entries)
    assert all(end <= next_start for (_, end), (next_start, _) in zip(spans, spans[1:]))  # no overlaps


def test_the_fast_tier_runtime_is_built_once_and_a_damaged_copy_is_rebuilt(tmp_path):
    # The fast tier's units call the device runtime in one object of its own, cached beside them.
    binary = wasm(large_function(300))
    expected = reference(binary, "big", [1, 2, 3])
    fast = {"WAVESTACK_WASM_CPU_TIERS": "fast"}
    assert call_big(binary, tmp_path, **fast)["results"] == expected
    runtimes = [path for path in tmp_path.rglob("*") if path.is_file() and "cpu-runtime" in path.parts]
    assert len(runtimes) == 1
    data = bytearray(runtimes[0].read_bytes())
    data[-100] ^= 0x55
    runtimes[0].write_bytes(bytes(data))
    warm = call_big(binary, tmp_path, **fast)  # units from the cache, the runtime rebuilt
    assert warm["results"] == expected and warm["from_cache"] == warm["compiled"] >= 1
    assert runtimes[0].read_bytes() != bytes(data)


def test_a_damaged_entry_is_rebuilt_never_loaded(tmp_path):
    binary = wasm(large_function(300))
    expected = reference(binary, "big", [1, 2, 3])
    call_big(binary, tmp_path, **CACHED)
    entries = cache_entries(tmp_path)
    assert entries
    for path in entries:  # one byte of the object flipped: the checksum no longer holds
        data = bytearray(path.read_bytes())
        data[-100] ^= 0x55
        path.write_bytes(bytes(data))
    damaged = call_big(binary, tmp_path, **CACHED)
    assert damaged["results"] == expected
    assert damaged["from_cache"] == 0 and damaged["compiled"] + damaged["ahead"] == damaged["units"]
    again = call_big(binary, tmp_path, **CACHED)  # the rebuilt entries replaced the damaged ones
    assert again["from_cache"] == again["compiled"] >= 1


def test_an_entry_of_another_unit_is_rebuilt_never_loaded(tmp_path):
    binary = wasm(large_function(300))
    other = wasm(large_function(301))  # a different module: its entries are valid, but not these units'
    expected = reference(binary, "big", [1, 2, 3])
    call_big(binary, tmp_path / "mine", **CACHED)
    call_big(other, tmp_path / "other", **CACHED)
    mine, theirs = cache_entries(tmp_path / "mine"), cache_entries(tmp_path / "other")
    assert mine and theirs
    for k, path in enumerate(mine):  # each replaced by a whole, checksummed entry of the other module
        path.write_bytes(theirs[k % len(theirs)].read_bytes())
    foreign = call_big(binary, tmp_path / "mine", **CACHED)
    assert foreign["results"] == expected
    assert foreign["from_cache"] == 0 and foreign["compiled"] + foreign["ahead"] == foreign["units"]


@pytest.mark.parametrize("plan", ["baseline", "baseline,optimized", "baseline,fast", "baseline,host", "fast", "optimized",
                                  "host", "fast,optimized", "fast,host", ""])
def test_every_tier_plan_gives_wasmtimes_results(tmp_path, plan):
    binary = wasm(large_function(120))
    assert call_big(binary, tmp_path, WAVESTACK_WASM_CPU_TIERS=plan)["results"] == reference(binary, "big", [1, 2, 3])


def test_a_bad_tier_plan_is_refused_at_spawn_naming_the_variable(monkeypatch):
    module = wasmgpu.Module(wasm(large_function(3)), execution="compiled")
    for bad in ("turbo", "fast,fast", "fast,optimized,host", "fast,baseline"):
        monkeypatch.setenv("WAVESTACK_WASM_CPU_TIERS", bad)
        with pytest.raises(ValueError, match="WAVESTACK_WASM_CPU_TIERS"):
            module.spawn(1, device="cpu")


def spin_until_hot(binary: bytes, seconds: int, then: str = "") -> str:
    """A script calling `spin` on 64 instances until a unit was rebuilt at the hot tier (or
    `seconds` passed) and once more after it, then running `then`, which may add to `report`;
    it prints the report (the calls' results and the count of hot rebuilds) as JSON."""
    return textwrap.dedent(f"""
        import json, time
        import wasmgpu
        from wasmgpu import _native
        module = wasmgpu.Module(bytes.fromhex({binary.hex()!r}), execution="compiled")
        seen = []
        with module.spawn(64, device="cpu", quantum=500) as instances:
            deadline = time.time() + {seconds}
            while True:
                seen.append(instances.call("spin", list(range(64))))
                if _native.compile_counters(module._native)["units_rebuilt_hot"] >= 1 or time.time() > deadline:
                    break
            seen.append(instances.call("spin", list(range(64))))  # after the swap
        report = {{"calls": seen, "hot": _native.compile_counters(module._native)["units_rebuilt_hot"]}}
    """) + textwrap.dedent(then) + "\nprint(json.dumps(report))\n"


def test_a_hot_unit_is_rebuilt_in_the_background_and_results_stay_the_same(tmp_path):
    binary = wasm(HOT)
    result = run_python(spin_until_hot(binary, 120), tmp_path, WAVESTACK_WASM_CPU_TIERS="fast,optimized")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["hot"] >= 1
    expected = reference(binary, "spin", range(64))
    assert all(call == expected for call in report["calls"])


def test_the_optimising_tier_builds_a_large_functions_units_as_spans(tmp_path):
    # A function the partition cuts into units (about 1,800 instructions: 8 units of at most 256)
    # is built by the optimising tiers as spans of consecutive units (up to 1,024 instructions,
    # one object each, control staying in one run of code across its units): fewer objects than
    # units, the same results, and a later process takes every unit from them.
    binary = wasm(large_function(300))
    cache = tmp_path / "cache"
    optimised = {"WAVESTACK_WASM_CPU_TIERS": "optimized"}
    first = call_big(binary, cache, **optimised)
    expected = reference(binary, "big", [1, 2, 3])
    assert first["results"] == expected and first["units"] == 8 and first["compiled"] == first["units"]
    objects = cache_entries(cache)
    assert 2 <= len(objects) <= 3, objects  # 8 units of 200 to 256 instructions in spans of 4 or more
    later = call_big(binary, cache, **optimised)
    assert later["results"] == expected
    assert later["from_cache"] == later["compiled"] == later["units"] and later["codegen"] == 0.0
    assert cache_entries(cache) == objects


def test_a_warm_start_at_the_default_plan_links_cached_units_without_loading_the_compiler(tmp_path):
    # `python -m wasmgpu compile` fills the cache at the hot tier; a later process at the default
    # plan takes every unit from it, linked by the extension's own loader: LLVM's library (a few
    # hundredths of a second to load) is never mapped, since nothing is built.
    if _native.cpu_tier_plan() != ("baseline", "optimized"):
        pytest.skip("the default plan here is not the baseline with the optimised tier for hot units")
    binary = wasm(large_function(300))
    path = tmp_path / "big.wasm"
    path.write_bytes(binary)
    cache = tmp_path / "cache"
    # The two processes on different cores: what the compiler's identity is found by must not
    # depend on the core (CPUID reports the core's APIC id beside the processor's model).
    cores = sorted(os.sched_getaffinity(0))
    compiled = subprocess.run([sys.executable, "-m", "wasmgpu", "compile", "--quiet", str(path)],
                              env=dict(os.environ, WAVESTACK_CACHE_DIR=str(cache)), capture_output=True, text=True,
                              timeout=600, preexec_fn=lambda: os.sched_setaffinity(0, {cores[0]}))
    assert compiled.returncode == 0, compiled.stderr
    # First a call over an empty cache directory, then (the variable changed in the process) over
    # the filled one: each directory is asked for the identity it holds.
    empty = tmp_path / "empty"
    script = (f"import os; os.sched_setaffinity(0, {{{cores[-1]}}})\n"
              f"os.environ['WAVESTACK_CACHE_DIR'] = {str(empty)!r}\n" +
              textwrap.dedent(CALL_BIG.format(binary=binary.hex())) +
              f"os.environ['WAVESTACK_CACHE_DIR'] = {str(cache)!r}\n" +
              textwrap.dedent(CALL_BIG.format(binary=binary.hex())) + textwrap.dedent("""
        mapped = open("/proc/self/maps").read()
        print(json.dumps({"compiler_loaded": "libwavestack_jit" in mapped}))
    """))
    result = run_python(script, cache, WAVESTACK_WASM_CPU_TIERS="")
    assert result.returncode == 0, result.stderr
    cold, run, loaded = (json.loads(line) for line in result.stdout.strip().splitlines()[-3:])
    assert cold["results"] == reference(binary, "big", [1, 2, 3]) and cold["from_cache"] == 0
    assert run["results"] == reference(binary, "big", [1, 2, 3])
    assert run["from_cache"] == run["compiled"] == run["units"] and run["codegen"] == 0.0
    assert loaded == {"compiler_loaded": False}


def test_the_default_plan_builds_with_the_host_compiler_where_the_in_process_one_does_not_load(tmp_path):
    # The default plan counts on the in-process compiler from its library's presence; a library
    # that is there but does not load leaves hot units and fuel's prefixes to the host's compiler.
    if _native.cpu_tier_plan()[0] != "baseline":
        pytest.skip("the default plan's first tier is not the baseline here")
    broken = tmp_path / "libwavestack_jit.so"
    broken.write_bytes(b"not a shared library")
    binary = wasm(HOT)
    script = spin_until_hot(binary, 300, then="""
        with module.spawn(1, device="cpu", fuel=5000) as short:
            try:
                short.call("spin", [1])
                ran_out = False
            except wasmgpu.Trap as trap:
                ran_out = "fuel" in str(trap)
        report.update(plan=_native.cpu_tier_plan(), ran_out=ran_out)
    """)
    result = run_python(script, tmp_path / "cache", WAVESTACK_WASM_CPU_TIERS="", WAVESTACK_JIT_LIBRARY=str(broken))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["plan"] == ["baseline", "optimized"] and report["hot"] >= 1 and report["ran_out"]
    assert all(call == reference(binary, "spin", range(64)) for call in report["calls"])


def test_progress_is_reported_on_stderr_unless_silenced(tmp_path):
    binary = wasm(large_function(300))
    script = CALL_BIG.format(binary=binary.hex())
    shown = run_python(script, tmp_path / "a", WAVESTACK_PROGRESS="always")
    assert shown.returncode == 0, shown.stderr
    lines = [line for line in shown.stderr.splitlines() if line.startswith("wasmgpu: ")]
    assert lines and lines[-1].startswith("wasmgpu: built ") and " units of the module in " in lines[-1], shown.stderr
    assert "for the call" in lines[-1] and "ahead of need" in lines[-1]
    for quiet in ("off", "0"):
        silent = run_python(script, tmp_path / f"b{quiet}", WAVESTACK_PROGRESS=quiet)
        assert silent.returncode == 0 and "wasmgpu: " not in silent.stderr, silent.stderr
    # A module's own progress=False wins over the variable.
    own = run_python(script.replace('execution="compiled")', 'execution="compiled", progress=False)'),
                     tmp_path / "c", WAVESTACK_PROGRESS="always")
    assert own.returncode == 0 and "wasmgpu: " not in own.stderr, own.stderr
    # The default shows nothing for a build that takes less than a second.
    quick = run_python(CALL_BIG.format(binary=wasm(large_function(2)).hex()), tmp_path / "d")
    assert quick.returncode == 0 and "wasmgpu: " not in quick.stderr, quick.stderr


def test_progress_counts_pipeline_builds_on_vulkan(tmp_path):
    """A first call on a Vulkan device builds pipelines (lavapipe: about a second or two per
    large unit) and shows that progress as the cpu device's builds do."""
    spawn_keywords("vulkan")  # skips, or fails under WAVESTACK_REQUIRE_GPU=1, without a device
    binary = wasm(large_function(300))
    script = CALL_BIG.format(binary=binary.hex()).replace('device="cpu"', "")
    shown = run_python(script, tmp_path / "a", WAVESTACK_PROGRESS="always")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout.strip().splitlines()[-1])
    assert report["results"] == reference(binary, "big", [1, 2, 3])
    lines = [line for line in shown.stderr.splitlines() if line.startswith("wasmgpu: ")]
    # Units the call built and units built ahead of need (every unit is needed: each counted once).
    built = report["compiled"] + report["ahead"]
    assert lines and lines[-1].startswith(f"wasmgpu: built {built} units of the module in "), shown.stderr
    assert f"({report['compiled']} for the call, {report['ahead']} ahead of need)" in lines[-1], shown.stderr
    silent = run_python(script, tmp_path / "b", WAVESTACK_PROGRESS="off")
    assert silent.returncode == 0 and "wasmgpu: " not in silent.stderr, silent.stderr


def test_a_bad_progress_setting_is_refused_naming_it(monkeypatch):
    monkeypatch.setenv("WAVESTACK_PROGRESS", "loud")
    with pytest.raises(ValueError, match="WAVESTACK_PROGRESS"):
        wasmgpu.Module(wasm(large_function(3)), execution="compiled")
    monkeypatch.delenv("WAVESTACK_PROGRESS")
    with pytest.raises(TypeError, match="progress"):
        wasmgpu.Module(wasm(large_function(3)), execution="compiled", progress="yes")


def test_python_m_wasmgpu_compile_builds_every_unit_for_later_processes(tmp_path):
    binary = wasm(large_function(300))
    path = tmp_path / "big.wasm"
    path.write_bytes(binary)
    cache = tmp_path / "cache"
    environment = dict(os.environ, WAVESTACK_CACHE_DIR=str(cache), WAVESTACK_PROGRESS="always")
    compiled = subprocess.run([sys.executable, "-m", "wasmgpu", "compile", "--tier", "fast", str(path)],
                              env=environment, capture_output=True, text=True, timeout=600)
    assert compiled.returncode == 0, compiled.stderr
    units = wasmgpu.Module(binary, execution="compiled").compiled["units"]
    assert f"{units}/{units}" in compiled.stderr and f"big.wasm: {units} units ready" in compiled.stderr
    assert len(cache_entries(cache)) == units
    later = call_big(binary, cache, WAVESTACK_WASM_CPU_TIERS="fast")
    assert later["results"] == reference(binary, "big", [1, 2, 3])
    assert later["from_cache"] == later["compiled"] and later["codegen"] == 0.0


@pytest.mark.parametrize("arguments, message", [
    (["compile", "missing.wasm"], "wasmgpu: source: no such file"),
    (["compile", "--device", "no-such-gpu", "{module}"], "wasmgpu: device:"),
])
def test_python_m_wasmgpu_compile_errors_are_one_line(tmp_path, arguments, message):
    path = tmp_path / "m.wasm"
    path.write_bytes(wasm(large_function(3)))
    command = [sys.executable, "-m", "wasmgpu"] + [a.format(module=path) for a in arguments]
    result = subprocess.run(command, env=dict(os.environ, WAVESTACK_CACHE_DIR=str(tmp_path / "cache")),
                            capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr


def test_precompile_builds_every_unit_before_the_first_call(tmp_path, monkeypatch):
    monkeypatch.setenv("WAVESTACK_CACHE_DIR", str(tmp_path))
    binary = wasm(large_function(300))
    module = wasmgpu.Module(binary, execution="compiled", precompile="cpu")
    counters = _native.compile_counters(module._native)
    assert counters["units_precompiled"] == module.compiled["units"]
    with module.spawn(3, device="cpu") as instances:
        assert instances.call("big", [1, 2, 3]) == reference(binary, "big", [1, 2, 3])
        assert instances.last_call.units_compiled == 0 and instances.last_call.compile_seconds == 0


def test_precompile_arguments_are_checked():
    binary = wasm(large_function(3))
    with pytest.raises(ValueError, match="precompile"):
        wasmgpu.Module(binary, execution="interpreter", precompile="cpu")
    with pytest.raises(TypeError, match="precompile"):
        wasmgpu.Module(binary, execution="compiled", precompile=1)
    module = wasmgpu.Module(binary, execution="compiled")
    with pytest.raises(ValueError, match="tier"):
        module.precompile("cpu", tier="turbo")


def with_megabyte_of_data(text: str) -> str:
    """The module with 1 MiB of data in its memory: a binary large enough (1 MiB and more) that
    its load reads the cached partition on the digest's thread while it decodes."""
    data = "".join(f"\\{k % 251:02x}" for k in range(1 << 20))
    return text.replace("(module", f'(module (memory 17) (data (i32.const 0) "{data}")', 1)


@pytest.mark.parametrize("large", [False, True], ids=["small binary", "binary of over 1 MiB"])
def test_a_second_load_takes_the_partition_from_the_cache(tmp_path, monkeypatch, large):
    monkeypatch.setenv("WAVESTACK_CACHE_DIR", str(tmp_path))
    binary = wasm(with_megabyte_of_data(large_function(300)) if large else large_function(300))
    assert (len(binary) >= 1 << 20) == large
    first = wasmgpu.Module(binary, execution="compiled")
    second = wasmgpu.Module(binary, execution="compiled")
    assert not _native.compile_counters(first._native)["layout_from_cache"]
    assert _native.compile_counters(second._native)["layout_from_cache"]
    assert dict(second.compiled) == dict(first.compiled)
    # Other options partition anew.
    other = wasmgpu.Module(binary, execution="compiled", compile_limit=64)
    assert not _native.compile_counters(other._native)["layout_from_cache"]
    with second.spawn(2, device="cpu") as instances:
        assert instances.call("big", [5, 6]) == reference(binary, "big", [5, 6])
    # A damaged layout entry is rebuilt: the same partition, made again.
    for path in tmp_path.rglob("*"):
        if path.is_file() and "wasm-layout" in path.parts:
            data = bytearray(path.read_bytes())
            data[-1] ^= 0xFF
            path.write_bytes(bytes(data))
    again = wasmgpu.Module(binary, execution="compiled")
    assert not _native.compile_counters(again._native)["layout_from_cache"]
    assert dict(again.compiled) == dict(first.compiled)


def test_a_forked_child_builds_and_precompiles_on_pools_of_its_own(tmp_path):
    binary = wasm(large_function(300))
    script = f"""
        import os, sys
        import wasmgpu
        binary = bytes.fromhex({binary.hex()!r})
        module = wasmgpu.Module(binary, execution="compiled")
        with module.spawn(1, device="cpu") as instances:
            parent = instances.call("big", [1])  # leaves builds ahead of need queued or running
        pid = os.fork()
        if pid == 0:
            fresh = wasmgpu.Module(binary, execution="compiled", compile_limit=64, precompile="cpu")
            with fresh.spawn(1, device="cpu") as child:
                ok = child.call("big", [1]) == parent and child.last_call.units_compiled == 0
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
    """
    result = run_python(script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "child 0", result.stdout + result.stderr


def test_a_module_loaded_again_links_no_more_code(tmp_path):
    """Linked code stays for the process's life, so a unit is linked once per process however
    many modules of the same binary load it (a fuzzer's worker loading one driver thousands of
    times ran out of memory mappings when each load linked its units anew)."""
    binary = wasm(large_function(120))
    script = f"""
        import wasmgpu
        binary = bytes.fromhex({binary.hex()!r})
        def mappings():
            with open("/proc/self/maps") as maps:
                return sum(1 for _ in maps)
        def load_and_call(k):
            with wasmgpu.Module(binary, execution="compiled").spawn(1, device="cpu") as instances:
                instances.call("big", [k])
        load_and_call(0)
        before = mappings()
        for k in range(200):
            load_and_call(k)
        print(mappings() - before)
    """
    result = run_python(script, tmp_path, WAVESTACK_WASM_CPU_TIERS="fast")
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip().splitlines()[-1]) < 50  # units of 200 loads: thousands of mappings


def test_precompile_builds_every_unit_pipeline_on_a_vulkan_device():
    target = spawn_keywords("vulkan")  # skips (or fails under WAVESTACK_REQUIRE_GPU) without a device
    # Constants of its own, so that no other module of this process has pipelines of the same text.
    binary = wasm(large_function(120).replace("(i32.const 3)", "(i32.const 23)"))
    module = wasmgpu.Module(binary, execution="compiled")
    module.precompile(target.get("device", "gpu"), allow_software=target.get("allow_software", False))
    # Built on every core, each unit once.
    assert _native.compile_counters(module._native)["units_compiled"] == module.compiled["units"] > 1
    with pytest.raises(ValueError, match="tier: only the cpu device"):
        module.precompile(target.get("device", "gpu"), tier="fast", allow_software=target.get("allow_software", False))
    with module.spawn(2, **target) as instances:
        assert instances.call("big", [7, 8]) == reference(binary, "big", [7, 8])
        assert instances.last_call.executed_as == "compiled"
        assert instances.last_call.units_compiled == 0  # every pipeline was ready before the call
