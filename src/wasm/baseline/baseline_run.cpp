#include "wasm/baseline/baseline_run.hpp"

#include <cstddef>
#include <cstring>

#include "wasm/baseline/baseline_helpers.hpp"
#include "wasm/device/interpreter_layout.hpp"
#include "wasm/device/numerics.hpp"
#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm::device {
namespace {

using baseline::BaselineBlock;
using baseline::BlockEnd;
using baseline::BlockEnv;

// One instance's buffers and the device library's runtime over them, as a generated unit's
// UnitRuntime (compiled_glsl.cpp) holds them: members reached through `this`, no thread-local
// state. The device code below is the same text every unit compiles.
struct BaselineContext {
  const uint* unit_program;
  uint* unit_state;
  uint* unit_memory;
  uint* unit_stack;                  // the value stack: the state from word H_STACK
  const BaselineBlock* here;         // a block of the unit running now (its first, on entry)
  const baseline::UnitLinks* links;  // where control may go on into other units (or null)

  uint prog(uint i) const { return unit_program[i]; }
  uint st_get(uint i) const { return unit_state[i]; }
  void st_set(uint i, uint v) { unit_state[i] = v; }
  uint mem_get(uint i) const { return unit_memory[i]; }
  void mem_set(uint i, uint v) { unit_memory[i] = v; }

#define WASM_HOST_SLOTS 1
  uvec2 slot_get(uint slot) const {
    std::uint64_t bits = 0;
    std::memcpy(&bits, unit_stack + 2 * std::size_t{slot}, 8);
    return uvec2(static_cast<uint>(bits), static_cast<uint>(bits >> 32U));
  }
  void slot_set(uint slot, uvec2 v) {
    const std::uint64_t bits = std::uint64_t{v.x} | (std::uint64_t{v.y} << 32U);
    std::memcpy(unit_stack + 2 * std::size_t{slot}, &bits, 8);
  }

// The host has no watchdog: no loop budget (as compiled_glsl.cpp's units).
#define COMPILED_OVER_BUDGET(w) false
#define COMPILED_CHARGE(w) ((void)0)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
// clang-format off
#include "wasm/device/instance_memory.glsl"
#include "wasm/device/instance_tables.glsl"
#include "wasm/device/frames.glsl"
#include "wasm/device/bulk.glsl"
#include "wasm/device/compiled_blocks.glsl"
  // clang-format on

  // A call or bulk block's record (block_codegen.cpp's resumable_statement).
  void resumable_statement(Regs& r, const BaselineBlock& b) {
    switch (b.opcode) {
      case op::kCall:
        if (b.defined_callee) {
          frame_call_defined(r, b.ia, b.id + 1U, b.params, b.locals, b.max_stack, b.entry);
        } else {
          frame_call(r, b.ia, b.id + 1U);
        }
        break;
      case op::kCallIndirect:
        frame_call_indirect(r, b.ia, b.ib);
        break;
      case op::kMemoryInit:
        bulk_memory_init(r, b.ia);
        break;
      case op::kMemoryCopy:
        bulk_memory_copy(r);
        break;
      case op::kMemoryFill:
        bulk_memory_fill(r);
        break;
      case op::kTableInit:
        bulk_table_init(r, b.ib, b.ia);
        break;
      case op::kTableCopy:
        bulk_table_copy(r, b.ia, b.ib);
        break;
      case op::kTableGrow:
        bulk_table_grow(r, b.ia);
        break;
      case op::kTableFill:
        bulk_table_fill(r, b.ia);
        break;
      default:
        frame_trap(r, WASM_TRAP_UNREACHABLE);  // compile_unit admits no other
        break;
    }
  }

  // A call or bulk block as a function of its own (block_codegen.cpp's b<ID>): `left` the fuel
  // and `room` the quantum left (compiled_block_room).
  uint resumable_block(Regs& r, const BaselineBlock& b, uint left, uint room) {
    if (room < 1U) return COMPILED_YIELD;
    const uint charged = r.cont == 0U ? 1U : 0U;
    if (left < charged) return compiled_out_of_fuel(r, 0U);
    r.pc = b.id + 1U;
    resumable_statement(r, b);
    return charged;
  }

  static bool is_call_block(const BaselineBlock& b) {
    return b.opcode == op::kCall || b.opcode == op::kCallIndirect;
  }

  // A full block's end once its records ran: the operand stack's new top, then its transfer.
  void finish_block(Regs& r, const BaselineBlock& b, uint exit, uint index) {
    r.sp = static_cast<uint>(static_cast<std::int64_t>(r.sp) + b.end_depth);
    const bool taken = exit == baseline::kExitTaken;
    switch (b.end) {
      case BlockEnd::kNext:
        r.pc = b.target;
        break;
      case BlockEnd::kJumpIfZero:
        r.pc = taken ? b.target : b.other;
        break;
      case BlockEnd::kBranch:
        frame_branch(r, b.target, b.a, b.b);
        break;
      case BlockEnd::kBranchIf:
        if (taken) {
          frame_branch(r, b.target, b.a, b.b);
        } else {
          r.pc = b.other;
        }
        break;
      case BlockEnd::kBranchTable: {
        const uvec4 entry = compiled_jump_entry(b.target + min(index, b.a));
        frame_branch(r, entry.y, entry.z, entry.w);
        break;
      }
      case BlockEnd::kReturn:
        frame_return(r, b.a);
        break;
      case BlockEnd::kTrap:
        break;  // its code always exits trapped
    }
  }

  // Block r.pc: of the unit running now, or of the unit the links go on into (null: neither).
  const BaselineBlock* find_block(const Regs& r) const {
    if (here == nullptr) return nullptr;
    const uint at = r.pc - here->unit_first;
    if (at < here->unit_size) return here->unit_blocks + at;
    return links != nullptr ? links->next(links->context, r.pc) : nullptr;
  }

  // The step of compiled_run.glsl: the blocks of the run that holds r.pc, while control stays
  // among them, the call keeps running and the credit lasts (unit_codegen.cpp's run function,
  // with the locals in their slots).
  uint compiled_unit_step(Regs& r, CompiledCount& c) {
    const BaselineBlock* at = find_block(r);
    if (at == nullptr) return COMPILED_LEAVE;
    here = at;
    const BaselineBlock* const blocks = at->unit_blocks;
    const uint first = at->unit_first;
    const uint run_begin = at->run_begin;
    const uint run_end = at->run_end;
    uint start = compiled_credit(c);
    uint credit = start;
    uint result = 0U;
    BlockEnv env;
    env.memory = reinterpret_cast<unsigned char*>(unit_memory);
    env.runtime = this;
    auto* const slots = reinterpret_cast<std::uint64_t*>(unit_stack);
    while (true) {
      uint n = 0U;
      const BaselineBlock& b = *at;
      if (b.resumable) {
        if (is_call_block(b) && r.cont == 0U && credit >= 1U) {
          credit -= 1U;  // a call that fits the credit runs at once
          r.pc = b.id + 1U;
          resumable_statement(r, b);
        } else {
          compiled_sync(c, credit, start);
          n = resumable_block(r, b, compiled_left(c), compiled_block_room(c));
          if (n < COMPILED_NEEDS_PREFIX) {
            compiled_count(c, n);
            n = 0U;
          }
          start = compiled_credit(c);
          credit = start;
        }
      } else {
        // The block's code, and the blocks of the run it continues in directly, until one
        // leaves: for a transfer the code does not make, a trap, or a block short of credit.
        env.frame = slots + r.fp;
        env.top = slots + r.sp;
        env.memory_bytes = std::uint64_t{unit_state[S_PAGES]} * 65536U;  // memory.grow's helper updates it
        env.credit = credit;
        const uint exit = b.code(&env);
        credit = env.credit;
        const BaselineBlock& left = blocks[env.block];
        r.pc = left.id;
        r.sp = static_cast<uint>(env.top - slots);
        if (exit == baseline::kExitShort) {
          n = compiled_short(r, c, credit, start, left.records, 0U);  // 0: it runs now
        } else if (exit == baseline::kExitTrapped) {
          frame_trap(r, env.trap);
          credit += env.records_back;
        } else {
          finish_block(r, left, exit, env.index);
        }
      }
      if (n >= COMPILED_NEEDS_PREFIX) {  // yield or prefix: nothing ran
        result = n;
        break;
      }
      const uint next = r.pc - first;
      if (r.status != STATUS_RUNNING || next < run_begin || next >= run_end) break;
      at = blocks + next;
    }
    compiled_sync(c, credit, start);
    return result;
  }

  // clang-format off
#include "wasm/device/compiled_run.glsl"
// clang-format on
#pragma GCC diagnostic pop

#undef COMPILED_OVER_BUDGET
#undef COMPILED_CHARGE
#undef WASM_HOST_SLOTS
};

BaselineContext& context_of(BlockEnv* env) {
  return *static_cast<BaselineContext*>(env->runtime);
}

std::uint64_t as_u64(uvec2 v) {
  return std::uint64_t{v.x} | (std::uint64_t{v.y} << 32U);
}

uvec2 as_uvec2(std::uint64_t v) {
  return uvec2(static_cast<uint>(v), static_cast<uint>(v >> 32U));
}

std::uint64_t helper_global_get(BlockEnv* env, std::uint32_t global) {
  return as_u64(context_of(env).global_get(global));
}

void helper_global_set(BlockEnv* env, std::uint32_t global, std::uint64_t value) {
  context_of(env).global_set(global, as_uvec2(value));
}

std::uint64_t helper_table_get(BlockEnv* env, std::uint32_t table, std::uint32_t index) {
  BaselineContext& context = context_of(env);
  if (index >= context.table_size(table)) {
    env->trap = WASM_TRAP_TABLE_OUT_OF_BOUNDS;
    return 0;
  }
  env->trap = WASM_TRAP_NONE;
  return context.table_get_entry(table, index);
}

void helper_table_set(BlockEnv* env, std::uint32_t table, std::uint32_t index, std::uint32_t ref) {
  BaselineContext& context = context_of(env);
  if (index >= context.table_size(table)) {
    env->trap = WASM_TRAP_TABLE_OUT_OF_BOUNDS;
    return;
  }
  env->trap = WASM_TRAP_NONE;
  context.table_set_entry(table, index, ref);
}

std::uint64_t helper_table_size(BlockEnv* env, std::uint32_t table) {
  return context_of(env).table_size(table);
}

std::uint64_t helper_memory_size(BlockEnv* env) {
  return context_of(env).st_get(S_PAGES);
}

std::uint64_t helper_memory_grow(BlockEnv* env, std::uint32_t pages) {
  BaselineContext& context = context_of(env);
  const uint old = context.compiled_memory_grow(pages);
  env->memory_bytes = std::uint64_t{context.st_get(S_PAGES)} * 65536U;
  return old;
}

void helper_data_drop(BlockEnv* env, std::uint32_t segment) {
  BaselineContext& context = context_of(env);
  context.st_set(context.prog(H_DROPPED) + segment, 1U);
}

void helper_elem_drop(BlockEnv* env, std::uint32_t segment) {
  BaselineContext& context = context_of(env);
  context.st_set(context.prog(H_DROPPED) + context.prog(H_DATA_COUNT) + segment, 1U);
}

}  // namespace
}  // namespace wavestack::wasm::device

namespace wavestack::wasm::baseline {

static_assert(sizeof(BlockEnv) == 64 && offsetof(BlockEnv, frame) == kEnvFrame && offsetof(BlockEnv, top) == kEnvTop &&
              offsetof(BlockEnv, memory) == kEnvMemory && offsetof(BlockEnv, memory_bytes) == kEnvMemoryBytes &&
              offsetof(BlockEnv, trap) == kEnvTrap && offsetof(BlockEnv, records_back) == kEnvRecordsBack &&
              offsetof(BlockEnv, index) == kEnvIndex && offsetof(BlockEnv, credit) == kEnvCredit &&
              offsetof(BlockEnv, runtime) == kEnvRuntime && offsetof(BlockEnv, block) == kEnvBlock);

const BaselineHelpers& baseline_helpers() {
  static constexpr BaselineHelpers kHelpers{
      device::helper_global_get,  device::helper_global_set, device::helper_table_get,
      device::helper_table_set,   device::helper_table_size, device::helper_memory_size,
      device::helper_memory_grow, device::helper_data_drop,  device::helper_elem_drop,
  };
  return kHelpers;
}

namespace {

const BaselineBlock* first_of(const BaselineUnit* unit) {
  return unit->blocks.empty() ? nullptr : unit->blocks.data();
}

}  // namespace

std::uint32_t baseline_unit_run(const std::uint32_t* program, std::uint32_t* state, std::uint32_t* memory,
                                std::uint32_t quantum, std::uint32_t budget, const BaselineUnit* unit) {
  device::BaselineContext context{program, state, memory, state + program[device::H_STACK], first_of(unit), nullptr};
  return context.compiled_run(quantum, budget);
}

std::uint32_t baseline_linked_run(const std::uint32_t* program, std::uint32_t* state, std::uint32_t* memory,
                                  std::uint32_t quantum, std::uint32_t budget, const BaselineUnit* unit,
                                  const UnitLinks& links) {
  device::BaselineContext context{program, state, memory, state + program[device::H_STACK], first_of(unit), &links};
  return context.compiled_run(quantum, budget);
}

}  // namespace wavestack::wasm::baseline
