"""wasmgpu: one WebAssembly module run as many independent instances on a GPU."""

from wasmgpu import _native

__version__: str = _native.__version__

__all__ = ["__version__"]
