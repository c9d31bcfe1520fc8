#include "jit/fast_isel_selects.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace wavestack::jit {
namespace {

bool is_constant(llvm::Value* value, bool bit) {
  auto* constant = llvm::dyn_cast<llvm::ConstantInt>(value);
  return constant != nullptr && (bit ? constant->isOne() : constant->isZero());
}

bool is_boolean_select(const llvm::SelectInst* select) {
  return select != nullptr && select->getType()->isIntegerTy(1) && select->getCondition()->getType()->isIntegerTy(1);
}

llvm::Value* as_logic(llvm::SelectInst& select) {
  llvm::IRBuilder<> build(&select);
  llvm::Value* condition = select.getCondition();
  llvm::Value* when_true = select.getTrueValue();
  llvm::Value* when_false = select.getFalseValue();
  if (is_constant(when_true, true)) return build.CreateOr(condition, when_false);    // c || b
  if (is_constant(when_false, false)) return build.CreateAnd(condition, when_true);  // c && a
  return build.CreateOr(build.CreateAnd(condition, when_true), build.CreateAnd(build.CreateNot(condition), when_false));
}

}  // namespace

void boolean_selects_as_logic(llvm::Module& module) {
  for (llvm::Function& function : module) {
    for (llvm::BasicBlock& block : function) {
      for (auto it = block.begin(); it != block.end();) {
        auto* select = llvm::dyn_cast<llvm::SelectInst>(&*it++);  // (advanced first: erased below)
        if (!is_boolean_select(select)) continue;
        select->replaceAllUsesWith(as_logic(*select));
        select->eraseFromParent();
      }
    }
  }
}

}  // namespace wavestack::jit
