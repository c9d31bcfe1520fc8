// Compiled mode's bindings: compile_module (the partition into units, done when a Module is
// created with execution="compiled"), and what module.compiled and last_call report.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <stdexcept>

#include "bindings/wasmgpu_native_module.hpp"
#include "wasm/compiler/build_pool.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

wasm::compiler::CompiledModule& compiled_of(NativeModule& module) {
  if (!module.compiled) throw std::logic_error("the module was not compiled (execution='interpreter')");
  return *module.compiled;
}

void compile_module(NativeModule& module, std::uint32_t compile_limit, const std::vector<std::uint32_t>& functions) {
  wasm::compiler::UnitOptions options;
  options.compile_limit = compile_limit;
  options.compile_functions = functions;
  nb::gil_scoped_release release;
  module.compiled = std::make_shared<wasm::compiler::CompiledModule>(module.module, options, module.digest);
}

nb::dict compiled_summary(NativeModule& module) {
  const wasm::compiler::CompiledSummary summary = compiled_of(module).summary();
  nb::dict result;
  result["units"] = summary.units;
  result["functions"] = summary.functions;
  result["blocks"] = summary.blocks;
  result["instructions"] = summary.instructions;
  result["jump_table_entries"] = summary.jump_table_entries;
  result["complete"] = summary.complete;
  return result;
}

nb::dict compile_counters(NativeModule& module) {
  const wasm::CompileCounters counters = compiled_of(module).counters();
  nb::dict result;
  result["codegen_seconds"] = counters.codegen_seconds;
  result["compile_seconds"] = counters.compile_seconds;
  result["units_generated"] = counters.units_generated;
  result["units_compiled"] = counters.units_compiled;
  result["units_from_cache"] = counters.units_from_cache;
  result["units_built_ahead"] = counters.units_built_ahead;
  result["units_rebuilt_hot"] = counters.units_rebuilt_hot;
  result["units_precompiled"] = counters.units_precompiled;
  result["background_seconds"] = counters.background_seconds;
  return result;
}

}  // namespace

void bind_compiled(nb::module_& module) {
  module.def("compile_module", &compile_module, "module"_a, "compile_limit"_a, "compile_functions"_a,
             "Partitions the module into compiled units (code is generated and built lazily)");
  module.def("compiled_summary", &compiled_summary, "module"_a);
  module.def(
      "stop_background_builds",
      [] {
        nb::gil_scoped_release release;
        if (wasm::compiler::BuildPool* pool = wasm::compiler::BuildPool::started()) pool->stop();
      },
      "Drops queued background builds and waits for running ones (called at interpreter exit)");
  module.def("compile_counters", &compile_counters, "module"_a);
  module.def(
      "compiled_unit_source",
      [](NativeModule& module, std::uint32_t unit, const std::string& device) {
        wasm::compiler::CompiledModule& compiled = compiled_of(module);
        if (unit >= compiled.unit_count()) throw nb::index_error("unit: no such unit");
        if (device == "gpu") return compiled.shader_source(unit);
        if (device == "gpu-prefix") return compiled.prefix_shader_source(unit);
        if (device == "cpu") return compiled.cpu_source(unit, 0);
        if (device == "cpu-prefix") return compiled.cpu_source(unit, 1);
        throw std::invalid_argument("device: 'cpu', 'cpu-prefix', 'gpu' or 'gpu-prefix'");
      },
      "module"_a, "unit"_a, "device"_a, "The complete source of a unit (tests, debugging)");
}

}  // namespace wavestack::bindings
