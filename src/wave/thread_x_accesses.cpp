#include "wave/thread_x_accesses.hpp"

#include <vector>

namespace wavestack::wave {

ThreadXAccesses find_thread_x_accesses(const Module& module) {
  ThreadXAccesses found;
  std::vector<bool> other(module.registers.size(), false);
  std::vector<bool> thread_x(module.registers.size(), false);
  for (const auto& scalar : module.scalars) other[scalar.reg] = true;
  auto scan = [&](const std::vector<Stmt>& stmts, auto&& self) -> void {
    for (const auto& s : stmts) {
      if (s.dst != kNoReg) (s.op == Opcode::ThreadId && s.dim == 0 ? thread_x : other)[s.dst] = true;
      self(s.body, self);
      self(s.other, self);
    }
  };
  scan(module.body, scan);
  for (size_t reg = 0; reg < module.registers.size(); ++reg) {
    if (thread_x[reg] && !other[reg]) found.registers.insert(static_cast<Reg>(reg));
  }
  auto uses = [&](const std::vector<Stmt>& stmts, auto&& self) -> void {
    for (const auto& s : stmts) {
      if ((s.op == Opcode::Load || s.op == Opcode::Store) && s.mem.kind == MemRef::Kind::Buffer &&
          found.registers.contains(s.args[0])) {
        found.buffers.insert(s.mem.index);
      }
      self(s.body, self);
      self(s.other, self);
    }
  };
  uses(module.body, uses);
  return found;
}

}  // namespace wavestack::wave
