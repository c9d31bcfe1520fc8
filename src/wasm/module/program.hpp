// The executable form of a validated module for the device interpreter: one flat
// instruction buffer for all defined functions plus a fixed-size record per function.
// Everything the interpreter needs is resolved: branch targets are absolute indices into
// `code`, branches carry how many values they keep and the operand-stack height to cut
// back to, and each function states how many operand slots it can ever need. Values are
// 64-bit slots; see docs/ARCHITECTURE.md ("wasmgpu") for the per-opcode layout.
#pragma once

#include <cstdint>
#include <vector>

#include "wasm/module/instruction.hpp"

namespace wavestack::wasm {

struct FunctionRecord {
  std::uint32_t code_begin = 0;  // first instruction in Program::code
  std::uint32_t code_end = 0;    // one past the last
  std::uint32_t type_index = 0;
  std::uint32_t param_count = 0;
  std::uint32_t local_count = 0;  // declared locals, after the parameters (zero-initialised)
  std::uint32_t result_count = 0;
  std::uint32_t max_stack = 0;          // operand slots needed beyond the locals
  std::uint32_t local_types_begin = 0;  // index into Program::local_types (params then locals)
};

struct Program {
  std::vector<Instruction> code;
  std::vector<FunctionRecord> functions;  // defined functions only (index - imported count)
  std::vector<std::uint8_t> local_types;  // ValType bytes, per function params then locals
  // call_indirect compares function types structurally: two type indices with the same
  // signature must match. Each type index maps to the lowest index with an equal type, and
  // every function (imports included) to the id of its type, so the device compares ids.
  std::vector<std::uint32_t> type_ids;           // per type index
  std::vector<std::uint32_t> function_type_ids;  // per function index
};

}  // namespace wavestack::wasm
