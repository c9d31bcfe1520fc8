"""cudecomp on real ranks: each test is one mpirun launch that runs many configurations (a
launch costs seconds on a small machine); workers check every element against a function of
its global index and fail the launch on any mismatch."""

import pytest

from mpi_harness import run_mpi

RANKS = [1, 2, 3, 4, 6]


@pytest.mark.parametrize("ranks", RANKS)
def test_transposes(ranks):
    suites = ["sweep", "halo-padding", "gdims-dist", "col-major", "random"]
    if ranks in (1, 4):
        suites.append("large")  # 128 x 124 x 132 doubles
    run = run_mpi(ranks, "decomp_transpose_worker.py", *suites, timeout=240)
    assert f"transposes OK on {ranks} ranks" in run.output


@pytest.mark.parametrize("ranks", RANKS)
def test_halo_updates(ranks):
    run = run_mpi(ranks, "decomp_halo_worker.py", "sweep", "col-major", "random", timeout=180)
    assert f"halos OK on {ranks} ranks" in run.output


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_python_api_rules(ranks):
    run = run_mpi(ranks, "decomp_api_worker.py", timeout=120)
    assert f"API OK on {ranks} ranks" in run.output


@pytest.mark.parametrize("ranks", [1, 4, 6])
def test_autotuning(ranks):
    run = run_mpi(ranks, "decomp_autotune_worker.py", timeout=180)
    assert f"autotuning OK on {ranks} ranks" in run.output
    assert "CUDECOMP: SELECTED: grid:" in run.output  # reported by rank 0


@pytest.mark.parametrize("ranks", [3, 4])
def test_transposes_through_the_workspace(ranks, monkeypatch):
    # The pack/unpack path GPU builds use, forced on host memory (which otherwise sends blocks
    # as MPI datatypes straight between the pencils).
    monkeypatch.setenv("CUDECOMP_HOST_PACKING", "1")
    run = run_mpi(ranks, "decomp_transpose_worker.py", "sweep", "halo-padding", timeout=240)
    assert f"transposes OK on {ranks} ranks" in run.output


def test_the_demo_runs_on_four_ranks():
    from pathlib import Path

    demo = Path(__file__).resolve().parents[2] / "examples" / "cudecomp_demo.py"
    run = run_mpi(4, demo, timeout=180)
    assert "autotuned grid:" in run.output
    assert "transpose cycle and periodic halo update correct on 4 ranks" in run.output


def test_bench_cli_reports_a_cycle():
    run = run_mpi(2, "decomp_bench_cli_worker.py", "1", "2", "--backend", "MPI_A2A", "--in-place", timeout=120)
    assert "grid 1 x 2, backend MPI_A2A, in place" in run.output
    assert "GB/s" in run.output
    tuned = run_mpi(2, "decomp_bench_cli_worker.py", "0", "0", timeout=120)
    assert "CUDECOMP: SELECTED" in tuned.output and "GB/s" in tuned.output


def test_peer_benchmark_runs_side_by_side():
    from pathlib import Path

    bench = Path(__file__).resolve().parents[2] / "bench" / "decomp_transpose.py"
    run = run_mpi(2, bench, "--sizes", "16", "--iterations", "2", "--warmup", "1", timeout=180)
    assert "| 16^3 |" in run.output


@pytest.mark.parametrize("ranks", [1, 3, 4])
def test_cudecomp_0_7_parity(ranks):
    # NVSHMEM_SM, disable_mpi_backends, P_ROW/P_COL ranges, '^' exclusion, overflow errors and
    # grids with empty pencils (tests/mpi/workers/decomp_parity_worker.py).
    run = run_mpi(ranks, "decomp_parity_worker.py", timeout=120)
    assert f"parity OK on {ranks} ranks" in run.output
