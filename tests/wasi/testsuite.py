#!/usr/bin/env python3
"""Runs the WASI preview-1 programs of the wasi-testsuite against an engine.

The suite is read in place from the shared data folder (``$WAVESTACK_SHARED/wasi-testsuite``,
default ``../shared`` next to the repository): nothing of it is copied into the repository,
and nothing is ever written there, because each test's directory is embedded into the
engine's own temporary (or, for wasmgpu, in-memory) file system.

Conventions, replicated from the upstream runner (test-runner/ of WebAssembly/wasi-testsuite)
and its wasmtime adapter:

* every ``NAME.wasm`` of a suite folder is a test; ``NAME.json``, when present, gives ``args``,
  ``env``, ``dirs`` or ``root``, ``exit_code`` (default 0), ``stdout`` and ``stderr``;
  unknown fields are warned about, not fatal;
* argv is ``[NAME.wasm, *args]`` (the CLI puts the module path first) and the environment is
  exactly ``env``;
* ``root: DIR``: the contents of ``DIR`` (beside the test) are the file system and are
  preopened as ``/``, like ``wasmtime run --dir DIR::/``; the C programs then open paths such
  as ``file`` or ``lseek.txt`` relative to it;
* ``dirs: [DIR, ...]`` (the older form): each ``DIR`` is preopened under its own name, like
  ``wasmtime run --dir DIR`` run from the test's folder;
* a test passes when the exit code matches and, where given, stdout and stderr match exactly;
* ``*.cleanup`` files, which upstream deletes between runs, never exist here: every run
  starts from a fresh copy.

An engine is any callable ``run(module, args, env, stdin, files, preopens) -> result`` whose
result has ``exit_code``, ``stdout`` and ``stderr`` (see oracles.py); wasmgpu plugs in the same
way. On the command line an engine is ``wasmtime``, ``node`` or ``package.module:callable``.

    python tests/wasi/testsuite.py --engine wasmtime --engine node
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import oracles  # noqa: E402  (after the path set-up, so the script runs from anywhere)

CONFIG_FIELDS = {"args", "env", "dirs", "root", "exit_code", "stdout", "stderr", "wasi_functions"}


def shared_dir() -> Path:
    """The shared data folder: $WAVESTACK_SHARED, else ../shared beside the repository."""
    return Path(os.environ.get("WAVESTACK_SHARED") or REPO.parent / "shared").resolve()


def testsuite_dir() -> Path:
    return shared_dir() / "wasi-testsuite"


@dataclass(frozen=True)
class TestCase:
    """One test program and its expectations."""

    suite: str  # the language folder: "c", "assemblyscript", ...
    name: str  # NAME of NAME.wasm
    wasm: Path
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    dirs: tuple[str, ...] = ()
    root: str | None = None
    exit_code: int = 0
    stdout: str | None = None
    stderr: str | None = None

    @property
    def id(self) -> str:
        return f"{self.suite}/{self.name}"

    def argv(self) -> list[str]:
        return [self.wasm.name, *self.args]

    def file_system(self) -> tuple[dict[str, bytes], list[str]]:
        """The embedded files and the preopens that reproduce the upstream directory mapping."""
        if self.root is not None and self.dirs:
            raise ValueError(f"{self.id}: a test gives either 'root' or 'dirs', not both")
        folder = self.wasm.parent
        if self.root is not None:
            return embed_tree(folder / self.root), ["/"]
        files: dict[str, bytes] = {}
        for directory in self.dirs:
            for path, content in embed_tree(folder / directory).items():
                files[f"{directory}/{path}"] = content
            files.setdefault(f"{directory}/", b"")
        return files, list(self.dirs)


@dataclass(frozen=True)
class Outcome:
    """How one test went on one engine."""

    case: TestCase
    failures: tuple[str, ...]
    result: object | None = None

    @property
    def passed(self) -> bool:
        return not self.failures


def embed_tree(directory: Path) -> dict[str, bytes]:
    """A host directory as embedded files {relative path: bytes}, empty directories as 'd/'."""
    if not directory.is_dir():
        raise FileNotFoundError(f"test directory not found: {directory}")
    files: dict[str, bytes] = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory).as_posix()
        if path.is_dir():
            files[relative + "/"] = b""
        elif path.is_file():
            files[relative] = path.read_bytes()
    return files


def suite_folders(root: Path | None = None) -> list[Path]:
    """Every folder holding test programs (tests/*/testsuite/wasm32-wasip1 in this snapshot)."""
    base = (root or testsuite_dir()) / "tests"
    if not base.is_dir():
        raise FileNotFoundError(f"wasi-testsuite not found at {base} (set WAVESTACK_SHARED)")
    return sorted({wasm.parent for wasm in base.rglob("*.wasm")})


def load_case(wasm: Path, suite: str) -> TestCase:
    config_file = wasm.with_suffix(".json")
    config = json.loads(config_file.read_text(encoding="utf-8")) if config_file.exists() else {}
    for name in config:
        if name not in CONFIG_FIELDS:
            logging.warning("%s: unknown field %r in the test's JSON", config_file, name)
    return TestCase(
        suite=suite,
        name=wasm.stem,
        wasm=wasm,
        args=tuple(config.get("args", [])),
        env=dict(config.get("env", {})),
        dirs=tuple(config.get("dirs", [])),
        root=config.get("root"),
        exit_code=int(config.get("exit_code", 0)),
        stdout=config.get("stdout"),
        stderr=config.get("stderr"),
    )


def load_cases(root: Path | None = None) -> list[TestCase]:
    """Every test, its suite named by the first folder under tests/ ("c", "assemblyscript")."""
    base = (root or testsuite_dir()) / "tests"
    return [
        load_case(wasm, folder.relative_to(base).parts[0])
        for folder in suite_folders(root)
        for wasm in sorted(folder.glob("*.wasm"))
    ]


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def run_case(case: TestCase, engine: Callable, timeout: float | None = None) -> Outcome:
    """Runs one test; any exception of the engine counts as a failure of that test."""
    files, preopens = case.file_system()
    kwargs = {"timeout": timeout} if timeout is not None else {}
    try:
        result = engine(case.wasm.read_bytes(), case.argv(), case.env, b"", files, preopens, **kwargs)
    except Exception as error:  # noqa: BLE001 - reported per test, the run goes on
        return Outcome(case, (f"engine raised {type(error).__name__}: {error}",))
    failures = []
    if result.exit_code != case.exit_code:
        trap = getattr(result, "trap", None)
        failures.append(
            f"exit code {result.exit_code}, expected {case.exit_code}" + (f" (trap: {trap})" if trap else "")
        )
    if case.stdout is not None and _decode(result.stdout) != case.stdout:
        failures.append(f"stdout {_decode(result.stdout)!r}, expected {case.stdout!r}")
    if case.stderr is not None and _decode(result.stderr) != case.stderr:
        failures.append(f"stderr {_decode(result.stderr)!r}, expected {case.stderr!r}")
    return Outcome(case, tuple(failures), result)


def run_suite(engine: Callable, cases: Iterable[TestCase] | None = None, timeout: float | None = None) -> list[Outcome]:
    return [run_case(case, engine, timeout) for case in (load_cases() if cases is None else cases)]


def resolve_engine(spec: str) -> Callable:
    """'wasmtime', 'node', or 'package.module:callable' for an engine defined elsewhere."""
    if spec in oracles.ENGINES:
        return oracles.ENGINES[spec]
    module_name, _, attribute = spec.partition(":")
    if not attribute:
        raise SystemExit(f"unknown engine {spec!r}: use {', '.join(oracles.ENGINES)} or module:callable")
    engine = getattr(importlib.import_module(module_name), attribute, None)
    if not callable(engine):
        raise SystemExit(f"unknown engine {spec!r}: {module_name} has no engine {attribute!r}")
    return engine


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", help="wasmtime, node or module:callable (repeatable)")
    parser.add_argument("-k", "--filter", default="", help="run only tests whose id contains this text")
    parser.add_argument("--timeout", type=float, default=oracles.DEFAULT_TIMEOUT_S, help="seconds per test")
    parser.add_argument("-v", "--verbose", action="store_true", help="print stdout/stderr of failing tests")
    parser.add_argument("--json", type=Path, help="also write every outcome to this JSON file")
    options = parser.parse_args(argv)
    try:
        cases = [case for case in load_cases() if options.filter in case.id]
    except FileNotFoundError as error:
        print(f"testsuite: {error}", file=sys.stderr)
        return 2
    failed_any = False
    report: dict[str, dict[str, list[str]]] = {}
    for spec in options.engine or ["wasmtime"]:
        engine = resolve_engine(spec)
        label = spec.rpartition(":")[2]  # one word, for the closing line
        outcomes = []
        for case in cases:  # each line as its test ends, with its time: a slow engine shows where
            began = time.perf_counter()
            outcome = run_case(case, engine, options.timeout)
            outcomes.append(outcome)
            status = "PASS" if outcome.passed else "FAIL"
            detail = "" if outcome.passed else ": " + "; ".join(outcome.failures)
            print(f"{label} {status} {outcome.case.id} ({time.perf_counter() - began:.1f} s){detail}", flush=True)
            if options.verbose and not outcome.passed and outcome.result is not None:
                print(f"    stdout: {_decode(outcome.result.stdout)!r}")
                print(f"    stderr: {_decode(outcome.result.stderr)!r}")
        report[label] = {outcome.case.id: list(outcome.failures) for outcome in outcomes}
        passed = sum(outcome.passed for outcome in outcomes)
        failed = len(outcomes) - passed
        failed_any |= failed > 0
        # One word and a colon before the counts, the closing-line form CI reads.
        print(f"{label}: {passed} passed, {failed} failed", flush=True)
    if options.json:
        # {engine: {test id: [failure, ...]}}; an empty list is a pass.
        options.json.write_text(json.dumps(report, indent=2) + "\n")
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main())
