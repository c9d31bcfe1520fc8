"""wave_gpu: Python functions as GPU kernels, on the WAVE emulator and on Vulkan GPUs."""

from wave_gpu import _native

__version__: str = _native.__version__

__all__ = ["__version__"]
