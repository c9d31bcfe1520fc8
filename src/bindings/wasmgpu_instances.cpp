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
#include "runtime/device_discovery.hpp"
#include "wasm/cpu_instances.hpp"
#include "wasm/host_modules.hpp"
#include "wasm/instance_set.hpp"
#include "wasm/vulkan_instances.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

wasm::ReserveOptions reserve(std::uint32_t memory_pages, std::uint32_t table_entries, std::uint32_t stack_slots) {
  wasm::ReserveOptions options;
  options.memory_pages = memory_pages;
  options.table_entries = table_entries;
  options.stack_slots = stack_slots;
  return options;
}

std::unique_ptr<wasm::InstanceSet> spawn_cpu(const NativeModule& module, std::uint32_t count,
                                             std::uint32_t memory_pages, std::uint32_t table_entries,
                                             std::uint32_t stack_slots) {
  const wasm::ReserveOptions options = reserve(memory_pages, table_entries, stack_slots);
  nb::gil_scoped_release release;
  return std::make_unique<wasm::CpuInstances>(module.module, count, options);
}

// device_index: a Vulkan device from list_devices() (the Python layer applies the selection policy).
std::unique_ptr<wasm::InstanceSet> spawn_vulkan(const NativeModule& module, std::uint32_t count,
                                                std::uint32_t memory_pages, std::uint32_t table_entries,
                                                std::uint32_t stack_slots, std::uint32_t device_index) {
  const wasm::ReserveOptions options = reserve(memory_pages, table_entries, stack_slots);
  nb::gil_scoped_release release;
  for (const auto& device : runtime::list_devices()) {
    if (device.index == device_index)
      return std::make_unique<wasm::VulkanInstances>(module.module, count, options, device);
  }
  throw std::invalid_argument("device: no Vulkan device has index " + std::to_string(device_index));
}

void begin_call(wasm::InstanceSet& self, std::uint32_t function, nb::bytes args, std::optional<std::uint64_t> fuel) {
  std::vector<std::uint64_t> slots(args.size() / 8);
  std::memcpy(slots.data(), args.data(), slots.size() * 8);
  nb::gil_scoped_release release;
  self.begin_call(function, slots, fuel);
}

std::uint32_t step(wasm::InstanceSet& self, std::uint32_t quantum) {
  nb::gil_scoped_release release;
  return self.step(quantum);
}

template <typename T>
nb::bytes as_bytes(const std::vector<T>& values) {
  return nb::bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

nb::tuple outcome(wasm::InstanceSet& self, std::uint32_t result_count) {
  const wasm::CallOutcome result = self.outcome(result_count);
  return nb::make_tuple(as_bytes(result.status), as_bytes(result.trap), as_bytes(result.results), result.executed,
                        as_bytes(result.trap_index));
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
    } catch (const wasm::InstantiationTrap& trap) {
      nb::object type = nb::module_::import_("wasmgpu.errors").attr("InstantiationTrapped");
      nb::object instance = type(trap.code());
      PyErr_SetObject(type.ptr(), instance.ptr());
    }
  });

  nb::class_<wasm::InstanceSet>(module, "NativeInstances")
      .def_prop_ro("count", &wasm::InstanceSet::count)
      .def_prop_ro("resident_bytes", &wasm::InstanceSet::resident_bytes)
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

  module.def("spawn_cpu", &spawn_cpu, "module"_a, "count"_a, "memory_pages"_a, "table_entries"_a, "stack_slots"_a,
             "Allocates and instantiates `count` instances on the cpu device");
  module.def("spawn_vulkan", &spawn_vulkan, "module"_a, "count"_a, "memory_pages"_a, "table_entries"_a, "stack_slots"_a,
             "device_index"_a, "Allocates and instantiates `count` instances on a Vulkan device");
}

}  // namespace wavestack::bindings
