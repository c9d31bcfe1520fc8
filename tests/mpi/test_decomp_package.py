"""cudecomp's package-level behaviour that needs no MPI launch."""

import subprocess
import sys


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
