#include "wave/builder.hpp"

#include <iterator>
#include <utility>

#include "wave/errors.hpp"
#include "wave/verifier.hpp"

namespace wavestack::wave {

Builder::Builder(std::string kernel_name) {
  module_.name = std::move(kernel_name);
}

void Builder::check_name_free(const std::string& name) const {
  if (name.empty()) throw IrError("a parameter or shared array needs a name");
  for (const auto& s : module_.scalars) {
    if (s.name == name) throw IrError("name '" + name + "' is declared twice");
  }
  if (module_.find_mem(name)) throw IrError("name '" + name + "' is declared twice");
}

uint32_t Builder::add_buffer(const std::string& name, ScalarType element) {
  check_name_free(name);
  module_.buffers.push_back({name, element});
  const auto index = static_cast<uint32_t>(module_.buffers.size() - 1);
  module_.params.push_back({Param::Kind::Buffer, index});
  return index;
}

Reg Builder::add_scalar(const std::string& name, ScalarType type) {
  check_name_free(name);
  const Reg reg = new_reg(type);
  module_.scalars.push_back({name, type, reg});
  module_.params.push_back({Param::Kind::Scalar, static_cast<uint32_t>(module_.scalars.size() - 1)});
  return reg;
}

uint32_t Builder::add_shared(const std::string& name, ScalarType element, uint32_t count) {
  check_name_free(name);
  module_.shared.push_back({name, element, count});
  return static_cast<uint32_t>(module_.shared.size() - 1);
}

Reg Builder::new_reg(ScalarType type) {
  if (type == ScalarType::F16) throw IrError("f16 is a storage type; registers hold f32");
  module_.registers.push_back(type);
  return static_cast<Reg>(module_.registers.size() - 1);
}

ScalarType Builder::reg_type(Reg reg) const {
  if (reg >= module_.registers.size()) throw IrError("register %" + std::to_string(reg) + " does not exist");
  return module_.registers[reg];
}

std::vector<Stmt>& Builder::current() {
  if (finished_) throw IrError("the builder has already finished its module");
  if (open_.empty()) return module_.body;
  return open_.back().second_block ? open_.back().node->other : open_.back().node->body;
}

void Builder::constant(Reg dst, Value value, uint32_t line) {
  Stmt stmt;
  stmt.op = Opcode::Const;
  stmt.dst = dst;
  stmt.imm = value;
  stmt.line = line;
  current().push_back(std::move(stmt));
}

void Builder::constant_at_entry(Reg dst, Value value, uint32_t line) {
  if (finished_) throw IrError("the builder has already finished its module");
  Stmt stmt;
  stmt.op = Opcode::Const;
  stmt.dst = dst;
  stmt.imm = value;
  stmt.line = line;
  prologue_.push_back(std::move(stmt));
}

void Builder::emit(Opcode op, Reg dst, std::span<const Reg> args, uint32_t line, std::string_view mem, uint32_t dim) {
  const auto& info = op_info(op);
  if (info.op_class == OpClass::Control || op == Opcode::Const) {
    throw IrError(std::string(info.name) + " has its own builder call");
  }
  if (args.size() != info.operands) {
    throw IrError(std::string(info.name) + " takes " + std::to_string(info.operands) + " register operands");
  }
  Stmt stmt;
  stmt.op = op;
  stmt.dst = dst;
  for (size_t i = 0; i < args.size(); ++i) stmt.args[i] = args[i];
  stmt.line = line;
  stmt.dim = dim;
  if (!mem.empty()) {
    auto ref = module_.find_mem(mem);
    if (!ref) throw IrError("no buffer or shared array is named '" + std::string(mem) + "'");
    stmt.mem = *ref;
  }
  current().push_back(std::move(stmt));
}

void Builder::begin_if(Reg condition, uint32_t line) {
  Stmt stmt;
  stmt.op = Opcode::If;
  stmt.args[0] = condition;
  stmt.line = line;
  auto& block = current();
  block.push_back(std::move(stmt));
  open_.push_back({&block.back(), false});
}

void Builder::begin_else() {
  if (open_.empty() || open_.back().node->op != Opcode::If || open_.back().second_block) {
    throw IrError("begin_else without an open if");
  }
  open_.back().second_block = true;
}

void Builder::end_if() {
  if (open_.empty() || open_.back().node->op != Opcode::If) throw IrError("end_if without an open if");
  open_.pop_back();
}

void Builder::begin_loop(uint32_t line) {
  Stmt stmt;
  stmt.op = Opcode::Loop;
  stmt.line = line;
  auto& block = current();
  block.push_back(std::move(stmt));
  open_.push_back({&block.back(), false});
}

void Builder::begin_continuing() {
  if (open_.empty() || open_.back().node->op != Opcode::Loop || open_.back().second_block) {
    throw IrError("begin_continuing without an open loop");
  }
  open_.back().second_block = true;
}

void Builder::end_loop() {
  if (open_.empty() || open_.back().node->op != Opcode::Loop) throw IrError("end_loop without an open loop");
  open_.pop_back();
}

namespace {
Stmt bare(Opcode op, uint32_t line) {
  Stmt stmt;
  stmt.op = op;
  stmt.line = line;
  return stmt;
}
}  // namespace

void Builder::emit_break(uint32_t line) {
  current().push_back(bare(Opcode::Break, line));
}
void Builder::emit_continue(uint32_t line) {
  current().push_back(bare(Opcode::Continue, line));
}
void Builder::emit_return(uint32_t line) {
  current().push_back(bare(Opcode::Return, line));
}
void Builder::emit_barrier(uint32_t line) {
  current().push_back(bare(Opcode::Barrier, line));
}

Module Builder::finish() {
  if (!open_.empty()) throw IrError("an if or loop is still open");
  module_.body.insert(module_.body.begin(), std::make_move_iterator(prologue_.begin()),
                      std::make_move_iterator(prologue_.end()));
  prologue_.clear();
  verify(module_);
  finished_ = true;
  return std::move(module_);
}

}  // namespace wavestack::wave
