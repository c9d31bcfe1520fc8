// wasmgpu._native.NativeInstances: a spawn on the cpu device. The Python layer
// (wasmgpu/instances.py) validates and packs inputs, drives the dispatch loop (so cancel= is
// checked between dispatches) and decodes results; this layer moves raw 64-bit slots.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bindings/wasmgpu_native_module.hpp"
#include "bindings/wasmgpu_values.hpp"
#include "runtime/device_discovery.hpp"
#include "wasm/instances/cpu_instances.hpp"
#include "wasm/instances/instance_set.hpp"
#include "wasm/instances/vulkan_instances.hpp"
#include "wasm/load/host_modules.hpp"
#include "wasm/wasi/wasi_config.hpp"
#include "wasm/wasi/wasi_inspect.hpp"
#include "wasm/wasi/wasi_listing.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

struct SpawnArguments {
  wasm::ReserveOptions reserve;
  wasm::SpawnLimits limits;
  runtime::ZeroedWords wasi_region;  // empty without WASI
};

std::string bytes_of(nb::handle object) {
  const auto data = nb::cast<nb::bytes>(object);
  return {data.c_str(), data.size()};
}

// The checked wasmgpu.Wasi of the Python layer (wasi.py) with the files to embed (the module's
// merged with its own), as the initial WASI region; None: no WASI.
runtime::ZeroedWords wasi_region(nb::handle wasi, nb::handle files) {
  if (wasi.is_none()) return {};
  wasm::WasiConfig config;
  for (nb::handle arg : wasi.attr("args")) config.args.push_back(bytes_of(arg));
  for (nb::handle entry : wasi.attr("env")) config.env.push_back(bytes_of(entry[0]) + "=" + bytes_of(entry[1]));
  config.stdin_bytes = bytes_of(wasi.attr("stdin"));
  for (auto [path, content] : nb::cast<nb::dict>(files)) {
    config.files.emplace_back(nb::cast<std::string>(path), bytes_of(content));
  }
  config.storage_size = nb::cast<std::uint32_t>(wasi.attr("storage_size"));
  config.max_files = nb::cast<std::uint32_t>(wasi.attr("max_files"));
  config.max_fds = nb::cast<std::uint32_t>(wasi.attr("max_fds"));
  const std::string key = bytes_of(wasi.attr("key"));
  std::array<std::uint8_t, 32> seed{};
  std::memcpy(seed.data(), key.data(), std::min(key.size(), seed.size()));
  config.seed = seed;
  config.clock_epoch_ns = nb::cast<std::uint64_t>(wasi.attr("clock_epoch_ns"));
  config.clock_resolution_ns = nb::cast<std::uint64_t>(wasi.attr("clock_resolution_ns"));
  config.preopen_root = !wasi.attr("preopen").is_none();
  if (config.preopen_root) config.preopen = bytes_of(wasi.attr("preopen"));
  return wasm::build_wasi_region(config);
}

// The spawn arguments of the Python layer (spawn.py), already checked there.
struct SpawnRequest {
  std::optional<std::uint32_t> memory_pages;
  std::optional<std::uint32_t> table_elements;
  std::uint32_t stack_size = 0;
  std::uint32_t call_depth = 0;
  std::optional<std::uint64_t> fuel;
  std::uint32_t quantum = 0;
  std::optional<std::uint32_t> batch_size;
  std::uint64_t max_resident_bytes = 0;
  std::uint32_t first_instance = 0;
};

SpawnArguments spawn_arguments(const SpawnRequest& request, nb::handle wasi, nb::handle files) {
  SpawnArguments arguments;
  arguments.reserve.memory_pages = request.memory_pages;
  arguments.reserve.table_elements = request.table_elements;
  arguments.reserve.stack_slots = request.stack_size;
  arguments.reserve.call_depth = request.call_depth;
  arguments.limits.start_fuel = request.fuel;
  arguments.limits.quantum = request.quantum;
  arguments.limits.batch_size = request.batch_size;
  arguments.limits.max_resident_bytes = request.max_resident_bytes;
  arguments.limits.first_instance = request.first_instance;
  arguments.wasi_region = wasi_region(wasi, files);
  return arguments;
}

SpawnRequest spawn_request(nb::dict options) {
  SpawnRequest request;
  const auto optional32 = [&](const char* name) -> std::optional<std::uint32_t> {
    nb::handle value = options[name];
    if (value.is_none()) return std::nullopt;
    return nb::cast<std::uint32_t>(value);
  };
  request.memory_pages = optional32("memory_pages");
  request.table_elements = optional32("table_elements");
  request.stack_size = nb::cast<std::uint32_t>(options["stack_size"]);
  request.call_depth = nb::cast<std::uint32_t>(options["call_depth"]);
  if (!options["fuel"].is_none()) request.fuel = nb::cast<std::uint64_t>(options["fuel"]);
  request.quantum = nb::cast<std::uint32_t>(options["quantum"]);
  request.batch_size = optional32("batch_size");
  request.max_resident_bytes = nb::cast<std::uint64_t>(options["max_resident_bytes"]);
  request.first_instance = nb::cast<std::uint32_t>(options["first_instance"]);
  return request;
}

// options["compiled"]: run compiled mode with the module's units (compile_module made them).
std::shared_ptr<wasm::CompiledCode> compiled_code(const NativeModule& module, nb::dict options) {
  if (!nb::cast<bool>(options["compiled"])) return nullptr;
  if (!module.compiled) throw std::logic_error("spawn: compiled mode requested before compile_module");
  return module.compiled;
}

std::unique_ptr<wasm::InstanceSet> spawn_cpu(const NativeModule& module, std::uint32_t count, nb::dict options,
                                             nb::handle wasi, nb::handle files) {
  const SpawnArguments arguments = spawn_arguments(spawn_request(options), wasi, files);
  std::shared_ptr<wasm::CompiledCode> compiled = compiled_code(module, options);
  nb::gil_scoped_release release;
  return std::make_unique<wasm::CpuInstances>(module.module, count, arguments.reserve, arguments.limits,
                                              arguments.wasi_region, std::move(compiled));
}

// device_index: a Vulkan device from list_devices() (the Python layer applies the selection policy).
std::unique_ptr<wasm::InstanceSet> spawn_vulkan(const NativeModule& module, std::uint32_t count, nb::dict options,
                                                nb::handle wasi, nb::handle files, std::uint32_t device_index) {
  const SpawnArguments arguments = spawn_arguments(spawn_request(options), wasi, files);
  std::shared_ptr<wasm::CompiledCode> compiled = compiled_code(module, options);
  nb::gil_scoped_release release;
  for (const auto& device : runtime::list_devices()) {
    if (device.index == device_index) {
      return std::make_unique<wasm::VulkanInstances>(module.module, count, arguments.reserve, arguments.limits, device,
                                                     arguments.wasi_region, std::move(compiled));
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

nb::tuple step(wasm::InstanceSet& self, std::uint32_t quantum, std::uint32_t max_quanta) {
  wasm::StepProgress progress;
  {
    nb::gil_scoped_release release;
    progress = self.step(quantum, max_quanta);
  }
  return nb::make_tuple(progress.running, progress.executed, progress.grouped, progress.quanta);
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

// Captured bytes of stdout (1) or stderr (2), stdin (0) as configured; empty without WASI.
nb::bytes wasi_stream(wasm::InstanceSet& self, std::uint32_t instance, std::uint32_t stream) {
  std::string data;
  self.read_wasi_region(instance, [&](std::span<const std::uint32_t> region) {
    if (!region.empty()) data = wasm::wasi_stream_bytes(region, static_cast<wasm::WasiStream>(stream));
  });
  return nb::bytes(data.data(), data.size());
}

// (status, bytes): status "found", "not found" or "directory".
nb::tuple wasi_read_file(wasm::InstanceSet& self, std::uint32_t instance, const std::string& path) {
  wasm::WasiFile file;
  self.read_wasi_region(instance, [&](std::span<const std::uint32_t> region) {
    if (!region.empty()) file = wasm::wasi_read_file(region, path);
  });
  const char* status = file.status == wasm::WasiFileStatus::kFound      ? "found"
                       : file.status == wasm::WasiFileStatus::kNotFound ? "not found"
                                                                        : "directory";
  return nb::make_tuple(status, nb::bytes(file.bytes.data(), file.bytes.size()));
}

// Adds a regular file to one instance's file system (wasi_config.hpp, add_wasi_file).
void wasi_write_file(wasm::InstanceSet& self, std::uint32_t instance, const std::string& path, nb::bytes data) {
  std::vector<std::uint32_t> region = self.wasi_region(instance);
  if (region.empty()) throw std::invalid_argument("instance: has no file system (no WASI)");
  wasm::add_wasi_file(region, path, std::string_view(static_cast<const char*>(data.data()), data.size()));
  self.set_wasi_region(instance, region);
}

// Every regular file of the instance's file system: {path: bytes}.
nb::dict wasi_files(wasm::InstanceSet& self, std::uint32_t instance) {
  nb::dict files;
  self.read_wasi_region(instance, [&](std::span<const std::uint32_t> region) {
    if (region.empty()) return;
    for (const auto& [path, bytes] : wasm::wasi_list_files(region)) {
      files[path.c_str()] = nb::bytes(bytes.data(), bytes.size());
    }
  });
  return files;
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
      .def("transfers",
           [](const wasm::InstanceSet& self) {
             const wasm::TransferCounts t = self.transfers();
             return nb::make_tuple(t.submits, t.fence_waits, t.bytes_uploaded, t.bytes_downloaded);
           })
      .def("pack", &pack, "inputs"_a.none(), "kinds"_a)
      .def("begin_call", &begin_call, "function"_a, "args"_a, "fuel"_a.none())
      .def("step", &step, "quantum"_a, "max_quanta"_a)
      .def("outcome", &outcome, "result_count"_a)
      .def("reset",
           [](wasm::InstanceSet& self) {
             nb::gil_scoped_release release;
             self.reset();
           })
      .def("global_value", &wasm::InstanceSet::global_value, "instance"_a, "global"_a)
      .def("memory_size", &wasm::InstanceSet::memory_size_bytes, "instance"_a)
      .def("read_memory", &read_memory, "instance"_a, "address"_a, "length"_a)
      .def("write_memory", &write_memory, "instance"_a, "address"_a, "data"_a)
      .def("wasi_stream", &wasi_stream, "instance"_a, "stream"_a)
      .def("wasi_read_file", &wasi_read_file, "instance"_a, "path"_a)
      .def("wasi_files", &wasi_files, "instance"_a)
      .def("wasi_write_file", &wasi_write_file, "instance"_a, "path"_a, "data"_a)
      .def("program_image", &wasm::InstanceSet::program_image);

  nb::class_<PackedArguments>(module, "PackedArguments").def("__len__", [](const PackedArguments& self) {
    return self.slots.size();
  });
  bind_values(module);
  module.def("spawn_cpu", &spawn_cpu, "module"_a, "count"_a, "options"_a, "wasi"_a.none(), "files"_a,
             "Allocates and instantiates `count` instances on the cpu device (options: spawn.py's checked controls)");
  module.def("spawn_vulkan", &spawn_vulkan, "module"_a, "count"_a, "options"_a, "wasi"_a.none(), "files"_a,
             "device_index"_a, "Allocates and instantiates `count` instances on a Vulkan device");
}

}  // namespace wavestack::bindings
