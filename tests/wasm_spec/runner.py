#!/usr/bin/env python3
"""Spec-test runner for wasmgpu over ../shared/wasm-spec (wast2json output).

Every command of every suite gets exactly one outcome:

- passed: ``module`` loaded and instantiated on INSTANCES instances; ``assert_malformed``
  raised MalformedModule; ``assert_invalid`` raised InvalidModule; ``assert_unlinkable``
  raised LinkError at spawn and ``assert_uninstantiable`` raised Trap at spawn, with the
  spec's reason; ``assert_return`` / ``action`` returned exactly the expected bits (NaN
  patterns by class) on every instance; ``assert_trap`` / ``assert_exhaustion`` trapped
  with the spec's reason on every instance; ``register`` named an instantiated module.
- failed: anything else.
- not applicable: ``assert_malformed`` on a text-format ``.wat`` module (binary-only engine).
- outside the profile: the module raised UnsupportedFeature (the reason is listed per
  suite), and every later command that needs that module.
- beyond the reservation: a command that fails with spawn's default reservations of memory
  pages and table elements and passes when the same suite is rerun with larger ones. The
  spec permits this: ``memory.grow`` and ``table.grow`` may fail (return -1) for
  implementation-defined reasons even below the declared maximum (WebAssembly 2.0, 4.4.6
  and 4.4.7), and the scripts' few grows by hundreds of pages are then seen by later
  commands too. Every such command is listed.

Run ``python tests/wasm_spec/runner.py [--device cpu|gpu] [--execution auto|compiled|interpreter] [suite ...]``
for counts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
# The shared data folder: $WAVESTACK_SHARED (a GPU machine gets a carried copy), else ../shared.
SPEC_DIR = Path(os.environ.get("WAVESTACK_SHARED") or ROOT.parent / "shared") / "wasm-spec"
CORE_DIR = SPEC_DIR / "core"
SIMD_DIR = SPEC_DIR / "simd"

# The spec scripts' host module; the device defines it (host_modules.cpp).
HOST_MODULES = ("spectest",)
# Every module runs on this many instances, whose results must all agree.
INSTANCES = 8
# Memories and tables get spawn's default reservations (no per-suite settings). The value
# stack and call depth are raised for every suite alike: the scripts recurse a few hundred
# frames deep (call.wast, fac.wast), and runaway recursion must still end in exhaustion.
STACK_SLOTS = 8192
CALL_DEPTH = 8192

OUTCOMES = ("passed", "failed", "not_applicable", "outside_profile", "beyond_reservation")
# The larger reservations of the rerun that tells a reservation limit from a failure.
GROWTH_MEMORY_PAGES = 1024
GROWTH_TABLE_ELEMENTS = 1024
EXECUTION_COMMANDS = ("assert_return", "assert_trap", "action", "assert_exhaustion", "register")
NULL_REF = 0xFFFFFFFF


@dataclass
class SuiteResult:
    name: str
    counts: Dict[str, int] = field(default_factory=lambda: {outcome: 0 for outcome in OUTCOMES})
    by_type: Dict[str, Dict[str, int]] = field(default_factory=dict)
    failures: List[str] = field(default_factory=list)
    failure_keys: List[str] = field(default_factory=list)  # "suite:line type" per failure
    beyond_reservation: List[str] = field(default_factory=list)
    outside_profile: List[str] = field(default_factory=list)
    outside_features: Dict[str, int] = field(default_factory=dict)  # commands per feature
    # Rejections of the right type whose reason does not start with the spec's text.
    reason_differences: List[str] = field(default_factory=list)

    def record_outside(self, command_type: str, feature: str, entry: str) -> None:
        self.outside_profile.append(entry)
        self.outside_features[feature] = self.outside_features.get(feature, 0) + 1
        self.record(command_type, "outside_profile")

    def record(self, command_type: str, outcome: str) -> None:
        self.counts[outcome] += 1
        per_type = self.by_type.setdefault(command_type, {o: 0 for o in OUTCOMES})
        per_type[outcome] += 1

    def fail(self, command_type: str, entry: str) -> None:
        self.failures.append(entry)
        self.failure_keys.append(entry.split(": ", 1)[0])
        self.record(command_type, "failed")

    def reclassify_as_reservation(self, passing_with_growth) -> None:
        """Failures that the rerun with larger reservations passed become beyond_reservation."""
        kept = [(key, entry) for key, entry in zip(self.failure_keys, self.failures) if key not in passing_with_growth]
        for key, entry in zip(self.failure_keys, self.failures):
            if key in passing_with_growth:
                command_type = key.split(" ", 1)[1]
                self.counts["failed"] -= 1
                self.by_type[command_type]["failed"] -= 1
                self.record(command_type, "beyond_reservation")
                self.beyond_reservation.append(entry)
        self.failure_keys = [key for key, _ in kept]
        self.failures = [entry for _, entry in kept]


def suite_names(directory: Path = CORE_DIR) -> List[str]:
    return sorted(path.name for path in directory.iterdir() if (path / f"{path.name}.json").is_file())


def load(path: Path, execution: str = "auto"):
    """Loads a module file with the runner's host modules; returns the module or raises."""
    import wasmgpu

    return wasmgpu.Module(path, host_modules=HOST_MODULES, execution=execution)


def growth_reservations(module) -> dict:
    """Reservations large enough for every grow in the scripts, within the declared limits."""
    native = module._native
    options = {}
    if native.memory_limits is not None:
        low, high = native.memory_limits
        options["memory_pages"] = min(65535 if high is None else high, max(low, GROWTH_MEMORY_PAGES))
    if native.table_limits:
        options["table_elements"] = max([GROWTH_TABLE_ELEMENTS] + [low for low, _ in native.table_limits])
    return options


def spawn(module, device: str, reserve_growth: bool = False):
    where = {"device": "cpu"} if device == "cpu" else {"allow_software": True}
    if reserve_growth:
        where.update(growth_reservations(module), max_resident_bytes=None)
    return module.spawn(INSTANCES, stack_size=STACK_SLOTS, call_depth=CALL_DEPTH, **where)


def _reason_matches(actual: str, expected: str) -> bool:
    # The spec interpreter's convention: the actual message starts with the expected text.
    return actual.startswith(expected)


def argument_bits(value: dict) -> int:
    text = value["value"]
    if value["type"] in ("externref", "funcref"):
        return NULL_REF if text == "null" else int(text)
    return int(text)


def result_matches(expected: dict, bits: int) -> bool:
    kind = expected["type"]
    text = expected.get("value")
    if kind in ("i32", "f32"):
        bits &= 0xFFFFFFFF
    if kind == "f32" and text == "nan:canonical":
        return bits & 0x7FFFFFFF == 0x7FC00000
    if kind == "f32" and text == "nan:arithmetic":
        return bits & 0x7FC00000 == 0x7FC00000
    if kind == "f64" and text == "nan:canonical":
        return bits & 0x7FFFFFFFFFFFFFFF == 0x7FF8000000000000
    if kind == "f64" and text == "nan:arithmetic":
        return bits & 0x7FF8000000000000 == 0x7FF8000000000000
    if kind in ("externref", "funcref"):
        bits &= 0xFFFFFFFF
        if text is None:  # any non-null reference
            return bits != NULL_REF
        return bits == (NULL_REF if text == "null" else int(text))
    return bits == int(text)


class Script:
    """The state of one script: instances by name and the current one."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.by_name: Dict[str, object] = {}
        self.current = None
        self.outside_by_name: Dict[str, object] = {}
        self.current_outside = None
        self.spawned: List[object] = []
        self.registered: Dict[str, Optional[str]] = {}  # alias -> module name (None: unnamed)

    def register(self, alias: str, name: Optional[str]) -> None:
        self.registered[alias] = name

    def taint(self, error) -> None:
        """A module outside the profile imports from a registered module: it would have shared
        (and could have changed) that module's table, memory or globals, so what the script
        asserts about the registered module afterwards is outside the profile too."""
        for alias in re.findall(r'"([^"]+)"\.', error.reason):
            if alias in self.registered:
                name = self.registered[alias]
                self.outside_by_name[name] = error
                if name is None:
                    self.current_outside = error

    def release_current(self) -> None:
        """Closes the current module's instances unless a name still refers to them."""
        current = self.current
        if current is not None and all(current is not named for named in self.by_name.values()):
            current.close()
            self.spawned = [instances for instances in self.spawned if instances is not current]

    def close(self) -> None:
        for instances in self.spawned:
            instances.close()


def perform(instances, action: dict):
    """Runs an invoke or get on every instance; returns per instance (ok, trap reason, bits)."""
    if action["type"] == "get":
        return [(True, None, (bits,)) for bits in instances._global_raw(action["field"])]
    row = [argument_bits(arg) for arg in action.get("args", [])]
    return instances._call_raw(action["field"], [row] * len(instances))


def run_execution(script: Script, result: SuiteResult, command: dict, where: str) -> None:
    kind = command["type"]
    if kind == "register":
        target = command.get("name")
    else:
        target = command.get("action", {}).get("module")
    outside = script.outside_by_name.get(target) if target else script.current_outside
    if outside is not None:
        result.record_outside(kind, outside.feature, f"{where}: needs a module outside the profile ({outside.reason})")
        return
    instances = script.by_name.get(target) if target else script.current
    if instances is None:
        result.fail(kind, f"{where}: no instantiated module {target or '(current)'}")
        return
    if kind == "register":
        script.register(command["as"], target)
        result.record(kind, "passed")
        return
    try:
        outcomes = perform(instances, command["action"])
    except Exception as error:  # noqa: BLE001 - any error is this command's failure
        result.fail(kind, f"{where}: {type(error).__name__}: {error}")
        return
    if kind in ("assert_return", "action"):
        expected = command.get("expected", [])
        for i, (ok, reason, bits) in enumerate(outcomes):
            if not ok:
                result.fail(kind, f"{where}: instance {i} trapped: {reason}")
                return
            if kind == "assert_return" and (len(bits) != len(expected) or
                                            not all(result_matches(e, b) for e, b in zip(expected, bits))):
                shown = [hex(b) for b in bits]
                result.fail(kind, f"{where}: instance {i} returned {shown}, expected {expected}")
                return
        if len({bits for _, _, bits in outcomes}) != 1:
            result.fail(kind, f"{where}: instances disagree: {outcomes}")
            return
        result.record(kind, "passed")
        return
    # assert_trap, assert_exhaustion
    text = command.get("text", "")
    for i, (ok, reason, bits) in enumerate(outcomes):
        if ok:
            result.fail(kind, f"{where}: instance {i} returned {[hex(b) for b in bits]}, expected trap {text!r}")
            return
        if not _reason_matches(reason, text):
            result.fail(kind, f"{where}: instance {i} trapped with {reason!r}, expected {text!r}")
            return
    result.record(kind, "passed")


def run_suite(name: str, directory: Path = CORE_DIR, device: str = "cpu", execution: str = "auto") -> SuiteResult:
    """Runs a suite with spawn's default reservations; failures are checked against a rerun
    with larger reservations (see "beyond the reservation" above). ``execution`` is the
    modules' mode ("auto" is compiled mode on the cpu device)."""
    result = run_script(name, directory, device, reserve_growth=False, execution=execution)
    if result.failures:
        rerun = run_script(name, directory, device, reserve_growth=True, execution=execution)
        result.reclassify_as_reservation(set(result.failure_keys) - set(rerun.failure_keys))
    return result


def run_script(name: str, directory: Path, device: str, reserve_growth: bool, execution: str = "auto") -> SuiteResult:
    import wasmgpu
    from wasmgpu.errors import InvalidModule, MalformedModule, ModuleError, UnsupportedFeature

    suite_dir = directory / name
    commands = json.loads((suite_dir / f"{name}.json").read_text())["commands"]
    result = SuiteResult(name)
    script = Script(device)
    try:
        for command in commands:
            kind = command["type"]
            where = f"{name}:{command['line']} {kind}"
            if kind == "module":
                script.release_current()
                script.current = None
                try:
                    module = load(suite_dir / command["filename"], execution)
                    instances = spawn(module, device, reserve_growth)
                except UnsupportedFeature as error:
                    script.current_outside = error
                    result.record_outside(kind, error.feature, f"{where}: {error.reason}")
                    script.taint(error)
                except (ModuleError, wasmgpu.LinkError, wasmgpu.Trap) as error:
                    script.current_outside = None
                    result.fail(kind, f"{where}: {command['filename']} refused: {type(error).__name__}: {error}")
                else:
                    script.current_outside = None
                    script.current = instances
                    script.spawned.append(instances)
                    result.record(kind, "passed")
                if "name" in command:
                    script.by_name[command["name"]] = script.current
                    if script.current_outside is not None:
                        script.outside_by_name[command["name"]] = script.current_outside
                    else:
                        script.outside_by_name.pop(command["name"], None)
                continue

            if kind in EXECUTION_COMMANDS:
                run_execution(script, result, command, where)
                continue

            expected = command.get("text", "")
            filename = command["filename"]
            if command.get("module_type") == "text":
                result.record(kind, "not_applicable")
                continue
            wanted = {"assert_malformed": MalformedModule, "assert_invalid": InvalidModule}.get(kind)
            try:
                module = load(suite_dir / filename, execution)
            except ModuleError as error:
                if isinstance(error, UnsupportedFeature) and (wanted is None or not isinstance(error, wanted)):
                    result.record_outside(kind, error.feature,
                                          f"{where}: {error.reason} (the spec expects: {expected})")
                    script.taint(error)
                elif wanted is not None and isinstance(error, wanted):
                    result.record(kind, "passed")
                    if not _reason_matches(error.reason, expected):
                        result.reason_differences.append(f"{where}: expected {expected!r}, got {error.reason!r}")
                else:
                    result.fail(kind, f"{where}: {filename} expected {expected!r}, got "
                                      f"{type(error).__name__}: {error.reason}")
                continue
            if wanted is not None:
                result.fail(kind, f"{where}: {filename} was accepted, expected {expected!r}")
                continue
            # assert_unlinkable / assert_uninstantiable: the spawn must fail as the spec says.
            wanted_error = wasmgpu.LinkError if kind == "assert_unlinkable" else wasmgpu.Trap
            try:
                instances = spawn(module, device, reserve_growth)
            except wanted_error as error:
                reason = error.reason if kind == "assert_unlinkable" else next(iter(error.traps.values()))
                if _reason_matches(reason, expected):
                    result.record(kind, "passed")
                else:
                    result.fail(kind, f"{where}: {filename} failed with {reason!r}, expected {expected!r}")
            except Exception as error:  # noqa: BLE001
                result.fail(kind, f"{where}: {filename} expected {expected!r}, got {type(error).__name__}: {error}")
            else:
                instances.close()
                result.fail(kind, f"{where}: {filename} instantiated, expected {expected!r}")
    finally:
        script.close()
    return result


def format_counts(counts: Dict[str, int]) -> str:
    return ", ".join(f"{counts[o]} {o.replace('_', ' ')}" for o in OUTCOMES)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suites", nargs="*", help="suite names (default: all of core/)")
    parser.add_argument("--device", default="cpu", choices=("cpu", "gpu"), help="cpu, or the selected Vulkan device")
    parser.add_argument("--details", action="store_true", help="list outside-profile commands and reason differences")
    parser.add_argument("--execution", default="auto", choices=("auto", "compiled", "interpreter"),
                        help="the modules' mode (auto: compiled mode on the cpu device)")
    args = parser.parse_args(argv)
    names = args.suites or suite_names()
    total = {o: 0 for o in OUTCOMES}
    by_type: Dict[str, Dict[str, int]] = {}
    failures: List[str] = []
    for name in names:
        began = time.perf_counter()
        result = run_suite(name, device=args.device, execution=args.execution)
        print(f"{name:28} {format_counts(result.counts)} ({time.perf_counter() - began:.1f} s)", flush=True)
        if result.outside_features:
            features = ", ".join(f"{feature}: {count}" for feature, count in sorted(result.outside_features.items()))
            print(f"{'':28} outside the profile by feature: {features}")
        for outcome in OUTCOMES:
            total[outcome] += result.counts[outcome]
        for command_type, counts in result.by_type.items():
            merged = by_type.setdefault(command_type, {o: 0 for o in OUTCOMES})
            for outcome in OUTCOMES:
                merged[outcome] += counts[outcome]
        failures += result.failures
        for entry in result.beyond_reservation:
            print(f"{'':28} beyond the default reservation: {entry}")
        if args.details:
            for entry in result.outside_profile:
                print(f"    outside the profile: {entry}")
            for entry in result.reason_differences:
                print(f"    reason differs: {entry}")
    print()
    for command_type in sorted(by_type):
        print(f"{command_type:28} {format_counts(by_type[command_type])}")
    print(f"{'TOTAL (' + str(sum(total.values())) + ' commands)':28} {format_counts(total)}")
    for failure in failures:
        print("FAILED " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
