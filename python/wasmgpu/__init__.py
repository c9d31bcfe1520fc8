"""wasmgpu: one WebAssembly module run as many independent instances on a GPU."""

from wasmgpu import _native
from wasmgpu.errors import InvalidModule, LinkError, MalformedModule, ModuleError, Trap, UnsupportedFeature
from wasmgpu.instances import CallStats, Instances, Reference
from wasmgpu.module import Export, Import, Module

__version__: str = _native.__version__

__all__ = ["__version__", "Module", "Export", "Import", "ModuleError", "MalformedModule", "InvalidModule",
           "UnsupportedFeature", "LinkError", "Trap", "Instances", "CallStats", "Reference"]
