"""The spec runner over every core suite of ../shared/wasm-spec, and the SIMD suites.

Every command runs on the cpu device in compiled mode (the default "auto") and again in the
interpreter (8 instances per module, all must agree): modules, assert_malformed (binary),
assert_invalid, assert_return (exact bits, NaN classes), assert_trap / assert_exhaustion
(the spec's reason), assert_uninstantiable, assert_unlinkable, action, register. Zero
failures; what is outside the profile is pinned.

On the selected Vulkan device (lavapipe in CI; skipped without one, failed instead under
WAVESTACK_REQUIRE_GPU=1) every suite runs in at least one mode: compiled mode on all but the
suites whose many modules make lavapipe's pipeline compilation take minutes
(VULKAN_INTERPRETER_ONLY), the interpreter on those and on a sample of the others.
WAVESTACK_SPEC_VULKAN=all runs every suite in both modes there (measured: zero failures,
about 14 minutes of lavapipe pipeline builds for compiled mode on a loaded 2-core machine).
"""

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from device_support import gpu_required

ROOT = Path(__file__).resolve().parents[2]


def _load_runner():
    # Loaded by path under a distinct name: tests/ is not a package.
    spec = importlib.util.spec_from_file_location("wasm_spec_runner", ROOT / "tests" / "wasm_spec" / "runner.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


runner = _load_runner()

pytestmark = pytest.mark.skipif(not runner.CORE_DIR.is_dir(), reason=f"spec data not found at {runner.CORE_DIR}")

# Every module the runner counts as outside the profile, by reason. A change here must be
# a decision (a feature added, a policy changed), so the test pins the list.
EXPECTED_OUTSIDE_PROFILE_MODULES = {
    # Imports from another (registered) wasm module need module linking, a later step.
    "elem": 3, "imports": 28, "linking": 12, "ref_func": 1, "table_copy": 18, "table_init": 6,
}


@pytest.fixture(scope="module")
def results():
    return {name: runner.run_suite(name) for name in runner.suite_names()}


@pytest.fixture(scope="module")
def interpreter_results():
    return {name: runner.run_suite(name, execution="interpreter") for name in runner.suite_names()}


def test_the_interpreter_has_no_failures_and_the_counts_of_compiled_mode(results, interpreter_results):
    for name, result in results.items():
        assert interpreter_results[name].failures == [], "\n".join(interpreter_results[name].failures)
        assert interpreter_results[name].by_type == result.by_type, name


@pytest.fixture(scope="module")
def fast_tier_results():
    # Compiled mode's default plan builds units with the baseline compiler first; the in-process
    # C++ compiler's fast tier (the first tier where there is no baseline) runs every suite too.
    previous = os.environ.get("WAVESTACK_WASM_CPU_TIERS")
    os.environ["WAVESTACK_WASM_CPU_TIERS"] = "fast"
    try:
        return {name: runner.run_suite(name) for name in runner.suite_names()}
    finally:
        if previous is None:
            del os.environ["WAVESTACK_WASM_CPU_TIERS"]
        else:
            os.environ["WAVESTACK_WASM_CPU_TIERS"] = previous


def test_the_fast_tier_has_no_failures_and_the_counts_of_the_default_plan(results, fast_tier_results):
    from wasmgpu import _native

    if _native.cpu_tier_plan()[0] != "baseline":
        pytest.skip("the default plan's first tier is not the baseline here: `results` ran the fast tier")
    for name, result in results.items():
        assert fast_tier_results[name].failures == [], "\n".join(fast_tier_results[name].failures)
        assert fast_tier_results[name].by_type == result.by_type, name


# Suites of many modules: in compiled mode every module builds its own unit pipelines, which
# took 14 to 160 s per suite on lavapipe (const, float_exprs and memory_copy 125 to 160 s).
VULKAN_INTERPRETER_ONLY = {
    "align", "br", "const", "float_exprs", "float_memory", "func", "if", "int_exprs", "left-to-right",
    "memory_copy", "memory_grow", "memory_init", "names", "table_copy", "table_init",
}
# The interpreter on Vulkan also runs these (its shader is the same for every module).
VULKAN_INTERPRETER_SAMPLE = {"block", "br_table", "call", "call_indirect", "conversions", "f64", "i32", "memory",
                             "traps"}


def _vulkan_suites(execution: str) -> list:
    names = runner.suite_names() if runner.CORE_DIR.is_dir() else []
    if os.environ.get("WAVESTACK_SPEC_VULKAN") == "all":
        return names
    if execution == "interpreter":
        return [name for name in names if name in VULKAN_INTERPRETER_ONLY | VULKAN_INTERPRETER_SAMPLE]
    return [name for name in names if name not in VULKAN_INTERPRETER_ONLY]


def _on_vulkan(execution: str, names=None) -> dict:
    import wasmgpu

    if wasmgpu._native.select_device(False) is None:
        reason = "no usable Vulkan device (software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)"
        if gpu_required():
            pytest.fail(reason + " (WAVESTACK_REQUIRE_GPU=1)")
        pytest.skip(reason)
    names = _vulkan_suites(execution) if names is None else names
    return {name: runner.run_suite(name, device="gpu", execution=execution) for name in names}


@pytest.fixture(scope="module")
def vulkan_results():
    return _on_vulkan("auto")


@pytest.fixture(scope="module")
def vulkan_interpreter_results():
    return _on_vulkan("interpreter")


# The suites of linear memory again with paged memory (decision 0014) forced, in the interpreter:
# page tables over a pool of frames must give every load, store and bulk operation the dense
# layout's results. (memory_grow's byte-by-byte zero checks take lavapipe 400 s paged, 150 s
# dense: tests/python/test_wasm_paged_memory.py covers grown pages.)
VULKAN_PAGED_SUITES = ["address", "align", "endianness", "float_memory", "load", "memory", "memory_copy", "memory_fill",
                       "memory_init", "memory_redundancy", "memory_size", "memory_trap", "store"]


@pytest.fixture(scope="module")
def vulkan_paged_results():
    os.environ["WAVESTACK_WASM_VULKAN_MEMORY"] = "paged"
    try:
        return _on_vulkan("interpreter", VULKAN_PAGED_SUITES)
    finally:
        del os.environ["WAVESTACK_WASM_VULKAN_MEMORY"]


@pytest.mark.parametrize("suite", VULKAN_PAGED_SUITES)
def test_memory_suite_has_no_failures_on_vulkan_with_paged_memory(results, vulkan_paged_results, suite):
    result = vulkan_paged_results[suite]
    assert result.failures == [], "\n".join(result.failures)
    assert result.by_type == results[suite].by_type


def test_every_suite_runs_on_vulkan_in_some_mode():
    both = set(_vulkan_suites("auto")) | set(_vulkan_suites("interpreter"))
    assert both == set(runner.suite_names())


@pytest.mark.parametrize("suite", _vulkan_suites("auto"))
def test_suite_has_no_failures_on_vulkan_in_compiled_mode(vulkan_results, suite):
    result = vulkan_results[suite]
    assert result.failures == [], "\n".join(result.failures)


@pytest.mark.parametrize("suite", _vulkan_suites("interpreter"))
def test_suite_has_no_failures_on_vulkan_in_the_interpreter(vulkan_interpreter_results, suite):
    result = vulkan_interpreter_results[suite]
    assert result.failures == [], "\n".join(result.failures)


def test_vulkan_counts_equal_the_cpu_counts(results, vulkan_results, vulkan_interpreter_results):
    for name, result in {**vulkan_interpreter_results, **vulkan_results}.items():
        assert result.by_type == results[name].by_type, name


def test_all_90_core_suites_and_27928_commands_are_covered(results):
    assert len(results) == 90
    total = sum(sum(result.counts.values()) for result in results.values())
    assert total == 27928


@pytest.mark.parametrize("suite", runner.suite_names() if runner.CORE_DIR.is_dir() else [])
def test_suite_has_no_failures(results, suite):
    result = results[suite]
    assert result.failures == [], "\n".join(result.failures)


def test_every_binary_malformed_and_invalid_assertion_passes(results):
    for command_type in ("assert_malformed", "assert_invalid"):
        passed = sum(r.by_type.get(command_type, {}).get("passed", 0) for r in results.values())
        expected = 736 if command_type == "assert_malformed" else 1475  # binary ones (README counts)
        assert passed == expected, command_type


def test_text_modules_are_not_applicable_and_nothing_else_is(results):
    not_applicable = sum(r.counts["not_applicable"] for r in results.values())
    assert not_applicable == 567  # the assert_malformed commands on .wat text


# Passed commands per type on the cpu device; everything else is not applicable (text
# modules) or outside the profile (module linking, and what depends on it).
EXPECTED_PASSED = {
    "action": 129, "assert_exhaustion": 15, "assert_invalid": 1475, "assert_malformed": 736,
    "assert_return": 20858, "assert_trap": 1490, "assert_uninstantiable": 27, "assert_unlinkable": 20,
    "module": 1060, "register": 17,
}


def test_every_command_type_passes_on_the_cpu_device(results):
    passed = {}
    for result in results.values():
        for command_type, counts in result.by_type.items():
            passed[command_type] = passed.get(command_type, 0) + counts["passed"]
    assert passed == EXPECTED_PASSED
    total = {outcome: sum(r.counts[outcome] for r in results.values()) for outcome in runner.OUTCOMES}
    assert total == {"passed": 25827, "failed": 0, "not_applicable": 567, "outside_profile": 1528,
                     "beyond_reservation": 6}


# Commands that fail with spawn's default reservations (16 pages, 256 table elements) and pass
# when the suite is rerun with larger ones: grows by hundreds of pages or elements, which the
# spec lets an implementation refuse, and memory_grow:48, which reads the size after such a
# grow. The runner proves each by the rerun; the list pins which they are.
EXPECTED_BEYOND_RESERVATION = {
    "call:359", "call_indirect:603", "local_tee:345", "memory_grow:45", "memory_grow:48", "table_grow:64",
}


def test_only_large_grows_exceed_the_default_reservations(results):
    beyond = {entry.split(" ")[0] for result in results.values() for entry in result.beyond_reservation}
    assert beyond == EXPECTED_BEYOND_RESERVATION
    assert all("0xffffffff" in entry or entry.startswith("memory_grow:48 ")
               for result in results.values() for entry in result.beyond_reservation)


def test_outside_profile_execution_needs_module_linking(results):
    # Every execution command outside the profile runs a module that imports from another
    # wasm module, or a module whose state such a module shares.
    for result in results.values():
        for entry in result.outside_profile:
            if " module: " in entry:
                continue
            assert "is imported from a module that is not a host module" in entry, entry


def test_outside_profile_modules_are_exactly_the_linking_ones(results):
    counted = {}
    for name, result in results.items():
        modules = [entry for entry in result.outside_profile if " module: " in entry]
        if modules:
            counted[name] = len(modules)
        for entry in modules:
            assert "is imported from a module that is not a host module" in entry, entry
    assert counted == EXPECTED_OUTSIDE_PROFILE_MODULES


def test_spectest_imports_are_inside_the_profile(results):
    # Modules importing spectest's memory, table and globals load: the runner provides them.
    for result in results.values():
        for entry in result.outside_profile:
            assert '"spectest".' not in entry, entry


def simd_modules():
    directory = runner.SIMD_DIR
    if not directory.is_dir():
        return []
    files = []
    for script in sorted(directory.glob("*/*.json")):
        for command in json.loads(script.read_text())["commands"]:
            if command.get("filename", "").endswith(".wasm"):
                files.append(script.parent / command["filename"])
    return files


def wasmtime_accepts_without_simd(data: bytes) -> bool:
    import wasmtime

    config = wasmtime.Config()
    config.wasm_simd = False
    config.wasm_relaxed_simd = False
    try:
        wasmtime.Module.validate(wasmtime.Engine(config), data)
    except Exception:
        return False
    return True


def test_every_simd_module_is_rejected_as_unsupported_simd():
    import wasmgpu

    files = simd_modules()
    assert len(files) == 1141
    without_simd = []
    for path in files:
        data = path.read_bytes()
        if wasmtime_accepts_without_simd(data):
            # A handful of modules in the SIMD scripts contain no SIMD at all (simd_const's
            # scalar float literals and an empty memory); those must simply load.
            wasmgpu.Module(data, host_modules=["spectest"])
            without_simd.append(path.name)
            continue
        with pytest.raises(wasmgpu.UnsupportedFeature) as raised:
            wasmgpu.Module(data, host_modules=["spectest"])
        assert raised.value.feature == "SIMD", f"{path.name}: {raised.value}"
        assert "SIMD" in str(raised.value)
    assert all(name.startswith("simd_const.") for name in without_simd)
    assert len(without_simd) == 61


# Rejections of the right type whose reason does not start with the spec's wording. The
# reference interpreter reads a function body or section past its declared size before
# noticing, so its wording depends on the bytes that follow; our readers stop at the
# declared size. select:324 is `select` with an empty result list, which WABT encodes as a
# plain `select` (so it is a type error in the binary).
EXPECTED_REASON_DIFFERENCES = {
    "binary:418", "binary:455", "binary:1632", "binary-leb128:348", "select:324",
}


def test_reasons_use_the_spec_wording(results):
    differences = {entry.split(" ")[0] for result in results.values() for entry in result.reason_differences}
    assert differences == EXPECTED_REASON_DIFFERENCES
