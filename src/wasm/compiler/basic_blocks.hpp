// Basic blocks of one defined function's executable form (wasm::Program::code), the first
// step of compiled mode. A block is a run of records that always executes from its first
// record to its last: control enters only at the first record and leaves only after the
// last. Calls end a block too, because the continuation after a call is the address the
// callee's return resumes (compiled code keeps its frames in device memory and returns
// through the dispatch loop, not through a native call). Calls and chunked bulk records
// stand alone in their blocks, so that a continuation re-enters exactly that record.
#pragma once

#include <cstdint>
#include <vector>

#include "wasm/module/program.hpp"

namespace wavestack::wasm::compiler {

// How a block hands control on; named after its last record (see opcodes.hpp).
enum class Terminator : std::uint8_t {
  kFallthrough,   // the next record is a leader (a branch target or a call continuation)
  kSplit,         // an oversized block cut at a record boundary (units.hpp); falls through
  kJump,          // JUMP (0x200): successor a
  kJumpIfZero,    // JUMP_IF_ZERO (0x201): successors a, then the next record
  kBr,            // br: successor a
  kBrIf,          // br_if: successors a, then the next record
  kBrTable,       // br_table: its targets are jump-table data, not successors
  kReturn,        // return: leaves the function
  kUnreachable,   // traps
  kCall,          // call: successor is the continuation the callee returns to
  kCallIndirect,  // call_indirect: likewise
};

struct Block {
  std::uint32_t begin = 0;              // first record (absolute index in Program::code)
  std::uint32_t end = 0;                // one past the last record, br_table entries included
  std::uint32_t instruction_count = 0;  // records that execute: br_table entries are data
  Terminator terminator = Terminator::kFallthrough;
  bool ends_in_call = false;
  // Start pcs of the blocks control can reach next: a branch's target first, then the
  // fall-through (or call continuation). Empty for return, unreachable and br_table.
  std::vector<std::uint32_t> successors;
  // br_table only: its n + 1 targets (default last) are
  // FunctionBlocks::jump_targets[table_begin, table_begin + table_size).
  std::uint32_t table_begin = 0;
  std::uint32_t table_size = 0;

  bool operator==(const Block&) const = default;
};

struct FunctionBlocks {
  std::uint32_t defined_index = 0;          // index into Program::functions
  std::vector<Block> blocks;                // in pc order; they partition [code_begin, code_end)
  std::vector<std::uint32_t> jump_targets;  // br_table targets (pcs), per table contiguous

  bool operator==(const FunctionBlocks&) const = default;
};

// Throws std::logic_error when the lowered code breaks an invariant the validator
// guarantees (a target outside the function, a br_table cut short, a fall-through past
// the end), since compiling such code would silently miscompile it.
[[nodiscard]] FunctionBlocks compute_basic_blocks(const Program& program, std::uint32_t defined_index);

}  // namespace wavestack::wasm::compiler
