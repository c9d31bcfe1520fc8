"""Runs one of upstream cuDecomp's GoogleTest programs under mpirun and merges every rank's
results into one outcome per test.

Each rank writes its own XML report (upstream's main runs the tests on every rank and a test's
collective checks fail on all of them). A test passed when no rank failed and some rank ran it
to the end; it was skipped when every rank skipped it (the reasons are GoogleTest's skip
messages, e.g. "API tests require 4 ranks, launched with 2"). A test that needs NCCL has an
expected outcome besides passing: a failure whose every message is a cuDecomp call that
returned CUDECOMP_RESULT_NOT_SUPPORTED, as NCCL backends on host buffers (and in the CPU-only
build at grid creation) do.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# upstream's tests/ctest/test_utils.cc: "cuDecomp failed at FILE:LINE with CODE", or "... on
# another rank" on the ranks whose own call succeeded; code 2 is CUDECOMP_RESULT_NOT_SUPPORTED.
CUDECOMP_FAILURE = re.compile(r"cuDecomp failed at \S+ (?:with (\d+)|on another rank)")


def needs_nccl(name: str) -> bool:
    """Upstream's NCCL cases: the NcclBackends instantiations and the NCCL-backed handle test."""
    return "Nccl" in name or "_nccl_" in name


@dataclass
class TestOutcome:
    name: str
    passed_ranks: int = 0
    skipped_ranks: int = 0
    failures: list[str] = field(default_factory=list)  # failure messages of every rank
    skip_reasons: set[str] = field(default_factory=set)

    @property
    def failed(self) -> bool:
        return bool(self.failures)

    @property
    def skipped(self) -> bool:
        return not self.failures and self.passed_ranks == 0

    def only_not_supported(self) -> bool:
        """Every failure is a cuDecomp call that returned NOT_SUPPORTED here or on another rank."""
        codes = []
        for message in self.failures:
            found = CUDECOMP_FAILURE.findall(message)
            if not found:
                return False  # a failure of another kind (a wrong value, a crash)
            codes.extend(code for code in found if code)
        return bool(codes) and all(code == "2" for code in codes)

@dataclass
class SuiteRun:
    program: str
    ranks: int
    returncode: int
    output: str
    tests: dict[str, TestOutcome]

    def counts(self) -> Counter:
        result = Counter()
        for outcome in self.tests.values():
            if outcome.failed and needs_nccl(outcome.name) and outcome.only_not_supported():
                result["not supported (needs NCCL)"] += 1
            elif outcome.failed:
                result["failed"] += 1
            elif outcome.skipped:
                result["skipped"] += 1
            else:
                result["passed"] += 1
        return result


def _read_report(path: Path, tests: dict[str, TestOutcome]) -> None:
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        outcome = tests.setdefault(name, TestOutcome(name))
        failures = [element.get("message", "") for element in case if element.tag == "failure"]
        skipped = [element for element in case if element.tag == "skipped"]
        if failures:
            outcome.failures.extend(failures)
        elif skipped or case.get("result") == "skipped" or case.get("status") == "notrun":
            outcome.skipped_ranks += 1
            for element in skipped:
                # GoogleTest puts "FILE:LINE" on the first line; the reason follows.
                lines = element.get("message", "").strip().splitlines()
                outcome.skip_reasons.add(lines[-1].strip() if lines else "(no reason given)")
        else:
            outcome.passed_ranks += 1


def run_suite(program: Path, ranks: int, mpirun: list[str], env: dict[str, str], reports: Path,
              timeout_s: float) -> SuiteRun:
    """Runs `program` on `ranks` ranks (`mpirun`: the launcher's command line for them), every
    rank writing reports/<name>.ranks<N>.rank<R>.xml."""
    reports.mkdir(parents=True, exist_ok=True)
    stem = f"{program.name}.ranks{ranks}"
    for old in reports.glob(f"{stem}.rank*.xml"):
        old.unlink()
    # Each rank names its report after its rank (Open MPI's OMPI_COMM_WORLD_RANK, else MPICH's PMI_RANK).
    rank_report = f"{reports}/{stem}.rank${{OMPI_COMM_WORLD_RANK:-$PMI_RANK}}.xml"
    command = [*mpirun, "sh", "-c", f'exec "$0" --gtest_output="xml:{rank_report}"', str(program)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        output += f"\n[timed out after {timeout_s:.0f} s]"
    tests: dict[str, TestOutcome] = {}
    written = sorted(reports.glob(f"{stem}.rank*.xml"))
    for path in written:
        _read_report(path, tests)
    if len(written) != ranks:
        output += f"\n[{len(written)} of {ranks} ranks wrote a report]"
    return SuiteRun(program.name, ranks, process.returncode, output, tests)
