#!/usr/bin/env python3
"""Spec-test runner for wasmgpu over ../shared/wasm-spec (wast2json output).

This build decodes and validates; instances arrive with the device interpreter. Every
command of every suite gets exactly one outcome:

- passed: ``module`` loaded; ``assert_malformed`` raised MalformedModule; ``assert_invalid``
  raised InvalidModule; ``assert_unlinkable``/``assert_uninstantiable`` modules loaded
  (their linking or instantiation is the part that needs instances, see below).
- failed: anything else (a wrong verdict or a wrong exception type).
- not applicable: ``assert_malformed`` on a text-format ``.wat`` module (binary-only engine).
- outside the profile: the module raised UnsupportedFeature (the reason is listed per
  suite), and every later command that needs that module.
- needs instances: execution commands (assert_return, assert_trap, action,
  assert_exhaustion, register) and the link/instantiate step of assert_unlinkable and
  assert_uninstantiable. Not run in this build; counted, never passed.

Run ``python tests/wasm_spec/runner.py [suite ...]`` for per-suite and total counts.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT.parent / "shared" / "wasm-spec"
CORE_DIR = SPEC_DIR / "core"
SIMD_DIR = SPEC_DIR / "simd"

# The spec scripts' host module; the runner (later: the device) provides it.
HOST_MODULES = ("spectest",)

OUTCOMES = ("passed", "failed", "not_applicable", "outside_profile", "needs_instances")
EXECUTION_COMMANDS = ("assert_return", "assert_trap", "action", "assert_exhaustion", "register")


@dataclass
class SuiteResult:
    name: str
    counts: Dict[str, int] = field(default_factory=lambda: {outcome: 0 for outcome in OUTCOMES})
    by_type: Dict[str, Dict[str, int]] = field(default_factory=dict)
    failures: List[str] = field(default_factory=list)
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


def suite_names(directory: Path = CORE_DIR) -> List[str]:
    return sorted(path.name for path in directory.iterdir() if (path / f"{path.name}.json").is_file())


def load(path: Path):
    """Loads a module file with the runner's host modules; returns the module or raises."""
    import wasmgpu

    return wasmgpu.Module(path, host_modules=HOST_MODULES)


def _reason_matches(actual: str, expected: str) -> bool:
    # The spec interpreter's convention: the actual message starts with the expected text.
    return actual.startswith(expected)


def run_suite(name: str, directory: Path = CORE_DIR) -> SuiteResult:
    from wasmgpu.errors import InvalidModule, MalformedModule, ModuleError, UnsupportedFeature

    suite_dir = directory / name
    script = json.loads((suite_dir / f"{name}.json").read_text())
    result = SuiteResult(name)
    # Which loaded modules are outside the profile (by name, and the current one), so the
    # commands that would run them are counted with them.
    outside_by_name: Dict[str, UnsupportedFeature] = {}
    current_outside: Optional[UnsupportedFeature] = None

    for command in script["commands"]:
        kind = command["type"]
        line = command["line"]
        where = f"{name}:{line} {kind}"
        if kind == "module":
            try:
                load(suite_dir / command["filename"])
            except UnsupportedFeature as error:
                current_outside = error
                result.record_outside(kind, error.feature, f"{where}: {error.reason}")
            except ModuleError as error:
                current_outside = None
                result.failures.append(f"{where}: {command['filename']} refused: {type(error).__name__}: {error}")
                result.record(kind, "failed")
            else:
                current_outside = None
                result.record(kind, "passed")
            if "name" in command:
                if current_outside is not None:
                    outside_by_name[command["name"]] = current_outside
                else:
                    outside_by_name.pop(command["name"], None)
            continue

        if kind in EXECUTION_COMMANDS:
            target = command.get("action", {}).get("module") or command.get("name")
            if kind == "register":
                target = command.get("name")
            outside = outside_by_name.get(target) if target else current_outside
            if outside is not None:
                result.record_outside(kind, outside.feature,
                                      f"{where}: needs a module outside the profile ({outside.reason})")
            else:
                result.record(kind, "needs_instances")
            continue

        expected = command.get("text", "")
        filename = command["filename"]
        if command.get("module_type") == "text":
            result.record(kind, "not_applicable")
            continue
        wanted = {"assert_malformed": MalformedModule, "assert_invalid": InvalidModule}.get(kind)
        try:
            load(suite_dir / filename)
        except ModuleError as error:
            if isinstance(error, UnsupportedFeature) and (wanted is None or not isinstance(error, wanted)):
                result.record_outside(kind, error.feature, f"{where}: {error.reason} (the spec expects: {expected})")
            elif wanted is not None and isinstance(error, wanted):
                result.record(kind, "passed")
                if not _reason_matches(error.reason, expected):
                    result.reason_differences.append(f"{where}: expected {expected!r}, got {error.reason!r}")
            else:
                result.failures.append(f"{where}: {filename} expected {expected!r}, got "
                                       f"{type(error).__name__}: {error.reason}")
                result.record(kind, "failed")
            continue
        if kind in ("assert_malformed", "assert_invalid"):
            result.failures.append(f"{where}: {filename} was accepted, expected {expected!r}")
            result.record(kind, "failed")
        else:  # assert_unlinkable / assert_uninstantiable: loading is this build's part
            result.record(kind, "needs_instances")
    return result


def format_counts(counts: Dict[str, int]) -> str:
    return ", ".join(f"{counts[o]} {o.replace('_', ' ')}" for o in OUTCOMES)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suites", nargs="*", help="suite names (default: all of core/)")
    parser.add_argument("--details", action="store_true", help="list outside-profile commands and reason differences")
    args = parser.parse_args(argv)
    names = args.suites or suite_names()
    total = {o: 0 for o in OUTCOMES}
    by_type: Dict[str, Dict[str, int]] = {}
    failures: List[str] = []
    for name in names:
        result = run_suite(name)
        print(f"{name:28} {format_counts(result.counts)}")
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
