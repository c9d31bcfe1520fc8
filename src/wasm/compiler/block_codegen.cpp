#include "wasm/compiler/block_codegen.hpp"

#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "wasm/compiler/control_records.hpp"
#include "wasm/compiler/numeric_lowering.hpp"
#include "wasm/opcodes.hpp"

namespace wavestack::wasm::compiler {
namespace {

std::string u32(std::uint32_t value) {
  return std::to_string(value) + "u";
}

// prefix followed by n (appended: GCC 12 reports a false -Wrestrict for "x" + std::to_string(n)).
std::string numbered(const char* prefix, std::uint32_t n) {
  std::string name(prefix);
  name += std::to_string(n);
  return name;
}

std::string literal(std::uint32_t low, std::uint32_t high) {
  return "uvec2(" + u32(low) + ", " + u32(high) + ")";
}

// r.sp + offset, spelled without signed arithmetic (the subset's slots are uint).
std::string sp_plus(std::int64_t offset) {
  if (offset == 0) return "r.sp";
  if (offset > 0) return "r.sp + " + u32(static_cast<std::uint32_t>(offset));
  return "r.sp - " + u32(static_cast<std::uint32_t>(-offset));
}

struct MemoryAccess {
  std::uint32_t width = 0;
  const char* extend = nullptr;  // sign extension of the loaded bytes, or nullptr
};

// Loads 0x28..0x35 in opcode order (device/instance_memory.glsl, load_width/load_extend).
MemoryAccess load_access(std::uint16_t opcode) {
  static constexpr MemoryAccess kLoads[] = {
      {4, nullptr},
      {8, nullptr},
      {4, nullptr},
      {8, nullptr},  // i32 i64 f32 f64
      {1, "uvec2(i32_extend8_s($.x), 0u)"},
      {1, nullptr},  // i32.load8_s/u
      {2, "uvec2(i32_extend16_s($.x), 0u)"},
      {2, nullptr},  // i32.load16_s/u
      {1, "i64_extend8_s($)"},
      {1, nullptr},  // i64.load8_s/u
      {2, "i64_extend16_s($)"},
      {2, nullptr},  // i64.load16_s/u
      {4, "i64_extend32_s($)"},
      {4, nullptr},  // i64.load32_s/u
  };
  return kLoads[opcode - op::kFirstLoad];
}

// Stores 0x36..0x3E: bytes written.
std::uint32_t store_width(std::uint16_t opcode) {
  static constexpr std::uint32_t kWidths[] = {4, 8, 4, 8, 1, 2, 1, 2, 4};
  return kWidths[opcode - op::kFirstStore];
}

// Writes one block's code. The operand stack is symbolic: each entry is an expression that
// stays valid until popped (a temporary, a literal or a local's variable, which a write to
// that local first copies out). Entries below the block's starting height are read from the
// value stack when first popped; r.sp itself moves only when the block spills.
//
// Two forms: the prefix (prefix = true) is a function of its own that reads locals from
// their frame slots on first use and stops before record `left`; the full block
// (prefix = false) is a case of its run's switch (unit_codegen.cpp), where locals are the
// run's variables (loaded when the run starts, spilled when it ends) and every exit sets `n`
// to the records executed and breaks out of the switch.
class BlockWriter {
 public:
  BlockWriter(const Program& program, const CompiledBlock& block, bool prefix)
      : program_(program), block_(block), prefix_(prefix) {}

  // The locals the block reads or writes, and whether it writes each (after body()).
  const std::map<std::uint32_t, bool>& locals() const { return locals_; }

  std::string body() {
    std::uint32_t pc = block_.begin;
    for (std::uint32_t k = 0; k < block_.instruction_count; ++k) {
      record_ = k;
      if (prefix_) emit("if (left == " + u32(k) + ") return compiled_out_of_fuel(r, " + u32(k) + ");");
      // The prefix never runs its last record: `left` is below the block's count.
      if (prefix_ && k + 1 == block_.instruction_count) break;
      const Instruction& ins = program_.code.at(pc);
      lower(ins, pc);
      pc += ins.opcode == op::kBrTable ? br_table_entry_count(ins) + 1U : 1U;
    }
    if (prefix_) {
      emit("return compiled_out_of_fuel(r, " + u32(block_.instruction_count - 1U) + ");");
    } else if (!ended_) {
      finish_with_pc(block_.successors.at(0));
    }
    std::string head;
    if (uses_trap_) head += "  uint trap = WASM_TRAP_NONE;\n";
    return head + text_;
  }

 private:
  void emit(const std::string& line) { text_ += "  " + line + "\n"; }

  std::string fresh() { return numbered("t", next_temp_++); }

  // Ends the block having executed `records` records: a prefix returns, a full block's case
  // leaves the switch.
  void exit_with(std::uint32_t records) {
    if (prefix_) {
      emit("return " + u32(records) + ";");
    } else {
      emit("n = " + u32(records) + ";");
      emit("break;");
    }
  }

  std::string push_temp(const std::string& expression) {
    std::string name = fresh();
    emit("uvec2 " + name + " = " + expression + ";");
    stack_.push_back(name);
    return name;
  }

  std::string pop() {
    if (!stack_.empty()) {
      std::string top = std::move(stack_.back());
      stack_.pop_back();
      return top;
    }
    ++memory_pops_;
    std::string name = fresh();
    emit("uvec2 " + name + " = slot_get(" + sp_plus(-static_cast<std::int64_t>(memory_pops_)) + ");");
    return name;
  }

  void discard() {
    if (!stack_.empty()) {
      stack_.pop_back();
    } else {
      ++memory_pops_;
    }
  }

  static std::string local_name(std::uint32_t index) { return numbered("l", index); }

  std::string local(std::uint32_t index) {
    if (locals_.find(index) == locals_.end()) {
      // A full block's locals are its run's variables, already loaded.
      if (prefix_) emit("uvec2 " + local_name(index) + " = slot_get(r.fp + " + u32(index) + ");");
      locals_[index] = false;
    }
    return local_name(index);
  }

  void set_local(std::uint32_t index, const std::string& value) {
    const std::string name = local_name(index);
    if (value == name) return;
    for (std::string& entry : stack_) {  // values read before this write keep the old value
      if (entry == name) {
        std::string copy = fresh();
        emit("uvec2 " + copy + " = " + name + ";");
        entry = copy;
      }
    }
    if (prefix_ && locals_.find(index) == locals_.end()) {
      emit("uvec2 " + name + " = " + value + ";");
    } else {
      emit(name + " = " + value + ";");
    }
    locals_[index] = true;
  }

  void trap_if(const std::string& condition, const std::string& code) {
    emit("if (" + condition + ") {");
    emit("  frame_trap(r, " + code + ");");
    text_ += "  ";
    exit_with(record_ + 1U);
    emit("}");
  }

  // A full block's locals stay in its run's variables (the run spills them when it ends).
  void spill_locals() {
    if (!prefix_) return;
    for (const auto& [index, dirty] : locals_) {
      if (dirty) emit("slot_set(r.fp + " + u32(index) + ", " + local_name(index) + ");");
    }
  }

  // Writes the symbolic stack to the value stack and moves r.sp to its top.
  void spill_stack() {
    const auto base = -static_cast<std::int64_t>(memory_pops_);
    for (std::size_t k = 0; k < stack_.size(); ++k) {
      emit("slot_set(" + sp_plus(base + static_cast<std::int64_t>(k)) + ", " + stack_[k] + ");");
    }
    const std::int64_t moved = base + static_cast<std::int64_t>(stack_.size());
    if (moved != 0) emit("r.sp = " + sp_plus(moved) + ";");
    stack_.clear();
    memory_pops_ = 0;
  }

  void finish_with_pc(std::uint32_t next) {
    spill_locals();
    spill_stack();
    emit("r.pc = " + u32(next) + ";");
    end_block();
  }

  void end_block() {
    ended_ = true;
    if (prefix_ || !self_loop()) {
      exit_with(block_.instruction_count);
      return;
    }
    // A full block that may branch to itself runs in a loop of its own (generate_block):
    // another pass is counted here exactly as the run counts a block, with the same checks
    // before it, and starts with the yield and fuel checks again.
    emit("n = " + u32(block_.instruction_count) + ";");
    emit("if (r.pc != " + u32(block_.id) + ") break;");
    emit("compiled_count(c, n);");
    emit("if (r.status != STATUS_RUNNING || c.iterations >= c.quantum || r.work >= r.budget) {");
    emit("  n = COMPILED_COUNTED;");
    emit("  break;");
    emit("}");
    emit("left = compiled_left(c);");
    emit("room = c.quantum - c.iterations;");
  }

 public:
  // Whether the full block may continue at itself (a one-block loop).
  bool self_loop() const {
    for (const std::uint32_t successor : block_.successors) {
      if (successor == block_.id) return true;
    }
    return false;
  }

 private:
  std::uint32_t next_block() const { return block_.successors.back(); }

  void lower(const Instruction& ins, std::uint32_t pc) {
    const std::uint16_t opcode = ins.opcode;
    if (const NumericLowering* numeric = find_numeric_lowering(opcode)) {
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
    switch (opcode) {
      case op::kUnreachable:
        emit("frame_trap(r, WASM_TRAP_UNREACHABLE);");
        exit_with(record_ + 1U);
        ended_ = true;
        return;
      case op::kNop:
        return;
      case op::kJump:
        finish_with_pc(block_.successors.at(0));
        return;
      case op::kJumpIfZero: {
        const std::string condition = pop();
        spill_locals();
        spill_stack();
        emit("r.pc = " + condition + ".x == 0u ? " + u32(block_.successors.at(0)) + " : " + u32(next_block()) + ";");
        end_block();
        return;
      }
      case op::kBr:
        spill_locals();
        spill_stack();
        emit("frame_branch(r, " + u32(block_.successors.at(0)) + ", " + u32(ins.b) + ", " + u32(ins.c) + ");");
        end_block();
        return;
      case op::kBrIf: {
        const std::string condition = pop();
        spill_locals();
        spill_stack();
        emit("if (" + condition + ".x != 0u) {");
        emit("  frame_branch(r, " + u32(block_.successors.at(0)) + ", " + u32(ins.b) + ", " + u32(ins.c) + ");");
        emit("} else {");
        emit("  r.pc = " + u32(next_block()) + ";");
        emit("}");
        end_block();
        return;
      }
      case op::kBrTable: {
        const std::string index = pop();
        spill_locals();
        spill_stack();
        emit("uvec4 entry = compiled_jump_entry(" + u32(block_.table_begin) + " + min(" + index + ".x, " + u32(ins.a) +
             "));");
        emit("frame_branch(r, entry.y, entry.z, entry.w);");
        end_block();
        return;
      }
      case op::kReturn:
        spill_stack();  // the frame ends: its locals need not be written back
        // ... and must not be: the results now lie where they were (the run's `spill`).
        if (!prefix_) emit("spill = false;");
        emit("frame_return(r, " + u32(ins.a) + ");");
        end_block();
        return;
      case op::kDrop:
        discard();
        return;
      case op::kSelect:
      case op::kSelectTyped: {
        const std::string condition = pop();
        const std::string second = pop();
        const std::string first = pop();
        push_temp(condition + ".x != 0u ? " + first + " : " + second);
        return;
      }
      case op::kLocalGet:
        stack_.push_back(local(ins.a));
        return;
      case op::kLocalSet:
        set_local(ins.a, pop());
        return;
      case op::kLocalTee: {
        const std::string value = pop();
        set_local(ins.a, value);
        stack_.push_back(local_name(ins.a));
        return;
      }
      case op::kGlobalGet:
        push_temp("global_get(" + u32(ins.a) + ")");
        return;
      case op::kGlobalSet:
        emit("global_set(" + u32(ins.a) + ", " + pop() + ");");
        return;
      case op::kTableGet: {
        const std::string index = pop();
        trap_if(index + ".x >= table_size(" + u32(ins.a) + ")", "WASM_TRAP_TABLE_OUT_OF_BOUNDS");
        push_temp("uvec2(table_get_entry(" + u32(ins.a) + ", " + index + ".x), 0u)");
        return;
      }
      case op::kTableSet: {
        const std::string ref = pop();
        const std::string index = pop();
        trap_if(index + ".x >= table_size(" + u32(ins.a) + ")", "WASM_TRAP_TABLE_OUT_OF_BOUNDS");
        emit("table_set_entry(" + u32(ins.a) + ", " + index + ".x, " + ref + ".x);");
        return;
      }
      case op::kMemorySize:
        push_temp("uvec2(st_get(S_PAGES), 0u)");
        return;
      case op::kMemoryGrow:
        push_temp("uvec2(compiled_memory_grow(" + pop() + ".x), 0u)");
        return;
      case op::kI32Const:
      case op::kF32Const:
      case op::kRefFunc:
        stack_.push_back(literal(ins.a, 0));
        return;
      case op::kI64Const:
      case op::kF64Const:
        stack_.push_back(literal(ins.a, ins.b));
        return;
      case op::kRefNull:
        stack_.emplace_back("uvec2(NULL_REF, 0u)");
        return;
      case op::kRefIsNull:
        push_temp("uvec2(" + pop() + ".x == NULL_REF ? 1u : 0u, 0u)");
        return;
      case op::kDataDrop:
        emit("st_set(prog(H_DROPPED) + " + u32(ins.a) + ", 1u);");
        return;
      case op::kElemDrop:
        emit("st_set(prog(H_DROPPED) + prog(H_DATA_COUNT) + " + u32(ins.a) + ", 1u);");
        return;
      case op::kTableSize:
        push_temp("uvec2(table_size(" + u32(ins.a) + "), 0u)");
        return;
      default:
        throw std::logic_error("compiler: record " + std::to_string(pc) + " (opcode " + std::to_string(opcode) +
                               ") cannot be compiled inside a block");
    }
  }

  void lower_numeric(const NumericLowering& numeric) {
    std::string second;
    if (numeric.arity == 2) second = pop();
    const std::string first = pop();
    push_temp(instantiate_numeric(numeric, first, second, "trap"));
    if (numeric.traps) {
      uses_trap_ = true;
      trap_if("trap != WASM_TRAP_NONE", "trap");
    }
  }

  std::string effective_address(const Instruction& ins, std::uint32_t width) {
    const std::string address = pop();
    std::string ea = numbered("ea", next_temp_++);
    emit("uint " + ea + " = 0u;");
    trap_if("!memory_range_ok(" + address + ".x, " + u32(ins.b) + ", " + u32(width) + ", " + ea + ")",
            "WASM_TRAP_MEMORY_OUT_OF_BOUNDS");
    return ea;
  }

  void lower_load(const Instruction& ins) {
    const MemoryAccess access = load_access(ins.opcode);
    const std::string ea = effective_address(ins, access.width);
    std::string value = "memory_read(" + ea + ", " + u32(access.width) + ")";
    if (access.extend != nullptr) {
      std::string extended = access.extend;
      extended.replace(extended.find('$'), 1, value);
      value = extended;
    }
    push_temp(value);
  }

  void lower_store(const Instruction& ins) {
    const std::uint32_t width = store_width(ins.opcode);
    const std::string value = pop();
    const std::string ea = effective_address(ins, width);
    emit("memory_write(" + ea + ", " + u32(width) + ", " + value + ");");
  }

  const Program& program_;
  const CompiledBlock& block_;
  bool prefix_;
  std::string text_;
  std::vector<std::string> stack_;
  std::uint32_t memory_pops_ = 0;
  std::map<std::uint32_t, bool> locals_;  // loaded locals: dirty flag
  std::uint32_t next_temp_ = 0;
  std::uint32_t record_ = 0;  // index of the record being lowered among the executing ones
  bool uses_trap_ = false;
  bool ended_ = false;
};

bool is_resumable_block(const Program& program, const CompiledBlock& block) {
  return block.instruction_count == 1 && is_resumable(program.code.at(block.begin).opcode);
}

// A call or bulk record, alone in its block: it may run again as a continuation (charged
// nothing), with r.pc one past the block so that frame_continue's pc - 1 selects it again.
std::string resumable_body(const Program& program, const CompiledBlock& block) {
  const Instruction& ins = program.code.at(block.begin);
  std::string call;
  switch (ins.opcode) {
    case op::kCall:
      call = "frame_call(r, " + u32(ins.a) + ", " + u32(block.id + 1U) + ");";
      break;
    case op::kCallIndirect:
      call = "frame_call_indirect(r, " + u32(ins.b) + ", " + u32(ins.c) + ");";
      break;
    case op::kMemoryInit:
      call = "bulk_memory_init(r, " + u32(ins.a) + ");";
      break;
    case op::kMemoryCopy:
      call = "bulk_memory_copy(r);";
      break;
    case op::kMemoryFill:
      call = "bulk_memory_fill(r);";
      break;
    case op::kTableInit:
      call = "bulk_table_init(r, " + u32(ins.b) + ", " + u32(ins.a) + ");";
      break;
    case op::kTableCopy:
      call = "bulk_table_copy(r, " + u32(ins.a) + ", " + u32(ins.b) + ");";
      break;
    case op::kTableGrow:
      call = "bulk_table_grow(r, " + u32(ins.a) + ");";
      break;
    case op::kTableFill:
      call = "bulk_table_fill(r, " + u32(ins.a) + ");";
      break;
    default:
      throw std::logic_error("compiler: opcode " + std::to_string(ins.opcode) + " is not resumable");
  }
  std::string text;
  text += "  uint charged = r.cont == 0u ? 1u : 0u;\n";
  text += "  if (left < charged) return compiled_out_of_fuel(r, 0u);\n";
  text += "  r.pc = " + u32(block.id + 1U) + ";\n";
  text += "  " + call + "\n";
  text += "  return charged;\n";
  return text;
}

}  // namespace

std::uint32_t record_work(const Program& program, std::uint32_t pc) {
  const Instruction& ins = program.code.at(pc);
  std::uint32_t work = 8;
  if (ins.opcode == op::kBr || ins.opcode == op::kBrIf) work += ins.b;
  if (ins.opcode == op::kBrTable) work += program.code.at(pc + 1U).b;
  if (ins.opcode == op::kReturn) work += ins.a;
  if (find_numeric_lowering(ins.opcode) != nullptr) work += 64;
  return 1 + work;
}

std::string block_function_name(std::uint32_t id) {
  return numbered("b", id);
}

BlockSource generate_block(const Program& program, const CompiledBlock& block) {
  std::uint32_t work = 0;
  for (std::uint32_t pc = block.begin; pc < block.end;) {
    const Instruction& ins = program.code.at(pc);
    work += record_work(program, pc);
    pc += ins.opcode == op::kBrTable ? br_table_entry_count(ins) + 1U : 1U;
  }
  const std::string name = block_function_name(block.id);
  const std::string signature = "(INOUT(Regs) r, uint left, uint room) {\n";
  // Not the dispatch's first block (r.work != 0) and over its loop budget or its quantum:
  // the dispatch ends at this block boundary.
  const std::string over =
      "r.work != 0u && (r.work + " + u32(work) + " > r.budget || room < " + u32(block.instruction_count) + ")";
  const std::string charge = "  r.work += " + u32(work) + ";\n";
  const std::string comment = "// block " + std::to_string(block.id) + ": function " + std::to_string(block.function) +
                              ", records " + std::to_string(block.begin) + ".." + std::to_string(block.end) + "\n";
  BlockSource source;
  if (is_resumable_block(program, block)) {
    if (block.successors.size() != 1 || block.successors.front() != block.id + 1U) {
      throw std::logic_error("compiler: the continuation of block " + std::to_string(block.id) + " is not the next id");
    }
    source.resumable = true;
    source.body = comment + "uint " + name + signature + "  if (" + over + ") return COMPILED_YIELD;\n" + charge +
                  resumable_body(program, block) + "}\n";
    return source;
  }
  source.prefix =
      comment + "uint " + name + "_p" + signature + charge + BlockWriter(program, block, true).body() + "}\n";
  // The full block, a case of its run's switch: it yields, or asks for its prefix (which the
  // run makes after spilling its locals: COMPILED_PREFIX), without running anything.
  BlockWriter full(program, block, false);
  const std::string body = full.body();
  source.locals = full.locals();
  std::string text = "    if (" + over + ") {\n      n = COMPILED_YIELD;\n      break;\n    }\n" + "    if (left < " +
                     u32(block.instruction_count) + ") {\n      n = COMPILED_NEEDS_PREFIX;\n      break;\n    }\n  " +
                     charge;
  // The writer's lines are indented for a function body; a case sits deeper.
  for (std::size_t at = 0; at < body.size();) {
    const std::size_t line_end = body.find('\n', at);
    text += "  ";
    text.append(body, at, line_end - at + 1);
    at = line_end + 1;
  }
  // A one-block loop: its exits break out of the while, then out of the case.
  if (full.self_loop()) text = "    while (true) {\n" + text + "    }\n    break;\n";
  source.body = comment + text;
  return source;
}

}  // namespace wavestack::wasm::compiler
