#include "wasm/compiler/basic_blocks.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "wasm/compiler/control_records.hpp"

namespace wavestack::wasm::compiler {
namespace {

struct Range {
  std::uint32_t begin;
  std::uint32_t end;
};

[[noreturn]] void fail(std::uint32_t defined_index, std::uint32_t pc, const std::string& what) {
  throw std::logic_error("compiler: function " + std::to_string(defined_index) + ", record " + std::to_string(pc) +
                         ": " + what);
}

void check_target(Range function, std::uint32_t defined_index, std::uint32_t pc, std::uint32_t target) {
  if (target < function.begin || target >= function.end) fail(defined_index, pc, "branch target outside the function");
}

// The records a br_table owns beyond itself; checked to lie inside the function.
std::uint32_t table_span(const Program& program, Range function, std::uint32_t defined_index, std::uint32_t pc) {
  const std::uint64_t entries = br_table_entry_count(program.code[pc]);
  if (pc + 1U + entries > function.end) fail(defined_index, pc, "br_table entries run past the function");
  for (std::uint64_t i = 0; i < entries; ++i) {
    if (program.code[pc + 1U + i].opcode != op::kBrTableEntry) fail(defined_index, pc, "br_table entry expected");
  }
  return static_cast<std::uint32_t>(entries);
}

// Marks every leader: the entry, every target, every record after a control transfer.
std::vector<bool> find_leaders(const Program& program, Range function, std::uint32_t defined_index) {
  std::vector<bool> leader(function.end - function.begin, false);
  auto mark = [&](std::uint32_t pc) {
    if (pc < function.end) leader[pc - function.begin] = true;
  };
  mark(function.begin);
  for (std::uint32_t pc = function.begin; pc < function.end; ++pc) {
    const Instruction& record = program.code[pc];
    if (record.opcode == op::kBrTable) {
      const std::uint32_t entries = table_span(program, function, defined_index, pc);
      for (std::uint32_t i = 1; i <= entries; ++i) {
        check_target(function, defined_index, pc, program.code[pc + i].a);
        mark(program.code[pc + i].a);
      }
      pc += entries;
      mark(pc + 1U);
      continue;
    }
    if (has_direct_target(record.opcode)) {
      check_target(function, defined_index, pc, record.a);
      mark(record.a);
    }
    if (is_resumable(record.opcode)) mark(pc);
    if (ends_block(record.opcode)) mark(pc + 1U);
  }
  return leader;
}

Terminator terminator_of(std::uint16_t opcode) {
  switch (opcode) {
    case op::kJump:
      return Terminator::kJump;
    case op::kJumpIfZero:
      return Terminator::kJumpIfZero;
    case op::kBr:
      return Terminator::kBr;
    case op::kBrIf:
      return Terminator::kBrIf;
    case op::kBrTable:
      return Terminator::kBrTable;
    case op::kReturn:
      return Terminator::kReturn;
    case op::kUnreachable:
      return Terminator::kUnreachable;
    case op::kCall:
      return Terminator::kCall;
    case op::kCallIndirect:
      return Terminator::kCallIndirect;
    default:
      return Terminator::kFallthrough;
  }
}

// Fills the terminator and successors of `block` from its last executing record `last`.
void finish_block(const Program& program, Range function, std::uint32_t defined_index, std::uint32_t last, Block& block,
                  std::vector<std::uint32_t>& jump_targets) {
  const Instruction& record = program.code[last];
  block.terminator = terminator_of(record.opcode);
  block.ends_in_call = is_call(record.opcode);
  const bool falls_through = block.terminator != Terminator::kJump && block.terminator != Terminator::kBr &&
                             block.terminator != Terminator::kBrTable && block.terminator != Terminator::kReturn &&
                             block.terminator != Terminator::kUnreachable;
  if (block.terminator == Terminator::kBrTable) {
    block.table_begin = static_cast<std::uint32_t>(jump_targets.size());
    block.table_size = block.end - last - 1U;
    for (std::uint32_t pc = last + 1U; pc < block.end; ++pc) jump_targets.push_back(program.code[pc].a);
  }
  if (has_direct_target(record.opcode)) block.successors.push_back(record.a);
  if (falls_through) {
    // The validator ends every function with an explicit return, so nothing falls off it.
    if (block.end >= function.end) fail(defined_index, last, "control falls through past the function's end");
    // A conditional whose target is its own fall-through has one successor, not two.
    if (block.successors.empty() || block.successors.front() != block.end) block.successors.push_back(block.end);
  }
}

}  // namespace

FunctionBlocks compute_basic_blocks(const Program& program, std::uint32_t defined_index) {
  if (defined_index >= program.functions.size()) throw std::out_of_range("compiler: no such defined function");
  const FunctionRecord& record = program.functions[defined_index];
  const Range function{record.code_begin, record.code_end};
  if (function.begin >= function.end || function.end > program.code.size()) {
    fail(defined_index, function.begin, "empty or out-of-bounds function code");
  }
  const std::vector<bool> leader = find_leaders(program, function, defined_index);

  FunctionBlocks result;
  result.defined_index = defined_index;
  std::uint32_t pc = function.begin;
  while (pc < function.end) {
    Block block;
    block.begin = pc;
    std::uint32_t last = pc;
    // Extend over records until one ends the block or the next one is a leader.
    while (true) {
      last = pc;
      const std::uint16_t opcode = program.code[pc].opcode;
      ++block.instruction_count;
      pc += opcode == op::kBrTable ? br_table_entry_count(program.code[pc]) + 1U : 1U;
      if (ends_block(opcode) || pc >= function.end || leader[pc - function.begin]) break;
    }
    block.end = pc;
    finish_block(program, function, defined_index, last, block, result.jump_targets);
    result.blocks.push_back(std::move(block));
  }
  return result;
}

}  // namespace wavestack::wasm::compiler
