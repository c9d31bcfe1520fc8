// wasmgpu._native: the extension module of the wasmgpu package.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <exception>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "bindings/runtime_bindings.hpp"
#include "bindings/wasmgpu_native_module.hpp"
#include "runtime/sha256.hpp"
#include "wasm/decode/decoder.hpp"
#include "wasm/device/interpreter_glsl.hpp"
#include "wasm/load/loader.hpp"
#include "wasm/module/errors.hpp"
#include "wasm/module/opcodes.hpp"
#include "wasm/validate/validator.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

// Raises the Python class `name` of wasmgpu.errors, which carries offset, reason and
// feature as attributes (a plain nanobind exception type could only carry a message).
void raise_module_error(const char* name, const wasm::ModuleError& error, const std::string& feature) {
  nb::object type = nb::module_::import_("wasmgpu.errors").attr(name);
  nb::object instance = type(error.what(), error.offset(), error.reason(), feature);
  PyErr_SetObject(type.ptr(), instance.ptr());
}

constexpr std::size_t kDigestBesideDecodingBytes = std::size_t{1} << 20;

// `partition_for`: (compile_limit, compile_functions) of compiled mode, whose cached partition
// is then read on the digest's thread once the digest is known, while this one still decodes
// and validates (a large module's partition is a few MiB: a quarter of a warm load of yosys.wasm).
std::unique_ptr<NativeModule> load(
    nb::bytes data, const std::vector<std::string>& host_modules,
    const std::optional<std::pair<std::uint32_t, std::vector<std::uint32_t>>>& partition_for) {
  wasm::LoadOptions options;
  options.host_modules = host_modules;
  auto loaded = std::make_unique<NativeModule>();
  const auto* bytes = static_cast<const std::uint8_t*>(data.data());
  const std::size_t size = data.size();
  {
    nb::gil_scoped_release release;
    const auto module_digest = [&] {
      runtime::Sha256 digest;
      digest.update(std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes), size));
      for (const std::string& name : host_modules) digest.update_field(name);
      return digest.hex_digest();
    };
    // A large binary's digest (a fifth of yosys.wasm's load: 49 MB) is taken on another core
    // while this one decodes and validates; a small one's costs less than a thread.
    if (partition_for) {
      loaded->prefetched_for.compile_limit = partition_for->first;
      loaded->prefetched_for.compile_functions = partition_for->second;
    }
    using Prefetched = std::optional<wasm::compiler::CompiledLayout>;
    auto digest_and_partition = [&]() -> std::pair<std::string, Prefetched> {
      std::string digest = module_digest();
      Prefetched layout;
      try {
        if (partition_for) layout = wasm::compiler::load_cached_partition(digest, loaded->prefetched_for);
      } catch (const std::exception&) {
        layout.reset();  // compile_module looks again and reports what is wrong
      }
      return {std::move(digest), std::move(layout)};
    };
    std::future<std::pair<std::string, Prefetched>> beside;
    if (size >= kDigestBesideDecodingBytes) beside = std::async(std::launch::async, digest_and_partition);
    loaded->module = wasm::load_module(bytes, size, options);  // an error waits for the digest
    if (beside.valid()) {
      std::tie(loaded->digest, loaded->prefetched_layout) = beside.get();
    } else {
      loaded->digest = module_digest();
    }
  }
  return loaded;
}

nb::list exports(const NativeModule& self) {
  nb::list result;
  for (const auto& entry : self.module.exports) {
    result.append(nb::make_tuple(entry.name, wasm::extern_kind_name(entry.kind), entry.index));
  }
  return result;
}

nb::list imports(const NativeModule& self) {
  nb::list result;
  for (const auto& entry : self.module.imports) {
    result.append(nb::make_tuple(entry.module, entry.name, wasm::extern_kind_name(entry.kind)));
  }
  return result;
}

std::string signature(const wasm::FuncType& type) {
  std::string text = "(";
  for (std::size_t k = 0; k < type.params.size(); ++k)
    text += (k ? ", " : "") + std::string(wasm::val_type_name(type.params[k]));
  text += ") -> (";
  for (std::size_t k = 0; k < type.results.size(); ++k)
    text += (k ? ", " : "") + std::string(wasm::val_type_name(type.results[k]));
  return text + ")";
}

// The lowered code of one defined function as (opcode, a, b, c) tuples, for tests and
// debugging of the executable form.
nb::list lowered_code(const NativeModule& self, std::uint32_t defined_index) {
  const auto& program = self.module.program;
  if (defined_index >= program.functions.size()) {
    throw nb::index_error("defined_index: no such defined function");
  }
  const auto& record = program.functions[defined_index];
  nb::list result;
  for (std::uint32_t pc = record.code_begin; pc < record.code_end; ++pc) {
    const auto& instruction = program.code[pc];
    result.append(nb::make_tuple(instruction.opcode, instruction.a, instruction.b, instruction.c));
  }
  return result;
}

}  // namespace
}  // namespace wavestack::bindings

NB_MODULE(_native, module) {
  using namespace wavestack;
  module.doc() = "wasmgpu native layer: WebAssembly decoding, validation and device execution";
  bindings::bind_runtime(module);

  nb::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const wasm::MalformedModule& malformed) {
      bindings::raise_module_error("MalformedModule", malformed, "");
    } catch (const wasm::InvalidModule& invalid) {
      bindings::raise_module_error("InvalidModule", invalid, "");
    } catch (const wasm::UnsupportedFeature& unsupported) {
      const char* name = "UnsupportedFeature";
      if (unsupported.spec_verdict() == wasm::SpecVerdict::kMalformed) name = "UnsupportedAndMalformed";
      if (unsupported.spec_verdict() == wasm::SpecVerdict::kInvalid) name = "UnsupportedAndInvalid";
      bindings::raise_module_error(name, unsupported, unsupported.feature());
    }
  });

  nb::class_<bindings::NativeModule>(module, "NativeModule")
      .def_prop_ro("exports", &bindings::exports, "(name, kind, index) per export")
      .def_prop_ro("imports", &bindings::imports, "(module, name, kind) per import")
      .def_prop_ro("function_count",
                   [](const bindings::NativeModule& self) { return self.module.function_types.size(); })
      .def_prop_ro("imported_function_count",
                   [](const bindings::NativeModule& self) { return self.module.imported_functions; })
      .def("function_signature",
           [](const bindings::NativeModule& self, std::uint32_t index) {
             if (index >= self.module.function_types.size()) throw nb::index_error("index: no such function");
             return bindings::signature(self.module.function_type(index));
           })
      .def("function_type",
           [](const bindings::NativeModule& self, std::uint32_t index) {
             if (index >= self.module.function_types.size()) throw nb::index_error("index: no such function");
             const wasm::FuncType& type = self.module.function_type(index);
             nb::list params;
             nb::list results;
             for (wasm::ValType t : type.params) params.append(wasm::val_type_name(t));
             for (wasm::ValType t : type.results) results.append(wasm::val_type_name(t));
             return nb::make_tuple(params, results);
           })
      .def_prop_ro("start",
                   [](const bindings::NativeModule& self) -> nb::object {
                     if (!self.module.start) return nb::none();
                     return nb::int_(*self.module.start);
                   })
      .def_prop_ro("memory_limits",
                   [](const bindings::NativeModule& self) -> nb::object {
                     if (self.module.memories.empty()) return nb::none();
                     const auto& limits = self.module.memories[0].limits;
                     return nb::make_tuple(limits.min,
                                           limits.max ? nb::object(nb::int_(*limits.max)) : nb::object(nb::none()));
                   })
      .def_prop_ro(
          "table_limits",
          [](const bindings::NativeModule& self) {
            nb::list tables;
            for (const auto& table : self.module.tables)
              tables.append(nb::make_tuple(table.limits.min, table.limits.max ? nb::object(nb::int_(*table.limits.max))
                                                                              : nb::object(nb::none())));
            return tables;
          })
      .def("function_record",
           [](const bindings::NativeModule& self, std::uint32_t defined_index) {
             const auto& functions = self.module.program.functions;
             if (defined_index >= functions.size()) throw nb::index_error("defined_index: no such defined function");
             const auto& r = functions[defined_index];
             nb::dict record;
             record["code_begin"] = r.code_begin;
             record["code_end"] = r.code_end;
             record["type_index"] = r.type_index;
             record["param_count"] = r.param_count;
             record["local_count"] = r.local_count;
             record["result_count"] = r.result_count;
             record["max_stack"] = r.max_stack;
             return record;
           })
      .def("lowered_code", &bindings::lowered_code, "defined_index"_a);

  module.def("load_module", &bindings::load, "data"_a, "host_modules"_a, "partition_for"_a = nb::none(),
             "Decodes, validates and checks the imports of a WebAssembly binary");
  module.def(
      "decode_and_validate",
      [](nb::bytes data) {
        const auto* bytes = static_cast<const std::uint8_t*>(data.data());
        const std::size_t size = data.size();
        nb::gil_scoped_release release;
        wasm::Module decoded = wasm::decode_module(bytes, size);
        wasm::validate_module(decoded);
      },
      "data"_a, "Decodes and validates only (no import policy); for differential tests");
  bindings::bind_instances(module);
  bindings::bind_compiled(module);
  module.def(
      "shader_source",
      [](const std::string& which) {
        if (which == "interpreter") return wasm::device::interpreter_shader_source();
        if (which == "wasi") return wasm::device::wasi_service_shader_source();
        throw std::invalid_argument("which: 'interpreter' or 'wasi'");
      },
      "which"_a, "The GLSL of the Vulkan device's interpreter or WASI service pipeline (tests, debugging)");
  module.attr("OP_JUMP") = wasm::op::kJump;
  module.attr("OP_JUMP_IF_ZERO") = wasm::op::kJumpIfZero;
  module.attr("OP_BR_TABLE_ENTRY") = wasm::op::kBrTableEntry;
}
