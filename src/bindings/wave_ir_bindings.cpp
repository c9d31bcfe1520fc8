#include "bindings/wave_ir_bindings.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings/wave_interruptible.hpp"
#include "bindings/wave_value_conversion.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/error.hpp"
#include "wave/builder.hpp"
#include "wave/cpu_program.hpp"
#include "wave/emulator.hpp"
#include "wave/errors.hpp"
#include "wave/ir_text.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

using wave::ScalarType;

ScalarType parse_type(const std::string& name) {
  auto type = wave::type_from_name(name);
  if (!type) throw runtime::InvalidArgument("type", "unknown WAVE type '" + name + "'");
  return *type;
}

std::optional<ScalarType> element_of(const nb::ndarray<>& array) {
  const auto dtype = array.dtype();
  if (dtype == nb::dtype<float>()) return ScalarType::F32;
  if (dtype == nb::dtype<double>()) return ScalarType::F64;
  if (dtype == nb::dtype<int32_t>()) return ScalarType::I32;
  if (dtype == nb::dtype<uint32_t>()) return ScalarType::U32;
  if (dtype == nb::dtype<int64_t>()) return ScalarType::I64;
  if (dtype == nb::dtype<uint64_t>()) return ScalarType::U64;
  if (dtype.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) && dtype.bits == 16) return ScalarType::F16;
  return std::nullopt;
}

std::array<uint32_t, 3> dims(const std::vector<uint32_t>& values, const char* what) {
  if (values.size() != 3) throw runtime::InvalidArgument(what, "must have three dimensions");
  return {values[0], values[1], values[2]};
}

// Runs a launch on the emulator (wave::Program) or the native cpu device (wave::CpuProgram).
template <class AnyProgram>
void launch(const AnyProgram& program, const nb::list& arguments, const std::vector<uint32_t>& grid,
            const std::vector<uint32_t>& workgroup, uint32_t wave_width, bool deterministic,
            const std::optional<std::vector<uint32_t>>& limit, double timeout) {
  const auto& m = program.module();
  if (arguments.size() != m.params.size()) {
    throw runtime::InvalidArgument("arguments", "kernel '" + m.name + "' takes " + std::to_string(m.params.size()) +
                                                    " arguments, got " + std::to_string(arguments.size()));
  }
  std::vector<wave::Argument> args(arguments.size());
  std::vector<nb::ndarray<>> keep_alive;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& p = m.params[i];
    if (p.kind == wave::Param::Kind::Buffer) {
      const auto& name = m.buffers[p.index].name;
      nb::ndarray<> array;
      if (!nb::try_cast(arguments[i], array)) throw runtime::InvalidArgument(name, "expects an array");
      auto element = element_of(array);
      if (!element) throw runtime::InvalidArgument(name, "has an unsupported element type");
      size_t count = 1;
      for (size_t d = 0; d < array.ndim(); ++d) count *= array.shape(d);
      args[i].is_buffer = true;
      args[i].buffer = {array.data(), static_cast<int64_t>(count), *element};
      keep_alive.push_back(array);
    } else {
      const auto& decl = m.scalars[p.index];
      args[i].scalar = python_to_wave_value(decl.type, arguments[i], decl.name);
    }
  }
  wave::LaunchConfig config;
  config.grid = dims(grid, "grid");
  config.workgroup = dims(workgroup, "workgroup");
  config.wave_width = wave_width;
  config.deterministic = deterministic;
  if (limit) config.limit = dims(*limit, "limit");
  run_interruptible(
      [&](const std::atomic<int>& stop) {
        wave::LaunchConfig stoppable = config;
        stoppable.stop = &stop;
        program.launch(args, stoppable);
      },
      timeout, "kernel '" + m.name + "'");
}

nb::list describe_params(const wave::Module& m) {
  nb::list params;
  for (const auto& p : m.params) {
    if (p.kind == wave::Param::Kind::Buffer) {
      params.append(nb::make_tuple("buffer", m.buffers[p.index].name, wave::type_name(m.buffers[p.index].element)));
    } else {
      params.append(nb::make_tuple("scalar", m.scalars[p.index].name, wave::type_name(m.scalars[p.index].type)));
    }
  }
  return params;
}

}  // namespace

void bind_wave_ir(nb::module_& module) {
  static nb::exception<wave::KernelError> kernel_error(module, "KernelError", PyExc_RuntimeError);
  static nb::exception<wave::IrError> ir_error(module, "IrError", PyExc_ValueError);
  static nb::exception<wave::LaunchTimeout> launch_timeout(module, "LaunchTimeout", PyExc_TimeoutError);
  static nb::exception<wave::LaunchStopped> launch_stopped(module, "LaunchStopped", PyExc_RuntimeError);
  static nb::exception<wave::UnsupportedOnCpu> unsupported_on_cpu(module, "UnsupportedOnCpu",
                                                                  PyExc_NotImplementedError);

  nb::class_<wave::Module>(module, "Module")
      .def_prop_ro("name", [](const wave::Module& m) { return m.name; })
      .def_prop_ro("text", &wave::print_module)
      .def_prop_ro("params", &describe_params)
      .def("__str__", &wave::print_module)
      .def_static(
          "parse", [](const std::string& text) { return wave::parse_module(text); }, "text"_a);

  nb::class_<wave::Builder>(module, "Builder")
      .def(nb::init<std::string>(), "name"_a)
      .def("add_buffer", [](wave::Builder& b, const std::string& name,
                            const std::string& element) { return b.add_buffer(name, parse_type(element)); })
      .def("add_scalar", [](wave::Builder& b, const std::string& name,
                            const std::string& type) { return b.add_scalar(name, parse_type(type)); })
      .def("add_shared", [](wave::Builder& b, const std::string& name, const std::string& element,
                            uint32_t count) { return b.add_shared(name, parse_type(element), count); })
      .def("reg", [](wave::Builder& b, const std::string& type) { return b.new_reg(parse_type(type)); })
      .def("const", [](wave::Builder& b, wave::Reg dst, nb::handle value,
                       uint32_t line) { b.constant(dst, python_to_wave_value(b.reg_type(dst), value, "value"), line); })
      .def("const_at_entry",
           [](wave::Builder& b, wave::Reg dst, nb::handle value, uint32_t line) {
             b.constant_at_entry(dst, python_to_wave_value(b.reg_type(dst), value, "value"), line);
           })
      .def(
          "emit",
          [](wave::Builder& b, const std::string& op, std::optional<wave::Reg> dst, const std::vector<wave::Reg>& args,
             uint32_t line, const std::string& mem, uint32_t dim) {
            auto code = wave::opcode_from_name(op);
            if (!code) throw wave::IrError("unknown WAVE instruction '" + op + "'");
            b.emit(*code, dst.value_or(wave::kNoReg), args, line, mem, dim);
          },
          "op"_a, "dst"_a, "args"_a, "line"_a, "mem"_a = "", "dim"_a = 0)
      .def("begin_if", &wave::Builder::begin_if)
      .def("begin_else", &wave::Builder::begin_else)
      .def("end_if", &wave::Builder::end_if)
      .def("begin_loop", &wave::Builder::begin_loop)
      .def("begin_continuing", &wave::Builder::begin_continuing)
      .def("end_loop", &wave::Builder::end_loop)
      .def("emit_break", &wave::Builder::emit_break)
      .def("emit_continue", &wave::Builder::emit_continue)
      .def("emit_return", &wave::Builder::emit_return)
      .def("emit_barrier", &wave::Builder::emit_barrier)
      .def("finish", &wave::Builder::finish);

  nb::class_<wave::Program>(module, "Program")
      .def(
          "__init__", [](wave::Program* p, const wave::Module& m) { new (p) wave::Program(m); }, "module"_a)
      .def_prop_ro("module", &wave::Program::module, nb::rv_policy::reference_internal)
      .def("launch", &launch<wave::Program>, "arguments"_a, "grid"_a, "workgroup"_a, "wave_width"_a = 32,
           "deterministic"_a = false, "limit"_a = nb::none(), "timeout"_a = 0.0,
           "Runs the kernel on the emulator; buffers are updated in place. Threads with a global id at or past "
           "`limit` are not launched; Ctrl-C and `timeout` (seconds, > 0) stop it.");

  nb::class_<wave::CpuProgram>(module, "CpuProgram")
      .def(
          "__init__",
          [](wave::CpuProgram* p, const wave::Module& m, bool bounds_checks) {
            const nb::gil_scoped_release release;  // compiling takes tens of milliseconds
            new (p) wave::CpuProgram(m, bounds_checks);
          },
          "module"_a, "bounds_checks"_a = true)
      .def_prop_ro("module", &wave::CpuProgram::module, nb::rv_policy::reference_internal)
      .def_prop_ro("source", &wave::CpuProgram::source, "The C++ the kernel was compiled from.")
      .def_prop_ro("from_cache", &wave::CpuProgram::from_cache)
      .def_prop_ro("compile_seconds", &wave::CpuProgram::compile_seconds)
      .def("launch", &launch<wave::CpuProgram>, "arguments"_a, "grid"_a, "workgroup"_a, "wave_width"_a = 32,
           "deterministic"_a = false, "limit"_a = nb::none(), "timeout"_a = 0.0,
           "Runs the kernel as native code on the thread pool (deterministic: in order on the calling thread); "
           "as Program.launch otherwise.");

  module.def(
      "cache_key",
      [](const std::vector<std::string>& parts) {
        std::string joined;
        for (const auto& part : parts) joined += std::to_string(part.size()) + ":" + part;
        return runtime::make_cache_key({"wave_ir", joined});
      },
      "parts"_a, "SHA-256 key over the project version and every part.");
  module.def(
      "cache_load",
      [](const std::string& key) -> std::optional<std::string> {
        auto bytes = runtime::DiskCache().load("wave_ir", key);
        if (!bytes) return std::nullopt;
        return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
      },
      "key"_a);
  module.def(
      "cache_store",
      [](const std::string& key, const std::string& text) {
        return runtime::DiskCache().store("wave_ir", key,
                                          std::span(reinterpret_cast<const std::byte*>(text.data()), text.size()));
      },
      "key"_a, "text"_a);
}

}  // namespace wavestack::bindings
