#include "wasm/validate/const_expr.hpp"

#include <string>
#include <vector>

#include "wasm/module/errors.hpp"
#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm {

void validate_const_expr(const Module& module, const ConstExpr& expr, ValType expected, std::uint32_t visible_globals) {
  std::vector<ValType> stack;
  for (std::size_t k = 0; k < expr.code.size(); ++k) {
    const Instruction& instruction = expr.code[k];
    const std::size_t at = expr.offsets[k];
    switch (instruction.opcode) {
      case op::kI32Const:
        stack.push_back(ValType::kI32);
        break;
      case op::kI64Const:
        stack.push_back(ValType::kI64);
        break;
      case op::kF32Const:
        stack.push_back(ValType::kF32);
        break;
      case op::kF64Const:
        stack.push_back(ValType::kF64);
        break;
      case op::kRefNull:
        stack.push_back(static_cast<ValType>(instruction.a));
        break;
      case op::kRefFunc:
        if (instruction.a >= module.function_types.size()) {
          throw InvalidModule(at, "unknown function " + std::to_string(instruction.a));
        }
        stack.push_back(ValType::kFuncRef);
        break;
      case op::kGlobalGet: {
        if (instruction.a >= visible_globals) {
          throw InvalidModule(at, "unknown global " + std::to_string(instruction.a));
        }
        const GlobalType& global = module.global_types[instruction.a];
        if (global.is_mutable) throw InvalidModule(at, "constant expression required");
        stack.push_back(global.type);
        break;
      }
      case op::kEnd:
        if (stack.size() != 1 || stack.front() != expected) {
          throw InvalidModule(
              at, std::string("type mismatch: a constant expression must produce one ") + val_type_name(expected));
        }
        return;
      default:
        throw InvalidModule(at, "constant expression required");
    }
  }
}

}  // namespace wavestack::wasm
