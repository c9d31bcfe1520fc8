"""wasmgpu.mpi's reset and files (against one process's spawn of every instance) and stopping a
call from one rank (cancel, SIGINT, a raising cancel) on 1, 2 and 4 ranks. Every launch has a
timeout: a rank that does not stop spins until it, and the run fails instead of hanging."""

import pytest

from mpi_harness import run_mpi

RANKS = [1, 2, 4]


@pytest.mark.parametrize("ranks", RANKS)
def test_reset_and_files_equal_one_process(ranks):
    # 3 instances leave a rank without any on 4 ranks; 10 split unevenly.
    run = run_mpi(ranks, "wasmgpu_mpi_reset_files_worker.py", "3", "10", timeout=180)
    assert f"wasmgpu.mpi reset/files OK on {ranks} ranks (counts [3, 10])" in run.output, run.output


@pytest.mark.parametrize("ranks", RANKS)
def test_one_rank_stops_a_call_on_every_rank(ranks):
    # 3 instances leave the last of 4 ranks without any: it stops the others while it waits.
    run = run_mpi(ranks, "wasmgpu_mpi_stop_worker.py", "5", "3", timeout=120)
    assert f"wasmgpu.mpi stops OK on {ranks} ranks (counts [5, 3])" in run.output, run.output
