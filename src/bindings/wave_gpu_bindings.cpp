// Bindings of wave kernels on Vulkan devices: GpuDevice (an open device with its buffers and
// phase timings), GpuBuffer, GpuProgram (emitted GLSL, SPIR-V, launch) and emit_glsl.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "bindings/wave_ir_bindings.hpp"
#include "bindings/wave_value_conversion.hpp"
#include "runtime/device_discovery.hpp"
#include "runtime/error.hpp"
#include "runtime/shader_compiler.hpp"
#include "wave/gpu_program.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

runtime::DeviceInfo find_device(uint32_t index) {
  for (const auto& device : runtime::list_devices()) {
    if (device.index == index) return device;
  }
  throw runtime::InvalidArgument("device", "no Vulkan device has index " + std::to_string(index));
}

// The bytes of a C-contiguous array on the host.
struct HostBytes {
  std::byte* data;
  size_t size;
};
HostBytes host_bytes(nb::ndarray<nb::device::cpu, nb::c_contig>& array) {
  return {static_cast<std::byte*>(array.data()), array.nbytes()};
}

void launch(wave::GpuProgram& program, const nb::list& arguments, const std::vector<uint32_t>& grid,
            const std::vector<uint32_t>& workgroup, const std::optional<std::vector<uint32_t>>& limit,
            uint32_t loop_budget) {
  const auto& m = program.module();
  if (arguments.size() != m.params.size()) {
    throw runtime::InvalidArgument("arguments", "kernel '" + m.name + "' takes " + std::to_string(m.params.size()) +
                                                    " arguments, got " + std::to_string(arguments.size()));
  }
  if (grid.size() != 3) throw runtime::InvalidArgument("grid", "must have three dimensions");
  if (workgroup.size() != 3) throw runtime::InvalidArgument("workgroup", "must have three dimensions");
  std::vector<wave::GpuArgument> args(arguments.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& p = m.params[i];
    if (p.kind == wave::Param::Kind::Buffer) {
      const auto& name = m.buffers[p.index].name;
      if (!nb::try_cast(arguments[i], args[i].buffer)) throw runtime::InvalidArgument(name, "expects a GpuBuffer");
    } else {
      const auto& decl = m.scalars[p.index];
      args[i].scalar = python_to_wave_value(decl.type, arguments[i], decl.name);
    }
  }
  std::array<uint32_t, 3> launch_limit{UINT32_MAX, UINT32_MAX, UINT32_MAX};
  if (limit) {
    if (limit->size() != 3) throw runtime::InvalidArgument("limit", "must have three dimensions");
    launch_limit = {(*limit)[0], (*limit)[1], (*limit)[2]};
  }
  nb::gil_scoped_release release;
  program.launch(args, {grid[0], grid[1], grid[2]}, {workgroup[0], workgroup[1], workgroup[2]}, launch_limit,
                 loop_budget);
}

// A device with every optional feature except the ones named in `disable` (tests use it to
// see the error a device without a feature gives).
wave::GlslTarget target_without(const std::vector<std::string>& disable) {
  wave::GlslTarget t;
  t.device_name = "a device without " + (disable.empty() ? std::string("restrictions") : disable.front());
  for (const auto& name : disable) {
    bool* flag = name == "int64"                      ? &t.int64
                 : name == "float64"                  ? &t.float64
                 : name == "storage_buffer_16bit"     ? &t.storage_buffer_16bit
                 : name == "subgroup_basic"           ? &t.subgroup_basic
                 : name == "subgroup_arithmetic"      ? &t.subgroup_arithmetic
                 : name == "subgroup_ballot"          ? &t.subgroup_ballot
                 : name == "subgroup_shuffle"         ? &t.subgroup_shuffle
                 : name == "float32_atomic_add"       ? &t.float32_atomic_add
                 : name == "int64_atomics"            ? &t.int64_atomics
                 : name == "float32_denorm_preserve"  ? &t.float32_denorm_preserve
                 : name == "float32_inf_nan_preserve" ? &t.float32_inf_nan_preserve
                                                      : nullptr;
    if (flag == nullptr) throw runtime::InvalidArgument("disable", "unknown feature '" + name + "'");
    *flag = false;
  }
  return t;
}

}  // namespace

void bind_wave_gpu(nb::module_& module) {
  nb::class_<wave::GpuDevice>(module, "GpuDevice")
      .def_static(
          "open", [](uint32_t index) { return std::make_shared<wave::GpuDevice>(find_device(index)); }, "index"_a,
          "Opens the Vulkan device with this index (from list_devices()).")
      .def_prop_ro("name", [](wave::GpuDevice& d) { return d.info().name; })
      .def_prop_ro("index", [](wave::GpuDevice& d) { return d.info().index; })
      .def_prop_ro("subgroup_size", [](wave::GpuDevice& d) { return d.info().subgroup_size; })
      .def(
          "allocate",
          [](const std::shared_ptr<wave::GpuDevice>& d, size_t bytes, int64_t length) {
            auto buffer = std::make_unique<wave::GpuBuffer>();
            buffer->device = d;
            buffer->length = length;
            const std::lock_guard lock(d->mutex());
            buffer->buffer = d->context().allocate(bytes == 0 ? 4 : bytes);  // Vulkan has no empty buffers
            return buffer;
          },
          "bytes"_a, "length"_a)
      .def(
          "upload",
          [](wave::GpuDevice& d, wave::GpuBuffer& buffer, nb::ndarray<nb::device::cpu, nb::c_contig> array) {
            const auto bytes = host_bytes(array);
            nb::gil_scoped_release release;
            const std::lock_guard lock(d.mutex());
            d.context().upload(buffer.buffer, std::span<const std::byte>(bytes.data, bytes.size));
          },
          "buffer"_a, "array"_a)
      .def(
          "download",
          [](wave::GpuDevice& d, const wave::GpuBuffer& buffer, nb::ndarray<nb::device::cpu, nb::c_contig> array) {
            const auto bytes = host_bytes(array);
            nb::gil_scoped_release release;
            const std::lock_guard lock(d.mutex());
            d.context().download(buffer.buffer, std::span<std::byte>(bytes.data, bytes.size));
          },
          "buffer"_a, "array"_a)
      .def("timings",
           [](wave::GpuDevice& d) {
             const auto& t = d.context().timings();
             nb::dict result;
             result["compile_ms"] = t.compile_ms;
             result["upload_ms"] = t.upload_ms;
             result["dispatch_ms"] = t.dispatch_ms;
             result["download_ms"] = t.download_ms;
             result["spirv_from_cache"] = t.spirv_from_cache;
             result["bytes_uploaded"] = t.bytes_uploaded;
             result["bytes_downloaded"] = t.bytes_downloaded;
             return result;
           })
      .def("reset_timings", [](wave::GpuDevice& d) { d.context().reset_timings(); });

  nb::class_<wave::GpuBuffer>(module, "GpuBuffer")
      // Writable: a pooled buffer serves arrays of other element counts with the same bytes.
      .def_prop_rw(
          "length", [](const wave::GpuBuffer& b) { return b.length; },
          [](wave::GpuBuffer& b, int64_t length) {
            if (length < 0) throw runtime::InvalidArgument("length", "must not be negative");
            b.length = length;
          })
      .def_prop_ro("bytes", [](const wave::GpuBuffer& b) { return b.buffer.size(); });

  nb::class_<wave::GpuProgram>(module, "GpuProgram")
      .def(nb::init<std::shared_ptr<wave::GpuDevice>, wave::Module, bool>(), "device"_a, "module"_a,
           "bounds_checks"_a = true)
      .def_prop_ro("glsl", [](const wave::GpuProgram& p) { return p.shader().source; })
      .def_prop_ro("written", [](const wave::GpuProgram& p) { return p.shader().buffer_written; })
      .def("launch", &launch, "arguments"_a, "grid"_a, "workgroup"_a, "limit"_a = nb::none(),
           "loop_budget"_a = UINT32_MAX,
           "Runs the kernel on its device; buffers are GpuBuffers and stay on the device. Invocations at or past "
           "`limit` return at once; `loop_budget` bounds the loop iterations of each invocation.");

  module.def(
      "emit_glsl",
      [](const wave::Module& m, const std::vector<std::string>& disable, bool bounds_checks) {
        auto target = target_without(disable);
        target.bounds_checks = bounds_checks;
        return wave::emit_glsl(m, target).source;
      },
      "module"_a, "disable"_a = std::vector<std::string>{}, "bounds_checks"_a = true,
      "The GLSL of a module for a device with every optional feature but those in `disable`.");
  module.def(
      "compile_spirv",
      [](const std::string& glsl) {
        runtime::ShaderOptions options;
        const auto binary = runtime::compile_compute_shader(glsl, options, runtime::DiskCache(), "wave_gpu-compile");
        return nb::bytes(reinterpret_cast<const char*>(binary.words.data()), binary.words.size() * 4);
      },
      "glsl"_a, "SPIR-V (Vulkan 1.1) of a GLSL compute shader.");
}

}  // namespace wavestack::bindings
