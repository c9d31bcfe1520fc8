#include "wasm/compiler/block_codegen.hpp"

#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "wasm/compiler/control_records.hpp"
#include "wasm/compiler/memory_access.hpp"
#include "wasm/compiler/numeric_lowering.hpp"
#include "wasm/compiler/source_text.hpp"
#include "wasm/module/module.hpp"
#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm::compiler {
namespace {

std::string literal(std::uint32_t low, std::uint32_t high) {
  return "uvec2(" + u32(low) + ", " + u32(high) + ")";
}

// The length of a uint literal ("123u") at `at`, or 0.
std::size_t literal_length(const std::string& text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  return end > at && end < text.size() && text[end] == 'u' ? end + 1 - at : 0;
}

// `line` with each lane of a literal pair, "uvec2(5u, 0u).x", written as the lane's literal
// ("5u"): a constant operand of a 32-bit operation is spelled so by the lowerings, and each
// pair is a constructor call that the fast tier's build then inlines and takes apart.
std::string fold_literal_lanes(const std::string& line) {
  static constexpr std::string_view kOpen = "uvec2(";
  std::string out;
  std::size_t copied = 0;
  for (std::size_t at = line.find(kOpen); at != std::string::npos; at = line.find(kOpen, at + 1)) {
    const std::size_t first = at + kOpen.size();
    const std::size_t first_length = literal_length(line, first);
    if (first_length == 0 || line.compare(first + first_length, 2, ", ") != 0) continue;
    const std::size_t second = first + first_length + 2;
    const std::size_t second_length = literal_length(line, second);
    const std::size_t close = second + second_length;
    if (second_length == 0 || line.compare(close, 2, ").") != 0 || close + 2 >= line.size()) continue;
    const char lane = line[close + 2];
    if (lane != 'x' && lane != 'y') continue;
    const std::size_t after = close + 3;
    if (after < line.size() && (std::isalnum(static_cast<unsigned char>(line[after])) != 0 || line[after] == '_')) {
      continue;
    }
    out.append(line, copied, at - copied);
    out.append(line, lane == 'x' ? first : second, lane == 'x' ? first_length : second_length);
    copied = after;
  }
  if (copied == 0) return line;
  out.append(line, copied, std::string::npos);
  return out;
}

// Whether `expression` is a pair whose high word is the literal zero, "uvec2(<low>, 0u)" as a
// whole (not "uvec2(a, 0u).x" nor a call ending in such a pair).
bool is_zero_high_pair(const std::string& expression) {
  static constexpr std::string_view kOpen = "uvec2(";
  static constexpr std::string_view kZeroHigh = ", 0u)";
  if (expression.size() < kOpen.size() + kZeroHigh.size() || expression.compare(0, kOpen.size(), kOpen) != 0 ||
      expression.compare(expression.size() - kZeroHigh.size(), kZeroHigh.size(), kZeroHigh) != 0) {
    return false;
  }
  // The pair's parenthesis closes at the end, and ", 0u" is its second argument.
  int depth = 0;
  for (std::size_t at = kOpen.size() - 1; at < expression.size(); ++at) {
    const char ch = expression[at];
    if (ch == '(') ++depth;
    if (ch == ')' && --depth == 0) return at + 1 == expression.size();
    if (ch == ',' && depth == 1 && at != expression.size() - kZeroHigh.size()) return false;
  }
  return false;
}

// r.sp + offset, spelled without signed arithmetic (the subset's slots are uint).
std::string sp_plus(std::int64_t offset) {
  if (offset == 0) return "r.sp";
  if (offset > 0) return "r.sp + " + u32(static_cast<std::uint32_t>(offset));
  return "r.sp - " + u32(static_cast<std::uint32_t>(-offset));
}

// A load's sign extension in the device library's terms ($: the loaded value), or nullptr.
const char* load_extension(const LoadShape& shape) {
  if (shape.extend == LoadExtend::kSign32) {
    return shape.width == 1 ? "uvec2(i32_extend8_s($.x), 0u)" : "uvec2(i32_extend16_s($.x), 0u)";
  }
  if (shape.extend == LoadExtend::kSign64) {
    if (shape.width == 1) return "i64_extend8_s($)";
    return shape.width == 2 ? "i64_extend16_s($)" : "i64_extend32_s($)";
  }
  return nullptr;
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
  // `in_run`: a full block of a run's switch, whose run has the shared exits (COMPILED_TRAP,
  // COMPILED_SHORT: unit_codegen.cpp); a lane block has none.
  BlockWriter(const Program& program, const CompiledBlock& block, bool prefix, const DirectTarget& direct,
              bool in_run = false)
      : program_(program), block_(block), prefix_(prefix), in_run_(in_run), direct_(direct) {}

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
  void emit(const std::string& line) { text_ += "  " + fold_literal_lanes(line) + "\n"; }

  std::string fresh() { return numbered("t", next_temp_++); }

  // Ends the block early (a trap) having executed `records` records: a prefix returns them; a
  // full block, which took all its records from the run's credit, gives the rest back and
  // leaves the switch.
  void exit_with(std::uint32_t records) {
    if (prefix_) {
      emit("return " + u32(records) + ";");
      return;
    }
    if (records != block_.instruction_count) emit("credit += " + u32(block_.instruction_count - records) + ";");
    emit("break;");
  }

  // How a full block continues at block `target` once r.pc is set: another pass of its own
  // loop, a jump to a full block of its run (COMPILED_GOTO: compiled_blocks.glsl), or back to
  // the run's loop, which leaves the run when the target is not among its blocks.
  std::string transfer_to(std::uint32_t target) const {
    if (target == block_.id && self_loop()) return "continue;";
    if (direct_ && direct_(target)) return "COMPILED_GOTO(" + block_label(target) + ");";
    return "break;";
  }

  // The end of a block whose control continues at r.pc, set by the lines before.
  void end_at_pc() {
    ended_ = true;
    if (prefix_) {
      emit("return " + u32(block_.instruction_count) + ";");
    } else {
      emit("break;");
    }
  }

  // The end of a block that continues at `target` (r.pc set by `set_pc`): a prefix returns, a
  // full block transfers.
  void end_at(std::uint32_t target, const std::string& set_pc) {
    emit(set_pc);
    if (prefix_) {
      end_at_pc();
      return;
    }
    ended_ = true;
    emit(transfer_to(target));
  }

  // An f64 result's temporary is an F64_VARIABLE, like an f64 local's (local_is_f64), or an
  // F64_RAW for the operations that leave the canonical-NaN rule to the value's users
  // (numeric_result_is_raw_f64).
  enum class TempType : std::uint8_t { kBits, kF64, kF64Raw };
  std::string push_temp(const std::string& expression, TempType type = TempType::kBits) {
    std::string name = fresh();
    switch (type) {
      case TempType::kF64:
        emit("F64_VARIABLE " + name + " = F64_VARIABLE(" + expression + ");");
        break;
      case TempType::kF64Raw:
        emit("F64_RAW " + name + " = " + expression + ";");
        break;
      case TempType::kBits:
        emit("uvec2 " + name + " = " + expression + ";");
        if (is_zero_high_pair(expression)) zero_high_.insert(name);
        break;
    }
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

  // Whether operand `value` holds zero in its high word: a pair so spelled, or a temporary or
  // local variable known to (zero_high_).
  bool has_zero_high(const std::string& value) const {
    return is_zero_high_pair(value) || zero_high_.count(value) != 0;
  }

  std::string local(std::uint32_t index) {
    if (locals_.find(index) == locals_.end()) {
      // A full block's locals are its run's variables, already loaded; the run states a 32-bit
      // one with a zero high word (a prefix reads its locals from their slots as they are).
      if (prefix_) {
        emit("uvec2 " + local_name(index) + " = slot_get(r.fp + " + u32(index) + ");");
      } else if (local_is_32_bit(program_, block_.function, index)) {
        zero_high_.insert(local_name(index));
      }
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
    // A 32-bit local's variable is stated with a zero high word (local_is_32_bit), which a
    // value known to have one (a 32-bit result, literal or local) has already.
    const std::string stored = local_is_32_bit(program_, block_.function, index) && !has_zero_high(value)
                                   ? "uvec2(" + value + ".x, 0u)"
                                   : value;
    if (prefix_ && locals_.find(index) == locals_.end()) {
      emit("uvec2 " + name + " = " + stored + ";");
    } else {
      emit(name + " = " + stored + ";");
    }
    if (!prefix_ && local_is_32_bit(program_, block_.function, index)) zero_high_.insert(name);
    locals_[index] = true;
  }

  // A full block's trap goes through its run's one trap site (COMPILED_TRAP, which also gives
  // the records after the trapping one back to the credit): one jump per trapping instruction
  // instead of a call and the credit's update, a tenth of the units' code.
  void trap_if(const std::string& condition, const std::string& code) {
    if (in_run_) {
      emit("if (" + condition + ") COMPILED_TRAP(" + code + ", " + u32(block_.instruction_count - (record_ + 1U)) +
           ");");
      return;
    }
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

  // Before a return of `count` results: where all of them are in variables and fit in the
  // frame's parameters and locals (above those lies the frame header, which frame_return
  // reads), they are written straight to the start of the frame, where frame_return leaves
  // them (it then moves nothing); the values below them are dead. Otherwise the stack is
  // spilled as for any end and frame_return moves the results.
  void place_results(std::uint32_t count) {
    const FunctionRecord& function = program_.functions.at(block_.function);
    if (count > stack_.size() || count > std::uint64_t{function.param_count} + function.local_count) {
      spill_stack();
      return;
    }
    const std::size_t first = stack_.size() - count;
    for (std::uint32_t k = 0; k < count; ++k) emit("slot_set(r.fp + " + u32(k) + ", " + stack_[first + k] + ");");
    emit("r.sp = r.fp + " + u32(count) + ";");
    stack_.clear();
    memory_pops_ = 0;
  }

  void finish_with_pc(std::uint32_t next) {
    spill_locals();
    spill_stack();
    end_at(next, "r.pc = " + u32(next) + ";");
  }

  // A two-way end: `condition` true continues at `taken` (r.pc set by `set_taken`), false at
  // `other`. A full block transfers on each side (a one-block loop passes again from the
  // start of its loop, where its fuel and yield checks are: generate_block).
  void end_two_way(const std::string& condition, std::uint32_t taken, const std::string& set_taken,
                   std::uint32_t other) {
    if (prefix_) {
      emit("if (" + condition + ") {");
      emit("  " + set_taken);
      emit("} else {");
      emit("  r.pc = " + u32(other) + ";");
      emit("}");
      end_at_pc();
      return;
    }
    ended_ = true;
    emit("if (" + condition + ") {");
    emit("  " + set_taken);
    emit("  " + transfer_to(taken));
    emit("}");
    emit("r.pc = " + u32(other) + ";");
    emit(transfer_to(other));
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

  // br and br_if's taken side: the label's values to its height, then the jump.
  static std::string branch(std::uint32_t target, const Instruction& ins) {
    return "frame_branch(r, " + u32(target) + ", " + u32(ins.b) + ", " + u32(ins.c) + ");";
  }

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
        if (in_run_) {
          emit("COMPILED_TRAP(WASM_TRAP_UNREACHABLE, " + u32(block_.instruction_count - (record_ + 1U)) + ");");
        } else {
          emit("frame_trap(r, WASM_TRAP_UNREACHABLE);");
          exit_with(record_ + 1U);
        }
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
        const std::uint32_t target = block_.successors.at(0);
        end_two_way(condition + ".x == 0u", target, "r.pc = " + u32(target) + ";", next_block());
        return;
      }
      case op::kBr: {
        spill_locals();
        spill_stack();
        const std::uint32_t target = block_.successors.at(0);
        end_at(target, branch(target, ins));
        return;
      }
      case op::kBrIf: {
        const std::string condition = pop();
        spill_locals();
        spill_stack();
        const std::uint32_t target = block_.successors.at(0);
        end_two_way(condition + ".x != 0u", target, branch(target, ins), next_block());
        return;
      }
      case op::kBrTable: {
        const std::string index = pop();
        spill_locals();
        spill_stack();
        emit("uvec4 entry = compiled_jump_entry(" + u32(block_.table_begin) + " + min(" + index + ".x, " + u32(ins.a) +
             "));");
        emit("frame_branch(r, entry.y, entry.z, entry.w);");
        end_at_pc();
        return;
      }
      case op::kReturn:
        place_results(ins.a);  // the frame ends: its locals need not be written back
        // ... and must not be: the results now lie where they were (the run's `spill`).
        if (!prefix_) emit("spill = false;");
        emit("frame_return(r, " + u32(ins.a) + ");");
        // A return to a block of this run continues there directly (unit_codegen.cpp).
        if (!prefix_) text_ += std::string(kReturnSitesMarker) + "\n";
        end_at_pc();
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
        emit("COMPILED_MEMORY_REFRESH;");
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
    TempType type = TempType::kBits;
    if (numeric_result_is_raw_f64(numeric.opcode)) {
      type = TempType::kF64Raw;
    } else if (numeric_result_is_f64(numeric.opcode)) {
      type = TempType::kF64;
    }
    push_temp(instantiate_numeric(numeric, first, second, "trap"), type);
    if (numeric.traps) {
      uses_trap_ = true;
      trap_if("trap != WASM_TRAP_NONE", "trap");
    }
  }

  std::string effective_address(const Instruction& ins, std::uint32_t width) {
    const std::string address = pop();
    std::string ea = numbered("ea", next_temp_++);
    emit("uint " + ea + " = 0u;");
    trap_if("!COMPILED_RANGE_OK(" + address + ".x, " + u32(ins.b) + ", " + u32(width) + ", " + ea + ")",
            "WASM_TRAP_MEMORY_OUT_OF_BOUNDS");
    return ea;
  }

  void lower_load(const Instruction& ins) {
    const LoadShape shape = load_shape(ins.opcode);
    const std::string ea = effective_address(ins, shape.width);
    std::string value = "COMPILED_LOAD(" + ea + ", " + u32(shape.width) + ")";
    const char* extension = load_extension(shape);
    if (extension != nullptr) {
      std::string extended = extension;
      extended.replace(extended.find('$'), 1, value);
      value = extended;
    }
    const std::string loaded = push_temp(value);
    // A load of fewer than 8 bytes leaves the high word zero (memory_read, memory_read_from).
    if (shape.width < 8U && extension == nullptr) zero_high_.insert(loaded);
  }

  void lower_store(const Instruction& ins) {
    const std::uint32_t width = store_width(ins.opcode);
    const std::string value = pop();
    const std::string ea = effective_address(ins, width);
    emit("COMPILED_STORE(" + ea + ", " + u32(width) + ", " + value + ");");
  }

  const Program& program_;
  const CompiledBlock& block_;
  bool prefix_;
  bool in_run_;
  const DirectTarget& direct_;
  std::string text_;
  std::vector<std::string> stack_;
  std::set<std::string> zero_high_;  // temporaries and locals whose high word is zero
  std::uint32_t memory_pops_ = 0;
  std::map<std::uint32_t, bool> locals_;  // loaded locals: dirty flag
  std::uint32_t next_temp_ = 0;
  std::uint32_t record_ = 0;  // index of the record being lowered among the executing ones
  bool uses_trap_ = false;
  bool ended_ = false;
};

// The shared code a call or bulk record runs (its statement). `site`: for a call site's fast
// path, which has tested that no continuation is pending (frame_call_defined_now).
std::string resumable_statement(const Program& program, const CompiledBlock& block,
                                std::span<const std::uint32_t> function_entries, bool site = false) {
  const Instruction& ins = program.code.at(block.begin);
  std::string call;
  switch (ins.opcode) {
    case op::kCall: {
      // A defined callee's table facts are constants here (frame_call_defined); an import
      // (WASI, a host function) takes the general path.
      const std::size_t imported = program.function_type_ids.size() - program.functions.size();
      if (ins.a >= imported) {
        const FunctionRecord& callee = program.functions.at(ins.a - imported);
        const std::size_t defined = ins.a - imported;
        const std::string entry = defined < function_entries.size() ? u32(function_entries[defined])
                                                                    : "function_word(" + u32(ins.a) + ", F_CODE)";
        call = std::string(site ? "frame_call_defined_now" : "frame_call_defined") + "(r, " + u32(ins.a) + ", " +
               u32(block.id + 1U) + ", " + u32(callee.param_count) + ", " + u32(callee.local_count) + ", " +
               u32(callee.max_stack) + ", " + entry;
        call += site ? std::string(has_reference_locals(program, static_cast<std::uint32_t>(defined)) ? ", true);"
                                                                                                      : ", false);")
                     : ");";
      } else {
        call = "frame_call(r, " + u32(ins.a) + ", " + u32(block.id + 1U) + ");";
      }
      break;
    }
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
  return call;
}

// A call or bulk record, alone in its block: it may run again as a continuation (charged
// nothing), with r.pc one past the block so that frame_continue's pc - 1 selects it again.
std::string resumable_body(const Program& program, const CompiledBlock& block,
                           std::span<const std::uint32_t> function_entries) {
  std::string text;
  text += "  uint charged = r.cont == 0u ? 1u : 0u;\n";
  text += "  if (left < charged) return compiled_out_of_fuel(r, 0u);\n";
  text += "  r.pc = " + u32(block.id + 1U) + ";\n";
  text += "  " + resumable_statement(program, block, function_entries) + "\n";
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

bool local_is_32_bit(const Program& program, std::uint32_t function, std::uint32_t index) {
  const FunctionRecord& record = program.functions.at(function);
  const auto type = static_cast<ValType>(program.local_types.at(record.local_types_begin + index));
  return type == ValType::kI32 || type == ValType::kF32 || type == ValType::kFuncRef || type == ValType::kExternRef;
}

bool local_is_reference(const Program& program, std::uint32_t function, std::uint32_t index) {
  const FunctionRecord& record = program.functions.at(function);
  return is_reference(static_cast<ValType>(program.local_types.at(record.local_types_begin + index)));
}

bool has_reference_locals(const Program& program, std::uint32_t function) {
  const FunctionRecord& record = program.functions.at(function);
  for (std::uint32_t k = record.param_count; k < record.param_count + record.local_count; ++k) {
    if (local_is_reference(program, function, k)) return true;
  }
  return false;
}

bool local_is_f64(const Program& program, std::uint32_t function, std::uint32_t index) {
  const FunctionRecord& record = program.functions.at(function);
  return static_cast<ValType>(program.local_types.at(record.local_types_begin + index)) == ValType::kF64;
}

std::string block_label(std::uint32_t id) {
  return numbered("at", id);
}

bool is_resumable_block(const Program& program, const CompiledBlock& block) {
  return block.instruction_count == 1 && is_resumable(program.code.at(block.begin).opcode);
}

bool is_lane_block(const Program& program, const CompiledBlock& block) {
  return !is_resumable_block(program, block) && block.terminator != Terminator::kReturn && block.instruction_count != 0;
}

LaneBlockSource generate_lane_block(const Program& program, const CompiledBlock& block) {
  if (!is_lane_block(program, block)) {
    throw std::logic_error("compiler: block " + std::to_string(block.id) + " is not a lane block");
  }
  // No direct targets: every transfer is a `break` (a one-block loop's is a `continue`),
  // which leaves the do-while below with r.pc set.
  const DirectTarget no_direct_target;
  BlockWriter writer(program, block, false, no_direct_target);
  const std::string body = writer.body();
  // A lane keeps its frame: a return would leave the group's locals stale.
  if (body.find("frame_return") != std::string::npos || body.find(kReturnSitesMarker) != std::string::npos) {
    throw std::logic_error("compiler: lane block " + std::to_string(block.id) + " returns");
  }
  LaneBlockSource source;
  source.locals = writer.locals();
  source.text = "  COMPILED_MEMORY_LOCALS;\n  credit -= " + u32(block.instruction_count) + ";\n  do {\n" + body +
                "  } while (false);\n";
  return source;
}

BlockSource generate_block(const Program& program, const CompiledBlock& block, const DirectTarget& direct,
                           std::span<const std::uint32_t> function_entries) {
  std::uint32_t work = 0;
  for (std::uint32_t pc = block.begin; pc < block.end;) {
    const Instruction& ins = program.code.at(pc);
    work += record_work(program, pc);
    pc += ins.opcode == op::kBrTable ? br_table_entry_count(ins) + 1U : 1U;
  }
  const std::string name = block_function_name(block.id);
  const std::string signature = "(INOUT(Regs) r, uint left, uint room) {\n";
  const std::string charge = "  COMPILED_CHARGE(" + u32(work) + ");\n";
  const std::string comment = "// block " + std::to_string(block.id) + ": function " + std::to_string(block.function) +
                              ", records " + std::to_string(block.begin) + ".." + std::to_string(block.end) + "\n";
  BlockSource source;
  if (is_resumable_block(program, block)) {
    if (block.successors.size() != 1 || block.successors.front() != block.id + 1U) {
      throw std::logic_error("compiler: the continuation of block " + std::to_string(block.id) + " is not the next id");
    }
    source.resumable = true;
    source.work = work;
    source.statement = resumable_statement(program, block, function_entries, true);
    const std::uint16_t opcode = program.code.at(block.begin).opcode;
    source.is_call = opcode == op::kCall || opcode == op::kCallIndirect;
    if (opcode == op::kCall) source.callee = program.code.at(block.begin).a;
    // Over the quantum (`room`: compiled_block_room) or the loop budget, unless it is the
    // dispatch's first block: the dispatch ends at this block boundary.
    source.body = comment + "uint " + name + signature + "  if (room < 1u || (r.work != 0u && COMPILED_OVER_BUDGET(" +
                  u32(work) + "))) return COMPILED_YIELD;\n" + charge +
                  resumable_body(program, block, function_entries) + "}\n";
    return source;
  }
  if (block.instruction_count == 0) {
    throw std::logic_error("compiler: block " + std::to_string(block.id) + " has no records");
  }
  source.prefix = comment + "uint " + name + "_p" + signature + "  COMPILED_MEMORY_LOCALS;\n" + charge +
                  BlockWriter(program, block, true, direct).body() + "}\n";
  // The full block, a case of its run's switch. When its records do not fit the run's credit
  // (or its work the budget) compiled_short decides: it yields, or asks for its prefix (which
  // the run makes after spilling its locals: COMPILED_PREFIX), without running anything, or it
  // runs as the dispatch's first block.
  BlockWriter full(program, block, false, direct, /*in_run=*/true);
  const std::string body = full.body();
  source.locals = full.locals();
  const std::string records = u32(block.instruction_count);
  std::string text = "    if (credit < " + records + " || COMPILED_OVER_BUDGET(" + u32(work) + ")) COMPILED_SHORT(" +
                     records + ", " + u32(work) + ");\n    credit -= " + records + ";\n  " + charge;
  // The writer's lines are indented for a function body; a case sits deeper.
  for (std::size_t at = 0; at < body.size();) {
    const std::size_t line_end = body.find('\n', at);
    text += "  ";
    text.append(body, at, line_end - at + 1);
    at = line_end + 1;
  }
  // A one-block loop: its exits break out of the while, then out of the case.
  if (full.self_loop()) text = "    while (true) {\n" + text + "    }\n    break;\n";
  source.label = block_label(block.id);
  source.body = comment + text;
  return source;
}

}  // namespace wavestack::wasm::compiler
