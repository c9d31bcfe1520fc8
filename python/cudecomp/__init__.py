"""cudecomp: distributed 3-D pencil transposes and halo updates over MPI."""

from cudecomp import _native

__version__: str = _native.__version__

__all__ = ["__version__"]
