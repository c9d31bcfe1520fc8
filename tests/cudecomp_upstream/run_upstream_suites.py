#!/usr/bin/env python3
"""Runs upstream cuDecomp 0.7.0's own tests against this project's library and says what ran.

The programs are built by tests/cudecomp_upstream/CMakeLists.txt from ../shared/cudecomp-upstream
with upstream's headers (scripts/check_decomp_upstream.sh builds them first):

- tests/ctest's GoogleTest api and halo suites under mpirun with 1, 2 and 4 ranks. Upstream's
  cases need 4 ranks (or 3) and skip, saying so, with fewer; the NCCL cases must pass, skip or
  fail only with CUDECOMP_RESULT_NOT_SUPPORTED (NCCL needs device buffers or, in the CPU-only
  build, does not exist); everything else must pass.
- tests/ctest's Fortran tests, which require exactly 4 ranks, under 4.
- tests/cc's sweep programs through upstream's tests/test_runner.py with 1, 2 and 4 ranks, on the
  MPI backends and with smaller grids than upstream's, so the whole sweep fits CI's time.

The programs run with CUDA devices hidden (CUDA_VISIBLE_DEVICES=""): their buffers come from the
host stand-in, so the library must take its host path too. Exits non-zero when anything else
failed, crashed, or did not run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "mpi"))

import gtest_ranks  # noqa: E402
import mpi_harness  # noqa: E402
import sweeps  # noqa: E402

GTEST_PROGRAMS = ("cudecomp_upstream_api_tests", "cudecomp_upstream_halo_tests")
FORTRAN_PROGRAMS = ("cudecomp_upstream_fortran_api", "cudecomp_upstream_fortran_transpose",
                    "cudecomp_upstream_fortran_halo")
RANKS = (1, 2, 4)

# Upstream's grids are 128 x 124 x 132 (transposes) and 128 x 132 x 124 (halos); these keep
# their residues modulo 1, 2 and 4 ranks and are 64 times smaller. The rank-order
# configurations run at upstream's size. Managed memory is left out everywhere: the host
# stand-in's cudaMallocManaged returns the same host memory as its cudaMalloc, so those cases
# would repeat the others exactly.
SMALL_TRANSPOSE = "gx:[32];gy:[28];gz:[36];managed_memory:[False]"
SMALL_HALO = "gx:[32];gy:[36];gz:[28];managed_memory:[False]"
# (configuration of test_config.yaml, overrides): every configuration upstream defines for the
# C++ programs. Backends are restricted to the MPI ones (transposes 1-3, halos 1-2).
SWEEPS = (
    ("transpose_test_cc", f"backend:[1,2,3];{SMALL_TRANSPOSE}"),
    ("transpose_test_halo_cc", SMALL_TRANSPOSE),
    ("transpose_test_padding_cc", SMALL_TRANSPOSE),
    ("transpose_test_gdimdist_cc", SMALL_TRANSPOSE),
    ("transpose_test_mix_cc", SMALL_TRANSPOSE),
    ("transpose_test_ac_cc", SMALL_TRANSPOSE),
    ("transpose_test_rank_order_cc", "backend:[1]"),
    ("halo_test_cc", f"backend:[1,2];{SMALL_HALO}"),
    ("halo_test_halomix_cc", SMALL_HALO),
    ("halo_test_padding_cc", SMALL_HALO),
    ("halo_test_gdimdist_cc", SMALL_HALO),
    ("halo_test_mix_cc", SMALL_HALO),
    ("halo_test_ac_cc", SMALL_HALO),
    ("halo_test_rank_order_cc", "backend:[1]"),
)

NOT_RUN = (
    "tests/ctest/transpose_tests.cc is not built: it reads upstream's internal structs "
    "(include/internal/common.h: a grid's row_comm_info, a handle's nccl_comm), which only upstream's library "
    "has, and its reference needs cuTENSOR; tests/cc's transpose sweeps check the transposes instead",
    "tests/cc sweeps leave out backends 4-8 (NCCL, NCCL_PL, NVSHMEM, NVSHMEM_PL, NVSHMEM_SM): they need device "
    "buffers (the GoogleTest NcclBackends cases check that NCCL answers NOT_SUPPORTED on host buffers; NVSHMEM is "
    "NOT_SUPPORTED at grid creation)",
    "tests/ctest's Fortran tests run with 4 ranks only: they require exactly 4 (upstream's CMake runs them so)",
    "tests/cc sweeps: managed-memory cases (-m) are left out, since the host stand-in's managed memory is its "
    "ordinary memory, and the grids are smaller than upstream's (above)",
    "tests/fortran (the legacy Fortran sweep programs) and examples/ are not run",
)

# What upstream's CPU-only build does that ours does not, and what of it the suites can see.
CPU_ONLY_NOTE = (
    "Upstream's CPU-only build refuses process-grid and backend autotuning (NOT_SUPPORTED); this library "
    "autotunes on the CPU on purpose (host buffers, host clocks). The api suite of 0.7.0 here asserts that "
    "autotuning succeeds (ApiGridDescCreateTest.AutotunesTransposeConfig, .AutotunesHaloConfig), so it passes; "
    "upstream's CPU-only API test file (tests/ctest/cpu_api_tests.cc) is not in ../shared/cudecomp-upstream, "
    "so its NOT_SUPPORTED assertions for autotuning are not run (tests/cpp/test_decomp_upstream_facts.cpp keeps "
    "its other CPU-build facts). NCCL does not exist in this build: its cases must answer NOT_SUPPORTED at grid "
    "creation.")


def section(title: str) -> None:
    print(f"\n== {title} ==", flush=True)


def report_gtest(run: gtest_ranks.SuiteRun) -> bool:
    counts = run.counts()
    total = len(run.tests)
    parts = ", ".join(f"{counts[key]} {key}" for key in ("passed", "skipped", "not supported (needs NCCL)", "failed")
                      if counts[key] or key in ("passed", "failed"))
    label = "rank" if run.ranks == 1 else "ranks"
    print(f"{run.program}, {run.ranks} {label}: {total} tests: {parts}")
    reasons = Counter(reason for outcome in run.tests.values() if outcome.skipped for reason in outcome.skip_reasons)
    for reason, count in sorted(reasons.items()):
        print(f"  skipped ({count}): {reason}")
    nccl = [name for name, outcome in run.tests.items()
            if outcome.failed and gtest_ranks.needs_nccl(name) and outcome.only_not_supported()]
    if nccl:
        print(f"  NOT_SUPPORTED as expected (needs NCCL: a CUDA build and device buffers): {len(nccl)} tests, "
              f"e.g. {nccl[0]}")
    failed = [outcome for outcome in run.tests.values() if outcome.failed and outcome.name not in nccl]
    for outcome in failed:
        print(f"  FAILED: {outcome.name}")
        for message in outcome.failures[:2]:
            print("    " + message.replace("\n", "\n    "))
    reports_missing = "ranks wrote a report]" in run.output or total == 0
    crashed = reports_missing or (run.returncode != 0 and not nccl and not failed)
    if crashed:
        print(f"  CRASHED or did not run (mpirun exit status {run.returncode}); the end of its output:")
        print("    " + run.output[-4000:].replace("\n", "\n    "))
    return not failed and not crashed


def run_fortran(program: Path, env: dict[str, str], timeout_s: float) -> bool:
    ranks = 4
    started = time.monotonic()
    result = subprocess.run([*mpi_harness.mpirun_command(ranks), str(program)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout_s)
    passed_line = [line for line in result.stdout.splitlines() if "test passed" in line or "test failed" in line]
    verdict = passed_line[0].strip() if passed_line else "no verdict printed"
    ok = result.returncode == 0 and bool(passed_line) and "passed" in passed_line[0]
    print(f"{program.name}, {ranks} ranks: {'passed' if ok else 'FAILED'} ({verdict}; "
          f"{time.monotonic() - started:.1f} s)")
    if not ok:
        print("    " + result.stdout[-4000:].replace("\n", "\n    "))
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build/py", help="the CMake build directory (default build/py)")
    parser.add_argument("--upstream", default=str(ROOT.parent / "shared" / "cudecomp-upstream"),
                        help="upstream cuDecomp's sources (default ../shared/cudecomp-upstream)")
    parser.add_argument("--no-sweeps", action="store_true", help="run the GoogleTest and Fortran suites only")
    parser.add_argument("--gtest-only", action="store_true", help="run the GoogleTest suites only")
    parser.add_argument("--cpu-only-library", action="store_true",
                        help="the programs link a CPU-only build of the library (say so, and what that means)")
    args = parser.parse_args()
    binaries = (ROOT / args.build_dir).resolve() / "tests" / "cudecomp_upstream"
    runner = Path(args.upstream).resolve() / "tests" / "test_runner.py"
    env = mpi_harness.mpi_environment()
    # Failed calls print upstream-style CUDECOMP:ERROR lines; the suites make many on purpose.
    env.setdefault("CUDECOMP_QUIET_ERRORS", "1")
    # The programs' buffers are the host stand-in's host memory, so the library must not see a real
    # GPU either (its CUDA build would hand out device workspaces and tune on the device).
    env["CUDA_VISIBLE_DEVICES"] = ""
    ok = True

    library = "the CPU-only build of this library" if args.cpu_only_library else "this library"
    section(f"upstream tests/ctest GoogleTest suites (upstream's headers, {library}, host stand-in for CUDA)")
    if args.cpu_only_library:
        print(CPU_ONLY_NOTE)
    for name in GTEST_PROGRAMS:
        program = binaries / name
        if not program.exists():
            print(f"{name}: NOT BUILT in {binaries} (scripts/check_decomp_upstream.sh builds it)")
            ok = False
            continue
        for ranks in RANKS:
            run = gtest_ranks.run_suite(program, ranks, mpi_harness.mpirun_command(ranks), env, binaries / "reports",
                                        timeout_s=600)
            ok &= report_gtest(run)

    if args.gtest_only:
        print(f"\nupstream-suites: {'all passed' if ok else 'FAILURES (above)'} (GoogleTest suites only)")
        return 0 if ok else 1

    section("upstream tests/ctest Fortran tests (this library's Fortran module, host stand-in for cudafor)")
    for name in FORTRAN_PROGRAMS:
        program = binaries / name
        if not program.exists():
            print(f"{name}: NOT BUILT in {binaries} (is gfortran installed?)")
            ok = False
            continue
        ok &= run_fortran(program, env, timeout_s=300)

    if not args.no_sweeps:
        section("upstream tests/cc sweeps through tests/test_runner.py (MPI backends, CI-sized grids)")
        if not runner.exists():
            print(f"{runner} not found")
            ok = False
        cases = Counter()
        for config, overrides in SWEEPS:
            for ranks in RANKS:
                run = sweeps.run_sweep(runner, binaries, config, overrides, ranks, mpi_harness.mpirun_command(ranks),
                                       env, timeout_s=900)
                label = "rank" if ranks == 1 else "ranks"
                print(f"{config} [{overrides}], {ranks} {label}: {run.planned} cases: {run.passed} passed, "
                      f"{run.failed} failed ({run.seconds:.1f} s)", flush=True)
                cases[ranks] += run.passed
                if not run.ok:
                    print("    " + run.output[-4000:].replace("\n", "\n    "))
                    ok = False
        print("tests/cc cases passed: " + ", ".join(f"{cases[ranks]} with {ranks} rank{'s' * (ranks > 1)}"
                                                      for ranks in RANKS))

    section("not run, and why")
    for line in NOT_RUN:
        print(f"- {line}")
    print(f"\nupstream-suites: {'all passed' if ok else 'FAILURES (above)'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
