"""The MPI harness itself: a real 4-rank allreduce, and the failure paths it must catch."""

import pytest

from mpi_harness import run_mpi


def test_allreduce_on_four_ranks():
    run = run_mpi(4, "allreduce_worker.py")
    assert "allreduce OK on 4 ranks" in run.output


def test_a_failing_rank_fails_the_run():
    with pytest.raises(AssertionError, match="exited with"):
        run_mpi(2, "failing_worker.py", timeout=60)


def test_a_hanging_run_is_stopped_by_the_timeout():
    with pytest.raises(AssertionError, match="timed out"):
        run_mpi(2, "hanging_worker.py", timeout=10)
