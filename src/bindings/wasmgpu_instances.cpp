// wasmgpu._native.NativeInstances: a spawn on the cpu device. The Python layer
// (wasmgpu/instances.py) validates and packs inputs, drives the dispatch loop (so cancel= is
// checked between dispatches) and decodes results; this layer moves raw 64-bit slots.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "bindings/wasmgpu_native_module.hpp"
#include "bindings/wasmgpu_values.hpp"
#include "runtime/device_discovery.hpp"
#include "wasm/cpu_instances.hpp"
#include "wasm/host_modules.hpp"
#include "wasm/instance_set.hpp"
#include "wasm/vulkan_instances.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

struct SpawnArguments {
  wasm::ReserveOptions reserve;
  wasm::SpawnLimits limits;
};

SpawnArguments spawn_arguments(std::optional<std::uint32_t> memory_pages, std::optional<std::uint32_t> table_elements,
                               std::uint32_t stack_size, std::uint32_t call_depth, std::optional<std::uint64_t> fuel,
                               std::uint32_t quantum, std::optional<std::uint32_t> batch_size,
                               std::uint64_t max_resident_bytes) {
  SpawnArguments arguments;
  arguments.reserve.memory_pages = memory_pages;
  arguments.reserve.table_elements = table_elements;
  arguments.reserve.stack_slots = stack_size;
  arguments.reserve.call_depth = call_depth;
  arguments.limits.start_fuel = fuel;
  arguments.limits.quantum = quantum;
  arguments.limits.batch_size = batch_size;
  arguments.limits.max_resident_bytes = max_resident_bytes;
  return arguments;
}

std::unique_ptr<wasm::InstanceSet> spawn_cpu(const NativeModule& module, std::uint32_t count,
                                             std::optional<std::uint32_t> memory_pages,
                                             std::optional<std::uint32_t> table_elements, std::uint32_t stack_size,
                                             std::uint32_t call_depth, std::optional<std::uint64_t> fuel,
                                             std::uint32_t quantum, std::optional<std::uint32_t> batch_size,
                                             std::uint64_t max_resident_bytes) {
  const SpawnArguments arguments = spawn_arguments(memory_pages, table_elements, stack_size, call_depth, fuel, quantum,
                                                   batch_size, max_resident_bytes);
  nb::gil_scoped_release release;
  return std::make_unique<wasm::CpuInstances>(module.module, count, arguments.reserve, arguments.limits);
}

// device_index: a Vulkan device from list_devices() (the Python layer applies the selection policy).
std::unique_ptr<wasm::InstanceSet> spawn_vulkan(const NativeModule& module, std::uint32_t count,
                                                std::optional<std::uint32_t> memory_pages,
                                                std::optional<std::uint32_t> table_elements, std::uint32_t stack_size,
                                                std::uint32_t call_depth, std::optional<std::uint64_t> fuel,
                                                std::uint32_t quantum, std::optional<std::uint32_t> batch_size,
                                                std::uint64_t max_resident_bytes, std::uint32_t device_index) {
  const SpawnArguments arguments = spawn_arguments(memory_pages, table_elements, stack_size, call_depth, fuel, quantum,
                                                   batch_size, max_resident_bytes);
  nb::gil_scoped_release release;
  for (const auto& device : runtime::list_devices()) {
    if (device.index == device_index) {
      return std::make_unique<wasm::VulkanInstances>(module.module, count, arguments.reserve, arguments.limits, device);
    }
  }
  throw std::invalid_argument("device: no Vulkan device has index " + std::to_string(device_index));
}

// A call's arguments, converted: every instance's slots, instance-major.
struct PackedArguments {
  std::vector<std::uint64_t> slots;
};

// Arguments are converted (and every error raised) before the call starts on any instance.
PackedArguments pack(wasm::InstanceSet& self, nb::handle inputs, const std::string& kinds) {
  return PackedArguments{pack_arguments(inputs, kinds, self.count())};
}

void begin_call(wasm::InstanceSet& self, std::uint32_t function, const PackedArguments& args,
                std::optional<std::uint64_t> fuel) {
  nb::gil_scoped_release release;
  self.begin_call(function, args.slots, fuel);
}

nb::tuple step(wasm::InstanceSet& self, std::uint32_t quantum) {
  wasm::StepProgress progress;
  {
    nb::gil_scoped_release release;
    progress = self.step(quantum);
  }
  return nb::make_tuple(progress.running, progress.executed);
}

template <typename T>
nb::bytes as_bytes(const std::vector<T>& values) {
  return nb::bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

std::unique_ptr<wasm::CallOutcome> outcome(wasm::InstanceSet& self, std::uint32_t result_count) {
  nb::gil_scoped_release release;
  return std::make_unique<wasm::CallOutcome>(self.outcome(result_count));
}

nb::bytes read_memory(wasm::InstanceSet& self, std::uint32_t instance, std::uint64_t address, std::uint64_t length) {
  std::vector<std::uint8_t> data(length);
  self.read_memory(instance, address, data);
  return as_bytes(data);
}

void write_memory(wasm::InstanceSet& self, std::uint32_t instance, std::uint64_t address, nb::bytes data) {
  const auto* bytes = static_cast<const std::uint8_t*>(data.data());
  self.write_memory(instance, address, std::span<const std::uint8_t>(bytes, data.size()));
}

}  // namespace

void bind_instances(nb::module_& module) {
  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const wasm::LinkError& link) {
      nb::object type = nb::module_::import_("wasmgpu.errors").attr("LinkError");
      nb::object instance = type(link.what());
      PyErr_SetObject(type.ptr(), instance.ptr());
    } catch (const wasm::ResourceLimit& limit) {
      nb::object type = nb::module_::import_("wasmgpu.errors").attr("ResourceLimitError");
      PyErr_SetString(type.ptr(), limit.what());
    } catch (const wasm::InstantiationTrap& trap) {
      nb::object type = nb::module_::import_("wasmgpu.errors").attr("InstantiationTrapped");
      nb::object instance = type(trap.code());
      PyErr_SetObject(type.ptr(), instance.ptr());
    }
  });

  nb::class_<wasm::InstanceSet>(module, "NativeInstances")
      .def_prop_ro("count", &wasm::InstanceSet::count)
      .def_prop_ro("resident_bytes", &wasm::InstanceSet::resident_bytes)
      .def("pack", &pack, "inputs"_a.none(), "kinds"_a)
      .def("begin_call", &begin_call, "function"_a, "args"_a, "fuel"_a.none())
      .def("step", &step, "quantum"_a)
      .def("outcome", &outcome, "result_count"_a)
      .def("reset",
           [](wasm::InstanceSet& self) {
             nb::gil_scoped_release release;
             self.reset();
           })
      .def("global_value", &wasm::InstanceSet::global_value, "instance"_a, "global"_a)
      .def("memory_size", &wasm::InstanceSet::memory_size_bytes, "instance"_a)
      .def("read_memory", &read_memory, "instance"_a, "address"_a, "length"_a)
      .def("write_memory", &write_memory, "instance"_a, "address"_a, "data"_a);

  nb::class_<PackedArguments>(module, "PackedArguments").def("__len__", [](const PackedArguments& self) {
    return self.slots.size();
  });
  bind_values(module);
  module.def("spawn_cpu", &spawn_cpu, "module"_a, "count"_a, "memory_pages"_a.none(), "table_elements"_a.none(),
             "stack_size"_a, "call_depth"_a, "fuel"_a.none(), "quantum"_a, "batch_size"_a.none(),
             "max_resident_bytes"_a, "Allocates and instantiates `count` instances on the cpu device");
  module.def("spawn_vulkan", &spawn_vulkan, "module"_a, "count"_a, "memory_pages"_a.none(), "table_elements"_a.none(),
             "stack_size"_a, "call_depth"_a, "fuel"_a.none(), "quantum"_a, "batch_size"_a.none(),
             "max_resident_bytes"_a, "device_index"_a,
             "Allocates and instantiates `count` instances on a Vulkan device");
}

}  // namespace wavestack::bindings
