"""Runs configurations of upstream cuDecomp's tests/test_runner.py (its legacy sweep programs
of tests/cc) and counts their cases.

test_runner.py expands a configuration of test_config.yaml into command lines, writes them to a
file and runs each element type's program once under the launcher; the program prints " PASSED"
or " FAILED" per case. The runner's own exit status does not say whether cases failed (its
main() result is not returned to the shell), so the counts come from the programs' output.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# A program's announcement (test_runner.py's own "Running R32 tests..." names an element type).
PROGRAM_CASES = re.compile(r"^Running (\d+) tests\.\.\.$")


@dataclass
class SweepRun:
    config: str
    overrides: str
    ranks: int
    planned: int  # cases the programs announced ("Running N tests...")
    passed: int
    failed: int
    output: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.planned > 0 and self.failed == 0 and self.passed == self.planned


def run_sweep(runner: Path, workdir: Path, config: str, overrides: str, ranks: int, launcher: list[str],
              env: dict[str, str], timeout_s: float) -> SweepRun:
    """Runs test_runner.py `config` with `overrides` on `ranks` ranks (`launcher`: the mpirun
    command line for them) in `workdir`, where the programs (cc/...) and test_config.yaml are."""
    command = [sys.executable, str(runner), "--launcher_cmd", " ".join(launcher), "--ngpu",
               str(ranks), "--config_overrides", overrides, config]
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        output += f"\n[timed out after {timeout_s:.0f} s]"
    planned = passed = failed = 0
    for line in output.splitlines():
        announced = PROGRAM_CASES.match(line)
        if announced:
            planned += int(announced.group(1))
        elif line == " PASSED":
            passed += 1
        elif line == " FAILED":
            failed += 1
    return SweepRun(config, overrides, ranks, planned, passed, failed, output, time.monotonic() - started)
