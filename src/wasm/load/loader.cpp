#include "wasm/load/loader.hpp"

#include <algorithm>

#include "wasm/decode/decoder.hpp"
#include "wasm/module/errors.hpp"
#include "wasm/validate/validator.hpp"
#include "wasm/wasi/wasi_imports.hpp"
#include "wasm/wasi/wasi_signatures.hpp"

namespace wavestack::wasm {

void check_imports(const Module& module, const LoadOptions& options) {
  for (const Import& import : module.imports) {
    const auto& hosts = options.host_modules;
    if (std::find(hosts.begin(), hosts.end(), import.module) != hosts.end()) continue;
    const std::string what = std::string(extern_kind_name(import.kind)) + " \"" + import.module + "\".\"" +
                             import.name + "\" is imported from a module that is not a host module of this loader";
    switch (import.kind) {
      case ExternKind::kFunction:
        throw UnsupportedFeature(import.offset, feature::kModuleLinking, what);
      case ExternKind::kTable:
        throw UnsupportedFeature(import.offset, feature::kImportedTable, what);
      case ExternKind::kMemory:
        throw UnsupportedFeature(import.offset, feature::kImportedMemory, what);
      case ExternKind::kGlobal:
        throw UnsupportedFeature(import.offset, feature::kImportedGlobal, what);
    }
  }
}

Module load_module(const std::uint8_t* data, std::size_t size, const LoadOptions& options) {
  Module module = decode_module(data, size);
  validate_module(module);
  check_imports(module, options);
  const auto& hosts = options.host_modules;
  if (std::find(hosts.begin(), hosts.end(), kWasiModule) != hosts.end()) check_wasi_imports(module);
  return module;
}

}  // namespace wavestack::wasm
