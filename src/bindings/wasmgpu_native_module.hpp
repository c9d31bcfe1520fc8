// The loaded module as the wasmgpu bindings hold it (shared by the module and instance bindings).
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <optional>
#include <string>

#include "wasm/compiler/compiled_module.hpp"
#include "wasm/module/module.hpp"

namespace wavestack::bindings {

// A loaded (decoded and validated) module, immutable once built.
struct NativeModule {
  wasm::Module module;
  // SHA-256 of the binary and the load options: with compiled mode's options it keys the
  // disk cache's entries of the module's units.
  std::string digest;
  // execution="compiled": the units and their code, shared with every spawn (compile_module).
  std::shared_ptr<wasm::compiler::CompiledModule> compiled;
  // The cached partition read beside decoding for the options compiled mode was expected with
  // (load_module's `partition_for`), until compile_module takes it.
  std::optional<wasm::compiler::CompiledLayout> prefetched_layout;
  wasm::compiler::UnitOptions prefetched_for;
};

// Registers compile_module and what it reports (wasmgpu_compiled.cpp).
void bind_compiled(nanobind::module_& module);

// Registers NativeInstances (wasmgpu_instances.cpp).
void bind_instances(nanobind::module_& module);

}  // namespace wavestack::bindings
