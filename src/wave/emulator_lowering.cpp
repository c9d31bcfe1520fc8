// Lowers the statement tree to linear code. Every block records the control instructions
// that leave it with no active lane (break, continue, return, and if/loop ends that find
// no lane left); their `skip` is patched to the enclosing construct's rejoin point, the
// first place where lanes can become active again.
#include <algorithm>

#include "wave/emulator_internal.hpp"

namespace wavestack::wave {
namespace {

class Lowering {
 public:
  explicit Lowering(const Module& module) : m_(module) {}

  LoweredCode run() {
    find_maybe_unset();
    std::vector<uint32_t> exits;
    block(m_.body, exits);
    const uint32_t end = emit(Control::End, 0);
    patch(exits, end);
    out_.stack_depth = std::max<uint32_t>(max_depth_, 1);
    return std::move(out_);
  }

 private:
  uint32_t emit(Control kind, uint32_t line) {
    LInstr in;
    in.kind = kind;
    in.line = line;
    out_.code.push_back(in);
    return static_cast<uint32_t>(out_.code.size() - 1);
  }
  void patch(const std::vector<uint32_t>& exits, uint32_t target) {
    for (auto index : exits) out_.code[index].skip = target;
  }
  uint32_t memory_slot(MemRef ref) const {
    return ref.kind == MemRef::Kind::Buffer ? ref.index : static_cast<uint32_t>(m_.buffers.size()) + ref.index;
  }

  void block(const std::vector<Stmt>& stmts, std::vector<uint32_t>& exits) {
    for (const auto& s : stmts) stmt(s, exits);
  }

  void stmt(const Stmt& s, std::vector<uint32_t>& exits) {
    switch (s.op) {
      case Opcode::If:
        lower_if(s, exits);
        return;
      case Opcode::Loop:
        lower_loop(s, exits);
        return;
      case Opcode::Break:
      case Opcode::Continue: {
        const uint32_t i = emit(s.op == Opcode::Break ? Control::Break : Control::Continue, s.line);
        out_.code[i].slot = loops_.back();
        exits.push_back(i);
        return;
      }
      case Opcode::Return:
        exits.push_back(emit(Control::Return, s.line));
        return;
      case Opcode::Barrier:
        emit(Control::Barrier, s.line);
        return;
      default:
        break;
    }
    LInstr in;
    in.fn = select_handler(m_, s);
    in.dst = s.dst;
    in.a = s.args[0];
    in.b = s.args[1];
    in.c = s.args[2];
    in.mem = memory_slot(s.mem);
    in.ref = s.mem;
    in.dim = s.dim;
    in.line = s.line;
    in.imm = s.imm;
    out_.code.push_back(in);
  }

  void lower_if(const Stmt& s, std::vector<uint32_t>& exits) {
    const uint32_t slot = depth_++;
    max_depth_ = std::max(max_depth_, depth_);
    const uint32_t begin = emit(Control::If, s.line);
    out_.code[begin].a = s.args[0];
    out_.code[begin].slot = slot;
    std::vector<uint32_t> then_exits;
    block(s.body, then_exits);
    uint32_t end = 0;
    if (!s.other.empty()) {
      const uint32_t otherwise = emit(Control::Else, s.line);
      out_.code[otherwise].slot = slot;
      out_.code[begin].target = otherwise;
      patch(then_exits, otherwise);
      std::vector<uint32_t> else_exits;
      block(s.other, else_exits);
      end = emit(Control::EndIf, s.line);
      out_.code[otherwise].target = end;
      patch(else_exits, end);
    } else {
      end = emit(Control::EndIf, s.line);
      out_.code[begin].target = end;
      patch(then_exits, end);
    }
    out_.code[end].slot = slot;
    exits.push_back(end);
    --depth_;
  }

  void lower_loop(const Stmt& s, std::vector<uint32_t>& exits) {
    const uint32_t slot = depth_;
    depth_ += 2;
    max_depth_ = std::max(max_depth_, depth_);
    const uint32_t begin = emit(Control::LoopBegin, s.line);
    out_.code[begin].slot = slot;
    loops_.push_back(slot);
    std::vector<uint32_t> body_exits;
    block(s.body, body_exits);
    loops_.pop_back();
    const uint32_t continuing = emit(Control::Continuing, s.line);
    out_.code[continuing].slot = slot;
    patch(body_exits, continuing);
    std::vector<uint32_t> continuing_exits;
    block(s.other, continuing_exits);
    const uint32_t end = emit(Control::LoopEnd, s.line);
    out_.code[end].slot = slot;
    out_.code[end].target = begin + 1;
    out_.code[continuing].target = end;
    patch(continuing_exits, end);
    exits.push_back(end);
    depth_ -= 2;
  }

  // Definite assignment: a write counts for the rest of its block and the blocks nested in
  // it; a read of a register not definitely written is recorded.
  void find_maybe_unset() {
    std::vector<bool> written(m_.registers.size(), false);
    for (const auto& scalar : m_.scalars) written[scalar.reg] = true;
    std::vector<bool> flagged(m_.registers.size(), false);
    scan(m_.body, written, flagged);
    for (uint32_t r = 0; r < flagged.size(); ++r) {
      if (flagged[r]) out_.maybe_unset.push_back(r);
    }
  }

  void scan(const std::vector<Stmt>& stmts, std::vector<bool> written, std::vector<bool>& flagged) const {
    for (const auto& s : stmts) {
      for (int i = 0; i < op_info(s.op).operands; ++i) {
        if (s.args[i] != kNoReg && !written[s.args[i]]) flagged[s.args[i]] = true;
      }
      // Both blocks of an If, and a loop's body and continuing block, inherit what was
      // written before the statement; their own writes are not definite afterwards (the
      // continuing block may run after a continue that skipped the body's writes).
      if (s.op == Opcode::If || s.op == Opcode::Loop) {
        scan(s.body, written, flagged);
        scan(s.other, written, flagged);
      }
      if (s.dst != kNoReg) written[s.dst] = true;
    }
  }

  const Module& m_;
  LoweredCode out_;
  std::vector<uint32_t> loops_;  // mask-stack slot of each enclosing loop
  uint32_t depth_ = 0;
  uint32_t max_depth_ = 0;
};

}  // namespace

LoweredCode lower(const Module& module) {
  return Lowering(module).run();
}

}  // namespace wavestack::wave
