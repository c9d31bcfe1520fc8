#include "wasm/baseline/block_compiler.hpp"

#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "jit/code_arena.hpp"
#include "jit/perf_map_file.hpp"
#include "wasm/baseline/baseline_helpers.hpp"
#include "wasm/baseline/baseline_run.hpp"
#include "wasm/baseline/x86_assembler.hpp"
#include "wasm/compiler/control_records.hpp"
#include "wasm/compiler/memory_access.hpp"
#include "wasm/compiler/numeric_lowering.hpp"
#include "wasm/device/interpreter_layout.hpp"
#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm::baseline {
namespace {

namespace op = wasm::op;
using compiler::CompiledBlock;

// The registers a block's code keeps its environment in (all callee-saved, so helpers keep
// them): the environment, the frame's first slot, the block's first operand slot, linear
// memory's base and its size in bytes.
constexpr Reg kEnv = Reg::kRbx;
constexpr Reg kFrame = Reg::kR12;
constexpr Reg kTop = Reg::kR13;
constexpr Reg kMemory = Reg::kR14;
constexpr Reg kMemoryBytes = Reg::kR15;

constexpr std::uint32_t kTrapNone = 0;  // WASM_TRAP_NONE (traps.glsl): the helpers' "no trap"
constexpr std::uint32_t kTrapUnreachable = device::WASM_TRAP_UNREACHABLE;
constexpr std::uint32_t kTrapMemoryOutOfBounds = device::WASM_TRAP_MEMORY_OUT_OF_BOUNDS;
constexpr std::uint32_t kNullRef = device::NULL_REF;

std::int32_t slot(std::int64_t index) {
  return static_cast<std::int32_t>(index * 8);
}

struct PendingTrap {
  Label label;
  std::uint32_t records_back = 0;
  bool sets_code = false;  // else a helper has written the code
  std::uint32_t code = 0;
};

// i32 and i64 operations done inline: two operands to one result (or one, for eqz).
struct InlineBinary {
  std::uint16_t opcode;
  Width width;
  enum Kind : std::uint8_t { kAlu, kMul, kShift, kCompare } kind;
  Alu alu = Alu::kAdd;
  Shift shift = Shift::kShl;
  Cond cond = Cond::kEqual;
};

constexpr InlineBinary kInlineBinaries[] = {
    {0x46, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kEqual},
    {0x47, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kNotEqual},
    {0x48, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kLess},
    {0x49, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kBelow},
    {0x4A, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kGreater},
    {0x4B, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kAbove},
    {0x4C, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kLessOrEqual},
    {0x4D, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kBelowOrEqual},
    {0x4E, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kGreaterOrEqual},
    {0x4F, Width::k32, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kAboveOrEqual},
    {0x51, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kEqual},
    {0x52, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kNotEqual},
    {0x53, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kLess},
    {0x54, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kBelow},
    {0x55, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kGreater},
    {0x56, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kAbove},
    {0x57, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kLessOrEqual},
    {0x58, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kBelowOrEqual},
    {0x59, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kGreaterOrEqual},
    {0x5A, Width::k64, InlineBinary::kCompare, Alu::kCmp, Shift::kShl, Cond::kAboveOrEqual},
    {0x6A, Width::k32, InlineBinary::kAlu, Alu::kAdd},
    {0x6B, Width::k32, InlineBinary::kAlu, Alu::kSub},
    {0x6C, Width::k32, InlineBinary::kMul},
    {0x71, Width::k32, InlineBinary::kAlu, Alu::kAnd},
    {0x72, Width::k32, InlineBinary::kAlu, Alu::kOr},
    {0x73, Width::k32, InlineBinary::kAlu, Alu::kXor},
    {0x74, Width::k32, InlineBinary::kShift, Alu::kAdd, Shift::kShl},
    {0x75, Width::k32, InlineBinary::kShift, Alu::kAdd, Shift::kSar},
    {0x76, Width::k32, InlineBinary::kShift, Alu::kAdd, Shift::kShr},
    {0x77, Width::k32, InlineBinary::kShift, Alu::kAdd, Shift::kRol},
    {0x78, Width::k32, InlineBinary::kShift, Alu::kAdd, Shift::kRor},
    {0x7C, Width::k64, InlineBinary::kAlu, Alu::kAdd},
    {0x7D, Width::k64, InlineBinary::kAlu, Alu::kSub},
    {0x7E, Width::k64, InlineBinary::kMul},
    {0x83, Width::k64, InlineBinary::kAlu, Alu::kAnd},
    {0x84, Width::k64, InlineBinary::kAlu, Alu::kOr},
    {0x85, Width::k64, InlineBinary::kAlu, Alu::kXor},
    {0x86, Width::k64, InlineBinary::kShift, Alu::kAdd, Shift::kShl},
    {0x87, Width::k64, InlineBinary::kShift, Alu::kAdd, Shift::kSar},
    {0x88, Width::k64, InlineBinary::kShift, Alu::kAdd, Shift::kShr},
    {0x89, Width::k64, InlineBinary::kShift, Alu::kAdd, Shift::kRol},
    {0x8A, Width::k64, InlineBinary::kShift, Alu::kAdd, Shift::kRor},
};

const InlineBinary* find_inline_binary(std::uint16_t opcode) {
  for (const InlineBinary& entry : kInlineBinaries) {
    if (entry.opcode == opcode) return &entry;
  }
  return nullptr;
}

std::uint64_t address_of(const void* function) {
  std::uint64_t address = 0;
  std::memcpy(&address, &function, sizeof(address));
  return address;
}

template <typename Function>
std::uint64_t helper_address(Function function) {
  return address_of(reinterpret_cast<const void*>(function));
}

// Where a block's end may continue without leaving the machine code: the body of another full
// block of its run (none: back to the run loop).
using DirectTarget = std::function<std::optional<Label>(std::uint32_t id)>;

// One block's code: a function of the environment (BlockEnv*) returning its exit, whose body
// (after the prologue) other blocks of its run jump to directly.
class BlockWriter {
 public:
  BlockWriter(Assembler& as, const Program& program, const CompiledBlock& block, std::uint32_t index,
              BaselineBlock& out, Label body, Label epilogue, const DirectTarget& direct)
      : as_(as),
        program_(program),
        block_(block),
        index_(index),
        out_(out),
        body_(body),
        epilogue_(epilogue),
        direct_(direct) {}

  void write() {
    as_.push(Reg::kRbx);
    as_.push(Reg::kR12);
    as_.push(Reg::kR13);
    as_.push(Reg::kR14);
    as_.push(Reg::kR15);  // five pushes: the stack is 16-byte aligned at calls
    as_.mov_rr(Width::k64, kEnv, Reg::kRdi);
    as_.mov_load(Width::k64, kFrame, kEnv, kEnvFrame);
    as_.mov_load(Width::k64, kTop, kEnv, kEnvTop);
    as_.mov_load(Width::k64, kMemory, kEnv, kEnvMemory);
    as_.mov_load(Width::k64, kMemoryBytes, kEnv, kEnvMemoryBytes);
    as_.bind(body_);
    // The block's records from the credit, or back to the run loop having run nothing
    // (compiled_short decides there: yield, prefix, or run anyway).
    const Label short_exit = as_.new_label();
    as_.mov_load(Width::k32, Reg::kRax, kEnv, kEnvCredit);
    as_.alu_imm(Width::k32, Alu::kSub, Reg::kRax, static_cast<std::int32_t>(block_.instruction_count));
    as_.jcc(Cond::kBelow, short_exit);
    as_.mov_store(Width::k32, kEnv, kEnvCredit, Reg::kRax);
    std::uint32_t pc = block_.begin;
    for (std::uint32_t k = 0; k < block_.instruction_count && !ended_; ++k) {
      record_ = k;
      const Instruction& ins = program_.code.at(pc);
      // A result that a local.set or local.tee takes next goes straight to the local.
      // ... and one that a two-way end tests next stays in rax for it.
      set_next_ = nullptr;
      set_taken_ = false;
      condition_next_ = false;
      if (k + 1 < block_.instruction_count && result_in_rax(ins)) {
        const Instruction& next = program_.code.at(pc + 1);
        if (next.opcode == op::kLocalSet || next.opcode == op::kLocalTee) set_next_ = &next;
        condition_next_ = next.opcode == op::kBrIf || next.opcode == op::kJumpIfZero;
      }
      lower(ins);
      pc += ins.opcode == op::kBrTable ? compiler::br_table_entry_count(ins) + 1U : 1U;
      if (set_taken_) {  // the local.set or local.tee was lowered with it
        ++k;
        ++pc;
      }
    }
    if (!ended_) {
      flush();
      end_next(block_.successors.at(0));
    }
    out_.end_depth = static_cast<std::int32_t>(depth_);
    as_.bind(short_exit);
    leave(kExitShort);
    for (const PendingTrap& trap : traps_) {
      as_.bind(trap.label);
      if (trap.sets_code) as_.store_imm32(Width::k32, kEnv, kEnvTrap, static_cast<std::int32_t>(trap.code));
      as_.store_imm32(Width::k32, kEnv, kEnvRecordsBack, static_cast<std::int32_t>(trap.records_back));
      leave(kExitTrapped);
    }
  }

 private:
  // The slot `k` places below the top (0: the top operand).
  [[nodiscard]] std::int32_t operand(std::int64_t k) const { return slot(depth_ - 1 - k); }

  // Operands that local.get, local.tee and constants push are not stored at once: they stay
  // pending at the top of the value stack, and the instruction that consumes one reads it where
  // it is (the local's slot, or an immediate), so `local.get; local.get; i32.add; local.set`
  // stores once instead of three times. flush() stores them before anything that needs the
  // stack in memory (the block's end, an instruction lowered without knowing them).
  struct Pending {
    bool is_local = false;
    std::uint32_t local = 0;
    std::uint64_t value = 0;
  };

  [[nodiscard]] bool pending(std::int64_t k) const { return k < static_cast<std::int64_t>(pending_.size()); }
  [[nodiscard]] const Pending& pending_at(std::int64_t k) const {
    return pending_[pending_.size() - 1 - static_cast<std::size_t>(k)];
  }

  void push_pending(Pending entry) {
    pending_.push_back(entry);
    ++depth_;
  }

  // dst = the operand `k` below the top, `width` bits (32: zero-extended).
  void read_operand(Width width, Reg dst, std::int64_t k) {
    if (!pending(k)) {
      as_.mov_load(width, dst, kTop, operand(k));
      return;
    }
    const Pending& entry = pending_at(k);
    if (entry.is_local) {
      as_.mov_load(width, dst, kFrame, slot(entry.local));
    } else if (width == Width::k32 || entry.value <= 0xFFFFFFFFU) {
      as_.mov_imm32(dst, static_cast<std::uint32_t>(entry.value));
    } else {
      as_.mov_imm64(dst, entry.value);
    }
  }

  // dst = the operand `k` below the top's low 32 bits, sign-extended to 64.
  void read_operand_sign32(Reg dst, std::int64_t k) {
    if (!pending(k)) {
      as_.load_sign32(dst, kTop, operand(k));
    } else if (pending_at(k).is_local) {
      as_.load_sign32(dst, kFrame, slot(pending_at(k).local));
    } else {
      const auto low = static_cast<std::int32_t>(static_cast<std::uint32_t>(pending_at(k).value));
      as_.mov_imm64(dst, static_cast<std::uint64_t>(static_cast<std::int64_t>(low)));
    }
  }

  // Pops `n` operands (the pending among them consumed).
  void pop(std::uint32_t n) {
    depth_ -= n;
    pending_.resize(pending_.size() > n ? pending_.size() - n : 0);
  }

  // Stores the pending operands to their slots (rdx the scratch register).
  void flush() {
    const auto count = static_cast<std::int64_t>(pending_.size());
    for (std::int64_t j = 0; j < count; ++j) {
      const Pending& entry = pending_[static_cast<std::size_t>(j)];
      const std::int32_t at = slot(depth_ - count + j);
      if (entry.is_local) {
        as_.mov_load(Width::k64, Reg::kRdx, kFrame, slot(entry.local));
        as_.mov_store(Width::k64, kTop, at, Reg::kRdx);
      } else if (entry.value <= 0x7FFFFFFFU) {
        as_.store_imm32(Width::k64, kTop, at, static_cast<std::int32_t>(entry.value));
      } else {
        if (entry.value <= 0xFFFFFFFFU) {
          as_.mov_imm32(Reg::kRdx, static_cast<std::uint32_t>(entry.value));
        } else {
          as_.mov_imm64(Reg::kRdx, entry.value);
        }
        as_.mov_store(Width::k64, kTop, at, Reg::kRdx);
      }
    }
    pending_.clear();
  }

  // Before local `local` is written: a pending read of it must be stored first.
  void flush_reads_of(std::uint32_t local) {
    for (const Pending& entry : pending_) {
      if (entry.is_local && entry.local == local) {
        flush();
        return;
      }
    }
  }

  // Whether lower() handles pending operands for `ins` (every other instruction finds the
  // stack in memory).
  static bool knows_pending(const Instruction& ins) {
    const std::uint16_t opcode = ins.opcode;
    if (result_in_rax(ins)) return true;
    if (opcode >= op::kFirstStore && opcode <= op::kLastStore) return true;
    switch (opcode) {
      case op::kLocalGet:
      case op::kLocalSet:
      case op::kLocalTee:
      case op::kDrop:
      case op::kNop:
      case op::kI32Const:
      case op::kF32Const:
      case op::kI64Const:
      case op::kF64Const:
        return true;
      default:
        return false;
    }
  }

  // A trap exit for the record being lowered; `code` 0 with sets_code false: a helper's.
  Label trap_exit(bool sets_code, std::uint32_t code) {
    PendingTrap trap{as_.new_label(), block_.instruction_count - (record_ + 1U), sets_code, code};
    traps_.push_back(trap);
    return trap.label;
  }

  // Back to the run loop from this block: which block, its first operand slot, how it left.
  void leave(std::uint32_t exit) {
    as_.mov_store(Width::k64, kEnv, kEnvTop, kTop);
    as_.store_imm32(Width::k32, kEnv, kEnvBlock, static_cast<std::int32_t>(index_));
    as_.mov_imm32(Reg::kRax, exit);
    as_.jmp(epilogue_);
  }

  // Control continues at block `target` with the block's operands in place: straight into its
  // code where it is a full block of the run, else through the run loop with `exit`.
  void continue_at(std::uint32_t target, std::uint32_t exit) {
    if (const std::optional<Label> body = direct_(target)) {
      if (depth_ != 0) as_.alu_imm(Width::k64, Alu::kAdd, kTop, slot(depth_));
      as_.jmp(*body);
      return;
    }
    leave(exit);
  }

  void end_next(std::uint32_t target) {
    out_.end = BlockEnd::kNext;
    out_.target = target;
    continue_at(target, kExitEnd);
    ended_ = true;
  }

  // A two-way end on the popped value: the taken side when it is zero (`taken_on_zero`) or
  // not; each side continues directly where it can (`taken_direct`: the taken side moves
  // nothing, as a lowered `if`'s jump; br_if's taken side goes through frame_branch).
  void end_two_way(bool taken_on_zero, bool taken_direct) {
    if (condition_in_rax_) {  // (never pushed: the depth is the popped one already)
      condition_in_rax_ = false;
      as_.mov_rr(Width::k32, Reg::kRcx, Reg::kRax);
    } else {
      as_.mov_load(Width::k32, Reg::kRcx, kTop, operand(0));
      --depth_;
    }
    const Label taken = as_.new_label();
    as_.test(Width::k32, Reg::kRcx, Reg::kRcx);
    as_.jcc(taken_on_zero ? Cond::kEqual : Cond::kNotEqual, taken);
    continue_at(out_.other, kExitOther);
    as_.bind(taken);
    if (taken_direct) {
      continue_at(out_.target, kExitTaken);
    } else {
      leave(kExitTaken);
    }
    ended_ = true;
  }

  void exit_with(std::uint32_t exit) {
    leave(exit);
    ended_ = true;
  }

  void call_helper(std::uint64_t address) {
    as_.mov_rr(Width::k64, Reg::kRdi, kEnv);
    as_.mov_imm64(Reg::kRax, address);
    as_.call(Reg::kRax);
  }

  void check_helper_trap() {
    as_.mov_load(Width::k32, Reg::kRcx, kEnv, kEnvTrap);
    as_.test(Width::k32, Reg::kRcx, Reg::kRcx);
    as_.jcc(Cond::kNotEqual, trap_exit(false, kTrapNone));
  }

  // Whether lowering `ins` ends with its result pushed from rax (push_rax), where a following
  // local.set or local.tee can take it instead.
  static bool result_in_rax(const Instruction& ins) {
    return compiler::find_numeric_lowering(ins.opcode) != nullptr ||
           (ins.opcode >= op::kFirstLoad && ins.opcode <= op::kLastLoad);
  }

  void push_rax() {
    if (set_next_ != nullptr) {
      const Instruction& set = *set_next_;
      set_next_ = nullptr;
      set_taken_ = true;
      flush_reads_of(set.a);
      as_.mov_store(Width::k64, kFrame, slot(set.a), Reg::kRax);
      if (set.opcode == op::kLocalTee) push_pending({true, set.a, 0});
      return;
    }
    if (condition_next_) {
      condition_next_ = false;
      condition_in_rax_ = true;
      return;
    }
    flush();  // (pending operands are only ever the top ones: those below go to memory first)
    as_.mov_store(Width::k64, kTop, slot(depth_), Reg::kRax);
    ++depth_;
  }

  void push_constant(std::uint64_t value) {
    if (value <= 0x7FFFFFFFU) {
      as_.store_imm32(Width::k64, kTop, slot(depth_), static_cast<std::int32_t>(value));
    } else if (value <= 0xFFFFFFFFU) {
      as_.mov_imm32(Reg::kRax, static_cast<std::uint32_t>(value));
      as_.mov_store(Width::k64, kTop, slot(depth_), Reg::kRax);
    } else {
      as_.mov_imm64(Reg::kRax, value);
      as_.mov_store(Width::k64, kTop, slot(depth_), Reg::kRax);
    }
    ++depth_;
  }

  // rax = the effective address of an access of `width` bytes at the operand `k` below the
  // top plus `offset`, after the bounds check (memory_range_in: address + offset + width <=
  // the memory's bytes, in 64 bits); then rax += the memory's base.
  void effective_address(std::int64_t k, std::uint32_t offset, std::uint32_t width) {
    read_operand(Width::k32, Reg::kRax, k);
    if (offset != 0) {
      as_.mov_imm32(Reg::kRcx, offset);
      as_.alu(Width::k64, Alu::kAdd, Reg::kRax, Reg::kRcx);
    }
    as_.lea(Reg::kRdx, Reg::kRax, static_cast<std::int32_t>(width));
    as_.alu(Width::k64, Alu::kCmp, Reg::kRdx, kMemoryBytes);
    as_.jcc(Cond::kAbove, trap_exit(true, kTrapMemoryOutOfBounds));
    as_.alu(Width::k64, Alu::kAdd, Reg::kRax, kMemory);
  }

  void lower_load(const Instruction& ins) {
    const compiler::LoadShape shape = compiler::load_shape(ins.opcode);
    effective_address(0, ins.b, shape.width);
    switch (shape.width) {
      case 1:
        if (shape.extend == compiler::LoadExtend::kZero) {
          as_.load_zero8(Reg::kRax, Reg::kRax, 0);
        } else {
          as_.load_sign8(shape.extend == compiler::LoadExtend::kSign64 ? Width::k64 : Width::k32, Reg::kRax, Reg::kRax,
                         0);
        }
        break;
      case 2:
        if (shape.extend == compiler::LoadExtend::kZero) {
          as_.load_zero16(Reg::kRax, Reg::kRax, 0);
        } else {
          as_.load_sign16(shape.extend == compiler::LoadExtend::kSign64 ? Width::k64 : Width::k32, Reg::kRax, Reg::kRax,
                          0);
        }
        break;
      case 4:
        if (shape.extend == compiler::LoadExtend::kSign64) {
          as_.load_sign32(Reg::kRax, Reg::kRax, 0);
        } else {
          as_.mov_load(Width::k32, Reg::kRax, Reg::kRax, 0);
        }
        break;
      default:
        as_.mov_load(Width::k64, Reg::kRax, Reg::kRax, 0);
        break;
    }
    pop(1);
    push_rax();
  }

  void lower_store(const Instruction& ins) {
    const std::uint32_t width = compiler::store_width(ins.opcode);
    effective_address(1, ins.b, width);
    read_operand(Width::k64, Reg::kRcx, 0);
    switch (width) {
      case 1:
        as_.store8(Reg::kRax, 0, Reg::kRcx);
        break;
      case 2:
        as_.store16(Reg::kRax, 0, Reg::kRcx);
        break;
      case 4:
        as_.mov_store(Width::k32, Reg::kRax, 0, Reg::kRcx);
        break;
      default:
        as_.mov_store(Width::k64, Reg::kRax, 0, Reg::kRcx);
        break;
    }
    pop(2);
  }

  void lower_inline_binary(const InlineBinary& binary) {
    read_operand(binary.width, Reg::kRax, 1);
    read_operand(binary.width, Reg::kRcx, 0);
    switch (binary.kind) {
      case InlineBinary::kAlu:
        as_.alu(binary.width, binary.alu, Reg::kRax, Reg::kRcx);
        break;
      case InlineBinary::kMul:
        as_.imul(binary.width, Reg::kRax, Reg::kRcx);
        break;
      case InlineBinary::kShift:
        as_.shift_cl(binary.width, binary.shift, Reg::kRax);
        break;
      case InlineBinary::kCompare:
        as_.alu(binary.width, Alu::kCmp, Reg::kRax, Reg::kRcx);
        as_.setcc(binary.cond, Reg::kRax);
        break;
    }
    pop(2);
    push_rax();  // a 32-bit result's high word is zero
  }

  // eqz, wrap and the extensions of i32 to i64: one operand, inline.
  bool lower_inline_unary(std::uint16_t opcode) {
    switch (opcode) {
      case 0x45:  // i32.eqz
      case 0x50:  // i64.eqz
        read_operand(opcode == 0x45 ? Width::k32 : Width::k64, Reg::kRax, 0);
        as_.test(opcode == 0x45 ? Width::k32 : Width::k64, Reg::kRax, Reg::kRax);
        as_.setcc(Cond::kEqual, Reg::kRax);
        break;
      case 0xA7:  // i32.wrap_i64
      case 0xAD:  // i64.extend_i32_u
        read_operand(Width::k32, Reg::kRax, 0);
        break;
      case 0xAC:  // i64.extend_i32_s
        read_operand_sign32(Reg::kRax, 0);
        break;
      default:
        return false;
    }
    pop(1);
    push_rax();
    return true;
  }

  void lower_numeric(const compiler::NumericLowering& numeric) {
    if (const InlineBinary* binary = find_inline_binary(numeric.opcode)) {
      lower_inline_binary(*binary);
      return;
    }
    if (lower_inline_unary(numeric.opcode)) return;
    const NumericHelper helper = numeric_helper(numeric.opcode);
    if (helper == nullptr)
      throw std::logic_error("baseline: no helper for numeric opcode " + std::to_string(numeric.opcode));
    if (numeric.arity == 2) {
      read_operand(Width::k64, Reg::kRsi, 1);
      read_operand(Width::k64, Reg::kRdx, 0);
    } else {
      read_operand(Width::k64, Reg::kRsi, 0);
      as_.mov_imm32(Reg::kRdx, 0);
    }
    call_helper(helper_address(helper));
    if (numeric.traps) check_helper_trap();
    pop(numeric.arity);
    push_rax();
  }

  void lower(const Instruction& ins) {
    const std::uint16_t opcode = ins.opcode;
    if (!knows_pending(ins)) flush();
    if (const compiler::NumericLowering* numeric = compiler::find_numeric_lowering(opcode)) {
      lower_numeric(*numeric);
      return;
    }
    if (opcode >= op::kFirstLoad && opcode <= op::kLastLoad) {
      lower_load(ins);
      return;
    }
    if (opcode >= op::kFirstStore && opcode <= op::kLastStore) {
      lower_store(ins);
      return;
    }
    const BaselineHelpers& helpers = baseline_helpers();
    switch (opcode) {
      case op::kUnreachable:
        out_.end = BlockEnd::kTrap;
        as_.jmp(trap_exit(true, kTrapUnreachable));
        ended_ = true;
        return;
      case op::kNop:
        return;
      case op::kJump:
        end_next(block_.successors.at(0));
        return;
      case op::kJumpIfZero:
        out_.end = BlockEnd::kJumpIfZero;
        out_.target = block_.successors.at(0);
        out_.other = block_.successors.back();
        end_two_way(/*taken_on_zero=*/true, /*taken_direct=*/true);
        return;
      case op::kBr:
        out_.end = BlockEnd::kBranch;
        out_.target = block_.successors.at(0);
        out_.a = ins.b;
        out_.b = ins.c;
        exit_with(kExitEnd);
        return;
      case op::kBrIf:
        out_.end = BlockEnd::kBranchIf;
        out_.target = block_.successors.at(0);
        out_.other = block_.successors.back();
        out_.a = ins.b;
        out_.b = ins.c;
        end_two_way(/*taken_on_zero=*/false, /*taken_direct=*/false);
        return;
      case op::kBrTable:
        out_.end = BlockEnd::kBranchTable;
        out_.target = block_.table_begin;
        out_.a = ins.a;
        as_.mov_load(Width::k32, Reg::kRax, kTop, operand(0));
        as_.mov_store(Width::k32, kEnv, kEnvIndex, Reg::kRax);
        --depth_;
        exit_with(kExitEnd);
        return;
      case op::kReturn:
        out_.end = BlockEnd::kReturn;
        out_.a = ins.a;
        exit_with(kExitEnd);
        return;
      case op::kDrop:
        pop(1);
        return;
      case op::kSelect:
      case op::kSelectTyped:
        as_.mov_load(Width::k32, Reg::kRcx, kTop, operand(0));
        as_.mov_load(Width::k64, Reg::kRax, kTop, operand(2));
        as_.mov_load(Width::k64, Reg::kRdx, kTop, operand(1));
        as_.test(Width::k32, Reg::kRcx, Reg::kRcx);
        as_.cmov(Width::k64, Cond::kEqual, Reg::kRax, Reg::kRdx);
        depth_ -= 2;
        as_.mov_store(Width::k64, kTop, operand(0), Reg::kRax);
        return;
      case op::kLocalGet:
        push_pending({true, ins.a, 0});
        return;
      case op::kLocalSet:
      case op::kLocalTee:
        read_operand(Width::k64, Reg::kRax, 0);
        pop(1);
        flush_reads_of(ins.a);
        as_.mov_store(Width::k64, kFrame, slot(ins.a), Reg::kRax);
        if (opcode == op::kLocalTee) push_pending({true, ins.a, 0});  // the value stays: now the local's
        return;
      case op::kGlobalGet:
        as_.mov_imm32(Reg::kRsi, ins.a);
        call_helper(helper_address(helpers.global_get));
        push_rax();
        return;
      case op::kGlobalSet:
        as_.mov_imm32(Reg::kRsi, ins.a);
        as_.mov_load(Width::k64, Reg::kRdx, kTop, operand(0));
        call_helper(helper_address(helpers.global_set));
        --depth_;
        return;
      case op::kTableGet:
        as_.mov_imm32(Reg::kRsi, ins.a);
        as_.mov_load(Width::k32, Reg::kRdx, kTop, operand(0));
        call_helper(helper_address(helpers.table_get));
        check_helper_trap();
        as_.mov_store(Width::k64, kTop, operand(0), Reg::kRax);
        return;
      case op::kTableSet:
        as_.mov_imm32(Reg::kRsi, ins.a);
        as_.mov_load(Width::k32, Reg::kRdx, kTop, operand(1));
        as_.mov_load(Width::k32, Reg::kRcx, kTop, operand(0));
        call_helper(helper_address(helpers.table_set));
        check_helper_trap();
        depth_ -= 2;
        return;
      case op::kTableSize:
        as_.mov_imm32(Reg::kRsi, ins.a);
        call_helper(helper_address(helpers.table_size));
        push_rax();
        return;
      case op::kMemorySize:
        call_helper(helper_address(helpers.memory_size));
        push_rax();
        return;
      case op::kMemoryGrow:
        as_.mov_load(Width::k32, Reg::kRsi, kTop, operand(0));
        call_helper(helper_address(helpers.memory_grow));
        as_.mov_store(Width::k64, kTop, operand(0), Reg::kRax);
        as_.mov_load(Width::k64, kMemoryBytes, kEnv, kEnvMemoryBytes);
        return;
      case op::kI32Const:
      case op::kF32Const:
        push_pending({false, 0, ins.a});
        return;
      case op::kRefFunc:
        push_constant(ins.a);
        return;
      case op::kI64Const:
      case op::kF64Const:
        push_pending({false, 0, std::uint64_t{ins.a} | (std::uint64_t{ins.b} << 32U)});
        return;
      case op::kRefNull:
        push_constant(kNullRef);
        return;
      case op::kRefIsNull:
        as_.mov_load(Width::k32, Reg::kRax, kTop, operand(0));
        as_.alu_imm(Width::k32, Alu::kCmp, Reg::kRax, -1);  // NULL_REF
        as_.setcc(Cond::kEqual, Reg::kRax);
        as_.mov_store(Width::k64, kTop, operand(0), Reg::kRax);
        return;
      case op::kDataDrop:
        as_.mov_imm32(Reg::kRsi, ins.a);
        call_helper(helper_address(helpers.data_drop));
        return;
      case op::kElemDrop:
        as_.mov_imm32(Reg::kRsi, ins.a);
        call_helper(helper_address(helpers.elem_drop));
        return;
      default:
        throw std::logic_error("baseline: record opcode " + std::to_string(opcode) + " cannot be compiled in a block");
    }
  }

  Assembler& as_;
  const Program& program_;
  const CompiledBlock& block_;
  std::uint32_t index_;  // in the unit
  BaselineBlock& out_;
  Label body_;
  Label epilogue_;
  const DirectTarget& direct_;
  std::vector<PendingTrap> traps_;
  std::int64_t depth_ = 0;        // operands pushed since the block's start (negative: popped below it)
  std::vector<Pending> pending_;  // the top pending_.size() operands, not stored yet (the deepest first)
  std::uint32_t record_ = 0;
  bool ended_ = false;
  const Instruction* set_next_ = nullptr;  // the local.set or local.tee after the record being lowered
  bool set_taken_ = false;                 // ... lowered with it (push_rax stored the result there)
  bool condition_next_ = false;            // a two-way end tests the record's result next
  bool condition_in_rax_ = false;          // ... which push_rax left in rax, unpushed
};

bool resumable_block(const Program& program, const CompiledBlock& block) {
  return block.instruction_count == 1 && compiler::is_resumable(program.code.at(block.begin).opcode);
}

void describe_resumable(const Program& program, const compiler::CompiledLayout& layout, const CompiledBlock& block,
                        BaselineBlock& out) {
  const Instruction& ins = program.code.at(block.begin);
  if (block.successors.size() != 1 || block.successors.front() != block.id + 1U) {
    throw std::logic_error("baseline: the continuation of block " + std::to_string(block.id) + " is not the next id");
  }
  out.resumable = true;
  out.opcode = ins.opcode;
  // call: the function; call_indirect: the table and the type id; bulk: as bulk.glsl's calls.
  out.ia = ins.opcode == op::kCallIndirect ? ins.b : ins.a;
  out.ib = ins.opcode == op::kCallIndirect ? ins.c : ins.b;
  const std::size_t imported = program.function_type_ids.size() - program.functions.size();
  if (ins.opcode == op::kCall && ins.a >= imported) {
    const std::size_t defined = ins.a - imported;
    const FunctionRecord& callee = program.functions.at(defined);
    out.defined_callee = true;
    out.params = callee.param_count;
    out.locals = callee.local_count;
    out.max_stack = callee.max_stack;
    out.entry = layout.function_entries.at(defined);
  }
}

// Executable memory for every baseline unit of the process (its code is never freed, as the
// in-process compiler's is not: a module's units may outlive the module in other modules of
// the same binary).
jit::CodeArena& code_arena() {
  static const std::unique_ptr<jit::CodeArena> arena = [] {
    std::string why_not;
    auto created = jit::CodeArena::create(std::size_t{8} << 30, &why_not);
    if (!created) throw BaselineUnavailable("baseline: no executable memory: " + why_not);
    return created;
  }();
  return *arena;
}

}  // namespace

bool baseline_supported() {
#if defined(__x86_64__) && defined(__linux__)
  return true;
#else
  return false;
#endif
}

std::unique_ptr<BaselineUnit> compile_unit(const Program& program, const compiler::CompiledLayout& layout,
                                           std::uint32_t unit) {
  if (!baseline_supported()) throw BaselineUnavailable("baseline: not supported on this processor");
  const compiler::Unit& blocks = layout.units.at(unit);
  auto out = std::make_unique<BaselineUnit>();
  out->first_block = blocks.blocks.empty() ? 0U : blocks.blocks.front().id;
  out->blocks.resize(blocks.blocks.size());
  // First what each block is and which run it belongs to (its function's consecutive blocks),
  // so that a block's end knows the blocks it may continue in directly.
  std::uint32_t run_begin = 0;
  for (std::uint32_t k = 0; k < blocks.blocks.size(); ++k) {
    const CompiledBlock& block = blocks.blocks[k];
    if (block.id != out->first_block + k) throw std::logic_error("baseline: unit block ids not contiguous");
    if (k > 0 && blocks.blocks[k - 1].function != block.function) run_begin = k;
    BaselineBlock& described = out->blocks[k];
    described.id = block.id;
    described.records = block.instruction_count;
    described.run_begin = run_begin;
    if (resumable_block(program, block)) {
      describe_resumable(program, layout, block, described);
    } else if (block.instruction_count == 0) {
      throw std::logic_error("baseline: block " + std::to_string(block.id) + " is empty");
    }
  }
  for (std::uint32_t k = static_cast<std::uint32_t>(blocks.blocks.size()); k-- > 0;) {
    BaselineBlock& described = out->blocks[k];
    const bool last_of_run = k + 1 == blocks.blocks.size() || out->blocks[k + 1].run_begin != described.run_begin;
    described.run_end = last_of_run ? k + 1 : out->blocks[k + 1].run_end;
  }
  // One code buffer per thread, reused from unit to unit (a warm start compiles thousands).
  thread_local std::vector<std::uint8_t> buffer;
  Assembler as(std::move(buffer));
  const Label epilogue = as.new_label();
  std::vector<Label> bodies(blocks.blocks.size());
  for (Label& body : bodies) body = as.new_label();
  std::vector<std::size_t> offsets(blocks.blocks.size(), 0);
  for (std::uint32_t k = 0; k < blocks.blocks.size(); ++k) {
    BaselineBlock& described = out->blocks[k];
    if (described.resumable) continue;
    const DirectTarget direct = [&](std::uint32_t id) -> std::optional<Label> {
      const std::uint32_t at = id - out->first_block;
      if (at < described.run_begin || at >= described.run_end || out->blocks[at].resumable) return std::nullopt;
      return bodies[at];
    };
    offsets[k] = as.size();
    BlockWriter(as, program, blocks.blocks[k], k, described, bodies[k], epilogue, direct).write();
  }
  // Every block leaves through one epilogue.
  as.bind(epilogue);
  as.pop(Reg::kR15);
  as.pop(Reg::kR14);
  as.pop(Reg::kR13);
  as.pop(Reg::kR12);
  as.pop(Reg::kRbx);
  as.ret();
  if (!as.finish()) throw std::logic_error("baseline: a jump to an unbound label");
  // The entry: baseline_unit_run with this unit as its sixth argument (r9), after the blocks.
  const std::size_t entry_offset = as.size();
  as.mov_imm64(Reg::kR9, address_of(out.get()));
  as.mov_imm64(Reg::kRax, helper_address(&baseline_unit_run));
  as.jmp_reg(Reg::kRax);
  const std::vector<std::uint8_t>& code = as.code();
  out->code_bytes = code.size();
  const std::optional<jit::CodeSpan> span = code_arena().allocate(code.size(), 64);
  if (!span) throw BaselineUnavailable("baseline: the code arena is full");
  std::memcpy(span->writable, code.data(), code.size());
  const std::uint64_t entry = span->executable + entry_offset;
  std::memcpy(&out->entry, &entry, sizeof(entry));
  std::vector<jit::PerfMapEntry> names;
  if (jit::perf_map_enabled()) names.push_back({entry, code.size() - entry_offset, "wasm_baseline_entry"});
  for (std::uint32_t k = 0; k < out->blocks.size(); ++k) {
    BaselineBlock& described = out->blocks[k];
    described.unit_blocks = out->blocks.data();  // (the vector is final: no block moves again)
    described.unit_first = out->first_block;
    described.unit_size = static_cast<std::uint32_t>(out->blocks.size());
    if (described.resumable) continue;
    const std::uint64_t address = span->executable + offsets[k];
    std::memcpy(&described.code, &address, sizeof(address));
    if (jit::perf_map_enabled()) {
      std::size_t end = entry_offset;
      for (std::uint32_t next = k + 1; next < out->blocks.size(); ++next) {
        if (!out->blocks[next].resumable) {
          end = offsets[next];
          break;
        }
      }
      names.push_back({address, end - offsets[k], "wasm_baseline_block" + std::to_string(described.id)});
    }
  }
  if (!names.empty()) jit::write_perf_map(names);
  buffer = as.take_code();
  return out;
}

}  // namespace wavestack::wasm::baseline
