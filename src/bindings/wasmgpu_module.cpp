// wasmgpu._native: the extension module of the wasmgpu package.
#include <nanobind/nanobind.h>

#include "bindings/runtime_bindings.hpp"

NB_MODULE(_native, module) {
  module.doc() = "wasmgpu native layer: WebAssembly decoding, validation and device execution";
  wavestack::bindings::bind_runtime(module);
}
