"""The backends the NumPy (CPU) package can run: the MPI ones. NCCL moves device buffers only and
NVSHMEM exists in no build of this library, so a grid of the NumPy package is refused one at
creation (NOT_SUPPORTED, naming the config field), as upstream's CPU-only package does, instead of
at its first transpose; and backend autotuning leaves NCCL out (a GPU build's autotuner would
otherwise try it on device buffers and might choose it)."""

from __future__ import annotations

from cudecomp._errors import CudecompError
from cudecomp._native import HaloCommBackend, Result, TransposeCommBackend

_DEVICE_ONLY_TRANSPOSE = (TransposeCommBackend.NCCL, TransposeCommBackend.NCCL_PL, TransposeCommBackend.NVSHMEM,
                          TransposeCommBackend.NVSHMEM_PL, TransposeCommBackend.NVSHMEM_SM)
_DEVICE_ONLY_HALO = (HaloCommBackend.NCCL, HaloCommBackend.NVSHMEM, HaloCommBackend.NVSHMEM_BLOCKING)


def _refuse(field: str, backend) -> None:
    raise CudecompError(f"{field}: {backend.name} needs CUDA device arrays, which this NumPy (CPU) package of "
                        "cudecomp does not take; use an MPI backend (or the GPU package on CUDA arrays)",
                        Result.NOT_SUPPORTED)


def host_grid_options(config, options):
    """Refuses `config`'s device-only backends (those the options do not autotune) and returns the
    options to create the grid with: a copy without NCCL candidates where backends are tuned."""
    tunes_transpose = options is not None and bool(options.autotune_transpose_backend)
    tunes_halo = options is not None and bool(options.autotune_halo_backend)
    if not tunes_transpose and config.transpose_comm_backend in _DEVICE_ONLY_TRANSPOSE:
        _refuse("config.transpose_comm_backend", config.transpose_comm_backend)
    if not tunes_halo and config.halo_comm_backend in _DEVICE_ONLY_HALO:
        _refuse("config.halo_comm_backend", config.halo_comm_backend)
    if (tunes_transpose or tunes_halo) and not options.disable_nccl_backends:
        options = options.copy()
        options.disable_nccl_backends = True
    return options
