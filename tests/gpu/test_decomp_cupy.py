"""cudecomp's GPU build from Python, on CuPy arrays and a real GPU: decomp_cupy_worker.py under
mpirun with 1, 2 and 4 ranks (more ranks than GPUs share them).

Only scripts/gpu-check.sh runs this folder: `make test` never collects it (pyproject's testpaths
leave tests/gpu out), since CI machines have no GPU. Where CuPy or the GPU build is missing the
tests fail, never skip: on the machine that runs them, that is a broken setup."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "mpi"))
from mpi_harness import mpirun_command  # noqa: E402

TIMEOUT_S = 900


def require_gpu_build() -> None:
    try:
        import cupy  # noqa: F401, PLC0415
    except ImportError as error:
        pytest.fail(f"CuPy is not importable ({error}); these tests run on a GPU machine (scripts/gpu-check.sh)",
                    pytrace=False)
    import cudecomp  # noqa: PLC0415

    if not cudecomp._native.has_cuda:
        pytest.fail(f"cudecomp {cudecomp.__version__} is the NumPy build; build with WAVESTACK_CUDA=ON "
                    "(WAVESTACK_CUDECOMP_PYTHON_GPU not OFF)", pytrace=False)


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_cupy_arrays(ranks):
    require_gpu_build()
    # Plain mpirun, as gpu-check.sh runs the C device tests: the MPI backends pass device
    # pointers, which needs the transports CUDA-aware MPI picks (the CPU tests' harness pins
    # shared memory ones).
    command = [*mpirun_command(ranks), sys.executable, "-m", "mpi4py", str(HERE / "decomp_cupy_worker.py")]
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1")
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # mpirun and its ranks share the new session's group
        output, _ = process.communicate()
        pytest.fail(f"{ranks} ranks timed out after {TIMEOUT_S} s\n{output}", pytrace=False)
    print(output)
    assert process.returncode == 0, f"{ranks} ranks exited with {process.returncode}\n{output}"
    assert f"CuPy arrays OK on {ranks} ranks" in output
