"""cudecomp's package-level behaviour that needs no MPI launch."""

import subprocess
import sys

import pytest


def test_import_starts_no_mpi_and_loads_no_vulkan():
    code = ("import sys, cudecomp; assert 'mpi4py.MPI' not in sys.modules, 'mpi4py imported'; "
            "maps = open('/proc/self/maps').read(); assert 'libvulkan' not in maps; print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_public_names():
    import cudecomp

    for name in ("Handle", "GridDesc", "GridDescConfig", "GridDescAutotuneOptions", "PencilInfo", "DataType",
                 "TransposeCommBackend", "HaloCommBackend", "RankOrder", "AutotuneGridMode", "CudecompError"):
        assert hasattr(cudecomp, name), name
    assert issubclass(cudecomp.CudecompError, RuntimeError)


def test_bench_device_option_of_the_numpy_build(capsys):
    # GPU arrays and NCCL need the GPU build: refused with one line, before any MPI work
    # (scripts/gpu-check.sh runs the GPU side).
    from cudecomp.__main__ import main

    with pytest.raises(SystemExit) as refused:
        main(["bench", "--gdims", "8", "8", "8", "--backend", "NCCL", "--device", "both"])
    assert refused.value.code == 2
    assert "NCCL runs on GPU arrays only" in capsys.readouterr().err
    for device in ("gpu", "both"):
        assert main(["bench", "--gdims", "8", "8", "8", "--device", device]) == 2
        assert "--device gpu: this is the NumPy build of cudecomp" in capsys.readouterr().err
