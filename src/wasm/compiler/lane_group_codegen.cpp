#include "wasm/compiler/lane_group_codegen.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "wasm/compiler/block_codegen.hpp"
#include "wasm/compiler/source_text.hpp"

namespace wavestack::wasm::compiler {
namespace {

// One run's lane blocks (the blocks of one function that are consecutive in the unit).
struct GroupRun {
  std::uint32_t first_id = 0;  // global id of the run's first block
  std::uint32_t count = 0;     // blocks in the run
  std::uint32_t function = 0;
  std::vector<const CompiledBlock*> lane_blocks;
  std::map<std::uint32_t, bool> locals;  // of its lane blocks: true where written
  std::string members;                   // the lane blocks' functions
  // Its loops as block id ranges [header, last]: WebAssembly's loops are structured, so a
  // loop's blocks are the ids from its header to the block that branches back to it.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> loops;
  std::vector<std::uint32_t> slow_blocks;  // lane blocks holding a long_latency instruction
};

// Whether an instruction has a latency of several cycles on current cores, so that a loop of
// them tends to be one chain that leaves the core idle (WebAssembly opcode numbers): floating
// point arithmetic (3 to 4 cycles; a divide or square root 13 to 20) and integer division.
// Loops of one-cycle integer operations or memory accesses already keep the core busy alone:
// grouping them measured slower (bench/wasmgpu.py's int_loop: docs/ARCHITECTURE.md, "Lane groups").
bool long_latency(std::uint16_t opcode) {
  constexpr std::uint16_t kI32DivS = 0x6D;
  constexpr std::uint16_t kI32RemU = 0x70;
  constexpr std::uint16_t kI64DivS = 0x7F;
  constexpr std::uint16_t kI64RemU = 0x82;
  constexpr std::uint16_t kF32Sqrt = 0x91;
  constexpr std::uint16_t kF32Div = 0x95;
  constexpr std::uint16_t kF64Sqrt = 0x9F;
  constexpr std::uint16_t kF64Div = 0xA3;
  return (opcode >= kI32DivS && opcode <= kI32RemU) || (opcode >= kI64DivS && opcode <= kI64RemU) ||
         (opcode >= kF32Sqrt && opcode <= kF32Div) || (opcode >= kF64Sqrt && opcode <= kF64Div);
}

std::string local_type(const Program& program, std::uint32_t function, std::uint32_t index) {
  return local_is_f64(program, function, index) ? "F64_VARIABLE" : "uvec2";
}

// lane_block<ID>: the block's lane text with the run's locals it uses bound to the lane's.
std::string lane_block_function(const Program& program, const GroupRun& run, const CompiledBlock& block,
                                const LaneBlockSource& source) {
  const std::string locals_type = numbered("lane_locals", run.first_id);
  std::string text = "__attribute__((always_inline)) inline void " + numbered("lane_block", block.id) +
                     "(INOUT(Regs) r, uint& credit, " + locals_type + "& L) {\n";
  for (const auto& [index, written] : source.locals) {
    const std::string name = numbered("l", index);
    text += "  " + local_type(program, run.function, index) + "& " + name + " = L." + name + ";\n";
  }
  text += source.text + "}\n";
  return text;
}

// The run's locals type, its load from a lane's frame and its spill of the written ones.
std::string locals_members(const Program& program, const GroupRun& run) {
  const std::string suffix = std::to_string(run.first_id);
  std::string type = "struct lane_locals" + suffix + " {\n";
  std::string load = "void lane_load" + suffix + "(INOUT(Regs) r, lane_locals" + suffix + "& L) {\n";
  std::string spill = "void lane_spill" + suffix + "(INOUT(Regs) r, const lane_locals" + suffix + "& L) {\n";
  for (const auto& [index, written] : run.locals) {
    const std::string name = numbered("l", index);
    const std::string slot = "slot_get(r.fp + " + u32(index) + ")";
    type += "  " + local_type(program, run.function, index) + " " + name + ";\n";
    load += "  L." + name + " = " +
            (local_is_32_bit(program, run.function, index) ? "uvec2(" + slot + ".x, 0u)" : slot) + ";\n";
    if (written) spill += "  slot_set(r.fp + " + u32(index) + ", L." + name + ");\n";
  }
  return type + "};\n" + load + "}\n" + spill + "}\n";
}

// lane_group<B>: the group's loop over the run's lane blocks, unrolled over the lanes.
// The lanes' variables are spelled with their lane's number: u0, r0, L0, credit0 ...
std::string group_function(const GroupRun& run) {
  const std::string suffix = std::to_string(run.first_id);
  const std::uint32_t lanes = kCpuLaneGroupSize;
  std::string text = "void lane_group" + suffix + "(UnitContext* const* lanes, Regs* io, CompiledCount* ic) {\n";
  for (std::uint32_t k = 0; k < lanes; ++k) {
    const std::string lane = std::to_string(k);
    // Private copies of each lane's registers and locals (the compiler keeps them in registers:
    // nothing takes their address beyond the inlined blocks).
    // A copy of the lane's context: its buffer pointers then stay in registers across the
    // blocks' memory stores (through the context they were reloaded after each).
    text += "  UnitContext u" + lane + " = *lanes[" + lane + "];\n";
    text += "  Regs r" + lane + " = io[" + lane + "];\n";
    text += "  lane_locals" + suffix + " L" + lane + ";\n";
    text += "  u" + lane + ".lane_load" + suffix + "(r" + lane + ", L" + lane + ");\n";
    text += "  uint start" + lane + " = compiled_credit(ic[" + lane + "]);\n";
    text += "  uint credit" + lane + " = start" + lane + ";\n";
  }
  std::string same_block = "true";
  std::string running = "true";
  for (std::uint32_t k = 1; k < lanes; ++k) same_block += " && " + numbered("r", k) + ".pc == r0.pc";
  for (std::uint32_t k = 0; k < lanes; ++k) running += " && " + numbered("r", k) + ".status == STATUS_RUNNING";
  // The lanes' next block: directly to a successor that is a lane block of the run (as the
  // run's own blocks jump), else through the switch, whose default ends the group.
  std::set<std::uint32_t> lane_ids;
  for (const CompiledBlock* block : run.lane_blocks) lane_ids.insert(block->id);
  text += "  if (!(" + same_block + ")) goto group_end;\n";
  text += "  while (true) {\n";
  text += "    switch (r0.pc - " + u32(run.first_id) + ") {\n";
  for (const CompiledBlock* block : run.lane_blocks) {
    const std::string records = u32(block->instruction_count);
    std::string fits = "true";
    for (std::uint32_t k = 0; k < lanes; ++k) fits += " && " + numbered("credit", k) + " >= " + records;
    text += "      case " + u32(block->id - run.first_id) + ": " + numbered("lane_at", block->id) + ":\n";
    text += "        if (!(" + fits + ")) goto group_end;\n";
    for (std::uint32_t k = 0; k < lanes; ++k) {
      const std::string lane = std::to_string(k);
      text += "        u" + lane + "." + numbered("lane_block", block->id) + "(r" + lane + ", credit" + lane + ", L" +
              lane + ");\n";
    }
    text += "        if (!(" + running + " && " + same_block + ")) goto group_end;\n";
    std::set<std::uint32_t> done;
    for (const std::uint32_t successor : block->successors) {
      if (lane_ids.count(successor) == 0 || !done.insert(successor).second) continue;
      text += "        if (r0.pc == " + u32(successor) + ") goto " + numbered("lane_at", successor) + ";\n";
    }
    text += "        continue;\n";
  }
  text += "      default:\n        goto group_end;\n    }\n  }\ngroup_end:\n";
  for (std::uint32_t k = 0; k < lanes; ++k) {
    const std::string lane = std::to_string(k);
    text += "  compiled_sync(ic[" + lane + "], credit" + lane + ", start" + lane + ");\n";
    text += "  u" + lane + ".lane_spill" + suffix + "(r" + lane + ", L" + lane + ");\n";
    text += "  io[" + lane + "] = r" + lane + ";\n";
  }
  return text + "}\n";
}

// `texts`: also generate the lane blocks' texts and the locals they use (not needed to know
// which runs are grouped).
std::vector<GroupRun> group_runs(const Program& program, const Unit& unit, bool texts) {
  std::vector<GroupRun> runs;
  for (const CompiledBlock& block : unit.blocks) {
    if (runs.empty() || runs.back().function != block.function) {
      runs.push_back(GroupRun{});
      runs.back().first_id = block.id;
      runs.back().function = block.function;
    }
    GroupRun& run = runs.back();
    ++run.count;
    if (!is_lane_block(program, block)) continue;
    if (texts) {
      const LaneBlockSource source = generate_lane_block(program, block);
      for (const auto& [index, written] : source.locals) run.locals[index] = run.locals[index] || written;
      run.members += lane_block_function(program, run, block, source);
    }
    run.lane_blocks.push_back(&block);
    for (const std::uint32_t successor : block.successors) {
      if (successor >= run.first_id && successor <= block.id) run.loops.emplace_back(successor, block.id);
    }
    for (std::uint32_t pc = block.begin; pc < block.end; ++pc) {
      if (long_latency(program.code.at(pc).opcode)) {
        run.slow_blocks.push_back(block.id);
        break;
      }
    }
  }
  return runs;
}

// Whether a loop of the run holds a long-latency instruction: a division before the loop
// (the sieve's x % 256) says nothing about the loop, whose lanes would part for nothing.
bool loop_is_latency_bound(const GroupRun& run) {
  return std::any_of(run.slow_blocks.begin(), run.slow_blocks.end(), [&](std::uint32_t id) {
    return std::any_of(run.loops.begin(), run.loops.end(),
                       [&](const auto& loop) { return id >= loop.first && id <= loop.second; });
  });
}

}  // namespace

LaneGroupSource generate_lane_groups(const Program& program, const Unit& unit) {
  LaneGroupSource source;
  std::string text = "#define COMPILED_LANES " + u32(kCpuLaneGroupSize) + "\n";
  std::string step = "bool compiled_unit_group_step(UnitContext* const* lanes, Regs* r, CompiledCount* c) {\n";
  step += "  uint at = r[0].pc;\n";
  for (const GroupRun& run : group_runs(program, unit, true)) {
    // A run without a loop passes its blocks once: grouping it would only add code. A loop
    // without long-latency instructions keeps the core busy alone (long_latency).
    if (!loop_is_latency_bound(run)) continue;
    text += locals_members(program, run) + run.members + group_function(run);
    source.runs.emplace_back(run.first_id, run.first_id + run.count);
    step += "  if (at - " + u32(run.first_id) + " < " + u32(run.count) + ") {\n";
    step += "    " + numbered("lane_group", run.first_id) + "(lanes, r, c);\n    return true;\n  }\n";
  }
  source.text = text + step + "  return false;\n}\n";
  return source;
}

}  // namespace wavestack::wasm::compiler

namespace wavestack::wasm::compiler {

std::vector<std::pair<std::uint32_t, std::uint32_t>> lane_group_runs(const Program& program, const Unit& unit) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
  for (const GroupRun& run : group_runs(program, unit, false)) {
    if (loop_is_latency_bound(run)) runs.emplace_back(run.first_id, run.first_id + run.count);
  }
  return runs;
}

}  // namespace wavestack::wasm::compiler
