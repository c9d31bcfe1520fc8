#include "wasm/validate/validator.hpp"

#include <map>
#include <string>
#include <unordered_set>
#include <utility>

#include "wasm/module/errors.hpp"
#include "wasm/module/opcodes.hpp"
#include "wasm/validate/const_expr.hpp"
#include "wasm/validate/function_validator.hpp"

namespace wavestack::wasm {
namespace {

constexpr std::uint32_t kMaxMemoryPages = 65536;

void check_type_index(const Module& module, std::uint32_t index, std::size_t at) {
  if (index >= module.types.size()) throw InvalidModule(at, "unknown type " + std::to_string(index));
}

void check_limits(const Limits& limits, std::size_t at) {
  if (limits.max && limits.min > *limits.max) throw InvalidModule(at, "size minimum must not be greater than maximum");
}

void check_memory_type(const MemoryType& memory, std::size_t at) {
  if (memory.limits.min > kMaxMemoryPages || (memory.limits.max && *memory.limits.max > kMaxMemoryPages)) {
    throw InvalidModule(at, "memory size must be at most 65536 pages (4GiB)");
  }
  check_limits(memory.limits, at);
}

// Functions whose references a body may take with ref.func: those named in a global
// initialiser, an element segment or an export (spec: C.refs).
std::vector<bool> declared_references(const Module& module) {
  std::vector<bool> declared(module.function_types.size(), false);
  auto note = [&](const ConstExpr& expr) {
    for (const Instruction& instruction : expr.code) {
      if (instruction.opcode == op::kRefFunc && instruction.a < declared.size()) declared[instruction.a] = true;
    }
  };
  for (const Global& global : module.globals) note(global.init);
  for (const ElementSegment& segment : module.elements) {
    for (const ConstExpr& item : segment.items) note(item);
  }
  for (const Export& entry : module.exports) {
    if (entry.kind == ExternKind::kFunction && entry.index < declared.size()) declared[entry.index] = true;
  }
  return declared;
}

// Per type index, the lowest index with a structurally equal function type.
std::vector<std::uint32_t> canonical_type_ids(const Module& module) {
  std::vector<std::uint32_t> ids(module.types.size());
  std::map<std::pair<std::vector<ValType>, std::vector<ValType>>, std::uint32_t> first;
  for (std::uint32_t k = 0; k < module.types.size(); ++k) {
    const auto key = std::make_pair(module.types[k].params, module.types[k].results);
    ids[k] = first.emplace(key, k).first->second;
  }
  return ids;
}

void validate_exports(const Module& module) {
  std::unordered_set<std::string> names;
  for (const Export& entry : module.exports) {
    std::size_t limit = 0;
    switch (entry.kind) {
      case ExternKind::kFunction:
        limit = module.function_types.size();
        break;
      case ExternKind::kTable:
        limit = module.tables.size();
        break;
      case ExternKind::kMemory:
        limit = module.memories.size();
        break;
      case ExternKind::kGlobal:
        limit = module.global_types.size();
        break;
    }
    if (entry.index >= limit) {
      throw InvalidModule(entry.offset,
                          std::string("unknown ") + extern_kind_name(entry.kind) + " " + std::to_string(entry.index));
    }
    if (!names.insert(entry.name).second) throw InvalidModule(entry.offset, "duplicate export name");
  }
}

void validate_segments(const Module& module) {
  // In WebAssembly 2.0 every constant expression sees only the imported globals.
  const std::uint32_t all_globals = module.imported_globals;
  for (const ElementSegment& segment : module.elements) {
    if (segment.mode == SegmentMode::kActive) {
      if (segment.table >= module.tables.size()) {
        throw InvalidModule(segment.byte_offset, "unknown table " + std::to_string(segment.table));
      }
      validate_const_expr(module, segment.offset, ValType::kI32, all_globals);
      if (module.tables[segment.table].element != segment.type) {
        throw InvalidModule(segment.byte_offset, "type mismatch: element segment and table types differ");
      }
    }
    for (const ConstExpr& item : segment.items) validate_const_expr(module, item, segment.type, all_globals);
  }
  for (const DataSegment& segment : module.data) {
    if (segment.mode != SegmentMode::kActive) continue;
    if (segment.memory >= module.memories.size()) {
      throw InvalidModule(segment.byte_offset, "unknown memory " + std::to_string(segment.memory));
    }
    validate_const_expr(module, segment.offset, ValType::kI32, all_globals);
  }
}

}  // namespace

void validate_module(Module& module) {
  for (const Import& import : module.imports) {
    switch (import.kind) {
      case ExternKind::kFunction:
        check_type_index(module, import.type_index, import.offset);
        break;
      case ExternKind::kTable:
        check_limits(import.table.limits, import.offset);
        break;
      case ExternKind::kMemory:
        check_memory_type(import.memory, import.offset);
        break;
      case ExternKind::kGlobal:
        break;
    }
  }
  for (std::size_t k = module.imported_functions; k < module.function_types.size(); ++k) {
    check_type_index(module, module.function_types[k], module.function_offsets[k]);
  }
  for (std::size_t k = module.imported_tables; k < module.tables.size(); ++k) {
    check_limits(module.tables[k].limits, module.table_offsets[k]);
  }
  for (std::size_t k = module.imported_memories; k < module.memories.size(); ++k) {
    check_memory_type(module.memories[k], module.memory_offsets[k]);
  }
  if (module.memories.size() > 1) {
    // WebAssembly 2.0 allows one memory; the multi-memory proposal is outside the profile.
    throw UnsupportedFeature(module.memory_offsets[1], feature::kMultipleMemories,
                             "the module declares " + std::to_string(module.memories.size()) + " memories",
                             SpecVerdict::kInvalid, "multiple memories");
  }
  for (const Global& global : module.globals) {
    validate_const_expr(module, global.init, global.type.type, module.imported_globals);
  }
  validate_exports(module);
  if (module.start) {
    if (*module.start >= module.function_types.size()) {
      throw InvalidModule(module.start_offset, "unknown function " + std::to_string(*module.start));
    }
    const FuncType& type = module.function_type(*module.start);
    if (!type.params.empty() || !type.results.empty()) {
      throw InvalidModule(module.start_offset, "start function must take and return nothing");
    }
  }
  validate_segments(module);

  const std::vector<bool> declared = declared_references(module);
  module.program = Program{};
  module.program.type_ids = canonical_type_ids(module);
  for (std::uint32_t type_index : module.function_types) {
    module.program.function_type_ids.push_back(module.program.type_ids[type_index]);
  }
  const FunctionContext context{module, declared};
  for (std::uint32_t k = 0; k < module.bodies.size(); ++k) validate_function(context, k, module.program);
}

}  // namespace wavestack::wasm
