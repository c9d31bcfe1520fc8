#include "wasm/load/host_modules.hpp"

#include <bit>

#include "wasm/wasi/wasi_signatures.hpp"

namespace wavestack::wasm {
namespace {

struct SpectestFunction {
  const char* name;
  std::vector<ValType> params;
};

const std::vector<SpectestFunction>& spectest_functions() {
  using enum ValType;
  static const std::vector<SpectestFunction> functions = {
      {"print", {}},         {"print_i32", {kI32}},           {"print_i64", {kI64}},           {"print_f32", {kF32}},
      {"print_f64", {kF64}}, {"print_i32_f32", {kI32, kF32}}, {"print_f64_f64", {kF64, kF64}},
  };
  return functions;
}

struct SpectestGlobal {
  const char* name;
  ValType type;
  std::uint64_t bits;
};

// 666 and 666.6 as the spec interpreter's spectest defines them.
const std::vector<SpectestGlobal>& spectest_globals() {
  static const std::vector<SpectestGlobal> globals = {
      {"global_i32", ValType::kI32, 666u},
      {"global_i64", ValType::kI64, 666u},
      {"global_f32", ValType::kF32, std::bit_cast<std::uint32_t>(666.6f)},
      {"global_f64", ValType::kF64, std::bit_cast<std::uint64_t>(666.6)},
  };
  return globals;
}

// The spec's import subtyping of limits: the provided range lies within the imported one.
bool limits_match(const Limits& provided, const Limits& imported) {
  if (provided.min < imported.min) return false;
  if (!imported.max) return true;
  return provided.max && *provided.max <= *imported.max;
}

[[noreturn]] void unknown(const Import& import) {
  throw LinkError("unknown import \"" + import.module + "\".\"" + import.name + "\"");
}

[[noreturn]] void incompatible(const Import& import) {
  throw LinkError("incompatible import type \"" + import.module + "\".\"" + import.name + "\"");
}

}  // namespace

LinkedImports link_imports(const Module& module) {
  LinkedImports linked;
  for (const Import& import : module.imports) {
    if (import.module == kWasiModule && import.kind == ExternKind::kFunction) {
      const WasiSignature* signature = find_wasi_signature(import.name);
      if (signature == nullptr) unknown(import);
      const FuncType& type = module.types[import.type_index];
      const FuncType expected = wasi_func_type(*signature);
      if (type.params != expected.params || type.results != expected.results) incompatible(import);
      linked.function_wasi_ids.push_back(signature->id);
      continue;
    }
    if (import.module != "spectest") unknown(import);
    if (import.kind == ExternKind::kFunction) linked.function_wasi_ids.push_back(kNotWasi);
    switch (import.kind) {
      case ExternKind::kFunction: {
        const FuncType& type = module.types[import.type_index];
        bool found = false;
        for (const auto& function : spectest_functions()) {
          if (import.name != function.name) continue;
          found = true;
          if (type.params != function.params || !type.results.empty()) incompatible(import);
        }
        if (!found) {
          for (const auto& global : spectest_globals())
            if (import.name == global.name) incompatible(import);
          if (import.name == "table" || import.name == "memory") incompatible(import);
          unknown(import);
        }
        break;
      }
      case ExternKind::kGlobal: {
        const SpectestGlobal* match = nullptr;
        for (const auto& global : spectest_globals())
          if (import.name == global.name) match = &global;
        if (match == nullptr) {
          if (import.name == "table" || import.name == "memory" || import.name.starts_with("print")) {
            incompatible(import);
          }
          unknown(import);
        }
        if (import.global.type != match->type || import.global.is_mutable) incompatible(import);
        linked.global_values.push_back(match->bits);
        break;
      }
      case ExternKind::kTable: {
        if (import.name != "table") {
          if (import.name == "memory" || import.name.starts_with("print") || import.name.starts_with("global_")) {
            incompatible(import);
          }
          unknown(import);
        }
        const TableType provided{ValType::kFuncRef, Limits{10, 20}};
        if (import.table.element != provided.element || !limits_match(provided.limits, import.table.limits)) {
          incompatible(import);
        }
        linked.tables.push_back(provided);
        break;
      }
      case ExternKind::kMemory: {
        if (import.name != "memory") {
          if (import.name == "table" || import.name.starts_with("print") || import.name.starts_with("global_")) {
            incompatible(import);
          }
          unknown(import);
        }
        const MemoryType provided{Limits{1, 2}};
        if (!limits_match(provided.limits, import.memory.limits)) incompatible(import);
        linked.memory = provided;
        break;
      }
    }
  }
  return linked;
}

}  // namespace wavestack::wasm
