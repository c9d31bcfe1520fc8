#include "wasm/validate/function_validator.hpp"

#include <algorithm>
#include <string>

#include "wasm/module/errors.hpp"
#include "wasm/module/opcodes.hpp"
#include "wasm/validate/opcode_signatures.hpp"

namespace wavestack::wasm {
namespace {

// Implementation limit on parameters + locals of one function. WebAssembly allows up to
// 2^32 - 1; every locals slot lives in device memory per frame, and the JS embedding and
// wasmtime use the same limit.
constexpr std::uint64_t kMaxLocals = 50000;

struct ControlFrame {
  std::uint16_t opcode = op::kBlock;  // kBlock, kLoop, kIf, kElse; the function body is a kBlock
  std::vector<ValType> params;
  std::vector<ValType> results;
  std::size_t height = 0;  // operand stack height below this frame
  bool unreachable = false;
  std::uint32_t loop_pc = 0;                    // loops: where a branch to the label goes
  std::uint32_t if_jump = 0;                    // ifs: the kJumpIfZero to point at the else branch or the end
  std::vector<std::uint32_t> forward_branches;  // instructions whose `a` becomes the end pc

  [[nodiscard]] const std::vector<ValType>& label_types() const { return opcode == op::kLoop ? params : results; }
};

class FunctionValidator {
 public:
  FunctionValidator(const FunctionContext& context, std::uint32_t defined_index, Program& program)
      : module_(context.module),
        declared_references_(context.declared_references),
        function_index_(module_.imported_functions + defined_index),
        body_(module_.bodies[defined_index]),
        program_(program) {}

  void run();

 private:
  // --- errors
  [[noreturn]] void invalid(const std::string& reason) const { throw InvalidModule(offset_, reason); }
  [[noreturn]] void mismatch(ValType expected, ValType found) const {
    invalid(std::string("type mismatch: expected ") + val_type_name(expected) + ", found " +
            (found == ValType::kUnknown ? "nothing" : val_type_name(found)));
  }

  // --- operand stack
  void push(ValType type) {
    operands_.push_back(type);
    max_height_ = std::max(max_height_, operands_.size());
  }
  void push_all(const std::vector<ValType>& types) {
    for (ValType type : types) push(type);
  }
  ValType pop_any() {
    const ControlFrame& frame = frames_.back();
    if (operands_.size() == frame.height) {
      if (frame.unreachable) return ValType::kUnknown;
      invalid("type mismatch: the operand stack is empty");
    }
    const ValType type = operands_.back();
    operands_.pop_back();
    return type;
  }
  ValType pop(ValType expected) {
    const ValType actual = pop_any();
    if (actual != expected && actual != ValType::kUnknown && expected != ValType::kUnknown) {
      mismatch(expected, actual);
    }
    return actual;
  }
  void pop_all(const std::vector<ValType>& types) {
    for (std::size_t k = types.size(); k > 0; --k) pop(types[k - 1]);  // the last type is on top
  }
  // Like pop_all, without changing the stack (no copy: br_table may have many labels).
  void check_top(const std::vector<ValType>& types) const {
    const ControlFrame& frame = frames_.back();
    std::size_t height = operands_.size();
    for (std::size_t k = types.size(); k > 0; --k) {
      if (height == frame.height) {
        if (frame.unreachable) return;  // the rest come from the bottom type
        invalid("type mismatch: the operand stack is empty");
      }
      const ValType actual = operands_[--height];
      if (actual != types[k - 1] && actual != ValType::kUnknown) mismatch(types[k - 1], actual);
    }
  }

  // --- control frames
  void push_frame(std::uint16_t opcode, std::vector<ValType> params, std::vector<ValType> results) {
    ControlFrame frame;
    frame.opcode = opcode;
    frame.height = operands_.size();
    frame.params = std::move(params);
    frame.results = std::move(results);
    frame.loop_pc = pc();
    frames_.push_back(std::move(frame));
    push_all(frames_.back().params);
  }
  // Checks the frame's results are exactly what is on its part of the stack.
  void check_frame_end() {
    ControlFrame& frame = frames_.back();
    pop_all(frame.results);
    if (operands_.size() != frame.height) invalid("type mismatch: values left on the stack at the end of a block");
  }
  void mark_unreachable() {
    ControlFrame& frame = frames_.back();
    operands_.resize(frame.height);
    frame.unreachable = true;
  }
  ControlFrame& label(std::uint32_t depth) {
    if (depth >= frames_.size()) invalid("unknown label " + std::to_string(depth));
    return frames_[frames_.size() - 1 - depth];
  }

  // --- lowering
  [[nodiscard]] std::uint32_t pc() const { return static_cast<std::uint32_t>(program_.code.size()); }
  std::uint32_t emit(Instruction instruction) {
    const std::uint32_t at = pc();
    program_.code.push_back(instruction);
    return at;
  }
  // A branch to `frame`'s label: target (now for loops, patched at the end otherwise),
  // number of values it carries, and the stack height to cut back to.
  void emit_branch(std::uint16_t opcode, std::uint32_t depth) {
    ControlFrame& frame = label(depth);
    Instruction branch;
    branch.opcode = opcode;
    branch.b = static_cast<std::uint32_t>(frame.label_types().size());
    branch.c = static_cast<std::uint32_t>(frame.height);
    if (frame.opcode == op::kLoop) {
      branch.a = frame.loop_pc;
      emit(branch);
    } else {
      frame.forward_branches.push_back(emit(branch));
    }
  }

  // --- instruction groups
  void block_signature(const Instruction& instruction, std::vector<ValType>& params, std::vector<ValType>& results);
  void control(const Instruction& instruction, std::size_t& index);
  void end_block();
  ValType local_type(std::uint32_t index);
  void check_memory() {
    if (module_.memories.empty()) invalid("unknown memory 0");
  }
  const TableType& table(std::uint32_t index) {
    if (index >= module_.tables.size()) invalid("unknown table " + std::to_string(index));
    return module_.tables[index];
  }
  void check_data_segment(std::uint32_t index) {
    if (index >= module_.data_count.value_or(0)) invalid("unknown data segment " + std::to_string(index));
  }
  const ElementSegment& element_segment(std::uint32_t index) {
    if (index >= module_.elements.size()) invalid("unknown elem segment " + std::to_string(index));
    return module_.elements[index];
  }
  void instruction(const Instruction& instruction, std::size_t& index);

  const Module& module_;
  const std::vector<bool>& declared_references_;
  std::uint32_t function_index_;
  const FunctionBody& body_;
  Program& program_;
  std::vector<ValType> operands_;
  std::vector<ControlFrame> frames_;
  std::size_t max_height_ = 0;
  std::size_t offset_ = 0;                       // byte offset of the instruction being checked
  std::vector<std::uint64_t> local_group_ends_;  // cumulative counts, params first
  std::vector<ValType> local_group_types_;
};

ValType FunctionValidator::local_type(std::uint32_t index) {
  const auto group = std::upper_bound(local_group_ends_.begin(), local_group_ends_.end(), std::uint64_t{index});
  if (group == local_group_ends_.end()) invalid("unknown local " + std::to_string(index));
  return local_group_types_[static_cast<std::size_t>(group - local_group_ends_.begin())];
}

void FunctionValidator::block_signature(const Instruction& instruction, std::vector<ValType>& params,
                                        std::vector<ValType>& results) {
  switch (static_cast<BlockTypeKind>(instruction.flags)) {
    case BlockTypeKind::kEmpty:
      break;
    case BlockTypeKind::kValue:
      results.push_back(static_cast<ValType>(instruction.a));
      break;
    case BlockTypeKind::kTypeIndex:
      if (instruction.a >= module_.types.size()) invalid("unknown type " + std::to_string(instruction.a));
      params = module_.types[instruction.a].params;
      results = module_.types[instruction.a].results;
      break;
  }
}

void FunctionValidator::end_block() {
  check_frame_end();
  ControlFrame frame = std::move(frames_.back());
  // An `if` without `else` has an implicit empty else branch, which must turn the
  // params into the results.
  if (frame.opcode == op::kIf && frame.params != frame.results) {
    invalid("type mismatch: an if without else must have matching parameter and result types");
  }
  frames_.pop_back();
  const bool is_function_end = frames_.empty();
  const std::uint32_t end_pc = pc();
  if (frame.opcode == op::kIf) program_.code[frame.if_jump].a = end_pc;
  for (std::uint32_t branch : frame.forward_branches) program_.code[branch].a = end_pc;
  if (is_function_end) {
    // Falling off the end (or branching to the function's label) returns.
    Instruction ret;
    ret.opcode = op::kReturn;
    ret.a = static_cast<std::uint32_t>(frame.results.size());
    emit(ret);
  } else {
    push_all(frame.results);
  }
}

void FunctionValidator::control(const Instruction& instruction, std::size_t& index) {
  switch (instruction.opcode) {
    case op::kBlock:
    case op::kLoop: {
      std::vector<ValType> params;
      std::vector<ValType> results;
      block_signature(instruction, params, results);
      pop_all(params);
      push_frame(instruction.opcode, std::move(params), std::move(results));
      break;
    }
    case op::kIf: {
      std::vector<ValType> params;
      std::vector<ValType> results;
      block_signature(instruction, params, results);
      pop(ValType::kI32);
      pop_all(params);
      Instruction jump;
      jump.opcode = op::kJumpIfZero;
      const std::uint32_t jump_pc = emit(jump);
      push_frame(op::kIf, std::move(params), std::move(results));
      frames_.back().if_jump = jump_pc;
      break;
    }
    case op::kElse: {
      if (frames_.back().opcode != op::kIf) invalid("else without a matching if");
      check_frame_end();
      ControlFrame& frame = frames_.back();
      // The then-branch jumps over the else-branch; the if's test jumps to it.
      Instruction jump;
      jump.opcode = op::kJump;
      frame.forward_branches.push_back(emit(jump));
      program_.code[frame.if_jump].a = pc();
      frame.opcode = op::kElse;
      frame.unreachable = false;
      push_all(frame.params);
      break;
    }
    case op::kEnd:
      end_block();
      break;
    case op::kBr:
      pop_all(label(instruction.a).label_types());
      emit_branch(op::kBr, instruction.a);
      mark_unreachable();
      break;
    case op::kBrIf: {
      pop(ValType::kI32);
      const std::vector<ValType>& types = label(instruction.a).label_types();
      pop_all(types);
      push_all(types);
      emit_branch(op::kBrIf, instruction.a);
      break;
    }
    case op::kBrTable: {
      pop(ValType::kI32);
      const std::uint32_t count = instruction.a;
      const auto& code = body_.code;
      const std::uint32_t default_depth = code[index + 1 + count].a;
      const std::size_t arity = label(default_depth).label_types().size();
      Instruction table = instruction;
      emit(table);
      for (std::uint32_t k = 0; k <= count; ++k) {
        offset_ = body_.offsets[index + 1 + k];
        const std::uint32_t depth = code[index + 1 + k].a;
        const std::vector<ValType>& types = label(depth).label_types();
        if (types.size() != arity) invalid("type mismatch: br_table labels carry different numbers of values");
        check_top(types);  // every label's types must fit the stack, which stays as it is
        emit_branch(op::kBrTableEntry, depth);
      }
      pop_all(label(default_depth).label_types());
      mark_unreachable();
      index += count + 1;
      break;
    }
    case op::kReturn: {
      pop_all(frames_.front().results);
      Instruction ret;
      ret.opcode = op::kReturn;
      ret.a = static_cast<std::uint32_t>(frames_.front().results.size());
      emit(ret);
      mark_unreachable();
      break;
    }
    default:
      break;
  }
}

void FunctionValidator::instruction(const Instruction& instruction, std::size_t& index) {
  const std::uint16_t opcode = instruction.opcode;
  switch (opcode) {
    case op::kBlock:
    case op::kLoop:
    case op::kIf:
    case op::kElse:
    case op::kEnd:
    case op::kBr:
    case op::kBrIf:
    case op::kBrTable:
    case op::kReturn:
      control(instruction, index);
      return;
    case op::kNop:
      return;  // nothing to run
    case op::kUnreachable:
      emit(instruction);
      mark_unreachable();
      return;
    case op::kCall: {
      if (instruction.a >= module_.function_types.size()) invalid("unknown function " + std::to_string(instruction.a));
      const FuncType& type = module_.function_type(instruction.a);
      pop_all(type.params);
      push_all(type.results);
      break;
    }
    case op::kCallIndirect: {
      const TableType& target = table(instruction.b);
      if (target.element != ValType::kFuncRef) invalid("type mismatch: call_indirect through a table of externref");
      if (instruction.a >= module_.types.size()) invalid("unknown type " + std::to_string(instruction.a));
      const FuncType& type = module_.types[instruction.a];
      pop(ValType::kI32);
      pop_all(type.params);
      push_all(type.results);
      Instruction lowered = instruction;
      lowered.c = program_.type_ids[instruction.a];  // what the callee's type id must equal
      emit(lowered);
      return;
    }
    case op::kDrop:
      pop_any();
      break;
    case op::kSelect: {
      pop(ValType::kI32);
      const ValType first = pop_any();
      const ValType second = pop_any();
      if (is_reference(first) || is_reference(second)) invalid("type mismatch: select without a type on references");
      if (first != second && first != ValType::kUnknown && second != ValType::kUnknown) mismatch(first, second);
      push(first == ValType::kUnknown ? second : first);
      break;
    }
    case op::kSelectTyped: {
      if (instruction.b != 1) invalid("invalid result arity");
      const auto type = static_cast<ValType>(instruction.a);
      pop(ValType::kI32);
      pop(type);
      pop(type);
      push(type);
      Instruction lowered = instruction;
      lowered.opcode = op::kSelect;
      emit(lowered);
      return;
    }
    case op::kLocalGet:
      push(local_type(instruction.a));
      break;
    case op::kLocalSet:
      pop(local_type(instruction.a));
      break;
    case op::kLocalTee: {
      const ValType type = local_type(instruction.a);
      pop(type);
      push(type);
      break;
    }
    case op::kGlobalGet:
      if (instruction.a >= module_.global_types.size()) invalid("unknown global " + std::to_string(instruction.a));
      push(module_.global_types[instruction.a].type);
      break;
    case op::kGlobalSet: {
      if (instruction.a >= module_.global_types.size()) invalid("unknown global " + std::to_string(instruction.a));
      const GlobalType& global = module_.global_types[instruction.a];
      if (!global.is_mutable) invalid("global is immutable");
      pop(global.type);
      break;
    }
    case op::kTableGet: {
      const ValType element = table(instruction.a).element;
      pop(ValType::kI32);
      push(element);
      break;
    }
    case op::kTableSet: {
      const ValType element = table(instruction.a).element;
      pop(element);
      pop(ValType::kI32);
      break;
    }
    case op::kMemorySize:
      check_memory();
      push(ValType::kI32);
      break;
    case op::kMemoryGrow:
      check_memory();
      pop(ValType::kI32);
      push(ValType::kI32);
      break;
    case op::kI32Const:
      push(ValType::kI32);
      break;
    case op::kI64Const:
      push(ValType::kI64);
      break;
    case op::kF32Const:
      push(ValType::kF32);
      break;
    case op::kF64Const:
      push(ValType::kF64);
      break;
    case op::kRefNull:
      push(static_cast<ValType>(instruction.a));
      break;
    case op::kRefIsNull: {
      const ValType type = pop_any();
      if (type != ValType::kUnknown && !is_reference(type)) {
        invalid(std::string("type mismatch: ref.is_null of ") + val_type_name(type));
      }
      push(ValType::kI32);
      break;
    }
    case op::kRefFunc:
      if (instruction.a >= module_.function_types.size()) invalid("unknown function " + std::to_string(instruction.a));
      if (!declared_references_[instruction.a]) invalid("undeclared function reference");
      push(ValType::kFuncRef);
      break;
    case op::kMemoryInit:
      check_memory();
      check_data_segment(instruction.a);
      pop(ValType::kI32);
      pop(ValType::kI32);
      pop(ValType::kI32);
      break;
    case op::kDataDrop:
      check_data_segment(instruction.a);
      break;
    case op::kMemoryCopy:
    case op::kMemoryFill:
      check_memory();
      pop(ValType::kI32);
      pop(ValType::kI32);  // memory.copy: source address; memory.fill: the byte value
      pop(ValType::kI32);
      break;
    case op::kTableInit: {
      const ValType element = table(instruction.b).element;
      const ElementSegment& segment = element_segment(instruction.a);
      if (segment.type != element) invalid("type mismatch: table.init between different reference types");
      pop(ValType::kI32);
      pop(ValType::kI32);
      pop(ValType::kI32);
      break;
    }
    case op::kElemDrop:
      element_segment(instruction.a);
      break;
    case op::kTableCopy: {
      const ValType destination = table(instruction.a).element;
      const ValType source = table(instruction.b).element;
      if (destination != source) invalid("type mismatch: table.copy between different reference types");
      pop(ValType::kI32);
      pop(ValType::kI32);
      pop(ValType::kI32);
      break;
    }
    case op::kTableGrow: {
      const ValType element = table(instruction.a).element;
      pop(ValType::kI32);
      pop(element);
      push(ValType::kI32);
      break;
    }
    case op::kTableSize:
      table(instruction.a);
      push(ValType::kI32);
      break;
    case op::kTableFill: {
      const ValType element = table(instruction.a).element;
      pop(ValType::kI32);
      pop(element);
      pop(ValType::kI32);
      break;
    }
    default:
      if (const auto access = memory_access(opcode)) {
        check_memory();
        if (instruction.a > access->natural_alignment_log2) invalid("alignment must not be larger than natural");
        if (access->is_store) {
          pop(access->type);
          pop(ValType::kI32);
        } else {
          pop(ValType::kI32);
          push(access->type);
        }
      } else if (const auto signature = numeric_signature(opcode)) {
        for (std::uint8_t k = signature->operand_count; k > 0; --k) pop(signature->operands[k - 1]);
        push(signature->result);
      } else {
        invalid("unexpected opcode " + std::to_string(opcode));  // the decoder admits no others
      }
      break;
  }
  emit(instruction);
}

void FunctionValidator::run() {
  const std::uint32_t type_index = module_.function_types[function_index_];
  const FuncType& type = module_.types[type_index];
  offset_ = body_.byte_offset;
  const std::uint64_t total_locals = type.params.size() + body_.local_count;
  if (total_locals > kMaxLocals) {
    throw UnsupportedFeature(offset_, feature::kImplementationLimits,
                             "a function with " + std::to_string(total_locals) + " parameters and locals (at most " +
                                 std::to_string(kMaxLocals) + ")");
  }
  FunctionRecord record;
  record.code_begin = pc();
  record.type_index = type_index;
  record.param_count = static_cast<std::uint32_t>(type.params.size());
  record.local_count = static_cast<std::uint32_t>(body_.local_count);
  record.result_count = static_cast<std::uint32_t>(type.results.size());
  record.local_types_begin = static_cast<std::uint32_t>(program_.local_types.size());
  std::uint64_t running = 0;
  for (ValType param : type.params) {
    local_group_ends_.push_back(++running);
    local_group_types_.push_back(param);
    program_.local_types.push_back(static_cast<std::uint8_t>(param));
  }
  for (const LocalGroup& group : body_.locals) {
    if (group.count == 0) continue;
    running += group.count;
    local_group_ends_.push_back(running);
    local_group_types_.push_back(group.type);
    program_.local_types.insert(program_.local_types.end(), group.count, static_cast<std::uint8_t>(group.type));
  }

  frames_.clear();
  push_frame(op::kBlock, {}, type.results);
  for (std::size_t index = 0; index < body_.code.size(); ++index) {
    offset_ = body_.offsets[index];
    if (frames_.empty()) invalid("instructions after the end of the function");
    instruction(body_.code[index], index);
  }
  if (!frames_.empty()) invalid("the function body is not closed by end");
  record.code_end = pc();
  record.max_stack = static_cast<std::uint32_t>(max_height_);
  program_.functions.push_back(record);
}

}  // namespace

void validate_function(const FunctionContext& context, std::uint32_t defined_index, Program& program) {
  FunctionValidator(context, defined_index, program).run();
}

}  // namespace wavestack::wasm
