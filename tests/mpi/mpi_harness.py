"""Runs MPI worker scripts under mpirun for pytest.

Each test calls `run_mpi(n, script, *args)`: it starts `mpirun -np n python script args`
with a timeout, and fails the test with the collected output when any rank fails, hangs or
the launcher exits non-zero. Workers report failures by raising (non-zero exit), so one
pytest summary covers every rank of every run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

WORKERS = Path(__file__).parent / "workers"
DEFAULT_TIMEOUT_S = 180


@dataclass
class MpiRun:
    returncode: int
    output: str


def mpirun_executable() -> str | None:
    return shutil.which("mpirun") or shutil.which("mpiexec")


def mpirun_command(nprocs: int) -> list[str]:
    launcher = mpirun_executable()
    if launcher is None:
        raise RuntimeError("mpirun was not found; install openmpi-bin (make test does this as root)")
    command = [launcher, "--oversubscribe", "-np", str(nprocs)]
    if os.geteuid() == 0:
        # Open MPI refuses root unless told; CI and containers run as root.
        command.append("--allow-run-as-root")
    return command


def mpi_environment() -> dict[str, str]:
    env = dict(os.environ)
    # Shared-memory transport only: no network interfaces are probed, and vader's
    # single-copy mechanism (CMA) is often forbidden inside containers.
    env.setdefault("OMPI_MCA_btl", "self,vader")
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    env.setdefault("OMPI_MCA_plm_rsh_agent", "")  # never try ssh for a local run
    env.setdefault("PMIX_MCA_gds", "hash")
    return env


def _stop_process_group(process: subprocess.Popen) -> str:
    """Ends mpirun and every rank it started (they share the new session's group)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            output, _ = process.communicate(timeout=5)
            return output or ""
        except subprocess.TimeoutExpired:
            continue
    return ""


def run_mpi(nprocs: int, script: str | Path, *args: str, timeout: float = DEFAULT_TIMEOUT_S) -> MpiRun:
    """Runs WORKERS/script (or a path) on `nprocs` ranks; raises AssertionError on failure.

    Workers run through `python -m mpi4py`, which calls MPI_Abort when a rank dies with an
    exception or a non-zero exit, so the other ranks cannot wait for it forever.
    """
    path = Path(script)
    if not path.is_absolute():
        path = WORKERS / path
    command = [*mpirun_command(nprocs), sys.executable, "-m", "mpi4py", str(path), *args]
    description = f"mpirun -np {nprocs} {path.name} {' '.join(args)}".rstrip()
    process = subprocess.Popen(
        command, env=mpi_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, text=True, start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        output = _stop_process_group(process)
        raise AssertionError(f"{description} timed out after {timeout} s\n{output}") from None
    if process.returncode != 0:
        raise AssertionError(f"{description} exited with {process.returncode}\n{output}")
    return MpiRun(process.returncode, output)
