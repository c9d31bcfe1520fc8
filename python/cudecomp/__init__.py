"""cudecomp: distributed 3-D pencil transposes and halo updates over MPI (CPU-only build).

The Python API of cuDecomp on NumPy host arrays and mpi4py communicators. Importing the package
starts no MPI work; mpi4py is imported when the first Handle is created.
"""

from cudecomp import _native
from cudecomp._errors import CudecompError
from cudecomp._grid import GridDesc, Handle, PencilInfo, get_data_type_size
from cudecomp._native import (AutotuneGridMode, DataType, HaloCommBackend, RankOrder, Result,
                              TransposeCommBackend)
from cudecomp._structs import GridDescAutotuneOptions, GridDescConfig

__version__: str = _native.__version__


def transpose_comm_backend_to_string(backend: TransposeCommBackend) -> str:
    """Upstream's name of a transpose backend (cudecompTransposeCommBackendToString).

    Args:
        backend: a :class:`TransposeCommBackend` member.

    Returns:
        The name, such as ``"MPI_P2P (pipelined)"``, or ``"ERROR"`` for a value outside the enum.
    """
    return _native.transpose_backend_to_string(backend)


def halo_comm_backend_to_string(backend: HaloCommBackend) -> str:
    """Upstream's name of a halo backend (cudecompHaloCommBackendToString).

    Args:
        backend: a :class:`HaloCommBackend` member.

    Returns:
        The name, such as ``"MPI (blocking)"``, or ``"ERROR"`` for a value outside the enum.
    """
    return _native.halo_backend_to_string(backend)


__all__ = [
    "AutotuneGridMode", "CudecompError", "DataType", "GridDesc", "GridDescAutotuneOptions", "GridDescConfig",
    "HaloCommBackend", "Handle", "PencilInfo", "RankOrder", "Result", "TransposeCommBackend", "__version__",
    "get_data_type_size", "halo_comm_backend_to_string", "transpose_comm_backend_to_string",
]
