#include "bindings/runtime_bindings.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "runtime/compute_context.hpp"
#include "runtime/device_discovery.hpp"
#include "runtime/error.hpp"
#include "runtime/selftest.hpp"
#include "runtime/version.hpp"
#include "runtime/vulkan_loader.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

nb::dict describe(const runtime::DeviceInfo& device) {
  nb::dict limits;
  limits["max_workgroup_size"] = nb::make_tuple(
      device.limits.max_workgroup_size[0], device.limits.max_workgroup_size[1], device.limits.max_workgroup_size[2]);
  limits["max_workgroup_invocations"] = device.limits.max_workgroup_invocations;
  limits["max_workgroup_count"] = nb::make_tuple(
      device.limits.max_workgroup_count[0], device.limits.max_workgroup_count[1], device.limits.max_workgroup_count[2]);
  limits["max_shared_memory_bytes"] = device.limits.max_shared_memory_bytes;
  limits["max_storage_buffer_range"] = device.limits.max_storage_buffer_range;
  limits["max_buffer_size"] = device.limits.max_buffer_size;
  limits["max_push_constants_bytes"] = device.limits.max_push_constants_bytes;
  limits["device_local_memory_bytes"] = device.limits.device_local_memory_bytes;
  nb::dict features;
  features["int64"] = device.features.int64;
  features["float64"] = device.features.float64;
  features["float16"] = device.features.float16_arithmetic;
  features["int16"] = device.features.int16;
  features["storage_buffer_16bit"] = device.features.storage_buffer_16bit;
  features["subgroup_basic"] = device.features.subgroup_basic;
  features["subgroup_arithmetic"] = device.features.subgroup_arithmetic;
  features["subgroup_ballot"] = device.features.subgroup_ballot;
  features["subgroup_shuffle"] = device.features.subgroup_shuffle;
  features["float32_atomic_add"] = device.features.buffer_float32_atomic_add;
  features["int64_atomics"] = device.features.int64_atomics;
  features["float32_denorm_preserve"] = device.features.float32_denorm_preserve;
  features["float32_inf_nan_preserve"] = device.features.float32_inf_nan_preserve;
  nb::dict info;
  info["index"] = device.index;
  info["vendor"] = device.vendor;
  info["vendor_id"] = device.vendor_id;
  info["device_id"] = device.device_id;
  info["name"] = device.name;
  info["type"] = runtime::device_type_name(device.type);
  info["is_software"] = device.is_software;
  info["subgroup_size"] = device.subgroup_size;
  info["api_version"] =
      nb::str("{}.{}.{}")
          .format(device.api_version >> 22U, (device.api_version >> 12U) & 0x3FFU, device.api_version & 0xFFFU);
  info["driver_name"] = device.driver_name;
  info["driver_info"] = device.driver_info;
  info["limits"] = limits;
  info["features"] = features;
  return info;
}

runtime::DeviceInfo device_by_index(uint32_t index) {
  for (const auto& device : runtime::list_devices()) {
    if (device.index == index) return device;
  }
  throw runtime::InvalidArgument("device_index", "no Vulkan device has index " + std::to_string(index));
}

using FloatVector = nb::ndarray<const float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

nb::dict vector_add_selftest(FloatVector a, FloatVector b, std::optional<uint32_t> device_index, bool allow_software) {
  if (a.shape(0) != b.shape(0)) throw runtime::InvalidArgument("b", "must have as many elements as a");
  runtime::DeviceInfo device;
  if (device_index) {
    device = device_by_index(*device_index);
    if (device.is_software && !allow_software && !runtime::software_gpu_allowed_by_environment()) {
      throw runtime::DeviceError(device.name +
                                 " is a software adapter; pass allow_software=True or set "
                                 "WAVESTACK_ALLOW_SOFTWARE_GPU=1 to use it");
    }
  } else {
    auto selected = runtime::select_device(allow_software);
    if (!selected) throw runtime::DeviceError("no usable Vulkan GPU was found");
    device = *selected;
  }
  std::vector<float> lhs(a.data(), a.data() + a.shape(0));
  std::vector<float> rhs(b.data(), b.data() + b.shape(0));
  std::vector<float> out;
  runtime::PhaseTimings timings;
  {
    nb::gil_scoped_release release;
    runtime::ComputeContext context(device);
    out = runtime::run_vector_add(context, lhs, rhs);
    timings = context.timings();
  }
  nb::dict result;
  result["device"] = describe(device);
  result["out"] = nb::bytes(reinterpret_cast<const char*>(out.data()), out.size() * sizeof(float));
  result["compile_ms"] = timings.compile_ms;
  result["upload_ms"] = timings.upload_ms;
  result["dispatch_ms"] = timings.dispatch_ms;
  result["download_ms"] = timings.download_ms;
  result["spirv_from_cache"] = timings.spirv_from_cache;
  return result;
}

}  // namespace

void bind_runtime(nb::module_& module) {
  module.attr("__version__") = runtime::kProjectVersion;

  static nb::exception<runtime::VulkanError> vulkan_error(module, "VulkanError", PyExc_RuntimeError);
  static nb::exception<runtime::ShaderCompileError> shader_error(module, "ShaderCompileError", PyExc_RuntimeError);
  static nb::exception<runtime::DeviceError> device_error(module, "DeviceError", PyExc_RuntimeError);
  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const runtime::InvalidArgument& invalid) {
      PyErr_SetString(PyExc_ValueError, invalid.what());
    }
  });

  module.def(
      "vulkan_status",
      [] {
        const auto& status = runtime::vulkan_availability();
        nb::dict result;
        result["available"] = status.available;
        result["reason"] = status.reason;
        return result;
      },
      "Whether a Vulkan loader and driver could be opened, and why not.");
  module.def(
      "list_devices",
      [] {
        nb::list devices;
        for (const auto& device : runtime::list_devices()) devices.append(describe(device));
        return devices;
      },
      "Every Vulkan device, software adapters included (marked is_software).");
  module.def(
      "select_device",
      [](bool allow_software) -> nb::object {
        auto device = runtime::select_device(allow_software);
        if (!device) return nb::none();
        return describe(*device);
      },
      "allow_software"_a = false, "The best hardware GPU, or a software adapter when allowed; None if none.");
  module.def("software_gpu_allowed_by_environment", &runtime::software_gpu_allowed_by_environment);
  module.def("vector_add_selftest", &vector_add_selftest, "a"_a, "b"_a, "device_index"_a = nb::none(),
             "allow_software"_a = false, "Runs out = a + b as a Vulkan compute dispatch (the smoke test).");
}

}  // namespace wavestack::bindings
