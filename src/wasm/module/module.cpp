#include "wasm/module/module.hpp"

namespace wavestack::wasm {

const char* val_type_name(ValType type) noexcept {
  switch (type) {
    case ValType::kI32:
      return "i32";
    case ValType::kI64:
      return "i64";
    case ValType::kF32:
      return "f32";
    case ValType::kF64:
      return "f64";
    case ValType::kFuncRef:
      return "funcref";
    case ValType::kExternRef:
      return "externref";
    case ValType::kUnknown:
      break;
  }
  return "unknown";
}

const char* extern_kind_name(ExternKind kind) noexcept {
  switch (kind) {
    case ExternKind::kFunction:
      return "function";
    case ExternKind::kTable:
      return "table";
    case ExternKind::kMemory:
      return "memory";
    case ExternKind::kGlobal:
      return "global";
  }
  return "unknown";
}

}  // namespace wavestack::wasm
