// Compiled mode's bindings: compile_module (the partition into units, done when a Module is
// created with execution="compiled"), and what module.compiled and last_call report.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <stdexcept>

#include "bindings/wasmgpu_native_module.hpp"

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
  module.compiled = std::make_shared<wasm::compiler::CompiledModule>(module.module, options);
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

// Per unit: (the module-space indices of the functions with blocks in it, its block count,
// its instruction count): what module.compiled.regions lists.
nb::list compiled_units(NativeModule& module) {
  const wasm::compiler::CompiledModule& compiled = compiled_of(module);
  const std::uint32_t imported = module.module.imported_functions;
  nb::list units;
  for (const wasm::compiler::Unit& unit : compiled.layout().units) {
    nb::list functions;
    for (const std::uint32_t defined : unit.functions) functions.append(imported + defined);
    units.append(nb::make_tuple(nb::tuple(functions), unit.blocks.size(), unit.instruction_count));
  }
  return units;
}

nb::dict compile_counters(NativeModule& module) {
  const wasm::CompileCounters counters = compiled_of(module).counters();
  nb::dict result;
  result["codegen_seconds"] = counters.codegen_seconds;
  result["compile_seconds"] = counters.compile_seconds;
  result["units_generated"] = counters.units_generated;
  result["units_compiled"] = counters.units_compiled;
  result["units_from_cache"] = counters.units_from_cache;
  return result;
}

}  // namespace

void bind_compiled(nb::module_& module) {
  module.def("compile_module", &compile_module, "module"_a, "compile_limit"_a, "compile_functions"_a,
             "Partitions the module into compiled units (code is generated and built lazily)");
  module.def("compiled_summary", &compiled_summary, "module"_a);
  module.def("compile_counters", &compile_counters, "module"_a);
  module.def("compiled_units", &compiled_units, "module"_a);
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
