#include <charconv>
#include <string>

#include "wave/ir_text.hpp"

namespace wavestack::wave {
namespace {

// Built by appending: GCC 12 warns (-Wrestrict, falsely) on "%" + std::to_string(...).
std::string reg_name(Reg reg) {
  std::string text(1, '%');
  text.append(std::to_string(reg));
  return text;
}

// Shortest text that parses back to the same value (std::to_chars guarantees it).
template <class T>
std::string float_text(T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string constant_text(ScalarType type, const Value& v) {
  switch (type) {
    case ScalarType::Bool:
      return v.b ? "true" : "false";
    case ScalarType::I32:
      return std::to_string(v.i32);
    case ScalarType::U32:
      return std::to_string(v.u32);
    case ScalarType::I64:
      return std::to_string(v.i64);
    case ScalarType::U64:
      return std::to_string(v.u64);
    case ScalarType::F64:
      return float_text(v.f64);
    default:
      return float_text(v.f32);
  }
}

class Printer {
 public:
  explicit Printer(const Module& module) : m_(module) {}

  std::string run() {
    out_ += "kernel " + m_.name + "\n";
    out_ += "registers";
    for (auto type : m_.registers) out_ += " " + std::string(type_name(type));
    out_ += "\n";
    for (const auto& p : m_.params) {
      if (p.kind == Param::Kind::Buffer) {
        const auto& b = m_.buffers[p.index];
        out_ += "buffer " + b.name + ": " + std::string(type_name(b.element)) + "\n";
      } else {
        const auto& s = m_.scalars[p.index];
        out_ += "scalar " + s.name + ": " + std::string(type_name(s.type)) + " = " + reg_name(s.reg) + "\n";
      }
    }
    for (const auto& s : m_.shared) {
      out_ += "shared " + s.name + ": " + std::string(type_name(s.element)) + "[" + std::to_string(s.count) + "]\n";
    }
    out_ += "{\n";
    block(m_.body, 1);
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  void line(int depth, const std::string& text, uint32_t source_line) {
    out_.append(static_cast<size_t>(depth) * 2, ' ');
    out_ += text;
    if (source_line != 0) out_ += "  ; line " + std::to_string(source_line);
    out_ += "\n";
  }

  std::string def(const Stmt& s) const {
    return reg_name(s.dst) + ":" + std::string(type_name(m_.registers[s.dst])) + " = " +
           std::string(op_info(s.op).name);
  }

  std::string operands(const Stmt& s, int first, int count) const {
    std::string text;
    for (int i = first; i < count; ++i) text += (i > first ? ", " : "") + reg_name(s.args[i]);
    return text;
  }

  std::string mem_operand(const Stmt& s) const {
    return std::string(m_.mem_name(s.mem)) + "[" + reg_name(s.args[0]) + "]";
  }

  void block(const std::vector<Stmt>& stmts, int depth) {
    for (const auto& s : stmts) stmt(s, depth);
  }

  void stmt(const Stmt& s, int depth) {
    const auto& info = op_info(s.op);
    switch (info.op_class) {
      case OpClass::Const:
        line(depth, def(s) + " " + constant_text(m_.registers[s.dst], s.imm), s.line);
        return;
      case OpClass::Geometry: {
        std::string text = def(s);
        if (s.op == Opcode::Length) {
          text += " " + std::string(m_.mem_name(s.mem));
        } else if (s.op != Opcode::LaneId && s.op != Opcode::WaveWidth) {
          text += " " + std::to_string(s.dim);
        }
        line(depth, text, s.line);
        return;
      }
      case OpClass::Memory:
        if (s.op == Opcode::Load) {
          line(depth, def(s) + " " + mem_operand(s), s.line);
        } else {
          line(depth, "store " + mem_operand(s) + ", " + reg_name(s.args[1]), s.line);
        }
        return;
      case OpClass::Atomic:
        line(depth, def(s) + " " + mem_operand(s) + ", " + operands(s, 1, info.operands), s.line);
        return;
      case OpClass::Control:
        control(s, depth);
        return;
      default:
        line(depth, def(s) + " " + operands(s, 0, info.operands), s.line);
        return;
    }
  }

  void control(const Stmt& s, int depth) {
    switch (s.op) {
      case Opcode::If:
        line(depth, "if " + reg_name(s.args[0]) + " {", s.line);
        block(s.body, depth + 1);
        if (!s.other.empty()) {
          line(depth, "} else {", 0);
          block(s.other, depth + 1);
        }
        line(depth, "}", 0);
        return;
      case Opcode::Loop:
        line(depth, "loop {", s.line);
        block(s.body, depth + 1);
        if (!s.other.empty()) {
          line(depth, "} continuing {", 0);
          block(s.other, depth + 1);
        }
        line(depth, "}", 0);
        return;
      default:
        line(depth, std::string(op_info(s.op).name), s.line);
        return;
    }
  }

  const Module& m_;
  std::string out_;
};

}  // namespace

std::string print_module(const Module& module) {
  return Printer(module).run();
}

}  // namespace wavestack::wave
