"""wasmgpu: one WebAssembly module run as many independent instances on a GPU."""

from wasmgpu import _native
from wasmgpu.errors import InvalidModule, MalformedModule, ModuleError, UnsupportedFeature
from wasmgpu.module import Export, Import, Module

__version__: str = _native.__version__

__all__ = ["__version__", "Module", "Export", "Import", "ModuleError", "MalformedModule", "InvalidModule",
           "UnsupportedFeature"]
