"""wasmgpu: one WebAssembly module run as many independent instances on a GPU.

The API is the original wasmgpu package's (``Module``, ``Module.spawn``, ``Instances.call``,
its resource controls, defaults and exception classes) with this project's extensions on top
(``device=``, ``allow_software=``, ``host_modules=``, ``results="numpy"``, the cpu device).
"""

import atexit

from wasmgpu import _native
from wasmgpu.compiled import CompiledModule, CompiledUnit
from wasmgpu.errors import (GPUUnavailableError, InvalidModule, LinkError, MalformedModule, ModuleError,
                            ResourceLimitError, Trap, UnsupportedFeature, UnsupportedFeatureError, ValidationError,
                            WasmGPUError)
from wasmgpu.instances import CallStats, Instances, Reference
from wasmgpu.module import Export, Import, Module
from wasmgpu.wasi import Wasi

__version__: str = _native.__version__

# Background builds of compiled units (the cpu device) stop before the interpreter exits: the
# C library's exit handlers would otherwise destroy LLVM's objects under a running build.
atexit.register(_native.stop_background_builds)

__all__ = ["__version__", "Module", "CompiledModule", "CompiledUnit", "Wasi", "Export", "Import", "Instances", "CallStats", "Reference", "WasmGPUError",
           "ValidationError", "MalformedModule", "InvalidModule", "ModuleError", "UnsupportedFeatureError",
           "UnsupportedFeature", "ResourceLimitError", "GPUUnavailableError", "LinkError", "Trap"]
