#!/usr/bin/env python3
"""Builds and runs the libFuzzer targets of tests/fuzz (stdlib only).

Used by the bounded CI runs (tests/python/test_fuzz_*.py) and by `scripts/fuzz.sh SECONDS`.
The fuzz build is its own CMake project in build/fuzz, configured with clang and the
sanitizers (the main build uses GCC). Seed inputs are read at run time from ../shared and
copied into a scratch directory under build/fuzz, never into the repository.

    tests/fuzz/fuzzers.py build
    tests/fuzz/fuzzers.py run decoder --seconds 600 [--seed N] [--corpus DIR]
    tests/fuzz/fuzzers.py replay decoder        # the regression inputs of tests/fixtures/fuzz/decoder
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIR = ROOT / "tests" / "fuzz"
BUILD_DIR = ROOT / "build" / "fuzz"
SPEC_DIR = ROOT.parent / "shared" / "wasm-spec"
REGRESSION_DIR = ROOT / "tests" / "fixtures" / "fuzz"

# Per-input limits: an input that runs longer is a hang, one that needs more memory a finding.
INPUT_TIMEOUT_S = 10
RSS_LIMIT_MB = 2048
# The fixed seed of the bounded CI run (a random one, printed, runs next to it).
FIXED_SEEDS = (1,)


def spec_modules() -> List[Path]:
    """Every .wasm of the converted spec tests, the malformed and invalid ones included."""
    if not SPEC_DIR.is_dir():
        raise FileNotFoundError(f"spec data not found at {SPEC_DIR}")
    return sorted(SPEC_DIR.rglob("*.wasm"))


@dataclass(frozen=True)
class Fuzzer:
    name: str  # also the folder of its regression inputs under tests/fixtures/fuzz
    binary: str  # target of tests/fuzz/CMakeLists.txt
    seeds: Callable[[], List[Path]]
    dictionary: Optional[str] = None  # libFuzzer -dict file in tests/fuzz

    @property
    def path(self) -> Path:
        return BUILD_DIR / self.binary

    @property
    def regression_dir(self) -> Path:
        return REGRESSION_DIR / self.name


FUZZERS: Dict[str, Fuzzer] = {
    "decoder": Fuzzer("decoder", "decoder_fuzzer", spec_modules, "decoder.dict"),
}


@dataclass
class RunResult:
    command: List[str]
    returncode: int
    output: str
    seed: Optional[int]

    def stat(self, name: str) -> Optional[int]:
        """A counter of -print_final_stats=1 (stat::number_of_executed_units, ...)."""
        found = re.findall(rf"^stat::{name}:\s+(\d+)", self.output, re.MULTILINE)
        return int(found[-1]) if found else None

    def coverage(self) -> str:
        """libFuzzer's last cov/ft figures, as it prints them."""
        found = re.findall(r"cov: (\d+) ft: (\d+)", self.output)
        return f"cov {found[-1][0]} ft {found[-1][1]}" if found else "cov ? ft ?"

    def summary(self) -> str:
        runs, speed = self.stat("number_of_executed_units"), self.stat("average_exec_per_sec")
        verdict = "no findings" if self.returncode == 0 else f"FAILED (exit status {self.returncode})"
        return f"seed {self.seed}: {runs} executions, {speed} exec/s, {self.coverage()}, {verdict}"


def build(quiet: bool = True) -> None:
    """Configures build/fuzz with clang (once) and builds every target. Processes that build at
    the same time (pytest-xdist workers, scripts/fuzz.sh beside a test run) take turns: two
    configures of one directory delete each other's files."""
    import fcntl

    BUILD_DIR.parent.mkdir(parents=True, exist_ok=True)
    with open(BUILD_DIR.parent / "fuzz.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _build_locked(quiet)


def _build_locked(quiet: bool) -> None:
    out = subprocess.DEVNULL if quiet else None
    if not (BUILD_DIR / "CMakeCache.txt").exists():
        compiler = shutil.which("clang++") or shutil.which("clang++-14")
        if compiler is None:
            raise FileNotFoundError("clang++ not found (scripts/bootstrap.sh installs clang and libclang-rt-14-dev)")
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.run(["cmake", "-S", str(SOURCE_DIR), "-B", str(BUILD_DIR), *generator,
                        f"-DCMAKE_CXX_COMPILER={compiler}"], check=True, stdout=out)
    subprocess.run(["cmake", "--build", str(BUILD_DIR), "-j", str(os.cpu_count() or 2)], check=True, stdout=out)


def seed_corpus(fuzzer: Fuzzer) -> Path:
    """The seed inputs, copied under build/fuzz by content (the spec's file names repeat)."""
    directory = BUILD_DIR / f"seed-{fuzzer.name}"
    directory.mkdir(parents=True, exist_ok=True)
    for source in fuzzer.seeds():
        data = source.read_bytes()
        target = directory / hashlib.sha1(data).hexdigest()
        if not target.exists():
            target.write_bytes(data)
    return directory


def fresh_process(command: List[str]) -> List[str]:
    """`command` started from a forked shell rather than from this process. libFuzzer's
    -rss_limit_mb reads the peak RSS from getrusage, and Linux carries a process's peak RSS
    across fork and exec: started straight from a pytest worker that once grew to 2.6 GB, the
    fuzzer reported out-of-memory within its first second. The shell forks the command (the
    `exit` after it keeps the shell from exec'ing it in place), so the fuzzer's peak starts
    from the shell's few megabytes."""
    return ["/bin/sh", "-c", '"$@"; exit $?', "fuzzer", *command]


def run(fuzzer: Fuzzer, seconds: int, seed: int, corpus: Path, artifacts: Path,
        echo: bool = False) -> RunResult:
    """Fuzzes for `seconds` from the seeds plus `corpus` (where new inputs go). A crash,
    sanitizer report, leak, hang or memory blow-up stops the run with a non-zero exit status
    and saves the input under `artifacts`."""
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    command = [str(fuzzer.path), f"-seed={seed}", f"-max_total_time={seconds}", f"-timeout={INPUT_TIMEOUT_S}",
               f"-rss_limit_mb={RSS_LIMIT_MB}", "-print_final_stats=1", f"-artifact_prefix={artifacts}/",
               str(corpus), str(seed_corpus(fuzzer))]
    if fuzzer.dictionary:
        command.insert(1, f"-dict={SOURCE_DIR / fuzzer.dictionary}")
    if echo:
        print("+ " + " ".join(command), flush=True)
    completed = subprocess.run(fresh_process(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace")
    return RunResult(command, completed.returncode, completed.stdout, seed)


def regression_inputs(fuzzer: Fuzzer) -> List[Path]:
    """The inputs of earlier findings, kept with their fixes (none while nothing was found)."""
    if not fuzzer.regression_dir.is_dir():
        return []
    return sorted(path for path in fuzzer.regression_dir.iterdir() if path.is_file() and path.name != "README.md")


def replay(fuzzer: Fuzzer, inputs: Optional[List[Path]] = None) -> RunResult:
    """Runs each input once (libFuzzer's mode for file arguments); by default every
    regression input of the fuzzer."""
    inputs = regression_inputs(fuzzer) if inputs is None else inputs
    if not inputs:  # without file arguments libFuzzer would start fuzzing
        return RunResult([], 0, "no inputs to replay", None)
    command = [str(fuzzer.path), f"-timeout={INPUT_TIMEOUT_S}", f"-rss_limit_mb={RSS_LIMIT_MB}", *map(str, inputs)]
    completed = subprocess.run(fresh_process(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace")
    return RunResult(command, completed.returncode, completed.stdout, None)


def replay_one(fuzzer: Fuzzer, path: Path) -> RunResult:
    return replay(fuzzer, [path])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("build", "run", "replay"))
    parser.add_argument("fuzzers", nargs="*", help=f"default: all ({', '.join(FUZZERS)})")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--seed", type=int, help="default: a random seed, printed")
    parser.add_argument("--corpus", type=Path, help="default: build/fuzz/corpus-NAME (kept between runs)")
    args = parser.parse_args()
    build(quiet=False)
    if args.action == "build":
        return 0
    status = 0
    for name in args.fuzzers or list(FUZZERS):
        fuzzer = FUZZERS[name]
        if args.action == "replay":
            result = replay(fuzzer)
            print(f"{name}: replayed {fuzzer.regression_dir}: exit status {result.returncode}")
        else:
            seed = args.seed if args.seed is not None else random.randrange(1, 2**31)
            corpus = args.corpus or BUILD_DIR / f"corpus-{name}"
            result = run(fuzzer, args.seconds, seed, corpus, BUILD_DIR / f"artifacts-{name}", echo=True)
            log = BUILD_DIR / f"last-run-{name}.log"
            log.write_text(result.output)
            print(f"{name}: {args.seconds} s, {result.summary()} (libFuzzer's output: {log})", flush=True)
        if result.returncode != 0:
            print(result.output[-6000:], file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
