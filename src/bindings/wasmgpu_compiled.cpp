// Compiled mode's bindings: compile_module (the partition into units, done when a Module is
// created with execution="compiled"), and what module.compiled and last_call report.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "bindings/wasmgpu_native_module.hpp"
#include "runtime/device_discovery.hpp"
#include "runtime/thread_pool.hpp"
#include "wasm/compiler/build_pool.hpp"
#include "wasm/compiler/build_progress.hpp"
#include "wasm/compiler/cpu_tiers.hpp"
#include "wasm/device/compiled_glsl.hpp"
#include "wasm/instances/vulkan_device.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

wasm::compiler::CompiledModule& compiled_of(NativeModule& module) {
  if (!module.compiled) throw std::logic_error("the module was not compiled (execution='interpreter')");
  return *module.compiled;
}

void compile_module(NativeModule& module, std::uint32_t compile_limit, const std::vector<std::uint32_t>& functions,
                    const std::string& label) {
  wasm::compiler::UnitOptions options;
  options.compile_limit = compile_limit;
  options.compile_functions = functions;
  std::optional<wasm::compiler::CompiledLayout> prefetched;
  if (module.prefetched_layout && module.prefetched_for.compile_limit == compile_limit &&
      module.prefetched_for.compile_functions == functions) {
    prefetched = std::move(module.prefetched_layout);
  }
  module.prefetched_layout.reset();
  nb::gil_scoped_release release;
  module.compiled = std::make_shared<wasm::compiler::CompiledModule>(module.module, options, module.digest, label,
                                                                     std::move(prefetched));
}

// "on", "off" or "always" (Python resolves Module(progress=) and WAVESTACK_PROGRESS); None
// follows the variable at each call.
void set_progress(NativeModule& module, const std::optional<std::string>& mode) {
  compiled_of(module).progress().set_mode(mode ? std::optional(wasm::compiler::progress_mode(mode->c_str()))
                                               : std::nullopt);
}

// Builds every unit for the cpu device at `tier` ("fast", "optimized", "host"; None: the best
// tier of this process's plan).
void precompile_cpu(NativeModule& module, const std::optional<std::string>& tier) {
  std::optional<wasm::compiler::CpuTier> chosen;
  if (tier) {
    chosen = wasm::compiler::cpu_tier_plan(tier->c_str(), true).first;
  }
  nb::gil_scoped_release release;
  compiled_of(module).cpu_code().build_all(chosen);
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
  result["units_built_ahead"] = counters.units_built_ahead;
  result["units_rebuilt_hot"] = counters.units_rebuilt_hot;
  result["units_precompiled"] = counters.units_precompiled;
  result["background_seconds"] = counters.background_seconds;
  result["layout_from_cache"] = compiled_of(module).layout_from_cache();
  return result;
}

// Builds every unit's pipeline on Vulkan device `device_index` (the shader's SPIR-V and the
// driver's pipeline cache are kept on disk; the device keeps the most recent pipelines in
// memory), on every core (drivers create pipelines concurrently), then saves the driver's
// cache once.
void precompile_vulkan(NativeModule& module, std::uint32_t device_index) {
  wasm::compiler::CompiledModule& compiled = compiled_of(module);
  std::optional<runtime::DeviceInfo> chosen;
  for (const auto& device : runtime::list_devices()) {
    if (device.index == device_index) chosen = device;
  }
  if (!chosen) throw std::invalid_argument("device: no Vulkan device has index " + std::to_string(device_index));
  nb::gil_scoped_release release;
  const std::shared_ptr<wasm::VulkanDevice> device = wasm::VulkanDevice::shared(*chosen);
  const std::uint32_t units = compiled.unit_count();
  compiled.progress().begin_total(units);
  std::atomic<std::uint32_t> done{0};
  runtime::ThreadPool::shared().parallel_for(units, [&](std::size_t unit) {
    const std::string source = compiled.shader_source(static_cast<std::uint32_t>(unit));
    wasm::PipelineBuild build;
    build.defer_cache_save = true;
    (void)device->unit(source, /*paged=*/false, build);  // the layout of spawns that fit
    if (build.built) compiled.add_compile_seconds(build.seconds, build.spirv_from_cache);
    compiled.progress().note_done(done.fetch_add(1) + 1);
  });
  // The shaders every module's steps share: the host's call and the outcome.
  for (const std::string& source :
       {wasm::device::compiled_entry_shader_source(), wasm::device::compiled_outcome_shader_source()}) {
    wasm::PipelineBuild build;
    build.defer_cache_save = true;
    const std::lock_guard lock(device->mutex);
    (void)device->unit(source, /*paged=*/false, build);
  }
  {
    const std::lock_guard lock(device->mutex);
    device->context.save_pipeline_cache();
  }
  compiled.progress().finish();
}

}  // namespace

void bind_compiled(nb::module_& module) {
  module.def("set_compile_progress", &set_progress, "module"_a, "mode"_a.none());
  module.def(
      "compile_progress_finish", [](NativeModule& module) { compiled_of(module).progress().finish(); }, "module"_a,
      "Ends a call's progress line (and prints its summary if it showed one)");
  module.def("precompile_cpu", &precompile_cpu, "module"_a, "tier"_a.none(),
             "Builds every unit's code for the cpu device (into the disk cache), in parallel");
  module.def("precompile_vulkan", &precompile_vulkan, "module"_a, "device_index"_a,
             "Builds every unit's pipeline on a Vulkan device (into the disk caches)");
  module.def(
      "cpu_tier_plan",
      [] {
        const wasm::compiler::CpuTierPlan plan = wasm::compiler::cpu_tier_plan_from_environment();
        return std::make_pair(
            std::string(wasm::compiler::cpu_tier_name(plan.first)),
            plan.hot ? std::optional(std::string(wasm::compiler::cpu_tier_name(*plan.hot))) : std::nullopt);
      },
      "This process's (first tier, hot tier) on the cpu device");
  module.def("compile_module", &compile_module, "module"_a, "compile_limit"_a, "compile_functions"_a, "label"_a,
             "Partitions the module into compiled units (code is generated and built lazily)");
  module.def("compiled_summary", &compiled_summary, "module"_a);
  module.def(
      "stop_background_builds",
      [] {
        nb::gil_scoped_release release;
        wasm::compiler::BuildPool::stop_shared();
      },
      "Drops queued background builds and waits for running ones (called at interpreter exit)");
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
