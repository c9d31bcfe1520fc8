// A unit of compiled mode as the baseline compiler builds it for the cpu device: machine code
// for the records of each full block, and per block what the run loop (baseline_run.cpp) does
// around that code: the block's control transfer, its call or bulk operation, its records.
//
// The split: the machine code is the block's straight-line work (operands in the value stack's
// slots, locals in the frame's slots, linear memory with its bounds checks, numerics), and it
// ends by saying which way the block leaves; the run loop, C++ compiled with the extension over
// the same device library as generated units (frames.glsl, bulk.glsl, compiled_blocks.glsl),
// counts the block's records against the credit and makes its branch, call or return. So a
// block costs microseconds to compile, and control, fuel and frames are the shared code's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wavestack::wasm::baseline {

// What a block's machine code reads and writes besides the slots: one per run of the loop.
// Offsets are fixed (the machine code addresses the fields by them). The code runs from the
// block it is entered at through the blocks of the same run it continues in directly (as a
// generated unit's COMPILED_GOTO), taking each block's records from `credit`, and leaves with
// the block it left from in `block` and that block's first operand slot in `top`.
struct BlockEnv {
  std::uint64_t* frame = nullptr;  // the frame's first slot (locals): the value stack at r.fp
  std::uint64_t* top = nullptr;    // in: the operand stack's top at r.sp; out: the leaving block's
  unsigned char* memory = nullptr;
  std::uint64_t memory_bytes = 0;
  std::uint32_t trap = 0;          // set by a helper, or by the code before a trap exit
  std::uint32_t records_back = 0;  // a trap's records after the trapping one
  std::uint32_t index = 0;         // br_table's popped index
  std::uint32_t credit = 0;        // records the run may still execute (compiled_blocks.glsl)
  void* runtime = nullptr;         // the run loop's instance context, for the helpers
  std::uint32_t block = 0;         // out: the index in the unit of the block that left
  std::uint32_t padding = 0;
};
inline constexpr std::int32_t kEnvFrame = 0;
inline constexpr std::int32_t kEnvTop = 8;
inline constexpr std::int32_t kEnvMemory = 16;
inline constexpr std::int32_t kEnvMemoryBytes = 24;
inline constexpr std::int32_t kEnvTrap = 32;
inline constexpr std::int32_t kEnvRecordsBack = 36;
inline constexpr std::int32_t kEnvIndex = 40;
inline constexpr std::int32_t kEnvCredit = 44;
inline constexpr std::int32_t kEnvRuntime = 48;
inline constexpr std::int32_t kEnvBlock = 56;

// How a block's machine code returns.
inline constexpr std::uint32_t kExitEnd = 0;      // its records ran; the block's end follows
inline constexpr std::uint32_t kExitTaken = 1;    // a two-way end's condition held
inline constexpr std::uint32_t kExitOther = 2;    // ... did not
inline constexpr std::uint32_t kExitTrapped = 3;  // trap and records_back are set
inline constexpr std::uint32_t kExitShort = 4;    // the block's records exceed the credit: nothing ran

using BlockCode = std::uint32_t (*)(BlockEnv* env);

// How a block ends (its last record, or none: it continues at its successor).
enum class BlockEnd : std::uint8_t {
  kNext,         // r.pc = target
  kJumpIfZero,   // taken (the popped value was zero): r.pc = target, else r.pc = other
  kBranch,       // frame_branch(r, target, arity, height)
  kBranchIf,     // taken: frame_branch(r, target, arity, height), else r.pc = other
  kBranchTable,  // frame_branch to jump-table entry table_begin + min(index, table_max)
  kReturn,       // frame_return(r, count)
  kTrap,         // always traps (unreachable): the code exits trapped
};

// A block starts a cache line, and the fields the run loop reads of a full block lie in that
// line, its unit's among them (the loop goes from block to block across many units without
// reading the units: a large program's metadata outgrows the caches, and each line read where
// control enters a unit is a miss). An unaligned block of 88 bytes spanned two lines most of the
// time: aligned, fib 3-4% and graphviz.wasm's 150-node render 1-3% faster (interleaved A/B).
struct alignas(64) BaselineBlock {
  // A full block.
  BlockCode code = nullptr;
  // The block's unit: its first block, that block's id, its block count.
  const BaselineBlock* unit_blocks = nullptr;
  std::uint32_t unit_first = 0;
  std::uint32_t unit_size = 0;
  std::uint32_t id = 0;
  std::uint32_t records = 0;   // charged records (the block's instruction count)
  std::int32_t end_depth = 0;  // r.sp's change over the block, before its end's transfer
  std::uint32_t target = 0;    // block id, or the jump table's first entry
  std::uint32_t other = 0;     // block id
  std::uint32_t a = 0;         // kBranch/kBranchIf: arity; kBranchTable: the largest index; kReturn: count
  std::uint32_t b = 0;         // kBranch/kBranchIf: height
  // The block's run: consecutive blocks of one function in the unit (unit_codegen.cpp's), as
  // indices into the unit; the loop leaves the run's function only between runs, as a
  // generated unit does.
  std::uint32_t run_begin = 0;
  std::uint32_t run_end = 0;
  bool resumable = false;  // a call or bulk block: `opcode` and its operands, no code
  BlockEnd end = BlockEnd::kNext;
  // A resumable block: its record, and for a call of a defined function that function's facts.
  std::uint16_t opcode = 0;
  std::uint32_t ia = 0;
  std::uint32_t ib = 0;
  bool defined_callee = false;
  std::uint32_t params = 0;
  std::uint32_t locals = 0;
  std::uint32_t max_stack = 0;
  std::uint32_t entry = 0;
};
static_assert(offsetof(BaselineBlock, end) < 64, "the run loop's fields fill the block's first line");

struct BaselineUnit {
  // The unit's CpuUnitFunction (compiled_code.hpp): a thunk that runs baseline_unit_run over
  // this unit.
  void* entry = nullptr;
  std::uint32_t first_block = 0;
  std::vector<BaselineBlock> blocks;
  std::uint64_t code_bytes = 0;
};

// How a baseline run goes on into the unit control reaches next without returning to the host
// (baseline_linked_run): `next` gives block `block` of the baseline unit that runs it now, or
// null when that unit has other code (not built yet, or rebuilt at a better tier) and the host
// must run it. Units are shared by the modules of one binary, so the module's links are passed in.
struct UnitLinks {
  const BaselineBlock* (*next)(void* context, std::uint32_t block) = nullptr;
  void* context = nullptr;
};

}  // namespace wavestack::wasm::baseline
