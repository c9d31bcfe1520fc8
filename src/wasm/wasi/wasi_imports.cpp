#include "wasm/wasi/wasi_imports.hpp"

#include <string>

#include "wasm/module/errors.hpp"
#include "wasm/wasi/wasi_signatures.hpp"

namespace wavestack::wasm {
namespace {

std::string signature_text(const FuncType& type) {
  std::string text = "(";
  for (std::size_t k = 0; k < type.params.size(); ++k)
    text += (k ? ", " : "") + std::string(val_type_name(type.params[k]));
  text += ") -> (";
  for (std::size_t k = 0; k < type.results.size(); ++k) {
    text += (k ? ", " : "") + std::string(val_type_name(type.results[k]));
  }
  return text + ")";
}

}  // namespace

void check_wasi_imports(const Module& module) {
  for (const Import& import : module.imports) {
    if (import.module != kWasiModule) continue;
    const std::string what = "import \"" + import.module + "\".\"" + import.name + "\"";
    if (import.kind != ExternKind::kFunction) {
      throw UnsupportedFeature(
          import.offset, "WASI",
          what + " is a " + extern_kind_name(import.kind) + "; wasi_snapshot_preview1 defines only functions");
    }
    const WasiSignature* signature = find_wasi_signature(import.name);
    if (signature == nullptr) {
      throw UnsupportedFeature(import.offset, "WASI", what + " is not a WASI preview 1 function");
    }
    const FuncType& type = module.types.at(import.type_index);
    const FuncType expected = wasi_func_type(*signature);
    // A known WASI function imported with another type is a broken module, not a feature we
    // lack: the original package raises ValidationError, and the spec's linker says
    // "incompatible import type".
    if (type.params != expected.params || type.results != expected.results) {
      throw InvalidModule(import.offset, "incompatible import type: " + what + " has the signature " +
                                             signature_text(type) + "; WASI preview 1 defines " +
                                             signature_text(expected));
    }
  }
}

}  // namespace wavestack::wasm
