"""cudecomp's GPU-build Python path (CUDA array interface, raw addresses, streams) on real ranks
without a GPU: the worker switches _native.has_cuda on and passes host memory through the
interface; every element is checked against a function of its global index."""

import pytest

from mpi_harness import run_mpi


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_gpu_build_python_path(ranks):
    run = run_mpi(ranks, "decomp_cuda_path_worker.py", timeout=120)
    assert f"GPU-build Python path OK on {ranks} ranks" in run.output
