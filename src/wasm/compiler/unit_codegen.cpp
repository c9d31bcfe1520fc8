#include "wasm/compiler/unit_codegen.hpp"

#include <map>
#include <stdexcept>
#include <vector>

#include "wasm/compiler/block_codegen.hpp"

namespace wavestack::wasm::compiler {
namespace {

std::string u32(std::uint32_t value) {
  return std::to_string(value) + "u";
}

std::string local_name(std::uint32_t index) {
  std::string name("l");
  name += std::to_string(index);
  return name;
}

// A run: the consecutive blocks of one function in a unit, generated as one function that
// keeps the function's locals in variables and passes control from block to block itself.
struct Run {
  std::uint32_t first = 0;  // index in the unit of its first block
  std::uint32_t count = 0;
  std::map<std::uint32_t, bool> locals;  // read or written by its blocks: true where written
  std::string cases;                     // the full blocks' cases
  std::string resumable_cases;           // the call and bulk blocks' cases
};

std::string run_function_name(std::uint32_t first_block) {
  std::string name("run");
  name += std::to_string(first_block);
  return name;
}

// The run's function: block after block while control stays among its blocks, the call keeps
// running and the quantum, fuel and budget last. Full blocks take their records from one
// down-counter, `credit` (compiled_blocks.glsl), and jump to each other directly where the
// language has goto (COMPILED_GOTO); the count `c` catches up (compiled_sync) before a call or
// bulk block, when a block does not fit, and at the end. The locals are loaded from the
// current frame before the first block and again after a call or return that lands in the run
// (a block of this function, so a frame of it: recursion stays here); `spill` says the
// variables hold the current frame's locals. Whenever the function returns, the frame in
// memory is the interpreter's: the written locals are spilled first, unless the frame changed
// since they were loaded (then they already were: a call or bulk block spills them before it
// runs, and a return leaves the frame). The loop is bounded: every block takes at least one
// record of the credit, and a block that finds none yields.
std::string run_function(const Run& run, std::uint32_t first_id) {
  const std::string base = u32(first_id + run.first);
  std::string spill_written;
  for (const auto& [index, written] : run.locals) {
    if (written) spill_written += "      slot_set(r.fp + " + u32(index) + ", " + local_name(index) + ");\n";
  }
  std::string text =
      "uint " + run_function_name(first_id + run.first) + "(INOUT(Regs) io, INOUT(CompiledCount) ic) {\n";
  // Private copies (the compiler may keep them in registers: they alias no buffer).
  text += "  Regs r = io;\n  CompiledCount c = ic;\n";
  for (const auto& [index, written] : run.locals) text += "  uvec2 " + local_name(index) + " = uvec2(0u, 0u);\n";
  text += "  uint start = compiled_credit(c);\n  uint credit = start;\n";
  text += "  bool spill = false;\n  uint result = 0u;\n";
  text += "  while (true) {\n";
  text += "    if (!spill) {\n";
  for (const auto& [index, written] : run.locals) {
    text += "      " + local_name(index) + " = slot_get(r.fp + " + u32(index) + ");\n";
  }
  text += "      spill = true;\n    }\n";
  text += "    uint n = 0u;\n";
  text += "    switch (r.pc - " + base + ") {\n";
  text += run.cases;
  // (Every block of the run has a case in one of the two switches.)
  const char* other = run.resumable_cases.empty() ? "" : "        n = COMPILED_RESUMABLE;\n";
  text += std::string("      default:\n") + other + "        break;\n    }\n";
  if (!run.resumable_cases.empty()) {
    // A call or bulk block: the frame as the interpreter has it, the count caught up, then
    // the shared code, which counts itself; the credit starts again from the count.
    text += "    if (n == COMPILED_RESUMABLE) {\n";
    text += spill_written;
    text += "      spill = false;\n";
    text += "      compiled_sync(c, credit, start);\n";
    text += "      uint left = compiled_left(c);\n      uint room = compiled_block_room(c);\n";
    text += "      switch (r.pc - " + base + ") {\n" + run.resumable_cases +
            "        default:\n          break;\n      }\n";
    text += "      if (n < COMPILED_NEEDS_PREFIX) {\n        compiled_count(c, n);\n        n = 0u;\n      }\n";
    text += "      start = compiled_credit(c);\n      credit = start;\n";
    text += "    }\n";
  }
  text += "    if (n >= COMPILED_NEEDS_PREFIX) {  // yield or prefix: nothing ran\n";
  text += "      result = n;\n      break;\n    }\n";
  text += "    if (r.status != STATUS_RUNNING || r.pc - " + base + " >= " + u32(run.count) + ") break;\n";
  text += "  }\n";
  text += "  compiled_sync(c, credit, start);\n";
  if (!spill_written.empty()) text += "  if (spill) {\n" + spill_written + "  }\n";
  // The block at r.pc has more records than fuel left: its prefix runs now (in a shader) or
  // on the host (the cpu device: COMPILED_NEEDS_PREFIX), with the frame spilled above.
  text += "  if (result == COMPILED_NEEDS_PREFIX) {\n";
  text += "    result = COMPILED_PREFIX(compiled_prefix_step, r, compiled_left(c), compiled_room(c));\n";
  text += "    if (result != COMPILED_NEEDS_PREFIX) {\n      compiled_count(c, result);\n      result = 0u;\n    }\n";
  text += "  }\n";
  text += "  io = r;\n  ic = c;\n  return result;\n}\n";
  return text;
}

}  // namespace

UnitSource generate_unit(const Program& program, const CompiledLayout& layout, std::uint32_t unit) {
  const Unit& blocks = layout.units.at(unit);
  UnitSource source;
  source.first_block = blocks.blocks.empty() ? 0U : blocks.blocks.front().id;
  source.block_count = static_cast<std::uint32_t>(blocks.blocks.size());
  source.text = "// compiled unit " + std::to_string(unit) + "\n";
  source.prefix_text = "// prefixes of compiled unit " + std::to_string(unit) + "\n";
  std::vector<bool> has_prefix;
  std::vector<Run> runs;
  // The runs first (consecutive blocks of one function), so that a full block knows which of
  // its successors it reaches by a direct jump: the full blocks of its own run.
  std::vector<std::uint32_t> run_of(source.block_count);
  std::vector<bool> resumable(source.block_count);
  for (std::uint32_t k = 0; k < source.block_count; ++k) {
    const CompiledBlock& block = blocks.blocks[k];
    // Ids are contiguous per unit, which makes the step below a dense switch.
    if (block.id != source.first_block + k) throw std::logic_error("compiler: unit block ids not contiguous");
    const bool extends = !runs.empty() && blocks.blocks[runs.back().first].function == block.function;
    if (!extends) runs.push_back(Run{k, 0, {}, {}, {}});
    ++runs.back().count;
    run_of[k] = static_cast<std::uint32_t>(runs.size() - 1);
    resumable[k] = is_resumable_block(program, block);
  }
  for (std::uint32_t k = 0; k < source.block_count; ++k) {
    const CompiledBlock& block = blocks.blocks[k];
    const DirectTarget direct = [&, k](std::uint32_t id) {
      if (id < source.first_block || id - source.first_block >= source.block_count) return false;
      const std::uint32_t at = id - source.first_block;
      return run_of[at] == run_of[k] && !resumable[at];
    };
    BlockSource generated = generate_block(program, block, direct);
    has_prefix.push_back(!generated.prefix.empty());
    source.prefix_text += generated.prefix;
    Run& run = runs[run_of[k]];
    if (generated.resumable) {
      source.text += generated.body;
      run.resumable_cases += "        case " + u32(k - run.first) +
                             ":\n          n = " + block_function_name(block.id) +
                             "(r, left, room);\n          break;\n";
    } else {
      for (const auto& [index, written] : generated.locals) run.locals[index] = run.locals[index] || written;
      run.cases += "      case " + u32(k - run.first) + ": COMPILED_LABEL(" + generated.label + ") {\n" +
                   generated.body + "      }\n";
    }
  }
  for (const Run& run : runs) source.text += run_function(run, source.first_block);
  source.prefix_text += "uint compiled_prefix_step(INOUT(Regs) r, uint left, uint room) {\n";
  source.prefix_text += "  uint n = 0u;\n";
  source.prefix_text += "  switch (r.pc - " + std::to_string(source.first_block) + "u) {\n";
  for (std::uint32_t k = 0; k < source.block_count; ++k) {
    if (!has_prefix[k]) continue;  // call and bulk blocks check their one record's fuel themselves
    source.prefix_text += "    case " + std::to_string(k) + "u: n = " + block_function_name(source.first_block + k) +
                          "_p(r, left, room); break;\n";
  }
  source.prefix_text += "    default: break;\n  }\n  return n;\n}\n";
  // The dispatch loop's step (compiled_run.glsl): the run that holds the block at r.pc, or
  // COMPILED_LEAVE for a block of another unit. Two switches (block to run, run to its call)
  // so each run is called once: shader compilers inline every call, and a call per block
  // would copy a run once per block it holds.
  source.text += "uint compiled_unit_step(INOUT(Regs) r, INOUT(CompiledCount) c) {\n";
  source.text += "  uint run = 0xFFFFFFFFu;\n";
  source.text += "  switch (r.pc - " + std::to_string(source.first_block) + "u) {\n";
  for (std::size_t index = 0; index < runs.size(); ++index) {
    for (std::uint32_t k = runs[index].first; k < runs[index].first + runs[index].count; ++k)
      source.text += "    case " + u32(k) + ":\n";
    source.text += "      run = " + u32(static_cast<std::uint32_t>(index)) + ";\n      break;\n";
  }
  source.text += "    default:\n      break;\n  }\n  switch (run) {\n";
  for (std::size_t index = 0; index < runs.size(); ++index) {
    source.text += "    case " + u32(static_cast<std::uint32_t>(index)) + ": return " +
                   run_function_name(source.first_block + runs[index].first) + "(r, c);\n";
  }
  source.text += "    default:\n      break;\n  }\n  return COMPILED_LEAVE;\n}\n";
  return source;
}

}  // namespace wavestack::wasm::compiler
