// Which records transfer control and where to, read straight from the interpreter
// (device/interpreter.glsl, interp_step): the one place that encodes the lowered form's
// control immediates for the compiler, so blocks and tests agree on them.
#pragma once

#include <cstdint>

#include "wasm/module/instruction.hpp"
#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm::compiler {

// JUMP, JUMP_IF_ZERO, br and br_if: the target pc is in `a` (the shader's ins.y).
inline bool has_direct_target(std::uint16_t opcode) {
  return opcode == op::kJump || opcode == op::kJumpIfZero || opcode == op::kBr || opcode == op::kBrIf;
}

inline bool is_call(std::uint16_t opcode) {
  return opcode == op::kCall || opcode == op::kCallIndirect;
}

// Bulk records that run in budget-sized chunks (device/bulk.glsl).
inline bool is_bulk(std::uint16_t opcode) {
  return opcode == op::kMemoryInit || opcode == op::kMemoryCopy || opcode == op::kMemoryFill ||
         opcode == op::kTableInit || opcode == op::kTableCopy || opcode == op::kTableGrow || opcode == op::kTableFill;
}

// Records that may run again as a continuation (a call clearing its callee's locals in
// chunks, a chunked bulk operation). Compiled mode gives each a block of its own, so a
// continuation re-enters exactly that record.
inline bool is_resumable(std::uint16_t opcode) {
  return is_call(opcode) || is_bulk(opcode);
}

// Records after which the next record starts a block (br_table's entries come first).
inline bool ends_block(std::uint16_t opcode) {
  return has_direct_target(opcode) || is_resumable(opcode) || opcode == op::kBrTable || opcode == op::kReturn ||
         opcode == op::kUnreachable;
}

// br_table: `a` = label count n, followed by n + 1 BR_TABLE_ENTRY records whose `a` is the
// target pc (the default last); the interpreter reads code[pc + 1 + min(i, n)].
inline std::uint32_t br_table_entry_count(const Instruction& br_table) {
  return br_table.a + 1U;
}

}  // namespace wavestack::wasm::compiler
