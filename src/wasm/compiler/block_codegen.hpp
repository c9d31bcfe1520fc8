// Source generation for one basic block of compiled mode, in the device-code subset (the
// same text compiles as GLSL for Vulkan and as C++ for the cpu device).
//
// A block becomes two texts, in terms of the registers `r`:
//   the full block: a case of its run's switch (unit_codegen.hpp), which takes its records from
//     the run's `credit` (compiled_blocks.glsl) and continues at its successor: directly when
//     that is a full block of the same run (COMPILED_GOTO), else through the run's loop
//   uint b<ID>_p(INOUT(Regs) r, uint left, uint room)  its unrolled prefix: stops before record `left`
// (the prefix is a separate text: the cpu device builds it only when fuel runs out mid-block).
// A call or bulk block (resumable) is a function b<ID> of the same parameters instead, with
// `left` the fuel and `room` the quantum left (compiled_block_room).
// Functions report the records they executed (fuel charged), or COMPILED_YIELD when the block
// would overrun the dispatch's loop budget or quantum (it then ran nothing; a dispatch's
// first block always runs, so every dispatch makes progress); a full block that does not fit
// sets `n` to compiled_short's verdict (yield, its prefix, or run). Inside a block operands
// are shader variables; at the block's end the operand stack is spilled to the value stack, so
// every block boundary holds the interpreter's exact operand stack. Locals are the variables
// of the block's run, which spills the changed ones whenever control leaves it (calls, returns
// and branches use the shared frame code in device/frames.glsl).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "wasm/compiler/compiled_layout.hpp"
#include "wasm/module/program.hpp"

namespace wavestack::wasm::compiler {

// Loop-budget units a record may need in one piece; the interpreter's record_work plus one
// (interpreter.glsl), so both modes bound a dispatch's loops alike.
[[nodiscard]] std::uint32_t record_work(const Program& program, std::uint32_t pc);

struct BlockSource {
  std::string prefix;  // b<ID>_p (empty for a call or bulk block, which checks fuel itself)
  std::string body;    // a full block: its case's statements (it sets `n` when it does not run); resumable: b<ID>
  std::string label;   // a full block: the label of its case (COMPILED_LABEL)
  bool resumable = false;
  std::map<std::uint32_t, bool> locals;  // a full block's locals: true where it writes one
  // A call or bulk block (its run makes it: unit_codegen.cpp): its call site's statement
  // (a defined callee's frame_call_defined_now, for the site that found no continuation),
  // its loop work, whether it is a call (call or call_indirect) and the function it calls.
  std::string statement;
  std::uint32_t work = 0;
  bool is_call = false;
  std::optional<std::uint32_t> callee;
};

// A line of a full block's text after a return, which its run replaces with the direct
// continuation at the run's return sites (or nothing).
inline constexpr const char* kReturnSitesMarker = "RUN_RETURN_SITES";

// Whether a full block continues at block `id` with a direct jump (COMPILED_GOTO): `id` is a
// full block of the same run. Empty: never.
using DirectTarget = std::function<bool(std::uint32_t id)>;

// The two functions of `block`. `function_entries` (CompiledLayout's, per defined function:
// its entry block) lets a call name its callee's entry block as a constant; empty, the call
// reads it from the function table (the text's size is then an upper bound). Throws
// std::logic_error for a record compiled mode does not know (the validator admits none).
[[nodiscard]] BlockSource generate_block(const Program& program, const CompiledBlock& block, const DirectTarget& direct,
                                         std::span<const std::uint32_t> function_entries = {});

// The cpu device's lane groups (lane_group_codegen.hpp) run a block for several instances
// in turn: a lane block is a full block that stays in its function's frame (not a call or
// bulk block, not a return). Its lane text runs it once, taking its records from `credit`
// (which the group has checked), and leaves with r.pc at its successor, or a trap: every exit
// leaves the text's `do { } while (false)`, none jumps.
[[nodiscard]] bool is_lane_block(const Program& program, const CompiledBlock& block);
struct LaneBlockSource {
  std::string text;
  std::map<std::uint32_t, bool> locals;  // as BlockSource::locals
};
[[nodiscard]] LaneBlockSource generate_lane_block(const Program& program, const CompiledBlock& block);

// Whether `block` is a call or bulk block (a function of its own, resumable).
[[nodiscard]] bool is_resumable_block(const Program& program, const CompiledBlock& block);

// Whether local `index` of defined function `function` holds a 32-bit value (i32, f32 or a
// reference): its slot's high word is always zero, which a run's variables state, so that the
// C++ compiler keeps one register for it instead of two.
[[nodiscard]] bool local_is_32_bit(const Program& program, std::uint32_t function, std::uint32_t index);

// Whether local `index` of defined function `function` holds a reference (funcref, externref):
// a declared one starts as null (NULL_REF), not zero.
[[nodiscard]] bool local_is_reference(const Program& program, std::uint32_t function, std::uint32_t index);
// Whether any of the defined function's declared locals (after its parameters) is a reference
// (a new frame sets them to null, not zero).
[[nodiscard]] bool has_reference_locals(const Program& program, std::uint32_t function);

// Whether local `index` of defined function `function` holds an f64: a run declares its
// variable as F64_VARIABLE (compiled_blocks.glsl), which C++ keeps in a floating-point register.
[[nodiscard]] bool local_is_f64(const Program& program, std::uint32_t function, std::uint32_t index);

// The name of block `id`'s full function, and the label of its case in its run.
[[nodiscard]] std::string block_function_name(std::uint32_t id);
[[nodiscard]] std::string block_label(std::uint32_t id);

}  // namespace wavestack::wasm::compiler
