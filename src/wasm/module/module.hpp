// The decoded module: what the binary declares, with every index space laid out as the
// spec defines it (imports first). Function bodies hold the decoded instruction stream
// until validation lowers them into the executable form (`Program`, see program.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wasm/module/instruction.hpp"
#include "wasm/module/program.hpp"

namespace wavestack::wasm {

// Value types of the supported profile, by their binary encoding. kUnknown is the
// validator's bottom type for the polymorphic stack after unreachable code.
enum class ValType : std::uint8_t {
  kUnknown = 0x00,
  kI32 = 0x7F,
  kI64 = 0x7E,
  kF32 = 0x7D,
  kF64 = 0x7C,
  kFuncRef = 0x70,
  kExternRef = 0x6F,
};

[[nodiscard]] const char* val_type_name(ValType type) noexcept;
[[nodiscard]] inline bool is_reference(ValType type) noexcept {
  return type == ValType::kFuncRef || type == ValType::kExternRef;
}

struct FuncType {
  std::vector<ValType> params;
  std::vector<ValType> results;
  bool operator==(const FuncType&) const = default;
};

struct Limits {
  std::uint32_t min = 0;
  std::optional<std::uint32_t> max;
};

struct TableType {
  ValType element = ValType::kFuncRef;
  Limits limits;
};

struct MemoryType {
  Limits limits;  // in 64 KiB pages
};

struct GlobalType {
  ValType type = ValType::kI32;
  bool is_mutable = false;
};

enum class ExternKind : std::uint8_t { kFunction = 0, kTable = 1, kMemory = 2, kGlobal = 3 };

[[nodiscard]] const char* extern_kind_name(ExternKind kind) noexcept;

struct Import {
  std::string module;
  std::string name;
  ExternKind kind = ExternKind::kFunction;
  std::uint32_t type_index = 0;  // kFunction
  TableType table;               // kTable
  MemoryType memory;             // kMemory
  GlobalType global;             // kGlobal
  std::size_t offset = 0;        // byte offset of the import entry
};

struct Export {
  std::string name;
  ExternKind kind = ExternKind::kFunction;
  std::uint32_t index = 0;
  std::size_t offset = 0;
};

// A constant expression, decoded like a function body (ending with `end`).
struct ConstExpr {
  std::vector<Instruction> code;
  std::vector<std::uint32_t> offsets;  // byte offset of each instruction
};

enum class SegmentMode : std::uint8_t { kActive, kPassive, kDeclarative };

struct ElementSegment {
  SegmentMode mode = SegmentMode::kActive;
  std::uint32_t table = 0;
  ConstExpr offset;  // active only
  ValType type = ValType::kFuncRef;
  // Every item as a constant expression; the function-index forms become `ref.func i`.
  std::vector<ConstExpr> items;
  std::size_t byte_offset = 0;
};

struct DataSegment {
  SegmentMode mode = SegmentMode::kActive;
  std::uint32_t memory = 0;
  ConstExpr offset;  // active only
  std::vector<std::uint8_t> bytes;
  std::size_t byte_offset = 0;
};

struct Global {
  GlobalType type;
  ConstExpr init;
  std::size_t byte_offset = 0;
};

// A run of locals of one type, as the binary declares them.
struct LocalGroup {
  std::uint32_t count = 0;
  ValType type = ValType::kI32;
};

struct FunctionBody {
  std::vector<LocalGroup> locals;      // declared locals (after the parameters)
  std::uint64_t local_count = 0;       // sum of the groups
  std::vector<Instruction> code;       // decoded, not yet lowered; ends with `end`
  std::vector<std::uint32_t> offsets;  // byte offset of each instruction
  std::size_t byte_offset = 0;
};

struct Module {
  std::vector<FuncType> types;
  std::vector<Import> imports;
  // Index spaces: imported entities first, then the defined ones.
  std::vector<std::uint32_t> function_types;  // type index per function
  std::vector<TableType> tables;
  std::vector<MemoryType> memories;
  std::vector<GlobalType> global_types;
  std::uint32_t imported_functions = 0;
  std::uint32_t imported_tables = 0;
  std::uint32_t imported_memories = 0;
  std::uint32_t imported_globals = 0;
  // Byte offset of each entry's declaration (import entry or section entry), parallel to
  // the index spaces above, so validation errors can point at the declaration.
  std::vector<std::size_t> function_offsets;
  std::vector<std::size_t> table_offsets;
  std::vector<std::size_t> memory_offsets;

  std::vector<Global> globals;  // defined globals only
  std::vector<Export> exports;
  std::optional<std::uint32_t> start;
  std::size_t start_offset = 0;
  std::vector<ElementSegment> elements;
  std::vector<DataSegment> data;
  std::optional<std::uint32_t> data_count;
  // Where code first used a data index without a data count section (see decoder.cpp).
  std::optional<std::size_t> data_index_without_count;
  std::vector<FunctionBody> bodies;  // defined functions only

  // Filled by validation: the executable form of every defined function.
  Program program;

  [[nodiscard]] const FuncType& function_type(std::uint32_t function_index) const {
    return types[function_types[function_index]];
  }
};

}  // namespace wavestack::wasm
