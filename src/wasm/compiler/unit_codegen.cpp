#include "wasm/compiler/unit_codegen.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "wasm/compiler/block_codegen.hpp"
#include "wasm/compiler/source_text.hpp"

namespace wavestack::wasm::compiler {
namespace {

std::string local_name(std::uint32_t index) {
  return numbered("l", index);
}

// Calls spill the run's written locals at their own site while there are at most this many
// (the common case, and the fast one); beyond, at one shared site, so that a unit's text stays
// within its size bound whatever its functions' local counts.
constexpr std::size_t kMaxInlineSpills = 12;

// A call or bulk block of a run (a function b<ID> of its own, block_codegen.cpp).
struct ResumableBlock {
  std::uint32_t index = 0;  // its case in the run's switch
  std::uint32_t id = 0;
  BlockSource source;
  bool recursion = false;  // a call of the run's own function, whose entry is in the run
};

// A run: the consecutive blocks of one function in a unit, generated as one function that
// keeps the function's locals in variables and passes control from block to block itself.
struct Run {
  std::uint32_t first = 0;  // index in the unit of its first block
  std::uint32_t count = 0;
  std::uint32_t function = 0;            // defined function index
  std::map<std::uint32_t, bool> locals;  // read or written by its blocks: true where written
  std::string cases;                     // the full blocks' cases
  std::vector<ResumableBlock> resumables;
  std::vector<std::uint32_t> return_sites;  // ids of its blocks that follow one of its calls
  std::optional<std::uint32_t> entry;       // its function's entry block, when in the run
};

std::string run_function_name(std::uint32_t first_block) {
  return numbered("run", first_block);
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

std::string indented(const std::string& lines, const char* indent) {
  std::string out;
  for (std::size_t at = 0; at < lines.size();) {
    const std::size_t end = lines.find('\n', at);
    out += indent;
    out.append(lines, at, end - at + 1);
    at = end + 1;
  }
  return out;
}

// A call or bulk block that is not its run's first to run: the count catches up and b<ID>
// decides (a continuation, the credit or the budget short), then the credit starts again.
std::string resumable_slow_path(const ResumableBlock& block) {
  std::string text = "compiled_sync(c, credit, start);\n";
  text += "n = " + block_function_name(block.id) + "(r, compiled_left(c), compiled_block_room(c));\n";
  text += "if (n < COMPILED_NEEDS_PREFIX) {\n  compiled_count(c, n);\n  n = 0u;\n}\n";
  text += "start = compiled_credit(c);\ncredit = start;\n";
  return text;
}

// Its shared code: a call that fits the credit runs inline (the common case), anything else
// through the slow path. A call of the run's own function continues at its entry directly.
std::string resumable_run(const ResumableBlock& block) {
  std::string text;
  if (block.source.is_call) {
    const std::string work = u32(block.source.work);
    text += "if (r.cont == 0u && credit >= 1u && !COMPILED_OVER_BUDGET(" + work + ")) {\n";
    text += "  credit -= 1u;\n  COMPILED_CHARGE(" + work + ");\n";
    text += "  r.pc = " + u32(block.id + 1U) + ";\n";
    text += "  " + block.source.statement + "\n";
    text += "} else {\n" + indented(resumable_slow_path(block), "  ") + "}\n";
  } else {
    text += resumable_slow_path(block);
  }
  if (block.recursion) {
    text += "#if COMPILED_DIRECT_JUMPS\n";
    text += "if (n == 0u && r.status == STATUS_RUNNING) COMPILED_GOTO(run_entered);\n";
    text += "#endif\n";
  }
  return text;
}

// The run's function: block after block while control stays among its blocks, the call keeps
// running and the quantum, fuel and budget last. Blocks take their records from one
// down-counter, `credit` (compiled_blocks.glsl), and jump to each other directly where the
// language has goto (COMPILED_GOTO); the count `c` catches up (compiled_sync) when a block does
// not fit, around a call or bulk block that does not, and at the end. The locals are loaded
// from the current frame before the first block and again after a call or return that lands
// in the run (a block of this function, so a frame of it: recursion stays here); `spill` says
// the variables hold the current frame's locals. Whenever the function returns, the frame in
// memory is the interpreter's: the written locals are spilled first, unless the frame changed
// since they were loaded (then they already were: a call or bulk block spills them before it
// runs, and a return leaves the frame). The loop is bounded: every block takes at least one
// record of the credit or counts one, and a block that finds none yields.
//
// With direct jumps (C++), two shared sections after the switch's cases continue without it:
// `run_entered` after a recursive call (the callee's entry with its frame's locals) and
// `run_returned` after a return (a return site of the run with the caller's locals).
std::string run_function(const Program& program, const Run& run, std::uint32_t first_id) {
  const std::string base = u32(first_id + run.first);
  std::string spill_written;
  // (A call that returns into the run may have grown the memory: its size is read again too.)
  std::string reload = "COMPILED_MEMORY_REFRESH;\n";
  // At the entry of a fresh frame its declared locals (after the parameters) are zero, or null
  // for references: the call has just set them (frame_call_defined), so `run_entered` states
  // them instead of reading them back.
  std::string reload_entered = "COMPILED_MEMORY_REFRESH;\n";
  std::size_t written_count = 0;
  const std::uint32_t params = program.functions.at(run.function).param_count;
  for (const auto& [index, written] : run.locals) {
    if (written) {
      spill_written += "slot_set(r.fp + " + u32(index) + ", " + local_name(index) + ");\n";
      ++written_count;
    }
    const std::string slot = "slot_get(r.fp + " + u32(index) + ")";
    const std::string load = local_name(index) + " = " +
                             (local_is_32_bit(program, run.function, index) ? "uvec2(" + slot + ".x, 0u)" : slot) +
                             ";\n";
    reload += load;
    const char* initial = local_is_reference(program, run.function, index) ? "NULL_REF" : "0u";
    reload_entered += index < params ? load : local_name(index) + " = uvec2(" + initial + ", 0u);\n";
  }
  const bool inline_spills = written_count <= kMaxInlineSpills;
  std::string cases = run.cases;
  // Call and bulk blocks: their own code at each site, or (many locals to spill) the shared
  // site after the switch, which the case selects with n = COMPILED_RESUMABLE.
  std::string shared;
  for (const ResumableBlock& block : run.resumables) {
    cases += "      case " + u32(block.index) + ": COMPILED_LABEL(" + block_label(block.id) + ") {\n";
    if (inline_spills) {
      cases += indented(spill_written, "        ") + "        spill = false;\n";
      cases += indented(resumable_run(block), "        ");
    } else {
      cases += "        n = COMPILED_RESUMABLE;\n";
      shared += "        case " + u32(block.index) + ": {\n" + indented(resumable_run(block), "          ") +
                "          break;\n        }\n";
    }
    cases += "        break;\n      }\n";
  }
  // The shared exits of its full blocks (COMPILED_TRAP, COMPILED_SHORT: compiled_blocks.glsl),
  // where they jump (C++). A block that did not fit runs again from its case once
  // compiled_short lets it (its credit is then enough): r.pc is the block's id at its label.
  const bool traps = cases.find("COMPILED_TRAP(") != std::string::npos;
  const bool shorts = cases.find("COMPILED_SHORT(") != std::string::npos;
  if (traps || shorts) {
    cases += "#if COMPILED_DIRECT_JUMPS\n";
    if (traps) {
      cases += "      run_trap:\n        frame_trap(r, trap_code);\n        credit += trap_records_back;\n";
      cases += "        break;\n";
    }
    if (shorts) {
      cases += "      run_short:\n        n = compiled_short(r, c, credit, start, short_records, short_work);\n";
      cases += "        if (n != 0u) break;\n        continue;\n";
    }
    cases += "#endif\n";
  }
  if (!run.return_sites.empty() || run.entry) {
    cases += "#if COMPILED_DIRECT_JUMPS\n";
    if (run.entry) {
      cases += "      run_entered:\n";
      cases += "        if (r.pc == " + u32(*run.entry) + ") {\n" + indented(reload_entered, "          ") +
               "          spill = true;\n          COMPILED_GOTO(" + block_label(*run.entry) + ");\n        }\n";
      cases += "        break;\n";
    }
    if (!run.return_sites.empty()) {
      cases += "      run_returned:\n        switch (r.pc) {\n";
      for (const std::uint32_t site : run.return_sites) cases += "          case " + u32(site) + ":\n";
      cases += indented(reload, "            ") + "            spill = true;\n            switch (r.pc) {\n";
      for (const std::uint32_t site : run.return_sites) {
        cases += "              case " + u32(site) + ": COMPILED_GOTO(" + block_label(site) + ");\n";
      }
      cases += "              default:\n                break;\n            }\n            break;\n";
      cases += "          default:\n            break;\n        }\n        break;\n";
    }
    cases += "#endif\n";
  }
  replace_all(
      cases, std::string(kReturnSitesMarker) + "\n",
      run.return_sites.empty()
          ? ""
          : "#if COMPILED_DIRECT_JUMPS\n    if (r.status == STATUS_RUNNING) COMPILED_GOTO(run_returned);\n#endif\n");
  std::string text =
      "uint " + run_function_name(first_id + run.first) + "(INOUT(Regs) io, INOUT(CompiledCount) ic) {\n";
  // Private copies (the compiler may keep them in registers: they alias no buffer).
  text += "  Regs r = io;\n  CompiledCount c = ic;\n  COMPILED_MEMORY_LOCALS;\n";
  for (const auto& [index, written] : run.locals) {
    const char* type = local_is_f64(program, run.function, index) ? "F64_VARIABLE" : "uvec2";
    text += std::string("  ") + type + " " + local_name(index) + " = " + type + "(uvec2(0u, 0u));\n";
  }
  text += "  uint start = compiled_credit(c);\n  uint credit = start;\n";
  text += "  bool spill = false;\n  uint result = 0u;\n";
  if (traps || shorts) {
    text += "#if COMPILED_DIRECT_JUMPS\n";
    if (traps) text += "  uint trap_code = 0u;\n  uint trap_records_back = 0u;\n";
    if (shorts) text += "  uint short_records = 0u;\n  uint short_work = 0u;\n";
    text += "#endif\n";
  }
  text += "  while (true) {\n";
  text += "    if (!spill) {\n" + indented(reload, "      ") + "      spill = true;\n    }\n";
  text += "    uint n = 0u;\n";
  text += "    switch (r.pc - " + base + ") {\n";
  text += cases;
  text += "      default:\n        break;\n    }\n";
  if (!shared.empty()) {
    text += "    if (n == COMPILED_RESUMABLE) {\n" + indented(spill_written, "      ") + "      spill = false;\n";
    text += "      n = 0u;\n      switch (r.pc - " + base + ") {\n" + shared +
            "        default:\n          break;\n      }\n";
    text += "    }\n";
  }
  text += "    if (n >= COMPILED_NEEDS_PREFIX) {  // yield or prefix: nothing ran\n";
  text += "      result = n;\n      break;\n    }\n";
  text += "    if (r.status != STATUS_RUNNING || r.pc - " + base + " >= " + u32(run.count) + ") break;\n";
  text += "  }\n";
  text += "  compiled_sync(c, credit, start);\n";
  if (!spill_written.empty()) text += "  if (spill) {\n" + indented(spill_written, "    ") + "  }\n";
  // The block at r.pc has more records than fuel left: its prefix runs now (in a shader) or
  // on the host (the cpu device: COMPILED_NEEDS_PREFIX), with the frame spilled above.
  text += "  if (result == COMPILED_NEEDS_PREFIX) {\n";
  text += "    result = COMPILED_PREFIX(compiled_prefix_step, r, compiled_left(c), compiled_room(c));\n";
  text += "    if (result != COMPILED_NEEDS_PREFIX) {\n      compiled_count(c, result);\n      result = 0u;\n    }\n";
  text += "  }\n";
  text += "  io = r;\n  ic = c;\n  return result;\n}\n";
  return text;
}

// The step's search for the run of block `at` among runs [low, high) (unit_codegen's step).
std::string run_search(const std::vector<Run>& runs, std::size_t low, std::size_t high, std::uint32_t first_id,
                       const std::string& indent) {
  if (high - low == 1) return indent + "result = " + run_function_name(first_id + runs[low].first) + "(r, c);\n";
  const std::size_t middle = low + (high - low) / 2;
  return indent + "if (at < " + u32(runs[middle].first) + ") {\n" +
         run_search(runs, low, middle, first_id, indent + "  ") + indent + "} else {\n" +
         run_search(runs, middle, high, first_id, indent + "  ") + indent + "}\n";
}

// The host's call of a function whose entry block is in this unit, where runs jump directly
// (C++: the cpu device): its frame is made with the callee's table facts as constants, as a
// call block's is (frame_call_defined), instead of through the function table, and
// compiled_run.glsl then runs the entry block in the same turn of its loop. On Vulkan the
// host's call is a shader of its own (compiled_glsl.hpp's compiled_entry_shader_source), so a
// unit's shader leaves this out. False for a function of another unit or an import: the
// generic call.
std::string unit_entry(const Program& program, const CompiledLayout& layout, std::uint32_t first_block,
                       std::uint32_t block_count) {
  const std::size_t imported = program.function_type_ids.size() - program.functions.size();
  std::string cases;
  for (std::size_t defined = 0; defined < layout.function_entries.size(); ++defined) {
    const std::uint32_t entry = layout.function_entries[defined];
    if (entry < first_block || entry - first_block >= block_count) continue;
    const FunctionRecord& function = program.functions.at(defined);
    const std::string index = u32(static_cast<std::uint32_t>(imported + defined));
    cases += "    case " + index + ": COMPILED_HOST_CALL_DEFINED(r, " + index + ", " + u32(function.param_count) +
             ", " + u32(function.local_count) + ", " + u32(function.max_stack) + ", " + u32(entry) +
             "); return true;\n";
  }
  std::string text = "#if COMPILED_DIRECT_JUMPS\n#define COMPILED_UNIT_ENTRY 1\n";
  text += "bool compiled_unit_entry(INOUT(Regs) r) {\n  switch (r.cont_func) {\n" + cases;
  text += "    default:\n      return false;\n  }\n}\n#endif\n";
  return text;
}

}  // namespace

std::size_t resumable_site_bytes(std::uint32_t locals) {
  // "slot_set(r.fp + NNNNNu, lNNNNN);" indented, per local spilled at the site.
  constexpr std::size_t kSpillLineBytes = 36;
  return std::min<std::size_t>(locals, kMaxInlineSpills) * kSpillLineBytes;
}

UnitSource generate_unit(const Program& program, const CompiledLayout& layout, std::uint32_t unit) {
  return generate_unit_blocks(program, layout, layout.units.at(unit), "compiled unit " + std::to_string(unit));
}

UnitSource generate_unit_blocks(const Program& program, const CompiledLayout& layout, const Unit& blocks,
                                const std::string& name) {
  UnitSource source;
  source.first_block = blocks.blocks.empty() ? 0U : blocks.blocks.front().id;
  source.block_count = static_cast<std::uint32_t>(blocks.blocks.size());
  source.text = "// " + name + "\n";
  source.prefix_text = "// prefixes of " + name + "\n";
  std::vector<bool> has_prefix;
  std::vector<Run> runs;
  // The runs first (consecutive blocks of one function), so that a block knows which of its
  // successors it reaches by a direct jump: the blocks of its own run.
  std::vector<std::uint32_t> run_of(source.block_count);
  for (std::uint32_t k = 0; k < source.block_count; ++k) {
    const CompiledBlock& block = blocks.blocks[k];
    // Ids are contiguous per unit: the runs tile them, which the step's search below relies on.
    if (block.id != source.first_block + k) throw std::logic_error("compiler: unit block ids not contiguous");
    const bool extends = !runs.empty() && blocks.blocks[runs.back().first].function == block.function;
    if (!extends) runs.push_back(Run{k, 0, block.function, {}, {}, {}, {}, {}});
    ++runs.back().count;
    run_of[k] = static_cast<std::uint32_t>(runs.size() - 1);
  }
  const std::size_t imported = program.function_type_ids.size() - program.functions.size();
  for (std::uint32_t k = 0; k < source.block_count; ++k) {
    const CompiledBlock& block = blocks.blocks[k];
    Run& run = runs[run_of[k]];
    const auto in_run = [&](std::uint32_t id) {
      return id >= source.first_block + run.first && id - (source.first_block + run.first) < run.count;
    };
    BlockSource generated = generate_block(program, block, in_run, layout.function_entries);
    has_prefix.push_back(!generated.prefix.empty());
    source.prefix_text += generated.prefix;
    if (generated.resumable) {
      source.text += generated.body;
      ResumableBlock resumable{k - run.first, block.id, generated, false};
      if (generated.callee && *generated.callee >= imported) {
        const std::uint32_t callee = *generated.callee - static_cast<std::uint32_t>(imported);
        const std::uint32_t entry = layout.function_entries.at(callee);
        if (callee == block.function && in_run(entry)) {
          resumable.recursion = true;
          run.entry = entry;
        }
      }
      if (generated.is_call && in_run(block.id + 1U)) run.return_sites.push_back(block.id + 1U);
      run.resumables.push_back(std::move(resumable));
    } else {
      for (const auto& [index, written] : generated.locals) run.locals[index] = run.locals[index] || written;
      run.cases += "      case " + u32(k - run.first) + ": COMPILED_LABEL(" + generated.label + ") {\n" +
                   generated.body + "      }\n";
    }
  }
  for (const Run& run : runs) source.text += run_function(program, run, source.first_block);
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
  // COMPILED_LEAVE for a block of another unit. A binary search over the runs' first blocks
  // (they tile the unit's ids) calls each run once: shader compilers inline every call, and a
  // call per block would copy a run once per block it holds. (Not a switch from block to run
  // then one from run to call: lavapipe (Mesa 22.3, LLVM 15) selected the wrong run for the
  // low block ids of a unit of 87 runs that way.)
  source.text += "uint compiled_unit_step(INOUT(Regs) r, INOUT(CompiledCount) c) {\n";
  source.text += "  uint at = r.pc - " + u32(source.first_block) + ";\n";
  source.text += "  uint result = COMPILED_LEAVE;\n";
  if (!runs.empty()) {
    source.text += "  if (at < " + u32(source.block_count) + ") {\n";
    source.text += run_search(runs, 0, runs.size(), source.first_block, "    ");
    source.text += "  }\n";
  }
  source.text += "  return result;\n}\n";
  source.text += unit_entry(program, layout, source.first_block, source.block_count);
  return source;
}

}  // namespace wavestack::wasm::compiler
