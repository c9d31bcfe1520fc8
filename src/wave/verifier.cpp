#include "wave/verifier.hpp"

#include <set>
#include <string>

#include "wave/errors.hpp"

namespace wavestack::wave {
namespace {

bool is_numeric(ScalarType type) {
  return is_integer(type) || is_float(type);
}

class Verifier {
 public:
  explicit Verifier(const Module& module) : m_(module) {}

  void run() {
    std::set<std::string> names;
    auto declare = [&](const std::string& name) {
      if (name.empty() || !names.insert(name).second) fail_decl("name '" + name + "' is empty or declared twice");
    };
    for (const auto& b : m_.buffers) {
      declare(b.name);
      if (b.element == ScalarType::Bool) fail_decl("buffer '" + b.name + "' cannot hold bool");
    }
    for (const auto& s : m_.shared) {
      declare(s.name);
      if (s.element == ScalarType::Bool) fail_decl("shared array '" + s.name + "' cannot hold bool");
      if (s.count == 0) fail_decl("shared array '" + s.name + "' has no elements");
    }
    for (const auto& s : m_.scalars) {
      declare(s.name);
      if (s.reg >= m_.registers.size() || m_.registers[s.reg] != s.type || s.type == ScalarType::F16) {
        fail_decl("scalar '" + s.name + "' has a bad register");
      }
    }
    for (const auto& p : m_.params) {
      const size_t limit = p.kind == Param::Kind::Buffer ? m_.buffers.size() : m_.scalars.size();
      if (p.index >= limit) fail_decl("a parameter refers to a missing declaration");
    }
    if (m_.params.size() != m_.buffers.size() + m_.scalars.size()) fail_decl("parameters and declarations differ");
    for (auto type : m_.registers) {
      if (type == ScalarType::F16) fail_decl("a register has type f16 (a storage type)");
    }
    block(m_.body, 0);
  }

 private:
  [[noreturn]] void fail_decl(const std::string& what) const { throw IrError("kernel '" + m_.name + "': " + what); }
  [[noreturn]] void fail(const Stmt& s, const std::string& what) const {
    throw IrError("kernel '" + m_.name + "', line " + std::to_string(s.line) + ", " + std::string(op_info(s.op).name) +
                  ": " + what);
  }

  ScalarType reg(const Stmt& s, Reg r) const {
    if (r >= m_.registers.size()) fail(s, "register %" + std::to_string(r) + " does not exist");
    return m_.registers[r];
  }
  ScalarType arg(const Stmt& s, int i) const { return reg(s, s.args[i]); }
  ScalarType dst(const Stmt& s) const { return reg(s, s.dst); }
  ScalarType mem(const Stmt& s) const {
    const size_t limit = s.mem.kind == MemRef::Kind::Buffer ? m_.buffers.size() : m_.shared.size();
    if (s.mem.index >= limit) fail(s, "refers to a missing buffer or shared array");
    return m_.mem_element(s.mem);
  }
  void require(const Stmt& s, bool ok, const std::string& what) const {
    if (!ok) fail(s, what);
  }

  void block(const std::vector<Stmt>& stmts, int loop_depth) {
    for (const auto& s : stmts) stmt(s, loop_depth);
  }

  void stmt(const Stmt& s, int loop_depth) {
    const auto& info = op_info(s.op);
    switch (info.op_class) {
      case OpClass::Const:
        dst(s);
        break;
      case OpClass::Unary:
        unary(s);
        break;
      case OpClass::Binary: {
        const auto t = dst(s);
        require(s, arg(s, 0) == t && arg(s, 1) == t, "operands and result must have one type");
        if (s.op == Opcode::LogicAnd || s.op == Opcode::LogicOr) {
          require(s, t == ScalarType::Bool, "needs bool operands");
        } else if (s.op == Opcode::BitAnd || s.op == Opcode::BitOr || s.op == Opcode::BitXor) {
          require(s, is_integer(t) || t == ScalarType::Bool, "needs integer or bool operands");
        } else if (s.op == Opcode::Shl || s.op == Opcode::Shr) {
          require(s, is_integer(t), "needs integer operands");
        } else if (s.op == Opcode::Atan2 || s.op == Opcode::Hypot || s.op == Opcode::Fmod || s.op == Opcode::Copysign) {
          require(s, is_float(t), "needs f32 or f64 operands");
        } else {
          require(s, is_numeric(t), "needs numeric operands");
        }
        break;
      }
      case OpClass::Compare:
        require(s, dst(s) == ScalarType::Bool, "result must be bool");
        require(s, arg(s, 0) == arg(s, 1), "operands must have one type");
        require(s, s.op == Opcode::Eq || s.op == Opcode::Ne || is_numeric(arg(s, 0)), "needs numeric operands");
        break;
      case OpClass::Ternary:
        if (s.op == Opcode::Select) {
          require(s, arg(s, 0) == ScalarType::Bool, "condition must be bool");
          require(s, arg(s, 1) == dst(s) && arg(s, 2) == dst(s), "values and result must have one type");
        } else if (s.op == Opcode::CheckIndex) {
          const auto t = dst(s);
          require(s, is_integer(t) && arg(s, 0) == t && arg(s, 1) == t && arg(s, 2) == t,
                  "index, size, dimension and result must have one integer type");
        } else {
          const auto t = dst(s);
          require(s, is_numeric(t) && arg(s, 0) == t && arg(s, 1) == t && arg(s, 2) == t,
                  "operands and result must have one numeric type");
        }
        break;
      case OpClass::Geometry:
        require(s, dst(s) == ScalarType::I32, "result must be i32");
        require(s, s.dim < 3, "dimension must be 0, 1 or 2");
        if (s.op == Opcode::Length) mem(s);
        break;
      case OpClass::Memory: {
        const auto element = mem(s);
        require(s, is_integer(arg(s, 0)), "index must be an integer");
        const auto value = s.op == Opcode::Load ? dst(s) : arg(s, 1);
        require(s, value == register_type_of_element(element),
                "value must be " + std::string(type_name(register_type_of_element(element))));
        break;
      }
      case OpClass::Atomic: {
        const auto element = mem(s);
        require(s, is_integer(arg(s, 0)), "index must be an integer");
        require(s, element != ScalarType::F16, "f16 storage has no atomics");
        require(s, dst(s) == element && arg(s, 1) == element, "value and result must match the element type");
        const bool integer_only = s.op == Opcode::AtomicAnd || s.op == Opcode::AtomicOr || s.op == Opcode::AtomicXor ||
                                  s.op == Opcode::AtomicCas;
        require(s, !integer_only || is_integer(element), "needs an integer element type");
        if (s.op == Opcode::AtomicCas) require(s, arg(s, 2) == element, "new value must match the element type");
        break;
      }
      case OpClass::Wave:
        wave(s);
        break;
      case OpClass::Control:
        control(s, loop_depth);
        break;
    }
  }

  void unary(const Stmt& s) {
    const auto t = dst(s);
    const auto a = arg(s, 0);
    switch (s.op) {
      case Opcode::Cvt:
        break;
      case Opcode::Mov:
        require(s, a == t, "operand and result must have one type");
        break;
      case Opcode::Not:
        require(s, a == t && t == ScalarType::Bool, "needs bool");
        break;
      case Opcode::BitNot:
        require(s, a == t && is_integer(t), "needs an integer");
        break;
      case Opcode::Neg:
      case Opcode::Abs:
        require(s, a == t && is_numeric(t), "needs a number");
        break;
      case Opcode::IsNan:
      case Opcode::IsInf:
      case Opcode::IsFinite:
        require(s, is_float(a) && t == ScalarType::Bool, "maps f32 or f64 to bool");
        break;
      default:
        require(s, a == t && is_float(t), "needs f32 or f64");
        break;
    }
  }

  void wave(const Stmt& s) {
    const auto t = dst(s);
    switch (s.op) {
      case Opcode::WaveBroadcast:
      case Opcode::WaveShuffle:
        require(s, arg(s, 0) == t && is_integer(arg(s, 1)), "needs a value and an integer lane");
        break;
      case Opcode::WaveAny:
      case Opcode::WaveAll:
        require(s, t == ScalarType::Bool && arg(s, 0) == t, "needs bool");
        break;
      case Opcode::WaveBallot:
        require(s, t == ScalarType::U64 && arg(s, 0) == ScalarType::Bool, "maps bool to u64");
        break;
      default:
        require(s, arg(s, 0) == t && is_numeric(t), "needs a number");
        break;
    }
  }

  void control(const Stmt& s, int loop_depth) {
    switch (s.op) {
      case Opcode::If:
        require(s, arg(s, 0) == ScalarType::Bool, "condition must be bool");
        block(s.body, loop_depth);
        block(s.other, loop_depth);
        break;
      case Opcode::Loop:
        block(s.body, loop_depth + 1);
        // break and continue belong to the body; the continuing block only advances the loop
        block(s.other, 0);
        break;
      case Opcode::Break:
      case Opcode::Continue:
        require(s, loop_depth > 0, "outside a loop body");
        break;
      default:
        break;
    }
  }

  const Module& m_;
};

}  // namespace

void verify(const Module& module) {
  Verifier(module).run();
}

}  // namespace wavestack::wave
