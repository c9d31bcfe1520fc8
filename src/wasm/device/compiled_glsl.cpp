#include "wasm/device/compiled_glsl.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "wasm/device/glsl/bulk_glsl.hpp"
#include "wasm/device/glsl/compiled_blocks_glsl.hpp"
#include "wasm/device/glsl/compiled_lane_group_hpp_glsl.hpp"
#include "wasm/device/glsl/compiled_outcome_vulkan_main_glsl.hpp"
#include "wasm/device/glsl/compiled_prefix_run_glsl.hpp"
#include "wasm/device/glsl/compiled_prefix_vulkan_main_glsl.hpp"
#include "wasm/device/glsl/compiled_run_glsl.hpp"
#include "wasm/device/glsl/compiled_transfers_vulkan_glsl.hpp"
#include "wasm/device/glsl/frames_glsl.hpp"
#include "wasm/device/glsl/host_f64_variables_hpp_glsl.hpp"
#include "wasm/device/glsl/host_ieee_hpp_glsl.hpp"
#include "wasm/device/glsl/host_ieee_rename_hpp_glsl.hpp"
#include "wasm/device/glsl/host_ieee_restore_hpp_glsl.hpp"
#include "wasm/device/glsl/instance_memory_glsl.hpp"
#include "wasm/device/glsl/instance_tables_glsl.hpp"
#include "wasm/device/glsl/interpreter_layout_glsl.hpp"
#include "wasm/device/glsl/interpreter_vulkan_bindings_glsl.hpp"
#include "wasm/device/glsl/interpreter_vulkan_main_glsl.hpp"
#include "wasm/device/glsl/interpreter_vulkan_outcome_glsl.hpp"
#include "wasm/device/glsl/jit_std_subset_hpp_glsl.hpp"
#include "wasm/device/glsl/prelude_glsl.hpp"
#include "wasm/device/glsl/prelude_hpp_glsl.hpp"
#include "wasm/device/glsl/wasi_accessors_glsl.hpp"
#include "wasm/device/glsl/wasi_layout_glsl.hpp"
#include "wasm/device/numerics_glsl.hpp"

namespace wavestack::wasm::device {
namespace {

void append(std::string& source, std::initializer_list<std::string_view> parts) {
  for (const std::string_view part : parts) {
    source += part;
    source += '\n';
  }
}

// What both devices compile around the unit after the numerics: memory, tables, frames, bulk
// operations and the compiled-block helpers.
void append_runtime(std::string& source) {
  append(source, {glsl::instance_memory, glsl::instance_tables, glsl::frames, glsl::bulk, glsl::compiled_blocks});
}

// The numeric functions for the cpu device, with the host IEEE fast path exactly as
// numerics.hpp builds it for the interpreter (the same selection, renaming and file order).
void append_cpu_numerics(std::string& source) {
  source +=
      "#if !defined(WAVESTACK_SOFT_FLOAT) && ((defined(__x86_64__) && defined(__SSE2__)) || defined(__aarch64__))\n"
      "#define WASM_HOST_IEEE 1\n#endif\n";
  append(source, {numerics_glsl_file("traps.glsl"), numerics_glsl_file("u64.glsl"), numerics_glsl_file("i32.glsl"),
                  numerics_glsl_file("i64.glsl")});
  append(source, {"#if defined(WASM_HOST_IEEE)", glsl::host_ieee_rename_hpp, "#endif"});
  append(source, {numerics_glsl_file("f32.glsl"), numerics_glsl_file("f64.glsl"), numerics_glsl_file("convert.glsl")});
  append(source, {"#if defined(WASM_HOST_IEEE)", glsl::host_ieee_restore_hpp, glsl::host_ieee_hpp, "#endif"});
}

// A header's text without its include guard (it is pasted into a main file here).
std::string without_include_guard(std::string_view header) {
  std::string text(header);
  const std::string guard = "#pragma once\n";
  if (const auto at = text.find(guard); at != std::string::npos) text.erase(at, guard.size());
  return text;
}

}  // namespace

namespace {

// What a Vulkan shader of compiled mode holds before its generated text: the layouts,
// bindings, accessors, the numerics and the runtime.
std::string shader_preamble() {
  std::string source = "#version 450\n";
  append(source, {glsl::prelude, glsl::interpreter_layout, glsl::wasi_layout, glsl::interpreter_vulkan_bindings,
                  glsl::wasi_accessors});
  source += numeric_functions_glsl();
  append_runtime(source);
  return source;
}

}  // namespace

namespace {

// Which of the deferred transfers (compiled_transfers_vulkan.glsl) a shader holds, and whether
// it makes the host's call (compiled_run.glsl's COMPILED_HOST_ENTRY).
struct ShaderTransfers {
  bool returns = false;
  bool calls = false;
  bool calls_indirect = false;
  bool host_entry = false;
};

// A run loop's shader around `unit_text` (its compiled_unit_step): the unit's calls and
// returns run in the run loop (see compiled_transfers_vulkan.glsl), and its prefixes are a
// shader of their own: both keep the shader small enough to compile fast.
std::string run_shader_source(std::string_view unit_text, const ShaderTransfers& transfers) {
  std::string source = shader_preamble();
  const auto flag = [&](const char* name, bool on) {
    source += std::string("#define ") + name + (on ? " 1\n" : " 0\n");
  };
  flag("UNIT_RETURNS", transfers.returns);
  flag("UNIT_CALLS", transfers.calls);
  flag("UNIT_CALLS_INDIRECT", transfers.calls_indirect);
  flag("COMPILED_HOST_ENTRY", transfers.host_entry);
  // Only the shader of the host's call starts calls, and the step's outcome shader writes the
  // outcome (interpreter_vulkan_main.glsl).
  flag("RUN_BEGINS_CALLS", transfers.host_entry);
  flag("RUN_OUTCOME_BY_STEP", true);
  append(source, {glsl::compiled_transfers_vulkan, "#define COMPILED_PREFIX(f, r, left, room) COMPILED_NEEDS_PREFIX",
                  unit_text, "#undef frame_call", "#undef frame_call_defined", "#undef frame_call_indirect",
                  "#undef frame_return", "#define COMPILED_AFTER_BLOCK(r) compiled_transfer(r)", glsl::compiled_run,
                  glsl::interpreter_vulkan_outcome, "#define RUN_LOOP compiled_run", glsl::interpreter_vulkan_main});
  return source;
}

}  // namespace

std::string compiled_shader_source(std::string_view unit_text) {
  // Only the transfers the unit's blocks can ask for.
  const auto uses = [&](std::string_view call) { return unit_text.find(call) != std::string_view::npos; };
  ShaderTransfers transfers;
  transfers.returns = uses("frame_return(");
  transfers.calls = uses("frame_call(") || uses("frame_call_defined(");
  transfers.calls_indirect = uses("frame_call_indirect(");
  return run_shader_source(unit_text, transfers);
}

std::string compiled_entry_shader_source() {
  ShaderTransfers transfers;
  transfers.calls = true;
  transfers.host_entry = true;
  // A unit of no blocks: every id but ENTRY is another unit's.
  return run_shader_source("uint compiled_unit_step(INOUT(Regs) r, INOUT(CompiledCount) c) { return COMPILED_LEAVE; }",
                           transfers);
}

std::string compiled_outcome_shader_source() {
  std::string source = shader_preamble();
  append(source, {glsl::interpreter_vulkan_outcome, glsl::compiled_outcome_vulkan_main});
  return source;
}

std::string compiled_prefix_shader_source(std::string_view prefix_text, std::uint32_t first_block,
                                          std::uint32_t blocks) {
  std::string source = shader_preamble();
  source += "const uint PREFIX_FIRST_BLOCK = ";
  source += std::to_string(first_block);
  source += "u;\nconst uint PREFIX_BLOCKS = ";
  source += std::to_string(blocks);
  source += "u;\n";
  append(source,
         {prefix_text, glsl::compiled_prefix_run, glsl::interpreter_vulkan_outcome, glsl::compiled_prefix_vulkan_main});
  return source;
}

namespace {

// The start of the base of the class that holds a unit's code on the cpu device: one
// instance's buffers as members, so that generated code reaches them through `this` in a
// register. (As thread-local variables of a dlopen'd library every access cost a
// __tls_get_addr call; initial-exec TLS would need static TLS space for every loaded unit,
// hundreds for a large module.) The runtime follows as members of the same base,
// `UnitRuntime`; a unit's own code is in `UnitContext`, derived from it, so that the part
// every unit shares can be compiled once (src/jit precompiles it).
constexpr const char* kUnitContextBegin = R"(
// No loop budget (no watchdog on the host; compiled_blocks.glsl), and direct jumps between
// the full blocks of a run: each block's checks are at its label.
#define COMPILED_OVER_BUDGET(w) false
#define COMPILED_CHARGE(w) ((void)0)
#define COMPILED_GOTO(label) goto label
#define COMPILED_LABEL(label) label:
#define COMPILED_DIRECT_JUMPS 1
#define COMPILED_TRAP(code, records_back) { trap_code = (code); trap_records_back = (records_back); goto run_trap; }
#define COMPILED_SHORT(records, work) { short_records = (records); short_work = (work); goto run_short; }


struct UnitRuntime {
  const uint* unit_program;
  uint* unit_state;
  uint* unit_memory;
  // The value stack (the state from word H_STACK), addressed directly: through st_get the
  // stack's offset would be read from the program on every access, since the compiler cannot
  // tell that stores to the state never change the program.
  uint* unit_stack;

  WASM_LEAF uint prog(uint i) { return unit_program[i]; }
  WASM_LEAF uint st_get(uint i) { return unit_state[i]; }
  WASM_LEAF void st_set(uint i, uint v) { unit_state[i] = v; }
  WASM_LEAF uint mem_get(uint i) { return unit_memory[i]; }
  WASM_LEAF void mem_set(uint i, uint v) { unit_memory[i] = v; }

#define WASM_HOST_SLOTS 1
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  // A slot as one 64-bit access: a slot written as two words and read back as one (the SLP
  // vectorizer joins the words of a uvec2) would stall store-to-load forwarding.
  // (Copied as a whole, not word by word: an f64 then stays in a floating-point register.)
  // The slot index is widened before it is doubled (a slot is below 2^31, since the state's
  // words are counted in a uint), so the access is one addressing mode (base + slot * 8)
  // instead of a 32-bit doubling first (about 15 x86 instructions per WebAssembly call).
  WASM_LEAF uvec2 slot_get(uint slot) {
    uvec2 v;
    std::memcpy(&v, unit_stack + 2 * std::size_t{slot}, 8);
    return v;
  }
  WASM_LEAF void slot_set(uint slot, uvec2 v) { std::memcpy(unit_stack + 2 * std::size_t{slot}, &v, 8); }
#else
  WASM_LEAF uvec2 slot_get(uint slot) { return uvec2(unit_stack[2u * slot], unit_stack[2u * slot + 1u]); }
  WASM_LEAF void slot_set(uint slot, uvec2 v) {
    unit_stack[2u * slot] = v.x;
    unit_stack[2u * slot + 1u] = v.y;
  }
#endif

// Loads and stores of linear memory as single host accesses on a little-endian host (wasm's
// byte order; the word-based versions of instance_memory.glsl assemble bytes with masks).
// The caller has checked the bounds, exactly as for those.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WASM_HOST_MEMORY 1
  WASM_LEAF uvec2 memory_read(uint ea, uint n) { return memory_read_from(reinterpret_cast<unsigned char*>(unit_memory), ea, n); }
  WASM_LEAF void memory_write(uint ea, uint n, uvec2 v) {
    memory_write_to(reinterpret_cast<unsigned char*>(unit_memory), ea, n, v);
  }

  // The same over a base the caller holds: the generated functions keep the memory's base and
  // size in locals (COMPILED_MEMORY_LOCALS below). Read through the context, both were loaded
  // again after every store to memory, which the compiler must assume may change the context.
  // (The base never moves on the cpu device: the reservation is mapped once.)
  WASM_LEAF static uvec2 memory_read_from(const unsigned char* memory, uint ea, uint n) {
    const unsigned char* at = memory + ea;
    if (n == 8u) {
      uvec2 v;
      std::memcpy(&v, at, 8);
      return v;
    }
    if (n == 4u) {
      uint v = 0;
      std::memcpy(&v, at, 4);
      return uvec2(v, 0u);
    }
    if (n == 2u) {
      std::uint16_t v = 0;
      std::memcpy(&v, at, 2);
      return uvec2(v, 0u);
    }
    return uvec2(at[0], 0u);
  }

  WASM_LEAF static void memory_write_to(unsigned char* memory, uint ea, uint n, uvec2 v) {
    unsigned char* at = memory + ea;
    if (n == 8u) {
      std::memcpy(at, &v, 8);
    } else if (n == 4u) {
      std::memcpy(at, &v.x, 4);
    } else if (n == 2u) {
      const auto low = static_cast<std::uint16_t>(v.x);
      std::memcpy(at, &low, 2);
    } else {
      at[0] = static_cast<unsigned char>(v.x);
    }
  }

  // addr + offset .. + n inside a memory of `bytes` (memory_range_ok's answer: no sum can wrap
  // in 64 bits, and a memory32 holds at most 65,535 pages), the effective address in ea.
  WASM_LEAF static bool memory_range_in(uint address, uint offset, uint n, std::uint64_t bytes, uint& ea) {
    ea = address + offset;
    return std::uint64_t{address} + offset + n <= bytes;
  }
#define COMPILED_MEMORY_LOCALS                                                             \
  unsigned char* const run_memory = reinterpret_cast<unsigned char*>(unit_memory);         \
  std::uint64_t run_memory_bytes = std::uint64_t{unit_state[S_PAGES]} * 65536u;            \
  static_cast<void>(run_memory);                                                           \
  static_cast<void>(run_memory_bytes)
#define COMPILED_MEMORY_REFRESH run_memory_bytes = std::uint64_t{unit_state[S_PAGES]} * 65536u
#define COMPILED_RANGE_OK(address, offset, n, ea) memory_range_in(address, offset, n, run_memory_bytes, ea)
#define COMPILED_LOAD(ea, n) memory_read_from(run_memory, ea, n)
#define COMPILED_STORE(ea, n, v) memory_write_to(run_memory, ea, n, v)
#endif

)";

// Device code as members of UnitContext: a file-scope `const uint NAME = ...;` of the subset
// becomes a static constant (as a member it would be per-object data).
std::string as_members(std::string text) {
  const std::string from = "\nconst ";
  const std::string to = "\nstatic constexpr ";
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Every line of `text` but its #include <...> lines (the freestanding preamble gets those
// names from jit_std_subset.hpp instead).
std::string without_system_includes(std::string_view text) {
  std::string kept;
  kept.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(at, end - at);
    if (line.rfind("#include <", 0) != 0) kept += line;
    at = end;
  }
  return kept;
}

// The preamble's text after its headers: prelude, layout and numerics at namespace scope, then
// UnitRuntime with the buffers and the runtime, closed; the namespace `inner` opens (an
// anonymous one, or a named inline one whose names units still find unqualified) ends with it.
std::string preamble_after_headers(std::string_view inner = "namespace") {
  std::string source = without_include_guard(glsl::prelude_hpp);
  source += "\nnamespace wavestack::wasm::device {\n";
  source += inner;
  source += " {\n\n";
  append(source, {glsl::interpreter_layout});
  append_cpu_numerics(source);
  append(source, {without_include_guard(glsl::host_f64_variables_hpp)});
  source += kUnitContextBegin;
  std::string members = "\n";
  append_runtime(members);
  source += as_members(members);
  source += "\n};\n\n}  // namespace\n}  // namespace wavestack::wasm::device\n";
  return source;
}

// A unit's code after the preamble: UnitContext, derived from UnitRuntime, holding `body`;
// `entry` (extern "C", which makes a UnitContext for the call) follows the namespace.
std::string unit_after_preamble(std::string_view body, std::string_view entry) {
  std::string source = "\nnamespace wavestack::wasm::device {\nnamespace {\n\nstruct UnitContext : UnitRuntime {\n";
  std::string members = "\n";  // (as_members finds a const at a line's start)
  members += body;
  source += as_members(std::move(members));
  source += "\n};\n\n}  // namespace\n}  // namespace wavestack::wasm::device\n";
  source += entry;
  return source;
}

constexpr const char* kUnitEntry = R"(
extern "C" __attribute__((visibility("default"))) std::uint32_t wasmgpu_unit_run(
    const std::uint32_t* program, std::uint32_t* state, std::uint32_t* memory, std::uint32_t quantum,
    std::uint32_t budget) {
  namespace device = wavestack::wasm::device;
  device::UnitContext unit{{program, state, memory, state + program[device::H_STACK]}};
  return unit.compiled_run(quantum, budget);
}
)";

constexpr const char* kGroupEntry = R"(
extern "C" __attribute__((visibility("default"))) std::uint32_t wasmgpu_unit_run_group(
    const std::uint32_t* program, std::uint32_t* const* states, std::uint32_t* const* memories,
    std::uint32_t quantum, std::uint32_t budget, std::uint32_t* statuses) {
  namespace device = wavestack::wasm::device;
  device::UnitContext units[COMPILED_LANES];
  device::UnitContext* lanes[COMPILED_LANES];
  for (std::uint32_t k = 0; k < COMPILED_LANES; ++k) {
    units[k] = device::UnitContext{{program, states[k], memories[k], states[k] + program[device::H_STACK]}};
    lanes[k] = &units[k];
  }
  return units[0].compiled_run_group(lanes, quantum, budget, statuses);
}
)";

constexpr const char* kPrefixEntry = R"(
extern "C" __attribute__((visibility("default"))) std::uint32_t wasmgpu_unit_prefix(
    const std::uint32_t* program, std::uint32_t* state, std::uint32_t* memory) {
  namespace device = wavestack::wasm::device;
  device::UnitContext unit{{program, state, memory, state + program[device::H_STACK]}};
  return unit.compiled_run_prefix();
}
)";

}  // namespace

const std::string& compiled_cpu_preamble(CpuPreamble kind) {
  static const std::string host =
      "// The shared part of wasmgpu's cpu units (generated; see src/wasm/compiler).\n"
      "#include <concepts>\n#include <cstring>\n" +
      preamble_after_headers();
  static const std::string in_process =
      without_include_guard(glsl::jit_std_subset_hpp) + without_system_includes(preamble_after_headers());
  static const std::string in_process_shared =
      without_include_guard(glsl::jit_std_subset_hpp) +
      without_system_includes(preamble_after_headers("inline namespace unit_runtime"));
  switch (kind) {
    case CpuPreamble::kHostCompiler:
      return host;
    case CpuPreamble::kInProcess:
      return in_process;
    case CpuPreamble::kInProcessShared:
      break;
  }
  return in_process_shared;
}

std::string compiled_cpu_unit_text(std::string_view unit_text, std::optional<std::string_view> lane_group_text) {
  std::string body = "#define COMPILED_PREFIX(f, r, left, room) COMPILED_NEEDS_PREFIX\n";
  append(body, {unit_text, glsl::compiled_run});
  if (!lane_group_text) return unit_after_preamble(body, kUnitEntry);
  append(body, {*lane_group_text, glsl::compiled_lane_group_hpp});
  return unit_after_preamble(body, std::string(kUnitEntry) + kGroupEntry);
}

std::string compiled_cpu_prefix_text(std::string_view prefix_text) {
  std::string body;
  append(body, {prefix_text, glsl::compiled_prefix_run});
  return unit_after_preamble(body, kPrefixEntry);
}

std::string compiled_cpu_source(std::string_view unit_text, std::string_view lane_group_text) {
  return compiled_cpu_preamble(CpuPreamble::kHostCompiler) + compiled_cpu_unit_text(unit_text, lane_group_text);
}

std::string compiled_cpu_prefix_source(std::string_view prefix_text) {
  return compiled_cpu_preamble(CpuPreamble::kHostCompiler) + compiled_cpu_prefix_text(prefix_text);
}

}  // namespace wavestack::wasm::device
